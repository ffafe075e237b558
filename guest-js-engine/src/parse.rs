//! JSON text parsed straight into the engine's values, for a binding's
//! result and for `JSON.parse` of a string without a reviver (json.rs;
//! QuickJS's own `JSON.parse` is kept for everything else). serde_json reads the
//! text, and each value is made with the calls `JSON.parse` itself makes
//! (`JS_NewObject`, then `JS_DefinePropertyValue` key by key, in order; an
//! array from its elements), so the value is the one `JSON.parse` would
//! give: `-0` stays `-0`, numbers are correctly rounded (serde_json's
//! `float_roundtrip`), a repeated key keeps its first place and its last
//! value, and a `__proto__` key is an own property.
//!
//! What it saves is QuickJS's tokenizer (about 30 units of fuel a
//! character of a string), its number parser (thousands a decimal), and a
//! string made for every key before it is looked up as an atom: a key is
//! made an atom once per parse here. And an object whose keys, as the text
//! has them, are an earlier object's (a list of records) is made with that
//! object's shape at once (`JS_CoderunNewObjectLike`, the project's QuickJS
//! patch), instead of reaching it key by key (a lookup in the shape hash,
//! a reference moved and the slots grown for each key). The shape
//! is shared as QuickJS shares the shapes of objects made alike: a record
//! changed later takes a shape of its own. Text it does not take (malformed,
//! nested past serde_json's 128 levels, a `\u` escape of a lone
//! surrogate, a number out of range, or an exception from the engine,
//! which it clears) is left to `JSON.parse`, whose answer or error then
//! stands.

use std::ffi::{c_char, c_int};
use std::fmt;

use rquickjs::{Ctx, Value, qjs};
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

/// How many distinct keys a parse keeps as atoms (records repeat a few).
const KEPT_KEYS: usize = 64;
/// How many objects a parse keeps as models for the objects after them
/// (a record and the objects nested in it alternate).
const KEPT_MODELS: usize = 8;
/// The most keys an object may have to be kept as a model.
const MODEL_KEYS: usize = 64;

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
    };
    let mut reader = serde_json::Deserializer::from_str(json);
    let parsed = (&mut builder)
        .deserialize(&mut reader)
        .and_then(|value| reader.end().map(|()| value));
    drop(builder);
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
    fn owned<E: serde::de::Error>(&self, value: qjs::JSValue) -> Result<Owned, E> {
        let owned = Owned {
            ctx: self.ctx,
            value,
        };
        // SAFETY: reading a value's tag.
        if unsafe { qjs::JS_VALUE_GET_NORM_TAG(value) } == qjs::JS_TAG_EXCEPTION {
            std::mem::forget(owned);
            return Err(E::custom("the engine threw"));
        }
        Ok(owned)
    }

    /// The atom of `key`: kept for the rest of the parse when it is
    /// borrowed from the text (the caller must not free it), else new (the
    /// caller frees it: `fresh`).
    fn atom<E: serde::de::Error>(&mut self, key: &Key<'de>) -> Result<(qjs::JSAtom, bool), E> {
        let text = match *key {
            Key::Borrowed(text) => {
                if let Some(&(_, atom)) = self.keys.iter().find(|(kept, _)| *kept == text) {
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
            return Err(E::custom("the engine threw"));
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
    /// open object's), which it takes off the stacks.
    fn object<E: serde::de::Error>(&mut self, from: (usize, usize)) -> Result<Owned, E> {
        let (values_from, names_from) = from;
        let count = self.values.len() - values_from;
        let names = &self.names[names_from..];
        let same_keys = |model: &&Model<'de>| {
            model.keys.len() == count
                && model
                    .keys
                    .iter()
                    .zip(names)
                    .all(|(kept, name)| matches!(name, Key::Borrowed(text) if text == kept))
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
                return self.owned(made);
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
                return Err(serde::de::Error::custom("the engine threw"));
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
        Ok(object)
    }
}

impl<'de> DeserializeSeed<'de> for &mut Builder<'de> {
    type Value = Owned;

    fn deserialize<D: serde::Deserializer<'de>>(self, reader: D) -> Result<Owned, D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &mut Builder<'de> {
    type Value = Owned;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Owned, E> {
        self.owned(qjs::JS_NULL)
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Owned, E> {
        self.owned(if b { qjs::JS_TRUE } else { qjs::JS_FALSE })
    }

    // An integer is the double nearest it, as its decimal text's is.
    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Owned, E> {
        self.owned(qjs::JS_NewFloat64(n as f64))
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Owned, E> {
        self.owned(qjs::JS_NewFloat64(n as f64))
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Owned, E> {
        self.owned(qjs::JS_NewFloat64(n))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Owned, E> {
        // SAFETY: `text` is UTF-8 of `text.len()` bytes.
        let value = unsafe {
            qjs::JS_NewStringLen(self.ctx, text.as_ptr() as *const c_char, text.len() as _)
        };
        self.owned(value)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Owned, A::Error> {
        let from = self.values.len();
        while let Some(element) = items.next_element_seed(&mut *self)? {
            self.values.push(element.take());
        }
        let count = i32::try_from(self.values.len() - from)
            .map_err(|_| serde::de::Error::custom("an array too long"))?;
        // SAFETY: `count` owned values from `from`, which the call takes
        // (and frees if it fails).
        let array =
            unsafe { qjs::JS_NewArrayFrom(self.ctx, count, self.values.as_ptr().add(from)) };
        self.values.truncate(from);
        self.owned(array)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Owned, A::Error> {
        let from = (self.values.len(), self.names.len());
        while let Some(key) = entries.next_key_seed(KeySeed)? {
            let value = entries.next_value_seed(&mut *self)?;
            self.values.push(value.take());
            self.names.push(key);
        }
        self.object(from)
    }
}

/// A key as the text has it: borrowed when it has no escape.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key<'de>;

    fn deserialize<D: serde::Deserializer<'de>>(self, reader: D) -> Result<Key<'de>, D::Error> {
        reader.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, text: &'de str) -> Result<Key<'de>, E> {
        Ok(Key::Borrowed(text))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Key<'de>, E> {
        Ok(Key::Owned(text.to_owned()))
    }
}
