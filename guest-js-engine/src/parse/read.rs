//! The reader of `parse`: JSON's grammar (RFC 8259) over the text's bytes,
//! with a plain index, each value pushed on the builder's stack as it is
//! read.

use rquickjs::qjs;

use super::{Builder, Declined, Key, MAX_DEPTH};
use crate::render::string_end;

/// The powers of ten a double holds exactly.
const POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The text and where the reader is in it.
pub(super) struct Reader<'de> {
    source: &'de str,
    text: &'de [u8],
    at: usize,
}

impl<'de> Reader<'de> {
    pub(super) fn new(source: &'de str) -> Reader<'de> {
        Reader {
            source,
            text: source.as_bytes(),
            at: 0,
        }
    }

    /// Whether only whitespace is left.
    pub(super) fn at_end(&mut self) -> bool {
        self.skip_space();
        self.at == self.text.len()
    }

    /// Past JSON's whitespace.
    #[inline]
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.text.get(self.at) {
            self.at += 1;
        }
    }

    /// Past `byte`, after whitespace, or declined.
    #[inline]
    fn expect(&mut self, byte: u8) -> Result<(), Declined> {
        self.skip_space();
        if self.text.get(self.at) != Some(&byte) {
            return Err(Declined);
        }
        self.at += 1;
        Ok(())
    }

    /// One value, after whitespace, `depth` arrays and objects in, onto
    /// the builder's stack of values.
    pub(super) fn value(
        &mut self,
        builder: &mut Builder<'de>,
        depth: usize,
    ) -> Result<(), Declined> {
        self.skip_space();
        let Some(&byte) = self.text.get(self.at) else {
            return Err(Declined);
        };
        match byte {
            b'"' => {
                self.at += 1;
                let text = self.string()?;
                builder.string(text.as_str())
            }
            b'[' => {
                if depth == MAX_DEPTH {
                    return Err(Declined);
                }
                self.at += 1;
                let from = builder.values.len();
                self.skip_space();
                let closed = match self.text.get(self.at) {
                    Some(b']') => {
                        self.at += 1;
                        true
                    }
                    Some(b'-' | b'0'..=b'9') => self.numbers(builder)?,
                    _ => false,
                };
                if !closed {
                    loop {
                        self.value(builder, depth + 1)?;
                        self.skip_space();
                        match self.text.get(self.at) {
                            Some(b',') => self.at += 1,
                            Some(b']') => {
                                self.at += 1;
                                break;
                            }
                            _ => return Err(Declined),
                        }
                    }
                }
                builder.array(from)
            }
            b'{' => {
                if depth == MAX_DEPTH {
                    return Err(Declined);
                }
                self.at += 1;
                let from = (builder.values.len(), builder.names.len());
                self.skip_space();
                if self.text.get(self.at) == Some(&b'}') {
                    self.at += 1;
                } else {
                    loop {
                        self.expect(b'"')?;
                        let key = self.string()?;
                        self.expect(b':')?;
                        self.value(builder, depth + 1)?;
                        builder.names.push(key);
                        self.skip_space();
                        match self.text.get(self.at) {
                            Some(b',') => self.at += 1,
                            Some(b'}') => {
                                self.at += 1;
                                break;
                            }
                            _ => return Err(Declined),
                        }
                    }
                }
                builder.object(from)
            }
            b't' => self.word(b"true", qjs::JS_TRUE, builder),
            b'f' => self.word(b"false", qjs::JS_FALSE, builder),
            b'n' => self.word(b"null", qjs::JS_NULL, builder),
            b'-' | b'0'..=b'9' => {
                let number = self.number()?;
                builder.values.push(qjs::JS_NewFloat64(number));
                Ok(())
            }
            _ => Err(Declined),
        }
    }

    /// The numbers an array starts with (all of an array of numbers), the
    /// reader at the first: each onto the stack, with its comma. True when
    /// the array's `]` ends them; false when another element follows, the
    /// reader at it. Out of line, so that `value` stays as it is for the
    /// other elements; here a number costs about 30 units of fuel less
    /// than through `value`'s dispatch.
    #[inline(never)]
    fn numbers(&mut self, builder: &mut Builder<'de>) -> Result<bool, Declined> {
        loop {
            let number = self.number()?;
            builder.values.push(qjs::JS_NewFloat64(number));
            self.skip_space();
            match self.text.get(self.at) {
                Some(b',') => {
                    self.at += 1;
                    self.skip_space();
                    if !matches!(self.text.get(self.at), Some(b'-' | b'0'..=b'9')) {
                        return Ok(false);
                    }
                }
                Some(b']') => {
                    self.at += 1;
                    return Ok(true);
                }
                _ => return Err(Declined),
            }
        }
    }

    /// `word` (`true`, `false`, `null`) as `value`.
    fn word(
        &mut self,
        word: &[u8],
        value: qjs::JSValue,
        builder: &mut Builder<'de>,
    ) -> Result<(), Declined> {
        if !self.text[self.at..].starts_with(word) {
            return Err(Declined);
        }
        self.at += word.len();
        builder.values.push(value);
        Ok(())
    }

    /// A string's text, the reader past its opening quote.
    fn string(&mut self) -> Result<Key<'de>, Declined> {
        let from = self.at;
        let end = string_end(self.text, from);
        match self.text.get(end) {
            Some(b'"') => {
                self.at = end + 1;
                // The quote is ASCII, so `end` is a character's boundary.
                self.source
                    .get(from..end)
                    .map(Key::Borrowed)
                    .ok_or(Declined)
            }
            Some(b'\\') => self.escaped(from, end),
            // A control character, or the end of the text.
            _ => Err(Declined),
        }
    }

    /// The rest of a string from its first escape, at `at`.
    fn escaped(&mut self, from: usize, mut at: usize) -> Result<Key<'de>, Declined> {
        let mut out = String::with_capacity(at - from + 16);
        out.push_str(self.source.get(from..at).ok_or(Declined)?);
        loop {
            match self.text.get(at) {
                Some(b'"') => {
                    self.at = at + 1;
                    return Ok(Key::Owned(out));
                }
                Some(b'\\') => {
                    let (c, len) = match self.text.get(at + 1) {
                        Some(b'"') => ('"', 2),
                        Some(b'\\') => ('\\', 2),
                        Some(b'/') => ('/', 2),
                        Some(b'b') => ('\u{8}', 2),
                        Some(b'f') => ('\u{c}', 2),
                        Some(b'n') => ('\n', 2),
                        Some(b'r') => ('\r', 2),
                        Some(b't') => ('\t', 2),
                        Some(b'u') => self.unicode(at + 2)?,
                        _ => return Err(Declined),
                    };
                    out.push(c);
                    at += len;
                }
                _ => return Err(Declined),
            }
            let end = string_end(self.text, at);
            out.push_str(self.source.get(at..end).ok_or(Declined)?);
            at = end;
        }
    }

    /// The character of a `\u` escape whose hex digits start at `at`, and
    /// the escape's length: a surrogate pair's two escapes make one
    /// character; a lone surrogate is declined (a Rust string cannot hold
    /// it; `JSON.parse` makes it).
    fn unicode(&self, at: usize) -> Result<(char, usize), Declined> {
        let unit = self.hex(at)?;
        let code = match unit {
            0xd800..=0xdbff => {
                if self.text.get(at + 4..at + 6) != Some(b"\\u") {
                    return Err(Declined);
                }
                let low = self.hex(at + 6)?;
                if !(0xdc00..=0xdfff).contains(&low) {
                    return Err(Declined);
                }
                return char::from_u32(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))
                    .map(|c| (c, 12))
                    .ok_or(Declined);
            }
            0xdc00..=0xdfff => return Err(Declined),
            unit => unit,
        };
        char::from_u32(code).map(|c| (c, 6)).ok_or(Declined)
    }

    /// Four hex digits at `at`.
    fn hex(&self, at: usize) -> Result<u32, Declined> {
        let digits = self.text.get(at..at + 4).ok_or(Declined)?;
        digits.iter().try_fold(0u32, |unit, &digit| {
            let value = match digit {
                b'0'..=b'9' => digit - b'0',
                b'a'..=b'f' => digit - b'a' + 10,
                b'A'..=b'F' => digit - b'A' + 10,
                _ => return Err(Declined),
            };
            Ok(unit << 4 | u32::from(value))
        })
    }

    /// A number, the reader at its first character (`-` or a digit), as
    /// `JSON.parse` reads it: correctly rounded.
    #[inline(always)]
    fn number(&mut self) -> Result<f64, Declined> {
        let text = self.text;
        let from = self.at;
        let mut at = from;
        let negative = text[at] == b'-';
        if negative {
            at += 1;
        }
        // The digits, as an integer: exact while there are at most 19 of
        // them (10^19 < 2^64), leading zeros counted; more go the slow way.
        let mut mantissa = 0u64;
        let whole = at;
        match text.get(at) {
            Some(b'0') => at += 1,
            Some(b'1'..=b'9') => at = digits(text, at, &mut mantissa),
            _ => return Err(Declined),
        }
        let mut count = at - whole;
        // The fraction's digits, which scale the integer down.
        let mut scale = 0i64;
        // An exponent of more than twelve digits.
        let mut long = false;
        if text.get(at) == Some(&b'.') {
            let fraction = at + 1;
            at = digits(text, fraction, &mut mantissa);
            if at == fraction {
                return Err(Declined);
            }
            count += at - fraction;
            scale = -((at - fraction) as i64);
        }
        if let Some(b'e' | b'E') = text.get(at) {
            at += 1;
            let minus = match text.get(at) {
                Some(b'-') => {
                    at += 1;
                    true
                }
                Some(b'+') => {
                    at += 1;
                    false
                }
                _ => false,
            };
            let digits = at;
            let mut exponent = 0i64;
            while let Some(&d @ b'0'..=b'9') = text.get(at) {
                // Held below 10^12 (a longer one goes the slow way).
                if exponent < 100_000_000_000 {
                    exponent = exponent * 10 + i64::from(d - b'0');
                } else {
                    long = true;
                }
                at += 1;
            }
            if at == digits {
                return Err(Declined);
            }
            scale += if minus { -exponent } else { exponent };
        }
        self.at = at;
        let magnitude = if long || count > 19 || mantissa > 1 << 53 || !(-22..=22).contains(&scale)
        {
            if !long && count <= 19 && scale == 0 {
                // An integer below 2^64: the conversion rounds to nearest.
                mantissa as f64
            } else {
                // The text as it stands: `core`'s parser rounds correctly,
                // and takes JSON's grammar, which the loops above checked.
                return exact(self.source.get(from..at).ok_or(Declined)?);
            }
        } else if scale >= 0 {
            // Both exact, so one rounding: the correctly rounded product.
            mantissa as f64 * POWERS[scale as usize]
        } else {
            mantissa as f64 / POWERS[(-scale) as usize]
        };
        Ok(if negative { -magnitude } else { magnitude })
    }
}

/// A number's text (JSON's grammar, checked) correctly rounded by `core`'s
/// parser: out of line, as numbers past the fast path are rare.
#[cold]
#[inline(never)]
fn exact(number: &str) -> Result<f64, Declined> {
    number.parse::<f64>().map_err(|_| Declined)
}

/// The powers of ten below 10^9, as integers.
const SCALES: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// The decimal digits from `at` on, folded into `mantissa` (wrapping past
/// 2^64: the caller counts the digits), and where they end. Eight bytes at
/// a time: a number's digits are mostly a few, and a byte at a time cost
/// about 23 units of fuel a digit.
#[inline(always)]
fn digits(text: &[u8], mut at: usize, mantissa: &mut u64) -> usize {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(&chunk) = text.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
        // Each byte less `'0'`: a digit is 0 to 9, and only a byte that is
        // not a digit borrows from the bytes after it (the text's later
        // bytes are the word's higher ones), so the digits before the first
        // one that is not are exact.
        let units = u64::from_le_bytes(chunk).wrapping_sub(ZEROS);
        // A byte's high bit, once 0x76 is added (a carry, too, starts only
        // at a byte that is not a digit), is set for anything but 0 to 9.
        let stops = (units | units.wrapping_add(0x7676_7676_7676_7676)) & HIGH;
        let len = (stops.trailing_zeros() / 8) as usize;
        if len == 0 {
            return at;
        }
        // The digits moved to the word's top (the bytes after them out of
        // it), zeros below them (as leading zeros of the number), then
        // summed in pairs, fours and eights.
        let mut value = units << (8 * (8 - len));
        value = value.wrapping_mul(10).wrapping_add(value >> 8);
        value = (value & 0x0000_00ff_0000_00ff)
            .wrapping_mul(100 + (1_000_000 << 32))
            .wrapping_add(((value >> 16) & 0x0000_00ff_0000_00ff).wrapping_mul(1 + (10_000 << 32)))
            >> 32;
        *mantissa = mantissa.wrapping_mul(SCALES[len]).wrapping_add(value);
        at += len;
        if len < 8 {
            return at;
        }
    }
    // The last few bytes of the text, one at a time.
    while let Some(&d) = text.get(at) {
        let d = d.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        *mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(d));
        at += 1;
    }
    at
}
