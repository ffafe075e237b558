//! Routing by mode: what the model is offered (`assemble`) and where each
//! call it makes goes (`execute`). The one module that knows both the
//! registry and `run_code`.

use std::sync::Arc;

use coderun_runtime::{AbortSignal, CodeRuntime, Continuation, Language};
use serde::Serialize;
use serde_json::Value;

use crate::bridge;
use crate::disclosure::Disclosure;
use crate::discovery::{DESCRIBE, SEARCH, UNKNOWN};
use crate::hooks::Approval;
use crate::mode::Mode;
use crate::registry::{Gate, ToolRegistry};
use crate::sdk::{self, Declared, RUN_CODE};
use crate::tool::{Tool, ToolCall, ToolResult};

/// One tool as a model API receives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WireTool {
    /// The tool's name.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub input_schema: Value,
}

/// What the model is offered: the wire tools, and the SDK prompt section
/// when the mode has one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assembly {
    /// The tools, in order: the registry's tools in registration order
    /// (modes `native` and `both`), then `run_code` (modes `code` and `both`).
    pub tools: Vec<WireTool>,
    /// The section to add to the system prompt (modes `code` and `both`):
    /// how to write a program, then the TypeScript declarations of the
    /// registry's tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sdk_section: Option<String>,
}

/// The SDK section's sizes (see [`ToolRegistry::sdk_stats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SdkStats {
    /// How many tools the registry has.
    pub tools: usize,
    /// Bytes of the section declaring every tool; `None` when it passes
    /// [`max_bytes`](Self::max_bytes), where its rendering stops.
    pub full_bytes: Option<usize>,
    /// Bytes of the search section (listing and discovery functions).
    pub search_bytes: usize,
    /// The budget `auto` compares the full section against.
    pub budget_bytes: usize,
    /// The cap on the full section in any disclosure (see
    /// [`ToolRegistry::max_sdk_bytes`]).
    pub max_bytes: usize,
    /// The disclosure in effect: `full` or `search`.
    pub disclosure: Disclosure,
}

/// The registry's configuration cannot be offered to a model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssemblyError {
    /// A mode with `run_code` but no runtime to run programs on.
    #[error(
        "mode {mode} needs a code runtime, but none is configured: set a typescript runtime \
         with ToolRegistry::runtime, or use mode native"
    )]
    MissingRuntime {
        /// The mode that was set.
        mode: Mode,
    },
    /// A mode with `run_code` and a runtime for another language.
    #[error(
        "mode {mode} needs a typescript code runtime, but the configured runtime's language is \
         \"{language}\": set a typescript runtime with ToolRegistry::runtime, or use mode native"
    )]
    WrongLanguage {
        /// The mode that was set.
        mode: Mode,
        /// The runtime's language.
        language: Language,
    },
    /// A registered tool is called `run_code`, which the mode adds itself,
    /// or `$search`, `$describe` or `$unknown`, which programs use to find
    /// tools.
    #[error(
        "mode {mode} adds the tool run_code and the program functions tools.$search and \
         tools.$describe, but a registered tool is called {name:?}: rename that tool, or use \
         mode native"
    )]
    ReservedName {
        /// The mode that was set.
        mode: Mode,
        /// The reserved name a tool has.
        name: String,
    },
}

/// The names code modes take for themselves: the `run_code` tool and the
/// functions programs find tools with.
const RESERVED_NAMES: [&str; 4] = [RUN_CODE, SEARCH, DESCRIBE, UNKNOWN];

/// Whether a tool called `name` would collide with what the code modes add
/// (`run_code`, `tools.$search`, `tools.$describe`): a gateway leaves such a
/// tool out (with a note) rather than fail to assemble.
pub fn is_reserved_name(name: &str) -> bool {
    RESERVED_NAMES.contains(&name)
}

impl ToolRegistry {
    /// What the model is offered under the registry's [`Mode`]:
    ///
    /// - `native`: every tool as itself, in registration order, exactly as
    ///   registered; no SDK section.
    /// - `code`: only `run_code`, and an SDK section declaring every tool.
    /// - `both`: every tool, then `run_code`, and the SDK section.
    ///
    /// The result is deterministic: the same registry assembles to the same
    /// bytes, and the SDK section does not depend on registration order.
    /// Modes other than `native` fail without a TypeScript runtime.
    pub fn assemble(&self) -> Result<Assembly, AssemblyError> {
        let mode = self.get_mode();
        let mut tools = Vec::new();
        if mode.offers_native_tools() {
            tools.extend(self.tools().iter().map(|tool| WireTool {
                name: tool.name().to_owned(),
                description: tool.description().to_owned(),
                input_schema: tool.input_schema().clone(),
            }));
        }
        if !mode.offers_run_code() {
            return Ok(Assembly {
                tools,
                sdk_section: None,
            });
        }
        self.code_runtime()?;
        tools.push(WireTool {
            name: RUN_CODE.to_owned(),
            description: sdk::RUN_CODE_DESCRIPTION.to_owned(),
            input_schema: sdk::run_code_input_schema(),
        });
        Ok(Assembly {
            tools,
            sdk_section: Some(self.sdk_section()),
        })
    }

    /// The SDK prompt section under the registry's [`Disclosure`], whatever
    /// the mode: what [`assemble`](Self::assemble) offers with `run_code`.
    pub fn sdk_section(&self) -> String {
        let mut section = self.sections().0;
        if !self.globals().is_empty() {
            section.push_str(
                "\nBeside `tools`, programs get these globals, whose functions are async too:\n\n```ts\n",
            );
            section.push_str(&self.globals_declarations());
            section.push_str("```\n");
        }
        section
    }

    /// The declarations of the globals beside `tools`, one after another.
    fn globals_declarations(&self) -> String {
        let mut out = String::new();
        for global in self.globals() {
            out.push_str(global.declarations().trim_end());
            out.push('\n');
        }
        out
    }

    /// The section's sizes in both disclosures, and which one applies.
    pub fn sdk_stats(&self) -> SdkStats {
        let full = self
            .full_section(self.get_max_sdk_bytes())
            .map(|full| full.len());
        let search = self.section(Declared::Search).len();
        let (_, declared) = self.sections();
        SdkStats {
            tools: self.tools().len(),
            full_bytes: full,
            search_bytes: search,
            budget_bytes: self.get_sdk_budget(),
            max_bytes: self.get_max_sdk_bytes(),
            disclosure: match declared {
                Declared::Full => Disclosure::Full,
                Declared::Search => Disclosure::Search,
            },
        }
    }

    /// The TypeScript declarations the SDK section holds under the
    /// registry's [`Disclosure`] (the `ToolMatch` type and `declare const
    /// tools: {...};`, tools sorted by name, after `$search` and
    /// `$describe`; in search mode those two and an index signature),
    /// whatever the mode.
    pub fn sdk_declarations(&self) -> String {
        let mut declarations = sdk::render_declarations(self.tools(), self.sections().1);
        if !self.globals().is_empty() {
            if !declarations.ends_with('\n') {
                declarations.push('\n');
            }
            declarations.push_str(&self.globals_declarations());
        }
        declarations
    }

    /// The section in effect and what it declares: `full` gives way to
    /// `search` past `max_sdk_bytes`, as `auto` does past the budget.
    fn sections(&self) -> (String, Declared) {
        let limit = match self.get_disclosure() {
            Disclosure::Full => self.get_max_sdk_bytes(),
            Disclosure::Search => return (self.section(Declared::Search), Declared::Search),
            Disclosure::Auto => self.get_sdk_budget().min(self.get_max_sdk_bytes()),
        };
        match self.full_section(limit) {
            Some(full) => (full, Declared::Full),
            None => (self.section(Declared::Search), Declared::Search),
        }
    }

    /// The section declaring every tool, unless it passes `limit` bytes
    /// (its rendering then stops there).
    fn full_section(&self, limit: usize) -> Option<String> {
        let output = self.get_max_output_bytes();
        sdk::render_section_within(self.tools(), Declared::Full, 0, output, limit)
    }

    /// The section declaring `declared`; a search listing takes what the
    /// budget leaves.
    fn section(&self, declared: Declared) -> String {
        let output = self.get_max_output_bytes();
        match declared {
            Declared::Full => self.full_section(usize::MAX).unwrap_or_default(),
            Declared::Search => {
                let frame = sdk::render_section(self.tools(), declared, 0, output).len();
                let room = self.get_sdk_budget().saturating_sub(frame);
                sdk::render_section(self.tools(), declared, room, output)
            }
        }
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
        let mode = self.get_mode();
        if mode.offers_run_code() && call.name == RUN_CODE {
            let registry = self.clone();
            return self
                .pipeline(call, signal, Gate::Hooks, move |call, ctx| async move {
                    bridge::run_code(&registry, ctx.call_id(), &call.arguments, ctx.signal()).await
                })
                .await
                .into_result();
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
            let hint = crate::catalog::did_you_mean(&self.catalog().closest(&call.name), |name| {
                format!("{name:?}")
            });
            ToolResult::error(format!(
                "unknown tool {:?}{hint}; the tools offered are: {offered}",
                call.name
            ))
        }
    }

    /// Resumes the paused `run_code` call `id` (see [`HookDecision::NeedsApproval`](crate::HookDecision::NeedsApproval))
    /// with the answer to the call it paused at: on approval, that call is
    /// dispatched now (through the hooks: a denial still denies); on
    /// rejection, it rejects in the program with `not approved: <reason>`.
    /// The calls the program made before it are answered from the run's
    /// ledger, not dispatched again. The result is `run_code`'s, for the
    /// call `call_id`: the program's output, a failure, or a new pause.
    ///
    /// An unknown id is an error result.
    pub async fn resume(
        &self,
        call_id: &str,
        id: &str,
        approval: Approval,
        signal: AbortSignal,
    ) -> ToolResult {
        match self.take_continuation(id) {
            Some(continuation) => {
                self.resume_continuation(call_id, continuation, approval, signal)
                    .await
            }
            None => ToolResult::error(format!(
                "no paused run has the id {id:?}: it was resumed already, taken with \
                 take_continuation, or never existed"
            )),
        }
    }

    /// [`resume`](Self::resume) a continuation taken out of the registry
    /// with [`take_continuation`](Self::take_continuation), in this process
    /// or another with the same tools and guest. A continuation whose
    /// program, tools or guest differ, or that fails the runtime's signature
    /// check, is an error result saying why.
    pub async fn resume_continuation(
        &self,
        call_id: &str,
        continuation: Continuation,
        approval: Approval,
        signal: AbortSignal,
    ) -> ToolResult {
        bridge::resume(self, call_id, continuation, approval, &signal).await
    }

    /// The runtime for `run_code`, if the configuration allows running code.
    pub(crate) fn code_runtime(&self) -> Result<&Arc<dyn CodeRuntime>, AssemblyError> {
        let mode = self.get_mode();
        let runtime = self
            .get_runtime()
            .ok_or(AssemblyError::MissingRuntime { mode })?;
        let language = runtime.language();
        if language != Language::TYPESCRIPT {
            return Err(AssemblyError::WrongLanguage { mode, language });
        }
        if let Some(name) = RESERVED_NAMES
            .into_iter()
            .find(|name| self.tool(name).is_some())
        {
            return Err(AssemblyError::ReservedName {
                mode,
                name: name.to_owned(),
            });
        }
        Ok(runtime)
    }
}
