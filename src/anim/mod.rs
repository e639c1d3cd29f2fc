//! Animation: clip time → local pose → model-space pose → skinning palette.
//!
//! How it works: [`sample`] evaluates each instance's clip into a local pose (one [`Qvs`]
//! per joint), [`blend`] optionally cross-fades it with a second clip, [`hierarchy`] walks
//! the joint tree to model space (one file per variant, all checked against
//! [`hierarchy::reference`]), and [`palette`] multiplies by the inverse bind matrices into
//! whatever layout the chosen skinning variant reads.

pub mod blend;
pub mod hierarchy;
pub mod palette;
pub mod sample;

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Quat, Vec3A, Vec4};

use crate::rig::Transform;

/// A joint transform as rotation + translation + scale ("QVS"): the runtime layout of
/// local poses (48 bytes, 16-byte aligned, no padding to skip).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Qvs {
    pub rotation: Quat,
    pub translation: Vec3A,
    pub scale: Vec3A,
}

impl Qvs {
    pub const IDENTITY: Qvs = Qvs {
        rotation: Quat::IDENTITY,
        translation: Vec3A::ZERO,
        scale: Vec3A::ONE,
    };

    #[inline]
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(
            self.scale.into(),
            self.rotation,
            self.translation.into(),
        )
    }

    /// `parent ∘ child`, exact when `parent.scale` is uniform (see `flat_qvs`).
    #[inline]
    pub fn compose(&self, child: &Qvs) -> Qvs {
        Qvs {
            rotation: self.rotation * child.rotation,
            translation: self.translation + self.rotation.mul_vec3a(self.scale * child.translation),
            scale: self.scale * child.scale,
        }
    }
}

impl From<&Transform> for Qvs {
    fn from(t: &Transform) -> Self {
        Qvs {
            rotation: t.rotation,
            translation: t.translation.into(),
            scale: t.scale.into(),
        }
    }
}

/// A 3×4 affine matrix stored as three rows (48 bytes): the `tuned` palette. The implied
/// fourth row is (0, 0, 0, 1), so `row · (x, y, z, 1)` transforms a point and
/// `row · (x, y, z, 0)` a direction.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Mat3x4 {
    pub rows: [Vec4; 3],
}

impl Mat3x4 {
    pub fn from_mat4(m: &Mat4) -> Self {
        Mat3x4 {
            rows: [m.row(0), m.row(1), m.row(2)],
        }
    }

    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_cols_array_2d(&[
            [self.rows[0].x, self.rows[1].x, self.rows[2].x, 0.0],
            [self.rows[0].y, self.rows[1].y, self.rows[2].y, 0.0],
            [self.rows[0].z, self.rows[1].z, self.rows[2].z, 0.0],
            [self.rows[0].w, self.rows[1].w, self.rows[2].w, 1.0],
        ])
    }
}

const _: () = {
    assert!(std::mem::size_of::<Qvs>() == 48);
    assert!(std::mem::size_of::<Mat3x4>() == 48);
};
