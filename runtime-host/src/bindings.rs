//! Bindings: the host functions a program calls, grouped in namespaces;
//! the one rule for what is an identifier (for globals, for the labels the
//! guest names bindings by, and for the TypeScript SDK's quoting); and the
//! plan the guest is given.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use crate::durable::RecordedNamespace;
use crate::error::MisuseError;
use crate::guest::{Label, Namespace};

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
            .get_or_init(|| declare(&inner.global, inner.names.iter().map(String::as_str)))
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

/// ECMAScript reserved words, including those reserved only in strict mode
/// or in modules (`await`, `let`, `static`, `yield`, ...).
const RESERVED_WORDS: &[&str] = &[
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// Globals the program and the runtime rely on, which a binding namespace
/// must not replace.
const RUNTIME_GLOBALS: &[&str] = &[
    "arguments",
    "eval",
    "undefined",
    "NaN",
    "Infinity",
    "globalThis",
    "console",
];

/// Whether `word` is an ECMAScript reserved word (in any mode).
pub fn is_reserved_word(word: &str) -> bool {
    RESERVED_WORDS.contains(&word)
}

/// Whether `name` can be written bare where JavaScript and TypeScript take an
/// identifier: an `IdentifierName` (Unicode `ID_Start` or `$`/`_`, then
/// `ID_Continue`, `$`, ZWNJ or ZWJ) that is not a reserved word. The one
/// rule for binding globals, for binding labels (`tools.search` against
/// `tools["delete"]`) and for the SDK's property keys. Reserved words are
/// not identifiers here, although TypeScript accepts some as property names,
/// so that one rule decides quoting everywhere.
///
/// ```
/// use coderun_runtime::is_identifier;
///
/// assert!(is_identifier("search") && is_identifier("$x") && is_identifier("日本"));
/// assert!(!is_identifier("my-tool") && !is_identifier("delete") && !is_identifier("1a"));
/// ```
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let starts = first == '$' || first == '_' || unicode_ident::is_xid_start(first);
    starts
        && chars.all(|c| {
            c == '$' || c == '\u{200c}' || c == '\u{200d}' || unicode_ident::is_xid_continue(c)
        })
        && !is_reserved_word(name)
}

/// How code names the member `name` of `object`: `tools.search`, or
/// `tools["my-tool"]` (a [`string_literal`]) when `name` is not an
/// identifier.
///
/// ```
/// use coderun_runtime::property_access;
///
/// assert_eq!(property_access("tools", "search"), "tools.search");
/// assert_eq!(property_access("tools", "delete"), "tools[\"delete\"]");
/// ```
pub fn property_access(object: &str, name: &str) -> String {
    if is_identifier(name) {
        format!("{object}.{name}")
    } else {
        format!("{object}[{}]", string_literal(name))
    }
}

/// `s` as a JavaScript string literal: JSON's escaping, plus U+2028 and
/// U+2029, which older parsers do not accept raw inside strings.
///
/// ```
/// use coderun_runtime::string_literal;
///
/// assert_eq!(string_literal("a\u{2028}b\"c"), "\"a\\u2028b\\\"c\"");
/// ```
pub fn string_literal(s: &str) -> String {
    // `Display` for `Value` writes into a `String`, which cannot fail.
    Value::from(s)
        .to_string()
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// What the guest is told about the bindings, and the functions behind them
/// in the same order.
pub(crate) struct BindingPlan {
    /// Shared by the guest's call and the run's calls (which name each
    /// binding from them), not copied.
    pub(crate) namespaces: Arc<[Namespace]>,
    pub(crate) functions: Vec<Callees>,
}

/// The namespaces and function names, as a record keeps them.
pub(crate) fn recorded(namespaces: &[Namespace]) -> Vec<RecordedNamespace> {
    namespaces
        .iter()
        .map(|namespace| RecordedNamespace {
            global: namespace.global.clone(),
            functions: (0..namespace.ends.len())
                .filter_map(|index| function_name(namespace, index))
                .map(str::to_owned)
                .collect(),
        })
        .collect()
}

/// The name of `namespace`'s function `index` (its names lie one after the
/// other in one string, the WIT's `namespace.names`).
pub(crate) fn function_name(namespace: &Namespace, index: usize) -> Option<&str> {
    let end = *namespace.ends.get(index)? as usize;
    let start = match index {
        0 => 0,
        _ => namespace.ends[index - 1] as usize,
    };
    namespace.names.get(start..end)
}

/// Namespaces with the recorded globals and function names, for a replay:
/// the record answers every call, so no function is ever called.
pub(crate) fn recorded_namespaces(recorded: &[RecordedNamespace]) -> Vec<CodeBindingNamespace> {
    recorded
        .iter()
        .map(|namespace| {
            let names = CodeBindingNames::new(namespace.global.clone(), &namespace.functions);
            CodeBindingNamespace::dispatch(&names, |_, _| async {
                Err(BindingError::new("a replay calls no binding"))
            })
        })
        .collect()
}

pub(crate) fn plan(bindings: &[CodeBindingNamespace]) -> Result<BindingPlan, MisuseError> {
    let mut seen = HashSet::new();
    let mut namespaces = Vec::with_capacity(bindings.len());
    let mut functions = Vec::with_capacity(bindings.len());
    for binding in bindings {
        let global = binding.global();
        check_global(global)?;
        if !seen.insert(global) {
            return Err(MisuseError::DuplicateBindingGlobal {
                global: crate::output::shorten(global, 128),
            });
        }
        match &binding.functions {
            Functions::Each(each) => {
                namespaces.push(declare(global, each.keys().map(String::as_str))?);
                functions.push(Callees::Each(each.values().cloned().collect()));
            }
            Functions::Dispatched(names, handler) => {
                namespaces.push(names.declared()?.clone());
                functions.push(Callees::Dispatched(Arc::clone(handler)));
            }
        }
    }
    Ok(BindingPlan {
        namespaces: namespaces.into(),
        functions,
    })
}

/// What the guest is told about a namespace of `names` (in the order it
/// indexes them) under `global`: the names as one string with their
/// ends, and the labels of those that are not identifiers.
fn declare<'a>(
    global: &str,
    declared: impl ExactSizeIterator<Item = &'a str> + Clone,
) -> Result<Namespace, MisuseError> {
    let mut names = String::with_capacity(declared.clone().map(str::len).sum());
    let mut ends = Vec::with_capacity(declared.len());
    let mut labels = Vec::new();
    for (index, name) in declared.enumerate() {
        names.push_str(name);
        let end = u32::try_from(names.len()).map_err(|_| MisuseError::InvalidBindingGlobal {
            global: crate::output::shorten(global, 128),
            reason: "its functions' names add up to more than 4 GiB",
        })?;
        ends.push(end);
        if !is_identifier(name) {
            labels.push(Label {
                function: index as u32,
                label: property_access(global, name),
            });
        }
    }
    Ok(Namespace {
        global: global.to_owned(),
        names,
        ends,
        labels,
    })
}

fn check_global(global: &str) -> Result<(), MisuseError> {
    // The name may come from a hostile record (a replay's bindings): the
    // refusal repeats at most 128 bytes of it.
    let invalid = |reason| MisuseError::InvalidBindingGlobal {
        global: crate::output::shorten(global, 128),
        reason,
    };
    if global.is_empty() {
        return Err(invalid("it is empty"));
    }
    if !is_identifier(global) && !is_reserved_word(global) {
        return Err(invalid("it is not a JavaScript identifier"));
    }
    if is_reserved_word(global) || RUNTIME_GLOBALS.contains(&global) {
        return Err(invalid(
            "it is a reserved word or a global the runtime needs",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_global_is_named_in_a_short_message() {
        for name in ["[".repeat(1 << 20), "\u{1}".repeat(1 << 20)] {
            let refusal = check_global(&name)
                .expect_err("not an identifier")
                .to_string();
            assert!(refusal.len() < 1024, "{} bytes", refusal.len());
        }
    }

    #[test]
    fn accepts_identifiers() {
        for ok in ["tools", "$x", "_", "日本", "a1"] {
            assert!(check_global(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn labels_follow_the_identifier_rule() {
        for (name, label) in [
            ("search", "tools.search"),
            ("$x", "tools.$x"),
            ("日本", "tools.日本"),
            ("my-tool", "tools[\"my-tool\"]"),
            ("delete", "tools[\"delete\"]"),
            ("__proto__", "tools.__proto__"),
            ("", "tools[\"\"]"),
            ("a\"b", "tools[\"a\\\"b\"]"),
            ("a\u{2028}", "tools[\"a\\u2028\"]"),
        ] {
            assert_eq!(property_access("tools", name), label, "{name:?}");
        }
    }

    /// The names cross as one string with their ends, and the labels of
    /// the names that are not identifiers alone: each name and each label
    /// reads back as the one declared, in the order calls index them.
    #[test]
    fn a_plan_sends_each_name_and_the_labels_it_needs() {
        let names = ["", "a\0b", "delete", "my-tool", "search", "é", "日本", "𝒳"];
        let namespace = names
            .iter()
            .fold(CodeBindingNamespace::new("tools"), |ns, name| {
                ns.function(*name, |args| async move { Ok(args) })
            });
        let plan = plan(std::slice::from_ref(&namespace)).expect("a valid namespace");
        let sent = &plan.namespaces[0];
        let declared: Vec<&str> = namespace.names().collect();
        assert_eq!(sent.ends.len(), declared.len());
        for (index, name) in declared.iter().enumerate() {
            assert_eq!(function_name(sent, index), Some(*name), "name {index}");
        }
        assert_eq!(function_name(sent, declared.len()), None);
        let labelled: Vec<(u32, String)> = sent
            .labels
            .iter()
            .map(|label| (label.function, label.label.clone()))
            .collect();
        let expected: Vec<(u32, String)> = declared
            .iter()
            .enumerate()
            .filter(|(_, name)| !is_identifier(name))
            .map(|(index, name)| (index as u32, property_access("tools", name)))
            .collect();
        assert_eq!(
            labelled, expected,
            "labels only where a name is not an identifier"
        );
        assert_eq!(recorded(&plan.namespaces)[0].functions, declared);
    }

    #[test]
    fn refuses_non_identifiers_and_reserved_words() {
        for bad in [
            "",
            "not valid!",
            "1a",
            "my-tools",
            "await",
            "console",
            "class",
        ] {
            assert!(check_global(bad).is_err(), "{bad}");
        }
    }
}
