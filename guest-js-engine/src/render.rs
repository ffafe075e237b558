//! Plain data rendered at the speed of its bytes: JSON text and
//! `util.inspect` text for values made only of strings, numbers, booleans,
//! `null`, `undefined`, dense arrays and ordinary objects.
//!
//! This is the same renderer as `web/inspect.js` and `web/layout.js`, not a
//! second one: inspect.js calls [`inspect_plain`] first for every object and
//! long string it formats, and goes on in JavaScript only where it declines
//! (a class instance, a Map, a hole, a cycle, an accessor, a symbol key, a
//! changed `Object.prototype`...). It takes their steps one for one (the
//! `room` budget, `currentDepth`, Node's line breaking and column
//! grouping), so the text is the same either way; the golden cases in
//! `tests/runtime/fixtures/console-node.json` run through both. What it
//! saves is JavaScript's per-character and per-property work: a returned
//! megabyte costs a few units of fuel per byte instead of thousands.
//!
//! It reads the engine's values through the read-only views the project's
//! QuickJS patch exports (`JS_Coderun*`), runs no JavaScript, and keeps no
//! reference past a call. Text is written once into one buffer; entries are
//! spans of it, and each nesting level's layout replaces its entries' bytes
//! with the joined text. Strings are scanned eight bytes at a time. The
//! recursion is bounded by [`MAX_NESTING`]: deeper values are declined, and
//! JavaScript (with its own stack limit) takes them.

use std::ffi::{c_int, c_void};

use rquickjs::{Array, Ctx, Function, Object, Value, qjs};

/// Nesting the native renderer takes before it declines.
const MAX_NESTING: usize = 200;

unsafe extern "C" {
    fn JS_CoderunString(
        ctx: *mut qjs::JSContext,
        value: qjs::JSValue,
        string: *mut qjs::JSValue,
        chars: *mut *const c_void,
        len: *mut u32,
        wide: *mut c_int,
    ) -> c_int;
    fn JS_CoderunPlainArray(
        ctx: *mut qjs::JSContext,
        value: qjs::JSValue,
        elements: *mut *const qjs::JSValue,
        len: *mut u32,
    ) -> c_int;
    fn JS_CoderunPlainObject(ctx: *mut qjs::JSContext, value: qjs::JSValue) -> c_int;
    fn JS_CoderunObjectSlot(
        ctx: *mut qjs::JSContext,
        value: qjs::JSValue,
        slot: c_int,
        chars: *mut *const c_void,
        len: *mut u32,
        wide: *mut c_int,
        index: *mut i64,
    ) -> *const qjs::JSValue;
    fn JS_CoderunPristine(ctx: *mut qjs::JSContext, custom: qjs::JSValue) -> c_int;
}

// ---- strings ----------------------------------------------------------------

/// A string's code units, borrowed from the engine.
#[derive(Clone, Copy)]
enum Chars<'a> {
    Narrow(&'a [u8]),
    Wide(&'a [u16]),
}

impl Chars<'_> {
    fn len(self) -> usize {
        match self {
            Chars::Narrow(bytes) => bytes.len(),
            Chars::Wide(units) => units.len(),
        }
    }

    fn get(self, at: usize) -> u16 {
        match self {
            Chars::Narrow(bytes) => u16::from(bytes[at]),
            Chars::Wide(units) => units[at],
        }
    }

    /// # Safety
    /// `chars` points at `len` characters of the given width that outlive
    /// the borrow.
    unsafe fn from_raw<'a>(chars: *const c_void, len: u32, wide: c_int) -> Chars<'a> {
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

/// A string value's characters, held by a reference until dropped.
struct Held {
    ctx: *mut qjs::JSContext,
    string: qjs::JSValue,
    chars: *const c_void,
    len: u32,
    wide: c_int,
}

impl Held {
    fn of(ctx: *mut qjs::JSContext, value: qjs::JSValue) -> Option<Held> {
        let mut held = Held {
            ctx,
            string: value,
            chars: std::ptr::null(),
            len: 0,
            wide: 0,
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

    fn chars(&self) -> Chars<'_> {
        // SAFETY: kept alive by `string`'s reference.
        unsafe { Chars::from_raw(self.chars, self.len, self.wide) }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        // SAFETY: the reference `JS_CoderunString` gave.
        unsafe { qjs::JS_FreeValue(self.ctx, self.string) }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Nonzero when a byte of `word` equals `byte` (may flag bytes above a
/// match too: enough to know a word holds one).
#[inline(always)]
fn has_byte(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Nonzero when a byte of `word` is below `bound` (at most 0x80).
#[inline(always)]
fn has_below(word: u64, bound: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(bound)) & !word & HIGHS
}

/// What stops a scan: a test of eight bytes at once (nonzero when one of
/// them may stop it) and the exact test of one code unit.
trait Stop: Copy {
    fn word(self, word: u64) -> u64;
    fn unit(self, c: u16) -> bool;
    /// The same set of bytes, for the sixteen-at-once scan.
    fn bytes(self) -> ByteSet;
}

/// A set of bytes: those below `below`, those at or above `at_least`
/// (unless it is 0), and the three in `equal`.
#[derive(Clone, Copy)]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
struct ByteSet {
    below: u8,
    at_least: u8,
    equal: [u8; 3],
}

/// What inspect escapes in a literal (controls, 0x7f-0x9f, `\`, and `'`
/// when single-quoted), and any non-ASCII unit.
#[derive(Clone, Copy)]
struct InspectStop {
    single: bool,
}

impl Stop for InspectStop {
    #[inline(always)]
    fn word(self, word: u64) -> u64 {
        let quote = if self.single {
            has_byte(word, b'\'')
        } else {
            0
        };
        has_below(word, 0x20)
            | (word & HIGHS)
            | has_byte(word, 0x7f)
            | has_byte(word, b'\\')
            | quote
    }

    #[inline(always)]
    fn unit(self, c: u16) -> bool {
        !(0x20..0x7f).contains(&c) || c == 0x5c || (self.single && c == 0x27)
    }

    fn bytes(self) -> ByteSet {
        ByteSet {
            below: 0x20,
            at_least: 0x7f,
            equal: [b'\\', if self.single { b'\'' } else { b'\\' }, b'\\'],
        }
    }
}

/// What JSON escapes (controls, `"`, `\`), and any non-ASCII unit.
#[derive(Clone, Copy)]
struct JsonStop;

impl Stop for JsonStop {
    #[inline(always)]
    fn word(self, word: u64) -> u64 {
        has_below(word, 0x20) | (word & HIGHS) | has_byte(word, b'"') | has_byte(word, b'\\')
    }

    #[inline(always)]
    fn unit(self, c: u16) -> bool {
        !(0x20..0x80).contains(&c) || c == 0x22 || c == 0x5c
    }

    fn bytes(self) -> ByteSet {
        ByteSet {
            below: 0x20,
            at_least: 0x80,
            equal: [b'"', b'\\', b'\\'],
        }
    }
}

/// One ASCII code unit.
#[derive(Clone, Copy)]
struct UnitStop(u8);

impl Stop for UnitStop {
    #[inline(always)]
    fn word(self, word: u64) -> u64 {
        has_byte(word, self.0)
    }

    #[inline(always)]
    fn unit(self, c: u16) -> bool {
        c == u16::from(self.0)
    }

    fn bytes(self) -> ByteSet {
        ByteSet {
            below: 0,
            at_least: 0,
            equal: [self.0; 3],
        }
    }
}

/// The first index from `at` of a sixteen-byte block holding a byte of
/// `set` (or of the last, shorter block): wasm's SIMD, one compare per
/// kind of byte for sixteen bytes.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
fn skip_blocks(bytes: &[u8], mut at: usize, to: usize, set: ByteSet) -> usize {
    use core::arch::wasm32::{
        u8x16_eq, u8x16_ge, u8x16_lt, u8x16_splat, v128, v128_any_true, v128_or,
    };
    let below = u8x16_splat(set.below);
    let at_least = u8x16_splat(set.at_least);
    let (a, b, c) = (
        u8x16_splat(set.equal[0]),
        u8x16_splat(set.equal[1]),
        u8x16_splat(set.equal[2]),
    );
    let to = to.min(bytes.len());
    while at + 16 <= to {
        // SAFETY: `at + 16 <= bytes.len()`; an unaligned read.
        let v = unsafe { (bytes.as_ptr().add(at) as *const v128).read_unaligned() };
        let mut hit = v128_or(
            v128_or(u8x16_lt(v, below), u8x16_eq(v, a)),
            v128_or(u8x16_eq(v, b), u8x16_eq(v, c)),
        );
        if set.at_least != 0 {
            hit = v128_or(hit, u8x16_ge(v, at_least));
        }
        if v128_any_true(hit) {
            break;
        }
        at += 16;
    }
    at
}

/// The first index in `from..to` where `stop` stops, else `to`.
#[inline]
fn scan<S: Stop>(chars: Chars<'_>, from: usize, to: usize, stop: S) -> usize {
    match chars {
        Chars::Narrow(bytes) => {
            let to = to.min(bytes.len());
            let mut at = from;
            #[cfg(target_arch = "wasm32")]
            {
                // The guest runs where wasm SIMD is enabled (wasmtime's
                // default, which the runtime keeps).
                at = skip_blocks(bytes, at, to, stop.bytes());
            }
            while at + 8 <= to {
                // SAFETY: `at + 8 <= bytes.len()`; an unaligned read.
                let word = unsafe { (bytes.as_ptr().add(at) as *const u64).read_unaligned() };
                if stop.word(u64::from_le(word)) != 0 {
                    break;
                }
                at += 8;
            }
            while at < to && !stop.unit(u16::from(bytes[at])) {
                at += 1;
            }
            at
        }
        Chars::Wide(units) => units[from..to]
            .iter()
            .position(|&c| stop.unit(c))
            .map_or(to, |at| from + at),
    }
}

/// Whether every byte is ASCII, eight at a time.
fn is_ascii(bytes: &[u8]) -> bool {
    let mut at = 0;
    let mut high = 0u64;
    while at + 8 <= bytes.len() {
        // SAFETY: `at + 8 <= bytes.len()`; an unaligned read.
        high |= unsafe { (bytes.as_ptr().add(at) as *const u64).read_unaligned() };
        at += 8;
    }
    high & HIGHS == 0 && bytes[at..].iter().all(|&b| b < 0x80)
}

// ---- the output buffer --------------------------------------------------------

/// A stretch of the output buffer: its bytes, its length in UTF-16 code
/// units (what JavaScript's `length`, and so the layout, counts), and
/// whether it holds a line break.
#[derive(Clone, Copy, Default)]
struct Span {
    start: usize,
    end: usize,
    units: usize,
    newline: bool,
}

/// The text being written, counting UTF-16 units and line breaks as it goes.
#[derive(Default)]
struct Out {
    buf: String,
    units: usize,
    newline: bool,
}

impl Out {
    fn mark(&mut self) -> (usize, usize) {
        self.newline = false;
        (self.buf.len(), self.units)
    }

    fn span(&self, (start, units): (usize, usize)) -> Span {
        Span {
            start,
            end: self.buf.len(),
            units: self.units - units,
            newline: self.newline,
        }
    }

    fn ascii(&mut self, text: &str) {
        self.buf.push_str(text);
        self.units += text.len();
    }

    fn spaces(&mut self, n: usize) {
        self.buf.extend(std::iter::repeat_n(' ', n));
        self.units += n;
    }

    fn char(&mut self, c: char) {
        self.buf.push(c);
        self.units += c.len_utf16();
    }

    /// Appends an earlier span (which stays where it is).
    fn copy(&mut self, span: Span) {
        self.buf.extend_from_within(span.start..span.end);
        self.units += span.units;
        self.newline |= span.newline;
    }

    /// Appends `chars[from..to]`, a run a scan stopped after: for 8-bit
    /// strings ASCII (every scan stops at a non-ASCII byte), so copied as
    /// it is.
    fn run(&mut self, chars: Chars<'_>, from: usize, to: usize) {
        match chars {
            Chars::Narrow(bytes) => {
                let run = &bytes[from..to];
                debug_assert!(run.is_ascii());
                // SAFETY: ASCII (above) is UTF-8.
                self.buf
                    .push_str(unsafe { std::str::from_utf8_unchecked(run) });
                self.units += run.len();
            }
            Chars::Wide(_) => self.units(chars, from, to),
        }
    }

    /// Appends `chars[from..to]`, which need no escaping except that a lone
    /// surrogate is written as `\ud800`.
    fn units(&mut self, chars: Chars<'_>, from: usize, to: usize) {
        match chars {
            Chars::Narrow(bytes) => {
                let run = &bytes[from..to];
                if is_ascii(run) {
                    // SAFETY: ASCII is UTF-8.
                    self.buf
                        .push_str(unsafe { std::str::from_utf8_unchecked(run) });
                    self.units += run.len();
                } else {
                    self.buf.extend(run.iter().map(|&b| char::from(b)));
                    self.units += run.len();
                }
            }
            Chars::Wide(units) => {
                for c in char::decode_utf16(units[from..to].iter().copied()) {
                    match c {
                        Ok(c) => self.char(c),
                        Err(lone) => self.lone_surrogate(lone.unpaired_surrogate()),
                    }
                }
            }
        }
    }

    fn lone_surrogate(&mut self, unit: u16) {
        self.ascii("\\u");
        self.hex(unit, 4, HEX_LOWER);
    }

    fn hex(&mut self, value: u16, digits: u32, alphabet: &[u8; 16]) {
        for shift in (0..digits).rev() {
            self.buf.push(char::from(
                alphabet[usize::from((value >> (4 * shift)) & 15)],
            ));
        }
        self.units += digits as usize;
    }

    fn int(&mut self, n: i64) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = n.unsigned_abs();
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        if n < 0 {
            self.ascii("-");
        }
        // SAFETY: ASCII digits.
        self.ascii(unsafe { std::str::from_utf8_unchecked(&digits[at..]) });
    }

    /// A number as `Number.prototype.toString` writes it.
    fn number(&mut self, n: f64) {
        if n.fract() == 0.0 && n.abs() < 1e15 {
            self.int(n as i64);
        } else {
            let mut buffer = ryu_js::Buffer::new();
            self.ascii(buffer.format(n));
        }
    }
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";
const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";

/// `chars[from..to]` escaped as `escapeText` escapes it (layout.js).
fn escape_inspect(out: &mut Out, chars: Chars<'_>, from: usize, to: usize, single: bool) {
    let stop = InspectStop { single };
    let mut at = from;
    while at < to {
        let next = scan(chars, at, to, stop);
        out.run(chars, at, next);
        if next == to {
            break;
        }
        let c = chars.get(next);
        at = next + 1;
        match c {
            8 => out.ascii("\\b"),
            9 => out.ascii("\\t"),
            10 => out.ascii("\\n"),
            12 => out.ascii("\\f"),
            13 => out.ascii("\\r"),
            0x27 => out.ascii("\\'"),
            0x5c => out.ascii("\\\\"),
            c if c < 0x20 || (0x7f..=0x9f).contains(&c) => {
                out.ascii("\\x");
                out.hex(c, 2, HEX_UPPER);
            }
            _ => {
                // Not escaped: a non-ASCII character, or a surrogate pair.
                let end = if (0xd800..0xdc00).contains(&c)
                    && at < to
                    && (0xdc00..0xe000).contains(&chars.get(at))
                {
                    at + 1
                } else {
                    at
                };
                out.units(chars, next, end);
                at = end;
            }
        }
    }
}

/// `chars[from..to]` as a string literal: `quote` in layout.js.
fn quote(out: &mut Out, chars: Chars<'_>, from: usize, to: usize) {
    let has = |unit: u8| scan(chars, from, to, UnitStop(unit)) < to;
    let mut mark = "'";
    if has(b'\'') {
        if !has(b'"') {
            mark = "\"";
        } else if !has(b'`')
            && !(from..to.saturating_sub(1))
                .any(|at| chars.get(at) == 0x24 && chars.get(at + 1) == 0x7b)
        {
            mark = "`";
        }
    }
    out.ascii(mark);
    escape_inspect(out, chars, from, to, mark == "'");
    out.ascii(mark);
}

/// `chars` as JSON.stringify writes a string.
fn json_string(out: &mut Out, chars: Chars<'_>) {
    out.ascii("\"");
    let len = chars.len();
    let mut at = 0;
    while at < len {
        let next = scan(chars, at, len, JsonStop);
        out.run(chars, at, next);
        if next == len {
            break;
        }
        let c = chars.get(next);
        at = next + 1;
        match c {
            8 => out.ascii("\\b"),
            9 => out.ascii("\\t"),
            10 => out.ascii("\\n"),
            12 => out.ascii("\\f"),
            13 => out.ascii("\\r"),
            0x22 => out.ascii("\\\""),
            0x5c => out.ascii("\\\\"),
            c if c < 0x20 => {
                out.ascii("\\u00");
                out.hex(c, 2, HEX_LOWER);
            }
            _ => {
                let end = if (0xd800..0xdc00).contains(&c)
                    && at < len
                    && (0xdc00..0xe000).contains(&chars.get(at))
                {
                    at + 1
                } else {
                    at
                };
                out.units(chars, next, end);
                at = end;
            }
        }
    }
    out.ascii("\"");
}

// ---- values -----------------------------------------------------------------

/// A value as the renderer sees it.
enum Kind {
    Undefined,
    Null,
    Bool(bool),
    Int(i32),
    Float(f64),
    String,
    Object,
    /// A BigInt, a symbol or an engine-internal value: declined.
    Other,
}

fn kind(value: qjs::JSValue) -> Kind {
    // SAFETY: reading a value's tag and payload.
    unsafe {
        match qjs::JS_VALUE_GET_NORM_TAG(value) {
            qjs::JS_TAG_UNDEFINED => Kind::Undefined,
            qjs::JS_TAG_NULL => Kind::Null,
            qjs::JS_TAG_BOOL => Kind::Bool(qjs::JS_VALUE_GET_BOOL(value)),
            qjs::JS_TAG_INT => Kind::Int(qjs::JS_VALUE_GET_INT(value)),
            qjs::JS_TAG_FLOAT64 => Kind::Float(qjs::JS_VALUE_GET_FLOAT64(value)),
            qjs::JS_TAG_STRING | qjs::JS_TAG_STRING_ROPE => Kind::String,
            qjs::JS_TAG_OBJECT => Kind::Object,
            _ => Kind::Other,
        }
    }
}

/// The elements of a plain array, borrowed.
fn plain_array<'a>(ctx: *mut qjs::JSContext, value: qjs::JSValue) -> Option<&'a [qjs::JSValue]> {
    let (mut elements, mut len) = (std::ptr::null(), 0u32);
    // SAFETY: `value` is live; the view is read before the engine runs again.
    if unsafe { JS_CoderunPlainArray(ctx, value, &mut elements, &mut len) } == 0 {
        return None;
    }
    if len == 0 || elements.is_null() {
        return Some(&[]);
    }
    // SAFETY: `len` elements at `elements`.
    Some(unsafe { std::slice::from_raw_parts(elements, len as usize) })
}

/// A property key: its characters, or an array index QuickJS keeps as a
/// number.
#[derive(Clone, Copy)]
enum Key<'a> {
    Chars(Chars<'a>),
    Index(u32),
}

/// An own property: its key, its value (borrowed), and its key as an array
/// index (else -1).
type Property<'a> = (Key<'a>, qjs::JSValue, i64);

/// A plain object's own properties into `properties`, in the order the
/// standard gives own keys (array indices first, ascending; then the rest
/// as created); false when it is not a plain object.
fn plain_object<'a>(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    properties: &mut Vec<Property<'a>>,
) -> bool {
    properties.clear();
    // SAFETY: `value` is a live value of `ctx`.
    let slots = unsafe { JS_CoderunPlainObject(ctx, value) };
    if slots < 0 {
        return false;
    }
    let mut indices = false;
    for at in 0..slots {
        let (mut chars, mut len, mut wide, mut index) = (std::ptr::null(), 0u32, 0, -1i64);
        // SAFETY: `at` is below the count the object reported; keys and
        // values are read before the engine runs again.
        let found = unsafe {
            JS_CoderunObjectSlot(ctx, value, at, &mut chars, &mut len, &mut wide, &mut index)
        };
        if found.is_null() {
            continue;
        }
        let key = if chars.is_null() {
            Key::Index(index as u32)
        } else {
            // SAFETY: the key's characters, alive while the property is.
            Key::Chars(unsafe { Chars::from_raw(chars, len, wide) })
        };
        indices |= index >= 0;
        // SAFETY: the slot's value, borrowed.
        properties.push((key, unsafe { *found }, index));
    }
    if indices {
        properties.sort_by_key(|&(_, _, index)| if index >= 0 { index } else { i64::MAX });
    }
    true
}

fn object_id(value: qjs::JSValue) -> usize {
    // SAFETY: an object's pointer, compared and never dereferenced.
    unsafe { qjs::JS_VALUE_GET_PTR(value) as usize }
}

fn pristine(ctx: &Ctx<'_>, custom: &Value<'_>) -> bool {
    // SAFETY: `custom` is a live value of `ctx`.
    unsafe { JS_CoderunPristine(ctx.as_raw().as_ptr(), custom.as_raw()) == 1 }
}

// ---- JSON -------------------------------------------------------------------

/// `value` as `JSON.stringify(value)` writes it, when it is plain data;
/// `None` otherwise (a cycle, a BigInt, a function, a class instance, a
/// top-level `undefined`...), for JavaScript to decide.
pub fn json(ctx: &Ctx<'_>, value: &Value<'_>, custom: &Value<'_>) -> Option<String> {
    if !value.is_string() && !pristine(ctx, custom) {
        return None;
    }
    let mut out = Out::default();
    if let Some(held) = value
        .is_string()
        .then(|| Held::of(ctx.as_raw().as_ptr(), value.as_raw()))
        .flatten()
    {
        out.buf.reserve(held.len as usize + 2);
    }
    let mut walk = Walk::default();
    json_value(ctx.as_raw().as_ptr(), value.as_raw(), &mut out, &mut walk).then_some(out.buf)
}

/// The objects a walk is inside (for cycles and its depth bound), and
/// property lists kept for reuse, one per level, so that a walk allocates
/// per level reached, not per object.
#[derive(Default)]
struct Walk<'a> {
    path: Vec<usize>,
    lists: Vec<Vec<Property<'a>>>,
}

impl<'a> Walk<'a> {
    /// Enters object `id`: false for a cycle or past the depth bound.
    fn enter(&mut self, id: usize) -> bool {
        if self.path.len() >= MAX_NESTING || self.path.contains(&id) {
            return false;
        }
        self.path.push(id);
        if self.lists.len() < self.path.len() {
            self.lists.push(Vec::new());
        }
        true
    }

    fn leave(&mut self) {
        self.path.pop();
    }

    /// This level's property list, to fill (see `plain_object`).
    fn list(&mut self) -> Vec<Property<'a>> {
        std::mem::take(&mut self.lists[self.path.len() - 1])
    }

    fn give_back(&mut self, list: Vec<Property<'a>>) {
        self.lists[self.path.len() - 1] = list;
    }
}

fn json_value(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    out: &mut Out,
    walk: &mut Walk<'_>,
) -> bool {
    match kind(value) {
        Kind::Null => out.ascii("null"),
        Kind::Bool(b) => out.ascii(if b { "true" } else { "false" }),
        Kind::Int(n) => out.int(i64::from(n)),
        Kind::Float(n) if n.is_finite() => out.number(if n == 0.0 { 0.0 } else { n }),
        Kind::Float(_) => out.ascii("null"),
        Kind::String => match Held::of(ctx, value) {
            Some(held) => json_string(out, held.chars()),
            None => return false,
        },
        Kind::Object => return json_object(ctx, value, out, walk),
        Kind::Undefined | Kind::Other => return false,
    }
    true
}

fn json_object(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    out: &mut Out,
    walk: &mut Walk<'_>,
) -> bool {
    if !walk.enter(object_id(value)) {
        return false;
    }
    let mut properties = walk.list();
    let done = if let Some(elements) = plain_array(ctx, value) {
        out.ascii("[");
        let mut ok = true;
        for (i, &element) in elements.iter().enumerate() {
            if i > 0 {
                out.ascii(",");
            }
            if matches!(kind(element), Kind::Undefined) {
                out.ascii("null");
            } else if !json_value(ctx, element, out, walk) {
                ok = false;
                break;
            }
        }
        out.ascii("]");
        ok
    } else if plain_object(ctx, value, &mut properties) {
        out.ascii("{");
        let mut ok = true;
        let mut first = true;
        for &(key, element, _) in &properties {
            if matches!(kind(element), Kind::Undefined) {
                continue;
            }
            if !first {
                out.ascii(",");
            }
            first = false;
            match key {
                Key::Chars(chars) => json_string(out, chars),
                Key::Index(index) => {
                    out.ascii("\"");
                    out.int(i64::from(index));
                    out.ascii("\"");
                }
            }
            out.ascii(":");
            if !json_value(ctx, element, out, walk) {
                ok = false;
                break;
            }
        }
        out.ascii("}");
        ok
    } else {
        false
    };
    walk.give_back(properties);
    walk.leave();
    done
}

// ---- inspect ----------------------------------------------------------------

/// The options and state of one `inspect` call (inspect.js's `ctx`).
pub struct Inspect<'js> {
    pub depth: f64,
    pub break_length: f64,
    pub compact: f64,
    pub max_array_length: f64,
    pub max_string_length: f64,
    /// The budget left, in UTF-16 units (`ctx.budget.room`).
    pub room: f64,
    pub indentation: usize,
    pub current_depth: f64,
    /// The objects being formatted around this value (`ctx.seen`).
    pub seen: Vec<usize>,
    /// layout.js's `stringWidth`: the terminal width of text that is not
    /// ASCII, which only grouping into columns needs (its Unicode tables
    /// are the regexp engine's).
    pub string_width: Option<Function<'js>>,
}

impl<'js> Inspect<'js> {
    /// What a returned value shows: inspect.js's `RETURNED`, within `room`.
    pub fn returned(room: f64, string_width: Option<Function<'js>>) -> Inspect<'js> {
        Inspect {
            depth: 64.0,
            break_length: 80.0,
            compact: 3.0,
            max_array_length: f64::INFINITY,
            max_string_length: f64::INFINITY,
            room,
            indentation: 0,
            current_depth: 0.0,
            seen: Vec::new(),
            string_width,
        }
    }
}

/// `value` as `formatValue(ctx, value, recurseTimes)` writes it, when it is
/// plain data; `None` leaves it (and `state`) to JavaScript.
pub fn inspect<'js>(
    ctx: &Ctx<'js>,
    value: &Value<'js>,
    custom: &Value<'js>,
    state: &mut Inspect<'js>,
    recurse_times: f64,
) -> Option<String> {
    if !value.is_string() && !pristine(ctx, custom) {
        return None;
    }
    let mut renderer = Renderer {
        ctx: ctx.as_raw().as_ptr(),
        room: state.room,
        indentation: state.indentation,
        current_depth: state.current_depth,
        options: state,
        walk: Walk::default(),
        entries: Vec::new(),
        out: Out::default(),
    };
    renderer.value(value.as_raw(), recurse_times)?;
    let Renderer {
        room,
        current_depth,
        out,
        ..
    } = renderer;
    state.room = room;
    state.current_depth = current_depth;
    Some(out.buf)
}

/// One entry of a list being laid out: a key (objects) and a value.
#[derive(Clone, Copy)]
struct Entry {
    key: Option<Span>,
    value: Span,
}

impl Entry {
    fn units(&self) -> usize {
        self.key.map_or(0, |key| key.units + 2) + self.value.units
    }

    fn write(&self, out: &mut Out) {
        if let Some(key) = self.key {
            out.copy(key);
            out.ascii(": ");
        }
        out.copy(self.value);
    }
}

struct Renderer<'a, 'js, 'v> {
    ctx: *mut qjs::JSContext,
    options: &'a Inspect<'js>,
    room: f64,
    indentation: usize,
    current_depth: f64,
    walk: Walk<'v>,
    /// Entry lists kept for reuse, one per level.
    entries: Vec<Vec<Entry>>,
    out: Out,
}

impl Renderer<'_, '_, '_> {
    /// Writes a value (formatValue) and spends its length.
    fn value(&mut self, value: qjs::JSValue, recurse: f64) -> Option<Span> {
        let mark = self.out.mark();
        match kind(value) {
            Kind::Undefined => self.out.ascii("undefined"),
            Kind::Null => self.out.ascii("null"),
            Kind::Bool(b) => self.out.ascii(if b { "true" } else { "false" }),
            Kind::Int(n) => self.out.int(i64::from(n)),
            Kind::Float(n) if n == 0.0 && n.is_sign_negative() => self.out.ascii("-0"),
            Kind::Float(n) => self.out.number(n),
            Kind::String => {
                let held = Held::of(self.ctx, value)?;
                self.string(held.chars());
            }
            Kind::Object => return self.object(value, recurse),
            Kind::Other => return None,
        }
        let span = self.out.span(mark);
        self.room -= span.units as f64;
        Some(span)
    }

    fn spend_ascii(&mut self, text: &str) -> Span {
        let mark = self.out.mark();
        self.out.ascii(text);
        self.room -= text.len() as f64;
        self.out.span(mark)
    }

    /// `formatString` (not spent: the caller spends).
    fn string(&mut self, chars: Chars<'_>) {
        let limit = self.options.max_string_length.min(self.room.max(0.0));
        let mut len = chars.len();
        let mut more = 0;
        if len as f64 > limit {
            more = len - limit as usize;
            len = limit as usize;
        }
        // Most text has no quote, control, backslash or non-ASCII unit:
        // one scan finds that, and it is copied between single quotes.
        if scan(chars, 0, len, InspectStop { single: true }) == len {
            self.out.ascii("'");
            self.out.run(chars, 0, len);
            self.out.ascii("'");
        } else if len > 16 && len as f64 > self.options.break_length - self.indentation as f64 - 4.0
        {
            let mut from = 0;
            while from < len {
                let end = (scan(chars, from, len, UnitStop(b'\n')) + 1).min(len);
                if from > 0 {
                    self.out.ascii(" +\n");
                    self.out.newline = true;
                    self.out.spaces(self.indentation + 2);
                }
                quote(&mut self.out, chars, from, end);
                from = end;
            }
        } else {
            quote(&mut self.out, chars, 0, len);
        }
        if more > 0 {
            self.out.ascii("... ");
            self.out.int(more as i64);
            self.out.ascii(if more > 1 {
                " more characters"
            } else {
                " more character"
            });
        }
    }

    fn out_of_room(&mut self, output: &mut Vec<Entry>) -> bool {
        if self.room > 0.0 {
            return false;
        }
        let last_is_ellipsis = output.last().is_some_and(|last| {
            last.key.is_none() && &self.out.buf[last.value.start..last.value.end] == "..."
        });
        if !last_is_ellipsis {
            let mark = self.out.mark();
            self.out.ascii("...");
            output.push(Entry {
                key: None,
                value: self.out.span(mark),
            });
        }
        true
    }

    fn object(&mut self, value: qjs::JSValue, recurse: f64) -> Option<Span> {
        let id = object_id(value);
        if self.options.seen.contains(&id) || !self.walk.enter(id) {
            return None;
        }
        if self.entries.len() < self.walk.path.len() {
            self.entries.push(Vec::new());
        }
        let span = self.enclosed(value, recurse);
        self.walk.leave();
        span
    }

    /// An object entered on the walk: an array's or an object's entries,
    /// laid out.
    fn enclosed(&mut self, value: qjs::JSValue, recurse: f64) -> Option<Span> {
        let level = self.out.buf.len();
        let depth = self.walk.path.len() - 1;
        let mut output = std::mem::take(&mut self.entries[depth]);
        output.clear();
        let span = if let Some(elements) = plain_array(self.ctx, value) {
            if elements.is_empty() {
                return Some(self.spend_ascii("[]"));
            }
            if recurse > self.options.depth {
                return Some(self.spend_ascii("[Array]"));
            }
            let recurse = recurse + 1.0;
            self.current_depth = recurse;
            let limit = self
                .options
                .max_array_length
                .max(0.0)
                .min(elements.len() as f64) as usize;
            let mut complete = true;
            for &element in &elements[..limit] {
                if self.out_of_room(&mut output) {
                    complete = false;
                    break;
                }
                let span = if matches!(kind(element), Kind::Undefined) {
                    self.spend_ascii("undefined")
                } else {
                    self.indentation += 2;
                    let span = self.value(element, recurse);
                    self.indentation -= 2;
                    span?
                };
                output.push(Entry {
                    key: None,
                    value: span,
                });
            }
            if complete && elements.len() > limit {
                let more = elements.len() - limit;
                let mark = self.out.mark();
                self.out.ascii("... ");
                self.out.int(more as i64);
                self.out.ascii(if more > 1 {
                    " more items"
                } else {
                    " more item"
                });
                output.push(Entry {
                    key: None,
                    value: self.out.span(mark),
                });
            }
            let numeric = |count: usize| {
                (0..count).all(|i| {
                    elements
                        .get(i)
                        .is_some_and(|&e| matches!(kind(e), Kind::Int(_) | Kind::Float(_)))
                })
            };
            self.reduce(level, &mut output, ("[", "]"), Some(&numeric), recurse)
        } else {
            let mut properties = self.walk.list();
            if !plain_object(self.ctx, value, &mut properties) {
                return None;
            }
            let span = if properties.is_empty() {
                Some(self.spend_ascii("{}"))
            } else if recurse > self.options.depth {
                Some(self.spend_ascii("[Object]"))
            } else {
                let recurse = recurse + 1.0;
                self.current_depth = recurse;
                for &(key, element, _) in &properties {
                    if self.out_of_room(&mut output) {
                        break;
                    }
                    let span = if matches!(kind(element), Kind::Undefined) {
                        self.spend_ascii("undefined")
                    } else {
                        self.indentation += 2;
                        let span = self.value(element, recurse);
                        self.indentation -= 2;
                        span?
                    };
                    let key = self.key(key);
                    self.room -= key.units as f64;
                    output.push(Entry {
                        key: Some(key),
                        value: span,
                    });
                }
                self.reduce(level, &mut output, ("{", "}"), None, recurse)
            };
            self.walk.give_back(properties);
            span
        };
        self.entries[depth] = output;
        span
    }

    /// A property's name as `formatProperty` writes it (not spent).
    fn key(&mut self, key: Key<'_>) -> Span {
        let mark = self.out.mark();
        let key = match key {
            Key::Chars(chars) => chars,
            Key::Index(index) => {
                self.out.ascii("'");
                self.out.int(i64::from(index));
                self.out.ascii("'");
                return self.out.span(mark);
            }
        };
        let len = key.len();
        if len == 9 && (0..9).all(|at| key.get(at) == u16::from(b"__proto__"[at])) {
            self.out.ascii("['__proto__']");
        } else if len > 0
            && (0..len).all(|at| {
                let c = key.get(at);
                c == u16::from(b'_')
                    || u8::try_from(c)
                        .is_ok_and(|c| c.is_ascii_alphabetic() || (at > 0 && c.is_ascii_digit()))
            })
        {
            self.out.units(key, 0, len);
        } else {
            quote(&mut self.out, key, 0, len);
        }
        self.out.span(mark)
    }

    /// `reduceToSingleString`, writing the joined text over the entries'
    /// bytes (everything from `level` on). `numeric`, for arrays, tells
    /// whether the first `n` elements are all numbers.
    fn reduce(
        &mut self,
        level: usize,
        output: &mut Vec<Entry>,
        braces: (&str, &str),
        numeric: Option<&dyn Fn(usize) -> bool>,
        recurse: f64,
    ) -> Option<Span> {
        let entries = output.len();
        if let Some(numeric) = numeric.filter(|_| entries > 6)
            && let Some(rows) = self.group(output, numeric)?
        {
            *output = rows;
        }
        let joined = self.out.buf.len();
        self.out
            .buf
            .reserve(joined - level + output.len() * (self.indentation + 4) + 8);
        let mark = self.out.mark();
        let mut single = false;
        if self.current_depth - recurse < self.options.compact
            && entries == output.len()
            && self.fits(
                output,
                output.len() + self.indentation + braces.0.len() + 10,
            )
            && !output
                .iter()
                .any(|entry| entry.value.newline || entry.key.is_some_and(|key| key.newline))
        {
            single = true;
            self.out.ascii(braces.0);
            self.out.ascii(" ");
            for (i, entry) in output.iter().enumerate() {
                if i > 0 {
                    self.out.ascii(", ");
                }
                entry.write(&mut self.out);
            }
            self.out.ascii(" ");
            self.out.ascii(braces.1);
        }
        if !single {
            self.out.ascii(braces.0);
            for (i, entry) in output.iter().enumerate() {
                if i > 0 {
                    self.out.ascii(",");
                }
                self.out.ascii("\n");
                self.out.spaces(self.indentation + 2);
                entry.write(&mut self.out);
            }
            self.out.ascii("\n");
            self.out.spaces(self.indentation);
            self.out.ascii(braces.1);
            self.out.newline = true;
        }
        let span = self.out.span(mark);
        // The joined text replaces the entries' bytes.
        self.out.buf.replace_range(level..joined, "");
        Some(Span {
            start: level,
            end: level + (span.end - span.start),
            ..span
        })
    }

    fn fits(&self, output: &[Entry], start: usize) -> bool {
        let break_length = self.options.break_length;
        let mut total = (output.len() + start) as f64;
        if total + output.len() as f64 > break_length {
            return false;
        }
        for entry in output {
            total += entry.units() as f64;
            if total > break_length {
                return false;
            }
        }
        true
    }

    /// `groupArrayElements`; `None` when an entry is not ASCII (its
    /// terminal width is JavaScript's to measure).
    fn group(
        &mut self,
        output: &[Entry],
        numeric: &dyn Fn(usize) -> bool,
    ) -> Option<Option<Vec<Entry>>> {
        let options = self.options;
        let mut count = output.len();
        if options.max_array_length < output.len() as f64 {
            count -= 1;
        }
        // Columns need every entry narrower than a third of the line: an
        // entry that is surely wider (its printable ASCII alone is) means
        // no grouping, whatever the others measure.
        let limit = (options.break_length - self.indentation as f64) / 3.0 - 2.0;
        let mut widths = Vec::with_capacity(count);
        for entry in &output[..count] {
            let text = &self.out.buf[entry.value.start..entry.value.end];
            // ASCII exactly when each unit took one byte; then its width is
            // its length less its line breaks (its only controls).
            let width = if text.len() == entry.value.units {
                if entry.value.newline {
                    text.bytes().filter(|&b| b >= 32).count()
                } else {
                    entry.value.units
                }
            } else {
                // At least its printable ASCII; measured below if it matters.
                text.bytes().filter(|b| (0x20..0x7f).contains(b)).count()
            };
            if width as f64 >= limit {
                return Some(None);
            }
            widths.push(width);
        }
        let mut total = 0.0;
        let mut widest = 0usize;
        for (width, entry) in widths.iter_mut().zip(output) {
            let text = &self.out.buf[entry.value.start..entry.value.end];
            if text.len() != entry.value.units {
                let measure = options.string_width.as_ref()?;
                let measured: f64 = measure.call((text,)).ok()?;
                *width = measured as usize;
            }
            total += (*width + 2) as f64;
            widest = widest.max(*width);
        }
        let cell = (widest + 2) as f64;
        let indentation = self.indentation as f64;
        if cell * 3.0 + indentation >= options.break_length || !(total / cell > 5.0 || widest <= 6)
        {
            return Some(None);
        }
        let bias = (cell - total / output.len() as f64).sqrt();
        let biased = (cell - 3.0 - bias).max(1.0);
        let columns = ((2.5 * biased * count as f64).sqrt() / biased + 0.5)
            .floor()
            .min(((options.break_length - indentation) / cell).floor())
            .min(options.compact * 4.0)
            .min(15.0);
        if columns.is_nan() || columns <= 1.0 {
            return Some(None);
        }
        let columns = columns as usize;
        let column_widths: Vec<usize> = (0..columns)
            .map(|c| {
                (c..count)
                    .step_by(columns)
                    .map(|j| widths[j])
                    .max()
                    .unwrap_or(0)
                    + 2
            })
            .collect();
        let numeric = numeric(output.len());
        let mut rows = Vec::with_capacity(count / columns + 2);
        let mut i = 0;
        while i < count {
            let end = (i + columns).min(count);
            let mark = self.out.mark();
            for j in i..end {
                let last = j == end - 1;
                let entry = output[j].value;
                let width =
                    column_widths[j - i] + entry.units - widths[j] - if last { 2 } else { 0 };
                let len = entry.units + if last { 0 } else { 2 };
                let fill = width.saturating_sub(len);
                if numeric {
                    self.out.spaces(fill);
                }
                self.out.copy(entry);
                if !last {
                    self.out.ascii(", ");
                    if !numeric {
                        self.out.spaces(fill);
                    }
                }
            }
            rows.push(Entry {
                key: None,
                value: self.out.span(mark),
            });
            i = end;
        }
        rows.extend(output.iter().skip(count).copied());
        Some(Some(rows))
    }
}

// ---- natives ----------------------------------------------------------------

/// `natives.inspectPlain(value, ctx, recurseTimes, custom, stringWidth)`: the text, or
/// `undefined` when JavaScript is to format `value`. On success it updates
/// `ctx.budget.room` and `ctx.currentDepth` as formatting in JavaScript
/// would have.
pub fn inspect_plain<'js>(
    ctx: Ctx<'js>,
    value: Value<'js>,
    state: Object<'js>,
    recurse_times: f64,
    custom: Value<'js>,
    string_width: Function<'js>,
) -> rquickjs::Result<Option<rquickjs::String<'js>>> {
    if !value.is_string() && !value.is_object() {
        return Ok(None);
    }
    if state.get::<_, bool>("showHidden")? {
        return Ok(None);
    }
    let budget: Object = state.get("budget")?;
    let seen: Array = state.get("seen")?;
    let mut ids = Vec::with_capacity(seen.len());
    for object in seen.iter::<Value>() {
        let object = object?;
        if object.is_object() {
            ids.push(object_id(object.as_raw()));
        }
    }
    let mut options = Inspect {
        depth: state.get("depth")?,
        break_length: state.get("breakLength")?,
        compact: state.get("compact")?,
        max_array_length: state.get("maxArrayLength")?,
        max_string_length: state.get("maxStringLength")?,
        room: budget.get("room")?,
        indentation: state.get::<_, f64>("indentationLvl")?.max(0.0) as usize,
        current_depth: state.get("currentDepth")?,
        seen: ids,
        string_width: Some(string_width),
    };
    let Some(text) = inspect(&ctx, &value, &custom, &mut options, recurse_times) else {
        return Ok(None);
    };
    budget.set("room", options.room)?;
    state.set("currentDepth", options.current_depth)?;
    rquickjs::String::from_str(ctx, &text).map(Some)
}

/// A string as text, each lone surrogate replaced by U+FFFD: how a
/// returned string displays (`console.log` of a string prints it as is).
pub fn well_formed(ctx: &Ctx<'_>, value: &Value<'_>) -> Option<String> {
    let held = Held::of(ctx.as_raw().as_ptr(), value.as_raw())?;
    Some(match held.chars() {
        Chars::Narrow(bytes) if is_ascii(bytes) => {
            // SAFETY: ASCII is UTF-8.
            unsafe { std::str::from_utf8_unchecked(bytes) }.to_owned()
        }
        Chars::Narrow(bytes) => bytes.iter().map(|&b| char::from(b)).collect(),
        Chars::Wide(units) => char::decode_utf16(units.iter().copied())
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
    })
}
