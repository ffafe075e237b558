//! Strings as the engine holds them, and the scans that find what a
//! literal or JSON must escape: eight bytes at a time, sixteen with SIMD.

use std::ffi::{c_int, c_void};

use super::qjs;

#[cfg(not(target_arch = "wasm32"))]
use super::host_scan;
use super::{JS_CoderunString, JS_CoderunStringChars};

// ---- strings ----------------------------------------------------------------

/// A string's code units, borrowed from the engine.
#[derive(Clone, Copy)]
pub(super) enum Chars<'a> {
    Narrow(&'a [u8]),
    Wide(&'a [u16]),
}

impl Chars<'_> {
    pub(super) fn len(self) -> usize {
        match self {
            Chars::Narrow(bytes) => bytes.len(),
            Chars::Wide(units) => units.len(),
        }
    }

    pub(super) fn get(self, at: usize) -> u16 {
        match self {
            Chars::Narrow(bytes) => u16::from(bytes[at]),
            Chars::Wide(units) => units[at],
        }
    }

    /// # Safety
    /// `chars` points at `len` characters of the given width that outlive
    /// the borrow.
    pub(super) unsafe fn from_raw<'a>(chars: *const c_void, len: u32, wide: c_int) -> Chars<'a> {
        if len == 0 {
            return Chars::Narrow(&[]);
        }
        if wide != 0 {
            Chars::Wide(unsafe { std::slice::from_raw_parts(chars as *const u16, len as usize) })
        } else {
            Chars::Narrow(unsafe { std::slice::from_raw_parts(chars as *const u8, len as usize) })
        }
    }
}

/// A string value's characters: borrowed when the string is flat (valid
/// while the value is and the engine does not run, which is how long the
/// renderer uses them), else flattened and held by a reference until
/// dropped.
pub(super) struct Held {
    pub(super) ctx: *mut qjs::JSContext,
    pub(super) string: qjs::JSValue,
    pub(super) chars: *const c_void,
    pub(super) len: u32,
    pub(super) wide: c_int,
    /// Whether `string` is a reference of the holder's own.
    owned: bool,
}

/// A flat string's characters when they are 8-bit, borrowed (valid while
/// the value is and the engine does not run); `None` for a wide string, a
/// rope, or anything else.
#[inline(always)]
pub(super) fn narrow<'a>(value: qjs::JSValue) -> Option<&'a [u8]> {
    let mut flat = 0u32;
    // SAFETY: reads a live value's header.
    let chars = unsafe { JS_CoderunStringChars(value, &mut flat) };
    if chars.is_null() || flat >> 31 != 0 {
        return None;
    }
    // SAFETY: a flat 8-bit string's `len` characters, alive while the
    // value is.
    Some(unsafe { std::slice::from_raw_parts(chars as *const u8, (flat & 0x7fff_ffff) as usize) })
}

impl Held {
    pub(super) fn of(ctx: *mut qjs::JSContext, value: qjs::JSValue) -> Option<Held> {
        let mut flat = 0u32;
        // SAFETY: reads a live value's header.
        let chars = unsafe { JS_CoderunStringChars(value, &mut flat) };
        if !chars.is_null() {
            return Some(Held {
                ctx,
                string: value,
                chars,
                len: flat & 0x7fff_ffff,
                wide: c_int::from(flat >> 31 != 0),
                owned: false,
            });
        }
        let mut held = Held {
            ctx,
            string: value,
            chars: std::ptr::null(),
            len: 0,
            wide: 0,
            owned: true,
        };
        // SAFETY: `value` is a live value of `ctx`; on success `string` is a
        // reference that keeps `chars` alive until drop.
        let ok = unsafe {
            JS_CoderunString(
                ctx,
                value,
                &mut held.string,
                &mut held.chars,
                &mut held.len,
                &mut held.wide,
            )
        };
        if ok != 0 {
            std::mem::forget(held);
            return None;
        }
        Some(held)
    }

    pub(super) fn chars(&self) -> Chars<'_> {
        // SAFETY: alive while the value is (borrowed) or kept alive by
        // `string`'s reference (held).
        unsafe { Chars::from_raw(self.chars, self.len, self.wide) }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: the reference `JS_CoderunString` gave.
            unsafe { qjs::JS_FreeValue(self.ctx, self.string) }
        }
    }
}

pub(super) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// What stops a scan: the exact test of one code unit, and the same test
/// as a set of bytes for the sixteen-at-once scan.
pub(super) trait Stop: Copy {
    fn unit(self, c: u16) -> bool;
    /// [`unit`](Self::unit) for a two-byte string's units, where a run of
    /// other characters (and surrogates, paired or not) is written as it
    /// is by `Out::wide` (a lone surrogate as its escape, as every writer
    /// escapes it): only what the writer escapes otherwise stops it.
    #[inline(always)]
    fn wide(self, c: u16) -> bool {
        self.unit(c)
    }
    /// The same set of bytes, for the sixteen-at-once scan.
    fn bytes(self) -> ByteSet;
    /// [`bytes`](Self::bytes) for an 8-bit string whose runs are
    /// transcoded as they are written (`Out::units`): exactly what
    /// [`wide`](Self::wide) stops at, all below U+0100, as bytes. A
    /// two-byte string's scan ([`find_wide`]) reads it too.
    #[inline(always)]
    fn latin1(self) -> ByteSet {
        self.bytes()
    }
}

/// A set of bytes: those below `below`, the `len` from `from` on (none
/// when `len` is 0; wrapping past 0xff), and the three in `equal`.
#[derive(Clone, Copy)]
pub(super) struct ByteSet {
    pub(super) below: u8,
    pub(super) from: u8,
    pub(super) len: u8,
    pub(super) equal: [u8; 3],
}

impl ByteSet {
    /// Whether `byte` is in the set.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(super) fn holds(self, byte: u8) -> bool {
        byte < self.below || byte.wrapping_sub(self.from) < self.len || self.equal.contains(&byte)
    }
}

/// `stop` over an 8-bit string whose runs are transcoded as they are
/// written: it stops only where [`Stop::wide`] does, the escapes; the
/// other non-ASCII characters pass.
#[derive(Clone, Copy)]
pub(super) struct Latin1<S>(pub(super) S);

impl<S: Stop> Stop for Latin1<S> {
    #[inline(always)]
    fn unit(self, c: u16) -> bool {
        self.0.wide(c)
    }

    #[inline(always)]
    fn wide(self, c: u16) -> bool {
        self.0.wide(c)
    }

    #[inline(always)]
    fn bytes(self) -> ByteSet {
        self.0.latin1()
    }
}

/// What inspect escapes in a literal (controls, 0x7f-0x9f, `\`, and `'`
/// when single-quoted); as bytes, any non-ASCII one too, so that a scan
/// that passes a whole string finds it ASCII (copied as it is), while
/// [`Latin1`] passes the characters from U+00A0 on (transcoded in a run).
#[derive(Clone, Copy)]
pub(super) struct InspectStop {
    pub(super) single: bool,
}

impl Stop for InspectStop {
    #[inline(always)]
    fn unit(self, c: u16) -> bool {
        !(0x20..0x7f).contains(&c) || c == 0x5c || (self.single && c == 0x27)
    }

    #[inline(always)]
    fn wide(self, c: u16) -> bool {
        c < 0x20 || (0x7f..=0x9f).contains(&c) || c == 0x5c || (self.single && c == 0x27)
    }

    #[inline(always)]
    fn bytes(self) -> ByteSet {
        ByteSet {
            below: 0x20,
            from: 0x7f,
            len: 0x81,
            equal: [b'\\', if self.single { b'\'' } else { b'\\' }, b'\\'],
        }
    }

    /// Controls, 0x7f-0x9f, `\\` and the quote: the rest of Latin-1 passes.
    #[inline(always)]
    fn latin1(self) -> ByteSet {
        ByteSet {
            len: 0x21,
            ..self.bytes()
        }
    }
}

/// What JSON escapes (controls, `"`, `\`); as bytes, any non-ASCII one
/// too (see [`InspectStop`]), which [`Latin1`] passes.
#[derive(Clone, Copy)]
pub(super) struct JsonStop;

impl Stop for JsonStop {
    #[inline(always)]
    fn unit(self, c: u16) -> bool {
        !(0x20..0x80).contains(&c) || c == 0x22 || c == 0x5c
    }

    #[inline(always)]
    fn wide(self, c: u16) -> bool {
        c < 0x20 || c == 0x22 || c == 0x5c
    }

    #[inline(always)]
    fn bytes(self) -> ByteSet {
        ByteSet {
            below: 0x20,
            from: 0x80,
            len: 0x80,
            equal: [b'"', b'\\', b'\\'],
        }
    }

    /// Controls, `"` and `\\`: JSON writes the rest of Latin-1 as it is.
    #[inline(always)]
    fn latin1(self) -> ByteSet {
        ByteSet {
            len: 0,
            ..self.bytes()
        }
    }
}

/// What ends a run of plain text in a JSON string's UTF-8: its closing
/// quote, an escape, or a control character (which JSON allows only
/// escaped). Bytes of other characters pass.
#[derive(Clone, Copy)]
struct StringEnd;

impl Stop for StringEnd {
    #[inline(always)]
    fn unit(self, c: u16) -> bool {
        c < 0x20 || c == 0x22 || c == 0x5c
    }

    #[inline(always)]
    fn bytes(self) -> ByteSet {
        ByteSet {
            below: 0x20,
            from: 0,
            len: 0,
            equal: [b'"', b'\\', b'\\'],
        }
    }
}

/// The first index from `from` on of a byte that ends plain text in a JSON
/// string (`"`, `\`, a control character), else `text.len()`: sixteen
/// bytes at a time.
pub fn string_end(text: &[u8], from: usize) -> usize {
    scan(Chars::Narrow(text), from, text.len(), StringEnd)
}

/// One ASCII code unit.
#[derive(Clone, Copy)]
pub(super) struct UnitStop(pub(super) u8);

impl Stop for UnitStop {
    #[inline(always)]
    fn unit(self, c: u16) -> bool {
        c == u16::from(self.0)
    }

    #[inline(always)]
    fn bytes(self) -> ByteSet {
        ByteSet {
            below: 0,
            from: 0,
            len: 0,
            equal: [self.0; 3],
        }
    }
}

/// The first index in `at..to` of a byte `stop` stops at, else `to`:
/// wasm's SIMD, one compare per kind of byte for sixteen bytes, and the
/// hit's lane from the compare's bit mask. The tail shorter than a block
/// is read as the block that ends at `to` (its lanes before the tail
/// ignored), or, in a string shorter than a block, from a copy. Generic
/// over the stop, so that its byte set is a constant here.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
pub(super) fn find<S: Stop>(bytes: &[u8], mut at: usize, to: usize, stop: S) -> usize {
    use core::arch::wasm32::{
        u8x16_bitmask, u8x16_eq, u8x16_lt, u8x16_splat, u8x16_sub, v128, v128_any_true, v128_or,
    };
    let set = stop.bytes();
    let below = u8x16_splat(set.below);
    let (from, len) = (u8x16_splat(set.from), u8x16_splat(set.len));
    let (a, b, c) = (
        u8x16_splat(set.equal[0]),
        u8x16_splat(set.equal[1]),
        u8x16_splat(set.equal[2]),
    );
    let hits = |v: v128| {
        let hit = v128_or(
            v128_or(u8x16_lt(v, below), u8x16_eq(v, a)),
            v128_or(u8x16_eq(v, b), u8x16_eq(v, c)),
        );
        if set.len != 0 {
            v128_or(hit, u8x16_lt(u8x16_sub(v, from), len))
        } else {
            hit
        }
    };
    let lanes = |hit: v128| u32::from(u8x16_bitmask(hit));
    let to = to.min(bytes.len());
    let load = |from: usize| {
        // SAFETY: `from + 16 <= bytes.len()` (each caller's check); an
        // unaligned read.
        unsafe { (bytes.as_ptr().add(from) as *const v128).read_unaligned() }
    };
    while at + 16 <= to {
        let hit = hits(load(at));
        if v128_any_true(hit) {
            return at + lanes(hit).trailing_zeros() as usize;
        }
        at += 16;
    }
    if at < to {
        let tail = to - at;
        let hit = if to >= 16 {
            // The block ending at `to`: its top `tail` lanes are the tail.
            lanes(hits(load(to - 16))) >> (16 - tail)
        } else {
            let mut block = [0u8; 16];
            block[..tail].copy_from_slice(&bytes[at..to]);
            // SAFETY: sixteen bytes of a local array; an unaligned read.
            let v = unsafe { (block.as_ptr() as *const v128).read_unaligned() };
            lanes(hits(v)) & ((1 << tail) - 1)
        };
        if hit != 0 {
            return at + hit.trailing_zeros() as usize;
        }
    }
    to
}

/// The first index in `from..to` where `stop` stops, else `to`.
#[inline]
pub(super) fn scan<S: Stop>(chars: Chars<'_>, from: usize, to: usize, stop: S) -> usize {
    match chars {
        // The guest runs where wasm SIMD is enabled (wasmtime's default,
        // which the runtime keeps).
        #[cfg(target_arch = "wasm32")]
        Chars::Narrow(bytes) => find(bytes, from, to, stop),
        // x86-64 hosts (the host's build) have SSE2.
        #[cfg(target_arch = "x86_64")]
        Chars::Narrow(bytes) => host_scan::find_sse2(bytes, from, to, stop.bytes()),
        #[cfg(not(any(target_arch = "wasm32", target_arch = "x86_64")))]
        Chars::Narrow(bytes) => host_scan::find_bytewise(bytes, from, to, stop.bytes()),
        #[cfg(target_arch = "wasm32")]
        Chars::Wide(units) => find_wide(units, from, to, stop),
        #[cfg(not(target_arch = "wasm32"))]
        Chars::Wide(units) => units[from..to]
            .iter()
            .position(|&c| stop.wide(c))
            .map_or(to, |at| from + at),
    }
}

/// [`find`] over a two-byte string's units, eight at a time: the units
/// [`Stop::wide`] stops at are its Latin-1 byte set ([`Stop::latin1`]),
/// all below U+0100; the tail shorter than a block a unit at a time.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
fn find_wide<S: Stop>(units: &[u16], mut at: usize, to: usize, stop: S) -> usize {
    use core::arch::wasm32::{
        i16x8_bitmask, i16x8_eq, u16x8_lt, u16x8_splat, u16x8_sub, v128, v128_any_true, v128_or,
    };
    let set = stop.latin1();
    let below = u16x8_splat(u16::from(set.below));
    let (from, len) = (
        u16x8_splat(u16::from(set.from)),
        u16x8_splat(u16::from(set.len)),
    );
    let (a, b, c) = (
        u16x8_splat(u16::from(set.equal[0])),
        u16x8_splat(u16::from(set.equal[1])),
        u16x8_splat(u16::from(set.equal[2])),
    );
    let to = to.min(units.len());
    while at + 8 <= to {
        // SAFETY: eight units from `at`, within `units` (checked); an
        // unaligned read.
        let v = unsafe { (units.as_ptr().add(at) as *const v128).read_unaligned() };
        let mut hit = v128_or(
            v128_or(u16x8_lt(v, below), i16x8_eq(v, a)),
            v128_or(i16x8_eq(v, b), i16x8_eq(v, c)),
        );
        if set.len != 0 {
            hit = v128_or(hit, u16x8_lt(u16x8_sub(v, from), len));
        }
        if v128_any_true(hit) {
            return at + i16x8_bitmask(hit).trailing_zeros() as usize;
        }
        at += 8;
    }
    units[at..to]
        .iter()
        .position(|&c| stop.wide(c))
        .map_or(to, |found| at + found)
}

/// Whether every byte is ASCII, eight at a time.
pub(super) fn is_ascii(bytes: &[u8]) -> bool {
    let mut at = 0;
    let mut high = 0u64;
    while at + 8 <= bytes.len() {
        // SAFETY: `at + 8 <= bytes.len()`; an unaligned read.
        high |= unsafe { (bytes.as_ptr().add(at) as *const u64).read_unaligned() };
        at += 8;
    }
    high & HIGHS == 0 && bytes[at..].iter().all(|&b| b < 0x80)
}
