//! The system allocator, counting the bytes each thread holds and their peak, so that a test
//! can assert how much memory a piece of code allocates: a decoder fed a forged length, a
//! broadcast that must not copy its payload.
//!
//! Install it in the test or fuzz binary, then measure:
//!
//! ```
//! use alloc_counter::{Counting, peak_allocation};
//!
//! #[global_allocator]
//! static ALLOCATOR: Counting = Counting;
//!
//! let (v, peak) = peak_allocation(|| vec![0u8; 1000]);
//! assert_eq!(v.len(), 1000);
//! assert!(peak >= 1000);
//! ```
//!
//! Counts are per thread, so tests running in parallel do not see each other's allocations.
//! Memory freed on another thread than the one that allocated it is counted where it is freed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn grow(by: usize) {
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + by as isize);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

fn shrink(by: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get() - by as isize));
}

/// The counting allocator: install it with `#[global_allocator]`.
pub struct Counting;

// SAFETY: every method forwards to `System` with the same arguments; the counters are
// const-initialised thread-locals without destructors, so updating them never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) };
        shrink(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Conservatively, the old and the new block are both live for a moment.
            grow(new_size);
            shrink(layout.size());
        }
        p
    }
}

/// Runs `f` and returns its result with the peak of bytes it allocated on this thread (the
/// result included, since it is still alive at the end). Zero unless [`Counting`] is the
/// global allocator.
pub fn peak_allocation<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let result = f();
    let peak = PEAK.with(Cell::get);
    (result, (peak - base).max(0) as usize)
}
