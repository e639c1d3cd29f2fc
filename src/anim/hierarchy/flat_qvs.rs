//! `flat_qvs`: the linear walk in rotation + translation + scale (seed 000's comments,
//! seed 003).
//!
//! How it works: the same forward loop as `flat`, but composing QVS transforms instead of
//! multiplying 4×4 matrices: `model.rotation = parent.rotation * local.rotation`,
//! `model.translation = parent.translation + parent.rotation * (parent.scale *
//! local.translation)`, `model.scale = parent.scale * local.scale`: about 60 flops instead
//! of 112. The matrices are built afterwards, by the palette stage.
//!
//! That composition is exact only while every parent's scale is uniform: a non-uniform
//! scale followed by a rotation is a shear, which QVS cannot hold. [`refusal`] checks the
//! rig once (rest pose, every scale key, the folded ancestors) and the variant refuses
//! such rigs instead of producing wrong poses.

use glam::{Mat4, Vec3};

use crate::anim::Qvs;
use crate::rig::{Clip, Skeleton};

pub fn run(skeleton: &Skeleton, root_parents: &[Qvs], locals: &[Qvs], model: &mut [Qvs]) {
    let n = skeleton.joint_count();
    let roots = skeleton.root_count;
    let (locals, model, parents) = (&locals[..n], &mut model[..n], &skeleton.parents[..n]);
    for r in 0..roots {
        model[r] = root_parents[r].compose(&locals[r]);
    }
    for i in roots..n {
        model[i] = model[parents[i] as usize].compose(&locals[i]);
    }
}

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
pub fn refusal(skeleton: &Skeleton, clips: &[Clip]) -> Option<String> {
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
