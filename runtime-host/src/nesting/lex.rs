//! Skipping what holds no brackets the parser would see: line and block
//! comments, strings, escapes, regular expression literals and numbers.

use super::Scanner;

impl Scanner<'_> {
    pub(super) fn skip_line(&mut self) {
        while self.at < self.bytes.len() && !self.at_line_end() {
            self.at += 1;
        }
    }

    /// Moves past a backslash and the character it escapes: a whole UTF-8
    /// character, or both bytes of a `\r\n` line continuation.
    pub(super) fn skip_escape(&mut self) {
        self.skip(1);
        let len = match self.peek(0) {
            b'\r' if self.peek(1) == b'\n' => 2,
            c if c >= 0xf0 => 4,
            c if c >= 0xe0 => 3,
            c if c >= 0xc0 => 2,
            _ => 1,
        };
        self.skip(len);
    }

    pub(super) fn skip_block_comment(&mut self) {
        self.at += 2;
        while self.at < self.bytes.len() {
            if self.bytes[self.at] == b'*' && self.peek(1) == b'/' {
                self.at += 2;
                return;
            }
            if self.at_line_end() {
                self.line_break = true;
            }
            self.at += 1;
        }
    }

    pub(super) fn skip_string(&mut self, quote: u8) {
        self.at += 1;
        while self.at < self.bytes.len() {
            match self.bytes[self.at] {
                b'\\' => self.skip_escape(),
                b'\n' | b'\r' => return,
                c if c == quote => {
                    self.at += 1;
                    return;
                }
                _ => self.at += 1,
            }
        }
    }

    pub(super) fn skip_regex(&mut self) {
        self.at += 1;
        let mut class = false;
        while self.at < self.bytes.len() {
            if self.at_line_end() {
                return;
            }
            match self.bytes[self.at] {
                b'\\' => self.skip_escape(),
                b'[' => {
                    class = true;
                    self.at += 1;
                }
                b']' => {
                    class = false;
                    self.at += 1;
                }
                b'/' if !class => {
                    self.at += 1;
                    while self.at < self.bytes.len() && is_identifier_byte(self.bytes[self.at]) {
                        self.at += 1;
                    }
                    return;
                }
                _ => self.at += 1,
            }
        }
    }

    /// A numeric literal: digits, letters and separators (hex digits,
    /// exponents, `n`), a signed exponent, and one fraction of digits. A `.`
    /// after it that begins a member access (`1n.toString()`,
    /// `1..toFixed()`) is left for the punctuator.
    pub(super) fn skip_number(&mut self) {
        let start = self.at;
        let radix = self.peek(0) == b'0' && matches!(self.peek(1) | 0x20, b'x' | b'o' | b'b');
        let mut fraction = self.peek(0) == b'.';
        if fraction {
            self.at += 1;
        }
        loop {
            let c = self.peek(0);
            let exponent_sign = matches!(c, b'+' | b'-')
                && !radix
                && self.at > start
                && matches!(self.bytes[self.at - 1], b'e' | b'E');
            if c.is_ascii_alphanumeric() || c == b'_' || exponent_sign {
                self.at += 1;
            } else if c == b'.'
                && !fraction
                && !radix
                && self.bytes[self.at - 1] != b'n'
                && !self.bytes[start..self.at]
                    .iter()
                    .any(|b| matches!(b, b'e' | b'E'))
            {
                fraction = true;
                self.at += 1;
                if !self.peek(0).is_ascii_digit() {
                    // `1.` and then whatever follows.
                    return;
                }
            } else {
                return;
            }
        }
    }
}

pub(super) fn is_identifier_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// The ASCII bytes a word goes on with: letters, digits, `_`, `$` and `#`
/// (a private name's), none of which starts a line terminator. One load
/// a byte, where the comparisons took several.
pub(super) static WORD_ASCII: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'#');
        c += 1;
    }
    table
};

/// The ASCII bytes a word begins with: letters, `_`, `$`, `\\` (an
/// escape) and `#` (a private name).
pub(super) static WORD_START_ASCII: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        table[c] = b.is_ascii_alphabetic() || matches!(b, b'_' | b'$' | b'\\' | b'#');
        c += 1;
    }
    table
};
