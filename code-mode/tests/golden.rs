//! Golden tests: each `tests/golden/NAME.json` renders to `NAME.d.ts`, and each
//! captured MCP server in `tests/data/mcp/NAME.json` renders to
//! `tests/golden/mcp_NAME.d.ts`. With `CODERUN_BLESS=1` the expected files are
//! rewritten instead of compared.

mod common;

use std::fs;
use std::path::Path;

use coderun_code_mode::{ToolSignature, render_sdk, schema_to_ts};
use common::{Rng, golden_dir, mcp_dir, read_json, render_case, render_mcp};
use serde_json::Value;

fn blessing() -> bool {
    std::env::var("CODERUN_BLESS").is_ok_and(|v| v == "1")
}

/// Compares `actual` with the file at `expected` (or rewrites it when
/// blessing); returns a description of the mismatch, if any.
fn check(expected: &Path, actual: &str) -> Option<String> {
    if blessing() {
        fs::write(expected, actual)
            .unwrap_or_else(|e| panic!("writing {}: {e}", expected.display()));
        return None;
    }
    let Ok(want) = fs::read_to_string(expected) else {
        return Some(format!(
            "{}: missing (run with CODERUN_BLESS=1 to create it)",
            expected.display()
        ));
    };
    if want == actual {
        return None;
    }
    let line = want
        .lines()
        .zip(actual.lines())
        .position(|(w, a)| w != a)
        .unwrap_or_else(|| want.lines().count().min(actual.lines().count()));
    Some(format!(
        "{}: differs from line {}:\n  expected: {:?}\n  actual:   {:?}\n--- actual output ---\n{actual}",
        expected.display(),
        line + 1,
        want.lines().nth(line).unwrap_or("<end of file>"),
        actual.lines().nth(line).unwrap_or("<end of file>"),
    ))
}

fn cases() -> Vec<(String, Value)> {
    common::files_with_suffix(&golden_dir(), ".json")
        .iter()
        .map(|path| (common::stem(path, ".json"), read_json(path)))
        .collect()
}

fn mcp_servers() -> Vec<(String, Value)> {
    common::files_with_suffix(&mcp_dir(), ".json")
        .iter()
        .map(|path| (common::stem(path, ".json"), read_json(path)))
        .collect()
}

#[test]
fn golden_cases_render_as_recorded() {
    let cases = cases();
    assert!(cases.len() >= 40, "only {} golden cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(name, input)| {
            let rendered = render_case(name, input);
            assert!(
                !common::mentions_any(&rendered),
                "{name} renders `any`:\n{rendered}"
            );
            check(&golden_dir().join(format!("{name}.d.ts")), &rendered)
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} golden case(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn mcp_servers_render_as_recorded() {
    let servers = mcp_servers();
    assert!(
        servers.len() >= 3,
        "only {} captured MCP servers",
        servers.len()
    );
    let failures: Vec<String> = servers
        .iter()
        .filter_map(|(name, doc)| {
            let tools = doc
                .get("tools")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            assert!(tools > 0, "{name}: no tools captured");
            let rendered = render_mcp(doc);
            assert!(
                !common::mentions_any(&rendered),
                "{name} renders `any`:\n{rendered}"
            );
            check(&golden_dir().join(format!("mcp_{name}.d.ts")), &rendered)
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} MCP golden file(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_golden_output_has_an_input() {
    let cases: Vec<String> = cases().into_iter().map(|(name, _)| name).collect();
    let servers: Vec<String> = mcp_servers()
        .into_iter()
        .map(|(name, _)| format!("mcp_{name}"))
        .collect();
    for path in common::files_with_suffix(&golden_dir(), ".d.ts") {
        let name = common::stem(&path, ".d.ts");
        assert!(
            cases.contains(&name) || servers.contains(&name),
            "{} has no input (no {name}.json, nor an MCP capture)",
            path.display()
        );
    }
}

#[test]
fn rendering_twice_is_byte_identical() {
    for (name, input) in cases() {
        assert_eq!(
            render_case(&name, &input),
            render_case(&name, &input),
            "{name}"
        );
        for indent in [0, 1, 3] {
            assert_eq!(
                schema_to_ts(&input, indent),
                schema_to_ts(&input, indent),
                "{name}"
            );
        }
    }
    for (name, doc) in mcp_servers() {
        assert_eq!(render_mcp(&doc), render_mcp(&doc), "{name}");
    }
}

#[test]
fn tool_order_does_not_change_the_sdk() {
    let mut rng = Rng::new(7);
    let mut sets: Vec<(String, Vec<ToolSignature<'_>>)> = Vec::new();
    let cases = cases();
    let servers = mcp_servers();
    for (name, input) in &cases {
        if name.starts_with("sdk_") {
            sets.push((
                name.clone(),
                common::tools(input, "input_schema", "output_schema"),
            ));
        }
    }
    for (name, doc) in &servers {
        sets.push((
            format!("mcp_{name}"),
            common::tools(doc, "inputSchema", "outputSchema"),
        ));
    }
    // All the tools at once, duplicate names and all.
    let everything: Vec<ToolSignature<'_>> =
        sets.iter().flat_map(|(_, t)| t.iter().copied()).collect();
    sets.push(("all".to_owned(), everything));
    for (name, tools) in &sets {
        let expected = render_sdk(tools);
        let mut reversed = tools.clone();
        reversed.reverse();
        assert_eq!(render_sdk(&reversed), expected, "{name}: reversed");
        for round in 0..5 {
            let shuffled: Vec<ToolSignature<'_>> = rng
                .permutation(tools.len())
                .into_iter()
                .map(|i| tools[i])
                .collect();
            assert_eq!(render_sdk(&shuffled), expected, "{name}: shuffle {round}");
        }
    }
}

#[test]
fn random_schemas_render_without_any() {
    let mut rng = Rng::new(1);
    for i in 0..3_000 {
        let doc = common::random_document(&mut rng);
        let out = schema_to_ts(&doc, 0);
        assert!(!common::mentions_any(&out), "case {i}: {doc}\n{out}");
        assert_eq!(out, schema_to_ts(&doc, 0), "case {i}");
    }
}
