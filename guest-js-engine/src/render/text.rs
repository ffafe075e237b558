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
        let bytes = self.room_for_digits();
        // SAFETY: `room_for_digits` left `DIGITS_ROOM` bytes after the
        // text, enough for a sign, 19 digits and `write_decimal`'s spill;
        // only ASCII is written, and the length set covers the sign and
        // the digits alone.
        let len = unsafe {
            let start = bytes.len();
            let at = bytes.as_mut_ptr().add(start);
            at.write(b'-');
            let sign = usize::from(n < 0);
            let len = sign + write_decimal(at.add(sign), n.unsigned_abs());
            bytes.set_len(start + len);
            len
        };
        self.units += len;
    }

    /// The buffer, with at least [`DIGITS_ROOM`] bytes of room after its
    /// text.
    #[inline(always)]
    fn room_for_digits(&mut self) -> &mut Vec<u8> {
        // SAFETY: the callers write ASCII only, so the text stays UTF-8.
        let bytes = unsafe { self.buf.as_mut_vec() };
        if bytes.capacity() - bytes.len() < DIGITS_ROOM {
            grow(bytes, DIGITS_ROOM);
        }
        bytes
    }

    /// An element of an array of numbers in JSON: its comma (unless it is
    /// the first) and the integer `n`, with one check of the room for both.
    /// JSON's units are not counted (no layout measures them). Returns the
    /// number's length.
    #[inline(always)]
    pub(super) fn json_int_element(&mut self, n: i64, comma: bool) -> usize {
        let bytes = self.room_for_digits();
        // SAFETY: as in `int`, with one byte more for the comma (within
        // `DIGITS_ROOM`).
        unsafe {
            let start = bytes.len();
            let mut at = bytes.as_mut_ptr().add(start);
            at.write(b',');
            at = at.add(usize::from(comma));
            at.write(b'-');
            let sign = usize::from(n < 0);
            let len = sign + write_decimal(at.add(sign), n.unsigned_abs());
            bytes.set_len(start + usize::from(comma) + len);
            len
        }
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
        let bytes = self.room_for_digits();
        // SAFETY: `room_for_digits` left `DIGITS_ROOM` bytes, what
        // `write_short_decimal` may write; only ASCII is written, and the
        // length set covers the number alone.
        let len = unsafe {
            let start = bytes.len();
            let len =
                write_short_decimal(bytes.as_mut_ptr().add(start), negative, scaled, fraction);
            bytes.set_len(start + len);
            len
        };
        self.units += len;
    }

    /// [`json_int_element`](Self::json_int_element) for a finite double
    /// (not `-0`: the caller's test): its comma, then its text as
    /// `Number.prototype.toString` writes it, with one check of the room
    /// unless it takes Ryū. Returns the number's length.
    #[inline(always)]
    pub(super) fn json_float_element(&mut self, n: f64, comma: bool) -> usize {
        if n.fract() == 0.0 && n.abs() < 1e15 {
            return self.json_int_element(n as i64, comma);
        }
        let Some((scaled, fraction)) = short_decimal(n) else {
            if comma {
                self.utf8(b",");
            }
            let before = self.buf.len();
            self.number(n);
            return self.buf.len() - before;
        };
        let bytes = self.room_for_digits();
        // SAFETY: `DIGITS_ROOM` bytes hold the comma and what
        // `write_short_decimal` may write; only ASCII is written, and the
        // length set covers the comma and the number.
        unsafe {
            let start = bytes.len();
            let at = bytes.as_mut_ptr().add(start);
            at.write(b',');
            let comma = usize::from(comma);
            let len = write_short_decimal(at.add(comma), n < 0.0, scaled, fraction);
            bytes.set_len(start + comma + len);
            len
        }
    }
}

/// Writes `scaled / 10^fraction` (`fraction` from 1 to 6, `scaled / 10^fraction`
/// below 10^10), negated when `negative`, from `at` on: `scaled`'s digits
/// with a decimal point `fraction` digits from the right (and a leading
/// "0." and zeros when there are fewer digits). Returns its length; up to
/// three bytes past it may be written too.
///
/// # Safety
/// `at` is writable for 21 bytes: a sign, ten digits, the point, six
/// digits and the spill.
#[inline(always)]
unsafe fn write_short_decimal(at: *mut u8, negative: bool, scaled: u64, fraction: u32) -> usize {
    const SCALES: [u64; 7] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];
    let fraction = fraction as usize;
    let scale = SCALES[fraction];
    let (whole, part) = (scaled / scale, (scaled % scale) as u32);
    // SAFETY: the sign, the whole part's digits (at most ten, below
    // 10^10), the point and the fraction's are within the 21 bytes.
    unsafe {
        at.write(b'-');
        let sign = usize::from(negative);
        let point = sign + write_decimal(at.add(sign), whole);
        at.add(point).write(b'.');
        write_padded(at.add(point + 1), part, fraction);
        point + 1 + fraction
    }
}

/// Room for `more` bytes (`Vec`'s own growth, doubling): out of line, so
/// that the writes that fit stay small.
#[cold]
#[inline(never)]
fn grow(bytes: &mut Vec<u8>, more: usize) {
    bytes.reserve(more);
}

/// The room [`Out::int`], [`Out::json_int_element`] and `decimal` ask
/// for: a comma, a sign, twenty digits and the three bytes a four-byte
/// store may spill past them, rounded up.
const DIGITS_ROOM: usize = 32;

/// "0000" to "9999", four bytes each, and three bytes more, so that four
/// bytes read from any digit of the last number stay in the table.
static DIGITS: [u8; 40_003] = {
    let mut table = [b'0'; 40_003];
    let mut n = 0;
    while n < 10_000 {
        table[4 * n] = b'0' + (n / 1000) as u8;
        table[4 * n + 1] = b'0' + (n / 100 % 10) as u8;
        table[4 * n + 2] = b'0' + (n / 10 % 10) as u8;
        table[4 * n + 3] = b'0' + (n % 10) as u8;
        n += 1;
    }
    table
};

/// Copies the four bytes of [`DIGITS`] from `from` to `at`.
///
/// # Safety
/// `from + 4 <= DIGITS.len()`, and `at` is writable for four bytes.
#[inline(always)]
unsafe fn copy4(at: *mut u8, from: usize) {
    // SAFETY: the caller's promise; unaligned reads and writes.
    unsafe {
        let four = (DIGITS.as_ptr().add(from) as *const u32).read_unaligned();
        (at as *mut u32).write_unaligned(four);
    }
}

/// How many digits `n` (below 10,000) has.
#[inline(always)]
fn digits_below_10000(n: u32) -> usize {
    1 + usize::from(n >= 10) + usize::from(n >= 100) + usize::from(n >= 1000)
}

/// Writes `n`'s decimal digits from `at` on, left to right, four at a time
/// from a table (a few instructions for each four digits, where dividing
/// out each pair took dozens), and returns how many. The last store may
/// write up to three bytes past them, which the caller leaves out of the
/// text.
///
/// # Safety
/// `at` is writable for 23 bytes (20 digits and the spill).
#[inline(always)]
unsafe fn write_decimal(at: *mut u8, n: u64) -> usize {
    // SAFETY: each copy is four bytes at `at` plus the digits written
    // before it (at most 16 of 20), reading a number's digits from the
    // table (below 10,000, so within it).
    unsafe {
        if n < 10_000 {
            let n = n as u32;
            let len = digits_below_10000(n);
            copy4(at, 4 * n as usize + 4 - len);
            return len;
        }
        if n < 100_000_000 {
            let (high, low) = ((n / 10_000) as u32, (n % 10_000) as u32);
            let len = digits_below_10000(high);
            copy4(at, 4 * high as usize + 4 - len);
            copy4(at.add(len), 4 * low as usize);
            return len + 4;
        }
        // Up to 20 digits: groups of four from the right, then written
        // from the left.
        let mut groups = [0u32; 4];
        let mut count = 0;
        let mut high = n;
        while high >= 10_000 {
            groups[count] = (high % 10_000) as u32;
            high /= 10_000;
            count += 1;
        }
        let high = high as u32;
        let mut len = digits_below_10000(high);
        copy4(at, 4 * high as usize + 4 - len);
        while count > 0 {
            count -= 1;
            copy4(at.add(len), 4 * groups[count] as usize);
            len += 4;
        }
        len
    }
}

/// Writes `n` (below 10^`width`, `width` at most 6) as exactly `width`
/// digits, zero-padded on the left, from `at` on; up to three bytes past
/// them may be written too.
///
/// # Safety
/// `at` is writable for `width + 3` bytes.
#[inline(always)]
unsafe fn write_padded(at: *mut u8, n: u32, width: usize) {
    // SAFETY: the copies are four bytes at `at` and at `at + width - 4`,
    // reading digits of numbers below 10,000.
    unsafe {
        if width <= 4 {
            copy4(at, 4 * n as usize + 4 - width);
        } else {
            let (high, low) = (n / 10_000, n % 10_000);
            copy4(at, 4 * high as usize + 8 - width);
            copy4(at.add(width - 4), 4 * low as usize);
        }
    }
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
