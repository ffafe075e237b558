//! Node's line breaking and column grouping (layout.js's
//! `reduceToSingleString` and `groupArrayElements`), over spans.

use super::inspect::{Entry, Renderer};
use super::text::Span;

impl Renderer<'_, '_, '_> {
    /// `reduceToSingleString`, writing the joined text over the entries'
    /// bytes (everything from `level` on). `numeric`, for arrays, tells
    /// whether the first `n` elements are all numbers.
    pub(super) fn reduce(
        &mut self,
        level: usize,
        output: &mut Vec<Entry>,
        braces: (&str, &str),
        numeric: Option<&dyn Fn(usize) -> bool>,
        recurse: f64,
    ) -> Option<Span> {
        let entries = output.len();
        if let Some(numeric) = numeric.filter(|_| entries > 6)
            && let Some(rows) = self.group(output, numeric)?
        {
            *output = rows;
        }
        let joined = self.out.buf.len();
        self.out
            .buf
            .reserve(joined - level + output.len() * (self.indentation + 4) + 8);
        let mark = self.out.mark();
        let mut single = false;
        if self.current_depth - recurse < self.options.compact
            && entries == output.len()
            && self.fits(
                output,
                output.len() + self.indentation + braces.0.len() + 10,
            )
            && !output
                .iter()
                .any(|entry| entry.value.newline || entry.key.is_some_and(|key| key.newline))
        {
            single = true;
            self.out.ascii(braces.0);
            self.out.ascii(" ");
            for (i, entry) in output.iter().enumerate() {
                if i > 0 {
                    self.out.ascii(", ");
                }
                entry.write(&mut self.out);
            }
            self.out.ascii(" ");
            self.out.ascii(braces.1);
        }
        if !single {
            self.out.ascii(braces.0);
            for (i, entry) in output.iter().enumerate() {
                if i > 0 {
                    self.out.ascii(",");
                }
                self.out.ascii("\n");
                self.out.spaces(self.indentation + 2);
                entry.write(&mut self.out);
            }
            self.out.ascii("\n");
            self.out.spaces(self.indentation);
            self.out.ascii(braces.1);
            self.out.newline = true;
        }
        let span = self.out.span(mark);
        // The joined text replaces the entries' bytes.
        self.out.buf.drain(level..joined);
        Some(Span {
            start: level,
            end: level + (span.end - span.start),
            ..span
        })
    }

    pub(super) fn fits(&self, output: &[Entry], start: usize) -> bool {
        let break_length = self.options.break_length;
        let mut total = (output.len() + start) as f64;
        if total + output.len() as f64 > break_length {
            return false;
        }
        for entry in output {
            total += entry.units() as f64;
            if total > break_length {
                return false;
            }
        }
        true
    }

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

    /// `groupArrayElements`; `None` when an entry is not ASCII (its
    /// terminal width is JavaScript's to measure).
    pub(super) fn group(
        &mut self,
        output: &[Entry],
        numeric: &dyn Fn(usize) -> bool,
    ) -> Option<Option<Vec<Entry>>> {
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
        for entry in &output[..count] {
            let ascii = entry.value.end - entry.value.start == entry.value.units;
            // ASCII exactly when each unit took one byte; then its width is
            // its length less its line breaks (its only controls).
            let width = if ascii && !entry.value.newline {
                entry.value.units
            } else {
                let text = &self.out.buf.as_bytes()[entry.value.start..entry.value.end];
                if ascii {
                    text.iter().filter(|&&b| b >= 32).count()
                } else {
                    // At least its printable ASCII; measured below if it
                    // matters.
                    text.iter().filter(|b| (0x20..0x7f).contains(*b)).count()
                }
            };
            if width as f64 >= limit {
                return Some(None);
            }
            widths.push(width);
        }
        let mut total = 0.0;
        let mut widest = 0usize;
        for (width, entry) in widths.iter_mut().zip(output) {
            if entry.value.end - entry.value.start != entry.value.units {
                let text = &self.out.buf[entry.value.start..entry.value.end];
                let measure = options.string_width.as_ref()?;
                let measured: f64 = measure.call((text,)).ok()?;
                *width = measured as usize;
            }
            total += (*width + 2) as f64;
            widest = widest.max(*width);
        }
        let Some(columns) = self.columns(widest, total, output.len(), count) else {
            return Some(None);
        };
        let column_widths: Vec<usize> = (0..columns)
            .map(|c| {
                (c..count)
                    .step_by(columns)
                    .map(|j| widths[j])
                    .max()
                    .unwrap_or(0)
                    + 2
            })
            .collect();
        let numeric = numeric(output.len());
        let mut rows = Vec::with_capacity(count / columns + 2);
        let mut i = 0;
        while i < count {
            let end = (i + columns).min(count);
            let mark = self.out.mark();
            for j in i..end {
                let last = j == end - 1;
                let entry = output[j].value;
                let width =
                    column_widths[j - i] + entry.units - widths[j] - if last { 2 } else { 0 };
                let len = entry.units + if last { 0 } else { 2 };
                let fill = width.saturating_sub(len);
                if numeric {
                    self.out.spaces(fill);
                }
                self.out.copy(entry);
                if !last {
                    self.out.ascii(", ");
                    if !numeric {
                        self.out.spaces(fill);
                    }
                }
            }
            rows.push(Entry {
                key: None,
                value: self.out.span(mark),
            });
            i = end;
        }
        rows.extend(output.iter().skip(count).copied());
        Some(Some(rows))
    }
}
