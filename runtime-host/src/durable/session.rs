//! One run's relation to records: before it starts, what it replays and
//! whether it records (checking a record or continuation it was given);
//! after it ends, its record and, if a binding interrupted it, its
//! continuation.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use super::{
    CONTINUATION_FORMAT, CallOutcome, Continuation, DurableError, FORMAT_VERSION, Interrupted,
    Interruption, Ledger, RECORD_FORMAT, RecordedBudgets, RecordedNamespace, RunRecord, describe,
    sha256_hex, shown, sign, verify,
};
use crate::bindings::{self, CodeBindingNamespace};
use crate::clock::Clock;
use crate::config::RuntimeConfig;
use crate::request::Durable;

/// SHA-256 of the guest this runtime runs, computed once per process.
pub(crate) fn guest_sha256() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| sha256_hex(coderun_guest::WASM))
}

/// What a run replays and whether it records.
pub(crate) struct Session {
    pub(crate) seed: u64,
    pub(crate) clock: Clock,
    pub(crate) time_zone: Option<String>,
    recording: bool,
    replay: Option<(Vec<super::RecordedCall>, bool)>,
}

impl Session {
    /// Checks what the request replays or resumes and settles its seed.
    /// A replay's bindings become the recorded ones.
    pub(crate) fn new(
        config: &RuntimeConfig,
        durable: Option<Durable>,
        (seed, clock, record, time_zone): (Option<u64>, Clock, bool, Option<String>),
        program: &str,
        bindings: &mut Vec<CodeBindingNamespace>,
    ) -> Result<Self, DurableError> {
        let seed = seed.unwrap_or_else(fresh_seed);
        let mut session = Self {
            seed,
            clock,
            time_zone,
            recording: record,
            replay: None,
        };
        match durable {
            None => {}
            // The request's program may differ from the record's: the
            // ledger's checks then say where it diverges.
            Some(Durable::Replay(record)) => {
                record.check(guest_sha256())?;
                // Replayed as it is, a record must hold the program it ran:
                // one whose program was edited in the file (its hash no
                // longer matching) would otherwise replay without a word.
                if program == record.program
                    && sha256_hex(program.as_bytes()) != record.program_sha256
                {
                    return Err(DurableError::RecordEdited);
                }
                *bindings = bindings::recorded_namespaces(&record.bindings);
                // Local time as the run saw it, whatever the request says.
                session.time_zone = record.time_zone;
                session.replay = Some((record.calls, false));
            }
            Some(Durable::Resume {
                continuation,
                answer,
            }) => {
                continuation.check()?;
                if let Some(key) = config.get_continuation_key() {
                    verify(&continuation, key, now_ms())?;
                }
                let Continuation { record, step, .. } = *continuation;
                record.check(guest_sha256())?;
                if record.program != program
                    || sha256_hex(program.as_bytes()) != record.program_sha256
                {
                    return Err(DurableError::ProgramMismatch);
                }
                let given = recorded_bindings(bindings);
                if given != record.bindings {
                    return Err(DurableError::BindingMismatch {
                        recorded: shown(&describe(&record.bindings)),
                        given: shown(&describe(&given)),
                    });
                }
                session.time_zone = record.time_zone;
                let mut calls = record.calls;
                if let Some(call) = usize::try_from(step - 1)
                    .ok()
                    .and_then(|index| calls.get_mut(index))
                {
                    call.outcome = match answer {
                        Ok(value) => CallOutcome::Ok(value),
                        Err(message) => CallOutcome::Error(message),
                    };
                }
                session.replay = Some((calls, true));
            }
        }
        Ok(session)
    }

    /// The ledger the run's calls go through.
    pub(crate) fn ledger(&mut self, max_bytes: usize) -> Ledger {
        match self.replay.take() {
            Some((calls, resume)) => Ledger::replaying(calls, resume, max_bytes),
            None => Ledger::live(self.recording, max_bytes),
        }
    }

    /// The run's record (when it recorded) and, when a binding interrupted
    /// it, what the result reports.
    pub(crate) fn finish(
        self,
        config: &RuntimeConfig,
        program: String,
        bindings: Vec<RecordedNamespace>,
        ledger: Ledger,
        interruption: Option<Interruption>,
    ) -> (Option<RunRecord>, Option<Interrupted>) {
        let Some(calls) = ledger.into_calls() else {
            return (None, None);
        };
        let program_sha256 = sha256_hex(program.as_bytes());
        let record = RunRecord {
            format: RECORD_FORMAT.to_owned(),
            version: FORMAT_VERSION,
            guest_sha256: guest_sha256().to_owned(),
            program,
            program_sha256,
            seed: self.seed,
            clock: self.clock,
            time_zone: self.time_zone,
            budgets: RecordedBudgets {
                fuel: config.get_fuel(),
                fuel_metering: config.get_fuel_metering(),
                wall_clock_ms: u64::try_from(config.get_wall_clock().as_millis())
                    .unwrap_or(u64::MAX),
                max_memory_bytes: config.get_max_memory_bytes(),
            },
            bindings,
            calls,
        };
        let Some(Interruption { step, payload }) = interruption else {
            return (Some(record), None);
        };
        let call = usize::try_from(step - 1)
            .ok()
            .and_then(|index| record.calls.get(index))
            .map_or_else(String::new, |call| {
                bindings::property_access(&call.namespace, &call.function)
            });
        let mut continuation = Continuation {
            format: CONTINUATION_FORMAT.to_owned(),
            version: FORMAT_VERSION,
            record: record.clone(),
            step,
            expires_at_ms: None,
            signature: None,
        };
        if let Some(key) = config.get_continuation_key() {
            let ttl = u64::try_from(config.get_continuation_ttl().as_millis()).unwrap_or(u64::MAX);
            sign(&mut continuation, key, now_ms().saturating_add(ttl));
        }
        let interrupted = Interrupted {
            payload,
            call,
            step,
            continuation,
        };
        (Some(record), Some(interrupted))
    }
}

/// The namespaces and function names of `bindings`, as a record has them.
fn recorded_bindings(bindings: &[CodeBindingNamespace]) -> Vec<RecordedNamespace> {
    bindings
        .iter()
        .map(|namespace| RecordedNamespace {
            global: namespace.global().to_owned(),
            functions: namespace.functions().keys().cloned().collect(),
        })
        .collect()
}

/// Milliseconds since the Unix epoch, by the host's clock.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis()
        .try_into()
        .unwrap_or(u64::MAX)
}

/// A seed from the operating system's generator.
fn fresh_seed() -> u64 {
    use rand::TryRng as _;
    let mut bytes = [0u8; 8];
    match rand::rngs::SysRng.try_fill_bytes(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes),
        // Without the OS generator, a seed still differs from run to run.
        Err(_) => {
            use std::hash::{BuildHasher, RandomState};
            RandomState::new().hash_one(SystemTime::now())
        }
    }
}
