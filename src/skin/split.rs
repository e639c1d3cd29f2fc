//! `split`: + only the skinned stream is written.
//!
//! How it works: as `naive`, but source and destination hold only position and normal;
//! the uv lives in a second, static vertex stream that is uploaded once.

use glam::{Mat4, Vec3, Vec4};

use super::{Dest, blend4};
use crate::prepare::{PreparedMesh, VertexF3};

// The article's loop ("Skinning it to 11"), indexing every array by vertex, as written.
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
    out: &mut Dest<VertexF3>,
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
        let src = &mesh.source_f3()[v];
        let position = m * Vec3::from(src.position).extend(1.0);
        let normal = n * Vec4::from((Vec3::from(src.normal), 0.0));
        out.write(
            v,
            VertexF3 {
                position: position.truncate().to_array(),
                normal: normal.truncate().to_array(),
            },
        );
    };
    match vertices {
        None => (0..mesh.vertex_count()).for_each(&mut skin_vertex),
        Some(listed) => listed.iter().for_each(|&v| skin_vertex(v as usize)),
    }
}
