//! An upstream's `tools/list`, read page by page within caps: a server
//! that pages forever, or lists more tools than any catalog holds, fails
//! to start with a message naming the cap instead of growing coderun's
//! memory without bound.

use rmcp::model::{PaginatedRequestParams, Tool};
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleClient};

/// The most pages of `tools/list` read from one upstream.
pub const MAX_PAGES: usize = 100;
/// The most tools taken from one upstream.
pub const MAX_TOOLS: usize = 10_000;
/// The most bytes of tool definitions (their JSON) taken from one upstream.
pub const MAX_BYTES: usize = 16 << 20;

/// Why a listing stopped.
#[derive(Debug)]
pub enum ListingError {
    /// The request failed.
    Service(ServiceError),
    /// A cap was reached; the text names it.
    Cap(String),
}

/// Every tool `peer` lists, page after page, within the caps.
pub async fn list_tools(peer: &Peer<RoleClient>) -> Result<Vec<Tool>, ListingError> {
    let mut tools = Vec::new();
    let mut bytes = 0usize;
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let page = peer
            .list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .map_err(ListingError::Service)?;
        for tool in page.tools {
            bytes = bytes.saturating_add(serde_json::to_vec(&tool).map_or(0, |json| json.len()));
            if tools.len() >= MAX_TOOLS || bytes > MAX_BYTES {
                return Err(ListingError::Cap(format!(
                    "its tools/list holds more than {MAX_TOOLS} tools or {} MiB of tool \
                     definitions, coderun's caps",
                    MAX_BYTES >> 20
                )));
            }
            tools.push(tool);
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(tools),
        }
    }
    Err(ListingError::Cap(format!(
        "its tools/list went on for more than {MAX_PAGES} pages, coderun's cap"
    )))
}
