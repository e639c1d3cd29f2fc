//! Shared test helpers: locating the public rigs and building small glTF files.
#![allow(dead_code)]

use std::f32::consts::FRAC_1_SQRT_2;
use std::path::PathBuf;

use base64::Engine as _;
use serde_json::{Value, json};

/// `../shared/rigs`, or `None` (with a message) when it is absent. Under `CI=true` the
/// rigs must be there, so absence fails the test instead of skipping it.
pub fn rigs_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/rigs");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{} is missing, and CI=true requires the public rigs",
            dir.display()
        );
    }
    eprintln!(
        "skipping: {} is absent (the public rigs are not checked out)",
        dir.display()
    );
    None
}

/// Every public rig file, relative to `rigs_dir()`.
pub const PUBLIC_RIGS: [&str; 7] = [
    "SimpleSkin/SimpleSkin.gltf",
    "RiggedSimple/RiggedSimple.gltf",
    "Fox/Fox.glb",
    "CesiumMan/CesiumMan.glb",
    "FoxVariants/Fox_cubicspline.glb",
    "FoxVariants/Fox_nonuniform.glb",
    "FoxVariants/Fox_8influences.glb",
];

/// A minimal skinned glTF: one triangle, two joints, one animation, built from plain
/// arrays so each test can break exactly one thing.
pub struct TinyGltf {
    pub positions: Vec<f32>,
    pub joints: Vec<u8>,
    pub weights: Vec<f32>,
    pub indices: Vec<u16>,
    pub times: Vec<f32>,
    pub rotations: Vec<f32>,
    pub json: Value,
}

impl TinyGltf {
    pub fn new() -> Self {
        let mut t = TinyGltf {
            positions: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            joints: vec![0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0],
            weights: vec![1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
            indices: vec![0, 1, 2],
            times: vec![0.0, 1.0],
            rotations: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2],
            json: Value::Null,
        };
        t.json = json!({
            "asset": { "version": "2.0" },
            "scene": 0,
            "scenes": [{ "nodes": [0, 2] }],
            "nodes": [
                { "name": "root", "children": [1] },
                { "name": "tip", "translation": [0.0, 1.0, 0.0] },
                { "name": "mesh", "mesh": 0, "skin": 0 }
            ],
            "skins": [{ "joints": [0, 1] }],
            "meshes": [{ "primitives": [{
                "attributes": { "POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2 },
                "indices": 3
            }]}],
            "animations": [{
                "name": "bend",
                "samplers": [{ "input": 4, "output": 5, "interpolation": "LINEAR" }],
                "channels": [{ "sampler": 0, "target": { "node": 1, "path": "rotation" } }]
            }]
        });
        t
    }

    /// The binary buffer and the accessors/views describing it.
    fn buffer(&self) -> (Vec<u8>, Value, Value) {
        let mut bin = Vec::new();
        let mut views = Vec::new();
        let mut push = |bytes: &[u8]| {
            while bin.len() % 4 != 0 {
                bin.push(0);
            }
            views.push(json!({ "buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len() }));
            bin.extend_from_slice(bytes);
        };
        let floats = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
        push(&floats(&self.positions));
        push(&self.joints);
        push(&floats(&self.weights));
        push(
            &self
                .indices
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect::<Vec<u8>>(),
        );
        push(&floats(&self.times));
        push(&floats(&self.rotations));
        let accessors = json!([
            { "bufferView": 0, "componentType": 5126, "count": self.positions.len() / 3, "type": "VEC3",
              "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0] },
            { "bufferView": 1, "componentType": 5121, "count": self.joints.len() / 4, "type": "VEC4" },
            { "bufferView": 2, "componentType": 5126, "count": self.weights.len() / 4, "type": "VEC4" },
            { "bufferView": 3, "componentType": 5123, "count": self.indices.len(), "type": "SCALAR" },
            { "bufferView": 4, "componentType": 5126, "count": self.times.len(), "type": "SCALAR",
              "min": [0.0], "max": [1.0] },
            { "bufferView": 5, "componentType": 5126, "count": self.rotations.len() / 4, "type": "VEC4" }
        ]);
        (bin, accessors, Value::Array(views))
    }

    /// The full document with the buffer as a data URI.
    pub fn document(&self) -> Value {
        let (bin, accessors, views) = self.buffer();
        let mut doc = self.json.clone();
        doc["accessors"] = accessors;
        doc["bufferViews"] = views;
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bin)
        );
        doc["buffers"] = json!([{ "byteLength": bin.len(), "uri": uri }]);
        doc
    }

    pub fn gltf_bytes(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(&self.document()).unwrap()
    }

    /// Same content as a .glb with a BIN chunk.
    pub fn glb_bytes(&self) -> Vec<u8> {
        let (bin, accessors, views) = self.buffer();
        let mut doc = self.json.clone();
        doc["accessors"] = accessors;
        doc["bufferViews"] = views;
        doc["buffers"] = json!([{ "byteLength": bin.len() }]);
        glb(&serde_json::to_vec(&doc).unwrap(), &bin)
    }
}

/// Packs JSON and BIN into a GLB container.
pub fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let mut json = json.to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

/// A fresh temporary directory under the target dir (no extra crate needed).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Largest quaternion component difference between the lane path and the per-track path
/// over the clip (and past its end, to cover looping).
pub fn lane_vs_per_track(clip: &skinbench::rig::Clip, rest: &[skinbench::anim::Qvs]) -> f32 {
    let lanes = skinbench::anim::sample::ClipRt::new(clip);
    let plain = skinbench::anim::sample::ClipRt::per_track(clip);
    let n = rest.len();
    let mut worst = 0.0f32;
    for step in 0..=300 {
        let t = clip.duration_secs * 1.5 * step as f32 / 300.0;
        let mut a = vec![skinbench::anim::Qvs::IDENTITY; n];
        let mut b = vec![skinbench::anim::Qvs::IDENTITY; n];
        skinbench::anim::sample::sample_clip(&lanes, rest, t, &mut a);
        skinbench::anim::sample::sample_clip(&plain, rest, t, &mut b);
        for (x, y) in a.iter().zip(&b) {
            worst = worst.max(
                (glam::Vec4::from(x.rotation) - glam::Vec4::from(y.rotation))
                    .abs()
                    .max_element(),
            );
            assert_eq!(x.translation, y.translation);
            assert_eq!(x.scale, y.scale);
        }
    }
    worst
}

/// A rig made for the eight-influence paths: the twist capsule with every vertex's
/// influences spread over eight entries (its two or three joints repeated, weights falling
/// 8 : 7 : … : 1), so a path that drops the fifth to eighth loses about a third of each
/// vertex's weight and draws a much smaller capsule (the public Fox_8influences moves by
/// 1.4 % of its size without them, a pixel or two in a test picture).
pub fn eight_influence_capsule() -> skinbench::rig::Rig {
    let mut rig = skinbench::rig::generate::BuiltInRig::Twist.generate();
    for (joints, weights) in rig.mesh.joints.iter_mut().zip(&mut rig.mesh.weights) {
        let n = weights.iter().filter(|&&w| w > 0.0).count().max(1);
        let (j, w) = (*joints, *weights);
        let total: f32 = (0..8).map(|i| w[i % n] * (8 - i) as f32).sum();
        for i in 0..8 {
            joints[i] = j[i % n];
            weights[i] = w[i % n] * (8 - i) as f32 / total;
        }
    }
    rig
}

/// Name of [`eight_influence_capsule`] among [`prepared_rigs`].
pub const CAPSULE8: &str = "capsule8";

/// The rig named `name` among [`prepared_rigs`], prepared again with at most
/// `max_influences` a vertex (`--max-influences`).
pub fn prepared_rig_cut(
    name: &str,
    max_influences: usize,
) -> std::sync::Arc<skinbench::prepare::PreparedRig> {
    use skinbench::prepare::PreparedRig;
    use skinbench::rig::generate::BuiltInRig;
    let rig = if name == CAPSULE8 {
        PreparedRig::with_max_influences(
            eight_influence_capsule(),
            &Default::default(),
            CAPSULE8,
            max_influences,
        )
    } else if let Some(built_in) = BuiltInRig::from_name(name) {
        PreparedRig::built_in_cut(built_in, max_influences)
    } else {
        let file = PUBLIC_RIGS
            .iter()
            .find(|f| public_rig_name(f) == name)
            .unwrap_or_else(|| panic!("no rig named {name}"));
        let dir = rigs_dir().expect("a public rig's folder");
        PreparedRig::load_cut(&dir.join(file), max_influences).unwrap()
    };
    std::sync::Arc::new(rig)
}

/// The short name of a public rig file (its stem, lower case).
fn public_rig_name(file: &str) -> String {
    std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default()
}

/// The built-in rigs, [`eight_influence_capsule`] and every public rig (when present),
/// prepared once per test process, with a short name for test case names.
pub fn prepared_rigs() -> &'static [(String, std::sync::Arc<skinbench::prepare::PreparedRig>)] {
    use std::sync::{Arc, OnceLock};
    static RIGS: OnceLock<Vec<(String, Arc<skinbench::prepare::PreparedRig>)>> = OnceLock::new();
    RIGS.get_or_init(|| {
        use skinbench::rig::generate::BuiltInRig;
        let mut rigs: Vec<(String, Arc<skinbench::prepare::PreparedRig>)> = BuiltInRig::ALL
            .iter()
            .map(|&r| {
                let rig = skinbench::prepare::PreparedRig::built_in(r);
                (r.name().to_string(), Arc::new(rig))
            })
            .collect();
        rigs.push((
            CAPSULE8.to_string(),
            prepared_rig_cut(CAPSULE8, skinbench::rig::MAX_INFLUENCES),
        ));
        if let Some(dir) = rigs_dir() {
            for f in PUBLIC_RIGS {
                let rig = skinbench::prepare::PreparedRig::load(&dir.join(f))
                    .unwrap_or_else(|e| panic!("{f}: {e}"));
                rigs.push((public_rig_name(f), Arc::new(rig)));
            }
        }
        rigs
    })
}

/// Worker thread counts the tests run: 1, and 2 where the machine has two cores.
pub fn thread_counts() -> Vec<usize> {
    let mut t = vec![1];
    if skinbench::crowd::pipeline::available_threads() >= 2 {
        t.push(2);
    }
    t
}

/// The panel's starting settings for `instances` characters of `rig`: its best variants on
/// one thread, the default upload, no vsync.
pub fn app_settings(
    rig: &skinbench::prepare::PreparedRig,
    instances: usize,
) -> skinbench::ui::Settings {
    skinbench::ui::Settings {
        pipeline: skinbench::crowd::PipelineConfig::best_for(rig, 1),
        simd_level: skinbench::simd::SimdLevel::native(),
        compute_shader: skinbench::gpu::skin::ComputeShader::DEFAULT,
        shadows: true,
        indirect_draws: true,
        upload: skinbench::gpu::UploadVariant::DEFAULT,
        lod: skinbench::crowd::lod::LodSettings::default(),
        instances,
        speed: 1.0,
        paused: false,
        vsync: false,
        show_panel: true,
    }
}

/// An offscreen GPU context on whatever adapter exists (lavapipe without a GPU), or `None`
/// with a message; under `CI=true` a missing adapter fails the test instead.
pub fn gpu_context() -> Option<skinbench::gpu::GpuContext> {
    match skinbench::gpu::GpuContext::offscreen() {
        Ok(c) => Some(c),
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("CI=true requires a GPU adapter (install mesa-vulkan-drivers): {e}")
        }
        Err(e) => {
            eprintln!("skipping the GPU test: {e}");
            None
        }
    }
}

/// The tiny rig with its two joints replaced by one chain of `depth` joints, the
/// animated one second in the chain.
pub fn chain_glb(depth: usize) -> Vec<u8> {
    let mut gltf = TinyGltf::new();
    // Node 0 is the root, node 1 the animated joint, node 2 the mesh; the chain goes on
    // from node 3.
    let mut nodes = vec![
        json!({ "name": "root", "children": [1] }),
        json!({ "name": "joint_1", "translation": [0.0, 1e-4, 0.0], "children": [3] }),
        json!({ "name": "mesh", "mesh": 0, "skin": 0 }),
    ];
    let mut joints = vec![0, 1];
    for i in 3..depth + 1 {
        let mut node = json!({ "translation": [0.0, 1e-4, 0.0] });
        if i < depth {
            node["children"] = json!([i + 1]);
        }
        nodes.push(node);
        joints.push(i);
    }
    gltf.json["nodes"] = json!(nodes);
    gltf.json["skins"] = json!([{ "joints": joints }]);
    gltf.glb_bytes()
}

/// Also writes `bytes` as `name` into the folder `$SKINBENCH_FUZZ_SEEDS` names, when set:
/// the files the tests build are the fuzz targets' starting corpus (see fuzz/README.md).
pub fn save_fuzz_seed(name: &str, bytes: &[u8]) {
    if let Some(dir) = std::env::var_os("SKINBENCH_FUZZ_SEEDS") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

/// The skinned vertices of a verified frame within the CPU variants' tolerances, or what
/// is off (the conformance tests' check, on the CPU and on the GPU).
pub fn skin_within_tolerance(d: &skinbench::crowd::verify::Deviation) -> Result<(), String> {
    if d.relative_position > skinbench::crowd::verify::POSITION_TOLERANCE {
        return Err(format!(
            "position error {:e} of the rig size: {d:?}",
            d.relative_position
        ));
    }
    if d.max_normal > d.normal_tolerance {
        return Err(format!("normal error {:e}: {d:?}", d.max_normal));
    }
    Ok(())
}
