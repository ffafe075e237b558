//! UTF-8 decoded into the UTF-16 of a two-byte string (text with a
//! character past U+00FF, made into the engine's string by
//! `decode::new_string`): sixteen bytes at a time while they last.

#[cfg(target_arch = "wasm32")]
use super::decode::KEPT_LANES;

/// Writes the UTF-16 units of the UTF-8 `bytes` at `dst`, `units` of
/// them, the ones `JS_NewStringLen` makes: blocks of sixteen bytes by
/// [`utf16_decode`] while they last, then a character at a time (one past
/// U+FFFF as its surrogate pair). Returns how many it wrote.
///
/// # Safety
/// `dst` is writable for `units` units, the number `bytes` makes
/// (`decode::measure`); `bytes` is UTF-8.
pub(super) unsafe fn utf16_into(bytes: &[u8], dst: *mut u16, units: usize) -> usize {
    let len = bytes.len();
    let (mut read, mut written) = (0, 0);
    // SAFETY: `utf16_decode` keeps to `bytes` and `units` (its own
    // promise); then reads within `bytes` (a character's continuation
    // bytes, which UTF-8 has after its lead) and writes the units of the
    // bytes read, which the measure counted, so within `units` (checked).
    unsafe {
        #[cfg(target_arch = "wasm32")]
        utf16_decode(bytes, &mut read, dst, &mut written, units);
        while read < len && written < units {
            let lead = *bytes.get_unchecked(read);
            if lead < 0x80 {
                dst.add(written).write(u16::from(lead));
                read += 1;
                written += 1;
            } else {
                if lead >= 0xf0 && written + 2 > units {
                    break;
                }
                let (bytes_read, units_written) =
                    write_char(dst.add(written), bytes.as_ptr().add(read));
                read += bytes_read;
                written += units_written;
            }
        }
        written
    }
}

/// Writes the UTF-16 of the character of two to four bytes of UTF-8 whose
/// lead is at `at` at `dst`, and returns the bytes it read and the units
/// it wrote (two for a surrogate pair).
///
/// # Safety
/// `at` is a lead byte of UTF-8 followed by its continuation bytes, and
/// `dst` is writable for the character's units.
#[inline(always)]
unsafe fn write_char(dst: *mut u16, at: *const u8) -> (usize, usize) {
    // SAFETY: the caller's promise.
    unsafe {
        let byte = |i: usize| u16::from(*at.add(i));
        let lead = byte(0);
        if lead >= 0xf0 {
            write_pair(dst, at);
            (4, 2)
        } else if lead >= 0xe0 {
            dst.write((lead & 0x0f) << 12 | (byte(1) & 0x3f) << 6 | (byte(2) & 0x3f));
            (3, 1)
        } else {
            dst.write((lead & 0x1f) << 6 | (byte(1) & 0x3f));
            (2, 1)
        }
    }
}

/// Writes the surrogate pair of the character of four bytes of UTF-8 at
/// `lead` at `dst`.
///
/// # Safety
/// `lead` is readable for four bytes and `dst` writable for two units.
#[inline(always)]
unsafe fn write_pair(dst: *mut u16, lead: *const u8) {
    // SAFETY: the caller's promise.
    unsafe {
        let byte = |i: usize| u32::from(*lead.add(i));
        let c = (byte(0) & 0x07) << 18
            | (byte(1) & 0x3f) << 12
            | (byte(2) & 0x3f) << 6
            | (byte(3) & 0x3f);
        let c = c.wrapping_sub(0x10000);
        dst.write(0xd800 | (c >> 10 & 0x3ff) as u16);
        dst.add(1).write(0xdc00 | (c & 0x3ff) as u16);
    }
}

/// Decodes UTF-8 into UTF-16 from `bytes[*read]` to `dst + *written`,
/// advancing both, while sixteen bytes are left to read and sixteen units
/// fit before `units`, by what the sixteen bytes hold:
/// - all ASCII: widened at once;
/// - five characters of three bytes (CJK text) or eight of two (Cyrillic,
///   Greek, Hebrew, Arabic words): decoded at once by fixed shuffles;
/// - ASCII, then a character with no other in the eight bytes from it
///   (text mostly ASCII): the ASCII widened and the character decoded on
///   its own;
/// - four bytes of ASCII or more before denser text: the ASCII widened;
/// - else the characters that start in the first eight bytes: their lead
///   bytes, and the one and two bytes after each, gathered into 16-bit
///   lanes by three swizzles (the lanes from [`KEPT_LANES`], by the mask
///   of the bytes that are not continuations), and each lane's character
///   computed as its lead says (one, two or three bytes). A character of
///   four bytes among the eight ends the block at it and is written as
///   its surrogate pair.
///
/// A character at a time, CJK text cost about 110 units of fuel a
/// character; now about 15.
///
/// # Safety
/// `dst` is writable for `units` units; `bytes` is UTF-8 (so a lead's
/// continuation bytes follow it).
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
unsafe fn utf16_decode(
    bytes: &[u8],
    read: &mut usize,
    dst: *mut u16,
    written: &mut usize,
    units: usize,
) {
    use core::arch::wasm32::{
        i8x16_bitmask, i8x16_ge, i8x16_shuffle, i8x16_splat, i8x16_swizzle, i16x8_add, u8x16_ge,
        u8x16_splat, u16x8_extend_high_u8x16, u16x8_extend_low_u8x16, u16x8_ge, u16x8_lt,
        u16x8_splat, v128, v128_bitselect, v128_load64_zero, v128_or,
    };
    // SAFETY: sixteen bytes read at `*read` (checked left), and a
    // character read at its lead, which starts within the sixteen, with
    // the continuation bytes UTF-8 has after it (the caller's promise).
    // Written at `*written`, while sixteen units fit before `units`
    // (checked): sixteen widened, or eight decoded and then a pair; a lone
    // character's unit or pair after the ASCII before it, which the
    // measure counted among `units`. What lies past the characters
    // decoded is written over by the next block or the caller's loop,
    // which go on up to `units`.
    unsafe {
        let load = |at: usize| (bytes.as_ptr().add(at) as *const v128).read_unaligned();
        while *read + 16 <= bytes.len() && *written + 16 <= units {
            let v = load(*read);
            let out = dst.add(*written) as *mut v128;
            let high = i8x16_bitmask(v) as u32;
            if high == 0 {
                out.write_unaligned(u16x8_extend_low_u8x16(v));
                out.add(1).write_unaligned(u16x8_extend_high_u8x16(v));
                *read += 16;
                *written += 16;
                continue;
            }
            // Signed, a continuation byte (0x80 to 0xbf) is below -64.
            let starts = i8x16_bitmask(i8x16_ge(v, i8x16_splat(-64))) as u32;
            if starts == 0x9249 {
                // Five characters of three bytes (CJK text): each lead is
                // followed by two continuation bytes and another lead, so
                // in UTF-8 it is a lead of three.
                let zero = u8x16_splat(0);
                let b0 = i8x16_shuffle::<0, 16, 3, 16, 6, 16, 9, 16, 12, 16, 16, 16, 16, 16, 16, 16>(
                    v, zero,
                );
                let b1 = i8x16_shuffle::<1, 16, 4, 16, 7, 16, 10, 16, 13, 16, 16, 16, 16, 16, 16, 16>(
                    v, zero,
                );
                let b2 = i8x16_shuffle::<2, 16, 5, 16, 8, 16, 11, 16, 14, 16, 16, 16, 16, 16, 16, 16>(
                    v, zero,
                );
                out.write_unaligned(three_bytes(b0, b1, b2));
                *read += 15;
                *written += 5;
                continue;
            }
            // The ASCII the sixteen start with (fewer than sixteen).
            let ascii = (high | 1 << 16).trailing_zeros() as usize;
            if ((starts & high) >> ascii) & 0xff == 1 {
                // The ASCII, widened (all sixteen are; what follows it is
                // written over), then a character of two to four bytes
                // with no other in the eight bytes from it (text mostly
                // ASCII), on its own. Its units were measured, so they fit.
                out.write_unaligned(u16x8_extend_low_u8x16(v));
                out.add(1).write_unaligned(u16x8_extend_high_u8x16(v));
                *read += ascii;
                *written += ascii;
                let (bytes_read, units_written) =
                    write_char(dst.add(*written), bytes.as_ptr().add(*read));
                *read += bytes_read;
                *written += units_written;
                continue;
            }
            if ascii >= 4 {
                // The ASCII, widened, before text denser in other
                // characters.
                out.write_unaligned(u16x8_extend_low_u8x16(v));
                out.add(1).write_unaligned(u16x8_extend_high_u8x16(v));
                *read += ascii;
                *written += ascii;
                continue;
            }
            if starts == 0x5555 && i8x16_bitmask(u8x16_ge(v, u8x16_splat(0xe0))) == 0 {
                // Eight characters of two bytes (Cyrillic, Greek, Hebrew,
                // Arabic text): every lead is below 0xe0, so the last one's
                // character ends in the sixteenth byte.
                let zero = u8x16_splat(0);
                let b0 = i8x16_shuffle::<0, 16, 2, 16, 4, 16, 6, 16, 8, 16, 10, 16, 12, 16, 14, 16>(
                    v, zero,
                );
                let b1 = i8x16_shuffle::<1, 16, 3, 16, 5, 16, 7, 16, 9, 16, 11, 16, 13, 16, 15, 16>(
                    v, zero,
                );
                out.write_unaligned(two_bytes(b0, b1));
                *read += 16;
                *written += 8;
                continue;
            }
            let four = i8x16_bitmask(u8x16_ge(v, u8x16_splat(0xf0))) as u32 & 0xff;
            // The characters decoded: those that start in the first
            // eight bytes, or before a lead of four bytes among them
            // (they end before it).
            let (decoded, next) = if four == 0 {
                // The next character starts in byte 8, 9 or 10 (one that
                // starts by byte 7 has three bytes at most); the bit at 16
                // bounds the step for text that is not UTF-8.
                (
                    starts & 0xff,
                    8 + ((starts | 1 << 16) >> 8).trailing_zeros(),
                )
            } else {
                let lead = four.trailing_zeros();
                (starts & ((1 << lead) - 1), lead)
            };
            // Each character's lead in a 16-bit lane (the high byte's
            // 0x80 is past the sixteen, so swizzled to zero), and the
            // bytes one and two after it.
            let order =
                v128_load64_zero(KEPT_LANES.as_ptr().add((!decoded & 0xff) as usize) as *const u64);
            let lanes = v128_or(u16x8_extend_low_u8x16(order), u16x8_splat(0x8000));
            let b0 = i8x16_swizzle(v, lanes);
            let b1 = i8x16_swizzle(v, i16x8_add(lanes, u16x8_splat(1)));
            let b2 = i8x16_swizzle(v, i16x8_add(lanes, u16x8_splat(2)));
            let wide = v128_bitselect(
                three_bytes(b0, b1, b2),
                two_bytes(b0, b1),
                u16x8_ge(b0, u16x8_splat(0xe0)),
            );
            out.write_unaligned(v128_bitselect(b0, wide, u16x8_lt(b0, u16x8_splat(0x80))));
            *written += decoded.count_ones() as usize;
            *read += next as usize;
            if four != 0 {
                write_pair(dst.add(*written), bytes.as_ptr().add(*read));
                *written += 2;
                *read += 4;
            }
        }
    }
}

/// The characters of two bytes of UTF-8 whose leads are in `b0`'s 16-bit
/// lanes and continuations in `b1`'s.
#[cfg(target_arch = "wasm32")]
#[inline(always)]
fn two_bytes(
    b0: core::arch::wasm32::v128,
    b1: core::arch::wasm32::v128,
) -> core::arch::wasm32::v128 {
    use core::arch::wasm32::{u16x8_shl, u16x8_splat, v128_and, v128_or};
    v128_or(
        u16x8_shl(v128_and(b0, u16x8_splat(0x1f)), 6),
        v128_and(b1, u16x8_splat(0x3f)),
    )
}

/// The characters of three bytes of UTF-8 whose bytes are in the 16-bit
/// lanes of `b0`, `b1` and `b2`: the shift by 12 keeps the lead's low
/// four bits.
#[cfg(target_arch = "wasm32")]
#[inline(always)]
fn three_bytes(
    b0: core::arch::wasm32::v128,
    b1: core::arch::wasm32::v128,
    b2: core::arch::wasm32::v128,
) -> core::arch::wasm32::v128 {
    use core::arch::wasm32::{u16x8_shl, u16x8_splat, v128_and, v128_or};
    let low = u16x8_splat(0x3f);
    v128_or(
        v128_or(u16x8_shl(b0, 12), u16x8_shl(v128_and(b1, low), 6)),
        v128_and(b2, low),
    )
}
