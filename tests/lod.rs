#![allow(clippy::single_range_in_vec_init)] // runs of groups are ranges

//! Update-rate LOD without a GPU: the plan (periods, stagger, culling, the dirty check),
//! the persistent output it implies, and the bound it promises (the measured screen-space
//! error stays under the threshold).

mod common;

use std::ops::Range;
use std::sync::Arc;

use glam::Vec2;
use skinbench::crowd::lod::{
    ClipMotion, FloorMeasurement, Lod, LodSettings, LodView, PERIODS, PlanInput, fewest_covering,
    fewest_updates, measure_error,
};
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig, Stage};
use skinbench::gpu::renderer::rig_normalization;
use skinbench::gpu::{CameraStart, OrbitCamera, crowd_extent};
use skinbench::prepare::PreparedRig;
use skinbench::skin::{Dest, OutputBuffer, OutputFormat, SkinMethod, SkinVariant};
use skinbench::types::LANES;
use skinbench::variant::Variant;

const FRAME_SECS: f32 = 1.0 / 60.0;

fn crowd(rig: &PreparedRig, n: usize) -> InstanceStore {
    let mut crowd = InstanceStore::new();
    crowd.resize(n, rig, 1.6);
    crowd
}

/// The street camera over `crowd`, drawn into 1600×900 pixels.
fn street_view(crowd: &InstanceStore) -> LodView {
    let extent = crowd_extent(crowd);
    OrbitCamera::start(CameraStart::Street, extent)
        .lod_view(Vec2::new(1600.0, 900.0), extent + 12.0)
}

/// The crowd from 60 m away, where at 1 and 4 px the clips' speeds give a mix of periods.
fn far_view(crowd: &InstanceStore) -> LodView {
    let camera = OrbitCamera {
        target: glam::Vec3::new(0.0, 0.9, 0.0),
        yaw: 0.55,
        pitch: 0.3,
        distance: 60.0,
    };
    camera.lod_view(Vec2::new(1600.0, 900.0), crowd_extent(crowd) + 12.0)
}

fn on(threshold_px: f32) -> LodSettings {
    LodSettings {
        enabled: true,
        threshold_px,
        max_period: 8,
        ..LodSettings::default()
    }
}

fn input<'a>(rig: &'a PreparedRig, settings: LodSettings, view: &'a LodView) -> PlanInput<'a> {
    PlanInput {
        rig,
        settings,
        view,
        world_from_model: rig_normalization(rig),
        frame_clip_secs: FRAME_SECS,
        blend_weight: 0.0,
        method: SkinMethod::Linear,
        mesh_errors: &[],
        shadow_level: None,
    }
}

fn groups_in(runs: &[Range<usize>]) -> usize {
    runs.iter().map(|r| r.len()).sum()
}

fn lod_off_computes_every_group_every_frame() {
    let rig = PreparedRig::reference();
    let mut crowd = crowd(&rig, 100);
    let view = street_view(&crowd);
    let mut lod = Lod::new();
    for _ in 0..5 {
        let runs = lod.plan(&input(&rig, LodSettings::default(), &view), &mut crowd);
        assert_eq!(runs, &[0..13]);
        assert_eq!(lod.stats().updated, 100);
        assert_eq!(lod.shown(), crowd.as_slice());
        crowd.advance(FRAME_SECS);
    }
}

/// Geometric LOD without update-rate LOD: every group is computed every frame, and the
/// crowd is dealt by level, so every group but one per border between two levels holds
/// one level and is skinned for it; a settled crowd does not move again.
fn mesh_lod_alone_deals_the_crowd_by_level() {
    let rig = PreparedRig::reference();
    let mut crowd = crowd(&rig, 400);
    let errors = skinbench::skin::level_errors::level_errors(&rig)
        .errors
        .clone();
    let settings = LodSettings {
        enabled: false,
        mesh: true,
        threshold_px: 1.0,
        ..LodSettings::default()
    };
    // From 60 m the crowd spans several levels; closer, finer ones.
    let mut camera = OrbitCamera {
        target: glam::Vec3::new(0.0, 0.9, 0.0),
        yaw: 0.55,
        pitch: 0.3,
        distance: 60.0,
    };
    let mut lod = Lod::new();
    let mut moved_in_all = 0;
    for step in 0..6 {
        if step == 3 {
            camera.distance *= 0.5;
        }
        let view = camera.lod_view(Vec2::new(1600.0, 900.0), crowd_extent(&crowd) + 12.0);
        let plan_input = PlanInput {
            mesh_errors: &errors,
            ..input(&rig, settings, &view)
        };
        let before: Vec<_> = crowd.as_slice().to_vec();
        let runs = lod.plan(&plan_input, &mut crowd).to_vec();
        assert_eq!(runs, &[0..400 / LANES], "step {step}");
        assert_eq!(lod.shown(), crowd.as_slice(), "step {step}");
        // Dealt, not changed: the same characters, each once.
        let mut a: Vec<_> = before.iter().map(|i| format!("{i:?}")).collect();
        let mut b: Vec<_> = crowd.as_slice().iter().map(|i| format!("{i:?}")).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "step {step}: dealing changed the crowd");
        let levels = lod.mesh_levels();
        let mut distinct = levels.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() > 1, "step {step}: one level {distinct:?}");
        let mixed = levels
            .chunks(LANES)
            .filter(|group| group.iter().any(|&l| l != group[0]))
            .count();
        assert!(
            mixed < distinct.len(),
            "step {step}: {mixed} groups mix levels {distinct:?}"
        );
        for (g, group) in levels.chunks(LANES).enumerate() {
            assert_eq!(
                lod.skin_levels()[g],
                *group.iter().min().unwrap(),
                "step {step}: group {g}"
            );
        }
        let moved = lod.stats().moved;
        match step {
            // Settled: the same view deals nobody anew.
            1 | 2 | 4 | 5 => assert_eq!(moved, 0, "step {step}: a settled crowd moved"),
            _ => moved_in_all += moved,
        }
        crowd.advance(FRAME_SECS);
    }
    assert!(moved_in_all > 0, "nobody was dealt");
}

fn the_first_lod_frame_and_one_after_invalidate_compute_everything() {
    let rig = PreparedRig::reference();
    let mut crowd = crowd(&rig, 100);
    // From 60 m: near the street camera's corner everyone needs every frame.
    let view = far_view(&crowd);
    let mut lod = Lod::new();
    let settings = on(1.0);
    assert_eq!(
        lod.plan(&input(&rig, settings, &view), &mut crowd),
        &[0..13]
    );
    // From then on only due groups are computed, and characters move only among them.
    let mut computed = Vec::new();
    for _ in 0..3 {
        crowd.advance(FRAME_SECS);
        computed.push(groups_in(
            lod.plan(&input(&rig, settings, &view), &mut crowd),
        ));
        assert!(
            lod.stats().moved <= lod.stats().updated,
            "{:?}",
            lod.stats()
        );
    }
    assert!(
        computed[1..].iter().all(|&c| c < 13),
        "groups computed per frame: {computed:?} of 13"
    );
    lod.invalidate();
    crowd.advance(FRAME_SECS);
    assert_eq!(
        lod.plan(&input(&rig, settings, &view), &mut crowd),
        &[0..13]
    );
}

fn periods_grow_with_distance_and_stay_within_the_cap() {
    let rig = PreparedRig::reference();
    let mut crowd = crowd(&rig, 2000);
    let view = street_view(&crowd);
    for cap in PERIODS {
        let mut lod = Lod::new();
        // At 1 px and 60 Hz a walking hand (3.9 m/s) may skip a frame only beyond ~100 m;
        // 10 px spreads this crowd over every period.
        let settings = LodSettings {
            max_period: cap,
            ..on(10.0)
        };
        lod.plan(&input(&rig, settings, &view), &mut crowd);
        lod.plan(&input(&rig, settings, &view), &mut crowd);
        let stats = lod.stats();
        assert_eq!(stats.at_period.iter().sum::<usize>() + stats.culled, 2000);
        for (k, &p) in PERIODS.iter().enumerate() {
            if p > cap {
                assert_eq!(stats.at_period[k], 0, "cap {cap}: {stats:?}");
            }
        }
        if cap == 8 {
            // From the corner at eye height: the nearest characters need every frame, the
            // far side of the crowd every eighth, and some stand outside the view.
            assert!(stats.at_period[0] > 0, "{stats:?}");
            assert!(stats.at_period[3] > 0, "{stats:?}");
            assert!(stats.culled > 0, "{stats:?}");
        }
    }
}

fn updates_are_staggered_in_runs() {
    let rig = PreparedRig::reference();
    let mut crowd = crowd(&rig, 4000);
    let view = street_view(&crowd);
    let mut lod = Lod::new();
    let settings = on(1.0);
    lod.plan(&input(&rig, settings, &view), &mut crowd);
    let mut counts = Vec::new();
    for _ in 0..16 {
        crowd.advance(FRAME_SECS);
        let runs = lod.plan(&input(&rig, settings, &view), &mut crowd);
        assert!(
            runs.windows(2).all(|w| w[0].end < w[1].start),
            "runs merge: {runs:?}"
        );
        counts.push(lod.stats().updated);
    }
    let (min, max) = (*counts.iter().min().unwrap(), *counts.iter().max().unwrap());
    // Without the stagger every eighth frame would update all period-8 groups at once.
    assert!(
        max - min <= max / 2,
        "updates per frame vary too much: {counts:?} (stagger)"
    );
}

fn paused_and_still_characters_are_not_recomputed() {
    let rig = PreparedRig::reference();
    let mut crowd = crowd(&rig, 40);
    let view = street_view(&crowd);
    let mut lod = Lod::new();
    let settings = LodSettings {
        max_period: 1,
        ..on(1.0)
    };
    lod.plan(&input(&rig, settings, &view), &mut crowd);
    // Paused: nothing advances, so nothing is due a recomputation.
    let runs = lod.plan(&input(&rig, settings, &view), &mut crowd);
    assert!(runs.is_empty(), "{runs:?}");
    assert_eq!(lod.stats().unchanged, 40);
    // Speed 0 for the first group only: the other groups move and are recomputed.
    for i in 0..LANES {
        crowd.as_mut_slice()[i].speed = 0.0;
    }
    lod.plan(&input(&rig, settings, &view), &mut crowd);
    crowd.advance(FRAME_SECS);
    let runs = lod.plan(&input(&rig, settings, &view), &mut crowd);
    assert_eq!(runs, &[1..5]);
    assert_eq!(lod.stats().unchanged, LANES);
}

fn characters_outside_the_view_are_culled_at_the_longest_period() {
    let rig = PreparedRig::reference();
    let mut crowd = crowd(&rig, 64);
    // Looking straight up from below the ground: nobody in view.
    let view = LodView::new(
        glam::Mat4::look_at_rh(
            glam::Vec3::new(0.0, -50.0, 0.0),
            glam::Vec3::new(0.0, -100.0, 0.0),
            glam::Vec3::X,
        ),
        OrbitCamera::FOV_Y_RAD,
        OrbitCamera::NEAR,
        500.0,
        Vec2::new(800.0, 600.0),
    );
    let mut lod = Lod::new();
    lod.plan(&input(&rig, on(1.0), &view), &mut crowd);
    lod.plan(&input(&rig, on(1.0), &view), &mut crowd);
    assert_eq!(lod.stats().culled, 64);
    assert!(lod.visible().iter().all(|v| !v));
}

fn a_clips_sphere_holds_every_pose() {
    let rig = Arc::new(PreparedRig::reference());
    let crowd = crowd(&rig, 24);
    let config = PipelineConfig::best_for(&rig, 1);
    let mut pipeline = Pipeline::new(rig.clone(), config).unwrap();
    let layout = *pipeline.output_layout();
    let mut out = OutputBuffer::for_instances(&layout, crowd.len());
    pipeline.run_frame(crowd.as_slice(), &mut out).unwrap();
    for (k, instance) in crowd.as_slice().iter().enumerate() {
        let motion = ClipMotion::measure(&rig, instance.clip, None, SkinMethod::Linear, None);
        assert!(motion.max_vertex_speed > 0.0);
        let (positions, _) = layout.read_instance(&rig.mesh, out.as_bytes(), k).unwrap();
        for p in positions {
            let d = p.distance(motion.center);
            assert!(d <= motion.radius * 1.0001, "{d} outside {motion:?}");
        }
    }
}

/// Runs `frames` LOD frames of `skin` into one persistent buffer, computing only the
/// planned groups, and checks after each that the buffer holds exactly what a full frame
/// of the shown instances computes, and that the screen-space error stays under the
/// threshold.
fn lod_frames_keep_the_shown_poses(skin: SkinVariant, threads: usize, threshold_px: f32) {
    let rig = Arc::new(PreparedRig::reference());
    let mut crowd = crowd(&rig, 150);
    let view = far_view(&crowd);
    let config = PipelineConfig {
        skin,
        ..PipelineConfig::best_for(&rig, threads)
    };
    let mut pipeline = Pipeline::new(rig.clone(), config).unwrap();
    let mut check = Pipeline::new(rig.clone(), config).unwrap();
    let mut aside = Pipeline::new(rig.clone(), PipelineConfig::best_for(&rig, threads)).unwrap();
    let layout = *pipeline.output_layout();
    let mut out = OutputBuffer::for_instances(&layout, crowd.len());
    let mut full = OutputBuffer::for_instances(&layout, crowd.len());
    let mut lod = Lod::new();
    let settings = on(threshold_px);
    let mut partial_frames = 0;
    let mut worst_px = 0.0f32;
    for frame in 0..9 {
        let runs = lod.plan(&input(&rig, settings, &view), &mut crowd).to_vec();
        if frame > 0 && groups_in(&runs) < crowd.len().div_ceil(LANES) {
            partial_frames += 1;
        }
        let mut outs = Vec::new();
        let mut rest = Dest::from_mut(out.as_bytes_mut());
        let mut at = 0;
        for run in &runs {
            let start = run.start * layout.group_bytes();
            let count = crowd.len().min(run.end * LANES) - run.start * LANES;
            let (_, tail) = rest.split_at(start - at);
            let (this, tail) = tail.split_at(layout.bytes(count));
            outs.push(this);
            rest = tail;
            at = start + layout.bytes(count);
        }
        pipeline
            .run_groups_into(crowd.as_slice(), &runs, &mut outs, Stage::Skin)
            .unwrap();
        check.run_frame(lod.shown(), &mut full).unwrap();
        // Instance by instance (a partial last group's unused lanes hold whatever the
        // worker's scratch had, in both buffers).
        for i in 0..crowd.len() {
            let decode = |bytes: &[u8]| match layout.format() {
                OutputFormat::Palette3x4 => layout
                    .read_palettes(&rig, bytes, i)
                    .map(|p| format!("{p:?}"))
                    .unwrap(),
                OutputFormat::PaletteDualQuat => layout
                    .read_dual_quats(&rig, bytes, i)
                    .map(|p| format!("{p:?}"))
                    .unwrap(),
                _ => String::new(),
            };
            let vertices = |bytes: &[u8]| match layout.format() {
                OutputFormat::Palette3x4 | OutputFormat::PaletteDualQuat => None,
                _ => Some(layout.read_instance(&rig.mesh, bytes, i).unwrap()),
            };
            assert!(
                vertices(out.as_bytes()) == vertices(full.as_bytes()),
                "{}: frame {frame}: instance {i} is not its shown pose (runs {runs:?})",
                skin.name()
            );
            assert!(
                decode(out.as_bytes()) == decode(full.as_bytes()),
                "{}: frame {frame}: instance {i} is not its shown pose (runs {runs:?})",
                skin.name()
            );
        }
        let error = measure_error(
            &mut aside,
            lod.shown(),
            crowd.as_slice(),
            lod.visible(),
            rig_normalization(&rig),
            &view,
            None,
        )
        .unwrap();
        worst_px = worst_px.max(error.max_px);
        assert!(
            error.max_px <= settings.threshold_px,
            "{}: frame {frame}: {error:?}",
            skin.name()
        );
        crowd.advance(FRAME_SECS);
    }
    assert!(partial_frames > 0, "no frame skipped any group");
    assert!(worst_px > 0.0, "no visible character was ever shown late");
    eprintln!(
        "{}: worst error {worst_px} px of {threshold_px}",
        skin.name()
    );
}

macro_rules! lod_frame_cases {
    ($($name:ident: $skin:path,)*) => {
        /// The case named for `skin`: an exhaustive match, so a variant added without a
        /// case does not compile.
        fn lod_frame_case(skin: SkinVariant) -> &'static str {
            match skin {
                $( $skin => stringify!($name), )*
            }
        }

        mod lod_frames_keep_the_shown_poses {
            use super::*;

            /// The cases, for the harness.
            pub(super) fn tests() -> Vec<(&'static str, fn())> {
                vec![$(
                    (concat!("lod_frames_keep_the_shown_poses::", stringify!($name)), $name as fn()),
                )*]
            }

            $(
                fn $name() {
                    // 1 px (the default) and 4 px, where more characters skip frames and
                    // the bound is nearer the measured error.
                    for threads in common::thread_counts() {
                        for threshold_px in [1.0, 4.0] {
                            lod_frames_keep_the_shown_poses($skin, threads, threshold_px);
                        }
                    }
                }
            )*
        }
    };
}

lod_frame_cases! {
    naive: SkinVariant::Naive,
    split: SkinVariant::Split,
    float4: SkinVariant::Float4,
    sorted: SkinVariant::Sorted,
    tuned: SkinVariant::Tuned,
    simd: SkinVariant::Simd,
    packed: SkinVariant::Packed,
    distinct: SkinVariant::Distinct,
    streamed: SkinVariant::Streamed,
    pulled: SkinVariant::Pulled,
    gpu_compute: SkinVariant::GpuCompute,
    gpu_vertex: SkinVariant::GpuVertex,
}

fn every_skin_variant_has_a_lod_frame_case() {
    // Each case is named as its variant (the CLI's name), so a failure names the variant.
    for &skin in SkinVariant::ALL {
        assert_eq!(lod_frame_case(skin), skin.name());
    }
}

fn lod_settings_refuse_bad_values() {
    assert!(LodSettings::check_threshold(0.0).is_err());
    assert!(LodSettings::check_threshold(f32::NAN).is_err());
    assert!(LodSettings::check_threshold(1.0).is_ok());
    assert!(LodSettings::check_max_period(3).is_err());
    assert_eq!(LodSettings::check_max_period(4), Ok(4));
}

/// The projection's stretch of a displacement: none for a point straight ahead, the
/// frustum corner's at most, and in between by where the sphere reaches.
fn off_axis_stretch_follows_the_sphere_and_stops_at_the_frustum() {
    let view = LodView::new(
        glam::Mat4::IDENTITY,
        40f32.to_radians(),
        0.1,
        500.0,
        Vec2::new(1600.0, 900.0),
    );
    let corner = (1.0 + view.tan_half_fov.length_squared()).sqrt();
    let ahead = glam::Vec3::new(0.0, 0.0, -10.0);
    assert_eq!(view.off_axis(ahead, 0.0, 10.0), 1.0);
    let reaching = view.off_axis(ahead, 1.0, 9.0);
    let expected = (1.0f32 + 2.0 * (1.0 / 9.0f32).powi(2)).sqrt();
    assert!((reaching - expected).abs() < 1e-6, "{reaching} {expected}");
    let aside = glam::Vec3::new(100.0, 100.0, -10.0);
    assert_eq!(view.off_axis(aside, 1.0, 9.0), corner);
    assert!(reaching < corner);
}

/// The f64 oracle's vertex positions of `clip` (blended towards `blend` when given) at
/// `time_secs`.
fn oracle_positions(
    rig: &PreparedRig,
    clip: u16,
    blend: Option<(u16, f32)>,
    time_secs: f32,
) -> Vec<glam::DVec3> {
    use skinbench::anim::blend::blend_reference;
    use skinbench::anim::hierarchy::reference::{self, LocalF64};
    use skinbench::anim::sample::sample_clip;
    let sample = |c: u16| {
        let mut locals = rig.rest_pose.clone();
        sample_clip(
            &rig.clips[c as usize],
            &rig.rest_pose,
            time_secs,
            &mut locals,
        );
        locals
    };
    let pose: Vec<LocalF64> = match blend {
        Some((other, weight)) => blend_reference(&sample(clip), &sample(other), weight as f64),
        None => sample(clip).iter().map(LocalF64::from).collect(),
    };
    let model = reference::model_from_joint_f64(&rig.skeleton, &pose);
    let palette = reference::palette(&rig.skeleton, &model);
    skinbench::skin::reference::skin(&rig.source_mesh, &palette).0
}

/// `ClipMotion::travel` is an upper bound: for pairs of clip times a few frames apart (at
/// any phase, across the loop's wrap, backwards, and a long way apart), no vertex of the
/// oracle's poses moves farther than it says; and it is never looser than the clip's
/// fastest speed times the time between (the bound it replaces).
fn travel_bounds_every_vertex(rig: &PreparedRig) {
    let mut random = skinbench::crowd::instances::SplitMix64(17);
    let size = rig.model_size as f64;
    let mut blends: Vec<Option<(u16, f32)>> = vec![None];
    if rig.clips.len() > 1 {
        blends.push(Some((1, 0.3)));
    }
    for clip in 0..rig.clips.len() as u16 {
        for &blend in &blends {
            let motion = ClipMotion::measure(rig, clip, blend, SkinMethod::Linear, None);
            let duration = rig.clips[clip as usize].duration_secs;
            if let Some((other, _)) = blend {
                // Two loops of different lengths repeat only when they align: no table of
                // one loop bounds their cross-fade, and LOD does not pretend one does.
                let other_secs = rig.clips[other as usize].duration_secs;
                assert_eq!(
                    motion.is_unbounded(),
                    other_secs != duration,
                    "{}",
                    rig.name
                );
                if motion.is_unbounded() {
                    assert_eq!(motion.travel(0.0, FRAME_SECS), f32::INFINITY);
                    sphere_holds_every_pose(rig, &motion, clip, blend, duration.max(other_secs));
                    continue;
                }
            }
            // Sampling wraps an f32 time into the loop in f32 (one ulp of the duration off
            // the f64 that `travel` reads), so the poses compared may be that much further
            // apart in time than the bound was asked about.
            let rounding =
                motion.max_vertex_speed as f64 * 2.0 * (duration as f64 * f32::EPSILON as f64);
            let mut tight = 0.0f64;
            for k in 0..400 {
                let from = (random.unit() * 3.0 - 1.0) * duration;
                let gap = match k % 4 {
                    // Up to seven frames at up to twice the speed, either way.
                    0 => (random.unit() * 2.0 - 1.0) * 7.0 * 2.0 * FRAME_SECS,
                    // Within one measured step or two (where a vertex may turn or peak
                    // between the measured poses).
                    1 | 2 => random.unit() / 120.0,
                    // Across whole loops.
                    _ => random.unit() * 3.0 * duration,
                };
                let to = from + gap;
                let a = oracle_positions(rig, clip, blend, from);
                let b = oracle_positions(rig, clip, blend, to);
                let farthest = a
                    .iter()
                    .zip(&b)
                    .map(|(p, q)| p.distance(*q))
                    .fold(0.0f64, f64::max);
                let bound = motion.travel(from, to) as f64;
                assert!(
                    farthest <= bound * (1.0 + 1e-9) + rounding + size * 1e-12,
                    "{} clip {clip} blend {blend:?}: from {from} to {to}: a vertex moved \
                     {farthest}, travel says {bound}",
                    rig.name
                );
                // Each end's part of a step may add 2 % of a step at the fastest speed.
                let slack = 2.0 * 0.02 * motion.max_vertex_speed as f64 / 240.0;
                let old = motion.max_vertex_speed as f64 * (to - from).abs() as f64;
                assert!(
                    bound <= old * (1.0 + 1e-6) + slack || bound <= 2.0 * motion.radius as f64,
                    "{} clip {clip}: travel {bound} is looser than the fastest speed's {old}",
                    rig.name
                );
                if bound > 0.0 {
                    tight = tight.max(farthest / bound);
                }
            }
            eprintln!(
                "{} clip {clip} blend {blend:?}: tightest pair {tight:.3}",
                rig.name
            );
        }
    }
}

/// A cross-fade of two loops of different lengths has no table of travel, but its sphere
/// still holds every vertex of every pose it shows: at clip times over several of the
/// longer loop (which pair times of the two loops the measured grid did not), no vertex of
/// the oracle's poses lies outside it.
fn sphere_holds_every_pose(
    rig: &PreparedRig,
    motion: &ClipMotion,
    clip: u16,
    blend: Option<(u16, f32)>,
    longer_secs: f32,
) {
    assert!(motion.radius.is_finite(), "{}: no sphere", rig.name);
    let mut random = skinbench::crowd::instances::SplitMix64(29);
    let center = motion.center.as_dvec3();
    let mut nearest_miss = f64::INFINITY;
    for _ in 0..200 {
        let time_secs = random.unit() * 4.0 * longer_secs;
        for p in oracle_positions(rig, clip, blend, time_secs) {
            let inside = motion.radius as f64 - p.distance(center);
            assert!(
                inside >= -(motion.radius as f64) * 1e-6,
                "{} clip {clip} blend {blend:?} at {time_secs}: a vertex lies {} outside \
                 the sphere of radius {}",
                rig.name,
                -inside,
                motion.radius
            );
            nearest_miss = nearest_miss.min(inside);
        }
    }
    eprintln!(
        "{} clip {clip} blend {blend:?}: sphere {:.3}, nearest vertex {nearest_miss:.3} inside",
        rig.name, motion.radius
    );
}

fn tiny_rig(tiny: common::TinyGltf) -> PreparedRig {
    let (rig, report) = skinbench::rig::import_slice(&tiny.glb_bytes(), "tiny.glb", None).unwrap();
    PreparedRig::new(rig, &report, "tiny.glb").unwrap()
}

macro_rules! travel_cases {
    ($($name:ident: $file:expr,)*) => {
        mod travel_bounds_every_vertex {
            use super::*;

            /// The cases, for the harness.
            pub(super) fn tests() -> Vec<(&'static str, fn())> {
                let mut tests: Vec<(&'static str, fn())> = vec![
                    ("travel_bounds_every_vertex::reference", reference),
                    ("travel_bounds_every_vertex::twist", twist),
                    ("travel_bounds_every_vertex::tiny_jump_at_the_wrap", tiny_jump_at_the_wrap),
                    ("travel_bounds_every_vertex::tiny_step_keys", tiny_step_keys),
                ];
                tests.extend([$(
                    (concat!("travel_bounds_every_vertex::", stringify!($name)), $name as fn()),
                )*]);
                tests
            }

            fn reference() {
                travel_bounds_every_vertex(&PreparedRig::reference());
            }
            fn twist() {
                travel_bounds_every_vertex(&PreparedRig::built_in(
                    skinbench::rig::generate::BuiltInRig::Twist,
                ));
            }
            /// A loop whose ends differ: it jumps back to its first pose at the wrap.
            fn tiny_jump_at_the_wrap() {
                travel_bounds_every_vertex(&tiny_rig(common::TinyGltf::new()));
            }
            /// STEP keys: the pose jumps at each key, inside whatever step holds it.
            fn tiny_step_keys() {
                let mut tiny = common::TinyGltf::new();
                let half = std::f32::consts::FRAC_1_SQRT_2;
                tiny.times = vec![0.0, 0.37, 1.0];
                tiny.rotations = vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, half, half, 0.0, 0.0, 0.0, 1.0];
                tiny.json["animations"][0]["samplers"][0]["interpolation"] =
                    serde_json::json!("STEP");
                travel_bounds_every_vertex(&tiny_rig(tiny));
            }
            $(
                fn $name() {
                    let Some(dir) = common::rigs_dir() else { common::cannot_run_here() };
                    travel_bounds_every_vertex(&PreparedRig::load(&dir.join($file)).unwrap());
                }
            )*
        }
    };
}

travel_cases! {
    simple_skin: "SimpleSkin/SimpleSkin.gltf",
    rigged_simple: "RiggedSimple/RiggedSimple.gltf",
    fox: "Fox/Fox.glb",
    cesium_man: "CesiumMan/CesiumMan.glb",
    fox_cubicspline: "FoxVariants/Fox_cubicspline.glb",
    fox_nonuniform: "FoxVariants/Fox_nonuniform.glb",
    fox_8influences: "FoxVariants/Fox_8influences.glb",
}

fn every_public_rig_has_a_travel_case() {
    // The macro above names each public rig; this fails when one is added without a case.
    assert_eq!(common::PUBLIC_RIGS.len(), 7);
}

/// Why the bound follows the phase: a running hand is fast mid-swing and slow at the
/// swing's ends, so one frame's travel differs along the clip, and a static clip moves
/// nothing.
fn travel_follows_the_clip_phase() {
    let rig = PreparedRig::reference();
    let run = rig.clips.iter().position(|c| c.name == "run").unwrap() as u16;
    let motion = ClipMotion::measure(&rig, run, None, SkinMethod::Linear, None);
    let duration = rig.clips[run as usize].duration_secs;
    let frames: Vec<f32> = (0..64)
        .map(|k| {
            let t = duration * k as f32 / 64.0;
            motion.travel(t, t + FRAME_SECS)
        })
        .collect();
    let fastest = frames.iter().copied().fold(0.0f32, f32::max);
    let slowest = frames.iter().copied().fold(f32::INFINITY, f32::min);
    assert!(
        slowest < 0.75 * fastest,
        "one frame's travel along the run: {slowest} to {fastest}"
    );
    // Never looser than the fastest speed's bound, but for each end's 2 % of a step.
    let slack = 2.0 * 0.02 * motion.max_vertex_speed / 240.0;
    assert!(fastest <= motion.max_vertex_speed * FRAME_SECS * 1.0001 + slack);
    assert_eq!(motion.travel(0.3, 0.3), 0.0);
    assert_eq!(motion.travel(0.3, f32::NAN), f32::INFINITY);
    assert_eq!(motion.travel(0.2, 0.5), motion.travel(0.5, 0.2));
}

/// LOD frames on the built-in rig's crowd, each checked against a full-rate frame skinned
/// aside.
struct ErrorRun {
    rig: Arc<PreparedRig>,
    crowd: InstanceStore,
    lod: Lod,
    aside: Pipeline,
}

impl ErrorRun {
    fn reference(characters: usize) -> Self {
        let rig = Arc::new(PreparedRig::reference());
        ErrorRun {
            crowd: crowd(&rig, characters),
            aside: Pipeline::new(rig.clone(), PipelineConfig::best_for(&rig, 1)).unwrap(),
            lod: Lod::new(),
            rig,
        }
    }

    /// Runs `frames` LOD frames of `frame_secs` with `view` and returns the largest error
    /// measured over them (every visible stale character, every frame).
    fn worst_error(&mut self, view: &LodView, frames: usize, frame_secs: f32) -> f32 {
        let mut worst = 0.0f32;
        for _ in 0..frames {
            self.crowd.advance(frame_secs);
            let input = PlanInput {
                frame_clip_secs: frame_secs,
                ..input(&self.rig, on(1.0), view)
            };
            self.lod.plan(&input, &mut self.crowd);
            let error = measure_error(
                &mut self.aside,
                self.lod.shown(),
                self.crowd.as_slice(),
                self.lod.visible(),
                rig_normalization(&self.rig),
                view,
                None,
            )
            .unwrap();
            worst = worst.max(error.max_px);
        }
        worst
    }
}

/// The prediction assumed the camera stays: when it comes closer, the characters whose
/// shown pose is now over the threshold are recomputed at once, before their period is up,
/// and the frame keeps the bound.
fn a_camera_coming_closer_forces_updates_before_the_period_is_up() {
    let mut run = ErrorRun::reference(400);
    let far = OrbitCamera {
        target: glam::Vec3::new(0.0, 0.9, 0.0),
        yaw: 0.55,
        pitch: 0.3,
        distance: 150.0,
    };
    let far_view = far.lod_view(Vec2::new(1600.0, 900.0), 200.0);
    let worst_far = run.worst_error(&far_view, 12, FRAME_SECS);
    assert!(worst_far <= 1.0, "{worst_far}");
    let near_view = OrbitCamera {
        distance: 40.0,
        ..far
    }
    .lod_view(Vec2::new(1600.0, 900.0), 200.0);
    let mut forced = 0;
    let mut worst_near = 0.0f32;
    for _ in 0..3 {
        worst_near = worst_near.max(run.worst_error(&near_view, 1, FRAME_SECS));
        forced += run.lod.stats().forced;
    }
    assert!(
        forced > 0,
        "nothing was recomputed early: {:?}",
        run.lod.stats()
    );
    assert!(worst_near <= 1.0, "{worst_near} px after the camera moved");
}

/// A frame that takes longer than the ones before moves every character further than the
/// periods were chosen for: the check against the shown pose catches it.
fn a_long_frame_forces_updates_and_keeps_the_bound() {
    let mut run = ErrorRun::reference(400);
    let view = far_view(&run.crowd);
    run.worst_error(&view, 12, FRAME_SECS);
    let worst = run.worst_error(&view, 1, 5.0 * FRAME_SECS);
    assert!(run.lod.stats().forced > 0, "{:?}", run.lod.stats());
    assert!(worst <= 1.0, "{worst} px after a long frame");
}

/// The floor is what no schedule beats: LOD's own recomputations (a schedule that keeps
/// every frame within the threshold, as the tests above check) never go below it, and a
/// larger threshold never raises it.
fn lod_never_beats_the_fewest_updates_possible() {
    let rig = Arc::new(PreparedRig::reference());
    let mut crowd = crowd(&rig, 200);
    let view = far_view(&crowd);
    let mut aside = Pipeline::new(rig.clone(), PipelineConfig::best_for(&rig, 1)).unwrap();
    let mut lod = Lod::new();
    lod.plan(&input(&rig, on(1.0), &view), &mut crowd);
    let measurement = FloorMeasurement {
        crowd: crowd.as_slice(),
        visible: lod.visible(),
        world_from_model: rig_normalization(&rig),
        view: &view,
        frame_clip_secs: FRAME_SECS,
        thresholds_px: &[1.0, 4.0],
        max_period: 8,
        sample: usize::MAX,
        frames: 64,
    };
    let floors = fewest_updates(&mut aside, &measurement).unwrap();
    assert_eq!(floors[0].sampled, floors[0].visible);
    assert!(floors[0].updates_per_frame > 0.0, "{floors:?}");
    assert!(
        floors[1].updates_per_frame <= floors[0].updates_per_frame,
        "{floors:?}"
    );
    let mut updated = 0;
    let frames = 64;
    for _ in 0..frames {
        crowd.advance(FRAME_SECS);
        lod.plan(&input(&rig, on(1.0), &view), &mut crowd);
        updated += lod.stats().updated;
    }
    let lod_per_frame = updated as f64 / frames as f64;
    assert!(
        lod_per_frame >= floors[0].updates_per_frame,
        "LOD recomputed {lod_per_frame} a frame, fewer than the floor {floors:?}"
    );
    eprintln!(
        "LOD {lod_per_frame:.1} a frame, floor {:.1}",
        floors[0].updates_per_frame
    );
}

/// The shortest schedule through an error table, on tables whose answer is known.
fn fewest_covering_finds_the_shortest_schedule() {
    let (frames, cap) = (16, 8);
    let any: Vec<usize> = (1..=cap).collect();
    let periods = [1, 2, 4, 8];
    let still = vec![0.0; frames * cap];
    let moving = vec![5.0; frames * cap];
    // Nothing moves: one update covers eight frames.
    assert_eq!(fewest_covering(&still, frames, cap, &any, 1.0), 2);
    assert_eq!(fewest_covering(&still, frames, cap, &periods, 1.0), 2);
    // Everything moves too much: every frame.
    assert_eq!(fewest_covering(&moving, frames, cap, &any, 1.0), frames);
    // A pose may be shown one frame late, never two: every other frame.
    let mut error = vec![5.0; frames * cap];
    for u in 0..frames {
        error[u * cap + 1] = 0.5;
    }
    assert_eq!(fewest_covering(&error, frames, cap, &any, 1.0), 8);
    // Only frame 3's pose lasts: the shortest way through takes it.
    let mut error = vec![5.0; frames * cap];
    for j in 1..cap {
        error[3 * cap + j] = 0.0;
    }
    for u in [0, 1, 2] {
        error[u * cap + 1] = 0.0;
    }
    for j in 1..6 {
        error[11 * cap + j] = 0.0;
    }
    // 0 (covers 0-1), 2 (covers 2), 3 (covers 3-10), 11 (covers 11-15): 4 updates.
    assert_eq!(fewest_covering(&error, frames, cap, &any, 1.0), 4);
    assert_eq!(fewest_covering(&error, frames, cap, &periods, 1.0), 4);
    // Frame 0's pose lasts three frames, frame 3's to the end (five): any gaps take 0 and
    // 3; gaps of 1, 2, 4, 8 cannot stop at 3 from 0, so 0, 2, 3.
    let frames = 8;
    let mut error = vec![5.0; frames * cap];
    error[1..3].fill(0.0);
    for j in 1..5 {
        error[3 * cap + j] = 0.0;
    }
    assert_eq!(fewest_covering(&error, frames, cap, &any, 1.0), 2);
    assert_eq!(fewest_covering(&error, frames, cap, &periods, 1.0), 3);
}

fn main() {
    let mut tests: Vec<(&'static str, fn())> = vec![
        (
            "lod_off_computes_every_group_every_frame",
            lod_off_computes_every_group_every_frame,
        ),
        (
            "mesh_lod_alone_deals_the_crowd_by_level",
            mesh_lod_alone_deals_the_crowd_by_level,
        ),
        (
            "the_first_lod_frame_and_one_after_invalidate_compute_everything",
            the_first_lod_frame_and_one_after_invalidate_compute_everything,
        ),
        (
            "periods_grow_with_distance_and_stay_within_the_cap",
            periods_grow_with_distance_and_stay_within_the_cap,
        ),
        (
            "updates_are_staggered_in_runs",
            updates_are_staggered_in_runs,
        ),
        (
            "paused_and_still_characters_are_not_recomputed",
            paused_and_still_characters_are_not_recomputed,
        ),
        (
            "characters_outside_the_view_are_culled_at_the_longest_period",
            characters_outside_the_view_are_culled_at_the_longest_period,
        ),
        (
            "a_clips_sphere_holds_every_pose",
            a_clips_sphere_holds_every_pose,
        ),
        (
            "every_skin_variant_has_a_lod_frame_case",
            every_skin_variant_has_a_lod_frame_case,
        ),
        (
            "lod_settings_refuse_bad_values",
            lod_settings_refuse_bad_values,
        ),
        (
            "off_axis_stretch_follows_the_sphere_and_stops_at_the_frustum",
            off_axis_stretch_follows_the_sphere_and_stops_at_the_frustum,
        ),
        (
            "every_public_rig_has_a_travel_case",
            every_public_rig_has_a_travel_case,
        ),
        (
            "travel_follows_the_clip_phase",
            travel_follows_the_clip_phase,
        ),
        (
            "a_camera_coming_closer_forces_updates_before_the_period_is_up",
            a_camera_coming_closer_forces_updates_before_the_period_is_up,
        ),
        (
            "a_long_frame_forces_updates_and_keeps_the_bound",
            a_long_frame_forces_updates_and_keeps_the_bound,
        ),
        (
            "lod_never_beats_the_fewest_updates_possible",
            lod_never_beats_the_fewest_updates_possible,
        ),
        (
            "fewest_covering_finds_the_shortest_schedule",
            fewest_covering_finds_the_shortest_schedule,
        ),
    ];
    tests.extend(lod_frames_keep_the_shown_poses::tests());
    tests.extend(travel_bounds_every_vertex::tests());
    common::run_tests(tests);
}
