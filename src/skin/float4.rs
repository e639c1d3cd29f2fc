//! `float4`: + float4 source and destination, 16-byte aligned.
//!
//! How it works: as `split`, but position (w = 1) and normal (w = 0) are stored as four
//! floats, so each is one aligned SIMD load and one aligned store: no packing of three
//! floats out of a register, more bytes moved but fewer instructions.

use glam::{Mat4, Vec4};

use crate::prepare::{PreparedMesh, VertexF4};

pub fn run(mesh: &PreparedMesh, palette: &[Mat4], out: &mut [VertexF4]) {
    let n = mesh.vertex_count;
    for ((dst, src), (j, w)) in out[..n]
        .iter_mut()
        .zip(&mesh.source_f4[..n])
        .zip(mesh.joints4[..n].iter().zip(&mesh.weights4[..n]))
    {
        let m = palette[j[0] as usize] * w[0]
            + palette[j[1] as usize] * w[1]
            + palette[j[2] as usize] * w[2]
            + palette[j[3] as usize] * w[3];
        *dst = VertexF4 {
            position: (m * Vec4::from_array(src.position)).to_array(),
            normal: (m * Vec4::from_array(src.normal)).to_array(),
        };
    }
}
