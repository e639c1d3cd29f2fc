//! The `twist` rig: the test where linear blend skinning collapses and dual quaternions
//! keep the volume (Kavan et al. 2008, figure 1).
//!
//! How it works: a closed capsule (radius 0.15 m, 1.9 m tall, standing on the origin) is
//! skinned to a chain of four joints up its axis. Each vertex weighs the joints by a tent
//! over its height (width 1.5 joint spacings, normalised), so most of the surface blends
//! two or three joints. One looping clip, `twist`, turns the last joint about its own
//! axis up to 180° while bending it 90° sideways, and back: at the top of the clip the
//! vertices halfway between the last two joints blend a rotation with its half-turn twin,
//! which linear blending averages to a matrix that shrinks them onto the axis (the
//! "candy wrapper"), where a normalised dual quaternion turns them by 90° at full radius.
//! The curve's top lies between two keys (the clip is 123 keys of 1/30 s), so no sampled
//! pose is exactly the half turn, where the two rotations' hemispheres tie and the
//! blended direction of the twist is arbitrary.

use super::{
    Clip, Interpolation, JointTracks, MAX_INFLUENCES, Mesh, NO_PARENT, Rig, Skeleton, Track,
    Transform,
};
use glam::{Mat4, Quat, Vec2, Vec3};
use std::f32::consts::{PI, TAU};

/// Joint names, root first; each the child of the one before.
pub const TWIST_JOINTS: [&str; 4] = ["base", "lower", "upper", "end"];
/// The clip's name.
pub const TWIST_CLIP: &str = "twist";
/// Height of joint `i` is `i * SPACING`.
const SPACING: f32 = 0.5;
const RADIUS: f32 = 0.15;
/// The capsule's axis runs from `BOTTOM + RADIUS` to `TOP - RADIUS`.
const BOTTOM: f32 = 0.0;
const TOP: f32 = 1.9;
/// Vertices around each ring (plus a copy of the first, for the UV seam).
const AROUND: usize = 32;
/// Rings on each cap (poles excluded) and along the cylinder.
const CAP_RINGS: usize = 8;
const BODY_RINGS: usize = 64;
/// The clip's keys: `KEY_INTERVALS` intervals of 1/30 s (an odd count: see the module
/// docs).
const KEY_INTERVALS: usize = 123;
const KEYS_PER_SEC: f32 = 30.0;
/// The end joint's largest twist and bend.
const MAX_TWIST_DEG: f32 = 180.0;
const MAX_BEND_DEG: f32 = 90.0;

/// Builds the twist rig. Pure and deterministic.
pub fn twist_rig() -> Rig {
    let heights: Vec<f32> = (0..TWIST_JOINTS.len())
        .map(|i| i as f32 * SPACING)
        .collect();
    let skeleton = Skeleton {
        names: TWIST_JOINTS.iter().map(|n| n.to_string()).collect(),
        parents: (0..TWIST_JOINTS.len())
            .map(|i| if i == 0 { NO_PARENT } else { i as u16 - 1 })
            .collect(),
        root_count: 1,
        model_from_root_parent: vec![Mat4::IDENTITY],
        rest_pose: (0..TWIST_JOINTS.len())
            .map(|i| Transform {
                translation: Vec3::new(0.0, if i == 0 { 0.0 } else { SPACING }, 0.0),
                ..Transform::IDENTITY
            })
            .collect(),
        palette_joints: Skeleton::palette_per_joint(TWIST_JOINTS.len()),
        joint_from_bind: heights
            .iter()
            .map(|&h| Mat4::from_translation(Vec3::new(0.0, -h, 0.0)))
            .collect(),
    };
    Rig {
        skeleton,
        mesh: capsule(&heights),
        clips: vec![twist_clip()],
        materials: Default::default(),
    }
}

/// The capsule's surface: rings from the bottom pole to the top pole, each ring
/// `AROUND + 1` vertices (u around, v up), with exact normals.
fn capsule(heights: &[f32]) -> Mesh {
    // (height of the ring's centre, ring radius, normal's vertical part) per ring.
    let mut rings = Vec::new();
    for i in 1..=CAP_RINGS {
        let a = -PI / 2.0 + PI / 2.0 * i as f32 / (CAP_RINGS + 1) as f32;
        rings.push((BOTTOM + RADIUS + RADIUS * a.sin(), RADIUS * a.cos(), a));
    }
    for i in 0..=BODY_RINGS {
        let y = BOTTOM + RADIUS + (TOP - BOTTOM - 2.0 * RADIUS) * i as f32 / BODY_RINGS as f32;
        rings.push((y, RADIUS, 0.0));
    }
    for i in 1..=CAP_RINGS {
        let a = PI / 2.0 * i as f32 / (CAP_RINGS + 1) as f32;
        rings.push((TOP - RADIUS + RADIUS * a.sin(), RADIUS * a.cos(), a));
    }
    let mut mesh = Mesh {
        positions: Vec::new(),
        normals: Vec::new(),
        uvs: Vec::new(),
        joints: Vec::new(),
        weights: Vec::new(),
        indices: Vec::new(),
    };
    let push = |mesh: &mut Mesh, position: Vec3, normal: Vec3, uv: Vec2| {
        let (joints, weights) = tent_weights(heights, position.y);
        mesh.positions.push(position);
        mesh.normals.push(normal);
        mesh.uvs.push(uv);
        mesh.joints.push(joints);
        mesh.weights.push(weights);
        mesh.positions.len() as u32 - 1
    };
    let v_of = |y: f32| (y - BOTTOM) / (TOP - BOTTOM);
    let bottom = push(
        &mut mesh,
        Vec3::new(0.0, BOTTOM, 0.0),
        Vec3::NEG_Y,
        Vec2::new(0.5, 0.0),
    );
    let mut ring_starts = Vec::new();
    for &(y, r, a) in &rings {
        ring_starts.push(mesh.positions.len() as u32);
        for k in 0..=AROUND {
            let theta = TAU * (k % AROUND) as f32 / AROUND as f32;
            let (s, c) = theta.sin_cos();
            let normal = Vec3::new(c * a.cos(), a.sin(), s * a.cos());
            push(
                &mut mesh,
                Vec3::new(c * r, y, s * r),
                normal,
                Vec2::new(k as f32 / AROUND as f32, v_of(y)),
            );
        }
    }
    let top = push(
        &mut mesh,
        Vec3::new(0.0, TOP, 0.0),
        Vec3::Y,
        Vec2::new(0.5, 1.0),
    );
    // Counter-clockwise seen from outside: around goes from +x towards +z, which seen
    // from outside (looking at the surface) runs right to left, so up then around.
    let first = ring_starts[0];
    for k in 0..AROUND as u32 {
        mesh.indices.extend([bottom, first + k, first + k + 1]);
    }
    for pair in ring_starts.windows(2) {
        let (lo, hi) = (pair[0], pair[1]);
        for k in 0..AROUND as u32 {
            mesh.indices
                .extend([lo + k, hi + k, hi + k + 1, lo + k, hi + k + 1, lo + k + 1]);
        }
    }
    let last = *ring_starts.last().expect("the capsule has rings");
    for k in 0..AROUND as u32 {
        mesh.indices.extend([last + k, top, last + k + 1]);
    }
    mesh
}

/// A vertex at height `y`: each joint weighs `1 − |y − h| / (1.5 SPACING)` where that is
/// positive, heaviest first, cut to four and normalised.
fn tent_weights(heights: &[f32], y: f32) -> ([u16; MAX_INFLUENCES], [f32; MAX_INFLUENCES]) {
    let y = y.clamp(heights[0], heights[heights.len() - 1]);
    let mut pairs: Vec<(u16, f32)> = heights
        .iter()
        .enumerate()
        .map(|(j, &h)| (j as u16, 1.0 - (y - h).abs() / (1.5 * SPACING)))
        .filter(|&(_, w)| w > 1e-3)
        .collect();
    pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    pairs.truncate(4);
    let total: f32 = pairs.iter().map(|p| p.1).sum();
    let mut joints = [0u16; MAX_INFLUENCES];
    let mut weights = [0.0f32; MAX_INFLUENCES];
    for (i, (j, w)) in pairs.into_iter().enumerate() {
        joints[i] = j;
        weights[i] = w / total;
    }
    (joints, weights)
}

/// The end joint's rotation at clip phase `phase` (0..1): bent about z by up to 90°,
/// after twisting about its own axis (y) by up to 180°, both along `(1 − cos 2π phase) / 2`.
pub fn end_rotation(phase: f32) -> Quat {
    let amount = (1.0 - (TAU * phase).cos()) / 2.0;
    Quat::from_rotation_z(-(MAX_BEND_DEG * amount).to_radians())
        * Quat::from_rotation_y((MAX_TWIST_DEG * amount).to_radians())
}

fn twist_clip() -> Clip {
    let times_secs: Vec<f32> = (0..=KEY_INTERVALS)
        .map(|k| k as f32 / KEYS_PER_SEC)
        .collect();
    let mut values: Vec<Quat> = (0..=KEY_INTERVALS)
        .map(|k| end_rotation((k % KEY_INTERVALS) as f32 / KEY_INTERVALS as f32))
        .collect();
    // Consecutive keys in the same hemisphere, so interpolation takes the short way.
    for k in 1..values.len() {
        if values[k].dot(values[k - 1]) < 0.0 {
            values[k] = -values[k];
        }
    }
    let mut joint_tracks = vec![JointTracks::default(); TWIST_JOINTS.len()];
    joint_tracks[TWIST_JOINTS.len() - 1].rotation = Some(Track {
        interpolation: Interpolation::Linear,
        times_secs,
        values,
    });
    Clip {
        name: TWIST_CLIP.to_string(),
        duration_secs: KEY_INTERVALS as f32 / KEYS_PER_SEC,
        joint_tracks,
    }
}
