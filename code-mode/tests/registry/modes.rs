//! Modes and assembly: what the model is offered.

use std::sync::Arc;

use coderun_code_mode::coderun_runtime::{
    CodeRunRequest, CodeRunResult, CodeRuntime, Language, MisuseError,
};
use coderun_code_mode::{
    Assembly, AssemblyError, Mode, RUN_CODE, Tool, ToolCall, ToolRegistry, WireTool,
};
use futures::future::BoxFuture;
use serde_json::json;

use crate::{SHARED, no_abort, shared_runtime, text_tool};

/// Tools with schemas whose key order must survive (`z` before `a`).
fn sample_tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "search",
            "Search the notes.",
            json!({
                "type": "object",
                "properties": {"z_query": {"type": "string"}, "a_limit": {"type": "integer"}},
                "required": ["z_query"]
            }),
            |_, _| async { coderun_code_mode::ToolResult::text("") },
        ),
        text_tool("delete-note", "deleted"),
        text_tool("append", "appended"),
    ]
}

fn registry(mode: Mode, tools: Vec<Tool>) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for tool in tools {
        registry.register(tool).expect("unique names");
    }
    registry.mode(mode).runtime(shared_runtime());
    registry
}

fn names(assembly: &Assembly) -> Vec<&str> {
    assembly.tools.iter().map(|t| t.name.as_str()).collect()
}

#[test]
fn native_mode_offers_the_tools_exactly_as_registered_and_no_sdk() {
    let tools = sample_tools();
    // What the registry gave before modes existed: each tool as itself, in order.
    let before_modes: Vec<WireTool> = tools
        .iter()
        .map(|tool| WireTool {
            name: tool.name().to_owned(),
            description: tool.description().to_owned(),
            input_schema: tool.input_schema().clone(),
        })
        .collect();
    let mut registry = ToolRegistry::new();
    for tool in tools {
        registry.register(tool).unwrap();
    }
    let assembly = registry.assemble().expect("native needs no runtime");
    assert_eq!(assembly.sdk_section, None);
    assert_eq!(
        serde_json::to_string(&assembly.tools).unwrap(),
        serde_json::to_string(&before_modes).unwrap()
    );
    assert!(
        serde_json::to_string(&assembly)
            .unwrap()
            .contains(r#"{"z_query":{"type":"string"},"a_limit":{"type":"integer"}}"#)
    );
}

#[test]
fn code_mode_offers_only_run_code_and_declares_every_other_tool() {
    let assembly = registry(Mode::Code, sample_tools()).assemble().unwrap();
    assert_eq!(names(&assembly), [RUN_CODE]);
    assert_eq!(
        assembly.tools[0].input_schema["properties"]["code"]["type"],
        "string"
    );
    assert_eq!(assembly.tools[0].input_schema["required"], json!(["code"]));
    let sdk = assembly.sdk_section.expect("code mode has an SDK section");
    assert!(
        sdk.contains("\ndeclare const tools: {\n  /** Find tools"),
        "{sdk}"
    );
    for declared in [
        "  append(args?: {",
        "  \"delete-note\"(args?: {",
        "  search(args: {",
    ] {
        assert!(sdk.contains(declared), "{declared:?} missing from:\n{sdk}");
    }
    let declarations = registry(Mode::Code, sample_tools()).sdk_declarations();
    assert!(
        sdk.ends_with(&format!("```ts\n{declarations}\n```\n")),
        "{sdk}"
    );
    assert!(!sdk.contains("run_code("), "{sdk}");
    assert!(!sdk.contains("run_code\"("), "{sdk}");
    // Sorted by name.
    let order: Vec<usize> = ["\n  append(", "\n  \"delete-note\"(", "\n  search("]
        .iter()
        .map(|m| sdk.find(m).unwrap())
        .collect();
    assert!(order.is_sorted(), "{sdk}");
}

#[test]
fn the_sdk_section_tells_the_model_how_programs_work() {
    let sdk = registry(Mode::Code, sample_tools())
        .assemble()
        .unwrap()
        .sdk_section
        .unwrap();
    for needle in [
        "body of an async function",
        "await tools.name({ ... })",
        "rejects with an `Error`",
        "prints (`console.log`) or returns",
        "run one at a time",
    ] {
        assert!(sdk.contains(needle), "{needle:?} missing from:\n{sdk}");
    }
}

#[test]
fn both_mode_offers_every_tool_then_run_code() {
    let assembly = registry(Mode::Both, sample_tools()).assemble().unwrap();
    assert_eq!(
        names(&assembly),
        ["search", "delete-note", "append", RUN_CODE]
    );
    let sdk = assembly.sdk_section.expect("both mode has an SDK section");
    assert!(sdk.contains("  search(args: {"), "{sdk}");
}

#[test]
fn assemblies_are_byte_identical() {
    for mode in [Mode::Native, Mode::Code, Mode::Both] {
        let first = serde_json::to_string(&registry(mode, sample_tools()).assemble().unwrap());
        let second = serde_json::to_string(&registry(mode, sample_tools()).assemble().unwrap());
        assert_eq!(first.unwrap(), second.unwrap(), "mode {mode}");
    }
}

#[test]
fn the_sdk_section_does_not_depend_on_registration_order() {
    let mut reversed = sample_tools();
    reversed.reverse();
    let forward = registry(Mode::Code, sample_tools()).assemble().unwrap();
    let backward = registry(Mode::Code, reversed).assemble().unwrap();
    assert_eq!(
        serde_json::to_string(&forward).unwrap(),
        serde_json::to_string(&backward).unwrap()
    );
}

#[test]
fn code_mode_without_a_runtime_fails_naming_the_mode() {
    for mode in [Mode::Code, Mode::Both] {
        let mut registry = ToolRegistry::new();
        registry.register(text_tool("a", "a")).unwrap();
        registry.mode(mode);
        let error = registry.assemble().unwrap_err();
        assert_eq!(error, AssemblyError::MissingRuntime { mode });
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("mode {mode} needs a code runtime")),
            "{message}"
        );
        assert!(message.contains("ToolRegistry::runtime"), "{message}");
    }
}

/// The real runtime, presenting itself as a runtime for another language.
struct PythonLabelled;

impl CodeRuntime for PythonLabelled {
    fn run(&self, request: CodeRunRequest) -> BoxFuture<'_, Result<CodeRunResult, MisuseError>> {
        SHARED.run(request)
    }

    fn language(&self) -> Language {
        Language::new("python")
    }

    fn isolation(&self) -> &'static str {
        SHARED.isolation()
    }

    fn dispose(&self) -> BoxFuture<'_, ()> {
        SHARED.dispose()
    }
}

#[tokio::test]
async fn a_runtime_for_another_language_fails_assembly_and_run_code() {
    let mut registry = ToolRegistry::new();
    registry.register(text_tool("a", "a")).unwrap();
    registry.mode(Mode::Code).runtime(Arc::new(PythonLabelled));
    let error = registry.assemble().unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with("mode code needs a typescript code runtime"),
        "{message}"
    );
    assert!(message.contains("\"python\""), "{message}");

    let call = ToolCall::new("c", RUN_CODE, json!({"code": "return 1"}));
    let result = registry.execute(call, no_abort()).await;
    assert!(result.is_error);
    assert_eq!(result.text_content(), message);
}

#[test]
fn a_tool_named_run_code_conflicts_with_code_mode_only() {
    let tools = || vec![text_tool(RUN_CODE, "mine")];
    assert!(registry(Mode::Native, tools()).assemble().is_ok());
    let error = registry(Mode::Code, tools()).assemble().unwrap_err();
    assert_eq!(
        error,
        AssemblyError::ReservedName {
            mode: Mode::Code,
            name: "run_code".into()
        }
    );
}

#[tokio::test]
async fn code_mode_does_not_execute_tools_directly() {
    let registry = registry(Mode::Code, sample_tools());
    let result = registry
        .execute(ToolCall::new("c", "append", json!({})), no_abort())
        .await;
    assert!(result.is_error);
    assert!(
        result
            .text_content()
            .contains("not offered directly in mode code"),
        "{}",
        result.text_content()
    );
}

#[tokio::test]
async fn native_mode_executes_tools_and_has_no_run_code() {
    let registry = registry(Mode::Native, sample_tools());
    let result = registry
        .execute(ToolCall::new("c", "append", json!({})), no_abort())
        .await;
    assert_eq!(result.text_content(), "appended");
    let result = registry
        .execute(
            ToolCall::new("c", RUN_CODE, json!({"code": "return 1"})),
            no_abort(),
        )
        .await;
    assert!(result.is_error);
    assert!(
        result
            .text_content()
            .starts_with("unknown tool \"run_code\""),
        "{}",
        result.text_content()
    );
}
