//! The renderer's byte scans on the host, where the guest's take wasm's
//! SIMD (`scan::find`): SSE2 on x86-64, else a byte at a time.

use super::scan::ByteSet;

/// The first index in `at..to` of a byte in `set`, else `to`, a byte at a
/// time.
pub(super) fn find_bytewise(bytes: &[u8], at: usize, to: usize, set: ByteSet) -> usize {
    bytes[at..to]
        .iter()
        .position(|&c| set.holds(c))
        .map_or(to, |found| at + found)
}

/// `scan::find` on an x86-64 host: SSE2's sixteen bytes at a time (it has no
/// unsigned compare: `v < n` is `max(v, n) != v`), the tail a byte at a
/// time.
#[cfg(target_arch = "x86_64")]
pub(super) fn find_sse2(bytes: &[u8], mut at: usize, to: usize, set: ByteSet) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8, _mm_sub_epi8,
    };
    let to = to.min(bytes.len());
    // SAFETY: SSE2 is part of x86-64; each load is sixteen bytes from
    // `at`, with `at + 16 <= to <= bytes.len()`.
    unsafe {
        let splat = |byte: u8| _mm_set1_epi8(byte as i8);
        // Lanes where `v < n`, as a mask of 16 bits (for `n` 0, none).
        let below = |v: __m128i, n: u8| {
            if n == 0 {
                0
            } else {
                !_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, splat(n)), v)) & 0xffff
            }
        };
        let (from, a, b, c) = (
            splat(set.from),
            splat(set.equal[0]),
            splat(set.equal[1]),
            splat(set.equal[2]),
        );
        while at + 16 <= to {
            let v = _mm_loadu_si128(bytes.as_ptr().add(at).cast());
            let equal = _mm_movemask_epi8(_mm_or_si128(
                _mm_cmpeq_epi8(v, a),
                _mm_or_si128(_mm_cmpeq_epi8(v, b), _mm_cmpeq_epi8(v, c)),
            ));
            let hits = equal | below(v, set.below) | below(_mm_sub_epi8(v, from), set.len);
            if hits != 0 {
                return at + hits.trailing_zeros() as usize;
            }
            at += 16;
        }
    }
    find_bytewise(bytes, at, to, set)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The SSE2 scan finds what the byte-at-a-time one finds, for sets of
    /// every kind (a bound, a range wrapping past 0xff or not, the three
    /// bytes), in every position of blocks and tails.
    #[test]
    fn the_sse2_scan_finds_what_the_bytewise_scan_finds() {
        let sets = [
            ByteSet {
                below: 0x20,
                from: 0x80,
                len: 0x80,
                equal: [b'"', b'\\', b'\\'],
            },
            ByteSet {
                below: 0x20,
                from: 0x7f,
                len: 0x21,
                equal: [b'\'', b'\\', b'\\'],
            },
            ByteSet {
                below: 0,
                from: 0xf0,
                len: 0x20,
                equal: [b'\n', b'\n', b'\n'],
            },
            ByteSet {
                below: 0xff,
                from: 0,
                len: 0,
                equal: [0, 0, 0],
            },
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut byte = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        };
        for set in sets {
            for len in 0..70 {
                for _ in 0..50 {
                    // Mostly bytes outside the set, so that hits fall anywhere.
                    let bytes: Vec<u8> = (0..len)
                        .map(|_| {
                            let b = byte();
                            if b % 11 == 0 { b } else { b'a' + b % 26 }
                        })
                        .collect();
                    for at in [0, 1, len / 2] {
                        if at <= len {
                            assert_eq!(
                                find_sse2(&bytes, at, len, set),
                                find_bytewise(&bytes, at, len, set),
                                "{bytes:?} from {at}"
                            );
                        }
                    }
                }
            }
        }
    }
}
