//! The `crowd` bench workload (`skinbench bench --workload crowd`): a big crowd (10,000 by
//! default) from a fixed camera, update-rate LOD off and on, with 1 and 2 threads (and
//! every core where there are more): CPU stages + upload per frame, render encoding, and
//! the screen-space error LOD caused, measured.
//!
//! How it works: one renderer and skinned buffer shared by every configuration (a 10,000
//! character buffer is 400 MB), the best CPU variants, `staging_belt` upload, frames of a fixed
//! 1/60 s. Each (camera, threads) pair runs LOD off and on in alternating blocks, twice,
//! each block after warm-up frames (the first LOD frame computes everything, and its
//! regrouping settles over a cycle). A frame plans (LOD), runs the pipeline into the
//! upload and submits it; the crowd pass (shadow pass too) is recorded into an encoder of
//! its own and timed, then dropped unsubmitted: rasterising 10,000 characters on a
//! software adapter takes seconds, and this workload measures the CPU. Every eighth frame
//! of an LOD block the error is measured over every visible stale character (not timed).

use std::sync::Arc;
use std::time::Instant;

use glam::Vec2;
use serde::Serialize;

use super::renderer::{CameraStart, CrowdRenderer, FrameTargets, OrbitCamera};
use super::upload::{UploadVariant, Uploader};
use super::{GpuContext, crowd_extent, crowd_pass};
use crate::crowd::lod::{
    Lod, LodSettings, LodStats, PlanInput, UpdateFloor, fewest_updates, measure_error,
};
use crate::crowd::machine::Machine;
use crate::crowd::pipeline::available_threads;
use crate::crowd::{InstanceStore, Pipeline, PipelineConfig, Stage};
use crate::prepare::PreparedRig;
use crate::variant::Variant;

/// Seconds each frame advances the clocks.
pub const FRAME_SECS: f32 = 1.0 / 60.0;

/// One measured configuration (medians over its frames).
#[derive(Clone, Debug, Serialize)]
pub struct CrowdRow {
    pub camera: String,
    pub threads: usize,
    pub lod: bool,
    pub threshold_px: f32,
    pub frames: usize,
    /// LOD's planning, µs.
    pub plan_us: f64,
    /// The pipeline's wall time for the groups computed, µs.
    pub cpu_stages_us: f64,
    pub upload_us: f64,
    /// `plan_us + cpu_stages_us + upload_us`, each frame's sum, then the median.
    pub cpu_total_us: f64,
    /// `cpu_total_us` over LOD off's at the same camera and threads.
    pub ratio_to_lod_off: f64,
    /// Making the draw lists and recording the shadow and crowd passes with indirect
    /// draws (where the adapter has them), µs.
    pub encode_us: f64,
    /// The same with the draws one by one, µs.
    pub encode_direct_us: f64,
    /// Character draw commands of both passes: indirect, one by one.
    pub draw_commands: [usize; 2],
    /// Characters recomputed per frame (mean).
    pub updated_mean: f64,
    /// The last frame's periods, culling, moves.
    pub stats: LodStats,
    /// The largest screen-space error measured, pixels (LOD on), and over how many
    /// stale characters in all.
    pub measured_error_px: Option<f32>,
    pub measured_characters: usize,
    /// LOD on: the fewest characters any per-character schedule recomputes per frame at
    /// this threshold with this camera ([`fewest_updates`]).
    pub floor: Option<UpdateFloor>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CrowdReport {
    pub machine: Machine,
    pub adapter: String,
    pub adapter_type: String,
    /// The adapter draws indirectly with a first instance (else both encode columns are
    /// the draws one by one).
    pub indirect_supported: bool,
    pub rig: String,
    pub instances: usize,
    pub hierarchy: String,
    pub skin: String,
    pub upload: String,
    pub size: (u32, u32),
    pub rows: Vec<CrowdRow>,
}

#[derive(Clone, Debug)]
pub struct CrowdBenchOptions {
    pub instances: usize,
    /// Measured frames per block (two blocks per configuration).
    pub frames: usize,
    pub warmup: usize,
    pub thresholds_px: Vec<f32>,
    pub cameras: Vec<CameraStart>,
    pub threads: Vec<usize>,
    /// The image LOD's error is measured in, pixels.
    pub size: (u32, u32),
    /// Visible characters whose every frame the floor skins and compares, per camera.
    pub floor_sample: usize,
}

impl CrowdBenchOptions {
    pub fn new(quick: bool, instances: Option<usize>) -> Self {
        let cores = available_threads();
        let mut threads = vec![1];
        if cores >= 2 {
            threads.push(2);
        }
        if cores > 2 {
            threads.push(cores);
        }
        CrowdBenchOptions {
            instances: instances.unwrap_or(10_000),
            frames: if quick { 8 } else { 32 },
            warmup: if quick { 4 } else { 16 },
            thresholds_px: if quick { vec![1.0] } else { vec![1.0, 4.0] },
            cameras: CameraStart::ALL.to_vec(),
            threads,
            size: (1600, 900),
            floor_sample: if quick { 100 } else { 1000 },
        }
    }
}

#[derive(Default)]
struct Samples {
    plan: Vec<f64>,
    cpu: Vec<f64>,
    upload: Vec<f64>,
    total: Vec<f64>,
    encode: Vec<f64>,
    encode_direct: Vec<f64>,
    /// Character draw commands of both passes: indirect, one by one.
    commands: [usize; 2],
    updated: Vec<f64>,
    error_px: Option<f32>,
    measured: usize,
    stats: LodStats,
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs the workload on `gpu` (see the module docs).
pub fn run(
    gpu: &GpuContext,
    rig: Arc<PreparedRig>,
    options: &CrowdBenchOptions,
    mut progress: impl FnMut(&str),
) -> Result<CrowdReport, String> {
    let n = options.instances;
    if n == 0 {
        return Err("--instances must be at least 1".into());
    }
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let targets = FrameTargets::new(&gpu.device, format, options.size.0, options.size.1);
    let mut renderer = CrowdRenderer::new(&gpu.device, &rig, format);
    renderer.set_shadows(true);
    let mut uploader = Uploader::new(&gpu.device);
    // The belt's chunks are reused frame after frame: `in_place` maps fresh staging memory
    // every frame, and at 10,000 characters (400 MB) its first-touch page faults cost more
    // than the skinning (measured: 118 against ~25 ms a frame on two cores).
    let upload = UploadVariant::StagingBelt;
    let most = options.threads.iter().copied().max().unwrap_or(1);
    let best = PipelineConfig::best_for(&rig, most);
    let mut aside = Pipeline::new(rig.clone(), best).map_err(|e| e.to_string())?;
    let mut crowd = InstanceStore::new();
    crowd.resize(n, &rig, crate::crowd::instances::SPACING_METRES);
    let extent = crowd_extent(&crowd);
    let viewport = Vec2::new(options.size.0 as f32, options.size.1 as f32);
    let aspect = viewport.x / viewport.y;
    let mut rows = Vec::new();
    for &camera_start in &options.cameras {
        let camera = OrbitCamera::start(camera_start, extent);
        let view = camera.lod_view(viewport, extent + 12.0);
        let uniform = camera.uniform(aspect, extent + 12.0);
        let floors = floor(
            &rig,
            &mut aside,
            &mut crowd,
            &view,
            &renderer,
            options,
            |m| {
                progress(&format!(
                    "crowd workload: {} camera: {m}",
                    camera_start.name()
                ))
            },
        )?;
        for &threads in &options.threads {
            let config = PipelineConfig::best_for(&rig, threads);
            let mut pipeline = Pipeline::new(rig.clone(), config).map_err(|e| e.to_string())?;
            let settings: Vec<LodSettings> = std::iter::once(LodSettings::default())
                .chain(options.thresholds_px.iter().map(|&px| LodSettings {
                    enabled: true,
                    threshold_px: px,
                    max_period: 8,
                }))
                .collect();
            let mut samples: Vec<Samples> = settings.iter().map(|_| Samples::default()).collect();
            for round in 0..2 {
                for (k, lod_settings) in settings.iter().enumerate() {
                    progress(&format!(
                        "crowd workload: {n} characters, {} camera, {threads} threads, LOD {} (block {} of 2)",
                        camera_start.name(),
                        if lod_settings.enabled {
                            format!("on ({} px)", lod_settings.threshold_px)
                        } else {
                            "off".into()
                        },
                        round + 1
                    ));
                    let mut lod = Lod::new();
                    for frame in 0..options.warmup + options.frames {
                        crowd.advance(FRAME_SECS);
                        let input = PlanInput {
                            rig: &rig,
                            settings: *lod_settings,
                            view: &view,
                            world_from_model: renderer.world_from_model(),
                            frame_clip_secs: FRAME_SECS,
                            blend_weight: 0.0,
                            method: config.method,
                        };
                        lod.plan(&input, &mut crowd);
                        let plan_us = lod.stats.plan_us;
                        let mut encoder = gpu.device.create_command_encoder(&Default::default());
                        let timings = uploader
                            .frame_timed(
                                upload,
                                &gpu.device,
                                &gpu.queue,
                                &mut encoder,
                                &mut renderer,
                                &mut pipeline,
                                crowd.as_slice(),
                                lod.runs(),
                                None,
                            )
                            .map_err(|e| e.to_string())?;
                        renderer.update(&gpu.device, &gpu.queue, &uniform, crowd.as_slice());
                        gpu.queue.submit([encoder.finish()]);
                        uploader.after_submit();
                        // Both ways of drawing, in alternating order: the draw lists and
                        // the recorded passes, timed.
                        let mut encode_us = [0.0; 2];
                        let mut commands = [0; 2];
                        for indirect in [frame % 2 == 0, frame % 2 == 1] {
                            renderer.set_indirect_draws(indirect);
                            let encode_start = Instant::now();
                            renderer.prepare_draws(
                                &gpu.queue,
                                &gpu.device,
                                pipeline.output_layout(),
                                n,
                                lod_settings.enabled.then_some(lod.visible()),
                            );
                            let mut draw = gpu.device.create_command_encoder(&Default::default());
                            crowd_pass(
                                &mut draw,
                                &targets,
                                &renderer,
                                pipeline.output_layout(),
                                n,
                                None,
                                None,
                                None,
                            );
                            let recorded = draw.finish();
                            let way = usize::from(!renderer.indirect_draws());
                            encode_us[way] = encode_start.elapsed().as_secs_f64() * 1e6;
                            commands[way] = renderer.draw_commands().iter().sum();
                            drop(recorded);
                        }
                        renderer.set_indirect_draws(true);
                        gpu.device
                            .poll(wgpu::PollType::wait_indefinitely())
                            .map_err(|e| format!("waiting for the GPU: {e}"))?;
                        if frame < options.warmup {
                            continue;
                        }
                        let s = &mut samples[k];
                        let cpu = timings.cpu_pipeline_us;
                        let up = timings.stage_us[Stage::Upload.index()];
                        s.plan.push(plan_us);
                        s.cpu.push(cpu);
                        s.upload.push(up);
                        s.total.push(plan_us + cpu + up);
                        s.encode.push(encode_us[0]);
                        s.encode_direct.push(encode_us[1]);
                        s.commands = commands;
                        s.updated.push(lod.stats.updated as f64);
                        s.stats = lod.stats;
                        if lod_settings.enabled && (frame - options.warmup) % 8 == 7 {
                            let error = measure_error(
                                &mut aside,
                                lod.shown(),
                                crowd.as_slice(),
                                lod.visible(),
                                renderer.world_from_model(),
                                &view,
                                None,
                            )
                            .map_err(|e| e.to_string())?;
                            s.error_px = Some(s.error_px.unwrap_or(0.0).max(error.max_px));
                            s.measured += error.compared;
                        }
                    }
                }
            }
            let off_total = median(samples[0].total.clone());
            for (lod_settings, s) in settings.iter().zip(samples) {
                let total = median(s.total.clone());
                rows.push(CrowdRow {
                    camera: camera_start.name().into(),
                    threads,
                    lod: lod_settings.enabled,
                    threshold_px: lod_settings.threshold_px,
                    frames: s.total.len(),
                    plan_us: median(s.plan),
                    cpu_stages_us: median(s.cpu),
                    upload_us: median(s.upload),
                    cpu_total_us: total,
                    ratio_to_lod_off: total / off_total,
                    encode_us: median(s.encode),
                    encode_direct_us: median(s.encode_direct),
                    draw_commands: s.commands,
                    updated_mean: s.updated.iter().sum::<f64>() / s.updated.len().max(1) as f64,
                    stats: s.stats,
                    measured_error_px: s.error_px,
                    measured_characters: s.measured,
                    floor: floors
                        .iter()
                        .find(|f| {
                            lod_settings.enabled && f.threshold_px == lod_settings.threshold_px
                        })
                        .copied(),
                });
            }
        }
    }
    let config = PipelineConfig::best_for(&rig, 1);
    Ok(CrowdReport {
        machine: Machine::detect(),
        adapter: gpu.summary.name.clone(),
        adapter_type: gpu.summary.device_type.clone(),
        indirect_supported: gpu
            .device
            .features()
            .contains(wgpu::Features::INDIRECT_FIRST_INSTANCE),
        rig: rig.name.clone(),
        instances: n,
        hierarchy: config.hierarchy.name().into(),
        skin: config.skin.name().into(),
        upload: upload.name().into(),
        size: options.size,
        rows,
    })
}

/// The floor at each threshold for the crowd seen through `view` (see
/// [`fewest_updates`]): the crowd as it stands, each sampled character over a loop of the
/// rig's longest clip (at most ten seconds of frames).
#[allow(clippy::too_many_arguments)] // the bench's parts the measurement reads
fn floor(
    rig: &PreparedRig,
    aside: &mut Pipeline,
    crowd: &mut InstanceStore,
    view: &crate::crowd::lod::LodView,
    renderer: &CrowdRenderer,
    options: &CrowdBenchOptions,
    mut progress: impl FnMut(&str),
) -> Result<Vec<UpdateFloor>, String> {
    let settings = LodSettings {
        enabled: true,
        ..LodSettings::default()
    };
    progress(&format!(
        "the fewest updates possible, {} characters' every frame",
        options.floor_sample
    ));
    // One plan says who is in view (the same test LOD culls with).
    let mut lod = Lod::new();
    lod.plan(
        &PlanInput {
            rig,
            settings,
            view,
            world_from_model: renderer.world_from_model(),
            frame_clip_secs: FRAME_SECS,
            blend_weight: 0.0,
            method: aside.config().method,
        },
        crowd,
    );
    let longest_secs = rig
        .clips
        .iter()
        .map(|c| c.duration_secs)
        .fold(0.0f32, f32::max);
    let frames = ((longest_secs / FRAME_SECS).ceil() as usize).clamp(32, 600);
    fewest_updates(
        aside,
        crowd.as_slice(),
        lod.visible(),
        renderer.world_from_model(),
        view,
        FRAME_SECS,
        &options.thresholds_px,
        settings.max_period,
        options.floor_sample,
        frames,
    )
    .map_err(|e| e.to_string())
}

/// The report as Markdown.
pub fn markdown(report: &CrowdReport) -> String {
    let m = &report.machine;
    let mut s = format!(
        "# skinbench crowd workload — {}\n\n\
         - CPU: {} ({} threads), best SIMD level {}\n\
         - adapter: {} ({}), indirect draws with a first instance: {}\n\
         - rig: {}; {} characters; {} / {}; upload {}; LOD error measured in a {}×{} image; \
         frames of 1/60 s\n\
         - build: {} {}, rustc {}, git {}\n{}\n",
        m.date,
        m.cpu,
        m.cores,
        m.simd,
        report.adapter,
        report.adapter_type,
        if report.indirect_supported {
            "yes"
        } else {
            "no"
        },
        report.rig,
        report.instances,
        report.hierarchy,
        report.skin,
        report.upload,
        report.size.0,
        report.size.1,
        m.profile,
        m.os,
        m.rustc,
        m.git_sha,
        report
            .rows
            .iter()
            .find_map(|r| r.floor)
            .map_or(String::new(), |f| format!(
                "- fewest possible: {} visible characters per camera sampled, {} frames each\n",
                f.sampled, f.frames
            )),
    );
    s += "Medians per frame, µs. CPU = the pipeline's wall time for the groups computed; \
          plan = LOD's planning (periods, culling, regrouping); total = plan + CPU + upload; \
          / off = total over LOD off's with the same camera and threads. Encode = making the \
          draw lists and recording the shadow and crowd passes (not submitted: this workload \
          measures the CPU), with indirect multi-draws and with the same draws one by one \
          (each frame both, in alternating order); commands = character draw commands of \
          both passes. \
          Periods: characters drawn at 1/2/4/8 frames in the last frame, and culled. Error = \
          the largest screen-space displacement between the LOD frame and a full-rate frame, \
          over every visible stale character, every eighth frame. Fewest possible = the \
          fewest characters per frame that any per-character schedule could recompute with \
          every vertex kept within the threshold (culled characters every eighth frame, as \
          LOD gives them), with gaps of any length from 1 to 8 frames and with LOD's 1, 2, \
          4 or 8: the exact error of every skipped frame, skinned and projected for a \
          sample of the visible characters over a loop of the longest clip, and the \
          shortest schedule through it (`crowd::lod::fewest_updates`); what no bound can \
          beat.\n\n";
    s += "| camera | threads | LOD | plan | CPU | upload | total | / off | encode indirect | encode one by one | commands | updated / frame | fewest possible (any gap / 1-2-4-8) | periods 1/2/4/8 | culled | error | compared |\n";
    s += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for r in &report.rows {
        let [p1, p2, p4, p8] = r.stats.at_period;
        s += &format!(
            "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2}× | {:.0} | {:.0} | {} / {} | {:.0} | {} | {p1} / {p2} / {p4} / {p8} | {} | {} | {} |\n",
            r.camera,
            r.threads,
            if r.lod {
                format!("on ({} px)", r.threshold_px)
            } else {
                "off".into()
            },
            r.plan_us,
            r.cpu_stages_us,
            r.upload_us,
            r.cpu_total_us,
            r.ratio_to_lod_off,
            r.encode_us,
            r.encode_direct_us,
            r.draw_commands[0],
            r.draw_commands[1],
            r.updated_mean,
            r.floor.map_or("–".to_string(), |f| format!(
                "{:.0} / {:.0}",
                f.updates_per_frame, f.updates_per_frame_periods
            )),
            r.stats.culled,
            r.measured_error_px
                .map_or("–".to_string(), |e| format!("{e:.2} px")),
            r.measured_characters,
        );
    }
    s
}
