//! `gpu_vertex`'s influence cuts: a character drawn at a coarse level blends only the
//! influences that level keeps ([`crate::skin::level_kept`]), as the CPU's kernels and
//! `gpu_compute` do.
//!
//! How it works: the vertex shader blends whatever weights its vertex buffer holds, so
//! the cut lives in the data, not in the shader. The static mesh is held once uncut and
//! once per kept count some level uses, each copy's weights cut as the oracle cuts them
//! ([`crate::rig::Mesh::reduced_to`]), one copy after another; the uv stream likewise.
//! A second index buffer holds the mesh's levels as the first does, each level's indices
//! moved into the copy of its kept count. Every draw already takes its level's index
//! range, so every draw path (per character, per level, the shadow pass, the GPU's LOD
//! arguments) draws the level's cut from it without knowing of it. Made while `gpu_vertex`
//! draws, once the rig's level errors are measured (until then no character is at a coarse
//! level), and let go when another path takes over. The shader's
//! loop ends at a vertex's first zero weight, so a cut copy also reads fewer palette rows.
//! Dual quaternions keep every influence and draw from the uncut buffers.

use wgpu::util::DeviceExt;

use super::pipelines::SkinMeshVertex;
use crate::prepare::PreparedRig;
use crate::rig::Mesh;
use crate::skin::SkinMethod;

/// The static mesh with each level's cut (see the module docs).
pub(super) struct VertexCuts {
    /// The uncut mesh, then one copy per kept count, file order.
    pub(super) skin_mesh: wgpu::Buffer,
    /// The uv stream, as many times.
    pub(super) uvs: wgpu::Buffer,
    /// The mesh's levels, each moved into its kept count's copy.
    pub(super) indices: wgpu::Buffer,
}

/// Where the cut buffers stand: made only while `gpu_vertex` draws with linear blending,
/// the one path that reads them, and once the level errors say what each level keeps.
pub(super) enum VertexCutState {
    /// Not made: another path draws, or the level errors are not measured yet (so no
    /// character is at a coarse level).
    NotMade,
    /// Asked for, and nothing to make: no level cuts, or the copies would not fit 32-bit
    /// indices. The uncut buffers serve.
    Uncut,
    /// Made.
    Made(VertexCuts),
}

impl VertexCutState {
    /// Bytes of GPU memory the copies take (0 unless made).
    pub(super) fn bytes(&self) -> u64 {
        match self {
            VertexCutState::NotMade | VertexCutState::Uncut => 0,
            VertexCutState::Made(cuts) => {
                cuts.skin_mesh.size() + cuts.uvs.size() + cuts.indices.size()
            }
        }
    }
}

/// `gpu_vertex`'s static mesh for `mesh`: positions and normals from `rig`'s prepared mesh,
/// joints and weights from `mesh` (the file's, or a cut of it), file order.
pub(super) fn skin_mesh_vertices(rig: &PreparedRig, mesh: &Mesh) -> Vec<SkinMeshVertex> {
    rig.mesh
        .source_f3()
        .iter()
        .zip(mesh.joints.iter().zip(&mesh.weights))
        .map(|(f3, (j, w))| SkinMeshVertex {
            position: f3.position,
            normal: f3.normal,
            joints: [j[0], j[1], j[2], j[3]],
            weights: [w[0], w[1], w[2], w[3]],
            joints_hi: [j[4], j[5], j[6], j[7]],
            weights_hi: [w[4], w[5], w[6], w[7]],
        })
        .collect()
}

/// Per level of `rig`'s chain, the copy of the mesh its vertices are drawn from (0: the
/// uncut mesh), and the kept count of each copy after the first, ascending.
pub(super) fn copies_by_level(rig: &PreparedRig, levels: usize) -> (Vec<usize>, Vec<usize>) {
    let kept: Vec<Option<usize>> = (0..levels)
        .map(|l| crate::skin::level_kept(rig, l, SkinMethod::Linear))
        .collect();
    let mut counts: Vec<usize> = kept.iter().flatten().copied().collect();
    counts.sort_unstable();
    counts.dedup();
    let copy_of = kept
        .iter()
        .map(|k| k.map_or(0, |k| 1 + counts.iter().position(|&c| c == k).unwrap_or(0)))
        .collect();
    (copy_of, counts)
}

/// `indices` (every level one after another, `level_ranges` saying where) with each
/// level's indices moved by its copy times `vertex_count`; `None` where a moved index
/// would not fit in 32 bits.
pub(super) fn moved_indices(
    indices: &[u32],
    level_ranges: &[(u32, u32)],
    copy_of: &[usize],
    vertex_count: usize,
) -> Option<Vec<u32>> {
    let mut moved = indices.to_vec();
    for (&(first, count), &copy) in level_ranges.iter().zip(copy_of) {
        let shift = u32::try_from(copy.checked_mul(vertex_count)?).ok()?;
        let range = first as usize..(first as usize).checked_add(count as usize)?;
        for index in moved.get_mut(range)? {
            *index = index.checked_add(shift)?;
        }
    }
    Some(moved)
}

impl VertexCuts {
    /// The cut buffers of `rig` (the renderer's), whose levels' indices `level_ranges`
    /// places; `None` where no level cuts (or the copies would not fit 32-bit indices).
    /// Asks for the level errors: call once they are measured.
    pub(super) fn new(
        device: &wgpu::Device,
        rig: &PreparedRig,
        level_ranges: &[(u32, u32)],
    ) -> Option<Self> {
        let (copy_of, counts) = copies_by_level(rig, level_ranges.len());
        if counts.is_empty() {
            return None;
        }
        let vertex_count = rig.mesh.vertex_count();
        let indices = moved_indices(
            rig.mesh_chain().indices_file(),
            level_ranges,
            &copy_of,
            vertex_count,
        )?;
        let mut vertices = skin_mesh_vertices(rig, &rig.source_mesh);
        for &k in &counts {
            vertices.extend(skin_mesh_vertices(rig, &rig.source_mesh.reduced_to(k).0));
        }
        let uvs = rig.mesh.uvs();
        // At least one entry, as the uncut stream.
        let uvs: Vec<[f32; 2]> = if uvs.is_empty() {
            vec![[0.0; 2]]
        } else {
            uvs.iter()
                .copied()
                .cycle()
                .take(uvs.len() * (1 + counts.len()))
                .collect()
        };
        Some(VertexCuts {
            skin_mesh: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("gpu_vertex mesh with each level's cut"),
                contents: bytemuck::cast_slice(&vertices),
                usage: wgpu::BufferUsages::VERTEX,
            }),
            uvs: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("uv stream for each level's cut"),
                contents: bytemuck::cast_slice(&uvs),
                usage: wgpu::BufferUsages::VERTEX,
            }),
            indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("indices into each level's cut (file order)"),
                contents: bytemuck::cast_slice(&indices),
                usage: wgpu::BufferUsages::INDEX,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_draws_the_copy_of_its_cut() {
        let rig = PreparedRig::reference();
        let levels = rig.mesh_chain().levels().len();
        let (copy_of, counts) = copies_by_level(&rig, levels);
        assert_eq!(copy_of[0], 0);
        // The built-in rig's coarse levels cut (docs/mesh-lod.md).
        assert!(!counts.is_empty());
        for (l, &copy) in copy_of.iter().enumerate() {
            let kept = crate::skin::level_kept(&rig, l, SkinMethod::Linear);
            assert_eq!(kept, (copy > 0).then(|| counts[copy - 1]), "level {l}");
        }
        // Each moved index names the same vertex of its level's copy.
        let n = rig.mesh.vertex_count();
        let ranges: Vec<(u32, u32)> = rig
            .mesh_chain()
            .levels()
            .iter()
            .map(|l| (l.first_index, l.index_count))
            .collect();
        let indices = rig.mesh_chain().indices_file();
        let moved = moved_indices(indices, &ranges, &copy_of, n).expect("fits");
        for (&(first, count), &copy) in ranges.iter().zip(&copy_of) {
            for i in first as usize..(first + count) as usize {
                assert_eq!(moved[i] as usize, indices[i] as usize + copy * n);
            }
        }
        assert_eq!(moved_indices(indices, &ranges, &copy_of, usize::MAX), None);
    }
}
