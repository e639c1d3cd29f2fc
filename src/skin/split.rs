//! `split`: + only the skinned stream is written.
//!
//! How it works: as `naive`, but source and destination hold only position and normal;
//! the uv lives in a second, static vertex stream that is uploaded once.

use glam::{Mat4, Vec3, Vec4};

use super::{Dest, blend4};
use crate::prepare::{PreparedMesh, VertexF3};

// The seed's loop, indexing every array by vertex, kept as written.
pub fn run(mesh: &PreparedMesh, palette: &[Mat4], out: &mut Dest<VertexF3>) {
    for v in 0..mesh.vertex_count {
        let m = blend4(palette, mesh.joints4[v], mesh.weights4[v]);
        let src = &mesh.source_f3[v];
        let position = m * Vec3::from(src.position).extend(1.0);
        let normal = m * Vec4::from((Vec3::from(src.normal), 0.0));
        out.write(
            v,
            VertexF3 {
                position: position.truncate().to_array(),
                normal: normal.truncate().to_array(),
            },
        );
    }
}
