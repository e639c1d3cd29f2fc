//! `float4`: + float4 source and destination, 16-byte aligned.
//!
//! How it works: as `split`, but position (w = 1) and normal (w = 0) are stored as four
//! floats, so each is one aligned SIMD load and one aligned store: no packing of three
//! floats out of a register, more bytes moved but fewer instructions.

use glam::{Mat4, Vec4};

use super::{Dest, blend4};
use crate::prepare::{PreparedMesh, VertexF4};

/// With `OWN_NORMALS`, normals blend `normal_palette` (the rig's normal matrices); without,
/// the position matrices serve (`normal_palette` is unused).
pub fn run<const OWN_NORMALS: bool>(
    mesh: &PreparedMesh,
    palette: &[Mat4],
    normal_palette: &[Mat4],
    out: &mut Dest<VertexF4>,
) {
    let n = mesh.vertex_count();
    for (v, (src, (j, w))) in mesh.source_f4()[..n]
        .iter()
        .zip(mesh.joints4()[..n].iter().zip(&mesh.weights4()[..n]))
        .enumerate()
    {
        let m = blend4(palette, *j, *w);
        let n = if OWN_NORMALS {
            blend4(normal_palette, *j, *w)
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
    }
}
