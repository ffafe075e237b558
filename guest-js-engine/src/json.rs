//! The JSON object's two functions, native for plain data: `JSON.parse`
//! of a string without a reviver reads it with parse.rs, and
//! `JSON.stringify` of a value without a replacer or an indent writes it
//! with the renderer's JSON (render/json.rs, the one a returned value and a
//! binding's argument are written with). Everything else, and whatever
//! those decline (a reviver or replacer, an indent, text that is not JSON,
//! a value that is not plain data: a cycle, a `toJSON`, a class instance,
//! a changed `Object.prototype`...), goes to QuickJS's own functions,
//! which are kept, so the values, the text and the errors a program sees
//! are theirs. Each keeps its standard `name`, `length` and attributes.

use std::cell::RefCell;

use rquickjs::function::Opt;
use rquickjs::object::Property;
use rquickjs::{Ctx, Function, Object, Persistent, Value};

thread_local! {
    /// QuickJS's own `JSON.parse` and `JSON.stringify` (set once, in the
    /// snapshot).
    static ORIGINALS: RefCell<Option<Originals>> = const { RefCell::new(None) };
}

#[derive(Clone)]
struct Originals {
    parse: Persistent<Function<'static>>,
    stringify: Persistent<Function<'static>>,
}

/// Puts the native `JSON.parse` and `JSON.stringify` in place, keeping
/// QuickJS's. Called before the prelude, whose modules keep them.
pub fn install(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    let json: Object = ctx.globals().get("JSON")?;
    let parse: Function = json.get("parse")?;
    let stringify: Function = json.get("stringify")?;
    ORIGINALS.with(|cell| {
        *cell.borrow_mut() = Some(Originals {
            parse: Persistent::save(ctx, parse),
            stringify: Persistent::save(ctx, stringify),
        })
    });
    let parse = Function::new(ctx.clone(), json_parse)?.with_name("parse")?;
    parse.set_length(2)?;
    json.prop("parse", Property::from(parse).writable().configurable())?;
    let stringify = Function::new(ctx.clone(), json_stringify)?.with_name("stringify")?;
    stringify.set_length(3)?;
    json.prop(
        "stringify",
        Property::from(stringify).writable().configurable(),
    )
}

fn originals(ctx: &Ctx<'_>) -> rquickjs::Result<Originals> {
    ORIGINALS.with(|cell| cell.borrow().clone()).ok_or_else(|| {
        rquickjs::Exception::throw_internal(ctx, "JSON's functions are not installed")
    })
}

fn or_undefined<'js>(ctx: &Ctx<'js>, value: Opt<Value<'js>>) -> Value<'js> {
    value.0.unwrap_or_else(|| Value::new_undefined(ctx.clone()))
}

/// `JSON.parse(text, reviver)`.
fn json_parse<'js>(
    ctx: Ctx<'js>,
    text: Opt<Value<'js>>,
    reviver: Opt<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let (text, reviver) = (or_undefined(&ctx, text), or_undefined(&ctx, reviver));
    if text.is_string()
        && !reviver.is_function()
        && let Some(Some(value)) =
            crate::render::with_utf8(&ctx, &text, |text| crate::parse::json(&ctx, text))
    {
        return Ok(value);
    }
    originals(&ctx)?.parse.restore(&ctx)?.call((text, reviver))
}

/// `JSON.stringify(value, replacer, space)`.
fn json_stringify<'js>(
    ctx: Ctx<'js>,
    value: Opt<Value<'js>>,
    replacer: Opt<Value<'js>>,
    space: Opt<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let value = or_undefined(&ctx, value);
    let (replacer, space) = (or_undefined(&ctx, replacer), or_undefined(&ctx, space));
    if replacer.is_undefined()
        && space.is_undefined()
        && let Some(custom) = crate::engine::inspect_custom(&ctx)
        && let Some(text) = crate::render::json(&ctx, &value, &custom)
    {
        return rquickjs::String::from_str(ctx, &text).map(|text| text.into_value());
    }
    originals(&ctx)?
        .stringify
        .restore(&ctx)?
        .call((value, replacer, space))
}
