//! Operations: what an orchestrator and a metrics scraper ask a
//! `coderun mcp` replica, on a port of their own (`--ops-listen`), never
//! with `/mcp`:
//! - `GET /healthz`: 200 while the process serves;
//! - `GET /readyz`: 200 once the upstreams were started and the guest
//!   compiled, 503 before and from the moment shutdown is requested (so
//!   that a balancer stops sending work while in-flight runs finish);
//! - `GET /metrics`: Prometheus text (prometheus-client), the process's
//!   [`Metrics`].

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use coderun_runtime::WasmCodeRuntime;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::shutdown::Shutdown;

/// A run's outcome: `ok`, `paused` or `failed`, and the failure's kind.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunLabels {
    outcome: String,
    kind: String,
}

/// An upstream call: the server, the tool as the server lists it, and
/// `ok`, `error`, `timeout`, `cancelled` or `paused`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    server: String,
    tool: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ServerLabels {
    server: String,
}

/// Why the HTTP front door refused a request.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RejectLabels {
    reason: String,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

fn seconds_histogram() -> Histogram {
    // 1 ms to about 65 s.
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
}

/// The process's metrics.
pub struct Metrics {
    registry: Registry,
    runs: Family<RunLabels, Counter>,
    run_seconds: Histogram,
    run_fuel: Histogram,
    in_flight: Gauge,
    memory_in_use: Gauge,
    memory_budget: Gauge,
    calls: Family<CallLabels, Counter>,
    call_seconds: Histograms<ServerLabels>,
    paused: Counter,
    resumed: Counter,
    rejected: Family<RejectLabels, Counter>,
    /// The runtime whose memory is reported.
    runtime: OnceLock<Arc<WasmCodeRuntime>>,
    /// Whether the upstreams were started and the guest compiled.
    started: AtomicBool,
    /// Client calls (of any tool) in flight, which a drain waits for.
    calls_now: AtomicUsize,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    fn new() -> Self {
        let mut registry = Registry::with_prefix("coderun");
        let runs = Family::<RunLabels, Counter>::default();
        registry.register(
            "runs",
            "run_code calls by outcome (ok, paused, failed) and failure kind",
            runs.clone(),
        );
        let run_seconds = seconds_histogram();
        registry.register(
            "run_duration_seconds",
            "Wall-clock time of run_code calls",
            run_seconds.clone(),
        );
        // 10^5 to about 10^11 units of fuel.
        let run_fuel = Histogram::new(exponential_buckets(100_000.0, 4.0, 14));
        registry.register(
            "run_fuel",
            "Fuel that run_code calls consumed",
            run_fuel.clone(),
        );
        let in_flight = Gauge::default();
        registry.register(
            "runs_in_flight",
            "run_code calls running now",
            in_flight.clone(),
        );
        let memory_in_use = Gauge::default();
        registry.register(
            "memory_in_use_bytes",
            "Linear memory the programs running now hold",
            memory_in_use.clone(),
        );
        let memory_budget = Gauge::default();
        registry.register(
            "memory_budget_bytes",
            "Linear memory all programs may hold together (limits.maxTotalMemoryMib)",
            memory_budget.clone(),
        );
        let calls = Family::<CallLabels, Counter>::default();
        registry.register(
            "upstream_calls",
            "Calls of upstream tools by server, tool and outcome",
            calls.clone(),
        );
        let call_seconds: Histograms<ServerLabels> =
            Family::new_with_constructor(seconds_histogram);
        registry.register(
            "upstream_call_duration_seconds",
            "Latency of upstream tool calls, by server",
            call_seconds.clone(),
        );
        let paused = Counter::default();
        registry.register(
            "approvals_paused",
            "Programs paused for an approval or a client's answer",
            paused.clone(),
        );
        let resumed = Counter::default();
        registry.register(
            "approvals_resumed",
            "Paused programs resumed from their sealed state",
            resumed.clone(),
        );
        let rejected = Family::<RejectLabels, Counter>::default();
        registry.register(
            "rejected_requests",
            "HTTP requests the front door refused, by reason (auth, origin: a foreign Origin or Host, size, timeout)",
            rejected.clone(),
        );
        Self {
            registry,
            runs,
            run_seconds,
            run_fuel,
            in_flight,
            memory_in_use,
            memory_budget,
            calls,
            call_seconds,
            paused,
            resumed,
            rejected,
            runtime: OnceLock::new(),
            started: AtomicBool::new(false),
            calls_now: AtomicUsize::new(0),
        }
    }

    /// The process's metrics (one gateway per process).
    pub fn global() -> &'static Metrics {
        static METRICS: OnceLock<Metrics> = OnceLock::new();
        METRICS.get_or_init(Metrics::new)
    }

    /// Reports `runtime`'s memory, and marks the replica started.
    pub(crate) fn started(&self, runtime: &Arc<WasmCodeRuntime>) {
        let _ = self.runtime.set(Arc::clone(runtime));
        self.memory_budget
            .set(i64::try_from(runtime.total_memory_budget()).unwrap_or(i64::MAX));
        self.started.store(true, Ordering::Release);
    }

    /// A client call starts; the guard counts it as in flight.
    pub(crate) fn call_started(&self) -> CallInFlight<'_> {
        self.calls_now.fetch_add(1, Ordering::AcqRel);
        CallInFlight(self)
    }

    /// Client calls in flight.
    pub(crate) fn calls_in_flight(&self) -> usize {
        self.calls_now.load(Ordering::Acquire)
    }

    /// A `run_code` call starts; the guard counts it as in flight.
    pub(crate) fn run_started(&self) -> InFlight<'_> {
        self.in_flight.inc();
        InFlight(self)
    }

    /// A `run_code` call ended with `outcome` (the trace's), after
    /// `duration`, having consumed `fuel`.
    pub(crate) fn run_ended(&self, outcome: &str, duration: Duration, fuel: u64) {
        let (outcome, kind) = match outcome {
            "ok" | "paused" => (outcome, ""),
            kind => ("failed", kind),
        };
        self.runs
            .get_or_create(&RunLabels {
                outcome: outcome.to_owned(),
                kind: kind.to_owned(),
            })
            .inc();
        self.run_seconds.observe(duration.as_secs_f64());
        #[allow(clippy::cast_precision_loss, reason = "a histogram's bucket")]
        self.run_fuel.observe(fuel as f64);
    }

    /// An upstream call of `server`'s `tool` ended with `outcome` after
    /// `duration`.
    pub(crate) fn upstream_call(
        &self,
        server: &str,
        tool: &str,
        outcome: &str,
        duration: Duration,
    ) {
        self.calls
            .get_or_create(&CallLabels {
                server: server.to_owned(),
                tool: tool.to_owned(),
                outcome: outcome.to_owned(),
            })
            .inc();
        self.call_seconds
            .get_or_create(&ServerLabels {
                server: server.to_owned(),
            })
            .observe(duration.as_secs_f64());
    }

    /// A program paused (an approval, a client's answer).
    pub(crate) fn paused(&self) {
        self.paused.inc();
    }

    /// A paused program was resumed.
    pub(crate) fn resumed(&self) {
        self.resumed.inc();
    }

    /// The HTTP front door refused a request with `status`.
    pub(crate) fn rejected(&self, status: u16) {
        let reason = match status {
            401 => "auth",
            403 => "origin",
            408 => "timeout",
            413 => "size",
            _ => return,
        };
        self.rejected
            .get_or_create(&RejectLabels {
                reason: reason.to_owned(),
            })
            .inc();
    }

    /// The metrics in Prometheus text.
    pub fn encode(&self) -> String {
        if let Some(runtime) = self.runtime.get() {
            self.memory_in_use
                .set(i64::try_from(runtime.memory_in_use()).unwrap_or(i64::MAX));
        }
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }
}

/// A client call in flight; dropping it ends that.
pub(crate) struct CallInFlight<'a>(&'a Metrics);

impl Drop for CallInFlight<'_> {
    fn drop(&mut self) {
        self.0.calls_now.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A `run_code` call in flight; dropping it ends that.
pub(crate) struct InFlight<'a>(&'a Metrics);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.dec();
    }
}

/// The operations server's state.
#[derive(Clone)]
struct Ops {
    shutdown: Shutdown,
}

/// The operations router: `/healthz`, `/readyz` and `/metrics`.
pub fn router(shutdown: Shutdown) -> axum::Router {
    axum::Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
        .route("/metrics", get(metrics))
        .with_state(Ops { shutdown })
}

async fn ready(State(ops): State<Ops>) -> Response {
    if ops.shutdown.is_draining() {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response();
    }
    if !Metrics::global().started.load(Ordering::Acquire) {
        return (StatusCode::SERVICE_UNAVAILABLE, "starting\n").into_response();
    }
    "ready\n".into_response()
}

async fn metrics() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        Metrics::global().encode(),
    )
        .into_response()
}

/// Serves the operations router on `listener` until `shutdown`'s deadline
/// passes (it keeps answering while the replica drains).
pub async fn serve_ops(listener: tokio::net::TcpListener, shutdown: Shutdown) {
    let stop = shutdown.clone();
    let served = axum::serve(listener, router(shutdown))
        .with_graceful_shutdown(async move { stop.passed_deadline().await })
        .await;
    if let Err(error) = served {
        tracing::warn!("the operations server stopped: {error}");
    }
}
