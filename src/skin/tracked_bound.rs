//! A level's error between the measured poses: the distance between the full and the
//! level's surfaces bounded at every 1/[`TRACK_HZ`] s of every clip, not only at the few
//! poses the measurement takes (a long dance clip measured at 14 poses exceeded its stated
//! error by 11 % at a time between two of them).
//!
//! How it works: at each measured pose every point the distance is taken over (each full
//! vertex, and each level triangle's corners, centroid and edge midpoints) is paired with
//! its nearest point on the other surface, kept as a triangle and barycentric weights. At
//! a time between poses, skinning moves both surfaces, and each pair's partner moves with
//! its triangle: the distance from a point to its partner then is at least its distance to
//! the other surface, so the largest over the pairs bounds the surfaces' distance there,
//! at the cost of skinning the vertices and no nearest-point search (at most
//! [`TRACK_WORK`] vertices skinned in all: a very large character or very long clips are
//! tracked at a lower rate). Only the points whose bound passes both the largest distance
//! the measured poses found and the largest found so far at that time are measured
//! against the other surface itself (a partner does not slide along the surface as the
//! pose changes, so the bound overstates where the surfaces shear past each other), with
//! the tree made at the measured pose refitted to the time's surface; a point measured
//! takes its nearest point as its new partner. Every time of every clip on a
//! 1/[`TRACK_HZ`] s grid (at least [`TRACK_PER_STEP`] between two measured poses) belongs
//! to its nearest measured pose, and each pose's times are walked outward from it in two
//! sweeps, so each time's partners come from a time 1/[`TRACK_HZ`] s nearer
//! the pose and few points need measuring. The levels are posed as a character
//! drawn at them is: their held joints at rest and their influences cut.

use glam::DVec3;

use super::joint_merges::{level_vertices, local_poses_at, skinned_mesh};
use super::mesh_lod::{Search, TriangleTree, closest_on_triangle, triangle_points};
use crate::anim::hierarchy::reference::LocalF64;
use crate::prepare::PreparedRig;
use crate::prepare::parallel;

/// The rate the bound is taken at between the measured poses, per second of clip.
pub const TRACK_HZ: f32 = 30.0;
/// The fewest tracked times between two measured poses.
pub const TRACK_PER_STEP: usize = 4;
/// Vertices skinned over all tracked times, at most: a character with hours of clips or
/// hundreds of thousands of vertices is tracked at a lower rate than [`TRACK_HZ`] (never
/// fewer than [`TRACK_PER_STEP`] times a step), so its load stays seconds long and a file
/// that names a clip of a million seconds allocates nothing for it.
pub const TRACK_WORK: f64 = 40e6;

/// A point paired with its nearest point on the other surface: that point's triangle
/// (three vertices of the mesh) and its weights.
#[derive(Clone, Copy)]
struct Partner {
    corners: [u32; 3],
    weights: [f64; 3],
}

impl Partner {
    fn at(&self, positions: &[DVec3]) -> DVec3 {
        self.corners
            .iter()
            .zip(self.weights)
            .map(|(&v, w)| positions[v as usize] * w)
            .sum()
    }
}

/// The barycentric weights of `q`, a point of triangle `abc`; for a degenerate triangle,
/// the corner nearest `q` alone (a partner farther than the nearest point keeps the bound
/// an upper bound).
fn barycentric(q: DVec3, [a, b, c]: [DVec3; 3]) -> [f64; 3] {
    let (v0, v1, v2) = (b - a, c - a, q - a);
    let (d00, d01, d11) = (v0.dot(v0), v0.dot(v1), v1.dot(v1));
    let (d20, d21) = (v2.dot(v0), v2.dot(v1));
    let denom = d00 * d11 - d01 * d01;
    if denom.abs() <= f64::EPSILON * d00.max(d11).powi(2) || !denom.is_finite() {
        let nearest = [a, b, c]
            .iter()
            .enumerate()
            .min_by(|x, y| x.1.distance(q).total_cmp(&y.1.distance(q)))
            .map_or(0, |(k, _)| k);
        let mut w = [0.0; 3];
        w[nearest] = 1.0;
        return w;
    }
    let v = (d11 * d20 - d01 * d21) / denom;
    let w = (d00 * d21 - d01 * d20) / denom;
    [1.0 - v - w, v, w]
}

/// The partner of `p` on the triangles `indices` over `positions`, found with `tree`, and
/// `p`'s distance to that surface.
fn partner(
    p: DVec3,
    positions: &[DVec3],
    indices: &[u32],
    tree: &TriangleTree,
    search: &mut Search,
) -> (f64, Partner) {
    let (distance, t) = tree.nearest(p, search);
    let t = t as usize;
    let corners = [indices[3 * t], indices[3 * t + 1], indices[3 * t + 2]];
    let abc = corners.map(|v| positions[v as usize]);
    let q = closest_on_triangle(p, abc[0], abc[1], abc[2]);
    (
        distance,
        Partner {
            corners,
            weights: barycentric(q, abc),
        },
    )
}

/// One level's pairs at one measured pose: each full vertex's partner on the level's
/// surface, and each level triangle's seven points' partners on the full surface.
#[derive(Clone)]
struct Pairs {
    full_vertices: Vec<(u32, Partner)>,
    level_points: Vec<[Partner; 7]>,
    /// The level's tree made at the measured pose, refitted at each tracked time that
    /// needs one (a new tree a time cost most of the measurement).
    level_tree: TriangleTree,
}

/// The full surface's tree made at a measured pose, refitted at most once a tracked time
/// (every level's search shares it).
#[derive(Clone)]
struct FullTree {
    tree: TriangleTree,
    fitted: bool,
}

impl FullTree {
    /// The tree fitted to `positions`, the time's full mesh.
    fn at(&mut self, positions: &[DVec3], indices: &[u32]) -> &TriangleTree {
        if !self.fitted {
            self.tree.refit(positions, indices);
            self.fitted = true;
        }
        &self.tree
    }
}

impl Pairs {
    /// The pairs at a pose where the full mesh's vertices are at `full` and the level's
    /// (held and cut) at `level_positions`.
    fn new(
        (full, full_indices, full_tree): (&[DVec3], &[u32], &TriangleTree),
        level_positions: &[DVec3],
        level: &[u32],
    ) -> Self {
        let level_tree = TriangleTree::new(level_positions, level);
        let mut search = Search::default();
        let mut used = vec![false; full.len()];
        for &v in full_indices {
            used[v as usize] = true;
        }
        let full_vertices = (0..full.len() as u32)
            .filter(|&v| used[v as usize])
            .map(|v| {
                let p = full[v as usize];
                (
                    v,
                    partner(p, level_positions, level, &level_tree, &mut search).1,
                )
            })
            .collect();
        let level_points = level
            .chunks_exact(3)
            .map(|t| {
                let points = triangle_points([0, 1, 2].map(|k| level_positions[t[k] as usize]));
                points.map(|p| partner(p, full, full_indices, full_tree, &mut search).1)
            })
            .collect();
        Pairs {
            full_vertices,
            level_points,
            level_tree,
        }
    }

    /// The distance between the surfaces with the full mesh's vertices at `full` and the
    /// level's at `level_positions`, as far as it passes `settled`: each point's distance
    /// to its partner bounds its distance to the other surface; a point whose bound is
    /// above `settled` is measured against that surface itself (a partner that does not
    /// slide along the surface as the pose changes overstates). Returns at least the
    /// surfaces' distance where it is above `settled`, at most `settled` otherwise.
    fn distance(
        &mut self,
        (full, full_indices, full_tree): (&[DVec3], &[u32], &mut FullTree),
        (level_positions, level): (&[DVec3], &[u32]),
        settled: f64,
    ) -> f64 {
        let mut worst = 0.0f64;
        let mut unsettled_full: Vec<(f64, DVec3, usize)> = Vec::new();
        for (i, (v, partner)) in self.full_vertices.iter().enumerate() {
            let p = full[*v as usize];
            let bound = p.distance(partner.at(level_positions));
            if bound <= settled {
                worst = worst.max(bound);
            } else {
                unsettled_full.push((bound, p, i));
            }
        }
        let mut unsettled_level: Vec<(f64, DVec3, usize)> = Vec::new();
        for (i, (t, partners)) in level.chunks_exact(3).zip(&self.level_points).enumerate() {
            let points = triangle_points([0, 1, 2].map(|k| level_positions[t[k] as usize]));
            for (k, (p, partner)) in points.iter().zip(partners).enumerate() {
                let bound = p.distance(partner.at(full));
                if bound <= settled {
                    worst = worst.max(bound);
                } else {
                    unsettled_level.push((bound, *p, i * 7 + k));
                }
            }
        }
        // Only a distance above both `settled` and the largest found so far changes the
        // answer: the points in order of their bounds, largest first, none once the
        // bounds themselves fall below that floor. A point measured takes its nearest
        // point now as its partner, which keeps it settled at the next times (they are
        // 1/30 s apart), where its old partner had drifted.
        let mut search = Search::default();
        let floor = |worst: f64| worst.max(settled);
        if !unsettled_full.is_empty() {
            self.level_tree.refit(level_positions, level);
            unsettled_full.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
            for (bound, p, i) in unsettled_full {
                if bound <= floor(worst) {
                    break;
                }
                let (d, partner) =
                    partner(p, level_positions, level, &self.level_tree, &mut search);
                worst = worst.max(d);
                self.full_vertices[i].1 = partner;
            }
        }
        if !unsettled_level.is_empty() {
            let tree = full_tree.at(full, full_indices);
            unsettled_level.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
            for (bound, p, i) in unsettled_level {
                if bound <= floor(worst) {
                    break;
                }
                let (d, partner) = partner(p, full, full_indices, tree, &mut search);
                worst = worst.max(d);
                self.level_points[i / 7][i % 7] = partner;
            }
        }
        worst
    }
}

/// How each level is posed: its joints held at rest (marks per joint) and the mesh its
/// vertices are skinned with (its influences cut).
pub struct LevelPosing<'a> {
    pub held: Vec<bool>,
    pub mesh: std::borrow::Cow<'a, crate::rig::Mesh>,
}

/// The times tracked between the measured poses `samples` per clip apart: each clip's
/// grid of 1/[`TRACK_HZ`] s (at least [`TRACK_PER_STEP`] a step), each with the measured
/// pose nearest it (clips in order, each clip's `samples` poses in order).
fn tracked_times(rig: &PreparedRig, samples: usize) -> Vec<(usize, f32, usize)> {
    // The rate that keeps the work within TRACK_WORK for this mesh and these clips.
    let seconds: f64 = rig
        .clips
        .iter()
        .map(|c| f64::from(c.duration_secs).max(0.0))
        .sum();
    let vertices = rig.drawn_vertices().len().max(1) as f64;
    let rate = f64::from(TRACK_HZ).min(TRACK_WORK / vertices / seconds.max(1e-9));
    let mut out = Vec::new();
    for (c, clip) in rig.clips.iter().enumerate() {
        let by_rate = (f64::from(clip.duration_secs).max(0.0) * rate)
            .ceil()
            .min(1e7) as usize;
        let count = by_rate.max(samples * TRACK_PER_STEP).max(1);
        for i in 0..count {
            let t = clip.duration_secs * i as f32 / count as f32;
            let step = if clip.duration_secs > 0.0 {
                (t / clip.duration_secs * samples as f32).round() as usize % samples.max(1)
            } else {
                0
            };
            out.push((c, t, c * samples + step));
        }
    }
    out
}

/// Per level, the largest distance between the full surface and the level's over the
/// tracked times (see the module docs), where it passes `settled[level]` (at most that
/// elsewhere: points whose partners keep them within it are not measured); `samples` the
/// poses per clip the measurement took, `posing[level]` how a character drawn at it is
/// posed (`None` for the full mesh: 0).
pub fn tracked_distances(
    rig: &PreparedRig,
    samples: usize,
    posing: &[Option<LevelPosing<'_>>],
    settled: &[f64],
) -> Vec<f64> {
    let levels = posing.len();
    if rig.clips.is_empty() || levels < 2 || samples == 0 {
        return vec![0.0; levels];
    }
    let chain = rig.mesh_chain();
    let full_indices = chain.level_indices(0);
    let drawn = rig.drawn_vertices();
    let rest: Vec<LocalF64> = rig.rest_pose.iter().map(LocalF64::from).collect();
    let no_held = vec![false; rig.joint_count()];
    let measured_times = crate::skin::volume::grid_times(rig, samples, 0.0);
    let tracked = tracked_times(rig, samples);
    let vertices: Vec<Vec<u32>> = (0..levels).map(|l| level_vertices(rig, l)).collect();
    // Every vertex at a pose: the full mesh's, and each level's with its posing (the
    // others where the level has none of its own).
    let positions_at = |locals: &[LocalF64]| -> (Vec<DVec3>, Vec<Option<Vec<DVec3>>>) {
        let mut full = vec![DVec3::ZERO; rig.source_mesh.vertex_count()];
        for (&v, p) in drawn.iter().zip(skinned_mesh(
            rig,
            &rig.source_mesh,
            locals,
            &no_held,
            &rest,
            drawn,
        )) {
            full[v as usize] = p;
        }
        let per_level = posing
            .iter()
            .zip(&vertices)
            .map(|(p, vertices)| {
                p.as_ref().map(|p| {
                    let mut moved = full.clone();
                    for (&v, m) in vertices
                        .iter()
                        .zip(skinned_mesh(rig, &p.mesh, locals, &p.held, &rest, vertices))
                    {
                        moved[v as usize] = m;
                    }
                    moved
                })
            })
            .collect();
        (full, per_level)
    };
    // Each measured pose's pairs, a pose a task.
    let at_poses: Vec<(Vec<Option<Pairs>>, FullTree)> =
        parallel::map(measured_times.len(), |pose| {
            let locals = &local_poses_at(rig, &measured_times[pose..pose + 1])[0];
            let (full, per_level) = positions_at(locals);
            let full_tree = FullTree {
                tree: TriangleTree::new(&full, full_indices),
                fitted: true,
            };
            let pairs = per_level
                .iter()
                .enumerate()
                .map(|(l, moved)| {
                    let moved = moved.as_ref()?;
                    Some(Pairs::new(
                        (&full, full_indices, &full_tree.tree),
                        moved,
                        chain.level_indices(l),
                    ))
                })
                .collect();
            (pairs, full_tree)
        });
    // Then each pose's tracked times in two sweeps outward from it, later times first,
    // then earlier ones (a clip loops: the end of a clip is before its start), so that
    // each time's partners come from a time 1/30 s nearer the pose. Every sweep is a
    // task of its own: a long clip measured at three poses still keeps two cores busy.
    let per_pose: Vec<Vec<f64>> = parallel::map(2 * measured_times.len(), |sweep| {
        let (pose, later) = (sweep / 2, sweep % 2 == 0);
        let (clip, pose_secs) = measured_times[pose];
        let duration = rig.clips[clip].duration_secs;
        let offset = |t: f32| {
            let o = t - pose_secs;
            if o > duration / 2.0 {
                o - duration
            } else if o < -duration / 2.0 {
                o + duration
            } else {
                o
            }
        };
        let mut mine: Vec<(f32, (usize, f32))> = tracked
            .iter()
            .filter(|&&(_, _, nearest)| nearest == pose)
            .map(|&(c, t, _)| (offset(t), (c, t)))
            .filter(|(o, _)| (*o >= 0.0) == later)
            .collect();
        mine.sort_unstable_by(|a, b| a.0.abs().total_cmp(&b.0.abs()));
        let times: Vec<(usize, f32)> = mine.into_iter().map(|(_, t)| t).collect();
        let (pairs, full_tree) = &at_poses[pose];
        let (mut pairs, mut full_tree) = (pairs.clone(), full_tree.clone());
        let mut worst = vec![0.0f64; levels];
        for locals in local_poses_at(rig, &times) {
            let (full, per_level) = positions_at(&locals);
            full_tree.fitted = false;
            for (l, (pairs, moved)) in pairs.iter_mut().zip(&per_level).enumerate() {
                if let (Some(pairs), Some(moved)) = (pairs, moved) {
                    let d = pairs.distance(
                        (&full, full_indices, &mut full_tree),
                        (moved, chain.level_indices(l)),
                        settled.get(l).copied().unwrap_or(0.0),
                    );
                    worst[l] = worst[l].max(d);
                }
            }
        }
        worst
    });
    (0..levels)
        .map(|l| per_pose.iter().map(|w| w[l]).fold(0.0f64, f64::max))
        .collect()
}
