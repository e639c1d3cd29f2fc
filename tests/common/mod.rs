//! Shared test helpers: locating the public rigs and building small glTF files.
#![allow(dead_code)]

use std::f32::consts::FRAC_1_SQRT_2;
use std::path::PathBuf;

use base64::Engine as _;
use serde_json::{Value, json};
use skinbench::gpu::scene::Frame;

/// Where the public rigs are: `../shared/rigs` beside the checkout.
fn shared_rigs_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/rigs")
}

/// `../shared/rigs`, or `None` (with a message) when it is absent. Under `CI=true` the
/// rigs must be there, so absence fails the test instead of skipping it.
pub fn rigs_dir() -> Option<PathBuf> {
    let dir = shared_rigs_path();
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{} is missing, and CI=true requires the public rigs",
            dir.display()
        );
    }
    missing(&format!(
        "{} is absent (the public rigs are not checked out)",
        dir.display()
    ));
    None
}

thread_local! {
    /// What the running test last found missing here ([`missing`]).
    static MISSING: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Says what this machine lacks for the running test (the public rigs, a GPU adapter,
/// `xvfb-run`), and keeps it as the reason [`cannot_run_here`] gives.
pub fn missing(what: &str) {
    eprintln!("skipping: {what}");
    MISSING.with(|m| *m.borrow_mut() = Some(what.to_string()));
}

/// Why a test could not run here: the panic payload [`trial`] turns into *ignored*, with
/// the reason.
pub struct CannotRun(pub String);

/// Stops the running test as *ignored* by [`trial`], with what [`missing`] last said as
/// the reason. (Under `CI=true` nothing reaches here: a missing requirement fails where it
/// is found.)
pub fn cannot_run_here() -> ! {
    let reason = MISSING
        .with(|m| m.borrow_mut().take())
        .unwrap_or_else(|| "something it needs is missing here (see its output)".into());
    std::panic::panic_any(CannotRun(reason))
}

/// `rigs_dir()`, or the running [`trial`] stops as *ignored* with the reason.
pub fn rigs_or_skip() -> PathBuf {
    rigs_dir().unwrap_or_else(|| cannot_run_here())
}

/// `gpu_context()`, or the running [`trial`] stops as *ignored* with the reason.
pub fn gpu_or_skip() -> skinbench::gpu::GpuContext {
    gpu_context().unwrap_or_else(|| cannot_run_here())
}

/// A libtest-mimic trial that reports *ignored*, with the reason, where `run` stopped at
/// [`cannot_run_here`] (the public rigs, an adapter or `xvfb-run` missing; under `CI=true`
/// those fail the test instead of reaching it).
pub fn trial(
    name: impl Into<String>,
    run: impl FnOnce() -> Result<(), libtest_mimic::Failed> + Send + 'static,
) -> libtest_mimic::Trial {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let default_hook = std::panic::take_hook();
        // A test stopped for what the machine lacks is not a failure: no panic message.
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<CannotRun>() {
                default_hook(info);
            }
        }));
    });
    libtest_mimic::Trial::ignorable_test(name, move || {
        MISSING.with(|m| *m.borrow_mut() = None);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
            Ok(result) => result.map(|()| libtest_mimic::Completion::Completed),
            Err(payload) => match payload.downcast::<CannotRun>() {
                Ok(cannot) => Ok(libtest_mimic::Completion::ignored_with(cannot.0)),
                Err(payload) => std::panic::resume_unwind(payload),
            },
        }
    })
}

/// The harness of the test files whose tests need what a machine may lack: each test runs
/// as a [`trial`].
pub fn run_tests(tests: Vec<(&'static str, fn())>) -> ! {
    let args = libtest_mimic::Arguments::from_args();
    let trials = tests
        .into_iter()
        .map(|(name, test)| {
            trial(name, move || {
                test();
                Ok(())
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit()
}

/// A trial standing for cases that could not even be listed here (they are made from the
/// public rigs): reported *ignored* with the reason; under `CI=true` it fails.
pub fn unlisted_cases(name: &str) -> libtest_mimic::Trial {
    trial(format!("{name} (cases from the public rigs)"), || {
        rigs_or_skip();
        Ok(())
    })
}

/// Runs `trials`, with one more standing for the cases the public rigs would have added
/// where they are absent (reported *ignored*, with the reason). Without a filter and
/// without `SKINBENCH_FULL_MATRIX=1`, only the cases [`covering`] picks run: every rig and
/// every variant of each test, not every combination of them.
pub fn run_trials(args: &libtest_mimic::Arguments, mut trials: Vec<libtest_mimic::Trial>) -> ! {
    let full = std::env::var("SKINBENCH_FULL_MATRIX").is_ok_and(|v| v == "1");
    if !full && args.filter.is_none() && args.skip.is_empty() {
        let all = trials.len();
        trials = covering(trials);
        if trials.len() < all && !args.list {
            eprintln!(
                "{} of {all} cases: each test meets every rig and every variant, not every \
                 combination (SKINBENCH_FULL_MATRIX=1 runs all; a filter runs what it names)",
                trials.len()
            );
        }
    }
    if !shared_rigs_path().is_dir() {
        trials.push(unlisted_cases("public rigs"));
    }
    libtest_mimic::run(args, trials).exit()
}

/// Of cases named `test/a/b/…`, the ones that give each test every value of each of its
/// name's parts at least once (every rig, every variant): a case is kept where it brings a
/// value its test has not met yet, first those that bring a new value in every part (so
/// a rig × variant grid becomes about its diagonal, not one rig's row and then a case per
/// rig), then those that bring any. Cases whose test has one part (`test/rig`) are all
/// kept.
pub fn covering(trials: Vec<libtest_mimic::Trial>) -> Vec<libtest_mimic::Trial> {
    use std::collections::{HashMap, HashSet};
    let parts: Vec<Vec<String>> = trials
        .iter()
        .map(|t| t.name().split('/').map(str::to_string).collect())
        .collect();
    let mut met: HashMap<(String, usize), HashSet<String>> = HashMap::new();
    let mut keep = vec![false; trials.len()];
    for every_part in [true, false] {
        for (i, name) in parts.iter().enumerate() {
            if keep[i] {
                continue;
            }
            let test = &name[0];
            let new: Vec<bool> = name[1..]
                .iter()
                .enumerate()
                .map(|(k, value)| {
                    !met.get(&(test.clone(), k))
                        .is_some_and(|values| values.contains(value))
                })
                .collect();
            let take = if name.len() <= 2 {
                true
            } else if every_part {
                new.iter().all(|&n| n)
            } else {
                new.iter().any(|&n| n)
            };
            if take {
                keep[i] = true;
                for (k, value) in name[1..].iter().enumerate() {
                    met.entry((test.clone(), k))
                        .or_default()
                        .insert(value.clone());
                }
            }
        }
    }
    trials
        .into_iter()
        .zip(keep)
        .filter_map(|(t, k)| k.then_some(t))
        .collect()
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
            while !bin.len().is_multiple_of(4) {
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
        .unwrap()
    } else if let Some(built_in) = BuiltInRig::from_name(name) {
        PreparedRig::built_in_cut(built_in, max_influences)
    } else if name == FOX_PARTS {
        let dir = temp_dir(&format!("built-rig-cut-{max_influences}"));
        let path = fox_split(&dir, SecondSkin::OtherBinds, true).expect("the public rigs");
        PreparedRig::load_cut(&path, max_influences).unwrap()
    } else if let Some(&(_, scale)) = FOX_SKIN_SCALED.iter().find(|(n, _)| *n == name) {
        let dir = temp_dir(&format!("built-rig-cut-{max_influences}"));
        let path = fox_skin_scaled(&dir, glam::Vec3::splat(scale)).expect("the public rigs");
        PreparedRig::load_cut(&path, max_influences).unwrap()
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

/// The built-in rigs, [`eight_influence_capsule`], every public rig (when present) and the
/// test rigs built from them ([`FOX_PARTS`]), prepared once per test process, with a short
/// name for test case names.
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
        rigs.extend(built_test_rigs());
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

/// How [`render_picture`] draws: the pipeline, the upload variant and shadows on or off.
#[derive(Clone, Copy, Debug)]
pub struct Drawn {
    pub config: skinbench::crowd::PipelineConfig,
    pub upload: skinbench::gpu::UploadVariant,
    pub shadows: bool,
}

/// The app's scene drawing off screen into an RGBA8 picture of `size`: how every test
/// that draws makes its scene.
pub fn offscreen_scene(
    gpu: &skinbench::gpu::GpuContext,
    rig: &std::sync::Arc<skinbench::prepare::PreparedRig>,
    settings: skinbench::gpu::scene::Settings,
    size: (u32, u32),
) -> Result<skinbench::gpu::scene::Scene, skinbench::gpu::scene::SceneError> {
    skinbench::gpu::scene::Scene::new(
        gpu.clone(),
        rig.clone(),
        settings,
        wgpu::TextureFormat::Rgba8Unorm,
        size,
    )
}

/// `crowd` as it stands, seen by `camera`, drawn by the app's own scene into a `size`
/// picture: one frame that advances no clip.
pub fn render_picture(
    gpu: &skinbench::gpu::GpuContext,
    rig: std::sync::Arc<skinbench::prepare::PreparedRig>,
    crowd: &skinbench::crowd::InstanceStore,
    drawn: Drawn,
    camera: &skinbench::gpu::OrbitCamera,
    size: (u32, u32),
) -> Result<image::RgbaImage, skinbench::gpu::scene::SceneError> {
    let Drawn {
        config,
        upload,
        shadows,
    } = drawn;
    let mut settings = app_settings(&rig, crowd.len());
    settings.pipeline = config;
    settings.upload = upload;
    settings.shadows = shadows;
    let mut scene = offscreen_scene(gpu, &rig, settings, size)?;
    scene.set_crowd(crowd.clone());
    *scene.camera_mut() = *camera;
    scene.frame(Frame::headless(0.0))?;
    scene.read_image()
}

/// The panel's starting settings for `instances` characters of `rig`: its best variants on
/// one thread, the default upload, no vsync.
pub fn app_settings(
    rig: &skinbench::prepare::PreparedRig,
    instances: usize,
) -> skinbench::gpu::scene::Settings {
    skinbench::gpu::scene::Settings {
        show_panel: true,
        ..skinbench::gpu::scene::Settings::headless(
            skinbench::crowd::PipelineConfig::best_for(rig, 1),
            instances,
        )
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
            missing(&format!("no GPU adapter: {e}"));
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
    if d.normal_excess > 1.0 {
        return Err(format!(
            "normal error {:e}, {:.2} of its vertex's tolerance: {d:?}",
            d.max_normal, d.normal_excess
        ));
    }
    Ok(())
}

/// A GLB file opened for editing: its JSON document and binary chunk. New data is
/// appended to the binary chunk as buffer views and accessors; [`GlbEdit::bytes`] packs the
/// result. The test rigs built from the public ones (a character split over several skins,
/// a mesh hung on a joint) are made with it.
pub struct GlbEdit {
    pub doc: Value,
    pub bin: Vec<u8>,
    /// The file as opened, for reading its accessors.
    source: Vec<u8>,
}

impl GlbEdit {
    pub fn open(path: &std::path::Path) -> Self {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let doc: Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
        let bin_start = 20 + json_len + 8;
        let mut bin = bytes[bin_start..].to_vec();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        GlbEdit {
            doc,
            bin,
            source: bytes,
        }
    }

    /// The elements of the opened file's accessor `index`, each as f32 components (integer
    /// joints as their values).
    pub fn read(&self, index: usize) -> Vec<Vec<f32>> {
        let gltf = gltf::Gltf::from_slice(&self.source).unwrap();
        let blob = gltf.blob.clone().unwrap();
        let accessor = gltf.accessors().nth(index).unwrap();
        let view = accessor.view().unwrap();
        let components = accessor.dimensions().multiplicity();
        let size = accessor.data_type().size();
        let stride = view.stride().unwrap_or(components * size);
        (0..accessor.count())
            .map(|i| {
                let at = view.offset() + accessor.offset() + i * stride;
                (0..components)
                    .map(|c| {
                        let b = &blob[at + c * size..];
                        match accessor.data_type() {
                            gltf::accessor::DataType::F32 => {
                                f32::from_le_bytes(b[..4].try_into().unwrap())
                            }
                            gltf::accessor::DataType::U16 => {
                                u16::from_le_bytes(b[..2].try_into().unwrap()) as f32
                            }
                            gltf::accessor::DataType::U8 => b[0] as f32,
                            other => panic!("accessor {index}: {other:?} not read here"),
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn push_view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let views = self.doc["bufferViews"].as_array_mut().unwrap();
        views.push(json!({ "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len() }));
        self.bin.extend_from_slice(bytes);
        views.len() - 1
    }

    fn push_accessor(&mut self, accessor: Value) -> usize {
        let accessors = self.doc["accessors"].as_array_mut().unwrap();
        accessors.push(accessor);
        accessors.len() - 1
    }

    /// Appends float elements of `kind` (SCALAR, VEC2, VEC3, VEC4, MAT4); VEC3 gets the
    /// min and max POSITION needs.
    pub fn add_floats(&mut self, elements: &[Vec<f32>], kind: &str) -> usize {
        let bytes: Vec<u8> = elements
            .iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let view = self.push_view(&bytes);
        let mut accessor = json!({ "bufferView": view, "componentType": 5126, "count": elements.len(), "type": kind });
        if kind == "VEC3" && !elements.is_empty() {
            let fold = |f: fn(f32, f32) -> f32| {
                (0..3)
                    .map(|c| elements.iter().map(|e| e[c]).reduce(f).unwrap())
                    .collect::<Vec<f32>>()
            };
            accessor["min"] = json!(fold(f32::min));
            accessor["max"] = json!(fold(f32::max));
        }
        self.push_accessor(accessor)
    }

    /// Appends VEC4 joint indices as UNSIGNED_SHORT.
    pub fn add_joints(&mut self, elements: &[Vec<f32>]) -> usize {
        let bytes: Vec<u8> = elements
            .iter()
            .flatten()
            .flat_map(|&j| (j as u16).to_le_bytes())
            .collect();
        let view = self.push_view(&bytes);
        self.push_accessor(
            json!({ "bufferView": view, "componentType": 5123, "count": elements.len(), "type": "VEC4" }),
        )
    }

    /// Appends triangle indices as UNSIGNED_INT.
    pub fn add_indices(&mut self, indices: &[u32]) -> usize {
        let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let view = self.push_view(&bytes);
        self.push_accessor(
            json!({ "bufferView": view, "componentType": 5125, "count": indices.len(), "type": "SCALAR" }),
        )
    }

    /// Appends a node (as a child of `parent`, or a root of scene 0) and returns its index.
    pub fn add_node(&mut self, node: Value, parent: Option<usize>) -> usize {
        let nodes = self.doc["nodes"].as_array_mut().unwrap();
        nodes.push(node);
        let index = nodes.len() - 1;
        match parent {
            Some(p) => {
                let parent = &mut self.doc["nodes"][p];
                if parent.get("children").is_none() {
                    parent["children"] = json!([]);
                }
                parent["children"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!(index));
            }
            None => self.doc["scenes"][0]["nodes"]
                .as_array_mut()
                .unwrap()
                .push(json!(index)),
        }
        index
    }

    /// The node indices of skin `skin`'s joints, in the skin's order.
    pub fn skin_joints(&self, skin: usize) -> Vec<usize> {
        self.doc["skins"][skin]["joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j.as_u64().unwrap() as usize)
            .collect()
    }

    /// The index of the node named `name`.
    pub fn node(&self, name: &str) -> usize {
        self.doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("no node {name}"))
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut doc = self.doc.clone();
        doc["buffers"] = json!([{ "byteLength": self.bin.len() }]);
        glb(&serde_json::to_vec(&doc).unwrap(), &self.bin)
    }

    /// Writes the file as `name` in `dir` (and as a fuzz seed) and returns its path.
    pub fn write(&self, dir: &std::path::Path, name: &str) -> PathBuf {
        let bytes = self.bytes();
        save_fuzz_seed(name, &bytes);
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

/// The Fox with its skeleton under a node that scales by `scale` and every joint's
/// translation (node and animation keys) divided by it, as Blender's exports with a unit
/// conversion on the armature are: the skinned character is the same, but its model
/// matrices carry the scale, and the inverse bind matrices take it back out.
pub fn fox_armature_scaled(dir: &std::path::Path, scale: f32) -> Option<PathBuf> {
    let source = rigs_dir()?.join("Fox/Fox.glb");
    let mut edit = GlbEdit::open(&source);
    let armature = edit.node("root");
    edit.doc["nodes"][armature]["scale"] = json!([scale, scale, scale]);
    let joints = edit.skin_joints(0);
    for &j in &joints {
        if let Some(t) = edit.doc["nodes"][j]["translation"].as_array() {
            let t: Vec<f64> = t
                .iter()
                .map(|v| v.as_f64().unwrap() / scale as f64)
                .collect();
            edit.doc["nodes"][j]["translation"] = json!(t);
        }
    }
    // Joint globals gain the scale on their right, so their inverses gain 1/scale on the left.
    let binds = edit.doc["skins"][0]["inverseBindMatrices"]
        .as_u64()
        .unwrap() as usize;
    let unscale = glam::Mat4::from_scale(glam::Vec3::splat(1.0 / scale));
    let new_binds: Vec<Vec<f32>> = edit
        .read(binds)
        .iter()
        .map(|m| (unscale * mat4(m)).to_cols_array().to_vec())
        .collect();
    edit.doc["skins"][0]["inverseBindMatrices"] = json!(edit.add_floats(&new_binds, "MAT4"));
    let animations = edit.doc["animations"].as_array().unwrap().len();
    for a in 0..animations {
        let channels = edit.doc["animations"][a]["channels"]
            .as_array()
            .unwrap()
            .clone();
        for channel in channels {
            if channel["target"]["path"] != "translation" {
                continue;
            }
            let sampler = channel["sampler"].as_u64().unwrap() as usize;
            let output = edit.doc["animations"][a]["samplers"][sampler]["output"]
                .as_u64()
                .unwrap() as usize;
            let keys: Vec<Vec<f32>> = edit
                .read(output)
                .iter()
                .map(|v| v.iter().map(|c| c / scale).collect())
                .collect();
            let accessor = edit.add_floats(&keys, "VEC3");
            edit.doc["animations"][a]["samplers"][sampler]["output"] = json!(accessor);
        }
    }
    Some(edit.write(dir, &format!("Fox_armature_x{scale}.glb")))
}

/// The Fox exported in other units: its mesh and skeleton in units `1 / armature_scale`
/// times the Fox's (centimetres for 0.01), under an armature node that scales them back
/// by `armature_scale` (as Mixamo's exports carry a 0.01 armature over a centimetre
/// mesh, and Quaternius's a 100 one). The skinned character is the Fox, vertex for
/// vertex, in model space; only the file's numbers differ: bind positions, joint
/// translations (nodes and keys) and the inverse bind matrices' translations.
pub fn fox_in_units(dir: &std::path::Path, armature_scale: f32) -> Option<PathBuf> {
    let source = rigs_dir()?.join("Fox/Fox.glb");
    let mut edit = GlbEdit::open(&source);
    let units = 1.0 / armature_scale;
    let armature = edit.node("root");
    edit.doc["nodes"][armature]["scale"] = json!([armature_scale, armature_scale, armature_scale]);
    for j in edit.skin_joints(0) {
        if let Some(t) = edit.doc["nodes"][j]["translation"].as_array() {
            let t: Vec<f64> = t
                .iter()
                .map(|v| v.as_f64().unwrap() * units as f64)
                .collect();
            edit.doc["nodes"][j]["translation"] = json!(t);
        }
    }
    // The joints' globals become S·M·S⁻¹ over a mesh S times as large: the inverse binds too.
    let binds = edit.doc["skins"][0]["inverseBindMatrices"]
        .as_u64()
        .unwrap() as usize;
    let to_file = glam::Mat4::from_scale(glam::Vec3::splat(units));
    let from_file = glam::Mat4::from_scale(glam::Vec3::splat(armature_scale));
    let new_binds: Vec<Vec<f32>> = edit
        .read(binds)
        .iter()
        .map(|m| (to_file * mat4(m) * from_file).to_cols_array().to_vec())
        .collect();
    edit.doc["skins"][0]["inverseBindMatrices"] = json!(edit.add_floats(&new_binds, "MAT4"));
    let position = edit.doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize;
    let positions: Vec<Vec<f32>> = edit
        .read(position)
        .iter()
        .map(|p| p.iter().map(|c| c * units).collect())
        .collect();
    edit.doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"] =
        json!(edit.add_floats(&positions, "VEC3"));
    let animations = edit.doc["animations"].as_array().unwrap().len();
    for a in 0..animations {
        let channels = edit.doc["animations"][a]["channels"]
            .as_array()
            .unwrap()
            .clone();
        for channel in channels {
            if channel["target"]["path"] != "translation" {
                continue;
            }
            let sampler = channel["sampler"].as_u64().unwrap() as usize;
            let output = edit.doc["animations"][a]["samplers"][sampler]["output"]
                .as_u64()
                .unwrap() as usize;
            let keys: Vec<Vec<f32>> = edit
                .read(output)
                .iter()
                .map(|v| v.iter().map(|c| c * units).collect())
                .collect();
            let accessor = edit.add_floats(&keys, "VEC3");
            edit.doc["animations"][a]["samplers"][sampler]["output"] = json!(accessor);
        }
    }
    Some(edit.write(dir, &format!("Fox_units_x{armature_scale}.glb")))
}

/// The Fox with every clip's name behind the prefix `FoxArmature|` (as Blender writes
/// them) and four clips added on its root joint: `TPose` (still: the root holds its rest
/// rotation), `Death` (the Fox tips over by 90° and stays down: an action), `Roll` (a turn
/// about x while travelling 100 units: it ends far from where it began, an action) and
/// `Spin` (a whole turn about y: it moves a lot and ends where it began, a loop).
pub fn fox_with_actions(dir: &std::path::Path) -> Option<PathBuf> {
    let source = rigs_dir()?.join("Fox/Fox.glb");
    let mut edit = GlbEdit::open(&source);
    let root = edit.skin_joints(0)[0];
    let animations = edit.doc["animations"].as_array().unwrap().len();
    for a in 0..animations {
        let name = edit.doc["animations"][a]["name"]
            .as_str()
            .unwrap()
            .to_string();
        edit.doc["animations"][a]["name"] = json!(format!("FoxArmature|{name}"));
    }
    let times = edit.add_floats(
        &[vec![0.0], vec![0.25], vec![0.5], vec![0.75], vec![1.0]],
        "SCALAR",
    );
    let turn = |axis: glam::Vec3, degrees: [f32; 5]| -> Vec<Vec<f32>> {
        degrees
            .iter()
            .map(|d| {
                glam::Quat::from_axis_angle(axis, d.to_radians())
                    .to_array()
                    .to_vec()
            })
            .collect()
    };
    // Per clip: its name, the root's rotation keys and its translation keys, if any.
    type Keys = Vec<Vec<f32>>;
    let clips: [(&str, Keys, Option<Keys>); 4] = [
        ("TPose", turn(glam::Vec3::X, [0.0; 5]), None),
        (
            "Death",
            turn(glam::Vec3::X, [0.0, 30.0, 60.0, 90.0, 90.0]),
            None,
        ),
        (
            "Roll",
            turn(glam::Vec3::X, [0.0, 90.0, 180.0, 270.0, 360.0]),
            Some((0..5).map(|k| vec![0.0, 0.0, 25.0 * k as f32]).collect()),
        ),
        (
            "Spin",
            turn(glam::Vec3::Y, [0.0, 90.0, 180.0, 270.0, 360.0]),
            None,
        ),
    ];
    for (name, rotations, translations) in clips {
        let rotations = edit.add_floats(&rotations, "VEC4");
        let mut samplers =
            vec![json!({ "input": times, "output": rotations, "interpolation": "LINEAR" })];
        let mut channels =
            vec![json!({ "sampler": 0, "target": { "node": root, "path": "rotation" } })];
        if let Some(translations) = translations {
            let translations = edit.add_floats(&translations, "VEC3");
            samplers
                .push(json!({ "input": times, "output": translations, "interpolation": "LINEAR" }));
            channels
                .push(json!({ "sampler": 1, "target": { "node": root, "path": "translation" } }));
        }
        edit.doc["animations"].as_array_mut().unwrap().push(json!({
            "name": format!("FoxArmature|{name}"),
            "channels": channels,
            "samplers": samplers,
        }));
    }
    Some(edit.write(dir, "Fox_actions.glb"))
}

/// The Fox with `clips` clips (at least its three), each a copy of one of its own under a
/// long name behind an armature prefix (`CharacterArmature|Walk_holding_a_lantern_04`), as
/// character packs with a dozen or more clips name them: what the panel's clip chooser must
/// hold in bounded space.
pub fn fox_with_many_clips(dir: &std::path::Path, clips: usize) -> Option<PathBuf> {
    let source = rigs_dir()?.join("Fox/Fox.glb");
    let mut edit = GlbEdit::open(&source);
    let own = edit.doc["animations"].as_array().unwrap().clone();
    let mut all = Vec::with_capacity(clips);
    for k in 0..clips.max(own.len()) {
        let mut clip = own[k % own.len()].clone();
        let base = clip["name"].as_str().unwrap().to_string();
        clip["name"] = json!(format!("CharacterArmature|{base}_holding_a_lantern_{k:02}"));
        all.push(clip);
    }
    edit.doc["animations"] = json!(all);
    Some(edit.write(dir, &format!("Fox_{clips}_clips.glb")))
}

/// The Fox with a fourth clip, `TPose`: one second in which two joints hold their rest
/// rotations (keys that never change), as exports of a T-pose or bind-pose clip are: no
/// vertex moves.
pub fn fox_with_tpose(dir: &std::path::Path) -> Option<PathBuf> {
    let source = rigs_dir()?.join("Fox/Fox.glb");
    let mut edit = GlbEdit::open(&source);
    let joints = edit.skin_joints(0);
    let times = edit.add_floats(&[vec![0.0], vec![0.5], vec![1.0]], "SCALAR");
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for &j in joints.iter().take(2) {
        let rest: Vec<f32> = edit.doc["nodes"][j]["rotation"]
            .as_array()
            .map(|r| r.iter().map(|v| v.as_f64().unwrap() as f32).collect())
            .unwrap_or_else(|| vec![0.0, 0.0, 0.0, 1.0]);
        let keys = edit.add_floats(&[rest.clone(), rest.clone(), rest], "VEC4");
        channels.push(
            json!({ "sampler": samplers.len(), "target": { "node": j, "path": "rotation" } }),
        );
        samplers.push(json!({ "input": times, "output": keys, "interpolation": "LINEAR" }));
    }
    edit.doc["animations"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "name": "TPose", "channels": channels, "samplers": samplers }));
    Some(edit.write(dir, "Fox_tpose.glb"))
}

/// Column-major 4×4 from a glTF MAT4 element.
fn mat4(m: &[f32]) -> glam::Mat4 {
    glam::Mat4::from_cols_slice(m)
}

/// The rigid transform the second part of [`fox_split`] is moved by (its inverse bind
/// matrices take it back out): a turn about y, a tilt about x and a shift.
pub fn split_transform() -> glam::Mat4 {
    glam::Mat4::from_translation(glam::Vec3::new(3.0, -7.0, 11.0))
        * glam::Mat4::from_rotation_y(0.5)
        * glam::Mat4::from_rotation_x(-0.3)
}

/// How [`fox_split`] binds its second part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecondSkin {
    /// The same joints in the same order and the same inverse bind matrices.
    Same,
    /// The same joints listed in reverse order (the part's joint indices follow).
    Reordered,
    /// The same joints with other inverse bind matrices: the part's bind positions are
    /// moved by [`split_transform`] and its inverse bind matrices undo it.
    OtherBinds,
}

/// Fox with its vertices split in two halves, each its own mesh node with its own skin
/// over the same joints (the second bound as `second` says), every vertex keeping the
/// unsplit Fox's normal (as import computes it): skinned, the two halves are the unsplit
/// Fox, vertex for vertex. With `hat`, a small box (8 corners, 12 triangles) hangs under
/// the head joint as a mesh node without a skin, after the halves in node order.
pub fn fox_split(dir: &std::path::Path, second: SecondSkin, hat: bool) -> Option<PathBuf> {
    let source = rigs_dir()?.join("Fox/Fox.glb");
    let (fox, _) = skinbench::rig::import_path(&source).unwrap();
    let mut edit = GlbEdit::open(&source);
    let positions = edit.read(0);
    let uvs = edit.read(1);
    let joints = edit.read(2);
    let weights = edit.read(3);
    let binds = edit.read(4);
    let half = positions.len() / 2;
    assert_eq!(half % 3, 0, "Fox is unindexed: halves of whole triangles");
    let normals: Vec<Vec<f32>> = fox
        .mesh
        .normals
        .iter()
        .map(|n| n.to_array().to_vec())
        .collect();
    let skin_joints = edit.doc["skins"][0]["joints"].clone();
    let joint_count = skin_joints.as_array().unwrap().len();

    let part = |edit: &mut GlbEdit,
                range: std::ops::Range<usize>,
                skin: usize,
                moved: bool,
                reordered: bool| {
        let t = if moved {
            split_transform()
        } else {
            glam::Mat4::IDENTITY
        };
        let position: Vec<Vec<f32>> = positions[range.clone()]
            .iter()
            .map(|p| {
                t.transform_point3(glam::Vec3::from_slice(p))
                    .to_array()
                    .to_vec()
            })
            .collect();
        let normal: Vec<Vec<f32>> = normals[range.clone()]
            .iter()
            .map(|n| {
                t.transform_vector3(glam::Vec3::from_slice(n))
                    .to_array()
                    .to_vec()
            })
            .collect();
        let part_joints: Vec<Vec<f32>> = joints[range.clone()]
            .iter()
            .map(|j| {
                j.iter()
                    .map(|&k| {
                        if reordered {
                            (joint_count - 1) as f32 - k
                        } else {
                            k
                        }
                    })
                    .collect()
            })
            .collect();
        let attributes = json!({
            "POSITION": edit.add_floats(&position, "VEC3"),
            "NORMAL": edit.add_floats(&normal, "VEC3"),
            "TEXCOORD_0": edit.add_floats(&uvs[range.clone()], "VEC2"),
            "JOINTS_0": edit.add_joints(&part_joints),
            "WEIGHTS_0": edit.add_floats(&weights[range.clone()], "VEC4"),
        });
        let meshes = edit.doc["meshes"].as_array_mut().unwrap();
        meshes.push(json!({ "primitives": [{ "attributes": attributes, "material": 0 }] }));
        let mesh = meshes.len() - 1;
        json!({ "name": format!("fox_part_{skin}"), "mesh": mesh, "skin": skin })
    };
    // The second skin: the same joints, maybe reversed, its binds maybe moved.
    let moved = second == SecondSkin::OtherBinds;
    let reordered = second == SecondSkin::Reordered;
    let mut second_binds: Vec<Vec<f32>> = binds
        .iter()
        .map(|b| {
            let m = if moved {
                mat4(b) * split_transform().inverse()
            } else {
                mat4(b)
            };
            m.to_cols_array().to_vec()
        })
        .collect();
    let mut second_joints: Vec<Value> = skin_joints.as_array().unwrap().clone();
    if reordered {
        second_binds.reverse();
        second_joints.reverse();
    }
    let ibm = edit.add_floats(&second_binds, "MAT4");
    edit.doc["skins"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "joints": second_joints, "inverseBindMatrices": ibm }));

    // The original mesh node becomes the first half; the second half follows it.
    let fox_node = edit.node("fox");
    let first = part(&mut edit, 0..half, 0, false, false);
    edit.doc["nodes"][fox_node] = first;
    let second_node = part(&mut edit, half..positions.len(), 1, moved, reordered);
    edit.add_node(second_node, None);
    if hat {
        let head = edit.node("b_Head_05");
        let (corners, triangles) = hat_box();
        let corners: Vec<Vec<f32>> = corners.iter().map(|c| c.to_vec()).collect();
        let normals: Vec<Vec<f32>> = corners
            .iter()
            .map(|c| glam::Vec3::from_slice(c).normalize().to_array().to_vec())
            .collect();
        let attributes = json!({
            "POSITION": edit.add_floats(&corners, "VEC3"),
            "NORMAL": edit.add_floats(&normals, "VEC3"),
            "TEXCOORD_0": edit.add_floats(&vec![vec![0.5, 0.5]; corners.len()], "VEC2"),
        });
        let indices = edit.add_indices(&triangles);
        let meshes = edit.doc["meshes"].as_array_mut().unwrap();
        meshes.push(json!({ "primitives": [{ "attributes": attributes, "indices": indices }] }));
        let mesh = meshes.len() - 1;
        edit.add_node(
            json!({ "name": "hat", "mesh": mesh, "translation": HAT_OFFSET,
                    "rotation": [0.0, 0.0, 0.38268343, 0.9238795] }),
            Some(head),
        );
    }
    let name = format!(
        "Fox_split_{}{}.glb",
        match second {
            SecondSkin::Same => "same",
            SecondSkin::Reordered => "reordered",
            SecondSkin::OtherBinds => "other_binds",
        },
        if hat { "_hat" } else { "" }
    );
    Some(edit.write(dir, &name))
}

/// Where the hat sits in the head joint's space.
pub const HAT_OFFSET: [f32; 3] = [12.0, 2.0, 0.0];

/// A box of 8 corners and 12 triangles, 6 units wide.
pub fn hat_box() -> ([[f32; 3]; 8], Vec<u32>) {
    let corners = std::array::from_fn(|i| {
        [
            if i & 1 == 0 { -3.0 } else { 3.0 },
            if i & 2 == 0 { -3.0 } else { 3.0 },
            if i & 4 == 0 { -3.0 } else { 3.0 },
        ]
    });
    let faces = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let triangles = faces
        .iter()
        .flat_map(|f| [f[0], f[1], f[2], f[0], f[2], f[3]])
        .collect();
    (corners, triangles)
}

/// The merged test character of the conformance matrix: Fox over two skins (the second
/// binding every joint with other inverse bind matrices) with a hat on its head.
pub const FOX_PARTS: &str = "fox_parts";

/// The test rigs built from the public ones, prepared: [`FOX_PARTS`].
/// Names of the Fox rigs whose skinning matrices all carry one uniform scale (a unit
/// conversion, as Blender and Mixamo exports do), with that scale: [`fox_skin_scaled`].
pub const FOX_SKIN_SCALED: [(&str, f32); 2] = [("fox_skin_x100", 100.0), ("fox_skin_x0.01", 0.01)];

fn built_test_rigs() -> Vec<(String, std::sync::Arc<skinbench::prepare::PreparedRig>)> {
    use skinbench::prepare::PreparedRig;
    use std::sync::Arc;
    let dir = temp_dir("built-rigs");
    let mut rigs = Vec::new();
    if let Some(path) = fox_split(&dir, SecondSkin::OtherBinds, true) {
        rigs.push((
            FOX_PARTS.to_string(),
            Arc::new(PreparedRig::load(&path).unwrap()),
        ));
    }
    for (name, scale) in FOX_SKIN_SCALED {
        if let Some(path) = fox_skin_scaled(&dir, glam::Vec3::splat(scale)) {
            rigs.push((
                name.to_string(),
                Arc::new(PreparedRig::load(&path).unwrap()),
            ));
        }
    }
    rigs
}

/// The Fox with the node above its skeleton scaling by `scale` and nothing else changed:
/// every joint's global transform, so every skinning matrix, gains that scale on its left
/// (the inverse bind matrices were made without it), and the character is drawn that much
/// larger. A uniform `scale` is what a unit conversion on an armature does when the mesh
/// is bound in the armature's units; any other is a rig that scales along an axis.
pub fn fox_skin_scaled(dir: &std::path::Path, scale: glam::Vec3) -> Option<PathBuf> {
    let source = rigs_dir()?.join("Fox/Fox.glb");
    let mut edit = GlbEdit::open(&source);
    let armature = edit.node("root");
    let old = edit.doc["nodes"][armature]["scale"]
        .as_array()
        .map_or(glam::Vec3::ONE, |s| {
            glam::Vec3::from_slice(
                &s.iter()
                    .map(|v| v.as_f64().unwrap() as f32)
                    .collect::<Vec<_>>(),
            )
        });
    let new = old * scale;
    edit.doc["nodes"][armature]["scale"] = json!([new.x, new.y, new.z]);
    Some(edit.write(
        dir,
        &format!("Fox_skin_x{}_{}_{}.glb", scale.x, scale.y, scale.z),
    ))
}

/// A one-primitive skinned character (`source`, its mesh node `mesh_node`) with its
/// vertices split into `parts` equal runs, each its own mesh node with its own skin over
/// the same joints, in the original vertex order. With `other_binds`, part `k`'s bind
/// positions are moved by a rigid transform of its own and its skin's inverse bind
/// matrices undo it (so every part binds every joint differently); otherwise every skin
/// repeats the original inverse bind matrices. Triangles that span two parts are dropped
/// (the vertices, what skinning costs and what the tests compare, are all kept).
pub fn split_skins(
    source: &std::path::Path,
    mesh_node: &str,
    parts: usize,
    other_binds: bool,
    dir: &std::path::Path,
    name: &str,
) -> PathBuf {
    let mut edit = GlbEdit::open(source);
    let node = edit.node(mesh_node);
    let mesh = edit.doc["nodes"][node]["mesh"].as_u64().unwrap() as usize;
    let skin = edit.doc["nodes"][node]["skin"].as_u64().unwrap() as usize;
    let primitive = edit.doc["meshes"][mesh]["primitives"][0].clone();
    let attribute = |name: &str| primitive["attributes"][name].as_u64().map(|a| a as usize);
    let positions = edit.read(attribute("POSITION").unwrap());
    let normals = attribute("NORMAL").map(|a| edit.read(a));
    let uvs = edit.read(attribute("TEXCOORD_0").unwrap());
    let joints = edit.read(attribute("JOINTS_0").unwrap());
    let weights = edit.read(attribute("WEIGHTS_0").unwrap());
    let indices: Vec<u32> = match primitive["indices"].as_u64() {
        Some(a) => edit.read(a as usize).iter().map(|i| i[0] as u32).collect(),
        None => (0..positions.len() as u32).collect(),
    };
    let binds = edit.read(
        edit.doc["skins"][skin]["inverseBindMatrices"]
            .as_u64()
            .unwrap() as usize,
    );
    let skin_joints = edit.doc["skins"][skin]["joints"].clone();
    let n = positions.len();
    for k in 0..parts {
        let range = k * n / parts..(k + 1) * n / parts;
        let t = if other_binds {
            glam::Mat4::from_rotation_y(0.4 * k as f32) * split_transform()
        } else {
            glam::Mat4::IDENTITY
        };
        let moved = |v: &[Vec<f32>], point: bool| -> Vec<Vec<f32>> {
            v[range.clone()]
                .iter()
                .map(|p| {
                    let p = glam::Vec3::from_slice(p);
                    let q = if point {
                        t.transform_point3(p)
                    } else {
                        t.transform_vector3(p)
                    };
                    q.to_array().to_vec()
                })
                .collect()
        };
        let part_indices: Vec<u32> = indices
            .chunks_exact(3)
            .filter(|tri| tri.iter().all(|&i| range.contains(&(i as usize))))
            .flatten()
            .map(|&i| i - range.start as u32)
            .collect();
        let mut attributes = json!({
            "POSITION": edit.add_floats(&moved(&positions, true), "VEC3"),
            "TEXCOORD_0": edit.add_floats(&uvs[range.clone()], "VEC2"),
            "JOINTS_0": edit.add_joints(&joints[range.clone()]),
            "WEIGHTS_0": edit.add_floats(&weights[range.clone()], "VEC4"),
        });
        if let Some(normals) = &normals {
            attributes["NORMAL"] = json!(edit.add_floats(&moved(normals, false), "VEC3"));
        }
        let index_accessor = edit.add_indices(&part_indices);
        let part_binds: Vec<Vec<f32>> = binds
            .iter()
            .map(|b| (mat4(b) * t.inverse()).to_cols_array().to_vec())
            .collect();
        let ibm = edit.add_floats(&part_binds, "MAT4");
        let skins = edit.doc["skins"].as_array_mut().unwrap();
        skins.push(json!({ "joints": skin_joints, "inverseBindMatrices": ibm }));
        let part_skin = skins.len() - 1;
        let meshes = edit.doc["meshes"].as_array_mut().unwrap();
        meshes.push(
            json!({ "primitives": [{ "attributes": attributes, "indices": index_accessor }] }),
        );
        let part_mesh = meshes.len() - 1;
        let part_node =
            json!({ "name": format!("{mesh_node}_{k}"), "mesh": part_mesh, "skin": part_skin });
        if k == 0 {
            edit.doc["nodes"][node] = part_node;
        } else {
            edit.add_node(part_node, None);
        }
    }
    edit.write(dir, name)
}

/// The pixels where `picture` differs from `empty` (the same view without characters):
/// what the characters cover. Fewer than 500 is an error: the characters must be in the
/// picture, or equal pictures would prove nothing.
pub fn covered_pixels(
    picture: &image::RgbaImage,
    empty: &image::RgbaImage,
) -> Result<usize, String> {
    let covered = picture
        .pixels()
        .zip(empty.pixels())
        .filter(|(a, b)| a != b)
        .count();
    if covered < 500 {
        return Err(format!("only {covered} pixels show a character"));
    }
    Ok(covered)
}

/// Whether `got` shows what `expected` shows: every pixel within 2 of 255, except where an
/// edge moved: positions computed in another order differ in the last bit, which flips
/// which triangle covers a pixel whose centre lies on an edge (a silhouette, where a back
/// facet may win, or a crease between facets). Such a pixel must lie on an edge of
/// `expected` (its 3×3 neighbourhood there spans more than 8 of 255 in some channel), and
/// there may be one per thousand of the `covered` drawn pixels: a wrong skinning moves
/// whole surfaces, not a few pixels.
pub fn pictures_match(
    expected: &image::RgbaImage,
    got: &image::RgbaImage,
    covered: usize,
) -> Result<(), String> {
    const PICTURE_TOLERANCE: u8 = 2;
    let (width, height) = got.dimensions();
    let mut moved_edges = 0;
    let mut worst = None;
    for (x, y, p) in got.enumerate_pixels() {
        let q = expected.get_pixel(x, y);
        let d = (0..3).map(|c| p[c].abs_diff(q[c])).max().unwrap_or(0);
        if d <= PICTURE_TOLERANCE {
            continue;
        }
        let (mut low, mut high) = ([255u8; 3], [0u8; 3]);
        for nx in x.saturating_sub(1)..=(x + 1).min(width - 1) {
            for ny in y.saturating_sub(1)..=(y + 1).min(height - 1) {
                let n = expected.get_pixel(nx, ny);
                for c in 0..3 {
                    low[c] = low[c].min(n[c]);
                    high[c] = high[c].max(n[c]);
                }
            }
        }
        if (0..3).any(|c| high[c] - low[c] > 8) {
            moved_edges += 1;
        } else if worst.is_none_or(|(w, _, _)| d > w) {
            worst = Some((d, x, y));
        }
    }
    if let Some((d, x, y)) = worst {
        return Err(format!(
            "pixel ({x}, {y}) differs by {d} of 255 from the expected picture, off any edge"
        ));
    }
    if moved_edges * 1000 > covered {
        return Err(format!(
            "{moved_edges} edge pixels moved, of {covered} drawn"
        ));
    }
    Ok(())
}

/// Runs `frames` frames of `instances` characters of `rig` with `config` (its lane kernels
/// at `level`, or the CPU's best), each checked against the f64 oracles: the skinned
/// vertices, the hierarchy and (with a blend weight) the blend.
pub fn frames_match_the_oracles(
    rig: &std::sync::Arc<skinbench::prepare::PreparedRig>,
    config: skinbench::crowd::PipelineConfig,
    level: Option<skinbench::simd::SimdLevel>,
    instances: usize,
    frames: usize,
) -> Result<skinbench::crowd::Pipeline, String> {
    use skinbench::crowd::verify::{POSE_TOLERANCE, verify_blend, verify_frame, verify_hierarchy};
    let mut pipeline =
        skinbench::crowd::Pipeline::new(rig.clone(), config).map_err(|e| e.to_string())?;
    pipeline.set_simd_level(level).map_err(|e| e.to_string())?;
    let mut crowd = skinbench::crowd::InstanceStore::new();
    crowd.resize(instances, rig, 2.0);
    let mut out =
        skinbench::skin::OutputBuffer::for_instances(pipeline.output_layout(), crowd.len());
    for _ in 0..frames {
        crowd.advance(0.137);
        pipeline
            .run_frame(crowd.as_slice(), &mut out)
            .map_err(|e| e.to_string())?;
        let d = verify_frame(&pipeline, crowd.as_slice(), out.as_bytes(), usize::MAX)
            .map_err(|e| e.to_string())?;
        skin_within_tolerance(&d)?;
        let h = verify_hierarchy(&mut pipeline, crowd.as_slice()).map_err(|e| e.to_string())?;
        if h > POSE_TOLERANCE {
            return Err(format!("hierarchy error {h:e}"));
        }
        if config.blend_weight > 0.0 {
            let b = verify_blend(&pipeline, crowd.as_slice());
            if b > POSE_TOLERANCE {
                return Err(format!("blend error {b:e}"));
            }
        }
    }
    Ok(pipeline)
}

/// The Fox with one long clip: its three clips played one after another four times over
/// (about 20 s: a walk, a run and a look around, again and again), where each joint a clip
/// leaves alone keeps its rest pose. What a character with long dance clips is like: a
/// measurement of a few poses per clip is seconds apart on it.
pub fn long_clip_fox() -> Option<skinbench::prepare::PreparedRig> {
    use skinbench::rig::{Clip, Interpolation, JointTracks, Track};
    let path = rigs_dir()?.join("Fox/Fox.glb");
    let (mut rig, report) = skinbench::rig::import_path(&path).unwrap();
    let joints = rig.skeleton.joint_count();
    let rest = rig.skeleton.rest_pose.clone();
    let clips = std::mem::take(&mut rig.clips);
    let order: Vec<&Clip> = (0..4).flat_map(|_| clips.iter()).collect();
    fn append<T: Copy>(
        to: &mut Option<Track<T>>,
        from: Option<&Track<T>>,
        at_rest: T,
        (offset, duration): (f32, f32),
    ) {
        let track = to.get_or_insert_with(|| Track {
            interpolation: Interpolation::Linear,
            times_secs: Vec::new(),
            values: Vec::new(),
        });
        let keys: Vec<(f32, T)> = match from {
            Some(t) => {
                assert_eq!(t.interpolation, Interpolation::Linear, "the Fox is linear");
                t.times_secs
                    .iter()
                    .copied()
                    .zip(t.values.iter().copied())
                    .collect()
            }
            None => vec![(0.0, at_rest), (duration, at_rest)],
        };
        for (time, value) in keys {
            let time = offset + time;
            if track.times_secs.last().is_none_or(|&last| time > last) {
                track.times_secs.push(time);
                track.values.push(value);
            }
        }
    }
    let mut tracks = vec![JointTracks::default(); joints];
    let mut offset = 0.0f32;
    for clip in &order {
        let span = (offset, clip.duration_secs);
        for (j, out) in tracks.iter_mut().enumerate() {
            let own = &clip.joint_tracks[j];
            let r = rest[j];
            append(
                &mut out.translation,
                own.translation.as_ref(),
                r.translation,
                span,
            );
            append(&mut out.rotation, own.rotation.as_ref(), r.rotation, span);
            append(&mut out.scale, own.scale.as_ref(), r.scale, span);
        }
        offset += clip.duration_secs;
    }
    rig.clips = vec![Clip {
        name: "fox_medley".to_string(),
        duration_secs: offset,
        joint_tracks: tracks,
    }];
    Some(skinbench::prepare::PreparedRig::new(rig, &report, "Fox_long_clip").unwrap())
}
