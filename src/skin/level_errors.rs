//! What each level of a character's LOD chain states it costs, and the joints it holds:
//! measured once per rig, on first ask, and kept with it.
//!
//! How it works: first the distance between the level's and the full mesh's skinned
//! surfaces at each measured pose ([`super::mesh_lod::measure_surfaces`]), then the joints
//! the level can hold at rest without adding to the largest of them
//! ([`super::joint_merges`]: at every pose the held surface's distance, bounded or
//! measured, stays within it), then the stated error: the largest distance of the held
//! surface over the poses, +[`POSE_MARGIN`] for the times between, never smaller than a
//! finer level's. Then the influences each level keeps ([`super::influence_cuts`]), chosen
//! the same way: without growing its largest distance. Every LOD choice (the CPU's plan, the GPU's pass, the shadow level)
//! reads it, and every path poses a level with the joints held here.
//!
//! With linear blending every path skins a level's vertices with its cut, so a character
//! posed for the level needs only the joints its kept influences name and their
//! ancestors ([`posed_joints`]): exact for that cut, no error added. Dual quaternions keep
//! every influence, so they pose the level's whole set.

use std::time::Instant;

use super::SkinMethod;
use super::influence_cuts::measure_cuts;
use super::joint_merges::{MeasuredMerges, measure_merges};
use super::mesh_lod::{POSE_MARGIN, measure_surfaces, poses_per_clip};
pub use super::tracked_bound::RigidPairs;
use super::tracked_bound::{LevelPosing, tracked_distances};
use crate::prepare::joint_sets::{JointSet, cut_joint_sets};
use crate::prepare::{LevelInfluences, LevelMerges, MeshLevelErrors, PreparedRig};

/// Each level's error of `rig`'s chain and the joints it holds at rest (measured on first
/// ask, then kept with the rig; see the module docs).
pub fn level_errors(rig: &PreparedRig) -> &MeshLevelErrors {
    rig.mesh_level_errors
        .get_or_init(|| assemble(rig, measure_levels(rig)))
}

/// Keeps `levels` (measured here or read from a cache) with `rig`, unless its errors are
/// kept already, and returns what is kept.
pub fn keep_measured(rig: &PreparedRig, levels: MeasuredLevels) -> &MeshLevelErrors {
    rig.mesh_level_errors.get_or_init(|| assemble(rig, levels))
}

/// What measuring a rig's levels finds, before what follows from it and the rig (the lane
/// tracks, the cut joint sets) is made: what the cache on disk keeps.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MeasuredLevels {
    /// Per level, its stated error (0 for the full mesh).
    pub errors: Vec<f32>,
    /// Per level, what cutting its influences moves and how many it keeps.
    pub influences: Vec<LevelInfluences>,
    /// Per level past the full mesh, the joints it holds at rest: (animated joints of its
    /// set, the held joints ascending, the largest movement they cause).
    pub held: Vec<(usize, Vec<usize>, f64)>,
    /// Per level, the largest distance found between the measured poses, posed as drawn
    /// ([`super::tracked_bound`]), where it passed what the poses found.
    pub between_poses: Vec<f64>,
    pub poses: usize,
    pub measure_secs: f64,
}

/// Measures `rig`'s levels (see the module docs).
pub fn measure_levels(rig: &PreparedRig) -> MeasuredLevels {
    measure_levels_with(rig, RigidPairs::Bounded)
}

/// [`measure_levels`], bounding the rigid pairs between the measured poses or measuring
/// them (which finds the same: `tests/mesh_lod.rs` compares them on every rig).
pub fn measure_levels_with(rig: &PreparedRig, rigid_pairs: RigidPairs) -> MeasuredLevels {
    let start = Instant::now();
    let measured = measure_surfaces(rig, poses_per_clip(rig), 0.0);
    let poses = measured.surfaces.len();
    let merges = measure_merges(rig, &measured);
    let mut errors: Vec<f32> = Vec::with_capacity(merges.len());
    for (l, (distances, m)) in measured.distances.iter().zip(&merges).enumerate() {
        // The held surface's distance at each pose (or a bound on it); holding never
        // adds to the largest distance (`measure_merges`), so this is the largest
        // distance without holding, still.
        let worst = m
            .distance_per_pose
            .iter()
            .chain(distances)
            .copied()
            .fold(0.0f64, f64::max);
        let stated = (worst * (1.0 + POSE_MARGIN)) as f32;
        let finer = errors.last().copied().unwrap_or(0.0f32);
        errors.push(if l == 0 { 0.0 } else { stated.max(finer) });
    }
    // Then the influences each level keeps, which leave its largest distance as it was.
    let influences = measure_cuts(rig, &measured, &merges);
    // Then the bound between the measured poses, each level posed as it is drawn: no
    // smaller than what the poses themselves found.
    let posing = level_posing(rig, &merges, &influences);
    // Points the partners keep within what the poses found are not measured again.
    let settled: Vec<f64> = errors
        .iter()
        .map(|&e| f64::from(e) / (1.0 + POSE_MARGIN))
        .collect();
    let tracked = tracked_distances(rig, poses_per_clip(rig), &posing, &settled, rigid_pairs);
    for l in 1..errors.len() {
        let between = (tracked[l] * (1.0 + POSE_MARGIN)) as f32;
        errors[l] = errors[l].max(between).max(errors[l - 1]);
    }
    let held = merges
        .iter()
        .skip(1)
        .map(|m| (m.merges.animated, m.merges.held.clone(), m.merges.moved))
        .collect();
    MeasuredLevels {
        errors,
        influences,
        held,
        between_poses: tracked,
        poses,
        measure_secs: start.elapsed().as_secs_f64(),
    }
}

/// How each level is posed as it is drawn: its held joints at rest, its influences cut
/// (`None` for the full mesh).
fn level_posing<'r>(
    rig: &'r PreparedRig,
    merges: &[MeasuredMerges],
    influences: &[LevelInfluences],
) -> Vec<Option<LevelPosing<'r>>> {
    merges
        .iter()
        .zip(influences)
        .enumerate()
        .map(|(l, (m, cut))| {
            (l > 0).then(|| {
                let mut held = vec![false; rig.joint_count()];
                for &j in &m.merges.held {
                    held[j] = true;
                }
                let mesh = match cut.fits {
                    Some(k) => std::borrow::Cow::Owned(rig.source_mesh.reduced_to(k).0),
                    None => std::borrow::Cow::Borrowed(&rig.source_mesh),
                };
                LevelPosing { held, mesh }
            })
        })
        .collect()
}

/// How tight the bound on the rigid pairs between the measured poses is
/// ([`super::tracked_bound`]): `rig`'s levels posed as drawn, the pairs made at the first
/// measured pose, checked at times between the measured ones. Returns the rigid pairs
/// checked and the most any distance passes its bound, as a share of the rig's size
/// (rounding where the bound holds). Measures the levels first, as a load does.
pub fn rigid_bound_check(rig: &PreparedRig) -> (usize, f64) {
    let samples = poses_per_clip(rig);
    let measured = measure_surfaces(rig, samples, 0.0);
    let merges = measure_merges(rig, &measured);
    let influences = measure_cuts(rig, &measured, &merges);
    let posing = level_posing(rig, &merges, &influences);
    let mut times = crate::skin::volume::grid_times(rig, samples, 0.37);
    times.extend(crate::skin::volume::grid_times(rig, samples, 0.81));
    super::tracked_bound::rigid_bound_check(rig, samples, &posing, &times)
}

/// The level errors of `rig` from what was measured: each level's merges with their lane
/// tracks, and the joints each cut needs.
fn assemble(rig: &PreparedRig, levels: MeasuredLevels) -> MeshLevelErrors {
    let joints = rig.joint_count();
    let merges: Vec<LevelMerges> = std::iter::once(rig.full_mesh_merges().clone())
        .chain(
            levels
                .held
                .iter()
                .enumerate()
                .map(|(i, (animated, held, moved))| {
                    // The full mesh holds nothing: the same merges a crowd at full detail gets
                    // without this measurement.
                    LevelMerges::new(*animated, held.clone(), *moved, joints)
                        .with_lanes(&rig.clips, rig.joints_at_level(i + 1))
                }),
        )
        .collect();
    let (cut_sets, cut_merges) = cut_poses(rig, &levels.influences, &merges);
    MeshLevelErrors {
        errors: levels.errors,
        influences: levels.influences,
        merges,
        cut_sets,
        cut_merges,
        between_poses: levels.between_poses,
        poses: levels.poses,
        measure_secs: levels.measure_secs,
    }
}

/// Per level, the joints a character posed for it with linear blending needs (its
/// influences cut to the level's `fits`) and what it holds of them at rest, with their
/// own lane tracks; `None` where the level cuts nothing (level 0 never does), which poses
/// its whole set with its own merges.
fn cut_poses(
    rig: &PreparedRig,
    influences: &[LevelInfluences],
    merges: &[LevelMerges],
) -> (Vec<Option<JointSet>>, Vec<Option<LevelMerges>>) {
    let kept: Vec<Option<usize>> = influences
        .iter()
        .enumerate()
        .map(|(l, c)| if l == 0 { None } else { c.fits })
        .collect();
    let deepest = rig
        .mesh_chain()
        .deepest_levels_file(rig.source_mesh.vertex_count());
    let sets = cut_joint_sets(&rig.skeleton, &rig.source_mesh, &deepest, &kept);
    let animated = rig.animated_joints();
    let cut_merges = sets
        .iter()
        .zip(merges)
        .zip(&kept)
        .map(|((set, m), k)| {
            k.map(|_| {
                LevelMerges::new(
                    set.joints().filter(|&j| animated[j]).count(),
                    m.held
                        .iter()
                        .copied()
                        .filter(|&j| set.contains(j))
                        .collect(),
                    m.moved,
                    rig.joint_count(),
                )
                .with_lanes(&rig.clips, set)
            })
        })
        .collect();
    // A level that cuts nothing has its whole set: every coarser level's is within it.
    let sets = sets
        .into_iter()
        .zip(&kept)
        .map(|(set, k)| k.map(|_| set))
        .collect();
    (sets, cut_merges)
}

/// The level errors if something has asked for them ([`level_errors`]); `None`: not
/// measured yet. No character is drawn at a coarse level before they are: every LOD choice
/// reads them.
pub fn measured(rig: &PreparedRig) -> Option<&MeshLevelErrors> {
    rig.mesh_level_errors.get()
}

/// The joints a character posed for `level` of `rig`'s chain and skinned with `method`
/// holds at rest, and the lane tracks it samples (a level past the chain is its coarsest).
/// The full mesh holds nothing and asks for no measurement; the coarser levels are
/// measured with [`level_errors`].
pub fn level_merges(rig: &PreparedRig, level: usize, method: SkinMethod) -> &LevelMerges {
    if level == 0 {
        return rig.full_mesh_merges();
    }
    let measured = level_errors(rig);
    let level = level.min(measured.merges.len() - 1);
    let whole = &measured.merges[level];
    match method {
        SkinMethod::Linear => measured.cut_merges[level].as_ref().unwrap_or(whole),
        SkinMethod::DualQuat => whole,
    }
}

/// The joints a character posed for `level` of `rig`'s chain and skinned with `method`
/// needs (a level past the chain is its coarsest): with linear blending those its kept
/// influences name and their ancestors, with dual quaternions, which keep every influence,
/// the level's whole set ([`PreparedRig::joints_at_level`]). The full mesh asks for no
/// measurement.
pub fn posed_joints(rig: &PreparedRig, level: usize, method: SkinMethod) -> &JointSet {
    match method {
        SkinMethod::Linear if level > 0 => {
            let sets = &level_errors(rig).cut_sets;
            let cut = sets[level.min(sets.len() - 1)].as_ref();
            cut.unwrap_or_else(|| rig.joints_at_level(level))
        }
        SkinMethod::Linear | SkinMethod::DualQuat => rig.joints_at_level(level),
    }
}

/// Per level of `rig`'s chain, the joints a character posed for it holds at rest
/// (measured with [`level_errors`]).
pub fn joint_merges(rig: &PreparedRig) -> &[LevelMerges] {
    &level_errors(rig).merges
}

/// Per level of `rig`'s chain, what cutting its influences moves ([`super::influence_cuts`]).
pub fn influence_cuts(rig: &PreparedRig) -> &[LevelInfluences] {
    &level_errors(rig).influences
}

/// How many influences each vertex keeps when a character is skinned for `level` of
/// `rig`'s chain (a level past the chain is its coarsest); `None`: every influence. The
/// full mesh keeps every one without measuring anything.
pub fn kept_at(rig: &PreparedRig, level: usize) -> Option<usize> {
    if level == 0 {
        return None;
    }
    let cuts = influence_cuts(rig);
    cuts.get(level.min(cuts.len().checked_sub(1)?))?.fits
}

/// Whether a character posed for `level` of `rig`'s chain and skinned with `method`
/// samples `joint` (a level past the chain is its coarsest): its posed set holds it, a
/// clip animates it and the level does not hold it at rest. The level poses its other
/// joints at rest.
pub fn level_samples(rig: &PreparedRig, level: usize, method: SkinMethod, joint: usize) -> bool {
    posed_joints(rig, level, method).contains(joint)
        && rig.animated_joints().get(joint).copied().unwrap_or(false)
        && !level_merges(rig, level, method).holds(joint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_mesh_holds_nothing_and_coarse_levels_hold_joints_without_growing_the_error() {
        let rig = PreparedRig::reference();
        let measured = level_errors(&rig);
        let merges = &measured.merges;
        assert_eq!(merges.len(), rig.mesh_chain().levels().len());
        assert!(merges[0].held.is_empty() && merges[0].moved == 0.0);
        let (surface, _) = super::super::mesh_lod::measure(&rig, poses_per_clip(&rig), 0.0);
        for (level, m) in merges.iter().enumerate() {
            assert!(m.held.len() <= m.animated, "{m:?}");
            assert!(m.held.iter().all(|&j| j >= rig.skeleton.root_count));
            if level > 0 {
                // What the poses found, or the bound between them where larger.
                let found = surface[level].max(measured.between_poses[level]);
                let stated = (found * (1.0 + POSE_MARGIN)) as f32;
                assert!(measured.errors[level] >= stated, "{measured:?}");
                assert!(
                    measured.errors[level] <= stated.max(measured.errors[level - 1]),
                    "{measured:?}"
                );
            }
        }
        // The coarse levels of the reference rig stop animating some joints.
        assert!(merges.iter().any(|m| !m.held.is_empty()), "{merges:?}");
        // Each level's lane tracks are exactly its set's unheld joints', and a level that
        // holds joints evaluates fewer blocks than the clip's ordering gives it.
        let mut fewer = 0;
        for (level, m) in merges.iter().enumerate() {
            let set = rig.joints_at_level(level);
            for (c, clip) in rig.clips.iter().enumerate() {
                let all = clip.lane_rotations.as_ref().expect("baked rotations");
                let lanes = m.lanes(c).expect("made with the merges");
                let sampled: Vec<u16> = all
                    .joints
                    .iter()
                    .copied()
                    .filter(|&j| set.contains(j as usize) && !m.holds(j as usize))
                    .collect();
                assert_eq!(lanes.joints, sampled, "level {level} {}", clip.name);
                assert_eq!(lanes.blocks, sampled.len().div_ceil(crate::types::LANES));
                assert!(lanes.blocks <= all.blocks_for(Some(level)));
                fewer += usize::from(lanes.blocks < all.blocks_for(Some(level)));
            }
        }
        assert!(fewer > 0);
    }

    #[test]
    fn the_full_mesh_keeps_every_influence_and_coarser_levels_cut_more() {
        let rig = PreparedRig::reference();
        let cuts = influence_cuts(&rig);
        assert_eq!(cuts.len(), rig.mesh_chain().levels().len());
        assert_eq!(cuts[0].fits, None);
        // The reference rig's vertices have up to four influences: cutting to four moves
        // nothing, cutting to one moves the most.
        for c in cuts {
            assert_eq!(c.moved[3], 0.0);
            assert!(c.moved[0] >= c.moved[1]);
        }
        let kept = |c: &LevelInfluences| c.fits.unwrap_or(usize::MAX);
        let coarsest = cuts.last().unwrap();
        assert!(kept(coarsest) <= kept(&cuts[1]), "{cuts:?}");
        assert!(coarsest.fits.is_some(), "{cuts:?}");
    }
}
