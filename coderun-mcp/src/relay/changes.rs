//! Changes clients hear of without a call in flight: updates of the
//! resources they subscribed to through coderun, and changes of an
//! upstream's resource and prompt lists (mode both and native).

use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::{ErrorData, Peer, RoleServer};

use super::{Relay, lock};

/// The most client sessions told of list changes.
const MAX_LISTENING_CLIENTS: usize = 10_000;

/// Which of an upstream's lists changed.
#[derive(Debug, Clone, Copy)]
pub(super) enum ListChanged {
    Tools,
    Resources,
    Prompts,
}

/// One client session's subscription to an upstream's resource.
pub(super) struct Subscription {
    upstream: String,
    uri: String,
    session: u64,
    client: Peer<RoleServer>,
}

/// The most resource subscriptions held for all clients together.
const MAX_SUBSCRIPTIONS: usize = 10_000;

impl Relay {
    /// Records that client `session` subscribed to `upstream`'s `uri`.
    pub(crate) fn subscribe(
        &self,
        upstream: &str,
        uri: &str,
        session: u64,
        client: &Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        let mut subscriptions = lock(&self.subscriptions);
        // The subscriptions of sessions that ended go first.
        subscriptions.retain(|held| !held.client.is_transport_closed());
        if subscriptions
            .iter()
            .any(|held| held.uri == uri && held.session == session)
        {
            return Ok(());
        }
        if subscriptions.len() >= MAX_SUBSCRIPTIONS {
            return Err(ErrorData::internal_error(
                format!("coderun holds {MAX_SUBSCRIPTIONS} resource subscriptions already"),
                None,
            ));
        }
        subscriptions.push(Subscription {
            upstream: upstream.to_owned(),
            uri: uri.to_owned(),
            session,
            client: client.clone(),
        });
        Ok(())
    }

    /// Forgets client `session`'s subscription to `uri`; the upstream to
    /// unsubscribe from, if no other session still wants its updates.
    pub(crate) fn unsubscribe(&self, uri: &str, session: u64) -> Option<String> {
        let mut subscriptions = lock(&self.subscriptions);
        let at = subscriptions
            .iter()
            .position(|held| held.uri == uri && held.session == session)?;
        let gone = subscriptions.remove(at);
        let wanted = subscriptions
            .iter()
            .any(|held| held.uri == uri && held.upstream == gone.upstream);
        (!wanted).then_some(gone.upstream)
    }

    /// Tells every client subscribed to `upstream`'s `uri` that it changed.
    pub(super) fn resource_updated(
        &self,
        upstream: &str,
        params: &ResourceUpdatedNotificationParam,
    ) {
        let clients: Vec<Peer<RoleServer>> = lock(&self.subscriptions)
            .iter()
            .filter(|held| held.upstream == upstream && held.uri == params.uri)
            .map(|held| held.client.clone())
            .collect();
        for client in clients {
            let params = params.clone();
            tokio::spawn(async move {
                let _ = client.notify_resource_updated(params).await;
            });
        }
    }

    /// Records a client session to tell of list changes.
    pub(crate) fn listen(&self, client: &Peer<RoleServer>) {
        let mut clients = lock(&self.clients);
        clients.retain(|held| !held.is_transport_closed());
        if clients.len() < MAX_LISTENING_CLIENTS {
            clients.push(client.clone());
        }
    }

    /// Tells the listening clients that `upstream`'s `list` changed. The
    /// tools are an exception: coderun serves the tools it listed at start.
    pub(super) fn list_changed(&self, upstream: &str, list: ListChanged) {
        if let ListChanged::Tools = list {
            tracing::warn!(
                upstream = %upstream,
                "the upstream's tools changed; coderun serves the tools it listed at start \
                 (restart it to offer the new ones)"
            );
            return;
        }
        let clients: Vec<Peer<RoleServer>> = lock(&self.clients)
            .iter()
            .filter(|client| !client.is_transport_closed())
            .cloned()
            .collect();
        for client in clients {
            tokio::spawn(async move {
                let _ = match list {
                    ListChanged::Resources => client.notify_resource_list_changed().await,
                    ListChanged::Prompts => client.notify_prompt_list_changed().await,
                    ListChanged::Tools => Ok(()),
                };
            });
        }
    }
}
