//! The lane dual-quaternion conversions at every SIMD level the CPU has: a rigid matrix
//! → unit dual quaternion (Shepperd's method, branch-free) → matrix again gives the
//! matrix back, and the rotation is glam's up to sign. The rotations include half turns
//! about axes off the coordinate axes, where a conversion that only uses the trace loses
//! the axis's signs (the conformance rigs reach such poses rarely). The skin kernels'
//! direct transform by a blended (not unit) dual quaternion moves a point and a direction
//! as the matrix does.

use glam::{Mat3, Mat4, Quat, Vec3};
use skinbench::simd::{
    F32x8, LANES, Portable, Simd, dual_quat_from_3x4, matrix_from_dual_quat, transform_by_dual_quat,
};

/// Rigid transforms, eight per group (one per lane).
fn transforms() -> Vec<Mat4> {
    let mut axes = [
        Vec3::X,
        Vec3::Y,
        Vec3::Z,
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(0.0, 1.0, 1.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(1.0, -1.0, 0.5),
        Vec3::new(-0.3, 0.2, 0.9),
    ];
    axes.iter_mut().for_each(|a| *a = a.normalize());
    let angles = [
        0.0f32,
        0.3,
        1.5,
        3.0,
        3.1,
        std::f32::consts::PI - 1e-4,
        std::f32::consts::PI,
        -2.9,
    ];
    let mut out = Vec::new();
    for (i, axis) in axes.iter().enumerate() {
        for (k, &angle) in angles.iter().enumerate() {
            let t = Vec3::new(i as f32 - 3.0, 0.5 * k as f32, 2.0 - k as f32 * 0.25);
            out.push(Mat4::from_rotation_translation(
                Quat::from_axis_angle(*axis, angle),
                t,
            ));
        }
    }
    out
}

fn check<S: Simd>(s: S, level: &str) {
    for group in transforms().chunks(LANES) {
        let mut lanes = [F32x8::ZERO; 12];
        for (k, m) in group.iter().enumerate() {
            for r in 0..3 {
                let row = m.row(r);
                for c in 0..4 {
                    lanes[r * 4 + c].0[k] = row[c];
                }
            }
        }
        let mut v = [s.splat(0.0); 12];
        for e in 0..12 {
            v[e] = s.load(&lanes[e]);
        }
        let dq = dual_quat_from_3x4(s, &v);
        let back = matrix_from_dual_quat(s, &dq);
        // A blend of unit dual quaternions is shorter than one: the transform normalises.
        let blended = dq.map(|x| s.mul(x, s.splat(0.6)));
        let (point, direction) = (Vec3::new(0.3, -1.2, 2.0), Vec3::new(0.5, 0.5, -0.7));
        let (moved, turned) = transform_by_dual_quat(
            s,
            &blended,
            point.to_array().map(|x| s.splat(x)),
            direction.to_array().map(|x| s.splat(x)),
        );
        let mut moved_lanes = [F32x8::ZERO; 6];
        for c in 0..3 {
            s.store(&mut moved_lanes[c], moved[c]);
            s.store(&mut moved_lanes[3 + c], turned[c]);
        }
        let mut dq_lanes = [F32x8::ZERO; 8];
        let mut back_lanes = [F32x8::ZERO; 12];
        for e in 0..8 {
            s.store(&mut dq_lanes[e], dq[e]);
        }
        for e in 0..12 {
            s.store(&mut back_lanes[e], back[e]);
        }
        for (k, m) in group.iter().enumerate() {
            for (e, lane) in back_lanes.iter().enumerate() {
                let want = m.row(e / 4)[e % 4];
                let got = lane.0[k];
                assert!(
                    (want - got).abs() < 2e-5,
                    "{level}: lane {k} entry {e}: {got} instead of {want} for {m:?}"
                );
            }
            let want_point = m.transform_point3(point);
            let want_direction = m.transform_vector3(direction);
            for c in 0..3 {
                let (got_point, got_direction) = (moved_lanes[c].0[k], moved_lanes[3 + c].0[k]);
                assert!(
                    (got_point - want_point[c]).abs() < 2e-5
                        && (got_direction - want_direction[c]).abs() < 2e-5,
                    "{level}: lane {k}: the direct transform moved the point to {got_point} \
                     (want {}) and the direction to {got_direction} (want {}) in axis {c}",
                    want_point[c],
                    want_direction[c]
                );
            }
            let q = Quat::from_xyzw(
                dq_lanes[0].0[k],
                dq_lanes[1].0[k],
                dq_lanes[2].0[k],
                dq_lanes[3].0[k],
            );
            let want = Quat::from_mat3(&Mat3::from_mat4(*m));
            assert!(
                (q.length() - 1.0).abs() < 1e-5 && q.dot(want).abs() > 1.0 - 1e-5,
                "{level}: lane {k}: rotation {q:?} instead of ±{want:?}"
            );
        }
    }
}

fn dual_quat_round_trip_portable() {
    check(Portable, "portable");
}

#[cfg(target_arch = "x86_64")]
fn dual_quat_round_trip_avx2() {
    match skinbench::simd::Avx2::detect() {
        Some(token) => check(token, "avx2"),
        None => eprintln!("this CPU has no AVX2+FMA: the portable case covers the math"),
    }
}

#[cfg(target_arch = "x86_64")]
fn dual_quat_round_trip_avx512() {
    match skinbench::simd::Avx512::detect() {
        Some(token) => check(token, "avx512"),
        None => eprintln!("this CPU has no AVX-512: the other cases cover the math"),
    }
}

mod common;

/// A unit conversion on the armature (every skinning matrix 100× or 0.01× a rigid one) is
/// accepted, with that scale factored out.
fn a_uniform_unit_conversion_is_factored_out() {
    let Some(_) = common::rigs_dir() else {
        common::cannot_run_here()
    };
    let dir = common::temp_dir("dual-quat-uniform");
    for scale in [100.0f32, 0.01] {
        let path = common::fox_skin_scaled(&dir, Vec3::splat(scale)).unwrap();
        let rig = skinbench::prepare::PreparedRig::load(&path).unwrap();
        let method = skinbench::skin::SkinMethod::DualQuat;
        assert_eq!(method.rig_refusal(&rig), None, "×{scale}");
        let factored = skinbench::skin::method::dual_quat_scale(&rig);
        assert!(
            (factored / scale - 1.0).abs() < 1e-5,
            "×{scale}: {factored}"
        );
    }
}

/// A rig that scales along one axis is refused, saying so in words and what would help.
fn a_scale_along_one_axis_is_refused_in_plain_words() {
    let Some(_) = common::rigs_dir() else {
        common::cannot_run_here()
    };
    let dir = common::temp_dir("dual-quat-stretched");
    let path = common::fox_skin_scaled(&dir, Vec3::new(1.0, 1.5, 1.0)).unwrap();
    let rig = skinbench::prepare::PreparedRig::load(&path).unwrap();
    let reason = skinbench::skin::SkinMethod::DualQuat
        .rig_refusal(&rig)
        .expect("refused")
        .to_string();
    assert!(reason.contains("scales by 1.5 along y"), "{reason}");
    assert!(reason.contains("in the rest pose"), "{reason}");
    assert!(reason.contains("--method linear"), "{reason}");
}

/// One joint that scales by itself (no joint below it) is named, with its scale.
fn one_joint_that_scales_alone_is_named() {
    let Some(dir) = common::rigs_dir() else {
        common::cannot_run_here()
    };
    let mut edit = common::GlbEdit::open(&dir.join("Fox/Fox.glb"));
    let joints = edit.skin_joints(0);
    let leaf = *joints
        .iter()
        .rev()
        .find(|&&j| edit.doc["nodes"][j]["children"].is_null())
        .expect("a joint without children");
    let name = edit.doc["nodes"][leaf]["name"]
        .as_str()
        .unwrap()
        .to_string();
    edit.doc["nodes"][leaf]["scale"] = serde_json::json!([2.0, 2.0, 2.0]);
    let path = edit.write(
        &common::temp_dir("dual-quat-one-joint"),
        "Fox_one_joint_x2.glb",
    );
    let rig = skinbench::prepare::PreparedRig::load(&path).unwrap();
    let reason = skinbench::skin::SkinMethod::DualQuat
        .rig_refusal(&rig)
        .expect("refused")
        .to_string();
    assert!(
        reason.starts_with(&format!(
            "joint {name}'s skinning matrix scales by 2 in every direction where the rig's \
             other joints scale by 1 in the rest pose"
        )),
        "{reason}"
    );
}

fn main() {
    let mut tests: Vec<(&'static str, fn())> = vec![
        (
            "dual_quat_round_trip_portable",
            dual_quat_round_trip_portable,
        ),
        (
            "a_uniform_unit_conversion_is_factored_out",
            a_uniform_unit_conversion_is_factored_out,
        ),
        (
            "a_scale_along_one_axis_is_refused_in_plain_words",
            a_scale_along_one_axis_is_refused_in_plain_words,
        ),
        (
            "one_joint_that_scales_alone_is_named",
            one_joint_that_scales_alone_is_named,
        ),
    ];
    tests.extend(x86_tests());
    common::run_tests(tests);
}

/// The cases for the x86 SIMD levels (none elsewhere).
#[cfg(target_arch = "x86_64")]
fn x86_tests() -> Vec<(&'static str, fn())> {
    vec![
        ("dual_quat_round_trip_avx2", dual_quat_round_trip_avx2),
        ("dual_quat_round_trip_avx512", dual_quat_round_trip_avx512),
    ]
}

#[cfg(not(target_arch = "x86_64"))]
fn x86_tests() -> Vec<(&'static str, fn())> {
    Vec::new()
}
