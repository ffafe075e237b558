//! Code Mode at catalog scale: the captured `tools/list` results of 23
//! published MCP servers (333 tools) in one registry; discovery from inside
//! programs, disclosure modes, results and the output budget.

use coderun_code_mode::{ContentBlock, Disclosure, MEDIA_HANDLE, SdkStats, Tool, ToolResult};
use serde_json::{Value, json};
use std::path::Path;

use super::{code_registry, returned, run_code};

/// Every tool of the captured catalog, named `<server>_<tool>` and grouped
/// by server, each answering with its own name (as JSON text).
pub(crate) fn catalog_tools() -> Vec<Tool> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp/catalog");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the catalog folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| {
            path.extension().is_some_and(|e| e == "json")
                && !path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("package"))
        })
        .collect();
    files.sort();
    let mut tools = Vec::new();
    for file in files {
        let server = file
            .file_stem()
            .expect("a stem")
            .to_string_lossy()
            .replace('-', "_");
        let listed: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("readable")).expect("json");
        for tool in listed["tools"].as_array().expect("a tools array") {
            let name = format!("{server}_{}", tool["name"].as_str().expect("a name"));
            let answer = json!({ "called": name }).to_string();
            let mut made = Tool::new(
                name,
                tool["description"].as_str().unwrap_or_default(),
                tool["inputSchema"].clone(),
                move |args, _| {
                    let answer = answer.clone();
                    async move { ToolResult::text(format!("{answer}\n{args}")) }
                },
            )
            .group(server.clone());
            if let Some(schema) = tool.get("outputSchema") {
                made = made.output_schema(schema.clone());
            }
            tools.push(made);
        }
    }
    tools
}

#[test]
fn the_catalog_has_over_two_hundred_tools() {
    assert!(catalog_tools().len() >= 300, "{}", catalog_tools().len());
}

#[test]
fn auto_disclosure_fits_the_budget_with_the_catalog() {
    let (registry, _) = code_registry(catalog_tools());
    assert_eq!(registry.get_disclosure(), Disclosure::Auto);
    let assembly = registry.assemble().expect("assembles");
    let section = assembly.sdk_section.expect("a section");
    let description = format!("{}\n\n{section}", assembly.tools[0].description);
    assert!(
        description.len() <= 16 * 1024,
        "{} bytes",
        description.len()
    );
    assert!(section.contains("tools.$search("), "{section}");
    assert!(section.contains("### github (26 tools"), "{section}");
    assert!(section.contains("create_issue, "), "{section}");
    let stats: SdkStats = registry.sdk_stats();
    assert_eq!(stats.disclosure, Disclosure::Search);
    assert!(
        stats.full_bytes.expect("under the cap") > 100 * 1024,
        "{stats:?}"
    );
    assert_eq!(stats.search_bytes, section.len());
}

/// `full` disclosure is capped too: past `max_sdk_bytes` it gives way to
/// the search listing, and a catalog whose declarations would run to
/// 25 MB (500 tools of 50 KB of TypeScript each) is not rendered past the
/// cap.
#[test]
fn full_disclosure_gives_way_to_search_past_the_cap() {
    let (mut registry, _) = code_registry(catalog_tools());
    registry.disclosure(Disclosure::Full);
    assert_eq!(registry.get_max_sdk_bytes(), 1024 * 1024);
    assert_eq!(registry.sdk_stats().disclosure, Disclosure::Full);
    registry.max_sdk_bytes(64 * 1024);
    let stats = registry.sdk_stats();
    assert_eq!(stats.disclosure, Disclosure::Search, "{stats:?}");
    assert_eq!(stats.full_bytes, None, "{stats:?}");
    let section = registry.sdk_section();
    assert!(section.contains("tools.$search("), "{section}");
    assert!(
        section.len() <= registry.get_sdk_budget(),
        "{} bytes",
        section.len()
    );

    let properties: serde_json::Map<String, Value> = (0..1_000)
        .map(|i| {
            (
                format!("field_{i:04}_{}", "x".repeat(30)),
                json!({"type": "string"}),
            )
        })
        .collect();
    let schema = json!({"type": "object", "properties": properties});
    let huge = (0..500).map(|i| {
        Tool::new(format!("t{i}"), "", schema.clone(), |_, _| async {
            ToolResult::text("")
        })
    });
    let (mut huge, _) = code_registry(huge);
    huge.disclosure(Disclosure::Full);
    let section = huge.sdk_section();
    assert!(
        section.len() <= huge.get_sdk_budget(),
        "{} bytes",
        section.len()
    );
    assert_eq!(huge.sdk_stats().full_bytes, None);
}

#[tokio::test]
async fn a_program_searches_and_calls_the_found_tool_in_one_run() {
    let (registry, events) = code_registry(catalog_tools());
    let program = "const [hit] = await tools.$search('create an issue in a github repository', { limit: 3 });\n\
                   const answer = await tools[hit.name]({ owner: 'o', repo: 'r', title: 't' });\n\
                   return { name: hit.name, signature: hit.signature, group: hit.group, answer };";
    let value = returned(&run_code(&registry, program).await);
    assert_eq!(value["name"], "github_create_issue");
    assert_eq!(value["group"], "github");
    let signature = value["signature"].as_str().expect("a signature");
    assert!(
        signature.starts_with("github_create_issue(args: {\n"),
        "{signature}"
    );
    assert!(signature.contains("  title: string;"), "{signature}");
    assert!(signature.ends_with("}): Promise<string>;"), "{signature}");
    assert!(
        value["answer"]
            .as_str()
            .expect("text")
            .starts_with("{\"called\":\"github_create_issue\"}")
    );
    let events = events.take();
    assert_eq!(events.len(), 1, "discovery is not a tool call: {events:?}");
}

#[tokio::test]
async fn search_honours_its_limit_and_ranks_deterministically() {
    let (registry, _) = code_registry(catalog_tools());
    let program = "const a = await tools.$search('list pull requests', { limit: 2 });\n\
                   const b = await tools.$search('list pull requests', { limit: 2 });\n\
                   return [a.map(m => m.name), b.map(m => m.name), (await tools.$search('x y zzzz')).length];";
    let value = returned(&run_code(&registry, program).await);
    assert_eq!(value[0].as_array().map(Vec::len), Some(2));
    assert_eq!(value[0], value[1]);
    assert_eq!(value[0][0], "github_list_pull_requests");
    assert_eq!(value[2], 0);
}

#[tokio::test]
async fn search_arguments_are_checked() {
    let (registry, _) = code_registry(catalog_tools());
    let result = run_code(&registry, "await tools.$search('x', { limit: 0 })").await;
    assert!(result.is_error);
    assert!(
        result
            .text_content()
            .contains("tools.$search options.limit must be a positive integer (got 0)"),
        "{}",
        result.text_content()
    );
    let result = run_code(&registry, "await tools.$search(5)").await;
    assert!(
        result.text_content().contains("expects a query string"),
        "{}",
        result.text_content()
    );
}

#[tokio::test]
async fn describe_gives_one_declaration_or_the_closest_names() {
    let (registry, _) = code_registry(catalog_tools());
    let value = returned(
        &run_code(
            &registry,
            "return await tools.$describe('slack_slack_post_message')",
        )
        .await,
    );
    assert_eq!(value["name"], "slack_slack_post_message");
    assert!(
        value["signature"]
            .as_str()
            .is_some_and(|s| s.contains("channel_id: string;")),
        "{value}"
    );
    let result = run_code(
        &registry,
        "const a = 1;\nawait tools.$describe('slack_slack_post_mesage');",
    )
    .await;
    assert!(result.is_error);
    let text = result.text_content();
    assert!(text.contains("there is no tool named \"slack_slack_post_mesage\"; did you mean tools.slack_slack_post_message"), "{text}");
    assert!(text.contains("program.ts:2:"), "{text}");
}

#[tokio::test]
async fn an_unknown_tool_rejects_with_the_closest_names_at_the_programs_line() {
    let (registry, events) = code_registry(catalog_tools());
    let program = "const a = 1;\n\nawait tools.github_create_isue({ owner: 'o' });";
    let result = run_code(&registry, program).await;
    assert!(result.is_error);
    let text = result.text_content();
    assert!(
        text.contains(
            "Error: tools.github_create_isue is not a tool; did you mean tools.github_create_issue"
        ),
        "{text}"
    );
    assert!(text.contains("program.ts:3:"), "{text}");
    assert!(!text.contains("not a function"), "{text}");
    assert!(events.take().is_empty());
    // Absent names stay absent where a plain object would say so.
    let value = returned(
        &run_code(
            &registry,
            "return [typeof tools.then, JSON.stringify({ t: 1 }), 'github_create_issue' in tools]",
        )
        .await,
    );
    assert_eq!(value, json!(["undefined", "{\"t\":1}", true]));
}

#[tokio::test]
async fn an_uncaught_tool_error_points_at_the_programs_line() {
    let failing = Tool::new(
        "fails",
        "Always fails.",
        json!({"type": "object"}),
        |_, _| async { ToolResult::error("the disk is full") },
    );
    let (registry, _) = code_registry([failing]);
    let result = run_code(
        &registry,
        "const x = 1;\nconst y = 2;\n  await tools.fails({});",
    )
    .await;
    let text = result.text_content();
    assert!(
        text.contains("Error: the disk is full\n    at <anonymous> (program.ts:3:"),
        "{text}"
    );
}

#[test]
fn disclosure_modes_choose_what_the_section_declares() {
    let small = || {
        vec![Tool::new(
            "greet",
            "Greet someone.",
            json!({"type": "object"}),
            |_, _| async { ToolResult::text("hi") },
        )]
    };
    let (mut registry, _) = code_registry(small());
    let auto = registry.sdk_section();
    assert!(auto.contains("  greet(args?: {"), "{auto}");
    assert!(auto.contains("$search(query: string"), "{auto}");
    assert_eq!(registry.sdk_stats().disclosure, Disclosure::Full);
    registry.disclosure(Disclosure::Search);
    let search = registry.sdk_section();
    assert!(!search.contains("greet(args"), "{search}");
    assert!(search.contains("- greet: Greet someone."), "{search}");
    assert!(
        search.contains("[tool: string]: (...args: any[]) => Promise<any>;\n};"),
        "{search}"
    );
    assert!(
        auto.contains("Promise<string>;\n  /** A tool by name"),
        "{auto}"
    );
    let (mut big, _) = code_registry(catalog_tools());
    big.disclosure(Disclosure::Full);
    assert!(big.sdk_section().len() > 100 * 1024);
    big.disclosure(Disclosure::Auto).sdk_budget(1024 * 1024);
    assert_eq!(big.sdk_stats().disclosure, Disclosure::Full);
}

#[test]
fn the_sdk_says_arguments_must_be_json_serialisable() {
    let (registry, _) = code_registry(catalog_tools());
    assert!(
        registry
            .sdk_section()
            .contains("Arguments must be JSON-serialisable")
    );
}

/// A tool returning `content`, optionally declaring JSON text or an output schema.
fn content_tool(name: &str, content: Vec<ContentBlock>) -> Tool {
    Tool::new(name, "", json!({"type": "object"}), move |_, _| {
        let content = content.clone();
        async move {
            let mut result = ToolResult::text("");
            result.content = content;
            result
        }
    })
}

fn text(text: &str) -> ContentBlock {
    ContentBlock::Text { text: text.into() }
}

#[tokio::test]
async fn results_are_typed_by_what_the_tool_declares() {
    let (registry, _) = code_registry([
        content_tool("plain", vec![text("{\"a\":1}")]),
        content_tool("json", vec![text("{\"a\":1}")]).text_is_json(true),
        content_tool("json_but_not", vec![text("not json")]).text_is_json(true),
        content_tool("typed", vec![text("{\"b\":2}")]).output_schema(json!({"type": "object"})),
        content_tool("many", vec![text("one"), text("two")]),
    ]);
    let program = "return [await tools.plain({}), await tools.json({}), await tools.json_but_not({}), \
                   await tools.typed({}), await tools.many({})]";
    let value = returned(&run_code(&registry, program).await);
    assert_eq!(
        value,
        json!([
            "{\"a\":1}",
            {"a": 1},
            "not json",
            {"b": 2},
            [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]
        ])
    );
}

#[tokio::test]
async fn an_image_stays_on_the_host_as_a_handle_and_comes_back_as_a_block() {
    let image = ContentBlock::Image {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
    };
    let (registry, _) = code_registry([
        content_tool("shot", vec![text("a screenshot"), image.clone()]),
        content_tool("unused", vec![image.clone()]),
    ]);
    let program = "const [caption, picture] = await tools.shot({});\n\
                   await tools.unused({});\n\
                   console.log(caption.text);\n\
                   return picture;";
    let result = run_code(&registry, program).await;
    let value = returned(&result);
    assert_eq!(value["type"], "image");
    assert_eq!(value["mimeType"], "image/png");
    assert_eq!(value["handle"], format!("{MEDIA_HANDLE}1"));
    assert!(
        !result.text_content().contains("iVBORw0KGgo"),
        "the bytes stay off the text"
    );
    let images: Vec<&ContentBlock> = result
        .content
        .iter()
        .filter(|block| matches!(block, ContentBlock::Image { .. }))
        .collect();
    assert_eq!(images, [&image], "only the returned image is attached");
}

#[tokio::test]
async fn sixty_large_results_stay_within_one_output_budget_with_one_marker() {
    let big = Tool::new(
        "big",
        "100 KB of text.",
        json!({"type": "object"}),
        |_, _| async { ToolResult::text("x".repeat(100 * 1024)) },
    );
    let (registry, _) = code_registry([big]);
    let program = "const all = [];\n\
                   for (let i = 0; i < 60; i++) { const r = await tools.big({}); console.log(r); all.push(r); }\n\
                   return all;";
    let result = run_code(&registry, program).await;
    let text = result.text_content();
    let budget = registry.get_max_output_bytes();
    assert_eq!(budget, 24 * 1024);
    let whole = serde_json::to_string(&result.content).expect("json").len()
        + result
            .structured
            .as_ref()
            .map_or(0, |s| s.to_string().len());
    assert!(text.len() <= budget, "{} bytes", text.len());
    assert!(whole <= budget + 256, "{whole} bytes");
    assert_eq!(
        text.matches("output cut").count(),
        1,
        "{}",
        &text[text.len() - 400..]
    );
    assert!(
        text.contains("max_output_bytes"),
        "the marker names the limit"
    );
    let trace = result.trace.expect("a trace");
    assert_eq!(trace.calls.len(), 60);
    assert!(trace.output_truncated);
}

#[tokio::test]
async fn the_trace_lists_the_calls_with_durations_and_the_fuel() {
    let slow = Tool::new(
        "slow",
        "",
        json!({"type": "object"}),
        |args, _| async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            ToolResult::text(args.to_string())
        },
    )
    .group("g");
    let (registry, _) = code_registry([slow]);
    let program = "for (const n of [1, 2, 3]) await tools.slow({ n });\nreturn 1";
    let result = run_code(&registry, program).await;
    let trace = result.trace.expect("a trace");
    assert_eq!(trace.call_id, "call_7");
    assert_eq!(trace.outcome, "ok");
    let names: Vec<&str> = trace
        .calls
        .iter()
        .map(|call| call.sub_call_id.as_str())
        .collect();
    assert_eq!(names, ["call_7:code:1", "call_7:code:2", "call_7:code:3"]);
    for call in &trace.calls {
        assert_eq!(call.name, "slow");
        assert_eq!(call.group.as_deref(), Some("g"));
        assert!(
            call.duration >= std::time::Duration::from_millis(20),
            "{call:?}"
        );
        assert_eq!(call.bytes_in, "{\"n\":1}".len());
        assert_eq!(call.outcome, "ok");
    }
    assert!(trace.fuel_consumed > 0);
    assert!(trace.peak_memory_bytes > 0);
    assert!(trace.wall_time >= std::time::Duration::from_millis(60));
    let json = serde_json::to_value(&trace).expect("serialises");
    assert!(
        json["calls"][0]["duration_ms"]
            .as_f64()
            .is_some_and(|ms| ms >= 20.0),
        "{json}"
    );
}
