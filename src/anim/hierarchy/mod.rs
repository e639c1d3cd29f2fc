//! hierarchy: local pose → model-space pose, one file per variant.
//!
//! How it works: every variant computes `model_from_joint[i] = model_from_joint[parent] *
//! local[i]` (roots take the folded ancestor transform as their parent) and hands its
//! result to the palette stage in its own representation: `tree` leaves it in its heap
//! tree, `flat` in an array of 4×4 matrices, `flat_qvs` as rotation/translation/scale,
//! `simd` as 3×4 matrices with one instance per lane. [`reference`](mod@reference) is the f64 oracle.

pub mod flat;
pub mod flat_qvs;
pub mod reference;
pub mod simd;
pub mod tree;

use glam::Mat4;

use super::Qvs;
use crate::prepare::PreparedRig;
use crate::simd::{LANES, Lanes3x4};
use crate::variant::Variant;

pub use tree::JointTree;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HierarchyVariant {
    Tree,
    Flat,
    FlatQvs,
    Simd,
}

impl Variant for HierarchyVariant {
    const STAGE: &'static str = "hierarchy";
    const ALL: &'static [Self] = &[Self::Tree, Self::Flat, Self::FlatQvs, Self::Simd];

    fn name(self) -> &'static str {
        match self {
            Self::Tree => "tree",
            Self::Flat => "flat",
            Self::FlatQvs => "flat_qvs",
            Self::Simd => "simd",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Self::Tree => {
                "per-instance heap tree of joints (4x4 local + global, Vec of children), recursive walk"
            }
            Self::Flat => "u16 parents in depth-first order, arrays of 4x4, one linear loop",
            Self::FlatQvs => {
                "the linear walk in quaternion + vector + scale; matrices built by the palette stage"
            }
            Self::Simd => {
                "8 instances per register (lane = instance, same parent in every lane), 3x4 matrices"
            }
        }
    }
}

/// The representation a hierarchy variant hands to the palette stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelLayout {
    /// Inside the per-instance [`JointTree`]s.
    Tree,
    Mat4,
    Qvs,
    Lanes,
}

impl HierarchyVariant {
    pub fn layout(self) -> ModelLayout {
        match self {
            Self::Tree => ModelLayout::Tree,
            Self::Flat => ModelLayout::Mat4,
            Self::FlatQvs => ModelLayout::Qvs,
            Self::Simd => ModelLayout::Lanes,
        }
    }

    /// Why this variant cannot pose `rig` exactly, or `None` if it can.
    pub fn refusal(self, rig: &PreparedRig) -> Option<String> {
        match self {
            Self::FlatQvs => rig.qvs_refusal.clone(),
            _ => None,
        }
    }
}

/// Model-space poses of one group of [`LANES`] instances, as written by the hierarchy.
pub enum ModelPosesMut<'a> {
    Tree(&'a mut [JointTree]),
    Mat4(&'a mut [Mat4]),
    Qvs(&'a mut [Qvs]),
    Lanes(&'a mut [Lanes3x4]),
}

/// The same, read by the palette stage.
#[derive(Clone, Copy)]
pub enum ModelPoses<'a> {
    Tree(&'a [JointTree]),
    Mat4(&'a [Mat4]),
    Qvs(&'a [Qvs]),
    Lanes(&'a [Lanes3x4]),
}

/// Runs the hierarchy for one group: `locals` holds `LANES * rig.joint_stride` transforms
/// (instance `k` at `k * joint_stride`), of which the first `active` instances are live.
pub fn run_group(
    variant: HierarchyVariant,
    rig: &PreparedRig,
    locals: &[Qvs],
    out: ModelPosesMut,
    active: usize,
) {
    let stride = rig.joint_stride;
    debug_assert!(active <= LANES && locals.len() >= LANES * stride);
    match (variant, out) {
        (HierarchyVariant::Tree, ModelPosesMut::Tree(trees)) => {
            for (k, tree) in trees.iter_mut().enumerate().take(active) {
                tree::run(tree, &rig.skeleton, &locals[k * stride..(k + 1) * stride]);
            }
        }
        (HierarchyVariant::Flat, ModelPosesMut::Mat4(model)) => {
            for k in 0..active {
                flat::run(
                    &rig.skeleton,
                    &locals[k * stride..(k + 1) * stride],
                    &mut model[k * stride..(k + 1) * stride],
                );
            }
        }
        (HierarchyVariant::FlatQvs, ModelPosesMut::Qvs(model)) => {
            for k in 0..active {
                flat_qvs::run(
                    &rig.skeleton,
                    &rig.root_parent_qvs,
                    &locals[k * stride..(k + 1) * stride],
                    &mut model[k * stride..(k + 1) * stride],
                );
            }
        }
        (HierarchyVariant::Simd, ModelPosesMut::Lanes(model)) => {
            simd::run(&rig.skeleton, locals, stride, model);
        }
        _ => panic!("hierarchy variant {variant:?} given the wrong output layout"),
    }
}
