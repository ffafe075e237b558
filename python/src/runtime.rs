//! `coderun._native.Runtime`: one `WasmCodeRuntime`, its runs awaited on
//! the caller's event loop or run on the caller's thread with the GIL
//! released.

use coderun_runtime::{
    CodeRunRequest, CodeRunResult, CodeRuntime, Continuation, MisuseError as RustMisuse, RunRecord,
    WasmCodeRuntime,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3_async_runtimes::TaskLocals;

use crate::config::{self, Options};
use crate::{ConfigError, MisuseError, bindings, convert};

/// The engine and its compiled guest; see `coderun.Runtime`.
#[pyclass(frozen, module = "coderun._native")]
pub(crate) struct Runtime {
    pub(crate) runtime: WasmCodeRuntime,
}

/// How a run relates to time and to a record (the request's options).
struct Durability {
    seed: Option<u64>,
    deterministic: bool,
    epoch_ms: u64,
    record: bool,
    time_zone: Option<String>,
    network: Option<coderun_runtime::NetworkPolicy>,
}

fn misuse(error: RustMisuse) -> PyErr {
    MisuseError::new_err(error.to_string())
}

/// Where a run's awaitables run: the running loop for an awaited run, the
/// loop given for a blocking one.
fn locals(py: Python<'_>, event_loop: Option<&Bound<'_, PyAny>>) -> PyResult<TaskLocals> {
    match event_loop {
        Some(event_loop) => TaskLocals::new(event_loop.clone()).copy_context(py),
        None => pyo3_async_runtimes::tokio::get_current_locals(py),
    }
}

impl Runtime {
    fn request(
        &self,
        mut request: CodeRunRequest,
        bindings: Option<&Bound<'_, PyDict>>,
        locals: Option<&TaskLocals>,
        durability: Option<Durability>,
    ) -> PyResult<CodeRunRequest> {
        for namespace in bindings::namespaces(bindings, locals)? {
            request = request.binding(namespace);
        }
        if let Some(options) = durability {
            if options.deterministic {
                request = request.deterministic(options.seed.unwrap_or(0), options.epoch_ms);
            } else if let Some(seed) = options.seed {
                request = request.seed(seed);
            }
            request = request.record(options.record);
            if let Some(zone) = options.time_zone {
                request = request.time_zone(zone);
            }
            if let Some(policy) = options.network {
                request = request.network(policy);
            }
        }
        Ok(request)
    }

    /// Awaits `request` on the caller's loop: an `asyncio` future whose
    /// cancellation drops the run (and so stops its guest).
    fn spawn<'py>(
        &self,
        py: Python<'py>,
        request: CodeRunRequest,
        locals: TaskLocals,
    ) -> PyResult<Bound<'py, PyAny>> {
        let runtime = self.runtime.clone();
        pyo3_async_runtimes::tokio::future_into_py_with_locals(py, locals, async move {
            let result = runtime.run(request).await.map_err(misuse)?;
            Python::attach(|py| convert::result(py, &result).map(Bound::unbind))
        })
    }

    /// Runs `request` on this thread, the GIL released.
    fn block<'py>(&self, py: Python<'py>, request: CodeRunRequest) -> PyResult<Bound<'py, PyDict>> {
        let result = block_on(py, &self.runtime, request)?;
        convert::result(py, &result)
    }
}

/// Runs `request` on the calling thread (the guest executes here), the GIL
/// released; binding calls run on the shared tokio runtime.
pub(crate) fn block_on(
    py: Python<'_>,
    runtime: &WasmCodeRuntime,
    request: CodeRunRequest,
) -> PyResult<CodeRunResult> {
    not_in_a_binding("run_sync")?;
    py.detach(|| {
        pyo3_async_runtimes::tokio::get_runtime()
            .block_on(runtime.run(request))
            .map_err(misuse)
    })
}

/// Blocking on a run from a binding (a tokio thread) would stall the
/// thread its own calls need: refuse it.
pub(crate) fn not_in_a_binding(what: &str) -> PyResult<()> {
    if tokio::runtime::Handle::try_current().is_ok() {
        return Err(MisuseError::new_err(format!(
            "{what} was called from a binding, on one of coderun's threads, where it would block \
             the calls it waits for; await the async method instead"
        )));
    }
    Ok(())
}

fn record(text: &str) -> PyResult<RunRecord> {
    RunRecord::from_json(text).map_err(|error| MisuseError::new_err(error.to_string()))
}

fn continuation(text: &str) -> PyResult<Continuation> {
    Continuation::from_json(text).map_err(|error| MisuseError::new_err(error.to_string()))
}

/// The answer a resume delivers: `reject` (the call rejects with it) or
/// `answer` (JSON).
fn answer(
    answer: Option<&Bound<'_, PyAny>>,
    reject: Option<String>,
) -> PyResult<Result<serde_json::Value, String>> {
    if let Some(reason) = reject {
        return Ok(Err(reason));
    }
    match answer {
        None => Ok(Ok(serde_json::Value::Null)),
        Some(answer) => convert::from_python(answer)
            .map(Ok)
            .map_err(|reason| pyo3::exceptions::PyTypeError::new_err(format!("answer: {reason}"))),
    }
}

#[pymethods]
impl Runtime {
    #[new]
    #[pyo3(signature = (
        *,
        fuel = None,
        fuel_metering = None,
        wall_clock = None,
        max_memory_mib = None,
        max_log_bytes = None,
        max_value_bytes = None,
        max_error_bytes = None,
        max_program_bytes = None,
        max_nesting_depth = None,
        max_total_memory_mib = None,
        max_concurrent_runs = None,
        instance_pools = None,
        max_pending_calls = None,
        max_record_bytes = None,
        continuation_ttl = None,
        continuation_key = None,
        compile_cache_dir = None,
        network = None,
    ))]
    #[expect(clippy::too_many_arguments, reason = "one keyword argument per option")]
    fn new(
        py: Python<'_>,
        fuel: Option<i128>,
        fuel_metering: Option<bool>,
        wall_clock: Option<f64>,
        max_memory_mib: Option<i128>,
        max_log_bytes: Option<i128>,
        max_value_bytes: Option<i128>,
        max_error_bytes: Option<i128>,
        max_program_bytes: Option<i128>,
        max_nesting_depth: Option<i128>,
        max_total_memory_mib: Option<i128>,
        max_concurrent_runs: Option<i128>,
        instance_pools: Option<i128>,
        max_pending_calls: Option<i128>,
        max_record_bytes: Option<i128>,
        continuation_ttl: Option<f64>,
        continuation_key: Option<Vec<u8>>,
        compile_cache_dir: Option<std::path::PathBuf>,
        network: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let config = Options {
            fuel,
            fuel_metering,
            wall_clock,
            max_memory_mib,
            max_log_bytes,
            max_value_bytes,
            max_error_bytes,
            max_program_bytes,
            max_nesting_depth,
            max_total_memory_mib,
            max_concurrent_runs,
            instance_pools,
            max_pending_calls,
            max_record_bytes,
            continuation_ttl,
            continuation_key,
            compile_cache_dir,
            network: crate::network::policy(network)?,
        }
        .build()?;
        // Compiling the guest takes Cranelift a second or more: not under the GIL.
        let runtime = py
            .detach(|| WasmCodeRuntime::new(config))
            .map_err(|error| match error {
                coderun_runtime::RuntimeError::Config(error) => {
                    ConfigError::new_err(error.to_string())
                }
                other => pyo3::exceptions::PyRuntimeError::new_err(other.to_string()),
            })?;
        Ok(Self { runtime })
    }

    /// The configuration in effect (Python units: seconds, MiB).
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        config::describe(py, self.runtime.config())
    }

    #[getter]
    fn language(&self) -> &'static str {
        self.runtime.language().as_str()
    }

    #[getter]
    fn isolation(&self) -> &'static str {
        self.runtime.isolation()
    }

    #[pyo3(signature = (code, bindings = None, *, seed = None, deterministic = false, epoch_ms = 0, record = false, time_zone = None, network = None))]
    #[expect(
        clippy::too_many_arguments,
        reason = "the request's options, as keywords"
    )]
    fn run<'py>(
        &self,
        py: Python<'py>,
        code: String,
        bindings: Option<&Bound<'py, PyDict>>,
        seed: Option<u64>,
        deterministic: bool,
        epoch_ms: u64,
        record: bool,
        time_zone: Option<String>,
        network: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let locals = locals(py, None)?;
        let durability = Durability {
            seed,
            deterministic,
            epoch_ms,
            record,
            time_zone,
            network: crate::network::policy(network)?,
        };
        let request = self.request(
            CodeRunRequest::new(code),
            bindings,
            Some(&locals),
            Some(durability),
        )?;
        self.spawn(py, request, locals)
    }

    #[pyo3(signature = (code, bindings = None, *, seed = None, deterministic = false, epoch_ms = 0, record = false, time_zone = None, network = None, event_loop = None))]
    #[expect(
        clippy::too_many_arguments,
        reason = "the request's options, as keywords"
    )]
    fn run_sync<'py>(
        &self,
        py: Python<'py>,
        code: String,
        bindings: Option<&Bound<'py, PyDict>>,
        seed: Option<u64>,
        deterministic: bool,
        epoch_ms: u64,
        record: bool,
        time_zone: Option<String>,
        network: Option<&Bound<'py, PyAny>>,
        event_loop: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let locals = event_loop.map(|l| locals(py, Some(l))).transpose()?;
        let durability = Durability {
            seed,
            deterministic,
            epoch_ms,
            record,
            time_zone,
            network: crate::network::policy(network)?,
        };
        let request = self.request(
            CodeRunRequest::new(code),
            bindings,
            locals.as_ref(),
            Some(durability),
        )?;
        self.block(py, request)
    }

    fn replay<'py>(&self, py: Python<'py>, record_json: &str) -> PyResult<Bound<'py, PyAny>> {
        let request = CodeRunRequest::replay(record(record_json)?);
        self.spawn(py, request, locals(py, None)?)
    }

    fn replay_sync<'py>(&self, py: Python<'py>, record_json: &str) -> PyResult<Bound<'py, PyDict>> {
        let request = CodeRunRequest::replay(record(record_json)?);
        self.block(py, request)
    }

    #[pyo3(signature = (continuation_json, bindings = None, *, answer = None, reject = None))]
    fn resume<'py>(
        &self,
        py: Python<'py>,
        continuation_json: &str,
        bindings: Option<&Bound<'py, PyDict>>,
        answer: Option<&Bound<'py, PyAny>>,
        reject: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let locals = locals(py, None)?;
        let request = CodeRunRequest::resume(
            continuation(continuation_json)?,
            self::answer(answer, reject)?,
        );
        let request = self.request(request, bindings, Some(&locals), None)?;
        self.spawn(py, request, locals)
    }

    #[pyo3(signature = (continuation_json, bindings = None, *, answer = None, reject = None, event_loop = None))]
    fn resume_sync<'py>(
        &self,
        py: Python<'py>,
        continuation_json: &str,
        bindings: Option<&Bound<'py, PyDict>>,
        answer: Option<&Bound<'py, PyAny>>,
        reject: Option<String>,
        event_loop: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let locals = event_loop.map(|l| locals(py, Some(l))).transpose()?;
        let request = CodeRunRequest::resume(
            continuation(continuation_json)?,
            self::answer(answer, reject)?,
        );
        let request = self.request(request, bindings, locals.as_ref(), None)?;
        self.block(py, request)
    }

    /// Aborts in-flight runs, waits until every guest has stopped, and makes
    /// later runs raise `MisuseError`. Idempotent.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        not_in_a_binding("close")?;
        let runtime = self.runtime.clone();
        py.detach(|| pyo3_async_runtimes::tokio::get_runtime().block_on(runtime.dispose()));
        Ok(())
    }

    /// `close()` as an awaitable, for `async with`.
    fn aclose<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let runtime = self.runtime.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            runtime.dispose().await;
            Ok(())
        })
    }
}
