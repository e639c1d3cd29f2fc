//! Load-time scale facts: whether rotation + translation + scale (QVS) can hold every
//! model-space transform of a rig, each root's folded ancestor transform as QVS, and
//! whether normals need each joint's own normal matrix ([`normal_matrix_reason`]).
//!
//! How it works: a non-uniform scale followed by a rotation is a shear, which QVS cannot
//! represent. So the rig is checked once: the folded ancestors of every root, the rest
//! scale of every joint with children, and every scale key of such joints. Leaves may
//! scale non-uniformly (nothing is composed after them). Variants that compose in QVS
//! (`flat_qvs`) declare that they refuse rigs where [`shear_reason`] finds one.

use glam::{Mat3, Mat4, Vec3};

use crate::rig::{Clip, Interpolation, NO_PARENT, Skeleton};
use crate::types::Qvs;

fn is_uniform(s: Vec3) -> bool {
    let max = s.abs().max_element();
    (s.x - s.y).abs() <= 1e-5 * max && (s.x - s.z).abs() <= 1e-5 * max
}

/// The folded ancestor transform of each root as QVS (identity where it cannot be one; the
/// variant is refused for such rigs anyway).
pub fn root_parents(skeleton: &Skeleton) -> Vec<Qvs> {
    skeleton
        .model_from_root_parent
        .iter()
        .map(|m| {
            let (scale, rotation, translation) = m.to_scale_rotation_translation();
            Qvs {
                rotation,
                translation: translation.into(),
                scale: scale.into(),
            }
        })
        .collect()
}

/// Why QVS composition would be wrong for this rig, or `None` when it is exact.
pub fn shear_reason(skeleton: &Skeleton, clips: &[Clip]) -> Option<String> {
    for (r, m) in skeleton.model_from_root_parent.iter().enumerate() {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        let rebuilt = Mat4::from_scale_rotation_translation(scale, rotation, translation);
        let magnitude = m.abs().to_cols_array().into_iter().fold(1e-6, f32::max);
        if !is_uniform(scale) || !rebuilt.abs_diff_eq(*m, 1e-5 * magnitude) {
            return Some(format!(
                "the nodes above root joint {} carry non-uniform scale {:?} (a shear under rotation); \
                 rotation + translation + scale cannot represent it",
                skeleton.names[r],
                scale.to_array()
            ));
        }
    }
    let children = skeleton.child_counts();
    for (j, rest) in skeleton.rest_pose.iter().enumerate() {
        if children[j] > 0 && !is_uniform(rest.scale) {
            return Some(format!(
                "joint {} has children and non-uniform rest scale {:?}; its children would be sheared",
                skeleton.names[j],
                rest.scale.to_array()
            ));
        }
    }
    for clip in clips {
        for (j, tracks) in clip.joint_tracks.iter().enumerate() {
            let Some(scale) = &tracks.scale else { continue };
            if children[j] == 0 {
                continue;
            }
            if let Some(s) = scale.values.iter().find(|s| !is_uniform(**s)) {
                return Some(format!(
                    "clip {} scales joint {} (which has children) non-uniformly, e.g. {:?}",
                    clip.name,
                    skeleton.names[j],
                    s.to_array()
                ));
            }
        }
    }
    None
}

/// The scale of a 3×3 that is a rotation (proper or not) times one scale, or `None` when
/// its columns are not orthogonal with equal lengths (to 1e-4 of the largest).
fn similarity_scale(m: Mat3) -> Option<f32> {
    let lengths = [m.x_axis.length(), m.y_axis.length(), m.z_axis.length()];
    let largest = lengths.into_iter().fold(0.0, f32::max);
    if !(largest.is_finite() && largest > 0.0) {
        return None;
    }
    let tolerance = 1e-4 * largest;
    let equal = lengths.iter().all(|l| (l - largest).abs() <= tolerance);
    let orthogonal = [
        m.x_axis.dot(m.y_axis),
        m.y_axis.dot(m.z_axis),
        m.z_axis.dot(m.x_axis),
    ]
    .iter()
    .all(|d| d.abs() <= tolerance * largest);
    (equal && orthogonal).then_some(largest)
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-4 * a.abs().max(b.abs())
}

/// Why this rig's normals need each joint's own normal matrix, or `None` when the
/// position matrices give the right directions.
///
/// A normal follows the inverse transpose of its joint's 3×3 (up to a scale). Where every
/// palette matrix is a rotation times one scale `c` shared by all joints, the inverse
/// transpose is the matrix itself divided by `c²`, so blending the position matrices and
/// normalising gives the same direction, at no extra cost. That holds when, checked once
/// here from the data: each joint's scale is uniform and never changes (its rest value in
/// every key, CUBICSPLINE tangents zero), so its model-space scale `s_j` is a constant
/// product down the chain from its root's folded ancestors, which must be a rotation
/// times a scale too; each inverse bind matrix is a rotation times a scale `σ_j`; and
/// `s_j · σ_j` is the same for every joint. Anything else (a non-uniform or animated
/// scale, a sheared ancestor or bind) gets normal matrices.
pub fn normal_matrix_reason(skeleton: &Skeleton, clips: &[Clip]) -> Option<String> {
    let name = |j: usize| &skeleton.names[j];
    let mut uniform = Vec::with_capacity(skeleton.joint_count());
    for (j, rest) in skeleton.rest_pose.iter().enumerate() {
        let s = rest.scale;
        if !(is_uniform(s) && s.x != 0.0) {
            return Some(format!(
                "joint {} has non-uniform rest scale {:?}",
                name(j),
                s.to_array()
            ));
        }
        uniform.push(s.x);
    }
    for clip in clips {
        for (j, tracks) in clip.joint_tracks.iter().enumerate() {
            let Some(track) = &tracks.scale else { continue };
            let rest = skeleton.rest_pose[j].scale;
            let cubic = track.interpolation == Interpolation::CubicSpline;
            for (i, value) in track.values.iter().enumerate() {
                // CUBICSPLINE stores (in-tangent, value, out-tangent) per key.
                let changed = if cubic && i % 3 != 1 {
                    value.abs().max_element() > 1e-6 * rest.x.abs()
                } else {
                    !(close(value.x, rest.x) && close(value.y, rest.x) && close(value.z, rest.x))
                };
                if changed {
                    return Some(format!(
                        "clip {} scales joint {} to {:?} (rest scale {:?})",
                        clip.name,
                        name(j),
                        value.to_array(),
                        rest.to_array()
                    ));
                }
            }
        }
    }
    let mut model_scale = vec![0.0f32; skeleton.joint_count()];
    let mut common: Option<(usize, f32)> = None;
    for j in 0..skeleton.joint_count() {
        let parent = skeleton.parents[j];
        let above = if parent == NO_PARENT {
            let folded = Mat3::from_mat4(skeleton.model_from_root_parent[j]);
            match similarity_scale(folded) {
                Some(s) => s,
                None => {
                    return Some(format!(
                        "the nodes above root joint {} are not a rotation times one scale",
                        name(j)
                    ));
                }
            }
        } else {
            model_scale[parent as usize]
        };
        model_scale[j] = above * uniform[j].abs();
        let Some(bind) = similarity_scale(Mat3::from_mat4(skeleton.joint_from_bind[j])) else {
            return Some(format!(
                "the inverse bind matrix of joint {} is not a rotation times one scale",
                name(j)
            ));
        };
        let palette_scale = model_scale[j] * bind;
        match common {
            None => common = Some((j, palette_scale)),
            Some((first, c)) if !close(c, palette_scale) => {
                return Some(format!(
                    "joint {} skins with scale {palette_scale}, joint {} with {c}",
                    name(j),
                    name(first)
                ));
            }
            Some(_) => {}
        }
    }
    None
}
