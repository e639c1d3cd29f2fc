//! What the panel shows, computed once a frame: the panel draws it and a screenshot's
//! sidecar writes it, so the numbers in a picture and in its sidecar are the same numbers.
//!
//! How it works: [`PanelReadings::take`] picks one [`FrameSpan`] (the latest frame whose
//! duration is known and the ones before it within the last second of frame time: the
//! window learns a frame's duration when the next one begins) and computes every timing row,
//! the frame rate and the CPU total over exactly those frames. The scene keeps the
//! readings of the last panel it drew; a screenshot of that frame saves them.

use std::time::Duration;

use crate::crowd::lod::{LodStats, MeasuredError};
use crate::crowd::pipeline::MemoryReport;
use crate::crowd::timing::FrameSpan;
use crate::crowd::{AnimateDevice, Stage, StageTimings, TimingHistory};
use crate::gpu::pass::{FrameConditions, PassRuns};
use crate::gpu::scene::frame_passes::GpuPass;
use crate::skin::SkinVariant;
use crate::variant::Variant;

/// The frame time a reading averages over ...
pub const READING_WINDOW: Duration = Duration::from_secs(1);
/// ... and the frames it averages at least, however long they take (where the history
/// holds them): on a software renderer a frame can take half a second, and the mean of two
/// swung by a factor of three from one run to the next.
pub const READING_MIN_FRAMES: usize = 10;

/// One row of the timing table.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TimingRow {
    /// The label the panel draws.
    pub label: String,
    /// The stage's name, or `gpu_render`, `gpu_shadow`, `gpu_compute`, and with the
    /// animation on the GPU `gpu_sample`, `gpu_hierarchy`, `gpu_palette`.
    pub key: &'static str,
    pub mean_us: f64,
    pub p95_us: f64,
    /// A CPU row's mean over the frame's mean duration, a GPU pass's over the mean of the
    /// GPU's passes together, percent: each row is part of what it is divided by, so at most
    /// 100 (none where that is zero).
    pub share_percent: Option<f64>,
}

/// LOD's line: what it did in the last frame and the last measured error.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LodReading {
    pub stats: LodStats,
    pub measured_error: Option<Result<MeasuredError, String>>,
}

/// Everything the panel's header, timing table and memory lines show.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PanelReadings {
    /// The frames every number below averages.
    pub span: FrameSpan,
    pub frame_mean_us: f64,
    pub fps: f64,
    pub rows: Vec<TimingRow>,
    /// The CPU's part of a frame: the LOD plan, the pipeline's stages, the upload and the
    /// encoding and submission of the draws (mean µs). On a software renderer the GPU rows dominate the frame and the
    /// share column, so this is the figure to read there.
    pub cpu_total_us: f64,
    /// `cpu_total_us` per character.
    pub cpu_per_instance_us: f64,
    pub instances: usize,
    /// Bytes the CPU writes for the GPU each frame, and what they are.
    pub uploaded_bytes: u64,
    pub uploads: &'static str,
    /// What copying every vertex of the groups the frame updated takes, bytes: what
    /// `uploaded_bytes` would be without the parts the groups' levels left unwritten.
    pub updated_bytes: u64,
    /// The copies the upload recorded for them (`None`: not counted, while the GPU
    /// animates).
    pub upload_copies: Option<u64>,
    pub memory: MemoryReport,
    pub lod: Option<LodReading>,
    pub mesh_lod: Option<MeshLodReading>,
}

/// What geometric LOD drew in the latest frame.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MeshLodReading {
    /// Drawn characters at each level of the chain, finest first.
    pub at_level: Vec<usize>,
    /// Each level's triangles.
    pub level_triangles: Vec<usize>,
    /// Triangles the main pass draws, and what it would draw at full detail.
    pub triangles: u64,
    pub full_triangles: u64,
    /// The level every character takes in the shadow pass.
    pub shadow_level: u8,
    /// Vertices skinned this frame ([`super::Scene::vertices_skinned`]), and what every
    /// character's every vertex would be.
    pub skinned_vertices: u64,
    pub full_vertices: u64,
    /// Influences those vertices blended ([`super::Scene::influences_blended`]): fewer
    /// than their own where a level cuts them; `None` where a pool skins.
    pub influences_blended: Option<u64>,
    /// Joints posed this frame ([`super::Scene::joints_posed`]), and every character's
    /// every joint.
    pub joints_posed: u64,
    pub full_joints: u64,
    /// Of those, the joints whose clip tracks were sampled ([`super::Scene::joints_sampled`]):
    /// a level's held joints are posed at rest unsampled.
    pub joints_sampled: u64,
    /// Invocations `gpu_compute`'s skinning pass launched ([`super::Scene::skin_invocations`];
    /// 0 on the other paths).
    pub skin_invocations: u64,
    /// Draw arguments the crowd pass and the shadow pass read ([`super::Scene::draw_records`]),
    /// and whether they are per batch and level (`--draws per_level`) or per character.
    pub draw_records: [usize; 2],
    pub per_level_draws: bool,
    /// What `gpu_compute`'s skinned pool held (`--skinned-pool`), where it skins into one.
    pub pool: Option<crate::gpu::skin::PoolReading>,
}
#[derive(Clone, Copy)]
enum Source {
    Stage(Stage),
    LodPlan,
    Pass(GpuPass),
}

impl Source {
    fn value(self, t: &StageTimings) -> f64 {
        match self {
            Source::Stage(s) => t.get(s),
            Source::LodPlan => t.lod_plan_us,
            Source::Pass(p) => t.gpu(p).unwrap_or(0.0),
        }
    }
}

/// Every CPU part of a frame: the LOD plan, the pipeline's stages, the upload and the
/// encoding and submission of the draws.
fn cpu_total(t: &StageTimings) -> f64 {
    t.lod_plan_us + Stage::ALL.iter().map(|&s| t.get(s)).sum::<f64>()
}

/// The GPU's passes of a frame together.
fn gpu_total(t: &StageTimings) -> f64 {
    GpuPass::ALL.iter().filter_map(|&p| t.gpu(p)).sum()
}

/// One row of the table to be: its label, its key and what it reads of a frame.
type RowSource = (String, &'static str, Source);

/// The table's rows: every stage, then the GPU passes the frame can record (the GPU
/// animation's where the GPU animates, LOD's where it decides there too).
fn rows(
    skin: SkinVariant,
    animate: AnimateDevice,
    lod: bool,
    conditions: FrameConditions,
) -> Vec<RowSource> {
    let on_gpu = animate == AnimateDevice::Gpu;
    let mut rows: Vec<RowSource> = Vec::new();
    if lod && !on_gpu {
        rows.push(("LOD plan".to_string(), "lod_plan", Source::LodPlan));
    }
    // While the GPU animates, the CPU runs none of the animation's stages: their rows
    // would read 0, and the panel has no room to spare for them.
    let runs = |s: Stage| match s {
        Stage::Sample | Stage::Blend | Stage::Hierarchy | Stage::Palette | Stage::Skin => !on_gpu,
        Stage::Upload | Stage::Render => true,
    };
    rows.extend(Stage::ALL.iter().filter(|&&s| runs(s)).map(|&s| {
        let label = match s {
            // The CPU's part of drawing: recording the passes and `queue.submit`.
            Stage::Render => "render (encode + submit)".to_string(),
            // A GPU variant's CPU skin stage lays out the palettes to upload.
            Stage::Skin if !skin.skins_on_cpu() => "skin (palettes out)".to_string(),
            Stage::Sample
            | Stage::Blend
            | Stage::Hierarchy
            | Stage::Palette
            | Stage::Skin
            | Stage::Upload => s.name().to_string(),
        };
        (label, s.name(), Source::Stage(s))
    }));
    // The passes the frame records (the shadow pass's row stays while shadows are off,
    // so the table does not jump when they are toggled).
    for &pass in GpuPass::ALL {
        let listed = pass.runs() == PassRuns::Shadows || conditions.holds(pass.runs());
        if listed {
            rows.push((pass.row().into(), pass.key(), Source::Pass(pass)));
        }
    }
    rows
}

/// What the readings are taken from besides the history.
pub struct ReadingInputs {
    pub skin: SkinVariant,
    pub animate: AnimateDevice,
    /// The frame's conditions: which passes it records ([`FrameConditions`]).
    pub conditions: FrameConditions,
    pub instances: usize,
    pub uploaded_bytes: u64,
    pub updated_bytes: u64,
    pub upload_copies: Option<u64>,
    pub memory: MemoryReport,
    pub lod: Option<LodReading>,
    pub mesh_lod: Option<MeshLodReading>,
}

impl PanelReadings {
    /// The readings over the latest frames of `history` (`None` before the first frame).
    pub fn take(history: &mut TimingHistory, inputs: ReadingInputs) -> Option<PanelReadings> {
        let span = history.span(READING_WINDOW, READING_MIN_FRAMES)?;
        let frame = history.stats_in(&span, |t| t.frame_us);
        let gpu_frame = history.stats_in(&span, gpu_total);
        let rows: Vec<TimingRow> = rows(
            inputs.skin,
            inputs.animate,
            inputs.lod.is_some() || inputs.mesh_lod.is_some(),
            inputs.conditions,
        )
        .into_iter()
        .map(|(label, key, source)| {
            let s = history.stats_in(&span, |t| source.value(t));
            let whole = match source {
                Source::Stage(_) | Source::LodPlan => frame.mean,
                Source::Pass(_) => gpu_frame.mean,
            };
            TimingRow {
                label,
                key,
                mean_us: s.mean,
                p95_us: s.p95,
                share_percent: (whole > 0.0).then(|| 100.0 * s.mean / whole),
            }
        })
        .collect();
        let cpu_total_us = history.stats_in(&span, cpu_total).mean;
        Some(PanelReadings {
            span,
            frame_mean_us: frame.mean,
            fps: if frame.mean > 0.0 {
                1e6 / frame.mean
            } else {
                0.0
            },
            rows,
            cpu_total_us,
            cpu_per_instance_us: cpu_total_us / inputs.instances.max(1) as f64,
            instances: inputs.instances,
            uploaded_bytes: inputs.uploaded_bytes,
            updated_bytes: inputs.updated_bytes,
            upload_copies: inputs.upload_copies,
            uploads: match (inputs.animate, inputs.skin.skins_on_cpu()) {
                (AnimateDevice::Gpu, _) => "changed characters' records",
                (AnimateDevice::Cpu, true) => "skinned vertices",
                (AnimateDevice::Cpu, false) => "palettes",
            },
            memory: inputs.memory,
            lod: inputs.lod,
            mesh_lod: inputs.mesh_lod,
        })
    }

    /// The header's frame line as the panel draws it.
    pub fn frame_line(&self, present_mode: &str) -> String {
        // Software rendering of a big crowd runs well under one frame a second: keep digits.
        let fps_digits = if self.fps >= 10.0 { 0 } else { 2 };
        format!(
            "{:.2} ms / frame   {:.fps_digits$} FPS   present: {present_mode}",
            self.frame_mean_us / 1000.0,
            self.fps
        )
    }

    /// The table's caption: over which frames the rows average, how many setup frames of
    /// the configuration they leave out, and what makes them less than a steady reading.
    pub fn span_line(&self) -> String {
        let s = &self.span;
        let frames = if s.frames == 1 {
            format!("frame {}, {:.2} s", s.last_frame, s.span_secs)
        } else {
            format!(
                "mean of frames {}–{}: {} frames, {:.2} s",
                s.first_frame, s.last_frame, s.frames, s.span_secs
            )
        };
        let left_out = match s.setup_frames_left_out {
            0 => String::new(),
            n => format!(
                "; {n} setup frame{} left out",
                if n == 1 { "" } else { "s" }
            ),
        };
        format!("Timings ({frames}{left_out})")
    }

    /// The CPU total line as the panel draws it.
    pub fn cpu_line(&self) -> String {
        format!(
            "CPU per frame: {:.0} µs ({:.2} µs per character, {} characters)",
            self.cpu_total_us, self.cpu_per_instance_us, self.instances
        )
    }
}

/// A row's cells as the panel draws them: mean, p95, share.
pub fn row_cells(row: &TimingRow) -> [String; 3] {
    [
        format!("{:.0}", row.mean_us),
        format!("{:.0}", row.p95_us),
        row.share_percent
            .map_or("-".to_string(), |p| format!("{p:.0} %")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skin::SkinDevice;

    fn keys(skin: SkinVariant) -> Vec<&'static str> {
        let conditions = FrameConditions {
            shadows: true,
            skin: skin.spec().runs_on,
            per_level: true,
            gpu_animation: false,
            gpu_lod: false,
            pool: false,
        };
        rows(skin, AnimateDevice::Cpu, false, conditions)
            .into_iter()
            .map(|(_, key, _)| key)
            .collect()
    }

    #[test]
    fn the_compute_skinning_row_is_listed_only_where_the_pass_runs() {
        for &skin in SkinVariant::ALL {
            let listed = keys(skin).contains(&crate::gpu::skin::PASS.key);
            let runs = skin.spec().runs_on == SkinDevice::GpuCompute;
            assert_eq!(listed, runs, "{}", skin.name());
        }
    }
}
