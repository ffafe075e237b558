//! Code Mode: a tool registry that presents its tools to a model natively,
//! as one `run_code` tool with a generated TypeScript SDK, or both.
//!
//! Instead of calling tools one JSON blob at a time, a model in Code Mode
//! writes a TypeScript program against a `tools` object; the program runs in
//! a sandboxed [`CodeRuntime`](coderun_runtime::CodeRuntime), and every tool
//! call it makes goes through the same registry, hooks and handlers as a
//! direct call.
//!
//! ```
//! use std::sync::Arc;
//! use coderun_code_mode::coderun_runtime::{RuntimeConfig, WasmCodeRuntime};
//! use coderun_code_mode::{AbortController, Mode, Tool, ToolCall, ToolRegistry, ToolResult};
//! use serde_json::json;
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut registry = ToolRegistry::new();
//! registry.register(Tool::new(
//!     "greet",
//!     "Greet someone by name.",
//!     json!({
//!         "type": "object",
//!         "properties": {"name": {"type": "string"}},
//!         "required": ["name"]
//!     }),
//!     |args, _ctx| async move {
//!         ToolResult::text(format!("hello, {}", args["name"].as_str().unwrap_or("you")))
//!     },
//! ))?;
//! let runtime = WasmCodeRuntime::new(RuntimeConfig::default())?;
//! registry.mode(Mode::Code).runtime(Arc::new(runtime));
//!
//! // The model is offered one tool, run_code, and a prompt section.
//! let assembly = registry.assemble()?;
//! assert_eq!(assembly.tools.len(), 1);
//! assert_eq!(assembly.tools[0].name, "run_code");
//! let sdk = assembly.sdk_section.unwrap_or_default();
//! assert!(sdk.contains("  greet(args: {\n    name: string;\n  }): Promise<string>;"));
//!
//! // The model calls run_code with a program.
//! let program = "const greeting = await tools.greet({ name: 'Ada' });\n\
//!                console.log(greeting);\n\
//!                return greeting.length;";
//! let call = ToolCall::new("call_1", "run_code", json!({ "code": program }));
//! let result = registry.execute(call, AbortController::new().signal()).await;
//! assert!(!result.is_error);
//! assert_eq!(result.text_content(), "hello, Ada\n10");
//! # Ok(())
//! # }
//! ```
//!
//! # Core concepts
//!
//! - **Tools** ([`Tool`]): a name, a description, an input JSON Schema, an
//!   optional output schema, an async handler given a [`ToolContext`] (the
//!   call's id and abort signal) and returning a [`ToolResult`], and whether
//!   calls may overlap ([`Tool::concurrency_safe`]).
//! - **The registry** ([`ToolRegistry`]): every call, direct or from a
//!   program, goes `pre_execute` hooks (which may deny it, see
//!   [`HookDecision`]) → handler → `post_execute` hooks.
//! - **Approvals**: a `pre_execute` hook may answer
//!   [`HookDecision::NeedsApproval`]. A `run_code` program then pauses at
//!   that call: `run_code` returns what needs approving and the paused
//!   run's id (its text begins with [`PAUSED`]), and
//!   [`ToolRegistry::resume`] goes on with the answer, without dispatching
//!   the calls made before it again. The continuation can be taken out
//!   ([`ToolRegistry::take_continuation`]) and resumed in another process.
//! - **Modes** ([`Mode`]) and **assembly** ([`ToolRegistry::assemble`]):
//!   `native` offers the tools as registered; `code` offers only `run_code`
//!   and an SDK prompt section declaring the tools in TypeScript; `both`
//!   offers both. Modes with `run_code` need a TypeScript runtime and fail
//!   at assembly without one ([`AssemblyError`]).
//! - **The bridge** (executing `run_code`): the program runs with one
//!   global, `tools`. Each call is queued (one at a time, except that
//!   consecutive calls of concurrency-safe tools overlap), dispatched
//!   through the registry, and recorded as a [`DispatchEvent`] to the
//!   registry's [`EventSink`]. A run-scoped abort follows the caller's
//!   signal and fires when the program settles: in-flight calls see it,
//!   queued calls are abandoned ([`ABANDONED`]), later calls are refused
//!   ([`NOT_DISPATCHED`]), and `run_code` returns only once no call is in
//!   progress.
//! - **Results**: a tool with an output schema that returned a structured
//!   value gives the program that value; otherwise the program gets the
//!   result's text, and an error result rejects with its text. `run_code`
//!   itself returns the printed lines and the returned value rendered like
//!   Node's `util.inspect` (by the guest, the one renderer: the line is the
//!   same as `console.log(value)` prints), [`NO_OUTPUT`] when there is
//!   neither, or on failure an error `code run failed (<kind>): <message>`
//!   followed by the output printed before it.
//!
//! # Missing arguments
//!
//! The runtime delivers a call without an argument (or with `undefined`) as
//! JSON `null`. If the tool's SDK parameter is optional (`args?:`, its
//! schema accepts `{}`), the tool is dispatched with `{}`; otherwise the
//! call is rejected inside the program with `tools.x expects an argument
//! object; pass {} if it takes none` and nothing is dispatched.
//!
//! # TypeScript
//!
//! [`schema_ts`] renders JSON Schema as TypeScript types (total and
//! deterministic) and [`render_sdk`] renders the `declare const tools: {
//! ... };` block of a set of tools.

mod bridge;
mod catalog;
mod disclosure;
mod discovery;
mod events;
mod globals;
mod hooks;
mod mode;
mod registry;
mod results;
mod routing;
pub mod schema_ts;
mod sdk;
mod tool;
mod trace;
mod ts_syntax;

pub use coderun_runtime;
pub use coderun_runtime::{AbortController, AbortSignal};

pub use bridge::{ABANDONED, NO_OUTPUT, NOT_DISPATCHED, PAUSED, RUN_SETTLED};
pub use disclosure::{DEFAULT_MAX_SDK_BYTES, DEFAULT_SDK_BUDGET, Disclosure, DisclosureError};
pub use discovery::{DEFAULT_SEARCH_LIMIT, DESCRIBE, MAX_SEARCH_LIMIT, SEARCH};
pub use events::{DispatchEvent, EventSink, MAX_SUMMARY_BYTES};
pub use globals::HostGlobal;
pub use hooks::{Approval, HookDecision};
pub use mode::{Mode, ModeError};
pub use registry::{DEFAULT_MAX_OUTPUT_BYTES, MAX_PAUSED, RegistryError, ToolRegistry};
pub use results::MEDIA_HANDLE;
pub use routing::{Assembly, AssemblyError, SdkStats, WireTool, is_reserved_name};
pub use schema_ts::schema_to_ts;
pub use sdk::{RUN_CODE, TOOLS_GLOBAL, ToolSignature, render_sdk, render_tool};
pub use tool::{ContentBlock, Tool, ToolCall, ToolContext, ToolHandler, ToolResult};
pub use trace::{RunTrace, TraceCall};
pub use ts_syntax::is_identifier;
