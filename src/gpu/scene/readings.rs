//! What the panel shows, computed once a frame: the panel draws it and a screenshot's
//! sidecar writes it, so the numbers in a picture and in its sidecar are the same numbers.
//!
//! How it works: [`PanelReadings::take`] picks one [`FrameSpan`] (the latest frame and the
//! ones before it within the last second of frame time) and computes every timing row,
//! the frame rate and the CPU total over exactly those frames. The scene keeps the
//! readings of the last panel it drew; a screenshot of that frame saves them.

use std::time::Duration;

use crate::crowd::lod::{LodStats, MeasuredError};
use crate::crowd::pipeline::MemoryReport;
use crate::crowd::timing::FrameSpan;
use crate::crowd::{AnimateDevice, Stage, StageTimings, TimingHistory};
use crate::skin::SkinVariant;

/// The frame time a reading averages over.
pub const READING_WINDOW: Duration = Duration::from_secs(1);

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
    /// The row's mean over the frame's mean, percent (none before a frame has a time).
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
    /// The CPU's part of a frame: the pipeline's stages, the upload and the encoding of
    /// the draws (mean µs). On a software renderer the GPU rows dominate the frame and the
    /// share column, so this is the figure to read there.
    pub cpu_total_us: f64,
    /// `cpu_total_us` per character.
    pub cpu_per_instance_us: f64,
    pub instances: usize,
    /// Bytes the CPU writes for the GPU each frame, and what they are.
    pub uploaded_bytes: u64,
    pub uploads: &'static str,
    pub memory: MemoryReport,
    pub lod: Option<LodReading>,
}

/// One row of the table to be: its label, its key and what it reads of a frame.
type RowSource = (String, &'static str, fn(&StageTimings) -> f64);

/// The table's rows (the GPU animation's passes where the GPU animates).
fn rows(skin: SkinVariant, animate: AnimateDevice, lod: bool) -> Vec<RowSource> {
    let mut rows: Vec<RowSource> = Stage::ALL
        .iter()
        .map(|&s| {
            let label = match s {
                Stage::Render => "render (encode)".to_string(),
                // A GPU variant's CPU skin stage lays out the palettes to upload.
                Stage::Skin if !skin.skins_on_cpu() => "skin (palettes out)".to_string(),
                _ => s.name().to_string(),
            };
            let value: fn(&StageTimings) -> f64 = match s {
                Stage::Sample => |t| t.get(Stage::Sample),
                Stage::Blend => |t| t.get(Stage::Blend),
                Stage::Hierarchy => |t| t.get(Stage::Hierarchy),
                Stage::Palette => |t| t.get(Stage::Palette),
                Stage::Skin => |t| t.get(Stage::Skin),
                Stage::Upload => |t| t.get(Stage::Upload),
                Stage::Render => |t| t.get(Stage::Render),
            };
            (label, s.name(), value)
        })
        .collect();
    rows.push(("GPU render".into(), "gpu_render", |t| {
        t.gpu_render_us.unwrap_or(0.0)
    }));
    rows.push(("GPU shadow".into(), "gpu_shadow", |t| {
        t.gpu_shadow_us.unwrap_or(0.0)
    }));
    rows.push(("GPU compute skin".into(), "gpu_compute", |t| {
        t.gpu_compute_us.unwrap_or(0.0)
    }));
    match animate {
        AnimateDevice::Cpu => {}
        AnimateDevice::Gpu => {
            if lod {
                rows.push(("GPU LOD".into(), "gpu_lod", |t| t.gpu_lod_us.unwrap_or(0.0)));
            }
            rows.push(("GPU sample".into(), "gpu_sample", |t| {
                t.gpu_sample_us.unwrap_or(0.0)
            }));
            rows.push(("GPU hierarchy".into(), "gpu_hierarchy", |t| {
                t.gpu_hierarchy_us.unwrap_or(0.0)
            }));
            rows.push(("GPU palette".into(), "gpu_palette", |t| {
                t.gpu_palette_us.unwrap_or(0.0)
            }));
        }
    }
    rows
}

/// What the readings are taken from besides the history.
pub struct ReadingInputs {
    pub skin: SkinVariant,
    pub animate: AnimateDevice,
    pub instances: usize,
    pub uploaded_bytes: u64,
    pub memory: MemoryReport,
    pub lod: Option<LodReading>,
}

impl PanelReadings {
    /// The readings over the latest frames of `history` (`None` before the first frame).
    pub fn take(history: &mut TimingHistory, inputs: ReadingInputs) -> Option<PanelReadings> {
        let span = history.span(READING_WINDOW)?;
        let frame = history.stats_in(&span, |t| t.frame_us);
        let rows: Vec<TimingRow> = rows(inputs.skin, inputs.animate, inputs.lod.is_some())
            .into_iter()
            .map(|(label, key, value)| {
                let s = history.stats_in(&span, value);
                TimingRow {
                    label,
                    key,
                    mean_us: s.mean,
                    p95_us: s.p95,
                    share_percent: (frame.mean > 0.0).then(|| 100.0 * s.mean / frame.mean),
                }
            })
            .collect();
        let cpu_total_us = history
            .stats_in(&span, |t| Stage::ALL.iter().map(|&s| t.get(s)).sum())
            .mean;
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
            uploads: match (inputs.animate, inputs.skin.skins_on_cpu()) {
                (AnimateDevice::Gpu, _) => "changed characters' records",
                (AnimateDevice::Cpu, true) => "skinned vertices",
                (AnimateDevice::Cpu, false) => "palettes",
            },
            memory: inputs.memory,
            lod: inputs.lod,
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

    /// The table's caption: over which frames the rows average.
    pub fn span_line(&self) -> String {
        let s = &self.span;
        if s.frames == 1 {
            format!("Timings (frame {}, {:.2} s)", s.last_frame, s.span_secs)
        } else {
            format!(
                "Timings (mean of frames {}–{}: {} frames, {:.2} s)",
                s.first_frame, s.last_frame, s.frames, s.span_secs
            )
        }
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
