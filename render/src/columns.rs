//! Node's grouping of an array's entries into columns (layout.js's
//! `groupArrayElements`), then its lines.

use super::entries::Entry;
use super::inspect::Renderer;
use super::layout::Sink;
use super::text::Span;

impl Renderer<'_, '_> {
    /// `groupArrayElements`' number of columns for `count` entries whose
    /// widest is `widest` columns wide and whose cells (each entry's width
    /// plus 2) add up to `total` over `entries` output entries; `None` when
    /// Node does not group them.
    pub(super) fn columns(
        &self,
        widest: usize,
        total: f64,
        entries: usize,
        count: usize,
    ) -> Option<usize> {
        let options = self.options;
        let cell = (widest + 2) as f64;
        let indentation = self.indentation as f64;
        if cell * 3.0 + indentation >= options.break_length || !(total / cell > 5.0 || widest <= 6)
        {
            return None;
        }
        let bias = (cell - total / entries as f64).sqrt();
        let biased = (cell - 3.0 - bias).max(1.0);
        let columns = ((2.5 * biased * count as f64).sqrt() / biased + 0.5)
            .floor()
            .min(((options.break_length - indentation) / cell).floor())
            .min(options.compact * 4.0)
            .min(15.0);
        (!columns.is_nan() && columns > 1.0).then_some(columns as usize)
    }

    /// `groupArrayElements`, then `reduceToSingleString`'s lines for the
    /// rows it made (grouped rows are never joined on one line), written
    /// over the entries' bytes from `level` on. `Some(None)` (nothing
    /// written) when Node does not group the entries; `None` when an
    /// entry's terminal width could not be measured.
    pub(super) fn grid(
        &mut self,
        level: usize,
        output: &[Entry],
        braces: (&str, &str),
        numeric: &dyn Fn(usize) -> bool,
    ) -> Option<Option<Span>> {
        let options = self.options;
        let mut count = output.len();
        if options.max_array_length < output.len() as f64 {
            count -= 1;
        }
        // Columns need every entry narrower than a third of the line: an
        // entry that is surely wider (its printable ASCII alone is) means
        // no grouping, whatever the others measure.
        let limit = (options.break_length - self.indentation as f64) / 3.0 - 2.0;
        let mut widths = Vec::with_capacity(count);
        let mut measure = false;
        let (mut total, mut widest) = (0usize, 0usize);
        for entry in &output[..count] {
            let value = entry.value;
            let ascii = value.end - value.start == value.units;
            // ASCII exactly when each unit took one byte; then its width is
            // its length less its line breaks (its only controls).
            let width = if ascii && !value.newline {
                value.units
            } else {
                let text = &self.out.buf.as_bytes()[value.start..value.end];
                if ascii {
                    text.iter().filter(|&&b| b >= 32).count()
                } else {
                    // At least its printable ASCII; measured below.
                    measure = true;
                    text.iter().filter(|b| (0x20..0x7f).contains(*b)).count()
                }
            };
            if width as f64 >= limit {
                return Some(None);
            }
            widths.push(width);
            total += width + 2;
            widest = widest.max(width);
        }
        if measure {
            // An entry measured as wide as the limit means no grouping, as
            // above: measuring stops there (`limit` is a count of columns,
            // whole; a NaN one stops nothing).
            let cap = if limit.is_nan() {
                usize::MAX
            } else {
                limit.max(0.0).ceil() as usize
            };
            for (width, entry) in widths.iter_mut().zip(output) {
                if entry.value.end - entry.value.start != entry.value.units {
                    let text = &self.out.buf[entry.value.start..entry.value.end];
                    let measured = super::width::width_of_text(self.ctx, text, cap)?;
                    if measured as f64 >= limit {
                        return Some(None);
                    }
                    // The layout counts on no entry being wider than its
                    // UTF-8 (a character two columns at most, and at least
                    // three bytes then): any other answer leaves the value
                    // to JavaScript.
                    if measured > text.len() {
                        return None;
                    }
                    *width = measured;
                }
            }
            (total, widest) = (0, 0);
            for &width in &widths {
                total += width + 2;
                widest = widest.max(width);
            }
        }
        let Some(columns) = self.columns(widest, total as f64, output.len(), count) else {
            return Some(None);
        };
        // Each column's widest entry plus 2 (`maxLineLength`).
        let mut column_widths = [0usize; 15];
        for row in widths.chunks(columns) {
            for (column, &width) in column_widths.iter_mut().zip(row) {
                *column = (*column).max(width);
            }
        }
        for column in &mut column_widths {
            *column += 2;
        }
        // Numbers are right-aligned in their columns (`padStart`), other
        // entries left-aligned (`padEnd`), each padded to its column's
        // width but the last of a row.
        let numeric = numeric(output.len());
        let indentation = self.indentation;
        // The text's length, counted first, so that it is written through
        // a bumped pointer into one reservation. A cell takes its column's
        // width plus the bytes its entry has beyond its terminal width;
        // a row's last cell is not padded after (nor followed by ", ").
        let mut bytes = braces.0.len() + 1 + indentation + braces.1.len();
        for (entry, &width) in output.iter().zip(&widths) {
            bytes += entry.value.end - entry.value.start - width;
        }
        for (r, row) in widths.chunks(columns).enumerate() {
            let last = row.len() - 1;
            let cells = column_widths[..last].iter().sum::<usize>()
                + if numeric {
                    column_widths[last] - 2
                } else {
                    row[last]
                };
            bytes += usize::from(r > 0) + 1 + indentation + 2 + cells;
        }
        for entry in &output[count..] {
            bytes += 2 + indentation + 2 + entry.value.end - entry.value.start;
        }
        // All but the entries is ASCII: one unit a byte.
        let units = bytes
            - output
                .iter()
                .map(|entry| entry.value.end - entry.value.start - entry.value.units)
                .sum::<usize>();
        self.write_over(level, bytes, |fill| {
            fill.ascii(braces.0.as_bytes());
            for (r, (row, row_widths)) in output[..count]
                .chunks(columns)
                .zip(widths.chunks(columns))
                .enumerate()
            {
                fill.ascii(if r > 0 { b",\n" } else { b"\n" });
                fill.spaces(indentation + 2);
                let last = row.len() - 1;
                for (c, (entry, &width)) in row.iter().zip(row_widths).enumerate() {
                    let pad = column_widths[c] - width - 2;
                    if numeric {
                        fill.spaces(pad);
                    }
                    fill.span(entry.value);
                    if c < last {
                        fill.ascii(b", ");
                        if !numeric {
                            fill.spaces(pad);
                        }
                    }
                }
            }
            for entry in &output[count..] {
                fill.ascii(b",\n");
                fill.spaces(indentation + 2);
                fill.span(entry.value);
            }
            fill.ascii(b"\n");
            fill.spaces(indentation);
            fill.ascii(braces.1.as_bytes());
        });
        self.out.units += units;
        self.out.newline = true;
        Some(Some(Span {
            start: level,
            end: level + bytes,
            units,
            newline: true,
        }))
    }
}
