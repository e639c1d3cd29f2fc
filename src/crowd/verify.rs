//! Verification: how far a frame computed by the current variants is from the f64
//! reference (the panel's "verify" button and the conformance tests).
//!
//! How it works: for a spread of instances, the same local pose the pipeline used (sample
//! and blend are shared by all variants) goes through the reference hierarchy, palette and
//! skinning in double precision; the variant's output is read back in file vertex order
//! and the largest position and normal differences are reported, positions also relative
//! to the rig's size.

use super::instances::Instance;
use super::pipeline::Pipeline;
use crate::anim::hierarchy::reference;
use crate::skin;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Deviation {
    /// Largest |variant - reference| over position components, model units.
    pub max_position: f64,
    /// The same divided by the rig's bounding-box diagonal.
    pub relative_position: f64,
    /// Largest normal component difference (normals are near unit length).
    pub max_normal: f64,
    pub worst_instance: usize,
    pub worst_vertex: usize,
    pub instances_checked: usize,
}

/// Up to `count` instance indices spread evenly over `0..n`, always including the last.
fn spread(n: usize, count: usize) -> Vec<usize> {
    if n <= count {
        return (0..n).collect();
    }
    let mut v: Vec<usize> = (0..count)
        .map(|i| i * (n - 1) / (count - 1).max(1))
        .collect();
    v.dedup();
    v
}

/// Compares `out` (the frame `pipeline` just computed for `instances`) with the reference.
pub fn verify_frame(
    pipeline: &Pipeline,
    instances: &[Instance],
    out: &[u8],
    max_instances: usize,
) -> Deviation {
    let rig = pipeline.rig();
    let variant = pipeline.config().skin;
    let mut d = Deviation::default();
    for i in spread(instances.len(), max_instances) {
        let locals = pipeline.local_pose(&instances[i]);
        let model = reference::model_from_joint(&rig.skeleton, &locals);
        let palette = reference::palette(&rig.skeleton, &model);
        let (ref_positions, ref_normals) = skin::reference::skin(&rig.source_mesh, &palette);
        let (positions, normals) = skin::read_instance(variant, rig, out, i);
        // The packed output stores only the normal's direction.
        let unit_normals = variant.output_format() == skin::OutputFormat::Packed;
        for v in 0..positions.len() {
            let dp = (positions[v].as_dvec3() - ref_positions[v])
                .abs()
                .max_element();
            let reference_normal = if unit_normals {
                ref_normals[v].normalize_or_zero()
            } else {
                ref_normals[v]
            };
            let dn = (normals[v].as_dvec3() - reference_normal)
                .abs()
                .max_element();
            if dp > d.max_position || dp.is_nan() {
                d.max_position = if dp.is_nan() { f64::INFINITY } else { dp };
                d.worst_instance = i;
                d.worst_vertex = v;
            }
            d.max_normal = d
                .max_normal
                .max(if dn.is_nan() { f64::INFINITY } else { dn });
        }
        d.instances_checked += 1;
    }
    d.relative_position = d.max_position / rig.bounds_size as f64;
    d
}

/// Largest difference between the current hierarchy variant's model matrices and the
/// reference, relative to the rig's size (translations) or absolute (rotation/scale part).
pub fn verify_hierarchy(pipeline: &mut Pipeline, instances: &[Instance]) -> f64 {
    let poses = pipeline.model_poses(instances);
    let rig = pipeline.rig().clone();
    let mut worst: f64 = 0.0;
    for (instance, pose) in instances.iter().zip(&poses) {
        let locals = pipeline.local_pose(instance);
        let reference = reference::model_from_joint(&rig.skeleton, &locals);
        for (m, r) in pose.iter().zip(&reference) {
            let m = m.as_dmat4();
            for c in 0..4 {
                let diff = (m.col(c) - r.col(c)).abs().max_element();
                let scale = if c == 3 { rig.bounds_size as f64 } else { 1.0 };
                let e = diff / scale;
                worst = worst.max(if e.is_nan() { f64::INFINITY } else { e });
            }
        }
    }
    worst
}
