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
//! Nearest triangles are found through a uniform grid. A level's error is the largest
//! distance over every pose, times `1 + POSE_MARGIN` for the times between the measured
//! ones (a distance changes smoothly with the pose; `tests/mesh_lod.rs` checks the bound at
//! times half a step away), never less than the finer level's.

use std::time::Instant;

use glam::{DMat4, DVec3};

use crate::prepare::{MeshLevelErrors, PreparedRig};
use crate::skin::reference::skin;
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

/// Each level's error of `rig`'s chain (measured on first ask, then kept with the rig).
pub fn level_errors(rig: &PreparedRig) -> &MeshLevelErrors {
    rig.mesh_level_errors.get_or_init(|| {
        let start = Instant::now();
        let (largest, poses) = measure(rig, poses_per_clip(rig), 0.0);
        let mut errors = Vec::with_capacity(largest.len());
        for (l, d) in largest.iter().enumerate() {
            let stated = (d * (1.0 + POSE_MARGIN)) as f32;
            let finer = errors.last().copied().unwrap_or(0.0f32);
            errors.push(if l == 0 { 0.0 } else { stated.max(finer) });
        }
        MeshLevelErrors {
            errors,
            poses,
            measure_secs: start.elapsed().as_secs_f64(),
        }
    })
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
    // Poses are independent: measured on every core.
    let at_pose = |skinning: &[DMat4]| -> Vec<f64> {
        let (positions, _) = skin(&rig.source_mesh, skinning);
        let full_grid = TriangleGrid::new(&positions, full);
        (0..levels)
            .map(|l| match l {
                0 => 0.0,
                _ => surface_distance(&positions, full, &full_grid, chain.level_indices(l)),
            })
            .collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let share = palettes.len().div_ceil(threads).max(1);
    let per_pose: Vec<Vec<f64>> = std::thread::scope(|scope| {
        let workers: Vec<_> = palettes
            .chunks(share)
            .map(|poses| scope.spawn(|| poses.iter().map(|p| at_pose(p)).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let mut largest = vec![0.0f64; levels];
    for distances in &per_pose {
        for (worst, d) in largest.iter_mut().zip(distances) {
            *worst = worst.max(*d);
        }
    }
    (largest, per_pose.len())
}

/// The larger of the two one-sided distances between the surfaces `full` and `level`
/// (triangle lists over `positions`); `full_grid` is `full`'s grid.
pub fn surface_distance(
    positions: &[DVec3],
    full: &[u32],
    full_grid: &TriangleGrid,
    level: &[u32],
) -> f64 {
    let level_grid = TriangleGrid::new(positions, level);
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
            worst = worst.max(level_grid.distance(*p, &mut search));
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
            worst = worst.max(full_grid.distance(p, &mut search));
        }
    }
    worst
}

/// Triangles binned into a uniform grid of cells (each triangle in every cell its box
/// touches), for nearest-point queries.
pub struct TriangleGrid {
    triangles: Vec<[DVec3; 3]>,
    min: DVec3,
    cell: f64,
    dims: [usize; 3],
    /// Per cell, where its triangles start in `items` (CSR).
    starts: Vec<u32>,
    items: Vec<u32>,
}

/// A query's scratch: which triangles it has tested.
#[derive(Default)]
pub struct Search {
    stamp: Vec<u32>,
    query: u32,
}

impl TriangleGrid {
    pub fn new(positions: &[DVec3], indices: &[u32]) -> Self {
        let triangles: Vec<[DVec3; 3]> = indices
            .chunks_exact(3)
            .map(|t| [0, 1, 2].map(|k| positions[t[k] as usize]))
            .collect();
        let mut min = DVec3::splat(f64::INFINITY);
        let mut max = DVec3::splat(f64::NEG_INFINITY);
        for t in &triangles {
            for p in t {
                min = min.min(*p);
                max = max.max(*p);
            }
        }
        if triangles.is_empty() {
            min = DVec3::ZERO;
            max = DVec3::ZERO;
        }
        let extent = (max - min).max_element().max(1e-12);
        // Cells about the size of a triangle, so a query near the surface tests a few.
        let area: f64 = triangles
            .iter()
            .map(|t| (t[1] - t[0]).cross(t[2] - t[0]).length() / 2.0)
            .sum();
        let mean_side = (area / triangles.len().max(1) as f64).sqrt() * 1.5;
        let cell = mean_side.max(extent / 128.0);
        let dims = [0, 1, 2].map(|a| ((max[a] - min[a]) / cell).floor() as usize + 1);
        let cells = dims[0] * dims[1] * dims[2];
        let mut grid = TriangleGrid {
            triangles,
            min,
            cell,
            dims,
            starts: vec![0; cells + 1],
            items: Vec::new(),
        };
        let boxes: Vec<([usize; 3], [usize; 3])> = grid
            .triangles
            .iter()
            .map(|t| {
                let lo = t[0].min(t[1]).min(t[2]);
                let hi = t[0].max(t[1]).max(t[2]);
                (grid.cell_of(lo), grid.cell_of(hi))
            })
            .collect();
        for (lo, hi) in &boxes {
            for c in Self::cells_in(grid.dims, *lo, *hi) {
                grid.starts[c + 1] += 1;
            }
        }
        for c in 0..cells {
            grid.starts[c + 1] += grid.starts[c];
        }
        grid.items = vec![0; grid.starts[cells] as usize];
        let mut fill = grid.starts.clone();
        for (t, (lo, hi)) in boxes.iter().enumerate() {
            for c in Self::cells_in(grid.dims, *lo, *hi) {
                grid.items[fill[c] as usize] = t as u32;
                fill[c] += 1;
            }
        }
        grid
    }

    fn cell_of(&self, p: DVec3) -> [usize; 3] {
        [0, 1, 2].map(|a| {
            let at = ((p[a] - self.min[a]) / self.cell).floor();
            (at.max(0.0) as usize).min(self.dims[a] - 1)
        })
    }

    fn index(&self, [x, y, z]: [usize; 3]) -> usize {
        (z * self.dims[1] + y) * self.dims[0] + x
    }

    /// The indices of the cells from `lo` to `hi` (inclusive) on every axis of a grid of
    /// `dims` cells (a free function: the caller writes the grid while iterating).
    fn cells_in(dims: [usize; 3], lo: [usize; 3], hi: [usize; 3]) -> impl Iterator<Item = usize> {
        (lo[2]..=hi[2]).flat_map(move |z| {
            (lo[1]..=hi[1])
                .flat_map(move |y| (lo[0]..=hi[0]).map(move |x| (z * dims[1] + y) * dims[0] + x))
        })
    }

    /// The distance from `p` to the nearest triangle (infinite without triangles).
    ///
    /// Rings of cells around `p`'s cell are searched outwards; a triangle not met in rings
    /// `0..r` lies wholly in cells at least `r` away, so farther than `(r - 1)` cells from
    /// `p` (or from its projection into the grid, which is nearer to everything inside).
    pub fn distance(&self, p: DVec3, search: &mut Search) -> f64 {
        if self.triangles.is_empty() {
            return f64::INFINITY;
        }
        if search.stamp.len() != self.triangles.len() {
            search.stamp = vec![0; self.triangles.len()];
            search.query = 0;
        }
        search.query = search.query.wrapping_add(1);
        if search.query == 0 {
            search.stamp.fill(0);
            search.query = 1;
        }
        let c = self.cell_of(p);
        let reach = self.dims.iter().copied().max().unwrap_or(1);
        let mut best = f64::INFINITY;
        for r in 0..=reach {
            if r > 0 && best <= (r - 1) as f64 * self.cell {
                break;
            }
            let lo = c.map(|v| v.saturating_sub(r));
            let hi = [0, 1, 2].map(|a| (c[a] + r).min(self.dims[a] - 1));
            for z in lo[2]..=hi[2] {
                for y in lo[1]..=hi[1] {
                    for x in lo[0]..=hi[0] {
                        let ring = x.abs_diff(c[0]).max(y.abs_diff(c[1])).max(z.abs_diff(c[2]));
                        if ring != r {
                            continue;
                        }
                        let cell = self.index([x, y, z]);
                        for &t in
                            &self.items[self.starts[cell] as usize..self.starts[cell + 1] as usize]
                        {
                            if search.stamp[t as usize] == search.query {
                                continue;
                            }
                            search.stamp[t as usize] = search.query;
                            let [a, b, c] = self.triangles[t as usize];
                            best = best.min((closest_on_triangle(p, a, b, c) - p).length());
                        }
                    }
                }
            }
        }
        best
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

    /// The grid finds what testing every triangle finds.
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
        let grid = TriangleGrid::new(&positions, &indices);
        let mut search = Search::default();
        for k in 0..500 {
            let t = k as f64;
            let p = DVec3::new(
                (t * 0.37).sin() * 1.5 + 1.0,
                (t * 0.71).cos() * 0.8,
                (t * 0.13).sin() * 1.5 + 1.0,
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
