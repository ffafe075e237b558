//! `coderun._native`: the CPython extension behind the `coderun` Python
//! package. The package's Python modules (`python/coderun/`) wrap it in
//! Python's idiom (dataclasses, `async def`, context managers); this crate
//! only moves data between Python and the Rust libraries.
//!
//! # Threads, the GIL and the event loop
//!
//! One tokio runtime per process (pyo3-async-runtimes' global one) drives
//! every run's binding calls. A blocking run (`run_sync`) runs its guest on
//! the calling thread with the GIL released, so Python threads running
//! programs at once run them in parallel. An awaited run is spawned on the
//! tokio runtime and settles an `asyncio` future on the caller's loop;
//! cancelling that future drops the run, which stops the guest.
//!
//! A binding is a Python callable. It is called on a tokio thread with the
//! GIL held; when it returns an awaitable (an `async def`), the awaitable is
//! scheduled on the event loop of the run: the caller's loop for an awaited
//! run, a background loop for a blocking one.

mod bindings;
mod config;
mod convert;
mod measure;
mod network;
mod registry;
mod runtime;

use pyo3::prelude::*;

pyo3::create_exception!(
    _native,
    ConfigError,
    pyo3::exceptions::PyValueError,
    "A runtime option is out of range: the message names the key and the value."
);
pyo3::create_exception!(
    _native,
    MisuseError,
    pyo3::exceptions::PyRuntimeError,
    "The API was used in a way the runtime cannot honour: a closed runtime, an invalid binding \
     global, or a record or continuation that cannot be replayed or resumed here."
);
pyo3::create_exception!(
    _native,
    Interrupt,
    pyo3::exceptions::PyException,
    "Raised by a binding to interrupt a recorded run: `raise Interrupt(payload)`. The run ends \
     with `interrupted` set, carrying the payload and a continuation to resume it with."
);

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("ConfigError", py.get_type::<ConfigError>())?;
    module.add("MisuseError", py.get_type::<MisuseError>())?;
    module.add("Interrupt", py.get_type::<Interrupt>())?;
    module.add_class::<runtime::Runtime>()?;
    module.add_class::<registry::ToolRegistry>()?;
    module.add_function(wrap_pyfunction!(config::defaults, module)?)?;
    module.add_function(wrap_pyfunction!(measure::rust_loop, module)?)?;
    Ok(())
}
