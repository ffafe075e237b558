//! The web platform: its JavaScript modules (`web/*.js`, one per standard),
//! and its natives: the parts of the WinterTC globals that a
//! reference-grade Rust crate implements (the WHATWG URL parser, the
//! Encoding Standard, digests and HMAC), exposed to the JavaScript modules
//! under `web/` that give them their WebIDL shape.
//!
//! Each native takes and returns plain values (strings, `Uint8Array`s,
//! arrays of strings); the JavaScript side converts arguments as WebIDL
//! says (to USVString, to a byte view) before calling, so a native never
//! sees a lone surrogate or a detached buffer, and throws what the
//! specification throws. Natives that cannot fail on valid input return
//! `undefined` instead of throwing, and the module turns that into the
//! specification's error with its own message.

mod compression;
mod crypto;
mod encoding;
mod intl;
mod intl_text;
pub(crate) mod intl_zones;
#[rustfmt::skip]
mod intl_data;
mod url;
mod utf8;

use rquickjs::context::EvalOptions;
use rquickjs::{Array, Ctx, Function, Object, TypedArray, Value};

/// The modules under `web/`, each a function of the host object the
/// prelude builds; the prelude calls them in the order it wires them.
const MODULES: &[(&str, &str)] = &[
    ("idl", include_str!("web/idl.js")),
    ("layout", include_str!("web/layout.js")),
    ("names", include_str!("web/names.js")),
    ("inspect", include_str!("web/inspect.js")),
    ("format", include_str!("web/format.js")),
    ("console", include_str!("web/console.js")),
    ("events", include_str!("web/events.js")),
    ("abort", include_str!("web/abort.js")),
    ("encoding", include_str!("web/encoding.js")),
    ("blob", include_str!("web/blob.js")),
    ("clone", include_str!("web/clone.js")),
    ("url", include_str!("web/url.js")),
    ("headers", include_str!("web/headers.js")),
    ("formdata", include_str!("web/formdata.js")),
    ("streams", include_str!("web/streams.js")),
    ("readable", include_str!("web/readable.js")),
    ("bytes", include_str!("web/bytes.js")),
    ("tee", include_str!("web/tee.js")),
    ("writable", include_str!("web/writable.js")),
    ("pipe", include_str!("web/pipe.js")),
    ("transform", include_str!("web/transform.js")),
    ("body", include_str!("web/body.js")),
    ("fetch", include_str!("web/fetch.js")),
    ("egress", include_str!("web/egress.js")),
    ("compression", include_str!("web/compression.js")),
    ("crypto", include_str!("web/crypto.js")),
    ("performance", include_str!("web/performance.js")),
    ("intl", include_str!("web/intl.js")),
    ("intlnumber", include_str!("web/intlnumber.js")),
    ("intldate", include_str!("web/intldate.js")),
    ("intltext", include_str!("web/intltext.js")),
];

/// Every module evaluated (not yet called), by name: what the prelude
/// receives as `modules`.
pub fn modules<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<Object<'js>> {
    let modules = Object::new(ctx.clone())?;
    for (name, source) in MODULES {
        let mut options = EvalOptions::default();
        options.filename = Some(format!("web/{name}.js"));
        let module: Function = ctx.eval_with_options(*source, options)?;
        modules.set(*name, module)?;
    }
    Ok(modules)
}

/// Registers every web native on `natives`, the object the prelude's
/// modules receive.
pub fn register<'js>(ctx: &Ctx<'js>, natives: &Object<'js>) -> rquickjs::Result<()> {
    let add = |name: &str, function: Function<'js>| natives.set(name, function);
    add("urlParse", Function::new(ctx.clone(), url::parse)?)?;
    add("urlSet", Function::new(ctx.clone(), url::set)?)?;
    add("formParse", Function::new(ctx.clone(), url::form_parse)?)?;
    add(
        "formSerialize",
        Function::new(ctx.clone(), url::form_serialize)?,
    )?;
    add("encodingName", Function::new(ctx.clone(), encoding::name)?)?;
    add("decode", Function::new(ctx.clone(), encoding::decode)?)?;
    add("encode", Function::new(ctx.clone(), encoding::encode)?)?;
    add(
        "encodeInto",
        Function::new(ctx.clone(), encoding::encode_into)?,
    )?;
    add("codecOpen", Function::new(ctx.clone(), compression::open)?)?;
    add("codecPush", Function::new(ctx.clone(), compression::push)?)?;
    add("codecPull", Function::new(ctx.clone(), compression::pull)?)?;
    add(
        "codecClose",
        Function::new(ctx.clone(), compression::close)?,
    )?;
    add("digest", Function::new(ctx.clone(), crypto::digest)?)?;
    add("hmac", Function::new(ctx.clone(), crypto::hmac)?)?;
    add(
        "numberFormat",
        Function::new(ctx.clone(), intl::number_format)?,
    )?;
    add(
        "pluralSelect",
        Function::new(ctx.clone(), intl::plural_select)?,
    )?;
    add(
        "pluralCategories",
        Function::new(ctx.clone(), intl::plural_categories)?,
    )?;
    add(
        "listFormat",
        Function::new(ctx.clone(), intl_text::list_format)?,
    )?;
    add("collate", Function::new(ctx.clone(), intl_text::collate)?)?;
    add("segment", Function::new(ctx.clone(), intl_text::segment)?)?;
    add(
        "canonicalLocale",
        Function::new(ctx.clone(), intl::canonical_locale)?,
    )?;
    add("intlPattern", Function::new(ctx.clone(), intl::pattern)?)?;
    add(
        "timeZone",
        Function::new(ctx.clone(), intl_zones::time_zone)?,
    )?;
    add(
        "localTimeZone",
        Function::new(ctx.clone(), intl_zones::local_time_zone)?,
    )?;
    add(
        "supportedValues",
        Function::new(ctx.clone(), intl::supported_values)?,
    )?;
    add(
        "timeZoneOffset",
        Function::new(ctx.clone(), intl_zones::time_zone_offset)?,
    )?;
    add("promiseState", Function::new(ctx.clone(), promise_state)?)?;
    add(
        "inspectPlain",
        Function::new(ctx.clone(), crate::render::inspect_plain)?,
    )?;
    add(
        "stringWidth",
        Function::new(ctx.clone(), crate::render::string_width)?,
    )?;
    Ok(())
}

/// `undefined` for a value that is not a promise, else `['pending']`,
/// `['fulfilled', value]` or `['rejected', reason]`: what `util.inspect`
/// shows of a promise, which JavaScript cannot read. Reading a rejected
/// promise's reason does not mark it handled.
fn promise_state<'js>(ctx: Ctx<'js>, value: Value<'js>) -> rquickjs::Result<Option<Array<'js>>> {
    let Some(promise) = value.as_promise() else {
        return Ok(None);
    };
    let state = Array::new(ctx.clone())?;
    match promise.result::<Value>() {
        None => state.set(0, "pending")?,
        Some(Ok(value)) => {
            state.set(0, "fulfilled")?;
            state.set(1, value)?;
        }
        Some(Err(_)) => {
            state.set(0, "rejected")?;
            state.set(1, ctx.catch())?;
        }
    }
    Ok(Some(state))
}

/// A copy of the bytes a `Uint8Array` views (empty when its buffer was
/// detached: the modules check for that before calling).
#[expect(
    unsafe_code,
    reason = "rquickjs exposes a typed array's bytes only as a raw slice"
)]
pub(crate) fn bytes_of(array: &TypedArray<'_, u8>) -> Vec<u8> {
    // SAFETY: the slice is copied before any JavaScript runs again, so the
    // engine cannot detach, resize or write the buffer while it is read.
    array
        .as_raw()
        .map(|raw| unsafe { raw.as_ref() }.to_vec())
        .unwrap_or_default()
}
