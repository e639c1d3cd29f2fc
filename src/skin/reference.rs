//! The skinning oracle: linear blend skinning in f64, file vertex order, obvious code.

use glam::{DMat4, DVec3};

use crate::rig::Mesh;

/// Skinned positions and normals (normals are transformed by the same blended matrix and
/// not renormalized, like every variant; the shader normalizes).
pub fn skin(mesh: &Mesh, palette: &[DMat4]) -> (Vec<DVec3>, Vec<DVec3>) {
    let mut positions = Vec::with_capacity(mesh.vertex_count());
    let mut normals = Vec::with_capacity(mesh.vertex_count());
    for v in 0..mesh.vertex_count() {
        let mut m = DMat4::ZERO;
        for k in 0..4 {
            m += palette[mesh.joints[v][k] as usize] * mesh.weights[v][k] as f64;
        }
        positions.push(m.transform_point3(mesh.positions[v].as_dvec3()));
        normals.push(m.transform_vector3(mesh.normals[v].as_dvec3()));
    }
    (positions, normals)
}
