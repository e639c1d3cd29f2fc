//! The lane kernels (skinning with both methods, hierarchy, sampling) at every SIMD level
//! the CPU has (AVX-512 wide, AVX-512, AVX2+FMA, portable), each forced in turn: without the forcing, a machine
//! would only ever test its best level. The conformance tests also run every lane variant
//! at every level, each case with its own pipeline level; this file adds what needs the
//! process-wide level: the variant choice of `best_for`, the sampler, the bits compared
//! across levels.
//!
//! One test function on purpose: `force_level` is process-wide, and this file is its own
//! test process, so nothing else runs while it is set.

mod common;

use std::sync::Arc;

use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::anim::sample::ClipRt;
use skinbench::crowd::verify::{verify_frame, verify_hierarchy};
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig, Schedule, Stage};
use skinbench::prepare::PreparedRig;
use skinbench::simd::{SimdLevel, force_level};
use skinbench::skin::{OutputBuffer, OutputFormat, OutputLayout, SkinMethod, SkinVariant};
use skinbench::types::LANES;
use skinbench::variant::Variant;

const SENTINEL: f32 = 1234.5;

/// Runs the lane variants on `instances` instances and checks them against the reference,
/// and that nothing past the last instance's output was written (a partial group's dead
/// lanes must not store; lane blocks are written whole, so their output includes them).
/// Returns every variant's output bytes, for comparing levels. `pipeline_level` sets the
/// pipelines' own level (else they run at the process's).
fn check(
    rig: &Arc<PreparedRig>,
    instances: usize,
    level: SimdLevel,
    pipeline_level: Option<SimdLevel>,
) -> Vec<Vec<u8>> {
    let mut outputs = Vec::new();
    let mut crowd = InstanceStore::new();
    crowd.resize(instances, rig, 2.0);
    crowd.advance(0.37);
    // Both methods: the dual quaternions have a paired blend of their own at AVX-512 wide.
    for &method in SkinMethod::ALL {
        let mut first_packed: Option<(OutputLayout, Vec<f32>, Vec<u32>)> = None;
        // The lane variants, by their declared lane width.
        for &skin in SkinVariant::ALL.iter().filter(|s| s.spec().lanes == LANES) {
            let config = PipelineConfig {
                hierarchy: HierarchyVariant::Simd,
                skin,
                schedule: Schedule::Fused,
                threads: 1,
                blend_weight: 0.3,
                method,
            };
            let mut pipeline = Pipeline::new(rig.clone(), config).unwrap();
            pipeline.set_simd_level(pipeline_level).unwrap();
            assert_eq!(pipeline.simd_level(), level);
            let used = pipeline.output_bytes(instances) / 4;
            // One spare instance's worth of sentinels after the used part.
            let spare = pipeline.output_bytes(1) / 4;
            let mut out = OutputBuffer::zeroed((used + spare) * 4);
            bytemuck::cast_slice_mut::<_, f32>(out.as_bytes_mut()).fill(SENTINEL);
            pipeline
                .run_frame_until(
                    crowd.as_slice(),
                    &mut out.as_bytes_mut()[..used * 4],
                    Stage::Skin,
                )
                .unwrap();
            let label = format!(
                "{} {} instances {} {} on {}",
                rig.name,
                instances,
                skin.name(),
                method.name(),
                level.label()
            );
            let d = verify_frame(&pipeline, crowd.as_slice(), out.as_bytes(), usize::MAX).unwrap();
            assert!(d.relative_position <= 1e-4, "{label}: {d:?}");
            assert!(d.normal_excess <= 1.0, "{label}: {d:?}");
            let floats: &[f32] = bytemuck::cast_slice(out.as_bytes());
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
                        let (p, n) = skinbench::skin::read_instance(skin, rig, out, i).unwrap();
                        p.into_iter()
                            .chain(n)
                            .flat_map(|v| v.to_array().map(f32::to_bits))
                    })
                    .collect()
            };
            // Every packed lane variant computes the same vertices as the first: the same
            // bytes where the layout is the same (`distinct` stores what `packed` stores), the
            // same decoded vertices where only the layout differs.
            if skin.output_format() == OutputFormat::Packed {
                let layout = *pipeline.output_layout();
                match &first_packed {
                    None => {
                        first_packed = Some((layout, floats.to_vec(), vertices(out.as_bytes())))
                    }
                    Some((first, bytes, decoded)) => {
                        if (first.arrangement(), first.stores())
                            == (layout.arrangement(), layout.stores())
                        {
                            assert!(
                                floats
                                    .iter()
                                    .map(|f| f.to_bits())
                                    .eq(bytes.iter().map(|f| f.to_bits())),
                                "{label}: differs from {:?}",
                                first.variant()
                            );
                        } else {
                            assert!(
                                vertices(out.as_bytes()) == *decoded,
                                "{label}: differs from {:?}",
                                first.variant()
                            );
                        }
                    }
                }
            }
            let h = verify_hierarchy(&mut pipeline, crowd.as_slice()).unwrap();
            assert!(h <= 1e-4, "{label}: hierarchy error {h:e}");
            outputs.push(out.as_bytes()[..used * 4].to_vec());
        }
    }
    outputs
}

/// `best_for` picks the lane variants only where they are fast.
fn check_best(level: SimdLevel) {
    let reference = PreparedRig::reference();
    let best = PipelineConfig::best_for(&reference, 1);
    let expected = match level {
        SimdLevel::Portable => (HierarchyVariant::FlatQvs, SkinVariant::Tuned),
        SimdLevel::Avx2Fma | SimdLevel::Avx512 | SimdLevel::Avx512Wide => {
            (HierarchyVariant::Simd, SkinVariant::Pulled)
        }
    };
    assert_eq!((best.hierarchy, best.skin), expected, "{}", level.label());
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
    let rest = PreparedRig::reference().rest_pose.clone();
    for clip in &rig.clips {
        assert!(ClipRt::new(clip).lane_rotations.is_some());
        let worst = common::lane_vs_per_track(clip, &rest);
        assert!(worst < 2e-6, "{} on {}: {worst}", clip.name, level.label());
    }
}

#[test]
fn lane_kernels_match_the_reference_at_every_level() {
    let mut rigs = vec![Arc::new(PreparedRig::reference())];
    if let Some(dir) = common::rigs_dir() {
        rigs.push(Arc::new(
            PreparedRig::load(&dir.join("CesiumMan/CesiumMan.glb")).unwrap(),
        ));
    }
    let native = SimdLevel::native();
    assert_eq!(SimdLevel::detect(), native);
    let mut fused_outputs: Vec<(SimdLevel, Vec<Vec<Vec<u8>>>)> = Vec::new();
    for level in SimdLevel::available() {
        force_level(Some(level)).unwrap();
        assert_eq!(SimdLevel::detect(), level);
        check_best(level);
        check_sampler(level);
        let mut outputs = Vec::new();
        for rig in &rigs {
            // A full group alone, full groups and a partial one, a partial group alone.
            for instances in [8, 13, 3] {
                outputs.push(check(rig, instances, level, None));
            }
        }
        fused_outputs.push((level, outputs));
    }
    // Both AVX-512 levels run the same operations as AVX2 (multiply, fused multiply-add,
    // in the same order; the wide one two matrix entries per instruction), so they must
    // produce the same bits; the portable path rounds its unfused multiply-adds
    // differently and is only held to the reference.
    let avx = |l: SimdLevel| fused_outputs.iter().find(|(level, _)| *level == l);
    for wider in [SimdLevel::Avx512, SimdLevel::Avx512Wide] {
        if let (Some((_, wider_outputs)), Some((_, avx2))) = (avx(wider), avx(SimdLevel::Avx2Fma)) {
            assert!(
                wider_outputs == avx2,
                "{} and AVX2 results differ",
                wider.label()
            );
        }
    }
    force_level(None).unwrap();
    assert_eq!(SimdLevel::detect(), native);
    // A pipeline's own level (what the bench and the conformance cases set) runs the same
    // kernels as the process forced to it: the same bits. That the levels differ at all
    // (the portable path's unfused multiply-adds) gives the comparison its teeth.
    for (level, forced) in &fused_outputs {
        let mut own = Vec::new();
        for rig in &rigs {
            for instances in [8, 13, 3] {
                own.push(check(rig, instances, *level, Some(*level)));
            }
        }
        assert!(
            own == *forced,
            "pipeline at {} differs from the process forced to it",
            level.label()
        );
    }
    if let (Some((_, portable)), Some((_, avx2))) =
        (avx(SimdLevel::Portable), avx(SimdLevel::Avx2Fma))
    {
        assert!(portable != avx2, "portable and AVX2 gave the same bits");
    }
}
