//! The tool registry: the tools, the hooks around every call, the mode and
//! the code runtime, and the one pipeline every call goes through.

use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt as _;
use runtime_host::{AbortSignal, CodeRuntime};
use serde_json::Value;

use crate::bridge;
use crate::events::{DispatchEvent, EventSink};
use crate::hooks::{self, HookDecision, PostExecuteHook, PreExecuteHook};
use crate::mode::Mode;
use crate::schema_ts::{ToolSignature, render_sdk};
use crate::sdk::RUN_CODE;
use crate::tool::{Tool, ToolCall, ToolContext, ToolResult};

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
/// them is changed (copy on write).
#[derive(Clone, Default)]
pub struct ToolRegistry {
    inner: Arc<Inner>,
}

#[derive(Clone, Default)]
struct Inner {
    /// In registration order: native mode offers them in this order.
    tools: Vec<Tool>,
    index: HashMap<String, usize>,
    pre_execute: Vec<PreExecuteHook>,
    post_execute: Vec<PostExecuteHook>,
    event_sink: Option<Arc<dyn EventSink>>,
    mode: Mode,
    runtime: Option<Arc<dyn CodeRuntime>>,
}

impl ToolRegistry {
    /// An empty registry in [`Mode::Native`], without hooks, event sink or
    /// runtime.
    pub fn new() -> Self {
        Self::default()
    }

    fn inner_mut(&mut self) -> &mut Inner {
        Arc::make_mut(&mut self.inner)
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
    /// call. Hooks run in the order they are added; the first denial wins.
    ///
    /// ```
    /// use code_mode::{HookDecision, ToolCall, ToolRegistry};
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
        self.inner
            .index
            .get(name)
            .and_then(|&i| self.inner.tools.get(i))
    }

    /// The TypeScript declaration of every tool (`declare const tools:
    /// {...};`, tools sorted by name), whatever the mode.
    pub fn sdk_declarations(&self) -> String {
        let signatures: Vec<ToolSignature<'_>> = self
            .inner
            .tools
            .iter()
            .map(|tool| ToolSignature {
                name: tool.name(),
                description: tool.description(),
                input_schema: tool.input_schema(),
                output_schema: tool.get_output_schema(),
            })
            .collect();
        render_sdk(&signatures)
    }

    /// Executes one call the model made, as the mode offers the tools: in
    /// modes `code` and `both` a call of `run_code` runs its program (see
    /// the crate docs); in mode `code` the other tools are reachable only
    /// from programs. Every call goes through the hooks. Failures, unknown
    /// tools included, are error results.
    ///
    /// `signal` is the call's abort signal, handed to the handler. Cancelling
    /// the returned future drops the handler's future; for `run_code` it
    /// also aborts the program's in-flight calls (without waiting for them).
    pub async fn execute(&self, call: ToolCall, signal: AbortSignal) -> ToolResult {
        let mode = self.inner.mode;
        if mode.offers_run_code() && call.name == RUN_CODE {
            let registry = self.clone();
            return self
                .pipeline(call, signal, move |call, ctx| async move {
                    bridge::run_code(&registry, ctx.call_id(), &call.arguments, ctx.signal()).await
                })
                .await;
        }
        if self.tool(&call.name).is_some() && mode.offers_native_tools() {
            return self.dispatch(call, signal).await;
        }
        let offered = match mode {
            Mode::Code => RUN_CODE.to_owned(),
            Mode::Native | Mode::Both => {
                let mut names: Vec<&str> = self.tools().iter().map(Tool::name).collect();
                if mode.offers_run_code() {
                    names.push(RUN_CODE);
                }
                names.join(", ")
            }
        };
        if self.tool(&call.name).is_some() {
            ToolResult::error(format!(
                "tool {:?} is not offered directly in mode {mode}; call it from a {RUN_CODE} \
                 program instead",
                call.name
            ))
        } else {
            ToolResult::error(format!(
                "unknown tool {:?}; the tools offered are: {offered}",
                call.name
            ))
        }
    }

    /// Runs a call of one of the registry's tools through the hooks and its
    /// handler, whatever the mode.
    pub(crate) async fn dispatch(&self, call: ToolCall, signal: AbortSignal) -> ToolResult {
        let Some(tool) = self.tool(&call.name) else {
            return ToolResult::error(format!("unknown tool {:?}", call.name));
        };
        let handler = tool.handler().clone();
        self.pipeline(call, signal, move |call, ctx| handler(call.arguments, ctx))
            .await
    }

    /// pre-execute hooks → `handler` → post-execute hooks. A panic anywhere
    /// in it becomes an error result.
    async fn pipeline<H, Fut>(&self, call: ToolCall, signal: AbortSignal, handler: H) -> ToolResult
    where
        H: FnOnce(ToolCall, ToolContext) -> Fut,
        Fut: Future<Output = ToolResult>,
    {
        let name = call.name.clone();
        let run = async move {
            for hook in &self.inner.pre_execute {
                if let HookDecision::Deny { reason } = hook(&call).await {
                    return ToolResult::error(format!(
                        "tool call denied by a pre-execute hook: {reason}"
                    ));
                }
            }
            let ctx = ToolContext::new(call.id.clone(), signal);
            let mut result = handler(call.clone(), ctx).await;
            for hook in &self.inner.post_execute {
                result = hook(&call, result).await;
            }
            result
        };
        AssertUnwindSafe(run)
            .catch_unwind()
            .await
            .unwrap_or_else(|_| ToolResult::error(format!("tool {name:?} panicked")))
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
            .field(
                "runtime",
                &inner.runtime.as_ref().map(|runtime| runtime.language()),
            )
            .finish()
    }
}

/// Turns program-side arguments into the value a tool is dispatched with.
///
/// A program that omits the argument (or passes `undefined` or `null`)
/// reaches the host as `null`. For a tool whose SDK parameter is optional
/// (`args?:`) that means `{}`; for any other tool the call is refused, since
/// the handler would otherwise see arguments its schema forbids.
pub(crate) fn normalize_arguments(tool: &Tool, arguments: Value) -> Result<Value, String> {
    match arguments {
        Value::Null if crate::schema_ts::args_are_optional(tool.input_schema()) => {
            Ok(Value::Object(serde_json::Map::new()))
        }
        Value::Null => Err(format!(
            "tools{} expects an argument object; pass {{}} if it takes none",
            crate::sdk::member_access(tool.name())
        )),
        arguments => Ok(arguments),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: Value) -> Tool {
        Tool::new(name, "", schema, |_, _| async { ToolResult::text("") })
    }

    #[test]
    fn duplicate_and_empty_names_are_refused() {
        let mut registry = ToolRegistry::new();
        registry.register(tool("a", json!({}))).unwrap();
        let error = registry.register(tool("a", json!({}))).unwrap_err();
        assert_eq!(
            error.to_string(),
            "tool name \"a\" is already registered; tool names must be unique"
        );
        assert_eq!(
            registry.register(tool("", json!({}))).unwrap_err(),
            RegistryError::EmptyName
        );
    }

    #[test]
    fn a_missing_argument_is_an_empty_object_when_the_parameter_is_optional() {
        let optional = tool("list", json!({"type": "object", "properties": {"dir": {}}}));
        assert_eq!(normalize_arguments(&optional, Value::Null), Ok(json!({})));
    }

    #[test]
    fn a_missing_argument_is_refused_when_the_parameter_is_required() {
        let required = tool(
            "my-read",
            json!({"type": "object", "properties": {"path": {}}, "required": ["path"]}),
        );
        assert_eq!(
            normalize_arguments(&required, Value::Null),
            Err("tools[\"my-read\"] expects an argument object; pass {} if it takes none".into())
        );
        assert_eq!(
            normalize_arguments(&required, json!({"path": "a"})),
            Ok(json!({"path": "a"}))
        );
    }

    #[test]
    fn clones_do_not_see_later_changes() {
        let mut registry = ToolRegistry::new();
        let before = registry.clone();
        registry.register(tool("a", json!({}))).unwrap();
        assert!(before.tools().is_empty());
        assert_eq!(registry.tools().len(), 1);
    }
}
