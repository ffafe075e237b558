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
//! It is built twice. In the guest (feature `quickjs`) it reads the
//! engine's values through the read-only views the project's QuickJS patch
//! exports (`JS_Coderun*`), runs no JavaScript, and keeps no reference past
//! a call. Plain data leaving the guest (the returned value, a binding's
//! argument) is not rendered there: it is copied out as a tape of its
//! values (`tape.rs`), and the host's build (no feature) reads the tape
//! into an arena that answers to the same names (`arena.rs`) and renders
//! it with this same code, natively, outside the run's fuel. Text is written once into one buffer; entries are
//! spans of it, and each nesting level's layout replaces its entries' bytes
//! with the joined text. Strings are scanned eight bytes at a time. The
//! recursion is bounded by [`MAX_NESTING`]: deeper values are declined, and
//! JavaScript (with its own stack limit) takes them.

// The host's build renders what a tape holds (a returned value, a binding's
// argument); the guest's helpers for QuickJS's own strings, console lines
// and JSON indents are not reached there.
#![cfg_attr(
    not(feature = "quickjs"),
    allow(
        dead_code,
        unused_imports,
        reason = "the guest's parts, unused on the host"
    )
)]

use std::ffi::{c_int, c_void};

#[cfg(feature = "quickjs")]
use rquickjs::qjs;

// The host's build reads a tape's values, through the same names.
#[cfg(not(feature = "quickjs"))]
mod arena;
#[cfg(not(feature = "quickjs"))]
use arena::qjs;
#[cfg(not(feature = "quickjs"))]
use arena::{
    JS_CoderunObjectShape, JS_CoderunObjectSlot, JS_CoderunPlainArray, JS_CoderunPlainObject,
    JS_CoderunPristine, JS_CoderunString, JS_CoderunStringChars,
};
#[cfg(not(feature = "quickjs"))]
pub use arena::{MAX_TAPE_DEPTH, Rendered, TapeError, render_tape, tape_depth};

/// Nesting the native renderer takes before it declines.
const MAX_NESTING: usize = 200;

#[cfg(feature = "quickjs")]
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
    fn JS_CoderunStringChars(value: qjs::JSValue, len: *mut u32) -> *const c_void;
    fn JS_CoderunObjectShape(
        value: qjs::JSValue,
        values: *mut *const qjs::JSValue,
    ) -> *const c_void;
}

mod columns;
mod decode;
mod digits;
mod entries;
#[cfg(not(target_arch = "wasm32"))]
mod host_scan;
#[cfg(feature = "quickjs")]
mod indent;
mod inspect;
mod json;
mod layout;
#[cfg(feature = "quickjs")]
mod line;
mod numbers;
mod scan;
mod strings;
mod tags;
#[cfg(feature = "quickjs")]
mod tape;
mod text;
mod transcode;
mod utf16;
mod values;
mod wide;
mod width;
mod width_tables;

pub use decode::ascii_len;
#[cfg(feature = "quickjs")]
pub use decode::{Text, new_ascii_string, new_string};
pub use inspect::Inspect;
#[cfg(feature = "quickjs")]
pub use inspect::{inspect, inspect_plain};
#[cfg(feature = "quickjs")]
pub use json::{json_noting, json_spaced_raw};
#[cfg(feature = "quickjs")]
pub use line::{console_args_line, console_line};
pub use scan::string_end;
#[cfg(feature = "quickjs")]
pub use tape::tape;
#[cfg(feature = "quickjs")]
pub use transcode::{well_formed, with_utf8};
pub use values::AddressHash;
#[cfg(feature = "quickjs")]
pub use width::{init as init_widths, string_width};
