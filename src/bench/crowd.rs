//! The `crowd` workload: a big crowd (10,000 by default) from two fixed cameras,
//! update-rate LOD off and on, with 1 and 2 threads (and every core where there are more):
//! plan + CPU stages + upload per frame, render encoding, and the screen-space error LOD
//! caused, measured.
//!
//! How it works: one [`Scene`] (a 10,000 character buffer is 400 MB), the best CPU
//! variants, `staging_belt` upload, frames of a fixed 1/60 s. Each (camera, threads) pair
//! runs LOD off and on in alternating blocks, twice, each block after warm-up frames (the
//! first LOD frame computes everything, and its regrouping settles over a cycle). A frame
//! is the scene's own: it plans (LOD), runs the pipeline into the upload and submits it;
//! the shadow and crowd passes are recorded, timed, and dropped unsubmitted, once with
//! indirect draws and once one by one, in alternating order: rasterising 10,000 characters
//! on a software adapter takes seconds, and this workload measures the CPU. Every eighth
//! frame of an LOD block the error is measured over every visible stale character (not
//! timed).

use super::table::{Align, Table};
use std::fmt::Write as _;

use serde::Serialize;

use super::measure::median;
use super::{BenchError, Context};
use crate::crowd::lod::{
    FloorMeasurement, Lod, LodSettings, LodStats, PlanInput, UpdateFloor, fewest_updates,
};
use crate::crowd::{Pipeline, PipelineConfig, Stage};
use crate::gpu::camera::CameraStart;
use crate::gpu::scene::Frame;
use crate::gpu::scene::{Scene, Settings};
use crate::gpu::upload::UploadVariant;
use crate::prepare::PreparedRig;
use crate::variant::Variant;

/// Seconds each frame advances the clocks.
pub const FRAME_SECS: f32 = 1.0 / 60.0;

/// One measured configuration (medians over its frames).
#[derive(Clone, Debug, Serialize)]
pub struct CrowdRow {
    pub camera: &'static str,
    pub threads: usize,
    pub lod: bool,
    pub threshold_px: f32,
    /// Geometric LOD on: each character drawn at its level, and the CPU skins each group
    /// only for its members' finest level.
    pub mesh_lod: bool,
    pub frames: usize,
    /// LOD's planning, µs.
    pub plan_us: f64,
    /// The pipeline's wall time for the groups computed, µs.
    pub cpu_stages_us: f64,
    pub upload_us: f64,
    /// `plan_us + cpu_stages_us + upload_us`, each frame's sum, then the median.
    pub cpu_total_us: f64,
    /// `cpu_total_us` over both LODs off's at the same camera and threads.
    pub ratio_to_lod_off: f64,
    /// Vertices the CPU skinned per frame (median), and every character's every vertex.
    pub skinned_vertices: f64,
    pub full_vertices: u64,
    /// Joints the CPU posed (sampled, walked, written to palettes) per frame (median), and
    /// every character's every joint.
    pub joints_posed: f64,
    pub full_joints: u64,
    /// Of those, the joints whose clip tracks were sampled per frame (median): a level's
    /// held joints are posed at rest unsampled.
    pub joints_sampled: f64,
    /// Influences the CPU blended for those vertices per frame (median): fewer than the
    /// vertices' own where a level cuts them (`skin::influence_cuts`).
    pub influences_blended: f64,
    /// Bytes the upload copied to the GPU per frame (median: the parts the groups' levels
    /// wrote), and what copying every vertex of the same groups takes (median).
    pub copied_bytes: f64,
    pub every_vertex_bytes: f64,
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
    /// The largest screen-space error measured, pixels (LOD on), and over how many stale
    /// characters in all.
    pub measured_error_px: Option<f32>,
    pub measured_characters: usize,
    /// LOD on: the fewest characters any per-character schedule recomputes per frame at
    /// this threshold with this camera ([`fewest_updates`]).
    pub floor: Option<UpdateFloor>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CrowdSection {
    pub adapter: String,
    pub adapter_type: String,
    /// The adapter draws indirectly with a first instance (else both encode columns are
    /// the draws one by one).
    pub indirect_supported: bool,
    pub instances: usize,
    pub hierarchy: &'static str,
    pub skin: &'static str,
    pub upload: &'static str,
    pub size: (u32, u32),
    /// `--blend`: each character's cross-fade weight towards its next clip (0: none).
    pub blend_weight: f32,
    pub rows: Vec<CrowdRow>,
}

#[derive(Default)]
struct Samples {
    plan: Vec<f64>,
    cpu: Vec<f64>,
    upload: Vec<f64>,
    total: Vec<f64>,
    encode: Vec<f64>,
    encode_direct: Vec<f64>,
    commands: [usize; 2],
    updated: Vec<f64>,
    skinned: Vec<f64>,
    full_vertices: u64,
    posed: Vec<f64>,
    sampled: Vec<f64>,
    blended: Vec<f64>,
    copied: Vec<f64>,
    every_vertex: Vec<f64>,
    error_px: Option<f32>,
    measured: usize,
    stats: LodStats,
}

pub fn run(ctx: &mut Context) -> Result<CrowdSection, BenchError> {
    let gpu = ctx.gpu("crowd")?.clone();
    let rig = ctx.rig.clone();
    let quick = ctx.options.quick;
    let n = ctx.options.instances.unwrap_or(10_000);
    let (frames, warmup) = if quick { (8, 4) } else { (32, 16) };
    let thresholds_px: Vec<f32> = if quick { vec![1.0] } else { vec![1.0, 4.0] };
    let floor_sample = if quick { 100 } else { 1000 };
    let thread_counts = ctx.options.crowd_thread_counts();
    // The belt's chunks are reused frame after frame; `in_place` maps fresh staging
    // memory every frame, whose page faults at 10,000 characters cost more than the
    // skinning.
    let upload = UploadVariant::StagingBelt;
    let blend_weight = ctx.options.blend_weight;
    let config_for = |threads: usize| PipelineConfig {
        blend_weight,
        ..PipelineConfig::best_for(&rig, threads)
    };
    let settings = Settings {
        upload,
        base_colors: ctx.options.material,
        ..Settings::headless(config_for(1), n)
    };
    let mut scene = ctx.scene("crowd", settings)?;
    // This workload measures the error itself, every eighth frame, over every character.
    scene.set_lod_measure_every_secs(None);
    let most = thread_counts.iter().copied().max().unwrap_or(1);
    let mut aside = Pipeline::new(rig.clone(), config_for(most))?;
    let mut rows = Vec::new();
    // How long is left, from the blocks measured so far (each block is the same number of
    // frames of the same crowd, so the mean so far is a fair guess for the rest).
    let total_blocks =
        CameraStart::ALL.len() * thread_counts.len() * 2 * 2 * (1 + thresholds_px.len());
    let (mut done_blocks, mut block_secs) = (0usize, 0.0f64);
    if quick {
        ctx.progress(&format!(
            "crowd workload, --quick: every configuration ({total_blocks} blocks), with the \
             fewest frames ({warmup} warm-up and {frames} measured a block)"
        ));
    }
    for &camera_start in CameraStart::ALL {
        scene.set_camera(camera_start);
        // The draw lists and the camera for this view, so the floor sees what LOD sees.
        scene.prepare_draws(None);
        let floors = floor(
            &rig,
            &mut aside,
            &mut scene,
            &thresholds_px,
            floor_sample,
            ctx,
            camera_start,
        )?;
        for &threads in &thread_counts {
            // Update-rate LOD off and at each threshold, each with geometric LOD off and
            // on (at the same threshold; off at the first).
            let lod_settings: Vec<LodSettings> = [false, true]
                .into_iter()
                .flat_map(|mesh| {
                    std::iter::once(LodSettings {
                        mesh,
                        threshold_px: thresholds_px[0],
                        ..LodSettings::default()
                    })
                    .chain(thresholds_px.iter().map(move |&px| LodSettings {
                        enabled: true,
                        mesh,
                        threshold_px: px,
                        ..LodSettings::default()
                    }))
                })
                .collect();
            let mut samples: Vec<Samples> =
                lod_settings.iter().map(|_| Samples::default()).collect();
            for round in 0..2 {
                for (k, lod) in lod_settings.iter().enumerate() {
                    ctx.progress(&format!(
                        "crowd workload: {n} characters, {} camera, {threads} threads, LOD {}, mesh LOD {} (block {} of 2){}",
                        camera_start.name(),
                        if lod.enabled {
                            format!("on ({} px)", lod.threshold_px)
                        } else {
                            "off".into()
                        },
                        if lod.mesh { "on" } else { "off" },
                        round + 1,
                        if done_blocks > 0 {
                            let left = block_secs / done_blocks as f64
                                * (total_blocks - done_blocks) as f64;
                            format!(
                                "; {done_blocks} of {total_blocks} blocks done, about {left:.0} s left"
                            )
                        } else {
                            String::new()
                        }
                    ));
                    let block_start = std::time::Instant::now();
                    scene.settings_mut().pipeline = config_for(threads);
                    scene.settings_mut().lod = *lod;
                    // A block starts afresh: LOD recomputes everything on its first frame.
                    scene.restart_lod();
                    for frame in 0..warmup + frames {
                        // The frame without its passes: they are encoded below, both ways,
                        // and not submitted.
                        let timings = scene
                            .frame(Frame::headless(FRAME_SECS).without_draws())?
                            .timings;
                        let plan_us = scene.lod_stats().plan_us;
                        // Both ways of drawing, in alternating order.
                        let mut encode_us = [0.0; 2];
                        let mut commands = [0; 2];
                        for indirect in [frame % 2 == 0, frame % 2 == 1] {
                            let (us, recorded, drawn_indirect) =
                                scene.encode_draws_unsubmitted(indirect);
                            let way = usize::from(!drawn_indirect);
                            encode_us[way] = us;
                            commands[way] = recorded;
                        }
                        scene.wait_idle()?;
                        if frame < warmup {
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
                        s.updated.push(scene.lod_stats().updated as f64);
                        let (skinned, full) = scene.vertices_skinned();
                        s.skinned.push(skinned as f64);
                        s.full_vertices = full;
                        s.posed.push(scene.joints_posed() as f64);
                        s.sampled.push(scene.joints_sampled() as f64);
                        s.blended
                            .push(scene.influences_blended().unwrap_or(0) as f64);
                        let bytes = scene.upload_bytes();
                        s.copied.push(bytes.copied as f64);
                        s.every_vertex.push(bytes.every_vertex as f64);
                        s.stats = scene.lod_stats();
                        if lod.enabled && (frame - warmup) % 8 == 7 {
                            let error = scene.measure_lod_error(None)?;
                            s.error_px = Some(s.error_px.unwrap_or(0.0).max(error.max_px));
                            s.measured += error.compared;
                        }
                    }
                    done_blocks += 1;
                    block_secs += block_start.elapsed().as_secs_f64();
                }
            }
            let off_total = median(samples[0].total.clone());
            for (lod, s) in lod_settings.iter().zip(samples) {
                let total = median(s.total.clone());
                rows.push(CrowdRow {
                    camera: camera_start.name(),
                    threads,
                    lod: lod.enabled,
                    threshold_px: lod.threshold_px,
                    mesh_lod: lod.mesh,
                    frames: s.total.len(),
                    skinned_vertices: median(s.skinned),
                    full_vertices: s.full_vertices,
                    joints_posed: median(s.posed),
                    joints_sampled: median(s.sampled),
                    influences_blended: median(s.blended),
                    copied_bytes: median(s.copied),
                    every_vertex_bytes: median(s.every_vertex),
                    full_joints: (n * rig.joint_count()) as u64,
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
                        .find(|f| lod.enabled && !lod.mesh && f.threshold_px == lod.threshold_px)
                        .copied(),
                });
            }
        }
    }
    let config = PipelineConfig::best_for(&rig, 1);
    Ok(CrowdSection {
        adapter: gpu.summary.name.clone(),
        adapter_type: gpu.summary.device_type.clone(),
        indirect_supported: scene.indirect_supported(),
        instances: n,
        hierarchy: config.hierarchy.name(),
        skin: config.skin.name(),
        upload: upload.name(),
        size: ctx.options.size,
        blend_weight,
        rows,
    })
}

/// The floor at each threshold for the crowd seen by the scene's camera (see
/// [`fewest_updates`]): the crowd as it stands, each sampled character over a loop of the
/// rig's longest clip (at most ten seconds of frames).
fn floor(
    rig: &PreparedRig,
    aside: &mut Pipeline,
    scene: &mut Scene,
    thresholds_px: &[f32],
    sample: usize,
    ctx: &mut Context,
    camera: CameraStart,
) -> Result<Vec<UpdateFloor>, BenchError> {
    let settings = LodSettings {
        enabled: true,
        ..LodSettings::default()
    };
    ctx.progress(&format!(
        "crowd workload: {} camera: the fewest updates possible, {sample} characters' every frame",
        camera.name()
    ));
    let view = scene.lod_view();
    // One plan says who is in view (the same test LOD culls with).
    let mut lod = Lod::new();
    let mut crowd = scene.crowd().clone();
    lod.plan(
        &PlanInput {
            rig,
            settings,
            view: &view,
            world_from_model: scene.world_from_model(),
            frame_clip_secs: FRAME_SECS,
            blend_weight: aside.config().blend_weight,
            method: aside.config().method,
            mesh_errors: &[],
            shadow_level: None,
        },
        &mut crowd,
    );
    let longest_secs = rig
        .clips
        .iter()
        .map(|c| c.duration_secs)
        .fold(0.0f32, f32::max);
    let frames = ((longest_secs / FRAME_SECS).ceil() as usize).clamp(32, 600);
    let measurement = FloorMeasurement {
        crowd: crowd.as_slice(),
        visible: lod.visible(),
        world_from_model: scene.world_from_model(),
        view: &view,
        frame_clip_secs: FRAME_SECS,
        thresholds_px,
        max_period: settings.max_period,
        sample,
        frames,
    };
    Ok(fewest_updates(aside, &measurement)?)
}

pub fn markdown(section: &CrowdSection, s: &mut String) {
    let _ = writeln!(
        s,
        "## crowd: {} characters, update-rate and geometric LOD off and on\n\n\
         - adapter: {} ({}), indirect draws with a first instance: {}\n\
         - {} / {}; upload {}; LOD error measured in a {}×{} image; frames of 1/60 s\n{}{}",
        section.instances,
        section.adapter,
        section.adapter_type,
        if section.indirect_supported {
            "yes"
        } else {
            "no"
        },
        section.hierarchy,
        section.skin,
        section.upload,
        section.size.0,
        section.size.1,
        if section.blend_weight > 0.0 {
            format!(
                "- each character cross-fades towards its next clip at weight {} (`--blend`)\n",
                section.blend_weight
            )
        } else {
            String::new()
        },
        section
            .rows
            .iter()
            .find_map(|r| r.floor)
            .map_or(String::new(), |f| format!(
                "- fewest possible: {} visible characters per camera sampled, {} frames each\n",
                f.sampled, f.frames
            )),
    );
    *s += "\nMedians per frame, µs. CPU = the pipeline's wall time for the groups computed; \
           plan = LOD's planning (periods, culling, regrouping, levels); total = plan + CPU + \
           upload; / off = total over both LODs off's with the same camera and threads. Mesh \
           = geometric LOD (each character drawn at the coarsest level of its mesh's chain \
           within the threshold; the CPU skins each group of eight only for its members' \
           finest level, shadows included); skinned = vertices the CPU skinned per frame, and \
           their share of every character's every vertex; influences = what those vertices \
           blended (fewer than their own where a coarse level cuts them to its heaviest); \
           copied = bytes the upload copied to the GPU (of each updated group, only the parts \
           its level wrote), and their share of copying every vertex of the same groups; \
           posed = joints the CPU sampled, \
           walked and wrote palettes for per frame (with mesh LOD only each group's level's), \
           and their share of every character's every joint; sampled = of those, the joints \
           whose clip tracks were sampled (a level's held joints are posed at rest \
           unsampled). Encode = making the \
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
    use Align::{Left, Right};
    let mut table = Table::new(&[
        ("camera", Left),
        ("threads", Right),
        ("LOD", Left),
        ("mesh", Left),
        ("plan", Right),
        ("CPU", Right),
        ("upload", Right),
        ("total", Right),
        ("/ off", Right),
        ("encode indirect", Right),
        ("encode one by one", Right),
        ("commands", Right),
        ("updated / frame", Right),
        ("skinned / frame", Right),
        ("influences / frame", Right),
        ("copied / frame", Right),
        ("posed / frame", Right),
        ("sampled / frame", Right),
        ("fewest possible (any gap / 1-2-4-8)", Right),
        ("periods 1/2/4/8", Right),
        ("culled", Right),
        ("error", Right),
        ("compared", Right),
    ]);
    for r in &section.rows {
        let [p1, p2, p4, p8] = r.stats.at_period;
        table.row([
            r.camera.to_string(),
            r.threads.to_string(),
            if r.lod {
                format!("on ({} px)", r.threshold_px)
            } else {
                "off".into()
            },
            if r.mesh_lod { "on" } else { "off" }.to_string(),
            format!("{:.0}", r.plan_us),
            format!("{:.0}", r.cpu_stages_us),
            format!("{:.0}", r.upload_us),
            format!("{:.0}", r.cpu_total_us),
            format!("{:.2}×", r.ratio_to_lod_off),
            format!("{:.0}", r.encode_us),
            format!("{:.0}", r.encode_direct_us),
            format!("{} / {}", r.draw_commands[0], r.draw_commands[1]),
            format!("{:.0}", r.updated_mean),
            format!(
                "{:.0} ({:.0} %)",
                r.skinned_vertices,
                100.0 * r.skinned_vertices / r.full_vertices.max(1) as f64
            ),
            format!("{:.0}", r.influences_blended),
            format!(
                "{:.1} MB ({:.0} %)",
                r.copied_bytes / 1e6,
                100.0 * r.copied_bytes / r.every_vertex_bytes.max(1.0)
            ),
            format!(
                "{:.0} ({:.0} %)",
                r.joints_posed,
                100.0 * r.joints_posed / r.full_joints.max(1) as f64
            ),
            format!("{:.0}", r.joints_sampled),
            r.floor.map_or("–".to_string(), |f| {
                format!(
                    "{:.0} / {:.0}",
                    f.updates_per_frame, f.updates_per_frame_periods
                )
            }),
            format!("{p1} / {p2} / {p4} / {p8}"),
            r.stats.culled.to_string(),
            r.measured_error_px
                .map_or("–".to_string(), |e| format!("{e:.2} px")),
            r.measured_characters.to_string(),
        ]);
    }
    table.write(s);
    let _ = writeln!(s);
}
