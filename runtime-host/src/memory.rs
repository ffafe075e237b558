//! Memory: each run's cap, and the budget all of a runtime's runs share.
//!
//! Every run's linear memory is capped by `config.max_memory_bytes`; a guest
//! that tries to grow past it is stopped (QuickJS would otherwise turn the
//! refused growth into a catchable error). On top of that the runtime holds
//! one [`MemoryBudget`] for all its runs (`config.max_total_memory_bytes`):
//! a run is admitted only once the memory its guest starts with fits (it
//! waits, within its wall clock, for other runs to end), and a running guest
//! whose growth would take the total past the budget is stopped as well.
//! Runs never wait for memory once they run, so no set of runs can deadlock
//! waiting for each other's memory.

use std::sync::Mutex;

use tokio::sync::Notify;
use wasmtime::ResourceLimiter;

use crate::failure::{MemoryCapExceeded, TotalMemoryExceeded};

/// Table growth a guest may ask for.
pub(crate) const MAX_TABLE_ELEMENTS: usize = 100_000;

/// Linear memory shared by all of a runtime's runs.
#[derive(Debug)]
pub(crate) struct MemoryBudget {
    limit: u64,
    /// Bytes held now, the most ever held at once, and the admissions
    /// waiting for room.
    used: Mutex<Usage>,
    /// Notified when memory is released while an admission waits.
    freed: Notify,
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Usage {
    pub(crate) now: u64,
    pub(crate) peak: u64,
    /// Admissions waiting on `freed`. A release notifies them only when
    /// there are any: the waiters' list is shared by every core, and a run
    /// that is admitted at once (the usual case) never touches it.
    waiting: usize,
}

impl Usage {
    /// Takes `bytes` if they fit under `limit`.
    fn reserve(&mut self, bytes: u64, limit: u64) -> bool {
        match self.now.checked_add(bytes) {
            Some(total) if total <= limit => {
                self.now = total;
                self.peak = self.peak.max(total);
                true
            }
            _ => false,
        }
    }
}

impl MemoryBudget {
    pub(crate) fn new(limit: u64) -> Self {
        Self {
            limit,
            used: Mutex::new(Usage::default()),
            freed: Notify::new(),
        }
    }

    /// The budget, in bytes.
    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    /// What the runs hold now, and the most they ever held at once.
    pub(crate) fn usage(&self) -> Usage {
        *self.used()
    }

    fn used(&self) -> std::sync::MutexGuard<'_, Usage> {
        // Every update is one arithmetic step: a panic cannot leave it torn.
        self.used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes `bytes` from the budget if they fit.
    fn try_reserve(&self, bytes: u64) -> bool {
        self.used().reserve(bytes, self.limit)
    }

    fn release(&self, bytes: u64) {
        if bytes == 0 {
            return;
        }
        let waiting = {
            let mut used = self.used();
            used.now = used.now.saturating_sub(bytes);
            used.waiting > 0
        };
        if waiting {
            self.freed.notify_waiters();
        }
    }

    /// Takes `bytes` if they fit now, without waiting.
    pub(crate) fn try_admit(&self, bytes: u64) -> Option<Admission<'_>> {
        self.try_reserve(bytes).then_some(Admission {
            budget: self,
            bytes,
        })
    }

    /// Waits until `bytes` fit, then takes them. Cancelling it takes nothing.
    pub(crate) async fn admit(&self, bytes: u64) -> Admission<'_> {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            {
                let mut used = self.used();
                if used.reserve(bytes, self.limit) {
                    return Admission {
                        budget: self,
                        bytes,
                    };
                }
                // Counted and listening before the lock is let go: a release
                // after it sees the count and wakes this admission.
                used.waiting += 1;
                freed.as_mut().enable();
            }
            let _waiting = Waiting(self);
            freed.await;
        }
    }
}

/// An admission waiting for room, counted in [`Usage::waiting`] until it
/// is woken or cancelled.
struct Waiting<'a>(&'a MemoryBudget);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut used = self.0.used();
        used.waiting = used.waiting.saturating_sub(1);
    }
}

/// Memory a run was admitted with, until its guest takes it over.
pub(crate) struct Admission<'a> {
    budget: &'a MemoryBudget,
    bytes: u64,
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        self.budget.release(self.bytes);
    }
}

impl Admission<'_> {
    /// Hands the admitted memory to the run's limiter, which releases it
    /// (and whatever it reserves later) when the run's store is dropped.
    pub(crate) fn into_limiter(
        mut self,
        budget: std::sync::Arc<MemoryBudget>,
        max_bytes: u64,
    ) -> MemoryLimiter {
        let allowance = std::mem::take(&mut self.bytes);
        MemoryLimiter {
            max_bytes,
            budget: Some(budget),
            allowance,
            held: allowance,
            created: 0,
            peak: 0,
        }
    }
}

/// One run's view of memory: its own cap, and its share of the budget.
pub(crate) struct MemoryLimiter {
    max_bytes: u64,
    /// `None` for a limiter that only measures (see [`MemoryLimiter::probe`]).
    budget: Option<std::sync::Arc<MemoryBudget>>,
    /// Admitted bytes no memory has used yet.
    allowance: u64,
    /// Bytes this run holds of the budget.
    held: u64,
    /// Bytes the guest's memories were created with.
    created: u64,
    /// The largest size a memory of the guest grew to.
    peak: u64,
}

impl MemoryLimiter {
    /// A limiter with no budget, to measure what a guest starts with.
    pub(crate) fn probe(max_bytes: u64) -> Self {
        Self {
            max_bytes,
            budget: None,
            allowance: 0,
            held: 0,
            created: 0,
            peak: 0,
        }
    }

    /// The largest size, in bytes, a linear memory of the guest reached.
    pub(crate) fn peak_bytes(&self) -> u64 {
        self.peak
    }

    /// The bytes the guest's memories were created with.
    pub(crate) fn created_bytes(&self) -> u64 {
        self.created
    }
}

impl Drop for MemoryLimiter {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.release(self.held);
        }
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let (current, desired) = (current as u64, desired as u64);
        if desired > self.max_bytes {
            return Err(MemoryCapExceeded.into());
        }
        if current == 0 {
            self.created += desired;
        }
        let mut need = desired.saturating_sub(current);
        let from_allowance = need.min(self.allowance);
        self.allowance -= from_allowance;
        need -= from_allowance;
        if let Some(budget) = &self.budget
            && need > 0
        {
            if !budget.try_reserve(need) {
                return Err(TotalMemoryExceeded {
                    budget: budget.limit(),
                }
                .into());
            }
            self.held += need;
        }
        self.peak = self.peak.max(desired);
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }
}

/// Half the machine's physical memory, or 4 GiB where it cannot be read.
pub(crate) fn default_budget() -> u64 {
    const FALLBACK: u64 = 4 * 1024 * 1024 * 1024;
    physical_memory().map_or(FALLBACK, |bytes| bytes / 2)
}

fn physical_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const MIB: u64 = 1024 * 1024;

    #[tokio::test]
    async fn growth_past_the_budget_fails_and_release_makes_room() {
        let budget = Arc::new(MemoryBudget::new(10 * MIB));
        let a = budget.admit(4 * MIB).await;
        let mut first = a.into_limiter(budget.clone(), 100 * MIB);
        assert!(first.memory_growing(0, 4 * MIB as usize, None).unwrap());
        assert!(
            first
                .memory_growing(4 * MIB as usize, 8 * MIB as usize, None)
                .unwrap()
        );
        let b = budget.admit(2 * MIB).await;
        let mut second = b.into_limiter(budget.clone(), 100 * MIB);
        assert!(second.memory_growing(0, 2 * MIB as usize, None).unwrap());
        let error = second
            .memory_growing(2 * MIB as usize, 3 * MIB as usize, None)
            .unwrap_err();
        assert!(error.is::<TotalMemoryExceeded>());
        drop(first);
        assert!(
            second
                .memory_growing(2 * MIB as usize, 3 * MIB as usize, None)
                .unwrap()
        );
        drop(second);
        assert_eq!(budget.usage().now, 0);
        assert_eq!(budget.usage().peak, 10 * MIB);
    }

    #[tokio::test]
    async fn admission_waits_until_memory_is_released() {
        let budget = Arc::new(MemoryBudget::new(10 * MIB));
        let held = budget.admit(8 * MIB).await;
        let waiting = {
            let budget = budget.clone();
            tokio::spawn(async move {
                let _admitted = budget.admit(4 * MIB).await;
            })
        };
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        drop(held);
        waiting.await.unwrap();
        assert_eq!(budget.usage().now, 0);
    }

    #[test]
    fn the_own_cap_comes_first() {
        let mut limiter = MemoryLimiter::probe(8 * MIB);
        assert!(limiter.memory_growing(0, 4 * MIB as usize, None).unwrap());
        assert_eq!(limiter.created_bytes(), 4 * MIB);
        let error = limiter
            .memory_growing(4 * MIB as usize, 9 * MIB as usize, None)
            .unwrap_err();
        assert!(error.is::<MemoryCapExceeded>());
    }

    #[test]
    fn the_default_budget_is_half_the_machine() {
        let budget = default_budget();
        assert!(budget >= MIB, "{budget}");
    }
}
