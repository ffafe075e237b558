//! Results as MCP content: text as text, media as real image, audio and
//! resource blocks, and the structured value.

use coderun_code_mode::{ContentBlock, ToolResult};
use rmcp::model::CallToolResult;

use super::CodeModeServer;

impl CodeModeServer {
    /// `result`, the answer to a call of `name`, as MCP's.
    pub(super) fn wire(&self, name: &str, result: ToolResult) -> CallToolResult {
        let mut wire = wire_result(result);
        // An error result is not the tool's output: its structured value (a
        // refusal's `needs_approval`) would break the output schema the
        // tool declares, which clients check it against.
        if wire.is_error == Some(true)
            && self
                .inner
                .tools
                .iter()
                .any(|tool| tool.name == name && tool.output_schema.is_some())
        {
            wire.structured_content = None;
        }
        wire
    }
}

/// A result as MCP content: text as text, media as real image, audio and
/// resource blocks, and the structured value (for `run_code`, within the
/// output budget with the text).
fn wire_result(result: ToolResult) -> CallToolResult {
    use rmcp::model::{ContentBlock as Wire, ResourceContents};
    let content = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text } => Wire::text(text.clone()),
            ContentBlock::Image { data, mime_type } => Wire::image(data.clone(), mime_type.clone()),
            ContentBlock::Audio { data, mime_type } => Wire::audio(data.clone(), mime_type.clone()),
            ContentBlock::Resource {
                uri,
                mime_type,
                text: Some(text),
                ..
            } => Wire::resource(ResourceContents::TextResourceContents {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: text.clone(),
                meta: None,
            }),
            ContentBlock::Resource {
                uri,
                mime_type,
                blob: Some(blob),
                ..
            } => Wire::resource(ResourceContents::BlobResourceContents {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                blob: blob.clone(),
                meta: None,
            }),
            other => Wire::text(other.to_text()),
        })
        .collect();
    let mut wire = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    wire.structured_content = result.structured;
    wire
}
