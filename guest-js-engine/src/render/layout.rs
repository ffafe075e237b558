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
        let single = self.current_depth - recurse < self.options.compact
            && entries == output.len()
            && self.fits(
                output,
                output.len() + self.indentation + braces.0.len() + 10,
            );
        let list = List {
            output,
            braces,
            single,
            indentation: self.indentation,
        };
        // The joined text is counted, then written into the room the count
        // reserved (a pointer bumped per piece: no capacity check, no call),
        // then moved over the entries' bytes.
        let mut count = Count::default();
        list.pieces(&mut count);
        self.out.buf.reserve(count.bytes);
        // SAFETY: the entries' spans lie in the text before `joined`; the
        // pieces, the same ones the count added up, fill the `count.bytes`
        // reserved after it (Fill checks each against the end); all are
        // UTF-8 (spans start and end between characters, the rest is
        // ASCII), and the text is moved down over the entries' bytes
        // before the length is set.
        unsafe {
            let buf = self.out.buf.as_mut_vec();
            let joined = buf.len();
            let text = buf.as_mut_ptr();
            let mut fill = Fill::after(buf, count.bytes);
            list.pieces(&mut fill);
            std::ptr::copy(text.add(joined), text.add(level), count.bytes);
            buf.set_len(level + count.bytes);
        }
        self.out.units += count.units;
        self.out.newline = !single;
        Some(Span {
            start: level,
            end: level + count.bytes,
            units: count.units,
            newline: !single,
        })
    }

    /// Whether the entries go on one line: `isBelowBreakLength` from
    /// `start`, and no entry holds a line break (the joined text's
    /// `includes('\n')`).
    pub(super) fn fits(&self, output: &[Entry], start: usize) -> bool {
        let break_length = self.options.break_length;
        let mut total = (output.len() + start) as f64;
        if total + output.len() as f64 > break_length {
            return false;
        }
        for entry in output {
            total += entry.units() as f64;
            if total > break_length
                || entry.value.newline
                || entry.key.is_some_and(|key| key.newline)
            {
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

/// A list's entries joined as `reduceToSingleString` joins them: on one
/// line between the braces, or each on a line of its own.
struct List<'a> {
    output: &'a [Entry],
    braces: (&'a str, &'a str),
    single: bool,
    indentation: usize,
}

impl List<'_> {
    fn pieces(&self, sink: &mut impl Sink) {
        let (open, close) = self.braces;
        let entry = |sink: &mut _, entry: &Entry| {
            if let Some(key) = entry.key {
                Sink::span(sink, key);
                Sink::ascii(sink, b": ");
            }
            Sink::span(sink, entry.value);
        };
        if self.single {
            sink.ascii(open.as_bytes());
            sink.ascii(b" ");
            for (i, item) in self.output.iter().enumerate() {
                if i > 0 {
                    sink.ascii(b", ");
                }
                entry(sink, item);
            }
            sink.ascii(b" ");
            sink.ascii(close.as_bytes());
        } else {
            sink.ascii(open.as_bytes());
            for (i, item) in self.output.iter().enumerate() {
                sink.ascii(if i > 0 { b",\n" } else { b"\n" });
                sink.spaces(self.indentation + 2);
                entry(sink, item);
            }
            sink.ascii(b"\n");
            sink.spaces(self.indentation);
            sink.ascii(close.as_bytes());
        }
    }
}

/// Where a joined list's pieces go: counted, or written.
pub(super) trait Sink {
    /// ASCII text.
    fn ascii(&mut self, text: &[u8]);
    /// `n` spaces.
    fn spaces(&mut self, n: usize);
    /// An earlier span of the output.
    fn span(&mut self, span: Span);
}

/// The bytes and UTF-16 units of the pieces.
#[derive(Default)]
struct Count {
    bytes: usize,
    units: usize,
}

impl Sink for Count {
    fn ascii(&mut self, text: &[u8]) {
        self.bytes += text.len();
        self.units += text.len();
    }

    fn spaces(&mut self, n: usize) {
        self.bytes += n;
        self.units += n;
    }

    fn span(&mut self, span: Span) {
        self.bytes += span.end - span.start;
        self.units += span.units;
    }
}

/// The pieces written from `at` on, up to `end`, into the buffer whose
/// text starts at `text`.
pub(super) struct Fill {
    pub(super) text: *mut u8,
    pub(super) at: *mut u8,
    pub(super) end: *mut u8,
}

impl Fill {
    /// The `bytes` after `buf`'s text, to be written.
    ///
    /// # Safety
    /// `bytes` are reserved after the text, and `buf` is neither moved nor
    /// grown while the fill writes.
    #[inline(always)]
    pub(super) unsafe fn after(buf: &mut Vec<u8>, bytes: usize) -> Fill {
        let start = buf.len();
        let text = buf.as_mut_ptr();
        // SAFETY: within the reservation (the caller's promise).
        unsafe {
            Fill {
                text,
                at: text.add(start),
                end: text.add(start + bytes),
            }
        }
    }

    /// Room for `n` more bytes, else a trap: the count and the writes
    /// disagree, which no input can make happen.
    #[inline(always)]
    fn room(&self, n: usize) {
        assert!(
            (self.end as usize) - (self.at as usize) >= n,
            "a joined list outgrew its count"
        );
    }
}

impl Sink for Fill {
    #[inline(always)]
    fn ascii(&mut self, text: &[u8]) {
        self.room(text.len());
        // SAFETY: room for `text` checked above; the reservation does not
        // overlap the constant.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), self.at, text.len());
            self.at = self.at.add(text.len());
        }
    }

    #[inline(always)]
    fn spaces(&mut self, n: usize) {
        self.room(n);
        // SAFETY: room for `n` bytes checked above.
        unsafe {
            std::ptr::write_bytes(self.at, b' ', n);
            self.at = self.at.add(n);
        }
    }

    #[inline(always)]
    fn span(&mut self, span: Span) {
        let n = span.end - span.start;
        self.room(n);
        // SAFETY: the span is text before the reservation that `at` writes
        // into, so the two do not overlap; room for it checked above.
        unsafe {
            std::ptr::copy_nonoverlapping(self.text.add(span.start), self.at, n);
            self.at = self.at.add(n);
        }
    }
}
