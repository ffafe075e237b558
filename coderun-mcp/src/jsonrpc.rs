//! What one incoming message is under JSON-RPC 2.0 and MCP: a message for
//! rmcp to serve, or an error coderun answers itself.
//!
//! rmcp drops text that is not JSON, answers other malformed messages
//! without an `id`, and maps a known method whose params do not fit its type
//! to "method not found" (its untagged request enum falls through to the
//! custom-request variant). This module holds the rules rmcp is missing, in
//! the order JSON-RPC gives them:
//!
//! - text that is not JSON: `-32700` (Parse error), `"id": null`;
//! - a JSON array: `-32600`, since MCP 2025-06-18 removed batching;
//! - JSON that is not a request, notification or response: `-32600`, with
//!   the message's `id` when it has a valid one, else `"id": null`;
//! - a request whose params are not an object (MCP's always are), or for a
//!   method this server serves (`initialize`, `ping`, `tools/list`,
//!   `tools/call`) whose params do not fit it: `-32602` (Invalid params)
//!   with its `id`; a notification like that is ignored.
//!
//! Every error reply carries `"id"`, `null` when the request's could not be
//! read, as JSON-RPC 2.0 §5 requires.

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, ErrorData,
    InitializeRequest, ListToolsRequest, PingRequest, RequestId,
};
use serde::{Deserialize as _, Serialize};
use serde_json::Value;

/// What a line (or request body) is.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A valid message, for rmcp.
    Message(Box<ClientJsonRpcMessage>),
    /// An invalid one, answered with this error.
    Invalid(ErrorReply),
    /// Nothing to answer: a blank line, or a notification rmcp cannot read
    /// (JSON-RPC never answers a notification).
    Ignored,
}

/// A JSON-RPC error response whose `id` is always present (`null` when the
/// request's id could not be read). rmcp's own error type leaves an absent
/// id out, which JSON-RPC 2.0 does not allow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ErrorReply {
    jsonrpc: &'static str,
    id: Option<RequestId>,
    error: ErrorData,
}

impl ErrorReply {
    pub(crate) fn new(id: Option<RequestId>, error: ErrorData) -> Self {
        Self {
            jsonrpc: "2.0",
            id,
            error,
        }
    }

    /// The reply as one line of JSON, with its newline.
    pub(crate) fn to_line(&self) -> Vec<u8> {
        let mut line = serde_json::to_vec(self).unwrap_or_else(|_| {
            // An ErrorData with a non-serialisable `data` cannot be built
            // here; keep a valid reply regardless.
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#
                .to_vec()
        });
        line.push(b'\n');
        line
    }

    /// The error's message.
    pub(crate) fn message(&self) -> &str {
        &self.error.message
    }
}

/// The reply to a message longer than `max_bytes`.
pub(crate) fn oversized(max_bytes: usize) -> ErrorReply {
    ErrorReply::new(
        None,
        ErrorData::invalid_request(
            format!(
                "Invalid Request: the message is longer than the limit of {max_bytes} bytes \
                 (--max-message-bytes, limits.maxMessageBytes) and was discarded"
            ),
            None,
        ),
    )
}

/// The methods this server serves whose params rmcp types: a request for
/// one of them that rmcp reads as a custom request has params that do not fit.
const TYPED_METHODS: [&str; 4] = ["initialize", "ping", "tools/list", "tools/call"];

/// Classifies one line (its newline, a trailing `\r` and a leading UTF-8
/// byte order mark are ignored).
pub(crate) fn classify(line: &[u8]) -> Incoming {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Incoming::Ignored;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(error) => {
            return Incoming::Invalid(ErrorReply::new(
                None,
                ErrorData::parse_error(format!("Parse error: {error}"), None),
            ));
        }
    };
    classify_value(&value)
}

/// Classifies one parsed JSON value.
pub(crate) fn classify_value(value: &Value) -> Incoming {
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return invalid_request(
                None,
                "batches (JSON arrays) are not supported: MCP 2025-06-18 removed JSON-RPC \
                 batching; send one message at a time"
                    .to_owned(),
            );
        }
        other => {
            return invalid_request(
                None,
                format!("a message must be a JSON object (got {})", kind(other)),
            );
        }
    };
    let id = object.get("id").and_then(readable_id);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid_request(id, "\"jsonrpc\" must be \"2.0\"".to_owned());
    }
    let method = object.get("method");
    if let Some(method) = method
        && !method.is_string()
    {
        return invalid_request(
            id,
            format!("\"method\" must be a string (got {})", kind(method)),
        );
    }
    if method.is_some()
        && let Some(raw_id) = object.get("id")
        && id.is_none()
    {
        return invalid_request(
            None,
            format!(
                "\"id\" must be a string or an integer (got {})",
                kind(raw_id)
            ),
        );
    }
    if let (Some(Value::String(method)), Some(params)) = (method, object.get("params"))
        && !params.is_object()
    {
        // MCP's params are always an object; rmcp cannot read the message.
        let reason = format!("{method} params must be an object (got {})", kind(params));
        return match id {
            Some(id) => invalid_params(id, reason),
            None => {
                tracing::debug!("ignoring a notification: {reason}");
                Incoming::Ignored
            }
        };
    }
    let message = match ClientJsonRpcMessage::deserialize(value) {
        Ok(message) => message,
        Err(error) => return invalid_request(id, error.to_string()),
    };
    if let ClientJsonRpcMessage::Request(request) = &message
        && let ClientRequest::CustomRequest(custom) = &request.request
        && TYPED_METHODS.contains(&custom.method.as_str())
    {
        return invalid_params(request.id.clone(), params_problem(&custom.method, value));
    }
    Incoming::Message(Box::new(message))
}

fn invalid_params(id: RequestId, reason: String) -> Incoming {
    Incoming::Invalid(ErrorReply::new(
        Some(id),
        ErrorData::invalid_params(format!("Invalid params: {reason}"), None),
    ))
}

fn invalid_request(id: Option<RequestId>, reason: String) -> Incoming {
    Incoming::Invalid(ErrorReply::new(
        id,
        ErrorData::invalid_request(format!("Invalid Request: {reason}"), None),
    ))
}

/// The id of a message, when it is one JSON-RPC allows (MCP also rules out
/// `null`).
fn readable_id(id: &Value) -> Option<RequestId> {
    match id {
        Value::String(_) | Value::Number(_) => RequestId::deserialize(id).ok(),
        _ => None,
    }
}

/// Why the params of a request for `method`, one of [`TYPED_METHODS`], do
/// not fit.
fn params_problem(method: &str, request: &Value) -> String {
    let params = request.get("params");
    if method == "tools/call" {
        let Some(params) = params else {
            return "tools/call needs params: an object with the tool's \"name\" and its \
                    \"arguments\""
                .to_owned();
        };
        let fields = params.as_object();
        match fields.and_then(|fields| fields.get("name")) {
            Some(Value::String(_)) => {}
            Some(other) => {
                return format!(
                    "tools/call params.name must be a string (got {})",
                    kind(other)
                );
            }
            None => return "tools/call params.name is missing".to_owned(),
        }
        if let Some(arguments) = fields.and_then(|fields| fields.get("arguments"))
            && !matches!(arguments, Value::Object(_) | Value::Null)
        {
            return format!(
                "tools/call params.arguments must be an object (got {})",
                kind(arguments)
            );
        }
        if let Err(error) = CallToolRequestParams::deserialize(params) {
            return format!("tools/call params: {error}");
        }
    }
    let error = match method {
        "initialize" => InitializeRequest::deserialize(request).err(),
        "ping" => PingRequest::deserialize(request).err(),
        "tools/list" => ListToolsRequest::deserialize(request).err(),
        _ => CallToolRequest::deserialize(request).err(),
    };
    match error {
        Some(error) => format!("{method} params: {error}"),
        None => format!("{method} params do not fit the method"),
    }
}

/// A JSON value's kind, for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn reply(line: &str) -> Value {
        match classify(line.as_bytes()) {
            Incoming::Invalid(reply) => serde_json::from_slice(&reply.to_line()).expect("json"),
            other => panic!("{line} is not answered with an error: {other:?}"),
        }
    }

    #[track_caller]
    fn assert_error(line: &str, id: Value, code: i64, needle: &str) {
        let reply = reply(line);
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["error"]["code"], code, "{reply}");
        let message = reply["error"]["message"].as_str().expect("a message");
        assert!(message.contains(needle), "{message:?} lacks {needle:?}");
    }

    #[test]
    fn text_that_is_not_json_is_a_parse_error_with_a_null_id() {
        assert_error("{\"jsonrpc\": ", Value::Null, -32700, "Parse error: ");
        assert_error("hello", Value::Null, -32700, "Parse error: ");
        assert_error("\u{FEFF}{", Value::Null, -32700, "Parse error: ");
    }

    #[test]
    fn invalid_messages_are_invalid_requests_with_the_id_when_readable() {
        let cases = [
            ("[]", Value::Null, "batches"),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                Value::Null,
                "batches",
            ),
            ("42", Value::Null, "got a number"),
            (r#"{"id":3,"method":"ping"}"#, Value::from(3), "\"jsonrpc\""),
            (
                r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#,
                Value::from("a"),
                "\"jsonrpc\"",
            ),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":7}"#,
                Value::from(4),
                "\"method\"",
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                Value::Null,
                "got null",
            ),
            (
                r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
                Value::Null,
                "got an array",
            ),
            (
                r#"{"jsonrpc":"2.0","id":5}"#,
                Value::from(5),
                "Invalid Request: ",
            ),
            (r#"{"jsonrpc":"2.0"}"#, Value::Null, "Invalid Request: "),
        ];
        for (line, id, needle) in cases {
            assert_error(line, id, -32600, needle);
        }
    }

    #[test]
    fn tools_call_with_params_that_do_not_fit_is_invalid_params() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
                "needs params",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}"#,
                "got an array",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
                "name is missing",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}}"#,
                "params.name must be a string (got a number)",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code","arguments":"x"}}"#,
                "params.arguments must be an object (got a string)",
            ),
        ];
        for (line, needle) in cases {
            assert_error(line, Value::from(1), -32602, needle);
        }
    }

    #[test]
    fn other_served_methods_with_params_that_do_not_fit_are_invalid_params() {
        assert_error(
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/list","params":5}"#,
            Value::from("x"),
            -32602,
            "tools/list params must be an object (got a number)",
        );
        assert_error(
            r#"{"jsonrpc":"2.0","id":"y","method":"some/extension","params":[1]}"#,
            Value::from("y"),
            -32602,
            "some/extension params must be an object (got an array)",
        );
        assert_error(
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}"#,
            Value::from(2),
            -32602,
            "initialize params: ",
        );
    }

    #[test]
    fn valid_messages_and_blank_lines_pass() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code","arguments":{"code":"1"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":"s","method":"some/extension","params":{"a":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n",
        ] {
            assert!(
                matches!(classify(line.as_bytes()), Incoming::Message(_)),
                "{line}"
            );
        }
        assert!(matches!(classify(b"  \r\n"), Incoming::Ignored));
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/x","params":[1]}"#),
            Incoming::Ignored
        ));
    }

    #[test]
    fn the_oversized_reply_names_the_cap() {
        let reply: Value = serde_json::from_slice(&oversized(1024).to_line()).expect("json");
        assert_eq!(reply["id"], Value::Null);
        assert_eq!(reply["error"]["code"], -32600);
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|message| message.contains("limit of 1024 bytes")),
            "{reply}"
        );
    }
}
