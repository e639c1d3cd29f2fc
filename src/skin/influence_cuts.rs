//! How few influences each level of the mesh LOD chain could keep: per level, what cutting
//! every vertex to its 1, 2, 3 or 4 heaviest influences (renormalised) moves the level's
//! vertices over the clips, measured through the f64 oracle, and the fewest whose movement
//! stays within a share of the level's error.
//!
//! How it works: at the poses the level errors are measured at
//! ([`super::mesh_lod::poses_per_clip`] per clip, or the bind pose), the oracle skins every
//! drawn vertex with all its influences and with each cut ([`crate::rig::Mesh::reduced_to`]);
//! a vertex's movement is the distance between the two. A level's vertices are those whose
//! deepest level is that level or coarser, so each level takes the largest movement over
//! its vertices and the poses, plus [`super::mesh_lod::POSE_MARGIN`] for the times between.
//! The distance between two surfaces is never more than the largest distance between
//! their corresponding vertices, so a cut adds at most that to the level's error. The full
//! mesh (error 0) keeps every influence. Linear blending only: the kernels do not cut yet.

use glam::{DMat4, DVec3};

use super::level_errors::level_errors;
use super::mesh_lod::{POSE_MARGIN, poses_per_clip};
use super::reference::skin_positions;
use super::volume::for_each_pose_shifted;
use crate::prepare::PreparedRig;

/// Cuts measured: to 1 to this many influences (engines' usual vertex formats hold four).
pub const MAX_CUT: usize = 4;
/// The share of a level's error that cutting its influences may add.
pub const INFLUENCE_SHARE: f64 = 0.25;

/// What cutting one level's influences does ([`influence_cuts`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LevelInfluences {
    /// Per cut to 1..=[`MAX_CUT`] influences, the largest movement of the level's vertices,
    /// model units, margin included (0 where no vertex has more influences than the cut).
    pub moved: [f64; MAX_CUT],
    /// The fewest influences whose movement stays within [`INFLUENCE_SHARE`] of the
    /// level's error; `None` where no cut does (the level keeps every influence).
    pub fits: Option<usize>,
}

/// Per level of `rig`'s chain, what cutting its influences moves (see the module docs).
pub fn influence_cuts(rig: &PreparedRig) -> Vec<LevelInfluences> {
    let errors = &level_errors(rig).errors;
    largest_moves(rig, 0.0)
        .into_iter()
        .enumerate()
        .map(|(level, measured)| {
            let moved = measured.map(|m| m * (1.0 + POSE_MARGIN));
            let budget = errors.get(level).copied().unwrap_or(0.0) as f64 * INFLUENCE_SHARE;
            let fits = (level > 0)
                .then(|| (0..MAX_CUT).find(|&k| moved[k] <= budget).map(|k| k + 1))
                .flatten();
            LevelInfluences { moved, fits }
        })
        .collect()
}

/// Per level, per cut to 1..=[`MAX_CUT`] influences, the largest movement of the level's
/// vertices the oracle finds at the poses `shift` of a step into each clip (0: the measured
/// ones; the tests take 0.5, halfway between them), no margin added.
pub fn largest_moves(rig: &PreparedRig, shift: f32) -> Vec<[f64; MAX_CUT]> {
    let chain = rig.mesh_chain();
    let drawn = rig.drawn_vertices();
    let mesh = &rig.source_mesh;
    let cuts: Vec<_> = (1..=MAX_CUT).map(|k| mesh.reduced_to(k).0).collect();
    // Per drawn vertex and cut, its largest movement over the poses.
    let mut moved = vec![[0.0f64; MAX_CUT]; drawn.len()];
    let mut measure = |palette: &[DMat4]| {
        let full: Vec<DVec3> = skin_positions(mesh, palette, drawn);
        for (k, cut) in cuts.iter().enumerate() {
            let reduced = skin_positions(cut, palette, drawn);
            for ((m, a), b) in moved.iter_mut().zip(&full).zip(&reduced) {
                m[k] = m[k].max(a.distance(*b));
            }
        }
    };
    if rig.clips.is_empty() {
        measure(&vec![DMat4::IDENTITY; rig.skeleton.palette_len()]);
    } else {
        for_each_pose_shifted(rig, poses_per_clip(rig), shift, |_, _, palette| {
            measure(palette)
        });
    }
    let deepest = chain.deepest_levels_file(mesh.vertex_count());
    (0..chain.levels().len())
        .map(|level| {
            let mut worst = [0.0f64; MAX_CUT];
            for (&v, m) in drawn.iter().zip(&moved) {
                if deepest[v as usize] as usize >= level {
                    for k in 0..MAX_CUT {
                        worst[k] = worst[k].max(m[k]);
                    }
                }
            }
            worst
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_mesh_keeps_every_influence_and_coarser_levels_cut_more() {
        let rig = PreparedRig::reference();
        let cuts = influence_cuts(&rig);
        assert_eq!(cuts.len(), rig.mesh_chain().levels().len());
        assert_eq!(cuts[0].fits, None);
        // The reference rig's vertices have up to four influences: cutting to four moves
        // nothing, cutting to one moves the most.
        for c in &cuts {
            assert_eq!(c.moved[3], 0.0);
            assert!(c.moved[0] >= c.moved[1]);
        }
        let kept = |c: &LevelInfluences| c.fits.unwrap_or(usize::MAX);
        let coarsest = cuts.last().unwrap();
        assert!(kept(coarsest) <= kept(&cuts[1]), "{cuts:?}");
        assert!(coarsest.fits.is_some(), "{cuts:?}");
    }
}
