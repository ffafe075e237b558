//! Python callables as bindings: `{"tools": {"search": fn}}` → binding
//! namespaces whose functions call `fn` with the argument as a Python
//! object. A callable may return a value or an awaitable (an `async def`);
//! an awaitable runs on the run's event loop. Its exception rejects the
//! call in the program; `coderun.Interrupt(payload)` interrupts the run.

use std::sync::Arc;

use coderun_runtime::{BindingError, BindingResult, CodeBindingFunction, CodeBindingNamespace};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pyo3_async_runtimes::TaskLocals;
use serde_json::Value;

use crate::convert;

/// A Python callable and the event loop its awaitables run on.
#[derive(Clone)]
pub(crate) struct Callable {
    function: Arc<Py<PyAny>>,
    locals: Option<TaskLocals>,
}

/// What calling the function gave, before any awaiting.
enum Called<F> {
    Value(Result<Value, BindingError>),
    Awaiting(F),
}

impl Callable {
    pub(crate) fn new(function: Arc<Py<PyAny>>, locals: Option<TaskLocals>) -> Self {
        Self { function, locals }
    }

    /// Calls the function with `argument` and awaits what it returns.
    pub(crate) async fn call(&self, argument: Value) -> BindingResult {
        let called = Python::attach(|py| {
            let argument = match convert::to_python(py, &argument) {
                Ok(argument) => argument,
                Err(error) => return Called::Value(Err(convert::binding_error(py, error))),
            };
            let returned = match self.function.bind(py).call1((argument,)) {
                Ok(returned) => returned,
                Err(error) => return Called::Value(Err(convert::binding_error(py, error))),
            };
            if !returned.hasattr("__await__").unwrap_or(false) {
                return Called::Value(returned_value(&returned));
            }
            let Some(locals) = &self.locals else {
                return Called::Value(Err(BindingError::new(
                    "the binding returned an awaitable, but the run has no event loop to await it on",
                )));
            };
            match pyo3_async_runtimes::into_future_with_locals(locals, returned) {
                Ok(future) => Called::Awaiting(future),
                Err(error) => Called::Value(Err(convert::binding_error(py, error))),
            }
        });
        match called {
            Called::Value(value) => value,
            Called::Awaiting(future) => {
                let settled = future.await;
                Python::attach(|py| match settled {
                    Ok(returned) => returned_value(returned.bind(py)),
                    Err(error) => Err(convert::binding_error(py, error)),
                })
            }
        }
    }
}

fn returned_value(returned: &Bound<'_, PyAny>) -> BindingResult {
    convert::from_python(returned).map_err(|reason| {
        BindingError::new(format!("the binding's result cannot be sent: {reason}"))
    })
}

/// `{global: {name: callable}}` as namespaces; `locals` is the loop that
/// awaitables returned by the callables run on.
pub(crate) fn namespaces(
    bindings: Option<&Bound<'_, PyDict>>,
    locals: Option<&TaskLocals>,
) -> PyResult<Vec<CodeBindingNamespace>> {
    let Some(bindings) = bindings else {
        return Ok(Vec::new());
    };
    let mut namespaces = Vec::with_capacity(bindings.len());
    for (global, functions) in bindings.iter() {
        let global = global.cast_into::<PyString>().map_err(|_| {
            PyTypeError::new_err("bindings: each key must be a str, the name of a global")
        })?;
        let global = global.to_cow()?.into_owned();
        let functions = functions.cast_into::<PyDict>().map_err(|_| {
            PyTypeError::new_err(format!(
                "bindings[{global:?}] must be a dict of functions by name"
            ))
        })?;
        let mut namespace = CodeBindingNamespace::new(global.clone());
        for (name, function) in functions.iter() {
            let name = name.cast_into::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "bindings[{global:?}]: each key must be a str, a function's name"
                ))
            })?;
            let name = name.to_cow()?.into_owned();
            if !function.is_callable() {
                let type_name = function.get_type().name()?.to_string();
                return Err(PyTypeError::new_err(format!(
                    "bindings[{global:?}][{name:?}] must be callable (got {type_name})"
                )));
            }
            let callable = Callable::new(Arc::new(function.unbind()), locals.cloned());
            namespace.insert(
                name,
                CodeBindingFunction::new(move |argument| {
                    let callable = callable.clone();
                    async move { callable.call(argument).await }
                }),
            );
        }
        namespaces.push(namespace);
    }
    Ok(namespaces)
}
