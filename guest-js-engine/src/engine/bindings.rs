//! Bindings: the namespaces a run is given, installed as globals from
//! Rust, and their calls, handed to the host as JSON.

use std::borrow::Cow;
use std::ffi::c_int;
use std::ptr::NonNull;

use rquickjs::function::Opt;
use rquickjs::object::Property;
use rquickjs::{Ctx, Exception, Function, Object, Persistent, Promise, Value, qjs};

use super::{InFlight, with_state};
use crate::cfunction;
use crate::coderun::sandbox::host;
use crate::exports::coderun::sandbox::program::Namespace;
use crate::render;

/// Installs each namespace as a non-enumerable global: an object with no
/// prototype holding one function per binding. Written natively (no
/// prelude JavaScript runs), so that a run with bindings touches none of
/// the snapshot's closures: each page a run writes is a copy of its own.
///
/// Each binding is one of QuickJS's own C functions, named and measured
/// as it is made, under the same atom as its property
/// (`cfunction::define_lazy`), whose `magic` number is its place among
/// all the run's bindings (the run's state keeps the namespaces the host
/// sent, where [`binding_entry`] finds its namespace, index and label
/// from it; a namespace's names came as one string). It is
/// made when the program first reads it: a run pays for the tools it
/// touches, and for the others their names alone. A Rust closure (a class
/// instance holding a boxed closure, its name and length then defined one
/// by one) cost about 800 units of fuel more per binding, on every run,
/// for every tool of a registry. A binding past the 32,768 places that the
/// 16-bit `magic` numbers takes the closure, made at once.
///
/// Called once a run, before the program: the entries the lazy functions
/// are made from are the run's from then on.
#[expect(
    unsafe_code,
    reason = "the lazy functions' entries are handed to QuickJS for the run"
)]
pub(super) fn install_bindings<'js>(
    ctx: &Ctx<'js>,
    bindings: &[Namespace],
) -> rquickjs::Result<()> {
    let count: usize = bindings.iter().map(|ns| ns.ends.len()).sum();
    let entries = with_state(|state| {
        let mut lazy = state.lazy.borrow_mut();
        assert!(lazy.is_empty(), "bindings installed twice in a run");
        // SAFETY: an entry is plain data (pointers, integers and a union
        // of them), for which zeros are a valid value.
        lazy.resize_with(count.min(MAGIC_PLACES), || unsafe { std::mem::zeroed() });
        lazy.as_mut_ptr()
    });
    let globals = ctx.globals();
    let mut place = 0;
    for (ns, namespace) in bindings.iter().enumerate() {
        let target = new_namespace(ctx, namespace.ends.len())?;
        for index in 0..namespace.ends.len() {
            let name = name(namespace, index).ok_or_else(|| {
                Exception::throw_internal(
                    ctx,
                    "the host sent a binding's name outside its namespace's names",
                )
            })?;
            match i16::try_from(place) {
                // SAFETY: entry `place` of the run's `lazy`, which holds
                // one for each place below `MAGIC_PLACES` and is neither
                // moved nor written again in this run.
                Ok(magic) => unsafe {
                    cfunction::define_lazy(
                        ctx,
                        &target,
                        entries.add(place),
                        binding_entry,
                        magic,
                        name,
                        1,
                    )?
                },
                Err(_) => {
                    let label = label(namespace, index).into_owned();
                    let (ns, index) = (ns as u32, index as u32);
                    let binding =
                        Function::new(ctx.clone(), move |ctx: Ctx<'js>, arg: Opt<Value<'js>>| {
                            call_binding(&ctx, ns, index, || Cow::Borrowed(&label), arg.0)
                        })?
                        .with_name(name)?
                        .with_length(1)?;
                    target.set(name, binding)?;
                }
            }
            place += 1;
        }
        globals.prop(
            namespace.global.as_str(),
            Property::from(target).writable().configurable(),
        )?;
    }
    Ok(())
}

/// A namespace's object: no prototype, and room for `count` functions
/// from the start, in a shape of its own.
#[expect(unsafe_code, reason = "the object is made through the QuickJS patch")]
fn new_namespace<'js>(ctx: &Ctx<'js>, count: usize) -> rquickjs::Result<Object<'js>> {
    let count =
        c_int::try_from(count).map_err(|_| Exception::throw_range(ctx, "too many bindings"))?;
    // SAFETY: the patch's function makes a new object in the live
    // context, or throws.
    unsafe { made(ctx, |raw| JS_CoderunNewNamespace(raw, count)) }?
        .into_object()
        .ok_or_else(|| Exception::throw_internal(ctx, "a new namespace is not an object"))
}

/// The value `make` returns from `ctx`'s context, owned; the exception
/// it threw as an error.
///
/// # Safety
/// `make` returns a new reference, made in that context, or an
/// exception.
#[expect(unsafe_code, reason = "a value QuickJS made is taken over")]
unsafe fn made<'js>(
    ctx: &Ctx<'js>,
    make: impl FnOnce(*mut qjs::JSContext) -> qjs::JSValue,
) -> rquickjs::Result<Value<'js>> {
    let raw = make(ctx.as_raw().as_ptr());
    // SAFETY: reading the tag of a value; a value other than an
    // exception is a new reference of the live context (the caller's
    // promise), which the `Value` takes.
    unsafe {
        if qjs::JS_VALUE_GET_NORM_TAG(raw) == qjs::JS_TAG_EXCEPTION {
            return Err(rquickjs::Error::Exception);
        }
        Ok(Value::from_raw(ctx.clone(), raw))
    }
}

/// The places a binding's 16-bit `magic` number tells apart.
const MAGIC_PLACES: usize = 1 << 15;

/// What QuickJS calls for a binding made by [`install_bindings`]: the call,
/// as the closure would have made it, for the binding whose place `magic`
/// is; an error it returns is thrown as rquickjs throws a closure's.
#[expect(
    unsafe_code,
    reason = "the entry point QuickJS calls a C function through"
)]
unsafe extern "C" fn binding_entry(
    ctx: *mut qjs::JSContext,
    _this: qjs::JSValue,
    argc: c_int,
    argv: *mut qjs::JSValue,
    magic: c_int,
) -> qjs::JSValue {
    let Some(raw) = NonNull::new(ctx) else {
        return qjs::JS_EXCEPTION;
    };
    // SAFETY: QuickJS calls this with its live context while the run holds
    // the runtime (inside `Context::with`), and `argv` holds `argc` values
    // (QuickJS pads them to the function's length, 1); the argument is
    // duplicated, as the `Value` frees it.
    let (ctx, arg) = unsafe {
        let ctx = Ctx::from_raw(raw);
        let arg = (argc > 0 && !argv.is_null())
            .then(|| Value::from_raw(ctx.clone(), qjs::JS_DupValue(ctx.as_raw().as_ptr(), *argv)));
        (ctx, arg)
    };
    let place = usize::try_from(magic).unwrap_or(usize::MAX);
    // The run's namespaces are only read while it runs, so this borrow
    // holds through whatever the call runs.
    let called = with_state(|state| {
        let namespaces = state.namespaces.borrow();
        let (ns, index) = locate(&namespaces, place)?;
        Some(call_binding(
            &ctx,
            ns as u32,
            index as u32,
            || label(&namespaces[ns], index),
            arg,
        ))
    });
    let Some(called) = called else {
        let _ = Exception::throw_internal(&ctx, "a binding the run does not have was called");
        return qjs::JS_EXCEPTION;
    };
    match called {
        // SAFETY: the returned reference is QuickJS's to own; `value`
        // drops its own.
        Ok(value) => unsafe { qjs::JS_DupValue(ctx.as_raw().as_ptr(), value.as_raw()) },
        Err(rquickjs::Error::Exception) => qjs::JS_EXCEPTION,
        // SAFETY: the live context, as above.
        Err(rquickjs::Error::Allocation) => unsafe {
            qjs::JS_ThrowOutOfMemory(ctx.as_raw().as_ptr())
        },
        Err(error) => {
            let _ = Exception::throw_type(&ctx, &error.to_string());
            qjs::JS_EXCEPTION
        }
    }
}

/// The namespace and index of the binding at `place` among all of
/// `namespaces`' functions, in order.
fn locate(namespaces: &[Namespace], mut place: usize) -> Option<(usize, usize)> {
    for (ns, namespace) in namespaces.iter().enumerate() {
        if place < namespace.ends.len() {
            return Some((ns, place));
        }
        place -= namespace.ends.len();
    }
    None
}

/// The name of `namespace`'s function `index`: its names lie one after the
/// other in one string.
fn name(namespace: &Namespace, index: usize) -> Option<&str> {
    let end = *namespace.ends.get(index)? as usize;
    let start = match index {
        0 => 0,
        _ => namespace.ends[index - 1] as usize,
    };
    namespace.names.get(start..end)
}

/// How messages name `namespace`'s function `index`: the host's label,
/// or, where the host sent none (its name is an identifier), the global,
/// a dot and the name.
fn label(namespace: &Namespace, index: usize) -> Cow<'_, str> {
    match namespace
        .labels
        .binary_search_by_key(&index, |label| label.function as usize)
    {
        Ok(at) => Cow::Borrowed(&namespace.labels[at].label),
        Err(_) => Cow::Owned(format!(
            "{}.{}",
            namespace.global,
            name(namespace, index).unwrap_or_default()
        )),
    }
}

/// A call of a binding: its argument as a tape (natively, for plain data),
/// handed to the host; the promise the host call made. What is not plain
/// data (and so may not be JSON-serialisable), and a call the host
/// refuses, go through the prelude's `callBinding` and `failedCall`, which
/// word the rejection.
pub(super) fn call_binding<'js, 'l>(
    ctx: &Ctx<'js>,
    ns: u32,
    index: u32,
    label: impl FnOnce() -> Cow<'l, str>,
    arg: Option<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    // The prelude's functions, only for what the native path leaves them.
    let internals = || {
        with_state(|state| {
            state
                .engine
                .borrow()
                .as_ref()
                .map(|engine| engine.internals.clone())
        })
        .ok_or_else(|| Exception::throw_internal(ctx, "the engine is not initialised"))?
        .restore(ctx)
    };
    let arg = arg.unwrap_or_else(|| Value::new_undefined(ctx.clone()));
    let args = if arg.is_undefined() {
        Some(host::CallArgs::Json("null".to_owned()))
    } else {
        let custom = super::inspect_custom_raw()
            .ok_or_else(|| Exception::throw_internal(ctx, "the engine is not initialised"))?;
        render::tape(
            ctx.as_raw().as_ptr(),
            arg.as_raw(),
            custom,
            super::tape_limit(),
        )
        .map(host::CallArgs::Tape)
    };
    let Some(args) = args else {
        let call: Function = internals()?.get("callBinding")?;
        return call.call((ns, index, label().as_ref(), arg));
    };
    match start_call(ctx.clone(), ns, index, &args) {
        Ok(promise) => Ok(promise.into_value()),
        Err(rquickjs::Error::Exception) => {
            let error = ctx.catch();
            let failed: Function = internals()?.get("failedCall")?;
            failed.call((label().as_ref(), error))
        }
        Err(error) => Err(error),
    }
}

/// Starts a binding call and returns its promise, which the event loop
/// settles from Rust (from `ready` when the host settled it at once);
/// throws the host's message if the call was refused.
pub(super) fn host_call<'js>(
    ctx: Ctx<'js>,
    namespace: u32,
    function: u32,
    args_json: String,
) -> rquickjs::Result<Promise<'js>> {
    start_call(ctx, namespace, function, &host::CallArgs::Json(args_json))
}

fn start_call<'js>(
    ctx: Ctx<'js>,
    namespace: u32,
    function: u32,
    args: &host::CallArgs,
) -> rquickjs::Result<Promise<'js>> {
    start(ctx, false, |held| {
        host::start_call(namespace, function, args, held)
    })
    .map(|(_, promise)| promise)
}

/// Starts a host call with `begin` (given how many outcomes the guest
/// holds) and returns its id and promise, which the event loop settles
/// from Rust (from `ready` when the host settled it at once); throws the
/// host's message if the call was refused. `fetch`: the call is a fetch,
/// whose outcome the event loop makes a response head.
pub(super) fn start<'js>(
    ctx: Ctx<'js>,
    fetch: bool,
    begin: impl FnOnce(u32) -> Result<host::StartedCall, String>,
) -> rquickjs::Result<(u64, Promise<'js>)> {
    // The promise first: once the host has the call, nothing may fail
    // before it is recorded.
    let promise = new_promise(&ctx)?;
    let held = with_state(|state| state.ready.borrow().len());
    let held = u32::try_from(held).unwrap_or(u32::MAX);
    match begin(held) {
        Ok(host::StartedCall { id, settled }) => {
            let call = InFlight {
                promise: Persistent::save(&ctx, promise.clone()),
                fetch,
            };
            with_state(|state| {
                state.pending.borrow_mut().insert(id, call);
                if let Some(outcome) = settled {
                    let settled = host::SettledCall { id, outcome };
                    state.ready.borrow_mut().push_back(settled);
                }
            });
            Ok((id, promise))
        }
        Err(message) => Err(Exception::throw_message(&ctx, &message)),
    }
}

unsafe extern "C" {
    /// An object with no prototype and room for `count` properties in a
    /// shape of its own.
    fn JS_CoderunNewNamespace(ctx: *mut qjs::JSContext, count: c_int) -> qjs::JSValue;
    /// A new pending promise, without resolving functions.
    fn JS_CoderunNewPromise(ctx: *mut qjs::JSContext) -> qjs::JSValue;
    /// Settles a pending promise as its resolve function (its reject
    /// function when `is_reject`) would.
    fn JS_CoderunSettlePromise(
        ctx: *mut qjs::JSContext,
        promise: qjs::JSValue,
        value: qjs::JSValue,
        is_reject: c_int,
    );
}

/// A binding call's promise: pending, with no resolving functions, for
/// [`settle_promise`] to settle. `ctx.promise()` makes a resolve and a
/// reject function, each an object with its own `length` and `name`, that
/// no program can reach and that are freed unused: a quarter of an awaited
/// call's fuel.
fn new_promise<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<Promise<'js>> {
    // SAFETY: the patch's function makes a new promise in the live
    // context, or throws.
    unsafe { made(ctx, |raw| JS_CoderunNewPromise(raw)) }?
        .into_promise()
        .ok_or_else(|| Exception::throw_internal(ctx, "a new promise is not a promise"))
}

/// Resolves (`reject` false: a thenable is followed) or rejects a promise
/// [`new_promise`] made, once, as its resolving functions would have; the
/// reactions it has are queued as jobs.
pub(super) fn settle_promise<'js>(
    ctx: &Ctx<'js>,
    promise: &Promise<'js>,
    value: &Value<'js>,
    reject: bool,
) {
    // SAFETY: a live context and two values of it, borrowed for the call.
    unsafe {
        JS_CoderunSettlePromise(
            ctx.as_raw().as_ptr(),
            promise.as_raw(),
            value.as_raw(),
            c_int::from(reject),
        );
    }
}
