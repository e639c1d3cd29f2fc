//! `naive`: the first version of Stefan Reinalter's "Adventures in data-oriented design – Part 4: Skinning it to 11".
//!
//! How it works: every vertex blends four 4×4 palette matrices (unused influences weigh
//! 0 and are multiplied anyway), transforms position and normal, and writes the
//! interleaved float3/float3/float2 vertex, copying the uv that never changes.

use glam::{Mat4, Vec3, Vec4};

use super::{Dest, blend4};
use crate::prepare::{PreparedMesh, VertexInterleaved};

// The article's loop, indexing every array by vertex, kept as written.
/// With `OWN_NORMALS`, normals blend `normal_palette` (the rig's normal matrices); without,
/// the position matrices serve (`normal_palette` is unused). `vertices`: those the
/// character's level of the mesh's chain draws (`None`: every vertex). `weights`: the
/// mesh's four weights a vertex, or a level's cut of them
/// ([`PreparedMesh::weights4_cut`]), one per vertex.
pub fn run<const OWN_NORMALS: bool>(
    mesh: &PreparedMesh,
    weights: &[[f32; 4]],
    palette: &[Mat4],
    normal_palette: &[Mat4],
    out: &mut Dest<VertexInterleaved>,
    vertices: Option<&[u32]>,
) {
    assert_eq!(
        weights.len(),
        mesh.vertex_count(),
        "weights of another mesh"
    );
    let mut skin_vertex = |v: usize| {
        let m = blend4(palette, mesh.joints4()[v], weights[v]);
        let n = if OWN_NORMALS {
            blend4(normal_palette, mesh.joints4()[v], weights[v])
        } else {
            m
        };
        let src = &mesh.interleaved()[v];
        let position = m * Vec3::from(src.position).extend(1.0);
        let normal = n * Vec4::from((Vec3::from(src.normal), 0.0));
        out.write(
            v,
            VertexInterleaved {
                position: position.truncate().to_array(),
                normal: normal.truncate().to_array(),
                uv: src.uv,
            },
        );
    };
    match vertices {
        None => (0..mesh.vertex_count()).for_each(&mut skin_vertex),
        Some(listed) => listed.iter().for_each(|&v| skin_vertex(v as usize)),
    }
}
