//! Skinned positions against a pose computed straight from the glTF file, without any of
//! the project's import, prepare or animation code: the nodes' transforms multiplied out
//! as glTF 2.0 §3.5.3 says (a node's global transform is its parent's times its local TRS
//! or matrix), animation channels applied by §3.11 (STEP, LINEAR with slerp for rotations,
//! CUBICSPLINE's Hermite form), joint matrices as §3.7.3 defines them (global transform of
//! the joint times its inverse bind matrix; the skinned mesh node's own transform ignored),
//! and vertices blended by their weights. Normals are blended the same way through each
//! joint's normal matrix: the inverse transpose of the joint matrix's 3×3 (computed here by
//! inversion, not by the kernels' cofactors), the map that keeps a normal perpendicular to
//! the transformed surface. Only the glTF crate's document model and accessor readers are
//! shared with import.
//!
//! The deliberate differences from the spec are two of the project's documented
//! conventions, applied here the same way: the influence reduction (more than four
//! influences: the four heaviest, renormalized) until eight influences are supported, and
//! normal matrices scaled to a rotation's Frobenius norm √3, so that joints of different
//! scale blend their normals as rotations (the spec states no rule for skinned normals).
//! Normals are compared as directions, where the file has them (import computes smooth
//! normals for a primitive without).

mod common;

use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use glam::{DMat3, DMat4, DQuat, DVec3, DVec4};
use skinbench::crowd::PipelineConfig;
use skinbench::pose::pose;
use skinbench::prepare::PreparedRig;
use skinbench::skin::OutputFormat;

/// The file's buffers: the GLB blob, `data:` URIs, or files beside the document.
fn buffers(gltf: &gltf::Gltf, dir: &Path) -> Vec<Vec<u8>> {
    gltf.buffers()
        .map(|b| match b.source() {
            gltf::buffer::Source::Bin => gltf.blob.clone().expect("GLB blob"),
            gltf::buffer::Source::Uri(uri) => match uri.strip_prefix("data:") {
                Some(rest) => {
                    let (_, data) = rest.split_once(";base64,").expect("base64 data URI");
                    base64::engine::general_purpose::STANDARD
                        .decode(data)
                        .unwrap()
                }
                None => std::fs::read(dir.join(uri)).unwrap(),
            },
        })
        .collect()
}

/// One JOINTS_n / WEIGHTS_n pair of a primitive.
type InfluenceSet = (Vec<[u16; 4]>, Vec<[f32; 4]>);

/// One node's local transform: TRS (each replaceable by an animation channel) or matrix.
#[derive(Clone, Copy)]
struct Local {
    translation: DVec3,
    rotation: DQuat,
    scale: DVec3,
    matrix: Option<DMat4>,
}

impl Local {
    fn matrix(&self) -> DMat4 {
        self.matrix.unwrap_or_else(|| {
            DMat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
        })
    }
}

fn d3(v: [f32; 3]) -> DVec3 {
    DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64)
}

fn dq(q: [f32; 4]) -> DQuat {
    DQuat::from_xyzw(q[0] as f64, q[1] as f64, q[2] as f64, q[3] as f64)
}

/// glTF §3.11: the value of a sampler at `t` (components per element: 3 or 4).
fn sample(
    times: &[f32],
    values: &[Vec<f64>],
    interpolation: gltf::animation::Interpolation,
    t: f64,
    rotation: bool,
) -> Vec<f64> {
    use gltf::animation::Interpolation::*;
    let cubic = interpolation == CubicSpline;
    let value = |k: usize| -> Vec<f64> {
        if cubic {
            values[3 * k + 1].clone()
        } else {
            values[k].clone()
        }
    };
    let last = times.len() - 1;
    if t <= times[0] as f64 {
        return value(0);
    }
    if t >= times[last] as f64 {
        return value(last);
    }
    let k = times.iter().rposition(|&x| x as f64 <= t).unwrap();
    let (t0, t1) = (times[k] as f64, times[k + 1] as f64);
    let dt = t1 - t0;
    let s = (t - t0) / dt;
    let mix = |a: &[f64], b: &[f64], wa: f64, wb: f64| -> Vec<f64> {
        a.iter().zip(b).map(|(x, y)| x * wa + y * wb).collect()
    };
    match interpolation {
        Step => value(k),
        Linear if rotation => {
            let (a, b) = (value(k), value(k + 1));
            let qa = DQuat::from_xyzw(a[0], a[1], a[2], a[3]);
            let qb = DQuat::from_xyzw(b[0], b[1], b[2], b[3]);
            qa.slerp(qb, s).to_array().to_vec()
        }
        Linear => mix(&value(k), &value(k + 1), 1.0 - s, s),
        CubicSpline => {
            let (s2, s3) = (s * s, s * s * s);
            let p0 = &values[3 * k + 1];
            let m0: Vec<f64> = values[3 * k + 2].iter().map(|x| x * dt).collect();
            let p1 = &values[3 * (k + 1) + 1];
            let m1: Vec<f64> = values[3 * (k + 1)].iter().map(|x| x * dt).collect();
            let v: Vec<f64> = (0..p0.len())
                .map(|i| {
                    (2.0 * s3 - 3.0 * s2 + 1.0) * p0[i]
                        + (s3 - 2.0 * s2 + s) * m0[i]
                        + (-2.0 * s3 + 3.0 * s2) * p1[i]
                        + (s3 - s2) * m1[i]
                })
                .collect();
            if rotation {
                let q = DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize();
                q.to_array().to_vec()
            } else {
                v
            }
        }
    }
}

/// The file's character posed on its own, in the file's vertex order.
struct Skinned {
    positions: Vec<DVec3>,
    /// `None` where the bind normal is zero (nothing to compare).
    normals: Vec<Option<DVec3>>,
}

/// A joint matrix's normal matrix: its 3×3's inverse transpose, scaled to norm √3.
fn normal_matrix(joint_matrix: &DMat4) -> DMat3 {
    let inverse_transpose = DMat3::from_mat4(*joint_matrix).inverse().transpose();
    let norm = inverse_transpose
        .to_cols_array()
        .iter()
        .map(|x| x * x)
        .sum::<f64>()
        .sqrt();
    inverse_transpose * (3f64.sqrt() / norm)
}

/// The file's character at `time_secs` of the given animations, in the file's vertex
/// order (its mesh nodes in index order, each node's primitives one after another). A primitive without NORMAL
/// takes its bind normals from `imported_normals` (the smooth normals import computed, in
/// the same order): what is tested here is how normals are skinned.
fn skin_from_file(
    path: &Path,
    animations: &[usize],
    time_secs: f64,
    imported_normals: &[glam::Vec3],
) -> Skinned {
    let bytes = std::fs::read(path).unwrap();
    let gltf = gltf::Gltf::from_slice(&bytes).unwrap();
    let data = buffers(&gltf, path.parent().unwrap());
    let get = |b: gltf::Buffer| Some(&data[b.index()][..]);

    let mut locals: Vec<Local> = gltf
        .nodes()
        .map(|n| match n.transform() {
            gltf::scene::Transform::Matrix { matrix } => Local {
                translation: DVec3::ZERO,
                rotation: DQuat::IDENTITY,
                scale: DVec3::ONE,
                matrix: Some(DMat4::from_cols_array_2d(
                    &matrix.map(|c| c.map(|x| x as f64)),
                )),
            },
            gltf::scene::Transform::Decomposed {
                translation,
                rotation,
                scale,
            } => Local {
                translation: d3(translation),
                rotation: dq(rotation),
                scale: d3(scale),
                matrix: None,
            },
        })
        .collect();
    for &ai in animations {
        let animation = gltf.animations().nth(ai).unwrap();
        for channel in animation.channels() {
            let reader = channel.reader(get);
            let times: Vec<f32> = reader.read_inputs().unwrap().collect();
            use gltf::animation::util::ReadOutputs;
            let (values, rotation): (Vec<Vec<f64>>, bool) = match reader.read_outputs().unwrap() {
                ReadOutputs::Translations(v) | ReadOutputs::Scales(v) => (
                    v.map(|x| x.iter().map(|&c| c as f64).collect()).collect(),
                    false,
                ),
                ReadOutputs::Rotations(r) => (
                    r.into_f32()
                        .map(|x| x.iter().map(|&c| c as f64).collect())
                        .collect(),
                    true,
                ),
                ReadOutputs::MorphTargetWeights(_) => continue,
            };
            let v = sample(
                &times,
                &values,
                channel.sampler().interpolation(),
                time_secs,
                rotation,
            );
            let local = &mut locals[channel.target().node().index()];
            match channel.target().property() {
                gltf::animation::Property::Translation => {
                    local.translation = DVec3::new(v[0], v[1], v[2])
                }
                gltf::animation::Property::Rotation => {
                    local.rotation = DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize()
                }
                gltf::animation::Property::Scale => local.scale = DVec3::new(v[0], v[1], v[2]),
                gltf::animation::Property::MorphTargetWeights => {}
            }
        }
    }
    // Global transforms: parents first, from every root of the node graph.
    let mut global = vec![DMat4::IDENTITY; locals.len()];
    let mut parent = vec![None; locals.len()];
    for n in gltf.nodes() {
        for c in n.children() {
            parent[c.index()] = Some(n.index());
        }
    }
    fn resolve(
        i: usize,
        parent: &[Option<usize>],
        locals: &[Local],
        global: &mut [DMat4],
        done: &mut [bool],
    ) -> DMat4 {
        if !done[i] {
            let above = match parent[i] {
                Some(p) => resolve(p, parent, locals, global, done),
                None => DMat4::IDENTITY,
            };
            global[i] = above * locals[i].matrix();
            done[i] = true;
        }
        global[i]
    }
    let mut done = vec![false; locals.len()];
    for i in 0..locals.len() {
        resolve(i, &parent, &locals, &mut global, &mut done);
    }

    // The character (glTF has no such word; this is the rule `inspect` documents): the
    // default scene's mesh nodes that have a skin, and those without one that are a joint
    // of those skins or hang below one, in node-index order. A skinned node's own transform
    // is ignored (§3.7.3); a rigid node moves with its global transform.
    let scene = gltf.default_scene().or_else(|| gltf.scenes().next());
    let mut in_scene = vec![scene.is_none(); locals.len()];
    if let Some(scene) = scene {
        let mut stack: Vec<gltf::Node> = scene.nodes().collect();
        while let Some(n) = stack.pop() {
            in_scene[n.index()] = true;
            stack.extend(n.children());
        }
    }
    let mut is_joint = vec![false; locals.len()];
    for node in gltf.nodes().filter(|n| in_scene[n.index()]) {
        if let (Some(skin), Some(_)) = (node.skin(), node.mesh()) {
            for j in skin.joints() {
                is_joint[j.index()] = true;
            }
        }
    }
    let hangs_under_a_joint = |mut n: usize| loop {
        if is_joint[n] {
            return true;
        }
        match parent[n] {
            Some(p) => n = p,
            None => return false,
        }
    };
    let mut out = Skinned {
        positions: Vec::new(),
        normals: Vec::new(),
    };
    for node in gltf.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        if !in_scene[node.index()] {
            continue;
        }
        // Each skin joint's matrix, or the rigid node's global transform as its one joint.
        let joint_matrices: Vec<DMat4> = match node.skin() {
            Some(skin) => {
                let inverse_binds: Vec<DMat4> = match skin.reader(get).read_inverse_bind_matrices()
                {
                    Some(m) => m
                        .map(|m| DMat4::from_cols_array_2d(&m.map(|c| c.map(|x| x as f64))))
                        .collect(),
                    None => vec![DMat4::IDENTITY; skin.joints().count()],
                };
                skin.joints()
                    .zip(&inverse_binds)
                    .map(|(j, ib)| global[j.index()] * *ib)
                    .collect()
            }
            None if hangs_under_a_joint(node.index()) => vec![global[node.index()]],
            None => continue,
        };
        let rigid = node.skin().is_none();
        let normal_matrices: Vec<DMat3> = joint_matrices.iter().map(normal_matrix).collect();
        for primitive in mesh.primitives() {
            let reader = primitive.reader(get);
            let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
            let normals: Option<Vec<[f32; 3]>> = reader.read_normals().map(|n| n.collect());
            let mut sets: Vec<InfluenceSet> = Vec::new();
            for set in 0.. {
                match (reader.read_joints(set), reader.read_weights(set)) {
                    (Some(j), Some(w)) => {
                        sets.push((j.into_u16().collect(), w.into_f32().collect()))
                    }
                    _ => break,
                }
            }
            let first = out.positions.len();
            for (v, p) in positions.iter().enumerate() {
                let mut influences: Vec<(usize, f64)> = Vec::new();
                if rigid {
                    influences.push((0, 1.0));
                } else {
                    for (joints, weights) in &sets {
                        for k in 0..4 {
                            if weights[v][k] > 0.0 {
                                influences.push((joints[v][k] as usize, weights[v][k] as f64));
                            }
                        }
                    }
                }
                // The project's documented reduction: the eight heaviest, renormalized.
                influences.sort_by(|a, b| b.1.total_cmp(&a.1));
                influences.truncate(8);
                let total: f64 = influences.iter().map(|x| x.1).sum();
                let mut m = DMat4::ZERO;
                let mut n = DMat3::ZERO;
                for (j, w) in influences {
                    m += joint_matrices[j] * (w / total);
                    n += normal_matrices[j] * (w / total);
                }
                out.positions
                    .push((m * DVec4::from((d3(*p), 1.0))).truncate());
                let bind_normal = match &normals {
                    Some(normals) => d3(normals[v]),
                    None => imported_normals[first + v].as_dvec3(),
                };
                out.normals
                    .push((bind_normal != DVec3::ZERO).then(|| n * bind_normal));
            }
        }
    }
    out
}

/// The baseline and the best variants pose `clip` at `time_secs` within 1e-4 of the rig's
/// size of `expected` (the file evaluated on its own), vertex by vertex, and their normals
/// within the output format's precision in direction.
fn assert_poses_match(
    rig: &Arc<PreparedRig>,
    clip: &str,
    time_secs: f64,
    expected: &Skinned,
    name: &str,
) {
    for config in [
        PipelineConfig::baseline_for(rig, 1),
        PipelineConfig::best_for(rig, 1),
    ] {
        let posed = pose(rig.clone(), Some(clip), time_secs as f32, config).unwrap();
        assert_eq!(posed.positions.len(), expected.positions.len(), "{name}");
        let size = rig.model_size as f64;
        let worst = posed
            .positions
            .iter()
            .zip(&expected.positions)
            .map(|(p, e)| (p.as_dvec3() - *e).abs().max_element() / size)
            .fold(0.0, f64::max);
        assert!(
            worst <= 1e-4,
            "{name} clip {clip} with {} {}: {worst:e} of the rig size from the file",
            config.hierarchy.spec().name,
            config.skin.spec().name
        );
        // Float formats carry f32 rounding; the packed one unorm 10:10:10:2 steps.
        let tolerance_deg = match config.skin.output_format() {
            OutputFormat::Packed => 0.5,
            OutputFormat::Interleaved | OutputFormat::Float3 | OutputFormat::Float4 => 0.02,
            OutputFormat::Palette3x4 | OutputFormat::PaletteDualQuat => {
                panic!("a variant declares the vertices it skins")
            }
        };
        let (worst_deg, vertex) = posed
            .normals
            .iter()
            .zip(&expected.normals)
            .enumerate()
            .filter_map(|(v, (n, e))| Some((v, n.as_dvec3(), (*e)?)))
            .map(|(v, n, e)| {
                let (n, e) = (n.normalize(), e.normalize());
                // NaN (a zero normal) counts as the worst.
                let angle = n.cross(e).length().atan2(n.dot(e)).to_degrees();
                (if angle.is_nan() { f64::INFINITY } else { angle }, v)
            })
            .fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
        assert!(
            worst_deg <= tolerance_deg,
            "{name} clip {clip} with {} {}: vertex {vertex}'s normal is {worst_deg:.3}° from the \
             file's (tolerance {tolerance_deg}°)",
            config.hierarchy.spec().name,
            config.skin.spec().name
        );
    }
}

fn skinned_positions_match_the_file_evaluated_on_its_own() {
    let mut files =
        vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/reference.glb")];
    if let Some(dir) = common::rigs_dir() {
        files.extend(common::PUBLIC_RIGS.iter().map(|f| dir.join(f)));
    }
    // The characters built from Fox: split over skins (one binding its joints otherwise,
    // one listing them in another order) with a mesh hung on the head.
    let built = common::temp_dir("independent-built");
    for second in [
        common::SecondSkin::OtherBinds,
        common::SecondSkin::Reordered,
    ] {
        files.extend(common::fox_split(&built, second, true));
    }
    // Any other characters to check the same way, e.g. ones downloaded by hand:
    // SKINBENCH_EXTRA_RIGS=a.glb:b.gltf.
    if let Some(extra) = std::env::var_os("SKINBENCH_EXTRA_RIGS") {
        files.extend(std::env::split_paths(&extra));
    }
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let rig = Arc::new(PreparedRig::load(&file).unwrap());
        let bytes = std::fs::read(&file).unwrap();
        let gltf = gltf::Gltf::from_slice(&bytes).unwrap();
        let all_unnamed = gltf
            .animations()
            .all(|a| a.name().is_none_or(str::is_empty));
        for clip in &rig.clips {
            // Which of the file's animations make up the clip: the one of its name, or all
            // of them where import merged unnamed ones.
            let animations: Vec<usize> = gltf
                .animations()
                .filter(|a| {
                    let own = a
                        .name()
                        .filter(|n| !n.is_empty())
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("animation_{}", a.index()));
                    own == clip.name || (all_unnamed && clip.name == "animation")
                })
                .map(|a| a.index())
                .collect();
            assert!(
                !animations.is_empty(),
                "{name}: no animation for clip {}",
                clip.name
            );
            let time = clip.duration_secs as f64 * 0.37;
            let expected = skin_from_file(&file, &animations, time, &rig.source_mesh.normals);
            assert_poses_match(&rig, &clip.name, time, &expected, &name);
        }
    }
}

/// Fox with its non-joint root node (the parent of the first joint) animated in every clip:
/// a quarter turn about Y and a translation of about half the fox's size.
fn fox_with_animated_root(dir: &Path) -> Option<std::path::PathBuf> {
    let source = common::rigs_dir()?.join("Fox/Fox.glb");
    let bytes = std::fs::read(source).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut doc: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_start = 20 + json_len + 8;
    let mut bin = bytes[bin_start..].to_vec();
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let mut add = |doc: &mut serde_json::Value,
                   floats: &[f32],
                   kind: &str,
                   bounds: bool|
     -> usize {
        let offset = bin.len();
        for f in floats {
            bin.extend_from_slice(&f.to_le_bytes());
        }
        let views = doc["bufferViews"].as_array_mut().unwrap();
        views.push(serde_json::json!({ "buffer": 0, "byteOffset": offset, "byteLength": floats.len() * 4 }));
        let view = views.len() - 1;
        let n = match kind {
            "SCALAR" => 1,
            "VEC3" => 3,
            _ => 4,
        };
        let mut accessor = serde_json::json!({ "bufferView": view, "componentType": 5126, "count": floats.len() / n, "type": kind });
        if bounds {
            accessor["min"] = serde_json::json!([floats[0]]);
            accessor["max"] = serde_json::json!([floats[floats.len() - 1]]);
        }
        let accessors = doc["accessors"].as_array_mut().unwrap();
        accessors.push(accessor);
        accessors.len() - 1
    };
    let root = 0;
    assert_eq!(doc["nodes"][root]["name"], "root");
    let (s, c) = std::f32::consts::FRAC_PI_4.sin_cos();
    for a in 0..doc["animations"].as_array().unwrap().len() {
        let times = add(&mut doc, &[0.0, 0.5, 1.0], "SCALAR", true);
        let rotations = add(
            &mut doc,
            &[0.0, 0.0, 0.0, 1.0, 0.0, s, 0.0, c, 0.0, 1.0, 0.0, 0.0],
            "VEC4",
            false,
        );
        let translations = add(
            &mut doc,
            &[0.0, 0.0, 0.0, 40.0, 10.0, -30.0, 80.0, 0.0, 20.0],
            "VEC3",
            false,
        );
        let animation = &mut doc["animations"][a];
        for (output, path) in [(rotations, "rotation"), (translations, "translation")] {
            let samplers = animation["samplers"].as_array_mut().unwrap();
            samplers.push(
                serde_json::json!({ "input": times, "output": output, "interpolation": "LINEAR" }),
            );
            let sampler = samplers.len() - 1;
            animation["channels"].as_array_mut().unwrap().push(
                serde_json::json!({ "sampler": sampler, "target": { "node": root, "path": path } }),
            );
        }
    }
    doc["buffers"][0]["byteLength"] = serde_json::json!(bin.len());
    let path = dir.join("Fox_animated_root.glb");
    std::fs::write(&path, common::glb(&serde_json::to_vec(&doc).unwrap(), &bin)).unwrap();
    Some(path)
}

fn an_animated_ancestor_of_the_skeleton_moves_it() {
    let dir = common::temp_dir("animated-root");
    let Some(file) = fox_with_animated_root(&dir) else {
        common::cannot_run_here()
    };
    let (_, report) = skinbench::rig::import_path(&file).unwrap();
    assert_eq!(report.animated_ancestors, vec!["root".to_string()]);
    assert_eq!(
        report.ignored_node_channels, 0,
        "the root's channels are used"
    );
    let rig = Arc::new(PreparedRig::load(&file).unwrap());
    let text = rig.summary.to_text();
    assert!(
        text.contains("animated ancestors:  root (became joints)"),
        "{text}"
    );
    let gltf_bytes = std::fs::read(&file).unwrap();
    let gltf = gltf::Gltf::from_slice(&gltf_bytes).unwrap();
    for (a, clip) in rig.clips.iter().enumerate() {
        assert_eq!(
            gltf.animations().nth(a).unwrap().name(),
            Some(clip.name.as_str())
        );
        // Mid-way through the root's motion (its keys end at 1 s).
        let time = 0.7;
        let expected = skin_from_file(&file, &[a], time, &rig.source_mesh.normals);
        assert_poses_match(&rig, &clip.name, time, &expected, "Fox_animated_root");
    }
}

fn inspect_names_the_joints_with_non_uniform_scale() {
    assert!(
        PreparedRig::reference()
            .summary
            .nonuniform_scale_joints
            .is_empty()
    );
    let Some(dir) = common::rigs_dir() else {
        common::cannot_run_here()
    };
    let fox = PreparedRig::load(&dir.join("Fox/Fox.glb")).unwrap();
    assert!(fox.summary.nonuniform_scale_joints.is_empty());
    assert!(fox.summary.to_text().contains("non-uniform scale:   none"));
    let scaled = PreparedRig::load(&dir.join("FoxVariants/Fox_nonuniform.glb")).unwrap();
    let joints = &scaled.summary.nonuniform_scale_joints;
    assert!(!joints.is_empty());
    let text = scaled.summary.to_text();
    assert!(
        text.contains(&format!("non-uniform scale:   {} joints", joints.len())),
        "{text}"
    );
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "skinned_positions_match_the_file_evaluated_on_its_own",
            skinned_positions_match_the_file_evaluated_on_its_own,
        ),
        (
            "an_animated_ancestor_of_the_skeleton_moves_it",
            an_animated_ancestor_of_the_skeleton_moves_it,
        ),
        (
            "inspect_names_the_joints_with_non_uniform_scale",
            inspect_names_the_joints_with_non_uniform_scale,
        ),
    ];
    common::run_tests(tests);
}
