//! What each level of a character's LOD chain ([`crate::prepare::mesh_lod`]) costs on
//! screen: the largest distance between the full and the simplified character's skinned
//! surfaces over its clips, measured through the f64 oracle.
//!
//! How it works: at [`POSES_PER_CLIP`] evenly spaced times of each clip (the bind pose for a
//! rig without clips) the oracle skins every vertex; both surfaces are then triangle soups
//! over those positions. The distance is taken both ways, since either surface can stick
//! out of the other's silhouette: from every vertex of the full mesh to the nearest point of
//! the level's triangles, and from sample points of each level triangle (its centroid and
//! edge midpoints; its corners are vertices of the full mesh) to the full mesh's triangles.
//! Nearest triangles are found through a bounding volume hierarchy ([`TriangleTree`]). Every
//! (pose, level) pair is measured on its own, spread over every core. A level's error is the largest
//! distance over every pose, times `1 + POSE_MARGIN` for the times between the measured
//! ones (a distance changes smoothly with the pose; `tests/mesh_lod.rs` checks the bound at
//! times half a step away), never less than the finer level's.

use glam::{DMat4, DVec3};

use crate::prepare::PreparedRig;
use crate::prepare::parallel;
use crate::skin::reference::skin_positions;
use crate::skin::volume::{for_each_pose_at, grid_times};

/// Poses measured per clip, at most.
pub const POSES_PER_CLIP: usize = 16;
/// Poses measured in all, at most, for a mesh of [`WORK_TRIANGLES`] triangles (fewer for a
/// larger mesh, never fewer than two per clip): what keeps loading a large character short.
pub const POSE_BUDGET: usize = 48;
pub const WORK_TRIANGLES: usize = 5_000;
/// Points [`PointDistances::moved_distance`] measures against every moved triangle
/// directly; more are measured through a tree made for them.
const DIRECT_SEARCHES: usize = 2;
/// What the stated error adds to the largest measured, as a share of it.
pub const POSE_MARGIN: f64 = 0.25;

/// Poses per clip measured for `rig` (see [`POSE_BUDGET`]).
pub fn poses_per_clip(rig: &PreparedRig) -> usize {
    let triangles = rig.mesh.indices().len() / 3;
    let budget = POSE_BUDGET * WORK_TRIANGLES / triangles.max(WORK_TRIANGLES);
    (budget / rig.clips.len().max(1)).clamp(2, POSES_PER_CLIP)
}

/// The largest distance between the full surface and each level's, over `samples` poses
/// per clip starting `shift` of a step into each clip (0: the clip's first pose), and the
/// poses measured.
pub fn measure(rig: &PreparedRig, samples: usize, shift: f32) -> (Vec<f64>, usize) {
    let (per_pose, poses) = measure_per_pose(rig, samples, shift);
    let largest = per_pose
        .iter()
        .map(|d| d.iter().copied().fold(0.0f64, f64::max))
        .collect();
    (largest, poses)
}

/// [`measure`] pose by pose: per level, the distance at each pose (clips in order, each
/// clip's times in order; the bind pose alone for a rig without clips; 0 at every pose
/// for the full mesh), and the poses measured.
pub fn measure_per_pose(rig: &PreparedRig, samples: usize, shift: f32) -> (Vec<Vec<f64>>, usize) {
    let measured = measure_surfaces(rig, samples, shift);
    let poses = measured.surfaces.len();
    (measured.distances, poses)
}

/// The full mesh skinned at each measured pose, and each level's distance from it there.
pub struct PoseSurfaces {
    /// Per pose, every vertex's position (those no triangle uses at the origin) and the
    /// full mesh's triangles in a tree.
    pub surfaces: Vec<(Vec<DVec3>, TriangleTree)>,
    /// Per level, per pose, the distance between the level's surface and the full one.
    pub distances: Vec<Vec<f64>>,
    /// Per level, per pose, where that distance comes from, point by point (none for the
    /// full mesh): what holding joints and cutting influences are measured against.
    pub points: Vec<Vec<PointDistances>>,
}

/// [`measure_per_pose`], keeping each pose's full surface.
pub fn measure_surfaces(rig: &PreparedRig, samples: usize, shift: f32) -> PoseSurfaces {
    measure_surfaces_at(rig, &grid_times(rig, samples, shift))
}

/// [`measure_surfaces`] at `times` (clip, seconds into it; the bind pose alone for a rig
/// without clips).
pub fn measure_surfaces_at(rig: &PreparedRig, times: &[(usize, f32)]) -> PoseSurfaces {
    let chain = rig.mesh_chain();
    let levels = chain.levels().len();
    let full = chain.level_indices(0);
    let mut palettes: Vec<Vec<DMat4>> = Vec::new();
    if rig.clips.is_empty() {
        palettes.push(vec![DMat4::IDENTITY; rig.skeleton.palette_len()]);
    } else {
        for_each_pose_at(rig, times, |_, _, skinning| {
            palettes.push(skinning.to_vec())
        });
    }
    // Every (pose, level) pair is independent: first each pose's surface and the tree of
    // its full mesh, then each pair's distance, both spread over every core.
    let drawn = rig.drawn_vertices();
    let surfaces: Vec<(Vec<DVec3>, TriangleTree)> = parallel::map(palettes.len(), |p| {
        // Indexed by vertex; the ones no triangle uses stay at the origin, unread.
        let mut positions = vec![DVec3::ZERO; rig.source_mesh.vertex_count()];
        for (&v, p) in drawn
            .iter()
            .zip(skin_positions(&rig.source_mesh, &palettes[p], drawn))
        {
            positions[v as usize] = p;
        }
        let tree = TriangleTree::new(&positions, full);
        (positions, tree)
    });
    let coarse = levels.saturating_sub(1);
    let measured: Vec<PointDistances> = parallel::map(surfaces.len() * coarse, |job| {
        let (positions, full_tree) = &surfaces[job / coarse];
        let level = chain.level_indices(1 + job % coarse);
        PointDistances::new(positions, full, full_tree, level)
    });
    let mut per_pose = vec![vec![0.0f64; surfaces.len()]; levels];
    let mut points: Vec<Vec<PointDistances>> = (0..levels).map(|_| Vec::new()).collect();
    for (job, d) in measured.into_iter().enumerate() {
        per_pose[1 + job % coarse][job / coarse] = d.largest();
        points[1 + job % coarse].push(d);
    }
    PoseSurfaces {
        surfaces,
        distances: per_pose,
        points,
    }
}

/// Where one level's surface is far from the full one at one pose, point by point: what
/// [`surface_distance`] takes the largest of.
pub struct PointDistances {
    /// Per vertex of the full mesh, its distance to the level's surface and the level
    /// triangle nearest it (0 and `u32::MAX` for the level's own vertices, which lie on
    /// it, and for unused ones).
    pub full_vertices: Vec<(f64, u32)>,
    /// Per level triangle, its seven points' distances to the full surface (corners,
    /// which lie on it, then the centroid and the three edge midpoints).
    pub level_points: Vec<[f64; 7]>,
}

/// The points a level triangle is measured at: its corners, centroid and edge midpoints.
pub(crate) fn triangle_points([a, b, c]: [DVec3; 3]) -> [DVec3; 7] {
    [
        a,
        b,
        c,
        (a + b + c) / 3.0,
        (a + b) / 2.0,
        (b + c) / 2.0,
        (c + a) / 2.0,
    ]
}

impl PointDistances {
    /// Every point's distance, as [`surface_distance`] measures them.
    pub fn new(positions: &[DVec3], full: &[u32], full_tree: &TriangleTree, level: &[u32]) -> Self {
        let level_tree = TriangleTree::new(positions, level);
        let mut in_level = vec![false; positions.len()];
        for &v in level {
            in_level[v as usize] = true;
        }
        let mut in_full = vec![false; positions.len()];
        for &v in full {
            in_full[v as usize] = true;
        }
        let mut search = Search::default();
        let full_vertices = positions
            .iter()
            .enumerate()
            .map(|(v, p)| {
                if in_full[v] && !in_level[v] {
                    level_tree.nearest(*p, &mut search)
                } else {
                    (0.0, u32::MAX)
                }
            })
            .collect();
        let level_points = level
            .chunks_exact(3)
            .map(|t| {
                let points = triangle_points([0, 1, 2].map(|k| positions[t[k] as usize]));
                let mut d = [0.0; 7];
                for k in 3..7 {
                    d[k] = full_tree.distance(points[k], &mut search);
                }
                d
            })
            .collect();
        PointDistances {
            full_vertices,
            level_points,
        }
    }

    /// The largest of the distances: [`surface_distance`].
    pub fn largest(&self) -> f64 {
        self.full_vertices
            .iter()
            .map(|&(d, _)| d)
            .chain(self.level_points.iter().flatten().copied())
            .fold(0.0f64, f64::max)
    }

    /// The largest distance between the full surface and the level's with its vertices
    /// moved to `moved` (`movement`: per vertex, how far; 0 for the unmoved), where a
    /// point can pass `within`. A full vertex is at most its distance before plus what
    /// the corners of its nearest level triangle move from that triangle (its own
    /// movement for a vertex of the level), a level point at most its distance before
    /// plus what its triangle's corners move; only the points those bounds do not keep
    /// within `within` are measured. Returns a bound at least the sampled distance (each
    /// point measured or bounded), so at most `within` exactly when every measured point
    /// is.
    pub fn moved_distance(
        &self,
        positions: &[DVec3],
        full_tree: &TriangleTree,
        moved: &[DVec3],
        movement: &[f64],
        level: &[u32],
        within: f64,
    ) -> f64 {
        let corner_move = |t: usize| {
            level[3 * t..3 * t + 3]
                .iter()
                .map(|&v| movement[v as usize])
                .fold(0.0f64, f64::max)
        };
        let mut worst = 0.0f64;
        let mut search = Search::default();
        let mut unsettled: Vec<DVec3> = Vec::new();
        for (v, &(d, nearest)) in self.full_vertices.iter().enumerate() {
            let shift = if nearest == u32::MAX {
                movement[v]
            } else {
                corner_move(nearest as usize)
            };
            let bound = d + shift;
            if bound <= within {
                worst = worst.max(bound);
            } else {
                unsettled.push(positions[v]);
            }
        }
        worst = worst.max(farthest_from(&unsettled, moved, level));
        for (t, d) in level.chunks_exact(3).zip(&self.level_points) {
            let shift = t
                .iter()
                .map(|&v| movement[v as usize])
                .fold(0.0f64, f64::max);
            let points = triangle_points([0, 1, 2].map(|k| moved[t[k] as usize]));
            for k in 0..7 {
                let bound = d[k] + shift;
                worst = worst.max(if bound <= within {
                    bound
                } else {
                    full_tree.distance(points[k], &mut search)
                });
            }
        }
        worst
    }
}

/// The largest distance from `points` to the triangles `indices` over `positions` (0
/// without points). Usually a few points near the farthest one. A tree costs about two
/// direct searches over every triangle to make, and a query through it a few dozen
/// triangles: past [`DIRECT_SEARCHES`] points the tree is cheaper.
fn farthest_from(points: &[DVec3], positions: &[DVec3], indices: &[u32]) -> f64 {
    if points.len() <= DIRECT_SEARCHES {
        let mut worst = 0.0f64;
        for p in points {
            let nearest = indices
                .chunks_exact(3)
                .map(|t| {
                    let [a, b, c] = [0, 1, 2].map(|k| positions[t[k] as usize]);
                    closest_on_triangle(*p, a, b, c).distance_squared(*p)
                })
                .fold(f64::INFINITY, f64::min);
            worst = worst.max(nearest.sqrt());
        }
        return worst;
    }
    let tree = TriangleTree::new(positions, indices);
    let mut search = Search::default();
    points
        .iter()
        .map(|p| tree.distance(*p, &mut search))
        .fold(0.0f64, f64::max)
}

/// [`surface_distance`] where the level's triangles lie over other positions than the
/// full mesh's (`moved`: a level posed with joints held at rest): every full vertex is
/// measured against the level's surface and every level triangle's corners too, since a
/// kept vertex no longer lies on the full surface.
pub fn moved_surface_distance(
    positions: &[DVec3],
    full: &[u32],
    full_tree: &TriangleTree,
    moved: &[DVec3],
    level: &[u32],
) -> f64 {
    let level_tree = TriangleTree::new(moved, level);
    let mut worst = 0.0f64;
    let mut in_full = vec![false; positions.len()];
    for &v in full {
        in_full[v as usize] = true;
    }
    let mut search = Search::default();
    for (v, p) in positions.iter().enumerate() {
        if in_full[v] {
            worst = worst.max(level_tree.distance(*p, &mut search));
        }
    }
    for t in level.chunks_exact(3) {
        for p in triangle_points([0, 1, 2].map(|k| moved[t[k] as usize])) {
            worst = worst.max(full_tree.distance(p, &mut search));
        }
    }
    worst
}

/// The larger of the two one-sided distances between the surfaces `full` and `level`
/// (triangle lists over `positions`); `full_tree` is `full`'s tree.
pub fn surface_distance(
    positions: &[DVec3],
    full: &[u32],
    full_tree: &TriangleTree,
    level: &[u32],
) -> f64 {
    let level_tree = TriangleTree::new(positions, level);
    let mut worst = 0.0f64;
    let mut in_level = vec![false; positions.len()];
    for &v in level {
        in_level[v as usize] = true;
    }
    let mut in_full = vec![false; positions.len()];
    for &v in full {
        in_full[v as usize] = true;
    }
    let mut search = Search::default();
    // Full → level: a vertex the level keeps lies on it.
    for (v, p) in positions.iter().enumerate() {
        if in_full[v] && !in_level[v] {
            worst = worst.max(level_tree.distance(*p, &mut search));
        }
    }
    // Level → full: points inside the level's triangles.
    for t in level.chunks_exact(3) {
        // Its corners are full-mesh vertices: on the full surface.
        let points = triangle_points([0, 1, 2].map(|k| positions[t[k] as usize]));
        for p in &points[3..] {
            worst = worst.max(full_tree.distance(*p, &mut search));
        }
    }
    worst
}

/// Triangles in a bounding volume hierarchy (boxes split at the median of the longest
/// axis), for nearest-point queries: a query descends into the nearer box first and skips
/// every box farther than the nearest triangle found, so a point far from the surface (a
/// coarse level's triangle across a limb's gap) costs a few dozen boxes, not every cell
/// between it and the surface.
#[derive(Clone)]
pub struct TriangleTree {
    triangles: Vec<[DVec3; 3]>,
    /// Each triangle's place in the index list the tree was made from.
    ids: Vec<u32>,
    /// Where the triangle at each place of that list is in `triangles`.
    slots: Vec<u32>,
    nodes: Vec<Node>,
}

/// A box of the tree: its children are nodes `first` and `first + 1` where `count` is 0,
/// otherwise it is a leaf of `count` triangles from `first`.
#[derive(Clone, Copy)]
struct Node {
    min: DVec3,
    max: DVec3,
    first: u32,
    count: u32,
}

/// Triangles a leaf holds at most.
const LEAF_TRIANGLES: usize = 4;

/// A query's scratch: the boxes still to visit, and the triangle the last query found.
/// Queries come in surface order (a mesh's vertices, its triangles), so the last nearest
/// triangle is usually near the next point: its distance, taken first, is a bound that
/// lets the search skip most boxes before it finds a nearer one. Any triangle of the tree
/// is a true upper bound, so the result is exact whatever the previous query was.
#[derive(Default)]
pub struct Search {
    /// Boxes still to visit, each with its distance squared from the point.
    stack: Vec<(u32, f64)>,
    last: u32,
}

impl TriangleTree {
    pub fn new(positions: &[DVec3], indices: &[u32]) -> Self {
        let mut triangles: Vec<([DVec3; 3], u32)> = indices
            .chunks_exact(3)
            .enumerate()
            .map(|(i, t)| ([0, 1, 2].map(|k| positions[t[k] as usize]), i as u32))
            .collect();
        let bounds = |ts: &[([DVec3; 3], u32)]| {
            ts.iter()
                .flat_map(|(t, _)| t)
                .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
                    (lo.min(*p), hi.max(*p))
                })
        };
        let mut nodes = Vec::with_capacity(2 * triangles.len().div_ceil(LEAF_TRIANGLES));
        if triangles.is_empty() {
            return TriangleTree {
                triangles: Vec::new(),
                ids: Vec::new(),
                slots: Vec::new(),
                nodes,
            };
        }
        let (min, max) = bounds(&triangles);
        nodes.push(Node {
            min,
            max,
            first: 0,
            count: triangles.len() as u32,
        });
        // Split breadth-agnostic with an explicit list of nodes to split: no recursion.
        let mut to_split = vec![0usize];
        while let Some(n) = to_split.pop() {
            let Node { first, count, .. } = nodes[n];
            let (first, count) = (first as usize, count as usize);
            if count <= LEAF_TRIANGLES {
                continue;
            }
            let span = &mut triangles[first..first + count];
            let centroid = |(t, _): &([DVec3; 3], u32)| t[0] + t[1] + t[2];
            let (lo, hi) = span
                .iter()
                .map(centroid)
                .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), c| {
                    (lo.min(c), hi.max(c))
                });
            let extent = hi - lo;
            let axis = if extent.x >= extent.y && extent.x >= extent.z {
                0
            } else if extent.y >= extent.z {
                1
            } else {
                2
            };
            let half = count / 2;
            span.select_nth_unstable_by(half, |a, b| {
                centroid(a)[axis].total_cmp(&centroid(b)[axis])
            });
            let children = nodes.len();
            for (start, len) in [(first, half), (first + half, count - half)] {
                let (min, max) = bounds(&triangles[start..start + len]);
                nodes.push(Node {
                    min,
                    max,
                    first: start as u32,
                    count: len as u32,
                });
                to_split.push(nodes.len() - 1);
            }
            nodes[n].first = children as u32;
            nodes[n].count = 0;
        }
        let (triangles, ids): (Vec<[DVec3; 3]>, Vec<u32>) = triangles.into_iter().unzip();
        let mut slots = vec![0u32; ids.len()];
        for (slot, &id) in ids.iter().enumerate() {
            slots[id as usize] = slot as u32;
        }
        TriangleTree {
            triangles,
            ids,
            slots,
            nodes,
        }
    }

    /// The same triangles moved to `positions` (the index list the tree was made from):
    /// the boxes are made to fit again, the split kept. Exact for any motion, and far
    /// cheaper than a new tree (no sort), at the cost of looser boxes where the motion
    /// was large.
    pub fn refit(&mut self, positions: &[DVec3], indices: &[u32]) {
        for (t, &id) in self.triangles.iter_mut().zip(&self.ids) {
            let at = id as usize * 3;
            *t = [0, 1, 2].map(|k| positions[indices[at + k] as usize]);
        }
        // Children follow their parent in the list: from the end, every child is fitted
        // before its parent.
        for n in (0..self.nodes.len()).rev() {
            let Node { first, count, .. } = self.nodes[n];
            let (first, count) = (first as usize, count as usize);
            let (min, max) = if count > 0 {
                self.triangles[first..first + count]
                    .iter()
                    .flatten()
                    .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
                        (lo.min(*p), hi.max(*p))
                    })
            } else {
                let (l, r) = (self.nodes[first], self.nodes[first + 1]);
                (l.min.min(r.min), l.max.max(r.max))
            };
            self.nodes[n].min = min;
            self.nodes[n].max = max;
        }
    }

    /// The distance from `p` to the nearest triangle (infinite without triangles).
    pub fn distance(&self, p: DVec3, search: &mut Search) -> f64 {
        self.nearest(p, search).0
    }

    /// The distance from `p` to the nearest triangle and that triangle's place in the
    /// index list the tree was made from (infinite and `u32::MAX` without triangles).
    pub fn nearest(&self, p: DVec3, search: &mut Search) -> (f64, u32) {
        let box_distance_squared = |n: &Node| {
            let outside = (n.min - p).max(p - n.max).max(DVec3::ZERO);
            outside.length_squared()
        };
        if self.nodes.is_empty() {
            return (f64::INFINITY, u32::MAX);
        }
        // The last query's triangle first (any triangle of this tree, when the last query
        // was through another).
        let hint = search.last as usize % self.triangles.len();
        let [a, b, c] = self.triangles[hint];
        let mut best_squared = (closest_on_triangle(p, a, b, c) - p).length_squared();
        let mut best = self.ids[hint];
        search.stack.clear();
        search.stack.push((0, box_distance_squared(&self.nodes[0])));
        while let Some((n, box_squared)) = search.stack.pop() {
            // A nearer triangle may have been found since the box was put on the stack.
            if box_squared >= best_squared {
                continue;
            }
            let node = &self.nodes[n as usize];
            if node.count > 0 {
                let first = node.first as usize;
                let span = first..first + node.count as usize;
                for ([a, b, c], &id) in self.triangles[span.clone()].iter().zip(&self.ids[span]) {
                    let d = (closest_on_triangle(p, *a, *b, *c) - p).length_squared();
                    if d < best_squared {
                        best_squared = d;
                        best = id;
                    }
                }
                continue;
            }
            // The nearer child last, so it is visited first.
            let (left, right) = (node.first, node.first + 1);
            let (dl, dr) = (
                box_distance_squared(&self.nodes[left as usize]),
                box_distance_squared(&self.nodes[right as usize]),
            );
            if dl < dr {
                search.stack.extend([(right, dr), (left, dl)]);
            } else {
                search.stack.extend([(left, dl), (right, dr)]);
            }
        }
        search.last = self.slots[best as usize];
        (best_squared.sqrt(), best)
    }
}

/// The point of triangle `abc` nearest to `p` (Ericson, Real-Time Collision Detection,
/// 5.1.5), degenerate triangles included.
pub fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return a + ab * v;
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return a + ac * w;
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return b + (c - b) * w;
    }
    let denom = va + vb + vc;
    if denom.abs() < f64::MIN_POSITIVE {
        // Degenerate (all three corners in a line, caught by no region above): its nearest
        // edge point.
        let edges = [(a, b), (b, c), (c, a)];
        return edges
            .iter()
            .map(|&(s, e)| {
                let d = e - s;
                let t = if d.length_squared() > 0.0 {
                    ((p - s).dot(d) / d.length_squared()).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                s + d * t
            })
            .min_by(|x, y| (*x - p).length().total_cmp(&(*y - p).length()))
            .unwrap_or(a);
    }
    let v = vb / denom;
    let w = vc / denom;
    a + ab * v + ac * w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree finds what testing every triangle finds, made for these positions or
    /// refitted to others.
    #[test]
    fn grid_distance_equals_brute_force() {
        let mut positions = Vec::new();
        let mut indices = Vec::new();
        // A bumpy sheet of 20 × 20 quads.
        for j in 0..21 {
            for i in 0..21 {
                let (x, z) = (i as f64 * 0.1, j as f64 * 0.1);
                positions.push(DVec3::new(x, (x * 7.0).sin() * 0.05 + z * z * 0.3, z));
            }
        }
        for j in 0..20u32 {
            for i in 0..20u32 {
                let v = j * 21 + i;
                indices.extend([v, v + 1, v + 21, v + 1, v + 22, v + 21]);
            }
        }
        let mut grid = TriangleTree::new(&positions, &indices);
        let mut search = Search::default();
        check_against_brute_force(&grid, &positions, &indices, &mut search);
        // The sheet rolled up and moved, far from where the tree was made: the refitted
        // tree still finds exactly what testing every triangle finds.
        let bent: Vec<DVec3> = positions
            .iter()
            .map(|p| DVec3::new(p.x.cos() * 2.0, p.x.sin() * 2.0 + p.y, p.z * 1.5) + 0.3)
            .collect();
        grid.refit(&bent, &indices);
        check_against_brute_force(&grid, &bent, &indices, &mut search);
    }

    /// The distance from `p` to the nearest of the triangles `indices`, every one tested.
    fn brute_distance(p: DVec3, positions: &[DVec3], indices: &[u32]) -> f64 {
        indices
            .chunks_exact(3)
            .map(|tri| {
                let [a, b, c] = [0, 1, 2].map(|q| positions[tri[q] as usize]);
                (closest_on_triangle(p, a, b, c) - p).length()
            })
            .fold(f64::INFINITY, f64::min)
    }

    fn check_against_brute_force(
        grid: &TriangleTree,
        positions: &[DVec3],
        indices: &[u32],
        search: &mut Search,
    ) {
        for k in 0..500 {
            let t = k as f64;
            // Every fifth point far away, where most boxes are pruned.
            let reach = if k % 5 == 0 { 40.0 } else { 1.0 };
            let p = DVec3::new(
                (t * 0.37).sin() * 1.5 * reach + 1.0,
                (t * 0.71).cos() * 0.8 * reach,
                (t * 0.13).sin() * 1.5 * reach + 1.0,
            );
            let brute = brute_distance(p, positions, indices);
            let (found, id) = grid.nearest(p, search);
            assert!((found - brute).abs() < 1e-12, "{p}: {found} vs {brute}");
            // The triangle it names is one at that distance.
            let [a, b, c] = [0, 1, 2].map(|q| positions[indices[3 * id as usize + q] as usize]);
            let named = (closest_on_triangle(p, a, b, c) - p).length();
            assert!(
                (named - brute).abs() < 1e-12,
                "{p}: triangle {id} at {named}"
            );
        }
    }

    /// A bumpy sheet of `n` × `n` quads, and the same sheet with a quad of it every `step`
    /// quads each way (a coarse level over the same vertices).
    fn sheet(n: u32, step: u32) -> (Vec<DVec3>, Vec<u32>, Vec<u32>) {
        let row = n + 1;
        let positions = (0..row * row)
            .map(|v| {
                let (x, z) = ((v % row) as f64 * 0.1, (v / row) as f64 * 0.1);
                DVec3::new(x, (x * 7.0).sin() * 0.05 + (z * 5.0).cos() * 0.04, z)
            })
            .collect();
        let quads = |step: u32| {
            let mut indices = Vec::new();
            for j in (0..n).step_by(step as usize) {
                for i in (0..n).step_by(step as usize) {
                    let (s_i, s_j) = (step.min(n - i), step.min(n - j));
                    let v = j * row + i;
                    let (right, down) = (v + s_i, v + s_j * row);
                    indices.extend([v, right, down, right, down + s_i, down]);
                }
            }
            indices
        };
        (positions, quads(1), quads(step))
    }

    /// However many points there are (searched directly or through a tree), the farthest
    /// one's distance is what testing every triangle finds.
    #[test]
    fn the_farthest_point_is_found_directly_or_through_a_tree() {
        let (positions, full, _) = sheet(12, 1);
        let points: Vec<DVec3> = (0..40)
            .map(|k| {
                let t = k as f64;
                DVec3::new(
                    (t * 0.9).sin() + 0.6,
                    (t * 0.4).cos() * 0.5,
                    (t * 0.3).sin() + 0.6,
                )
            })
            .collect();
        let distance = |p: &DVec3| brute_distance(*p, &positions, &full);
        assert_eq!(farthest_from(&[], &positions, &full), 0.0);
        for count in [1, DIRECT_SEARCHES, DIRECT_SEARCHES + 1, points.len()] {
            let want = points[..count].iter().map(distance).fold(0.0f64, f64::max);
            let got = farthest_from(&points[..count], &positions, &full);
            assert!(
                (got - want).abs() < 1e-12,
                "{count} points: {got} vs {want}"
            );
        }
    }

    /// A query after one through another tree starts from a triangle that tree found,
    /// whatever its number: still the nearest.
    #[test]
    fn a_search_shared_between_trees_still_finds_the_nearest() {
        let (positions, fine, coarse) = sheet(20, 5);
        let fine_tree = TriangleTree::new(&positions, &fine);
        let coarse_tree = TriangleTree::new(&positions, &coarse);
        let mut search = Search::default();
        for k in 0..200 {
            let t = k as f64;
            let p = DVec3::new(
                (t * 0.3).sin() + 1.0,
                (t * 0.7).cos() * 0.3,
                (t * 0.1).cos() + 1.0,
            );
            for (tree, indices) in [(&fine_tree, &fine), (&coarse_tree, &coarse)] {
                let brute = brute_distance(p, &positions, indices);
                let found = tree.distance(p, &mut search);
                assert!((found - brute).abs() < 1e-12, "{p}: {found} vs {brute}");
            }
        }
    }

    /// The point distances' largest is the surfaces' distance, and a level moved away
    /// from them measures, with no bound to skip a point, what measuring every point
    /// finds: for one point off its bound (searched directly) and for many (through a tree).
    #[test]
    fn point_distances_measure_what_the_surface_distance_does() {
        let (positions, full, coarse) = sheet(20, 4);
        let full_tree = TriangleTree::new(&positions, &full);
        let points = PointDistances::new(&positions, &full, &full_tree, &coarse);
        let whole = surface_distance(&positions, &full, &full_tree, &coarse);
        assert!(whole > 0.0);
        assert_eq!(points.largest(), whole);
        let level_vertices: Vec<u32> = {
            let mut v = coarse.clone();
            v.sort_unstable();
            v.dedup();
            v
        };
        for moved_count in [1, level_vertices.len()] {
            let mut moved = positions.clone();
            let mut movement = vec![0.0; positions.len()];
            for &v in level_vertices.iter().take(moved_count) {
                let shift = DVec3::new(0.0, 0.07 + 0.001 * f64::from(v % 7), 0.0);
                moved[v as usize] += shift;
                movement[v as usize] = shift.length();
            }
            let bounded =
                points.moved_distance(&positions, &full_tree, &moved, &movement, &coarse, 0.0);
            let measured = moved_surface_distance(&positions, &full, &full_tree, &moved, &coarse);
            assert!(
                (bounded - measured).abs() < 1e-12,
                "{moved_count} moved: {bounded} vs {measured}"
            );
        }
    }

    #[test]
    fn closest_point_regions() {
        let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::Y);
        let near = |p: DVec3, want: DVec3| {
            let got = closest_on_triangle(p, a, b, c);
            assert!((got - want).length() < 1e-12, "{p}: {got} vs {want}");
        };
        near(DVec3::new(0.2, 0.2, 1.0), DVec3::new(0.2, 0.2, 0.0));
        near(DVec3::new(-1.0, -1.0, 0.0), a);
        near(DVec3::new(0.5, -1.0, 0.0), DVec3::new(0.5, 0.0, 0.0));
        near(DVec3::new(1.0, 1.0, 0.0), DVec3::new(0.5, 0.5, 0.0));
        near(DVec3::new(3.0, -1.0, 0.0), b);
    }
}
