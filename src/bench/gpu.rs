//! The `gpu` workload: CPU skinning against the two GPU skinning paths, one whole frame
//! each (CPU stages, upload, encoding, and GPU time per pass from timestamp queries),
//! rendered offscreen on whatever adapter exists.
//!
//! How it works: for each instance count and shadow setting, one [`Scene`] per
//! configuration (the best CPU variants; `gpu_vertex`; `gpu_compute` with each compute
//! shader), all on one device, render frames in interleaved rounds so every configuration
//! sees the same machine. A frame is the app's own ([`Scene::render_frame`]): the CPU
//! pipeline into the upload, `gpu_compute`'s compute pass, the sun's shadow pass, the crowd
//! pass into the offscreen target; then it waits for the GPU and reads its pass times. On a
//! CPU adapter (lavapipe) the GPU times are an emulation on the same cores: the report
//! says so.

use std::fmt::Write as _;

use serde::Serialize;

use super::measure::median;
use super::{BenchError, Context};
use crate::crowd::{PipelineConfig, Stage};
use crate::gpu::scene::Settings;
use crate::gpu::skin::ComputeShader;
use crate::gpu::upload::UploadVariant;
use crate::skin::{SkinDevice, SkinVariant};
use crate::variant::Variant;

/// Seconds each frame advances the clocks.
pub const FRAME_SECS: f32 = 1.0 / 60.0;

/// One measured configuration at one instance count (medians over the frames).
#[derive(Clone, Debug, Serialize)]
pub struct GpuRow {
    /// `best CPU (hierarchy / skin)`, `gpu_vertex`, `gpu_compute (per_class)`, ...
    pub config: String,
    pub skin: &'static str,
    pub instances: usize,
    /// Whether the sun's shadow pass ran (`gpu_vertex` skins again in it).
    pub shadows: bool,
    pub frames: usize,
    /// The CPU pipeline's wall time (sample → skin, or → palettes for GPU variants), µs.
    pub cpu_stages_us: f64,
    /// Getting the CPU's output into the GPU buffer, µs.
    pub upload_us: f64,
    /// `cpu_stages_us + upload_us` (each frame's sum, then the median).
    pub cpu_total_us: f64,
    /// Recording the shadow and crowd passes, µs.
    pub encode_us: f64,
    pub gpu_compute_us: Option<f64>,
    pub gpu_render_us: Option<f64>,
    pub gpu_shadow_us: Option<f64>,
    /// Bytes the CPU wrote for the GPU each frame (vertices, or palettes).
    pub uploaded_bytes: u64,
    /// `cpu_total_us` over the best CPU configuration's at the same instance count and
    /// shadow setting.
    pub cpu_ratio_to_best_cpu: f64,
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
    pub rows: Vec<GpuRow>,
}

/// Offscreen target size, pixels.
const SIZE: (u32, u32) = (640, 360);

pub fn run(ctx: &mut Context) -> Result<GpuSection, BenchError> {
    let gpu = ctx.gpu("gpu")?.clone();
    let rig = ctx.rig.clone();
    let quick = ctx.options.quick;
    let instance_counts = ctx
        .options
        .instances
        .map_or(vec![100, 1000, 10_000], |n| vec![n]);
    let (frames, warmup) = if quick { (3, 1) } else { (15, 3) };
    let threads = ctx.options.max_threads;
    let refusals = crate::gpu::skin::skin_refusals(&gpu);
    let best = PipelineConfig::best_for(&rig, threads);
    let mut configs: Vec<(String, PipelineConfig, ComputeShader)> = vec![(
        format!(
            "best CPU ({} / {})",
            best.hierarchy.name(),
            best.skin.name()
        ),
        best,
        ComputeShader::DEFAULT,
    )];
    for &skin in SkinVariant::ALL {
        if refusals.iter().any(|(s, _)| *s == skin) {
            continue;
        }
        let config = PipelineConfig { skin, ..best };
        match skin.spec().runs_on {
            SkinDevice::Cpu => {}
            SkinDevice::GpuVertex => {
                configs.push((skin.name().into(), config, ComputeShader::DEFAULT))
            }
            SkinDevice::GpuCompute => {
                for &shader in ComputeShader::ALL {
                    configs.push((
                        format!("{} ({})", skin.name(), shader.name()),
                        config,
                        shader,
                    ));
                }
            }
        }
    }
    let upload = UploadVariant::DEFAULT;
    let mut rows = Vec::new();
    for &n in &instance_counts {
        for shadows in [false, true] {
            let frames = if n >= 10_000 {
                (frames / 5).max(2)
            } else {
                frames
            };
            let mut scenes = Vec::new();
            for (name, config, shader) in &configs {
                let settings = Settings {
                    compute_shader: *shader,
                    shadows,
                    upload,
                    ..Settings::headless(*config, n)
                };
                let mut scene = ctx.scene("gpu", settings, SIZE)?;
                scene.wait_for_gpu_times = true;
                scenes.push((name.clone(), scene, Vec::new()));
            }
            ctx.progress(&format!(
                "gpu workload: {n} instances, shadows {}, {} configurations, {frames} frames each",
                if shadows { "on" } else { "off" },
                scenes.len(),
            ));
            for round in 0..warmup + frames {
                for (_, scene, samples) in &mut scenes {
                    let timings = scene.render_frame(FRAME_SECS)?;
                    if round >= warmup {
                        samples.push(timings);
                    }
                }
            }
            let mut n_rows: Vec<GpuRow> = scenes
                .iter()
                .map(|(name, scene, samples)| {
                    let med = |f: &dyn Fn(&crate::crowd::StageTimings) -> f64| {
                        median(samples.iter().map(f).collect())
                    };
                    let opt = |f: &dyn Fn(&crate::crowd::StageTimings) -> Option<f64>| {
                        let v: Vec<f64> = samples.iter().filter_map(f).collect();
                        (!v.is_empty()).then(|| median(v))
                    };
                    let upload = Stage::Upload.index();
                    GpuRow {
                        config: name.clone(),
                        skin: scene.pipeline.config().skin.name(),
                        instances: n,
                        shadows,
                        frames: samples.len(),
                        cpu_stages_us: med(&|t| t.cpu_pipeline_us),
                        upload_us: med(&|t| t.stage_us[upload]),
                        cpu_total_us: med(&|t| t.cpu_pipeline_us + t.stage_us[upload]),
                        encode_us: med(&|t| t.get(Stage::Render)),
                        gpu_compute_us: opt(&|t| t.gpu_compute_us),
                        gpu_render_us: opt(&|t| t.gpu_render_us),
                        gpu_shadow_us: opt(&|t| t.gpu_shadow_us),
                        uploaded_bytes: scene.pipeline.output_bytes(n) as u64,
                        cpu_ratio_to_best_cpu: 0.0,
                    }
                })
                .collect();
            let best_total = n_rows[0].cpu_total_us;
            for row in &mut n_rows {
                row.cpu_ratio_to_best_cpu = row.cpu_total_us / best_total;
            }
            rows.extend(n_rows);
        }
    }
    Ok(GpuSection {
        adapter: gpu.summary.name.clone(),
        adapter_type: gpu.summary.device_type.clone(),
        cpu_adapter: gpu.summary.device_type.contains("Cpu"),
        threads,
        upload: upload.name(),
        size: SIZE,
        rows,
    })
}

pub fn markdown(section: &GpuSection, s: &mut String) {
    let _ = writeln!(
        s,
        "## gpu: CPU against GPU skinning, whole frames\n\n\
         - adapter: {} ({}); pipeline threads {}; upload {}; offscreen target {}×{}\n",
        section.adapter,
        section.adapter_type,
        section.threads,
        section.upload,
        section.size.0,
        section.size.1,
    );
    if section.cpu_adapter {
        *s += "**This adapter is a CPU emulation of a GPU (lavapipe or similar): its \
               timestamps measure software rasterisation and compute on the same CPU cores \
               that run the pipeline. The GPU columns are not GPU speed; compare them with \
               each other only.**\n\n";
    }
    *s += "Medians per frame, µs. CPU = the pipeline's wall time (sample → skin; for the \
           GPU variants sample → palettes); upload = getting that output into the GPU \
           buffer; CPU / best = (CPU + upload) over the best CPU configuration's at the \
           same instance count; encode = recording the shadow and crowd passes.\n\n";
    *s += "| configuration | instances | shadows | CPU | upload | CPU + upload | CPU / best | encode | GPU compute | GPU shadow | GPU render | uploaded |\n";
    *s += "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for r in &section.rows {
        let opt = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.0}"));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.2}× | {:.0} | {} | {} | {} | {:.1} MB |",
            r.config,
            r.instances,
            if r.shadows { "on" } else { "off" },
            r.cpu_stages_us,
            r.upload_us,
            r.cpu_total_us,
            r.cpu_ratio_to_best_cpu,
            r.encode_us,
            opt(r.gpu_compute_us),
            opt(r.gpu_shadow_us),
            opt(r.gpu_render_us),
            r.uploaded_bytes as f64 / 1e6,
        );
    }
    let _ = writeln!(s);
}
