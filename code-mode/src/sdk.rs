//! What the model is told about Code Mode: the `run_code` tool and the SDK
//! prompt section that declares the other tools.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::registry::ToolRegistry;
use crate::schema_ts::is_identifier;
use crate::tool::Tool;

/// The name of the code tool.
pub const RUN_CODE: &str = "run_code";

/// The description of the `run_code` wire tool.
pub(crate) const RUN_CODE_DESCRIPTION: &str = "Run a TypeScript program that calls the tools \
declared in the \"Tools as TypeScript\" section as `await tools.name({ ... })`. The program is \
the body of an async function (top-level `await` and `return` work). Only what it prints with \
console.log and the value it returns come back as this tool's result, so use it to chain tool \
calls and to filter or summarise their results before they reach you.";

/// The input schema of the `run_code` wire tool.
pub(crate) fn run_code_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "The TypeScript program: the body of an async function."
            }
        },
        "required": ["code"],
        "additionalProperties": false
    })
}

/// How the program reaches the tool `name`: `.name`, or `["my-tool"]` for a
/// name that is not an identifier.
pub(crate) fn member_access(name: &str) -> String {
    if is_identifier(name) {
        format!(".{name}")
    } else {
        // A JSON string is a valid JavaScript string literal.
        format!("[{}]", Value::String(name.to_owned()))
    }
}

/// The SDK prompt section: instructions for writing a program, then the
/// fenced declarations of every tool of `registry`.
pub(crate) fn render_section(registry: &ToolRegistry) -> String {
    let mut out = String::from(
        "## Tools as TypeScript\n\
         \n\
         The `run_code` tool runs a TypeScript program. The program is the body of an async \
         function: use top-level `await`, and `return` a value to hand it back. The tools \
         declared below are async functions on the global `tools` object: call each with one \
         argument object, as `await tools.name({ ... })` (or `tools[\"my-tool\"]({ ... })` for a \
         name that is not an identifier).\n\
         \n\
         - A call resolves with the tool's text, or with its typed result when the declaration \
         gives one.\n\
         - A failed call rejects with an `Error` whose message is the tool's error text; use \
         `try`/`catch` to recover from it.\n\
         - Only what the program prints (`console.log`) or returns comes back to you; tool \
         results it neither prints nor returns are not shown.\n",
    );
    out.push_str("- ");
    out.push_str(&concurrency_note(registry.tools()));
    out.push_str("\n\n```ts\n");
    out.push_str(&registry.sdk_declarations());
    out.push_str("\n```\n");
    out
}

/// Whether calls run one at a time, said for these tools.
fn concurrency_note(tools: &[Tool]) -> String {
    let mut safe: Vec<&str> = tools
        .iter()
        .filter(|tool| tool.is_concurrency_safe())
        .map(Tool::name)
        .collect();
    safe.sort_unstable();
    if !safe.is_empty() && safe.len() == tools.len() {
        return "Tool calls may run at the same time: start several and `await \
                Promise.all([...])` to overlap them."
            .to_owned();
    }
    let mut note = String::from(
        "Tool calls run one at a time, in turn, even when started together with `Promise.all`",
    );
    if !safe.is_empty() {
        note.push_str("; the exception: calls to ");
        for (i, name) in safe.iter().enumerate() {
            if i > 0 {
                note.push_str(", ");
            }
            let _ = write!(note, "`tools{}`", member_access(name));
        }
        note.push_str(" may run at the same time as each other when started together");
    }
    note.push('.');
    note
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolResult;

    fn tool(name: &str, safe: bool) -> Tool {
        Tool::new(name, "", json!({}), |_, _| async { ToolResult::text("") }).concurrency_safe(safe)
    }

    #[test]
    fn member_access_quotes_non_identifiers() {
        assert_eq!(member_access("read"), ".read");
        assert_eq!(member_access("my-tool"), "[\"my-tool\"]");
        assert_eq!(member_access("delete"), "[\"delete\"]");
    }

    #[test]
    fn the_concurrency_note_names_the_safe_tools_in_order() {
        let note = concurrency_note(&[tool("z", true), tool("a-b", true), tool("m", false)]);
        assert_eq!(
            note,
            "Tool calls run one at a time, in turn, even when started together with \
             `Promise.all`; the exception: calls to `tools[\"a-b\"]`, `tools.z` may run at the \
             same time as each other when started together."
        );
        assert!(concurrency_note(&[tool("m", false)]).starts_with("Tool calls run one at a time"));
        assert!(concurrency_note(&[tool("m", true)]).starts_with("Tool calls may run"));
    }
}
