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
//! mesh (error 0) keeps every influence.
//!
//! Measured once with the level errors ([`super::level_errors`]), which add each level's
//! cut to its stated error: the largest movement of the cuts of that level and every finer
//! one (a group of eight characters is skinned with its finest character's cut, so a coarse
//! character may carry a finer level's). The CPU's linear-blend kernels skin a level's
//! vertices with the cut ([`crate::prepare::InfluenceCut`]); dual quaternions and the GPU's
//! shaders keep every influence, which the stated error bounds as well (the cut only adds).

use glam::{DMat4, DVec3};

use super::level_errors::level_errors;
use super::mesh_lod::{POSE_MARGIN, poses_per_clip};
use super::reference::skin_positions;
use super::volume::for_each_pose_shifted;
use crate::prepare::PreparedRig;
pub use crate::prepare::{LevelInfluences, MAX_CUT};

/// The share of a level's error that cutting its influences may add.
pub const INFLUENCE_SHARE: f64 = 0.25;

/// Per level of `rig`'s chain, what cutting its influences moves (see the module docs).
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

/// Influences a character skinned for `level` of `rig`'s chain blends: over the level's
/// vertices in the sorted order (what the CPU's kernels skin), each vertex's count, or
/// `kept` where it has more.
pub fn blended_influences(rig: &PreparedRig, level: usize, kept: Option<usize>) -> usize {
    let prefix = rig.mesh.sorted().class_prefix(level);
    prefix
        .iter()
        .enumerate()
        .map(|(c, &n)| n * kept.map_or(c + 1, |k| (c + 1).min(k)))
        .sum()
}

/// Per level, the cuts measured against `errors` (each level's error before cuts, no
/// smaller than a finer level's): what [`super::level_errors`] keeps.
pub(crate) fn measure_cuts(rig: &PreparedRig, errors: &[f32]) -> Vec<LevelInfluences> {
    let mut added = 0.0f64;
    largest_moves(rig, 0.0)
        .into_iter()
        .enumerate()
        .map(|(level, measured)| {
            let moved = measured.map(|m| m * (1.0 + POSE_MARGIN));
            let budget = errors.get(level).copied().unwrap_or(0.0) as f64 * INFLUENCE_SHARE;
            // The fewest that fit, where they cut anything (a cut that moves nothing keeps
            // every influence of every vertex of the level).
            let fits = (level > 0)
                .then(|| (0..MAX_CUT).find(|&k| moved[k] <= budget))
                .flatten()
                .filter(|&k| moved[k] > 0.0)
                .map(|k| k + 1);
            if let Some(k) = fits {
                added = added.max(moved[k - 1]);
            }
            LevelInfluences { moved, fits, added }
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
    fn a_cut_holds_the_oracles_cut_weights_bit_for_bit_in_the_sorted_order() {
        let rig = PreparedRig::reference();
        let sorted = rig.mesh.sorted();
        for kept in 1..=MAX_CUT {
            let (reduced, _) = rig.source_mesh.reduced_to(kept);
            let cut = sorted.cut(kept);
            let (mut j, mut w, mut v) = (0, 0, 0);
            for run in cut.class_runs() {
                let k = run.influences;
                assert!(k <= kept);
                for _ in 0..run.len {
                    let o = sorted.original_of_sorted()[v] as usize;
                    assert_eq!(
                        &cut.joints()[j..j + k],
                        &reduced.joints[o][..k],
                        "vertex {o}"
                    );
                    if k > 1 {
                        let given: Vec<u32> = cut.weights()[w..w + k]
                            .iter()
                            .map(|x| x.to_bits())
                            .collect();
                        let expected: Vec<u32> = reduced.weights[o][..k]
                            .iter()
                            .map(|x| x.to_bits())
                            .collect();
                        assert_eq!(given, expected, "vertex {o}, cut to {kept}");
                        w += k;
                    } else {
                        assert_eq!(reduced.weights[o][0], 1.0);
                    }
                    assert!(reduced.weights[o][k..].iter().all(|&x| x == 0.0));
                    j += k;
                    v += 1;
                }
            }
            assert_eq!(
                (j, w, v),
                (cut.joints().len(), cut.weights().len(), sorted.len())
            );
        }
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
