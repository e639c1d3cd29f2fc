//! Load-time scale facts: whether rotation + translation + scale (QVS) can hold every
//! model-space transform of a rig, and each root's folded ancestor transform as QVS.
//!
//! How it works: a non-uniform scale followed by a rotation is a shear, which QVS cannot
//! represent. So the rig is checked once: the folded ancestors of every root, the rest
//! scale of every joint with children, and every scale key of such joints. Leaves may
//! scale non-uniformly (nothing is composed after them). Variants that compose in QVS
//! (`flat_qvs`) declare that they refuse rigs where [`shear_reason`] finds one.

use glam::{Mat4, Vec3};

use crate::rig::{Clip, Skeleton};
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
