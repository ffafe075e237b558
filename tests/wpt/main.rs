//! The Web Platform Tests runner: WPT's `.any.js` files for the APIs the
//! guest implements, run in the real sandbox with the real, unmodified
//! `testharness.js`, each file one run, every subtest's outcome compared
//! with `expectations.json` (expected failures by file and subtest name,
//! each with a reason).
//!
//! A subtest that fails and is not listed fails the runner; so does one
//! that passes and is still listed, so the list only shrinks. `make wpt`
//! runs it and writes the per-suite table (`tests/wpt/RESULTS.md`, which
//! the README quotes).
//!
//! The WPT checkout is read from `CODERUN_WPT_DIR` (its
//! `resources/testharness.js` is the harness); without it the runner says
//! so and runs nothing: WPT's files are not part of this repository.
//!
//! Each program is WPT's harness, the test's `// META: script=` includes
//! and the test, then a wait for the harness's completion callback, whose
//! report the program returns. Resources the test fetches as JSON (the URL
//! suite's test data) are inlined: the sandbox has no network, and this
//! `fetch` stand-in exists only in these runs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, bail};
use coderun_runtime::{CodeRunRequest, CodeRuntime, RuntimeConfig, WasmCodeRuntime};

/// A suite: its name in the table, the directory, and which of its files.
struct Suite {
    name: &'static str,
    dir: &'static str,
    includes: fn(&str) -> bool,
}

const SUITES: &[Suite] = &[
    Suite {
        name: "url",
        dir: "url",
        includes: |f| !f.starts_with("urlsearchparams"),
    },
    Suite {
        name: "urlsearchparams",
        dir: "url",
        includes: |f| f.starts_with("urlsearchparams"),
    },
    Suite {
        name: "encoding",
        dir: "encoding",
        includes: |_| true,
    },
    Suite {
        name: "structured-clone",
        dir: "html/webappapis/structured-clone",
        includes: |_| true,
    },
    Suite {
        name: "dom/abort",
        dir: "dom/abort",
        includes: |_| true,
    },
    Suite {
        name: "dom/events",
        dir: "dom/events",
        includes: |_| true,
    },
    Suite {
        name: "console",
        dir: "console",
        includes: |_| true,
    },
    Suite {
        name: "WebCryptoAPI/digest",
        dir: "WebCryptoAPI/digest",
        includes: |_| true,
    },
    Suite {
        name: "hr-time",
        dir: "hr-time",
        includes: |_| true,
    },
    Suite {
        name: "user-timing",
        dir: "user-timing",
        includes: |_| true,
    },
    Suite {
        name: "FileAPI/blob",
        dir: "FileAPI/blob",
        includes: |_| true,
    },
    Suite {
        name: "fetch/api/headers",
        dir: "fetch/api/headers",
        includes: |_| true,
    },
    Suite {
        name: "streams (queuing strategies)",
        dir: "streams",
        includes: |_| true,
    },
    Suite {
        name: "streams/readable-streams",
        dir: "streams/readable-streams",
        includes: |_| true,
    },
    Suite {
        name: "streams/readable-byte-streams",
        dir: "streams/readable-byte-streams",
        includes: |_| true,
    },
    Suite {
        name: "streams/writable-streams",
        dir: "streams/writable-streams",
        includes: |_| true,
    },
    Suite {
        name: "streams/transform-streams",
        dir: "streams/transform-streams",
        includes: |_| true,
    },
    Suite {
        name: "streams/piping",
        dir: "streams/piping",
        includes: |_| true,
    },
    Suite {
        name: "encoding/streams",
        dir: "encoding/streams",
        includes: |_| true,
    },
    Suite {
        name: "compression",
        dir: "compression",
        includes: |_| true,
    },
    Suite {
        name: "fetch/api/request",
        dir: "fetch/api/request",
        includes: |_| true,
    },
    Suite {
        name: "fetch/api/response",
        dir: "fetch/api/response",
        includes: |_| true,
    },
    Suite {
        name: "fetch/api/body",
        dir: "fetch/api/body",
        includes: |_| true,
    },
    Suite {
        name: "xhr/formdata",
        dir: "xhr/formdata",
        includes: |_| true,
    },
];

/// The harness's setup for a shell: results collected, no timeouts (the
/// run's wall clock is the timeout), and `GLOBAL` as WPT's server defines it
/// for `.any.js` files.
const PROLOGUE: &str = r#"
globalThis.GLOBAL = { isWindow: () => false, isWorker: () => false, isShadowRealm: () => false };
"#;

const EPILOGUE: &str = r#"
const __report = await new Promise((resolve) => {
  add_completion_callback((tests, status) => resolve({
    status: status.status,
    message: status.message ?? null,
    tests: tests.map((t) => [t.name, t.status === 0, t.message ?? null]),
  }));
});
return __report;
"#;

fn main() -> anyhow::Result<()> {
    let Some(root) = std::env::var_os("CODERUN_WPT_DIR").map(PathBuf::from) else {
        println!("wpt: CODERUN_WPT_DIR is not set: no WPT checkout, nothing run");
        return Ok(());
    };
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wpt");
    let harness = std::fs::read_to_string(root.join("resources/testharness.js"))
        .context("reading resources/testharness.js of the WPT checkout")?;
    let expectations: BTreeMap<String, BTreeMap<String, String>> = serde_json::from_str(
        &std::fs::read_to_string(here.join("expectations.json"))
            .context("reading tests/wpt/expectations.json")?,
    )
    .context("parsing tests/wpt/expectations.json")?;
    let filter = std::env::var("CODERUN_WPT_FILTER").unwrap_or_default();

    let mut config = RuntimeConfig::new();
    config
        .fuel(50_000_000_000)
        .wall_clock(Duration::from_secs(120))
        .max_memory_bytes(512 << 20)
        .max_program_bytes(16 << 20)
        .max_log_bytes(1 << 20)
        .max_value_bytes(64 << 20)
        .max_concurrent_runs(2);
    let runtime = WasmCodeRuntime::new(config)?;
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;

    let mut table =
        String::from("| suite | passed | subtests | pass rate |\n|---|---:|---:|---:|\n");
    let mut problems = Vec::new();
    // `CODERUN_WPT_BLESS`: every failure listed, its message as the reason
    // (to be replaced by a real one before committing).
    let bless = std::env::var_os("CODERUN_WPT_BLESS").is_some();
    let mut blessed: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut seen_files = BTreeSet::new();
    for suite in SUITES {
        let dir = root.join(suite.dir);
        let mut files: Vec<String> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                // Tentative tests are for proposals, not the standard.
                .filter(|f| f.ends_with(".any.js") && !f.contains(".tentative."))
                .filter(|f| (suite.includes)(f))
                .collect(),
            Err(_) => Vec::new(),
        };
        files.sort();
        let (mut passed, mut total) = (0usize, 0usize);
        let runs = files.iter().flat_map(|file| {
            let source =
                std::fs::read_to_string(root.join(suite.dir).join(file)).unwrap_or_default();
            let variants = meta(&source, "variant");
            let variants = if variants.is_empty() {
                vec![String::new()]
            } else {
                variants
            };
            let applies = runs_in_a_worker(&source);
            variants
                .into_iter()
                .filter(move |_| applies)
                .map(move |v| (file.clone(), v))
        });
        for (file, variant) in runs {
            let key = format!("{}/{file}{variant}", suite.dir);
            if !key.contains(&filter) {
                continue;
            }
            seen_files.insert(key.clone());
            let expected = expectations.get(&key).cloned().unwrap_or_default();
            let outcomes = match assemble(&root, suite.dir, &file, &variant, &harness) {
                Ok(program) => run_file(&tokio, &runtime, program)?,
                // A file whose includes are missing fails as a whole.
                Err(error) => vec![("(file)".to_owned(), false, Some(format!("{error:#}")))],
            };
            for (name, ok, message) in &outcomes {
                total += 1;
                let listed = expected.contains_key(name);
                if *ok {
                    passed += 1;
                    if listed {
                        problems.push(format!(
                            "{key}: \"{name}\" passes now: take it off the list"
                        ));
                    }
                } else if bless {
                    let reason = expected.get(name).cloned().unwrap_or_else(|| {
                        message.as_deref().unwrap_or("").chars().take(200).collect()
                    });
                    blessed
                        .entry(key.clone())
                        .or_default()
                        .insert(name.clone(), reason);
                } else if !listed {
                    let why = message.as_deref().unwrap_or("");
                    let why: String = why.chars().take(300).collect();
                    problems.push(format!("{key}: \"{name}\" fails: {why}"));
                }
            }
            for name in expected.keys() {
                if !outcomes.iter().any(|(n, ..)| n == name) {
                    problems.push(format!("{key}: \"{name}\" is listed but did not run"));
                }
            }
            eprintln!(
                "wpt: {key}: {}/{}",
                outcomes.iter().filter(|o| o.1).count(),
                outcomes.len()
            );
        }
        if total > 0 {
            let rate = 100.0 * passed as f64 / total as f64;
            writeln!(
                table,
                "| {} | {passed} | {total} | {rate:.1} % |",
                suite.name
            )?;
        }
    }
    for key in expectations.keys() {
        if filter.is_empty() && !seen_files.contains(key) {
            problems.push(format!("{key}: listed in expectations.json but not found"));
        }
    }
    println!("{table}");
    if bless {
        let text = serde_json::to_string_pretty(&blessed)? + "\n";
        std::fs::write(here.join("expectations.json"), text)?;
        return Ok(());
    }
    if std::env::var_os("CODERUN_WPT_WRITE").is_some() {
        std::fs::write(here.join("RESULTS.md"), &table)?;
    }
    if !problems.is_empty() {
        for problem in &problems {
            println!("{problem}");
        }
        bail!(
            "{} subtests differ from tests/wpt/expectations.json",
            problems.len()
        );
    }
    Ok(())
}

/// Each subtest's name, whether it passed, and its message; a run that
/// failed or reported nothing is one failed `(file)` entry.
fn run_file(
    tokio: &tokio::runtime::Runtime,
    runtime: &WasmCodeRuntime,
    program: String,
) -> anyhow::Result<Vec<(String, bool, Option<String>)>> {
    let result = tokio.block_on(runtime.run(CodeRunRequest::new(program)))?;
    Ok(match (&result.error, &result.value) {
        (None, Some(report)) => report["tests"]
            .as_array()
            .map(|tests| {
                tests
                    .iter()
                    .map(|t| {
                        (
                            t[0].as_str().unwrap_or("").to_owned(),
                            t[1].as_bool().unwrap_or(false),
                            t[2].as_str().map(str::to_owned),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        (error, _) => {
            let why = error
                .as_ref()
                .map_or("no report".to_owned(), |e| e.to_string());
            vec![("(file)".to_owned(), false, Some(why))]
        }
    })
}

/// One test file as a program: the harness, its includes, the test, the
/// wait for completion.
fn assemble(
    root: &Path,
    dir: &str,
    file: &str,
    variant: &str,
    harness: &str,
) -> anyhow::Result<String> {
    let source = std::fs::read_to_string(root.join(dir).join(file))
        .with_context(|| format!("reading {dir}/{file}"))?;
    let mut program = String::from(PROLOGUE);
    // Where WPT's server would serve the test from, as workers see it; the
    // variant is its query.
    writeln!(
        program,
        "globalThis.location = new URL({});",
        serde_json::to_string(&format!(
            "http://web-platform.test:8000/{dir}/{}{variant}",
            file.replace(".any.js", ".any.worker.html")
        ))?
    )?;
    program.push_str(harness);
    program.push('\n');
    let resources = inline_resources(root, dir, &source);
    if !resources.is_empty() {
        let map = serde_json::to_string(&resources)?;
        write!(
            program,
            "\nglobalThis.fetch = async (path) => {{ const text = ({map})[path]; \
             if (text === undefined) throw new TypeError('no such resource: ' + path); \
             return {{ ok: true, json: async () => JSON.parse(text), text: async () => text }}; }};\n"
        )?;
    }
    for line in source.lines() {
        let Some(script) = line.strip_prefix("// META: script=") else {
            continue;
        };
        let path = if let Some(absolute) = script.trim().strip_prefix('/') {
            root.join(absolute)
        } else {
            root.join(dir).join(script.trim())
        };
        let included = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {} (included by {dir}/{file})", path.display()))?;
        program.push_str(&included);
        program.push('\n');
    }
    program.push_str(&source);
    program.push_str(EPILOGUE);
    Ok(program)
}

/// The values of `source`'s `// META: {key}=` lines.
fn meta(source: &str, key: &str) -> Vec<String> {
    let prefix = format!("// META: {key}=");
    source
        .lines()
        .filter_map(|line| line.strip_prefix(&prefix))
        .map(|value| value.trim().to_owned())
        .collect()
}

/// Whether the test runs in a worker: the sandbox is a worker-like global
/// with no document, so tests for windows only (`global=window`) do not
/// apply. With no `global=` line a `.any.js` file runs in a window and a
/// dedicated worker.
fn runs_in_a_worker(source: &str) -> bool {
    let globals = meta(source, "global");
    globals.is_empty()
        || globals.iter().flat_map(|g| g.split(',')).any(|g| {
            matches!(
                g.trim(),
                "worker" | "dedicatedworker" | "dedicatedworker-module" | "jsshell"
            )
        })
}

/// The `.json` files `source` names in a string literal, by the name it
/// uses, read relative to the test's directory.
fn inline_resources(root: &Path, dir: &str, source: &str) -> BTreeMap<String, String> {
    let mut resources = BTreeMap::new();
    for quote in ['"', '\''] {
        for piece in source.split(quote).skip(1).step_by(2) {
            if piece.ends_with(".json") && !piece.contains(char::is_whitespace) {
                let path = root.join(dir).join(piece.trim_start_matches('/'));
                if let Ok(text) = std::fs::read_to_string(path) {
                    resources.insert(piece.to_owned(), text);
                }
            }
        }
    }
    resources
}
