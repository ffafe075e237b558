//! The guest's allocators, QuickJS's and Rust's: the C library's malloc
//! while the guest initialises, then, once [`seal`] has run at the end of
//! initialisation (so in the Wizer snapshot every run starts from), a heap
//! of their own on memory reserved for it.
//!
//! Why: every run starts from the snapshot's memory image, and each page a
//! run writes becomes that run's private copy. A run's allocations taken
//! from free chunks scattered over the snapshot's heap turned a few
//! kilobytes of writes into dozens of copied pages (W4, memory per parked
//! run; see benches/OPTIMISATIONS.md). After the seal a run allocates
//! densely from the reserve, and writes to the snapshot's pages only when
//! it touches what the snapshot holds. QuickJS's own small-block arenas are
//! sealed the same way (`JS_CoderunSealArenas`, in the project's patch).
//!
//! QuickJS allocates through [`QuickJsAllocator`] (rquickjs's `allocator`
//! feature), Rust through the global allocator here; both take the second
//! heap after the seal. A block from before the seal is freed (and
//! reallocated) through the C library's malloc: ownership is decided by
//! address, against the ranges the second heap grew.
//!
//! Whatever frees a block must know which heap made it. Rust's frees come
//! here; QuickJS's too. The C library's `free` does not: nothing the guest
//! allocates may be freed by the C library after the seal. The one place it
//! did is the lists WASI calls return, which the component ABI allocates
//! with `cabi_realloc` (Rust's, on this allocator) and wasi-libc's wrappers
//! free with its `free`; the guest calls WASI's random generator itself for
//! that reason (`engine::natives::random_bytes`), and calls no other such wrapper
//! after initialisation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;

use dlmalloc::Dlmalloc;

/// The memory the second heap grew: at most this many separate ranges
/// (consecutive growth extends the last one), after which it reports
/// out of memory.
const MAX_RANGES: usize = 64;

/// The wasm page, the unit `memory.grow` counts in.
const WASM_PAGE: usize = 65536;

/// What the guest shares only with itself: it is one thread.
struct Shared<T>(UnsafeCell<T>);

// SAFETY: wasm32-wasip2 guests are single-threaded.
unsafe impl<T> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// # Safety
    /// One thread; the reference does not outlive the allocator call that
    /// takes it, and no other reference to the same static is live.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get(&self) -> &mut T {
        unsafe { &mut *self.0.get() }
    }
}

/// The statics every run writes, on one page of their own, so that a run
/// copies one page of the guest's statics rather than one per place the
/// linker put each (W4, memory per parked run): the allocator's state,
/// the engine's (`engine.rs`), and QuickJS's runtime struct, which lives
/// here rather than on the snapshot's heap.
#[repr(C, align(4096))]
pub(crate) struct Hot {
    /// The allocator's state: the second heap, whether the seal has run,
    /// and the ranges the heap grew (read, and written only when it grows).
    heap: Shared<Dlmalloc<FreshPages>>,
    sealed: Shared<bool>,
    /// Whether QuickJS's next allocation is its runtime struct
    /// ([`runtime_next`]), and whether the struct took `runtime`.
    runtime_next: Shared<bool>,
    runtime_taken: Shared<bool>,
    /// The block QuickJS's runtime struct is allocated in, never freed
    /// while the guest lives. Only ever reached through raw pointers,
    /// since QuickJS holds one into it.
    runtime: Shared<[u64; RUNTIME_SLOT / 8]>,
    pub(crate) engine: crate::engine::State,
    ranges: Shared<Ranges>,
}

// SAFETY: wasm32-wasip2 guests are single-threaded.
unsafe impl Sync for Hot {}

const _: () = assert!(
    size_of::<Hot>() <= 4096,
    "the statics every run writes no longer fit on one page"
);

pub(crate) static HOT: Hot = Hot {
    heap: Shared(UnsafeCell::new(Dlmalloc::new_with_allocator(FreshPages))),
    sealed: Shared(UnsafeCell::new(false)),
    runtime_next: Shared(UnsafeCell::new(false)),
    runtime_taken: Shared(UnsafeCell::new(false)),
    runtime: Shared(UnsafeCell::new([0; RUNTIME_SLOT / 8])),
    engine: crate::engine::State::new(),
    ranges: Shared(UnsafeCell::new(Ranges {
        ranges: [(0, 0); MAX_RANGES],
        count: 0,
    })),
};

/// Room for QuickJS's runtime struct (1,360 bytes in this QuickJS) and
/// the allocator's header before it.
const RUNTIME_SLOT: usize = 1536;

/// QuickJS's next allocation, the runtime struct `JS_NewRuntime` makes
/// first, is to be served from [`Hot`]'s slot. Call it just before making
/// the runtime, and [`runtime_placed`] after.
pub fn runtime_next() {
    // SAFETY: a write of a flag, one thread.
    unsafe { *HOT.runtime_next.get() = true }
}

/// Whether `runtime`, QuickJS's runtime struct, is in [`Hot`]'s slot
/// (false when it did not fit, and went to the heap).
pub fn runtime_placed(runtime: *const u8) -> bool {
    ptr::eq(runtime, runtime_block().wrapping_add(HEADER))
}

/// The runtime slot's block.
fn runtime_block() -> *mut u8 {
    HOT.runtime.0.get().cast()
}

/// The slot, for QuickJS's allocation of `size` bytes (its header
/// included) when the slot is expected and free and the size fits.
fn runtime_slot(size: usize) -> Option<*mut u8> {
    // SAFETY: one thread; the references end with each statement.
    unsafe {
        if !std::mem::replace(HOT.runtime_next.get(), false)
            || *HOT.runtime_taken.get()
            || size > RUNTIME_SLOT
        {
            return None;
        }
        *HOT.runtime_taken.get() = true;
    }
    Some(runtime_block())
}

/// The memory the second heap takes when it is sealed, so that a run
/// allocates from it without growing memory (growth, and the reset of
/// what grew, cost a cold run more than the run itself). Its pages are
/// zero in the snapshot and cost nothing until a run writes them.
const RESERVE: usize = 2 << 20;

/// From now on, allocations come from the second heap, which takes
/// [`RESERVE`] bytes of new memory now. Called once, as the last thing the
/// guest's initialisation does.
pub fn seal() {
    // SAFETY: one thread, no allocation in progress; a block taken and
    // given back at once leaves the reserve as the heap's free top.
    unsafe {
        let heap = HOT.heap.get();
        let size = RESERVE - WASM_PAGE;
        let block = heap.malloc(size, 16);
        if !block.is_null() {
            heap.free(block, size, 16);
        }
        *HOT.sealed.get() = true;
    }
}

fn sealed() -> bool {
    // SAFETY: a copy out, one thread.
    unsafe { *HOT.sealed.get() }
}

fn owned(ptr: *mut u8) -> bool {
    // SAFETY: read while no allocation is in progress on the one thread.
    unsafe { HOT.ranges.get() }.owns(ptr)
}

struct Ranges {
    ranges: [(usize, usize); MAX_RANGES],
    count: usize,
}

impl Ranges {
    fn owns(&self, ptr: *mut u8) -> bool {
        let at = ptr as usize;
        self.ranges[..self.count]
            .iter()
            .any(|&(start, end)| start <= at && at < end)
    }

    fn record(&mut self, start: usize, len: usize) -> bool {
        if let Some(last) = self.ranges[..self.count].last_mut()
            && last.1 == start
        {
            last.1 = start + len;
            return true;
        }
        if self.count == MAX_RANGES {
            return false;
        }
        self.ranges[self.count] = (start, start + len);
        self.count += 1;
        true
    }
}

/// The second heap's system allocator: `memory.grow`, recording each range.
struct FreshPages;

// SAFETY: hands dlmalloc whole fresh pages it owns until the instance ends.
unsafe impl dlmalloc::Allocator for FreshPages {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        let pages = size.div_ceil(WASM_PAGE);
        let previous = core::arch::wasm32::memory_grow(0, pages);
        if previous == usize::MAX {
            return (ptr::null_mut(), 0, 0);
        }
        let start = previous * WASM_PAGE;
        let len = pages * WASM_PAGE;
        // SAFETY: called by the heap, on the one thread; only the heap
        // (not the ranges) is borrowed around this call.
        if !unsafe { HOT.ranges.get() }.record(start, len) {
            return (ptr::null_mut(), 0, 0);
        }
        (start as *mut u8, len, 0)
    }

    fn remap(&self, _ptr: *mut u8, _old: usize, _new: usize, _can_move: bool) -> *mut u8 {
        ptr::null_mut()
    }

    fn free_part(&self, _ptr: *mut u8, _old: usize, _new: usize) -> bool {
        false
    }

    fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
        false
    }

    fn can_release_part(&self, _flags: u32) -> bool {
        false
    }

    fn allocates_zeros(&self) -> bool {
        true
    }

    fn page_size(&self) -> usize {
        WASM_PAGE
    }
}

#[global_allocator]
static RUST: RustAllocator = RustAllocator;

/// Rust's allocator: the C library's until the seal, then the second heap.
struct RustAllocator;

// SAFETY: each block is freed by the heap that made it (decided by
// address); one thread.
unsafe impl GlobalAlloc for RustAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if sealed() {
            unsafe { HOT.heap.get().malloc(layout.size(), layout.align()) }
        } else {
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if sealed() {
            unsafe { HOT.heap.get().calloc(layout.size(), layout.align()) }
        } else {
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if sealed() && owned(ptr) {
            unsafe { HOT.heap.get().free(ptr, layout.size(), layout.align()) }
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !sealed() {
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        if owned(ptr) {
            return unsafe {
                HOT.heap
                    .get()
                    .realloc(ptr, layout.size(), layout.align(), new_size)
            };
        }
        // A block from before the seal moves to the second heap.
        let moved = unsafe { HOT.heap.get().malloc(new_size, layout.align()) };
        if !moved.is_null() {
            unsafe {
                ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                System.dealloc(ptr, layout);
            }
        }
        moved
    }
}

/// Each block starts with its size, for `usable_size`, `realloc` and
/// `dealloc`, which QuickJS calls without it; eight bytes keep the block
/// eight-byte aligned, as QuickJS needs.
const HEADER: usize = 8;

fn layout(size: usize) -> Option<Layout> {
    Layout::from_size_align(size.checked_add(HEADER)?, HEADER).ok()
}

/// The allocator QuickJS's runtime is created with.
pub struct QuickJsAllocator;

impl QuickJsAllocator {
    fn allocate(size: usize, zeroed: bool) -> *mut u8 {
        let Some(layout) = layout(size) else {
            return ptr::null_mut();
        };
        // SAFETY: a non-zero layout; one thread. The runtime's slot is
        // zero, as it has never been handed out.
        let base = unsafe {
            match (sealed(), zeroed) {
                (false, _) if let Some(slot) = runtime_slot(layout.size()) => slot,
                (true, false) => HOT.heap.get().malloc(layout.size(), layout.align()),
                (true, true) => HOT.heap.get().calloc(layout.size(), layout.align()),
                (false, false) => System.alloc(layout),
                (false, true) => System.alloc_zeroed(layout),
            }
        };
        if base.is_null() {
            return base;
        }
        // SAFETY: the block holds the header, then `size` bytes.
        unsafe {
            base.cast::<usize>().write(size);
            base.add(HEADER)
        }
    }
}

// SAFETY: blocks are eight-byte aligned and at least the size asked; each is
// freed by the heap that made it (decided by address); one thread.
unsafe impl rquickjs::allocator::Allocator for QuickJsAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        Self::allocate(size, false)
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        count
            .checked_mul(size)
            .map_or(ptr::null_mut(), |total| Self::allocate(total, true))
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        // SAFETY: `ptr` came from `allocate`: its header is just before it.
        unsafe {
            let base = ptr.sub(HEADER);
            let size = base.cast::<usize>().read();
            let layout = Layout::from_size_align_unchecked(size + HEADER, HEADER);
            if ptr::eq(base, runtime_block()) {
                // The runtime's slot is the guest's for good.
            } else if sealed() && owned(base) {
                HOT.heap.get().free(base, layout.size(), layout.align());
            } else {
                System.dealloc(base, layout);
            }
        }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        let Some(new_layout) = layout(new_size) else {
            return ptr::null_mut();
        };
        // SAFETY: `ptr` came from `allocate`; the new block gets the header.
        unsafe {
            let base = ptr.sub(HEADER);
            let size = base.cast::<usize>().read();
            let old = Layout::from_size_align_unchecked(size + HEADER, HEADER);
            let moved = if ptr::eq(base, runtime_block()) {
                // Not what QuickJS does with its runtime; a copy if it did.
                let moved = Self::allocate(new_size, false);
                if !moved.is_null() {
                    ptr::copy_nonoverlapping(ptr, moved, size.min(new_size));
                }
                return moved;
            } else if !sealed() {
                System.realloc(base, old, new_layout.size())
            } else if owned(base) {
                HOT.heap
                    .get()
                    .realloc(base, old.size(), HEADER, new_layout.size())
            } else {
                // A block from before the seal moves to the second heap.
                let moved = HOT.heap.get().malloc(new_layout.size(), HEADER);
                if !moved.is_null() {
                    ptr::copy_nonoverlapping(base, moved, old.size().min(new_layout.size()));
                    System.dealloc(base, old);
                }
                moved
            };
            if moved.is_null() {
                return moved;
            }
            moved.cast::<usize>().write(new_size);
            moved.add(HEADER)
        }
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: `ptr` came from `allocate`.
        unsafe { ptr.sub(HEADER).cast::<usize>().read() }
    }
}
