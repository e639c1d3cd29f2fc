//! The skinning method: how a vertex's influences are combined, chosen independently of
//! the skin variant (the same layout, loops and output, another blend).
//!
//! How it works: linear blending sums the joints' 3×4 matrices by weight; where joints
//! twist far apart the sum is no longer a rotation and the mesh collapses (the "candy
//! wrapper"). Dual-quaternion skinning (Kavan et al., "Geometric Skinning with Approximate
//! Dual Quaternion Blending", 2008) turns each joint's rigid matrix into a unit dual
//! quaternion (8 floats instead of 12) in the palette stage; per vertex the influences are
//! summed with the sign of each flipped where its rotation lies in the other hemisphere
//! from the vertex's first (heaviest) influence's, and the sum, normalised, is the rigid
//! transform applied to the position and the normal.
//!
//! A dual quaternion holds rotation and translation only. Rather than a second, matrix
//! phase for scale (Kavan's two-phase variant, a full 3×3 blend per vertex more), rigs
//! whose skinning matrices are not rigid are refused with the joint, clip and time where
//! they scale: almost every rig's skinning matrices are rigid (scales in the bind pose
//! cancel against the inverse bind matrices), and a refusal says so instead of drawing
//! silently wrong output. The check samples every clip once at load (first ask), in f64.

use glam::DMat3;

use crate::anim::hierarchy::reference::{LocalF64, model_from_joint_f64, palette};
use crate::anim::sample::sample_clip;
use crate::prepare::PreparedRig;

crate::declare_variants! {
    /// How a vertex's influences are combined.
    pub enum SkinMethod: MethodSpec in "method" {
        Linear => MethodSpec {
            name: "linear",
            description: "linear blend skinning: the weighted sum of the joints' 3x4 matrices (12 floats a joint)",
            palette_floats: 12,
        },
        DualQuat => MethodSpec {
            name: "dual_quat",
            description: "dual-quaternion skinning (Kavan 2008): unit dual quaternions (8 floats a joint) blended with the antipodality fix and normalised; keeps volume under twist; rigid joints only",
            palette_floats: 8,
        },
    }
}

/// A skinning method's properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// Floats per joint in the palette the blend reads.
    pub palette_floats: usize,
}

/// How far a skinning matrix's 3×3 may be from a rotation (largest entry of `MᵀM − I`)
/// and still count as rigid: exported rigs carry f32 rounding around 1e-6 there.
pub const RIGID_TOLERANCE: f64 = 1e-4;

/// Samples per clip for the rigidity check (plus its last frame).
const RIGID_SAMPLES: usize = 64;

impl SkinMethod {
    /// Why this method cannot skin `rig`, or `None`.
    pub fn rig_refusal(self, rig: &PreparedRig) -> Option<String> {
        match self {
            SkinMethod::Linear => None,
            SkinMethod::DualQuat => rig
                .dual_quat_reason
                .get_or_init(|| non_rigid_reason(rig))
                .clone(),
        }
    }
}

/// Where `rig`'s skinning matrices are not rigid (a joint, a clip, a time and how far), or
/// `None` when every one sampled is: the rest pose, and every clip at 65 evenly spaced
/// times.
pub fn non_rigid_reason(rig: &PreparedRig) -> Option<String> {
    let mut locals = rig.rest_pose.clone();
    let check = |locals: &[crate::types::Qvs], what: &str, time_secs: f32| {
        let locals: Vec<LocalF64> = locals.iter().map(LocalF64::from).collect();
        let model = model_from_joint_f64(&rig.skeleton, &locals);
        for (e, m) in palette(&rig.skeleton, &model).iter().enumerate() {
            let j = rig.skeleton.palette_joints[e] as usize;
            let r = DMat3::from_mat4(*m);
            let off = (r.transpose() * r - DMat3::IDENTITY)
                .to_cols_array()
                .iter()
                .fold(0.0f64, |a, x| a.max(x.abs()));
            if off > RIGID_TOLERANCE {
                return Some(format!(
                    "joint {}'s skinning matrix scales or shears in {what} at {time_secs:.3} s \
                     (|MᵀM − I| up to {off:.2e}); dual quaternions carry rotation and translation only",
                    rig.skeleton.names[j]
                ));
            }
        }
        None
    };
    if let Some(reason) = check(&rig.rest_pose, "the rest pose", 0.0) {
        return Some(reason);
    }
    for (c, clip) in rig.clips.iter().enumerate() {
        for i in 0..=RIGID_SAMPLES {
            let time_secs = clip.duration_secs * i as f32 / RIGID_SAMPLES as f32;
            locals.copy_from_slice(&rig.rest_pose);
            sample_clip(clip, &rig.rest_pose, time_secs, &mut locals);
            if let Some(reason) = check(&locals, &format!("clip {c} ({})", clip.name), time_secs) {
                return Some(reason);
            }
        }
    }
    None
}
