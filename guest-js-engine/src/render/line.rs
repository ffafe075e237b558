//! A console line of primitives, as `format` (web/format.js) writes it:
//! the arguments joined by spaces, a string as it is, a number, a boolean,
//! `null` and `undefined` as `inspect` writes them. Most `console.log`
//! calls print only these, and in JavaScript the trip through `format`,
//! `write` and the prelude's well-formed check cost about 10,000 units of
//! fuel a call.

use rquickjs::qjs;

use super::scan::{Chars, Held};
use super::text::Out;
use super::values::{Kind, kind, plain_array};

/// The line `format(data)` gives, when `data` is a plain array of
/// strings, numbers, booleans, `null` and `undefined`, and its first
/// element is not a string holding a `%` that the rest could fill (a
/// format directive); `None` otherwise, for JavaScript to write. A lone
/// surrogate becomes U+FFFD, as the text crossing to the host does.
pub fn console_line(ctx: *mut qjs::JSContext, data: qjs::JSValue) -> Option<String> {
    // SAFETY: reading a value's tag.
    if unsafe { qjs::JS_VALUE_GET_NORM_TAG(data) } != qjs::JS_TAG_OBJECT {
        return None;
    }
    let elements = plain_array(ctx, data)?;
    let mut out = Out::default();
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
                text(&mut out, chars);
            }
            Kind::Undefined => out.ascii("undefined"),
            Kind::Null => out.ascii("null"),
            Kind::Bool(true) => out.ascii("true"),
            Kind::Bool(false) => out.ascii("false"),
            Kind::Int(n) => out.int(i64::from(n)),
            Kind::Float(n) if n == 0.0 && n.is_sign_negative() => out.ascii("-0"),
            Kind::Float(n) => out.number(n),
            Kind::Object | Kind::Other => return None,
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

/// A string's text as UTF-8, a lone surrogate as U+FFFD.
fn text(out: &mut Out, chars: Chars<'_>) {
    match chars {
        Chars::Narrow(bytes) if bytes.is_ascii() => out.utf8(bytes),
        Chars::Narrow(bytes) => out.buf.extend(bytes.iter().map(|&b| char::from(b))),
        Chars::Wide(units) => out.buf.extend(
            char::decode_utf16(units.iter().copied())
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)),
        ),
    }
}
