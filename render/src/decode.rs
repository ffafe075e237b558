//! Text made into the engine's strings from UTF-8 (`JSON.stringify`'s
//! result, the JSON reader's strings): decoded here, sixteen bytes at a
//! time, into an 8-bit string when every character is below U+0100, else
//! a two-byte one.

use std::ffi::{c_char, c_int, c_void};

use super::qjs;
#[cfg(feature = "quickjs")]
use rquickjs::{Ctx, IntoJs, Value};

#[cfg(feature = "quickjs")]
unsafe extern "C" {
    /// A new 8-bit string of the `len` characters at `buf`, a byte each.
    fn JS_CoderunNewString8(
        ctx: *mut qjs::JSContext,
        buf: *const c_char,
        len: qjs::size_t,
    ) -> qjs::JSValue;
    /// A new string of `len` characters (two bytes each when `wide`),
    /// whose characters the caller writes at `*chars`.
    fn JS_CoderunNewStringUninit(
        ctx: *mut qjs::JSContext,
        len: qjs::size_t,
        wide: c_int,
        chars: *mut *mut c_void,
    ) -> qjs::JSValue;
}

/// A new string of `text`, the one `JS_NewStringLen` makes of it: an
/// 8-bit string when every character is below U+0100 (ASCII, and most
/// Western European text), else a two-byte one. Text that is not ASCII is
/// measured (its characters, and whether they fit in a byte), then decoded
/// here into a string of that length: `JS_NewStringLen` decodes it a
/// character at a time, at about 60 units of fuel each. The engine's
/// exception when it throws (out of memory, or past the longest string).
///
/// # Safety
/// `ctx` is a live context.
#[cfg(feature = "quickjs")]
pub unsafe fn new_string(ctx: *mut qjs::JSContext, text: &str) -> qjs::JSValue {
    let bytes = text.as_bytes();
    let ascii = ascii_len(bytes);
    if ascii == bytes.len() {
        // SAFETY: a live context (the caller's promise); the bytes are
        // ASCII.
        return unsafe { JS_CoderunNewString8(ctx, bytes.as_ptr().cast(), bytes.len() as _) };
    }
    let (units, eight) = measure(&bytes[ascii..]);
    let units = ascii + units;
    let mut chars = std::ptr::null_mut();
    // SAFETY: a live context; `chars` is set to the new string's
    // `units` characters (there is at least one: the first that is not
    // ASCII), which are all written below, before anything else runs.
    unsafe {
        let value = JS_CoderunNewStringUninit(ctx, units as _, c_int::from(!eight), &mut chars);
        if qjs::JS_VALUE_GET_NORM_TAG(value) == qjs::JS_TAG_EXCEPTION {
            return value;
        }
        let written = if eight {
            latin1_into(bytes, ascii, chars.cast(), units)
        } else {
            super::utf16::utf16_into(bytes, chars.cast(), units)
        };
        assert!(written == units, "a string's text outgrew its measure");
        value
    }
}

/// How many UTF-16 units the UTF-8 `bytes` make (a unit for each byte that
/// is not a continuation, and another for each character of four bytes),
/// and whether every character is below U+0100 (no lead byte from 0xc4
/// on): sixteen bytes at a time.
#[cfg(feature = "quickjs")]
fn measure(bytes: &[u8]) -> (usize, bool) {
    let (mut units, mut wider, mut at) = (0usize, false, 0);
    #[cfg(target_arch = "wasm32")]
    // SAFETY: sixteen bytes from `at`, within `bytes` (checked); an
    // unaligned read.
    unsafe {
        use core::arch::wasm32::{
            i8x16_bitmask, i8x16_ge, i8x16_splat, u8x16_ge, u8x16_max, u8x16_splat, v128,
            v128_any_true,
        };
        // The largest byte of each lane, for the lead bytes past U+00FF.
        let mut largest = u8x16_splat(0);
        while at + 16 <= bytes.len() {
            let v = (bytes.as_ptr().add(at) as *const v128).read_unaligned();
            // Signed, a continuation byte (0x80 to 0xbf) is below -64.
            let starts = i8x16_bitmask(i8x16_ge(v, i8x16_splat(-64)));
            let four = i8x16_bitmask(u8x16_ge(v, u8x16_splat(0xf0)));
            units += starts.count_ones() as usize + four.count_ones() as usize;
            largest = u8x16_max(largest, v);
            at += 16;
        }
        wider |= v128_any_true(u8x16_ge(largest, u8x16_splat(0xc4)));
    }
    for &byte in &bytes[at..] {
        units += usize::from(byte & 0xc0 != 0x80) + usize::from(byte >= 0xf0);
        wider |= byte >= 0xc4;
    }
    (units, !wider)
}

/// Text a native function returns, made into the engine's string by
/// [`new_string`] (rquickjs's own conversion of a `String` is
/// `JS_NewStringLen`'s).
#[cfg(feature = "quickjs")]
pub struct Text(pub String);

#[cfg(feature = "quickjs")]
impl<'js> IntoJs<'js> for Text {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        // SAFETY: the live context rquickjs hands the conversion.
        let value = unsafe { new_string(ctx.as_raw().as_ptr(), &self.0) };
        // SAFETY: reading a value's tag.
        if unsafe { qjs::JS_VALUE_GET_NORM_TAG(value) } == qjs::JS_TAG_EXCEPTION {
            return Err(rquickjs::Error::Exception);
        }
        // SAFETY: a new string of the context, owned, handed to its wrapper.
        Ok(unsafe { Value::from_raw(ctx.clone(), value) })
    }
}

/// [`new_string`] of short ASCII the caller has checked.
///
/// # Safety
/// `ctx` is a live context and `text` is ASCII.
#[cfg(feature = "quickjs")]
pub unsafe fn new_ascii_string(ctx: *mut qjs::JSContext, text: &[u8]) -> qjs::JSValue {
    // SAFETY: the caller's promise.
    unsafe { JS_CoderunNewString8(ctx, text.as_ptr().cast(), text.len() as _) }
}

/// Writes the 8-bit characters of `bytes` (UTF-8 whose characters are all
/// below U+0100, ASCII up to `ascii`) at `dst`, `units` of them, and
/// returns how many it wrote.
///
/// # Safety
/// `dst` is writable for `units` bytes, the number of characters `bytes`
/// holds ([`measure`]).
#[cfg(feature = "quickjs")]
unsafe fn latin1_into(bytes: &[u8], ascii: usize, dst: *mut u8, units: usize) -> usize {
    let len = bytes.len();
    // SAFETY: the ASCII is `ascii` characters of the `units`; then
    // `latin1_decode` and the loop below read within `bytes` (a lead
    // byte's continuation, which UTF-8 has after it) and write one
    // character for each read, up to `units` (checked: the caller's
    // measure).
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, ascii);
        let (mut read, mut written) = (ascii, ascii);
        #[cfg(target_arch = "wasm32")]
        latin1_decode(bytes, &mut read, dst, &mut written, units);
        while read < len && written < units {
            let byte = *bytes.get_unchecked(read);
            if byte < 0x80 {
                dst.add(written).write(byte);
            } else if byte < 0xc0 {
                // The continuation of a lead byte `latin1_decode` read.
                read += 1;
                continue;
            } else {
                // 0xc2 or 0xc3 (the measure found no lead byte past them):
                // a character from U+0080 to U+00FF, in two bytes.
                dst.add(written)
                    .write((byte << 6) | (*bytes.get_unchecked(read + 1) & 0x3f));
                read += 1;
            }
            read += 1;
            written += 1;
        }
        written
    }
}

/// For each mask of eight lanes to drop, the other lanes in order: the
/// continuation bytes [`latin1_decode`] drops, or the lanes of the
/// characters `utf16_decode` gathers (the lanes not starting one dropped).
#[cfg(target_arch = "wasm32")]
pub(super) static KEPT_LANES: [[u8; 16]; 256] = {
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
/// seventeenth for a lead byte's continuation) and sixteen characters
/// fit before `units`, from `bytes[*read]` to `dst + *written`, advancing
/// both. A lead byte's lane takes its character (its low two bits and the
/// next byte's six, read as the same sixteen one byte on); a
/// continuation's lane is dropped, eight lanes at a time, by one swizzle
/// from [`KEPT_LANES`]; a continuation in the first lane is the previous
/// block's. A byte at a time, this cost about 20 units of fuel a byte of
/// French text.
///
/// # Safety
/// `dst` is writable for `units` bytes; `bytes` holds no character past
/// U+00FF.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
unsafe fn latin1_decode(
    bytes: &[u8],
    read: &mut usize,
    dst: *mut u8,
    written: &mut usize,
    units: usize,
) {
    use core::arch::wasm32::{
        i8x16_bitmask, i8x16_eq, i8x16_shuffle, i8x16_swizzle, u8x16_ge, u8x16_shl, u8x16_splat,
        u64x2_extract_lane, v128, v128_and, v128_bitselect, v128_or,
    };
    // SAFETY: seventeen bytes read from `*read` (checked left). Written at
    // `*written`, sixteen at most (sixteen for a block of ASCII, else
    // eight for each eight lanes, the second at most eight on), while
    // sixteen fit before `units` (checked).
    unsafe {
        let load = |at: usize| (bytes.as_ptr().add(at) as *const v128).read_unaligned();
        while *read + 17 <= bytes.len() && *written + 16 <= units {
            let v = load(*read);
            let high = i8x16_bitmask(v) as u32;
            if high == 0 {
                (dst.add(*written) as *mut v128).write_unaligned(v);
                *read += 16;
                *written += 16;
                continue;
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
}

/// How many bytes `bytes` starts with that are ASCII: sixty-four at a
/// time, then sixteen, by their high bits' mask.
pub fn ascii_len(bytes: &[u8]) -> usize {
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
