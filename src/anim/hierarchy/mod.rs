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

use crate::prepare::PreparedRig;
use crate::prepare::joint_sets::JointSet;
use crate::types::{LANES, Lanes3x4, Qvs};

pub use tree::JointTree;

crate::declare_variants! {
    /// The hierarchy stage's variants, baseline first.
    pub enum HierarchyVariant: HierarchySpec in "hierarchy" {
        Tree => HierarchySpec {
            name: "tree",
            description: "per-instance heap tree of joints (4x4 local + global, Vec of children), recursive walk",
            layout: ModelLayout::Tree,
            lanes: 1,
            refuses: Refuses::Nothing,
            recursive: true,
        },
        Flat => HierarchySpec {
            name: "flat",
            description: "u16 parents in depth-first order, arrays of 4x4, one linear loop",
            layout: ModelLayout::Mat4,
            lanes: 1,
            refuses: Refuses::Nothing,
            recursive: false,
        },
        FlatQvs => HierarchySpec {
            name: "flat_qvs",
            description: "the linear walk in quaternion + vector + scale; matrices built by the palette stage",
            layout: ModelLayout::Qvs,
            lanes: 1,
            refuses: Refuses::ShearingScale,
            recursive: false,
        },
        Simd => HierarchySpec {
            name: "simd",
            description: "8 instances per register (lane = instance, same parent in every lane), 3x4 matrices",
            layout: ModelLayout::Lanes,
            lanes: LANES,
            refuses: Refuses::Nothing,
            recursive: false,
        },
    }
}

/// A hierarchy variant's properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HierarchySpec {
    pub name: &'static str,
    pub description: &'static str,
    /// The representation it hands to the palette stage.
    pub layout: ModelLayout,
    /// Instances per kernel call (1, or a group of [`LANES`] in one register).
    pub lanes: usize,
    /// Which rigs it cannot pose exactly.
    pub refuses: Refuses,
    /// Recurses once per hierarchy level, so it runs only on the pipeline's workers,
    /// whose stacks hold the deepest chain import accepts (never on the calling thread).
    pub recursive: bool,
}

/// Which rigs a variant refuses (and says so instead of producing wrong poses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refuses {
    Nothing,
    /// Rigs where a non-uniform scale is followed by a rotation (a shear): QVS cannot hold
    /// it ([`crate::prepare::scale::shear_reason`]).
    ShearingScale,
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
        self.spec().layout
    }

    /// Why this variant cannot pose `rig` exactly, or `None` if it can.
    pub fn refusal(self, rig: &PreparedRig) -> Option<String> {
        match self.spec().refuses {
            Refuses::Nothing => None,
            Refuses::ShearingScale => rig.shear_reason.clone(),
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

impl ModelPosesMut<'_> {
    pub fn layout(&self) -> ModelLayout {
        match self {
            Self::Tree(_) => ModelLayout::Tree,
            Self::Mat4(_) => ModelLayout::Mat4,
            Self::Qvs(_) => ModelLayout::Qvs,
            Self::Lanes(_) => ModelLayout::Lanes,
        }
    }

    /// Entries available per the layout's unit (trees, matrices, QVS or lane joints).
    fn len(&self) -> usize {
        match self {
            Self::Tree(t) => t.len(),
            Self::Mat4(m) => m.len(),
            Self::Qvs(q) => q.len(),
            Self::Lanes(l) => l.len(),
        }
    }
}

/// Why a hierarchy call was refused (checked once, before any joint is touched).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HierarchyError {
    #[error("the {variant} hierarchy writes {expected:?} model poses, given {given:?}")]
    WrongLayout {
        variant: &'static str,
        expected: ModelLayout,
        given: ModelLayout,
    },
    #[error("{active} live instances in a group; 1..={LANES} are allowed")]
    Active { active: usize },
    #[error("local poses hold {given} transforms; {needed} are needed")]
    LocalsTooShort { given: usize, needed: usize },
    #[error("model poses hold {given} entries; {needed} are needed")]
    OutputTooShort { given: usize, needed: usize },
    #[error("the joint set was made for {given} joints; the rig has {expected}")]
    JointSet { given: usize, expected: usize },
}

/// Runs the hierarchy for one group: `locals` holds `LANES * rig.joint_stride` transforms
/// (instance `k` at `k * joint_stride`), of which the first `active` instances are live.
/// Only the joints of `set` are posed (every joint: [`JointSet::all`]; a mesh level's:
/// [`PreparedRig::level_joint_sets`]); the others' model poses are left as they were.
/// Everything is validated first (ozz's `Validate()`); the kernels then do no checks.
pub fn run_group(
    variant: HierarchyVariant,
    rig: &PreparedRig,
    locals: &[Qvs],
    out: ModelPosesMut,
    active: usize,
    set: &JointSet,
) -> Result<(), HierarchyError> {
    let stride = rig.joint_stride;
    if set.joint_count() != rig.joint_count() {
        return Err(HierarchyError::JointSet {
            given: set.joint_count(),
            expected: rig.joint_count(),
        });
    }
    // Every joint: the variants' plain loops; a level's set: its list.
    let joints = (!set.has_every_joint()).then(|| set.joint_list());
    if !(1..=LANES).contains(&active) {
        return Err(HierarchyError::Active { active });
    }
    if locals.len() < LANES * stride {
        return Err(HierarchyError::LocalsTooShort {
            given: locals.len(),
            needed: LANES * stride,
        });
    }
    if out.layout() != variant.layout() {
        return Err(HierarchyError::WrongLayout {
            variant: variant.spec().name,
            expected: variant.layout(),
            given: out.layout(),
        });
    }
    let needed = match variant.layout() {
        ModelLayout::Tree => active,
        ModelLayout::Mat4 | ModelLayout::Qvs => LANES * stride,
        ModelLayout::Lanes => rig.joint_count(),
    };
    if out.len() < needed {
        return Err(HierarchyError::OutputTooShort {
            given: out.len(),
            needed,
        });
    }
    let wrong = |out: &ModelPosesMut| HierarchyError::WrongLayout {
        variant: variant.spec().name,
        expected: variant.layout(),
        given: out.layout(),
    };
    match variant {
        HierarchyVariant::Tree => {
            let ModelPosesMut::Tree(trees) = out else {
                return Err(wrong(&out));
            };
            for (k, tree) in trees.iter_mut().enumerate().take(active) {
                tree::run(
                    tree,
                    &rig.skeleton,
                    &locals[k * stride..(k + 1) * stride],
                    set,
                );
            }
        }
        HierarchyVariant::Flat => {
            let ModelPosesMut::Mat4(model) = out else {
                return Err(wrong(&out));
            };
            for k in 0..active {
                flat::run(
                    &rig.skeleton,
                    &locals[k * stride..(k + 1) * stride],
                    &mut model[k * stride..(k + 1) * stride],
                    joints,
                );
            }
        }
        HierarchyVariant::FlatQvs => {
            let ModelPosesMut::Qvs(model) = out else {
                return Err(wrong(&out));
            };
            for k in 0..active {
                flat_qvs::run(
                    &rig.skeleton,
                    &rig.root_parent_qvs,
                    &locals[k * stride..(k + 1) * stride],
                    &mut model[k * stride..(k + 1) * stride],
                    joints,
                );
            }
        }
        HierarchyVariant::Simd => {
            let ModelPosesMut::Lanes(model) = out else {
                return Err(wrong(&out));
            };
            simd::run(&rig.skeleton, locals, stride, model, rig.unit_scale, set);
        }
    }
    Ok(())
}
