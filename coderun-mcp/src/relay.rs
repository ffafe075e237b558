//! What upstreams send besides results, relayed to the client whose call
//! is in flight: progress, log messages, the requests a server makes of
//! its client (sampling, elicitation), resource updates and list changes.
//!
//! Each client `tools/call` is registered as a [`Caller`] for as long as
//! it runs, and each upstream call it causes (directly in `--mode both`,
//! or from a `run_code` program) under the progress token coderun sent the
//! upstream. Then:
//! - an upstream's progress for that token reaches the caller: with the
//!   client's own token and the upstream's values for a call of the
//!   upstream's tool itself, and as a `run_code` progress message
//!   (`tools.<name>: <message>`) for a program's call;
//! - an upstream's log message reaches every caller with a call of that
//!   upstream in flight whose session (or, on MCP 2026-07-28, request) set
//!   a level at or below it (logger `<upstream>` or `<upstream>/<logger>`);
//!   with none, it goes to coderun's own log;
//!
//!   both in the order the upstream sent them and before the answer they
//!   precede: a [`Tap`] on the upstream's transport queues each as it is
//!   received, and an answered call waits for its queue to drain;
//! - a request of the upstream (`sampling/createMessage`,
//!   `elicitation/create`) is asked of the one client with a call of that
//!   upstream in flight, if its client declared the capability: as a
//!   request on MCP 2025-11-25 and before, as the input request of the
//!   call's task, or (MCP 2026-07-28 without a task) by pausing the program
//!   (see relay/inputs.rs). With no such caller, or several (other
//!   sessions' calls: which one the upstream means cannot be known), the
//!   upstream gets an error saying why, never another client's answer;
//! - a resource update reaches the sessions that subscribed through
//!   coderun;
//! - a change of an upstream's resource or prompt list reaches every
//!   client session (mode both and native); a change of its tools is
//!   logged, as coderun serves the tools it listed at start.
//!
//! coderun connects to its upstreams before any client does, so it cannot
//! declare to them only what its client can answer: it declares sampling
//! and elicitation, and refuses as above when its client cannot. It does
//! not declare roots: a server that reads its client's roots at start
//! (the filesystem server does) would get none and serve nothing.
#![allow(
    deprecated,
    reason = "rmcp marks logging and sampling deprecated after MCP 2025-11-25 (SEP-2577); \
              upstreams and clients on 2025-11-25 use them"
)]

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    ClientCapabilities, InputResponses, LoggingMessageNotificationParam, NumberOrString,
    ProgressNotificationParam, ProgressToken,
};
use rmcp::task_manager::TaskContext;
use rmcp::{ErrorData, Peer, RoleServer};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

mod changes;
mod client;
mod inputs;

use changes::Subscription;

pub(crate) use client::{Tap, UpstreamClient};
pub(crate) use inputs::CallInputs;
pub(crate) use inputs::{answers as upstream_answers, requests as upstream_requests};

use crate::logging::{SessionLevel, allows};
use crate::progress::ProgressRoutes;

/// A client call in flight.
#[derive(Clone)]
pub(crate) struct Caller {
    /// The client.
    pub peer: Peer<RoleServer>,
    /// The client's progress token, if its request had one.
    pub progress: Option<ProgressToken>,
    /// Whether the call is of an upstream's tool itself (mode both): its
    /// upstream's progress is then forwarded under the client's token; else
    /// (`run_code`) as a progress message of the run.
    pub native: bool,
    /// The level the client's session set, for upstream log messages.
    pub level: Arc<SessionLevel>,
    /// What the client declared it can answer.
    pub capabilities: Option<ClientCapabilities>,
    /// Whether the client is on MCP 2026-07-28 or later, where a server
    /// sends its client no requests.
    pub stateless: bool,
    /// The task the call runs as, if the client asked for tasks: requests
    /// for the client become the task's input requests, which the client
    /// answers with `tasks/update` (on any protocol).
    pub task: Option<TaskContext>,
    /// Whether an upstream's request pauses the program instead (a
    /// `run_code` call of a client on 2026-07-28 without a task; see
    /// relay/inputs.rs).
    pub pausable: bool,
    /// The answers of a resumed run's client to its paused call's upstream,
    /// taken by the first upstream call (the paused call, dispatched again).
    pub resumed: Option<Arc<Mutex<Option<InputResponses>>>>,
    /// The call's span, the parent of its upstream calls' spans.
    pub span: tracing::Span,
}

/// One upstream call in flight: the client call it belongs to, and where
/// its progress notifications go, in the order they arrive.
struct Route {
    call: String,
    notices: mpsc::Sender<Notice>,
    /// The answers and open question of the call.
    inputs: Arc<CallInputs>,
}

/// A notification an upstream sent, queued for one client call.
enum Notice {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

/// The callers and upstream calls in flight, shared by the server and
/// every upstream's client handler.
#[derive(Default)]
pub(crate) struct Relay {
    callers: Mutex<HashMap<String, Caller>>,
    /// By upstream and the progress token coderun sent it.
    routes: Mutex<HashMap<(String, ProgressToken), Route>>,
    /// Progress for a token no call has claimed yet, oldest first (see
    /// [`Relay::observe_progress`]). Locked only while `routes` is held.
    unclaimed: Mutex<VecDeque<Unclaimed>>,
    /// Where each `run_code` call's progress messages go.
    pub progress: Arc<ProgressRoutes>,
    /// The resource subscriptions clients made through coderun.
    subscriptions: Mutex<Vec<Subscription>>,
    /// Numbers the input requests asked of tasks.
    inputs: AtomicU64,
    /// The client sessions that hear of changes to the upstreams'
    /// resource and prompt lists (mode both and native).
    clients: Mutex<Vec<Peer<RoleServer>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update is one insert or remove: the maps survive a panic.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Relay {
    /// Registers the client call `call` until the guard drops.
    pub(crate) fn enter(self: &Arc<Self>, call: &str, caller: Caller) -> Entered {
        lock(&self.callers).insert(call.to_owned(), caller);
        Entered {
            relay: Arc::clone(self),
            call: call.to_owned(),
        }
    }

    /// Registers a call of `upstream`'s tool `tool` for the client call
    /// whose id (or a program's sub-call id, `<call>:...`) is `call_id`,
    /// until the guard drops. Registered before the request is sent, so that
    /// what the upstream sends as soon as its tool starts (a log message, a
    /// request of its client) finds the call; under a placeholder token
    /// until [`UpstreamCall::sent`] gives the one rmcp sent.
    pub(crate) fn upstream_call(
        self: &Arc<Self>,
        upstream: &str,
        tool: &str,
        call_id: &str,
        inputs: Arc<CallInputs>,
    ) -> UpstreamCall {
        static PLACEHOLDERS: AtomicU64 = AtomicU64::new(0);
        let call = call_id.split(':').next().unwrap_or(call_id).to_owned();
        // Not a token rmcp sends: its tokens are numbers.
        let placeholder = format!("unsent-{}", PLACEHOLDERS.fetch_add(1, Ordering::Relaxed));
        let key = (
            upstream.to_owned(),
            ProgressToken(NumberOrString::String(placeholder.into())),
        );
        let (sender, mut received) = mpsc::channel(QUEUED_PROGRESS);
        lock(&self.routes).insert(
            key.clone(),
            Route {
                call: call.clone(),
                notices: sender,
                inputs,
            },
        );
        let relay = Arc::clone(self);
        let tool = tool.to_owned();
        let forwarder = tokio::spawn(async move {
            while let Some(notice) = received.recv().await {
                match notice {
                    Notice::Progress(params) => relay.forward_progress(&call, &tool, params).await,
                    Notice::Log(params) => relay.forward_log(&call, params).await,
                }
            }
        });
        UpstreamCall {
            relay: Arc::clone(self),
            key,
            forwarder: Some(forwarder),
        }
    }

    /// Queues `params`, a progress notification `upstream` sent, for the
    /// call it belongs to, in arrival order (see [`Tap`]); full, it is
    /// dropped, as progress may be.
    ///
    /// rmcp chooses a request's progress token as it sends the request, so
    /// a call learns its token ([`UpstreamCall::sent`]) only once the
    /// request has left, and a fast upstream's first progress can arrive
    /// before that. Progress for a token no call has yet is kept (the
    /// newest [`UNCLAIMED_PROGRESS`], for [`UNCLAIMED_TTL`]) for the call
    /// that claims the token next.
    fn observe_progress(&self, upstream: &str, params: ProgressNotificationParam) {
        let routes = lock(&self.routes);
        if let Some(route) = routes.get(&(upstream.to_owned(), params.progress_token.clone())) {
            let _ = route.notices.try_send(Notice::Progress(params));
            return;
        }
        let mut unclaimed = lock(&self.unclaimed);
        let now = Instant::now();
        while unclaimed.len() >= UNCLAIMED_PROGRESS
            || unclaimed
                .front()
                .is_some_and(|old| now.duration_since(old.at) > UNCLAIMED_TTL)
        {
            unclaimed.pop_front();
        }
        unclaimed.push_back(Unclaimed {
            upstream: upstream.to_owned(),
            params,
            at: now,
        });
    }

    /// Queues `params`, a log message `upstream` sent, once for each client
    /// call with a call of `upstream` in flight, in arrival order; with
    /// none, it goes to coderun's own log.
    fn observe_log(&self, upstream: &str, mut params: LoggingMessageNotificationParam) {
        params.logger = Some(match params.logger.take() {
            Some(logger) => format!("{upstream}/{logger}"),
            None => upstream.to_owned(),
        });
        let routes = lock(&self.routes);
        let mut told: Vec<&str> = Vec::new();
        for ((name, _), route) in routes.iter() {
            if name == upstream && !told.contains(&route.call.as_str()) {
                told.push(&route.call);
                let _ = route.notices.try_send(Notice::Log(params.clone()));
            }
        }
        if told.is_empty() {
            tracing::info!(upstream = %upstream, "log message: {}", params.data);
        }
    }

    /// The answers a resumed run's client gave to its paused call's
    /// upstream, for the upstream call `call_id` (they are the first such
    /// call's: the paused call, dispatched again).
    pub(crate) fn take_answers(&self, call_id: &str) -> InputResponses {
        let call = call_id.split(':').next().unwrap_or(call_id);
        self.caller(call)
            .and_then(|caller| caller.resumed)
            .and_then(|resumed| {
                resumed
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take()
            })
            .unwrap_or_default()
    }

    /// The span of the client call the upstream call `call_id` belongs to.
    pub(crate) fn caller_span(&self, call_id: &str) -> Option<tracing::Span> {
        let call = call_id.split(':').next().unwrap_or(call_id);
        lock(&self.callers)
            .get(call)
            .map(|caller| caller.span.clone())
    }

    fn caller(&self, call: &str) -> Option<Caller> {
        lock(&self.callers).get(call).cloned()
    }

    /// The distinct client calls with a call of `upstream` in flight.
    fn calls_of(&self, upstream: &str) -> Vec<String> {
        let mut calls: Vec<String> = lock(&self.routes)
            .iter()
            .filter(|((name, _), _)| name == upstream)
            .map(|(_, route)| route.call.clone())
            .collect();
        calls.sort();
        calls.dedup();
        calls
    }

    async fn forward_progress(&self, call: &str, tool: &str, params: ProgressNotificationParam) {
        let Some(caller) = self.caller(call) else {
            return;
        };
        if caller.native {
            let Some(token) = caller.progress else {
                return;
            };
            let mut forwarded = ProgressNotificationParam::new(token, params.progress);
            forwarded.total = params.total;
            forwarded.message = params.message;
            let _ = caller.peer.notify_progress(forwarded).await;
        } else {
            let message = match (&params.message, params.total) {
                (Some(message), _) => message.clone(),
                (None, Some(total)) => format!("{} of {total}", params.progress),
                (None, None) => format!("{}", params.progress),
            };
            self.progress
                .route_message(call, format!("tools.{tool}: {message}"));
        }
    }

    async fn forward_log(&self, call: &str, params: LoggingMessageNotificationParam) {
        let Some(caller) = self.caller(call) else {
            return;
        };
        if caller
            .level
            .get()
            .is_some_and(|level| allows(level, params.level))
        {
            let _ = caller.peer.notify_logging_message(params).await;
        }
    }

    /// The one caller that can answer `upstream`'s request `what`, which
    /// needs the capability `has`.
    fn asked(
        &self,
        upstream: &str,
        what: &str,
        has: impl Fn(&ClientCapabilities) -> bool,
    ) -> Result<(Caller, Option<Arc<CallInputs>>), ErrorData> {
        // A client that is gone cannot answer: a call of its that is still
        // in flight (its upstream call not yet back) does not make the
        // request ambiguous.
        let calls: Vec<String> = self
            .calls_of(upstream)
            .into_iter()
            .filter(|call| {
                self.caller(call)
                    .is_some_and(|caller| !caller.peer.is_transport_closed())
            })
            .collect();
        let refuse = |why: String| {
            Err(ErrorData::invalid_request(
                format!("coderun cannot relay {what} to its client: {why}"),
                None,
            ))
        };
        let [call] = calls.as_slice() else {
            return refuse(if calls.is_empty() {
                "no call of this server by a client is in flight".to_owned()
            } else {
                "calls of this server by several clients are in flight, and which one the \
                 request is for is unknown"
                    .to_owned()
            });
        };
        let Some(caller) = self.caller(call) else {
            return refuse("the client's call has ended".to_owned());
        };
        if caller.stateless && caller.task.is_none() && !caller.pausable {
            return refuse(
                "the client is on MCP 2026-07-28 or later, where a server sends its client no \
                 requests"
                    .to_owned(),
            );
        }
        if !caller.capabilities.as_ref().is_some_and(has) {
            return refuse("the client did not declare that it can answer it".to_owned());
        }
        // The call that asked: the one call of the upstream in flight for
        // this client call, if there is one.
        let routes = lock(&self.routes);
        let mut mine = routes
            .iter()
            .filter(|((name, _), route)| name == upstream && route.call == *call);
        let inputs = match (mine.next(), mine.next()) {
            (Some((_, route)), None) => Some(Arc::clone(&route.inputs)),
            _ => None,
        };
        drop(routes);
        Ok((caller, inputs))
    }
}

/// A registered client call; dropping it unregisters the call.
pub(crate) struct Entered {
    relay: Arc<Relay>,
    call: String,
}

impl Drop for Entered {
    fn drop(&mut self) {
        lock(&self.relay.callers).remove(&self.call);
    }
}

/// A registered upstream call; dropping it unregisters the call and drops
/// the progress not forwarded yet.
pub(crate) struct UpstreamCall {
    relay: Arc<Relay>,
    key: (String, ProgressToken),
    forwarder: Option<JoinHandle<()>>,
}

/// Progress notifications of one upstream call waiting to be forwarded.
const QUEUED_PROGRESS: usize = 64;
/// Progress notifications kept for tokens no call has claimed yet (see
/// [`Relay::observe_progress`]), and for how long: a call claims its token
/// within moments of sending it, so what waits longer is progress no call
/// will claim (sent after its call ended, or under a token coderun never
/// sent).
const UNCLAIMED_PROGRESS: usize = 64;
const UNCLAIMED_TTL: Duration = Duration::from_secs(5);

/// A progress notification that came before its call knew its token.
struct Unclaimed {
    upstream: String,
    params: ProgressNotificationParam,
    at: Instant,
}

/// How long an answered call waits for the progress its upstream sent
/// before the answer to be forwarded.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(1);

impl UpstreamCall {
    /// The request left with progress token `token`: the upstream's
    /// progress is routed by it from now on. What the upstream sent under
    /// `token` before now is queued first, in the order it arrived.
    pub(crate) fn sent(&mut self, token: ProgressToken) {
        let mut routes = lock(&self.relay.routes);
        let Some(route) = routes.remove(&self.key) else {
            return;
        };
        self.key.1 = token;
        let now = Instant::now();
        lock(&self.relay.unclaimed).retain(|early| {
            let mine = early.upstream == self.key.0 && early.params.progress_token == self.key.1;
            if mine && now.duration_since(early.at) <= UNCLAIMED_TTL {
                let _ = route
                    .notices
                    .try_send(Notice::Progress(early.params.clone()));
            }
            !mine
        });
        routes.insert(self.key.clone(), route);
    }

    /// Ends the call once the upstream answered: the progress it sent
    /// before the answer (all of it queued by then, as [`Tap`] sees each
    /// message before rmcp does) is forwarded first, within
    /// [`SETTLE_TIMEOUT`], so that it reaches the client before the answer.
    pub(crate) async fn settle(mut self) {
        lock(&self.relay.routes).remove(&self.key);
        if let Some(mut forwarder) = self.forwarder.take()
            && tokio::time::timeout(SETTLE_TIMEOUT, &mut forwarder)
                .await
                .is_err()
        {
            forwarder.abort();
        }
    }
}

impl Drop for UpstreamCall {
    fn drop(&mut self) {
        lock(&self.relay.routes).remove(&self.key);
        if let Some(forwarder) = self.forwarder.take() {
            forwarder.abort();
        }
    }
}

#[cfg(test)]
mod tests;
