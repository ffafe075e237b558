//! `fetch`'s natives: a request handed to the host (which alone decides
//! whether it is sent, under its network policy), and the response it
//! answers with, made into the head object `web/fetch.js` builds a
//! `Response` from.

use rquickjs::{Array, ArrayBuffer, Coerced, Ctx, Object, TypedArray, Value};

use crate::coderun::sandbox::host::{self, FetchRequest, RedirectMode};

/// Starts a fetch: `[id, promise]`, the promise settled by the event loop
/// like a binding call's (with the head object of [`response`]). Throws
/// the host's message when it refuses to start the call at all.
pub(super) fn host_fetch<'js>(
    ctx: Ctx<'js>,
    method: String,
    url: String,
    headers: Array<'js>,
    redirect: String,
    body: Option<TypedArray<'js, u8>>,
) -> rquickjs::Result<Array<'js>> {
    let mut list = Vec::with_capacity(headers.len());
    for pair in headers.iter::<Array<'js>>() {
        let pair = pair?;
        list.push((pair.get::<String>(0)?, pair.get::<String>(1)?));
    }
    let redirect = match redirect.as_str() {
        "error" => RedirectMode::Error,
        "manual" => RedirectMode::Manual,
        _ => RedirectMode::Follow,
    };
    let request = FetchRequest {
        method,
        url,
        headers: list,
        redirect,
        body: body.as_ref().map(crate::web::bytes_of),
    };
    let (id, promise) =
        super::bindings::start(ctx.clone(), true, |held| host::start_fetch(&request, held))?;
    let started = Array::new(ctx)?;
    started.set(0, id as f64)?;
    started.set(1, promise)?;
    Ok(started)
}

/// The program aborted fetch `id`.
pub(super) fn cancel_fetch(id: f64) {
    if id.is_finite() && id >= 1.0 {
        host::cancel_fetch(id as u64);
    }
}

/// The head the host answered fetch `id` with, parsed, with the body's
/// bytes as `body` (an `ArrayBuffer`); `Err` says why the answer is
/// unreadable.
pub(super) fn response<'js>(ctx: &Ctx<'js>, id: u64, json: String) -> Result<Value<'js>, String> {
    let head = match ctx.json_parse(json) {
        Ok(head) => head,
        Err(rquickjs::Error::Exception) => {
            let why = ctx
                .catch()
                .get::<Coerced<String>>()
                .map_or_else(|_| "unreadable".into(), |why| why.0);
            return Err(format!(
                "the host returned a malformed response head: {why}"
            ));
        }
        Err(error) => {
            return Err(format!(
                "the host returned a malformed response head: {error}"
            ));
        }
    };
    let Some(object) = head.as_object().cloned() else {
        return Err("the host returned a response head that is not an object".into());
    };
    let body = host::take_body(id);
    let attach = |object: &Object<'js>| -> rquickjs::Result<()> {
        object.set("body", ArrayBuffer::new(ctx.clone(), body)?)
    };
    if attach(&object).is_err() {
        ctx.catch();
        return Err("the response body does not fit in the sandbox's memory".into());
    }
    Ok(head)
}
