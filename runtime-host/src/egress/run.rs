//! One run's egress: the requests it has made against its policy's
//! count, their turns in flight, the cancellation of those still going,
//! and the bodies the guest has not taken yet.

use std::collections::HashMap;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use super::exchange::{Answer, Exchange, label};
use super::policy::Policy;
use crate::guest::FetchRequest;

/// One run's egress: its policy, the requests it made, their turns, the
/// ones that can still be cancelled, and the bodies not yet handed over.
/// Dropped with the run, which cancels every request still going.
pub(crate) struct RunEgress {
    policy: Arc<Policy>,
    made: u32,
    /// The requests' turns and the run's cancellation, made by the first
    /// request sent: a run that sends none pays nothing for them.
    sending: Option<(Arc<Semaphore>, CancellationToken)>,
    pending: HashMap<u64, CancellationToken>,
    bodies: HashMap<u64, (Vec<u8>, Option<OwnedSemaphorePermit>)>,
}

impl RunEgress {
    pub(crate) fn new(policy: Arc<Policy>) -> Self {
        Self {
            policy,
            made: 0,
            sending: None,
            pending: HashMap::new(),
            bodies: HashMap::new(),
        }
    }

    /// Starts live fetch `id`: `Err` is its answer at once (a refusal);
    /// `Ok`, the future that answers it.
    pub(crate) fn start(
        &mut self,
        id: u64,
        request: FetchRequest,
    ) -> Result<BoxFuture<'static, Answer>, String> {
        let label = label(&request.method, &request.url);
        self.made = self.made.saturating_add(1);
        if self.made > self.policy.max_requests {
            return Err(format!(
                "{label}: this run has made its maximum of {} requests (the network policy's \
                 maxRequests)",
                self.policy.max_requests
            ));
        }
        let exchange =
            Exchange::prepare(request, &self.policy).map_err(|why| format!("{label}: {why}"))?;
        let max_in_flight = self.policy.max_in_flight as usize;
        let (turns, cancel) = self.sending.get_or_insert_with(|| {
            (
                Arc::new(Semaphore::new(max_in_flight)),
                CancellationToken::new(),
            )
        });
        let (turns, token) = (turns.clone(), cancel.child_token());
        self.pending.insert(id, token.clone());
        Ok(exchange
            .send(label, self.policy.clone(), turns, token)
            .boxed())
    }

    /// The program aborted fetch `id`.
    pub(crate) fn cancel(&mut self, id: u64) {
        if let Some(token) = self.pending.remove(&id) {
            token.cancel();
        }
    }

    /// Fetch `id` answered: `body` (with the turn it holds) waits for the
    /// guest to take it.
    pub(crate) fn answered(
        &mut self,
        id: u64,
        body: Option<(Vec<u8>, Option<OwnedSemaphorePermit>)>,
    ) {
        self.pending.remove(&id);
        if let Some(body) = body {
            self.bodies.insert(id, body);
        }
    }

    pub(crate) fn take_body(&mut self, id: u64) -> Vec<u8> {
        self.bodies
            .remove(&id)
            .map(|(body, _turn)| body)
            .unwrap_or_default()
    }
}

impl Drop for RunEgress {
    fn drop(&mut self) {
        if let Some((_, cancel)) = &self.sending {
            cancel.cancel();
        }
    }
}
