//! Plain data as `JSON.stringify` writes it.

use rquickjs::{Ctx, Value, qjs};

use super::numbers::{GROUPED, NumberArrays};
use super::scan::{Chars, Held};
use super::text::{Out, json_string};
use super::values::*;

// ---- JSON -------------------------------------------------------------------

/// `value` as `JSON.stringify(value)` writes it, when it is plain data;
/// `None` otherwise (a cycle, a BigInt, a function, a class instance, a
/// top-level `undefined`...), for JavaScript to decide.
pub fn json(ctx: &Ctx<'_>, value: &Value<'_>, custom: &Value<'_>) -> Option<String> {
    render(ctx, value, custom, Walk::default()).map(|(json, _)| json)
}

/// [`json`], noting the arrays of numbers it writes, for [`inspect`] to
/// lay them out from the JSON (see `numbers.rs`).
///
/// [`inspect`]: super::inspect
pub fn json_noting(
    ctx: &Ctx<'_>,
    value: &Value<'_>,
    custom: &Value<'_>,
) -> Option<(String, NumberArrays)> {
    let walk = Walk {
        numbers: Some(NumberArrays::default()),
        ..Walk::default()
    };
    render(ctx, value, custom, walk).map(|(json, numbers)| (json, numbers.unwrap_or_default()))
}

fn render(
    ctx: &Ctx<'_>,
    value: &Value<'_>,
    custom: &Value<'_>,
    mut walk: Walk<'_>,
) -> Option<(String, Option<NumberArrays>)> {
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
    json_value(ctx.as_raw().as_ptr(), value.as_raw(), &mut out, &mut walk)
        .then(|| (out.buf, walk.numbers.take()))
}

pub(super) fn json_value(
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

pub(super) fn json_object(
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
        let text = out.buf.len();
        // Whether this array's elements are still being noted, and since
        // where.
        let mut noting = walk
            .numbers
            .as_ref()
            .filter(|_| elements.len() >= GROUPED)
            .map(NumberArrays::mark);
        let mut ok = true;
        for (i, &element) in elements.iter().enumerate() {
            if i > 0 {
                out.ascii(",");
            }
            let element_kind = kind(element);
            if let Some(mark) = noting
                && !NumberArrays::notable(&element_kind)
            {
                if let Some(numbers) = walk.numbers.as_mut() {
                    numbers.drop_from(mark);
                }
                noting = None;
            }
            let before = out.buf.len();
            if matches!(element_kind, Kind::Undefined) {
                out.ascii("null");
            } else if !json_value(ctx, element, out, walk) {
                ok = false;
                break;
            }
            if noting.is_some()
                && let Some(numbers) = walk.numbers.as_mut()
            {
                numbers.push(out.buf.len() - before);
            }
        }
        out.ascii("]");
        if ok && let (Some(mark), Some(numbers)) = (noting, walk.numbers.as_mut()) {
            numbers.note(object_id(value), text, mark);
        }
        ok
    } else if plain_object(ctx, value, &mut walk.shapes, &mut properties) {
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
                Key::Name(name) => {
                    out.ascii("\"");
                    out.run(Chars::Narrow(name), 0, name.len());
                    out.ascii("\"");
                }
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
