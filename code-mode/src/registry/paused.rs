//! The continuations of the `run_code` calls that paused, which the
//! registry keeps until they are resumed or taken (the latest
//! [`MAX_PAUSED`](super::MAX_PAUSED)).

use std::collections::VecDeque;
use std::hash::{BuildHasher as _, Hasher as _, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use coderun_runtime::Continuation;

use super::MAX_PAUSED;

/// The continuations of paused `run_code` calls, oldest first.
#[derive(Default)]
pub(super) struct PausedRuns {
    runs: Mutex<VecDeque<(String, Continuation)>>,
    next: AtomicU64,
}

impl PausedRuns {
    fn lock(&self) -> MutexGuard<'_, VecDeque<(String, Continuation)>> {
        // Every update is one step: the queue stays consistent across a panic.
        self.runs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn insert(&self, call_id: &str, continuation: Continuation) -> String {
        // The id is a handle a client may echo back (MCP's requestState):
        // a random part keeps one client from guessing another's.
        let unguessable = RandomState::new().build_hasher().finish();
        let id = format!(
            "{call_id}:paused:{}:{unguessable:016x}",
            self.next.fetch_add(1, Ordering::Relaxed) + 1
        );
        let mut runs = self.lock();
        if runs.len() >= MAX_PAUSED {
            runs.pop_front();
        }
        runs.push_back((id.clone(), continuation));
        id
    }

    pub(super) fn take(&self, id: &str) -> Option<Continuation> {
        let mut runs = self.lock();
        let at = runs.iter().position(|(key, _)| key == id)?;
        runs.remove(at).map(|(_, continuation)| continuation)
    }

    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }
}
