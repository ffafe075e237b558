//! Type-checks every golden `.d.ts` (and a batch of renderings of random
//! schemas) with `tsc --noEmit --strict`.
//!
//! The compiler is taken from the path in `CODERUN_TSC`. Without it the test
//! is skipped with a note, except under CI (`CI` set), where it fails.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use coderun_code_mode::{
    Disclosure, Tool, ToolRegistry, ToolResult, ToolSignature, render_sdk, schema_to_ts,
};
use common::Rng;

/// The compiler to run, or `None` to skip.
fn tsc() -> Option<PathBuf> {
    let configured = std::env::var_os("CODERUN_TSC")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    let in_ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
    match configured {
        Some(path) if path.is_file() => Some(path),
        Some(path) => {
            assert!(
                !in_ci,
                "CODERUN_TSC={} is not a file; CI must type-check the golden files",
                path.display()
            );
            eprintln!(
                "note: skipping the tsc check: CODERUN_TSC={} is not a file",
                path.display()
            );
            None
        }
        None => {
            assert!(
                !in_ci,
                "CI is set but CODERUN_TSC is not: CI must type-check the golden files"
            );
            eprintln!("note: skipping the tsc check: set CODERUN_TSC to a tsc binary to run it");
            None
        }
    }
}

/// Renderings of random schemas and tool sets, as one module.
fn random_renderings() -> String {
    let mut rng = Rng::new(2024);
    let mut out = String::new();
    for i in 0..400 {
        let doc = common::random_document(&mut rng);
        let indent = rng.below(3);
        let _ = writeln!(out, "type R{i} = {};", schema_to_ts(&doc, indent));
    }
    let docs: Vec<(String, serde_json::Value, serde_json::Value)> = (0..60)
        .map(|i| {
            let name = (*rng.pick(&["t", "my-tool", "delete", "x y", "t"])).to_owned()
                + &(i % 7).to_string();
            (
                name,
                common::random_document(&mut rng),
                common::random_document(&mut rng),
            )
        })
        .collect();
    for (i, chunk) in docs.chunks(6).enumerate() {
        let tools: Vec<ToolSignature<'_>> = chunk
            .iter()
            .enumerate()
            .map(|(j, (name, input, output))| ToolSignature {
                name,
                description: "random */ tool\nwith lines",
                input_schema: input,
                output_schema: (j % 2 == 0).then_some(output),
            })
            .collect();
        let _ = writeln!(out, "namespace S{i} {{\n{}\n}}", render_sdk(&tools));
    }
    out.push_str("export {};\n");
    out
}

#[test]
fn golden_files_typecheck_under_strict() {
    let Some(tsc) = tsc() else {
        return;
    };
    let mut files = common::files_with_suffix(&common::golden_dir(), ".d.ts");
    assert!(files.len() >= 43, "only {} golden .d.ts files", files.len());
    assert!(
        files
            .iter()
            .filter(|f| common::stem(f, ".d.ts").starts_with("mcp_"))
            .count()
            >= 3,
        "MCP golden files are missing"
    );

    let scratch = std::env::temp_dir().join(format!("code-mode-tsc-{}", std::process::id()));
    fs::create_dir_all(&scratch).expect("scratch directory");
    let random = scratch.join("random.ts");
    fs::write(&random, random_renderings()).expect("writing random.ts");
    files.push(random);

    typecheck(&tsc, &scratch, &files);
    eprintln!("tsc accepted {} files", files.len());
}

/// Runs `tsc --noEmit --strict` over `files` with a tsconfig written to
/// `scratch`, which is removed when they pass and kept for a look when not.
fn typecheck(tsc: &Path, scratch: &Path, files: &[PathBuf]) {
    // A tsconfig so that no ambient `@types` from surrounding folders sneak in.
    let config = serde_json::json!({
        "compilerOptions": {
            "strict": true,
            "noEmit": true,
            "skipLibCheck": false,
            "target": "es2022",
            "lib": ["es2022"],
            "types": [],
        },
        "files": files,
    });
    let config_path = scratch.join("tsconfig.json");
    fs::write(&config_path, config.to_string()).expect("writing tsconfig.json");

    let output = Command::new(tsc)
        .arg("--project")
        .arg(&config_path)
        .args(["--noEmit", "--strict", "--pretty", "false"])
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", tsc.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        let _ = fs::remove_dir_all(scratch);
    }
    assert!(
        output.status.success(),
        "tsc rejected the rendered TypeScript ({}); files kept in {}:\n{stdout}{stderr}",
        output.status,
        scratch.display()
    );
}

/// A registry shaped like the one of `examples/code_agent.rs`.
fn agent_registry() -> ToolRegistry {
    let dir = serde_json::json!({
        "type": "object",
        "properties": {"dir": {"type": "string", "description": "Directory, relative to the workspace; default \".\"."}}
    });
    let path = serde_json::json!({
        "type": "object",
        "properties": {"path": {"type": "string", "description": "File path, relative to the workspace."}},
        "required": ["path"]
    });
    let text = serde_json::json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"]
    });
    let counts = serde_json::json!({
        "type": "object",
        "properties": {
            "words": {"type": "integer"},
            "lines": {"type": "integer"},
            "top": {"type": "array", "items": {"type": "object", "properties": {"word": {"type": "string"}, "count": {"type": "integer"}}, "required": ["word", "count"]}}
        },
        "required": ["words", "lines", "top"]
    });
    let noop = |_, _| async { ToolResult::text("") };
    let mut registry = ToolRegistry::new();
    for tool in [
        Tool::new("list_files", "List the files in a directory.", dir, noop),
        Tool::new("read_file", "Read a text file.", path.clone(), noop),
        Tool::new("word_count", "Count words and lines.", text, noop)
            .output_schema(counts)
            .concurrency_safe(true),
        Tool::new("delete_file", "Delete a file (always refused).", path, noop),
    ] {
        registry.register(tool).expect("unique names");
    }
    registry
}

#[test]
fn a_registry_sdk_and_a_program_against_it_typecheck_under_strict() {
    let Some(tsc) = tsc() else {
        return;
    };
    let scratch = std::env::temp_dir().join(format!("code-mode-tsc-sdk-{}", std::process::id()));
    fs::create_dir_all(&scratch).expect("scratch directory");
    // `lib: es2022` has no `console`; the sandbox provides one.
    let program = r#"
declare const console: { log(...args: unknown[]): void };
async function program(): Promise<unknown> {
  const listing = await tools.list_files();
  const names = listing.split("\n").filter((n) => n.endsWith(".txt"));
  const counts = await Promise.all(
    names.map(async (path) => ({ path, ...(await tools.word_count({ text: await tools.read_file({ path }) })) })),
  );
  try {
    await tools.delete_file({ path: names[0] });
  } catch (e) {
    console.log((e as Error).message);
  }
  return counts.map((c) => `${c.path}: ${c.words} words, top ${c.top[0]?.word}`);
}
"#;
    let source = format!(
        "{}\n{program}\nexport {{}};\n",
        agent_registry().sdk_declarations()
    );
    let file = scratch.join("sdk_program.ts");
    fs::write(&file, source).expect("writing sdk_program.ts");
    typecheck(&tsc, &scratch, &[file]);
}

/// The captured catalog of 23 published servers (333 tools), grouped.
fn catalog_registry() -> ToolRegistry {
    let dir = common::mcp_dir().join("catalog");
    let mut registry = ToolRegistry::new();
    let mut files = common::files_with_suffix(&dir, ".json");
    files.retain(|f| !common::stem(f, ".json").starts_with("package"));
    for file in files {
        let server = common::stem(&file, ".json").replace('-', "_");
        let doc = common::read_json(&file);
        for tool in doc["tools"].as_array().expect("tools") {
            let mut made = Tool::new(
                format!("{server}_{}", tool["name"].as_str().expect("a name")),
                tool["description"].as_str().unwrap_or_default(),
                tool["inputSchema"].clone(),
                |_, _| async { ToolResult::text("") },
            )
            .group(server.clone());
            if let Some(output) = tool.get("outputSchema") {
                made = made.output_schema(output.clone());
            }
            registry.register(made).expect("unique names");
        }
    }
    registry
}

#[test]
fn the_sdk_of_every_disclosure_and_a_discovering_program_typecheck_under_strict() {
    let Some(tsc) = tsc() else {
        return;
    };
    let scratch =
        std::env::temp_dir().join(format!("code-mode-tsc-disclosure-{}", std::process::id()));
    fs::create_dir_all(&scratch).expect("scratch directory");
    let program = r#"
async function program(): Promise<unknown> {
  const hits = await tools.$search("create an issue", { limit: 3 });
  const first: ToolMatch | undefined = hits[0];
  if (!first) return null;
  const one = await tools.$describe(first.name);
  const made = await tools[one.name]({ owner: "o", repo: "r", title: "t" });
  return { made, signature: one.signature, group: one.group ?? "" };
}
"#;
    let mut registry = catalog_registry();
    for disclosure in [Disclosure::Full, Disclosure::Search, Disclosure::Auto] {
        registry.disclosure(disclosure);
        let source = format!("{}\n{program}\nexport {{}};\n", registry.sdk_declarations());
        // `typecheck` removes the folder once the file passes.
        fs::create_dir_all(&scratch).expect("scratch directory");
        let file = scratch.join(format!("catalog_{disclosure}.ts"));
        fs::write(&file, source).expect("writing a catalog file");
        typecheck(&tsc, &scratch, &[file]);
    }
}
