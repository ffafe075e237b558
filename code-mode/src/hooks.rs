//! Hooks around every tool call: `pre_execute` may deny it or ask for
//! approval, `post_execute` may observe or change its result.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::tool::{ToolCall, ToolResult};

/// A pre-execute hook's verdict on one call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HookDecision {
    /// Let the call proceed (to the next hook, then the handler).
    Allow,
    /// Refuse the call: the handler is not called and the call fails with
    /// the reason.
    Deny {
        /// Why, written for the model.
        reason: String,
    },
    /// The call needs someone's approval first. From a `run_code` program,
    /// the run pauses at this call (nothing after it runs) and `run_code`
    /// returns the payload with a continuation id; the run goes on when
    /// [`ToolRegistry::resume`](crate::ToolRegistry::resume) gets the answer.
    /// A direct call (mode `native` or `both`) fails with the payload, as
    /// there is no program to pause.
    NeedsApproval {
        /// What needs approving, for the person or client asked (e.g.
        /// `{"tool": "delete_file", "path": "/tmp/a"}`).
        payload: Value,
    },
}

impl HookDecision {
    /// A denial with `reason`.
    pub fn deny(reason: impl Into<String>) -> Self {
        HookDecision::Deny {
            reason: reason.into(),
        }
    }

    /// A request for approval with `payload`.
    pub fn needs_approval(payload: Value) -> Self {
        HookDecision::NeedsApproval { payload }
    }
}

/// The answer to a call that needed approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run the call (the other hooks still apply: a denial still denies).
    Approve,
    /// Do not run it: the call rejects in the program with
    /// `not approved: <reason>`.
    Reject(String),
}

/// Runs before a call's handler. Hooks run in the order they were added; the
/// first denial (or request for approval) wins and the later ones are
/// skipped.
pub(crate) type PreExecuteHook =
    Arc<dyn Fn(&ToolCall) -> BoxFuture<'static, HookDecision> + Send + Sync>;

/// Runs after a call's handler with its result and returns the result to
/// pass on (to the next hook, then the caller).
pub(crate) type PostExecuteHook =
    Arc<dyn Fn(&ToolCall, ToolResult) -> BoxFuture<'static, ToolResult> + Send + Sync>;

pub(crate) fn pre_execute<F, Fut>(hook: F) -> PreExecuteHook
where
    F: Fn(&ToolCall) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HookDecision> + Send + 'static,
{
    Arc::new(move |call| Box::pin(hook(call)))
}

pub(crate) fn post_execute<F, Fut>(hook: F) -> PostExecuteHook
where
    F: Fn(&ToolCall, ToolResult) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    Arc::new(move |call, result| Box::pin(hook(call, result)))
}
