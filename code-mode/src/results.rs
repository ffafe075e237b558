//! Results both ways: what a program gets from a tool call, and what
//! `run_code` returns for a run, within one output budget.
//!
//! A call resolves with the tool's value: its structured value when it
//! declares an output schema and gave one; else, for content of one text
//! block, the text, parsed as JSON only when the tool says its text is JSON
//! (or declares an output schema but sent text); a lone media block as its
//! handle; several blocks as an array of typed blocks. Media (images, audio,
//! binary resources) stay on the host, in the run's [`Media`]: the program
//! gets `{type, mimeType, handle, bytes}`, and the media whose handle the
//! program's output mentions are attached to `run_code`'s result as real
//! content blocks. A text resource is kept as well, its text given to the
//! program with the handle, so that it too comes back as a resource block.

use std::sync::{Mutex, PoisonError};

use coderun_runtime::{CodeRunResult, MisuseError};
use serde_json::{Map, Value, json};

use crate::bridge::{NO_OUTPUT, PAUSED};
use crate::events::summarize;
use crate::tool::{ContentBlock, Tool, ToolResult};

/// How a media handle begins; the number follows.
pub const MEDIA_HANDLE: &str = "coderun-media:";
/// The most media bytes (base64) one run keeps; past it a media block is
/// described instead of kept.
const MAX_MEDIA_BYTES: usize = 16 * 1024 * 1024;

/// The media one run's calls returned, by handle number (from 1).
#[derive(Default)]
pub(crate) struct Media {
    blocks: Mutex<Vec<ContentBlock>>,
}

impl Media {
    /// Keeps `block`; its handle, or `None` when the run's media budget is
    /// spent.
    fn keep(&self, block: &ContentBlock) -> Option<String> {
        let mut blocks = self.blocks.lock().unwrap_or_else(PoisonError::into_inner);
        let held: usize = blocks.iter().map(media_bytes).sum();
        if held.saturating_add(media_bytes(block)) > MAX_MEDIA_BYTES {
            return None;
        }
        blocks.push(block.clone());
        Some(format!("{MEDIA_HANDLE}{}", blocks.len()))
    }

    /// The kept media whose handles `text` mentions, in handle order.
    fn mentioned(&self, text: &str) -> Vec<ContentBlock> {
        let blocks = self.blocks.lock().unwrap_or_else(PoisonError::into_inner);
        let mut numbers: Vec<usize> = text
            .match_indices(MEDIA_HANDLE)
            .filter_map(|(at, _)| {
                let digits: String = text[at + MEDIA_HANDLE.len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                digits.parse().ok()
            })
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        numbers
            .into_iter()
            .filter_map(|n| blocks.get(n.checked_sub(1)?).cloned())
            .collect()
    }
}

fn media_bytes(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Image { data, .. } | ContentBlock::Audio { data, .. } => data.len(),
        ContentBlock::Resource { blob, text, .. } => {
            blob.as_ref().or(text.as_ref()).map_or(0, String::len)
        }
        _ => 0,
    }
}

/// One block as the program sees it.
fn program_block(block: &ContentBlock, media: &Media) -> Value {
    match block {
        ContentBlock::Text { text } => json!({"type": "text", "text": text}),
        ContentBlock::Json { value } => value.clone(),
        ContentBlock::Image { mime_type, .. } | ContentBlock::Audio { mime_type, .. } => {
            let kind = if matches!(block, ContentBlock::Image { .. }) {
                "image"
            } else {
                "audio"
            };
            match media.keep(block) {
                Some(handle) => json!({
                    "type": kind, "mimeType": mime_type, "handle": handle,
                    "bytes": media_bytes(block),
                }),
                None => json!({"type": kind, "mimeType": mime_type, "dropped": block.to_text()}),
            }
        }
        ContentBlock::Resource {
            uri,
            mime_type,
            text,
            blob,
        } => {
            let mut out = Map::new();
            out.insert("type".into(), "resource".into());
            out.insert("uri".into(), uri.clone().into());
            if let Some(mime_type) = mime_type {
                out.insert("mimeType".into(), mime_type.clone().into());
            }
            if let Some(text) = text {
                out.insert("text".into(), text.clone().into());
            }
            // Text resources too: returned or printed, the handle brings
            // the block into run_code's result as a resource, not as text.
            if blob.is_some() || text.is_some() {
                match media.keep(block) {
                    Some(handle) => out.insert("handle".into(), handle.into()),
                    None => out.insert("dropped".into(), block.to_text().into()),
                };
            }
            Value::Object(out)
        }
    }
}

/// What the program gets from a call (see the module docs); an error
/// result rejects with its text.
pub(crate) fn program_value(
    tool: &Tool,
    result: &ToolResult,
    media: &Media,
) -> Result<Value, String> {
    if result.is_error {
        let text = result.text_content();
        return Err(if text.is_empty() {
            format!("tool {:?} failed without saying why", tool.name())
        } else {
            text
        });
    }
    if let (Some(value), Some(_)) = (&result.structured, tool.get_output_schema()) {
        return Ok(value.clone());
    }
    match result.content.as_slice() {
        [] => Ok(Value::String(String::new())),
        [ContentBlock::Text { text }] => {
            let json = tool.is_text_json() || tool.get_output_schema().is_some();
            Ok(json
                .then(|| serde_json::from_str(text).ok())
                .flatten()
                .unwrap_or_else(|| Value::String(text.clone())))
        }
        [ContentBlock::Json { value }] => Ok(value.clone()),
        [block] if block.is_media() => Ok(program_block(block, media)),
        blocks => Ok(Value::Array(
            blocks
                .iter()
                .map(|block| program_block(block, media))
                .collect(),
        )),
    }
}

/// The budget's marker: says what was cut and how to get less.
fn marker(total: usize, budget: usize) -> String {
    format!(
        "\n…[output cut: the run printed and returned {total} bytes, past run_code's output \
         budget of {budget} bytes (max_output_bytes). Print or return less: filter, slice or \
         summarise in the program.]"
    )
}

/// `text` within `budget` bytes: whole, or cut at a character boundary
/// with one marker; and whether it was cut.
pub(crate) fn within_budget(text: String, budget: usize) -> (String, bool) {
    if text.len() <= budget {
        return (text, false);
    }
    let mark = marker(text.len(), budget);
    let room = budget.saturating_sub(mark.len());
    let mut cut = text;
    cut.truncate(cut.floor_char_boundary(room));
    cut.push_str(&mark);
    (cut, true)
}

/// `run_code`'s result for the run's outcome: its text (within `budget`
/// bytes), the structured value (when it fits in what the text leaves of
/// the budget; else `{truncated: true}`, with the failure's `kind`), and the
/// media its output mentions.
///
/// A failure is an error result whose text is `code run failed (<kind>):
/// <message>` followed by the output printed before it, and whose structured
/// value is `{kind, message, logs}`. A success is the printed lines followed
/// by the rendered returned value (or [`NO_OUTPUT`]), with the structured
/// value `{logs, value}`. A paused run (`paused`: its id, the call and the
/// hook's payload) is the printed lines followed by what needs approval,
/// with the structured value `{logs, paused: {id, call, payload}}`.
pub(crate) fn tool_result(
    outcome: Result<CodeRunResult, MisuseError>,
    paused: Option<(String, String, Value)>,
    budget: usize,
    media: &Media,
) -> (ToolResult, bool) {
    let result = match outcome {
        Ok(result) => result,
        Err(error) => {
            return (
                ToolResult::error(format!("the code run could not start: {error}")),
                false,
            );
        }
    };
    let printed: Vec<&str> = result.logs.iter().map(|line| line.text.as_str()).collect();
    let (text, structured, is_error) = if let Some(failure) = &result.error {
        let mut text = format!("code run failed ({}): {}", failure.kind, failure.message);
        if !printed.is_empty() {
            text.push_str("\n\noutput before the failure:\n");
            text.push_str(&printed.join("\n"));
        }
        let structured = json!({
            "kind": failure.kind.as_str(),
            "message": failure.message,
            "logs": result.logs,
        });
        (text, structured, true)
    } else if let Some((id, call, payload)) = paused {
        let mut lines = printed;
        let waiting = format!(
            "{PAUSED}: {call} needs approval: {}\nThe program is paused at that call (run {id}); \
             it goes on once the call is approved or rejected.",
            summarize(&payload.to_string())
        );
        lines.push(&waiting);
        let text = lines.join("\n");
        let structured = json!({
            "logs": result.logs,
            "paused": { "id": id, "call": call, "payload": payload },
        });
        (text, structured, false)
    } else {
        // The value line is the guest's rendering, the same as console.log's.
        let mut lines = printed;
        lines.extend(result.value_display.as_deref());
        let text = if lines.is_empty() {
            NO_OUTPUT.to_owned()
        } else {
            lines.join("\n")
        };
        let mut structured = json!({ "logs": result.logs });
        if let (Some(value), Value::Object(map)) = (&result.value, &mut structured) {
            map.insert("value".to_owned(), value.clone());
        }
        (text, structured, false)
    };
    let mentioned = media.mentioned(&text);
    let (text, cut) = within_budget(text, budget);
    // The structured copy shares the budget with the text: kept when both
    // fit, else only what identifies the outcome (the text says what was cut).
    let structured = if structured.get("paused").is_some()
        || structured.to_string().len().saturating_add(text.len()) <= budget
    {
        structured
    } else {
        let mut slim = json!({ "truncated": true });
        if let (Some(kind), Value::Object(map)) = (structured.get("kind"), &mut slim) {
            map.insert("kind".to_owned(), kind.clone());
            let message = structured["message"].as_str().unwrap_or_default();
            map.insert("message".to_owned(), summarize(message).into());
        }
        slim
    };
    let mut out = if is_error {
        ToolResult::error(text)
    } else {
        ToolResult::text(text)
    };
    out.content.extend(mentioned);
    (out.with_structured(structured), cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::DEFAULT_MAX_OUTPUT_BYTES;
    use coderun_runtime::{CodeRunFailure, FailureKind, LogLevel, LogLine};

    #[test]
    fn text_within_the_budget_is_kept_whole() {
        assert_eq!(within_budget("abc".into(), 3), ("abc".into(), false));
    }

    #[test]
    fn text_past_the_budget_is_cut_with_one_marker() {
        let (cut, was_cut) = within_budget("é".repeat(10_000), 1000);
        assert!(was_cut);
        assert!(cut.len() <= 1000, "{}", cut.len());
        assert_eq!(cut.matches("output cut").count(), 1);
        assert!(cut.contains("20000 bytes"), "{cut}");
    }

    #[test]
    fn only_mentioned_media_are_attached() {
        let media = Media::default();
        let image = ContentBlock::Image {
            data: "AAAA".into(),
            mime_type: "image/png".into(),
        };
        let first = program_block(&image, &media);
        let second = program_block(&image, &media);
        assert_eq!(first["handle"], "coderun-media:1");
        assert_eq!(second["handle"], "coderun-media:2");
        assert_eq!(
            media.mentioned("see coderun-media:2 and coderun-media:9"),
            [image]
        );
    }
    #[test]
    fn a_failure_keeps_its_kind_and_logs() {
        let (result, _) = tool_result(
            Ok(CodeRunResult {
                value: None,
                value_display: None,
                logs: vec![LogLine::new(LogLevel::Warn, "step 1")],
                error: Some(failure(FailureKind::Exception, "Error: boom")),
                fuel_consumed: 1,
                ..CodeRunResult::default()
            }),
            None,
            DEFAULT_MAX_OUTPUT_BYTES,
            &Media::default(),
        );
        assert!(result.is_error);
        assert_eq!(
            result.text_content(),
            "code run failed (exception): Error: boom\n\noutput before the failure:\nstep 1"
        );
        assert_eq!(
            result.structured,
            Some(json!({
                "kind": "exception",
                "message": "Error: boom",
                "logs": [{"level": "warn", "text": "step 1"}]
            }))
        );
    }

    #[test]
    fn a_success_is_the_logs_then_the_value_as_the_guest_displayed_it() {
        let (result, _) = tool_result(
            Ok(CodeRunResult {
                value: Some(json!({"a": [1, 2]})),
                value_display: Some("{ a: [ 1, 2 ] }".into()),
                logs: vec![LogLine::new(LogLevel::Log, "hi")],
                error: None,
                fuel_consumed: 1,
                ..CodeRunResult::default()
            }),
            None,
            DEFAULT_MAX_OUTPUT_BYTES,
            &Media::default(),
        );
        assert!(!result.is_error);
        assert_eq!(result.text_content(), "hi\n{ a: [ 1, 2 ] }");
        assert_eq!(
            result.structured,
            Some(json!({"logs": [{"level": "log", "text": "hi"}], "value": {"a": [1, 2]}}))
        );
    }

    fn failure(kind: FailureKind, message: &str) -> CodeRunFailure {
        CodeRunFailure {
            kind,
            message: message.to_owned(),
        }
    }
}
