//! The `gpu` bench workload (`skinbench bench --workload gpu`): CPU skinning against the
//! two GPU skinning paths, one whole frame each (CPU stages, upload, encoding, and GPU time
//! per pass from timestamp queries), rendered offscreen on whatever adapter exists.
//!
//! How it works: for each instance count, one scene per configuration (the best CPU
//! variants; `gpu_vertex`; `gpu_compute` with each compute shader), all sharing one device,
//! run frames in interleaved rounds so every configuration sees the same machine, with
//! shadows off and on. A frame is the app's: the CPU pipeline into the upload buffer
//! (`in_place`), `gpu_compute`'s compute pass, the sun's shadow pass, the crowd pass into
//! an offscreen target; then the frame waits for the GPU and reads its timestamps back. On a CPU adapter (lavapipe) the GPU times are an
//! emulation on the same cores: the report says so.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use super::renderer::{CrowdRenderer, FrameTargets, OrbitCamera};
use super::skin::ComputeShader;
use super::upload::{UploadVariant, Uploader};
use super::{GpuContext, crowd_extent, crowd_pass};
use crate::crowd::machine::Machine;
use crate::crowd::{InstanceStore, Pipeline, PipelineConfig, Stage};
use crate::prepare::PreparedRig;
use crate::skin::{SkinDevice, SkinVariant};
use crate::variant::Variant;

/// One measured configuration at one instance count (medians over the frames).
#[derive(Clone, Debug, Serialize)]
pub struct GpuRow {
    /// `best CPU (hierarchy/skin)`, `gpu_vertex`, `gpu_compute (per_class)`, ...
    pub config: String,
    pub skin: String,
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
    /// Recording the crowd pass (and the compute pass), µs.
    pub encode_us: f64,
    /// GPU time of the compute pass (`gpu_compute` only), µs.
    pub gpu_compute_us: Option<f64>,
    /// GPU time of the crowd pass, µs.
    pub gpu_render_us: Option<f64>,
    /// GPU time of the shadow pass, µs (shadows on).
    pub gpu_shadow_us: Option<f64>,
    /// Bytes the CPU wrote for the GPU each frame (vertices, or palettes).
    pub uploaded_bytes: u64,
    /// `cpu_total_us` over the best CPU configuration's at the same instance count and
    /// shadow setting.
    pub cpu_ratio_to_best_cpu: f64,
}

/// The whole workload's result.
#[derive(Clone, Debug, Serialize)]
pub struct GpuReport {
    pub machine: Machine,
    pub adapter: String,
    pub adapter_type: String,
    /// Whether the adapter is a CPU emulation (its GPU times are not GPU speed).
    pub cpu_adapter: bool,
    pub rig: String,
    pub threads: usize,
    pub upload: String,
    pub size: (u32, u32),
    pub rows: Vec<GpuRow>,
}

/// What the workload measures.
#[derive(Clone, Debug)]
pub struct GpuBenchOptions {
    pub instances: Vec<usize>,
    /// Measured frames per configuration (a fifth of them, at least 2, from 10,000
    /// instances on, where a software adapter takes seconds a frame).
    pub frames: usize,
    /// Shadows off, on, or both.
    pub shadows: Vec<bool>,
    pub warmup: usize,
    /// Offscreen target size, pixels.
    pub size: (u32, u32),
}

impl GpuBenchOptions {
    pub fn new(quick: bool, instances: Option<usize>) -> Self {
        GpuBenchOptions {
            instances: instances.map_or(vec![100, 1000, 10_000], |n| vec![n]),
            frames: if quick { 3 } else { 15 },
            shadows: vec![false, true],
            warmup: if quick { 1 } else { 3 },
            size: (640, 360),
        }
    }
}

/// One configuration's scene.
struct Scene {
    name: String,
    skin: SkinVariant,
    pipeline: Pipeline,
    renderer: CrowdRenderer,
    uploader: Uploader,
    samples: Vec<FrameSample>,
}

#[derive(Clone, Copy, Default)]
struct FrameSample {
    cpu_stages_us: f64,
    upload_us: f64,
    encode_us: f64,
    gpu_compute_us: Option<f64>,
    gpu_render_us: Option<f64>,
    gpu_shadow_us: Option<f64>,
}

/// Runs the workload on `gpu` (see the module docs).
pub fn run(
    gpu: &GpuContext,
    rig: Arc<PreparedRig>,
    options: &GpuBenchOptions,
    mut progress: impl FnMut(&str),
) -> Result<GpuReport, String> {
    if options.instances.contains(&0) {
        return Err("--instances must be at least 1".into());
    }
    let refusals = super::skin::skin_refusals(gpu);
    let threads = crate::crowd::pipeline::available_threads();
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
    let timestamps = gpu
        .device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY);
    let queries = timestamps.then(|| {
        gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("bench timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 6,
        })
    });
    let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench timestamps resolved"),
        size: 48,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench timestamps readback"),
        size: 48,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let period_ns = gpu.queue.get_timestamp_period() as f64;
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let targets = FrameTargets::new(&gpu.device, format, options.size.0, options.size.1);
    let upload = UploadVariant::DEFAULT;
    let mut rows = Vec::new();
    for (&n, &shadows) in options
        .instances
        .iter()
        .flat_map(|n| options.shadows.iter().map(move |s| (n, s)))
    {
        let frames = if n >= 10_000 {
            (options.frames / 5).max(2)
        } else {
            options.frames
        };
        let mut crowd = InstanceStore::new();
        crowd.resize(n, &rig, 2.0);
        let camera = OrbitCamera::framing(crowd_extent(&crowd));
        let aspect = options.size.0 as f32 / options.size.1 as f32;
        let uniform = camera.uniform(aspect, crowd_extent(&crowd) + 10.0);
        let mut scenes = Vec::new();
        for (name, config, shader) in &configs {
            let mut renderer = CrowdRenderer::new(&gpu.device, &rig, format);
            renderer.set_compute_shader(*shader);
            renderer.set_shadows(shadows);
            scenes.push(Scene {
                name: name.clone(),
                skin: config.skin,
                pipeline: Pipeline::new(rig.clone(), *config).map_err(|e| e.to_string())?,
                renderer,
                uploader: Uploader::new(&gpu.device),
                samples: Vec::new(),
            });
        }
        progress(&format!(
            "gpu workload: {n} instances, shadows {}, {} configurations, {frames} frames each",
            if shadows { "on" } else { "off" },
            scenes.len(),
        ));
        for round in 0..options.warmup + frames {
            for scene in &mut scenes {
                crowd.advance(1.0 / 60.0);
                let mut encoder = gpu.device.create_command_encoder(&Default::default());
                let compute_writes = queries.as_ref().map(|q| wgpu::ComputePassTimestampWrites {
                    query_set: q,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                });
                let timings = scene
                    .uploader
                    .frame_timed(
                        upload,
                        &gpu.device,
                        &gpu.queue,
                        &mut encoder,
                        &mut scene.renderer,
                        &mut scene.pipeline,
                        crowd.as_slice(),
                        std::slice::from_ref(&(0..n.div_ceil(crate::types::LANES))),
                        compute_writes,
                    )
                    .map_err(|e| format!("{}: {e}", scene.name))?;
                let encode_start = Instant::now();
                scene
                    .renderer
                    .update(&gpu.device, &gpu.queue, &uniform, crowd.as_slice());
                scene.renderer.prepare_draws(
                    &gpu.queue,
                    &gpu.device,
                    scene.pipeline.output_layout(),
                    n,
                    None,
                );
                let render_writes = queries.as_ref().map(|q| wgpu::RenderPassTimestampWrites {
                    query_set: q,
                    beginning_of_pass_write_index: Some(2),
                    end_of_pass_write_index: Some(3),
                });
                let shadow_writes = queries.as_ref().map(|q| wgpu::RenderPassTimestampWrites {
                    query_set: q,
                    beginning_of_pass_write_index: Some(4),
                    end_of_pass_write_index: Some(5),
                });
                crowd_pass(
                    &mut encoder,
                    &targets,
                    &scene.renderer,
                    scene.pipeline.output_layout(),
                    n,
                    None,
                    render_writes,
                    shadow_writes,
                );
                if let Some(q) = &queries {
                    encoder.resolve_query_set(q, 0..6, &resolve, 0);
                    encoder.copy_buffer_to_buffer(&resolve, 0, &readback, 0, 48);
                }
                let encode_us = encode_start.elapsed().as_secs_f64() * 1e6;
                gpu.queue.submit([encoder.finish()]);
                scene.uploader.after_submit();
                let (gpu_compute_us, gpu_render_us, gpu_shadow_us) = if queries.is_some() {
                    let data = super::map_for_reading(&gpu.device, &readback)?;
                    let t: Vec<u64> = bytemuck::cast_slice::<u8, u64>(&data).to_vec();
                    drop(data);
                    readback.unmap();
                    let span = |a: u64, b: u64| b.saturating_sub(a) as f64 * period_ns / 1000.0;
                    let compute = (scene.skin.spec().runs_on == SkinDevice::GpuCompute)
                        .then(|| span(t[0], t[1]));
                    let shadow = shadows.then(|| span(t[4], t[5]));
                    (compute, Some(span(t[2], t[3])), shadow)
                } else {
                    gpu.device
                        .poll(wgpu::PollType::wait_indefinitely())
                        .map_err(|e| format!("waiting for the GPU: {e}"))?;
                    (None, None, None)
                };
                if round >= options.warmup {
                    scene.samples.push(FrameSample {
                        cpu_stages_us: timings.cpu_pipeline_us,
                        upload_us: timings.stage_us[Stage::Upload.index()],
                        encode_us,
                        gpu_compute_us,
                        gpu_render_us,
                        gpu_shadow_us,
                    });
                }
            }
        }
        let mut n_rows: Vec<GpuRow> = scenes
            .iter()
            .map(|scene| {
                let med =
                    |f: &dyn Fn(&FrameSample) -> f64| median(scene.samples.iter().map(f).collect());
                let opt = |f: &dyn Fn(&FrameSample) -> Option<f64>| {
                    let v: Vec<f64> = scene.samples.iter().filter_map(f).collect();
                    (!v.is_empty()).then(|| median(v))
                };
                GpuRow {
                    config: scene.name.clone(),
                    skin: scene.skin.name().into(),
                    instances: n,
                    shadows,
                    frames: scene.samples.len(),
                    cpu_stages_us: med(&|s| s.cpu_stages_us),
                    upload_us: med(&|s| s.upload_us),
                    cpu_total_us: med(&|s| s.cpu_stages_us + s.upload_us),
                    encode_us: med(&|s| s.encode_us),
                    gpu_compute_us: opt(&|s| s.gpu_compute_us),
                    gpu_render_us: opt(&|s| s.gpu_render_us),
                    gpu_shadow_us: opt(&|s| s.gpu_shadow_us),
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
    Ok(GpuReport {
        machine: Machine::detect(),
        adapter: gpu.summary.name.clone(),
        adapter_type: gpu.summary.device_type.clone(),
        cpu_adapter: gpu.summary.device_type.contains("Cpu"),
        rig: rig.name.clone(),
        threads,
        upload: upload.name().into(),
        size: options.size,
        rows,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The report as Markdown.
pub fn markdown(report: &GpuReport) -> String {
    let m = &report.machine;
    let mut s = format!(
        "# skinbench gpu workload — {}\n\n\
         - CPU: {} ({} threads), best SIMD level {}\n\
         - adapter: {} ({})\n\
         - rig: {}; pipeline threads: {}; upload: {}; offscreen target {}×{}\n\
         - build: {} {}, rustc {}, git {}\n\n",
        m.date,
        m.cpu,
        m.cores,
        m.simd,
        report.adapter,
        report.adapter_type,
        report.rig,
        report.threads,
        report.upload,
        report.size.0,
        report.size.1,
        m.profile,
        m.os,
        m.rustc,
        m.git_sha,
    );
    if report.cpu_adapter {
        s += "**This adapter is a CPU emulation of a GPU (lavapipe or similar): its \
              timestamps measure software rasterisation and compute on the same CPU cores \
              that run the pipeline. The GPU columns are not GPU speed; compare them with \
              each other only.**\n\n";
    }
    s += "Medians per frame, µs. CPU = the pipeline's wall time (sample → skin; for the \
          GPU variants sample → palettes); upload = getting that output into the GPU \
          buffer; CPU / best = (CPU + upload) over the best CPU configuration's at the same \
          instance count.\n\n";
    s += "| configuration | instances | shadows | CPU | upload | CPU + upload | CPU / best | encode | GPU compute | GPU shadow | GPU render | uploaded |\n";
    s += "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for r in &report.rows {
        let opt = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.0}"));
        s += &format!(
            "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.2}× | {:.0} | {} | {} | {} | {:.1} MB |\n",
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
    s
}
