//! The `run_code` bridge: one program run and the tool calls it makes.
//!
//! # A run's lifecycle
//!
//! 1. `run_code` gets its runtime (the same check as assembly) and its
//!    `code`, and creates a [`Run`]: a run-scoped abort controller, a call
//!    queue, and a count of the calls in progress.
//! 2. The program runs with one binding namespace, `tools`, holding every
//!    registry tool. The run-scoped signal is the request's signal; the
//!    caller's signal is forwarded into it while the program runs.
//! 3. Each call the program makes (see [`Run::call`]): normalise the
//!    argument (a missing one is `{}` or a refusal), register as in progress
//!    (refused once the run is closed: "not dispatched"), wait for a turn in
//!    the queue (given up when the run-scoped signal fires: "abandoned"),
//!    take the next sub-call number, dispatch through the registry's hooks
//!    and handler (the handler's context carries the run-scoped signal),
//!    record the dispatch event, and hand the program its value.
//! 4. When the program settles, the run is closed with the reason "run
//!    settled": later calls are not dispatched, queued ones are abandoned,
//!    in-flight handlers see their signal fire. `run_code` then waits until
//!    no call is in progress (the queue is drained) before it returns, so a
//!    handler that ignores its signal holds `run_code` until it finishes.
//!
//! The queue is a fair (FIFO) read-write lock: a call of a concurrency-safe
//! tool holds it shared, any other call holds it exclusively. So consecutive
//! safe calls overlap, and no call overlaps an unsafe one.
//!
//! The runtime spawns each binding call on its own task and does not track
//! it; the in-progress count is what lets `run_code` wait for them. Calls
//! started together (`Promise.all`) take their turns in the order their
//! tasks reach the queue.

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use coderun_runtime::{
    AbortController, AbortSignal, BindingError, BindingResult, CodeBindingNamespace,
    CodeRunRequest, Continuation,
};
use serde_json::Value;
use tokio::sync::{Notify, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::discovery::{self, DESCRIBE, SEARCH, UNKNOWN};
use crate::events::{DispatchEvent, summarize};
use crate::hooks::Approval;
use crate::registry::{Dispatch, Gate, ToolRegistry};
use crate::results::{Media, program_value, tool_result};
use crate::schema_ts::args_are_optional;
use crate::sdk::{RUN_CODE, TOOLS_GLOBAL};
use crate::tool::{Tool, ToolCall, ToolResult};
use crate::trace::{RunTrace, TraceCall};
use crate::ts_syntax::member_access;

/// What a call made after the run ended is rejected with.
pub const NOT_DISPATCHED: &str = "not dispatched: the run_code call has already finished";
/// What a call still queued when the run ended is rejected with.
pub const ABANDONED: &str = "abandoned: the run_code call ended before this call started";
/// The run-scoped abort reason once the program has settled.
pub const RUN_SETTLED: &str = "run settled";
/// The run-scoped abort reason when the `run_code` future is dropped.
const RUN_CANCELLED: &str = "the run_code call was cancelled";
/// How `run_code`'s text for a paused run begins.
pub const PAUSED: &str = "paused";
/// `run_code`'s text when the program printed nothing and returned nothing.
pub const NO_OUTPUT: &str = "(no output: the program printed nothing and returned no value)";

/// Runs a `run_code` call's program; see the module docs.
pub(crate) async fn run_code(
    registry: &ToolRegistry,
    call_id: &str,
    arguments: &Value,
    signal: &AbortSignal,
) -> ToolResult {
    let Some(code) = arguments.get("code").and_then(Value::as_str) else {
        return ToolResult::error(format!(
            "{RUN_CODE} expects {{\"code\": string}} (got {})",
            summarize(&arguments.to_string())
        ));
    };
    let mut request = CodeRunRequest::new(code);
    // Only a hook asking for approval, or a handler allowed to, can pause:
    // without either the ledger is not kept.
    request.record = registry.may_pause();
    execute(registry, call_id, signal, |_| async { Ok(request) }).await
}

/// Resumes a paused `run_code` call with the answer to the call it paused
/// at: on approval that call is dispatched now (through the hooks, which
/// may still deny it), on rejection it rejects with `not approved:
/// <reason>`; then the program goes on from there, the calls before it
/// answered by the continuation's ledger, not dispatched again.
pub(crate) async fn resume(
    registry: &ToolRegistry,
    call_id: &str,
    continuation: Continuation,
    approval: Approval,
    signal: &AbortSignal,
) -> ToolResult {
    execute(registry, call_id, signal, |run| async move {
        let paused = continuation
            .step
            .checked_sub(1)
            .and_then(|at| continuation.record.calls.get(usize::try_from(at).ok()?))
            .filter(|call| call.namespace == TOOLS_GLOBAL)
            .map(|call| (call.function.clone(), call.arguments.clone()));
        let Some((name, arguments)) = paused else {
            return Err(format!(
                "the continuation is not a paused {RUN_CODE} call: its step {} is not a call of \
                 {TOOLS_GLOBAL}",
                continuation.step
            ));
        };
        let answer = match approval {
            Approval::Approve => run
                .call_gated(&name, arguments, Gate::Approved)
                .await
                .map_err(|error| error.message().to_owned()),
            Approval::Reject(reason) => Err(format!("not approved: {reason}")),
        };
        Ok(CodeRunRequest::resume(continuation, answer))
    })
    .await
}

/// Creates the [`Run`], builds its request (`build` may make calls through
/// the run), runs it with the run's namespace and signal, waits for its
/// calls to drain, and turns the outcome into `run_code`'s result.
async fn execute<B, Fut>(
    registry: &ToolRegistry,
    call_id: &str,
    signal: &AbortSignal,
    build: B,
) -> ToolResult
where
    B: FnOnce(Arc<Run>) -> Fut,
    Fut: Future<Output = Result<CodeRunRequest, String>>,
{
    let runtime = match registry.code_runtime() {
        Ok(runtime) => Arc::clone(runtime),
        Err(error) => return ToolResult::error(error.to_string()),
    };
    let started = Instant::now();
    let run = Arc::new(Run::new(registry.clone(), call_id));
    let settle = CloseOnDrop(Arc::clone(&run));
    // A caller that has already given up gets no guest and no calls.
    if let Some(reason) = signal.reason() {
        run.controller.abort(reason);
    }
    let request = match build(Arc::clone(&run)).await {
        Ok(request) => request,
        Err(message) => return ToolResult::error(message),
    };
    let mut request = request.binding(run.namespace()).signal(run.signal.clone());
    for global in registry.globals() {
        request = request.binding(global.namespace().clone());
    }
    let request = request.preamble(registry.preamble());
    let execution = runtime.run(request);
    tokio::pin!(execution);
    let outcome = tokio::select! {
        biased;
        reason = signal.aborted(), if !run.signal.is_aborted() => {
            run.controller.abort(reason);
            execution.await
        }
        outcome = &mut execution => outcome,
    };
    run.close(RUN_SETTLED);
    run.drained().await;
    drop(settle);
    let budget = registry.get_max_output_bytes();
    let mut trace = RunTrace {
        call_id: call_id.to_owned(),
        ..RunTrace::default()
    };
    let (mut result, cut) = match outcome {
        Ok(mut result) => {
            trace.fuel_consumed = result.fuel_consumed;
            trace.peak_memory_bytes = result.peak_memory_bytes;
            trace.outcome = match (&result.error, &result.interrupted) {
                (Some(failure), _) => failure.kind.as_str().to_owned(),
                (None, Some(_)) => PAUSED.to_owned(),
                (None, None) => "ok".to_owned(),
            };
            let paused = result.interrupted.take().map(|interrupted| {
                let id = registry.pause(call_id, interrupted.continuation);
                (id, interrupted.call, interrupted.payload)
            });
            tool_result(Ok(result), paused, budget, &run.media)
        }
        Err(misuse) => {
            trace.outcome = "misuse".to_owned();
            tool_result(Err(misuse), None, budget, &run.media)
        }
    };
    trace.calls = std::mem::take(&mut *run.traced());
    trace.wall_time = started.elapsed();
    trace.output_bytes = result
        .content
        .first()
        .map_or(0, |block| block.to_text().len());
    trace.output_truncated = cut;
    result.trace = Some(Box::new(trace));
    result
}

/// One program run: its abort scope, its call queue, its calls in progress.
struct Run {
    registry: ToolRegistry,
    parent_call_id: String,
    controller: AbortController,
    signal: AbortSignal,
    queue: RwLock<()>,
    state: Mutex<State>,
    idle: Notify,
    media: Media,
    trace: Mutex<Vec<TraceCall>>,
}

#[derive(Default)]
struct State {
    closed: bool,
    in_progress: usize,
    dispatched: u64,
}

/// A turn in the queue, held for the whole call.
enum Turn<'a> {
    Shared(#[expect(dead_code, reason = "held, not read")] RwLockReadGuard<'a, ()>),
    Exclusive(#[expect(dead_code, reason = "held, not read")] RwLockWriteGuard<'a, ()>),
}

/// Counts a call as in progress while it lives.
struct InProgress<'a>(&'a Run);

impl Drop for InProgress<'_> {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.in_progress -= 1;
        if state.in_progress == 0 {
            self.0.idle.notify_waiters();
        }
    }
}

/// Closes the run if `run_code` is dropped before it finishes.
struct CloseOnDrop(Arc<Run>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close(RUN_CANCELLED);
    }
}

impl Run {
    fn new(registry: ToolRegistry, parent_call_id: &str) -> Self {
        let controller = AbortController::new();
        Self {
            registry,
            parent_call_id: parent_call_id.to_owned(),
            signal: controller.signal(),
            controller,
            queue: RwLock::new(()),
            state: Mutex::new(State::default()),
            idle: Notify::new(),
            media: Media::default(),
            trace: Mutex::new(Vec::new()),
        }
    }

    fn traced(&self) -> MutexGuard<'_, Vec<TraceCall>> {
        self.trace.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state stays consistent across a panic: every update is one step.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `tools` global: every registry tool, calling back into this run,
    /// and the discovery functions the preamble adapts. Its names are the
    /// registry's, made once; the run makes only its handler.
    fn namespace(self: &Arc<Self>) -> CodeBindingNamespace {
        let run = Arc::clone(self);
        CodeBindingNamespace::dispatch(self.registry.binding_names(), move |name, arguments| {
            let (run, name) = (Arc::clone(&run), name.to_owned());
            async move {
                // No tool has a discovery function's name: the modes that
                // run programs refuse a registry with one.
                match name.as_str() {
                    SEARCH | DESCRIBE | UNKNOWN => run.discover(&name, arguments).await,
                    _ => run.call(&name, arguments).await,
                }
            }
        })
    }

    /// A call of a discovery function, `name`.
    async fn discover(&self, name: &str, arguments: Value) -> BindingResult {
        // Off the executor: the work is bounded by the catalog's caps, but
        // a run calling it in a loop must not delay other runs' tasks on
        // the same worker threads.
        let registry = self.registry.clone();
        let called = name.to_owned();
        let answer = tokio::task::spawn_blocking(move || match called.as_str() {
            SEARCH => discovery::search(&registry, &arguments),
            DESCRIBE => discovery::describe(&registry, &arguments),
            _ => Err(discovery::unknown(&registry, &arguments)),
        });
        answer
            .await
            .map_err(|error| format!("{name} failed on the host: {error}"))
            .and_then(|answer| answer)
            .map_err(BindingError::new)
    }

    /// One call the program made; see the module docs.
    async fn call(&self, name: &str, arguments: Value) -> BindingResult {
        self.call_gated(name, arguments, Gate::Hooks).await
    }

    /// [`call`](Self::call), which a hook's request for approval interrupts
    /// unless `gate` says the call is approved.
    async fn call_gated(&self, name: &str, arguments: Value, gate: Gate) -> BindingResult {
        let _in_progress = self.enter()?;
        let Some(tool) = self.registry.tool(name) else {
            return Err(BindingError::new(format!("unknown tool {name:?}")));
        };
        let arguments = normalize_arguments(tool, arguments)?;
        let queued = Instant::now();
        let Some(_turn) = self.turn(tool.is_concurrency_safe()).await else {
            return Err(ABANDONED.into());
        };
        let dispatched = Instant::now();
        let sub_call_id = self.next_sub_call_id();
        // What is logged is what is dispatched: copied before the handler
        // owns (and may change) the arguments.
        let logged = arguments.clone();
        let call = ToolCall::new(sub_call_id.clone(), name, arguments);
        let result = match self
            .registry
            .dispatch_gated(call, self.signal.clone(), gate)
            .await
        {
            Dispatch::Done(mut result) => match result.interrupt.take() {
                // The handler needs what only the caller can give: the run
                // pauses here, and the call is dispatched again when it
                // resumes (when the registry lets handlers pause).
                Some(payload) if self.registry.handlers_pause() => {
                    return Err(BindingError::interrupt(payload));
                }
                _ => result,
            },
            // The run pauses here; the call is dispatched when it resumes.
            Dispatch::NeedsApproval(payload) => return Err(BindingError::interrupt(payload)),
        };
        let delivered = program_value(tool, &result, &self.media);
        let (result_summary, bytes_out) = match &delivered {
            Ok(Value::String(text)) | Err(text) => (summarize(text), text.len()),
            Ok(value) => {
                let json = value.to_string();
                (summarize(&json), json.len())
            }
        };
        self.traced().push(TraceCall {
            sub_call_id: sub_call_id.clone(),
            name: name.to_owned(),
            group: tool.get_group().map(str::to_owned),
            queue_wait: dispatched.duration_since(queued),
            duration: dispatched.elapsed(),
            bytes_in: logged.to_string().len(),
            bytes_out,
            outcome: if delivered.is_ok() { "ok" } else { "error" },
        });
        self.registry.record(DispatchEvent {
            parent_call_id: self.parent_call_id.clone(),
            sub_call_id,
            name: name.to_owned(),
            arguments: logged,
            is_error: result.is_error,
            result_summary,
        });
        delivered.map_err(BindingError::new)
    }

    /// Counts a call as in progress, unless the run is closed.
    fn enter(&self) -> Result<InProgress<'_>, BindingError> {
        let mut state = self.state();
        if state.closed {
            return Err(NOT_DISPATCHED.into());
        }
        state.in_progress += 1;
        Ok(InProgress(self))
    }

    /// Waits for the call's turn in the queue; `None` once the run-scoped
    /// signal has fired (the call is abandoned).
    async fn turn(&self, concurrency_safe: bool) -> Option<Turn<'_>> {
        let wait = async {
            if concurrency_safe {
                Turn::Shared(self.queue.read().await)
            } else {
                Turn::Exclusive(self.queue.write().await)
            }
        };
        let turn = tokio::select! {
            biased;
            _ = self.signal.aborted() => return None,
            turn = wait => turn,
        };
        // The turn may have come just as the run ended.
        (!self.signal.is_aborted()).then_some(turn)
    }

    fn next_sub_call_id(&self) -> String {
        let n = {
            let mut state = self.state();
            state.dispatched += 1;
            state.dispatched
        };
        format!("{}:code:{n}", self.parent_call_id)
    }

    /// Ends the run: fires the run-scoped signal (if nothing fired it yet)
    /// and refuses later calls.
    fn close(&self, reason: &str) {
        self.state().closed = true;
        self.controller.abort(reason);
    }

    /// Resolves once no call is in progress.
    async fn drained(&self) {
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.state().in_progress == 0 {
                return;
            }
            idle.await;
        }
    }
}

/// Turns program-side arguments into the value a tool is dispatched with.
///
/// A program that omits the argument (or passes `undefined` or `null`)
/// reaches the host as `null`. For a tool whose SDK parameter is optional
/// (`args?:`) that means `{}`; for any other tool the call is refused, since
/// the handler would otherwise see arguments its schema forbids.
fn normalize_arguments(tool: &Tool, arguments: Value) -> Result<Value, String> {
    match arguments {
        Value::Null if args_are_optional(tool.input_schema()) => {
            Ok(Value::Object(serde_json::Map::new()))
        }
        Value::Null => Err(format!(
            "{} expects an argument object; pass {{}} if it takes none",
            member_access(TOOLS_GLOBAL, tool.name())
        )),
        arguments => Ok(arguments),
    }
}

#[cfg(test)]
mod tests;
