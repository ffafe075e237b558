//! The Rust library's side of `make bench-python`: the same runs as the
//! Python loop, made from Rust in the same process, so the two are
//! measured on one build, one engine and one machine state.

use std::time::Instant;

use coderun_runtime::{CodeBindingNamespace, CodeRunRequest};
use pyo3::prelude::*;

use crate::MisuseError;
use crate::runtime::{self, Runtime};

/// Runs `code` `runs` times from Rust, one after another, and returns the
/// seconds taken. With `echo`, the program sees a Rust binding
/// `bench.echo` that resolves with its argument (the baseline of a Python
/// binding's round trip). Fails if any run fails.
#[pyfunction]
#[pyo3(signature = (runtime, code, runs, echo = false))]
pub(crate) fn rust_loop(
    py: Python<'_>,
    runtime: &Bound<'_, Runtime>,
    code: &str,
    runs: u64,
    echo: bool,
) -> PyResult<f64> {
    runtime::not_in_a_binding("rust_loop")?;
    let runtime = runtime.get().runtime.clone();
    let code = code.to_owned();
    py.detach(|| {
        pyo3_async_runtimes::tokio::get_runtime().block_on(async move {
            use coderun_runtime::CodeRuntime as _;
            let started = Instant::now();
            for _ in 0..runs {
                let mut request = CodeRunRequest::new(code.as_str());
                if echo {
                    request = request.binding(
                        CodeBindingNamespace::new("bench")
                            .function("echo", |argument| async move { Ok(argument) }),
                    );
                }
                let result = runtime
                    .run(request)
                    .await
                    .map_err(|error| MisuseError::new_err(error.to_string()))?;
                if let Some(error) = result.error {
                    return Err(MisuseError::new_err(format!(
                        "the benchmark run failed: {error}"
                    )));
                }
            }
            Ok(started.elapsed().as_secs_f64())
        })
    })
}
