//! One client call, from its request to its response: what it asks for,
//! whom it belongs to (progress, logs, traces, the relay), running it (as a
//! task when the client polls tasks), and its answer: a result, or an
//! input-required round for an approval or an upstream's question.

use std::pin::pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use coderun_code_mode::{AbortController, AbortSignal, ToolCall, ToolResult};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ElicitRequest, ElicitRequestParams, InputRequest,
    InputRequests, InputRequiredResult, JsonObject, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use super::approvals::{
    APPROVAL_INPUT, Asking, approval_schema, holder_of, paused, upstream_question,
};
use super::tasks::MAX_RUNNING_TASKS;
use super::{CodeModeServer, DRAINING, RESUME_CODE, Work, request_log_level};
use crate::logging::{SessionLevel, send_console_lines};
use crate::ops::Metrics;
use crate::relay::Caller;
use crate::sealed::Holder;
use crate::shutdown::Shutdown;
use crate::traces;
use coderun_code_mode::RUN_CODE;
use rmcp::model::ErrorCode;

impl CodeModeServer {
    /// `tools/call`.
    pub(super) async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self
            .inner
            .tools
            .iter()
            .any(|tool| tool.name == request.name)
        {
            // MCP: an unknown tool is a protocol error, Invalid params.
            let offered: Vec<&str> = self.inner.tools.iter().map(|tool| &*tool.name).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; the tools offered are: {}",
                    request.name,
                    offered.join(", ")
                ),
                None,
            ));
        }
        if self
            .inner
            .shutdown
            .as_ref()
            .is_some_and(Shutdown::is_draining)
        {
            return Err(ErrorData::new(
                ErrorCode(DRAINING),
                "coderun mcp is draining for shutdown and takes no new calls: retry the call \
                 (a load balancer sends it to another replica)",
                None,
            ));
        }
        let name = request.name.clone();
        let holder = holder_of(&context);
        let work = self.work(request, &holder).await?;
        let can_ask = self.inner.approvals
            && context
                .client_capabilities()
                .and_then(|capabilities| capabilities.elicitation)
                // A capability naming neither mode means form (MCP 2025-06-18).
                .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none());
        let retries = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        let asking = match (can_ask, retries) {
            (false, _) => Asking::No,
            (true, true) => Asking::Retry,
            (true, false) => Asking::Request(&context.peer),
        };
        let native = name != RUN_CODE && name != RESUME_CODE;
        // The level log messages go out at: the request's own (MCP
        // 2026-07-28, `io.modelcontextprotocol/logLevel` in `_meta`), else
        // the one the session set.
        let level = match request_log_level(&context) {
            Some(level) => Arc::new(SessionLevel::at(level)),
            None => Arc::clone(&self.level),
        };
        if let Work::Resume(..) = &work {
            Metrics::global().resumed();
        }
        let resumed = match &work {
            Work::Resume(_, _, Some(answers)) => Some(Arc::new(Mutex::new(Some(answers.clone())))),
            _ => None,
        };
        let span = if native {
            tracing::info_span!("tool_call", tool = %name, trace_id = tracing::field::Empty)
        } else {
            tracing::info_span!("run_code", tool = %name, trace_id = tracing::field::Empty)
        };
        traces::adopt(&span, &context);
        traces::record_trace_id(&span);
        let caller = Caller {
            span: span.clone(),
            peer: context.peer.clone(),
            progress: context.meta.get_progress_token(),
            native,
            level: Arc::clone(&level),
            capabilities: context.client_capabilities(),
            stateless: retries,
            task: None,
            pausable: retries && !native,
            resumed,
        };
        // A program runs as a task when the client can poll one: its
        // answer then outlives the client's request timeout.
        if !caller.native
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.supports_tasks())
            && self.inner.tasks.running_task_count() < MAX_RUNNING_TASKS
        {
            return Ok(self.spawn_task(name.to_string(), work, holder, caller));
        }
        let result = self
            .execute(&name, work, context.ct.clone(), asking, &holder, caller)
            .instrument(span)
            .await;
        // An upstream asked the client a question (MCP 2026-07-28, see
        // relay/inputs.rs): the program waits for the retry with the answer.
        if retries && let Some((handle, requests)) = upstream_question(&result) {
            return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                Some(requests),
                Some(handle),
            )));
        }
        if let Asking::Retry = asking
            && let Some((id, question)) = paused(&result)
        {
            let ask = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: question,
                requested_schema: approval_schema(),
            });
            let requests =
                InputRequests::from([(APPROVAL_INPUT.to_owned(), InputRequest::Elicitation(ask))]);
            return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                Some(requests),
                Some(id),
            )));
        }
        if let Some(level) = level.get()
            && let Some(logs) = result
                .structured
                .as_ref()
                .and_then(|value| value.get("logs"))
        {
            send_console_lines(&context.peer, level, logs).await;
        }
        Ok(CallToolResponse::Complete(self.wire(&name, result)))
    }

    /// Executes one call through the registry; the client's cancellation
    /// (`cancelled`) aborts it, and the call still runs to its end (a
    /// program ends as `abort`, its upstream calls are cancelled). With a
    /// progress token, its progress is reported meanwhile (see `progress.rs`).
    pub(super) async fn execute(
        &self,
        name: &str,
        work: Work,
        cancelled: CancellationToken,
        asking: Asking<'_>,
        holder: &Holder,
        caller: Caller,
    ) -> ToolResult {
        let n = self.inner.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("mcp-{n}");
        let metrics = Metrics::global();
        let _call = metrics.call_started();
        let in_flight = (!caller.native).then(|| metrics.run_started());
        // A call of an upstream's tool itself (mode both) gets the
        // upstream's progress under the client's token (see relay.rs);
        // run_code and resume_code get coderun's own (see progress.rs).
        let reporting = caller
            .progress
            .clone()
            .filter(|_| !caller.native)
            .map(|token| self.inner.progress.report(&id, token, caller.peer.clone()));
        let _entered = self.inner.relay.enter(&id, caller);
        let controller = AbortController::new();
        let signal = controller.signal();
        let work = async {
            let result = self.dispatch(&id, work, signal.clone()).await;
            let result = match asking {
                Asking::Request(peer) => self.ask_approvals(result, &id, peer, &signal).await,
                Asking::Retry | Asking::No => result,
            };
            self.seal_paused(result, holder).await
        };
        let mut execution = pin!(work);
        let drain_over = self
            .inner
            .shutdown
            .as_ref()
            .map(Shutdown::drain_over)
            .unwrap_or_default();
        let result = tokio::select! {
            result = &mut execution => result,
            () = drain_over.cancelled() => {
                tracing::info!(call = %id, tool = %name, "the drain ended before the call");
                controller.abort(
                    "coderun mcp is shutting down (its drain ended before this call did) and \
                     aborted the call: retry it",
                );
                execution.await
            }
            () = cancelled.cancelled() => {
                tracing::info!(call = %id, tool = %name, "the client cancelled the call");
                let stopping = self.inner.shutdown.as_ref().and_then(Shutdown::reason);
                controller.abort(match stopping {
                    Some(reason) => format!(
                        "coderun mcp is shutting down ({reason}) and aborted the call: retry it"
                    ),
                    None => "the client cancelled the request".to_owned(),
                });
                execution.await
            }
        };
        if let Some(reporting) = reporting {
            reporting.finish().await;
        }
        if let (Some(_), Some(trace)) = (in_flight, &result.trace) {
            metrics.run_ended(&trace.outcome, trace.wall_time, trace.fuel_consumed);
        }
        if self.inner.trace
            && let Some(trace) = &result.trace
        {
            match serde_json::to_string(trace) {
                Ok(line) => tracing::info!(target: "coderun::trace", "{line}"),
                Err(error) => tracing::warn!("the trace of {id} could not be written: {error}"),
            }
        }
        let text = result.text_content();
        let first_line = text.lines().next().unwrap_or_default();
        if result.is_error {
            tracing::info!(call = %id, tool = %name, "failed: {first_line}");
        } else {
            tracing::info!(call = %id, tool = %name, "done");
        }
        result
    }

    /// One call through the registry: a tool's, or a paused run resumed.
    async fn dispatch(&self, id: &str, work: Work, signal: AbortSignal) -> ToolResult {
        match work {
            Work::Call(request) => {
                let arguments = request
                    .arguments
                    .map_or(Value::Object(JsonObject::new()), Value::Object);
                let call = ToolCall::new(id.to_owned(), request.name.to_string(), arguments);
                self.inner.registry.execute(call, signal).await
            }
            Work::Resume(continuation, approval, _) => {
                self.inner
                    .registry
                    .resume_continuation(id, *continuation, approval, signal)
                    .await
            }
            Work::Refuse(result) => result,
        }
    }
}
