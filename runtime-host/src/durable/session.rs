//! One run's relation to records: before it starts, what it replays and
//! whether it records (checking a record or continuation it was given);
//! after it ends, its record and, if a binding interrupted it, its
//! continuation.

use std::cell::RefCell;
use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use rand::rngs::{StdRng, SysRng};
use rand::{Rng as _, SeedableRng as _, TryRng as _};

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
    /// it, what the result reports. `bindings` are read only for a record:
    /// most runs keep none, and a registry's names would be copied for
    /// nothing.
    pub(crate) fn finish(
        self,
        config: &RuntimeConfig,
        program: String,
        bindings: impl FnOnce() -> Vec<RecordedNamespace>,
        ledger: Ledger,
        interruption: Option<Interruption>,
    ) -> (Option<RunRecord>, Option<Interrupted>) {
        let Some(calls) = ledger.into_calls() else {
            return (None, None);
        };
        let bindings = bindings();
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
            functions: namespace.names().map(str::to_owned).collect(),
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

/// Seeds a thread draws from its generator before reseeding it from the
/// operating system's.
const SEEDS_PER_RESEED: u32 = 4096;

/// A seed from this thread's generator: a ChaCha stream (`StdRng`) seeded
/// from the operating system's generator, and reseeded from it every
/// [`SEEDS_PER_RESEED`] seeds. A seed is as unpredictable as one asked of
/// the system, without a `getrandom` call in every run (about 0.2 µs of a
/// 21 µs cold run). Without the system's generator the first seed comes
/// from std's per-process hash keys and the clock, and a failed reseed
/// keeps the stream going.
fn fresh_seed() -> u64 {
    thread_local! {
        static SEEDS: RefCell<Option<(StdRng, u32)>> = const { RefCell::new(None) };
    }
    let from_system = || {
        let mut seed = <StdRng as rand::SeedableRng>::Seed::default();
        SysRng.try_fill_bytes(&mut seed).ok().map(|()| seed)
    };
    SEEDS.with(|cell| {
        let mut state = cell.borrow_mut();
        let (stream, drawn) = state.get_or_insert_with(|| {
            let stream = match from_system() {
                Some(seed) => StdRng::from_seed(seed),
                None => StdRng::seed_from_u64(RandomState::new().hash_one(SystemTime::now())),
            };
            (stream, 0)
        });
        *drawn += 1;
        if *drawn >= SEEDS_PER_RESEED {
            *drawn = 0;
            if let Some(seed) = from_system() {
                *stream = StdRng::from_seed(seed);
            }
        }
        stream.next_u64()
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::{SEEDS_PER_RESEED, fresh_seed};

    #[test]
    fn fresh_seeds_do_not_repeat_across_a_reseed_or_between_threads() {
        let count = 2 * SEEDS_PER_RESEED as usize + 10;
        let mut seen: HashSet<u64> = (0..count).map(|_| fresh_seed()).collect();
        assert_eq!(seen.len(), count, "a seed repeated on one thread");
        // Another thread's stream is seeded apart from this one's.
        let others = std::thread::spawn(|| (0..100).map(|_| fresh_seed()).collect::<Vec<_>>())
            .join()
            .expect("the other thread drew its seeds");
        for seed in others {
            assert!(seen.insert(seed), "two threads drew the same seed");
        }
    }
}
