//! `run_code` as a task (the Tasks extension, SEP-2663), for clients that
//! declare tasks.

use rmcp::model::{CallToolResponse, CreateTaskResult};
use rmcp::task_manager::{TaskExit, TaskOptions};
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use super::approvals::Asking;
use super::{CodeModeServer, Work};
use crate::relay::Caller;
use crate::sealed::Holder;

/// How long a task's answer is kept for the client to poll, and the
/// longest a task may run (a program's wall clock is shorter).
const TASK_TTL_MS: u64 = 60 * 60 * 1000;
/// Programs running as tasks at once; past it, a call runs as a plain
/// request.
pub(super) const MAX_RUNNING_TASKS: usize = 256;

impl CodeModeServer {
    /// Runs `work` as a task (the Tasks extension, SEP-2663): the client
    /// gets the task at once and polls `tasks/get` for the answer, which
    /// may come after its request timeout; `tasks/cancel` aborts the run.
    /// What an upstream asks of the client meanwhile becomes the task's
    /// input requests. A paused run is the task's answer, resumed with
    /// `resume_code`.
    pub(super) fn spawn_task(
        &self,
        name: String,
        work: Work,
        holder: Holder,
        mut caller: Caller,
    ) -> CallToolResponse {
        let server = self.clone();
        let options = TaskOptions::new()
            .with_ttl_ms(TASK_TTL_MS)
            .with_status_message(format!("{name} is running"));
        let task = self.inner.tasks.spawn(options, move |task| {
            Box::pin(async move {
                caller.task = Some(task.clone());
                caller.pausable = false;
                let cancelled = CancellationToken::new();
                let watcher = tokio::spawn({
                    let (task, cancelled) = (task.clone(), cancelled.clone());
                    async move {
                        task.cancelled().await;
                        cancelled.cancel();
                    }
                });
                let span = caller.span.clone();
                let result = server
                    .execute(&name, work, cancelled, Asking::No, &holder, caller)
                    .instrument(span)
                    .await;
                watcher.abort();
                if task.is_cancel_requested() {
                    return Err(TaskExit::Cancelled);
                }
                Ok(server.wire(&name, result))
            })
        });
        CallToolResponse::Task(CreateTaskResult::new(task))
    }
}
