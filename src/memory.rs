//! What this process holds in memory, read the same way wherever it is asked (the soak's
//! checkpoints, the tests that look for leaks).
//!
//! How it works: resident memory is the kernel's count (`VmRSS` in `/proc/self/status`).
//! It also counts what the allocator freed but kept (glibc keeps freed pages of its arenas
//! for reuse, and how many depends on the order of frees, not on what is live), so
//! [`trim_heap`] first hands those pages back (`malloc_trim`), and [`heap_in_use_bytes`]
//! reads what is allocated and not freed (`mallinfo2`: every `malloc` in the process, the
//! Rust code's and the Vulkan driver's alike). Both are glibc's; elsewhere they do nothing
//! and read `None`. What the Rust code holds alone is counted by [`CountingAllocator`],
//! which the `skinbench` binary installs as its global allocator ([`rust_heap_bytes`]):
//! the heap less that count is the C code's, the Vulkan driver's above all.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The system allocator, counting the bytes the Rust code holds: every allocation made
/// through Rust's global allocator (skinbench's, wgpu's, egui's), none of the C code's
/// (the Vulkan driver's `malloc`s). The `skinbench` binary installs it, so that
/// [`rust_heap_bytes`] can tell what the program holds from what the driver holds; one
/// relaxed atomic addition an allocation and one subtraction a free (the kernels
/// allocate nothing per frame).
pub struct CountingAllocator;

static RUST_HEAP_BYTES: AtomicU64 = AtomicU64::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

// SAFETY: every method hands its arguments to `System` under the same contract and only
// adds to or subtracts from a counter besides; the counts never touch the memory.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System.alloc`'s.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            counted(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System.alloc_zeroed`'s.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            counted(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System.dealloc`'s.
        unsafe { System.dealloc(ptr, layout) };
        RUST_HEAP_BYTES.fetch_sub(layout.size() as u64, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `System.realloc`'s.
        let new_ptr = unsafe { System.realloc(ptr, layout, new_size) };
        if !new_ptr.is_null() {
            RUST_HEAP_BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
            RUST_HEAP_BYTES.fetch_sub(layout.size() as u64, Ordering::Relaxed);
        }
        new_ptr
    }
}

/// Adds an allocation of `bytes` to the count (the flag is read first: a store on every
/// allocation would pass its cache line between the threads that allocate).
fn counted(bytes: usize) {
    RUST_HEAP_BYTES.fetch_add(bytes as u64, Ordering::Relaxed);
    if !COUNTING.load(Ordering::Relaxed) {
        COUNTING.store(true, Ordering::Relaxed);
    }
}

/// Bytes the Rust code holds (allocated through [`CountingAllocator`] and not freed);
/// `None` where the process does not count them (a program that did not install it).
pub fn rust_heap_bytes() -> Option<u64> {
    COUNTING
        .load(Ordering::Relaxed)
        .then(|| RUST_HEAP_BYTES.load(Ordering::Relaxed))
}

/// This process's resident memory, bytes (Linux; `None` elsewhere).
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod glibc {
    /// `struct mallinfo2` of glibc's `<malloc.h>` (glibc 2.33 and later): ten `size_t`s.
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    pub struct MallInfo2 {
        pub arena: usize,
        pub ordblks: usize,
        pub smblks: usize,
        pub hblks: usize,
        pub hblkhd: usize,
        pub usmblks: usize,
        pub fsmblks: usize,
        pub uordblks: usize,
        pub fordblks: usize,
        pub keepcost: usize,
    }

    unsafe extern "C" {
        pub fn mallinfo2() -> MallInfo2;
        pub fn malloc_trim(pad: usize) -> i32;
    }
}

/// Bytes allocated with `malloc` and not freed, in the main arena and the others, mapped
/// chunks included (glibc; `None` elsewhere).
pub fn heap_in_use_bytes() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallinfo2` takes no arguments and returns its statistics by value, in
        // the layout `MallInfo2` declares (glibc's `struct mallinfo2`, ten `size_t`s); it
        // takes the allocator's own locks and has no precondition on the caller.
        let info = unsafe { glibc::mallinfo2() };
        Some((info.uordblks + info.hblkhd) as u64)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}

/// Hands the pages the allocator freed but kept back to the system, so that resident
/// memory reads what is live (glibc; nothing elsewhere).
pub fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `malloc_trim` takes the padding to keep (0: none) and returns whether it
        // released memory; it takes the allocator's locks and touches only free chunks, so
        // no live allocation of any thread is affected.
        unsafe {
            glibc::malloc_trim(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A megabyte allocated shows in the heap's count and is gone from it when freed; a
    /// trim runs and leaves resident memory readable.
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn the_heap_count_follows_an_allocation() {
        // Eight megabytes, read with room for what other test threads allocate and free
        // meanwhile; the count is the process's, and a thread freeing a large
        // measurement (the level errors' surfaces) at the wrong moment can hide the
        // block, so the reading is tried a few times and one clean reading suffices.
        let mut readings = Vec::new();
        let follows = (0..8).any(|_| {
            let before = heap_in_use_bytes().unwrap();
            let block = vec![7u8; 8 << 20];
            let during = heap_in_use_bytes().unwrap();
            std::hint::black_box(&block);
            drop(block);
            let after = heap_in_use_bytes().unwrap();
            readings.push((before, during, after));
            during >= before + (6 << 20) && after + (6 << 20) < during
        });
        assert!(follows, "before, during, after: {readings:?}");
        trim_heap();
        assert!(resident_bytes().unwrap() > 0);
    }
}
