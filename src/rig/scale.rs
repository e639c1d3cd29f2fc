//! Scale noise: when a scale whose components differ a little still counts as uniform.
//!
//! How it works: exporters write scales such as `[1.0000039, 0.9999999, 1.0000144]`, float
//! noise from a matrix decomposition, not a shear anyone modelled. Treating such a scale
//! as uniform (composing in rotation + translation + scale, or skinning normals with the
//! position matrices) errs by an amount that follows from the scale's *spread*, the
//! difference of its largest and smallest components over the largest:
//!
//! - a joint whose scale `s·(I + E)` has spread `r` (so `E` lies within `r/2` of a
//!   multiple of the identity) and is followed by a child's rotation `R` makes QVS
//!   composition put `S·R` where the matrices have `R·S`; `‖S·R − R·S‖ ≤ r·s`, so a vertex at
//!   model-space distance `d` from the joint moves by at most `r·d`;
//! - skinning a normal with the position matrix instead of its inverse transpose turns it
//!   by at most about `2r` radians.
//!
//! Spreads along a chain of joints add up (to first order), and `d` is at most the
//! character's size. So a rig's scales count as uniform when, along every chain from a
//! root's folded ancestors down to a joint, the spreads sum to at most
//! [`SCALE_NOISE_BUDGET`] = 8e-5: no vertex moves by more than that fraction of the
//! character's size, which leaves 2e-5 of the verify tolerance (1e-4 of the size) to the
//! kernels' own f32 rounding (under 1e-6 of the size in the conformance tests), and no
//! normal turns by more than 1.6e-4 rad (the normals' verify tolerance is 1e-3). Exporter
//! noise seen in public characters reaches 5.7e-5 on one joint (a leg whose scale is
//! `[0.999999, 0.9999986, 0.9999431]`); a real non-uniform scale (Fox_nonuniform's head at
//! `[1.3, 0.8, 1.0]`, spread 0.38) is three orders of magnitude past the budget.

use glam::{Mat4, Vec3};

use super::{Clip, Interpolation, NO_PARENT, Skeleton};

/// The summed scale spread along a chain of joints that still counts as float noise.
pub const SCALE_NOISE_BUDGET: f32 = 8e-5;

/// How far a scale is from uniform: (largest − smallest component) / largest magnitude;
/// 0 for a uniform or zero scale.
pub fn spread(s: Vec3) -> f32 {
    let largest = s.abs().max_element();
    if largest > 0.0 {
        (s.max_element() - s.min_element()) / largest
    } else {
        0.0
    }
}

/// The largest spread of a matrix's scale, or infinity where the matrix is not a
/// rotation times a scale (a shear, which no noise budget covers).
fn matrix_spread(m: &Mat4) -> f32 {
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    let rebuilt = Mat4::from_scale_rotation_translation(scale, rotation, translation);
    let magnitude = m.abs().to_cols_array().into_iter().fold(1e-6, f32::max);
    if rebuilt.abs_diff_eq(*m, 1e-5 * magnitude) {
        spread(scale)
    } else {
        f32::INFINITY
    }
}

/// Every joint's scale spread and where the chains exceed the budget.
#[derive(Clone, Debug, PartialEq)]
pub struct ScaleNoise {
    /// The largest spread each joint's scale reaches: its rest value, every key, and for
    /// CUBICSPLINE tracks what the tangents can add between keys.
    pub joint_spread: Vec<f32>,
    /// The spread of each root's folded ancestors (infinity for a shear).
    pub root_parent_spread: Vec<f32>,
}

impl ScaleNoise {
    pub fn of(skeleton: &Skeleton, clips: &[Clip]) -> Self {
        let mut joint_spread: Vec<f32> =
            skeleton.rest_pose.iter().map(|t| spread(t.scale)).collect();
        for clip in clips {
            for (j, tracks) in clip.joint_tracks.iter().enumerate() {
                let Some(track) = &tracks.scale else { continue };
                let worst = &mut joint_spread[j];
                if track.interpolation == Interpolation::CubicSpline {
                    // Values sit at 3k + 1 between their tangents. A tangent's Hermite
                    // weight is at most 4/27 of the key interval, so it moves the scale by
                    // at most that times its own spread in absolute terms.
                    let keys = track.times_secs.len();
                    for k in 0..keys {
                        let value = track.values[3 * k + 1];
                        *worst = worst.max(spread(value));
                        let longest_interval = [k.checked_sub(1), (k + 1 < keys).then_some(k + 1)]
                            .into_iter()
                            .flatten()
                            .map(|n| (track.times_secs[n] - track.times_secs[k]).abs())
                            .fold(0.0, f32::max);
                        let magnitude = value.abs().min_element().max(f32::MIN_POSITIVE);
                        for tangent in [track.values[3 * k], track.values[3 * k + 2]] {
                            let absolute = tangent.max_element() - tangent.min_element();
                            *worst =
                                worst.max(absolute * longest_interval * 4.0 / 27.0 / magnitude);
                        }
                    }
                } else {
                    for &value in &track.values {
                        *worst = worst.max(spread(value));
                    }
                }
            }
        }
        ScaleNoise {
            joint_spread,
            root_parent_spread: skeleton
                .model_from_root_parent
                .iter()
                .map(matrix_spread)
                .collect(),
        }
    }

    /// The spreads summed from each joint's root (its folded ancestors included) down to
    /// and including the joint; `leaves`: whether joints without children add their own
    /// (a normal feels every joint's; a position only those that have children, since
    /// nothing is composed after a leaf).
    pub fn chain_sums(&self, skeleton: &Skeleton, leaves: bool) -> Vec<f32> {
        let children = skeleton.child_counts();
        let mut sums = vec![0.0f32; skeleton.joint_count()];
        for j in 0..skeleton.joint_count() {
            let above = match skeleton.parents[j] {
                NO_PARENT => self.root_parent_spread[j],
                p => sums[p as usize],
            };
            let own = if leaves || children[j] > 0 {
                self.joint_spread[j]
            } else {
                0.0
            };
            sums[j] = above + own;
        }
        sums
    }

    /// The first joint (parents first) whose chain sum is past the budget, if any.
    pub fn over_budget(&self, skeleton: &Skeleton, leaves: bool) -> Option<usize> {
        self.chain_sums(skeleton, leaves)
            .iter()
            .position(|&s| s > SCALE_NOISE_BUDGET || s.is_nan())
    }

    /// The joints a non-uniform rig's report names: those whose own spread is more than
    /// an even share of the budget along the longest chain (if every joint kept to its
    /// share, no chain could exceed the budget); none where the rig counts as uniform.
    pub fn nonuniform_joints(&self, skeleton: &Skeleton) -> Vec<usize> {
        if self.over_budget(skeleton, true).is_none() {
            return Vec::new();
        }
        let share = SCALE_NOISE_BUDGET / (skeleton.max_depth() + 1) as f32;
        (0..skeleton.joint_count())
            .filter(|&j| self.joint_spread[j] > share)
            .collect()
    }
}
