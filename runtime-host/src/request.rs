//! What a run is given: the program, its bindings, an optional abort
//! signal, and how it relates to time and to a record: its seed and clock,
//! whether to record it, or the record it replays or resumes.

use serde_json::Value;

use crate::abort::AbortSignal;
use crate::bindings::CodeBindingNamespace;
use crate::clock::Clock;
use crate::durable::{Continuation, RunRecord};
use crate::egress::NetworkPolicy;

/// One run: the program and everything the runtime acts on. Budgets are the
/// runtime's configuration, never part of a request.
#[derive(Clone, Debug)]
pub struct CodeRunRequest {
    /// TypeScript source, run as the body of an async function: top-level
    /// `await` and `return` work, and the returned value becomes the result's
    /// value.
    pub program: String,
    /// One global object of async functions per namespace.
    pub bindings: Vec<CodeBindingNamespace>,
    /// Aborts the run, hard, even mid-loop; the result is an `abort` failure
    /// carrying the signal's reason.
    pub signal: Option<AbortSignal>,
    /// The seed of `Math.random` and `crypto.getRandomValues`; `None`: a
    /// fresh one from the operating system (the record keeps it).
    pub seed: Option<u64>,
    /// The clock `Date`, `performance.now()` and the timers read.
    pub clock: Clock,
    /// Whether the result carries the run's record (and whether a binding
    /// may interrupt it).
    pub record: bool,
    /// JavaScript the runtime runs before the program: an embedder's adapter
    /// of its bindings (Code Mode wraps `tools` with it), never text a model
    /// wrote. It is global code, not strict (as the program is), run once
    /// the bindings are installed and before the program is compiled; its
    /// top-level declarations are visible to the program, so wrap them in a
    /// block. The runtime compiles a preamble once, in an instance of its
    /// own, and keeps up to 16 compiled: no run's fuel counts compiling
    /// it, so a program burns the same fuel whether or not its preamble was
    /// met before. One line: a line terminator in it is a misuse of the API.
    /// An error thrown inside it names `preamble.js:1:<column>`; one that
    /// does not compile fails the run as an exception that says so. By
    /// default there is none.
    pub preamble: Option<String>,
    /// The time zone of local time: `Date`'s local fields and text and
    /// `Intl.DateTimeFormat`'s default zone. An IANA name
    /// (`America/New_York`), `UTC`, or an offset (`+05:30`); `None`: UTC,
    /// whatever the host's zone. The guest's bundled time zone database
    /// answers, never the host's; a name it lacks ends the run as an
    /// `exception` (`RangeError`) that says so. Records keep it.
    pub time_zone: Option<String>,
    /// What the program's `fetch` may reach in this run, replacing the
    /// runtime's policy ([`RuntimeConfig::network`](crate::RuntimeConfig::network));
    /// `None`: the runtime's. A replayed fetch is answered from the record
    /// without it.
    pub network: Option<NetworkPolicy>,
    pub(crate) durable: Option<Durable>,
}

/// A request that replays or resumes a record.
#[derive(Clone, Debug)]
pub(crate) enum Durable {
    Replay(Box<RunRecord>),
    Resume {
        continuation: Box<Continuation>,
        answer: Result<Value, String>,
    },
}

impl CodeRunRequest {
    /// A request for `program` with no bindings and no signal, on the real
    /// clock with a fresh seed, not recorded.
    pub fn new(program: impl Into<String>) -> Self {
        Self {
            program: program.into(),
            bindings: Vec::new(),
            signal: None,
            seed: None,
            clock: Clock::Real,
            record: false,
            preamble: None,
            time_zone: None,
            network: None,
            durable: None,
        }
    }

    /// Runs `record`'s program again with its seed and clock, its calls
    /// answered by the record and checked against it; no binding is called
    /// (the request's bindings are not used). A call that differs, one
    /// past the record's, or a program that stops short of them ends the
    /// run as `diverged`, naming the step. The result carries the new
    /// record. Set `program` afterwards to check an edited program
    /// against the record.
    pub fn replay(record: RunRecord) -> Self {
        let mut request = Self::new(record.program.clone());
        request.seed = Some(record.seed);
        request.clock = record.clock;
        request.time_zone = record.time_zone.clone();
        request.record = true;
        request.durable = Some(Durable::Replay(Box::new(record)));
        request
    }

    /// Resumes an interrupted run: replays its record without calling any
    /// binding, delivers `answer` as the interrupted call's result (`Err`:
    /// the call rejects with that message), and goes on live with the
    /// request's bindings, which must be the recorded ones (add them with
    /// [`binding`](Self::binding)). The result is recorded; it may be
    /// interrupted again.
    pub fn resume(continuation: Continuation, answer: Result<Value, String>) -> Self {
        let mut request = Self::new(continuation.record.program.clone());
        request.seed = Some(continuation.record.seed);
        request.clock = continuation.record.clock;
        request.time_zone = continuation.record.time_zone.clone();
        request.record = true;
        request.durable = Some(Durable::Resume {
            continuation: Box::new(continuation),
            answer,
        });
        request
    }

    /// Adds a binding namespace.
    pub fn binding(mut self, namespace: CodeBindingNamespace) -> Self {
        self.bindings.push(namespace);
        self
    }

    /// Sets the abort signal.
    pub fn signal(mut self, signal: AbortSignal) -> Self {
        self.signal = Some(signal);
        self
    }

    /// Sets the seed (the `seed` field).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Sets the time zone of local time (the `time_zone` field).
    pub fn time_zone(mut self, zone: impl Into<String>) -> Self {
        self.time_zone = Some(zone.into());
        self
    }

    /// Sets the clock.
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Deterministic mode: the seed and a virtual clock from `epoch_ms`.
    /// The same program, seed, epoch and binding results give the same
    /// value, logs, failure and fuel, every time.
    pub fn deterministic(self, seed: u64, epoch_ms: u64) -> Self {
        self.seed(seed).clock(Clock::Virtual { epoch_ms })
    }

    /// Sets the preamble (the `preamble` field).
    pub fn preamble(mut self, preamble: impl Into<String>) -> Self {
        self.preamble = Some(preamble.into());
        self
    }

    /// Sets the run's network policy (the `network` field).
    pub fn network(mut self, policy: NetworkPolicy) -> Self {
        self.network = Some(policy);
        self
    }

    /// Asks for the run's record in the result, and lets bindings
    /// interrupt the run.
    pub fn record(mut self, record: bool) -> Self {
        self.record = record;
        self
    }
}
