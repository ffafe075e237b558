//! The one ledger that caps a run's console output.

use crate::value::truncate_utf8;

/// Collects log lines up to a byte budget. On the first overflow it keeps the
/// part of the line that fits, adds one marker line, and drops everything
/// after.
#[derive(Debug)]
pub(crate) struct LogLedger {
    lines: Vec<String>,
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

    pub(crate) fn push(&mut self, line: String) {
        if self.truncated {
            return;
        }
        // Each line costs its bytes plus a separator, so that a flood of
        // empty lines is capped too.
        let cost = line.len().saturating_add(1);
        if self.used + cost <= self.max_bytes {
            self.used += cost;
            self.lines.push(line);
            return;
        }
        let room = self.max_bytes.saturating_sub(self.used + 1);
        if room > 0 {
            self.lines.push(truncate_utf8(&line, room).to_owned());
        }
        self.lines.push(format!(
            "[coderun: output truncated: logs exceeded max_log_bytes ({} bytes); later output was dropped]",
            self.max_bytes
        ));
        self.used = self.max_bytes;
        self.truncated = true;
    }

    pub(crate) fn into_lines(self) -> Vec<String> {
        self.lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_lines_under_the_cap() {
        let mut ledger = LogLedger::new(100);
        ledger.push("a".into());
        ledger.push("b".into());
        assert_eq!(ledger.into_lines(), vec!["a", "b"]);
    }

    #[test]
    fn one_marker_on_overflow() {
        let mut ledger = LogLedger::new(10);
        for _ in 0..100 {
            ledger.push("12345".into());
        }
        let lines = ledger.into_lines();
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.contains("output truncated"))
                .count(),
            1
        );
        assert_eq!(lines[0], "12345");
        assert_eq!(lines[1], "123");
    }

    #[test]
    fn cuts_on_a_char_boundary() {
        let mut ledger = LogLedger::new(5);
        ledger.push("日本語".into());
        let lines = ledger.into_lines();
        assert_eq!(lines[0], "日");
    }
}
