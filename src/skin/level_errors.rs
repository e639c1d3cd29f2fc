//! What each level of a character's LOD chain states it costs, and the joints it holds:
//! measured once per rig, on first ask, and kept with it.
//!
//! How it works: first the distance between the level's and the full mesh's skinned
//! surfaces ([`super::mesh_lod::measure`]), then the joints that share of it allows the
//! level to hold at rest ([`super::joint_merges`]), then the stated error: the sum of the
//! two, since a vertex that moves adds at most its movement to the distance between the
//! surfaces, never smaller than a finer level's. Every LOD choice (the CPU's plan, the GPU's
//! pass, the shadow level) reads the stated error, and every path poses a level with the
//! joints held here.

use std::time::Instant;

use super::joint_merges::measure_merges;
use super::mesh_lod::{POSE_MARGIN, measure, poses_per_clip};
use crate::prepare::{LevelMerges, MeshLevelErrors, PreparedRig};

/// Each level's error of `rig`'s chain and the joints it holds at rest (measured on first
/// ask, then kept with the rig): the surface's distance first, then the joints its share
/// of that allows to hold ([`super::joint_merges`]), then the stated error, the sum of
/// the two (a vertex that moves adds at most its movement to the distance between the
/// surfaces), never smaller than a finer level's.
pub fn level_errors(rig: &PreparedRig) -> &MeshLevelErrors {
    rig.mesh_level_errors.get_or_init(|| {
        let start = Instant::now();
        let (largest, poses) = measure(rig, poses_per_clip(rig), 0.0);
        let mut surface_errors = Vec::with_capacity(largest.len());
        for (l, d) in largest.iter().enumerate() {
            let stated = (d * (1.0 + POSE_MARGIN)) as f32;
            let finer = surface_errors.last().copied().unwrap_or(0.0f32);
            surface_errors.push(if l == 0 { 0.0 } else { stated.max(finer) });
        }
        let merges = measure_merges(rig, &surface_errors);
        let mut errors: Vec<f32> = Vec::with_capacity(surface_errors.len());
        for (surface, m) in surface_errors.iter().zip(&merges) {
            let finer = errors.last().copied().unwrap_or(0.0f32);
            // Rounded up, so the f32 never states less than the f64 sum.
            let sum = (*surface as f64 + m.moved) as f32;
            let sum = if (sum as f64) < *surface as f64 + m.moved {
                sum.next_up()
            } else {
                sum
            };
            errors.push(sum.max(finer));
        }
        MeshLevelErrors {
            errors,
            surface_errors,
            merges,
            poses,
            measure_secs: start.elapsed().as_secs_f64(),
        }
    })
}

/// Per level of `rig`'s chain, the joints a character posed for it holds at rest
/// (measured with [`level_errors`]).
pub fn joint_merges(rig: &PreparedRig) -> &[LevelMerges] {
    &level_errors(rig).merges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skin::joint_merges::MERGE_SHARE;

    #[test]
    fn the_full_mesh_holds_nothing_and_coarse_levels_hold_joints_within_their_share() {
        let rig = PreparedRig::reference();
        let measured = level_errors(&rig);
        let merges = &measured.merges;
        let errors = &measured.surface_errors;
        assert_eq!(merges.len(), rig.mesh_chain().levels().len());
        assert!(merges[0].held.is_empty() && merges[0].moved == 0.0);
        for (level, m) in merges.iter().enumerate() {
            assert!(m.held.len() <= m.animated, "{m:?}");
            assert!(
                m.moved <= errors[level] as f64 * MERGE_SHARE + 1e-12,
                "{m:?}"
            );
            assert!(m.held.iter().all(|&j| j >= rig.skeleton.root_count));
            assert!(
                measured.errors[level] as f64 >= errors[level] as f64 + m.moved,
                "{measured:?}"
            );
        }
        // The coarsest level of the reference rig stops animating some joints.
        assert!(!merges.last().unwrap().held.is_empty(), "{merges:?}");
    }
}
