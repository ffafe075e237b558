//! Which of the guest's functions short runs call through QuickJS's table:
//! the probe behind `make hot-functions` (see `xtask/src/hot.rs`), not an
//! example of the library's use.
//!
//! wasmtime writes a function's `VMFuncRef` into the instance's `VMContext`
//! the first time the function is called through the table. This runs a few
//! kinds of short program through the runtime and, as each run's instance
//! is freed, reads which entries of its `VMContext` were written. The
//! `VMContext` is found by its size (the only allocation of the run at
//! least `32 × escaped` bytes and less than 8 KiB past that), zeroed when
//! allocated, so that what is non-zero when it is freed was written in the
//! run. Where the entries start is read from the entries themselves: a
//! defined function's entry ends with its instance's `VMContext` address,
//! which gives their alignment, and of the positions left, exactly one
//! must show the `run` and `cabi_realloc` exports called and
//! `initialize` and `compile-preamble` not.
//!
//! Usage (xtask passes these, read from the artifact):
//! `hot_functions ESCAPED RUN CABI_REALLOC INITIALIZE COMPILE_PREAMBLE`,
//! the count of escaped functions and four escape indices. Prints one line
//! per entry written, `INDEX PROGRAMS` (how many of the programs wrote it),
//! and fails if any instance's entries could not be placed.
#![allow(
    unsafe_code,
    reason = "a global allocator that reads the blocks wasmtime frees"
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use coderun_runtime::{
    CodeBindingNamespace, CodeRunRequest, CodeRuntime, RuntimeConfig, WasmCodeRuntime,
};
use serde_json::json;

/// The most entries read (QuickJS's table holds about 700).
const MAX_ESCAPED: usize = 4096;

/// What the allocator hook reads, set before the runs.
static ESCAPED: AtomicUsize = AtomicUsize::new(0);
static SIGNATURE: [AtomicUsize; 4] = [const { AtomicUsize::new(0) }; 4];
static WATCHING: AtomicBool = AtomicBool::new(false);
/// Entries written by the current program's runs.
static WRITTEN: [AtomicBool; MAX_ESCAPED] = [const { AtomicBool::new(false) }; MAX_ESCAPED];
static READ: AtomicUsize = AtomicUsize::new(0);
static UNPLACED: AtomicUsize = AtomicUsize::new(0);

struct Probe;

fn watched(size: usize) -> bool {
    let escaped = ESCAPED.load(Relaxed);
    WATCHING.load(Relaxed) && escaped > 0 && (32 * escaped..32 * escaped + 8192).contains(&size)
}

// SAFETY: every call goes to the system allocator with the same layout; the
// hook only zeroes and reads the block it was given.
unsafe impl GlobalAlloc for Probe {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, passed on.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() && watched(layout.size()) {
            // SAFETY: the block just allocated, `layout.size()` bytes.
            unsafe { std::ptr::write_bytes(block, 0, layout.size()) };
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        if watched(layout.size()) {
            // SAFETY: the block being freed, still allocated.
            read(unsafe { std::slice::from_raw_parts(block, layout.size()) });
        }
        // SAFETY: the caller's block and layout, passed on.
        unsafe { System.dealloc(block, layout) }
    }
}

#[global_allocator]
static PROBE: Probe = Probe;

/// Notes the entries a freed `VMContext` had written (allocating nothing:
/// this runs inside the allocator).
fn read(block: &[u8]) {
    let escaped = ESCAPED.load(Relaxed);
    let word = |at: usize| u64::from_le_bytes(block[at..at + 8].try_into().unwrap_or_default());
    let (low, high) = (
        block.as_ptr() as u64,
        block.as_ptr() as u64 + block.len() as u64,
    );
    // The instance's own address: the most frequent word pointing into the
    // block.
    let mut counts = [(0u64, 0usize); 8];
    for at in (0..block.len() - 7).step_by(8) {
        let value = word(at);
        if !(low..high).contains(&value) {
            continue;
        }
        if let Some(slot) = counts.iter_mut().find(|(v, n)| *v == value || *n == 0) {
            *slot = (value, slot.1 + 1);
        }
    }
    let Some(&(own, _)) = counts.iter().max_by_key(|(_, n)| *n) else {
        UNPLACED.fetch_add(1, Relaxed);
        return;
    };
    // The entries' alignment: where most words holding that address are,
    // 24 bytes into an entry.
    let mut phases = [0usize; 4];
    for at in (24..block.len() - 7).step_by(8) {
        if word(at) == own {
            phases[(at - 24) % 32 / 8] += 1;
        }
    }
    let phase = (0..4).max_by_key(|&p| phases[p]).unwrap_or_default() * 8;
    let written = |start: usize, index: usize| {
        block[start + 32 * index..start + 32 * index + 32]
            .iter()
            .any(|&b| b != 0)
    };
    let [run, realloc, initialize, preamble] = SIGNATURE.each_ref().map(|s| s.load(Relaxed));
    let mut placed = None;
    let mut start = phase;
    while start + 32 * escaped <= block.len() {
        if written(start, run)
            && written(start, realloc)
            && !written(start, initialize)
            && !written(start, preamble)
        {
            if placed.is_some() {
                UNPLACED.fetch_add(1, Relaxed);
                return;
            }
            placed = Some(start);
        }
        start += 32;
    }
    let Some(start) = placed else {
        UNPLACED.fetch_add(1, Relaxed);
        return;
    };
    for (index, flag) in WRITTEN.iter().enumerate().take(escaped) {
        if written(start, index) {
            flag.store(true, Relaxed);
        }
    }
    READ.fetch_add(1, Relaxed);
}

fn tools() -> CodeBindingNamespace {
    CodeBindingNamespace::new("tools")
        .function("echo", |args| async move { Ok(args) })
        .function("list", |args| async move {
            let page = args["page"].as_u64().unwrap_or(0);
            let items: Vec<_> = (page * 100..page * 100 + 100)
                .map(|id| json!({ "id": id, "state": if id % 3 == 0 { "closed" } else { "open" }, "labels": ["bug"], "comments": id * 7 % 13 }))
                .collect();
            Ok(json!({ "items": items, "next": (page < 9).then_some(page + 1) }))
        })
}

/// Short programs of the kinds the benchmarks and agents run: the cold
/// run, the parked run, the typical agent program, and everyday builtins.
const PROGRAMS: [&str; 4] = [
    "return 1 + 1",
    "return await tools.echo(1)",
    include_str!("../benches/peers/programs/typical.ts"),
    "const rows = [3, 1, 2].map((n) => ({ n, name: `row ${n}`, tags: ['a', 'b'] }));\n\
     rows.sort((a, b) => a.n - b.n);\n\
     const text = JSON.stringify(rows.filter((r) => r.n > 1));\n\
     console.log(Object.keys(rows[0]).join(','), Math.max(...rows.map((r) => r.n)));\n\
     const words = 'a b c'.split(' ').map((w) => w.toUpperCase());\n\
     return { count: JSON.parse(text).length, words, found: words.includes('B'), at: new Date(0).toISOString(), fixed: (2 / 3).toFixed(2) };",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|arg| arg.parse())
        .collect::<Result<_, _>>()?;
    let [escaped, run, realloc, initialize, preamble] = args[..] else {
        return Err(
            "usage: hot_functions ESCAPED RUN CABI_REALLOC INITIALIZE COMPILE_PREAMBLE".into(),
        );
    };
    if escaped > MAX_ESCAPED
        || [run, realloc, initialize, preamble]
            .iter()
            .any(|&i| i >= escaped)
    {
        return Err(format!("{escaped} escaped functions, or an index past them").into());
    }
    ESCAPED.store(escaped, Relaxed);
    for (slot, index) in SIGNATURE.iter().zip([run, realloc, initialize, preamble]) {
        slot.store(index, Relaxed);
    }
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut programs_writing = vec![0usize; escaped];
    tokio.block_on(async {
        let runtime = WasmCodeRuntime::new(RuntimeConfig::default())?;
        for program in PROGRAMS {
            let request = CodeRunRequest::new(program).binding(tools());
            WATCHING.store(true, Relaxed);
            for _ in 0..3 {
                let result = runtime.run(request.clone()).await?;
                if let Some(error) = result.error {
                    return Err(format!("{program}: {}", error.message).into());
                }
            }
            WATCHING.store(false, Relaxed);
            for (count, flag) in programs_writing.iter_mut().zip(&WRITTEN) {
                *count += usize::from(flag.swap(false, Relaxed));
            }
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    let (read, unplaced) = (READ.load(Relaxed), UNPLACED.load(Relaxed));
    if read == 0 || unplaced > 0 {
        return Err(format!("read {read} instances' entries, could not place {unplaced}").into());
    }
    for (index, count) in programs_writing.iter().enumerate() {
        if *count > 0 {
            println!("{index} {count}");
        }
    }
    Ok(())
}
