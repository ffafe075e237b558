//! SIGINT, SIGTERM and the end of stdin each stop `coderun mcp` within a
//! second, mid-call, with no process of an upstream's process group left.

use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;
use tokio::process::Child;
use tokio::time::Instant;

use super::{RawSession, Workspace, event_pid, eventually, live_processes_in_group};

/// How long stopping may take, from the request to the last process gone.
const STOP_WITHIN: Duration = Duration::from_secs(1);

/// A stdio session whose one upstream is the stubborn fixture, with a
/// `run_code` call in flight that awaits the fixture's `wait` (and, with
/// `busy`, then spins in a loop). Returns the upstream's process group.
async fn session_mid_call(workspace: &Workspace, busy: bool) -> (RawSession, i32) {
    session_mid_call_with(workspace, busy, true).await
}

async fn session_mid_call_with(
    workspace: &Workspace,
    busy: bool,
    read_stderr: bool,
) -> (RawSession, i32) {
    let config = workspace.write_config(&workspace.stubborn_fixture_config());
    let mut session =
        RawSession::initialized_with(&["--config", &config.display().to_string()], read_stderr)
            .await;
    let code = if busy {
        "tools.fixture_wait({}); for (;;) {}"
    } else {
        "await tools.fixture_wait({}); return 'not stopped';"
    };
    session
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "run_code", "arguments": {"code": code}}}))
        .await;
    let group = upstream_group_mid_call(workspace).await;
    (session, group)
}

/// Waits for the fixture's call to start, and returns its process group,
/// checked to hold the fixture and its grandchild.
pub(crate) async fn upstream_group_mid_call(workspace: &Workspace) -> i32 {
    eventually("the upstream call to start", || {
        let events = workspace.events();
        events.contains("started") && events.contains("grandchild ready")
    })
    .await;
    let events = workspace.events();
    let leader = event_pid(&events, "pid").expect("the fixture's pid");
    let grandchild = event_pid(&events, "grandchild").expect("the grandchild's pid");
    let members = live_processes_in_group(leader);
    assert!(
        members.contains(&leader) && members.contains(&grandchild),
        "the upstream leads its own process group with its grandchild: {members:?}"
    );
    leader
}

/// Does `stop` to `child` and checks that it exits with status 0, and that
/// the process group `group` is empty, within [`STOP_WITHIN`].
pub(crate) async fn assert_stops_within_a_second(
    child: &mut Child,
    group: i32,
    stop: impl FnOnce(),
    stderr: impl Fn() -> String,
) {
    let started = Instant::now();
    stop();
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .unwrap_or_else(|_| panic!("coderun mcp did not exit; its stderr:\n{}", stderr()))
        .expect("wait for coderun mcp");
    let exited = started.elapsed();
    assert!(
        exited < STOP_WITHIN,
        "coderun mcp took {exited:?} to exit; its stderr:\n{}",
        stderr()
    );
    assert_eq!(status.code(), Some(0), "{}", stderr());
    while !live_processes_in_group(group).is_empty() && started.elapsed() < STOP_WITHIN {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        live_processes_in_group(group),
        Vec::<i32>::new(),
        "processes of the upstream's group outlived coderun mcp by {:?}",
        started.elapsed()
    );
}

/// Sends `signal` to `child`.
pub(crate) fn signal(child: &Child, signal: Signal) -> impl FnOnce() + use<> {
    let pid = child.id().expect("coderun mcp is running");
    let pid = Pid::from_raw(pid.try_into().expect("a pid"));
    move || kill(pid, signal).expect("send the signal")
}

#[tokio::test(flavor = "multi_thread")]
async fn sigint_mid_call_stops_the_server_and_the_upstream_group_within_a_second() {
    let workspace = Workspace::new();
    let (mut session, group) = session_mid_call(&workspace, false).await;
    let stderr = session.stderr.clone();
    let stop = signal(&session.child, Signal::SIGINT);
    assert_stops_within_a_second(&mut session.child, group, stop, || {
        stderr.lock().expect("stderr lock").clone()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_mid_call_stops_the_server_and_the_upstream_group_within_a_second() {
    let workspace = Workspace::new();
    let (mut session, group) = session_mid_call(&workspace, false).await;
    let stderr = session.stderr.clone();
    let stop = signal(&session.child, Signal::SIGTERM);
    assert_stops_within_a_second(&mut session.child, group, stop, || {
        stderr.lock().expect("stderr lock").clone()
    })
    .await;
    assert!(
        workspace.events().contains("ignored SIGTERM"),
        "the fixture got SIGTERM before SIGKILL: {}",
        workspace.events()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn closing_stdin_mid_busy_loop_stops_the_server_and_the_upstream_group_within_a_second() {
    let workspace = Workspace::new();
    let (mut session, group) = session_mid_call(&workspace, true).await;
    let stderr = session.stderr.clone();
    let stdin = session.stdin.take();
    assert_stops_within_a_second(
        &mut session.child,
        group,
        move || drop(stdin),
        || stderr.lock().expect("stderr lock").clone(),
    )
    .await;
}

/// A parent that closes its end of coderun's stderr: every log line fails
/// to write. Logging must neither panic (tracing's own error report went
/// to that stderr, and `eprintln!` panics when it fails) nor block, and
/// both the end of stdin and SIGTERM still stop everything, with status 0.
#[tokio::test(flavor = "multi_thread")]
async fn with_stderr_closed_the_end_of_stdin_and_sigterm_still_stop_cleanly() {
    for by_signal in [false, true] {
        let workspace = Workspace::new();
        let (mut session, group) = session_mid_call_with(&workspace, false, false).await;
        let stderr = session.stderr.clone();
        let stdin = session.stdin.take();
        let stop: Box<dyn FnOnce()> = if by_signal {
            Box::new(signal(&session.child, Signal::SIGTERM))
        } else {
            Box::new(move || drop(stdin))
        };
        assert_stops_within_a_second(&mut session.child, group, stop, || {
            stderr.lock().expect("stderr lock").clone()
        })
        .await;
    }
}
