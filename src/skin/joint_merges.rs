//! Which joints each level of the mesh LOD chain stops animating: per level, the joints
//! that, held at their rest pose (their tracks not sampled, so what they carry follows
//! their parent rigidly), move the level's vertices by at most a share of the level's
//! surface error, measured through the f64 oracle over the clips.
//!
//! How it works: at the poses the level errors are measured at
//! ([`super::mesh_lod::poses_per_clip`] per clip), the oracle poses every joint and skins
//! the level's drawn vertices (those whose deepest level is that level or coarser). Then,
//! leaves first (joints in reverse order, so a joint is tried after every joint below it),
//! each joint of the level's set that a clip animates is held at its rest pose on top of
//! the joints held so far, and stays held where the largest movement of the level's
//! vertices over every pose, plus [`super::mesh_lod::POSE_MARGIN`] for the times between,
//! stays within [`MERGE_SHARE`] of the level's surface error. Two surfaces are never
//! farther apart than their corresponding vertices, so holding them adds at most that to
//! the level's error, and the stated error ([`super::level_errors`]) adds it. Roots are never held
//! (they carry the character), nor anything at full detail (error 0).
//!
//! Every path applies them: a character posed for a level samples no track of its held
//! joints and gives them their rest pose (the CPU's samplers, the GPU's `cs_sample`), and
//! verify's oracle holds the same joints at the level it checks.

use glam::DVec3;

use super::mesh_lod::{POSE_MARGIN, poses_per_clip};
use super::reference::skin_positions;
use crate::anim::hierarchy::reference::{LocalF64, model_from_joint_f64, palette};
use crate::anim::sample::sample_clip;
use crate::prepare::PreparedRig;

pub use crate::prepare::LevelMerges;

/// The share of a level's surface error that holding its joints at rest may add.
pub const MERGE_SHARE: f64 = 0.25;

/// Per level, the joints it can hold at rest within [`MERGE_SHARE`] of `errors`, its
/// surface's distance from the full mesh's (what [`level_errors`] measures first).
pub fn measure_merges(rig: &PreparedRig, errors: &[f32]) -> Vec<LevelMerges> {
    let poses = local_poses(rig, 0.0);
    let rest: Vec<LocalF64> = rig.rest_pose.iter().map(LocalF64::from).collect();
    let animated = animated_joints(rig);
    let joints = rig.joint_count();
    rig.level_joint_sets()
        .iter()
        .enumerate()
        .map(|(level, set)| {
            let candidates: Vec<usize> = set.joints().filter(|&j| animated[j]).collect();
            let budget = errors.get(level).copied().unwrap_or(0.0) as f64 * MERGE_SHARE;
            if level == 0 || budget <= 0.0 || poses.is_empty() {
                return LevelMerges::none(candidates.len(), joints);
            }
            let limit = budget / (1.0 + POSE_MARGIN);
            let vertices = level_vertices(rig, level);
            let mut held = vec![false; joints];
            let full: Vec<Vec<DVec3>> = poses
                .iter()
                .map(|locals| skinned(rig, locals, &held, &rest, &vertices))
                .collect();
            let mut moved = 0.0;
            for &joint in candidates.iter().rev() {
                if joint < rig.skeleton.root_count {
                    continue;
                }
                held[joint] = true;
                match largest_move(rig, &poses, &full, &held, &rest, &vertices, limit) {
                    // Measured with every joint held so far: the movement of the set as
                    // it stands.
                    Some(m) => moved = m * (1.0 + POSE_MARGIN),
                    None => held[joint] = false,
                }
            }
            let held = (0..held.len()).filter(|&j| held[j]).collect();
            LevelMerges::new(candidates.len(), held, moved, joints)
        })
        .collect()
}

/// Per level, the largest movement of its vertices with `held[level]`'s joints at rest
/// that the oracle finds at the poses `shift` of a step into each clip (0: the measured
/// ones; the tests take 0.5, halfway between them), no margin added.
pub fn held_moves(rig: &PreparedRig, held: &[Vec<usize>], shift: f32) -> Vec<f64> {
    let poses = local_poses(rig, shift);
    let rest: Vec<LocalF64> = rig.rest_pose.iter().map(LocalF64::from).collect();
    let none = vec![false; rig.joint_count()];
    held.iter()
        .enumerate()
        .map(|(level, joints)| {
            let vertices = level_vertices(rig, level);
            let mut marks = none.clone();
            for &j in joints {
                if let Some(m) = marks.get_mut(j) {
                    *m = true;
                }
            }
            let full: Vec<Vec<DVec3>> = poses
                .iter()
                .map(|locals| skinned(rig, locals, &none, &rest, &vertices))
                .collect();
            largest_move(rig, &poses, &full, &marks, &rest, &vertices, f64::INFINITY)
                .unwrap_or(f64::INFINITY)
        })
        .collect()
}

/// Every clip's local poses at `poses_per_clip` evenly spaced times, `shift` of a step
/// later, in f64.
fn local_poses(rig: &PreparedRig, shift: f32) -> Vec<Vec<LocalF64>> {
    let samples = poses_per_clip(rig);
    let mut locals = rig.rest_pose.clone();
    let mut poses = Vec::with_capacity(rig.clips.len() * samples);
    for clip in &rig.clips {
        for i in 0..samples {
            let time_secs = clip.duration_secs * (i as f32 + shift) / samples as f32;
            sample_clip(clip, &rig.rest_pose, time_secs, &mut locals);
            poses.push(locals.iter().map(LocalF64::from).collect());
        }
    }
    poses
}

/// Per joint, whether a track of some clip animates it.
fn animated_joints(rig: &PreparedRig) -> Vec<bool> {
    let mut animated = vec![false; rig.joint_count()];
    let mut mark = |joint: usize| {
        if let Some(a) = animated.get_mut(joint) {
            *a = true;
        }
    };
    for clip in &rig.clips {
        for a in &clip.animated {
            mark(a.joint as usize);
        }
        if let Some(lanes) = &clip.lane_rotations {
            for &joint in &lanes.joints {
                mark(joint as usize);
            }
        }
    }
    animated
}

/// The drawn vertices of `level` (deepest level that level or coarser).
fn level_vertices(rig: &PreparedRig, level: usize) -> Vec<u32> {
    let deepest = rig
        .mesh_chain()
        .deepest_levels_file(rig.source_mesh.vertex_count());
    rig.drawn_vertices()
        .iter()
        .copied()
        .filter(|&v| {
            deepest
                .get(v as usize)
                .is_some_and(|&d| d as usize >= level)
        })
        .collect()
}

/// `vertices` skinned by the oracle at `locals`, the `held` joints at their rest pose.
fn skinned(
    rig: &PreparedRig,
    locals: &[LocalF64],
    held: &[bool],
    rest: &[LocalF64],
    vertices: &[u32],
) -> Vec<DVec3> {
    let posed: Vec<LocalF64> = locals
        .iter()
        .zip(rest)
        .zip(held)
        .map(|((&l, &r), &h)| if h { r } else { l })
        .collect();
    let model = model_from_joint_f64(&rig.skeleton, &posed);
    skin_positions(&rig.source_mesh, &palette(&rig.skeleton, &model), vertices)
}

/// The largest distance between `full` and the vertices skinned with `held` at rest, over
/// every pose; `None` as soon as it passes `limit`.
fn largest_move(
    rig: &PreparedRig,
    poses: &[Vec<LocalF64>],
    full: &[Vec<DVec3>],
    held: &[bool],
    rest: &[LocalF64],
    vertices: &[u32],
    limit: f64,
) -> Option<f64> {
    let mut worst: f64 = 0.0;
    for (locals, full) in poses.iter().zip(full) {
        let moved = skinned(rig, locals, held, rest, vertices);
        for (a, b) in full.iter().zip(&moved) {
            worst = worst.max(a.distance(*b));
        }
        if worst > limit {
            return None;
        }
    }
    Some(worst)
}
