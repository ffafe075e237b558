//! The client side of coderun's connection to each upstream: the tap on
//! its transport, which hands the relay every notification in arrival
//! order, and the handler of the requests it makes of its client.
#![allow(
    deprecated,
    reason = "rmcp marks sampling deprecated after MCP 2025-11-25 (SEP-2577); upstreams on \
              2025-11-25 use it"
)]

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationCapability,
    FormElicitationCapability, Implementation, InputRequest, JsonRpcMessage, SamplingCapability,
    ServerNotification, UrlElicitationCapability,
};
use rmcp::service::{RequestContext, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::task_manager::TaskExit;
use rmcp::transport::Transport;
use rmcp::{ClientHandler, ErrorData, RoleClient};

use super::changes::ListChanged;
use super::inputs::CallInputs;
use super::{Caller, Relay};

/// An upstream's transport, watched: each progress notification is queued
/// for its call as it is received, before rmcp, which hands notifications
/// to tasks of their own, can reorder it or deliver the answer first.
pub(crate) struct Tap<T> {
    inner: T,
    upstream: String,
    relay: Arc<Relay>,
}

impl<T> Tap<T> {
    pub(crate) fn new(inner: T, upstream: &str, relay: &Arc<Relay>) -> Self {
        Self {
            inner,
            upstream: upstream.to_owned(),
            relay: Arc::clone(relay),
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Tap<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        if let JsonRpcMessage::Notification(notification) = &message {
            match &notification.notification {
                ServerNotification::ProgressNotification(progress) => self
                    .relay
                    .observe_progress(&self.upstream, progress.params.clone()),
                ServerNotification::LoggingMessageNotification(log) => {
                    self.relay.observe_log(&self.upstream, log.params.clone());
                }
                ServerNotification::ResourceUpdatedNotification(updated) => {
                    self.relay.resource_updated(&self.upstream, &updated.params);
                }
                ServerNotification::ResourceListChangedNotification(_) => {
                    self.relay
                        .list_changed(&self.upstream, ListChanged::Resources);
                }
                ServerNotification::PromptListChangedNotification(_) => {
                    self.relay
                        .list_changed(&self.upstream, ListChanged::Prompts);
                }
                ServerNotification::ToolListChangedNotification(_) => {
                    self.relay.list_changed(&self.upstream, ListChanged::Tools);
                }
                _ => {}
            }
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// The client side of coderun's connection to one upstream.
#[derive(Clone)]
pub(crate) struct UpstreamClient {
    upstream: String,
    relay: Arc<Relay>,
}

impl UpstreamClient {
    pub(crate) fn new(upstream: &str, relay: &Arc<Relay>) -> Self {
        Self {
            upstream: upstream.to_owned(),
            relay: Arc::clone(relay),
        }
    }
}

/// Asks `caller`'s client for `request` without a request to it: as an
/// input request of its task, answered with `tasks/update`; or, for a
/// pausable call, from the answers of an earlier round, else by pausing
/// the program (`inputs` are the asking call's). The answer read as `T`.
async fn ask_later<T: serde::de::DeserializeOwned>(
    caller: &Caller,
    inputs: Option<&CallInputs>,
    relay: &Relay,
    request: InputRequest,
) -> Result<T, ErrorData> {
    let answer = if let Some(task) = &caller.task {
        let key = format!(
            "upstream-{}",
            relay.inputs.fetch_add(1, Ordering::Relaxed) + 1
        );
        task.request_input(key, request)
            .await
            .map_err(|exit| match exit {
                TaskExit::Error(error) => error,
                TaskExit::Cancelled => ErrorData::internal_error("the task was cancelled", None),
            })?
    } else {
        let Some(inputs) = inputs else {
            return Err(ErrorData::invalid_request(
                "coderun cannot relay this request to its client: the program has several calls \
                 of this server in flight, and which one asked is unknown",
                None,
            ));
        };
        inputs.answer(&request).ok_or_else(|| {
            ErrorData::internal_error(
                "the client answers when it retries the program; this call is cancelled and \
                 made again then",
                None,
            )
        })?
    };
    serde_json::from_value(answer).map_err(|error| {
        ErrorData::invalid_params(format!("the client's answer is not valid: {error}"), None)
    })
}

fn relay_error(error: rmcp::ServiceError) -> ErrorData {
    match error {
        rmcp::ServiceError::McpError(error) => error,
        other => ErrorData::internal_error(format!("the client did not answer: {other}"), None),
    }
}

impl ClientHandler for UpstreamClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.sampling = Some(SamplingCapability::default());
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::default());
        elicitation.url = Some(UrlElicitationCapability::default());
        capabilities.elicitation = Some(elicitation);
        ClientConfig::new(
            capabilities,
            Implementation::new("coderun", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let (caller, inputs) =
            self.relay
                .asked(&self.upstream, "a sampling request", |capabilities| {
                    capabilities.sampling.is_some()
                })?;
        if caller.task.is_some() || caller.pausable {
            let request = InputRequest::CreateMessage(CreateMessageRequest::new(params));
            return ask_later(&caller, inputs.as_deref(), &self.relay, request).await;
        }
        caller
            .peer
            .create_message(params)
            .await
            .map_err(relay_error)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let url = matches!(request, ElicitRequestParams::UrlElicitationParams { .. });
        let (caller, inputs) =
            self.relay
                .asked(&self.upstream, "an elicitation request", |capabilities| {
                    capabilities
                        .elicitation
                        .as_ref()
                        .is_some_and(|elicitation| {
                            if url {
                                elicitation.url.is_some()
                            } else {
                                // A capability naming neither mode means form.
                                elicitation.form.is_some() || elicitation.url.is_none()
                            }
                        })
                })?;
        if caller.task.is_some() || caller.pausable {
            let request = InputRequest::Elicitation(ElicitRequest::new(request));
            return ask_later(&caller, inputs.as_deref(), &self.relay, request).await;
        }
        caller
            .peer
            .create_elicitation(request)
            .await
            .map_err(relay_error)
    }
}
