//! The connections of `coderun mcp --listen`, served one by one with hyper
//! so that slow and idle clients cannot hold the server: a cap on open
//! connections, a deadline for a request's headers and one for its body.
//!
//! - **The cap** (`http.maxConnections`) keeps the process below its file
//!   descriptor limit. At the cap, a new connection takes the place of the
//!   oldest one that has not yet sent a whole request (an idle or half-sent
//!   socket: what a slowloris or a flood of idle connections holds), so a
//!   client that sends requests gets in while such sockets fill the cap; a
//!   new connection is answered 503 and closed only when every open one is
//!   serving a client.
//! - **Headers** (`http.headerTimeoutSecs`): hyper closes a connection
//!   whose request headers do not arrive in time after it opens, or after
//!   its previous response when kept alive.
//! - **Body** (`http.bodyTimeoutSecs`): a body not received whole in time
//!   gets 408.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use http::{StatusCode, header};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::AsyncWriteExt as _;
use tokio::sync::{Notify, Semaphore};
use tokio_util::task::TaskTracker;

use super::shutdown::Shutdown;

/// The connections past the cap answered at once; past these, closed
/// without an answer.
const MAX_REFUSALS: usize = 64;
/// How long a refused connection is given to take its 503.
const REFUSAL_WRITE: Duration = Duration::from_secs(1);
/// The pause after a failed `accept`.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);
/// How long a new connection waits for the one it displaced to close.
const DISPLACE_WAIT: Duration = Duration::from_secs(1);

/// The connection limits (see the module's notes).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_connections: usize,
    pub header_timeout: Duration,
}

/// A connection that has not yet sent a whole request, which a new one
/// may displace.
struct Fresh {
    id: u64,
    close: Arc<Notify>,
}

/// The connections still waiting for their first request, oldest first.
#[derive(Default)]
struct FreshList(Mutex<VecDeque<Fresh>>);

impl FreshList {
    fn push(&self, id: u64, close: Arc<Notify>) {
        self.lock().push_back(Fresh { id, close });
    }

    fn remove(&self, id: u64) {
        self.lock().retain(|fresh| fresh.id != id);
    }

    /// Tells the oldest to close; false when there is none.
    fn displace_oldest(&self) -> bool {
        match self.lock().pop_front() {
            Some(fresh) => {
                fresh.close.notify_one();
                true
            }
            None => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Fresh>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Serves `router` on `listener` until `shutdown` is requested, then lets
/// open requests finish until its deadline.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: Limits,
    shutdown: &Shutdown,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let refusals = Arc::new(Semaphore::new(MAX_REFUSALS));
    let fresh = Arc::new(FreshList::default());
    let tracker = TaskTracker::new();
    let mut next_id = 0u64;
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, or a connection reset before
                    // it was accepted: wait a moment rather than spin.
                    tracing::warn!("accepting an HTTP connection failed: {error}");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = shutdown.requested() => break,
        };
        let permit = match Arc::clone(&slots).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) if fresh.displace_oldest() => {
                match tokio::time::timeout(DISPLACE_WAIT, Arc::clone(&slots).acquire_owned()).await
                {
                    Ok(Ok(permit)) => permit,
                    _ => {
                        refuse(stream, peer, &refusals, limits.max_connections);
                        continue;
                    }
                }
            }
            Err(_) => {
                refuse(stream, peer, &refusals, limits.max_connections);
                continue;
            }
        };
        next_id += 1;
        let id = next_id;
        let close = Arc::new(Notify::new());
        fresh.push(id, Arc::clone(&close));
        // The first request takes the connection off the fresh list.
        let inner = hyper_util::service::TowerToHyperService::new(router.clone());
        let served = Arc::new(AtomicBool::new(false));
        let on_request = Arc::clone(&fresh);
        let service = hyper::service::service_fn(move |request| {
            if !served.swap(true, Ordering::Relaxed) {
                on_request.remove(id);
            }
            hyper::service::Service::call(&inner, request)
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout);
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let stopping = shutdown.clone();
        let done = Arc::clone(&fresh);
        tracker.spawn(async move {
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                served = connection.as_mut() => {
                    if let Err(error) = served {
                        tracing::debug!("HTTP connection from {peer} ended: {error}");
                    }
                }
                () = close.notified() => {
                    tracing::debug!("closing an HTTP connection from {peer} that sent no request, for a new one");
                }
                () = stopping.requested() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            done.remove(id);
            drop(permit);
        });
    }
    tracker.close();
    tokio::select! {
        () = tracker.wait() => {}
        () = shutdown.passed_deadline() => {
            tracing::info!("HTTP requests still open at the shutdown deadline are dropped");
        }
    }
}

/// Answers a connection past the cap with 503 and closes it.
fn refuse(
    mut stream: tokio::net::TcpStream,
    peer: SocketAddr,
    refusals: &Arc<Semaphore>,
    cap: usize,
) {
    // Debug, not info: a flood would write a line per connection.
    tracing::debug!(
        "refusing an HTTP connection from {peer}: {cap} connections are open and serving, the cap"
    );
    let Ok(permit) = Arc::clone(refusals).try_acquire_owned() else {
        return;
    };
    tokio::spawn(async move {
        let body = format!(
            "coderun mcp serves at most {cap} connections at once (http.maxConnections); retry \
             later\n"
        );
        let response = format!(
            "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let _ = tokio::time::timeout(REFUSAL_WRITE, async {
            stream.write_all(response.as_bytes()).await?;
            stream.shutdown().await
        })
        .await;
        drop(permit);
    });
}

/// The request body's deadline and cap.
#[derive(Clone, Copy)]
pub struct BodyLimits {
    pub timeout: Duration,
    pub max_bytes: usize,
}

/// Reads the request's body whole within its deadline (a client that
/// trickles it gets 408), then hands the request on. A body over the cap
/// is passed on cut one byte past it, for rmcp's 413.
pub async fn read_body_in_time(
    State(limits): State<BodyLimits>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    let cap = limits.max_bytes.saturating_add(1);
    let read = tokio::time::timeout(limits.timeout, axum::body::to_bytes(body, cap)).await;
    match read {
        Ok(Ok(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Ok(Err(_)) => (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "Payload Too Large: the request body is over {} bytes, or was cut off\n",
                limits.max_bytes
            ),
        )
            .into_response(),
        Err(_) => (
            StatusCode::REQUEST_TIMEOUT,
            [(header::CONNECTION, "close")],
            format!(
                "Request Timeout: the request body did not arrive within {} s \
                 (http.bodyTimeoutSecs)\n",
                limits.timeout.as_secs_f64()
            ),
        )
            .into_response(),
    }
}
