//! Runtime-wide state a run writes, kept once per group of threads.
//!
//! Every run writes some state its runtime holds for all runs: a slot count
//! in its instance pool, the caches of transformed programs and of compiled
//! preambles (a lock, and the reference count of what it takes from them),
//! the count of active runs, the dispose signal's list of listeners, the
//! reference count of the network policy. Kept once per runtime, each of these
//! is a cache line that cores running runs at the same time take from each
//! other on every run. Kept in shards, one per instance pool, with a thread
//! using the shard of its number, a core's runs write lines no other core
//! writes (while the threads are as many as the shards).

use std::ops::Deref;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Numbers threads in the order they first ask for their shard.
static THREADS_SEEN: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static THREAD_NUMBER: usize = THREADS_SEEN.fetch_add(1, Ordering::Relaxed);
}

/// A value on cache lines of its own (two, as some cores fetch lines in
/// adjacent pairs): a core writing it takes no line a neighbour is on.
#[repr(align(128))]
pub(crate) struct Padded<T>(T);

impl<T> Deref for Padded<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// One `T` per shard; a thread's is the shard of its number modulo the
/// count.
pub(crate) struct Sharded<T>(Box<[Padded<T>]>);

impl<T> Sharded<T> {
    /// `count` shards (at least one), each made by `make`.
    pub(crate) fn new(count: usize, mut make: impl FnMut() -> T) -> Self {
        Self((0..count.max(1)).map(|_| Padded(make())).collect())
    }

    /// Like [`new`](Self::new), for a `make` that can fail.
    pub(crate) fn try_new<E>(
        count: usize,
        mut make: impl FnMut() -> Result<T, E>,
    ) -> Result<Self, E> {
        (0..count.max(1))
            .map(|_| make().map(Padded))
            .collect::<Result<_, _>>()
            .map(Self)
    }

    /// Like [`new`](Self::new), from values made already; `None` for none.
    pub(crate) fn from_values(values: Vec<T>) -> Option<Self> {
        (!values.is_empty()).then(|| Self(values.into_iter().map(Padded).collect()))
    }

    /// The number of this thread's shard.
    pub(crate) fn local_index(&self) -> usize {
        THREAD_NUMBER.with(|number| *number) % self.0.len()
    }

    /// This thread's shard.
    pub(crate) fn local(&self) -> &T {
        &self.0[self.local_index()]
    }

    /// The shard numbered `index` (modulo the count).
    pub(crate) fn get(&self, index: usize) -> &T {
        &self.0[index % self.0.len()]
    }

    /// This thread's shard, the ones after it, then the ones before it.
    pub(crate) fn local_first(&self) -> impl Iterator<Item = &T> {
        let (before, onward) = self.0.split_at(self.local_index());
        onward.iter().chain(before).map(|shard| &shard.0)
    }

    /// Every shard, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.0.iter().map(|shard| &shard.0)
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_sit_on_lines_of_their_own() {
        let shards = Sharded::new(3, || AtomicUsize::new(0));
        let addresses: Vec<usize> = shards
            .iter()
            .map(|shard| std::ptr::from_ref(shard) as usize)
            .collect();
        for pair in addresses.windows(2) {
            assert!(pair[1] - pair[0] >= 128, "{addresses:?}");
        }
    }

    #[test]
    fn a_thread_looks_at_its_own_shard_first_then_all_the_others() {
        let mut made = 0..;
        let shards = Sharded::new(4, || made.next().unwrap_or_default());
        let own = shards.local_index();
        assert_eq!(shards.local_index(), own, "a thread keeps its shard");
        assert_eq!(*shards.local(), own);
        let order: Vec<usize> = shards.local_first().copied().collect();
        let expected: Vec<usize> = (0..4).map(|i| (own + i) % 4).collect();
        assert_eq!(order, expected);
        assert_eq!(Sharded::new(0, || ()).len(), 1, "never no shard");
    }
}
