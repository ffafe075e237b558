//! JSON text parsed straight into the engine's values, for a binding's
//! result and for `JSON.parse` of a string without a reviver (json.rs;
//! QuickJS's own `JSON.parse` is kept for everything else). The reader
//! here takes the grammar of RFC 8259 and nothing more, and each value is
//! made with the calls `JSON.parse` itself makes (`JS_NewObject`, then
//! `JS_DefinePropertyValue` key by key, in order; an array from its
//! elements), so the value is the one `JSON.parse` would give: `-0` stays
//! `-0`, numbers are correctly rounded, a repeated key keeps its first
//! place and its last value, and a `__proto__` key is an own property.
//!
//! What it saves is QuickJS's tokenizer (about 30 units of fuel a
//! character of a string), its number parser (thousands a decimal), and a
//! string made for every key before it is looked up as an atom: a key is
//! made an atom once per parse here. It reads with a plain index over the
//! bytes: a string's text up to its quote or escape sixteen bytes at a
//! time (`render::string_end`), a number's digits into an integer, which
//! a double takes exactly when it has at most 53 bits and at most 22
//! powers of ten apart (Clinger's fast path; past it, `core`'s correctly
//! rounded parser). serde_json's reader, before it, spent about 35 units
//! of fuel a digit and a few hundred a token through its visitor.
//!
//! An object whose keys, as the text has them, are an earlier object's (a
//! list of records) is made with that object's shape at once
//! (`JS_CoderunNewObjectLike`, the project's QuickJS patch), instead of
//! reaching it key by key (a lookup in the shape hash, a reference moved
//! and the slots grown for each key). The shape is shared as QuickJS
//! shares the shapes of objects made alike: a record changed later takes a
//! shape of its own. Text it does not take (malformed, nested past
//! [`MAX_DEPTH`] levels, a `\u` escape of a lone surrogate, or an
//! exception from the engine, which it clears) is left to `JSON.parse`,
//! whose answer or error then stands.

use std::ffi::{c_char, c_int};

use rquickjs::{Ctx, Value, qjs};

use read::Reader;
use shared::{Short, Strings};

use crate::render::{new_ascii_string, new_string};

mod read;
mod shared;

/// How many distinct keys a parse keeps as atoms (records repeat a few).
const KEPT_KEYS: usize = 64;
/// How many objects a parse keeps as models for the objects after them
/// (a record and the objects nested in it alternate).
const KEPT_MODELS: usize = 8;
/// The most keys an object may have to be kept as a model.
const MODEL_KEYS: usize = 64;
/// The deepest nesting of arrays and objects the reader takes (serde_json's
/// limit, which the reader before this one had); deeper text is left to
/// `JSON.parse`, whose recursion has its own stack check.
const MAX_DEPTH: usize = 128;

unsafe extern "C" {
    /// A new object with `model`'s shape, taking `values`; `undefined`
    /// (the values left to the caller) when `model` does not qualify.
    fn JS_CoderunNewObjectLike(
        ctx: *mut qjs::JSContext,
        model: qjs::JSValue,
        count: c_int,
        values: *mut qjs::JSValue,
    ) -> qjs::JSValue;
}

/// `json` as `JSON.parse(json)` gives it, or `None` for `JSON.parse` to
/// decide (see the module's notes).
pub fn json<'js>(ctx: &Ctx<'js>, json: &str) -> Option<Value<'js>> {
    let mut builder = Builder {
        ctx: ctx.as_raw().as_ptr(),
        keys: Vec::new(),
        values: Vec::new(),
        names: Vec::new(),
        models: Vec::new(),
        strings: Strings::new(ctx.as_raw().as_ptr()),
    };
    let mut reader = Reader::new(json);
    // The cycle collector waits for the end of the parse: a collection
    // while it runs walks the whole heap and can free nothing the parse
    // holds, and the values grow the heap by half again between them. The
    // first allocation after the parse collects if the heap is past the
    // threshold. A parse that runs out of memory first is declined, and
    // `JSON.parse`, which collects as usual, reads the text.
    // SAFETY: the runtime of a live context; a field's read and write.
    let (runtime, threshold) = unsafe {
        let runtime = qjs::JS_GetRuntime(builder.ctx);
        (runtime, qjs::JS_GetGCThreshold(runtime))
    };
    // SAFETY: as above.
    unsafe { qjs::JS_SetGCThreshold(runtime, qjs::size_t::MAX) };
    let parsed = reader.value(&mut builder, 0).and_then(|()| {
        if !reader.at_end() {
            // Text after the value: the value stays on the stack, and the
            // builder frees it.
            return Err(Declined);
        }
        let value = builder.values.pop().ok_or(Declined)?;
        Ok(Owned {
            ctx: builder.ctx,
            value,
        })
    });
    drop(builder);
    // SAFETY: as above.
    unsafe { qjs::JS_SetGCThreshold(runtime, threshold) };
    match parsed {
        // SAFETY: an owned value of `ctx`, handed to its wrapper.
        Ok(value) => Some(unsafe { Value::from_raw(ctx.clone(), value.take()) }),
        Err(_) => {
            // An engine exception (out of memory) may be pending: cleared,
            // for JSON.parse to meet the same condition and throw it.
            drop(ctx.catch());
            None
        }
    }
}

/// Whether two keys are the same text, compared a word at a time, a short
/// key's as two words that overlap: keys are short, and the C library's
/// `memcmp`, which `==` calls, takes a byte at a time after the call's own
/// cost.
#[inline]
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let len = a.len();
    if len != b.len() {
        return false;
    }
    fn word<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
        let mut word = [0u8; N];
        word.copy_from_slice(&bytes[at..at + N]);
        word
    }
    match len {
        0 => true,
        1 => a[0] == b[0],
        2..=3 => word::<2>(a, 0) == word::<2>(b, 0) && a[len - 1] == b[len - 1],
        4..=7 => {
            word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, len - 4) == word::<4>(b, len - 4)
        }
        _ => {
            let mut at = 0;
            while at + 8 < len {
                if word::<8>(a, at) != word::<8>(b, at) {
                    return false;
                }
                at += 8;
            }
            word::<8>(a, len - 8) == word::<8>(b, len - 8)
        }
    }
}

/// Why a parse stopped: the text is not JSON the reader takes, or the
/// engine threw. Either way `JSON.parse` decides.
struct Declined;

/// A value this parse made and still owns.
struct Owned {
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
}

impl Owned {
    /// The value, owned by the caller from now on.
    fn take(self) -> qjs::JSValue {
        let value = self.value;
        std::mem::forget(self);
        value
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: a value this parse owns, freed once.
        unsafe { qjs::JS_FreeValue(self.ctx, self.value) }
    }
}

/// An object this parse made whose keys, all as the text has them, a later
/// object may repeat: that one is made with its shape at once.
struct Model<'de> {
    keys: Vec<&'de str>,
    /// A reference of the parse's own.
    object: qjs::JSValue,
}

/// The parse: the context, the keys made atoms so far, and the arrays and
/// objects being read.
struct Builder<'de> {
    ctx: *mut qjs::JSContext,
    keys: Vec<(&'de str, qjs::JSAtom)>,
    /// The elements and property values read so far of the arrays and
    /// objects open, the innermost's last; owned.
    values: Vec<qjs::JSValue>,
    /// The keys read so far of the objects open, the innermost's last.
    names: Vec<Key<'de>>,
    /// The newest last.
    models: Vec<Model<'de>>,
    /// Short strings made, shared by the values that repeat them.
    strings: Strings,
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        for &value in &self.values {
            // SAFETY: a value this parse owns (what an error left open).
            unsafe { qjs::JS_FreeValue(self.ctx, value) };
        }
        for model in &self.models {
            // SAFETY: the parse's own reference.
            unsafe { qjs::JS_FreeValue(self.ctx, model.object) };
        }
        for &(_, atom) in &self.keys {
            // SAFETY: an atom this parse made, freed once.
            unsafe { qjs::JS_FreeAtom(self.ctx, atom) };
        }
    }
}

impl<'de> Builder<'de> {
    /// `value`, owned; an error when it is the engine's exception.
    fn owned(&self, value: qjs::JSValue) -> Result<Owned, Declined> {
        // SAFETY: reading a value's tag.
        if unsafe { qjs::JS_VALUE_GET_NORM_TAG(value) } == qjs::JS_TAG_EXCEPTION {
            return Err(Declined);
        }
        Ok(Owned {
            ctx: self.ctx,
            value,
        })
    }

    /// `value`, owned, on the stack of values read; an error when it is
    /// the engine's exception.
    #[inline]
    fn push(&mut self, value: qjs::JSValue) -> Result<(), Declined> {
        // SAFETY: reading a value's tag.
        if unsafe { qjs::JS_VALUE_GET_NORM_TAG(value) } == qjs::JS_TAG_EXCEPTION {
            return Err(Declined);
        }
        self.values.push(value);
        Ok(())
    }

    /// The atom of `key`: kept for the rest of the parse when it is
    /// borrowed from the text (the caller must not free it), else new (the
    /// caller frees it: `fresh`).
    fn atom(&mut self, key: &Key<'de>) -> Result<(qjs::JSAtom, bool), Declined> {
        let text = match *key {
            Key::Borrowed(text) => {
                if let Some(&(_, atom)) = self.keys.iter().find(|(kept, _)| same_text(kept, text)) {
                    return Ok((atom, false));
                }
                text
            }
            Key::Owned(ref text) => text.as_str(),
        };
        // SAFETY: `text` is UTF-8 of `text.len()` bytes.
        let atom = unsafe {
            qjs::JS_NewAtomLen(self.ctx, text.as_ptr() as *const c_char, text.len() as _)
        };
        if atom == qjs::JS_ATOM_NULL {
            return Err(Declined);
        }
        match *key {
            Key::Borrowed(text) if self.keys.len() < KEPT_KEYS => {
                self.keys.push((text, atom));
                Ok((atom, false))
            }
            _ => Ok((atom, true)),
        }
    }

    /// The object of the keys and values from `from` on (the innermost
    /// open object's), which it takes off the stacks, onto the stack of
    /// values.
    fn object(&mut self, from: (usize, usize)) -> Result<(), Declined> {
        let (values_from, names_from) = from;
        let count = self.values.len() - values_from;
        let names = &self.names[names_from..];
        let same_keys = |model: &&Model<'de>| {
            model.keys.len() == count
                && model.keys.iter().zip(names).all(
                    |(kept, name)| matches!(name, Key::Borrowed(text) if same_text(text, kept)),
                )
        };
        let mut refused = false;
        if let Some(model) = self.models.iter().rev().find(same_keys) {
            // SAFETY: `count` owned values from `values_from`, which the
            // call takes unless it answers `undefined`; `model` is alive.
            let made = unsafe {
                JS_CoderunNewObjectLike(
                    self.ctx,
                    model.object,
                    count as c_int,
                    self.values.as_mut_ptr().add(values_from),
                )
            };
            // SAFETY: reading a value's tag.
            if unsafe { qjs::JS_VALUE_GET_NORM_TAG(made) } != qjs::JS_TAG_UNDEFINED {
                self.values.truncate(values_from);
                self.names.truncate(names_from);
                return self.push(made);
            }
            refused = true;
        }
        // SAFETY: a new object of the context.
        let object = self.owned(unsafe { qjs::JS_NewObject(self.ctx) })?;
        let names: Vec<Key<'de>> = self.names.drain(names_from..).collect();
        for (index, name) in names.iter().enumerate() {
            let (atom, fresh) = self.atom(name)?;
            let slot = &mut self.values[values_from + index];
            let value = std::mem::replace(slot, qjs::JS_UNDEFINED);
            // SAFETY: `object` is an object this parse owns; the call takes
            // `value` (and frees it if it fails); `atom` is alive.
            let defined = unsafe {
                qjs::JS_DefinePropertyValue(
                    self.ctx,
                    object.value,
                    atom,
                    value,
                    qjs::JS_PROP_C_W_E as i32,
                )
            };
            if fresh {
                // SAFETY: the atom `atom` made for this key alone.
                unsafe { qjs::JS_FreeAtom(self.ctx, atom) };
            }
            if defined < 0 {
                return Err(Declined);
            }
        }
        self.values.truncate(values_from);
        if !refused && (1..=MODEL_KEYS).contains(&count) {
            let keys: Option<Vec<&'de str>> = names
                .iter()
                .map(|name| match *name {
                    Key::Borrowed(text) => Some(text),
                    Key::Owned(_) => None,
                })
                .collect();
            if let Some(keys) = keys {
                if self.models.len() == KEPT_MODELS {
                    let oldest = self.models.remove(0);
                    // SAFETY: the parse's own reference.
                    unsafe { qjs::JS_FreeValue(self.ctx, oldest.object) };
                }
                // SAFETY: a reference of the parse's own to `object`.
                let object = unsafe { qjs::JS_DupValue(self.ctx, object.value) };
                self.models.push(Model { keys, object });
            }
        }
        self.values.push(object.take());
        Ok(())
    }

    /// The array of the elements from `from` on, which it takes off the
    /// stack, onto it.
    fn array(&mut self, from: usize) -> Result<(), Declined> {
        let count = i32::try_from(self.values.len() - from).map_err(|_| Declined)?;
        // SAFETY: `count` owned values from `from`, which the call takes
        // (and frees if it fails).
        let array =
            unsafe { qjs::JS_NewArrayFrom(self.ctx, count, self.values.as_ptr().add(from)) };
        // The values are the array's now, or freed.
        self.values.truncate(from);
        self.push(array)
    }

    /// A string of `text`, onto the stack of values. A short one of ASCII
    /// (names, ids, tags: most strings of a list of records) is checked as
    /// two words, which find it among the short strings made before
    /// (shared: see `shared.rs`), else it is copied and kept; a longer one
    /// goes to `new_string`, which decodes text of characters below U+0100
    /// itself.
    fn string(&mut self, text: &str) -> Result<(), Declined> {
        let Some(key) = Short::of(text.as_bytes()) else {
            // SAFETY: the builder's context, live while it reads.
            return self.push(unsafe { new_string(self.ctx, text) });
        };
        if let Some(value) = self.strings.get(key) {
            self.values.push(value);
            return Ok(());
        }
        // SAFETY: a live context; `text` is ASCII (checked).
        let value = unsafe { new_ascii_string(self.ctx, text.as_bytes()) };
        self.push(value)?;
        self.strings.keep(key, value);
        Ok(())
    }
}

/// A key or a string as the text has it: borrowed when it has no escape.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(text) => text,
            Key::Owned(text) => text,
        }
    }
}
