//! The CLI's demo namespace: a few host functions so that a newcomer can see
//! a binding call work without writing Rust. Not meant for production use.

use std::time::Duration;

use coderun_runtime::{BindingError, CodeBindingNamespace};
use serde_json::{Value, json};

/// The global the demo namespace is exposed as.
pub const DEMO_GLOBAL: &str = "demo";

/// `demo.echo(x)` returns `x`; `demo.add({a, b})` returns `a + b`;
/// `demo.sleep({ms})` resolves after `ms` milliseconds (at most 10 s);
/// `demo.fail({message})` rejects with `message`; `demo.confirm(question)`
/// interrupts the run with `{ confirm: question }`, for `coderun resume` to
/// answer (in a run that records; elsewhere it rejects).
pub fn namespace() -> CodeBindingNamespace {
    CodeBindingNamespace::new(DEMO_GLOBAL)
        .function("echo", |args| async move { Ok(args) })
        .function("add", |args| async move {
            let number = |key: &str| args.get(key).and_then(Value::as_f64);
            match (number("a"), number("b")) {
                (Some(a), Some(b)) => Ok(json!(a + b)),
                _ => Err("demo.add expects { a: number, b: number }".into()),
            }
        })
        .function("sleep", |args| async move {
            let ms = args
                .get("ms")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(10_000);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(json!({ "slept_ms": ms }))
        })
        .function("fail", |args| async move {
            let message = args
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("demo.fail was called");
            Err(message.into())
        })
        .function("confirm", |question| async move {
            Err(BindingError::interrupt(json!({ "confirm": question })))
        })
}
