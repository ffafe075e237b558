//! Assembly: what the model is offered under the registry's mode.

use std::sync::Arc;

use runtime_host::CodeRuntime;
use serde::Serialize;
use serde_json::Value;

use crate::mode::Mode;
use crate::registry::ToolRegistry;
use crate::sdk::{self, RUN_CODE};

/// The language a runtime must run for the SDK this crate generates.
pub const TYPESCRIPT: &str = "typescript";

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
         {language:?}: set a typescript runtime with ToolRegistry::runtime, or use mode native"
    )]
    WrongLanguage {
        /// The mode that was set.
        mode: Mode,
        /// The runtime's language.
        language: &'static str,
    },
    /// A registered tool is called `run_code`, which the mode adds itself.
    #[error(
        "mode {mode} adds the tool run_code, but a registered tool already has that name: \
         rename that tool, or use mode native"
    )]
    ReservedName {
        /// The mode that was set.
        mode: Mode,
    },
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
            sdk_section: Some(sdk::render_section(self)),
        })
    }

    /// The runtime for `run_code`, if the configuration allows running code.
    pub(crate) fn code_runtime(&self) -> Result<&Arc<dyn CodeRuntime>, AssemblyError> {
        let mode = self.get_mode();
        let runtime = self
            .get_runtime()
            .ok_or(AssemblyError::MissingRuntime { mode })?;
        let language = runtime.language();
        if language != TYPESCRIPT {
            return Err(AssemblyError::WrongLanguage { mode, language });
        }
        if self.tool(RUN_CODE).is_some() {
            return Err(AssemblyError::ReservedName { mode });
        }
        Ok(runtime)
    }
}
