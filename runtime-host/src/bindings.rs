//! Bindings: the host functions a program calls, grouped in namespaces;
//! the one rule for what is an identifier (`identifiers`); and the plan
//! the guest is given (`plan`).

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use crate::error::MisuseError;
use crate::guest::Namespace;

mod identifiers;
mod plan;

pub use identifiers::{is_identifier, is_reserved_word, property_access, string_literal};
pub(crate) use plan::{function_name, plan, recorded, recorded_namespaces};

/// A binding's rejection: the program-side promise rejects with an `Error`
/// carrying this message. Or, made with [`BindingError::interrupt`], a
/// request to stop the run and resume it later with an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct BindingError {
    message: String,
    interrupt: Option<Value>,
}

impl BindingError {
    /// An error with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            interrupt: None,
        }
    }

    /// Interrupts the run: it ends as `interrupted`, carrying `payload`
    /// (what the host needs answered, e.g. an approval) and a continuation;
    /// resuming it delivers the answer as this call's result. In a run
    /// that does not record (`CodeRunRequest::record`), the call rejects
    /// instead, saying so.
    pub fn interrupt(payload: Value) -> Self {
        Self {
            message: format!("the call asked to interrupt the run: {payload}"),
            interrupt: Some(payload),
        }
    }

    /// The message the program sees.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The payload, when this is an interrupt.
    pub fn interrupt_payload(&self) -> Option<&Value> {
        self.interrupt.as_ref()
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
/// use coderun_runtime::CodeBindingNamespace;
///
/// let tools = CodeBindingNamespace::new("tools")
///     .function("echo", |args| async move { Ok(args) });
/// assert_eq!(tools.global(), "tools");
/// ```
///
/// A registry of many tools that every run binds, each run to its own
/// handler, is better made with [`dispatch`](Self::dispatch): one handler
/// for a fixed list of names, built once, rather than a function a name
/// made for every run.
#[derive(Clone)]
pub struct CodeBindingNamespace {
    global: String,
    functions: Functions,
}

/// The functions of a namespace.
#[derive(Clone)]
enum Functions {
    /// A function a name.
    Each(BTreeMap<String, CodeBindingFunction>),
    /// Every name of a fixed list, answered by one handler.
    Dispatched(CodeBindingNames, Handler),
}

/// A dispatched namespace's handler: told the name called and the argument.
type Handler = Arc<dyn Fn(&str, Value) -> BoxFuture<'static, BindingResult> + Send + Sync>;

impl CodeBindingNamespace {
    /// An empty namespace exposed as the global `global`, which must be a
    /// valid JavaScript identifier that is not reserved and not `console`
    /// (checked when the run starts).
    pub fn new(global: impl Into<String>) -> Self {
        Self {
            global: global.into(),
            functions: Functions::Each(BTreeMap::new()),
        }
    }

    /// A namespace of every name in `names`, under its global, whose calls
    /// all go to `handler` with the name called and the argument.
    ///
    /// `names` is made once and shared (cloning it is cheap), and what the
    /// guest is sent for it is worked out at its first run and kept: a run
    /// given a registry of 10,000 tools this way makes one handler, where
    /// [`function`](Self::function) made 10,000 functions and a map of
    /// them for every run.
    ///
    /// ```
    /// use coderun_runtime::{BindingError, CodeBindingNames, CodeBindingNamespace};
    ///
    /// let names = CodeBindingNames::new("tools", ["search", "fetch"]);
    /// // For each run, a handler that may hold what belongs to the run.
    /// let tools = CodeBindingNamespace::dispatch(&names, |name, args| {
    ///     let name = name.to_owned();
    ///     async move { Err(BindingError::new(format!("{name} is not wired up: {args}"))) }
    /// });
    /// assert_eq!(tools.names().collect::<Vec<_>>(), ["fetch", "search"]);
    /// ```
    pub fn dispatch<F, Fut>(names: &CodeBindingNames, handler: F) -> Self
    where
        F: Fn(&str, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = BindingResult> + Send + 'static,
    {
        Self {
            global: names.global().to_owned(),
            functions: Functions::Dispatched(
                names.clone(),
                Arc::new(move |name, args| handler(name, args).boxed()),
            ),
        }
    }

    /// Adds (or replaces) the function called `name`.
    pub fn function<F, Fut>(mut self, name: impl Into<String>, f: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = BindingResult> + Send + 'static,
    {
        self.insert(name, CodeBindingFunction::new(f));
        self
    }

    /// Adds (or replaces) an already wrapped function. In a namespace made
    /// by [`dispatch`](Self::dispatch), each of its names becomes a
    /// function of its own first, calling the handler.
    pub fn insert(&mut self, name: impl Into<String>, function: CodeBindingFunction) {
        let empty = Functions::Each(BTreeMap::new());
        let mut each = match std::mem::replace(&mut self.functions, empty) {
            Functions::Each(each) => each,
            Functions::Dispatched(names, handler) => names
                .names()
                .map(|name| {
                    let (handler, called) = (Arc::clone(&handler), name.to_owned());
                    let function = CodeBindingFunction::new(move |args| handler(&called, args));
                    (name.to_owned(), function)
                })
                .collect(),
        };
        each.insert(name.into(), function);
        self.functions = Functions::Each(each);
    }

    /// The global identifier.
    pub fn global(&self) -> &str {
        &self.global
    }

    /// The functions' names, in the order the guest indexes them (by their
    /// bytes).
    pub fn names(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match &self.functions {
            Functions::Each(each) => Box::new(each.keys().map(String::as_str)),
            Functions::Dispatched(names, _) => Box::new(names.names()),
        }
    }
}

impl fmt::Debug for CodeBindingNamespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CodeBindingNamespace")
            .field("global", &self.global)
            .field("functions", &self.names().count())
            .finish()
    }
}

/// The global and the function names of a namespace that one handler
/// answers ([`CodeBindingNamespace::dispatch`]): a registry's tools, fixed
/// once and shared by every run that binds them. Cloning it is cheap.
#[derive(Clone)]
pub struct CodeBindingNames {
    inner: Arc<NamesInner>,
}

struct NamesInner {
    global: String,
    /// Sorted by their bytes, each once: the order the guest indexes them.
    names: Vec<String>,
    /// What the guest is sent, worked out at the first run.
    declared: OnceLock<Result<Namespace, MisuseError>>,
}

impl CodeBindingNames {
    /// The names under `global` (checked when a run starts, as
    /// [`CodeBindingNamespace::new`]'s is); a name given twice is one
    /// function.
    pub fn new<S: Into<String>>(
        global: impl Into<String>,
        names: impl IntoIterator<Item = S>,
    ) -> Self {
        let mut names: Vec<String> = names.into_iter().map(Into::into).collect();
        names.sort_unstable();
        names.dedup();
        Self {
            inner: Arc::new(NamesInner {
                global: global.into(),
                names,
                declared: OnceLock::new(),
            }),
        }
    }

    /// The global identifier.
    pub fn global(&self) -> &str {
        &self.inner.global
    }

    /// The names, by their bytes.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.inner.names.iter().map(String::as_str)
    }

    /// What the guest is told about these names.
    fn declared(&self) -> Result<&Namespace, MisuseError> {
        let inner = &self.inner;
        inner
            .declared
            .get_or_init(|| plan::declare(&inner.global, inner.names.iter().map(String::as_str)))
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl fmt::Debug for CodeBindingNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CodeBindingNames")
            .field("global", &self.inner.global)
            .field("names", &self.inner.names.len())
            .finish()
    }
}

/// The functions behind one namespace's bindings, in the order the guest
/// indexes them.
pub(crate) enum Callees {
    Each(Vec<CodeBindingFunction>),
    Dispatched(Handler),
}

impl Callees {
    /// Calls function `index`, named `name` (one of the names the guest was
    /// sent: made from the same map as they were, an `Each` has a function
    /// for each).
    pub(crate) fn call(
        &self,
        index: usize,
        name: &str,
        args: Value,
    ) -> BoxFuture<'static, BindingResult> {
        match self {
            Self::Each(functions) => match functions.get(index) {
                Some(function) => function.call(args),
                None => futures::future::ready(Err(BindingError::new(format!(
                    "the run has no binding {name:?}"
                ))))
                .boxed(),
            },
            Self::Dispatched(handler) => handler(name, args),
        }
    }
}
