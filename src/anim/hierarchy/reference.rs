//! The hierarchy oracle: obvious, double precision, never optimised.

use glam::{DMat4, DQuat, DVec3};

use crate::rig::{NO_PARENT, Skeleton};
use crate::types::Qvs;

/// A local joint transform in f64: the oracles' input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalF64 {
    pub rotation: DQuat,
    pub translation: DVec3,
    pub scale: DVec3,
}

impl From<&Qvs> for LocalF64 {
    fn from(l: &Qvs) -> Self {
        LocalF64 {
            rotation: DQuat::from_xyzw(
                l.rotation.x as f64,
                l.rotation.y as f64,
                l.rotation.z as f64,
                l.rotation.w as f64,
            ),
            translation: DVec3::new(
                l.translation.x as f64,
                l.translation.y as f64,
                l.translation.z as f64,
            ),
            scale: DVec3::new(l.scale.x as f64, l.scale.y as f64, l.scale.z as f64),
        }
    }
}

/// `model_from_joint` for every joint, in f64.
pub fn model_from_joint(skeleton: &Skeleton, locals: &[Qvs]) -> Vec<DMat4> {
    let locals: Vec<LocalF64> = locals.iter().map(LocalF64::from).collect();
    model_from_joint_f64(skeleton, &locals)
}

/// `model_from_joint` for every joint from f64 locals.
pub fn model_from_joint_f64(skeleton: &Skeleton, locals: &[LocalF64]) -> Vec<DMat4> {
    let mut model: Vec<DMat4> = Vec::with_capacity(skeleton.joint_count());
    for (j, &parent) in skeleton.parents.iter().enumerate() {
        let l = &locals[j];
        let local = DMat4::from_scale_rotation_translation(l.scale, l.rotation, l.translation);
        let parent_matrix = if parent == NO_PARENT {
            skeleton.model_from_root_parent[j].as_dmat4()
        } else {
            model[parent as usize]
        };
        model.push(parent_matrix * local);
    }
    model
}

/// The skinning palette: `model_from_joint * joint_from_bind` for every palette entry (its
/// joint's model matrix times its inverse bind matrix), in f64.
pub fn palette(skeleton: &Skeleton, model_from_joint: &[DMat4]) -> Vec<DMat4> {
    skeleton
        .palette_joints
        .iter()
        .zip(&skeleton.joint_from_bind)
        .map(|(&joint, b)| model_from_joint[joint as usize] * b.as_dmat4())
        .collect()
}
