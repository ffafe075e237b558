//! Positions in the program as written: a syntax error's line, column and
//! excerpt, and the generated script's positions mapped back to the
//! program's.

use crate::output::shorten;

use std::sync::Arc;

use super::{PROGRAM_FILE, Positions, SCRIPT_FILE, Transformed, WRAPPER_HEAD, WRAPPER_TAIL};

/// The most characters of the offending line a syntax error shows before
/// and after its column: a program may be one line of megabytes.
const EXCERPT_CHARS_BEFORE: usize = 60;
const EXCERPT_CHARS_AFTER: usize = 40;
/// The most bytes of the parser's own message kept: it may quote the
/// program (an identifier, a string).
const MAX_MESSAGE_BYTES: usize = 400;

/// `SyntaxError: <message> (program.ts:L:C)` followed by the offending line
/// (the part of it around the column) and a caret under the column.
pub(super) fn syntax_error(source: &str, message: &str, offset: usize) -> String {
    let offset = offset.min(source.len());
    let (line, column) = line_column(source, offset);
    let text = source.lines().nth(line - 1).unwrap_or("");
    let first = (column - 1).saturating_sub(EXCERPT_CHARS_BEFORE);
    let mut chars = text.char_indices().skip(first);
    let start = chars.next().map_or(text.len(), |(at, _)| at);
    let end = text[start..]
        .char_indices()
        .nth(column - 1 - first + EXCERPT_CHARS_AFTER)
        .map_or(text.len(), |(at, _)| start + at);
    let lead = if first > 0 { "…" } else { "" };
    let tail = if end < text.len() { "…" } else { "" };
    let message = shorten(message, MAX_MESSAGE_BYTES);
    let gutter = line.to_string();
    format!(
        "SyntaxError: {message} ({PROGRAM_FILE}:{line}:{column})\n {gutter} | {lead}{excerpt}{tail}\n {pad} | {caret}^",
        excerpt = &text[start..end],
        pad = " ".repeat(gutter.len()),
        caret = " ".repeat(column - 1 - first + lead.chars().count()),
    )
}

/// 1-based line and column (in chars) of byte `offset`.
fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = source.floor_char_boundary(offset);
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = source[line_start..offset].chars().count() + 1;
    (line, column)
}

impl Transformed {
    /// The program as written, wrapped.
    pub(super) fn verbatim(source: &str) -> Self {
        let mut script = String::with_capacity(source.len() + 32);
        script.push_str(WRAPPER_HEAD);
        script.push_str(source);
        script.push_str(WRAPPER_TAIL);
        // One vectorised pass: `split` searched for each line's end anew.
        let breaks = memchr::memchr_iter(b'\n', source.as_bytes()).count();
        let lines = u32::try_from(breaks + 1).unwrap_or(u32::MAX);
        Self {
            script,
            positions: Arc::new(Positions::Verbatim(lines)),
            head: WRAPPER_HEAD.len() as u32,
        }
    }

    /// Rewrites every `program.js:L:C` in `text` to the matching
    /// `program.ts:L:C`. Positions with no mapping keep the generated ones.
    pub(crate) fn map_positions(&self, text: &str) -> String {
        let table = match &*self.positions {
            Positions::Unmapped => return text.to_owned(),
            Positions::Mapped(map) => Some(map.generate_lookup_table()),
            Positions::Verbatim(_) => None,
        };
        let lookup = |line: u32, column: u32| {
            // QuickJS counts from 1; source maps from 0. The wrapper's head
            // shares the script's first line.
            let mut column = column.checked_sub(1)?;
            let line = line.checked_sub(1)?;
            if line == 0 {
                column = column.checked_sub(self.head)?;
            }
            match (&*self.positions, &table) {
                (Positions::Mapped(map), Some(table)) => {
                    let token = map.lookup_token(table, line, column)?;
                    Some((token.get_src_line() + 1, token.get_src_col() + 1))
                }
                // The wrapper's tail is on a line of its own, past the
                // program's last.
                (Positions::Verbatim(lines), _) if line < *lines => Some((line + 1, column + 1)),
                _ => None,
            }
        };
        let needle = format!("{SCRIPT_FILE}:");
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(&needle) {
            out.push_str(&rest[..at]);
            let after = &rest[at + needle.len()..];
            match parse_position(after) {
                Some((line, column, used)) => {
                    let mapped = lookup(line, column);
                    match mapped {
                        Some((line, column)) => {
                            out.push_str(&format!("{PROGRAM_FILE}:{line}:{column}"));
                        }
                        None => out.push_str(&rest[at..at + needle.len() + used]),
                    }
                    rest = &after[used..];
                }
                None => {
                    out.push_str(&needle);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// Parses `L:C` (or just `L`) at the start of `s`; returns line, column and
/// the bytes consumed.
fn parse_position(s: &str) -> Option<(u32, u32, usize)> {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let line_len = digits(s);
    let line: u32 = s[..line_len].parse().ok()?;
    let rest = &s[line_len..];
    if let Some(col_text) = rest.strip_prefix(':') {
        let col_len = digits(col_text);
        if col_len > 0 {
            let column: u32 = col_text[..col_len].parse().ok()?;
            return Some((line, column, line_len + 1 + col_len));
        }
    }
    Some((line, 1, line_len))
}
