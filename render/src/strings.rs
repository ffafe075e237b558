//! Strings and property names as `util.inspect` writes them
//! (`formatString`, `formatProperty`'s key).

use super::qjs;

use super::inspect::Renderer;
use super::scan::{Chars, Held, InspectStop, UnitStop, narrow, scan};
use super::text::{Span, quote};
use super::values::Key;

impl Renderer<'_, '_> {
    /// A string value (formatValue of a string) written and spent.
    #[inline(never)]
    pub(super) fn string_value(&mut self, value: qjs::JSValue) -> Option<Span> {
        // Most strings in data: 8-bit, within the room and the length
        // limit, and nothing to escape; written between single quotes, as
        // `string` writes them, without its general steps.
        if let Some(bytes) = narrow(value) {
            let len = bytes.len() as f64;
            if len <= self.room
                && len <= self.options.max_string_length
                && scan(
                    Chars::Narrow(bytes),
                    0,
                    bytes.len(),
                    InspectStop { single: true },
                ) == bytes.len()
            {
                let start = self.out.buf.len();
                self.out.quoted(bytes, b'\'');
                self.out.newline = false;
                let units = bytes.len() + 2;
                self.room -= units as f64;
                return Some(Span {
                    start,
                    end: start + units,
                    units,
                    newline: false,
                });
            }
        }
        let mark = self.out.mark();
        let held = Held::of(self.ctx, value)?;
        self.string(held.chars());
        let span = self.out.span(mark);
        self.room -= span.units as f64;
        Some(span)
    }

    /// `formatString` (not spent: the caller spends).
    pub(super) fn string(&mut self, chars: Chars<'_>) {
        // `min` and `max` without their NaN rules, which wasm has no
        // instruction for (the room and the option are numbers).
        let room = if self.room > 0.0 { self.room } else { 0.0 };
        let max = self.options.max_string_length;
        let limit = if max < room { max } else { room };
        let mut len = chars.len();
        let mut more = 0;
        if len as f64 > limit {
            more = len - limit as usize;
            len = limit as usize;
        }
        // Most text has no quote, control, backslash or non-ASCII unit:
        // one scan finds that, and it is copied between single quotes.
        if scan(chars, 0, len, InspectStop { single: true }) == len {
            match chars {
                Chars::Narrow(bytes) => self.out.quoted(&bytes[..len], b'\''),
                Chars::Wide(_) => {
                    self.out.ascii("'");
                    self.out.run(chars, 0, len);
                    self.out.ascii("'");
                }
            }
        } else if len > 16 && len as f64 > self.options.break_length - self.indentation as f64 - 4.0
        {
            let mut from = 0;
            while from < len {
                let end = (scan(chars, from, len, UnitStop(b'\n')) + 1).min(len);
                if from > 0 {
                    self.out.ascii(" +\n");
                    self.out.newline = true;
                    self.out.spaces(self.indentation + 2);
                }
                quote(&mut self.out, chars, from, end);
                from = end;
            }
        } else {
            quote(&mut self.out, chars, 0, len);
        }
        self.more(more);
    }

    /// What `formatString` adds after a string cut short by `more`
    /// characters.
    fn more(&mut self, more: usize) {
        if more > 0 {
            self.out.more(more, " more character");
        }
    }

    /// A property's name as `formatProperty` writes it (not spent).
    pub(super) fn key(&mut self, key: Key<'_>) -> Span {
        let mark = self.out.mark();
        let key = match key {
            Key::Chars(chars) => chars,
            Key::Name(name) => {
                self.out.run(Chars::Narrow(name), 0, name.len());
                return self.out.span(mark);
            }
            Key::Index(index) => {
                self.out.ascii("'");
                self.out.int(i64::from(index));
                self.out.ascii("'");
                return self.out.span(mark);
            }
        };
        let len = key.len();
        if len == 9 && (0..9).all(|at| key.get(at) == u16::from(b"__proto__"[at])) {
            self.out.ascii("['__proto__']");
        } else if len > 0
            && (0..len).all(|at| {
                let c = key.get(at);
                c == u16::from(b'_')
                    || u8::try_from(c)
                        .is_ok_and(|c| c.is_ascii_alphabetic() || (at > 0 && c.is_ascii_digit()))
            })
        {
            self.out.units(key, 0, len);
        } else {
            quote(&mut self.out, key, 0, len);
        }
        self.out.span(mark)
    }
}
