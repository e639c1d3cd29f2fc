//! The machine's store bandwidth, measured in the same run as the kernels.
//!
//! How it works: a buffer eight times the size of a typical last-level cache (256 MiB) is
//! filled with 16-byte stores, several passes, best pass kept; once with regular stores
//! (what the skinning kernels do) and once with non-temporal stores (which bypass the
//! cache; x86-64 only). With more than one thread the buffer is split between threads.
//! This is the ceiling a skinning variant's output rate is compared with.

use std::time::Instant;

use glam::Vec4;

const BUFFER_BYTES: usize = 256 << 20;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StoreBandwidth {
    pub threads: usize,
    /// Regular stores, GB/s (10^9 bytes per second).
    pub regular_gbs: f64,
    /// Non-temporal (streaming) stores, GB/s; `None` where not measured.
    pub non_temporal_gbs: Option<f64>,
}

fn fill_regular(chunk: &mut [Vec4]) {
    let v = std::hint::black_box(Vec4::new(1.0, 2.0, 3.0, 4.0));
    for x in chunk.iter_mut() {
        *x = v;
    }
    std::hint::black_box(chunk.as_ptr());
}

#[cfg(target_arch = "x86_64")]
fn fill_streaming(chunk: &mut [Vec4]) {
    use std::arch::x86_64::{_mm_set_ps, _mm_sfence, _mm_stream_ps};
    // SAFETY: SSE2 is part of the x86-64 baseline; `Vec4` is 16-byte aligned, so every
    // element is a valid aligned 16-byte store target within the slice.
    unsafe {
        let v = _mm_set_ps(4.0, 3.0, 2.0, 1.0);
        for x in chunk.iter_mut() {
            _mm_stream_ps(x as *mut Vec4 as *mut f32, v);
        }
        _mm_sfence();
    }
}

fn best_pass(buffer: &mut [Vec4], threads: usize, passes: usize, fill: fn(&mut [Vec4])) -> f64 {
    let mut best = f64::INFINITY;
    let per_thread = buffer.len().div_ceil(threads);
    for _ in 0..passes {
        let start = Instant::now();
        std::thread::scope(|s| {
            for chunk in buffer.chunks_mut(per_thread) {
                s.spawn(move || fill(chunk));
            }
        });
        best = best.min(start.elapsed().as_secs_f64());
    }
    std::mem::size_of_val(buffer) as f64 / best / 1e9
}

/// Measures store bandwidth with `threads` threads, `passes` passes each.
pub fn measure(threads: usize, passes: usize) -> StoreBandwidth {
    let mut buffer = vec![Vec4::ZERO; BUFFER_BYTES / 16];
    // First touch (page faults) outside the timed passes.
    fill_regular(&mut buffer);
    let regular_gbs = best_pass(&mut buffer, threads, passes, fill_regular);
    #[cfg(target_arch = "x86_64")]
    let non_temporal_gbs = Some(best_pass(&mut buffer, threads, passes, fill_streaming));
    #[cfg(not(target_arch = "x86_64"))]
    let non_temporal_gbs = None;
    StoreBandwidth {
        threads,
        regular_gbs,
        non_temporal_gbs,
    }
}
