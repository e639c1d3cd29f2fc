//! The one timing mechanism: per-stage clocks for every stage and both schedules, and the
//! rolling history the panel and the bench read.
//!
//! How it works: each worker measures every stage of every group it runs with
//! `Instant::now()` around the kernel and adds the nanoseconds to its own row of atomic
//! counters (no contention, no allocation). A frame's stage time is the sum over workers
//! divided by the worker count: with one thread it is exactly the stage's wall time, with
//! several it is the per-thread share, so the stages of a frame add up to (at most) the
//! frame's wall time whichever schedule ran. Upload and render are timed by the GPU side
//! with the same `Instant` clock and stored in the same struct.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The pipeline stages, in order; the names are used everywhere (UI rows, CLI, reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Sample,
    Blend,
    Hierarchy,
    Palette,
    Skin,
    Upload,
    Render,
}

impl Stage {
    pub const ALL: [Stage; 7] = [
        Stage::Sample,
        Stage::Blend,
        Stage::Hierarchy,
        Stage::Palette,
        Stage::Skin,
        Stage::Upload,
        Stage::Render,
    ];
    /// The stages the CPU pipeline runs.
    pub const CPU: [Stage; 5] = [
        Stage::Sample,
        Stage::Blend,
        Stage::Hierarchy,
        Stage::Palette,
        Stage::Skin,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Sample => "sample",
            Stage::Blend => "blend",
            Stage::Hierarchy => "hierarchy",
            Stage::Palette => "palette",
            Stage::Skin => "skin",
            Stage::Upload => "upload",
            Stage::Render => "render",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// Timings of one frame, microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StageTimings {
    /// Per stage, indexed by [`Stage::index`]; `render` is the CPU time to encode and
    /// submit the frame's draws.
    pub stage_us: [f64; 7],
    /// GPU time of the render pass from timestamp queries, where the adapter has them.
    pub gpu_render_us: Option<f64>,
    /// GPU time of the sun's shadow pass (shadows on), likewise.
    pub gpu_shadow_us: Option<f64>,
    /// GPU time of `gpu_compute`'s skinning pass, likewise.
    pub gpu_compute_us: Option<f64>,
    /// With the animation on the GPU: its sampling, hierarchy and palette passes, likewise.
    pub gpu_sample_us: Option<f64>,
    pub gpu_hierarchy_us: Option<f64>,
    pub gpu_palette_us: Option<f64>,
    /// With the animation and LOD on the GPU: the LOD and culling pass, likewise.
    pub gpu_lod_us: Option<f64>,
    /// Wall time from submitting the frame to the GPU having finished it, where the
    /// caller waited for it (the bench): every pass together, however the adapter's
    /// timestamps split them.
    pub gpu_frame_us: Option<f64>,
    /// Wall time of the CPU pipeline (sample through skin).
    pub cpu_pipeline_us: f64,
    /// Wall time of the whole frame (app only; 0 in the bench).
    pub frame_us: f64,
    pub threads: usize,
    pub instances: usize,
}

impl StageTimings {
    pub fn get(&self, stage: Stage) -> f64 {
        self.stage_us[stage.index()]
    }
}

/// Upper bound on worker threads the clock has rows for.
pub const MAX_WORKERS: usize = 256;

/// Per-worker, per-stage nanosecond counters, and the timeline they also feed when one is
/// attached.
pub struct StageClock {
    rows: Box<[[AtomicU64; 5]]>,
    trace: Option<std::sync::Arc<super::trace::Trace>>,
}

impl Default for StageClock {
    fn default() -> Self {
        StageClock {
            rows: (0..MAX_WORKERS).map(|_| Default::default()).collect(),
            trace: None,
        }
    }
}

impl StageClock {
    pub fn reset(&self) {
        for row in self.rows.iter() {
            for c in row {
                c.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Keeps every measurement also as a span of `trace` (or stops, with `None`).
    pub fn set_trace(&mut self, trace: Option<std::sync::Arc<super::trace::Trace>>) {
        self.trace = trace;
    }

    /// Runs `f`, charging its duration to `stage` on the calling worker's row.
    #[inline]
    pub fn time<R>(&self, stage: Stage, f: impl FnOnce() -> R) -> R {
        let start = Instant::now();
        let result = f();
        let elapsed = start.elapsed();
        let worker = super::crew::participant() % MAX_WORKERS;
        self.rows[worker][stage.index()].fetch_add(elapsed.as_nanos() as u64, Ordering::Relaxed);
        if let Some(trace) = &self.trace {
            record_span(trace, worker, stage, start, elapsed);
        }
        result
    }

    /// Per-stage microseconds: summed over workers, divided by `threads`.
    pub fn stage_us(&self, threads: usize) -> [f64; 5] {
        let mut out = [0.0; 5];
        for row in self.rows.iter() {
            for (s, c) in row.iter().enumerate() {
                out[s] += c.load(Ordering::Relaxed) as f64;
            }
        }
        out.map(|ns| ns / 1000.0 / threads.max(1) as f64)
    }
}

/// Keeps one measurement on the timeline: out of line and cold, so the lock and the push
/// stay out of the stage closures the clock wraps (the hot path is one `Option` test).
#[cold]
#[inline(never)]
fn record_span(
    trace: &super::trace::Trace,
    worker: usize,
    stage: Stage,
    start: Instant,
    elapsed: Duration,
) {
    trace.record(
        super::trace::Track::Thread(worker),
        stage.name(),
        start,
        elapsed,
    );
}

/// Summary statistics of one stage over a window of frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    pub mean: f64,
    pub median: f64,
    pub p95: f64,
    pub min: f64,
    pub count: usize,
}

impl Stats {
    /// Statistics of `values` (sorted in place).
    pub fn of(values: &mut [f64]) -> Stats {
        if values.is_empty() {
            return Stats::default();
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let at = |q: f64| values[((q * (n - 1) as f64).round() as usize).min(n - 1)];
        Stats {
            mean: values.iter().sum::<f64>() / n as f64,
            median: if n % 2 == 1 {
                values[n / 2]
            } else {
                0.5 * (values[n / 2 - 1] + values[n / 2])
            },
            p95: at(0.95),
            min: values[0],
            count: n,
        }
    }
}

/// A rolling window of frame timings (like egui's `FrameHistory`), each frame numbered
/// from 1 in the order it was pushed.
#[derive(Clone, Debug)]
pub struct TimingHistory {
    frames: std::collections::VecDeque<StageTimings>,
    /// The number the next frame pushed gets.
    next_frame: u64,
    capacity: usize,
    scratch: Vec<f64>,
}

/// The frames a reading averages: the latest frame and the ones before it that end within
/// `window_secs` of it, by the frames' own durations (`StageTimings::frame_us`), so one
/// set of frames serves every row of a reading, whenever it is computed.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct FrameSpan {
    /// Numbers of the oldest and the newest frame in it.
    pub first_frame: u64,
    pub last_frame: u64,
    pub frames: usize,
    /// The window asked for and the time the frames in it took.
    pub window_secs: f64,
    pub span_secs: f64,
}

impl TimingHistory {
    pub fn new(capacity: usize) -> Self {
        TimingHistory {
            frames: std::collections::VecDeque::with_capacity(capacity),
            next_frame: 1,
            capacity,
            scratch: Vec::with_capacity(capacity),
        }
    }

    pub fn push(&mut self, timings: StageTimings) {
        if self.frames.len() == self.capacity {
            self.frames.pop_front();
        }
        self.frames.push_back(timings);
        self.next_frame += 1;
    }

    /// Forgets the frames (their numbers go on).
    pub fn clear(&mut self) {
        self.frames.clear();
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    pub fn latest(&self) -> Option<&StageTimings> {
        self.frames.back()
    }

    /// Frames in the history, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &StageTimings> {
        self.frames.iter()
    }

    /// The latest frame and those before it within `window` (see [`FrameSpan`]); `None`
    /// before the first frame.
    pub fn span(&self, window: Duration) -> Option<FrameSpan> {
        let last_frame = self
            .next_frame
            .checked_sub(1)
            .filter(|_| !self.frames.is_empty())?;
        let window_us = window.as_secs_f64() * 1e6;
        let mut frames = 0;
        let mut span_us = 0.0;
        for t in self.frames.iter().rev() {
            // The latest frame always counts; an older one while the newer ones leave room.
            if frames > 0 && span_us + t.frame_us > window_us {
                break;
            }
            span_us += t.frame_us;
            frames += 1;
        }
        Some(FrameSpan {
            first_frame: last_frame + 1 - frames as u64,
            last_frame,
            frames,
            window_secs: window.as_secs_f64(),
            span_secs: span_us / 1e6,
        })
    }

    /// The frames of `span` still in the history, oldest first, with their numbers.
    pub fn frames_in(&self, span: &FrameSpan) -> impl Iterator<Item = (u64, &StageTimings)> {
        let first_held = self.next_frame - self.frames.len() as u64;
        self.frames
            .iter()
            .enumerate()
            .map(move |(i, t)| (first_held + i as u64, t))
            .filter(|(n, _)| (span.first_frame..=span.last_frame).contains(n))
    }

    /// Statistics of `value` over the frames of `span`.
    pub fn stats_in(&mut self, span: &FrameSpan, value: impl Fn(&StageTimings) -> f64) -> Stats {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        scratch.extend(self.frames_in(span).map(|(_, t)| value(t)));
        let stats = Stats::of(&mut scratch);
        self.scratch = scratch;
        stats
    }
}
