//! The short strings a parse has made, shared by the values that repeat
//! them: a list of records repeats its tags, states and kinds (`'open'`,
//! `'a'`, `'user1'`) in every record, and each was a new string (an
//! allocation, its header and a copy: about 250 units of fuel). A string
//! has no identity in JavaScript, and QuickJS shares string values as it
//! shares any (a string it would change in place, or make an atom of, it
//! checks for other references first), so the value `JSON.parse` gives is
//! the same.

use rquickjs::qjs;

/// How many short strings a parse keeps, by a hash of their text (a power
/// of two).
const KEPT: usize = 64;

/// ASCII text of 1 to 15 bytes as its length and two words, which
/// together hold each of its bytes (the first eight and the last eight,
/// which overlap; or four and four; or the first, middle and last byte).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Short {
    len: u64,
    first: u64,
    last: u64,
}

impl Short {
    /// `bytes` as a key, when they are 1 to 15 bytes of ASCII.
    #[inline]
    pub(super) fn of(bytes: &[u8]) -> Option<Short> {
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let len = bytes.len();
        let word = |at: usize| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(word)
        };
        let half = |at: usize| {
            let mut half = [0u8; 4];
            half.copy_from_slice(&bytes[at..at + 4]);
            u64::from(u32::from_le_bytes(half))
        };
        let (first, last) = match len {
            1..=3 => (
                u64::from(bytes[0])
                    | u64::from(bytes[len / 2]) << 8
                    | u64::from(bytes[len - 1]) << 16,
                0,
            ),
            4..=7 => (half(0), half(len - 4)),
            8..=15 => (word(0), word(len - 8)),
            _ => return None,
        };
        ((first | last) & HIGH == 0).then_some(Short {
            len: len as u64,
            first,
            last,
        })
    }

    fn slot(self) -> usize {
        let hash = (self.first ^ self.len).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ self.last.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        (hash >> 58) as usize % KEPT
    }
}

/// The short strings kept, each with a reference of the parse's own.
pub(super) struct Strings {
    ctx: *mut qjs::JSContext,
    /// Made at the first short string a parse reads.
    kept: Vec<(Short, qjs::JSValue)>,
}

impl Strings {
    pub(super) fn new(ctx: *mut qjs::JSContext) -> Strings {
        Strings {
            ctx,
            kept: Vec::new(),
        }
    }

    /// A new reference to the string kept for `key`, if one is.
    #[inline]
    pub(super) fn get(&self, key: Short) -> Option<qjs::JSValue> {
        let &(kept, value) = self.kept.get(key.slot())?;
        // SAFETY: a string this parse keeps a reference to.
        (kept == key).then(|| unsafe { qjs::JS_DupValue(self.ctx, value) })
    }

    /// Keeps a reference to `value`, the string of `key`, in place of the
    /// one its slot held.
    pub(super) fn keep(&mut self, key: Short, value: qjs::JSValue) {
        if self.kept.is_empty() {
            self.kept = vec![(Short::default(), qjs::JS_UNDEFINED); KEPT];
        }
        // SAFETY: `value` is a live string of the context; the reference
        // replaced is the parse's own, freed once (`undefined` frees
        // nothing).
        unsafe {
            let (_, old) = std::mem::replace(
                &mut self.kept[key.slot()],
                (key, qjs::JS_DupValue(self.ctx, value)),
            );
            qjs::JS_FreeValue(self.ctx, old);
        }
    }
}

impl Drop for Strings {
    fn drop(&mut self) {
        for &(_, value) in &self.kept {
            // SAFETY: the parse's own reference (or `undefined`).
            unsafe { qjs::JS_FreeValue(self.ctx, value) };
        }
    }
}
