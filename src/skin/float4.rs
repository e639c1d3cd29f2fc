//! `float4`: + float4 source and destination, 16-byte aligned.
//!
//! How it works: as `split`, but position (w = 1) and normal (w = 0) are stored as four
//! floats, so each is one aligned SIMD load and one aligned store: no packing of three
//! floats out of a register, more bytes moved but fewer instructions.

use glam::{Mat4, Vec4};

use super::{Dest, blend4};
use crate::prepare::{PreparedMesh, VertexF4};

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
    out: &mut Dest<VertexF4>,
    vertices: Option<&[u32]>,
) {
    let mut skin_vertex = |v: usize, src: &VertexF4, j: [u16; 4], w: [f32; 4]| {
        let m = blend4(palette, j, w);
        let n = if OWN_NORMALS {
            blend4(normal_palette, j, w)
        } else {
            m
        };
        out.write(
            v,
            VertexF4 {
                position: (m * Vec4::from_array(src.position)).to_array(),
                normal: (n * Vec4::from_array(src.normal)).to_array(),
            },
        );
    };
    let n = mesh.vertex_count();
    let (source, joints, weights) = (&mesh.source_f4()[..n], &mesh.joints4()[..n], &weights[..n]);
    match vertices {
        None => {
            for (v, (src, (j, w))) in source.iter().zip(joints.iter().zip(weights)).enumerate() {
                skin_vertex(v, src, *j, *w);
            }
        }
        Some(listed) => {
            for &v in listed {
                let v = v as usize;
                skin_vertex(v, &source[v], joints[v], weights[v]);
            }
        }
    }
}
