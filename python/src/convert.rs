//! Data across the boundary: JSON values to and from Python objects, a
//! run's result as the dict `coderun.RunResult` is built from, and a
//! Python exception as the rejection a program sees.

use coderun_runtime::{BindingError, CodeRunResult, LogLevel};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

use crate::Interrupt;

/// A JSON value as a Python object (`dict`, `list`, `str`, `int`, `float`,
/// `bool`, `None`).
pub(crate) fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(PyErr::from)
}

/// A Python object as JSON, or why it cannot be one.
pub(crate) fn from_python(object: &Bound<'_, PyAny>) -> Result<Value, String> {
    pythonize::depythonize::<Value>(object).map_err(|error| {
        let type_name = object
            .get_type()
            .name()
            .map(|name| name.to_string())
            .unwrap_or_else(|_| "?".to_owned());
        format!("a value of type {type_name} cannot be sent as JSON: {error}")
    })
}

/// What a binding's exception becomes: an interrupt for
/// `coderun.Interrupt(payload)`, else a rejection with the exception's
/// message (its type's name when the message is empty).
pub(crate) fn binding_error(py: Python<'_>, error: PyErr) -> BindingError {
    let value = error.value(py);
    if error.is_instance_of::<Interrupt>(py) {
        let payload = value
            .getattr("args")
            .and_then(|args| args.get_item(0))
            .ok()
            .map(|payload| from_python(&payload))
            .unwrap_or(Ok(Value::Null));
        return match payload {
            Ok(payload) => BindingError::interrupt(payload),
            Err(reason) => BindingError::new(format!("the interrupt's payload: {reason}")),
        };
    }
    BindingError::new(message(value))
}

/// `str(exception)`, or its type's name when that is empty.
pub(crate) fn message(value: &Bound<'_, PyAny>) -> String {
    let text = value.str().map(|text| text.to_string()).unwrap_or_default();
    if !text.is_empty() {
        return text;
    }
    value
        .get_type()
        .name()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "exception".to_owned())
}

fn level(level: LogLevel) -> &'static str {
    match level {
        LogLevel::Log => "log",
        LogLevel::Info => "info",
        LogLevel::Warn => "warn",
        LogLevel::Error => "error",
        LogLevel::Debug => "debug",
        _ => "log",
    }
}

/// The result as a dict of plain values: `value`, `value_display`, `logs`
/// (a list of `(level, text)`), `error` (`(kind, message)` or `None`),
/// `interrupted` (a dict, its continuation as JSON text), `record` (JSON
/// text or `None`) and `fuel_consumed`.
pub(crate) fn result<'py>(py: Python<'py>, result: &CodeRunResult) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    match &result.value {
        Some(value) => dict.set_item("value", to_python(py, value)?)?,
        None => dict.set_item("value", py.None())?,
    }
    dict.set_item("value_display", result.value_display.as_deref())?;
    let logs = PyList::empty(py);
    for line in &result.logs {
        logs.append((level(line.level), line.text.as_str()))?;
    }
    dict.set_item("logs", logs)?;
    match &result.error {
        Some(error) => dict.set_item("error", (error.kind.as_str(), error.message.as_str()))?,
        None => dict.set_item("error", py.None())?,
    }
    match &result.interrupted {
        Some(interrupted) => {
            let entry = PyDict::new(py);
            entry.set_item("payload", to_python(py, &interrupted.payload)?)?;
            entry.set_item("call", interrupted.call.as_str())?;
            entry.set_item("step", interrupted.step)?;
            entry.set_item("continuation", json_text(&interrupted.continuation)?)?;
            dict.set_item("interrupted", entry)?;
        }
        None => dict.set_item("interrupted", py.None())?,
    }
    match &result.record {
        Some(record) => dict.set_item("record", json_text(record)?)?,
        None => dict.set_item("record", py.None())?,
    }
    dict.set_item("fuel_consumed", result.fuel_consumed)?;
    Ok(dict)
}

fn json_text(value: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string(value).map_err(|error| {
        pyo3::exceptions::PyRuntimeError::new_err(format!("could not write JSON: {error}"))
    })
}
