//! Arrays of numbers, formatted once. The JSON walk of a returned value
//! notes, for each array of seven or more finite numbers, where its
//! elements' texts are in the JSON; `util.inspect`'s walk then lays those
//! texts out in Node's columns (`groupArrayElements`, then
//! `reduceToSingleString`'s lines) straight from the JSON, without
//! formatting a number again or keeping an entry per element. JSON and
//! `util.inspect` write a finite number alike, except `-0`, which is not
//! noted.

use std::collections::HashMap;

use rquickjs::qjs;

use super::inspect::Renderer;
use super::layout::{Fill, Sink};
use super::text::Span;
use super::values::{AddressHash, Kind};

/// The fewest elements an array must have for Node to group it into
/// columns (and so for it to be noted).
pub(super) const GROUPED: usize = 7;

/// The arrays of numbers a JSON walk wrote, and where their texts are.
#[derive(Default)]
pub struct NumberArrays {
    /// An array's id → where its first element's text starts in the JSON,
    /// and the range of `lengths` that holds its elements' lengths.
    arrays: HashMap<usize, (usize, usize, usize), AddressHash>,
    lengths: Vec<u32>,
}

impl NumberArrays {
    /// Whether an element of this kind is written the same in JSON and by
    /// `util.inspect`.
    pub(super) fn notable(kind: &Kind) -> bool {
        match *kind {
            Kind::Int(_) => true,
            Kind::Float(n) => n.is_finite() && (n != 0.0 || n.is_sign_positive()),
            _ => false,
        }
    }

    /// Where the next array's lengths start.
    pub(super) fn mark(&self) -> usize {
        self.lengths.len()
    }

    /// One more element's length, for the array being written.
    pub(super) fn push(&mut self, len: usize) {
        self.lengths.push(len as u32);
    }

    /// The lengths being noted, for a walk that pushes many in a row.
    pub(super) fn lengths(&mut self) -> &mut Vec<u32> {
        &mut self.lengths
    }

    /// Forgets the lengths noted since `mark`: the array has an element
    /// that is not a number.
    pub(super) fn drop_from(&mut self, mark: usize) {
        self.lengths.truncate(mark);
    }

    /// Notes the array `id`, whose first element's text starts at `text`
    /// and whose lengths were pushed since `mark`.
    pub(super) fn note(&mut self, id: usize, text: usize, mark: usize) {
        self.arrays.insert(id, (text, mark, self.lengths.len()));
    }
}

impl Renderer<'_, '_, '_> {
    /// `formatList` for a noted array of numbers that Node groups into
    /// columns: the whole text, written where the array's text starts,
    /// and the room spent as formatting each element would have
    /// spent it. `None` (nothing written) when the array is not noted, or
    /// is cut short (by `maxArrayLength` or the room), or is not grouped:
    /// the general path takes it.
    pub(super) fn number_columns(&mut self, value: qjs::JSValue, count: usize) -> Option<Span> {
        let (json, arrays) = self.numbers?;
        if count < GROUPED || self.options.max_array_length < count as f64 {
            return None;
        }
        let &(text, from, to) = arrays.arrays.get(&super::values::object_id(value))?;
        let lengths = arrays.lengths.get(from..to)?;
        let last = *lengths.last()? as usize;
        if lengths.len() != count {
            return None;
        }
        // Each element is formatted while room is left before it.
        let total: usize = lengths.iter().map(|&len| len as usize).sum();
        if self.room - (total - last) as f64 <= 0.0 {
            return None;
        }
        // `groupArrayElements`, for entries that are ASCII and one line.
        let limit = (self.options.break_length - self.indentation as f64) / 3.0 - 2.0;
        let widest = lengths.iter().copied().max()? as usize;
        if widest as f64 >= limit {
            return None;
        }
        let columns = self.columns(widest, (total + 2 * count) as f64, count, count)?;
        let mut column_widths = [0u32; 15];
        for row in lengths.chunks(columns) {
            for (width, &len) in column_widths.iter_mut().zip(row) {
                *width = (*width).max(len);
            }
        }
        // `reduceToSingleString` with more entries than lines: each line on
        // a line of its own, the numbers right-aligned in their columns.
        let json = json.as_bytes().get(text..text + total + count - 1)?;
        let rows = count.div_ceil(columns);
        let indentation = self.indentation;
        // The text's length, counted first, so that it is written through
        // a bumped pointer into one reservation.
        let cells = |row: usize| (count - row * columns).min(columns);
        let row_width = |n: usize| column_widths[..n].iter().sum::<u32>() as usize + 2 * (n - 1);
        let mut bytes = 1 + 1 + indentation + 1;
        for row in 0..rows {
            bytes += usize::from(row > 0) + 1 + indentation + 2 + row_width(cells(row));
        }
        self.out.buf.reserve(bytes);
        let mark = self.out.mark();
        // SAFETY: only ASCII is written (numbers' JSON text, spaces and
        // punctuation), so the buffer stays UTF-8; the pieces are the ones
        // counted above, into the `bytes` reserved after the text (Fill
        // checks each against the end, and the end is checked reached
        // before the length is set).
        let written = unsafe {
            let buf = self.out.buf.as_mut_vec();
            let start = buf.len();
            let mut fill = Fill::after(buf, bytes);
            fill.ascii(b"[");
            let mut at = 0;
            for (r, row) in lengths.chunks(columns).enumerate() {
                fill.ascii(if r == 0 { &b"\n"[..] } else { b",\n" });
                fill.spaces(indentation + 2);
                for (c, (&width, &len)) in column_widths.iter().zip(row).enumerate() {
                    let len = len as usize;
                    fill.spaces(width as usize - len);
                    fill.ascii(json.get(at..at + len).unwrap_or_default());
                    at += len + 1;
                    if c + 1 < row.len() {
                        fill.ascii(b", ");
                    }
                }
            }
            fill.ascii(b"\n");
            fill.spaces(indentation);
            fill.ascii(b"]");
            assert!(fill.at == fill.end, "a column layout missed its count");
            buf.set_len(start + bytes);
            bytes
        };
        self.out.units += written;
        self.out.newline = true;
        self.room -= total as f64;
        Some(self.out.span(mark))
    }
}
