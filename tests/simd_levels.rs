//! The lane kernels (skinning, hierarchy, sampling) on both instruction-set paths: whatever
//! the CPU offers (AVX2+FMA on x86-64 machines that have it), then the portable fallback,
//! forced. Without the forcing,
//! an AVX2 machine would never run the portable kernels in a test.
//!
//! One test function on purpose: `force_portable` is process-wide, and this file is its
//! own test process, so nothing else runs while it is set.

mod common;

use std::sync::Arc;

use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::anim::sample::ClipRt;
use skinbench::crowd::verify::{verify_frame, verify_hierarchy};
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig, Schedule};
use skinbench::prepare::PreparedRig;
use skinbench::simd::{SimdLevel, force_portable};
use skinbench::skin::SkinVariant;
use skinbench::variant::Variant;

const SENTINEL: f32 = 1234.5;

/// Runs the lane variants on `instances` instances and checks them against the reference,
/// and that nothing past the last instance's output was written (a partial group's dead
/// lanes must not store; lane blocks are written whole, so their output includes them).
fn check(rig: &Arc<PreparedRig>, instances: usize, level: SimdLevel) {
    let mut crowd = InstanceStore::new();
    crowd.resize(instances, rig, 2.0);
    crowd.advance(0.37);
    let mut packed_bytes = Vec::new();
    let mut packed_vertices = Vec::new();
    for skin in [
        SkinVariant::Simd,
        SkinVariant::Packed,
        SkinVariant::Distinct,
        SkinVariant::Streamed,
        SkinVariant::Pulled,
    ] {
        let config = PipelineConfig {
            hierarchy: HierarchyVariant::Simd,
            skin,
            schedule: Schedule::Fused,
            threads: 1,
            blend_weight: 0.3,
        };
        let mut pipeline = Pipeline::new(rig.clone(), config).unwrap();
        let used = pipeline.output_bytes(instances) / 4;
        // One spare instance's worth of sentinels after the used part.
        let spare = pipeline.output_bytes(1) / 4;
        let mut out = skinbench::crowd::pipeline::output_buffer((used + spare) * 4);
        bytemuck::cast_slice_mut::<_, f32>(&mut out).fill(SENTINEL);
        pipeline
            .run_frame(
                crowd.as_slice(),
                &mut bytemuck::cast_slice_mut(&mut out)[..used * 4],
            )
            .unwrap();
        let label = format!(
            "{} {} instances {} on {}",
            rig.name,
            instances,
            skin.name(),
            level.name()
        );
        let d = verify_frame(
            &pipeline,
            crowd.as_slice(),
            bytemuck::cast_slice(&out),
            usize::MAX,
        );
        assert!(d.relative_position <= 1e-4, "{label}: {d:?}");
        assert!(
            d.max_normal <= skin.output_format().normal_tolerance(),
            "{label}: {d:?}"
        );
        let floats: &[f32] = bytemuck::cast_slice(&out);
        assert!(
            floats[used..].iter().all(|&f| f == SENTINEL),
            "{label}: wrote past the last instance"
        );
        // Skinning a vertex once and storing it to its copies changes nothing: the
        // copies' inputs are bit-identical, so are their results.
        // Lane blocks only move the same vertices elsewhere (`pulled`: a copy is read
        // from its vertex's block).
        let vertices = |out: &[u8]| -> Vec<u32> {
            (0..instances)
                .flat_map(|i| {
                    let (p, n) = skinbench::skin::read_instance(skin, rig, out, i);
                    p.into_iter()
                        .chain(n)
                        .flat_map(|v| v.to_array().map(f32::to_bits))
                })
                .collect()
        };
        match skin {
            SkinVariant::Packed => {
                packed_bytes = floats.to_vec();
                packed_vertices = vertices(bytemuck::cast_slice(&out));
            }
            SkinVariant::Distinct => assert!(
                floats
                    .iter()
                    .map(|f| f.to_bits())
                    .eq(packed_bytes.iter().map(|f| f.to_bits())),
                "{label}: differs from packed"
            ),
            SkinVariant::Streamed | SkinVariant::Pulled => assert!(
                vertices(bytemuck::cast_slice(&out)) == packed_vertices,
                "{label}: differs from packed"
            ),
            _ => {}
        }
        let h = verify_hierarchy(&mut pipeline, crowd.as_slice());
        assert!(h <= 1e-4, "{label}: hierarchy error {h:e}");
    }
}

/// `best_for` picks the lane variants only where they are fast.
fn check_best(level: SimdLevel) {
    let reference = PreparedRig::reference();
    let best = PipelineConfig::best_for(&reference, 1);
    let expected = match level {
        SimdLevel::Portable => (HierarchyVariant::FlatQvs, SkinVariant::Tuned),
        SimdLevel::Avx2Fma => (HierarchyVariant::Simd, SkinVariant::Pulled),
    };
    assert_eq!((best.hierarchy, best.skin), expected, "{}", level.name());
    if let Some(dir) = common::rigs_dir() {
        // flat_qvs refuses this rig, so the portable choice falls back to flat.
        let sheared = PreparedRig::load(&dir.join("FoxVariants/Fox_nonuniform.glb")).unwrap();
        let best = PipelineConfig::best_for(&sheared, 1);
        assert!(best.hierarchy.refusal(&sheared).is_none());
        if level == SimdLevel::Portable {
            assert_eq!(best.hierarchy, HierarchyVariant::Flat);
        }
    }
}

/// The sampler's lane path (eight rotation tracks per vector) against the per-track one.
fn check_sampler(level: SimdLevel) {
    let rig = skinbench::rig::generate::reference_rig();
    let rest = PreparedRig::reference().rest_pose;
    for clip in &rig.clips {
        assert!(ClipRt::new(clip).lane_rotations.is_some());
        let worst = common::lane_vs_per_track(clip, &rest);
        assert!(worst < 2e-6, "{} on {}: {worst}", clip.name, level.name());
    }
}

#[test]
fn lane_kernels_match_the_reference_with_and_without_avx2() {
    let mut rigs = vec![Arc::new(PreparedRig::reference())];
    if let Some(dir) = common::rigs_dir() {
        rigs.push(Arc::new(
            PreparedRig::load(&dir.join("CesiumMan/CesiumMan.glb")).unwrap(),
        ));
    }
    let native = SimdLevel::detect();
    for (portable, level) in [(false, native), (true, SimdLevel::Portable)] {
        force_portable(portable);
        assert_eq!(SimdLevel::detect(), level);
        check_best(level);
        check_sampler(level);
        for rig in &rigs {
            // A full group alone, full groups and a partial one, a partial group alone.
            for instances in [8, 13, 3] {
                check(rig, instances, level);
            }
        }
    }
    force_portable(false);
    assert_eq!(SimdLevel::detect(), native);
}
