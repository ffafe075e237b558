//! The text being written: spans of one buffer, counted in UTF-16 units
//! as JavaScript counts them; string literals and JSON strings.

use rquickjs::{Ctx, Value};

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

    /// Appends ASCII that needs no escape between `quote`s, with them.
    #[inline]
    pub(super) fn quoted(&mut self, text: &[u8], quote: u8) {
        // SAFETY: ASCII (the caller's promise) keeps the text UTF-8.
        let bytes = unsafe { self.buf.as_mut_vec() };
        let len = bytes.len();
        let written = text.len() + 2;
        if bytes.capacity() - len < written {
            grow(bytes, written);
        }
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

    /// Appends UTF-8 text without counting its units: JSON's text, which
    /// no layout measures, and the appends above, which count their own.
    #[inline(always)]
    pub(super) fn utf8(&mut self, text: &[u8]) {
        // SAFETY: the caller gives UTF-8.
        let bytes = unsafe { self.buf.as_mut_vec() };
        let len = bytes.len();
        if bytes.capacity() - len < text.len() {
            grow(bytes, text.len());
        }
        // SAFETY: the room is there (above); the text is not in the buffer.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), bytes.as_mut_ptr().add(len), text.len());
            bytes.set_len(len + text.len());
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

    pub(super) fn char(&mut self, c: char) {
        self.buf.push(c);
        self.units += c.len_utf16();
    }

    /// Appends `chars[from..to]`, a run a scan stopped after: for 8-bit
    /// strings ASCII (every scan stops at a non-ASCII byte), so copied as
    /// it is.
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
    pub(super) fn units(&mut self, chars: Chars<'_>, from: usize, to: usize) {
        match chars {
            Chars::Narrow(bytes) => {
                let run = &bytes[from..to];
                if is_ascii(run) {
                    // SAFETY: ASCII is UTF-8.
                    self.buf
                        .push_str(unsafe { std::str::from_utf8_unchecked(run) });
                    self.units += run.len();
                } else {
                    self.buf.extend(run.iter().map(|&b| char::from(b)));
                    self.units += run.len();
                }
            }
            Chars::Wide(units) => {
                for c in char::decode_utf16(units[from..to].iter().copied()) {
                    match c {
                        Ok(c) => self.char(c),
                        Err(lone) => self.lone_surrogate(lone.unpaired_surrogate()),
                    }
                }
            }
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

    #[inline(always)]
    pub(super) fn int(&mut self, n: i64) {
        let negative = n < 0;
        let magnitude = n.unsigned_abs();
        let len = usize::from(negative) + decimal_len(magnitude);
        self.buf.reserve(len);
        // SAFETY: `len` bytes are reserved after the text; the digits fill
        // them from the right and the sign (if any) the first: ASCII, so
        // the text stays UTF-8.
        unsafe {
            let bytes = self.buf.as_mut_vec();
            let start = bytes.len();
            let at = bytes.as_mut_ptr().add(start);
            write_digits(at.add(len), magnitude);
            if negative {
                at.write(b'-');
            }
            bytes.set_len(start + len);
        }
        self.units += len;
    }

    /// An element of an array of numbers in JSON: its comma (unless it is
    /// the first) and the integer `n`, with one check of the room for both.
    /// JSON's units are not counted (no layout measures them). Returns the
    /// number's length.
    #[inline(always)]
    pub(super) fn json_int_element(&mut self, n: i64, comma: bool) -> usize {
        let negative = n < 0;
        let magnitude = n.unsigned_abs();
        let len = usize::from(negative) + decimal_len(magnitude);
        let total = usize::from(comma) + len;
        // SAFETY: only ASCII is written (below), so the text stays UTF-8.
        let bytes = unsafe { self.buf.as_mut_vec() };
        if bytes.capacity() - bytes.len() < total {
            grow(bytes, total);
        }
        // SAFETY: `total` bytes are reserved after the text: the comma,
        // then the digits from the right and the sign (if any) first.
        unsafe {
            let start = bytes.len();
            let mut at = bytes.as_mut_ptr().add(start);
            if comma {
                at.write(b',');
                at = at.add(1);
            }
            write_digits(at.add(len), magnitude);
            if negative {
                at.write(b'-');
            }
            bytes.set_len(start + total);
        }
        len
    }

    /// A number as `Number.prototype.toString` writes it.
    pub(super) fn number(&mut self, n: f64) {
        if n.fract() == 0.0 && n.abs() < 1e15 {
            self.int(n as i64);
        } else if let Some((digits, fraction)) = short_decimal(n) {
            self.decimal(n < 0.0, digits, fraction);
        } else {
            let mut buffer = ryu_js::Buffer::new();
            self.ascii(buffer.format(n));
        }
    }

    /// `scaled / 10^fraction` written out: `scaled`'s digits with a decimal
    /// point `fraction` digits from the right (and a leading "0." and zeros
    /// when there are fewer digits).
    fn decimal(&mut self, negative: bool, scaled: u64, fraction: u32) {
        const SCALES: [u64; 7] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];
        let fraction = fraction as usize;
        let scale = SCALES[fraction];
        let (whole, part) = (scaled / scale, scaled % scale);
        let len = usize::from(negative) + decimal_len(whole) + 1 + fraction;
        self.buf.reserve(len);
        // SAFETY: `len` bytes are reserved after the text: the fraction's
        // digits, zero-padded on the left to `fraction` (`part` has at most
        // that many), the point, the whole part's digits and the sign fill
        // them exactly, all ASCII.
        unsafe {
            let bytes = self.buf.as_mut_vec();
            let start = bytes.len();
            let at = bytes.as_mut_ptr().add(start);
            let point = at.add(len - fraction - 1);
            let mut first = write_digits(at.add(len), part);
            while first > point.add(1) {
                first = first.sub(1);
                first.write(b'0');
            }
            point.write(b'.');
            write_digits(point, whole);
            if negative {
                at.write(b'-');
            }
            bytes.set_len(start + len);
        }
        self.units += len;
    }
}

/// Room for `more` bytes (`Vec`'s own growth, doubling): out of line, so
/// that the writes that fit stay small.
#[cold]
#[inline(never)]
fn grow(bytes: &mut Vec<u8>, more: usize) {
    bytes.reserve(more);
}

/// "00" to "99".
const PAIRS: &[u8; 200] = b"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/// 10^0 to 10^19.
const POWERS: [u64; 20] = {
    let mut powers = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        powers[i] = powers[i - 1] * 10;
        i += 1;
    }
    powers
};

/// How many decimal digits `n` has (1 for 0): its bit length times
/// log10(2) (as 1233 / 4096), corrected by one comparison.
fn decimal_len(n: u64) -> usize {
    let n = n | 1;
    let guess = (((64 - n.leading_zeros()) * 1233) >> 12) as usize;
    guess + usize::from(n >= POWERS[guess])
}

/// Writes `n`'s decimal digits so that they end just before `end`, four
/// at a time, and returns where they start.
///
/// # Safety
/// The `decimal_len(n)` bytes before `end` are writable.
unsafe fn write_digits(mut end: *mut u8, mut n: u64) -> *mut u8 {
    let pair = |at: *mut u8, two: u32| {
        // SAFETY: `two` < 100, so its pair is in the table; `at` is writable
        // (the caller's promise).
        unsafe { std::ptr::copy_nonoverlapping(PAIRS.as_ptr().add(two as usize * 2), at, 2) }
    };
    // SAFETY: each write is one of the number's digits, before `end`.
    unsafe {
        while n >= 10_000 {
            let four = (n % 10_000) as u32;
            n /= 10_000;
            end = end.sub(4);
            pair(end, four / 100);
            pair(end.add(2), four % 100);
        }
        let mut n = n as u32;
        if n >= 100 {
            end = end.sub(2);
            pair(end, n % 100);
            n /= 100;
        }
        if n >= 10 {
            end = end.sub(2);
            pair(end, n);
        } else {
            end = end.sub(1);
            end.write(b'0' + n as u8);
        }
    }
    end
}

/// `n` as `digits / 10^fraction` with the fewest fraction digits (1 to 6),
/// when `|n|` is below 10^9 and at least 10^-6, and that quotient,
/// computed in doubles, is `n` itself. The digits are then the shortest
/// that read back as `n`, which is what ECMAScript's Number::toString
/// writes: the division by an exact power of ten is correctly rounded, so
/// the text `digits`e-`fraction` reads back as `n`; below 10^9 a double's
/// spacing is under 10^-6, so no other digits with as few fraction
/// digits read back as `n`; and fewer fraction digits are fewer
/// significant digits. Most fractions programs print (prices, averages,
/// coordinates) take this path, at a few dozen instructions instead of
/// Ryū's hundreds.
fn short_decimal(n: f64) -> Option<(u64, u32)> {
    let magnitude = n.abs();
    if !(1e-6..1e9).contains(&magnitude) {
        return None;
    }
    let mut scale = 1.0;
    for fraction in 1..=6 {
        scale *= 10.0;
        let digits = (magnitude * scale).round_ties_even();
        if digits / scale == magnitude {
            return Some((digits as u64, fraction));
        }
    }
    None
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
    let mut at = from;
    while at < to {
        let next = scan(chars, at, to, stop);
        out.run(chars, at, next);
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

/// A string as text, each lone surrogate replaced by U+FFFD: how a
/// returned string displays (`console.log` of a string prints it as is).
pub fn well_formed(ctx: &Ctx<'_>, value: &Value<'_>) -> Option<String> {
    let held = Held::of(ctx.as_raw().as_ptr(), value.as_raw())?;
    Some(match held.chars() {
        Chars::Narrow(bytes) if is_ascii(bytes) => {
            // SAFETY: ASCII is UTF-8.
            unsafe { std::str::from_utf8_unchecked(bytes) }.to_owned()
        }
        Chars::Narrow(bytes) => bytes.iter().map(|&b| char::from(b)).collect(),
        Chars::Wide(units) => char::decode_utf16(units.iter().copied())
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
    })
}

/// What `f` makes of a string's text as UTF-8: borrowed from the engine
/// when the string is ASCII, else converted. `None` (and `f` not called)
/// when the string holds a lone surrogate, which UTF-8 cannot hold.
pub fn with_utf8<R>(ctx: &Ctx<'_>, value: &Value<'_>, f: impl FnOnce(&str) -> R) -> Option<R> {
    let held = Held::of(ctx.as_raw().as_ptr(), value.as_raw())?;
    Some(match held.chars() {
        // SAFETY: ASCII is UTF-8.
        Chars::Narrow(bytes) if is_ascii(bytes) => {
            f(unsafe { std::str::from_utf8_unchecked(bytes) })
        }
        Chars::Narrow(bytes) => f(&bytes.iter().map(|&b| char::from(b)).collect::<String>()),
        Chars::Wide(units) => f(&char::decode_utf16(units.iter().copied())
            .collect::<Result<String, _>>()
            .ok()?),
    })
}
