//! An upstream's `tools/list`, read page by page within caps: a server
//! that pages forever, or lists more tools than any catalog holds, fails
//! to start with a message naming the cap instead of growing coderun's
//! memory without bound. Each tool is read on its own: one malformed
//! definition is left out with a note, and its siblings are served.

use rmcp::model::{ClientRequest, CustomRequest, ServerResult, Tool};
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleClient};
use serde_json::{Value, json};

/// The most pages of `tools/list` read from one upstream, by default.
pub const DEFAULT_MAX_PAGES: usize = 100;
/// The most tools taken from one upstream, by default.
pub const DEFAULT_MAX_TOOLS: usize = 10_000;
/// The most bytes of tool definitions (their JSON) taken from one
/// upstream, by default.
pub const DEFAULT_MAX_BYTES: usize = 16 << 20;

/// The caps on one upstream's `tools/list` (the configuration's
/// `maxListingPages`, `maxListedTools` and `maxListingBytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListingCaps {
    /// Pages read.
    pub pages: usize,
    /// Tools taken.
    pub tools: usize,
    /// Bytes of tool definitions taken.
    pub bytes: usize,
}

impl Default for ListingCaps {
    fn default() -> Self {
        Self {
            pages: DEFAULT_MAX_PAGES,
            tools: DEFAULT_MAX_TOOLS,
            bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// Why a listing stopped.
#[derive(Debug)]
pub enum ListingError {
    /// The request failed.
    Service(ServiceError),
    /// A cap was reached; the text names it.
    Cap(String),
    /// The result is not a page of tools; the text says why.
    Malformed(String),
}

/// The most malformed tools noted by name; past it, one note counts the rest.
const MAX_NOTED: usize = 5;
/// The bytes of a malformed tool's name, and of the reason, a note shows.
const NOTE_BYTES: usize = 64;

/// What an upstream's `tools/list` gave.
#[derive(Debug, Default)]
pub struct Listing {
    /// Its well-formed tools, in its order.
    pub tools: Vec<Tool>,
    /// One note per malformed tool left out (at most [`MAX_NOTED`], then
    /// one that counts the rest).
    pub skipped: Vec<String>,
}

/// Every tool `peer` lists, page after page, within the caps.
pub async fn list_tools(
    peer: &Peer<RoleClient>,
    caps: ListingCaps,
) -> Result<Listing, ListingError> {
    let mut listing = Listing::default();
    let mut malformed = 0usize;
    let mut bytes = 0usize;
    let mut cursor: Option<String> = None;
    for _ in 0..caps.pages {
        let params = cursor.map(|cursor| json!({ "cursor": cursor }));
        let request = ClientRequest::CustomRequest(CustomRequest::new("tools/list", params));
        let page = page_of(
            peer.send_request(request)
                .await
                .map_err(ListingError::Service)?,
        )?;
        for entry in page.tools {
            bytes = bytes.saturating_add(serde_json::to_vec(&entry).map_or(0, |json| json.len()));
            if listing.tools.len() >= caps.tools || bytes > caps.bytes {
                return Err(ListingError::Cap(format!(
                    "its tools/list holds more than {} tools or {} bytes of tool definitions, \
                     coderun's caps (maxListedTools, maxListingBytes)",
                    caps.tools, caps.bytes
                )));
            }
            let name = entry.get("name").and_then(Value::as_str).map(shown);
            match serde_json::from_value::<Tool>(entry) {
                Ok(tool) => listing.tools.push(tool),
                Err(error) => {
                    malformed += 1;
                    if malformed <= MAX_NOTED {
                        let name =
                            name.map_or_else(|| "without a name".into(), |n| format!("{n:?}"));
                        let why = shown(&error.to_string());
                        listing.skipped.push(format!(
                            "its tool {name} is left out: its definition is malformed ({why})"
                        ));
                    }
                }
            }
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => {
                if malformed > MAX_NOTED {
                    listing.skipped.push(format!(
                        "{} more of its tools are left out: their definitions are malformed",
                        malformed - MAX_NOTED
                    ));
                }
                return Ok(listing);
            }
        }
    }
    Err(ListingError::Cap(format!(
        "its tools/list went on for more than {} pages, coderun's cap (maxListingPages)",
        caps.pages
    )))
}

/// One page of `tools/list`: its tools, each still JSON, and its cursor.
struct Page {
    tools: Vec<Value>,
    next_cursor: Option<String>,
}

/// The page in a `tools/list` result. A page whose every tool is well
/// formed arrives typed; one with a malformed tool arrives as the JSON the
/// typed result could not take, and is read here field by field.
fn page_of(result: ServerResult) -> Result<Page, ListingError> {
    let value = match result {
        ServerResult::CustomResult(custom) => custom.0,
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    };
    let Value::Object(mut fields) = value else {
        return Err(ListingError::Malformed(
            "its tools/list result is not an object".into(),
        ));
    };
    let tools = match fields.remove("tools") {
        Some(Value::Array(tools)) => tools,
        _ => {
            return Err(ListingError::Malformed(
                "its tools/list result has no `tools` array".into(),
            ));
        }
    };
    let next_cursor = match fields.remove("nextCursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(cursor)) => Some(cursor),
        Some(_) => {
            return Err(ListingError::Malformed(
                "its tools/list result's `nextCursor` is not a string".into(),
            ));
        }
    };
    Ok(Page { tools, next_cursor })
}

/// At most [`NOTE_BYTES`] of `text` (cut on a character boundary, `…`
/// marking the cut), for a note.
fn shown(text: &str) -> String {
    if text.len() <= NOTE_BYTES {
        return text.to_owned();
    }
    let mut end = NOTE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
