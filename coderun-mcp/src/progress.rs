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
/// How long a finished call waits for its queued notices to go out before
/// its response does (a client that reads nothing must not hold it).
const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);

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

    /// Announces `message` to the reporter of call `id`, if it has one.
    pub(crate) fn route_message(&self, id: &str, message: String) {
        if let Some(sender) = self.lock().get(id) {
            // Full: this notice is dropped (see the module docs).
            let _ = sender.try_send(message);
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
            task: Some(tokio::spawn(notify(receiver, token, peer))),
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
    task: Option<JoinHandle<()>>,
}

impl Reporting {
    /// Ends the reporting of a finished call: the notices already queued
    /// (its last tool call's "done", above all) are sent first, within
    /// [`DRAIN_TIMEOUT`], so that they reach the client before the
    /// response they precede.
    pub(crate) async fn finish(mut self) {
        // The route's sender goes: the reporter's queue ends after what it
        // holds.
        self.routes.lock().remove(&self.id);
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(DRAIN_TIMEOUT, &mut task)
                .await
                .is_err()
        {
            task.abort();
        }
    }
}

impl Drop for Reporting {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.id);
        // No notification may follow the call's response.
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::connected;
    use rmcp::model::NumberOrString;
    use rmcp::service::NotificationContext;
    use rmcp::{ClientHandler, RoleClient};

    #[derive(Clone, Default)]
    struct Heard(Arc<Mutex<Vec<String>>>);

    impl ClientHandler for Heard {
        async fn on_progress(
            &self,
            params: ProgressNotificationParam,
            _context: NotificationContext<RoleClient>,
        ) {
            let message = params.message.unwrap_or_default();
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(message);
        }
    }

    /// A notice routed just before the call finishes is sent before
    /// `finish` returns, even when the reporter had no chance to run in
    /// between (a current-thread runtime runs nothing else until it
    /// awaits): dropping the reporter there, as before, lost it.
    #[tokio::test(flavor = "current_thread")]
    async fn a_finished_call_sends_its_queued_notices_first() {
        let heard = Heard::default();
        let (server, client) = connected(heard.clone()).await;
        let routes = Arc::new(ProgressRoutes::default());
        let token = ProgressToken(NumberOrString::String("t".into()));
        let reporting = routes.report("call-1", token, server.peer().clone());
        routes.route(&DispatchEvent {
            parent_call_id: "call-1".into(),
            sub_call_id: "call-1:code:1".into(),
            name: "echo".into(),
            arguments: serde_json::Value::Null,
            is_error: false,
            result_summary: String::new(),
        });
        reporting.finish().await;
        for _ in 0..100 {
            if !heard
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_empty()
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(
            *heard.0.lock().unwrap_or_else(PoisonError::into_inner),
            vec!["tools.echo done".to_owned()]
        );
        drop(client);
        drop(server);
    }
}
