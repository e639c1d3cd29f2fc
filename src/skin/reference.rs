//! The skinning oracle: linear blend skinning in f64, file vertex order, obvious code.
//!
//! Positions follow glTF 2.0 §3.7.3.3: the weighted sum of the joint matrices (each the
//! joint's global transform times its inverse bind matrix) applied to the bind position.
//! A normal is a direction perpendicular to the surface, and a linear map `A` keeps it
//! perpendicular only through `A`'s inverse transpose; so each joint's normal matrix is
//! the inverse transpose of its joint matrix's 3×3, and normals are the weighted sum of
//! those applied to the bind normal (the spec leaves normal skinning to implementations;
//! this is Filament's model, the matrices blended instead of each result normalised).
//!
//! The normal matrices are scaled to the Frobenius norm of a rotation (√3), so that a
//! joint matrix that is a rotation times a scale has that rotation as its normal matrix:
//! joints blend as rotations, whatever their scale. Only directions are compared, since
//! the renderer normalises.
//!
//! The dual-quaternion oracle ([`skin_dual_quat`]) follows Kavan et al. 2008 literally:
//! each joint's rigid matrix as a unit dual quaternion, the vertex's influences summed by
//! weight with the sign of each flipped where its rotation's dot product with the first
//! influence's is negative, the sum divided by its real part's length, and that rigid
//! transform applied to the position and the normal. A uniform scale `s` common to every
//! skinning matrix (a unit conversion in the file) is moved from the matrices to the bind
//! pose: `M p = (M S⁻¹)(s p)` with `M S⁻¹` rigid, so the rigid parts are blended and applied
//! to the bind position times `s` (`skin::method` says why).

use glam::{DMat3, DMat4, DQuat, DVec3};

use crate::rig::Mesh;

/// The normal matrix of a joint matrix: its 3×3's inverse transpose, scaled to norm √3.
/// A singular 3×3 (a joint scaled to zero) has none; its normals come out zero.
pub fn normal_matrix(joint_matrix: &DMat4) -> DMat3 {
    let m = DMat3::from_mat4(*joint_matrix);
    if m.determinant() == 0.0 {
        return DMat3::ZERO;
    }
    let n = m.inverse().transpose();
    let norm = n.to_cols_array().iter().map(|x| x * x).sum::<f64>().sqrt();
    n * (3f64.sqrt() / norm)
}

/// Skinned positions and normals (normals not renormalized; their direction is the
/// result).
pub fn skin(mesh: &Mesh, palette: &[DMat4]) -> (Vec<DVec3>, Vec<DVec3>) {
    let normal_matrices: Vec<DMat3> = palette.iter().map(normal_matrix).collect();
    let mut positions = Vec::with_capacity(mesh.vertex_count());
    let mut normals = Vec::with_capacity(mesh.vertex_count());
    for v in 0..mesh.vertex_count() {
        let mut m = DMat4::ZERO;
        let mut n = DMat3::ZERO;
        for k in 0..crate::rig::MAX_INFLUENCES {
            let (j, w) = (mesh.joints[v][k] as usize, mesh.weights[v][k] as f64);
            m += palette[j] * w;
            n += normal_matrices[j] * w;
        }
        positions.push(m.transform_point3(mesh.positions[v].as_dvec3()));
        normals.push(n * mesh.normals[v].as_dvec3());
    }
    (positions, normals)
}

/// The skinned positions of `vertices` (in that order), without normals: each influence's
/// matrix applied to the bind position and weighted, `Σ wᵢ (Mᵢ p)`, the same sum as
/// [`skin`]'s `(Σ wᵢ Mᵢ) p` reordered (equal to f64 rounding), skipping influences of weight
/// 0. What the load-time measurements over many poses use (a clip's motion, its survey,
/// each mesh level's error): they need only where the drawn vertices are, and this is
/// several times cheaper than blending whole matrices for positions and normals.
pub fn skin_positions(mesh: &Mesh, palette: &[DMat4], vertices: &[u32]) -> Vec<DVec3> {
    vertices
        .iter()
        .map(|&v| {
            let v = v as usize;
            let bind = mesh.positions[v].as_dvec3();
            let mut p = DVec3::ZERO;
            for k in 0..crate::rig::MAX_INFLUENCES {
                let w = mesh.weights[v][k] as f64;
                if w != 0.0 {
                    p += palette[mesh.joints[v][k] as usize].transform_point3(bind) * w;
                }
            }
            p
        })
        .collect()
}

/// What a vertex shader that skins with uploaded 3×4 palettes computes (`gpu_vertex`), in
/// f64: each vertex's weighted position rows (up to eight) applied to its bind position, and its
/// weighted normal rows (`normals`: the rig's normal matrices, or the position matrices
/// where it has none of its own) to its bind normal. The CPU twin of that shader, checking
/// the palettes it is given; the shader itself is checked by picture.
pub fn skin_rows(
    mesh: &Mesh,
    positions: &[crate::types::Mat3x4],
    normals: &[crate::types::Mat3x4],
) -> (Vec<DVec3>, Vec<DVec3>) {
    let mut out_positions = Vec::with_capacity(mesh.vertex_count());
    let mut out_normals = Vec::with_capacity(mesh.vertex_count());
    for v in 0..mesh.vertex_count() {
        let p = mesh.positions[v].as_dvec3().extend(1.0);
        let n = mesh.normals[v].as_dvec3().extend(0.0);
        let (mut sp, mut sn) = (DVec3::ZERO, DVec3::ZERO);
        for k in 0..crate::rig::MAX_INFLUENCES {
            let (j, w) = (mesh.joints[v][k] as usize, mesh.weights[v][k] as f64);
            let (pm, nm) = (&positions[j].rows, &normals[j].rows);
            sp += w * DVec3::new(
                pm[0].as_dvec4().dot(p),
                pm[1].as_dvec4().dot(p),
                pm[2].as_dvec4().dot(p),
            );
            sn += w * DVec3::new(
                nm[0].as_dvec4().dot(n),
                nm[1].as_dvec4().dot(n),
                nm[2].as_dvec4().dot(n),
            );
        }
        out_positions.push(sp);
        out_normals.push(sn);
    }
    (out_positions, out_normals)
}

/// A rigid matrix as a unit dual quaternion: (rotation, dual part `½ (t, 0) ⊗ rotation`).
pub fn dual_quat(m: &DMat4) -> (DQuat, DQuat) {
    let rotation = DQuat::from_mat3(&DMat3::from_mat4(*m)).normalize();
    let t = m.w_axis.truncate();
    let dual = DQuat::from_xyzw(t.x, t.y, t.z, 0.0) * rotation * 0.5;
    (rotation, dual)
}

/// Dual-quaternion skinned positions and normals (unit normals), file vertex order, with
/// `scale` the uniform scale every skinning matrix in `palette` carries (1 where they are
/// rigid).
pub fn skin_dual_quat(mesh: &Mesh, palette: &[DMat4], scale: f64) -> (Vec<DVec3>, Vec<DVec3>) {
    let unscale = DMat4::from_scale(DVec3::splat(1.0 / scale));
    let dual_quats: Vec<(DQuat, DQuat)> =
        palette.iter().map(|m| dual_quat(&(*m * unscale))).collect();
    skin_dual_quats(mesh, &dual_quats, scale)
}

/// [`skin_dual_quat`] from given dual quaternions (rotation, dual part) per joint, each of
/// a skinning matrix with `scale` taken out of its 3×3 (applied to the bind positions
/// instead): the oracle's blend applied to what a GPU variant's shaders were given, in f64.
pub fn skin_dual_quats(
    mesh: &Mesh,
    dual_quats: &[(DQuat, DQuat)],
    scale: f64,
) -> (Vec<DVec3>, Vec<DVec3>) {
    let mut positions = Vec::with_capacity(mesh.vertex_count());
    let mut normals = Vec::with_capacity(mesh.vertex_count());
    for v in 0..mesh.vertex_count() {
        let pivot = dual_quats[mesh.joints[v][0] as usize].0;
        let (mut real, mut dual) = (
            DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        );
        for k in 0..crate::rig::MAX_INFLUENCES {
            let (j, w) = (mesh.joints[v][k] as usize, mesh.weights[v][k] as f64);
            let (r, d) = dual_quats[j];
            let w = if pivot.dot(r) < 0.0 { -w } else { w };
            real += r * w;
            dual += d * w;
        }
        let length = real.length();
        let (real, dual) = (real * (1.0 / length), dual * (1.0 / length));
        // Translation: 2 · dual ⊗ conj(real).
        let t = dual * real.conjugate() * 2.0;
        let p = mesh.positions[v].as_dvec3() * scale;
        positions.push(real * p + DVec3::new(t.x, t.y, t.z));
        normals.push(real * mesh.normals[v].as_dvec3());
    }
    (positions, normals)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The positions-only sum is the oracle's to f64 rounding, on every vertex of the
    /// built-in rig (up to four influences) and of an eight-influence mesh.
    #[test]
    fn positions_alone_are_the_oracle_s() {
        let four = crate::rig::generate::BuiltInRig::Reference.generate().mesh;
        // Every vertex's influences spread over eight entries.
        let mut eight = four.clone();
        for (joints, weights) in eight.joints.iter_mut().zip(&mut eight.weights) {
            let n = weights.iter().filter(|&&w| w > 0.0).count().max(1);
            let (j, w) = (*joints, *weights);
            for i in 0..8 {
                joints[i] = j[i % n];
                weights[i] = w[i % n] / (8 / n + usize::from(i % n < 8 % n)) as f32;
            }
        }
        let meshes = [four, eight];
        for mesh in meshes {
            let entries = mesh.joints.iter().flatten().copied().max().unwrap_or(0) as usize + 1;
            let palette: Vec<DMat4> = (0..entries)
                .map(|e| {
                    let t = e as f64;
                    DMat4::from_scale_rotation_translation(
                        DVec3::splat(1.0 + 0.1 * (t * 0.7).sin()),
                        DQuat::from_axis_angle(DVec3::new(1.0, t, 0.5).normalize(), t * 0.3),
                        DVec3::new(t.cos(), 0.1 * t, t.sin()),
                    )
                })
                .collect();
            let all: Vec<u32> = (0..mesh.vertex_count() as u32).collect();
            let (expected, _) = skin(&mesh, &palette);
            let got = skin_positions(&mesh, &palette, &all);
            for (v, (a, b)) in got.iter().zip(&expected).enumerate() {
                assert!(
                    (*a - *b).length() <= 1e-12 * b.length().max(1.0),
                    "{v}: {a} vs {b}"
                );
            }
            // A subset comes back in the order asked.
            let some = [7u32, 3, 0];
            let picked = skin_positions(&mesh, &palette, &some);
            for (p, &v) in picked.iter().zip(&some) {
                assert_eq!(*p, got[v as usize]);
            }
        }
    }
}
