//! Progress of long calls. When a client's `tools/call` carries a
//! `progressToken`, coderun sends `notifications/progress` for it: one on
//! every tool call the program makes (as it finishes) and one every
//! [`PROGRESS_INTERVAL`] while the call runs, so that a client which resets
//! its request timeout on progress (as MCP allows) keeps waiting for a
//! program that runs longer than that timeout.
//!
//! Progress is lossy by design: a program making calls faster than the
//! client reads notifications gets some of them dropped, never queued
//! without bound; `progress` still increases with every one sent.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use coderun_code_mode::DispatchEvent;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// How often a running call reports progress when nothing else happened.
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_secs(5);
/// Tool-call notices waiting to be sent for one call; more are dropped.
const QUEUED_NOTICES: usize = 64;

/// Where the tool calls of each reporting `run_code` call are announced:
/// the registry's event sink routes each dispatch event by its parent call.
#[derive(Default)]
pub(crate) struct ProgressRoutes {
    routes: Mutex<HashMap<String, mpsc::Sender<String>>>,
}

impl ProgressRoutes {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, mpsc::Sender<String>>> {
        // Every update is one insert or remove: the map survives a panic.
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Announces `event` to its run's reporter, if the run has one.
    pub(crate) fn route(&self, event: &DispatchEvent) {
        if let Some(sender) = self.lock().get(&event.parent_call_id) {
            let outcome = if event.is_error { "failed" } else { "done" };
            // Full: this notice is dropped (see the module docs).
            let _ = sender.try_send(format!("tools.{} {outcome}", event.name));
        }
    }

    /// Reports the progress of call `id` to `peer` under `token` until the
    /// returned value is dropped.
    pub(crate) fn report(
        self: &Arc<Self>,
        id: &str,
        token: ProgressToken,
        peer: Peer<RoleServer>,
    ) -> Reporting {
        let (sender, receiver) = mpsc::channel(QUEUED_NOTICES);
        self.lock().insert(id.to_owned(), sender);
        Reporting {
            routes: Arc::clone(self),
            id: id.to_owned(),
            task: tokio::spawn(notify(receiver, token, peer)),
        }
    }
}

/// Sends a notification per notice and per quiet interval, until the
/// notices end or the client is gone.
async fn notify(mut notices: mpsc::Receiver<String>, token: ProgressToken, peer: Peer<RoleServer>) {
    let started = Instant::now();
    let mut ticks = tokio::time::interval_at(
        tokio::time::Instant::now() + PROGRESS_INTERVAL,
        PROGRESS_INTERVAL,
    );
    let mut sent = 0_u32;
    loop {
        let message = tokio::select! {
            notice = notices.recv() => match notice {
                Some(notice) => notice,
                None => return,
            },
            _ = ticks.tick() => format!("running for {} s", started.elapsed().as_secs()),
        };
        sent += 1;
        let param =
            ProgressNotificationParam::new(token.clone(), f64::from(sent)).with_message(message);
        if peer.notify_progress(param).await.is_err() {
            return;
        }
    }
}

/// Reports one call's progress while it lives.
pub(crate) struct Reporting {
    routes: Arc<ProgressRoutes>,
    id: String,
    task: JoinHandle<()>,
}

impl Drop for Reporting {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.id);
        // No notification may follow the call's response.
        self.task.abort();
    }
}
