//! Text made into the engine's strings from UTF-8 (`JSON.stringify`'s
//! result, the JSON reader's strings): decoded here, sixteen bytes at a
//! time, into an 8-bit string when every character is below U+0100, else
//! a two-byte one.

use std::ffi::c_char;

use rquickjs::qjs;

unsafe extern "C" {
    /// A new 8-bit string of the `len` characters at `buf`, a byte each.
    fn JS_CoderunNewString8(
        ctx: *mut qjs::JSContext,
        buf: *const c_char,
        len: qjs::size_t,
    ) -> qjs::JSValue;
    /// A new two-byte string of the `len` UTF-16 units at `buf`.
    fn JS_CoderunNewString16(
        ctx: *mut qjs::JSContext,
        buf: *const u16,
        len: qjs::size_t,
    ) -> qjs::JSValue;
}

/// A new string of `text`, the one `JS_NewStringLen` makes of it: an
/// 8-bit string when every character is below U+0100 (ASCII, and most
/// Western European text), else a two-byte one; decoded here, as
/// `JS_NewStringLen` decodes text that is not ASCII a character at a
/// time, at about 60 units of fuel each. The engine's exception when it
/// throws (out of memory, or past the longest string).
pub(crate) fn new_string(ctx: *mut qjs::JSContext, text: &str) -> qjs::JSValue {
    // SAFETY: `ctx` is a live context (the caller's); each call reads the
    // bytes given, `len` of them.
    unsafe {
        match eight_bit(text) {
            EightBit::Ascii => JS_CoderunNewString8(ctx, text.as_ptr().cast(), text.len() as _),
            EightBit::Latin1(chars) => {
                JS_CoderunNewString8(ctx, chars.as_ptr().cast(), chars.len() as _)
            }
            EightBit::Wider => {
                let units = utf16_of(text);
                JS_CoderunNewString16(ctx, units.as_ptr(), units.len() as _)
            }
        }
    }
}

/// [`new_string`] of short ASCII the caller has checked.
///
/// # Safety
/// `ctx` is a live context and `text` is ASCII.
pub(crate) unsafe fn new_ascii_string(ctx: *mut qjs::JSContext, text: &[u8]) -> qjs::JSValue {
    // SAFETY: the caller's promise.
    unsafe { JS_CoderunNewString8(ctx, text.as_ptr().cast(), text.len() as _) }
}

/// What [`eight_bit`] finds text's characters to be.
enum EightBit {
    Ascii,
    /// All below U+0100, some not ASCII: their bytes.
    Latin1(Vec<u8>),
    /// Some past U+00FF.
    Wider,
}

/// `text`'s characters as 8-bit bytes when they all fit in one: found
/// ASCII eight bytes at a time, and from the first byte that is not,
/// decoded into a copy, a word at a time while the bytes are ASCII.
fn eight_bit(text: &str) -> EightBit {
    let bytes = text.as_bytes();
    let len = bytes.len();
    let mut read = ascii_len(bytes);
    if read == len {
        return EightBit::Ascii;
    }
    let mut chars: Vec<u8> = Vec::with_capacity(len);
    chars.extend_from_slice(&bytes[..read]);
    let mut written = read;
    // SAFETY: `latin1_decode` and the loop below read within `bytes` (a
    // lead byte's continuation, which UTF-8 has after it) and write at
    // most one character a byte read, within the capacity of `len`; the
    // length set covers what was written.
    unsafe {
        let dst = chars.as_mut_ptr();
        #[cfg(target_arch = "wasm32")]
        if !latin1_decode(bytes, &mut read, dst, &mut written) {
            return EightBit::Wider;
        }
        while read < len {
            let byte = *bytes.get_unchecked(read);
            if byte < 0x80 {
                dst.add(written).write(byte);
            } else if byte < 0xc0 {
                // The continuation of a lead byte `latin1_decode` read.
                read += 1;
                continue;
            } else if byte <= 0xc3 {
                // 0xc2 or 0xc3: a character from U+0080 to U+00FF, in
                // two bytes.
                dst.add(written)
                    .write((byte << 6) | (*bytes.get_unchecked(read + 1) & 0x3f));
                read += 1;
            } else {
                return EightBit::Wider;
            }
            read += 1;
            written += 1;
        }
        chars.set_len(written);
    }
    EightBit::Latin1(chars)
}

/// `text` as UTF-16 units, the ones `JS_NewStringLen` makes of it: the
/// ASCII before each other character sixteen bytes at a time, widened;
/// that character on its own (one past U+FFFF as its surrogate pair).
fn utf16_of(text: &str) -> Vec<u16> {
    let bytes = text.as_bytes();
    let len = bytes.len();
    // No more units than bytes: one for one to three, two for four.
    let mut units: Vec<u16> = Vec::with_capacity(len);
    let (mut read, mut written) = (0, 0);
    // SAFETY: reads within `bytes` (sixteen when sixteen are left; a
    // character's continuation bytes, which UTF-8 has after its lead);
    // writes within the capacity of `len`, as `written` stays at most
    // `read` (one unit for one to three bytes, two for four; the sixteen
    // widened at `written` while sixteen bytes are left); the length set
    // covers the units written for the bytes read.
    unsafe {
        let dst = units.as_mut_ptr();
        let at = |i: usize| u16::from(*bytes.get_unchecked(i));
        while read < len {
            #[cfg(target_arch = "wasm32")]
            if read + 16 <= len {
                use core::arch::wasm32::{
                    i8x16_bitmask, u16x8_extend_high_u8x16, u16x8_extend_low_u8x16, v128,
                };
                let v = (bytes.as_ptr().add(read) as *const v128).read_unaligned();
                let out = dst.add(written) as *mut v128;
                out.write_unaligned(u16x8_extend_low_u8x16(v));
                out.add(1).write_unaligned(u16x8_extend_high_u8x16(v));
                // The ASCII the sixteen start with; what follows it was
                // widened too, and is written again below.
                let ascii = (i8x16_bitmask(v) as u32 | 1 << 16).trailing_zeros() as usize;
                read += ascii;
                written += ascii;
                if ascii == 16 {
                    continue;
                }
            }
            let lead = at(read);
            if lead < 0x80 {
                dst.add(written).write(lead);
                read += 1;
            } else if lead < 0xe0 {
                dst.add(written)
                    .write((lead & 0x1f) << 6 | (at(read + 1) & 0x3f));
                read += 2;
            } else if lead < 0xf0 {
                dst.add(written).write(
                    (lead & 0x0f) << 12 | (at(read + 1) & 0x3f) << 6 | (at(read + 2) & 0x3f),
                );
                read += 3;
            } else {
                let c = u32::from(lead & 0x07) << 18
                    | u32::from(at(read + 1) & 0x3f) << 12
                    | u32::from(at(read + 2) & 0x3f) << 6
                    | u32::from(at(read + 3) & 0x3f);
                let c = c - 0x10000;
                dst.add(written).write(0xd800 | (c >> 10) as u16);
                dst.add(written + 1).write(0xdc00 | (c & 0x3ff) as u16);
                written += 1;
                read += 4;
            }
            written += 1;
        }
        units.set_len(written);
    }
    units
}

/// For each mask of eight lanes to drop, the other lanes in order.
#[cfg(target_arch = "wasm32")]
static KEPT_LANES: [[u8; 16]; 256] = {
    let mut table = [[0u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut lane, mut at) = (0, 0);
        while lane < 8 {
            if mask & (1 << lane) == 0 {
                table[mask][at] = lane as u8;
                at += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// Decodes UTF-8 whose characters are all below U+0100 into their 8-bit
/// characters, sixteen bytes at a time while seventeen are left (the
/// seventeenth for a lead byte's continuation), from `bytes[*read]` to
/// `dst + *written`, advancing both; false at a byte of a character past
/// U+00FF. A lead byte's lane takes its character (its low two bits and
/// the next byte's six, read as the same sixteen one byte on); a
/// continuation's lane is dropped, eight lanes at a time, by one swizzle
/// from [`KEPT_LANES`]; a continuation in the first lane is the previous
/// block's. A byte at a time, this cost about 20 units of fuel a byte of
/// French text.
///
/// # Safety
/// `dst + *written` is writable for as many bytes as are left from
/// `*read` on, and `*written <= *read`.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
unsafe fn latin1_decode(bytes: &[u8], read: &mut usize, dst: *mut u8, written: &mut usize) -> bool {
    use core::arch::wasm32::{
        i8x16_bitmask, i8x16_eq, i8x16_shuffle, i8x16_swizzle, u8x16_ge, u8x16_shl, u8x16_splat,
        u64x2_extract_lane, v128, v128_and, v128_bitselect, v128_or,
    };
    // SAFETY: seventeen bytes read from `*read` (checked left). Written at
    // `*written`, which is at most `*read` when a block starts (a byte
    // read writes at most one): sixteen for a block of ASCII, else eight
    // for each eight lanes, at most `*read + 8` for the second; so within
    // the sixteen bytes from `*read`, which the caller promised.
    unsafe {
        let load = |at: usize| (bytes.as_ptr().add(at) as *const v128).read_unaligned();
        while *read + 17 <= bytes.len() {
            let v = load(*read);
            let high = i8x16_bitmask(v) as u32;
            if high == 0 {
                (dst.add(*written) as *mut v128).write_unaligned(v);
                *read += 16;
                *written += 16;
                continue;
            }
            if i8x16_bitmask(u8x16_ge(v, u8x16_splat(0xc4))) != 0 {
                return false;
            }
            let continuation =
                i8x16_bitmask(i8x16_eq(v128_and(v, u8x16_splat(0xc0)), u8x16_splat(0x80))) as u32;
            let next = load(*read + 1);
            let character = v128_or(u8x16_shl(v, 6), v128_and(next, u8x16_splat(0x3f)));
            let chars = v128_bitselect(character, v, u8x16_ge(v, u8x16_splat(0xc0)));
            let halves = [
                (chars, continuation & 0xff),
                (
                    i8x16_shuffle::<8, 9, 10, 11, 12, 13, 14, 15, 0, 0, 0, 0, 0, 0, 0, 0>(
                        chars, chars,
                    ),
                    continuation >> 8,
                ),
            ];
            for (lanes, dropped) in halves {
                let order =
                    (KEPT_LANES.as_ptr().add(dropped as usize) as *const v128).read_unaligned();
                let kept = u64x2_extract_lane::<0>(i8x16_swizzle(lanes, order));
                (dst.add(*written) as *mut u64).write_unaligned(kept);
                *written += 8 - dropped.count_ones() as usize;
            }
            *read += 16;
        }
    }
    true
}

/// How many bytes `bytes` starts with that are ASCII: sixty-four at a
/// time, then sixteen, by their high bits' mask.
fn ascii_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    #[cfg(target_arch = "wasm32")]
    // SAFETY: sixteen bytes from `at` (or from 16, 32 and 48 past it),
    // within `bytes` (checked); unaligned reads.
    unsafe {
        use core::arch::wasm32::{i8x16_bitmask, v128, v128_or};
        let load = |at: usize| (bytes.as_ptr().add(at) as *const v128).read_unaligned();
        while at + 64 <= bytes.len() {
            let any = v128_or(
                v128_or(load(at), load(at + 16)),
                v128_or(load(at + 32), load(at + 48)),
            );
            if i8x16_bitmask(any) != 0 {
                break;
            }
            at += 64;
        }
        while at + 16 <= bytes.len() {
            let high = i8x16_bitmask(load(at));
            if high != 0 {
                return at + high.trailing_zeros() as usize;
            }
            at += 16;
        }
    }
    while at < bytes.len() && bytes[at] < 0x80 {
        at += 1;
    }
    at
}
