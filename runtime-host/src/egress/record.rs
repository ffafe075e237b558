//! A fetch in a run's record: the request as its arguments (what a replay
//! compares), the response as its outcome (what a replay answers with).
//! Secrets are never in either: the program's headers hold placeholders,
//! the host's own headers are not recorded, and the response was scrubbed
//! before it was recorded.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::exchange::{Response, label};
use crate::guest::{FetchRequest, RedirectMode};
use crate::output::shorten;

/// The function a fetch is recorded under; its namespace is empty, which
/// no binding's can be.
pub(crate) const FETCH_FUNCTION: &str = "fetch";

/// The most bytes of URL and of headers a record keeps as text; past it,
/// a digest stands in (such a request is refused anyway).
const MAX_RECORDED_URL_BYTES: usize = 16 * 1024;
const MAX_RECORDED_HEADERS: usize = 100;

fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The request as a record keeps it: method, URL, headers, redirect mode,
/// and the body's length and digest.
pub(crate) fn describe_request(request: &FetchRequest) -> Value {
    let url = if request.url.len() <= MAX_RECORDED_URL_BYTES {
        Value::from(request.url.as_str())
    } else {
        json!({ "bytes": request.url.len(), "sha256": digest(request.url.as_bytes()) })
    };
    let headers = if request.headers.len() <= MAX_RECORDED_HEADERS {
        Value::from(
            request
                .headers
                .iter()
                .map(|(name, value)| json!([shorten(name, 256), shorten(value, 4096)]))
                .collect::<Vec<_>>(),
        )
    } else {
        let mut all = Vec::new();
        for (name, value) in &request.headers {
            all.extend_from_slice(name.as_bytes());
            all.push(0);
            all.extend_from_slice(value.as_bytes());
            all.push(0);
        }
        json!({ "count": request.headers.len(), "sha256": digest(&all) })
    };
    let body = request
        .body
        .as_ref()
        .map(|body| json!({ "bytes": body.len(), "sha256": digest(body) }));
    json!({
        "method": shorten(&request.method, 64),
        "url": url,
        "headers": headers,
        "redirect": match request.redirect {
            RedirectMode::Follow => "follow",
            RedirectMode::Error => "error",
            RedirectMode::Manual => "manual",
        },
        "body": body,
    })
}

/// How a divergence names a recorded request: `fetch GET https://…`.
pub(crate) fn name_recorded(arguments: &Value) -> String {
    let method = arguments
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let url = match arguments.get("url") {
        Some(Value::String(url)) => url.clone(),
        Some(other) => other.to_string(),
        None => "?".into(),
    };
    label(method, &url)
}

/// The response as a record keeps it: its head, with the body in base64.
pub(crate) fn recorded_response(response: &Response) -> Value {
    let mut value = response.head.clone();
    if let Some(head) = value.as_object_mut() {
        head.insert("body".into(), STANDARD.encode(&response.body).into());
    }
    value
}

/// A recorded response as the guest gets it: the head's JSON and the body.
pub(crate) fn split_outcome(mut recorded: Value) -> Result<(String, Vec<u8>), String> {
    let malformed = || "the record's response to this fetch is malformed".to_owned();
    let head = recorded.as_object_mut().ok_or_else(malformed)?;
    let body = match head.remove("body") {
        Some(Value::String(text)) => STANDARD.decode(text).map_err(|_| malformed())?,
        _ => return Err(malformed()),
    };
    Ok((recorded.to_string(), body))
}
