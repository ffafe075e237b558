//! Traces: each client call is a span (`run_code`, or `tool_call` for an
//! upstream's own tool in mode both) and each upstream call it makes a
//! child span (`upstream_call`), exported over OTLP when the process sets
//! up an OpenTelemetry layer (`coderun mcp` does when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set).
//!
//! The W3C trace context crosses with the calls: a client's `traceparent`
//! (and `tracestate`), from the request's `_meta` (MCP's SEP-414) or its
//! HTTP header, becomes the parent of the call's span, and each upstream
//! call carries its own span's context in its request's `_meta`.

use opentelemetry::propagation::{Extractor, Injector};
use rmcp::RoleServer;
use rmcp::model::{MetaObject, RequestMetaObject};
use rmcp::service::RequestContext;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// A trace context's two fields.
#[derive(Default)]
struct Carrier {
    traceparent: Option<String>,
    tracestate: Option<String>,
}

impl Extractor for Carrier {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.traceparent.as_deref(),
            "tracestate" => self.tracestate.as_deref(),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

impl Injector for Carrier {
    fn set(&mut self, key: &str, value: String) {
        match key {
            "traceparent" => self.traceparent = Some(value),
            "tracestate" => self.tracestate = Some(value),
            _ => {}
        }
    }
}

/// The longest trace context field taken from a client.
const MAX_FIELD_BYTES: usize = 512;

/// Makes the trace context `context`'s request carries, if any, the parent
/// of `span`.
pub(crate) fn adopt(span: &tracing::Span, context: &RequestContext<RoleServer>) {
    let meta: &MetaObject = &context.meta;
    let header = |name: &str| {
        context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.headers.get(name))
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let carrier = Carrier {
        traceparent: meta
            .get_traceparent()
            .map(str::to_owned)
            .or_else(|| header("traceparent"))
            .filter(|value| value.len() <= MAX_FIELD_BYTES),
        tracestate: meta
            .get_tracestate()
            .map(str::to_owned)
            .or_else(|| header("tracestate"))
            .filter(|value| value.len() <= MAX_FIELD_BYTES),
    };
    if carrier.traceparent.is_none() {
        return;
    }
    let parent =
        opentelemetry::global::get_text_map_propagator(|propagator| propagator.extract(&carrier));
    let _ = span.set_parent(parent);
}

/// Records `span`'s trace id in its `trace_id` field, for the logs, when
/// it has one (with an OpenTelemetry layer).
pub(crate) fn record_trace_id(span: &tracing::Span) {
    use opentelemetry::trace::TraceContextExt as _;
    let context = span.context();
    let trace = context.span().span_context().trace_id();
    if trace != opentelemetry::trace::TraceId::INVALID {
        span.record("trace_id", tracing::field::display(trace));
    }
}

/// Puts `span`'s trace context in `meta`, for the upstream.
pub(crate) fn inject(span: &tracing::Span, meta: &mut RequestMetaObject) {
    let mut carrier = Carrier::default();
    let context = span.context();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut carrier);
    });
    if let Some(traceparent) = carrier.traceparent {
        meta.set_traceparent(traceparent);
    }
    if let Some(tracestate) = carrier.tracestate.filter(|state| !state.is_empty()) {
        meta.set_tracestate(tracestate);
    }
}
