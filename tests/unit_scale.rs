//! The `simd` hierarchy's unit-scale path: which rigs take it, and that it computes the
//! same bits as the general path, at every SIMD level, on every rig whose scales are all
//! exactly 1.

mod common;

use skinbench::anim::hierarchy::simd;
use skinbench::anim::sample::sample_clip;
use skinbench::prepare::PreparedRig;
use skinbench::simd::{SimdLevel, with_level};
use skinbench::types::{F32x8, LANES, Lanes3x4, Qvs};

/// A group's sampled local poses: instance `k` plays clip `k % clips` at its own time.
fn group_locals(rig: &PreparedRig) -> Vec<Qvs> {
    let stride = rig.joint_stride;
    let mut locals = Vec::with_capacity(LANES * stride);
    for k in 0..LANES {
        let mut pose = rig.rest_pose.clone();
        if !rig.clips.is_empty() {
            let clip = &rig.clips[k % rig.clips.len()];
            sample_clip(clip, &rig.rest_pose, 0.13 * k as f32 + 0.05, &mut pose);
        }
        pose.resize(stride, Qvs::IDENTITY);
        locals.extend(pose);
    }
    locals
}

fn model(rig: &PreparedRig, locals: &[Qvs], unit_scale: bool) -> Vec<u32> {
    let mut model = vec![[F32x8::ZERO; 12]; rig.joint_count()];
    simd::run(
        &rig.skeleton,
        locals,
        rig.joint_stride,
        &mut model,
        unit_scale,
        rig.all_joints(),
    );
    model
        .iter()
        .flat_map(|m: &Lanes3x4| m.iter().flat_map(|v| v.0.map(f32::to_bits)))
        .collect()
}

#[test]
fn rigs_without_scale_take_the_unit_scale_path() {
    let rigs = common::prepared_rigs();
    let by_name = |name: &str| rigs.iter().find(|(n, _)| n == name).map(|(_, r)| r.clone());
    assert!(by_name("reference").unwrap().unit_scale);
    if common::rigs_dir().is_some() {
        // Scales its joints non-uniformly (FoxVariants/README.md).
        assert!(!by_name("fox_nonuniform").unwrap().unit_scale);
    }
    for (name, rig) in rigs {
        let animated = rig
            .clips
            .iter()
            .any(|c| c.animated.iter().any(|a| a.scale.is_some()));
        let rest = rig.rest_pose.iter().all(|q| q.scale == glam::Vec3A::ONE);
        assert_eq!(rig.unit_scale, rest && !animated, "{name}");
    }
}

#[test]
fn the_unit_scale_path_changes_no_bit() {
    let mut checked = 0;
    for (name, rig) in common::prepared_rigs() {
        if !rig.unit_scale {
            continue;
        }
        let locals = group_locals(rig);
        for level in SimdLevel::available() {
            let (general, unit) = with_level(Some(level), || {
                (model(rig, &locals, false), model(rig, &locals, true))
            });
            assert!(general == unit, "{name} at {}", level.label());
        }
        checked += 1;
    }
    assert!(checked >= 1, "no rig without scale to check");
}
