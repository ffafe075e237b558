//! One upstream tool call: sent with its own progress token and span,
//! its progress and log messages relayed, the upstream's questions answered
//! or the program paused, cancelled upstream when the caller gives up, and
//! the answer converted to Code Mode's.

use std::sync::Arc;
use std::time::Duration;

use coderun_code_mode::{ContentBlock, ToolContext, ToolResult};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use rmcp::{Peer, RoleClient, ServiceError};
use serde_json::Value;
use tracing::Instrument as _;

use super::seconds;
use super::stderr::StderrTail;
use crate::jsonrpc::kind;
use crate::relay::{CallInputs, Relay};

/// Everything one forwarded tool needs.
pub(super) struct Forward {
    pub(super) upstream: String,
    pub(super) tool: String,
    pub(super) peer: Peer<RoleClient>,
    pub(super) stderr: StderrTail,
    pub(super) call_timeout: Duration,
    pub(super) structured: bool,
    pub(super) relay: Arc<Relay>,
}

impl Forward {
    pub(super) async fn call(&self, args: Value, ctx: ToolContext) -> ToolResult {
        let mut params = CallToolRequestParams::new(self.tool.clone());
        match args {
            Value::Object(arguments) => params = params.with_arguments(arguments),
            Value::Null => {}
            other => {
                return ToolResult::error(format!(
                    "{} takes an argument object, not {}",
                    self.tool,
                    kind(&other)
                ));
            }
        }
        // Dropping the call future (abort or timeout) sends the upstream
        // `notifications/cancelled` for the request.
        let started = std::time::Instant::now();
        let call = tokio::time::timeout(self.call_timeout, self.send(params, ctx.call_id()));
        let counted = |outcome: &str| {
            crate::ops::Metrics::global().upstream_call(
                &self.upstream,
                &self.tool,
                outcome,
                started.elapsed(),
            );
        };
        tokio::select! {
            outcome = call => match outcome {
                Ok(Sent::Answered(result)) => {
                    counted(if result.is_error == Some(true) { "error" } else { "ok" });
                    self.convert(result)
                }
                Ok(Sent::Failed(error)) => {
                    counted("error");
                    ToolResult::error(self.explain(&error))
                }
                Ok(Sent::Paused(payload)) => {
                    counted("paused");
                    ToolResult::interrupt(
                    format!(
                        "upstream {:?} asked the client a question during a call of its tool \
                         {:?}, which only a run_code program can wait for",
                        self.upstream, self.tool
                    ),
                    payload,
                    )
                }
                Err(_) => {
                    counted("timeout");
                    ToolResult::error(format!(
                        "upstream {:?} did not answer a call of its tool {:?} within {}; the call \
                         was cancelled",
                        self.upstream,
                        self.tool,
                        seconds(self.call_timeout)
                    ))
                }
            },
            reason = ctx.signal().aborted() => {
                counted("cancelled");
                tracing::info!(upstream = %self.upstream, tool = %self.tool, "call cancelled: {reason}");
                ToolResult::error(format!("the call was cancelled: {reason}"))
            }
        }
    }

    /// Sends the call, its progress relayed to the client call `call_id`
    /// belongs to while it runs, and the questions its upstream asks
    /// answered from the client's earlier answers, or else pausing it (see
    /// relay/inputs.rs).
    async fn send(&self, mut params: CallToolRequestParams, call_id: &str) -> Sent {
        let span = match self.relay.caller_span(call_id) {
            Some(parent) => tracing::info_span!(
                parent: &parent,
                "upstream_call",
                server = %self.upstream,
                tool = %self.tool
            ),
            None => {
                tracing::info_span!("upstream_call", server = %self.upstream, tool = %self.tool)
            }
        };
        crate::traces::inject(&span, params.meta.get_or_insert_with(Default::default));
        self.sent(params, call_id).instrument(span).await
    }

    async fn sent(&self, params: CallToolRequestParams, call_id: &str) -> Sent {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let inputs = Arc::new(CallInputs::new(self.relay.take_answers(call_id)));
        let mut route =
            self.relay
                .upstream_call(&self.upstream, &self.tool, call_id, Arc::clone(&inputs));
        let handle = match self
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(error) => return Sent::Failed(error),
        };
        route.sent(handle.progress_token.clone());
        let mut abandoned = Abandoned {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let response = tokio::select! {
            response = handle.await_response() => response,
            // Dropping the request (`abandoned`) cancels it upstream.
            () = inputs.paused() => {
                return Sent::Paused(inputs.payload(&self.upstream, &self.tool));
            }
        };
        abandoned.id = None;
        route.settle().await;
        match response {
            Ok(ServerResult::CallToolResult(result)) => Sent::Answered(result),
            Ok(_) => Sent::Failed(ServiceError::UnexpectedResponse),
            Err(error) => Sent::Failed(error),
        }
    }

    fn explain(&self, error: &ServiceError) -> String {
        let what = match error {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                "lost the connection (the server exited or closed it)".to_owned()
            }
            ServiceError::McpError(data) => format!("answered with an error: {}", data.message),
            other => format!("failed: {other}"),
        };
        format!(
            "upstream {:?} {what} during a call of its tool {:?}{}",
            self.upstream,
            self.tool,
            self.stderr.explain()
        )
    }

    /// The upstream's result as Code Mode's: its content blocks (text as
    /// text, images, audio and embedded resources as themselves, anything
    /// else described), its error flag, and its structured content when the
    /// tool declares an output schema.
    fn convert(&self, result: CallToolResult) -> ToolResult {
        let content = result.content.iter().map(block).collect();
        let mut converted = ToolResult::text("");
        converted.content = content;
        converted.is_error = result.is_error.unwrap_or(false);
        if self.structured && !converted.is_error {
            converted.structured = result.structured_content;
        }
        converted
    }
}

/// How a forwarded call ended.
enum Sent {
    /// The upstream answered.
    Answered(CallToolResult),
    /// The request failed.
    Failed(ServiceError),
    /// The upstream asked the client a question it answers on a later
    /// round: the program pauses with this payload.
    Paused(Value),
}

/// A request sent and not answered yet: dropped (the caller gave up), it
/// tells the upstream with `notifications/cancelled`.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<rmcp::model::RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let peer = self.peer.clone();
        let cancelled =
            CancelledNotificationParam::new(Some(id), Some("the call was cancelled".to_owned()));
        // Best effort, after the caller has moved on.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer.notify_cancelled(cancelled).await;
            });
        }
    }
}

/// An upstream content block as Code Mode's.
fn block(block: &rmcp::model::ContentBlock) -> ContentBlock {
    use rmcp::model::ContentBlock as Block;
    use rmcp::model::ResourceContents as Contents;
    match block {
        Block::Text(text) => ContentBlock::Text {
            text: text.text.clone(),
        },
        Block::Image(image) => ContentBlock::Image {
            data: image.data.clone(),
            mime_type: image.mime_type.clone(),
        },
        Block::Audio(audio) => ContentBlock::Audio {
            data: audio.data.clone(),
            mime_type: audio.mime_type.clone(),
        },
        Block::Resource(embedded) => match &embedded.resource {
            Contents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => ContentBlock::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: Some(text.clone()),
                blob: None,
            },
            Contents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => ContentBlock::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: None,
                blob: Some(blob.clone()),
            },
            #[allow(
                unreachable_patterns,
                reason = "rmcp's ResourceContents is non-exhaustive across versions"
            )]
            _ => ContentBlock::Text {
                text: "[resource]".to_owned(),
            },
        },
        Block::ResourceLink(link) => ContentBlock::Resource {
            uri: link.uri.clone(),
            mime_type: link.mime_type.clone(),
            text: None,
            blob: None,
        },
        #[allow(
            unreachable_patterns,
            reason = "rmcp adds content kinds in minor versions"
        )]
        _ => ContentBlock::Text {
            text: "[content of a kind coderun does not render]".to_owned(),
        },
    }
}
