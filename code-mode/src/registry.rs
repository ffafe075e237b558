//! The tool registry: the tools, the hooks around every call, the event
//! sink, the mode and the code runtime, and the one pipeline every call goes
//! through. What the mode offers and how a call is routed (`routing`), and
//! how a `run_code` program's calls come back here (`bridge`), are built on
//! top of it.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use coderun_runtime::{CodeBindingNames, CodeRuntime, Continuation};

mod dispatch;
mod paused;

pub(crate) use self::dispatch::{Dispatch, Gate};
use self::paused::PausedRuns;
use crate::catalog::Catalog;
use crate::disclosure::{DEFAULT_MAX_SDK_BYTES, DEFAULT_SDK_BUDGET, Disclosure};
use crate::discovery::{DESCRIBE, PREAMBLE, SEARCH, UNKNOWN};
use crate::events::{DispatchEvent, EventSink};
use crate::globals::HostGlobal;
use crate::hooks::{self, HookDecision, PostExecuteHook, PreExecuteHook};
use crate::mode::Mode;
use crate::sdk::TOOLS_GLOBAL;
use crate::tool::{Tool, ToolCall, ToolResult};

/// A tool can not be added to a registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Another tool already has this name.
    #[error("tool name {name:?} is already registered; tool names must be unique")]
    DuplicateTool {
        /// The repeated name.
        name: String,
    },
    /// The name is empty.
    #[error("tool name must not be empty (got \"\")")]
    EmptyName,
}

/// The tools a model can use, and how it sees them.
///
/// Every call, whether the model makes it directly or a `run_code` program
/// makes it, goes through one pipeline: the `pre_execute` hooks (any may
/// deny it), the tool's handler, then the `post_execute` hooks (which may
/// replace the result). The [`Mode`] decides what the model is offered (see
/// [`assemble`](Self::assemble)).
///
/// Cloning is cheap: clones share the tools, hooks and runtime until one of
/// them is changed (copy on write), and always share the paused runs.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    /// In registration order: native mode offers them in this order.
    tools: Vec<Tool>,
    index: HashMap<String, usize>,
    pre_execute: Vec<PreExecuteHook>,
    post_execute: Vec<PostExecuteHook>,
    event_sink: Option<Arc<dyn EventSink>>,
    mode: Mode,
    runtime: Option<Arc<dyn CodeRuntime>>,
    disclosure: Disclosure,
    sdk_budget: usize,
    max_sdk_bytes: usize,
    max_output_bytes: usize,
    /// Whether handlers may pause a program ([`ToolResult::interrupt`]).
    handlers_pause: bool,
    /// Globals beside `tools` every program gets.
    globals: Vec<HostGlobal>,
    /// What runs before each program: the discovery wrappers of `tools`,
    /// then the globals' preambles (joined once, not per run).
    preamble: String,
    /// The search index of `tools`, built on first use after a change.
    catalog: OnceLock<Arc<Catalog>>,
    /// The names of the `tools` global's functions (the tools and the
    /// discovery functions), for every run's namespace: made on first use
    /// after a change, and what the guest is sent for them with it.
    binding_names: OnceLock<CodeBindingNames>,
    /// Shared by every clone, before and after a change.
    paused: Arc<PausedRuns>,
}

/// The budget of one `run_code` result's text: the printed lines, the
/// returned value and the failure together. 24 KiB is about 6,000 tokens.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 24 * 1024;

impl Default for Inner {
    fn default() -> Self {
        Self {
            tools: Vec::new(),
            index: HashMap::new(),
            pre_execute: Vec::new(),
            post_execute: Vec::new(),
            handlers_pause: false,
            globals: Vec::new(),
            preamble: PREAMBLE.to_owned(),
            event_sink: None,
            mode: Mode::default(),
            runtime: None,
            disclosure: Disclosure::default(),
            sdk_budget: DEFAULT_SDK_BUDGET,
            max_sdk_bytes: DEFAULT_MAX_SDK_BYTES,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            catalog: OnceLock::new(),
            binding_names: OnceLock::new(),
            paused: Arc::default(),
        }
    }
}

/// How many paused runs a registry keeps; pausing one more drops the
/// oldest.
pub const MAX_PAUSED: usize = 256;

impl ToolRegistry {
    /// An empty registry in [`Mode::Native`], without hooks, event sink or
    /// runtime.
    pub fn new() -> Self {
        Self::default()
    }

    fn inner_mut(&mut self) -> &mut Inner {
        let inner = Arc::make_mut(&mut self.inner);
        inner.catalog = OnceLock::new();
        inner.binding_names = OnceLock::new();
        inner
    }

    /// Adds a tool. Its name must be non-empty and unique in the registry.
    pub fn register(&mut self, tool: Tool) -> Result<&mut Self, RegistryError> {
        if tool.name().is_empty() {
            return Err(RegistryError::EmptyName);
        }
        if self.inner.index.contains_key(tool.name()) {
            return Err(RegistryError::DuplicateTool {
                name: tool.name().to_owned(),
            });
        }
        let inner = self.inner_mut();
        inner
            .index
            .insert(tool.name().to_owned(), inner.tools.len());
        inner.tools.push(tool);
        Ok(self)
    }

    /// Sets how the tools reach the model.
    ///
    /// By default this is [`Mode::Native`].
    pub fn mode(&mut self, mode: Mode) -> &mut Self {
        self.inner_mut().mode = mode;
        self
    }

    /// Sets how much of the catalog the SDK section declares (see
    /// [`Disclosure`]). Programs can call `tools.$search` and
    /// `tools.$describe` in every disclosure.
    ///
    /// By default this is [`Disclosure::Auto`].
    pub fn disclosure(&mut self, disclosure: Disclosure) -> &mut Self {
        self.inner_mut().disclosure = disclosure;
        self
    }

    /// Sets the SDK section's budget in bytes: in [`Disclosure::Auto`] the
    /// full declarations are used while they fit, and the search listing
    /// is cut to fit.
    ///
    /// By default this is [`DEFAULT_SDK_BUDGET`] (15 KiB).
    pub fn sdk_budget(&mut self, bytes: usize) -> &mut Self {
        self.inner_mut().sdk_budget = bytes;
        self
    }

    /// Sets the cap on the SDK section declaring every tool, in bytes, in
    /// every disclosure: past it, [`Disclosure::Full`] gives way to the
    /// search listing as [`Disclosure::Auto`] does past the budget, and the
    /// full declarations are not rendered further (an upstream's schemas
    /// can expand to hundreds of megabytes of TypeScript).
    ///
    /// By default this is [`DEFAULT_MAX_SDK_BYTES`] (1 MiB).
    pub fn max_sdk_bytes(&mut self, bytes: usize) -> &mut Self {
        self.inner_mut().max_sdk_bytes = bytes;
        self
    }

    /// Sets the budget of one `run_code` result's text in bytes: the
    /// printed lines, the returned value and a failure's message share it,
    /// and text past it is cut with one marker saying how to print less.
    /// Raise it for a model with room to spare; it never raises the
    /// runtime's own caps (`max_log_bytes`, `max_value_bytes`).
    ///
    /// By default this is [`DEFAULT_MAX_OUTPUT_BYTES`] (24 KiB).
    pub fn max_output_bytes(&mut self, bytes: usize) -> &mut Self {
        self.inner_mut().max_output_bytes = bytes;
        self
    }

    /// Adds `global`, a namespace of host functions every `run_code`
    /// program gets beside `tools`, declared at the end of the SDK section.
    /// Its name must be a valid identifier other than `tools` and `console`
    /// and the other globals' (a run with a clash fails with a message
    /// saying so).
    pub fn global(&mut self, global: HostGlobal) -> &mut Self {
        let inner = self.inner_mut();
        inner.preamble.push_str(global.preamble_text());
        inner.globals.push(global);
        self
    }

    /// What runs before each program (see [`global`](Self::global)).
    pub(crate) fn preamble(&self) -> &str {
        &self.inner.preamble
    }

    /// The globals beside `tools` ([`global`](Self::global)).
    pub fn globals(&self) -> &[HostGlobal] {
        &self.inner.globals
    }

    /// Lets tool handlers pause a `run_code` program by returning
    /// [`ToolResult::interrupt`]: programs then keep the ledger of their
    /// calls (within the runtime's `max_record_bytes`) so that they can be
    /// resumed, as they do when a pre-execute hook may ask for approval.
    ///
    /// By default this is `false`: a handler's interrupt fails the call.
    pub fn handlers_may_pause(&mut self, pause: bool) -> &mut Self {
        self.inner_mut().handlers_pause = pause;
        self
    }

    /// The disclosure.
    pub fn get_disclosure(&self) -> Disclosure {
        self.inner.disclosure
    }

    /// The SDK section's budget in bytes.
    pub fn get_sdk_budget(&self) -> usize {
        self.inner.sdk_budget
    }

    /// The cap on the full SDK section in bytes.
    pub fn get_max_sdk_bytes(&self) -> usize {
        self.inner.max_sdk_bytes
    }

    /// The budget of one `run_code` result's text in bytes.
    pub fn get_max_output_bytes(&self) -> usize {
        self.inner.max_output_bytes
    }

    /// The search index of the tools.
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(
            self.inner
                .catalog
                .get_or_init(|| Arc::new(Catalog::new(&self.inner.tools))),
        )
    }

    /// The names of the `tools` global's functions: every tool's, and the
    /// discovery functions'.
    pub(crate) fn binding_names(&self) -> &CodeBindingNames {
        self.inner.binding_names.get_or_init(|| {
            let tools = self.inner.tools.iter().map(Tool::name);
            let discovery = [SEARCH, DESCRIBE, UNKNOWN];
            CodeBindingNames::new(TOOLS_GLOBAL, tools.chain(discovery))
        })
    }

    /// Sets the runtime `run_code` programs run on. Modes other than
    /// [`Mode::Native`] need one whose [`language`](CodeRuntime::language)
    /// is `typescript`.
    ///
    /// By default there is none.
    pub fn runtime(&mut self, runtime: Arc<dyn CodeRuntime>) -> &mut Self {
        self.inner_mut().runtime = Some(runtime);
        self
    }

    /// Adds a hook that runs before every call's handler and may deny the
    /// call or ask for it to be approved first ([`HookDecision`]). Hooks run
    /// in the order they are added; the first that does not allow wins.
    ///
    /// ```
    /// use coderun_code_mode::{HookDecision, ToolCall, ToolRegistry};
    ///
    /// let mut registry = ToolRegistry::new();
    /// registry.on_pre_execute(|call: &ToolCall| {
    ///     let writes = call.name.starts_with("write");
    ///     async move {
    ///         if writes {
    ///             HookDecision::deny("this session is read-only")
    ///         } else {
    ///             HookDecision::Allow
    ///         }
    ///     }
    /// });
    /// ```
    pub fn on_pre_execute<F, Fut>(&mut self, hook: F) -> &mut Self
    where
        F: Fn(&ToolCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HookDecision> + Send + 'static,
    {
        self.inner_mut().pre_execute.push(hooks::pre_execute(hook));
        self
    }

    /// Adds a hook that runs after every handler with the call's result and
    /// returns the result to pass on. Hooks run in the order they are added.
    /// A denied call never reaches them.
    pub fn on_post_execute<F, Fut>(&mut self, hook: F) -> &mut Self
    where
        F: Fn(&ToolCall, ToolResult) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResult> + Send + 'static,
    {
        self.inner_mut()
            .post_execute
            .push(hooks::post_execute(hook));
        self
    }

    /// Sets where the dispatch events of `run_code` programs go (see
    /// [`DispatchEvent`]), replacing any previous sink.
    ///
    /// By default events are dropped.
    pub fn event_sink(&mut self, sink: impl EventSink + 'static) -> &mut Self {
        self.inner_mut().event_sink = Some(Arc::new(sink));
        self
    }

    /// The mode.
    pub fn get_mode(&self) -> Mode {
        self.inner.mode
    }

    /// The runtime `run_code` programs run on, if one is set.
    pub fn get_runtime(&self) -> Option<&Arc<dyn CodeRuntime>> {
        self.inner.runtime.as_ref()
    }

    /// The tools, in registration order.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// The tool called `name`.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tool_index(name).map(|(_, tool)| tool)
    }

    /// The tool called `name` and its position among the registry's tools.
    pub(crate) fn tool_index(&self, name: &str) -> Option<(usize, &Tool)> {
        let index = *self.inner.index.get(name)?;
        Some((index, self.inner.tools.get(index)?))
    }

    /// Whether a call can pause a `run_code` program: a pre-execute hook
    /// can ask for approval, and handlers can when allowed to.
    pub(crate) fn may_pause(&self) -> bool {
        !self.inner.pre_execute.is_empty() || self.inner.handlers_pause
    }

    /// Whether handlers may pause a program ([`handlers_may_pause`](Self::handlers_may_pause)).
    pub(crate) fn handlers_pause(&self) -> bool {
        self.inner.handlers_pause
    }

    /// Keeps a paused run's continuation; returns its id.
    pub(crate) fn pause(&self, call_id: &str, continuation: Continuation) -> String {
        self.inner.paused.insert(call_id, continuation)
    }

    /// Takes the continuation of the paused `run_code` call `id` out of the
    /// registry, to store it elsewhere (a database row, a workflow's state)
    /// and resume it later, in this process or another, with
    /// [`resume_continuation`](Self::resume_continuation). `None` if no run
    /// is paused under that id (never was, already resumed or taken, or
    /// evicted: the registry keeps the latest [`MAX_PAUSED`]).
    pub fn take_continuation(&self, id: &str) -> Option<Continuation> {
        self.inner.paused.take(id)
    }

    /// How many paused runs the registry holds.
    pub fn paused_runs(&self) -> usize {
        self.inner.paused.len()
    }

    /// Sends `event` to the sink, if there is one.
    pub(crate) fn record(&self, event: DispatchEvent) {
        if let Some(sink) = &self.inner.event_sink {
            sink.record(event);
        }
    }
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = &*self.inner;
        f.debug_struct("ToolRegistry")
            .field("mode", &inner.mode)
            .field("tools", &inner.tools)
            .field("pre_execute", &inner.pre_execute.len())
            .field("post_execute", &inner.post_execute.len())
            .field("event_sink", &inner.event_sink.is_some())
            .field("paused_runs", &inner.paused.len())
            .field(
                "runtime",
                &inner.runtime.as_ref().map(|runtime| runtime.language()),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests;
