//! Whether bytes are UTF-8, checked sixteen at a time (wasm SIMD), for
//! `TextDecoder`: UTF-8 that is well formed is its own decoding, and
//! encoding_rs, which checks a byte at a time on wasm, is left the text
//! with errors to replace.
//!
//! Each byte is looked at with the one, two and three before it (Keiser
//! and Lemire, "Validating UTF-8 in less than one instruction per byte",
//! 2021). Every error a byte makes with the one before it holds for a set
//! of the earlier byte's high nibble, times a set of its low nibble, times
//! a set of the later byte's high nibble ([`RULES`]); three tables of
//! sixteen, looked up by those nibbles, carry a bit for each rule, and a
//! pair is wrong when its three entries share a bit. A continuation after
//! a continuation is one of the rules, and is right exactly when the byte
//! two back starts a character of three or four bytes, or the byte three
//! back one of four.

/// A set of bytes a byte pair's error holds for: bit `n` of each field
/// stands for nibble `n`.
struct Rule {
    earlier_high: u16,
    earlier_low: u16,
    later_high: u16,
}

/// Nibbles `from` to `to`, as a set.
const fn nibbles(from: u8, to: u8) -> u16 {
    ((1u32 << (to + 1)) - (1u32 << from)) as u16
}

const ANY: u16 = nibbles(0, 15);
const ASCII: u16 = nibbles(0, 7);
const CONTINUATION: u16 = nibbles(8, 11);
const LEAD: u16 = nibbles(12, 15);

/// The errors of a byte pair, one bit each. The last is the bit of two
/// continuations in a row (0x80), which the bytes two and three back
/// make right.
const RULES: [Rule; 8] = [
    // A lead byte not followed by a continuation.
    Rule {
        earlier_high: LEAD,
        earlier_low: ANY,
        later_high: ASCII | LEAD,
    },
    // A continuation after ASCII.
    Rule {
        earlier_high: ASCII,
        earlier_low: ANY,
        later_high: CONTINUATION,
    },
    // 0xc0 and 0xc1 followed by a continuation: an overlong form of two
    // bytes.
    Rule {
        earlier_high: nibbles(0xc, 0xc),
        earlier_low: nibbles(0, 1),
        later_high: CONTINUATION,
    },
    // 0xe0 followed by 0x80 to 0x9f: an overlong form of three bytes.
    Rule {
        earlier_high: nibbles(0xe, 0xe),
        earlier_low: nibbles(0, 0),
        later_high: nibbles(8, 9),
    },
    // 0xed followed by 0xa0 to 0xbf: a surrogate.
    Rule {
        earlier_high: nibbles(0xe, 0xe),
        earlier_low: nibbles(0xd, 0xd),
        later_high: nibbles(0xa, 0xb),
    },
    // 0xf0 followed by 0x80 to 0x8f (an overlong form of four bytes), and
    // 0xf5 to 0xff followed by them (past U+10FFFF).
    Rule {
        earlier_high: nibbles(0xf, 0xf),
        earlier_low: nibbles(0, 0) | nibbles(5, 15),
        later_high: nibbles(8, 8),
    },
    // 0xf4 to 0xff followed by 0x90 to 0xbf: past U+10FFFF.
    Rule {
        earlier_high: nibbles(0xf, 0xf),
        earlier_low: nibbles(4, 15),
        later_high: nibbles(9, 11),
    },
    // A continuation after a continuation.
    Rule {
        earlier_high: CONTINUATION,
        earlier_low: ANY,
        later_high: CONTINUATION,
    },
];

/// Which of a rule's three sets a table is of.
#[derive(Clone, Copy)]
enum Field {
    EarlierHigh,
    EarlierLow,
    LaterHigh,
}

/// The table of one of the rules' three sets: for each nibble, the bits
/// of the rules whose set holds it.
const fn table(field: Field) -> [u8; 16] {
    let mut table = [0u8; 16];
    let mut rule = 0;
    while rule < RULES.len() {
        let set = match field {
            Field::EarlierHigh => RULES[rule].earlier_high,
            Field::EarlierLow => RULES[rule].earlier_low,
            Field::LaterHigh => RULES[rule].later_high,
        };
        let mut nibble = 0;
        while nibble < 16 {
            if set & (1 << nibble) != 0 {
                table[nibble] |= 1 << rule;
            }
            nibble += 1;
        }
        rule += 1;
    }
    table
}

/// Whether `bytes` are UTF-8: no byte out of place, no overlong form, no
/// surrogate, nothing past U+10FFFF, no character cut at the end.
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    #[cfg(target_arch = "wasm32")]
    // SAFETY: simd128 is enabled for the guest's whole build.
    return unsafe { check(bytes) };
    #[cfg(not(target_arch = "wasm32"))]
    std::str::from_utf8(bytes).is_ok()
}

/// [`is_utf8`], sixteen bytes at a time; the last few copied into a block
/// of zeros (ASCII, which ends no character early but a cut one).
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
unsafe fn check(bytes: &[u8]) -> bool {
    use core::arch::wasm32::{
        i8x16_bitmask, u8x16, u8x16_gt, u8x16_splat, v128, v128_any_true, v128_or,
    };
    // The last three bytes of a block, when they start a character that
    // needs more bytes than are left in it.
    let cut = u8x16(
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0xdf,
        0xbf,
    );
    let (mut error, mut previous) = (u8x16_splat(0), u8x16_splat(0));
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        // SAFETY: a chunk of sixteen bytes; an unaligned read.
        let v = unsafe { (block.as_ptr() as *const v128).read_unaligned() };
        if i8x16_bitmask(v) == 0 {
            // ASCII: wrong only after a character the block before cut.
            error = v128_or(error, u8x16_gt(previous, cut));
        } else {
            error = v128_or(error, pair_errors(previous, v));
        }
        previous = v;
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 16];
        last[..rest.len()].copy_from_slice(rest);
        // SAFETY: sixteen bytes of a local array; an unaligned read.
        let v = unsafe { (last.as_ptr() as *const v128).read_unaligned() };
        error = v128_or(error, pair_errors(previous, v));
        previous = v;
    }
    !v128_any_true(v128_or(error, u8x16_gt(previous, cut)))
}

/// The errors of the block `v` after the block `previous`: nonzero lanes
/// where a byte and the one before it break a rule, or where two
/// continuations in a row are not a character's third or fourth byte.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
#[inline]
fn pair_errors(
    previous: core::arch::wasm32::v128,
    v: core::arch::wasm32::v128,
) -> core::arch::wasm32::v128 {
    use core::arch::wasm32::{
        i8x16_shuffle, i8x16_swizzle, u8x16_ge, u8x16_shr, u8x16_splat, v128, v128_and, v128_or,
        v128_xor,
    };
    const EARLIER_HIGH: [u8; 16] = table(Field::EarlierHigh);
    const EARLIER_LOW: [u8; 16] = table(Field::EarlierLow);
    const LATER_HIGH: [u8; 16] = table(Field::LaterHigh);
    let load = |table: &[u8; 16]| {
        // SAFETY: sixteen bytes of a constant; an unaligned read.
        unsafe { (table.as_ptr() as *const v128).read_unaligned() }
    };
    // The bytes one, two and three before each.
    let one = i8x16_shuffle::<15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30>(
        previous, v,
    );
    let two = i8x16_shuffle::<14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29>(
        previous, v,
    );
    let three = i8x16_shuffle::<13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28>(
        previous, v,
    );
    let low = u8x16_splat(0x0f);
    let broken = v128_and(
        v128_and(
            i8x16_swizzle(load(&EARLIER_HIGH), u8x16_shr(one, 4)),
            i8x16_swizzle(load(&EARLIER_LOW), v128_and(one, low)),
        ),
        i8x16_swizzle(load(&LATER_HIGH), u8x16_shr(v, 4)),
    );
    // Where a continuation must follow a continuation: the third byte of
    // a character of three or four bytes, the fourth of four.
    let expected = v128_and(
        v128_or(
            u8x16_ge(two, u8x16_splat(0xe0)),
            u8x16_ge(three, u8x16_splat(0xf0)),
        ),
        u8x16_splat(0x80),
    );
    v128_xor(broken, expected)
}
