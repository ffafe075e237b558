//! Plain data as `JSON.stringify` writes it.

use super::qjs;
#[cfg(feature = "quickjs")]
use rquickjs::{Ctx, Value};

use super::digits::{NUMBER_ROOM, write_int, write_number};
use super::numbers::{GROUPED, NumberArrays};
use super::scan::{Chars, Held, narrow};
use super::text::{Out, json_string};
use super::values::*;

// ---- JSON -------------------------------------------------------------------

/// `value` as `JSON.stringify(value)` writes it, when it is plain data;
/// `None` otherwise (a cycle, a BigInt, a function, a class instance, a
/// top-level `undefined`...), for JavaScript to decide. On QuickJS's own
/// values: `JSON.stringify` (a C function of the engine's) and a binding's
/// call hold them so.
pub(super) fn json_raw(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    custom: qjs::JSValue,
) -> Option<String> {
    // A number, a boolean or null (most binding calls' arguments) needs
    // no walk.
    let mut out = Out::default();
    if scalar(&mut out, &kind(value)) {
        return Some(out.buf);
    }
    render(ctx, value, custom, Walk::default()).map(|(json, _)| json)
}

/// `JSON.stringify(value, undefined, space)` when `value` is plain data
/// and `space` a gap the native writer takes (see `indent.rs`); `None`
/// otherwise, for QuickJS's own function to write.
#[cfg(feature = "quickjs")]
pub fn json_spaced_raw(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    custom: qjs::JSValue,
    space: qjs::JSValue,
) -> Option<String> {
    let (gap, len) = super::indent::gap(ctx, space)?;
    let json = json_raw(ctx, value, custom)?;
    if len == 0 {
        return Some(json);
    }
    super::indent::indented(&json, &gap[..len])
}

/// [`json`], noting the arrays of numbers it writes, for [`inspect`] to
/// lay them out from the JSON (see `numbers.rs`).
///
/// [`inspect`]: super::inspect
#[cfg(feature = "quickjs")]
pub fn json_noting(
    ctx: &Ctx<'_>,
    value: &Value<'_>,
    custom: &Value<'_>,
) -> Option<(String, NumberArrays)> {
    let walk = Walk {
        numbers: Some(NumberArrays::default()),
        ..Walk::default()
    };
    render(ctx.as_raw().as_ptr(), value.as_raw(), custom.as_raw(), walk)
        .map(|(json, numbers)| (json, numbers.unwrap_or_default()))
}

fn render(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    custom: qjs::JSValue,
    mut walk: Walk<'_>,
) -> Option<(String, Option<NumberArrays>)> {
    let kind = kind(value);
    // Only an object's rendering reads the prototypes (a `toJSON`, a
    // custom inspect); a string's, a number's or a boolean's does not.
    if matches!(kind, Kind::Object) && !pristine_raw(ctx, custom) {
        return None;
    }
    let mut out = Out::default();
    if let Some(held) = matches!(kind, Kind::String)
        .then(|| Held::of(ctx, value))
        .flatten()
    {
        out.buf.reserve(held.len as usize + 2);
    } else {
        // Room for a small value's text at once, rather than growing from
        // nothing through 8, 16, 32 and 64 bytes.
        out.buf.reserve(128);
    }
    json_value(ctx, value, &mut out, &mut walk).then(|| (out.buf, walk.numbers.take()))
}

pub(super) fn json_value(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    out: &mut Out,
    walk: &mut Walk<'_>,
) -> bool {
    let kind = kind(value);
    scalar(out, &kind) || json_composite(ctx, value, &kind, out, walk)
}

/// Writes a number, a boolean or null; false (nothing written) for
/// anything else. Inlined into the walks over elements and properties,
/// which most values leave here.
#[inline(always)]
fn scalar(out: &mut Out, kind: &Kind) -> bool {
    match *kind {
        Kind::Null => out.ascii("null"),
        Kind::Bool(true) => out.ascii("true"),
        Kind::Bool(false) => out.ascii("false"),
        Kind::Int(n) => out.int(i64::from(n)),
        Kind::Float(n) if n.is_finite() => out.number(if n == 0.0 { 0.0 } else { n }),
        Kind::Float(_) => out.ascii("null"),
        _ => return false,
    }
    true
}

/// A string, an array or an object (false for what JSON cannot write
/// here, which leaves the whole value to JavaScript). Inlined into the
/// walks over elements and properties, so that a string (most of the
/// values that are not scalars) is a call of a small function, not of the
/// walk's own.
#[inline(always)]
fn json_composite(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    kind: &Kind,
    out: &mut Out,
    walk: &mut Walk<'_>,
) -> bool {
    match kind {
        Kind::String => json_string_value(ctx, value, out),
        Kind::Object => json_object(ctx, value, out, walk),
        _ => false,
    }
}

/// A string value as JSON writes it; false when its characters cannot be
/// read.
#[inline(never)]
fn json_string_value(ctx: *mut qjs::JSContext, value: qjs::JSValue, out: &mut Out) -> bool {
    if let Some(bytes) = narrow(value) {
        json_string(out, Chars::Narrow(bytes));
        return true;
    }
    match Held::of(ctx, value) {
        Some(held) => {
            json_string(out, held.chars());
            true
        }
        None => false,
    }
}

pub(super) fn json_object(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    out: &mut Out,
    walk: &mut Walk<'_>,
) -> bool {
    if !walk.enter(object_id(value)) {
        return false;
    }
    // An ordinary object's shape first: records hold more objects than
    // arrays, and an array's check is the longer one.
    let slots = plain_slots(ctx, value, &mut walk.shapes);
    let done = if slots.is_none()
        && let Some(elements) = plain_array(ctx, value)
    {
        json_array(ctx, value, elements, out, walk)
    } else if let Some((values, from, to)) = slots {
        out.ascii("{");
        let mut ok = true;
        let mut first = true;
        for at in from..to {
            let (slot, key) = walk.shapes.entry(at);
            // SAFETY: the shape says slot `slot` is a data property of this
            // object, whose slots are one value each.
            let element = unsafe { *values.add(slot) };
            let element_kind = kind(element);
            if matches!(element_kind, Kind::Undefined) {
                continue;
            }
            match key {
                // A name is its own JSON text between the quotes.
                Key::Name(name) => out.json_name(name, !first),
                Key::Chars(chars) => {
                    if !first {
                        out.ascii(",");
                    }
                    json_string(out, chars);
                    out.ascii(":");
                }
                Key::Index(index) => {
                    out.utf8(if first { b"\"" } else { b",\"" });
                    out.int(i64::from(index));
                    out.utf8(b"\":");
                }
            }
            first = false;
            if !scalar(out, &element_kind)
                && !json_composite(ctx, element, &element_kind, out, walk)
            {
                ok = false;
                break;
            }
        }
        out.ascii("}");
        ok
    } else {
        false
    };
    walk.leave();
    done
}

fn json_array(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    elements: &[qjs::JSValue],
    out: &mut Out,
    walk: &mut Walk<'_>,
) -> bool {
    out.ascii("[");
    let text = out.buf.len();
    // Whether this array's elements are still being noted, and since
    // where.
    let mut noting = walk
        .numbers
        .as_ref()
        .filter(|_| elements.len() >= GROUPED)
        .map(NumberArrays::mark);
    // An array long enough to be laid out in columns, whose first element
    // is a number, is most likely an array of numbers.
    // SAFETY: reading a value's tag.
    let numbers = if elements.len() >= GROUPED
        && elements.first().is_some_and(|&first| unsafe {
            matches!(
                qjs::JS_VALUE_GET_NORM_TAG(first),
                qjs::JS_TAG_INT | qjs::JS_TAG_FLOAT64
            )
        }) {
        leading_numbers(elements, out, noting.and(walk.numbers.as_mut()))
    } else {
        0
    };
    let mut ok = true;
    for (i, &element) in elements.iter().enumerate().skip(numbers) {
        if i > 0 {
            out.ascii(",");
        }
        let element_kind = kind(element);
        if let Some(mark) = noting {
            if NumberArrays::notable(&element_kind) {
                let before = out.buf.len();
                scalar(out, &element_kind);
                if let Some(numbers) = walk.numbers.as_mut() {
                    numbers.push(out.buf.len() - before);
                }
                continue;
            }
            if let Some(numbers) = walk.numbers.as_mut() {
                numbers.drop_from(mark);
            }
            noting = None;
        }
        if scalar(out, &element_kind) {
            continue;
        }
        if matches!(element_kind, Kind::Undefined) {
            out.ascii("null");
        } else if !json_composite(ctx, element, &element_kind, out, walk) {
            ok = false;
            break;
        }
    }
    out.ascii("]");
    if ok && let (Some(mark), Some(numbers)) = (noting, walk.numbers.as_mut()) {
        numbers.note(object_id(value), text, mark);
    }
    ok
}

/// Writes the numbers an array starts with (all of an array of numbers),
/// each after its comma, up to the first element that is not an integer
/// or a finite number other than `-0` (what [`NumberArrays::notable`]
/// takes), and notes their lengths when `noting`. Returns how many it
/// wrote. The tag is read once, and the room checked once for a block of
/// elements, which are written through a pointer and their length set at
/// the block's end: the general loop takes several times the work for
/// each. Out of line, so that the walk over an array of other values stays
/// as small as it was.
#[inline(never)]
pub(super) fn leading_numbers(
    elements: &[qjs::JSValue],
    out: &mut Out,
    noting: Option<&mut NumberArrays>,
) -> usize {
    /// Elements written after one check of the room.
    const BLOCK: usize = 256;
    let mut lengths = noting.map(|numbers| {
        let lengths = numbers.lengths();
        lengths.reserve(elements.len());
        lengths
    });
    let noted = lengths.as_ref().map_or(0, |lengths| lengths.len());
    let mut written = 0;
    'blocks: while written < elements.len() {
        let block = &elements[written..elements.len().min(written + BLOCK)];
        // SAFETY: only ASCII is written, so the text stays UTF-8.
        let (bytes, _) = unsafe { out.room(block.len() * (1 + NUMBER_ROOM)) };
        // SAFETY: each element writes a comma and at most `NUMBER_ROOM`
        // bytes within the room reserved for the block, after the text;
        // the length set covers what was written. Each length noted is
        // element `written` of the ones reserved for the array, after
        // those noted before it, and the noted length is set to cover
        // them at the end.
        unsafe {
            let base = bytes.as_mut_ptr();
            let mut at = base.add(bytes.len());
            let mut stopped = false;
            for &element in block {
                at.write(b',');
                let number = at.add(usize::from(written > 0));
                let len = match qjs::JS_VALUE_GET_NORM_TAG(element) {
                    qjs::JS_TAG_INT => write_int(number, i64::from(qjs::JS_VALUE_GET_INT(element))),
                    qjs::JS_TAG_FLOAT64 => {
                        let n = qjs::JS_VALUE_GET_FLOAT64(element);
                        if !n.is_finite() || (n == 0.0 && n.is_sign_negative()) {
                            stopped = true;
                            break;
                        }
                        write_number(number, n)
                    }
                    _ => {
                        stopped = true;
                        break;
                    }
                };
                at = number.add(len);
                if let Some(lengths) = lengths.as_mut() {
                    lengths.as_mut_ptr().add(noted + written).write(len as u32);
                }
                written += 1;
            }
            bytes.set_len(at as usize - base as usize);
            if stopped {
                break 'blocks;
            }
        }
    }
    if let Some(lengths) = lengths {
        // SAFETY: the first `written` of the reserved lengths were written.
        unsafe { lengths.set_len(noted + written) };
    }
    written
}
