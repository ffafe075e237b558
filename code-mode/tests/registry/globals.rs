//! Globals beside `tools`: a host namespace every program gets, its
//! preamble shaping the arguments, its declarations after the tools in the
//! SDK section and in the declarations file.

use coderun_code_mode::HostGlobal;
use coderun_code_mode::coderun_runtime::CodeBindingNamespace;

use super::*;

fn clock() -> HostGlobal {
    let namespace =
        CodeBindingNamespace::new("clock").function("$add", |arguments: Value| async move {
            let a = arguments["a"].as_i64().unwrap_or_default();
            let b = arguments["b"].as_i64().unwrap_or_default();
            Ok(json!(a + b))
        });
    HostGlobal::new(
        namespace,
        "declare const clock: {\n  /** Adds. */\n  $add(a: number, b: number): Promise<number>;\n};\n",
    )
    .preamble("{const g=globalThis.clock;const add=g.$add;g.$add=function $add(a,b){return add({a:a,b:b});};}")
}

#[tokio::test]
async fn a_program_calls_a_host_global_declared_after_the_tools() {
    let (mut registry, _events) = code_registry([Tool::new(
        "echo",
        "Echoes.",
        open_schema(),
        |args, _| async move { ToolResult::json(args) },
    )]);
    registry.global(clock());
    let result = run_code(
        &registry,
        "return await clock.$add(2, 3) + (await tools.echo({ n: 1 })).n;",
    )
    .await;
    assert_eq!(returned(&result), json!(6));

    let section = registry.sdk_section();
    let tools_at = section.find("echo(").expect("the tool is declared");
    let clock_at = section
        .find("declare const clock: {")
        .expect("the global is declared");
    assert!(tools_at < clock_at, "{section}");
    assert!(
        section.trim_end().ends_with("```"),
        "the block is closed: {section}"
    );
    assert!(
        registry
            .sdk_declarations()
            .contains("$add(a: number, b: number)")
    );
}
