//! Plain data as `util.inspect` writes it: inspect.js's `formatValue`
//! and `formatRaw` for strings, arrays and objects.

use super::qjs;
#[cfg(feature = "quickjs")]
use rquickjs::{Array, Ctx, Object, Value};

use super::entries::{Entries, Entry};
use super::numbers::{GROUPED, NumberArrays};
use super::text::{Out, Span};
use super::values::*;

// ---- inspect ----------------------------------------------------------------

/// The options and state of one `inspect` call (inspect.js's `ctx`).
pub struct Inspect {
    pub depth: f64,
    pub break_length: f64,
    pub compact: f64,
    pub max_array_length: f64,
    pub max_string_length: f64,
    /// The budget left, in UTF-16 units (`ctx.budget.room`).
    pub room: f64,
    pub indentation: usize,
    pub current_depth: f64,
    /// The objects being formatted around this value (`ctx.seen`).
    pub seen: Vec<usize>,
}

impl Inspect {
    /// What a returned value shows: inspect.js's `RETURNED`, within `room`.
    pub fn returned(room: f64) -> Inspect {
        Inspect {
            depth: 64.0,
            break_length: 80.0,
            compact: 3.0,
            max_array_length: f64::INFINITY,
            max_string_length: f64::INFINITY,
            room,
            indentation: 0,
            current_depth: 0.0,
            seen: Vec::new(),
        }
    }

    /// What a console argument shows: inspect.js's `context` with no
    /// options (Node's defaults), within `room`.
    fn console(room: f64) -> Inspect {
        Inspect {
            depth: 2.0,
            break_length: 80.0,
            compact: 3.0,
            max_array_length: 100.0,
            max_string_length: 10_000.0,
            room,
            indentation: 0,
            current_depth: 0.0,
            seen: Vec::new(),
        }
    }
}

/// An object as `console.log` writes it (`format`'s `inspect(arg,
/// undefined, room)`), when it is plain data, written at the end of the
/// line `out` holds: its length in UTF-16 units (its span's: the buffer's
/// own count leaves out what the layout adds). `None` where `inspectPlain`
/// declines it, with `out` holding what was written of it. The caller has
/// checked the prototypes ([`pristine_raw`]).
#[inline(never)]
#[cfg(feature = "quickjs")]
pub(super) fn console_object(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    room: f64,
    out: &mut Out,
) -> Option<usize> {
    let options = Inspect::console(room);
    let mut renderer = Renderer {
        ctx,
        numbers: None,
        room,
        indentation: 0,
        current_depth: 0.0,
        options: &options,
        walk: Walk::default(),
        entries: Vec::new(),
        // The layout places text by where it lies in the buffer, so the
        // object is written after the line's text, not copied there.
        out: std::mem::take(out),
    };
    let span = renderer.value(value, 0.0);
    *out = renderer.out;
    span.map(|span| span.units)
}

/// `value` as `formatValue(ctx, value, recurseTimes)` writes it, when it is
/// plain data; `None` leaves it (and `state`) to JavaScript.
#[cfg(feature = "quickjs")]
pub fn inspect<'js>(
    ctx: &Ctx<'js>,
    value: &Value<'js>,
    custom: &Value<'js>,
    state: &mut Inspect,
    recurse_times: f64,
    numbers: Option<(&str, &NumberArrays)>,
) -> Option<String> {
    // Only an object's rendering reads the prototypes (a `toJSON`, a
    // custom inspect); a string's, a number's or a boolean's does not.
    if value.is_object() && !pristine(ctx, custom) {
        return None;
    }
    inspect_value(
        ctx.as_raw().as_ptr(),
        value.as_raw(),
        state,
        recurse_times,
        numbers,
    )
}

/// [`inspect`] of a value whose prototypes are known to be pristine.
#[inline(always)]
pub(super) fn inspect_value(
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
    state: &mut Inspect,
    recurse_times: f64,
    numbers: Option<(&str, &NumberArrays)>,
) -> Option<String> {
    let mut renderer = Renderer {
        ctx,
        numbers,
        room: state.room,
        indentation: state.indentation,
        current_depth: state.current_depth,
        options: state,
        walk: Walk::default(),
        entries: Vec::new(),
        out: Out::default(),
    };
    renderer.value(value, recurse_times)?;
    let Renderer {
        room,
        current_depth,
        out,
        ..
    } = renderer;
    state.room = room;
    state.current_depth = current_depth;
    Some(out.buf)
}

pub(super) struct Renderer<'a, 'v> {
    pub(super) ctx: *mut qjs::JSContext,
    /// The returned value's JSON and the arrays of numbers it holds, when
    /// the value was written as JSON first.
    pub(super) numbers: Option<(&'a str, &'a NumberArrays)>,
    pub(super) options: &'a Inspect,
    pub(super) room: f64,
    pub(super) indentation: usize,
    pub(super) current_depth: f64,
    pub(super) walk: Walk<'v>,
    /// Entry lists kept for reuse, one per level.
    pub(super) entries: Vec<Entries>,
    pub(super) out: Out,
}

impl Renderer<'_, '_> {
    /// Writes a value (formatValue) and spends its length.
    pub(super) fn value(&mut self, value: qjs::JSValue, recurse: f64) -> Option<Span> {
        let kind = kind(value);
        if let Some(span) = self.primitive(&kind) {
            return Some(span);
        }
        self.composite(value, kind, recurse)
    }

    /// [`value`](Self::value) for a value that is not a primitive: a
    /// string or an object (`None` for anything else).
    ///
    /// Inlined into the walks over elements and properties, so that a
    /// string (most of the values that are not scalars) is a call of a
    /// small function, not of the walk's own.
    #[inline(always)]
    fn composite(&mut self, value: qjs::JSValue, kind: Kind, recurse: f64) -> Option<Span> {
        match kind {
            Kind::String => self.string_value(value),
            Kind::Object => self.object(value, recurse),
            _ => None,
        }
    }

    /// [`value`](Self::value) for `undefined`, `null`, a boolean or a
    /// number; `None` (nothing written) for anything else. Inlined into the
    /// walks over elements and properties, which most values leave here.
    #[inline(always)]
    fn primitive(&mut self, kind: &Kind) -> Option<Span> {
        if matches!(kind, Kind::String | Kind::Object | Kind::Other) {
            return None;
        }
        let mark = self.out.mark();
        match *kind {
            Kind::Undefined => self.out.ascii("undefined"),
            Kind::Null => self.out.ascii("null"),
            Kind::Bool(true) => self.out.ascii("true"),
            Kind::Bool(false) => self.out.ascii("false"),
            Kind::Int(n) => self.out.int(i64::from(n)),
            Kind::Float(n) if n == 0.0 && n.is_sign_negative() => self.out.ascii("-0"),
            Kind::Float(n) => self.out.number(n),
            _ => return None,
        }
        let span = self.out.span(mark);
        self.room -= span.units as f64;
        Some(span)
    }

    /// An element's or a property's value, one level in.
    #[inline(always)]
    fn nested(&mut self, value: qjs::JSValue, recurse: f64) -> Option<Span> {
        let kind = kind(value);
        if let Some(span) = self.primitive(&kind) {
            return Some(span);
        }
        self.indentation += 2;
        let span = self.composite(value, kind, recurse);
        self.indentation -= 2;
        span
    }

    pub(super) fn spend_ascii(&mut self, text: &str) -> Span {
        let mark = self.out.mark();
        self.out.ascii(text);
        self.room -= text.len() as f64;
        self.out.span(mark)
    }

    /// The `, ` before an entry of a list being written `joined` for one
    /// line (see `reduce`), unless it is the first.
    #[inline(always)]
    fn separator(&mut self, output: &[Entry], joined: bool) {
        if joined && !output.is_empty() {
            self.out.ascii(", ");
        }
    }

    /// Whether the room is spent: then `output` ends with one `...`,
    /// after a separator when the entries are being `joined` (see
    /// `reduce`).
    #[inline]
    pub(super) fn out_of_room(&mut self, output: &mut Entries, joined: bool) -> bool {
        self.room.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
            && self.ellipsis(output, joined)
    }

    /// Ends `output` with one `...` (out of room): true.
    #[cold]
    fn ellipsis(&mut self, output: &mut Entries, joined: bool) -> bool {
        let last_is_ellipsis = output.last().is_some_and(|last| {
            last.key.is_none() && &self.out.buf[last.value.start..last.value.end] == "..."
        });
        if !last_is_ellipsis {
            self.separator(output, joined);
            let mark = self.out.mark();
            self.out.ascii("...");
            output.push(Entry {
                key: None,
                value: self.out.span(mark),
            });
        }
        true
    }

    pub(super) fn object(&mut self, value: qjs::JSValue, recurse: f64) -> Option<Span> {
        let id = object_id(value);
        if self.options.seen.contains(&id) || !self.walk.enter(id) {
            return None;
        }
        if self.entries.len() < self.walk.path.len() {
            self.entries.push(Entries::default());
        }
        let span = self.enclosed(value, recurse);
        self.walk.leave();
        span
    }

    /// An object entered on the walk: an array's or an object's entries,
    /// laid out.
    pub(super) fn enclosed(&mut self, value: qjs::JSValue, recurse: f64) -> Option<Span> {
        let level = self.out.buf.len();
        let depth = self.walk.path.len() - 1;
        let mut output = std::mem::take(&mut self.entries[depth]);
        output.clear();
        // An ordinary object's shape first, as the JSON walk does.
        let slots = plain_slots(self.ctx, value, &mut self.walk.shapes);
        let span = if slots.is_none()
            && let Some(elements) = plain_array(self.ctx, value)
        {
            if elements.is_empty() {
                return Some(self.spend_ascii("[]"));
            }
            if recurse > self.options.depth {
                return Some(self.spend_ascii("[Array]"));
            }
            let recurse = recurse + 1.0;
            self.current_depth = recurse;
            // An array of numbers (one that starts with one, most likely)
            // long enough to be grouped into columns.
            // SAFETY: reading a value's tag.
            if elements.len() >= GROUPED
                && unsafe {
                    matches!(
                        qjs::JS_VALUE_GET_NORM_TAG(elements[0]),
                        qjs::JS_TAG_INT | qjs::JS_TAG_FLOAT64
                    )
                }
                && let Some(span) = self.number_columns(value, elements)
            {
                self.entries[depth] = output;
                return Some(span);
            }
            let limit = self.shown(elements.len());
            let mut complete = true;
            // Up to six elements (never grouped into columns), written
            // joined for one line as they come (see `reduce`).
            let joined = elements.len() <= 6;
            if joined {
                self.out.ascii("[ ");
            }
            for &element in &elements[..limit] {
                if self.out_of_room(&mut output, joined) {
                    complete = false;
                    break;
                }
                self.separator(&output, joined);
                let span = self.nested(element, recurse)?;
                output.push(Entry {
                    key: None,
                    value: span,
                });
            }
            if complete && elements.len() > limit {
                let more = elements.len() - limit;
                self.separator(&output, joined);
                let mark = self.out.mark();
                self.out.more(more, " more item");
                output.push(Entry {
                    key: None,
                    value: self.out.span(mark),
                });
            }
            let numeric = |count: usize| {
                (0..count).all(|i| {
                    elements
                        .get(i)
                        .is_some_and(|&e| matches!(kind(e), Kind::Int(_) | Kind::Float(_)))
                })
            };
            self.reduce(
                level,
                &mut output,
                ("[", "]"),
                joined,
                Some(&numeric),
                recurse,
            )
        } else {
            let (values, from, to) = slots?;
            if from == to {
                Some(self.spend_ascii("{}"))
            } else if recurse > self.options.depth {
                Some(self.spend_ascii("[Object]"))
            } else {
                let recurse = recurse + 1.0;
                self.current_depth = recurse;
                // Written joined for one line as they come (see `reduce`):
                // each key before its value, though the value is spent
                // first, as `formatProperty` spends them.
                self.out.ascii("{ ");
                for at in from..to {
                    if self.out_of_room(&mut output, true) {
                        break;
                    }
                    let (slot, key) = self.walk.shapes.entry(at);
                    // SAFETY: the shape says slot `slot` is a data property
                    // of this object, whose slots are one value each.
                    let element = unsafe { *values.add(slot) };
                    let key = match key {
                        Key::Name(name) => self.out.name_entry(name, !output.is_empty()),
                        _ => {
                            self.separator(&output, true);
                            let key = self.key(key);
                            self.out.ascii(": ");
                            key
                        }
                    };
                    let span = self.nested(element, recurse)?;
                    self.room -= key.units as f64;
                    output.push(Entry {
                        key: Some(key),
                        value: span,
                    });
                }
                self.reduce(level, &mut output, ("{", "}"), true, None, recurse)
            }
        };
        self.entries[depth] = output;
        span
    }
}

// ---- natives ----------------------------------------------------------------

/// `natives.inspectPlain(value, ctx, recurseTimes, custom)`: the text, or
/// `undefined` when JavaScript is to format `value`. On success it updates
/// `ctx.budget.room` and `ctx.currentDepth` as formatting in JavaScript
/// would have.
#[cfg(feature = "quickjs")]
pub fn inspect_plain<'js>(
    ctx: Ctx<'js>,
    value: Value<'js>,
    state: Object<'js>,
    recurse_times: f64,
    custom: Value<'js>,
) -> rquickjs::Result<Option<rquickjs::String<'js>>> {
    if !value.is_string() && !value.is_object() {
        return Ok(None);
    }
    if state.get::<_, bool>("showHidden")? {
        return Ok(None);
    }
    let budget: Object = state.get("budget")?;
    let seen: Array = state.get("seen")?;
    let mut ids = Vec::with_capacity(seen.len());
    for object in seen.iter::<Value>() {
        let object = object?;
        if object.is_object() {
            ids.push(object_id(object.as_raw()));
        }
    }
    let mut options = Inspect {
        depth: state.get("depth")?,
        break_length: state.get("breakLength")?,
        compact: state.get("compact")?,
        max_array_length: state.get("maxArrayLength")?,
        max_string_length: state.get("maxStringLength")?,
        room: budget.get("room")?,
        indentation: state.get::<_, f64>("indentationLvl")?.max(0.0) as usize,
        current_depth: state.get("currentDepth")?,
        seen: ids,
    };
    let Some(text) = inspect(&ctx, &value, &custom, &mut options, recurse_times, None) else {
        return Ok(None);
    };
    budget.set("room", options.room)?;
    state.set("currentDepth", options.current_depth)?;
    rquickjs::String::from_str(ctx, &text).map(Some)
}
