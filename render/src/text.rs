//! The text being written: spans of one buffer, counted in UTF-16 units
//! as JavaScript counts them; string literals and JSON strings.

use super::decode::ascii_len;
use super::scan::*;

// ---- the output buffer --------------------------------------------------------

/// A stretch of the output buffer: its bytes, its length in UTF-16 code
/// units (what JavaScript's `length`, and so the layout, counts), and
/// whether it holds a line break.
#[derive(Clone, Copy, Default)]
pub(super) struct Span {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) units: usize,
    pub(super) newline: bool,
}

/// The text being written, counting UTF-16 units and line breaks as it goes.
#[derive(Default)]
pub(super) struct Out {
    pub(super) buf: String,
    pub(super) units: usize,
    pub(super) newline: bool,
}

impl Out {
    #[inline]
    pub(super) fn mark(&mut self) -> (usize, usize) {
        self.newline = false;
        (self.buf.len(), self.units)
    }

    #[inline]
    pub(super) fn span(&self, (start, units): (usize, usize)) -> Span {
        Span {
            start,
            end: self.buf.len(),
            units: self.units - units,
            newline: self.newline,
        }
    }

    /// Appends ASCII text. Inlined, with the room checked here, so that a
    /// constant piece (punctuation, `null`, a quote) is a store or two,
    /// not a call into `Vec`'s generic append.
    #[inline(always)]
    pub(super) fn ascii(&mut self, text: &str) {
        self.utf8(text.as_bytes());
        self.units += text.len();
    }

    /// The text's bytes, with room for `more` after them (grown out of
    /// line, by `Vec`'s doubling, when they do not fit), and their length
    /// as read before: the one check of the room each append makes before
    /// it writes through a pointer.
    ///
    /// # Safety
    /// The caller leaves the bytes UTF-8.
    #[inline(always)]
    pub(super) unsafe fn room(&mut self, more: usize) -> (&mut Vec<u8>, usize) {
        // SAFETY: the caller's promise.
        let bytes = unsafe { self.buf.as_mut_vec() };
        let len = bytes.len();
        if bytes.capacity() - len < more {
            grow(bytes, more);
        }
        (bytes, len)
    }

    /// Appends ASCII that needs no escape between `quote`s, with them.
    #[inline]
    pub(super) fn quoted(&mut self, text: &[u8], quote: u8) {
        let written = text.len() + 2;
        // SAFETY: ASCII (the caller's promise) keeps the text UTF-8.
        let (bytes, len) = unsafe { self.room(written) };
        // SAFETY: the room is there (above); the text is not in the buffer.
        unsafe {
            let at = bytes.as_mut_ptr().add(len);
            at.write(quote);
            std::ptr::copy_nonoverlapping(text.as_ptr(), at.add(1), text.len());
            at.add(written - 1).write(quote);
            bytes.set_len(len + written);
        }
        self.units += written;
    }

    /// A property's name that JSON writes as it is, as JSON writes it
    /// before the value: `"name":`, after a comma unless it is the first,
    /// with one check of the room. JSON's units are not counted.
    #[inline(always)]
    pub(super) fn json_name(&mut self, name: &[u8], comma: bool) {
        // SAFETY: the name is ASCII (a `Key::Name`), which keeps the text
        // UTF-8.
        let (bytes, len) = unsafe { self.room(name.len() + 4) };
        // SAFETY: room for a comma, the name, two quotes and a colon is
        // there (above); the name is not in the buffer.
        unsafe {
            let mut at = bytes.as_mut_ptr().add(len);
            at.write(b',');
            at = at.add(usize::from(comma));
            at.write(b'"');
            std::ptr::copy_nonoverlapping(name.as_ptr(), at.add(1), name.len());
            at.add(name.len() + 1).write(b'"');
            at.add(name.len() + 2).write(b':');
            bytes.set_len(len + usize::from(comma) + name.len() + 3);
        }
    }

    /// A property's name that inspect writes as it is (a `Key::Name`),
    /// written joined (see `reduce`): after `, ` unless it is the first,
    /// and before `: `, with one check of the room. Returns the name's
    /// span.
    #[inline(always)]
    pub(super) fn name_entry(&mut self, name: &[u8], separator: bool) -> Span {
        // SAFETY: the name is ASCII, which keeps the text UTF-8.
        let (bytes, len) = unsafe { self.room(name.len() + 4) };
        let separator = 2 * usize::from(separator);
        let n = name.len();
        // SAFETY: room for the separator, the name and `: ` is there
        // (above); the name is not in the buffer.
        unsafe {
            let at = bytes.as_mut_ptr().add(len);
            at.write(b',');
            at.add(1).write(b' ');
            let at = at.add(separator);
            std::ptr::copy_nonoverlapping(name.as_ptr(), at, n);
            at.add(n).write(b':');
            at.add(n + 1).write(b' ');
            bytes.set_len(len + separator + n + 2);
        }
        self.units += separator + n + 2;
        self.newline = false;
        Span {
            start: len + separator,
            end: len + separator + n,
            units: n,
            newline: false,
        }
    }

    /// Appends UTF-8 text without counting its units: JSON's text, which
    /// no layout measures, and the appends above, which count their own.
    #[inline(always)]
    pub(super) fn utf8(&mut self, text: &[u8]) {
        // SAFETY: the caller gives UTF-8.
        let (bytes, len) = unsafe { self.room(text.len()) };
        // SAFETY: the room is there (above); the text is not in the buffer.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), bytes.as_mut_ptr().add(len), text.len());
            bytes.set_len(len + text.len());
        }
    }

    /// `... n` and `noun` (an `s` after it when `n` is more than one):
    /// what inspect writes for the items or characters it left out.
    pub(super) fn more(&mut self, n: usize, noun: &str) {
        self.ascii("... ");
        self.int(n as i64);
        self.ascii(noun);
        if n > 1 {
            self.ascii("s");
        }
    }

    pub(super) fn spaces(&mut self, n: usize) {
        const SPACES: &str = "                                ";
        let mut left = n;
        while left > 0 {
            let run = left.min(SPACES.len());
            self.buf.push_str(&SPACES[..run]);
            left -= run;
        }
        self.units += n;
    }

    /// Appends `chars[from..to]`, a run a scan stopped after: for 8-bit
    /// strings ASCII (a [`Stop`]'s bytes hold every non-ASCII byte; runs
    /// that [`Latin1`] scans go to [`Out::units`]), so copied as it is.
    #[inline]
    pub(super) fn run(&mut self, chars: Chars<'_>, from: usize, to: usize) {
        match chars {
            Chars::Narrow(bytes) => {
                let run = &bytes[from..to];
                debug_assert!(run.is_ascii());
                // ASCII (above) is UTF-8.
                self.utf8(run);
                self.units += run.len();
            }
            Chars::Wide(_) => self.units(chars, from, to),
        }
    }

    /// Appends `chars[from..to]`, which need no escaping except that a lone
    /// surrogate is written as `\ud800`.
    #[inline]
    pub(super) fn units(&mut self, chars: Chars<'_>, from: usize, to: usize) {
        match chars {
            Chars::Narrow(bytes) => self.latin1(&bytes[from..to]),
            Chars::Wide(units) => self.wide(&units[from..to]),
        }
    }

    pub(super) fn lone_surrogate(&mut self, unit: u16) {
        self.ascii("\\u");
        self.hex(unit, 4, HEX_LOWER);
    }

    pub(super) fn hex(&mut self, value: u16, digits: u32, alphabet: &[u8; 16]) {
        for shift in (0..digits).rev() {
            self.buf.push(char::from(
                alphabet[usize::from((value >> (4 * shift)) & 15)],
            ));
        }
        self.units += digits as usize;
    }
}

/// Room for `more` bytes (`Vec`'s own growth, doubling): out of line, so
/// that the writes that fit stay small.
#[cold]
#[inline(never)]
fn grow(bytes: &mut Vec<u8>, more: usize) {
    bytes.reserve(more);
}

pub(super) const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";
pub(super) const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";

/// Writes `chars[from..to]`, the units `stop` picks through `escape` (which
/// writes a unit's escape and returns true, or returns false for a unit
/// written as it is: a non-ASCII character, or a surrogate pair).
pub(super) fn escaped<S: Stop>(
    out: &mut Out,
    chars: Chars<'_>,
    from: usize,
    to: usize,
    stop: S,
    escape: impl Fn(&mut Out, u16) -> bool,
) {
    // An 8-bit string's non-ASCII characters are transcoded in the runs,
    // not stopped at one by one; found once for the whole text, so that
    // the runs of ASCII text (most text, cut short by its escapes) are
    // copied as they are.
    match chars {
        Chars::Narrow(bytes) if ascii_len(&bytes[from..to]) == to - from => {
            escaped_runs::<_, true>(out, chars, from, to, stop, escape);
        }
        Chars::Narrow(_) => escaped_runs::<_, false>(out, chars, from, to, Latin1(stop), escape),
        Chars::Wide(_) => escaped_runs::<_, false>(out, chars, from, to, stop, escape),
    }
}

/// [`escaped`]'s loop, for text whose runs are `ASCII` or not.
#[inline(always)]
fn escaped_runs<S: Stop, const ASCII: bool>(
    out: &mut Out,
    chars: Chars<'_>,
    from: usize,
    to: usize,
    stop: S,
    escape: impl Fn(&mut Out, u16) -> bool,
) {
    let mut at = from;
    while at < to {
        let next = scan(chars, at, to, stop);
        if ASCII {
            out.run(chars, at, next);
        } else {
            out.units(chars, at, next);
        }
        if next == to {
            break;
        }
        let c = chars.get(next);
        at = next + 1;
        if escape(out, c) {
            continue;
        }
        if (0xd800..0xdc00).contains(&c) && at < to && (0xdc00..0xe000).contains(&chars.get(at)) {
            at += 1;
        }
        out.units(chars, next, at);
    }
}

/// The short escapes inspect and JSON share.
pub(super) fn short_escape(out: &mut Out, c: u16) -> bool {
    match c {
        8 => out.ascii("\\b"),
        9 => out.ascii("\\t"),
        10 => out.ascii("\\n"),
        12 => out.ascii("\\f"),
        13 => out.ascii("\\r"),
        0x5c => out.ascii("\\\\"),
        _ => return false,
    }
    true
}

/// `chars[from..to]` escaped as `escapeText` escapes it (layout.js).
pub(super) fn escape_inspect(
    out: &mut Out,
    chars: Chars<'_>,
    from: usize,
    to: usize,
    single: bool,
) {
    escaped(out, chars, from, to, InspectStop { single }, |out, c| {
        if short_escape(out, c) {
            return true;
        }
        if c == 0x27 {
            out.ascii("\\'");
        } else if c < 0x20 || (0x7f..=0x9f).contains(&c) {
            out.ascii("\\x");
            out.hex(c, 2, HEX_UPPER);
        } else {
            return false;
        }
        true
    });
}

/// `chars[from..to]` as a string literal: `quote` in layout.js.
pub(super) fn quote(out: &mut Out, chars: Chars<'_>, from: usize, to: usize) {
    let has = |unit: u8| scan(chars, from, to, UnitStop(unit)) < to;
    let mut mark = "'";
    if has(b'\'') {
        if !has(b'"') {
            mark = "\"";
        } else if !has(b'`')
            && !(from..to.saturating_sub(1))
                .any(|at| chars.get(at) == 0x24 && chars.get(at + 1) == 0x7b)
        {
            mark = "`";
        }
    }
    out.ascii(mark);
    escape_inspect(out, chars, from, to, mark == "'");
    out.ascii(mark);
}

/// `chars` as JSON.stringify writes a string.
pub(super) fn json_string(out: &mut Out, chars: Chars<'_>) {
    // Most strings in data are printable ASCII: one scan finds that, and
    // they are written in one copy between their quotes.
    if let Chars::Narrow(bytes) = chars
        && scan(chars, 0, bytes.len(), JsonStop) == bytes.len()
    {
        out.quoted(bytes, b'"');
        return;
    }
    out.ascii("\"");
    escaped(out, chars, 0, chars.len(), JsonStop, |out, c| {
        if short_escape(out, c) {
            return true;
        }
        if c == 0x22 {
            out.ascii("\\\"");
        } else if c < 0x20 {
            out.ascii("\\u00");
            out.hex(c, 2, HEX_LOWER);
        } else {
            return false;
        }
        true
    });
    out.ascii("\"");
}
