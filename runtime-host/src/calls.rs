//! The binding calls of one run, and the host imports of the boundary.
//!
//! Each binding call the guest starts is checked, recorded in the run's
//! ledger (when the run records), answered from the record (when it
//! replays), or polled once inside `start-call` and otherwise spawned on
//! tokio to report back through a per-run channel (made by the first call
//! spawned: most runs spawn none). `wait-settled` delivers
//! one settled call, in the order the run's mode gives: the record's order
//! for replayed calls, then start order on a virtual clock, else arrival
//! order; or waits for a timer. A call that is ready at its first poll
//! arrives at once; when it is then the next call to deliver (see
//! `Calls::deliver_at_once`), `start-call` delivers it itself, saving the
//! guest a `wait-settled`. When the run is over the store is dropped, and
//! with it the channel's receiver: a call that settles later has nowhere to
//! go.
//!
//! Everything the guest sends is checked here: indices, JSON, sizes, the
//! number of calls in flight. A violation of the protocol traps the run; it
//! never panics the host.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures::FutureExt;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::bindings::{self, BindingResult, Callees};
use crate::clock::RunClock;
use crate::config::RuntimeConfig;
use crate::durable::{CallOutcome, Delivery, Divergence, Interruption, Ledger};
use crate::egress::{self, RunEgress};
use crate::failure::ProtocolViolation;
use crate::guest::{
    CallArgs, FetchRequest, Host, LogLevel as GuestLogLevel, Namespace, SettledCall, StartedCall,
};
use crate::json;
use crate::result::LogLevel;
use crate::store::RunState;
use crate::transform::SCRIPT_FILE;
use crate::value;
use coderun_render::TapeError;

mod fetch;
mod outcome;

/// A live call's outcome, as it arrives from its task.
pub(crate) enum Arrival {
    Binding(BindingResult),
    Fetch(egress::Answer),
}

/// A call's outcome, ready to deliver.
enum Settled {
    /// The resolved value's JSON.
    Value(String),
    /// The rejection's message (capped).
    Error(String),
    Interrupt(Value),
    /// A replayed call that never settled in the recorded run.
    Never,
}

/// A delivered call's outcome, as the program is given it.
enum Handover {
    /// `Ok`: the resolved value's JSON; `Err`: the rejection's message.
    Outcome(Result<String, String>),
    /// The call asked to interrupt the run: the run ends instead.
    Interrupt(Value),
}

/// A spawned call's report: its id and its outcome, boxed so that the
/// channel's block of slots (allocated whole, and held as long as the run
/// is) is 16 bytes a slot rather than an outcome's hundred and more.
type Report = (u64, Box<Arrival>);

struct Channel {
    sender: mpsc::UnboundedSender<Report>,
    receiver: mpsc::UnboundedReceiver<Report>,
}

/// The binding calls of one run.
pub(crate) struct Calls {
    /// The namespaces as the guest was told them: how records and
    /// messages name each binding. Shared with the run's plan, not copied
    /// binding by binding on every run.
    names: Arc<[Namespace]>,
    /// Each namespace's functions, in the same order.
    functions: Vec<Callees>,
    ledger: Ledger,
    clock: RunClock,
    next_id: u64,
    max_pending: usize,
    /// An argument's JSON may be as long as a returned value's.
    max_argument_bytes: usize,
    /// A rejection's message enters the guest capped like a failure's.
    max_error_bytes: usize,
    /// Started and not yet delivered.
    in_flight: BTreeSet<u64>,
    /// Live calls spawned and not yet arrived.
    outstanding: usize,
    /// Settled and not yet delivered.
    settled: BTreeMap<u64, Settled>,
    /// Live calls, in the order they settled.
    arrivals: VecDeque<u64>,
    /// Replayed calls that settled in the record, by the rank their
    /// delivery had there (calls never delivered last, by step).
    replayed: BTreeMap<(u64, u64), u64>,
    /// Where spawned calls report back: made by the first one, as most
    /// runs spawn none (they call nothing, or their calls are ready at
    /// their first poll).
    channel: Option<Channel>,
    /// The run's `fetch` calls: its policy, and what they hold.
    egress: RunEgress,
}

impl Calls {
    pub(crate) fn new(
        config: &RuntimeConfig,
        names: Arc<[Namespace]>,
        functions: Vec<Callees>,
        ledger: Ledger,
        clock: RunClock,
        egress: RunEgress,
    ) -> Self {
        Self {
            names,
            functions,
            ledger,
            clock,
            next_id: 1,
            max_pending: config.get_max_pending_calls(),
            max_argument_bytes: config.get_max_value_bytes(),
            max_error_bytes: config.get_max_error_bytes(),
            in_flight: BTreeSet::new(),
            outstanding: 0,
            settled: BTreeMap::new(),
            arrivals: VecDeque::new(),
            replayed: BTreeMap::new(),
            channel: None,
            egress,
        }
    }

    /// How many calls the program started.
    pub(crate) fn made(&self) -> u64 {
        self.next_id - 1
    }

    pub(crate) fn into_ledger(self) -> Ledger {
        self.ledger
    }

    /// Buffers a live call's outcome as it arrives, and records it.
    fn arrive(&mut self, id: u64, arrival: Arrival) -> wasmtime::Result<()> {
        let (settled, recorded, bytes) = match arrival {
            Arrival::Binding(result) => self.binding_outcome(result),
            Arrival::Fetch(answer) => self.fetch_outcome(id, answer),
        };
        if let Some(recorded) = recorded {
            self.ledger.settled(id, recorded, bytes)?;
        }
        self.settled.insert(id, settled);
        self.arrivals.push_back(id);
        Ok(())
    }

    /// Why no call may start now, if the program has too many in flight.
    fn no_room(&self, held: u32) -> Option<String> {
        // A guest that understates `held` only keeps more outcomes in its
        // own memory: the host holds none of them.
        (self.in_flight.len().saturating_add(held as usize) >= self.max_pending).then(|| {
            format!(
                "too many binding calls in flight: at most {} may be pending at once \
                 (config.max_pending_calls); await some before starting more",
                self.max_pending
            )
        })
    }

    /// Call `id`, answered from the record: delivered in the record's order.
    fn replayed(&mut self, id: u64, settled: Settled, rank: Option<u64>) {
        if !matches!(settled, Settled::Never) {
            self.replayed.insert((rank.unwrap_or(u64::MAX), id), id);
        }
        self.settled.insert(id, settled);
    }

    /// Runs live call `id` on a task of its own; it reports back through
    /// the run's channel.
    fn spawn(&mut self, id: u64, call: futures::future::BoxFuture<'static, Arrival>) {
        self.outstanding += 1;
        let channel = self.channel.get_or_insert_with(|| {
            let (sender, receiver) = mpsc::unbounded_channel();
            Channel { sender, receiver }
        });
        let sender = channel.sender.clone();
        tokio::spawn(async move {
            let arrival = Box::new(call.await);
            // The run may be over; then nobody listens and that is fine.
            let _ = sender.send((id, arrival));
        });
    }

    /// The next spawned call's report; an error when none can come (the
    /// callers wait only while a spawned call is outstanding).
    async fn receive(&mut self) -> wasmtime::Result<Report> {
        match &mut self.channel {
            Some(channel) => channel.receiver.recv().await,
            None => None,
        }
        .ok_or_else(|| ProtocolViolation("the call channel closed".into()).into())
    }

    /// The next call to deliver, if one is ready.
    fn next_ready(&mut self) -> Option<u64> {
        if let Some((&rank, &id)) = self.replayed.iter().next() {
            self.replayed.remove(&rank);
            return Some(id);
        }
        if self.clock.is_virtual() {
            // Start order: the earliest live call in flight, once it settled.
            let earliest = self
                .in_flight
                .iter()
                .copied()
                .find(|id| !matches!(self.settled.get(id), Some(Settled::Never)))?;
            if !self.settled.contains_key(&earliest) {
                return None;
            }
            self.arrivals.retain(|&id| id != earliest);
            return Some(earliest);
        }
        self.arrivals.pop_front()
    }

    /// Waits until every live call in flight has arrived (before the run
    /// ends as interrupted, so the record holds their outcomes).
    async fn drain(&mut self) -> wasmtime::Result<()> {
        while self.outstanding > 0 {
            let (id, arrival) = self.receive().await?;
            self.outstanding -= 1;
            self.arrive(id, *arrival)?;
        }
        Ok(())
    }

    /// Gives the program call `id`'s outcome.
    async fn deliver(&mut self, id: u64) -> wasmtime::Result<SettledCall> {
        match self.hand_over(id)? {
            Handover::Outcome(outcome) => Ok(SettledCall { id, outcome }),
            Handover::Interrupt(payload) => {
                self.drain().await?;
                Err(Interruption { step: id, payload }.into())
            }
        }
    }

    /// Takes call `id`'s outcome for the program and records it delivered.
    fn hand_over(&mut self, id: u64) -> wasmtime::Result<Handover> {
        self.in_flight.remove(&id);
        let settled = self.settled.remove(&id);
        self.ledger.delivered(id);
        match settled {
            Some(Settled::Value(json)) => Ok(Handover::Outcome(Ok(json))),
            Some(Settled::Error(message)) => Ok(Handover::Outcome(Err(message))),
            Some(Settled::Interrupt(payload)) => Ok(Handover::Interrupt(payload)),
            Some(Settled::Never) | None => {
                Err(ProtocolViolation(format!("call {id} was delivered unsettled")).into())
            }
        }
    }

    /// Live call `id`, which just arrived, delivered with its start: only
    /// when it is the call the next `wait-settled` would deliver (nothing
    /// replayed or arrived before it waits, so `next_ready` would return
    /// it), the clock is real (a deterministic run's fuel must not depend
    /// on how soon a binding answered), and it does not ask to interrupt
    /// the run (which ends the run from `wait-settled`). The guest gives the
    /// program the outcome where it would have called `wait-settled`, so
    /// the program, and a replay of its record, see the same order.
    fn deliver_at_once(&mut self, id: u64) -> wasmtime::Result<Option<Result<String, String>>> {
        let next = self.replayed.is_empty() && self.arrivals.len() == 1;
        if !next
            || self.clock.is_virtual()
            || matches!(self.settled.get(&id), Some(Settled::Interrupt(_)))
        {
            return Ok(None);
        }
        self.arrivals.clear();
        match self.hand_over(id)? {
            Handover::Outcome(outcome) => Ok(Some(outcome)),
            Handover::Interrupt(_) => Err(ProtocolViolation(format!(
                "call {id} asked to interrupt the run as it started"
            ))
            .into()),
        }
    }
}

/// A call's argument as a value and the bytes of its JSON, or why it is
/// refused: over `max_bytes` bytes of JSON, or not readable.
pub(crate) fn argument(args: CallArgs, max_bytes: usize) -> Result<(Value, usize), String> {
    let too_large = |bytes: &dyn std::fmt::Display| {
        format!(
            "the argument is {bytes} bytes of JSON, more than config.max_value_bytes \
             ({max_bytes}); pass less data per call"
        )
    };
    match args {
        CallArgs::Json(text) => {
            if text.len() > max_bytes {
                return Err(too_large(&text.len()));
            }
            json::parse(&text)
                .map(|value| (value, text.len()))
                .map_err(|error| format!("the argument cannot be sent: {error}"))
        }
        CallArgs::Tape(tape) => {
            let cannot =
                |error: &dyn std::fmt::Display| format!("the argument cannot be sent: {error}");
            if tape.len() > value::max_tape_bytes(max_bytes) {
                return Err(cannot(&format!(
                    "its tape is {} bytes, more than the guest writes for a cap of {max_bytes}",
                    tape.len()
                )));
            }
            let rendered = value::with_stack_for(&tape, || {
                coderun_render::render_tape(&tape, max_bytes, None)
            });
            let text = match rendered {
                Ok(rendered) => rendered.json,
                Err(TapeError::TooLarge(_)) => return Err(too_large(&format!("over {max_bytes}"))),
                Err(error) => return Err(cannot(&error)),
            };
            if text.len() > max_bytes {
                return Err(too_large(&text.len()));
            }
            json::parse(&text)
                .map(|value| (value, text.len()))
                .map_err(|error| cannot(&error))
        }
    }
}

impl Host for RunState {
    fn start_call(
        &mut self,
        namespace: u32,
        function: u32,
        args: CallArgs,
        held: u32,
    ) -> wasmtime::Result<Result<StartedCall, String>> {
        let calls = &mut self.calls;
        let found = calls.names.get(namespace as usize).and_then(|names| {
            let name = bindings::function_name(names, function as usize)?;
            Some((names, name, calls.functions.get(namespace as usize)?))
        });
        let Some((names, name, called)) = found else {
            return Err(ProtocolViolation(format!(
                "start-call named binding {namespace}/{function}, which was never declared"
            ))
            .into());
        };
        if let Some(refusal) = calls.no_room(held) {
            return Ok(Err(refusal));
        }
        let (args, bytes) = match argument(args, calls.max_argument_bytes) {
            Ok(args) => args,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let id = calls.next_id;
        let label = || bindings::property_access(&names.global, name);
        let names = (names.global.as_str(), name, &label as &dyn Fn() -> String);
        let delivery = calls.ledger.start(id, names, &args, bytes)?;
        calls.next_id += 1;
        calls.in_flight.insert(id);
        if let Delivery::Replayed { outcome, rank } = delivery {
            let settled = match outcome {
                CallOutcome::Ok(value) => Settled::Value(value.to_string()),
                CallOutcome::Error(message) => Settled::Error(message),
                CallOutcome::Interrupt(payload) => Settled::Interrupt(payload),
                CallOutcome::Unsettled => Settled::Never,
            };
            calls.replayed(id, settled, rank);
            return Ok(Ok(StartedCall { id, settled: None }));
        }
        // A panicking binding is a host bug, but it must not leave the
        // program waiting forever or take the run down with it.
        let panicked = || Err("the binding panicked".into());
        let mut call = match std::panic::catch_unwind(AssertUnwindSafe(|| {
            called.call(function as usize, name, args)
        })) {
            Ok(call) => AssertUnwindSafe(call)
                .catch_unwind()
                .map(move |result| result.unwrap_or_else(|_| panicked()))
                .boxed(),
            Err(_) => futures::future::ready(panicked()).boxed(),
        };
        // Poll once here: a binding that is ready at once (a cache hit, a
        // pure computation) settles without a task, a channel or a wake-up.
        // The no-op waker is sound because a pending call is spawned, and
        // the task polls it again with a real waker.
        let mut cx = Context::from_waker(Waker::noop());
        if let Poll::Ready(result) = call.as_mut().poll(&mut cx) {
            calls.arrive(id, Arrival::Binding(result))?;
            let settled = calls.deliver_at_once(id)?;
            return Ok(Ok(StartedCall { id, settled }));
        }
        calls.spawn(id, call.map(Arrival::Binding).boxed());
        Ok(Ok(StartedCall { id, settled: None }))
    }

    async fn wait_settled(
        &mut self,
        timeout_ms: Option<u64>,
    ) -> wasmtime::Result<Option<SettledCall>> {
        let calls = &mut self.calls;
        loop {
            if let Some(id) = calls.next_ready() {
                return calls.deliver(id).await.map(Some);
            }
            if calls.outstanding == 0 {
                // Nothing can arrive: only a timer can be waited for.
                let Some(ms) = timeout_ms else {
                    return Err(match calls.in_flight.first() {
                        Some(&step) => Divergence {
                            step,
                            what: "the program waited for this call, which never settled in \
                                   the recorded run"
                                .into(),
                        }
                        .into(),
                        None => {
                            ProtocolViolation("wait-settled with no call in flight".into()).into()
                        }
                    });
                };
                calls.clock.wait(ms).await;
                return Ok(None);
            }
            let (id, arrival) = match timeout_ms {
                // On a virtual clock, calls in flight come before timers.
                Some(ms) if !calls.clock.is_virtual() => {
                    match tokio::time::timeout(Duration::from_millis(ms), calls.receive()).await {
                        Ok(received) => received?,
                        Err(_) => return Ok(None),
                    }
                }
                _ => calls.receive().await?,
            };
            calls.outstanding -= 1;
            calls.arrive(id, *arrival)?;
        }
    }

    fn start_fetch(
        &mut self,
        request: FetchRequest,
        held: u32,
    ) -> wasmtime::Result<Result<StartedCall, String>> {
        self.calls.start_fetch(request, held)
    }

    fn take_body(&mut self, id: u64) -> wasmtime::Result<Vec<u8>> {
        Ok(self.calls.egress.take_body(id))
    }

    fn cancel_fetch(&mut self, id: u64) -> wasmtime::Result<()> {
        self.calls.egress.cancel(id);
        Ok(())
    }

    fn log(&mut self, level: GuestLogLevel, line: String) -> wasmtime::Result<()> {
        if self.logs.is_full() {
            return Ok(());
        }
        let line = match &self.positions {
            Some(transformed) if line.contains(SCRIPT_FILE) => transformed.map_positions(&line),
            _ => line,
        };
        let level = match level {
            GuestLogLevel::Log => LogLevel::Log,
            GuestLogLevel::Info => LogLevel::Info,
            GuestLogLevel::Warn => LogLevel::Warn,
            GuestLogLevel::Error => LogLevel::Error,
            GuestLogLevel::Debug => LogLevel::Debug,
        };
        self.logs.push(level, line);
        Ok(())
    }
}
