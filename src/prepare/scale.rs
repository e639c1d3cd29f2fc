//! Load-time scale facts: whether rotation + translation + scale (QVS) can hold every
//! model-space transform of a rig, each root's folded ancestor transform as QVS, and
//! whether normals need each joint's own normal matrix ([`normal_matrix_reason`]).
//!
//! How it works: a non-uniform scale followed by a rotation is a shear, which QVS cannot
//! represent. So the rig is checked once: the folded ancestors of every root, the rest
//! scale of every joint with children, and every scale key of such joints. Leaves may
//! scale non-uniformly (nothing is composed after them). Variants that compose in QVS
//! (`flat_qvs`) declare that they refuse rigs where [`shear_reason`] finds one. A scale
//! whose components differ by float noise counts as uniform: the spreads along each chain
//! of joints must stay within [`SCALE_NOISE_BUDGET`], which bounds what treating them as
//! uniform can move (`rig::scale` derives it).

use glam::Mat3;

use crate::rig::scale::{SCALE_NOISE_BUDGET, ScaleNoise};
use crate::rig::{Clip, Interpolation, NO_PARENT, Skeleton};
use crate::types::Qvs;

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

/// Why QVS composition would be wrong for this rig, or `None` when it is exact (to within
/// the scale noise `rig::scale` allows).
pub fn shear_reason(skeleton: &Skeleton, clips: &[Clip]) -> Option<String> {
    let noise = ScaleNoise::of(skeleton, clips);
    for (r, m) in skeleton.model_from_root_parent.iter().enumerate() {
        if noise.root_parent_spread[r] > SCALE_NOISE_BUDGET {
            let (scale, _, _) = m.to_scale_rotation_translation();
            return Some(format!(
                "the nodes above root joint {} carry non-uniform scale {:?} (a shear under rotation); \
                 rotation + translation + scale cannot represent it",
                skeleton.names[r],
                scale.to_array()
            ));
        }
    }
    let over = noise.over_budget(skeleton, false)?;
    // Name the joint with children on that chain whose scale spreads the most.
    let children = skeleton.child_counts();
    let mut worst = over;
    let mut j = over;
    loop {
        if children[j] > 0 && noise.joint_spread[j] > noise.joint_spread[worst] {
            worst = j;
        }
        match skeleton.parents[j] {
            NO_PARENT => break,
            p => j = p as usize,
        }
    }
    let spread = noise.joint_spread[worst];
    let rest = skeleton.rest_pose[worst].scale;
    let at = if crate::rig::scale::spread(rest) >= spread {
        format!("rest scale {:?}", rest.to_array())
    } else {
        let animated = clips
            .iter()
            .find_map(|c| {
                c.joint_tracks[worst]
                    .scale
                    .as_ref()
                    .map(|t| (c.name.as_str(), t))
            })
            .map_or(String::new(), |(clip, t)| {
                let value = t
                    .values
                    .iter()
                    .copied()
                    .max_by(|a, b| {
                        crate::rig::scale::spread(*a).total_cmp(&crate::rig::scale::spread(*b))
                    })
                    .unwrap_or(rest);
                format!(" (clip {clip}, e.g. {:?})", value.to_array())
            });
        format!("an animated non-uniform scale{animated}")
    };
    Some(format!(
        "joint {} has children and {at}, a spread of {spread:.1e}: more than the \
         {SCALE_NOISE_BUDGET:.0e} counted as float noise along a chain; its children would be sheared",
        skeleton.names[worst],
    ))
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
    let noise = ScaleNoise::of(skeleton, clips);
    if let Some(over) = noise.over_budget(skeleton, true) {
        // The joint on that chain whose scale spreads the most, or its root's folded
        // ancestors where they spread more.
        let (mut worst, mut j) = (over, over);
        while let Some(p) = Some(skeleton.parents[j]).filter(|&p| p != NO_PARENT) {
            j = p as usize;
            if noise.joint_spread[j] > noise.joint_spread[worst] {
                worst = j;
            }
        }
        if noise.root_parent_spread[j] > noise.joint_spread[worst] {
            let (scale, _, _) = skeleton.model_from_root_parent[j].to_scale_rotation_translation();
            return Some(format!(
                "the nodes above root joint {} carry non-uniform scale {:?}",
                name(j),
                scale.to_array()
            ));
        }
        return Some(format!(
            "joint {} has non-uniform scale (rest {:?}, spread {:.1e})",
            name(worst),
            skeleton.rest_pose[worst].scale.to_array(),
            noise.joint_spread[worst]
        ));
    }
    let mut uniform = Vec::with_capacity(skeleton.joint_count());
    for (j, rest) in skeleton.rest_pose.iter().enumerate() {
        let s = rest.scale;
        // Within the noise budget: the mean stands for all three.
        let mean = (s.x + s.y + s.z) / 3.0;
        if mean == 0.0 {
            return Some(format!("joint {} has a zero rest scale", name(j)));
        }
        uniform.push(mean);
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
    }
    // Every palette entry: its joint's model-space scale times its inverse bind's.
    let mut common: Option<(usize, f32)> = None;
    for (&joint, bind) in skeleton
        .palette_joints
        .iter()
        .zip(&skeleton.joint_from_bind)
    {
        let j = joint as usize;
        let Some(bind) = similarity_scale(Mat3::from_mat4(*bind)) else {
            return Some(format!(
                "an inverse bind matrix of joint {} is not a rotation times one scale",
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

/// An upper bound on how much any palette matrix's 3×3 can lengthen a vector, over every
/// pose the clips can reach: for rigs whose palette matrices are each a rotation times one
/// scale (those without own normal matrices, see [`normal_matrix_reason`]), what lets
/// packed normals skip their normalisation (`skin::layout::NormalEncoding`).
///
/// Each joint's largest scale component over its rest pose and every scale key is
/// multiplied down its chain from its root's folded ancestors (sampling and blending
/// interpolate between keys, so they never exceed the largest; the rule above already
/// demands CUBICSPLINE tangents of zero), then by its inverse bind matrix's. A 3×3 whose
/// columns are orthogonal with equal lengths to 1e-4 stretches by at most its longest
/// column plus that tolerance, so those get a 1e-3 margin each.
pub fn palette_stretch_bound(skeleton: &Skeleton, clips: &[Clip]) -> f32 {
    const MARGIN: f32 = 1.0 + 1e-3;
    let longest_column = |m: Mat3| {
        [m.x_axis.length(), m.y_axis.length(), m.z_axis.length()]
            .into_iter()
            .fold(0.0, f32::max)
            * MARGIN
    };
    let mut joint_stretch: Vec<f32> = skeleton
        .rest_pose
        .iter()
        .map(|rest| rest.scale.abs().max_element())
        .collect();
    for clip in clips {
        for (j, tracks) in clip.joint_tracks.iter().enumerate() {
            let Some(track) = &tracks.scale else { continue };
            let cubic = track.interpolation == Interpolation::CubicSpline;
            for (i, value) in track.values.iter().enumerate() {
                // CUBICSPLINE stores (in-tangent, value, out-tangent) per key.
                if !cubic || i % 3 == 1 {
                    joint_stretch[j] = joint_stretch[j].max(value.abs().max_element());
                }
            }
        }
    }
    let mut model_stretch = vec![0.0f32; skeleton.joint_count()];
    for j in 0..skeleton.joint_count() {
        let parent = skeleton.parents[j];
        let above = if parent == NO_PARENT {
            longest_column(Mat3::from_mat4(skeleton.model_from_root_parent[j]))
        } else {
            model_stretch[parent as usize]
        };
        model_stretch[j] = above * joint_stretch[j];
    }
    skeleton
        .palette_joints
        .iter()
        .zip(&skeleton.joint_from_bind)
        .map(|(&j, bind)| model_stretch[j as usize] * longest_column(Mat3::from_mat4(*bind)))
        .fold(0.0, f32::max)
}
