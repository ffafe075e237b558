//! A console line, as `format` (web/format.js) writes it: the arguments
//! joined by spaces, a string as it is, a number, a boolean, `null` and
//! `undefined` as `inspect` writes them, and an object of plain data as
//! `inspect` writes it with Node's defaults. Most `console.log` calls
//! print only these. In JavaScript the trip through `format`, `write` and
//! the prelude's well-formed check cost about 10,000 units of fuel a call,
//! and an object's `inspect` context and the call into the native
//! renderer about 35,000 more.

use super::qjs;

use super::inspect::console_object;
use super::scan::{Chars, Held};
use super::text::Out;
use super::values::{Kind, kind, plain_array, pristine_raw};

/// What one call renders at most: console.js's `ROOM`, which `format`
/// shares out among the arguments.
const ROOM: f64 = (1u32 << 20) as f64;

/// The room a line holding an object is first given, in bytes.
const LINE_BYTES: usize = 256;

/// The line `format(data)` gives, when `data` is a plain array of
/// strings, numbers, booleans, `null`, `undefined` and objects that the
/// native renderer takes (plain data, `Object.prototype` and
/// `Array.prototype` as the renderer assumes them, checked with the
/// inspect hook's symbol, which `custom` looks up at the first object;
/// none without it), and its first element is not a string holding a `%`
/// that the rest could fill (a format directive); `None` otherwise, for
/// JavaScript to write the whole line. A lone surrogate in a string
/// argument becomes U+FFFD, as the text crossing to the host does; the
/// renderer escapes those inside an object.
pub fn console_line(
    ctx: *mut qjs::JSContext,
    data: qjs::JSValue,
    custom: fn() -> Option<qjs::JSValue>,
) -> Option<String> {
    // SAFETY: reading a value's tag.
    if unsafe { qjs::JS_VALUE_GET_NORM_TAG(data) } != qjs::JS_TAG_OBJECT {
        return None;
    }
    console_args_line(ctx, plain_array(ctx, data)?, custom)
}

/// [`console_line`] of a call's arguments as they are, rather than of an
/// array of them (the native console methods').
pub fn console_args_line(
    ctx: *mut qjs::JSContext,
    elements: &[qjs::JSValue],
    custom: fn() -> Option<qjs::JSValue>,
) -> Option<String> {
    let mut out = Out::default();
    // The bytes written past the UTF-16 units of the arguments' texts
    // (what is not ASCII), for `format`'s room: `ROOM` less the units of
    // the texts before an argument, without the spaces between them.
    let mut extra = 0usize;
    let mut pristine = false;
    for (i, &element) in elements.iter().enumerate() {
        if i > 0 {
            out.ascii(" ");
        }
        match kind(element) {
            Kind::String => {
                let held = Held::of(ctx, element)?;
                let chars = held.chars();
                if i == 0 && elements.len() > 1 && has_percent(chars) {
                    return None;
                }
                extra += text(&mut out, chars);
            }
            Kind::Undefined => out.ascii("undefined"),
            Kind::Null => out.ascii("null"),
            Kind::Bool(true) => out.ascii("true"),
            Kind::Bool(false) => out.ascii("false"),
            Kind::Int(n) => out.int(i64::from(n)),
            Kind::Float(n) if n == 0.0 && n.is_sign_negative() => out.ascii("-0"),
            Kind::Float(n) => out.number(n),
            Kind::Object => {
                // The renderer reads the prototypes as they are: checked
                // once a line, as nothing it does can change them.
                if !pristine {
                    if !pristine_raw(ctx, custom()?) {
                        return None;
                    }
                    pristine = true;
                    // An object's text is written in place: room for a
                    // short line at once, rather than growing through 8,
                    // 16, 32... bytes.
                    out.buf.reserve(LINE_BYTES);
                }
                let start = out.buf.len();
                let used = start - i - extra;
                let units = console_object(ctx, element, ROOM - used as f64, &mut out)?;
                extra += out.buf.len() - start - units;
            }
            Kind::Other => return None,
        }
    }
    Some(out.buf)
}

fn has_percent(chars: Chars<'_>) -> bool {
    match chars {
        Chars::Narrow(bytes) => bytes.contains(&b'%'),
        Chars::Wide(units) => units.contains(&u16::from(b'%')),
    }
}

/// A string's text as UTF-8, a lone surrogate as U+FFFD; returns how many
/// more bytes than UTF-16 units that wrote (none for ASCII).
fn text(out: &mut Out, chars: Chars<'_>) -> usize {
    let start = out.buf.len();
    let units = match chars {
        Chars::Narrow(bytes) => {
            out.latin1(bytes);
            bytes.len()
        }
        Chars::Wide(units) => {
            out.wide_replacing(units);
            units.len()
        }
    };
    // A character takes at least as many bytes as units (U+FFFD's three
    // for a lone surrogate's one).
    out.buf.len() - start - units
}
