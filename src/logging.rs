//! The `mcp` and `sdk` commands' process: logging to stderr on a thread
//! of its own (stdout may be the MCP stream), OpenTelemetry traces when
//! configured, and the flush of both when the command ends.

use std::time::Duration;

/// stderr for the log thread: a line it cannot write is dropped, silently
/// (there is nowhere else to say so), so the thread never stops on an
/// error.
struct QuietStderr;

impl std::io::Write for QuietStderr {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let _ = std::io::stderr().write_all(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

/// Lines of log a stderr that is slow to read may hold back before the
/// next are dropped.
const LOG_LINES_BUFFERED: usize = 8192;

/// Logging to stderr (stdout may be the MCP stream) and TLS for HTTPS
/// upstreams. Log lines are written by a thread of their own: a stderr
/// nobody reads (lines beyond [`LOG_LINES_BUFFERED`] are dropped) or one
/// that is closed (write errors are ignored, never reported on stderr
/// itself) cannot block the server or its shutdown. The guard flushes what
/// is buffered when the command ends, waiting at most [`LOG_FLUSH`].
pub(crate) fn init_mcp_process(json: bool) -> LogFlush {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,coderun=info"));
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(true)
        .buffered_lines_limit(LOG_LINES_BUFFERED)
        .thread_name("coderun-log")
        .finish(QuietStderr);
    report_dropped_lines(writer.error_counter());
    // TLS first: the OTLP exporter's HTTP client needs it to be built.
    // Fails only if a provider is already installed, which is as good.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (traces, provider) = match otlp_traces() {
        Some((layer, provider)) => (Some(layer), Some(provider)),
        None => (None, None),
    };
    {
        use tracing_subscriber::layer::SubscriberExt as _;
        use tracing_subscriber::util::SubscriberInitExt as _;
        let text = (!json).then(|| {
            tracing_subscriber::fmt::layer()
                .with_writer(writer.clone())
                .with_ansi(false)
                .log_internal_errors(false)
        });
        // One JSON object a line, with the fields of the span the event is
        // in (a call's `trace_id`, when traces are exported).
        let json = json.then(|| {
            tracing_subscriber::fmt::layer()
                .json()
                .with_current_span(true)
                .with_span_list(false)
                .with_writer(writer)
                .log_internal_errors(false)
        });
        tracing_subscriber::registry()
            .with(filter)
            .with(text)
            .with(json)
            .with(traces)
            .init();
    }
    LogFlush(Some(guard), provider)
}

/// Spans exported over OTLP (HTTP, JSON; the blocking client exports from
/// the batch processor's thread) when `OTEL_EXPORTER_OTLP_ENDPOINT` is set,
/// with the W3C trace context as the propagator; the exporter reads the
/// other standard `OTEL_*` variables itself.
fn otlp_traces<S>() -> Option<(
    tracing_opentelemetry::OpenTelemetryLayer<S, opentelemetry_sdk::trace::Tracer>,
    opentelemetry_sdk::trace::SdkTracerProvider,
)>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_otlp::WithExportConfig as _;
    let endpoint = std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT")
        .ok()
        .filter(|endpoint| !endpoint.is_empty())?;
    let exporter = match opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpJson)
        .build()
    {
        Ok(exporter) => exporter,
        Err(error) => {
            eprintln!("coderun: traces are not exported to {endpoint}: {error}");
            return None;
        }
    };
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(
            opentelemetry_sdk::Resource::builder()
                .with_service_name("coderun")
                .build(),
        )
        .build();
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    let tracer = provider.tracer("coderun");
    Some((tracing_opentelemetry::layer().with_tracer(tracer), provider))
}

/// How often a count of the log lines dropped since the last count is
/// logged (only when some were).
const LOG_DROPS_EVERY: Duration = Duration::from_secs(2);

/// Logs, from a thread of its own, how many lines the writer dropped
/// because stderr was not read fast enough: the count reaches whoever
/// reads stderr once they catch up.
fn report_dropped_lines(counter: tracing_appender::non_blocking::ErrorCounter) {
    let reporting = move || {
        let mut reported = 0;
        loop {
            std::thread::sleep(LOG_DROPS_EVERY);
            let dropped = counter.dropped_lines();
            if dropped > reported {
                tracing::warn!(
                    "log lines were dropped, stderr not being read as fast as coderun logs: {} \
                     since the last count ({dropped} in all)",
                    dropped - reported
                );
                reported = dropped;
            }
        }
    };
    let _ = std::thread::Builder::new()
        .name("coderun-log-drops".into())
        .spawn(reporting);
}

/// How long the end of `coderun mcp` waits for its last log lines to be
/// written: a stderr that is not read must not hold up the exit (the
/// guard's own wait is a second).
const LOG_FLUSH: Duration = Duration::from_millis(200);

/// How long the exit waits for the last spans to be exported.
const TRACES_FLUSH: Duration = Duration::from_secs(2);

/// Flushes the log writer when dropped, waiting at most [`LOG_FLUSH`].
pub(crate) struct LogFlush(
    Option<tracing_appender::non_blocking::WorkerGuard>,
    Option<opentelemetry_sdk::trace::SdkTracerProvider>,
);

impl Drop for LogFlush {
    fn drop(&mut self) {
        // The spans still buffered are exported before the process ends,
        // waiting at most TRACES_FLUSH: a collector that does not answer
        // must not hold up the exit.
        if let Some(provider) = self.1.take() {
            let (exported, wait) = std::sync::mpsc::channel();
            let exporting = std::thread::Builder::new()
                .name("coderun-traces-flush".into())
                .spawn(move || {
                    if let Err(error) = provider.shutdown() {
                        tracing::warn!("the last traces were not exported: {error}");
                    }
                    let _ = exported.send(());
                });
            if exporting.is_ok() {
                let _ = wait.recv_timeout(TRACES_FLUSH);
            }
        }
        let Some(guard) = self.0.take() else {
            return;
        };
        let (flushed, wait) = std::sync::mpsc::channel();
        let flushing = std::thread::Builder::new()
            .name("coderun-log-flush".into())
            .spawn(move || {
                drop(guard);
                let _ = flushed.send(());
            });
        if flushing.is_ok() {
            let _ = wait.recv_timeout(LOG_FLUSH);
        }
    }
}
