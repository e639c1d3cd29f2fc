//! How few influences each level of the mesh LOD chain keeps: per level, what cutting
//! every vertex to its 1, 2, 3 or 4 heaviest influences (renormalised) moves the level's
//! vertices over the clips, and the fewest whose cut leaves the level's error as it was.
//!
//! How it works: at the poses the level errors are measured at
//! ([`super::mesh_lod::poses_per_clip`] per clip, or the bind pose), the oracle skins every
//! drawn vertex with all its influences and with each cut ([`crate::rig::Mesh::reduced_to`]);
//! a vertex's movement is the distance between the two. A level's vertices are those whose
//! deepest level is that level or coarser, so each level takes the largest movement over
//! its vertices and the poses, plus [`super::mesh_lod::POSE_MARGIN`] for the times between
//! (what `inspect` prints).
//!
//! Which cut a level keeps is chosen as its held joints are ([`super::joint_merges`]):
//! finest level first, the fewest influences whose cut, on top of the level's held joints,
//! keeps the level's surface within its largest distance from the full surface at every
//! measured pose (first by the bound: a point's distance before plus what its triangle's
//! corners move; where that does not show it, by measuring the moved surface), so the
//! stated error ([`super::level_errors`]) does not grow and the choice of level stays what
//! it was. A group of eight characters is skinned with its finest member's cut, so a coarse
//! member may carry a finer level's, posed for that level: a cut is kept only where it
//! also fits on every coarser level's surface posed so. A cut that moves no vertex of the
//! level is not kept. Rigs without clips keep every influence (their one pose leaves no
//! room).
//!
//! The CPU's linear-blend kernels skin a level's vertices with the cut
//! ([`crate::prepare::InfluenceCut`], `super::level_cut`), and so does the compute pass
//! (`gpu_compute`: each level's count in its parameters); every path asks
//! [`super::level_kept`]. Dual quaternions and `gpu_vertex`'s vertex shader keep every
//! influence, a surface that lies within the same error.

use glam::{DMat4, DVec3};

use super::joint_merges::{MeasuredMerges, level_vertices, local_poses, skinned_mesh};
use super::mesh_lod::{POSE_MARGIN, PoseSurfaces, poses_per_clip};
use super::reference::skin_positions;
use super::volume::for_each_pose_shifted;
use crate::anim::hierarchy::reference::LocalF64;
use crate::prepare::PreparedRig;
pub use crate::prepare::{LevelInfluences, MAX_CUT};

/// Influences a character skinned for `level` of `rig`'s chain blends: over the level's
/// vertices in the sorted order (what the CPU's kernels skin), each vertex's count, or
/// `kept` where it has more.
pub fn blended_influences(rig: &PreparedRig, level: usize, kept: Option<usize>) -> usize {
    blended(rig.mesh.sorted().class_prefix(level), kept)
}

/// The same over the level's own vertices (what `gpu_compute`, the file-order kernels and
/// the vertex shader skin): each vertex's count ([`crate::rig::Mesh::influence_count`]), or
/// `kept` where it has more.
pub fn level_own_influences(rig: &PreparedRig, level: usize, kept: Option<usize>) -> usize {
    blended(rig.mesh.level_classes(level), kept)
}

/// Influences blended by `vertices[c]` vertices of `c + 1` influences each, cut to `kept`.
fn blended(vertices: [usize; crate::rig::MAX_INFLUENCES], kept: Option<usize>) -> usize {
    vertices
        .iter()
        .enumerate()
        .map(|(c, &n)| n * kept.map_or(c + 1, |k| (c + 1).min(k)))
        .sum()
}

/// Per level, what each cut moves and the cut it keeps (see the module docs), measured
/// at the poses of `measured` with each level's held joints `merges`: what
/// [`super::level_errors`] keeps.
pub(crate) fn measure_cuts(
    rig: &PreparedRig,
    measured: &PoseSurfaces,
    merges: &[MeasuredMerges],
) -> Vec<LevelInfluences> {
    let kept = choose_cuts(rig, measured, merges);
    largest_moves(rig, 0.0)
        .into_iter()
        .zip(kept)
        .map(|(moved, fits)| LevelInfluences {
            moved: moved.map(|m| m * (1.0 + POSE_MARGIN)),
            fits,
        })
        .collect()
}

/// Per level, the fewest influences it keeps (module docs), `None` for every one.
fn choose_cuts(
    rig: &PreparedRig,
    measured: &PoseSurfaces,
    merges: &[MeasuredMerges],
) -> Vec<Option<usize>> {
    let levels = merges.len();
    let mut chosen = vec![None; levels];
    let poses = local_poses(rig, 0.0);
    if poses.is_empty() || poses.len() != measured.surfaces.len() {
        return chosen;
    }
    let chain = rig.mesh_chain();
    let mesh = &rig.source_mesh;
    let cuts: Vec<_> = (1..=MAX_CUT).map(|k| mesh.reduced_to(k).0).collect();
    let rest: Vec<LocalF64> = rig.rest_pose.iter().map(LocalF64::from).collect();
    // Per level: its vertices, the most influences one has, its largest distance over the
    // poses (what its stated error is made from), its held joints, and each pose's point
    // distances (made on first use).
    let vertices: Vec<Vec<u32>> = (0..levels).map(|l| level_vertices(rig, l)).collect();
    let most: Vec<usize> = vertices
        .iter()
        .map(|vs| {
            vs.iter()
                .map(|&v| mesh.influence_count(v as usize))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let largest: Vec<f64> = (0..levels)
        .map(|l| {
            merges[l]
                .distance_per_pose
                .iter()
                .chain(measured.distances.get(l).into_iter().flatten())
                .copied()
                .fold(0.0f64, f64::max)
        })
        .collect();
    let held: Vec<Vec<bool>> = merges
        .iter()
        .map(|m| {
            let mut marks = vec![false; rig.joint_count()];
            for &j in &m.merges.held {
                marks[j] = true;
            }
            marks
        })
        .collect();
    let mut fits_memo = std::collections::HashMap::new();
    let vertex_count = mesh.vertex_count();
    // Whether `level`'s surface stays within its largest distance at every pose, skinned
    // with `kept` influences and posed for `group`'s level (its held joints at rest).
    let mut fits = |level: usize, group: usize, kept: usize| {
        *fits_memo.entry((level, group, kept)).or_insert_with(|| {
            let triangles = chain.level_indices(level);
            let points = &measured.points[level];
            let vertices = &vertices[level];
            let mut moved_positions = vec![DVec3::ZERO; vertex_count];
            let mut movement = vec![0.0f64; vertex_count];
            // The poses with the least room first: where a cut that does not fit shows it.
            let distances = &measured.distances[level];
            let mut closest_first: Vec<usize> = (0..poses.len()).collect();
            closest_first.sort_by(|&a, &b| distances[b].total_cmp(&distances[a]));
            closest_first.iter().all(|&p| {
                let (positions, full_tree) = &measured.surfaces[p];
                let moved = skinned_mesh(
                    rig,
                    &cuts[kept - 1],
                    &poses[p],
                    &held[group],
                    &rest,
                    vertices,
                );
                for (&v, m) in vertices.iter().zip(&moved) {
                    moved_positions[v as usize] = *m;
                    movement[v as usize] = positions[v as usize].distance(*m);
                }
                points[p].moved_distance(
                    positions,
                    full_tree,
                    &moved_positions,
                    &movement,
                    triangles,
                    largest[level],
                ) <= largest[level]
            })
        })
    };
    for level in 1..levels {
        // Fewest first; a cut to as many as the level's vertices have cuts nothing.
        chosen[level] = (1..most[level].min(MAX_CUT + 1))
            .find(|&kept| (level..levels).all(|coarser| fits(coarser, level, kept)));
    }
    chosen
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
    fn a_levels_own_count_is_its_vertices_influences_cut() {
        use crate::rig::generate::BuiltInRig;
        for rig in [
            PreparedRig::reference(),
            PreparedRig::built_in(BuiltInRig::Twist),
            PreparedRig::built_in_cut(BuiltInRig::Reference, 2),
        ] {
            let mesh = &rig.source_mesh;
            let levels = rig.mesh_chain().levels().len();
            // One past the coarsest reads as the coarsest.
            for level in 0..=levels {
                let vertices: Vec<usize> = match rig.mesh.level_vertices(level) {
                    Some(v) => v.iter().map(|&v| v as usize).collect(),
                    None => (0..mesh.vertex_count()).collect(),
                };
                for kept in [None, Some(1), Some(2), Some(3), Some(4)] {
                    let walked: usize = vertices
                        .iter()
                        .map(|&v| {
                            kept.map_or(mesh.influence_count(v), |k| mesh.influence_count(v).min(k))
                        })
                        .sum();
                    assert_eq!(
                        level_own_influences(&rig, level, kept),
                        walked,
                        "level {level}, kept {kept:?}"
                    );
                }
            }
        }
    }

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
}
