//! The CLI writing into a pipe its reader has closed (`coderun run prog.ts
//! | head -c 1`): it exits quietly, with the status it would have had.

use std::io::Write as _;
use std::process::{Command, Stdio};

use super::fixture;

/// Runs `command` with stdout a pipe whose reading end is already closed,
/// and stdin `input`; returns its exit status and stderr.
fn run_into_a_closed_pipe(mut command: Command, input: &[u8]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn coderun");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(input).expect("write stdin");
    drop(stdin);
    let output = child.wait_with_output().expect("wait for coderun");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stderr)
}

#[test]
fn run_into_a_closed_pipe_exits_quietly_with_the_runs_status() {
    for (program, status) in [("return 'done'", 0), ("throw new Error('failed')", 1)] {
        let mut command = super::coderun_std();
        command.args(["run", "-"]);
        let (code, stderr) = run_into_a_closed_pipe(command, program.as_bytes());
        assert_eq!(code, Some(status), "{program}: {stderr}");
        assert_eq!(stderr, "", "{program}");
    }
}

#[test]
fn sdk_into_a_closed_pipe_exits_quietly() {
    let fixture = fixture();
    for stats in [false, true] {
        let mut command = super::coderun_std();
        command.arg("sdk");
        if stats {
            command.arg("--stats");
        }
        command
            .args(["--", "node", &fixture])
            .env("RUST_LOG", "warn");
        let (code, stderr) = run_into_a_closed_pipe(command, b"");
        assert_eq!(code, Some(0), "--stats {stats}: {stderr}");
        assert_eq!(stderr, "", "--stats {stats}");
    }
}
