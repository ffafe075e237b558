//! Tools: what a tool is, what its handler is given, and what it returns.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use coderun_runtime::AbortSignal;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;

use crate::trace::RunTrace;

/// A tool's async handler: the call's arguments and its context in, a result out.
pub type ToolHandler =
    Arc<dyn Fn(Value, ToolContext) -> BoxFuture<'static, ToolResult> + Send + Sync>;

/// One tool: a name, a description, the JSON Schema of its arguments (and
/// optionally of its structured result), an async handler, and whether calls
/// to it may overlap other calls.
///
/// Cloning is cheap for the handler (it is shared) and copies the schemas.
///
/// ```
/// use coderun_code_mode::{Tool, ToolResult};
/// use serde_json::json;
///
/// let tool = Tool::new(
///     "add",
///     "Add two numbers.",
///     json!({
///         "type": "object",
///         "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
///         "required": ["a", "b"]
///     }),
///     |args, _ctx| async move {
///         let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
///         ToolResult::text(sum.to_string())
///     },
/// )
/// .concurrency_safe(true);
/// assert_eq!(tool.name(), "add");
/// assert!(tool.is_concurrency_safe());
/// ```
#[derive(Clone)]
pub struct Tool {
    name: String,
    description: String,
    input_schema: Value,
    output_schema: Option<Value>,
    concurrency_safe: bool,
    group: Option<String>,
    text_is_json: bool,
    handler: ToolHandler,
}

impl Tool {
    /// A tool called `name` whose arguments follow `input_schema` and which
    /// `handler` executes. It has no output schema and is not
    /// concurrency-safe.
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResult> + Send + 'static,
    {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema,
            output_schema: None,
            concurrency_safe: false,
            group: None,
            text_is_json: false,
            handler: Arc::new(move |args, ctx| Box::pin(handler(args, ctx))),
        }
    }

    /// Declares the JSON Schema of the tool's structured result. In a
    /// program, a call to the tool then resolves with the result's
    /// [`structured`](ToolResult::structured) value (typed in the SDK)
    /// instead of its text.
    ///
    /// By default a tool has no output schema.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Declares whether calls to this tool may overlap each other. In a
    /// program's call queue, consecutive calls of concurrency-safe tools run
    /// together; any other call runs alone.
    ///
    /// By default this is `false`.
    pub fn concurrency_safe(mut self, safe: bool) -> Self {
        self.concurrency_safe = safe;
        self
    }

    /// Puts the tool in a group (an MCP gateway uses the upstream server's
    /// name): the search listing shows tools by group, and `$search`
    /// results name it.
    ///
    /// By default a tool has no group.
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = Some(group.into());
        self
    }

    /// Declares that the tool's text is JSON: in a program, a result of one
    /// text block that parses as JSON resolves with the parsed value instead
    /// of the text (a tool with an output schema gets this without asking,
    /// when it gives text instead of a structured value).
    ///
    /// By default this is `false`: text stays text.
    pub fn text_is_json(mut self, json: bool) -> Self {
        self.text_is_json = json;
        self
    }

    /// The tool's group, if it has one.
    pub fn get_group(&self) -> Option<&str> {
        self.group.as_deref()
    }

    /// Whether the tool's text is declared to be JSON.
    pub fn is_text_json(&self) -> bool {
        self.text_is_json
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the tool does, as the model is told.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The JSON Schema of the tool's arguments.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The JSON Schema of the tool's structured result, if it declares one.
    pub fn get_output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }

    /// Whether calls to this tool may overlap each other.
    pub fn is_concurrency_safe(&self) -> bool {
        self.concurrency_safe
    }

    /// The tool's handler.
    pub fn handler(&self) -> &ToolHandler {
        &self.handler
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("input_schema", &self.input_schema)
            .field("output_schema", &self.output_schema)
            .field("concurrency_safe", &self.concurrency_safe)
            .field("group", &self.group)
            .field("text_is_json", &self.text_is_json)
            .finish_non_exhaustive()
    }
}

/// One call of a tool, as hooks see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    /// The call's id: the model's tool-call id, or `<parent>:code:<n>` for a
    /// call a `run_code` program made.
    pub id: String,
    /// The tool called.
    pub name: String,
    /// The call's arguments.
    pub arguments: Value,
}

impl ToolCall {
    /// A call of `name` with `arguments`, identified by `id`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
}

/// What a handler gets besides its arguments: the call's id and an abort
/// signal that fires when the call should stop (the caller gave up, or the
/// `run_code` program that made the call has ended).
#[derive(Debug, Clone)]
pub struct ToolContext {
    call_id: String,
    signal: AbortSignal,
}

impl ToolContext {
    /// A context for the call `call_id` observing `signal`.
    pub fn new(call_id: impl Into<String>, signal: AbortSignal) -> Self {
        Self {
            call_id: call_id.into(),
            signal,
        }
    }

    /// The call's id (see [`ToolCall::id`]).
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// Fires when the call should stop; a handler doing slow work should
    /// race it (`signal().aborted()`) and return promptly.
    pub fn signal(&self) -> &AbortSignal {
        &self.signal
    }
}

/// One piece of a tool's output.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum ContentBlock {
    /// Text for the model.
    Text {
        /// The text.
        text: String,
    },
    /// A JSON value; its text is the compact JSON.
    Json {
        /// The value.
        value: Value,
    },
    /// An image, for the model or the user to see.
    Image {
        /// The image, base64-encoded.
        data: String,
        /// Its MIME type (`image/png`).
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A sound.
    Audio {
        /// The audio, base64-encoded.
        data: String,
        /// Its MIME type (`audio/wav`).
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A resource: a file or document the tool returned or points to.
    Resource {
        /// Its URI.
        uri: String,
        /// Its MIME type, when known.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Its text, when it is text and was sent.
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Its bytes, base64-encoded, when it is binary and was sent.
        #[serde(skip_serializing_if = "Option::is_none")]
        blob: Option<String>,
    },
}

impl ContentBlock {
    /// The block as text: the text itself, the compact JSON, a resource's
    /// text, or a description of media (`[image image/png, 1204 bytes of
    /// base64]`).
    pub fn to_text(&self) -> String {
        match self {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::Json { value } => value.to_string(),
            ContentBlock::Image { data, mime_type } => {
                format!("[image {mime_type}, {} bytes of base64]", data.len())
            }
            ContentBlock::Audio { data, mime_type } => {
                format!("[audio {mime_type}, {} bytes of base64]", data.len())
            }
            ContentBlock::Resource {
                uri, text, blob, ..
            } => match (text, blob) {
                (Some(text), _) => text.clone(),
                (None, Some(blob)) => format!("[resource {uri}, {} bytes of base64]", blob.len()),
                (None, None) => format!("[resource {uri}]"),
            },
        }
    }

    /// Whether the block is media the model reads as data, not text: an
    /// image, audio, or a binary resource.
    pub fn is_media(&self) -> bool {
        match self {
            ContentBlock::Image { .. } | ContentBlock::Audio { .. } => true,
            ContentBlock::Resource { blob, .. } => blob.is_some(),
            ContentBlock::Text { .. } | ContentBlock::Json { .. } => false,
        }
    }
}

/// What a tool call produced: content blocks for the model, whether it is an
/// error, and an optional structured value (matching the tool's output
/// schema, when it has one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResult {
    /// The output, in order.
    pub content: Vec<ContentBlock>,
    /// Whether the call failed; the content says why.
    pub is_error: bool,
    /// The structured result, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// For a `run_code` call, what the run did: its calls, their timings,
    /// fuel and memory ([`RunTrace`]). Not part of what the model sees.
    #[serde(skip)]
    pub trace: Option<Box<RunTrace>>,
    /// Set by a handler that cannot finish without something only the
    /// caller can give (say, a person's answer to a question its server
    /// asked): a `run_code` program pauses at the call with this payload,
    /// as for an approval ([`HookDecision::NeedsApproval`](crate::HookDecision::NeedsApproval)),
    /// and resuming with [`Approval::Approve`](crate::Approval::Approve)
    /// dispatches the call again. The registry must allow it
    /// ([`ToolRegistry::handlers_may_pause`](crate::ToolRegistry::handlers_may_pause)),
    /// else the program's call fails with the result's text; outside a
    /// program the result stands as it is. See [`interrupt`](Self::interrupt).
    #[serde(skip)]
    pub interrupt: Option<Value>,
}

impl ToolResult {
    /// A successful result of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::Text { text: text.into() }],
            is_error: false,
            structured: None,
            trace: None,
            interrupt: None,
        }
    }

    /// A result that pauses a `run_code` program at the call with
    /// `payload` (see [`interrupt`](Self#structfield.interrupt)); outside a
    /// program it is an error saying `why`.
    pub fn interrupt(why: impl Into<String>, payload: Value) -> Self {
        Self {
            interrupt: Some(payload),
            ..Self::error(why)
        }
    }

    /// A failed result of one text block saying why.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(text)
        }
    }

    /// A successful structured result: `value` is both the structured value
    /// and (as JSON) the content.
    pub fn json(value: Value) -> Self {
        Self {
            content: vec![ContentBlock::Json {
                value: value.clone(),
            }],
            is_error: false,
            structured: Some(value),
            trace: None,
            interrupt: None,
        }
    }

    /// Sets the structured value.
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }

    /// The content as one text: the blocks' texts joined by newlines.
    pub fn text_content(&self) -> String {
        self.content
            .iter()
            .map(ContentBlock::to_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_content_joins_blocks_with_newlines() {
        let mut result = ToolResult::text("a");
        result.content.push(ContentBlock::Json {
            value: json!({"b": 1}),
        });
        assert_eq!(result.text_content(), "a\n{\"b\":1}");
    }

    #[test]
    fn results_serialize_like_mcp_content() {
        let result = ToolResult::error("boom");
        assert_eq!(
            serde_json::to_value(&result).ok(),
            Some(json!({"content": [{"type": "text", "text": "boom"}], "is_error": true}))
        );
    }
}
