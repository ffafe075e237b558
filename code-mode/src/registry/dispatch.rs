//! A call's way through the registry: the pre-execute hooks (which may
//! deny it or ask for approval), the tool's handler, the post-execute
//! hooks, with a panic anywhere in them turned into an error result.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use coderun_runtime::AbortSignal;
use futures::FutureExt as _;
use serde_json::{Value, json};

use super::ToolRegistry;
use crate::hooks::HookDecision;
use crate::tool::{ToolCall, ToolContext, ToolResult};

/// Whether a hook's request for approval stops a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// It does: the caller is told the call needs approval.
    Hooks,
    /// The call is approved: requests for approval let it through (a
    /// denial still denies).
    Approved,
}

/// How a dispatch ended.
#[derive(Debug)]
pub(crate) enum Dispatch {
    /// The handler ran, or the call failed before it.
    Done(ToolResult),
    /// A pre-execute hook wants the call approved first; nothing ran.
    NeedsApproval(Value),
}

impl Dispatch {
    /// The result of a call that cannot pause.
    pub(crate) fn into_result(self) -> ToolResult {
        match self {
            Dispatch::Done(result) => result,
            Dispatch::NeedsApproval(payload) => ToolResult::error(format!(
                "tool call needs approval, which only a run_code program can wait for: \
                 {payload}"
            ))
            .with_structured(json!({ "needs_approval": payload })),
        }
    }
}

impl ToolRegistry {
    /// Runs a call of one of the registry's tools through the hooks and its
    /// handler, whatever the mode. A call a hook wants approved fails: a
    /// direct call has no program to pause.
    pub(crate) async fn dispatch(&self, call: ToolCall, signal: AbortSignal) -> ToolResult {
        self.dispatch_gated(call, signal, Gate::Hooks)
            .await
            .into_result()
    }

    /// [`dispatch`](Self::dispatch), telling the caller when a hook wants
    /// the call approved (unless `gate` says it already is).
    pub(crate) async fn dispatch_gated(
        &self,
        call: ToolCall,
        signal: AbortSignal,
        gate: Gate,
    ) -> Dispatch {
        let Some(tool) = self.tool(&call.name) else {
            let closest = self.catalog();
            let hint = crate::catalog::did_you_mean(&closest.closest(&call.name), |name| {
                format!("{name:?}")
            });
            return Dispatch::Done(ToolResult::error(format!(
                "unknown tool {:?}{hint}",
                call.name
            )));
        };
        let handler = tool.handler().clone();
        self.pipeline(call, signal, gate, move |call, ctx| {
            handler(call.arguments, ctx)
        })
        .await
    }

    /// pre-execute hooks → `handler` → post-execute hooks. A panic anywhere
    /// in it becomes an error result.
    pub(crate) async fn pipeline<H, Fut>(
        &self,
        call: ToolCall,
        signal: AbortSignal,
        gate: Gate,
        handler: H,
    ) -> Dispatch
    where
        H: FnOnce(ToolCall, ToolContext) -> Fut,
        Fut: Future<Output = ToolResult>,
    {
        let name = call.name.clone();
        let run = async move {
            for hook in &self.inner.pre_execute {
                match hook(&call).await {
                    HookDecision::Allow => {}
                    HookDecision::Deny { reason } => {
                        return Dispatch::Done(ToolResult::error(format!(
                            "tool call denied by a pre-execute hook: {reason}"
                        )));
                    }
                    HookDecision::NeedsApproval { payload } => match gate {
                        Gate::Hooks => return Dispatch::NeedsApproval(payload),
                        Gate::Approved => {}
                    },
                }
            }
            let ctx = ToolContext::new(call.id.clone(), signal);
            let mut result = handler(call.clone(), ctx).await;
            for hook in &self.inner.post_execute {
                result = hook(&call, result).await;
            }
            Dispatch::Done(result)
        };
        AssertUnwindSafe(run)
            .catch_unwind()
            .await
            .unwrap_or_else(|_| {
                Dispatch::Done(ToolResult::error(format!("tool {name:?} panicked")))
            })
    }
}
