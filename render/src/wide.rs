//! A string's UTF-16 units written as UTF-8 eight at a time (wasm SIMD),
//! for `Out::wide` (transcode.rs): blocks of ASCII narrowed, others put in
//! place by swizzles from a table of lane orders, a surrogate pair (an
//! emoji) within its block.

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
pub(super) unsafe fn wide_blocks(
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
