//! The tags of a tape: plain data as the guest copies it out of QuickJS
//! (`tape.rs`, in the guest's build) and the host reads it (`arena.rs`, in
//! the host's).
//!
//! The format, little-endian:
//!
//! | tag | value | followed by |
//! |---|---|---|
//! | 0 | `undefined` | |
//! | 1 | `null` | |
//! | 2, 3 | `false`, `true` | |
//! | 4 | an integer | `i32` |
//! | 5 | a double | `f64` |
//! | 6 | an 8-bit string (Latin-1) | `u32` length, the bytes |
//! | 7 | a UTF-16 string | `u32` length in units, the units |
//! | 8 | an array | `u32` count, the elements |
//! | 9 | an object of a new shape | `u32` count, the keys, then the values |
//! | 10 | an object of a shape met before | `u32` shape number, the values |
//!
//! A key is a string (tag 6 or 7) or an array index (tag 4, as `u32`).
//! Shapes with keys are numbered from 0 in the order their tag 9 appears
//! (one with none is never referred to).

pub const UNDEFINED: u8 = 0;
pub const NULL: u8 = 1;
pub const FALSE: u8 = 2;
pub const TRUE: u8 = 3;
pub const INT: u8 = 4;
pub const DOUBLE: u8 = 5;
pub const NARROW: u8 = 6;
pub const WIDE: u8 = 7;
pub const ARRAY: u8 = 8;
pub const NEW_SHAPE: u8 = 9;
pub const SHAPE: u8 = 10;
