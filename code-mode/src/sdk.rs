//! What the model is told about Code Mode: the `run_code` tool, and the SDK
//! prompt section that declares a list of tools as TypeScript methods of the
//! `tools` global.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::disclosure::listing;
use crate::schema_ts::{args_are_optional, schema_to_ts};
use crate::tool::Tool;
use crate::ts_syntax::{INDENT, jsdoc, member_access, property_key};

/// The name of the code tool.
pub const RUN_CODE: &str = "run_code";

/// The global a `run_code` program reaches the tools through.
pub const TOOLS_GLOBAL: &str = "tools";

/// The description of the `run_code` wire tool.
pub(crate) const RUN_CODE_DESCRIPTION: &str = "Run a TypeScript program that calls the tools \
declared in the \"Tools as TypeScript\" section as `await tools.name({ ... })`. The program is \
the body of an async function (top-level `await` and `return` work). Only what it prints with \
console.log and the value it returns come back as this tool's result, so use it to chain tool \
calls and to filter or summarise their results before they reach you. Inside a program, \
`tools.$search(query)` finds tools by what they do.";

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

/// The declarations of the discovery functions, and of what they return,
/// as they open the `tools` type (one indentation level).
const DISCOVERY_METHODS: &str = "  /** Find tools by what they do: the best matches first (5 unless `limit` says), each with its full TypeScript signature. */
  $search(query: string, options?: { limit?: number }): Promise<ToolMatch[]>;
  /** One tool's TypeScript signature and description, by name; rejects with the closest names for a name that is not a tool. */
  $describe(name: string): Promise<ToolMatch>;
";

/// The type `$search` and `$describe` resolve with.
const TOOL_MATCH: &str = "/** A tool found by `tools.$search` or described by `tools.$describe`. */
interface ToolMatch {
  /** The tool's name: call it as `tools[name](args)`. */
  name: string;
  /** What the tool does. */
  description: string;
  /** Its TypeScript declaration: `name(args: {...}): Promise<...>`. */
  signature: string;
  /** The server (group) it belongs to, when it has one. */
  group?: string;
}
";

/// The last member of the `tools` type: any name as a tool of unknown
/// shape, so that a program can call what `$search` found by its name
/// (`tools[hit.name](...)`); the declared tools keep their types.
const ANY_TOOL: &str =
    "  /** A tool by name, as `$search` found it: its signature says what it takes. */
  [tool: string]: (...args: any[]) => Promise<any>;
";

/// Whether the SDK declares every tool, or only the discovery functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Declared {
    /// Every tool's declaration.
    Full,
    /// The discovery functions and a listing of names.
    Search,
}

/// The `ToolMatch` type and the `declare const tools` block: every tool
/// (after the discovery functions), or in search mode the discovery
/// functions and an index signature.
pub(crate) fn render_declarations(tools: &[Tool], declared: Declared) -> String {
    render_declarations_within(tools, declared, usize::MAX).unwrap_or_default()
}

/// [`render_declarations`], or `None` once they pass `limit` bytes: the
/// rendering stops at the first tool past it, so that a catalog whose
/// declarations would run to hundreds of megabytes costs the host no more
/// than the limit and one tool's signature.
pub(crate) fn render_declarations_within(
    tools: &[Tool],
    declared: Declared,
    limit: usize,
) -> Option<String> {
    let mut out = String::from(TOOL_MATCH);
    let _ = writeln!(out, "declare const {TOOLS_GLOBAL}: {{");
    out.push_str(DISCOVERY_METHODS);
    if declared == Declared::Full {
        let mut sorted: Vec<&Tool> = tools.iter().collect();
        sorted.sort_by(|a, b| a.name().cmp(b.name()));
        for tool in sorted {
            out.push_str(&render_tool(&signature(tool)));
            out.push('\n');
            if out.len() > limit {
                return None;
            }
        }
    }
    out.push_str(ANY_TOOL);
    out.push_str("};");
    (out.len() <= limit).then_some(out)
}

/// The SDK prompt section: instructions for writing a program, then the
/// fenced declarations of `tools` (all of them, or in search mode the
/// discovery functions after a listing of the tools' names and summaries
/// cut to `listing_budget` bytes).
pub(crate) fn render_section(
    tools: &[Tool],
    declared: Declared,
    listing_budget: usize,
    max_output_bytes: usize,
) -> String {
    render_section_within(
        tools,
        declared,
        listing_budget,
        max_output_bytes,
        usize::MAX,
    )
    .unwrap_or_default()
}

/// [`render_section`], or `None` once it passes `limit` bytes (see
/// [`render_declarations_within`]).
pub(crate) fn render_section_within(
    tools: &[Tool],
    declared: Declared,
    listing_budget: usize,
    max_output_bytes: usize,
    limit: usize,
) -> Option<String> {
    let mut out = String::from(
        "## Tools as TypeScript\n\
         \n\
         The `run_code` tool runs a TypeScript program. The program is the body of an async \
         function: use top-level `await`, and `return` a value to hand it back. The tools \
         are async functions on the global `tools` object: call each with one \
         argument object, as `await tools.name({ ... })` (or `tools[\"my-tool\"]({ ... })` for a \
         name that is not an identifier).\n\
         \n",
    );
    if declared == Declared::Search {
        let _ = write!(
            out,
            "There are {} tools, listed below by name; their declarations are not. Find what you \
             need from inside the program and call it in the same program: `const [hit] = await \
             tools.$search(\"read a file\", {{ limit: 3 }})` gives the best matches, each with its \
             `name` and full TypeScript `signature`; `await tools.$describe(name)` gives one.\n\n",
            tools.len()
        );
    }
    out.push_str(
        "- A call resolves with the tool's value: its typed result when the declaration gives \
         one, else its text (or its JSON, parsed, when the tool says its text is JSON); several \
         pieces of content come as an array of `{ type, ... }` blocks. Images, audio and files \
         come as handles (`{ type: \"image\", mimeType, handle }`): return or print a handle to \
         pass the file on.\n\
         - Arguments must be JSON-serialisable (objects, arrays, strings, numbers, booleans, \
         null); a `BigInt`, a function or a cycle rejects the call before it is made.\n\
         - A failed call rejects with an `Error` whose message is the tool's error text; use \
         `try`/`catch` to recover from it. A name that is not a tool rejects with the closest \
         names.\n\
         - `tools.$search(query, { limit })` and `tools.$describe(name)` find tools by what \
         they do.\n",
    );
    let _ = writeln!(
        out,
        "- Only what the program prints (`console.log`) or returns comes back to you, at most \
         {max_output_bytes} bytes of it: filter, slice or summarise results in the program \
         instead of printing them whole."
    );
    out.push_str("- ");
    out.push_str(&concurrency_note(tools));
    out.push('\n');
    if declared == Declared::Search {
        out.push('\n');
        out.push_str(&listing(tools, listing_budget));
    }
    out.push_str("\n```ts\n");
    let declarations =
        render_declarations_within(tools, declared, limit.saturating_sub(out.len() + 5))?;
    out.push_str(&declarations);
    out.push_str("\n```\n");
    (out.len() <= limit).then_some(out)
}

/// `tool`'s declaration as `$search` gives it: its method signature as in
/// the SDK, without the JSDoc line and one level less indented.
pub(crate) fn method_signature(tool: &Tool) -> String {
    let sig = signature(tool);
    let rendered = render_tool(&ToolSignature {
        description: "",
        ..sig
    });
    rendered
        .lines()
        .map(|line| line.strip_prefix(INDENT).unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// How the SDK shows `tool`.
pub(crate) fn signature(tool: &Tool) -> ToolSignature<'_> {
    ToolSignature {
        name: tool.name(),
        description: tool.description(),
        input_schema: tool.input_schema(),
        output_schema: tool.get_output_schema(),
    }
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
            let _ = write!(note, "`{}`", member_access(TOOLS_GLOBAL, name));
        }
        note.push_str(" may run at the same time as each other when started together");
    }
    note.push('.');
    note
}

/// One tool as the SDK shows it.
#[derive(Debug, Clone, Copy)]
pub struct ToolSignature<'a> {
    /// The tool's name: the method name on `tools` (quoted when it is not an identifier).
    pub name: &'a str,
    /// What the tool does; shown as a one-line JSDoc comment above the method.
    pub description: &'a str,
    /// JSON Schema of the tool's arguments object.
    pub input_schema: &'a Value,
    /// JSON Schema of the tool's structured result, if it declares one.
    pub output_schema: Option<&'a Value>,
}

/// Renders the full SDK declaration block for a set of tools:
/// `declare const tools: {\n  /** desc */\n  name(args: {...}): Promise<Out>;\n ...\n};`
///
/// Tools are sorted by name (byte order; equal names by their rendering), so
/// input order never changes the output. Tools without an output schema
/// resolve to `Promise<string>` (the tool's text); tools with one get the
/// typed result. The result has no trailing newline.
pub fn render_sdk(tools: &[ToolSignature<'_>]) -> String {
    let mut methods: Vec<(&str, String)> = tools.iter().map(|t| (t.name, render_tool(t))).collect();
    methods.sort();
    let mut out = format!("declare const {TOOLS_GLOBAL}: {{\n");
    for (_, method) in &methods {
        out.push_str(method);
        out.push('\n');
    }
    out.push_str("};");
    out
}

/// Renders one tool as a method signature inside the `tools` type (at
/// indentation level 1), with its JSDoc line if it has a description; no
/// trailing newline.
///
/// The parameter is `args: T`, with `T` the input schema's type. It is
/// optional (`args?: T`) when the input schema plainly accepts `{}`: it is
/// `true`, junk that renders as `unknown`, or an object schema (`type` absent
/// or including `"object"`) with no `enum` or `const`, whose `required` names
/// nothing and whose `minProperties` is 0 or absent, whose local `$ref` and
/// every `allOf` member qualify too, and of whose `anyOf` and `oneOf` at least
/// one member qualifies. So a tool with no properties, or with only optional
/// ones, can be called as `tools.name()`; a host calling a tool whose `args`
/// were omitted passes `{}`.
pub fn render_tool(tool: &ToolSignature<'_>) -> String {
    let mut out = String::new();
    if let Some(doc) = jsdoc(tool.description) {
        out.push_str(INDENT);
        out.push_str(&doc);
        out.push('\n');
    }
    let args = schema_to_ts(tool.input_schema, 1);
    let optional = if args_are_optional(tool.input_schema) {
        "?"
    } else {
        ""
    };
    let result = tool
        .output_schema
        .map_or_else(|| "string".to_owned(), |s| schema_to_ts(s, 1));
    out.push_str(INDENT);
    out.push_str(&property_key(tool.name));
    out.push_str("(args");
    out.push_str(optional);
    out.push_str(": ");
    out.push_str(&args);
    out.push_str("): Promise<");
    out.push_str(&result);
    out.push_str(">;");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolResult;

    fn tool(name: &str, safe: bool) -> Tool {
        Tool::new(name, "", json!({}), |_, _| async { ToolResult::text("") }).concurrency_safe(safe)
    }

    #[test]
    fn sdk_sorts_and_quotes() {
        let schema =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        let tools = [
            ToolSignature {
                name: "zeta",
                description: "",
                input_schema: &schema,
                output_schema: None,
            },
            ToolSignature {
                name: "my-tool",
                description: "Does\nthings",
                input_schema: &schema,
                output_schema: None,
            },
        ];
        let out = render_sdk(&tools);
        assert_eq!(
            out,
            "declare const tools: {\n  /** Does things */\n  \"my-tool\"(args: {\n    a: string;\n  }): Promise<string>;\n  zeta(args: {\n    a: string;\n  }): Promise<string>;\n};"
        );
        let reversed = [tools[1], tools[0]];
        assert_eq!(render_sdk(&reversed), out);
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
