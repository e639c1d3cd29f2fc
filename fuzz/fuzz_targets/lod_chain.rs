//! The LOD chain meshoptimizer builds, on meshes no exporter writes on purpose: zero-area
//! triangles, repeated and out-of-range indices, NaN, infinite or huge positions, a single
//! vertex, no triangles. The rig is built in code (two joints, one clip), so every input
//! reaches `prepare`, and where that accepts the mesh, the chain, each level's error over
//! the clip, the clip survey, its motion and a pose.
#![no_main]

#[path = "exercise.rs"]
mod exercise;

use arbitrary::Arbitrary;
use exercise::{Choice, exercise_rig};
use glam::{Mat4, Quat, Vec2, Vec3};
use skinbench::rig::{
    Clip, ImportReport, Interpolation, JointTracks, MAX_INFLUENCES, Mesh, NO_PARENT, Rig, Skeleton,
    Track, Transform,
};

#[derive(Debug, Arbitrary)]
struct Input {
    positions: Vec<Position>,
    indices: Vec<u16>,
    /// Per vertex: the weight on the second joint, in 256ths.
    weights: Vec<u8>,
    /// How many times the triangles are repeated (a dense mesh from a few inputs).
    repeat: u8,
    choice: Choice,
}

#[derive(Debug, Arbitrary)]
enum Position {
    Grid(u8, u8, u8),
    Any([f32; 3]),
    Huge(u8),
}

fn position(p: &Position) -> Vec3 {
    match *p {
        Position::Grid(x, y, z) => Vec3::new(f32::from(x), f32::from(y), f32::from(z)) * 0.01,
        Position::Any(v) => Vec3::from_array(v),
        Position::Huge(k) => Vec3::splat(1e30 * f32::from(k)),
    }
}

fn rig(input: &Input) -> Rig {
    let positions: Vec<Vec3> = input.positions.iter().take(4096).map(position).collect();
    let n = positions.len();
    let mut indices: Vec<u32> = Vec::new();
    for _ in 0..=input.repeat.min(16) {
        indices.extend(input.indices.iter().take(3 * 4096).map(|&i| u32::from(i)));
    }
    indices.truncate(indices.len() / 3 * 3);
    let mut joints = vec![[0u16; MAX_INFLUENCES]; n];
    let mut weights = vec![[0f32; MAX_INFLUENCES]; n];
    for v in 0..n {
        let second = f32::from(input.weights.get(v).copied().unwrap_or(0)) / 255.0;
        joints[v][1] = 1;
        weights[v][0] = 1.0 - second;
        weights[v][1] = second;
    }
    let turn = Track {
        interpolation: Interpolation::Linear,
        times_secs: vec![0.0, 0.5, 1.0],
        values: vec![Quat::IDENTITY, Quat::from_rotation_z(1.0), Quat::IDENTITY],
    };
    Rig {
        skeleton: Skeleton {
            names: vec!["root".into(), "arm".into()],
            parents: vec![NO_PARENT, 0],
            root_count: 1,
            model_from_root_parent: vec![Mat4::IDENTITY],
            rest_pose: vec![
                Transform::IDENTITY,
                Transform {
                    translation: Vec3::X * 0.5,
                    ..Transform::IDENTITY
                },
            ],
            palette_joints: vec![0, 1],
            joint_from_bind: vec![Mat4::IDENTITY, Mat4::from_translation(-Vec3::X * 0.5)],
        },
        mesh: Mesh {
            normals: vec![Vec3::Z; n],
            uvs: vec![Vec2::ZERO; n],
            positions,
            joints,
            weights,
            indices,
        },
        clips: vec![Clip {
            name: "turn".into(),
            duration_secs: 1.0,
            joint_tracks: vec![
                JointTracks::default(),
                JointTracks {
                    rotation: Some(turn),
                    ..JointTracks::default()
                },
            ],
        }],
        materials: Default::default(),
    }
}

libfuzzer_sys::fuzz_target!(|input: Input| {
    exercise_rig(
        rig(&input),
        &ImportReport::default(),
        "fuzz_mesh",
        input.choice,
    );
});
