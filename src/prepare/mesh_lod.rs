//! Geometric LOD: a chain of ever coarser triangle lists over the character's own vertices.
//!
//! How it works: meshoptimizer's simplifier (the `meshopt` crate) collapses edges of the
//! whole character's mesh and writes a new index list over the *same* vertex array, so a
//! level needs no vertices of its own: every skinned layout, every draw path and every
//! kernel keeps its data, and drawing a level is drawing other indices. Each level is made
//! from the one before it (a quarter of its triangles), so a level's vertices are a subset
//! of the finer level's. Vertices at the same position with different attributes (UV
//! seams, the borders between a character's meshes) are kept together by the simplifier,
//! so a level does not tear there; `Regularize` keeps triangles even-sized, which the
//! simplifier's documentation recommends for meshes that deform.
//!
//! The chain stops where a level would have fewer than [`MIN_LEVEL_TRIANGLES`] triangles,
//! or where the simplifier cannot remove a tenth of the triangles any more (a level it
//! cannot reach is left out, and the chain says so). A mesh too small to simplify has one
//! level. The simplifier's own error is a bind-pose estimate; what a level costs on screen
//! is measured over the clips' poses by `skin::mesh_lod`.

use std::time::Instant;

use meshopt::{SimplifyOptions, VertexDataAdapter};

use super::PreparedMesh;

/// Levels at most, the full mesh included.
pub const MAX_MESH_LEVELS: usize = 6;
/// A level is made with at most this share of the previous level's triangles.
pub const LEVEL_RATIO: f64 = 0.25;
/// The coarsest level keeps at least this many triangles.
pub const MIN_LEVEL_TRIANGLES: usize = 24;

/// One level of a chain: where its indices are in both orders' index lists.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MeshLevel {
    /// First index of the level in [`MeshChain::indices_file`] and
    /// [`MeshChain::indices_sorted`] (the same in both: the lists differ only by the
    /// vertex order they name).
    pub first_index: u32,
    pub index_count: u32,
    /// Distinct vertices its triangles use.
    pub vertices: usize,
    /// The simplifier's own estimate of the level's error in the bind pose, brought into
    /// model units (see [`MeshChain::new`]).
    pub bind_error: f32,
}

impl MeshLevel {
    pub fn triangles(&self) -> usize {
        self.index_count as usize / 3
    }
}

/// A character's levels, finest (the mesh as loaded) first.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshChain {
    levels: Vec<MeshLevel>,
    indices_file: Vec<u32>,
    indices_sorted: Vec<u32>,
    /// Why the chain is shorter than it could be, if it is.
    pub note: Option<String>,
    /// What making the chain took, seconds.
    pub build_secs: f64,
    /// The first level made across attribute seams (see [`MeshChain::new`]), if any.
    pub permissive_from: Option<usize>,
}

impl MeshChain {
    /// The chain of `mesh` (see the module docs). `model_per_bind` is how long a unit of
    /// the bind mesh is in model space (the rig's model size over its bind mesh's size): the
    /// simplifier's estimates are in the bind mesh's units, the measured errors in model
    /// space, and the chain states both in model units. The simplifier ran when the mesh
    /// was prepared (its levels order the sorted vertices); this states its chain in model
    /// units and over the sorted order.
    pub fn new(mesh: &PreparedMesh, model_per_bind: f32) -> Self {
        let mut chain = mesh.simplified().clone();
        for level in &mut chain.levels {
            level.bind_error *= model_per_bind;
        }
        let sorted_of_original = {
            let original_of_sorted = mesh.sorted().original_of_sorted();
            let mut inverse = vec![0u32; original_of_sorted.len()];
            for (s, &o) in original_of_sorted.iter().enumerate() {
                inverse[o as usize] = s as u32;
            }
            inverse
        };
        chain.indices_sorted = chain
            .indices_file
            .iter()
            .map(|&v| sorted_of_original[v as usize])
            .collect();
        chain
    }

    /// The simplifier's chain over `positions` (file order) and their triangle list
    /// `full`, with the bind-pose estimates in the bind mesh's units and no sorted list
    /// yet ([`MeshChain::new`] adds both). `full`'s entries are below `positions.len()`.
    pub(crate) fn simplify(positions: &[crate::types::VertexF3], full: &[u32]) -> Self {
        let start = Instant::now();
        let vertex_count = positions.len();
        let mut indices_file = full.to_vec();
        let mut levels = vec![level(0, full, vertex_count, 0.0)];
        let bytes: &[u8] = bytemuck::cast_slice(positions);
        let stride = std::mem::size_of::<crate::types::VertexF3>();
        let mut permissive_from = None;
        let note = match VertexDataAdapter::new(bytes, stride, 0) {
            Err(e) => Some(format!("the simplifier refused the vertices: {e}")),
            Ok(vertices) => {
                let scale = meshopt::simplify_scale(&vertices);
                let mut previous = full.to_vec();
                let mut options = SimplifyOptions::Regularize;
                let mut permissive = false;
                loop {
                    let triangles = previous.len() / 3;
                    if levels.len() == MAX_MESH_LEVELS {
                        break None;
                    }
                    let target =
                        ((triangles as f64 * LEVEL_RATIO) as usize).max(MIN_LEVEL_TRIANGLES);
                    if triangles < 2 * MIN_LEVEL_TRIANGLES {
                        break (levels.len() == 1).then(|| {
                            format!("{triangles} triangles are too few to simplify: one level")
                        });
                    }
                    let mut relative_error = 0.0f32;
                    let mut simplify = |options| {
                        meshopt::simplify(
                            &previous,
                            &vertices,
                            target * 3,
                            f32::MAX,
                            options,
                            Some(&mut relative_error),
                        )
                    };
                    let mut next = simplify(options);
                    if !permissive && next.len() as f64 > previous.len() as f64 * 0.9 {
                        // Stuck at attribute seams (a flat-shaded mesh is all seams): from
                        // here on the simplifier may collapse across them, moving every copy
                        // of a seam vertex together, so the surface still does not tear;
                        // what a level loses is the attributes' sharp lines.
                        permissive = true;
                        options |= SimplifyOptions::Permissive;
                        next = simplify(options);
                    }
                    let reached = next.len() / 3;
                    if next.is_empty() || reached as f64 > triangles as f64 * 0.9 {
                        break Some(format!(
                            "the simplifier could not go below {reached} of {triangles} \
                             triangles (asked for {target}): {} levels",
                            levels.len()
                        ));
                    }
                    if permissive && permissive_from.is_none() {
                        permissive_from = Some(levels.len());
                    }
                    let first = indices_file.len() as u32;
                    indices_file.extend_from_slice(&next);
                    levels.push(level(first, &next, vertex_count, relative_error * scale));
                    previous = next;
                }
            }
        };
        MeshChain {
            permissive_from,
            levels,
            indices_file,
            indices_sorted: Vec::new(),
            note,
            build_secs: start.elapsed().as_secs_f64(),
        }
    }

    pub fn levels(&self) -> &[MeshLevel] {
        &self.levels
    }

    /// Every level's indices, file vertex order, one after the other.
    pub fn indices_file(&self) -> &[u32] {
        &self.indices_file
    }

    /// The same over the influence-sorted vertex order.
    pub fn indices_sorted(&self) -> &[u32] {
        &self.indices_sorted
    }

    /// Per vertex of the influence-sorted order, the deepest level whose triangles use it
    /// (0 where only the full mesh does). Each level's vertices are a subset of the
    /// previous level's, so a vertex is in every level up to its deepest: level `l`'s
    /// triangles use only vertices whose deepest level is `l` or more.
    pub fn deepest_levels_sorted(&self, vertex_count: usize) -> Vec<u32> {
        self.deepest_levels(&self.indices_sorted, vertex_count)
    }

    /// The same per vertex of the file's order.
    pub fn deepest_levels_file(&self, vertex_count: usize) -> Vec<u32> {
        self.deepest_levels(&self.indices_file, vertex_count)
    }

    fn deepest_levels(&self, indices: &[u32], vertex_count: usize) -> Vec<u32> {
        let mut deepest = vec![0u32; vertex_count];
        for (l, level) in self.levels.iter().enumerate().skip(1) {
            let range =
                level.first_index as usize..(level.first_index + level.index_count) as usize;
            for &v in &indices[range] {
                if let Some(d) = deepest.get_mut(v as usize) {
                    *d = l as u32;
                }
            }
        }
        deepest
    }

    /// Level `level`'s indices, file order.
    pub fn level_indices(&self, level: usize) -> &[u32] {
        let l = &self.levels[level.min(self.levels.len() - 1)];
        &self.indices_file[l.first_index as usize..(l.first_index + l.index_count) as usize]
    }
}

fn level(first_index: u32, indices: &[u32], vertex_count: usize, bind_error: f32) -> MeshLevel {
    let mut used = vec![false; vertex_count];
    for &v in indices {
        used[v as usize] = true;
    }
    MeshLevel {
        first_index,
        index_count: indices.len() as u32,
        vertices: used.iter().filter(|&&u| u).count(),
        bind_error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prepare::PreparedRig;

    #[test]
    fn levels_shrink_and_name_only_their_mesh_vertices() {
        let rig = PreparedRig::reference();
        let chain = MeshChain::new(&rig.mesh, 1.0);
        let levels = chain.levels();
        assert!(levels.len() >= 4, "{levels:?}");
        assert_eq!(levels[0].index_count as usize, rig.mesh.indices().len());
        for pair in levels.windows(2) {
            assert!(pair[1].triangles() as f64 <= pair[0].triangles() as f64 * 0.9);
            assert!(pair[1].vertices <= pair[0].vertices);
        }
        assert!(levels.last().unwrap().triangles() >= MIN_LEVEL_TRIANGLES / 2);
        // Each level's vertices are among the finer level's.
        for l in 1..levels.len() {
            let finer: std::collections::HashSet<u32> =
                chain.level_indices(l - 1).iter().copied().collect();
            assert!(chain.level_indices(l).iter().all(|v| finer.contains(v)));
        }
        // The sorted list names the same vertices through the sorted order.
        let original = rig.mesh.sorted().original_of_sorted();
        for (f, s) in chain.indices_file().iter().zip(chain.indices_sorted()) {
            assert_eq!(original[*s as usize], *f);
        }
    }

    #[test]
    fn a_tiny_mesh_keeps_one_level_and_says_why() {
        // A strip of 20 triangles: too few to halve twice.
        let mut mesh = crate::rig::Mesh {
            positions: vec![],
            normals: vec![],
            uvs: vec![],
            joints: vec![],
            weights: vec![],
            indices: vec![],
        };
        for i in 0..22 {
            mesh.positions
                .push(glam::Vec3::new((i / 2) as f32, (i % 2) as f32, 0.0));
            mesh.normals.push(glam::Vec3::Z);
            mesh.uvs.push(glam::Vec2::ZERO);
            let mut joints = [0u16; crate::rig::MAX_INFLUENCES];
            joints[0] = 0;
            let mut weights = [0.0; crate::rig::MAX_INFLUENCES];
            weights[0] = 1.0;
            mesh.joints.push(joints);
            mesh.weights.push(weights);
        }
        for t in 0..20u32 {
            mesh.indices.extend([t, t + 1, t + 2]);
        }
        let prepared = PreparedMesh::new(&mesh, 1).unwrap();
        let chain = MeshChain::new(&prepared, 1.0);
        assert_eq!(chain.levels().len(), 1);
        assert!(
            chain.note.as_deref().unwrap().contains("too few"),
            "{:?}",
            chain.note
        );
        assert_eq!(chain.indices_file(), mesh.indices.as_slice());
    }
}
