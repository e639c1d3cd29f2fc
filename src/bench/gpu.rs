//! The `gpu` workload: CPU skinning against the two GPU skinning paths, with the animation
//! on the CPU and on the GPU, one whole frame each (CPU stages, upload, encoding, and GPU
//! time per pass from timestamp queries), rendered offscreen on whatever adapter exists.
//!
//! How it works: for each instance count and shadow setting, one [`Scene`](crate::gpu::scene::Scene) per
//! configuration (the best CPU variants; `gpu_vertex`; `gpu_compute` with each compute
//! shader; from 1,000 characters on, `gpu_compute` and `gpu_vertex` animated on the GPU
//! with each hierarchy pass), all on one device, render frames in interleaved rounds so
//! every configuration sees the same machine. 100,000 characters are measured animated on
//! the GPU only (the CPU pipeline takes at most 10,000), one configuration after the other;
//! on a CPU adapter without the draw passes (a software renderer takes minutes to draw
//! them), and the report says so. A frame is the app's own ([`Scene::frame`](crate::gpu::scene::Scene::frame)): the CPU
//! pipeline into the upload, `gpu_compute`'s compute pass, the sun's shadow pass, the crowd
//! pass into the offscreen target; then it waits for the GPU and reads its pass times. On a
//! CPU adapter (lavapipe) the GPU times are an emulation on the same cores: the report
//! says so.

use super::table::{Align, Table};
use std::fmt::Write as _;

use serde::Serialize;

use super::measure::median;
use super::{BenchError, Context};
use crate::crowd::budget::Budget;
use crate::crowd::{AnimateDevice, PipelineConfig, Stage};
use crate::gpu::GpuPass;
use crate::gpu::animate::GpuHierarchy;
use crate::gpu::draws::Draws;
use crate::gpu::scene::Frame;
use crate::gpu::scene::Settings;
use crate::gpu::skin::ComputeShader;
use crate::gpu::skin::PoolReading;
use crate::gpu::upload::UploadVariant;
use crate::prepare::PreparedRig;
use crate::skin::pool::PoolSize;
use crate::skin::{SkinDevice, SkinVariant};
use crate::variant::Variant;

/// Seconds each frame advances the clocks.
pub const FRAME_SECS: f32 = 1.0 / 60.0;

/// One measured configuration at one instance count (medians over the frames).
#[derive(Clone, Debug, Serialize)]
pub struct GpuRow {
    /// `best CPU (hierarchy / skin)`, `gpu_vertex`, `gpu_compute (per_class)`,
    /// `gpu_compute (per_level), animated on the GPU (walk)`, ...
    pub config: String,
    pub skin: &'static str,
    /// Where sampling, blend, hierarchy and palettes ran.
    pub animate: AnimateDevice,
    pub instances: usize,
    /// Whether the sun's shadow pass ran (`gpu_vertex` skins again in it).
    pub shadows: bool,
    /// Whether the shadow and crowd passes were drawn (not at 100,000 characters on a CPU
    /// adapter: the frame is the animation and `gpu_compute`'s skinning).
    pub draws: bool,
    pub frames: usize,
    /// The CPU pipeline's wall time (sample → skin, or → palettes for GPU variants), µs.
    pub cpu_stages_us: f64,
    /// Getting the CPU's output into the GPU buffer, µs.
    pub upload_us: f64,
    /// `cpu_stages_us + upload_us` (each frame's sum, then the median).
    pub cpu_total_us: f64,
    /// Recording the shadow and crowd passes, µs.
    pub encode_us: f64,
    /// Each GPU pass's time, in the frame's pass list (`gpu_<pass>_us` fields).
    #[serde(flatten)]
    pub passes: PassColumns,
    /// Submitting the frame until the GPU finished it (wall time).
    pub gpu_frame_us: Option<f64>,
    /// With LOD on the GPU: the characters its pass recomputed and culled a frame
    /// (medians).
    pub lod: bool,
    pub lod_updated: Option<f64>,
    pub lod_culled: Option<f64>,
    /// Geometric LOD on, and the triangles the crowd pass drew a frame (median; with LOD
    /// on the GPU, from its counts of the frame before).
    pub mesh_lod: bool,
    pub triangles: f64,
    /// Vertices skinned a frame (median; `Scene::vertices_skinned`: with the LOD pass on
    /// the GPU, `gpu_compute` skins each recomputed character at its level).
    pub vertices_skinned: f64,
    /// Invocations `gpu_compute`'s skinning pass launched a frame (median;
    /// `Scene::skin_invocations`; 0 on the other paths).
    pub skin_invocations: f64,
    /// Draw arguments the crowd and shadow passes read (`Scene::draw_records`, after the
    /// last frame): per character, or per batch and level with `--draws per_level`.
    pub draw_records: [usize; 2],
    /// Bytes of `gpu_compute`'s skinned output (after the last frame): a full-detail slot
    /// per character, or the pool.
    pub skinned_output_bytes: u64,
    /// What the skinned pool held after the last frame (`--skinned-pool` rows).
    pub pool: Option<PoolReading>,
    /// Bytes the CPU wrote for the GPU each frame (vertices, palettes, or with the
    /// animation on the GPU the changed records and the passes' parameters; median).
    pub uploaded_bytes: u64,
    /// `cpu_total_us` over the best CPU configuration's at the same instance count and
    /// shadow setting.
    pub cpu_ratio_to_best_cpu: f64,
}

/// A value per GPU pass (a median, µs), written as one `gpu_<pass>_us` field each, in
/// the frame's pass list: a new pass is a new column without touching the bench.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassColumns(crate::crowd::timing::PassTimes);

impl PassColumns {
    pub fn from_fn(mut value: impl FnMut(GpuPass) -> Option<f64>) -> Self {
        let mut times = crate::crowd::timing::PassTimes::default();
        for &pass in GpuPass::ALL {
            times[pass.index()] = value(pass);
        }
        PassColumns(times)
    }

    /// The value of `pass`, where it ran.
    pub fn get(&self, pass: GpuPass) -> Option<f64> {
        self.0[pass.index()]
    }

    /// The field a report names `pass`'s value with.
    pub fn key(pass: GpuPass) -> String {
        format!("gpu_{}_us", pass.name())
    }
}

impl Serialize for PassColumns {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(GpuPass::COUNT))?;
        for &pass in GpuPass::ALL {
            map.serialize_entry(&Self::key(pass), &self.get(pass))?;
        }
        map.end()
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct GpuSection {
    pub adapter: String,
    pub adapter_type: String,
    /// Whether the adapter is a CPU emulation (its GPU times are not GPU speed).
    pub cpu_adapter: bool,
    pub threads: usize,
    pub upload: &'static str,
    pub size: (u32, u32),
    /// Where the camera stood (`--camera`): `overview` or `street`.
    pub camera: &'static str,
    /// What colours the crowd was drawn in (`--material`): `file` or `tint`.
    pub material: &'static str,
    pub rows: Vec<GpuRow>,
    /// The configurations the memory budget refused at an instance count, each with the
    /// budget's reason (what it needs, what may be used, how many fit): the rest of the
    /// workload is measured without them.
    pub refused: Vec<String>,
}

/// One configuration of the workload.
struct GpuConfig {
    name: String,
    pipeline: PipelineConfig,
    shader: ComputeShader,
    animate: AnimateDevice,
    hierarchy: GpuHierarchy,
    /// Update-rate LOD and culling on the GPU (with the animation there), at [`LOD_PX`].
    lod: bool,
    /// Geometric LOD (mesh levels) at [`LOD_PX`].
    mesh_lod: bool,
    /// How the LOD pass's draws are issued.
    draws: Draws,
    /// `gpu_compute`'s skinned pool.
    pool: Option<PoolSize>,
}

/// The LOD rows' threshold, pixels.
pub const LOD_PX: f32 = 1.0;

/// Characters the GPU-animated rows go up to.
pub const MOST_GPU_ANIMATED: usize = 100_000;

pub fn run(ctx: &mut Context) -> Result<GpuSection, BenchError> {
    let gpu = ctx.gpu("gpu")?.clone();
    let rig = ctx.rig.clone();
    let quick = ctx.options.quick;
    let instance_counts = ctx
        .options
        .instances
        .map_or(vec![100, 1000, 10_000, MOST_GPU_ANIMATED], |n| vec![n]);
    let (frames, warmup) = if quick { (3, 1) } else { (15, 3) };
    let threads = ctx.options.max_threads;
    let refusals = crate::gpu::skin::skin_refusals(&gpu);
    let best = PipelineConfig::best_for(&rig, threads);
    let plain = |name: String, pipeline: PipelineConfig, shader: ComputeShader| GpuConfig {
        name,
        pipeline,
        shader,
        animate: AnimateDevice::Cpu,
        hierarchy: GpuHierarchy::DEFAULT,
        lod: false,
        mesh_lod: false,
        draws: Draws::DEFAULT,
        pool: None,
    };
    let best_name = format!(
        "best CPU ({} / {})",
        best.hierarchy.name(),
        best.skin.name()
    );
    let mut configs: Vec<GpuConfig> = vec![
        plain(best_name.clone(), best, ComputeShader::DEFAULT),
        GpuConfig {
            mesh_lod: true,
            ..plain(
                format!("{best_name}, mesh LOD {LOD_PX} px"),
                best,
                ComputeShader::DEFAULT,
            )
        },
    ];
    let mut animated = Vec::new();
    for &skin in SkinVariant::ALL {
        if refusals.iter().any(|(s, _)| *s == skin) {
            continue;
        }
        let config = PipelineConfig { skin, ..best };
        let on_gpu = |name: String, hierarchy: GpuHierarchy| GpuConfig {
            name: format!("{name}, animated on the GPU ({})", hierarchy.name()),
            pipeline: config,
            shader: ComputeShader::DEFAULT,
            animate: AnimateDevice::Gpu,
            hierarchy,
            lod: false,
            mesh_lod: false,
            draws: Draws::DEFAULT,
            pool: None,
        };
        let with_lod_hierarchy = |name: String, hierarchy: GpuHierarchy| GpuConfig {
            name: format!(
                "{name}, animated on the GPU ({}), LOD {LOD_PX} px",
                hierarchy.name()
            ),
            lod: true,
            ..on_gpu(name, hierarchy)
        };
        let with_lod = |name: String| with_lod_hierarchy(name, GpuHierarchy::DEFAULT);
        let with_mesh_lod = |name: String, shader: ComputeShader| GpuConfig {
            name: format!(
                "{name}, animated on the GPU ({}), LOD {LOD_PX} px, mesh LOD",
                GpuHierarchy::DEFAULT.name()
            ),
            mesh_lod: true,
            shader,
            ..with_lod(name)
        };
        // What drawing per level buys: the same row drawn one argument per character.
        let per_character = |c: GpuConfig| GpuConfig {
            name: format!("{}, {} draws", c.name, Draws::PerCharacter.name()),
            draws: Draws::PerCharacter,
            ..c
        };
        match skin.spec().runs_on {
            SkinDevice::Cpu => {}
            SkinDevice::GpuVertex => {
                configs.push(plain(skin.name().into(), config, ComputeShader::DEFAULT));
                animated.push(on_gpu(skin.name().into(), GpuHierarchy::DEFAULT));
                animated.push(with_lod(skin.name().into()));
                animated.push(with_mesh_lod(skin.name().into(), ComputeShader::DEFAULT));
                animated.push(per_character(with_mesh_lod(
                    skin.name().into(),
                    ComputeShader::DEFAULT,
                )));
            }
            SkinDevice::GpuCompute => {
                for &shader in ComputeShader::ALL {
                    configs.push(plain(
                        format!("{} ({})", skin.name(), shader.name()),
                        config,
                        shader,
                    ));
                }
                let name = format!("{} ({})", skin.name(), ComputeShader::DEFAULT.name());
                // Each hierarchy pass with and without update-rate LOD (which dispatches
                // both over the due characters only).
                for &hierarchy in GpuHierarchy::ALL {
                    animated.push(on_gpu(name.clone(), hierarchy));
                }
                for &hierarchy in GpuHierarchy::ALL {
                    animated.push(with_lod_hierarchy(name.clone(), hierarchy));
                }
                // With mesh levels each shader skins (or skips) differently: every one.
                for &shader in ComputeShader::ALL {
                    let name = format!("{} ({})", skin.name(), shader.name());
                    animated.push(with_mesh_lod(name, shader));
                }
                let name = format!("{} ({})", skin.name(), ComputeShader::DEFAULT.name());
                animated.push(per_character(with_mesh_lod(
                    name.clone(),
                    ComputeShader::DEFAULT,
                )));
                // What the pool saves in memory, and what it costs: every character with
                // vertices skinned each frame, kept ones too.
                if let Some(pool) = ctx.options.skinned_pool {
                    let c = with_mesh_lod(name, ComputeShader::PerLevel);
                    animated.push(GpuConfig {
                        name: format!("{}, skinned pool {}", c.name, pool.name()),
                        pool: Some(pool),
                        ..c
                    });
                }
            }
        }
    }
    let upload = UploadVariant::DEFAULT;
    let mut rows = Vec::new();
    let cpu_adapter = gpu.summary.device_type.contains("Cpu");
    // The GPU-animated rows start at 1,000 characters, or at whatever `--instances` asks.
    let asked_count = ctx.options.instances.is_some();
    // Every block of configurations measured side by side (instance count, shadows), in
    // order: what the time estimates count.
    let mut blocks: Vec<Block> = Vec::new();
    for &n in &instance_counts {
        // The CPU pipeline takes at most 10,000 characters: beyond, the GPU's rows alone.
        let cpu_too = n <= crate::gpu::scene::MAX_INSTANCES;
        for shadows in [false, true] {
            let frames = if n >= 10_000 {
                (frames / 5).max(2)
            } else {
                frames
            };
            let draws = !(cpu_adapter && n > crate::gpu::scene::MAX_INSTANCES);
            if !draws && shadows {
                continue;
            }
            let chosen: Vec<&GpuConfig> = configs
                .iter()
                .filter(|_| cpu_too)
                .chain(animated.iter().filter(|_| n >= 1000 || asked_count))
                .collect();
            if !chosen.is_empty() {
                blocks.push(Block {
                    n,
                    shadows,
                    frames,
                    draws,
                    cpu_too,
                    chosen,
                });
            }
        }
    }
    if quick {
        ctx.progress(
            "gpu workload, --quick: every configuration, with the fewest frames (1 warm-up and \
             3 measured a configuration; 2 from 10,000 characters)",
        );
    }
    let mut estimate = Estimate::default();
    let mut refused = Vec::new();
    for (b, block) in blocks.iter().enumerate() {
        let Block {
            n,
            shadows,
            frames,
            draws,
            cpu_too,
            ref chosen,
        } = *block;
        {
            ctx.progress(&format!(
                "gpu workload: {n} instances, shadows {}, {} configurations, {frames} frames each{}",
                if shadows { "on" } else { "off" },
                chosen.len(),
                if draws { "" } else { ", without the draw passes" }
            ));
            // Past the CPU's range the scenes are too big to keep side by side: one at a
            // time.
            let together = if cpu_too { chosen.len() } else { 1 };
            let mut n_rows: Vec<GpuRow> = Vec::new();
            for (k, batch) in chosen.chunks(together).enumerate() {
                let later_in_block = chosen.len().saturating_sub((k + 1) * together);
                let mut scenes = Vec::new();
                for c in batch {
                    // Refused before anything is allocated, as the app refuses it; the
                    // report says which and why, and the configurations that fit go on (at
                    // a million characters only the skinned pool's rows fit most machines).
                    if let Some(line) = refusal(&rig, c, n, &Budget::this_machine(None)) {
                        ctx.progress(&format!("left out: {line}"));
                        // Once per configuration and count: the shadows-on block repeats it.
                        if !shadows {
                            refused.push(line);
                        }
                        continue;
                    }
                    let settings = Settings {
                        compute_shader: c.shader,
                        draws: c.draws,
                        skinned_pool: c.pool,
                        shadows,
                        upload,
                        animate: c.animate,
                        gpu_hierarchy: c.hierarchy,
                        lod: crate::crowd::lod::LodSettings {
                            enabled: c.lod,
                            mesh: c.mesh_lod,
                            threshold_px: LOD_PX,
                            ..Default::default()
                        },
                        base_colors: ctx.options.material,
                        ..Settings::headless(c.pipeline, n)
                    };
                    let mut scene = ctx.scene("gpu", settings)?;
                    scene.set_camera(ctx.options.camera);
                    scene.set_wait_for_gpu_times(true);
                    scenes.push((
                        c,
                        scene,
                        Vec::new(),
                        Vec::new(),
                        Vec::new(),
                        Vec::new(),
                        Vec::new(),
                        Vec::new(),
                    ));
                }
                if scenes.is_empty() {
                    continue;
                }
                let rounds = warmup + frames;
                for round in 0..rounds {
                    let round_start = std::time::Instant::now();
                    for (c, scene, samples, uploaded, lod, triangles, skinned, invocations) in
                        &mut scenes
                    {
                        let report = if draws {
                            scene.frame(Frame::headless(FRAME_SECS))?
                        } else {
                            scene.frame(Frame::headless(FRAME_SECS).without_draws())?
                        };
                        if round >= warmup {
                            samples.push(report.timings);
                            uploaded.push(report.uploaded_bytes as f64);
                            triangles.push(report.triangles_drawn as f64);
                            skinned.push(report.vertices_skinned.0 as f64);
                            invocations.push(report.skin_invocations as f64);
                            // Read after the frame was measured (the bench waited for it).
                            if c.lod {
                                lod.push(scene.gpu_lod_counts().map_err(|e| {
                                    BenchError::Refused(format!("{}: {e}", c.name))
                                })?);
                            }
                        }
                    }
                    let line = estimate.after_round(
                        round_start.elapsed().as_secs_f64(),
                        round,
                        rounds,
                        (batch.len(), later_in_block),
                        &blocks[b..],
                        warmup,
                    );
                    if let Some(line) = line {
                        ctx.progress(&line);
                    }
                }
                for (c, scene, samples, uploaded, lod, triangles, skinned, invocations) in &scenes {
                    if scene.settings().animate != c.animate {
                        return Err(BenchError::Refused(format!(
                            "{}: the scene did not animate on the {}: {}",
                            c.name,
                            c.animate.name(),
                            scene.notes().join("; ")
                        )));
                    }
                    let mut r = row(c, scene, samples, uploaded, n, shadows, draws);
                    r.mesh_lod = c.mesh_lod;
                    r.triangles = median(triangles.clone());
                    r.vertices_skinned = median(skinned.clone());
                    r.skin_invocations = median(invocations.clone());
                    r.draw_records = scene.draw_records();
                    r.skinned_output_bytes = scene.skinned_output_bytes();
                    r.pool = scene.mesh_lod_reading().pool;
                    if c.pool.is_some() && r.pool.is_none() {
                        return Err(BenchError::Refused(format!(
                            "{}: no skinned pool: {}",
                            c.name,
                            scene.notes().join("; ")
                        )));
                    }
                    if c.lod {
                        r.lod = true;
                        r.lod_updated =
                            Some(median(lod.iter().map(|s| s.updated as f64).collect()));
                        r.lod_culled = Some(median(lod.iter().map(|s| s.culled as f64).collect()));
                    }
                    n_rows.push(r);
                }
            }
            let best_total = n_rows
                .iter()
                .find(|r| r.config.starts_with("best CPU"))
                .map(|r| r.cpu_total_us);
            for row in &mut n_rows {
                row.cpu_ratio_to_best_cpu = best_total.map_or(f64::NAN, |b| row.cpu_total_us / b);
            }
            rows.extend(n_rows);
        }
    }
    if rows.is_empty() && !refused.is_empty() {
        return Err(BenchError::Refused(format!(
            "every configuration was refused: {}",
            refused.join("; ")
        )));
    }
    Ok(GpuSection {
        adapter: gpu.summary.name.clone(),
        adapter_type: gpu.summary.device_type.clone(),
        cpu_adapter: gpu.summary.device_type.contains("Cpu"),
        threads,
        upload: upload.name(),
        size: ctx.options.size,
        camera: ctx.options.camera.name(),
        material: ctx.options.material.name(),
        rows,
        refused,
    })
}

/// Why `budget` refuses `c` at `n` characters (what the app would refuse), or `None`
/// where it fits. The CPU's rows are checked when their scene is made.
fn refusal(rig: &PreparedRig, c: &GpuConfig, n: usize, budget: &Budget) -> Option<String> {
    if c.animate != AnimateDevice::Gpu {
        return None;
    }
    let least = c.pool.map(PoolSize::least);
    crate::crowd::budget::check_animated_on_gpu(rig, &c.pipeline, n, least, budget)
        .err()
        .map(|e| format!("{} at {n} instances: {e}", c.name))
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// One configuration's row: medians over its measured frames.
fn row(
    c: &GpuConfig,
    scene: &crate::gpu::scene::Scene,
    samples: &[crate::crowd::StageTimings],
    uploaded: &[f64],
    n: usize,
    shadows: bool,
    draws: bool,
) -> GpuRow {
    let med =
        |f: &dyn Fn(&crate::crowd::StageTimings) -> f64| median(samples.iter().map(f).collect());
    let opt = |f: &dyn Fn(&crate::crowd::StageTimings) -> Option<f64>| {
        let v: Vec<f64> = samples.iter().filter_map(f).collect();
        (!v.is_empty()).then(|| median(v))
    };
    let upload = Stage::Upload.index();
    GpuRow {
        config: c.name.clone(),
        skin: scene.running_config().skin.name(),
        animate: c.animate,
        instances: n,
        shadows,
        draws,
        frames: samples.len(),
        cpu_stages_us: med(&|t| t.cpu_pipeline_us),
        upload_us: med(&|t| t.stage_us[upload]),
        cpu_total_us: med(&|t| t.cpu_pipeline_us + t.stage_us[upload]),
        encode_us: med(&|t| t.get(Stage::Render)),
        passes: PassColumns::from_fn(|pass| opt(&|t| t.gpu(pass))),
        gpu_frame_us: opt(&|t| t.gpu_frame_us),
        lod: false,
        lod_updated: None,
        lod_culled: None,
        mesh_lod: false,
        triangles: 0.0,
        vertices_skinned: 0.0,
        skin_invocations: 0.0,
        draw_records: [0, 0],
        skinned_output_bytes: 0,
        pool: None,
        uploaded_bytes: median(uploaded.to_vec()) as u64,
        cpu_ratio_to_best_cpu: 0.0,
    }
}

pub fn markdown(section: &GpuSection, s: &mut String) {
    let _ = writeln!(
        s,
        "## gpu: CPU against GPU skinning, whole frames\n\n\
         - adapter: {} ({}); pipeline threads {}; upload {}; offscreen target {}×{}; {} camera; \
         colours: {}\n",
        section.adapter,
        section.adapter_type,
        section.threads,
        section.upload,
        section.size.0,
        section.size.1,
        section.camera,
        match section.material {
            "tint" => "the tints (`--material tint`)",
            _ => "the file's materials where it has them",
        },
    );
    if section.cpu_adapter {
        *s += "**This adapter is a CPU emulation of a GPU (lavapipe or similar): its \
               timestamps measure software rasterisation and compute on the same CPU cores \
               that run the pipeline. The GPU columns are not GPU speed; compare them with \
               each other only.**\n\n";
    }
    if section.rows.iter().any(|r| !r.draws) {
        *s += "Rows with draws \"no\" measure a frame without the shadow and crowd passes \
               (the animation, and `gpu_compute`'s skinning): this adapter renders in \
               software, which takes minutes to draw that many characters.\n\n";
    }
    if !section.refused.is_empty() {
        *s += "Not measured: the memory budget refused these configurations (what the app \
               would refuse at that count), so the tables leave them out:\n\n";
        for line in &section.refused {
            let _ = writeln!(s, "- {line}");
        }
        *s += "\n";
    }
    let opt = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.0}"));
    use Align::{Left, Right};
    // Every table opens with the row's configuration, instances and shadows.
    let key_columns = [
        ("configuration", Left),
        ("instances", Right),
        ("shadows", Left),
    ];
    let table = |rest: &[(&str, Align)]| {
        Table::new(&key_columns.iter().chain(rest).copied().collect::<Vec<_>>())
    };
    let row_key = |r: &GpuRow| {
        [
            r.config.to_string(),
            r.instances.to_string(),
            if r.shadows { "on" } else { "off" }.to_string(),
        ]
    };
    *s += "### The CPU's part of a frame\n\n";
    let mut cpu = table(&[
        ("draws", Left),
        ("CPU", Right),
        ("upload", Right),
        ("CPU + upload", Right),
        ("CPU / best", Right),
        ("encode", Right),
        ("uploaded", Right),
    ]);
    for r in &section.rows {
        let ratio = if !r.cpu_ratio_to_best_cpu.is_finite() {
            "–".to_string()
        } else if r.cpu_ratio_to_best_cpu < 0.01 {
            // The GPU-animated rows: four decimals, or they would all read 0.00.
            format!("{:.4}×", r.cpu_ratio_to_best_cpu)
        } else {
            format!("{:.2}×", r.cpu_ratio_to_best_cpu)
        };
        let uploaded = if r.uploaded_bytes >= 100_000 {
            format!("{:.1} MB", r.uploaded_bytes as f64 / 1e6)
        } else {
            format!("{} B", r.uploaded_bytes)
        };
        cpu.row(row_key(r).into_iter().chain([
            if r.draws { "yes" } else { "no" }.to_string(),
            format!("{:.0}", r.cpu_stages_us),
            format!("{:.0}", r.upload_us),
            format!("{:.0}", r.cpu_total_us),
            ratio,
            format!("{:.0}", r.encode_us),
            uploaded,
        ]));
    }
    cpu.write(s);
    *s += "\nMedians per frame, µs. CPU = the pipeline's wall time (sample → skin; for the GPU \
           variants sample → palettes; none where the GPU animates). upload = getting that \
           output into the GPU's buffers (animated on the GPU: writing the changed characters' \
           records and the passes' parameters). CPU / best = (CPU + upload) over the best CPU \
           configuration's at the same instance count and shadow setting. encode = recording \
           the passes. uploaded = the bytes the CPU wrote for the GPU a frame.\n\n";
    *s += "### The GPU's passes\n\n";
    let mut passes = GpuPass::ALL
        .iter()
        .fold(table(&[("GPU frame", Right)]), |t, pass| {
            t.with_column(pass.row(), Right)
        });
    for r in &section.rows {
        passes.row(
            row_key(r)
                .into_iter()
                .chain([opt(r.gpu_frame_us)])
                .chain(GpuPass::ALL.iter().map(|&pass| opt(r.passes.get(pass)))),
        );
    }
    passes.write(s);
    *s += "\nMedians per frame, µs, from timestamp queries where the adapter has them. GPU \
           frame = submitting the frame until the GPU finished it (wall time: every pass \
           together, however the timestamps split them). sample, hierarchy, palette = the \
           animation's passes (`--animate gpu`); LOD = the pass that decides which characters \
           are recomputed and drawn, at which level; compute = `gpu_compute`'s skinning; \
           shadow, render = the two draw passes (with `gpu_vertex` each skins again). – = the \
           configuration has no such pass.\n\n";
    *s += "### What was recomputed, drawn and skinned\n\n";
    let mut work = table(&[
        ("recomputed", Right),
        ("culled", Right),
        ("triangles", Right),
        ("skinned", Right),
        ("invocations", Right),
        ("draw records", Right),
        ("skinned output", Right),
        ("pool in use (high-water), share", Right),
        ("drawn coarser, left out", Right),
    ]);
    for r in &section.rows {
        work.row(
            row_key(r).into_iter().chain([
                opt(r.lod_updated),
                opt(r.lod_culled),
                format!("{:.3} M", r.triangles / 1e6),
                format!("{:.3} M", r.vertices_skinned / 1e6),
                if r.skin_invocations > 0.0 {
                    format!("{:.3} M", r.skin_invocations / 1e6)
                } else {
                    "–".into()
                },
                if r.draws {
                    format!("{} + {}", r.draw_records[0], r.draw_records[1])
                } else {
                    "–".into()
                },
                if r.skinned_output_bytes > 0 {
                    format!("{:.1} MiB", mib(r.skinned_output_bytes))
                } else {
                    "–".into()
                },
                r.pool.map_or("–".into(), |p| {
                    format!(
                        "{:.1} MiB ({:.1} MiB) at {} %",
                        mib(p.in_use_bytes),
                        mib(p.high_water_bytes),
                        p.share_percent
                    )
                }),
                r.pool
                    .map_or("–".into(), |p| format!("{}, {}", p.demoted, p.left_out)),
            ]),
        );
    }
    work.write(s);
    *s += "\nMedians per frame. recomputed, culled = the characters the LOD pass recomputed \
           and culled (with LOD on the GPU). triangles = what the crowd pass drew, millions \
           (mesh LOD: each character at its level). skinned = vertices skinned, millions (the \
           CPU variants and `gpu_compute`: each recomputed character once, `gpu_compute` with \
           LOD on the GPU at its level; `gpu_vertex`: every vertex each pass draws, so more \
           than every vertex once). invocations = what `gpu_compute`'s skinning pass \
           launched, millions: the class shaders one per vertex of every character, skipping \
           those a character's level does not use; `per_level` one per vertex skinned, plus \
           one per character to sort them by level. draw records = the draw arguments the \
           crowd pass + the shadow pass read: one per character in view (and per character in \
           the shadow pass) with per_character draws, one per batch and mesh level with \
           per_level draws (`--draws`, rows animated on the GPU with LOD). skinned output = \
           the GPU memory `gpu_compute` skins into: a full-detail slot per character, or with \
           a skinned pool (`--skinned-pool`) the pool's share of that (`auto`: grown from \
           what the frames needed, up to what the memory budget allows). pool in use = the \
           skinned vertices the pool held in the last frame read back, and the most since it \
           was made; drawn coarser, left out = characters with vertices that it had no room \
           for at their own level in that frame, drawn at the coarsest level instead, and \
           those without room even there (drawn by no pass). A pool skins every character with vertices each frame, kept ones too: \
           compare its skinned column with the row without a pool.\n\n";
}

/// Configurations measured side by side: one instance count, shadows off or on.
struct Block<'a> {
    n: usize,
    shadows: bool,
    frames: usize,
    draws: bool,
    cpu_too: bool,
    chosen: Vec<&'a GpuConfig>,
}

/// How long the gpu workload has left, from the rounds measured so far: a round (one frame
/// of every configuration of a batch) is timed, and later blocks are estimated from it by
/// their instance counts and configuration counts (drawing and skinning grow about
/// linearly with the crowd). Said after a block's first round and then every 10 s.
#[derive(Default)]
struct Estimate {
    last_said: Option<std::time::Instant>,
}

impl Estimate {
    /// The line to print after round `round` of `rounds` took `secs` for the batch's
    /// configurations (`configs.0`; `configs.1` more of this block in later batches),
    /// `blocks[0]` being the current block; `None` when it is not time to.
    fn after_round(
        &mut self,
        secs: f64,
        round: usize,
        rounds: usize,
        configs: (usize, usize),
        blocks: &[Block<'_>],
        warmup: usize,
    ) -> Option<String> {
        let (configs, later_in_block) = configs;
        let due = round == 0
            || self
                .last_said
                .is_none_or(|t| t.elapsed() >= std::time::Duration::from_secs(10));
        if !due || round + 1 == rounds {
            return None;
        }
        self.last_said = Some(std::time::Instant::now());
        let later: Vec<(usize, usize, usize)> = blocks[1..]
            .iter()
            .map(|b| (b.n, b.chosen.len(), warmup + b.frames))
            .collect();
        let (this_block, later) = time_left(
            secs,
            (round, rounds),
            (configs, later_in_block),
            blocks[0].n,
            &later,
        );
        Some(format!(
            "  round {} of {rounds} took {secs:.1} s: about {} left in this block, {} in the gpu \
             workload (later blocks estimated from this round by their instance and \
             configuration counts)",
            round + 1,
            duration(this_block),
            duration(this_block + later),
        ))
    }
}

/// Seconds left in the current block and in the blocks after it, from one round of
/// `configs.0` configurations at `n` characters that took `secs` (round `round.0` of
/// `round.1`; `configs.1` more configurations of the block in later batches), the later
/// blocks given as (characters, configurations, rounds).
fn time_left(
    secs: f64,
    (round, rounds): (usize, usize),
    (configs, later_in_block): (usize, usize),
    n: usize,
    later: &[(usize, usize, usize)],
) -> (f64, f64) {
    let per_config_round = secs / configs.max(1) as f64;
    let this_block = secs * (rounds - round - 1) as f64
        + per_config_round * later_in_block as f64 * rounds as f64;
    let per_character = per_config_round / n.max(1) as f64;
    let after: f64 = later
        .iter()
        .map(|&(n, configs, rounds)| per_character * (n * configs * rounds) as f64)
        .sum();
    (this_block, after)
}

/// Seconds in words a reader takes in at a glance.
fn duration(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.0} s")
    } else if secs < 5400.0 {
        format!("{:.0} min", secs / 60.0)
    } else {
        format!("{:.1} h", secs / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skin::pool::PoolShare;

    /// Where the full slots do not fit the memory and the skinned pool does, the bench
    /// leaves the first out with the budget's reason and measures the second.
    #[test]
    fn the_budget_leaves_out_only_what_does_not_fit() {
        let rig = PreparedRig::reference();
        let pipeline = PipelineConfig {
            skin: SkinVariant::GpuCompute,
            ..PipelineConfig::best_for(&rig, 1)
        };
        let config = |pool: Option<PoolSize>| GpuConfig {
            name: format!("pool {pool:?}"),
            pipeline,
            shader: ComputeShader::PerLevel,
            animate: AnimateDevice::Gpu,
            hierarchy: GpuHierarchy::DEFAULT,
            lod: true,
            mesh_lod: true,
            draws: Draws::DEFAULT,
            pool,
        };
        // 100,000 full slots of the built-in rig are 4.8 GB; a tenth of them, plus the
        // animation's buffers, under 2 GB.
        let budget = Budget {
            memory_bytes: 3_000_000_000,
            available_bytes: None,
            gpu_buffer_bytes: None,
        };
        let full = refusal(&rig, &config(None), 100_000, &budget).expect("refused");
        assert!(
            full.contains("at 100000 instances") && full.contains("instances fit"),
            "{full}"
        );
        let pool = PoolShare::from_percent(10).unwrap();
        assert_eq!(
            refusal(&rig, &config(Some(PoolSize::Share(pool))), 100_000, &budget),
            None
        );
        // `auto` is accepted wherever its least share fits.
        assert_eq!(
            refusal(&rig, &config(Some(PoolSize::Auto)), 100_000, &budget),
            None
        );
        // The CPU's animation is checked by its scene, not here.
        let on_cpu = GpuConfig {
            animate: AnimateDevice::Cpu,
            ..config(None)
        };
        assert_eq!(refusal(&rig, &on_cpu, 100_000, &budget), None);
    }

    #[test]
    fn time_left_counts_this_block_and_scales_later_blocks() {
        // 9 configurations, a round of 4.5 s at 100 characters, round 1 of 4: 3 rounds left
        // here (13.5 s); a later block of 18 configurations, 4 rounds at 1,000 characters:
        // 0.005 s a configuration-character round × 1,000 × 18 × 4 = 360 s.
        let (here, after) = time_left(4.5, (0, 4), (9, 0), 100, &[(1000, 18, 4)]);
        assert!(
            (here - 13.5).abs() < 1e-9 && (after - 360.0).abs() < 1e-9,
            "{here} {after}"
        );
        // Batches of one: the batch's own rounds and the block's later batches.
        let (here, _) = time_left(2.0, (1, 3), (1, 4), 100_000, &[]);
        assert!((here - (2.0 + 4.0 * 2.0 * 3.0)).abs() < 1e-9, "{here}");
    }

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration(42.0), "42 s");
        assert_eq!(duration(600.0), "10 min");
        assert_eq!(duration(9000.0), "2.5 h");
    }
}
