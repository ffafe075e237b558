//! What a run is given: the program, its bindings, an optional abort signal.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::abort::AbortSignal;

/// A binding's rejection: the program-side promise rejects with an `Error`
/// carrying this message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingError {
    message: String,
}

impl BindingError {
    /// An error with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message the program sees.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for BindingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BindingError {}

impl From<String> for BindingError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for BindingError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

/// What a binding resolves with.
pub type BindingResult = Result<Value, BindingError>;

/// One host function exposed to the program as an async callable. It gets
/// the call's argument as JSON (`null` when the program passed none).
///
/// The runtime spawns each call on the ambient tokio runtime and does not
/// cancel it when the run ends: in-flight calls are the caller's to settle,
/// and results that arrive after the run are dropped.
#[derive(Clone)]
pub struct CodeBindingFunction {
    call: Arc<dyn Fn(Value) -> BoxFuture<'static, BindingResult> + Send + Sync>,
}

impl CodeBindingFunction {
    /// Wraps an async function.
    pub fn new<F, Fut>(f: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = BindingResult> + Send + 'static,
    {
        Self {
            call: Arc::new(move |args| Box::pin(f(args))),
        }
    }

    pub(crate) fn call(&self, args: Value) -> BoxFuture<'static, BindingResult> {
        (self.call)(args)
    }
}

impl fmt::Debug for CodeBindingFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CodeBindingFunction")
    }
}

/// A named group of functions the program sees as one global object of
/// async functions (e.g. `tools`). The object has a null prototype and the
/// functions are its own properties, so any name works, `__proto__` included.
///
/// ```
/// use runtime_host::CodeBindingNamespace;
///
/// let tools = CodeBindingNamespace::new("tools")
///     .function("echo", |args| async move { Ok(args) });
/// assert_eq!(tools.global(), "tools");
/// ```
#[derive(Clone, Debug)]
pub struct CodeBindingNamespace {
    global: String,
    functions: BTreeMap<String, CodeBindingFunction>,
}

impl CodeBindingNamespace {
    /// An empty namespace exposed as the global `global`, which must be a
    /// valid JavaScript identifier that is not reserved and not `console`
    /// (checked when the run starts).
    pub fn new(global: impl Into<String>) -> Self {
        Self {
            global: global.into(),
            functions: BTreeMap::new(),
        }
    }

    /// Adds (or replaces) the function called `name`.
    pub fn function<F, Fut>(mut self, name: impl Into<String>, f: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = BindingResult> + Send + 'static,
    {
        self.functions
            .insert(name.into(), CodeBindingFunction::new(f));
        self
    }

    /// Adds (or replaces) an already wrapped function.
    pub fn insert(&mut self, name: impl Into<String>, function: CodeBindingFunction) {
        self.functions.insert(name.into(), function);
    }

    /// The global identifier.
    pub fn global(&self) -> &str {
        &self.global
    }

    /// The functions, by name.
    pub fn functions(&self) -> &BTreeMap<String, CodeBindingFunction> {
        &self.functions
    }
}

/// One run: the program and everything the runtime acts on. Budgets are the
/// runtime's configuration, never part of a request.
#[derive(Clone, Debug)]
pub struct CodeRunRequest {
    /// TypeScript source, run as the body of an async function: top-level
    /// `await` and `return` work, and the returned value becomes the result's
    /// value.
    pub program: String,
    /// One global object of async functions per namespace.
    pub bindings: Vec<CodeBindingNamespace>,
    /// Aborts the run, hard, even mid-loop; the result is an `abort` failure
    /// carrying the signal's reason.
    pub signal: Option<AbortSignal>,
}

impl CodeRunRequest {
    /// A request for `program` with no bindings and no signal.
    pub fn new(program: impl Into<String>) -> Self {
        Self {
            program: program.into(),
            bindings: Vec::new(),
            signal: None,
        }
    }

    /// Adds a binding namespace.
    pub fn binding(mut self, namespace: CodeBindingNamespace) -> Self {
        self.bindings.push(namespace);
        self
    }

    /// Sets the abort signal.
    pub fn signal(mut self, signal: AbortSignal) -> Self {
        self.signal = Some(signal);
        self
    }
}
