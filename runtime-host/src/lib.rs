//! The embeddable coderun runtime: run model-written TypeScript in a fresh
//! QuickJS-in-wasm instance per run, against host async functions.
//!
//! ```
//! use runtime_host::{CodeBindingNamespace, CodeRunRequest, CodeRuntime, RuntimeConfig, WasmCodeRuntime};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let runtime = WasmCodeRuntime::new(RuntimeConfig::default())?;
//! let tools = CodeBindingNamespace::new("tools")
//!     .function("add", |args| async move {
//!         let a = args["a"].as_i64().unwrap_or(0);
//!         let b = args["b"].as_i64().unwrap_or(0);
//!         Ok(json!(a + b))
//!     });
//! let request = CodeRunRequest::new(
//!     "const sum: number = await tools.add({ a: 2, b: 3 });\n\
//!      console.log('sum is', sum);\n\
//!      return { sum };",
//! )
//! .binding(tools);
//! let result = runtime.run(request).await?;
//! assert_eq!(result.value, Some(json!({ "sum": 5 })));
//! assert_eq!(result.logs, vec!["sum is 5"]);
//! assert!(result.error.is_none());
//! # Ok(())
//! # }
//! ```
//!
//! # Core concepts
//! - **A run** ([`CodeRunRequest`] → [`CodeRunResult`]): the program is the
//!   body of an async function; top-level `await` and `return` work. Every
//!   program outcome, failures included, is an `Ok` result; `Err` is only for
//!   misuse ([`MisuseError`]).
//! - **Bindings** ([`CodeBindingNamespace`]): each namespace is one global
//!   object of async functions with a null prototype. Arguments reach the
//!   host as JSON; a value JSON cannot carry rejects that one call inside the
//!   program. Calls overlap (`Promise.all`) and run on tokio while the
//!   program keeps going.
//! - **Failures** ([`CodeRunFailure`], [`FailureKind`]): `exception`,
//!   `timeout` (fuel or wall clock, named), `abort` (with the signal's
//!   reason), `worker-exit` (memory cap, trap).
//! - **Budgets** ([`RuntimeConfig`]): fuel, wall clock, memory, log bytes,
//!   value bytes. They belong to the runtime, not to a request.
//! - **Isolation**: a fresh instance from a pre-initialised snapshot per run;
//!   nothing survives a run. The guest has no files, environment, network or
//!   modules: only the bindings reach the host.
//!
//! # Values
//! The returned value crosses as JSON. `Date` becomes its ISO string (as
//! `JSON.stringify` does). A value JSON cannot carry faithfully — a function,
//! symbol, BigInt, `Map`, `Set`, `RegExp`, `Error`, or anything containing a
//! cycle or one of these — comes back as a string: its rendering as Node's
//! `util.inspect` would print it (e.g. `"Map(1) { 'a' => 1 }"`, `"10n"`).
//!
//! # TypeScript
//! Types are stripped by oxc; `enum` and `namespace` are lowered to
//! JavaScript and work. Syntax errors and stack traces name lines and columns
//! of the program as written (`program.ts:L:C`). `import`/`export`
//! declarations fail as an `exception`; dynamic `import()` rejects.

mod abort;
mod bindings;
mod config;
mod error;
mod failure;
mod guest;
mod logs;
mod request;
mod result;
mod transform;
mod value;
mod wasm_runtime;

use futures::future::BoxFuture;

/// The host-side TypeScript transform alone (oxc: parse, strip types,
/// print with a source map), for benchmarks; not part of the API. Returns
/// the length of the script the guest would evaluate.
#[doc(hidden)]
pub fn __bench_transform(source: &str) -> Result<usize, String> {
    transform::transform(source).map(|transformed| transformed.script.len())
}

pub use abort::{AbortController, AbortSignal};
pub use bindings::is_reserved_word;
pub use config::RuntimeConfig;
pub use error::{ConfigError, MisuseError, RuntimeError};
pub use request::{
    BindingError, BindingResult, CodeBindingFunction, CodeBindingNamespace, CodeRunRequest,
};
pub use result::{CodeRunFailure, CodeRunResult, FailureKind};
pub use wasm_runtime::WasmCodeRuntime;

/// Runs model-written programs against host bindings.
///
/// Implementations keep runs isolated from each other and dispose to
/// quiescence. The trait is object safe: consumers hold an
/// `Arc<dyn CodeRuntime>`.
pub trait CodeRuntime: Send + Sync {
    /// Runs one program. Resolves with a result for every program outcome;
    /// `Err` only for misuse (a disposed runtime, an invalid binding global).
    ///
    /// Cancelling the returned future stops the program at once (the guest
    /// is dropped); binding calls already started keep running on tokio and
    /// their results are dropped.
    fn run(&self, request: CodeRunRequest) -> BoxFuture<'_, Result<CodeRunResult, MisuseError>>;

    /// The language programs must be written in: `"typescript"`.
    fn language(&self) -> &'static str;

    /// The execution substrate, a diagnostic label (not a security claim).
    fn isolation(&self) -> &'static str;

    /// Aborts in-flight runs (they resolve as `abort`, saying the runtime was
    /// disposed), waits until every guest has stopped, and makes later runs
    /// fail with [`MisuseError::Disposed`]. Cancelling it leaves the runtime
    /// disposed but stops waiting.
    fn dispose(&self) -> BoxFuture<'_, ()>;
}
