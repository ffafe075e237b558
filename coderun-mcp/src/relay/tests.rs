use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{InputResponses, NumberOrString, ProgressNotificationParam, ProgressToken};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};

use super::{CallInputs, Caller, Relay};
use crate::logging::SessionLevel;
use crate::test_support::connected;

/// The progress a client heard: token and value, in order.
#[derive(Clone, Default)]
struct Heard(Arc<Mutex<Vec<(ProgressToken, f64)>>>);

impl Heard {
    fn get(&self) -> Vec<(ProgressToken, f64)> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl ClientHandler for Heard {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((params.progress_token, params.progress));
    }
}

fn token(n: i64) -> ProgressToken {
    ProgressToken(NumberOrString::Number(n))
}

/// An upstream's progress that arrives before its call learns the token
/// rmcp sent (a fast upstream, a busy gateway) still reaches the client,
/// first and in order; progress for another upstream's token, or for a
/// token no call claims, does not.
#[tokio::test(flavor = "current_thread")]
async fn progress_sent_before_its_call_knows_its_token_is_relayed_in_order() {
    let heard = Heard::default();
    let (server, client) = connected(heard.clone()).await;

    let relay = Arc::new(Relay::default());
    let client_token = ProgressToken(NumberOrString::String("t-1".into()));
    let _entered = relay.enter(
        "call-1",
        Caller {
            peer: server.peer().clone(),
            progress: Some(client_token.clone()),
            native: true,
            level: Arc::new(SessionLevel::default()),
            capabilities: None,
            stateless: false,
            task: None,
            pausable: false,
            resumed: None,
            span: tracing::Span::none(),
        },
    );
    let inputs = Arc::new(CallInputs::new(InputResponses::default()));
    let mut call = relay.upstream_call("up", "steps", "call-1", inputs);
    let progress = |n: i64, value: f64| ProgressNotificationParam::new(token(n), value);
    // Before the call knows its token: the upstream's first two steps,
    // another upstream's step under the same token, and a stray token.
    relay.observe_progress("up", progress(7, 1.0));
    relay.observe_progress("other", progress(7, 10.0));
    relay.observe_progress("up", progress(8, 20.0));
    relay.observe_progress("up", progress(7, 2.0));
    call.sent(token(7));
    relay.observe_progress("up", progress(7, 3.0));
    call.settle().await;

    let expected: Vec<_> = [1.0, 2.0, 3.0]
        .into_iter()
        .map(|value| (client_token.clone(), value))
        .collect();
    for _ in 0..100 {
        if heard.get().len() >= expected.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Whatever else might still arrive would have by now.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(heard.get(), expected);
    // The stray ones are still unclaimed, not given to this call.
    assert_eq!(super::lock(&relay.unclaimed).len(), 2);
    drop(client);
    drop(server);
}
