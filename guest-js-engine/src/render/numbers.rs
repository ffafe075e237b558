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

impl Renderer<'_, '_> {
    /// `formatList` for a noted array of numbers that Node groups into
    /// columns: the whole text, written where the array's text starts,
    /// and the room spent as formatting each element would have
    /// spent it. `None` (nothing written) when the array is not noted, or
    /// is cut short (by `maxArrayLength` or the room), or is not grouped:
    /// the general path takes it.
    #[inline(never)]
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
        let indentation = self.indentation;
        // Where each column's cells end in a row, after the row's
        // indentation: the widths before it and their `, `.
        let mut ends = [0usize; 15];
        let mut end = 0;
        for (column, &width) in ends.iter_mut().zip(&column_widths[..columns]) {
            end += width as usize;
            *column = end;
            end += 2;
        }
        // The text's length: each row a line break (and a comma after the
        // first), its indentation and its cells; the brackets.
        let full_rows = count / columns;
        let last_cells = count % columns;
        let row_bytes = |cells: usize| 1 + indentation + 2 + ends[cells - 1];
        let mut bytes = 1 + full_rows * row_bytes(columns) + (count.div_ceil(columns) - 1);
        if last_cells > 0 {
            bytes += row_bytes(last_cells);
        }
        bytes += 1 + indentation + 1;
        self.out.buf.reserve(bytes);
        let mark = self.out.mark();
        // SAFETY: `bytes` are reserved after the text, and each row is
        // checked to fit in what is left of them before it is written.
        // Within a row, a cell's number (`len` bytes, at most its column's
        // width, the widest in the column) is copied to end at its
        // column's end, and a `, ` follows every cell but the last: all
        // within the row's `ends[cells - 1]` bytes, which one fill of
        // spaces covered first. The numbers are read from `json` in turn,
        // each followed by its comma: the lengths add up to `total`, and
        // `json` is `total + count - 1` bytes. Only ASCII is written, so
        // the buffer stays UTF-8; the end is checked reached before the
        // length is set.
        let written = unsafe {
            let buf = self.out.buf.as_mut_vec();
            let start = buf.len();
            let base = buf.as_mut_ptr().add(start);
            let limit = base.add(bytes);
            let source = json.as_ptr();
            let mut at = base;
            at.write(b'[');
            at = at.add(1);
            let mut read = 0;
            for (r, row) in lengths.chunks(columns).enumerate() {
                let cells = row.len();
                assert!(
                    limit as usize - at as usize >= usize::from(r > 0) + row_bytes(cells),
                    "a column layout outgrew its count"
                );
                if r > 0 {
                    at.write(b',');
                    at = at.add(1);
                }
                at.write(b'\n');
                let line = at.add(1);
                let width = indentation + 2 + ends[cells - 1];
                std::ptr::write_bytes(line, b' ', width);
                let row_start = line.add(indentation + 2);
                for (c, &len) in row.iter().enumerate() {
                    let len = len as usize;
                    std::ptr::copy_nonoverlapping(
                        source.add(read),
                        row_start.add(ends[c] - len),
                        len,
                    );
                    read += len + 1;
                    if c + 1 < cells {
                        (row_start.add(ends[c]) as *mut [u8; 2]).write_unaligned(*b", ");
                    }
                }
                at = line.add(width);
            }
            assert!(
                limit as usize - at as usize == 1 + indentation + 1,
                "a column layout missed its count"
            );
            at.write(b'\n');
            std::ptr::write_bytes(at.add(1), b' ', indentation);
            at.add(1 + indentation).write(b']');
            buf.set_len(start + bytes);
            bytes
        };
        self.out.units += written;
        self.out.newline = true;
        self.room -= total as f64;
        Some(self.out.span(mark))
    }
}
