//! A tape's nesting, found without recursing.

use super::read::MAX_TAPE_DEPTH;
use crate::tags as tag;

/// How deeply the arrays and objects of `tape` nest, found without
/// recursing (a list of the counts left at each level), so that a caller
/// can give [`render_tape`], which recurses once a level to read and to
/// render, a stack of its own for a deep tape. It stops past
/// [`MAX_TAPE_DEPTH`], and at the first malformed byte, with the depth
/// reached: [`render_tape`] reports what was wrong.
pub fn tape_depth(tape: &[u8]) -> usize {
    let (mut at, mut deepest) = (0usize, 0usize);
    // The values left to read at each open level.
    let mut left: Vec<u64> = Vec::new();
    // The key count of each shape with keys, by number.
    let mut shapes: Vec<u64> = Vec::new();
    let u32_at = |at: usize| {
        tape.get(at..at + 4)
            .map(|bytes| u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])))
    };
    loop {
        // Close the levels whose values are all read.
        while left.last() == Some(&0) {
            left.pop();
        }
        if let Some(last) = left.last_mut() {
            *last -= 1;
        } else if at > 0 {
            return deepest;
        }
        let Some(&tag) = tape.get(at) else {
            return deepest;
        };
        at += 1;
        let opened = match tag {
            tag::UNDEFINED | tag::NULL | tag::FALSE | tag::TRUE => None,
            tag::INT => {
                at += 4;
                None
            }
            tag::DOUBLE => {
                at += 8;
                None
            }
            tag::NARROW | tag::WIDE => {
                let Some(len) = u32_at(at) else {
                    return deepest;
                };
                at += 4 + (len as usize) * usize::from(tag - tag::NARROW + 1);
                None
            }
            tag::ARRAY => {
                let Some(count) = u32_at(at) else {
                    return deepest;
                };
                at += 4;
                Some(count)
            }
            tag::NEW_SHAPE => {
                let Some(count) = u32_at(at) else {
                    return deepest;
                };
                at += 4;
                for _ in 0..count {
                    match tape.get(at) {
                        Some(&(tag::NARROW | tag::WIDE)) => {
                            let Some(len) = u32_at(at + 1) else {
                                return deepest;
                            };
                            at += 5 + (len as usize) * usize::from(tape[at] - tag::NARROW + 1);
                        }
                        Some(&tag::INT) => at += 5,
                        _ => return deepest,
                    }
                }
                if count > 0 {
                    shapes.push(count);
                }
                Some(count)
            }
            tag::SHAPE => {
                let Some(number) = u32_at(at) else {
                    return deepest;
                };
                at += 4;
                let Some(&count) = shapes.get(number as usize) else {
                    return deepest;
                };
                Some(count)
            }
            _ => return deepest,
        };
        if let Some(count) = opened {
            left.push(count);
            deepest = deepest.max(left.len());
            if deepest > MAX_TAPE_DEPTH {
                return deepest;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32s(n: u32) -> [u8; 4] {
        n.to_le_bytes()
    }

    #[test]
    fn a_tapes_depth_is_found_without_reading_it() {
        let nested = |depth: usize| {
            let mut tape = Vec::new();
            for _ in 0..depth {
                tape.extend_from_slice(&[
                    tag::NEW_SHAPE,
                    1,
                    0,
                    0,
                    0,
                    tag::NARROW,
                    1,
                    0,
                    0,
                    0,
                    b'k',
                ]);
            }
            tape.push(tag::NULL);
            tape
        };
        assert_eq!(tape_depth(&[tag::NULL]), 0);
        assert_eq!(tape_depth(&nested(1)), 1);
        assert_eq!(tape_depth(&nested(57)), 57);
        // Siblings do not add up; a shape met again opens a level too.
        let siblings = [
            &[tag::ARRAY][..],
            &u32s(3),
            &[tag::NEW_SHAPE],
            &u32s(1),
            &[tag::INT],
            &u32s(0),
            &[tag::ARRAY],
            &u32s(0),
            &[tag::SHAPE],
            &u32s(0),
            &[tag::ARRAY],
            &u32s(1),
            &[tag::NULL, tag::NULL],
        ]
        .concat();
        assert_eq!(tape_depth(&siblings), 3);
        assert!(crate::render_tape(&siblings, 1 << 20, None).is_ok());
        // Past the bound it stops; malformed, it stops where it is.
        assert_eq!(tape_depth(&nested(1000)), MAX_TAPE_DEPTH + 1);
        assert_eq!(tape_depth(&[tag::ARRAY, 1, 0]), 0);
        assert_eq!(tape_depth(&[tag::SHAPE, 9, 0, 0, 0]), 0);
    }
}
