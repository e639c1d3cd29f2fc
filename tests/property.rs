//! Random skeletons, poses and weights: every variant still matches the reference.

use std::sync::Arc;

use glam::{Mat4, Quat, Vec2, Vec3};
use proptest::prelude::*;
use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::crowd::verify::{
    POSE_TOLERANCE, POSITION_TOLERANCE, verify_blend, verify_frame, verify_hierarchy,
};
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig, Schedule};
use skinbench::prepare::PreparedRig;
use skinbench::rig::{
    Clip, ImportReport, Interpolation, JointTracks, Mesh, NO_PARENT, Rig, Skeleton, Track,
    Transform,
};
use skinbench::skin::OutputBuffer;
use skinbench::skin::SkinVariant;
use skinbench::variant::Variant;

#[derive(Debug, Clone)]
struct RandomRig {
    parents: Vec<Option<usize>>,
    rests: Vec<(Vec3, Quat, f32)>,
    keys: Vec<(Quat, Quat)>,
    vertices: Vec<(Vec3, Vec3, [u16; 4], [f32; 4])>,
    non_uniform_leaf: bool,
}

fn unit_quat() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_filter("non-zero", |(x, y, z, w)| {
            x * x + y * y + z * z + w * w > 0.01
        })
        .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
}

fn random_rig() -> impl Strategy<Value = RandomRig> {
    (2usize..24).prop_flat_map(|joints| {
        let parents = (0..joints)
            .map(|j| {
                if j == 0 {
                    Just(None).boxed()
                } else {
                    prop_oneof![1 => Just(None), 8 => (0..j).prop_map(Some)].boxed()
                }
            })
            .collect::<Vec<_>>();
        let rests = proptest::collection::vec(
            (
                (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(x, y, z)| Vec3::new(x, y, z)),
                unit_quat(),
                0.85f32..1.15,
            ),
            joints,
        );
        let keys = proptest::collection::vec((unit_quat(), unit_quat()), joints);
        let vertex = (
            (-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0).prop_map(|(x, y, z)| Vec3::new(x, y, z)),
            unit_quat().prop_map(|q| q * Vec3::Y),
            proptest::array::uniform4(0..joints as u16),
            proptest::array::uniform4(0.0f32..1.0),
            1usize..=4,
        )
            .prop_map(|(p, n, j, w, k)| {
                let mut w = w;
                for x in w.iter_mut().skip(k) {
                    *x = 0.0;
                }
                if w.iter().sum::<f32>() <= 0.0 {
                    w[0] = 1.0;
                }
                (p, n, j, w)
            });
        let vertices = proptest::collection::vec(vertex, 3..60);
        (parents, rests, keys, vertices, any::<bool>()).prop_map(
            |(parents, rests, keys, vertices, non_uniform_leaf)| RandomRig {
                parents,
                rests,
                keys,
                vertices,
                non_uniform_leaf,
            },
        )
    })
}

/// Builds a valid `Rig` in the form the importer produces: joints roots first, then
/// depth-first; weights merged, sorted heaviest first and normalized.
fn build(r: &RandomRig) -> Rig {
    let n = r.parents.len();
    // Reorder: roots first, then depth-first, as the importer guarantees.
    let mut children = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (j, p) in r.parents.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(j),
            None => roots.push(j),
        }
    }
    let mut order = roots.clone();
    for &root in &roots {
        let mut stack: Vec<usize> = children[root].iter().rev().copied().collect();
        while let Some(j) = stack.pop() {
            order.push(j);
            stack.extend(children[j].iter().rev());
        }
    }
    let mut new_of = vec![0usize; n];
    for (new, &old) in order.iter().enumerate() {
        new_of[old] = new;
    }
    let leaf = |j: usize| children[j].is_empty();
    let rest_pose: Vec<Transform> = order
        .iter()
        .map(|&old| {
            let (t, q, s) = r.rests[old];
            let scale = if r.non_uniform_leaf && leaf(old) {
                Vec3::new(s, 1.0, 1.0 / s)
            } else {
                Vec3::splat(s)
            };
            Transform {
                translation: t,
                rotation: q,
                scale,
            }
        })
        .collect();
    let parents = order
        .iter()
        .map(|&old| r.parents[old].map_or(NO_PARENT, |p| new_of[p] as u16))
        .collect();
    let skeleton = Skeleton {
        names: (0..n).map(|j| format!("j{j}")).collect(),
        parents,
        root_count: roots.len(),
        model_from_root_parent: vec![Mat4::from_translation(Vec3::new(0.0, 0.5, 0.0)); roots.len()],
        rest_pose,
        palette_joints: Skeleton::palette_per_joint(n),
        joint_from_bind: (0..n)
            .map(|j| Mat4::from_translation(Vec3::new(0.0, -(j as f32) * 0.1, 0.0)))
            .collect(),
    };
    let mut joint_tracks = vec![JointTracks::default(); n];
    for (new, &old) in order.iter().enumerate() {
        let (a, b) = r.keys[old];
        joint_tracks[new].rotation = Some(Track {
            interpolation: Interpolation::Linear,
            times_secs: vec![0.0, 1.0],
            values: vec![a, b],
        });
    }
    // A second clip, the blend target: the rotations played backwards, and every joint
    // moved away from its rest position, so blending changes rotations and translations.
    let mut second = joint_tracks.clone();
    for (tracks, rest) in second.iter_mut().zip(&skeleton.rest_pose) {
        if let Some(rotation) = &mut tracks.rotation {
            rotation.values.reverse();
        }
        tracks.translation = Some(Track {
            interpolation: Interpolation::Linear,
            times_secs: vec![0.0, 1.0],
            values: vec![
                rest.translation * 1.3,
                rest.translation + Vec3::new(0.05, -0.02, 0.04),
            ],
        });
    }
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    for (_, _, j, w) in &r.vertices {
        // Sort heaviest first, merge duplicates, renormalize: what the importer produces.
        let mut inf: Vec<(u16, f32)> = Vec::new();
        for k in 0..4 {
            if w[k] > 0.0 {
                let joint = new_of[j[k] as usize] as u16;
                match inf.iter_mut().find(|x| x.0 == joint) {
                    Some(x) => x.1 += w[k],
                    None => inf.push((joint, w[k])),
                }
            }
        }
        inf.sort_by(|a, b| b.1.total_cmp(&a.1));
        let total: f32 = inf.iter().map(|x| x.1).sum();
        let mut jj = [0u16; skinbench::rig::MAX_INFLUENCES];
        let mut ww = [0f32; skinbench::rig::MAX_INFLUENCES];
        for (k, (joint, weight)) in inf.iter().enumerate() {
            jj[k] = *joint;
            ww[k] = weight / total;
        }
        joints.push(jj);
        weights.push(ww);
    }
    let count = r.vertices.len() / 3 * 3;
    Rig {
        skeleton,
        mesh: Mesh {
            positions: r.vertices.iter().map(|v| v.0).collect(),
            normals: r.vertices.iter().map(|v| v.1).collect(),
            uvs: vec![Vec2::ZERO; r.vertices.len()],
            joints,
            weights,
            indices: (0..count as u32).collect(),
        },
        materials: Default::default(),
        clips: vec![
            Clip {
                name: "random".into(),
                duration_secs: 1.0,
                joint_tracks,
            },
            Clip {
                name: "random_second".into(),
                duration_secs: 1.0,
                joint_tracks: second,
            },
        ],
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_rigs_match_the_reference(r in random_rig(), instances in 1usize..20, time in 0.0f32..3.0) {
        let rig = Arc::new(PreparedRig::new(build(&r), &ImportReport::default(), "random").unwrap());
        let mut crowd = InstanceStore::new();
        crowd.resize(instances, &rig, 2.0);
        crowd.advance(time);
        for &hierarchy in HierarchyVariant::ALL {
            // GPU variants skin what the CPU variants' palettes are: tests/gpu_conformance.rs.
            for &skin in SkinVariant::ALL.iter().filter(|s| s.skins_on_cpu()) {
                for &schedule in Schedule::ALL {
                    let config = PipelineConfig { hierarchy, skin, schedule, threads: 1, blend_weight: 0.25, method: skinbench::skin::SkinMethod::Linear };
                    // The generator puts non-uniform scale on leaves only, which QVS
                    // composes exactly: no variant may refuse these rigs.
                    let mut pipeline = match Pipeline::new(rig.clone(), config) {
                        Ok(p) => p,
                        Err(e) => {
                            prop_assert!(false, "{} {}: refused a rig it can pose: {e}", hierarchy.name(), skin.name());
                            unreachable!()
                        }
                    };
                    let mut out = OutputBuffer::for_instances(pipeline.output_layout(), crowd.len());
                    pipeline.run_frame(crowd.as_slice(), &mut out).unwrap();
                    let d = verify_frame(&pipeline, crowd.as_slice(), out.as_bytes(), usize::MAX).unwrap();
                    prop_assert!(d.relative_position <= POSITION_TOLERANCE, "{} {}: {:?}", hierarchy.name(), skin.name(), d);
                    prop_assert!(d.normal_excess <= 1.0, "{} {}: {:?}", hierarchy.name(), skin.name(), d);
                    let h = verify_hierarchy(&mut pipeline, crowd.as_slice()).unwrap();
                    prop_assert!(h <= POSE_TOLERANCE, "{} hierarchy error {h}", hierarchy.name());
                    let b = verify_blend(&pipeline, crowd.as_slice());
                    prop_assert!(b <= POSE_TOLERANCE, "{} blend error {b}", hierarchy.name());
                }
            }
        }
    }
}
