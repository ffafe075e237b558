//! Arrays of numbers, formatted once. The JSON walk of a returned value
//! notes, for each array of seven or more finite numbers, where its
//! elements' texts are in the JSON; `util.inspect`'s walk then lays those
//! texts out in Node's columns (`groupArrayElements`, then
//! `reduceToSingleString`'s lines) straight from the JSON, without
//! formatting a number again or keeping an entry per element. JSON and
//! `util.inspect` write a finite number alike, except `-0`, which is not
//! noted.

use std::collections::HashMap;

use super::qjs;

use super::inspect::Renderer;
use super::json::leading_numbers;
use super::text::{Out, Span};
use super::values::{AddressHash, Kind, object_id};

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
    /// `formatList` for an array of numbers that Node groups into
    /// columns: the whole text, written where the array's text starts,
    /// and the room spent as formatting each element shown would have
    /// spent it. The numbers' texts are the returned value's JSON when its
    /// walk noted the array, or else written here once, in a loop of their
    /// own (a console line's array). `None` (nothing written) when an
    /// element shown is not a number written alike by JSON and
    /// `util.inspect`, when the room runs out before the last one shown,
    /// or when the array is not grouped: the general path takes it.
    #[inline(never)]
    pub(super) fn number_columns(
        &mut self,
        value: qjs::JSValue,
        elements: &[qjs::JSValue],
    ) -> Option<Span> {
        let shown = self.shown(elements.len());
        if shown < GROUPED {
            return None;
        }
        // Node's right-alignment (`padStart`) asks whether every element
        // up to the "more items" entry's index is a number: the one after
        // the last shown must be too.
        // SAFETY: reading a value's tag.
        if let Some(&next) = elements.get(shown)
            && !unsafe {
                matches!(
                    qjs::JS_VALUE_GET_NORM_TAG(next),
                    qjs::JS_TAG_INT | qjs::JS_TAG_FLOAT64
                )
            }
        {
            return None;
        }
        let more = elements.len() - shown;
        if let Some((json, arrays)) = self.numbers
            && let Some(&(text, from, to)) = arrays.arrays.get(&object_id(value))
        {
            let lengths = arrays.lengths.get(from..to)?.get(..shown)?;
            let json = json.as_bytes().get(text..)?;
            return self.columns_of_numbers(json, lengths, more);
        }
        // Written as the JSON walk writes them (each but the last followed
        // by a comma), their lengths noted.
        let mut texts = Out::default();
        let mut noted = NumberArrays::default();
        if leading_numbers(&elements[..shown], &mut texts, Some(&mut noted)) < shown {
            return None;
        }
        self.columns_of_numbers(texts.buf.as_bytes(), &noted.lengths, more)
    }

    /// How many of an array's `len` elements are shown: `maxArrayLength`'s
    /// many at most.
    #[inline(always)]
    pub(super) fn shown(&self, len: usize) -> usize {
        // `max(0).min(len)` by comparisons: wasm has no instruction for
        // `f64::max`'s NaN rule, which is a call to libm's `fmax` (a NaN
        // limit shows no element either way).
        let max = self.options.max_array_length;
        let len = len as f64;
        (if max > 0.0 {
            if max < len { max } else { len }
        } else {
            0.0
        }) as usize
    }

    /// The columns of numbers whose texts start `text`, each but the last
    /// followed by one byte, `lengths` long in turn; then, when `more`
    /// elements are not shown, Node's "... more items" line.
    fn columns_of_numbers(&mut self, text: &[u8], lengths: &[u32], more: usize) -> Option<Span> {
        let count = lengths.len();
        let last = *lengths.last()? as usize;
        // Each element is formatted while room is left before it.
        let total: usize = lengths.iter().map(|&len| len as usize).sum();
        if self.room - (total - last) as f64 <= 0.0 {
            return None;
        }
        // `groupArrayElements`, for entries that are ASCII and one line;
        // the "more items" entry is one of the list's entries, but not of
        // its cells.
        let limit = (self.options.break_length - self.indentation as f64) / 3.0 - 2.0;
        let widest = lengths.iter().copied().max()? as usize;
        if widest as f64 >= limit {
            return None;
        }
        let entries = count + usize::from(more > 0);
        let columns = self.columns(widest, (total + 2 * count) as f64, entries, count)?;
        let mut column_widths = [0u32; 15];
        for row in lengths.chunks(columns) {
            for (width, &len) in column_widths.iter_mut().zip(row) {
                *width = (*width).max(len);
            }
        }
        // `reduceToSingleString` with more entries than lines: each line on
        // a line of its own, the numbers right-aligned in their columns.
        let text = text.get(..total + count - 1)?;
        let mut tail = Out::default();
        if more > 0 {
            tail.more(more, " more item");
        }
        let tail = tail.buf.as_bytes();
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
        // first), its indentation and its cells; the "more items" line;
        // the brackets.
        let full_rows = count / columns;
        let last_cells = count % columns;
        let row_bytes = |cells: usize| 1 + indentation + 2 + ends[cells - 1];
        let mut bytes = 1 + full_rows * row_bytes(columns) + (count.div_ceil(columns) - 1);
        if last_cells > 0 {
            bytes += row_bytes(last_cells);
        }
        let tail_bytes = if tail.is_empty() {
            0
        } else {
            2 + indentation + 2 + tail.len()
        };
        bytes += tail_bytes + 1 + indentation + 1;
        self.out.buf.reserve(bytes);
        let mark = self.out.mark();
        // SAFETY: `bytes` are reserved after the text, and each row (and
        // the "more items" line) is checked to fit in what is left of them
        // before it is written. Within a row, a cell's number (`len` bytes,
        // at most its column's width, the widest in the column) is copied
        // to end at its column's end, and a `, ` follows every cell but the
        // last: all within the row's `ends[cells - 1]` bytes, which one
        // fill of spaces covered first. The numbers are read from `text` in
        // turn, each followed by one byte: the lengths add up to `total`,
        // and `text` is `total + count - 1` bytes. Only ASCII is written,
        // so the buffer stays UTF-8; the end is checked reached before the
        // length is set.
        let written = unsafe {
            let buf = self.out.buf.as_mut_vec();
            let start = buf.len();
            let base = buf.as_mut_ptr().add(start);
            let limit = base.add(bytes);
            let source = text.as_ptr();
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
            if !tail.is_empty() {
                assert!(
                    limit as usize - at as usize >= tail_bytes,
                    "a column layout outgrew its count"
                );
                (at as *mut [u8; 2]).write_unaligned(*b",\n");
                std::ptr::write_bytes(at.add(2), b' ', indentation + 2);
                at = at.add(2 + indentation + 2);
                std::ptr::copy_nonoverlapping(tail.as_ptr(), at, tail.len());
                at = at.add(tail.len());
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
