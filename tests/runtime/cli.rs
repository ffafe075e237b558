//! The `coderun run` command.

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::Value;

fn coderun() -> Command {
    Command::new(env!("CARGO_BIN_EXE_coderun"))
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
    let mut child = coderun()
        .args(["run", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"console.log('hi'); return await demo.echo([1, 2])")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let result = json_of(&output);
    assert_eq!(result["value"], serde_json::json!([1, 2]));
    assert_eq!(result["logs"], serde_json::json!(["hi"]));
}

#[test]
fn a_failing_program_exits_non_zero_with_the_failure() {
    let mut child = coderun()
        .args(["run", "-", "--fuel", "1000000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"for (;;) {}")
        .unwrap();
    let output = child.wait_with_output().unwrap();
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
