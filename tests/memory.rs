//! Memory that a shrinking configuration frees goes back to the system
//! (`budget::return_freed_memory`, glibc's `malloc_trim`). Its own test binary, so no other
//! test allocates while resident memory is read.

use skinbench::crowd::budget::return_freed_memory;
use skinbench::ui::soak::resident_bytes;

#[test]
fn freed_heap_memory_goes_back_to_the_system() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return; // Other allocators return memory on their own terms.
    }
    // 400 blocks of 64 KiB come from the heap (below glibc's mmap threshold); the last one
    // stays allocated, so the heap cannot shrink from its top and the 25 MB freed below it
    // stay resident until trimmed.
    let mut blocks: Vec<Vec<u8>> = (0..400).map(|i| vec![i as u8; 64 << 10]).collect();
    let last = blocks.pop().unwrap();
    drop(blocks);
    let before = resident_bytes().unwrap();
    return_freed_memory();
    let after = resident_bytes().unwrap();
    std::hint::black_box(&last);
    assert!(
        after + (12 << 20) < before,
        "resident memory {before} → {after} bytes: less than 12 MiB of the 25 MiB came back"
    );
}
