//! The stdio upstreams' processes, each the leader of a process group of
//! its own, so that stopping an upstream stops what it started too.
//!
//! An upstream like `npx -y some-server` is a process that starts others
//! (npm, then node): signalling only the child coderun spawned would leave
//! its descendants running. Every upstream therefore starts in a new
//! process group (its pid is the group's id), and stopping it signals the
//! whole group: SIGTERM, a grace period for the group to exit, then SIGKILL
//! for whatever is left. A descendant that moves itself to another group or
//! session (a daemon) escapes this, as it escapes a terminal's Ctrl-C.
//!
//! Being in its own group also keeps a terminal's Ctrl-C, which the
//! terminal sends to coderun's group, from reaching the upstreams before
//! coderun has decided how to stop them.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::time::Instant;

/// How long a group has to exit after SIGTERM before it gets SIGKILL.
pub const TERMINATE_GRACE: Duration = Duration::from_millis(300);
/// How long to wait for a group to be gone after SIGKILL.
const KILL_WAIT: Duration = Duration::from_millis(100);
/// How often to look whether a group is gone.
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// The process groups of the upstreams started so far; clones share them.
#[derive(Debug, Clone, Default)]
pub struct ProcessGroups {
    groups: Arc<Mutex<Vec<Group>>>,
}

#[derive(Debug)]
struct Group {
    upstream: String,
    id: Pid,
}

/// A started upstream process: its pipes, and its process group.
#[derive(Debug)]
pub(crate) struct Started {
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
    pub(crate) stderr: ChildStderr,
    pub(crate) group: Pid,
}

impl ProcessGroups {
    /// No groups.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts `command` (with piped standard streams) as the leader of a new
    /// process group, recorded so that [`terminate`](Self::terminate) stops
    /// it. A task waits for the process so that it never lingers as a
    /// zombie.
    pub(crate) fn spawn(&self, upstream: &str, mut command: Command) -> std::io::Result<Started> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        // A pid of 0 or 1 would make killpg signal the wrong processes (or
        // every process); a child just spawned has neither, but check.
        let group = child
            .id()
            .and_then(|pid| i32::try_from(pid).ok())
            .filter(|&pid| pid > 1)
            .map(Pid::from_raw)
            .ok_or_else(|| std::io::Error::other("the child has no usable process id"))?;
        self.lock().push(Group {
            upstream: upstream.to_owned(),
            id: group,
        });
        let missing = || std::io::Error::other("the child's standard streams were not piped");
        let started = Started {
            stdin: child.stdin.take().ok_or_else(missing)?,
            stdout: child.stdout.take().ok_or_else(missing)?,
            stderr: child.stderr.take().ok_or_else(missing)?,
            group,
        };
        let name = upstream.to_owned();
        tokio::spawn(async move {
            match child.wait().await {
                Ok(status) => tracing::debug!(upstream = %name, "exited: {status}"),
                Err(error) => tracing::warn!(upstream = %name, "waiting for it failed: {error}"),
            }
        });
        Ok(started)
    }

    /// Stops every group: SIGTERM, up to `grace` for them to exit, then
    /// SIGKILL for those left, and a short wait for them to be gone.
    /// Cancelling it stops waiting; the groups stay signalled.
    pub async fn terminate(&self, grace: Duration) {
        let groups = std::mem::take(&mut *self.lock());
        stop(groups, grace).await;
    }

    /// Stops the one group `group` (an upstream that failed to start), as
    /// [`terminate`](Self::terminate) does.
    pub(crate) async fn terminate_group(&self, group: Pid, grace: Duration) {
        let stopping = {
            let mut groups = self.lock();
            let (stopping, kept) = std::mem::take(&mut *groups)
                .into_iter()
                .partition(|known| known.id == group);
            *groups = kept;
            stopping
        };
        stop(stopping, grace).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Group>> {
        self.groups
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// SIGTERM, up to `grace` to exit, SIGKILL, a short wait.
async fn stop(groups: Vec<Group>, grace: Duration) {
    if groups.is_empty() {
        return;
    }
    for group in &groups {
        signal(group, Signal::SIGTERM);
    }
    let left = wait_gone(groups, Instant::now() + grace).await;
    for group in &left {
        tracing::info!(
            upstream = %group.upstream,
            "its processes did not exit within {}ms of SIGTERM: sending SIGKILL",
            grace.as_millis()
        );
        signal(group, Signal::SIGKILL);
    }
    let left = wait_gone(left, Instant::now() + KILL_WAIT).await;
    for group in &left {
        // SIGKILL cannot be ignored: what is left are exited processes
        // their parent (init, for orphans) has not reaped yet.
        tracing::debug!(
            upstream = %group.upstream,
            "process group {} is not reaped yet after SIGKILL",
            group.id
        );
    }
}

fn signal(group: &Group, signal: Signal) {
    match killpg(group.id, signal) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(error) => tracing::warn!(
            upstream = %group.upstream,
            "sending {signal} to process group {} failed: {error}",
            group.id
        ),
    }
}

/// Whether no process is left in the group. (An exited process not yet
/// reaped by its parent still counts; coderun reaps its children at once.)
fn gone(group: &Group) -> bool {
    matches!(killpg(group.id, None), Err(Errno::ESRCH | Errno::EPERM))
}

/// Waits until every group is gone or `deadline` passes; returns those left.
async fn wait_gone(mut groups: Vec<Group>, deadline: Instant) -> Vec<Group> {
    loop {
        groups.retain(|group| !gone(group));
        if groups.is_empty() || Instant::now() >= deadline {
            return groups;
        }
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}
