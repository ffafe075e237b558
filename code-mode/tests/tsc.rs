//! Type-checks every golden `.d.ts` (and a batch of renderings of random
//! schemas) with `tsc --noEmit --strict`.
//!
//! The compiler is taken from the path in `CODERUN_TSC`. Without it the test
//! is skipped with a note, except under CI (`CI` set), where it fails.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

use code_mode::{ToolSignature, render_sdk, schema_to_ts};
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

    let output = Command::new(&tsc)
        .arg("--project")
        .arg(&config_path)
        .args(["--noEmit", "--strict", "--pretty", "false"])
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", tsc.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        let _ = fs::remove_dir_all(&scratch);
    }
    assert!(
        output.status.success(),
        "tsc rejected the rendered TypeScript ({}); files kept in {}:\n{stdout}{stderr}",
        output.status,
        scratch.display()
    );
    eprintln!("tsc accepted {} files", files.len());
}
