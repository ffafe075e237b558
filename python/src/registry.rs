//! `coderun._native.ToolRegistry`: Code Mode's registry with Python tools.
//! `run_code` goes through the Rust bridge (the per-run call queue, the
//! pre-execute hooks, the dispatch events) exactly as the Rust crate's
//! callers' do; only the handlers and hooks are Python.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use coderun_code_mode::{
    AbortController, DispatchEvent, HookDecision, Mode, RUN_CODE, Tool, ToolCall,
    ToolRegistry as RustRegistry, ToolResult,
};
use coderun_runtime::CodeRuntime;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3_async_runtimes::TaskLocals;
use serde_json::{Value, json};

use crate::bindings::Callable;
use crate::runtime::Runtime;
use crate::{convert, runtime};

/// Each `run_code` call's event loop and dispatch events, by its call id.
#[derive(Default)]
struct Runs {
    loops: HashMap<String, TaskLocals>,
    events: HashMap<String, Vec<DispatchEvent>>,
}

type SharedRuns = Arc<Mutex<Runs>>;

fn lock(runs: &SharedRuns) -> MutexGuard<'_, Runs> {
    // Every update is one step: the maps stay consistent across a panic.
    runs.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The `run_code` call a program's sub-call belongs to: `<parent>:code:<n>`.
fn parent_of(call_id: &str) -> &str {
    call_id
        .rsplit_once(":code:")
        .map_or(call_id, |(parent, _)| parent)
}

/// A handler's return value as a tool result: a `str` is text, anything
/// else is JSON (text and structured value); an exception is an error
/// result with its message.
fn tool_result(outcome: Result<Value, coderun_runtime::BindingError>) -> ToolResult {
    match outcome {
        Ok(Value::String(text)) => ToolResult::text(text),
        Ok(value) => ToolResult::json(value),
        Err(error) => ToolResult::error(error.message()),
    }
}

/// See `coderun.ToolRegistry`.
#[pyclass(frozen, module = "coderun._native")]
pub(crate) struct ToolRegistry {
    registry: Mutex<RustRegistry>,
    runs: SharedRuns,
    next_call: AtomicU64,
}

impl ToolRegistry {
    fn registry(&self) -> MutexGuard<'_, RustRegistry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `run_code` call for `code`, registered under a fresh id with
    /// the loop its handlers' awaitables run on.
    fn start(&self, locals: Option<TaskLocals>) -> String {
        let id = format!("py:{}", self.next_call.fetch_add(1, Ordering::Relaxed) + 1);
        let mut runs = lock(&self.runs);
        if let Some(locals) = locals {
            runs.loops.insert(id.clone(), locals);
        }
        runs.events.insert(id.clone(), Vec::new());
        id
    }
}

/// Runs `code` as a `run_code` call `id` of `registry` and forgets the
/// call's loop; returns the result and the call's events.
async fn run_code(
    registry: RustRegistry,
    runs: SharedRuns,
    id: String,
    code: String,
) -> (ToolResult, Vec<DispatchEvent>) {
    let call = ToolCall::new(id.clone(), RUN_CODE, json!({ "code": code }));
    let result = registry
        .execute(call, AbortController::new().signal())
        .await;
    let mut runs = lock(&runs);
    runs.loops.remove(&id);
    let events = runs.events.remove(&id).unwrap_or_default();
    (result, events)
}

fn outcome<'py>(
    py: Python<'py>,
    result: &ToolResult,
    events: &[DispatchEvent],
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("text", result.text_content())?;
    dict.set_item("is_error", result.is_error)?;
    match &result.structured {
        Some(value) => dict.set_item("structured", convert::to_python(py, value)?)?,
        None => dict.set_item("structured", py.None())?,
    }
    let list = PyList::empty(py);
    for event in events {
        let entry = PyDict::new(py);
        entry.set_item("parent_call_id", &event.parent_call_id)?;
        entry.set_item("sub_call_id", &event.sub_call_id)?;
        entry.set_item("name", &event.name)?;
        entry.set_item("arguments", convert::to_python(py, &event.arguments)?)?;
        entry.set_item("is_error", event.is_error)?;
        entry.set_item("result_summary", &event.result_summary)?;
        list.append(entry)?;
    }
    dict.set_item("events", list)?;
    Ok(dict)
}

#[pymethods]
impl ToolRegistry {
    #[new]
    #[pyo3(signature = (runtime, *, mode = "code"))]
    fn new(runtime: &Bound<'_, Runtime>, mode: &str) -> PyResult<Self> {
        let mode = match mode {
            "native" => Mode::Native,
            "code" => Mode::Code,
            "both" => Mode::Both,
            other => {
                return Err(PyValueError::new_err(format!(
                    "mode must be \"native\", \"code\" or \"both\" (got {other:?})"
                )));
            }
        };
        let runs = SharedRuns::default();
        let sink_runs = runs.clone();
        let mut registry = RustRegistry::new();
        let code_runtime: Arc<dyn CodeRuntime> = Arc::new(runtime.get().runtime.clone());
        registry
            .mode(mode)
            .runtime(code_runtime)
            .event_sink(move |event: DispatchEvent| {
                let mut runs = lock(&sink_runs);
                if let Some(events) = runs.events.get_mut(&event.parent_call_id) {
                    events.push(event);
                }
            });
        Ok(Self {
            registry: Mutex::new(registry),
            runs,
            next_call: AtomicU64::new(0),
        })
    }

    #[pyo3(signature = (name, description, input_schema, handler, *, output_schema = None, concurrency_safe = false))]
    fn register(
        &self,
        name: String,
        description: String,
        input_schema: &Bound<'_, PyAny>,
        handler: &Bound<'_, PyAny>,
        output_schema: Option<&Bound<'_, PyAny>>,
        concurrency_safe: bool,
    ) -> PyResult<()> {
        if !handler.is_callable() {
            let type_name = handler.get_type().name()?.to_string();
            return Err(PyTypeError::new_err(format!(
                "the handler of tool {name:?} must be callable (got {type_name})"
            )));
        }
        let schema = |schema: &Bound<'_, PyAny>, what: &str| {
            convert::from_python(schema).map_err(|reason| {
                PyTypeError::new_err(format!("{what} of tool {name:?}: {reason}"))
            })
        };
        let input_schema = schema(input_schema, "the input schema")?;
        let output_schema = output_schema
            .map(|value| schema(value, "the output schema"))
            .transpose()?;
        let function = Arc::new(handler.clone().unbind());
        let runs = self.runs.clone();
        let mut tool = Tool::new(name, description, input_schema, move |arguments, ctx| {
            let locals = lock(&runs).loops.get(parent_of(ctx.call_id())).cloned();
            let callable = Callable::new(function.clone(), locals);
            async move { tool_result(callable.call(arguments).await) }
        })
        .concurrency_safe(concurrency_safe);
        if let Some(output_schema) = output_schema {
            tool = tool.output_schema(output_schema);
        }
        self.registry()
            .register(tool)
            .map(|_| ())
            .map_err(|error| PyValueError::new_err(error.to_string()))
    }

    /// Adds a hook called before every tool call with `(name, arguments)`:
    /// it returns `None` to allow the call or a `str`, the reason, to deny it.
    fn on_pre_execute(&self, hook: &Bound<'_, PyAny>) -> PyResult<()> {
        if !hook.is_callable() {
            return Err(PyTypeError::new_err(
                "the pre-execute hook must be callable",
            ));
        }
        let hook = Arc::new(hook.clone().unbind());
        self.registry().on_pre_execute(move |call: &ToolCall| {
            let decision = Python::attach(|py| {
                let arguments = convert::to_python(py, &call.arguments)?;
                let verdict = hook.bind(py).call1((call.name.as_str(), arguments))?;
                if verdict.is_none() {
                    return Ok(HookDecision::Allow);
                }
                Ok::<_, PyErr>(HookDecision::deny(convert::message(&verdict)))
            })
            .unwrap_or_else(|error: PyErr| {
                Python::attach(|py| {
                    HookDecision::deny(format!(
                        "the pre-execute hook failed: {}",
                        convert::message(error.value(py))
                    ))
                })
            });
            async move { decision }
        });
        Ok(())
    }

    /// The TypeScript declarations of every tool.
    fn sdk(&self) -> String {
        self.registry().sdk_declarations()
    }

    /// What a model is offered under the registry's mode.
    fn assemble<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let assembly = self
            .registry()
            .assemble()
            .map_err(|error| PyValueError::new_err(error.to_string()))?;
        let dict = PyDict::new(py);
        let tools = serde_json::to_value(&assembly.tools)
            .map_err(|error| PyValueError::new_err(error.to_string()))?;
        dict.set_item("tools", convert::to_python(py, &tools)?)?;
        dict.set_item("sdk_section", assembly.sdk_section)?;
        Ok(dict)
    }

    fn run_code<'py>(&self, py: Python<'py>, code: String) -> PyResult<Bound<'py, PyAny>> {
        let locals = pyo3_async_runtimes::tokio::get_current_locals(py)?;
        let id = self.start(Some(locals.clone()));
        let registry = self.registry().clone();
        let runs = self.runs.clone();
        pyo3_async_runtimes::tokio::future_into_py_with_locals(py, locals, async move {
            let (result, events) = run_code(registry, runs, id, code).await;
            Python::attach(|py| outcome(py, &result, &events).map(Bound::unbind))
        })
    }

    #[pyo3(signature = (code, event_loop = None))]
    fn run_code_sync<'py>(
        &self,
        py: Python<'py>,
        code: String,
        event_loop: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        runtime::not_in_a_binding("run_code_sync")?;
        let locals = event_loop
            .map(|event_loop| TaskLocals::new(event_loop.clone()).copy_context(py))
            .transpose()?;
        let id = self.start(locals);
        let registry = self.registry().clone();
        let runs = self.runs.clone();
        let (result, events) = py.detach(|| {
            pyo3_async_runtimes::tokio::get_runtime().block_on(run_code(registry, runs, id, code))
        });
        outcome(py, &result, &events)
    }
}
