//! The soak driver (`skinbench --soak`) over a headless scene on whatever adapter exists
//! (lavapipe here): its random changes, rig switches, checkpoints and error detection.

mod common;

use std::sync::Arc;
use std::time::Duration;

use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::gpu::scene::{Frame, MAX_FRAMES_IN_FLIGHT, Scene};
use skinbench::gpu::staging::{IDLE_FRAMES, StagingChunks};
use skinbench::prepare::PreparedRig;
use skinbench::ui::soak::{Soak, SoakPlan};
use skinbench::variant::Variant;

fn scene(rig: Arc<PreparedRig>, instances: usize) -> Option<Scene> {
    let gpu = common::gpu_context()?;
    let settings = common::app_settings(&rig, instances);
    Some(common::offscreen_scene(&gpu, &rig, settings, (160, 100)).unwrap())
}

fn plan(duration: Duration) -> SoakPlan {
    SoakPlan {
        duration,
        seed: 7,
        rigs: common::prepared_rigs()
            .iter()
            .map(|(_, rig)| rig.clone())
            .collect(),
        max_instances: 48,
        max_threads: skinbench::crowd::pipeline::available_threads(),
        checkpoint_every: skinbench::ui::soak::CHECKPOINT_INTERVAL,
    }
}

/// One soak frame, as the app runs it.
fn frame(soak: &mut Soak, scene: &mut Scene) {
    soak.before_frame(scene);
    scene.frame(Frame::headless(1.0 / 30.0)).unwrap();
    soak.after_frame(scene);
}

fn random_changes_reach_every_setting_and_switch_rigs_cleanly() {
    let plan = plan(Duration::from_secs(3600));
    let rig_count = plan.rigs.len();
    let Some(mut scene) = scene(plan.rigs[0].clone(), 8) else {
        common::cannot_run_here()
    };
    let mut soak = Soak::start(plan, &scene);
    // The warm-up: one frame per rig (its own test below).
    for _ in 0..rig_count {
        frame(&mut soak, &mut scene);
    }
    let switches_in_warm_up = soak.report.rig_switches;
    let mut rigs_seen = std::collections::BTreeSet::new();
    let mut skins_seen = std::collections::BTreeSet::new();
    let mut crowd_sizes = std::collections::BTreeSet::new();
    let mut levels_seen = std::collections::BTreeSet::new();
    let mut shadows_seen = std::collections::BTreeSet::new();
    for _ in 0..240 {
        frame(&mut soak, &mut scene);
        rigs_seen.insert(scene.rig().name.clone());
        skins_seen.insert(scene.running_config().skin.name());
        crowd_sizes.insert(scene.crowd().len());
        // Whatever the change, the scene runs the configuration its settings name.
        assert_eq!(scene.settings().pipeline, *scene.running_config());
        assert_eq!(scene.settings().simd_level, scene.simd_level());
        assert_eq!(scene.settings().shadows, scene.renderer().shadows());
        assert_eq!(
            scene.settings().compute_shader,
            scene.renderer().compute_shader()
        );
        shadows_seen.insert(scene.renderer().shadows());
        assert_eq!(scene.settings().instances, scene.crowd().len());
        levels_seen.insert(scene.simd_level().name());
    }
    let report = &soak.report;
    assert_eq!(report.frames, (rig_count + 240) as u64);
    assert_eq!(report.changes, 240, "one change a frame, no checkpoint yet");
    assert!(report.failure().is_none(), "{}", report.to_text());
    assert!(
        report.verifies > 0 && report.rig_switches > switches_in_warm_up,
        "{}",
        report.to_text()
    );
    if rig_count > 1 {
        assert!(rigs_seen.len() > 1, "{rigs_seen:?}");
    }
    assert!(skins_seen.len() > 3, "{skins_seen:?}");
    assert_eq!(shadows_seen.len(), 2, "shadows never switched");
    assert!(crowd_sizes.len() > 5, "{crowd_sizes:?}");
    let levels = skinbench::simd::SimdLevel::available().len();
    assert!(
        levels_seen.len() == levels,
        "{levels_seen:?} of {levels} levels"
    );
}

fn the_same_seed_replays_the_same_changes() {
    let run = || -> Option<Vec<(String, usize, String)>> {
        let plan = plan(Duration::from_secs(3600));
        let mut scene = scene(plan.rigs[0].clone(), 8)?;
        let mut soak = Soak::start(plan, &scene);
        Some(
            (0..40)
                .map(|_| {
                    frame(&mut soak, &mut scene);
                    (
                        scene.rig().name.clone(),
                        scene.crowd().len(),
                        format!("{:?}", scene.settings()),
                    )
                })
                .collect(),
        )
    };
    let (Some(first), Some(second)) = (run(), run()) else {
        common::cannot_run_here()
    };
    assert_eq!(first, second);
}

fn at_its_end_the_soak_returns_to_the_start_and_reads_memory() {
    let plan = plan(Duration::ZERO);
    let Some(mut scene) = scene(plan.rigs[0].clone(), 8) else {
        common::cannot_run_here()
    };
    let start = scene.settings().clone();
    scene.settings_mut().instances = 30;
    scene.settings_mut().pipeline.hierarchy = HierarchyVariant::Tree;
    let mut soak = Soak::start(plan, &scene);
    let mut frames = 0;
    while !soak.is_done() {
        frame(&mut soak, &mut scene);
        frames += 1;
        assert!(frames < 20, "the checkpoint never ended");
    }
    assert_eq!(soak.report.changes, 0);
    assert_eq!(
        scene.crowd().len(),
        30,
        "the soak started from the scene's settings"
    );
    assert_ne!(*scene.settings(), start);
    assert_eq!(soak.report.checkpoints.len(), 1);
    assert!(soak.report.checkpoints[0].resident_bytes > 1 << 20);
    assert_eq!(
        soak.report.rss_growth(),
        None,
        "one checkpoint has nothing to compare"
    );
}

fn a_wgpu_validation_error_fails_the_soak() {
    let plan = plan(Duration::from_secs(3600));
    let Some(mut scene) = scene(plan.rigs[0].clone(), 8) else {
        common::cannot_run_here()
    };
    let mut soak = Soak::start(plan, &scene);
    frame(&mut soak, &mut scene);
    assert!(soak.report.failure().is_none());
    // A buffer may not be both mappable for reading and a vertex buffer (without a
    // feature lavapipe does not have): a validation error, as a bug in a renderer would make.
    let _bad = scene.gpu().device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("invalid on purpose"),
        size: 256,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::VERTEX,
        mapped_at_creation: false,
    });
    frame(&mut soak, &mut scene);
    assert!(soak.is_done());
    let failure = soak.report.failure().expect("the error fails the soak");
    assert!(
        failure.contains("validation error") && failure.contains("invalid on purpose"),
        "{failure}"
    );
}

fn switching_to_a_rig_the_hierarchy_refuses_takes_the_best_that_accepts_it() {
    let Some((_, nonuniform)) = common::prepared_rigs()
        .iter()
        .find(|(name, rig)| name.contains("nonuniform") && rig.shear_reason.is_some())
    else {
        return;
    };
    let Some(mut scene) = scene(Arc::new(PreparedRig::reference()), 8) else {
        common::cannot_run_here()
    };
    scene.settings_mut().pipeline.hierarchy = HierarchyVariant::FlatQvs;
    scene.frame(Frame::headless(1.0 / 30.0)).unwrap();
    assert_eq!(scene.running_config().hierarchy, HierarchyVariant::FlatQvs);
    scene.set_rig(nonuniform.clone()).unwrap();
    assert_eq!(scene.rig().name, nonuniform.name);
    assert!(
        scene
            .running_config()
            .hierarchy
            .refusal(nonuniform)
            .is_none()
    );
    assert_eq!(scene.crowd().len(), 8);
    scene.frame(Frame::headless(1.0 / 30.0)).unwrap();
    scene.request_verify();
    scene.frame(Frame::headless(0.0)).unwrap();
    let verdict = scene.last_verify().unwrap().as_ref().unwrap();
    assert!(verdict.within_tolerance(), "{}", verdict.to_text());
}

fn a_rig_switch_draws_with_the_same_pipelines() {
    let rigs = common::prepared_rigs();
    let Some(mut scene) = scene(rigs[0].1.clone(), 8) else {
        common::cannot_run_here()
    };
    scene.frame(Frame::headless(1.0 / 30.0)).unwrap();
    let pipelines = scene.renderer().pipelines().clone();
    for (_, rig) in rigs.iter().skip(1).chain(rigs.first()) {
        scene.set_rig(rig.clone()).unwrap();
        assert!(scene.renderer().pipelines() == &pipelines, "{}", rig.name);
        scene.request_verify();
        scene.frame(Frame::headless(1.0 / 30.0)).unwrap();
        let verdict = scene.take_last_verify().unwrap().unwrap();
        assert!(
            verdict.within_tolerance(),
            "{}: {}",
            rig.name,
            verdict.to_text()
        );
    }
}

/// Each rig is drawn from the largest crowd down, a tenth at a time while at least 10:
/// every framing of the view before the first checkpoint.
fn the_warm_up_draws_crowds_from_the_largest_down() {
    use skinbench::ui::soak::warm_up_crowds;
    assert_eq!(warm_up_crowds(10_000), [10_000, 1_000, 100, 10]);
    assert_eq!(warm_up_crowds(2_500), [2_500, 250, 25]);
    assert_eq!(warm_up_crowds(48), [48]);
    assert_eq!(warm_up_crowds(0), [1]);
}

fn the_soak_starts_with_every_rig_at_the_largest_crowd() {
    let plan = plan(Duration::from_secs(3600));
    let rigs: Vec<String> = plan.rigs.iter().map(|r| r.name.clone()).collect();
    let max_instances = plan.max_instances;
    let Some(mut scene) = scene(plan.rigs[0].clone(), 8) else {
        common::cannot_run_here()
    };
    let start = scene.settings().clone();
    let mut soak = Soak::start(plan, &scene);
    for name in &rigs {
        frame(&mut soak, &mut scene);
        assert_eq!(&scene.rig().name, name);
        assert_eq!(scene.crowd().len(), max_instances);
        assert_eq!(scene.settings().pipeline.skin, start.pipeline.skin);
        assert_eq!(scene.settings().upload, start.upload);
        // Every character at full detail, with shadows: the most a crowd of this size bins.
        assert!(!scene.settings().lod.enabled && !scene.settings().lod.mesh);
        assert!(scene.settings().shadows);
    }
    assert_eq!(soak.report.changes, 0, "the warm-up draws no random change");
    frame(&mut soak, &mut scene);
    assert_eq!(soak.report.changes, 1);
    assert!(
        soak.report.warm_up_seconds > 0.0,
        "the warm-up is timed apart from the changes"
    );
    assert!(soak.report.failure().is_none(), "{}", soak.report.to_text());
}

/// A soak that reads memory once (a minute or less) has no warm-up to wait for: its first
/// frame is a random change, so the shortest soak the command line accepts tests something.
fn a_short_soak_skips_the_warm_up_and_changes_from_its_first_frame() {
    use skinbench::ui::soak::{CHECKPOINT_INTERVAL, MIN_SOAK_SECS};
    let short = plan(Duration::from_secs_f64(MIN_SOAK_SECS));
    assert!(!short.warms_up());
    assert!(!plan(CHECKPOINT_INTERVAL).warms_up());
    assert!(plan(CHECKPOINT_INTERVAL * 2).warms_up());
    let Some(mut scene) = scene(short.rigs[0].clone(), 8) else {
        common::cannot_run_here()
    };
    let mut soak = Soak::start(short, &scene);
    frame(&mut soak, &mut scene);
    assert_eq!(soak.report.changes, 1);
    assert_eq!(soak.report.warm_up_seconds, 0.0);
    assert!(soak.report.failure().is_none(), "{}", soak.report.to_text());
}

/// A soak that ended without a change tested nothing: it fails, naming
/// the shortest soak accepted, instead of passing.
fn a_soak_that_made_no_change_fails() {
    use skinbench::ui::soak::{MIN_SOAK_SECS, SoakReport};
    let report = SoakReport {
        seconds: 12.0,
        frames: 4,
        ended: true,
        ..SoakReport::default()
    };
    let failure = report.failure().expect("no change is a failure");
    assert!(
        failure.contains("made no change") && failure.contains(&format!("{MIN_SOAK_SECS}")),
        "{failure}"
    );
    let running = SoakReport {
        ended: false,
        ..report.clone()
    };
    assert_eq!(running.failure(), None, "not before it ends");
}

/// The memory check on a deliberate leak: one GPU buffer made and never freed at every rig
/// switch fails the run, naming the GPU objects; the same run without the leak passes.
/// Checkpoints every two seconds instead of every minute, each in the starting
/// configuration after the rigs were switched back and forth.
/// A soak with checkpoints every two seconds, calling `at_rig_switch` after each frame
/// that switched the rig, run until it has four checkpoints and six rig switches however
/// long a frame takes on this machine (its planned hour only a bound). Returns the report.
fn short_soak_with(mut at_rig_switch: impl FnMut(&Scene)) -> skinbench::ui::soak::SoakReport {
    let mut plan = plan(Duration::from_secs(3600));
    plan.checkpoint_every = Duration::from_secs(2);
    let Some(mut scene) = scene(plan.rigs[0].clone(), 8) else {
        common::cannot_run_here()
    };
    let mut soak = Soak::start(plan, &scene);
    let mut switches = 0;
    let enough =
        |r: &skinbench::ui::soak::SoakReport| r.checkpoints.len() >= 4 && r.rig_switches > 5;
    while !soak.is_done() && !enough(&soak.report) {
        frame(&mut soak, &mut scene);
        if soak.report.rig_switches > switches {
            at_rig_switch(&scene);
        }
        switches = soak.report.rig_switches;
    }
    soak.report
}

fn a_leak_of_one_buffer_per_rig_switch_fails_the_soak() {
    for leak in [false, true] {
        let report = &short_soak_with(|scene| {
            if leak {
                let buffer = scene.gpu().device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("leaked on purpose"),
                    size: 1 << 16,
                    usage: wgpu::BufferUsages::VERTEX,
                    mapped_at_creation: false,
                });
                std::mem::forget(buffer);
            }
        });
        assert!(report.checkpoints.len() >= 3, "{}", report.to_text());
        assert!(report.rig_switches > 5, "{}", report.to_text());
        // The GPU objects are this scene's own (its wgpu instance's); the Rust heap is the
        // process's, which the tests running beside this one share, so only the first is
        // judged here (the app's soak runs alone and judges both, and the device memory).
        let growth = report.gpu_object_growth();
        assert_eq!(
            growth.is_some(),
            leak,
            "leak {leak}: {growth:?}\n{}",
            report.to_text()
        );
        if leak {
            assert_eq!(report.failure(), growth, "the soak fails on it");
        }
    }
}

/// The memory check on a deliberate leak of the Rust code's: 256 MiB allocated (zeroed, so
/// the pages are never touched) and never freed at every rig switch fails the run, naming
/// the Rust heap. The heap is the process's, shared with the tests beside this one, so the
/// run without the leak is not judged on it here (the GPU objects are this scene's own).
fn a_rust_allocation_leaked_per_rig_switch_fails_the_soak() {
    use skinbench::ui::soak::Judged;
    let report = &short_soak_with(|_| std::mem::forget(vec![0u8; 256 << 20]));
    assert!(report.rig_switches > 5, "{}", report.to_text());
    assert!(
        report
            .checkpoints
            .iter()
            .all(|c| c.rust_heap_bytes.is_some()),
        "this binary counts the Rust heap"
    );
    let growth = report.floor_growth(Judged::RustHeap);
    assert!(
        growth
            .as_deref()
            .is_some_and(|g| g.contains("the floor of the Rust code's heap grew")),
        "{growth:?}\n{}",
        report.to_text()
    );
    assert_eq!(report.gpu_object_growth(), None, "{}", report.to_text());
}

/// What the driver holds for itself is reported, not judged: the readings of `--soak 300
/// --seed 1` on lavapipe, whose live heap stepped up by half while the Rust code's heap
/// stayed at 32 to 33 MiB and wgpu's allocator took one block more for the same buffers,
/// pass, as does a Rust heap a few MiB up (what is made once); the same run with the Rust
/// heap growing past that fails, naming it.
fn the_drivers_heap_is_reported_not_judged() {
    use skinbench::gpu::GpuMemory;
    use skinbench::ui::soak::{MemoryCheckpoint, SoakReport};
    const MIB: u64 = 1 << 20;
    let report = |heap_mib: &[u64], rust_mib: &[u64]| SoakReport {
        checkpoints: heap_mib
            .iter()
            .zip(rust_mib)
            .enumerate()
            .map(|(i, (&h, &r))| MemoryCheckpoint {
                resident_bytes: (h + 100) * MIB,
                heap_bytes: Some(h * MIB),
                rust_heap_bytes: Some(r * MIB),
                gpu_objects: Some(87),
                // One block more from the third on, for the same buffers in use (seed 4).
                gpu_memory: Some(GpuMemory {
                    allocated_bytes: 41 * MIB,
                    reserved_bytes: if i < 2 { 52 } else { 60 } * MIB,
                    blocks: if i < 2 { 6 } else { 7 },
                }),
            })
            .collect(),
        ..SoakReport::default()
    };
    let driver_stepped = report(&[593, 575, 844, 850, 879], &[32, 33, 33, 32, 33]);
    assert_eq!(driver_stepped.memory_failure(), None);
    assert!(
        driver_stepped
            .to_text()
            .contains("the rest of the heap 846")
    );
    // A few MiB made once (caches filled the first time, capacities of the largest crowd).
    let made_once = report(&[593, 575, 844, 850, 879], &[32, 33, 36, 37, 36]);
    assert_eq!(made_once.memory_failure(), None);
    let rust_grew = report(&[593, 575, 844, 850, 879], &[32, 33, 41, 45, 49]);
    let failure = rust_grew.memory_failure().expect("growth");
    assert!(
        failure.contains("the floor of the Rust code's heap grew")
            && failure.contains("at least 32 MiB")
            && failure.contains("at least 41 MiB"),
        "{failure}"
    );
}

/// The trend through the checkpoints: steady growth reads as growth, one high reading at
/// the end of a flat run much less.
fn the_trend_tells_growth_from_one_high_reading() {
    use skinbench::ui::soak::trend_growth;
    let steady: Vec<f64> = (0..10).map(|i| 100.0 + 2.0 * i as f64).collect();
    assert!((trend_growth(&steady) - 0.18).abs() < 1e-9);
    let flat_then_high = [
        100.0, 101.0, 99.0, 100.0, 100.0, 101.0, 99.0, 100.0, 100.0, 114.0,
    ];
    assert!(
        trend_growth(&flat_then_high) < 0.10,
        "{}",
        trend_growth(&flat_then_high)
    );
    assert_eq!(trend_growth(&[100.0]), 0.0);
}

/// The GPU objects' floor: a count that jumps at some checkpoints (transient objects) and
/// returns is not growth, whatever its last readings (the counts of a 30-minute soak), nor
/// are the few objects a path met late makes once (a 10-second soak's counts); a floor
/// that keeps rising, or rises by more than those few, is.
fn gpu_objects_are_judged_on_their_floor() {
    use skinbench::ui::soak::{MemoryCheckpoint, SoakReport};
    let report = |counts: &[u64]| SoakReport {
        checkpoints: counts
            .iter()
            .map(|&n| MemoryCheckpoint {
                resident_bytes: 1 << 30,
                heap_bytes: Some(1 << 29),
                rust_heap_bytes: None,
                gpu_objects: Some(n),
                gpu_memory: None,
            })
            .collect(),
        ..SoakReport::default()
    };
    let transient = [
        77, 95, 77, 77, 77, 78, 79, 77, 77, 77, 77, 80, 80, 77, 77, 78, 78, 78, 77, 77, 78, 81, 77,
        77, 79, 77, 77, 77, 79, 81,
    ];
    assert_eq!(report(&transient).gpu_object_growth(), None);
    let leaking: Vec<u64> = (0..30).map(|i| 77 + i / 3).collect();
    let growth = report(&leaking).gpu_object_growth().expect("growth");
    assert!(
        growth.contains("from at least 77") && growth.contains("to at least 82"),
        "{growth}"
    );
    // A path met late makes its objects once and keeps them: a few more, then flat.
    let made_once_late = [61, 63, 62, 62, 62];
    assert_eq!(report(&made_once_late).gpu_object_growth(), None);
    let five_kept = [77, 78, 77, 77, 77, 82, 82, 83, 82, 82];
    assert!(report(&five_kept).gpu_object_growth().is_some());
}

/// The live heap's floor: the readings of a 30-minute soak in which nothing leaked (high
/// where buffers were still sized for the large crowd drawn just before a checkpoint) pass;
/// a heap that grows a little at every checkpoint fails, naming the floors.
fn the_heap_is_judged_on_its_floor() {
    use skinbench::ui::soak::{MemoryCheckpoint, SoakReport};
    const MIB: u64 = 1 << 20;
    let report = |heap_mib: &[u64]| SoakReport {
        checkpoints: heap_mib
            .iter()
            .map(|&h| MemoryCheckpoint {
                resident_bytes: (h + 100) * MIB,
                heap_bytes: Some(h * MIB),
                rust_heap_bytes: None,
                gpu_objects: Some(77),
                gpu_memory: None,
            })
            .collect(),
        ..SoakReport::default()
    };
    let retained = [
        976, 1081, 925, 838, 889, 951, 931, 945, 991, 1028, 1161, 1002, 1042, 1067, 1042, 1170,
        1042, 864, 838, 1283, 1755, 1115, 1019, 1047, 1021, 1755, 1119, 1122, 1151, 1393,
    ];
    assert_eq!(report(&retained).memory_failure(), None);
    let leaking: Vec<u64> = (0..30).map(|i| 900 + 10 * i).collect();
    let failure = report(&leaking).memory_failure().expect("growth");
    assert!(
        failure.contains("the floor of the live heap grew")
            && failure.contains("at least 900 MiB")
            && failure.contains("at least 1050 MiB"),
        "{failure}"
    );
}

/// One frame of `chunks` as the upload makes one: take `buckets`, write, finish, submit,
/// recall, end, with the device polled so the chunks come back.
fn staging_frame(gpu: &skinbench::gpu::GpuContext, chunks: &mut StagingChunks, buckets: &[u64]) {
    let target = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("copy target"),
        size: buckets.iter().copied().max().unwrap_or(4),
        usage: wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    for &bucket in buckets {
        let buffer = chunks.take(wgpu::BufferSize::new(bucket).unwrap());
        buffer
            .slice(..4)
            .get_mapped_range_mut()
            .expect("a chunk is handed out mapped")
            .copy_from_slice(&[1, 2, 3, 4]);
        encoder.copy_buffer_to_buffer(&buffer, 0, &target, 0, bucket);
    }
    chunks.finish();
    gpu.queue.submit([encoder.finish()]);
    chunks.recall();
    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    chunks.end_frame();
}

/// A steady frame reuses its chunks; a size no frame asks for any more is dropped
/// `IDLE_FRAMES` frames later, so what is held follows the recent frames, not the largest
/// one; a request never takes (and keeps alive) a larger free chunk.
fn staging_chunks_follow_what_recent_frames_asked_for() {
    let Some(gpu) = common::gpu_context() else {
        common::cannot_run_here()
    };
    let mut chunks = StagingChunks::new(&gpu.device);
    let (small, large) = (1u64 << 20, 64u64 << 20);
    staging_frame(&gpu, &mut chunks, &[large, small]);
    assert_eq!(chunks.held_bytes(), large + small);
    // A small frame takes the small chunk, not the large one beside it.
    staging_frame(&gpu, &mut chunks, &[small]);
    assert_eq!(
        (chunks.held_bytes(), chunks.chunk_count()),
        (large + small, 2)
    );
    for _ in 0..IDLE_FRAMES {
        staging_frame(&gpu, &mut chunks, &[small]);
    }
    assert_eq!(
        (chunks.held_bytes(), chunks.chunk_count()),
        (small, 1),
        "the large chunk no frame asked for is still held"
    );
    // Two chunks of one size in a frame are two chunks, reused as such.
    staging_frame(&gpu, &mut chunks, &[small, small]);
    staging_frame(&gpu, &mut chunks, &[small, small]);
    assert_eq!(chunks.chunk_count(), 2);
    chunks.release_free();
    assert_eq!(chunks.held_bytes(), 0);
}

/// What a soak's checkpoint reads: a large crowd drawn, then the starting crowd for a few
/// frames. The staging memory the upload holds then is what the starting crowd needs, not
/// what the large one did (the staging belt kept a 10,000-character crowd's chunks through
/// 120 small frames, and the first-fit belt handed them to every small frame after, so a
/// soak's floor grew with the largest crowds it had met: 1.1 GiB held for 100 characters).
/// While the large crowd runs, the chunks held stay within the frames the GPU may have in
/// flight, plus the one being written.
fn staging_memory_follows_the_crowd_drawn_now() {
    let Some(gpu) = common::gpu_context() else {
        common::cannot_run_here()
    };
    let rig = Arc::new(PreparedRig::reference());
    let mut settings = common::app_settings(&rig, 8);
    settings.lod.enabled = false;
    let mut scene = Scene::new(
        gpu,
        rig,
        settings,
        wgpu::TextureFormat::Rgba8Unorm,
        (160, 100),
    )
    .unwrap();
    // The upload without the draws: what the staging holds does not depend on them.
    let frame = |scene: &mut Scene| {
        scene
            .frame(Frame {
                draws: false,
                ..Frame::headless(1.0 / 30.0)
            })
            .unwrap();
        assert!(scene.frames_in_flight() <= MAX_FRAMES_IN_FLIGHT);
    };
    for _ in 0..3 {
        frame(&mut scene);
    }
    let small = scene.staging_held_bytes();
    assert!(small > 0, "the starting crowd stages nothing");
    scene.settings_mut().instances = 2_000;
    let mut large = 0;
    for _ in 0..8 {
        frame(&mut scene);
        large = large.max(scene.staging_held_bytes());
    }
    assert!(
        large > 16 * small,
        "{large} bytes staged for 2,000, {small} for 8"
    );
    let per_frame = large.div_ceil((MAX_FRAMES_IN_FLIGHT + 1) as u64);
    assert!(
        scene.staging_held_bytes() <= (MAX_FRAMES_IN_FLIGHT as u64 + 1) * per_frame,
        "{} bytes held",
        scene.staging_held_bytes()
    );
    scene.settings_mut().instances = 8;
    for _ in 0..IDLE_FRAMES as usize + MAX_FRAMES_IN_FLIGHT + 1 {
        frame(&mut scene);
    }
    // A frame still in flight holds its chunk and the next frame makes one of the same
    // size: a GPU that falls behind (a busy machine) holds a small frame's chunk once per
    // frame in flight, and nothing of the 2,000's.
    let back = scene.staging_held_bytes();
    assert!(
        back <= (MAX_FRAMES_IN_FLIGHT as u64 + 1) * small,
        "back at 8 characters the upload holds {back} bytes of staging (the 2,000's \
         frames held {large}; 8 characters need {small} a frame)"
    );
}

/// A large frame's buffers, freed, leave the device memory that wgpu's allocator holds
/// beyond its live allocations within two of its largest blocks, whatever small buffer
/// outlived them. The allocator suballocates buffers from blocks it keeps while anything
/// lives in them and keeps the last empty one, so a small long-lived buffer made while a
/// large crowd's buffers filled the early blocks holds a whole later block: with wgpu's
/// default blocks of up to 256 MiB this pattern held 640 MiB unused, and a soak's floor
/// rose by a block at the frame that first drew a large crowd unlike the warm-up's.
fn freed_large_buffers_leave_no_block_held_by_a_small_one() {
    let Some(gpu) = common::gpu_context() else {
        common::cannot_run_here()
    };
    let device = &gpu.device;
    let Some(before) = gpu.allocator_memory() else {
        // No allocator report on this backend: nothing to read.
        return;
    };
    const MIB: u64 = 1 << 20;
    let buffer = |size: u64| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("soak test buffer"),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let mut large = Vec::new();
    let mut small = Vec::new();
    for _ in 0..12 {
        large.push(buffer(40 * MIB));
        small.push(buffer(64 * 1024));
    }
    drop(large);
    let _ = device.poll(wgpu::PollType::wait_indefinitely());
    let after = gpu.allocator_memory().unwrap();
    let unused = |m: skinbench::gpu::GpuMemory| m.reserved_bytes.saturating_sub(m.allocated_bytes);
    assert!(
        unused(after) <= unused(before) + 2 * skinbench::gpu::MAX_MEMORY_BLOCK_BYTES,
        "after freeing 480 MiB of buffers, 12 buffers of 64 KiB hold {} MiB of device \
         memory in {} blocks ({} MiB in use; before: {} MiB held, {} in use)",
        after.reserved_bytes / MIB,
        after.blocks,
        after.allocated_bytes / MIB,
        before.reserved_bytes / MIB,
        before.allocated_bytes / MIB,
    );
    drop(small);
}

/// Counts the Rust heap, as the app does, so that the soak judges it.
#[global_allocator]
static ALLOCATOR: skinbench::memory::CountingAllocator = skinbench::memory::CountingAllocator;

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "freed_large_buffers_leave_no_block_held_by_a_small_one",
            freed_large_buffers_leave_no_block_held_by_a_small_one,
        ),
        (
            "random_changes_reach_every_setting_and_switch_rigs_cleanly",
            random_changes_reach_every_setting_and_switch_rigs_cleanly,
        ),
        (
            "the_warm_up_draws_crowds_from_the_largest_down",
            the_warm_up_draws_crowds_from_the_largest_down,
        ),
        (
            "the_same_seed_replays_the_same_changes",
            the_same_seed_replays_the_same_changes,
        ),
        (
            "at_its_end_the_soak_returns_to_the_start_and_reads_memory",
            at_its_end_the_soak_returns_to_the_start_and_reads_memory,
        ),
        (
            "a_wgpu_validation_error_fails_the_soak",
            a_wgpu_validation_error_fails_the_soak,
        ),
        (
            "switching_to_a_rig_the_hierarchy_refuses_takes_the_best_that_accepts_it",
            switching_to_a_rig_the_hierarchy_refuses_takes_the_best_that_accepts_it,
        ),
        (
            "a_rig_switch_draws_with_the_same_pipelines",
            a_rig_switch_draws_with_the_same_pipelines,
        ),
        (
            "the_soak_starts_with_every_rig_at_the_largest_crowd",
            the_soak_starts_with_every_rig_at_the_largest_crowd,
        ),
        (
            "a_short_soak_skips_the_warm_up_and_changes_from_its_first_frame",
            a_short_soak_skips_the_warm_up_and_changes_from_its_first_frame,
        ),
        (
            "a_soak_that_made_no_change_fails",
            a_soak_that_made_no_change_fails,
        ),
        (
            "a_leak_of_one_buffer_per_rig_switch_fails_the_soak",
            a_leak_of_one_buffer_per_rig_switch_fails_the_soak,
        ),
        (
            "a_rust_allocation_leaked_per_rig_switch_fails_the_soak",
            a_rust_allocation_leaked_per_rig_switch_fails_the_soak,
        ),
        (
            "the_drivers_heap_is_reported_not_judged",
            the_drivers_heap_is_reported_not_judged,
        ),
        (
            "the_trend_tells_growth_from_one_high_reading",
            the_trend_tells_growth_from_one_high_reading,
        ),
        (
            "gpu_objects_are_judged_on_their_floor",
            gpu_objects_are_judged_on_their_floor,
        ),
        (
            "the_heap_is_judged_on_its_floor",
            the_heap_is_judged_on_its_floor,
        ),
        (
            "staging_chunks_follow_what_recent_frames_asked_for",
            staging_chunks_follow_what_recent_frames_asked_for,
        ),
        (
            "staging_memory_follows_the_crowd_drawn_now",
            staging_memory_follows_the_crowd_drawn_now,
        ),
    ];
    common::run_tests(tests);
}
