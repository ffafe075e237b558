//! The embeddable coderun runtime: run model-written TypeScript in a fresh
//! QuickJS-in-wasm instance per run, against host async functions.
//!
//! ```
//! use coderun_runtime::{CodeBindingNamespace, CodeRunRequest, CodeRuntime, RuntimeConfig, WasmCodeRuntime};
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
//!   program keeps going. A registry bound to every run is made once as
//!   [`CodeBindingNames`] and bound with [`CodeBindingNamespace::dispatch`]:
//!   one handler a run, told the name called.
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
//! `CodeRunResult::value_display` is the value as `console.log` prints it,
//! from the same renderer in the guest, with nothing elided.
//!
//! # TypeScript
//! Types are stripped by oxc; `enum` and `namespace` are lowered to
//! JavaScript and work. Syntax errors and stack traces name lines and columns
//! of the program as written (`program.ts:L:C`). `import`/`export`
//! declarations fail as an `exception`; dynamic `import()` rejects.

mod abort;
mod bindings;
mod calls;
mod clock;
mod compile_cache;
mod config;
mod durable;
mod egress;
mod engine;
mod epoch;
mod error;
mod failure;
mod guest;
mod json;
mod memory;
mod nesting;
mod output;
mod request;
mod result;
mod shards;
mod store;
mod transform;
mod value;
mod wasm_runtime;

use futures::future::BoxFuture;

/// The host's handling of hostile input, exposed for the fuzz target and
/// the benchmarks; not part of the API.
#[doc(hidden)]
pub mod __internals {
    use crate::config::RuntimeConfig;
    use crate::transform::{self, FrontEndLimits};

    fn limits(config: &RuntimeConfig) -> FrontEndLimits {
        FrontEndLimits {
            max_program_bytes: config.get_max_program_bytes(),
            max_nesting_depth: config.get_max_nesting_depth(),
        }
    }

    /// The TypeScript front end under `config`'s limits (oxc: parse, then
    /// erase the types in place, or transform and print with a source map
    /// what is not erasable). Returns the length of the script the guest
    /// would evaluate, or the exception's message.
    pub fn transform(source: &str, config: &RuntimeConfig) -> Result<usize, String> {
        transform::transform(source, &limits(config)).map(|transformed| transformed.script.len())
    }

    /// [`transform`] without type erasure: every program with TypeScript
    /// syntax takes oxc's full transform (parse, semantic analysis, strip,
    /// print with a source map), as before erasure existed.
    pub fn transform_fully(source: &str, config: &RuntimeConfig) -> Result<usize, String> {
        transform::transform_fully(source, &limits(config))
            .map(|transformed| transformed.script.len())
    }

    /// Maps the positions in `text` the way a failure's stack is mapped
    /// for `source`.
    pub fn map_positions(source: &str, text: &str) -> Option<String> {
        let transformed = transform::transform(source, &limits(&RuntimeConfig::default())).ok()?;
        Some(transformed.map_positions(text))
    }

    /// How deeply `source` nests, or `None` past `limit`.
    pub fn nesting(source: &str, limit: usize) -> Option<usize> {
        match crate::nesting::measure(source, limit) {
            crate::nesting::Nesting::Within(depth) => Some(depth),
            crate::nesting::Nesting::TooDeep { .. } => None,
        }
    }

    /// A binding argument's JSON as the host reads it from the guest.
    pub fn parse_argument(text: &str) -> Result<serde_json::Value, String> {
        crate::json::parse(text).map_err(|error| error.to_string())
    }

    /// A binding argument's tape (plain data, unformatted) as the host
    /// reads it from the guest, with the bytes of its JSON, or the call's
    /// refusal.
    pub fn read_argument_tape(
        tape: &[u8],
        max_bytes: usize,
    ) -> Result<(serde_json::Value, usize), String> {
        crate::calls::argument(crate::guest::CallArgs::Tape(tape.to_vec()), max_bytes)
    }

    /// A returned value's JSON as the host decodes it, capped at `max_bytes`.
    pub fn decode_value(text: &str, max_bytes: usize) -> serde_json::Value {
        crate::value::decode(text, max_bytes)
    }

    /// Console lines through the log ledger capped at `max_bytes`.
    pub fn cap_logs(lines: Vec<String>, max_bytes: usize) -> Vec<String> {
        let mut ledger = crate::output::LogLedger::new(max_bytes);
        for line in lines {
            ledger.push(crate::result::LogLevel::Log, line);
        }
        ledger
            .into_lines()
            .into_iter()
            .map(|line| line.text)
            .collect()
    }
}

pub use abort::{AbortController, AbortSignal};
pub use bindings::{
    BindingError, BindingResult, CodeBindingFunction, CodeBindingNames, CodeBindingNamespace,
    is_identifier, is_reserved_word, property_access, string_literal,
};
pub use clock::Clock;
pub use config::RuntimeConfig;
pub use durable::{
    CONTINUATION_FORMAT, CallOutcome, Continuation, DurableError, FORMAT_VERSION, Interrupted,
    RECORD_FORMAT, RecordedBudgets, RecordedCall, RecordedNamespace, RunRecord, SigningKey,
    sha256_hex,
};
pub use egress::{AllowRule, NetworkPolicy, Secret};
pub use error::{ConfigError, MisuseError, RuntimeError};
pub use failure::{CodeRunFailure, FailureKind};
pub use output::shorten;
pub use request::CodeRunRequest;
pub use result::{CodeRunResult, LogLevel, LogLine};
pub use wasm_runtime::WasmCodeRuntime;

/// The language a runtime's programs are written in: a typed name, compared
/// as a value. coderun's runtime is [`Language::TYPESCRIPT`]; a runtime of
/// another language names its own with [`Language::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Language(&'static str);

impl Language {
    /// TypeScript (JavaScript included): programs are the body of an async
    /// function. What Code Mode's SDK is written in.
    pub const TYPESCRIPT: Language = Language("typescript");

    /// A language named `name` (lowercase, as its users spell it).
    pub const fn new(name: &'static str) -> Self {
        Language(name)
    }

    /// The language's name.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

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

    /// The language programs must be written in.
    fn language(&self) -> Language;

    /// The execution substrate, a diagnostic label (not a security claim).
    fn isolation(&self) -> &'static str;

    /// Aborts in-flight runs (they resolve as `abort`, saying the runtime was
    /// disposed), waits until every guest has stopped, and makes later runs
    /// fail with [`MisuseError::Disposed`]. Cancelling it leaves the runtime
    /// disposed but stops waiting.
    fn dispose(&self) -> BoxFuture<'_, ()>;
}
