//! The built-in `twist` rig: reproducible, closed, and the test it exists for: linear
//! blending loses a large part of the capsule's volume where its end twists, dual
//! quaternions keep it.

use skinbench::prepare::PreparedRig;
use skinbench::rig::generate::{BuiltInRig, GENERATOR};
use skinbench::rig::glb::write_glb;
use skinbench::rig::import_slice;
use skinbench::skin::SkinMethod;
use skinbench::skin::volume::{enclosed_volume, is_closed, worst_volume};

#[test]
fn committed_twist_file_equals_a_fresh_generation() {
    let fresh = write_glb(&BuiltInRig::Twist.generate(), GENERATOR);
    assert!(
        fresh == BuiltInRig::Twist.glb(),
        "assets/twist.glb is stale: run `cargo run --release -- gen-rig --kind twist`"
    );
}

#[test]
fn twist_is_a_closed_outward_capsule() {
    let (rig, _) = import_slice(BuiltInRig::Twist.glb(), "twist.glb", None).unwrap();
    assert!(
        is_closed(&rig.mesh),
        "the capsule has a hole or a flipped triangle"
    );
    let positions: Vec<glam::DVec3> = rig.mesh.positions.iter().map(|p| p.as_dvec3()).collect();
    let volume = enclosed_volume(&positions, &rig.mesh.indices);
    // A cylinder of radius 0.15 m and 1.6 m with two half-spheres: 0.1272 m³.
    let exact = std::f64::consts::PI * 0.15f64.powi(2) * (1.6 + 4.0 / 3.0 * 0.15);
    assert!(
        (volume / exact - 1.0).abs() < 0.02,
        "volume {volume} m³, a capsule of this size holds {exact}"
    );
}

/// The clip's keys straddle the half turn: at exactly 180° the end's rotation and its
/// neighbour's are orthogonal quaternions, the antipodality test has no answer, and f32
/// and f64 may flip differently. No key comes closer than 0.01° (|w| ≥ 1e-4), and the
/// twist still reaches past 179.9°.
#[test]
fn twist_keys_straddle_the_half_turn() {
    let rig = BuiltInRig::Twist.generate();
    let track = rig.clips[0].joint_tracks[3]
        .rotation
        .as_ref()
        .expect("the end joint is animated");
    let closest = track
        .values
        .iter()
        .map(|q| q.w.abs())
        .fold(f32::INFINITY, f32::min);
    assert!(closest >= 1e-4, "a key is {closest} from a half turn");
    let largest_twist_deg = 2.0 * closest.acos().to_degrees();
    assert!(
        largest_twist_deg > 179.9,
        "the twist peaks at {largest_twist_deg}°"
    );
}

#[test]
fn linear_blending_loses_volume_and_dual_quaternions_keep_it() {
    let rig = PreparedRig::built_in(BuiltInRig::Twist);
    let linear = worst_volume(&rig, SkinMethod::Linear).expect("closed, with a clip");
    let dual_quat = worst_volume(&rig, SkinMethod::DualQuat).expect("rigid, closed");
    assert!(
        linear.ratio < 0.8,
        "linear blending keeps {:.3} of the volume at worst: no candy wrapper",
        linear.ratio
    );
    assert!(
        (dual_quat.ratio - 1.0).abs() < 0.01,
        "dual quaternions keep {:.3} of the volume at worst",
        dual_quat.ratio
    );
}

#[test]
fn open_meshes_have_no_volume() {
    let mut rig = BuiltInRig::Twist.generate();
    rig.mesh.indices.truncate(rig.mesh.indices.len() - 3);
    assert!(!is_closed(&rig.mesh));
    let mut flipped = BuiltInRig::Twist.generate();
    flipped.mesh.indices.swap(0, 1);
    assert!(
        !is_closed(&flipped.mesh),
        "a flipped triangle went unnoticed"
    );
}
