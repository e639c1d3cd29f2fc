//! The skinning method: how a vertex's influences are combined, chosen independently of
//! the skin variant (the same layout, loops and output, another blend).
//!
//! How it works: linear blending sums the joints' 3×4 matrices by weight; where joints
//! twist far apart the sum is no longer a rotation and the mesh collapses (the "candy
//! wrapper"). Dual-quaternion skinning (Kavan et al., "Geometric Skinning with Approximate
//! Dual Quaternion Blending", 2008) turns each joint's rigid matrix into a unit dual
//! quaternion (8 floats instead of 12) in the palette stage; per vertex the influences are
//! summed with the sign of each flipped where its rotation lies in the other hemisphere
//! from the vertex's first (heaviest) influence's, and the sum, normalised, is the rigid
//! transform applied to the position and the normal.
//!
//! A dual quaternion holds rotation and translation only. Exported rigs often put one
//! uniform scale into every skinning matrix (a unit conversion: Blender and Mixamo exports
//! scale the armature by 100 or 0.01 and bind the mesh in the armature's units). A scale
//! common to every joint is moved from the matrices to the bind pose: `M p = (M S⁻¹)(s p)`
//! where `M S⁻¹` (the 3×3 divided by `s`) is rigid, so each palette matrix's 3×3 is divided
//! by `s` before it becomes a dual quaternion, the bind position is multiplied by `s` (the
//! lane kernels skin a copy of the bind pose times `s`, made once; the shaders multiply per
//! vertex) and the rigid parts are blended as usual (normals only turn).
//! Since `s` is the same for every joint, the blend of the rigid parts applied to `s p` is
//! also `s` times the blend of the matrices divided by `s` applied to `p`: the order does
//! not matter, only that the scale is common. Rigs whose
//! joints scale differently (one more than the others, or along one axis, or shearing) are
//! refused with the joint, clip and time and what the file does in plain words: a second,
//! matrix phase for such scales (Kavan's two-phase variant) would cost a full 3×3 blend per
//! vertex more, and almost no rig needs it. The check samples every clip once at load
//! (first ask), in f64.

use glam::{DMat3, DMat4, DVec3};

use crate::anim::hierarchy::reference::{LocalF64, model_from_joint_f64, palette};
use crate::anim::sample::sample_clip;
pub use crate::prepare::NotRigid;
use crate::prepare::{DualQuatFit, PreparedRig, SortedMesh};

crate::declare_variants! {
    /// How a vertex's influences are combined.
    pub enum SkinMethod: MethodSpec in "method" {
        Linear => MethodSpec {
            name: "linear",
            description: "linear blend skinning: the weighted sum of the joints' 3x4 matrices (12 floats a joint)",
            palette_floats: 12,
        },
        DualQuat => MethodSpec {
            name: "dual_quat",
            description: "dual-quaternion skinning (Kavan 2008): unit dual quaternions (8 floats a joint) blended with the antipodality fix and normalised; keeps volume under twist; rigid joints only",
            palette_floats: 8,
        },
    }
}

/// A skinning method's properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// Floats per joint in the palette the blend reads.
    pub palette_floats: usize,
}

/// How far a skinning matrix's 3×3, divided by the rig's common scale, may be from a
/// rotation (largest entry of `MᵀM/s² − I`) and still count as rigid: exported rigs carry
/// f32 rounding around 1e-6 there.
pub const RIGID_TOLERANCE: f64 = 1e-4;

/// Samples per clip for the rigidity check (plus its last frame).
const RIGID_SAMPLES: usize = 64;

impl SkinMethod {
    /// Why this method cannot skin `rig`, or `None`.
    pub fn rig_refusal(self, rig: &PreparedRig) -> Option<NotRigid> {
        match self {
            SkinMethod::Linear => None,
            SkinMethod::DualQuat => dual_quat_fit(rig).err(),
        }
    }
}

/// The uniform scale dual-quaternion skinning factors out of `rig`'s skinning matrices
/// (1 where they are rigid); 1 where the rig is refused, whose output is then only
/// defined as that of the rigid parts.
pub fn dual_quat_scale(rig: &PreparedRig) -> f32 {
    dual_quat_fit(rig).map_or(1.0, |fit| fit.scale)
}

/// The sorted mesh the lane kernels skin with dual quaternions: the bind pose times
/// [`dual_quat_scale`] (the rig's own where that is 1), made once on first ask.
pub fn dual_quat_mesh(rig: &PreparedRig) -> &SortedMesh {
    match dual_quat_fit(rig) {
        Ok(DualQuatFit {
            scaled_mesh: Some(mesh),
            ..
        }) => mesh,
        _ => rig.mesh.sorted(),
    }
}

fn dual_quat_fit(rig: &PreparedRig) -> Result<&DualQuatFit, NotRigid> {
    rig.dual_quat_fit
        .get_or_init(|| {
            dual_quat_check(rig).map(|scale| DualQuatFit {
                scale,
                scaled_mesh: (scale != 1.0).then(|| rig.mesh.sorted().with_positions_scaled(scale)),
            })
        })
        .as_ref()
        .map_err(NotRigid::clone)
}

/// `rig`'s common skinning scale, or where a skinning matrix is not that scale times a
/// rotation (a joint, a clip, a time and what it does): the rest pose, and every clip at
/// 65 evenly spaced times.
pub fn dual_quat_check(rig: &PreparedRig) -> Result<f32, NotRigid> {
    let palette_at = |locals: &[crate::types::Qvs]| {
        let locals: Vec<LocalF64> = locals.iter().map(LocalF64::from).collect();
        let model = model_from_joint_f64(&rig.skeleton, &locals);
        palette(&rig.skeleton, &model)
    };
    let rest = palette_at(&rig.rest_pose);
    // The common scale: the median of the rest pose's, so one odd joint is the one named.
    let mut scales: Vec<f64> = rest
        .iter()
        .map(|m| DMat3::from_mat4(*m).determinant().abs().cbrt())
        .filter(|s| s.is_finite() && *s > 0.0)
        .collect();
    scales.sort_by(f64::total_cmp);
    let common = scales.get(scales.len() / 2).copied().unwrap_or(1.0);
    let check = |palette: &[DMat4], when: &str| -> Result<(), NotRigid> {
        for (e, m) in palette.iter().enumerate() {
            let j = rig.skeleton.palette_joints[e] as usize;
            if let Some(what) = not_rigid(DMat3::from_mat4(*m), common) {
                return Err(NotRigid {
                    joint: rig.skeleton.names[j].clone(),
                    what,
                    when: when.to_string(),
                });
            }
        }
        Ok(())
    };
    check(&rest, "in the rest pose")?;
    let mut locals = rig.rest_pose.clone();
    for (c, clip) in rig.clips.iter().enumerate() {
        for i in 0..=RIGID_SAMPLES {
            let time_secs = clip.duration_secs * i as f32 / RIGID_SAMPLES as f32;
            locals.copy_from_slice(&rig.rest_pose);
            sample_clip(clip, &rig.rest_pose, time_secs, &mut locals);
            let when = format!("in clip {c} ({}) at {time_secs:.3} s", clip.name);
            check(&palette_at(&locals), &when)?;
        }
    }
    Ok(common as f32)
}

/// What `a` does besides rotating by `common` (the rig's scale), in plain words, or `None`
/// where `a / common` is a rotation (within [`RIGID_TOLERANCE`]).
fn not_rigid(a: DMat3, common: f64) -> Option<String> {
    let r = a * (1.0 / common);
    let off = (r.transpose() * r - DMat3::IDENTITY)
        .to_cols_array()
        .iter()
        .fold(0.0f64, |acc, x| acc.max(x.abs()));
    if off.is_nan() {
        return Some("is not finite".to_string());
    }
    if off <= RIGID_TOLERANCE {
        return (a.determinant() < 0.0).then(|| "mirrors (its determinant is negative)".into());
    }
    // The directions the matrix stretches along (in the model's space) and by how much:
    // the eigenvectors of A·Aᵀ and the square roots of its eigenvalues.
    let (values, vectors) = symmetric_eigen(a * a.transpose());
    let stretches: Vec<f64> = values.iter().map(|v| v.max(0.0).sqrt()).collect();
    let uniform = stretches
        .iter()
        .all(|s| (s - stretches[0]).abs() <= RIGID_TOLERANCE * stretches[0].max(1e-30));
    if uniform {
        return Some(format!(
            "scales by {} in every direction where the rig's other joints scale by {}",
            short(stretches[0]),
            short(common)
        ));
    }
    let mut order = [0, 1, 2];
    let odd = |k: usize| (stretches[k] / common - 1.0).abs();
    order.sort_by(|&x, &y| odd(y).total_cmp(&odd(x)));
    let [most, b, c] = order;
    let along = |k: usize| format!("{} along {}", short(stretches[k]), direction(vectors[k]));
    if (stretches[b] - stretches[c]).abs() <= RIGID_TOLERANCE * stretches[b].max(1e-30) {
        return Some(format!(
            "scales by {}, {} across it",
            along(most),
            short(stretches[b])
        ));
    }
    Some(format!(
        "scales by {}, {}, {}",
        along(most),
        along(b),
        along(c)
    ))
}

/// A scale factor for a message: four significant digits, no exponent for usual sizes.
fn short(x: f64) -> String {
    if (1e-3..1e5).contains(&x.abs()) {
        let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
        let text = format!("{x:.digits$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    } else {
        format!("{x:.3e}")
    }
}

/// A model-space direction in words: an axis's name where it is within about 8° of one.
fn direction(v: DVec3) -> String {
    let v = v.normalize_or_zero();
    for (axis, name) in [(DVec3::X, "x"), (DVec3::Y, "y"), (DVec3::Z, "z")] {
        if v.dot(axis).abs() > 0.99 {
            return name.to_string();
        }
    }
    format!("({:.2}, {:.2}, {:.2})", v.x, v.y, v.z)
}

/// Eigenvalues and unit eigenvectors of a symmetric 3×3 (cyclic Jacobi rotations: a few
/// sweeps reach f64 precision at this size, and only refusal messages use it).
fn symmetric_eigen(m: DMat3) -> ([f64; 3], [DVec3; 3]) {
    let mut a = [[0.0f64; 3]; 3];
    for (c, col) in [m.x_axis, m.y_axis, m.z_axis].iter().enumerate() {
        a[0][c] = col.x;
        a[1][c] = col.y;
        a[2][c] = col.z;
    }
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0f64]];
    for _ in 0..32 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off <= 1e-15 * (a[0][0].abs() + a[1][1].abs() + a[2][2].abs()) {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            // The smaller root of t² + 2θt − 1 = 0 (the rotation by at most 45°).
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A ← Jᵀ A J: the columns p and q, then the rows.
            for row in &mut a {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (row_p, row_q) = (a[p], a[q]);
            for k in 0..3 {
                a[p][k] = c * row_p[k] - s * row_q[k];
                a[q][k] = s * row_p[k] + c * row_q[k];
            }
            for row in &mut v {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    let vector = |k: usize| DVec3::new(v[0][k], v[1][k], v[2][k]);
    (
        [a[0][0], a[1][1], a[2][2]],
        [vector(0), vector(1), vector(2)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rotation_is_rigid_and_a_mirror_is_not() {
        let r = DMat3::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
        assert_eq!(not_rigid(r, 1.0), None);
        assert_eq!(not_rigid(r * 100.0, 100.0), None);
        let mirrored = r * DMat3::from_diagonal(DVec3::new(1.0, -1.0, 1.0));
        assert!(not_rigid(mirrored, 1.0).unwrap().contains("mirrors"));
    }

    #[test]
    fn a_scale_along_one_axis_is_named_with_its_axis() {
        let r = DMat3::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
        let stretched = DMat3::from_diagonal(DVec3::new(1.0, 1.5, 1.0)) * r;
        let what = not_rigid(stretched, 1.0).unwrap();
        assert_eq!(what, "scales by 1.5 along y, 1 across it");
    }

    #[test]
    fn a_uniform_scale_is_named_as_one() {
        let what = not_rigid(DMat3::from_diagonal(DVec3::splat(2.0)), 100.0).unwrap();
        assert_eq!(
            what,
            "scales by 2 in every direction where the rig's other joints scale by 100"
        );
    }

    #[test]
    fn a_shear_is_named_by_its_stretch_directions() {
        let sheared = DMat3::from_cols(DVec3::X, DVec3::new(0.5, 1.0, 0.0), DVec3::Z);
        let what = not_rigid(sheared, 1.0).unwrap();
        assert!(what.contains("along ("), "{what}");
        assert!(what.contains("1 along z"), "{what}");
    }

    #[test]
    fn eigen_decomposition_reconstructs_its_matrix() {
        let a = DMat3::from_cols(
            DVec3::new(2.0, 0.3, -0.1),
            DVec3::new(0.5, 1.0, 0.2),
            DVec3::new(0.0, 0.4, 3.0),
        );
        let m = a * a.transpose();
        let (values, vectors) = symmetric_eigen(m);
        for k in 0..3 {
            let err = (m * vectors[k] - vectors[k] * values[k]).length();
            assert!(err < 1e-10, "{k}: {err}");
        }
    }
}
