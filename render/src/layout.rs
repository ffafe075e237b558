//! Node's line breaking (layout.js's `reduceToSingleString`), over spans;
//! its grouping of arrays into columns is in `columns.rs`.

use super::entries::{Entries, Entry};
use super::inspect::Renderer;
use super::text::Span;

impl Renderer<'_, '_> {
    /// `reduceToSingleString`, writing the joined text over the entries'
    /// bytes (everything from `level` on). `numeric`, for arrays, tells
    /// whether the first `n` elements are all numbers: an array of more
    /// than six entries may be grouped into columns first. `joined` says
    /// the entries were written as they go on one line (the opening brace
    /// and a space at `level`, then the entries separated by `, `, with
    /// `: ` after each key), so that a list that fits there (most lists
    /// of a few scalars) needs only its closing brace.
    pub(super) fn reduce(
        &mut self,
        level: usize,
        output: &mut Entries,
        braces: (&str, &str),
        joined: bool,
        numeric: Option<&dyn Fn(usize) -> bool>,
        recurse: f64,
    ) -> Option<Span> {
        if let Some(numeric) = numeric.filter(|_| output.len() > 6)
            && let Some(span) = self.grid(level, output, braces, numeric)?
        {
            return Some(span);
        }
        // The units of the list on one line, when it goes on one.
        let single = if self.current_depth - recurse < self.options.compact {
            self.fits(
                output,
                output.len() + self.indentation + braces.0.len() + 10,
            )
            .map(|units| braces.0.len() + braces.1.len() + 2 * output.len() + units)
        } else {
            None
        };
        if let Some(units) = single.filter(|_| joined) {
            self.out.ascii(" ");
            self.out.ascii(braces.1);
            self.out.newline = false;
            return Some(Span {
                start: level,
                end: self.out.buf.len(),
                units,
                newline: false,
            });
        }
        if single.is_none() {
            return Some(self.lines(level, output, braces, joined));
        }
        let list = List { output, braces };
        // The joined text is counted, then written into the room the count
        // reserved (a pointer bumped per piece: no capacity check, no call),
        // then moved over the entries' bytes.
        let mut count = Count::default();
        list.pieces(&mut count);
        self.write_over(level, count.bytes, |fill| list.pieces(fill));
        self.out.units += count.units;
        self.out.newline = false;
        Some(Span {
            start: level,
            end: level + count.bytes,
            units: count.units,
            newline: false,
        })
    }

    /// `reduceToSingleString`'s list of one entry a line, laid out in
    /// place from `level` on. Each entry's text (a key, `: ` and its
    /// value, or a value) lies in one piece, and the entries lie one after
    /// the other (separated by `, ` after the opening brace and a space
    /// when `joined`), so the text's length is known without a pass over
    /// them. Every entry ends up at or after where it is (its line break
    /// and indentation take at least the room of the `, ` or the brace
    /// before it), so they are moved there from the last to the first,
    /// each once, and the breaks written in the room between them: no
    /// entry is copied twice (a copy costs fuel by the byte).
    fn lines(
        &mut self,
        level: usize,
        output: &Entries,
        (open, close): (&str, &str),
        joined: bool,
    ) -> Span {
        let n = output.len();
        let indentation = self.indentation;
        let written = self.out.buf.len() - level;
        let entries = if joined {
            written - (open.len() + 1) - 2 * n.saturating_sub(1)
        } else {
            written
        };
        // The opening brace; each entry after a line break (and a comma
        // after the first) and its indentation; the closing brace on a
        // line of its own.
        let bytes = open.len()
            + entries
            + n * (1 + indentation + 2)
            + n.saturating_sub(1)
            + 1
            + indentation
            + close.len();
        // The entries' text is checked to add up to what the count took for
        // it (and each entry, below, to lie in the list's): then every
        // place the layout steps back to lies between the opening brace
        // and the end. Its bytes beyond its units are its characters of
        // more than one byte.
        assert!(output.bytes == entries, "a list missed its count");
        let units = bytes - (output.bytes - output.units);
        self.out.buf.reserve(bytes - written);
        // SAFETY: the buffer holds `level + bytes` bytes (reserved above)
        // and is not moved while they are written. The pieces written
        // from the end back (the closing line; each entry, its
        // indentation and its line break) are the ones `bytes` counts,
        // with the entries' lengths checked above to add up to their
        // share, so each lies after the opening brace and before the end,
        // and the walk ends where the brace does (checked). An entry is
        // moved (with `copy`, which allows overlap) from its text, checked
        // first to lie in the list's, to its place, from the last to the
        // first; its place starts at or after where it lies (its line
        // break and indentation take at least the room of what preceded
        // it), so no entry is overwritten before it is moved: the break
        // before entry `i` starts where entry `i - 1` ends once moved, at
        // or after where it ends before. What is written is UTF-8: ASCII,
        // and the entries' text, which starts and ends between characters.
        unsafe {
            let buf = self.out.buf.as_mut_vec();
            let text = buf.as_mut_ptr();
            let total = level + bytes;
            assert!(total <= buf.capacity(), "a list missed its count");
            let put = |at: usize, piece: &[u8]| {
                std::ptr::copy_nonoverlapping(piece.as_ptr(), text.add(at), piece.len());
            };
            // From the end: the closing line, then each entry and the line
            // break and indentation before it.
            let mut end = total - close.len();
            put(end, close.as_bytes());
            end -= indentation;
            std::ptr::write_bytes(text.add(end), b' ', indentation);
            end -= 1;
            put(end, b"\n");
            for (i, entry) in output.iter().enumerate().rev() {
                let start = entry.start();
                assert!(
                    level <= start
                        && start <= entry.value.end
                        && entry.value.end <= level + written,
                    "a list's entry lies outside it"
                );
                let len = entry.value.end - start;
                end -= len;
                std::ptr::copy(text.add(start), text.add(end), len);
                end -= indentation + 2;
                std::ptr::write_bytes(text.add(end), b' ', indentation + 2);
                if i > 0 {
                    end -= 2;
                    put(end, b",\n");
                } else {
                    end -= 1;
                    put(end, b"\n");
                }
            }
            assert!(end == level + open.len(), "a list missed its count");
            put(level, open.as_bytes());
            buf.set_len(total);
        }
        self.out.units += units;
        self.out.newline = true;
        Span {
            start: level,
            end: level + bytes,
            units,
            newline: true,
        }
    }

    /// Writes a list's `bytes` of laid-out text through `write`, after
    /// the output's text (so that it can copy the entries' spans from
    /// there), then moves it down over everything from `level` on.
    pub(super) fn write_over(&mut self, level: usize, bytes: usize, write: impl FnOnce(&mut Fill)) {
        self.out.buf.reserve(bytes);
        // SAFETY: `bytes` are reserved after the text, and the buffer is
        // neither moved nor grown while `write` fills them (Fill checks
        // each piece against the end, and the end is checked reached);
        // what it writes is UTF-8 (spans of the text, which start and end
        // between characters, and ASCII); it is moved down over the bytes
        // from `level` on before the length is set.
        unsafe {
            let buf = self.out.buf.as_mut_vec();
            let end = buf.len();
            let text = buf.as_mut_ptr();
            let mut fill = Fill::after(buf, bytes);
            write(&mut fill);
            assert!(fill.at == fill.end, "a list missed its count");
            std::ptr::copy(text.add(end), text.add(level), bytes);
            buf.set_len(level + bytes);
        }
    }

    /// Whether the entries go on one line: `isBelowBreakLength` from
    /// `start`, and no entry holds a line break (the joined text's
    /// `includes('\n')`). `Some` of the entries' units when they do.
    pub(super) fn fits(&self, output: &Entries, start: usize) -> Option<usize> {
        let break_length = self.options.break_length;
        // A NaN break length takes every list on one line: `>` against it
        // is false, in JavaScript too.
        if (2 * output.len() + start) as f64 > break_length
            || (output.len() + start + output.units) as f64 > break_length
            || output.newline
        {
            return None;
        }
        Some(output.units)
    }
}

/// A list's entries joined on one line between the braces, as
/// `reduceToSingleString` joins them, from entries that were not written
/// joined.
struct List<'a> {
    output: &'a [Entry],
    braces: (&'a str, &'a str),
}

impl List<'_> {
    fn pieces(&self, sink: &mut impl Sink) {
        let (open, close) = self.braces;
        sink.ascii(open.as_bytes());
        sink.ascii(b" ");
        for (i, entry) in self.output.iter().enumerate() {
            if i > 0 {
                sink.ascii(b", ");
            }
            if let Some(key) = entry.key {
                sink.span(key);
                sink.ascii(b": ");
            }
            sink.span(entry.value);
        }
        sink.ascii(b" ");
        sink.ascii(close.as_bytes());
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
