//! Abort signals: a controller fires once with a reason, every signal cloned
//! from it observes that reason.

use std::sync::Arc;

use tokio::sync::watch;

/// Fires an [`AbortSignal`]. Cloning the controller shares it.
///
/// ```
/// use coderun_runtime::AbortController;
///
/// let controller = AbortController::new();
/// let signal = controller.signal();
/// assert!(!signal.is_aborted());
/// controller.abort("user pressed stop");
/// assert_eq!(signal.reason().as_deref(), Some("user pressed stop"));
/// ```
#[derive(Clone, Debug)]
pub struct AbortController {
    sender: Arc<watch::Sender<Option<String>>>,
}

impl AbortController {
    /// A controller that has not fired.
    pub fn new() -> Self {
        Self {
            sender: Arc::new(watch::channel(None).0),
        }
    }

    /// A signal that observes this controller.
    pub fn signal(&self) -> AbortSignal {
        AbortSignal {
            receiver: self.sender.subscribe(),
        }
    }

    /// Fires the signal with `reason`. Only the first call has an effect: the
    /// first reason is the one every observer sees.
    pub fn abort(&self, reason: impl Into<String>) {
        let reason = reason.into();
        self.sender.send_if_modified(|current| {
            if current.is_some() {
                return false;
            }
            *current = Some(reason);
            true
        });
    }
}

impl Default for AbortController {
    fn default() -> Self {
        Self::new()
    }
}

/// The observing half of an [`AbortController`].
#[derive(Clone, Debug)]
pub struct AbortSignal {
    receiver: watch::Receiver<Option<String>>,
}

impl AbortSignal {
    /// Whether the controller has fired.
    pub fn is_aborted(&self) -> bool {
        self.receiver.borrow().is_some()
    }

    /// The reason the controller fired with, if it has.
    pub fn reason(&self) -> Option<String> {
        self.receiver.borrow().clone()
    }

    /// Resolves with the reason once the controller fires; never resolves if
    /// the controller is dropped without firing. Cancelling it has no effect
    /// on the signal.
    pub async fn aborted(&self) -> String {
        let mut receiver = self.receiver.clone();
        let reason = receiver
            .wait_for(Option::is_some)
            .await
            .map(|reason| reason.clone().unwrap_or_default());
        match reason {
            Ok(reason) => reason,
            Err(_) => std::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn first_reason_wins() {
        let controller = AbortController::new();
        let signal = controller.signal();
        controller.abort("first");
        controller.abort("second");
        assert_eq!(signal.aborted().await, "first");
    }

    #[tokio::test]
    async fn dropped_controller_never_fires() {
        let controller = AbortController::new();
        let signal = controller.signal();
        drop(controller);
        let waited =
            tokio::time::timeout(std::time::Duration::from_millis(20), signal.aborted()).await;
        assert!(waited.is_err());
        assert!(!signal.is_aborted());
    }
}
