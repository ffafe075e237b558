//! Numbers written into the output as `Number.prototype.toString` writes
//! them: integers, fractions of up to six decimals (without Ryū), and the
//! elements of an array of numbers in JSON. Digits are copied four at a
//! time from a table, left to right, after one check of the room.

use super::text::Out;

impl Out {
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
        unsafe { self.room(DIGITS_ROOM) }.0
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
}

/// The most bytes [`write_number`] writes: a sign, twenty digits and the
/// spill; a short decimal's 21; Ryū's longest text, 24
/// (`-2.2250738585072014e-308`).
pub(super) const NUMBER_ROOM: usize = 25;

/// Writes `n` (finite, not `-0`) as `Number.prototype.toString` writes
/// it, from `at` on, and returns its length; up to three bytes past it may
/// be written too.
///
/// # Safety
/// `at` is writable for [`NUMBER_ROOM`] bytes.
#[inline(always)]
pub(super) unsafe fn write_int(at: *mut u8, n: i64) -> usize {
    // SAFETY: a sign, at most 20 digits and the spill (the caller's
    // promise).
    unsafe {
        at.write(b'-');
        let sign = usize::from(n < 0);
        sign + write_decimal(at.add(sign), n.unsigned_abs())
    }
}

/// [`write_int`] for a finite double other than `-0`: an integer, a
/// short decimal, or Ryū's text.
///
/// # Safety
/// `at` is writable for [`NUMBER_ROOM`] bytes.
#[inline(always)]
pub(super) unsafe fn write_number(at: *mut u8, n: f64) -> usize {
    // SAFETY: each writes within `NUMBER_ROOM` (the caller's promise);
    // Ryū's text is checked to fit.
    unsafe {
        if n.fract() == 0.0 && n.abs() < 1e15 {
            return write_int(at, n as i64);
        }
        if let Some((scaled, fraction)) = short_decimal(n) {
            return write_short_decimal(at, n < 0.0, scaled, fraction);
        }
        let mut buffer = ryu_js::Buffer::new();
        let text = buffer.format(n).as_bytes();
        assert!(
            text.len() <= NUMBER_ROOM,
            "a number's text outgrew its room"
        );
        std::ptr::copy_nonoverlapping(text.as_ptr(), at, text.len());
        text.len()
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
