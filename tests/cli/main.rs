//! The `coderun run` command, and the compile cache the CLI keeps.

mod durable;

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::Value;

/// `coderun`, with its compile cache in the tests' own directory rather
/// than the user's.
fn coderun() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_coderun"));
    command.env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"));
    command
}

/// Runs `command` with `program` on its stdin and returns its output.
fn with_stdin(command: &mut Command, program: &str) -> std::process::Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("coderun starts");
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(program.as_bytes())
        .expect("the program is written");
    child.wait_with_output().expect("coderun ends")
}

fn json_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn runs_a_file_and_prints_json() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/hello.ts");
    let output = coderun().args(["run", example]).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = json_of(&output);
    assert_eq!(result["value"]["sum"], 5.0);
    assert_eq!(result["value"]["greeting"], "hello from the host");
    assert!(result.get("error").is_none());
}

#[test]
fn reads_the_program_from_stdin() {
    let output = with_stdin(
        coderun().args(["run", "-"]),
        "console.log('hi'); console.warn('careful'); return await demo.echo([1, 2])",
    );
    assert!(output.status.success());
    let result = json_of(&output);
    assert_eq!(result["value"], serde_json::json!([1, 2]));
    assert_eq!(
        result["logs"],
        serde_json::json!([
            {"level": "log", "text": "hi"},
            {"level": "warn", "text": "careful"}
        ])
    );
    assert_eq!(result["value_display"], "[ 1, 2 ]");
}

#[test]
fn a_failing_program_exits_non_zero_with_the_failure() {
    let output = with_stdin(
        coderun().args(["run", "-", "--fuel", "1000000"]),
        "for (;;) {}",
    );
    assert_eq!(output.status.code(), Some(1));
    let result = json_of(&output);
    assert_eq!(result["error"]["kind"], "timeout");
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("fuel")
    );
}

#[test]
fn a_missing_file_is_a_usage_error() {
    let output = coderun()
        .args(["run", "/nonexistent/program.ts"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/program.ts"));
}

/// `coderun run` of `return 1 + 1` with the cache under `cache`.
fn run_with_cache(cache: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let output = with_stdin(
        Command::new(env!("CARGO_BIN_EXE_coderun"))
            .args(["run", "-"])
            .args(extra)
            .env("XDG_CACHE_HOME", cache),
        "return 1 + 1",
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(json_of(&output)["value"], 2.0);
    output
}

/// The compiled guests in the cache directory.
fn cached_files(cache: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(cache.join("coderun"))
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|path| path.extension().is_some_and(|ext| ext == "cwasm"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_compiled_guest_is_cached_per_user_and_reused() {
    let cache = tempfile::tempdir().unwrap();
    run_with_cache(cache.path(), &[]);
    let files = cached_files(cache.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let written = std::fs::metadata(&files[0]).unwrap().modified().unwrap();
    run_with_cache(cache.path(), &[]);
    // Read, not rewritten.
    assert_eq!(
        std::fs::metadata(&files[0]).unwrap().modified().unwrap(),
        written
    );
}

#[test]
fn a_corrupted_or_truncated_cache_file_is_ignored_and_rewritten() {
    let cache = tempfile::tempdir().unwrap();
    run_with_cache(cache.path(), &[]);
    let file = cached_files(cache.path()).pop().unwrap();
    let good = std::fs::read(&file).unwrap();
    // One flipped bit in the middle of the compiled code.
    let mut damaged = good.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x40;
    std::fs::write(&file, &damaged).unwrap();
    let output = run_with_cache(cache.path(), &[]);
    assert!(
        String::from_utf8_lossy(&output.stderr).is_empty()
            || !String::from_utf8_lossy(&output.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        good,
        "the file was not rewritten"
    );
    // Cut short, as a crash mid-write would leave it (were it not renamed).
    std::fs::write(&file, &good[..good.len() / 3]).unwrap();
    run_with_cache(cache.path(), &[]);
    assert_eq!(std::fs::read(&file).unwrap(), good);
}

#[test]
fn concurrent_first_runs_share_one_valid_cache_file() {
    let cache = tempfile::tempdir().unwrap();
    let runs: Vec<_> = (0..4)
        .map(|_| {
            let cache = cache.path().to_owned();
            std::thread::spawn(move || run_with_cache(&cache, &[]))
        })
        .collect();
    for run in runs {
        run.join().unwrap();
    }
    let files = cached_files(cache.path());
    assert_eq!(files.len(), 1, "{files:?}");
    // No temporary file is left behind, and the file is a valid cache.
    let leftovers: Vec<_> = std::fs::read_dir(cache.path().join("coderun"))
        .unwrap()
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let before = std::fs::read(&files[0]).unwrap();
    run_with_cache(cache.path(), &[]);
    assert_eq!(std::fs::read(&files[0]).unwrap(), before);
}

#[test]
fn no_cache_compiles_in_the_process_and_writes_nothing() {
    let cache = tempfile::tempdir().unwrap();
    run_with_cache(cache.path(), &["--no-cache"]);
    assert!(cached_files(cache.path()).is_empty());
}

/// A flood of empty console lines prints no more JSON than the log cap
/// allows: a line costs its bytes plus its framing, so 100,000 empty lines
/// under `--max-log-bytes 4096` print about a hundred entries, not
/// 100,000; and control characters, which JSON escapes to six bytes each,
/// count as such.
#[test]
fn a_flood_of_empty_lines_or_control_characters_prints_within_the_log_cap() {
    for program in [
        "for (let i = 0; i < 100000; i++) console.log(); return 'done'",
        "for (let i = 0; i < 100; i++) console.log('\\u0001'.repeat(1000)); return 'done'",
    ] {
        let output = with_stdin(
            coderun().args(["run", "-", "--max-log-bytes", "4096", "--no-demo"]),
            program,
        );
        assert!(output.status.success(), "{program}");
        let result = json_of(&output);
        assert_eq!(result["value"], "done");
        let logs = serde_json::to_string(&result["logs"]).unwrap();
        assert!(
            logs.len() <= 4096 + 512,
            "{program}: {} bytes of logs printed",
            logs.len()
        );
        assert!(logs.contains("max_log_bytes"), "{logs}");
    }
}
