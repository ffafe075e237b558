//! The one place that caps what leaves a run: console output, the returned
//! value and the failure message each have a byte budget in the config, and
//! every cut ends in the same marker, which names the key to raise. The
//! marker counts against the budget, so nothing a program does makes a run's
//! output longer than `max_log_bytes + 2 × max_value_bytes +
//! max_error_bytes` (the value and its display text each within the value's
//! budget).

use crate::result::{LogLevel, LogLine};

/// The smallest budget a config may set: room for a marker and a little
/// text.
pub(crate) const MIN_BUDGET_BYTES: usize = 128;

/// What a budget caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    Logs,
    Value,
    Error,
}

impl Output {
    fn key(self) -> &'static str {
        match self {
            Output::Logs => "max_log_bytes",
            Output::Value => "max_value_bytes",
            Output::Error => "max_error_bytes",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Output::Logs => "the logs",
            Output::Value => "the value",
            Output::Error => "the error",
        }
    }
}

/// The marker that ends a cut: `…[truncated by coderun: the value was 5000
/// bytes, over config.max_value_bytes (1000)]`. `total` is the uncut size,
/// when it is known.
pub(crate) fn marker(output: Output, total: Option<usize>, max: usize) -> String {
    let (noun, key) = (output.noun(), output.key());
    match total {
        Some(total) => {
            format!("…[truncated by coderun: {noun} was {total} bytes, over config.{key} ({max})]")
        }
        None => format!(
            "…[truncated by coderun: {noun} reached config.{key} ({max}); later output was \
             dropped]"
        ),
    }
}

/// The longest prefix of `s` that is at most `max` bytes and ends on a char
/// boundary.
pub(crate) fn truncate_utf8(s: &str, max: usize) -> &str {
    &s[..s.floor_char_boundary(max)]
}

/// `text` if it fits in `max_bytes`; else its longest prefix that fits with
/// a trailing `…`, cut on a char boundary. The short form of the marker
/// [`cap`] writes, for one-line summaries (events, an upstream's stderr)
/// that have no config key to name.
pub fn shorten(text: &str, max_bytes: usize) -> String {
    const ELLIPSIS: &str = "…";
    if text.len() <= max_bytes {
        return text.to_owned();
    }
    if max_bytes < ELLIPSIS.len() {
        return truncate_utf8(text, max_bytes).to_owned();
    }
    let keep = truncate_utf8(text, max_bytes.saturating_sub(ELLIPSIS.len()));
    format!("{keep}{ELLIPSIS}")
}

/// `text` if it fits in `max` bytes; else as much of it as fits before the
/// marker, and the marker.
pub(crate) fn cap(text: String, output: Output, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let marker = marker(output, Some(text.len()), max);
    let keep = truncate_utf8(&text, max.saturating_sub(marker.len())).len();
    let mut text = text;
    text.truncate(keep);
    text.push_str(truncate_utf8(&marker, max - keep));
    text
}

/// What a console line costs beyond its text: about what the host holds
/// for it (its entry in the list) and what it takes as JSON
/// (`{"level":"log","text":""},`), so that a flood of empty lines is
/// capped by what it really costs, not by one byte a line.
pub(crate) const LINE_COST: usize = 32;

/// The bytes `text` takes inside a JSON string: `"` and a backslash take
/// two, a control character two (`\n`) or six (`\u0001`), anything else
/// its UTF-8 bytes. Console lines leave a run as JSON (the CLI's output, MCP,
/// Python), so this is what the log budget counts.
pub(crate) fn json_len(text: &str) -> usize {
    text.bytes().map(json_byte_len).sum()
}

fn json_byte_len(byte: u8) -> usize {
    match byte {
        b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
        0..0x20 => 6,
        _ => 1,
    }
}

/// The length of the longest prefix of `text`, cut on a char boundary,
/// whose [`json_len`] is at most `budget`.
fn json_prefix(text: &str, budget: usize) -> usize {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        let cost = if c.is_ascii() {
            json_byte_len(c as u8)
        } else {
            c.len_utf8()
        };
        if used + cost > budget {
            return at;
        }
        used += cost;
    }
    text.len()
}

/// Collects console lines up to a byte budget (each line costs its length
/// as JSON, [`json_len`], plus [`LINE_COST`]). On the first overflow it
/// keeps what fits of the line, ends with one marker line, and drops
/// everything after.
#[derive(Debug)]
pub(crate) struct LogLedger {
    lines: Vec<LogLine>,
    used: usize,
    max_bytes: usize,
    truncated: bool,
}

impl LogLedger {
    pub(crate) fn new(max_bytes: usize) -> Self {
        Self {
            lines: Vec::new(),
            used: 0,
            max_bytes,
            truncated: false,
        }
    }

    /// Whether later lines are dropped.
    pub(crate) fn is_full(&self) -> bool {
        self.truncated
    }

    pub(crate) fn push(&mut self, level: LogLevel, line: String) {
        if self.truncated {
            return;
        }
        let cost = json_len(&line).saturating_add(LINE_COST);
        if self.used + cost <= self.max_bytes {
            self.used += cost;
            self.lines.push(LogLine::new(level, line));
            return;
        }
        let marker = marker(Output::Logs, None, self.max_bytes);
        let room = self.max_bytes.saturating_sub(json_len(&marker) + LINE_COST);
        // Make room for the marker: first from this line, then, if the
        // lines kept so far already fill the budget, from them.
        let mut line = line;
        line.truncate(json_prefix(
            &line,
            room.saturating_sub(self.used + LINE_COST),
        ));
        if !line.is_empty() {
            self.used += json_len(&line) + LINE_COST;
            self.lines.push(LogLine::new(level, line));
        }
        while self.used > room {
            let Some(last) = self.lines.last_mut().map(|line| &mut line.text) else {
                break;
            };
            let excess = self.used - room;
            let last_len = json_len(last);
            if excess > last_len {
                self.used -= last_len + LINE_COST;
                self.lines.pop();
            } else {
                let keep = json_prefix(last, last_len - excess);
                last.truncate(keep);
                self.used -= last_len - json_len(last);
            }
        }
        let marker = &marker[..json_prefix(&marker, self.max_bytes.saturating_sub(LINE_COST))];
        self.lines.push(LogLine::new(LogLevel::Warn, marker));
        self.truncated = true;
    }

    pub(crate) fn into_lines(self) -> Vec<LogLine> {
        self.lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(lines: &[LogLine]) -> usize {
        lines
            .iter()
            .map(|line| json_len(&line.text) + LINE_COST)
            .sum()
    }

    fn log(ledger: &mut LogLedger, line: impl Into<String>) {
        ledger.push(LogLevel::Log, line.into());
    }

    #[test]
    fn keeps_lines_under_the_cap() {
        let mut ledger = LogLedger::new(200);
        log(&mut ledger, "a");
        log(&mut ledger, "b");
        assert_eq!(ledger.into_lines(), vec!["a", "b"]);
    }

    #[test]
    fn one_marker_on_overflow_and_the_marker_fits_the_budget() {
        for max in [MIN_BUDGET_BYTES, 200, 1000, 4096] {
            let mut ledger = LogLedger::new(max);
            for i in 0..1000 {
                log(&mut ledger, format!("line {i} {}", "x".repeat(i % 50)));
            }
            assert!(ledger.is_full());
            let lines = ledger.into_lines();
            let markers = lines
                .iter()
                .filter(|l| l.text.contains("truncated by coderun"))
                .count();
            assert_eq!(markers, 1, "{lines:?}");
            assert!(
                lines.last().unwrap().text.contains("config.max_log_bytes"),
                "{lines:?}"
            );
            assert!(total(&lines) <= max, "{} > {max}: {lines:?}", total(&lines));
        }
    }

    #[test]
    fn a_line_that_fills_the_budget_exactly_is_kept_whole() {
        let mut ledger = LogLedger::new(200);
        log(&mut ledger, "x".repeat(200 - LINE_COST));
        assert!(!ledger.is_full());
        assert_eq!(ledger.into_lines(), vec!["x".repeat(200 - LINE_COST)]);
    }

    /// A flood of empty lines costs what it holds: a 1 MiB budget keeps
    /// about 32,000 of them, not a million.
    #[test]
    fn empty_lines_cost_their_overhead() {
        let mut ledger = LogLedger::new(1 << 20);
        for _ in 0..1_100_000 {
            log(&mut ledger, "");
        }
        assert!(ledger.is_full());
        let lines = ledger.into_lines();
        assert!(lines.len() <= (1 << 20) / LINE_COST, "{}", lines.len());
        assert!(total(&lines) <= 1 << 20);
    }

    #[test]
    fn a_line_costs_its_length_as_json() {
        assert_eq!(json_len("a\"b\\c\n\u{1}é"), 1 + 2 + 1 + 2 + 1 + 2 + 6 + 2);
        for line in [
            "\u{1}".repeat(1 << 20),
            "\"".repeat(1 << 20),
            "é\u{1f}".repeat(1 << 18),
        ] {
            let mut ledger = LogLedger::new(1 << 20);
            log(&mut ledger, line.clone());
            log(&mut ledger, line);
            let lines = ledger.into_lines();
            let kept: usize = lines.iter().map(|line| line.text.len()).sum();
            assert!(kept > 0);
            assert!(total(&lines) <= 1 << 20, "{} bytes as JSON", total(&lines));
            let json = serde_json::to_string(&lines.iter().map(|l| &l.text).collect::<Vec<_>>());
            assert!(json.expect("JSON").len() <= 1 << 20);
        }
    }

    #[test]
    fn cuts_on_a_char_boundary() {
        let mut ledger = LogLedger::new(2 * MIN_BUDGET_BYTES);
        log(&mut ledger, "日本語".repeat(100));
        let lines = ledger.into_lines();
        assert!(
            !lines[0].text.is_empty() && lines[0].text.chars().all(|c| "日本語".contains(c)),
            "{lines:?}"
        );
        assert!(total(&lines) <= 2 * MIN_BUDGET_BYTES);
    }

    #[test]
    fn capped_text_fits_and_names_the_key_and_size() {
        let text = "é".repeat(10_000);
        let capped = cap(text, Output::Error, 1000);
        assert!(capped.len() <= 1000, "{}", capped.len());
        assert!(capped.starts_with("éé"));
        assert!(
            capped.ends_with(
                "…[truncated by coderun: the error was 20000 bytes, over config.max_error_bytes (1000)]"
            ),
            "{capped}"
        );
        assert_eq!(cap("short".into(), Output::Error, 1000), "short");
    }

    #[test]
    fn shortened_text_fits_and_ends_in_an_ellipsis() {
        assert_eq!(shorten("short", 5), "short");
        let cut = shorten(&"é".repeat(100), 11);
        assert_eq!(cut, "éééé…");
        assert!(cut.len() <= 11);
        // A budget smaller than the ellipsis keeps only text.
        assert_eq!(shorten("abcdef", 2), "ab");
    }
}
