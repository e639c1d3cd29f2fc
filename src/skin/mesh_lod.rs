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
use crate::skin::volume::for_each_pose_shifted;

/// Poses measured per clip, at most.
pub const POSES_PER_CLIP: usize = 16;
/// Poses measured in all, at most, for a mesh of [`WORK_TRIANGLES`] triangles (fewer for a
/// larger mesh, never fewer than two per clip): what keeps loading a large character short.
pub const POSE_BUDGET: usize = 48;
pub const WORK_TRIANGLES: usize = 5_000;
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
    let chain = rig.mesh_chain();
    let levels = chain.levels().len();
    let full = chain.level_indices(0);
    let mut palettes: Vec<Vec<DMat4>> = Vec::new();
    if rig.clips.is_empty() {
        palettes.push(vec![DMat4::IDENTITY; rig.skeleton.palette_len()]);
    } else {
        for_each_pose_shifted(rig, samples, shift, |_, _, skinning| {
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
    let distances: Vec<f64> = parallel::map(surfaces.len() * coarse, |job| {
        let (positions, full_tree) = &surfaces[job / coarse];
        let level = chain.level_indices(1 + job % coarse);
        surface_distance(positions, full, full_tree, level)
    });
    let mut largest = vec![0.0f64; levels];
    for (job, d) in distances.iter().enumerate() {
        let worst = &mut largest[1 + job % coarse];
        *worst = worst.max(*d);
    }
    (largest, surfaces.len())
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
        let [a, b, c] = [0, 1, 2].map(|k| positions[t[k] as usize]);
        for p in [
            (a + b + c) / 3.0,
            (a + b) / 2.0,
            (b + c) / 2.0,
            (c + a) / 2.0,
        ] {
            worst = worst.max(full_tree.distance(p, &mut search));
        }
    }
    worst
}

/// Triangles in a bounding volume hierarchy (boxes split at the median of the longest
/// axis), for nearest-point queries: a query descends into the nearer box first and skips
/// every box farther than the nearest triangle found, so a point far from the surface (a
/// coarse level's triangle across a limb's gap) costs a few dozen boxes, not every cell
/// between it and the surface.
pub struct TriangleTree {
    triangles: Vec<[DVec3; 3]>,
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

/// A query's scratch: the boxes still to visit.
#[derive(Default)]
pub struct Search {
    stack: Vec<u32>,
}

impl TriangleTree {
    pub fn new(positions: &[DVec3], indices: &[u32]) -> Self {
        let mut triangles: Vec<[DVec3; 3]> = indices
            .chunks_exact(3)
            .map(|t| [0, 1, 2].map(|k| positions[t[k] as usize]))
            .collect();
        let bounds = |ts: &[[DVec3; 3]]| {
            ts.iter()
                .flatten()
                .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
                    (lo.min(*p), hi.max(*p))
                })
        };
        let mut nodes = Vec::with_capacity(2 * triangles.len().div_ceil(LEAF_TRIANGLES));
        if triangles.is_empty() {
            return TriangleTree { triangles, nodes };
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
            let centroid = |t: &[DVec3; 3]| t[0] + t[1] + t[2];
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
        TriangleTree { triangles, nodes }
    }

    /// The distance from `p` to the nearest triangle (infinite without triangles).
    pub fn distance(&self, p: DVec3, search: &mut Search) -> f64 {
        let box_distance_squared = |n: &Node| {
            let outside = (n.min - p).max(p - n.max).max(DVec3::ZERO);
            outside.length_squared()
        };
        let mut best_squared = f64::INFINITY;
        if self.nodes.is_empty() {
            return f64::INFINITY;
        }
        search.stack.clear();
        search.stack.push(0);
        while let Some(n) = search.stack.pop() {
            let node = &self.nodes[n as usize];
            if box_distance_squared(node) >= best_squared {
                continue;
            }
            if node.count > 0 {
                let first = node.first as usize;
                for [a, b, c] in &self.triangles[first..first + node.count as usize] {
                    let d = (closest_on_triangle(p, *a, *b, *c) - p).length_squared();
                    best_squared = best_squared.min(d);
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
                search.stack.extend([right, left]);
            } else {
                search.stack.extend([left, right]);
            }
        }
        best_squared.sqrt()
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

    /// The tree finds what testing every triangle finds.
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
        let grid = TriangleTree::new(&positions, &indices);
        let mut search = Search::default();
        for k in 0..500 {
            let t = k as f64;
            // Every fifth point far away, where most boxes are pruned.
            let reach = if k % 5 == 0 { 40.0 } else { 1.0 };
            let p = DVec3::new(
                (t * 0.37).sin() * 1.5 * reach + 1.0,
                (t * 0.71).cos() * 0.8 * reach,
                (t * 0.13).sin() * 1.5 * reach + 1.0,
            );
            let brute = indices
                .chunks_exact(3)
                .map(|tri| {
                    let [a, b, c] = [0, 1, 2].map(|q| positions[tri[q] as usize]);
                    (closest_on_triangle(p, a, b, c) - p).length()
                })
                .fold(f64::INFINITY, f64::min);
            let found = grid.distance(p, &mut search);
            assert!((found - brute).abs() < 1e-12, "{p}: {found} vs {brute}");
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
