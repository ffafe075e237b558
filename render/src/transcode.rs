//! Text converted to UTF-8 as it is written: a string's 8-bit
//! characters (Latin-1) and its UTF-16 units, whole runs at a time; and
//! a string's text handed out as UTF-8.

#[cfg(feature = "quickjs")]
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
                    (read, at) = super::wide::wide_blocks(units, read, out, at);
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
#[cfg(feature = "quickjs")]
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
#[cfg(feature = "quickjs")]
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
#[cfg(feature = "quickjs")]
fn latin1_string(bytes: &[u8]) -> String {
    let mut out = Out::default();
    out.latin1(bytes);
    out.buf
}
