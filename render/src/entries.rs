//! The entries of a list being laid out, and what the layout asks of
//! them all.

use super::text::Span;

/// One entry of a list being laid out: a key (objects) and a value.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub(super) key: Option<Span>,
    pub(super) value: Span,
}

impl Entry {
    pub(super) fn units(&self) -> usize {
        self.key.map_or(0, |key| key.units + 2) + self.value.units
    }

    /// Where its text starts: its key's, else its value's.
    pub(super) fn start(&self) -> usize {
        self.key.map_or(self.value.start, |key| key.start)
    }
}

/// The entries of a list being laid out, and what the layout asks of them
/// all, added up as they come: a list is measured once, not walked again
/// for its width (`fits`) and for its text's units (`lines`).
#[derive(Default)]
pub(super) struct Entries {
    list: Vec<Entry>,
    /// Each entry's units ([`Entry::units`]), added up.
    pub(super) units: usize,
    /// Each entry's text, from its start to its value's end, in bytes,
    /// added up.
    pub(super) bytes: usize,
    /// Whether an entry's key or value holds a line break.
    pub(super) newline: bool,
}

impl Entries {
    pub(super) fn clear(&mut self) {
        self.list.clear();
        self.units = 0;
        self.bytes = 0;
        self.newline = false;
    }

    #[inline(always)]
    pub(super) fn push(&mut self, entry: Entry) {
        self.units += entry.units();
        self.bytes += entry.value.end.wrapping_sub(entry.start());
        self.newline |= entry.value.newline || entry.key.is_some_and(|key| key.newline);
        self.list.push(entry);
    }
}

impl std::ops::Deref for Entries {
    type Target = [Entry];

    fn deref(&self) -> &[Entry] {
        &self.list
    }
}
