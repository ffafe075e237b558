//! Which HTTP session a paused run belongs to, so that only that session
//! can resume it: a paused run's id is a handle the client echoes back
//! (`requestState`, `resume_code`'s `id`), and over HTTP one server serves
//! many clients. The session is the `Mcp-Session-Id` the request came
//! with; requests that carry none (stdio, with its one client, and MCP
//! 2026-07-28's session-less requests) bind nothing, and a paused run's id
//! alone, unguessable, is then its capability.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rmcp::RoleServer;
use rmcp::service::RequestContext;

/// The most bindings kept, oldest dropped first (the registry keeps as
/// many paused runs).
const MAX_OWNERS: usize = coderun_code_mode::MAX_PAUSED;
/// The most paused runs one session holds: pausing one more gives up its
/// own oldest, so that one session cannot push every other session's
/// paused runs out of the registry's [`MAX_OWNERS`].
pub const MAX_PER_SESSION: usize = 16;

/// The session a request belongs to, if its transport has sessions.
pub fn session_of(context: &RequestContext<RoleServer>) -> Option<String> {
    let parts = context.extensions.get::<http::request::Parts>()?;
    let value = parts.headers.get("mcp-session-id")?.to_str().ok()?;
    Some(value.to_owned())
}

/// Paused runs' ids and the sessions that paused them.
#[derive(Default)]
pub struct Owners(Mutex<VecDeque<(String, String)>>);

impl Owners {
    fn lock(&self) -> MutexGuard<'_, VecDeque<(String, String)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Binds the paused run `id` to `session`, if there is one. Returns
    /// the id of the session's oldest paused run when the session already
    /// holds [`MAX_PER_SESSION`]: its binding is gone, and the caller drops
    /// that run.
    pub fn record(&self, id: &str, session: Option<&str>) -> Option<String> {
        let session = session?;
        let mut owners = self.lock();
        let mut evicted = None;
        if owners.iter().filter(|(_, owner)| owner == session).count() >= MAX_PER_SESSION {
            let oldest = owners.iter().position(|(_, owner)| owner == session)?;
            evicted = owners.remove(oldest).map(|(id, _)| id);
        } else if owners.len() >= MAX_OWNERS {
            owners.pop_front();
        }
        owners.push_back((id.to_owned(), session.to_owned()));
        evicted
    }

    /// Whether `session` may resume the paused run `id`: yes when the run
    /// is bound to it (the binding is then spent) or to no session; else
    /// the refusal to return.
    pub fn claim(&self, id: &str, session: Option<&str>) -> Result<(), String> {
        let mut owners = self.lock();
        let Some(at) = owners.iter().position(|(key, _)| key == id) else {
            return Ok(());
        };
        if Some(owners[at].1.as_str()) != session {
            return Err(format!(
                "the paused run {id:?} was started in another session: only that session can \
                 resume it"
            ));
        }
        owners.remove(at);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_session_that_paused_a_run_resumes_it() {
        let owners = Owners::default();
        owners.record("run-1", Some("session-a"));
        owners.record("run-2", None);
        let refused = owners.claim("run-1", Some("session-b")).unwrap_err();
        assert!(refused.contains("another session"), "{refused}");
        assert!(owners.claim("run-1", None).is_err());
        assert_eq!(owners.claim("run-1", Some("session-a")), Ok(()));
        // Spent: the registry now answers for the id (no paused run).
        assert_eq!(owners.claim("run-1", Some("session-b")), Ok(()));
        assert_eq!(owners.claim("run-2", Some("session-b")), Ok(()));
    }

    #[test]
    fn one_session_gives_up_its_own_oldest_paused_run() {
        let owners = Owners::default();
        owners.record("other", Some("b"));
        for n in 0..MAX_PER_SESSION {
            assert_eq!(owners.record(&format!("run-{n}"), Some("a")), None);
        }
        assert_eq!(
            owners.record("one-more", Some("a")).as_deref(),
            Some("run-0")
        );
        assert_eq!(owners.lock().len(), MAX_PER_SESSION + 1);
        assert!(
            owners.claim("other", Some("a")).is_err(),
            "b's run is still bound"
        );
        assert_eq!(owners.record("unbound", None), None);
    }

    #[test]
    fn the_bindings_are_bounded() {
        let owners = Owners::default();
        for n in 0..MAX_OWNERS + 10 {
            owners.record(&format!("run-{n}"), Some(&format!("session-{}", n % 32)));
        }
        assert_eq!(owners.lock().len(), MAX_OWNERS);
        assert_eq!(
            owners.claim("run-0", Some("session-1")),
            Ok(()),
            "the oldest was dropped"
        );
    }
}
