//! A run's outcome: its returned value as JSON and display text, or what
//! it threw, rendered.

use rquickjs::{Ctx, Function, Object, Value};

use crate::exports::coderun::sandbox::program::{Outcome, ReturnedValue, Settings};
use crate::render;

pub(super) fn encode<'js>(
    ctx: &Ctx<'js>,
    internals: &Object<'js>,
    value: Value<'js>,
    settings: &Settings,
) -> Outcome {
    // The run ends here, and its instance is dropped with all of its
    // memory: freeing the returned value (a walk over everything it
    // holds, as long again as writing it) would be work for nothing. It
    // is kept, with the reference this function holds.
    let outcome = encode_kept(ctx, internals, &value, settings);
    std::mem::forget(value);
    outcome
}

fn encode_kept<'js>(
    ctx: &Ctx<'js>,
    internals: &Object<'js>,
    value: &Value<'js>,
    settings: &Settings,
) -> Outcome {
    let room = settings.max_value_chars;
    if value.is_undefined() {
        return Outcome::Returned(None);
    }
    // An integer, a boolean or null (most programs' answers) is its own
    // JSON and its own display: written here, without the prelude.
    if let Some(text) = primitive_text(value) {
        let json = text.clone();
        return Outcome::Returned(Some(ReturnedValue {
            json,
            display: text,
        }));
    }
    let custom = super::inspect_custom(ctx).unwrap_or_else(|| Value::new_undefined(ctx.clone()));
    // Plain data (strings, numbers, dense arrays, ordinary objects) leaves
    // as a tape of its values, for the host to write its JSON and display
    // with this renderer; a value too long for a tape is rendered here,
    // natively; the rest, or what the native renderer declines, by the
    // prelude.
    if let Some(tape) = render::tape(
        ctx.as_raw().as_ptr(),
        value.as_raw(),
        custom.as_raw(),
        max_tape_bytes(settings.max_value_chars),
    ) {
        return Outcome::ReturnedTape(tape);
    }
    // The JSON first: the display lays out the arrays of numbers it
    // noted from their text there.
    let native_json = render::json_noting(ctx, value, &custom);
    let native_display = if value.is_string() {
        render::well_formed(ctx, value)
    } else {
        render::inspect(
            ctx,
            value,
            &custom,
            &mut render::Inspect::returned(f64::from(room)),
            0.0,
            native_json
                .as_ref()
                .map(|(json, numbers)| (json.as_str(), numbers)),
        )
    };
    let encoded = match native_json {
        Some((json, _)) => Ok(json),
        None => internals
            .get::<_, Function>("encodeResult")
            .and_then(|encode| encode.call::<_, String>((value.clone(), room))),
    }
    .and_then(|json| {
        let display = match native_display {
            Some(display) => display,
            None => internals
                .get::<_, Function>("display")?
                .call::<_, String>((value.clone(), room))?,
        };
        Ok(ReturnedValue { json, display })
    });
    match encoded {
        Ok(returned) => Outcome::Returned(Some(returned)),
        Err(error) => Outcome::Threw(format!(
            "the returned value could not be serialised: {}",
            render_thrown(ctx, internals, error)
        )),
    }
}

/// The longest tape a value may be written as when its JSON may take
/// `max_value_bytes`: twice that, and 4 KiB (the host's own bound,
/// `max_tape_bytes` in `runtime-host/src/value.rs`, is the same); a longer
/// value is written as JSON in the guest.
pub(super) fn max_tape_bytes(max_value_bytes: u32) -> usize {
    (max_value_bytes as usize)
        .saturating_mul(2)
        .saturating_add(4096)
}

/// The JSON text, which is also the display, of a returned integer (one
/// QuickJS holds as an integer: never `-0`), boolean or null.
pub(super) fn primitive_text(value: &Value<'_>) -> Option<String> {
    if let Some(n) = value.as_int() {
        return Some(n.to_string());
    }
    if let Some(b) = value.as_bool() {
        return Some(b.to_string());
    }
    value.is_null().then(|| "null".to_owned())
}

pub(super) fn thrown<'js>(
    ctx: &Ctx<'js>,
    internals: &Object<'js>,
    error: rquickjs::Error,
) -> Outcome {
    Outcome::Threw(render_thrown(ctx, internals, error))
}

/// The pending exception, rendered by the prelude (an error's headline,
/// then its stack).
pub(super) fn render_thrown<'js>(
    ctx: &Ctx<'js>,
    internals: &Object<'js>,
    error: rquickjs::Error,
) -> String {
    if !matches!(error, rquickjs::Error::Exception) {
        return error.to_string();
    }
    let value = ctx.catch();
    let rendered = internals
        .get::<_, Function>("renderThrown")
        .and_then(|render| render.call::<_, String>((value,)));
    rendered.unwrap_or_else(|_| {
        ctx.catch();
        "a value that could not be rendered was thrown".into()
    })
}

pub(super) fn internal_failure(what: &str) -> Outcome {
    Outcome::Threw(format!("InternalError: {what}"))
}
