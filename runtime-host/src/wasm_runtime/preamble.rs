//! A request's preamble, compiled to QuickJS bytecode once per text and
//! kept, so that no run pays for compiling it or burns fuel on it.

use std::sync::Arc;

use wasmtime::Store;

use super::{WasmCodeRuntime, pace};
use crate::clock::{Clock, RunClock};
use crate::durable::Ledger;
use crate::egress::RunEgress;
use crate::engine::Pool;
use crate::failure::{self, CodeRunFailure};
use crate::memory::MemoryLimiter;
use crate::store::RunState;

/// The most preambles a runtime keeps compiled; past it the cache starts
/// over (an embedder has one or a few).
const MAX_CACHED_PREAMBLES: usize = 16;

impl WasmCodeRuntime {
    /// `text`'s bytecode if it is compiled already.
    pub(super) fn cached_preamble(&self, text: &str) -> Option<Arc<[u8]>> {
        self.inner
            .preambles
            .local()
            .lock()
            .ok()
            .and_then(|cache| cache.get(text).cloned())
    }

    /// `text`'s bytecode: from the cache, or compiled by the guest in an
    /// instance of its own, under the run's limits (fuel, memory) but not
    /// counted in the run's fuel, which so stays the same for a preamble
    /// met for the first time and one met before. It is compiled in the
    /// run's `pool`, on the slot the run holds there.
    pub(super) async fn compiled_preamble(
        &self,
        text: &str,
        pool: &Pool,
    ) -> Result<Arc<[u8]>, CodeRunFailure> {
        let inner = &*self.inner;
        // Kept in the shard it was looked for in, wherever the task is
        // when the compile ends.
        let shard = inner.preambles.local_index();
        if let Some(bytecode) = self.cached_preamble(text) {
            return Ok(bytecode);
        }
        let max_memory = inner.config.get_max_memory_bytes();
        let mut store = Store::new(
            &pool.engine,
            RunState::new(
                &inner.config,
                MemoryLimiter::probe(max_memory),
                (Arc::from([]), Vec::new()),
                (Ledger::live(false, 0), RunClock::new(Clock::Real), 0),
                RunEgress::new(inner.network.local().clone()),
            ),
        );
        store.limiter(|state| &mut state.limiter);
        let fuel = inner.config.get_fuel();
        let _pacing = inner.guest.ticker.as_ref().map(|ticker| ticker.pace());
        if let Err(error) = pace(&mut store, inner.config.get_fuel_metering(), fuel) {
            return Err(failure::sandbox_not_started(&error));
        }
        let compiled = async {
            let guest = pool.pre.instantiate_async(&mut store).await?;
            guest
                .coderun_sandbox_program()
                .call_compile_preamble(&mut store, text)
                .await
        }
        .await;
        match compiled {
            Ok(Ok(bytecode)) => {
                let bytecode: Arc<[u8]> = bytecode.into();
                if let Ok(mut cache) = inner.preambles.get(shard).lock() {
                    if cache.len() >= MAX_CACHED_PREAMBLES {
                        cache.clear();
                    }
                    cache.insert(text.to_owned(), Arc::clone(&bytecode));
                }
                Ok(bytecode)
            }
            Ok(Err(message)) => Err(failure::exception(format!(
                "the request's preamble does not compile: {message}"
            ))),
            Err(error) => Err(failure::classify(&error, fuel, max_memory)),
        }
    }
}
