//! After warm-up, a frame allocates nothing.
//!
//! A counting global allocator records every allocation made while frames run, on any
//! thread: the pipeline's code, its crew of workers and the hand-off between them must
//! make none.
//!
//! The allocator sees every thread of the process, so nothing else may run while it
//! counts: this file has its own harness (libtest-mimic) held to one thread, running each
//! case on the main thread. libtest's harness would print "has been running for over 60
//! seconds" from its own thread mid-count, and that message's allocations were once
//! blamed on the pipeline.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use libtest_mimic::{Arguments, Failed, Trial};
use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::crowd::pipeline::available_threads;
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig, Schedule};
use skinbench::prepare::PreparedRig;
use skinbench::skin::{OutputBuffer, SkinVariant};
use skinbench::variant::Variant;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static SIZES: Mutex<Vec<usize>> = Mutex::new(Vec::new());

thread_local! {
    static IN_HOOK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

// SAFETY: forwards to the system allocator; the bookkeeping never allocates while
// recording (the Vec has reserved capacity, and re-entrance is guarded).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) && !IN_HOOK.with(|h| h.replace(true)) {
            if let Ok(mut sizes) = SIZES.try_lock()
                && sizes.len() < sizes.capacity()
            {
                sizes.push(layout.size());
            }
            IN_HOOK.with(|h| h.set(false));
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    let mut args = Arguments::from_args();
    args.test_threads = Some(1);
    let rig = Arc::new(PreparedRig::reference());
    let mut trials = Vec::new();
    // One case per variant pair, the articles' baselines included (`tree` builds its heap
    // trees once, when the instance count grows).
    for &hierarchy in HierarchyVariant::ALL {
        for &skin in SkinVariant::ALL {
            let rig = rig.clone();
            let name = format!(
                "steady_state_frames_allocate_nothing::{}::{}",
                hierarchy.name(),
                skin.name()
            );
            trials.push(Trial::test(name, move || {
                steady_state_allocations(&rig, hierarchy, skin)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

fn steady_state_allocations(
    rig: &Arc<PreparedRig>,
    hierarchy: HierarchyVariant,
    skin: SkinVariant,
) -> Result<(), Failed> {
    SIZES.lock().unwrap().reserve(100_000);
    let mut crowd = InstanceStore::new();
    crowd.resize(100, rig, 2.0);
    let threads: Vec<usize> = if available_threads() >= 2 {
        vec![1, 2]
    } else {
        vec![1]
    };
    let frames = 200;
    for &t in &threads {
        for &schedule in Schedule::ALL {
            let config = PipelineConfig {
                hierarchy,
                skin,
                schedule,
                threads: t,
                blend_weight: 0.0,
                method: skinbench::skin::SkinMethod::Linear,
            };
            let mut pipeline = Pipeline::new(rig.clone(), config)?;
            let mut out = OutputBuffer::for_instances(pipeline.output_layout(), crowd.len());
            // Warm-up: buffers are sized here, and every worker thread makes its one-time
            // registrations (thread-local state) in its first job.
            for _ in 0..50 {
                crowd.advance(0.016);
                pipeline.run_frame(crowd.as_slice(), &mut out)?;
            }
            SIZES.lock().unwrap().clear();
            COUNTING.store(true, Ordering::SeqCst);
            for _ in 0..frames {
                crowd.advance(0.016);
                pipeline.run_frame(crowd.as_slice(), &mut out)?;
            }
            COUNTING.store(false, Ordering::SeqCst);
            let sizes = SIZES.lock().unwrap().clone();
            let label = format!("{} threads {t}", schedule.name());
            if !sizes.is_empty() {
                return Err(format!(
                    "{label}: {} allocations in {frames} frames, bytes: {sizes:?}",
                    sizes.len()
                )
                .into());
            }
        }
    }
    Ok(())
}
