//! The built-in rigs: `reference`, below, and `twist` (a capsule for the candy-wrapper
//! test, see [`twist`]), both embedded in the binary as .glb files (`assets/`).
//!
//! The reference rig: a 96-joint humanoid with a ~5,000-triangle skinned surface
//! and three looping clips (`crouch`, `walk`, `run`), generated deterministically.
//!
//! How it works: the body is lofted from elliptic rings along straight "tubes" (torso and
//! head, arms with palms, fingers, thumbs, legs, feet). Branches are joined the way a
//! modeller extrudes: a window of quads is cut out of the parent tube and its boundary
//! loop becomes the first ring of the child; the crotch and the knuckles split one ring
//! into several loops with small "bridge" vertices. The result is one closed, connected
//! surface. Each tube is its own UV chart (u around, v along), so vertices on chart
//! borders are duplicated with different UVs; normals are computed on the welded surface
//! so the duplicates shade identically.
//!
//! Skin weights come from inverse distance to the bone segments of the tube's joints,
//! cut to the four heaviest. Which vertices keep 1, 2, 3 or 4 influences is decided by
//! ranking vertices by how mixed their weights are and cutting that ranking at the
//! influence shares of the test character of Stefan Reinalter's "Adventures in data-oriented design – Part 4: Skinning it to 11"
//! (25 / 20 / 25 / 30 %): the least mixed
//! quarter keeps one bone, the most mixed 30 % keep four. The clips are authored as
//! joint angles over a gait phase, with the pelvis height solved from leg geometry so the
//! supporting foot stays on the ground, and sampled at 30 keys per second.

use std::collections::HashMap;
use std::f32::consts::{PI, TAU};

use glam::{Mat4, Quat, Vec2, Vec3};

mod clips;
mod joints;
mod mesh;
pub mod twist;
mod weights;

use clips::*;
use joints::*;
use mesh::*;
use weights::*;

use super::{
    Clip, Interpolation, JointTracks, MAX_INFLUENCES, Mesh, NO_PARENT, Rig, Skeleton, Track,
    Transform,
};

/// Names of the clips, in file order.
pub const CLIP_NAMES: [&str; 3] = ["crouch", "walk", "run"];
/// Key rate of the generated clips.
pub const KEYS_PER_SEC: f32 = 30.0;
/// Influence-count shares of the test character of "Skinning it to 11" (Reinalter), for
/// 1, 2, 3 and 4 influences.
pub const INFLUENCE_SHARES: [f32; 4] = [0.25, 0.20, 0.25, 0.30];

/// Builds the reference rig. Pure and deterministic: same output on every run.
pub fn reference_rig() -> Rig {
    let joints = JointTable::new();
    let mesh = build_mesh(&joints);
    let clips = CLIP_NAMES
        .iter()
        .map(|name| build_clip(name, &joints))
        .collect();
    let skeleton = Skeleton {
        names: joints.defs.iter().map(|d| d.name.clone()).collect(),
        parents: joints
            .defs
            .iter()
            .map(|d| d.parent.map_or(NO_PARENT, |p| p as u16))
            .collect(),
        root_count: 1,
        model_from_root_parent: vec![Mat4::IDENTITY],
        rest_pose: joints
            .defs
            .iter()
            .map(|d| Transform {
                translation: d.position - d.parent.map_or(Vec3::ZERO, |p| joints.defs[p].position),
                rotation: Quat::IDENTITY,
                scale: Vec3::ONE,
            })
            .collect(),
        palette_joints: Skeleton::palette_per_joint(joints.defs.len()),
        joint_from_bind: joints
            .defs
            .iter()
            .map(|d| Mat4::from_translation(-d.position))
            .collect(),
    };
    Rig {
        skeleton,
        mesh,
        clips,
        materials: Default::default(),
    }
}

/// The `asset.generator` string written into the reference rig.
pub const GENERATOR: &str = "skinbench gen-rig";

/// The rigs skinbench carries, by the name `--rig` and `gen-rig --kind` take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltInRig {
    Reference,
    Twist,
}

impl BuiltInRig {
    pub const ALL: [BuiltInRig; 2] = [BuiltInRig::Reference, BuiltInRig::Twist];

    pub fn name(self) -> &'static str {
        match self {
            BuiltInRig::Reference => "reference",
            BuiltInRig::Twist => "twist",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            BuiltInRig::Reference => {
                "96-joint humanoid, ~5,000 triangles, clips crouch, walk, run (the default)"
            }
            BuiltInRig::Twist => {
                "a capsule on four joints whose end twists 180° and bends 90°: linear blending \
                 collapses, dual quaternions keep the volume"
            }
        }
    }

    pub fn from_name(name: &str) -> Option<BuiltInRig> {
        BuiltInRig::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The rig, generated (pure and deterministic).
    pub fn generate(self) -> Rig {
        match self {
            BuiltInRig::Reference => reference_rig(),
            BuiltInRig::Twist => twist::twist_rig(),
        }
    }

    /// The copy embedded in the binary (what the app loads; tests check it equals a
    /// fresh generation).
    pub fn glb(self) -> &'static [u8] {
        match self {
            BuiltInRig::Reference => crate::REFERENCE_RIG_GLB,
            BuiltInRig::Twist => crate::TWIST_RIG_GLB,
        }
    }

    /// Where `gen-rig` writes it by default, and where the embedded copy comes from.
    pub fn asset_path(self) -> &'static str {
        match self {
            BuiltInRig::Reference => "assets/reference.glb",
            BuiltInRig::Twist => "assets/twist.glb",
        }
    }
}
