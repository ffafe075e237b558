//! Text converted to UTF-8 as it is written: a string's 8-bit
//! characters (Latin-1) and its UTF-16 units, whole runs at a time; and
//! a string's text handed out as UTF-8.

use rquickjs::{Ctx, Value};

use super::decode::ascii_len;
use super::scan::{Chars, Held, is_ascii};
use super::text::Out;

impl Out {
    /// Appends 8-bit `bytes` (Latin-1, as the engine holds a string whose
    /// characters are all below U+0100) as UTF-8: copied as they are when
    /// they are ASCII (most runs, the text between a string's escapes, are
    /// short and ASCII, and the transcoding's set-up cost about 190 units
    /// of fuel a run), else [`Out::transcode_latin1`].
    #[inline]
    pub(super) fn latin1(&mut self, bytes: &[u8]) {
        let ascii = if bytes.len() < 64 {
            bytes.is_ascii()
        } else {
            ascii_len(bytes) == bytes.len()
        };
        if ascii {
            self.utf8(bytes);
            self.units += bytes.len();
        } else {
            self.transcode_latin1(bytes);
        }
    }

    /// [`Out::latin1`] of text that is not all ASCII, [`WIDE_CHUNK`] bytes
    /// at a time (see [`Out::wide`]). Decoding and pushing a `char` at a
    /// time cost about 45 units of fuel a character, and a scan stopped at
    /// each one before that.
    #[inline(never)]
    fn transcode_latin1(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(WIDE_CHUNK) {
            // SAFETY: `push_latin1` writes whole UTF-8 sequences.
            let (buf, _) = unsafe { self.room(2 * chunk.len()) };
            // SAFETY: room for two bytes a byte is there (above).
            unsafe { push_latin1(buf, chunk) };
        }
        self.units += bytes.len();
    }

    /// Appends UTF-16 `units` as UTF-8, a lone surrogate as its `\u`
    /// escape. Decoding and pushing a `char` at a time cost about 250
    /// units of fuel a character. A chunk of [`WIDE_CHUNK`] units at a
    /// time, so that the room reserved for the worst case (three bytes a
    /// unit) stays small beside what a long string takes.
    pub(super) fn wide(&mut self, units: &[u16]) {
        self.wide_each(units, Out::lone_surrogate);
    }

    /// [`Out::wide`], a lone surrogate as U+FFFD: a console line's string
    /// argument, as the text crossing to the host has it.
    pub(super) fn wide_replacing(&mut self, units: &[u16]) {
        self.wide_each(units, |out, _| out.utf8("\u{fffd}".as_bytes()));
    }

    /// [`Out::wide`], each lone surrogate written by `lone`.
    fn wide_each(&mut self, units: &[u16], lone: impl Fn(&mut Out, u16)) {
        for mut chunk in wide_chunks(units) {
            while let Some(at) = self.wide_run(chunk) {
                lone(self, chunk[at]);
                chunk = &chunk[at + 1..];
            }
        }
    }

    /// Appends `units` up to the first lone surrogate, after one check of
    /// the room (a unit takes at most three bytes, a surrogate pair four
    /// for its two), and returns where that surrogate is, if there is one.
    fn wide_run(&mut self, units: &[u16]) -> Option<usize> {
        // SAFETY: only whole UTF-8 sequences are written (below).
        let (bytes, len) = unsafe { self.room(3 * units.len()) };
        let mut at = len;
        let mut read = 0;
        let mut lone = None;
        // SAFETY: each unit writes at most three bytes at `at` (a pair four
        // for two units), within the room checked for three a unit; the
        // length set covers what was written, all of it whole UTF-8
        // sequences: a character's encoding, never a surrogate's.
        unsafe {
            let out = bytes.as_mut_ptr();
            // Where blocks of eight are tried again after one that held a
            // surrogate, which is read a unit at a time.
            #[cfg(target_arch = "wasm32")]
            let mut retry = 0;
            while let Some(&unit) = units.get(read) {
                #[cfg(target_arch = "wasm32")]
                if read >= retry {
                    (read, at) = wide_blocks(units, read, out, at);
                    retry = read + 8;
                    continue;
                }
                let c = u32::from(unit);
                if c < 0x80 {
                    out.add(at).write(c as u8);
                    at += 1;
                } else if c < 0x800 {
                    out.add(at).write(0xc0 | (c >> 6) as u8);
                    out.add(at + 1).write(0x80 | (c & 0x3f) as u8);
                    at += 2;
                } else if !(0xd800..0xe000).contains(&c) {
                    out.add(at).write(0xe0 | (c >> 12) as u8);
                    out.add(at + 1).write(0x80 | ((c >> 6) & 0x3f) as u8);
                    out.add(at + 2).write(0x80 | (c & 0x3f) as u8);
                    at += 3;
                } else {
                    let low = units.get(read + 1).map_or(0, |&low| u32::from(low));
                    if c >= 0xdc00 || !(0xdc00..0xe000).contains(&low) {
                        lone = Some(read);
                        break;
                    }
                    let c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
                    out.add(at).write(0xf0 | (c >> 18) as u8);
                    out.add(at + 1).write(0x80 | ((c >> 12) & 0x3f) as u8);
                    out.add(at + 2).write(0x80 | ((c >> 6) & 0x3f) as u8);
                    out.add(at + 3).write(0x80 | (c & 0x3f) as u8);
                    at += 4;
                    read += 1;
                }
                read += 1;
            }
            bytes.set_len(at);
        }
        self.units += read;
        lone
    }
}

/// For each mask of four lanes of UTF-16 (bit `i` of the low nibble: lane
/// `i` takes two bytes or more; of the high nibble: three), where each
/// byte of their UTF-8 comes from in a block holding the four lanes' first
/// bytes, then their second, then their third.
#[cfg(target_arch = "wasm32")]
static WIDE_LANES: [[u8; 16]; 256] = {
    let mut table = [[0u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut lane, mut at) = (0, 0);
        while lane < 4 {
            table[mask][at] = lane as u8;
            at += 1;
            if mask & (1 << lane) != 0 {
                table[mask][at] = 4 + lane as u8;
                at += 1;
            }
            if mask & (16 << lane) != 0 {
                table[mask][at] = 8 + lane as u8;
                at += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// Writes the UTF-8 of `units` from `read` on at `out + at`, eight units
/// at a time while ten are left, up to a lone surrogate, and returns
/// where reading and writing stopped. Eight of ASCII are narrowed and
/// stored; other eight by [`eight_units`]; eight that hold a surrogate by
/// [`before_surrogate`]. A unit at a time this cost about 64 units of fuel
/// a character of CJK text.
///
/// # Safety
/// `out + at` is writable for three bytes a unit from `read` on.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
unsafe fn wide_blocks(
    units: &[u16],
    mut read: usize,
    out: *mut u8,
    mut at: usize,
) -> (usize, usize) {
    use core::arch::wasm32::{
        i16x8_bitmask, i16x8_eq, u8x16_narrow_i16x8, u16x8_ge, u16x8_splat, u64x2_extract_lane,
        v128, v128_and, v128_any_true,
    };
    // SAFETY: sixteen bytes (eight units) read from `read`, within
    // `units` (checked); writes as the caller promised: eight bytes for
    // eight of ASCII, else within the thirty that ten units leave
    // (`eight_units` and `before_surrogate` say what they write).
    unsafe {
        while read + 10 <= units.len() {
            let v = (units.as_ptr().add(read) as *const v128).read_unaligned();
            let two = u16x8_ge(v, u16x8_splat(0x80));
            let wide = i16x8_bitmask(two) as usize;
            if wide == 0 {
                let ascii = u8x16_narrow_i16x8(v, v);
                (out.add(at) as *mut u64).write_unaligned(u64x2_extract_lane::<0>(ascii));
                at += 8;
                read += 8;
                continue;
            }
            let surrogate = i16x8_eq(v128_and(v, u16x8_splat(0xf800)), u16x8_splat(0xd800));
            if v128_any_true(surrogate) {
                let kept = i16x8_bitmask(surrogate).trailing_zeros() as usize;
                match before_surrogate(v, two, wide, kept, units, read, out.add(at)) {
                    Some((units_read, written)) => {
                        read += units_read;
                        at += written;
                        continue;
                    }
                    None => break,
                }
            }
            at += eight_units(v, two, wide, out.add(at)).0;
            read += 8;
        }
    }
    (read, at)
}

/// Writes the UTF-8 of the eight units `v` (`two` marking, and `wide`'s
/// bits, those of two bytes or more) at `out`, and returns its length and
/// the mask of the units of three bytes. Each lane's first, second and
/// third bytes are computed for its length (one to three), and each four
/// lanes' bytes put in place by one swizzle from [`WIDE_LANES`]; a lane
/// that holds a surrogate is written as if it were a character of three
/// bytes.
///
/// # Safety
/// `out` is writable for 28 bytes: sixteen, and sixteen at most twelve on.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
#[inline]
unsafe fn eight_units(
    v: core::arch::wasm32::v128,
    two: core::arch::wasm32::v128,
    wide: usize,
    out: *mut u8,
) -> (usize, usize) {
    use core::arch::wasm32::{
        i8x16_shuffle, i8x16_swizzle, i16x8_bitmask, u8x16_narrow_i16x8, u16x8_ge, u16x8_shr,
        u16x8_splat, v128, v128_and, v128_bitselect, v128_or,
    };
    let three = u16x8_ge(v, u16x8_splat(0x800));
    let low6 = v128_or(v128_and(v, u16x8_splat(0x3f)), u16x8_splat(0x80));
    let mid6 = v128_or(
        v128_and(u16x8_shr(v, 6), u16x8_splat(0x3f)),
        u16x8_splat(0x80),
    );
    let first = v128_bitselect(
        v128_bitselect(
            v128_or(u16x8_shr(v, 12), u16x8_splat(0xe0)),
            v128_or(u16x8_shr(v, 6), u16x8_splat(0xc0)),
            three,
        ),
        v,
        two,
    );
    let second = v128_bitselect(mid6, low6, three);
    let firsts = u8x16_narrow_i16x8(first, second);
    let thirds = u8x16_narrow_i16x8(low6, low6);
    let three = i16x8_bitmask(three) as usize;
    let halves = [
        (
            i8x16_shuffle::<0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 0, 0, 0, 0>(firsts, thirds),
            (wide & 15) | ((three & 15) << 4),
        ),
        (
            i8x16_shuffle::<4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 0, 0, 0, 0>(firsts, thirds),
            (wide >> 4) | (three & 0xf0),
        ),
    ];
    let mut len = 0;
    // SAFETY: two stores of sixteen bytes, the second at most twelve on
    // (four lanes of three bytes), within the caller's 28.
    unsafe {
        for (lanes, mask) in halves {
            let order = (WIDE_LANES.as_ptr().add(mask) as *const v128).read_unaligned();
            (out.add(len) as *mut v128).write_unaligned(i8x16_swizzle(lanes, order));
            len += 4 + (mask as u32).count_ones() as usize;
        }
    }
    (len, three)
}

/// Writes eight units `v` (read at `units[read]`) whose first surrogate
/// is lane `kept`, at `out`: the lanes before it, then, when it starts a
/// surrogate pair (an emoji), the pair's four bytes. Returns the units
/// read and the bytes written; `None` at a lone surrogate, which is the
/// caller's, with nothing written that counts.
///
/// # Safety
/// `out` is writable for thirty bytes, and `units` holds ten from `read`.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
#[inline]
unsafe fn before_surrogate(
    v: core::arch::wasm32::v128,
    two: core::arch::wasm32::v128,
    wide: usize,
    kept: usize,
    units: &[u16],
    read: usize,
    out: *mut u8,
) -> Option<(usize, usize)> {
    use core::arch::wasm32::{u8x16_narrow_i16x8, u64x2_extract_lane};
    let before = (1 << kept) - 1;
    // SAFETY: eight bytes, or `eight_units`' 28, at `out`; the pair's four
    // bytes after the kept lanes' (three bytes a lane at most, so within
    // the room of the kept lanes and the pair's two units).
    unsafe {
        let written = if wide & before == 0 {
            // ASCII up to the surrogate (English text with an emoji).
            let ascii = u8x16_narrow_i16x8(v, v);
            (out as *mut u64).write_unaligned(u64x2_extract_lane::<0>(ascii));
            kept
        } else {
            // The kept lanes' bytes come first, in order: a lane's one,
            // and one more for each of its marks of two and three bytes.
            let (_, three) = eight_units(v, two, wide, out);
            kept + ((wide | three << 8) & (before | before << 8)).count_ones() as usize
        };
        // The pair's halves: within the ten units (`kept` is below eight).
        let (high, low) = (
            u32::from(units[read + kept]),
            u32::from(units[read + kept + 1]),
        );
        if high >= 0xdc00 || !(0xdc00..0xe000).contains(&low) {
            return None;
        }
        let c = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
        (out.add(written) as *mut u32).write_unaligned(u32::from_le_bytes([
            0xf0 | (c >> 18) as u8,
            0x80 | ((c >> 12) & 0x3f) as u8,
            0x80 | ((c >> 6) & 0x3f) as u8,
            0x80 | (c & 0x3f) as u8,
        ]));
        Some((kept + 2, written + 4))
    }
}

/// The most units [`Out::wide`] transcodes after one check of the room.
const WIDE_CHUNK: usize = 1 << 16;

/// `units` in chunks of at most [`WIDE_CHUNK`], a surrogate pair never
/// split between two.
fn wide_chunks(mut units: &[u16]) -> impl Iterator<Item = &[u16]> {
    std::iter::from_fn(move || {
        if units.is_empty() {
            return None;
        }
        let mut end = units.len().min(WIDE_CHUNK);
        if end < units.len() && (0xd800..0xdc00).contains(&units[end - 1]) {
            end -= 1;
        }
        let (chunk, rest) = units.split_at(end);
        units = rest;
        Some(chunk)
    })
}

/// Appends Latin-1 `bytes` to `buf` as UTF-8.
///
/// # Safety
/// `buf` has room for `2 * bytes.len()` more bytes.
#[inline]
pub(super) unsafe fn push_latin1(buf: &mut Vec<u8>, bytes: &[u8]) {
    let mut at = buf.len();
    // SAFETY: each byte read writes at most two bytes, within the room
    // the caller promised (`latin1_blocks` stores sixteen at a time, each
    // within the two bytes a byte of the rest of the text); the length
    // set covers whole sequences: an ASCII byte, or a lead byte (0xc2,
    // 0xc3) and its continuation.
    unsafe {
        let out = buf.as_mut_ptr();
        #[cfg(target_arch = "wasm32")]
        let read = latin1_blocks(out, &mut at, bytes);
        #[cfg(not(target_arch = "wasm32"))]
        let read = 0;
        for &byte in &bytes[read..] {
            let high = usize::from(byte >> 7);
            out.add(at)
                .write(if high != 0 { 0xc0 | (byte >> 6) } else { byte });
            out.add(at + 1).write(0x80 | (byte & 0x3f));
            at += 1 + high;
        }
        buf.set_len(at);
    }
}

/// For each mask of the high bits of eight bytes, where each byte of
/// their UTF-8 comes from: a non-ASCII byte's lead byte from lane 8 on,
/// then its continuation from its own lane; an ASCII byte from its lane.
#[cfg(target_arch = "wasm32")]
static LATIN1_LANES: [[u8; 16]; 256] = {
    let mut table = [[0u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut lane = 0;
        let mut at = 0;
        while lane < 8 {
            if mask & (1 << lane) != 0 {
                table[mask][at] = 8 + lane as u8;
                at += 1;
            }
            table[mask][at] = lane as u8;
            at += 1;
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// Writes the UTF-8 of `bytes`, sixteen at a time, at `out + *at` on
/// (advancing `*at`), up to the last block of sixteen, and returns how
/// many were read: a block of ASCII is stored as it is; a block with
/// other bytes, eight at a time, each eight's lead and continuation bytes
/// computed in lanes and put in place by one swizzle from
/// [`LATIN1_LANES`]. A byte at a time, branch-free, cost about 26 units
/// of fuel a byte of French text; this is about three.
///
/// # Safety
/// `out + *at` is writable for `2 * bytes.len()` bytes. Each store is
/// sixteen bytes, the two a byte of the eight or sixteen it writes for.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
unsafe fn latin1_blocks(out: *mut u8, at: &mut usize, bytes: &[u8]) -> usize {
    use core::arch::wasm32::{
        i8x16_bitmask, i8x16_lt, i8x16_shuffle, i8x16_swizzle, u8x16_shr, u8x16_splat, v128,
        v128_and, v128_andnot, v128_or,
    };
    let mut read = 0;
    // SAFETY: reads within `bytes` (sixteen from `read`, checked), and
    // writes as the caller promised: sixteen at `*at`, which is at most
    // twice the bytes read past where it started, so within the room of
    // the sixteen (or the eight) bytes that block is for.
    unsafe {
        while read + 16 <= bytes.len() {
            let v = (bytes.as_ptr().add(read) as *const v128).read_unaligned();
            let high = i8x16_bitmask(v) as u32;
            if high == 0 {
                (out.add(*at) as *mut v128).write_unaligned(v);
                *at += 16;
                read += 16;
                continue;
            }
            // A non-ASCII byte's continuation: its bit 6 cleared; its
            // lead: 0xc0 and its top two bits (0xc2 or 0xc3).
            let high_lanes = i8x16_lt(v, u8x16_splat(0));
            let continuation = v128_andnot(v, v128_and(high_lanes, u8x16_splat(0x40)));
            let lead = v128_or(u8x16_shr(v, 6), u8x16_splat(0xc0));
            let halves = [
                (
                    i8x16_shuffle::<0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23>(
                        continuation,
                        lead,
                    ),
                    high & 0xff,
                ),
                (
                    i8x16_shuffle::<8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31>(
                        continuation,
                        lead,
                    ),
                    high >> 8,
                ),
            ];
            for (lanes, mask) in halves {
                let order =
                    (LATIN1_LANES.as_ptr().add(mask as usize) as *const v128).read_unaligned();
                (out.add(*at) as *mut v128).write_unaligned(i8x16_swizzle(lanes, order));
                *at += 8 + mask.count_ones() as usize;
            }
            read += 16;
        }
    }
    read
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
        Chars::Narrow(bytes) => latin1_string(bytes),
        Chars::Wide(units) => {
            let mut out = Out::default();
            out.wide_replacing(units);
            out.buf
        }
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
        Chars::Narrow(bytes) => f(&latin1_string(bytes)),
        Chars::Wide(units) => {
            let mut out = Out::default();
            for chunk in wide_chunks(units) {
                if out.wide_run(chunk).is_some() {
                    return None;
                }
            }
            f(&out.buf)
        }
    })
}

/// Latin-1 `bytes` as a string of UTF-8.
fn latin1_string(bytes: &[u8]) -> String {
    let mut out = Out::default();
    out.latin1(bytes);
    out.buf
}
