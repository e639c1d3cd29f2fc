//! Which joints each level of the mesh LOD chain stops animating: per level, the joints
//! that, held at their rest pose (their tracks not sampled, so what they carry follows
//! their parent rigidly), move the level's vertices no more than its surface's distance
//! from the full mesh leaves room for, measured through the f64 oracle over the clips.
//!
//! How it works: at the poses the level errors are measured at
//! ([`super::mesh_lod::poses_per_clip`] per clip), the oracle poses every joint and skins
//! the level's drawn vertices (those whose deepest level is that level or coarser). Then,
//! leaves first (joints in reverse order, so a joint is tried after every joint below it),
//! each joint of the level's set that a clip animates is held at its rest pose on top of
//! the joints held so far, and stays held where, at every pose, the largest movement of
//! the level's vertices fits the room that pose's surface distance leaves under the
//! largest one. Two surfaces are never farther apart than their corresponding vertices
//! plus the distance between them before, so holding adds nothing to the level's largest
//! distance, and its stated error ([`super::level_errors`]) does not grow: a level holds
//! joints where its surface is close at the poses they move most. Roots are never held
//! (they carry the character), nor anything at full detail (error 0).
//!
//! Every path applies them: a character posed for a level samples no track of its held
//! joints and gives them their rest pose (the CPU's samplers, the GPU's `cs_sample`), and
//! verify's oracle holds the same joints at the level it checks.

use glam::DVec3;

use super::mesh_lod::{POSE_MARGIN, PoseSurfaces, moved_surface_distance, poses_per_clip};
use super::reference::skin_positions;
use crate::anim::hierarchy::reference::{LocalF64, model_from_joint_f64, palette};
use crate::anim::sample::sample_clip;
use crate::prepare::{PreparedRig, parallel};

pub use crate::prepare::LevelMerges;

/// One level's held joints as measured, with the distance between its surface, posed
/// with them at rest, and the full one at each pose (what the stated error takes,
/// [`super::level_errors`]).
#[derive(Clone, Debug)]
pub struct MeasuredMerges {
    pub merges: LevelMerges,
    /// Per measured pose, the distance (or a bound on it), no margin.
    pub distance_per_pose: Vec<f64>,
}

/// Per level, the joints it can hold at rest without adding to its largest surface
/// distance over `measured`'s poses ([`super::mesh_lod::measure_surfaces`], at the
/// poses `local_poses` makes). A joint stays held while, at every pose, the level's
/// surface with every joint held so far stays within that largest distance: first by the
/// bound (the pose's distance plus the most a vertex moves), and where the bound does not
/// show it, by measuring the held surface's distance itself.
pub fn measure_merges(rig: &PreparedRig, measured: &PoseSurfaces) -> Vec<MeasuredMerges> {
    let poses = local_poses(rig, 0.0);
    let rest: Vec<LocalF64> = rig.rest_pose.iter().map(LocalF64::from).collect();
    let animated = rig.animated_joints();
    let joints = rig.joint_count();
    let chain = rig.mesh_chain();
    let sets = rig.level_joint_sets();
    // The levels are independent: one a core.
    parallel::map(sets.len(), |level| {
        let set = &sets[level];
        let candidates: Vec<usize> = set.joints().filter(|&j| animated[j]).collect();
        let distances = measured.distances.get(level).map_or(&[][..], |d| &d[..]);
        let none = MeasuredMerges {
            merges: LevelMerges::none(candidates.len(), joints),
            distance_per_pose: distances.to_vec(),
        };
        // The measured poses are the clips' (a rig without clips has none to hold).
        if level == 0
            || poses.is_empty()
            || distances.len() != poses.len()
            || measured.surfaces.len() != poses.len()
        {
            return none;
        }
        let largest = distances.iter().copied().fold(0.0f64, f64::max);
        let vertices = level_vertices(rig, level);
        let triangles = chain.level_indices(level);
        // Each pose's point distances, measured with the level's distance.
        let points = &measured.points[level];
        let vertex_count = rig.source_mesh.vertex_count();
        let mut held_positions = vec![DVec3::ZERO; vertex_count];
        let mut movement_by_vertex = vec![0.0f64; vertex_count];
        let mut movement = vec![0.0f64; vertices.len()];
        let mut held = vec![false; joints];
        let mut kept = none.distance_per_pose.clone();
        // The poses with the least room first: where a joint that cannot be held
        // shows it.
        let mut closest_first: Vec<usize> = (0..poses.len()).collect();
        closest_first.sort_by(|&a, &b| distances[b].total_cmp(&distances[a]));
        for &joint in candidates.iter().rev() {
            if joint < rig.skeleton.root_count {
                continue;
            }
            held[joint] = true;
            // Per pose, the held surface's distance: each point's distance before
            // plus what its triangle moves bounds it, and the points that bound
            // leaves over the largest distance are measured.
            let mut trial = vec![0.0f64; poses.len()];
            let mut fits = true;
            for &p in &closest_first {
                let locals = &poses[p];
                let (positions, full_tree) = &measured.surfaces[p];
                let moved = skinned(rig, locals, &held, &rest, &vertices);
                for ((&v, m), slot) in vertices.iter().zip(&moved).zip(&mut movement) {
                    *slot = positions[v as usize].distance(*m);
                    held_positions[v as usize] = *m;
                }
                for (&v, &m) in vertices.iter().zip(&movement) {
                    movement_by_vertex[v as usize] = m;
                }
                let d = points[p].moved_distance(
                    positions,
                    full_tree,
                    &held_positions,
                    &movement_by_vertex,
                    triangles,
                    largest,
                );
                if d > largest {
                    fits = false;
                    break;
                }
                trial[p] = d;
            }
            if fits {
                kept = trial;
            } else {
                held[joint] = false;
            }
        }
        let held: Vec<usize> = (0..held.len()).filter(|&j| held[j]).collect();
        let moved = if held.is_empty() {
            0.0
        } else {
            largest_moves_at(rig, &poses, &held, &vertices) * (1.0 + POSE_MARGIN)
        };
        MeasuredMerges {
            merges: LevelMerges::new(candidates.len(), held, moved, joints),
            distance_per_pose: kept,
        }
    })
}

/// Per level, at each of the poses `shift` of a step into each clip (0: the measured
/// ones; the tests take 0.5, halfway between them), the distance between the level's
/// surface posed with `held[level]`'s joints at rest and the full one, measured; with
/// `kept[level]`, the level's vertices skinned with that many influences each
/// ([`crate::rig::Mesh::reduced_to`], what the CPU's kernels and `gpu_compute` skin the level with).
pub fn held_surface_distances(
    rig: &PreparedRig,
    held: &[Vec<usize>],
    kept: &[Option<usize>],
    shift: f32,
) -> Vec<Vec<f64>> {
    let times = crate::skin::volume::grid_times(rig, poses_per_clip(rig), shift);
    held_surface_distances_at(rig, held, kept, &times)
}

/// [`held_surface_distances`] at `times` (clip, seconds into it): what a character drawn
/// at each level shows there, against the full mesh.
pub fn held_surface_distances_at(
    rig: &PreparedRig,
    held: &[Vec<usize>],
    kept: &[Option<usize>],
    times: &[(usize, f32)],
) -> Vec<Vec<f64>> {
    let measured = crate::skin::mesh_lod::measure_surfaces_at(rig, times);
    let poses = local_poses_at(rig, times);
    let rest: Vec<LocalF64> = rig.rest_pose.iter().map(LocalF64::from).collect();
    let chain = rig.mesh_chain();
    let full = chain.level_indices(0);
    held.iter()
        .enumerate()
        .map(|(level, joints)| {
            let distances = measured.distances.get(level).cloned().unwrap_or_default();
            let kept = kept.get(level).copied().flatten();
            if (joints.is_empty() && kept.is_none()) || poses.len() != measured.surfaces.len() {
                return distances;
            }
            let cut = kept.map(|k| rig.source_mesh.reduced_to(k).0);
            let mesh = cut.as_ref().unwrap_or(&rig.source_mesh);
            let mut marks = vec![false; rig.joint_count()];
            for &j in joints {
                if let Some(m) = marks.get_mut(j) {
                    *m = true;
                }
            }
            let vertices = level_vertices(rig, level);
            poses
                .iter()
                .zip(&measured.surfaces)
                .map(|(locals, (positions, full_tree))| {
                    let moved = skinned_mesh(rig, mesh, locals, &marks, &rest, &vertices);
                    let mut held_positions = positions.clone();
                    for (&v, m) in vertices.iter().zip(&moved) {
                        held_positions[v as usize] = *m;
                    }
                    moved_surface_distance(
                        positions,
                        full,
                        full_tree,
                        &held_positions,
                        chain.level_indices(level),
                    )
                })
                .collect()
        })
        .collect()
}

/// The most `held` (at rest) moves any of `vertices` over `poses`.
fn largest_moves_at(
    rig: &PreparedRig,
    poses: &[Vec<LocalF64>],
    held: &[usize],
    vertices: &[u32],
) -> f64 {
    let rest: Vec<LocalF64> = rig.rest_pose.iter().map(LocalF64::from).collect();
    let none = vec![false; rig.joint_count()];
    let mut marks = none.clone();
    for &j in held {
        if let Some(m) = marks.get_mut(j) {
            *m = true;
        }
    }
    let mut worst = 0.0f64;
    for locals in poses {
        let full = skinned(rig, locals, &none, &rest, vertices);
        let moved = skinned(rig, locals, &marks, &rest, vertices);
        for (a, b) in full.iter().zip(&moved) {
            worst = worst.max(a.distance(*b));
        }
    }
    worst
}

/// Per level, at each of the poses `shift` of a step into each clip (0: the measured
/// ones; the tests take 0.5, halfway between them), the largest movement of its vertices
/// with `held[level]`'s joints at rest that the oracle finds, no margin added.
pub fn held_moves_per_pose(rig: &PreparedRig, held: &[Vec<usize>], shift: f32) -> Vec<Vec<f64>> {
    let poses = local_poses(rig, shift);
    let rest: Vec<LocalF64> = rig.rest_pose.iter().map(LocalF64::from).collect();
    let none = vec![false; rig.joint_count()];
    let unlimited = vec![f64::INFINITY; poses.len()];
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
            moves(rig, &poses, &full, &marks, &rest, &vertices, &unlimited)
                .unwrap_or_else(|| vec![f64::INFINITY; poses.len()])
        })
        .collect()
}

/// [`held_moves_per_pose`]'s largest over the poses, per level.
pub fn held_moves(rig: &PreparedRig, held: &[Vec<usize>], shift: f32) -> Vec<f64> {
    held_moves_per_pose(rig, held, shift)
        .iter()
        .map(|m| m.iter().copied().fold(0.0f64, f64::max))
        .collect()
}

/// Every clip's local poses at `poses_per_clip` evenly spaced times, `shift` of a step
/// later, in f64.
pub(super) fn local_poses(rig: &PreparedRig, shift: f32) -> Vec<Vec<LocalF64>> {
    local_poses_at(
        rig,
        &crate::skin::volume::grid_times(rig, poses_per_clip(rig), shift),
    )
}

/// The local poses at `times` (clip, seconds into it), in f64.
pub(super) fn local_poses_at(rig: &PreparedRig, times: &[(usize, f32)]) -> Vec<Vec<LocalF64>> {
    let mut locals = rig.rest_pose.clone();
    times
        .iter()
        .map(|&(c, time_secs)| {
            sample_clip(&rig.clips[c], &rig.rest_pose, time_secs, &mut locals);
            locals.iter().map(LocalF64::from).collect()
        })
        .collect()
}

/// The drawn vertices of `level` (deepest level that level or coarser).
pub(super) fn level_vertices(rig: &PreparedRig, level: usize) -> Vec<u32> {
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
    skinned_mesh(rig, &rig.source_mesh, locals, held, rest, vertices)
}

/// [`skinned`], `mesh`'s influences (the rig's mesh or a cut of it).
pub(super) fn skinned_mesh(
    rig: &PreparedRig,
    mesh: &crate::rig::Mesh,
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
    skin_positions(mesh, &palette(&rig.skeleton, &model), vertices)
}

/// Per pose, the largest distance between `full` and the vertices skinned with `held` at
/// rest; `None` as soon as one passes its pose's `room`.
fn moves(
    rig: &PreparedRig,
    poses: &[Vec<LocalF64>],
    full: &[Vec<DVec3>],
    held: &[bool],
    rest: &[LocalF64],
    vertices: &[u32],
    room: &[f64],
) -> Option<Vec<f64>> {
    let mut per_pose = Vec::with_capacity(poses.len());
    for ((locals, full), &room) in poses.iter().zip(full).zip(room) {
        let moved = skinned(rig, locals, held, rest, vertices);
        let worst = full
            .iter()
            .zip(&moved)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0f64, f64::max);
        if worst > room {
            return None;
        }
        per_pose.push(worst);
    }
    Some(per_pose)
}
