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

use super::crew::MAX_WORKERS;
use crate::variant::Variant;

/// What a stage is, beyond its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// Whether the CPU pipeline runs it (on its workers, timed by the [`StageClock`]);
    /// the others are the frame's GPU side. The CPU stages come first.
    pub cpu: bool,
}

crate::declare_variants! {
    /// The frame's stages, in order; the names are used everywhere (UI rows, CLI, reports).
    pub enum Stage: StageSpec in "stage" {
        Sample => StageSpec {
            name: "sample",
            description: "clip time to local pose",
            cpu: true,
        },
        Blend => StageSpec {
            name: "blend",
            description: "the cross-fade of two local poses, where one is set",
            cpu: true,
        },
        Hierarchy => StageSpec {
            name: "hierarchy",
            description: "local poses to model-space poses",
            cpu: true,
        },
        Palette => StageSpec {
            name: "palette",
            description: "model-space poses times inverse binds: the skinning matrices",
            cpu: true,
        },
        Skin => StageSpec {
            name: "skin",
            description: "palettes and prepared vertices to skinned vertices (or, for a GPU variant, the palettes laid out for the GPU)",
            cpu: true,
        },
        Upload => StageSpec {
            name: "upload",
            description: "the skinned stream (or the palettes) into the GPU's buffers",
            cpu: false,
        },
        Render => StageSpec {
            name: "render",
            description: "encoding and submitting the frame's passes",
            cpu: false,
        },
    }
}

impl Stage {
    /// How many stages the CPU pipeline runs: the declaration's first ones.
    pub const CPU_COUNT: usize = {
        let all = <Stage as crate::variant::Variant>::ALL;
        let mut n = 0;
        while n < all.len() && all[n].spec().cpu {
            n += 1;
        }
        n
    };
    /// The stages the CPU pipeline runs.
    pub const CPU: &'static [Stage] = <Stage as crate::variant::Variant>::ALL
        .split_at(Self::CPU_COUNT)
        .0;
}

// The CPU stages are a prefix: the stage clock keeps counters for them only.
const _: () = {
    let all = <Stage as crate::variant::Variant>::ALL;
    let mut n = Stage::CPU_COUNT;
    while n < all.len() {
        assert!(!all[n].spec().cpu, "a CPU stage after a GPU one");
        n += 1;
    }
};

/// Room for a value per GPU pass: the passes are the GPU layer's to declare
/// (`gpu::scene::frame_passes::GpuPass`, which checks it fits); the CPU layer never names one.
pub const GPU_PASS_SLOTS: usize = 16;

/// A value per GPU pass (its time, µs, where it ran and was timed), indexed by the pass's
/// index in its declaration; the slots past the last pass stay `None`.
pub type PassTimes = [Option<f64>; GPU_PASS_SLOTS];

/// Timings of one frame, microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimings {
    /// Per stage, indexed by [`Stage::index`]; `render` is the CPU time to encode and
    /// submit the frame's draws.
    pub stage_us: [f64; Stage::COUNT],
    /// GPU time of each pass from timestamp queries (indexed by the pass's index, see
    /// [`PassTimes`]), where the frame recorded it and the adapter has them.
    pub gpu_us: PassTimes,
    /// Wall time from submitting the frame to the GPU having finished it, where the
    /// caller waited for it (the bench): every pass together, however the adapter's
    /// timestamps split them.
    pub gpu_frame_us: Option<f64>,
    /// Wall time of the CPU pipeline (sample through skin).
    pub cpu_pipeline_us: f64,
    /// The frame's duration: from its start to the window's next frame's start (known only
    /// once that frame begins: until then `frame_pending`), or the `dt_secs` a headless
    /// frame was given (zero from the CPU pipeline alone).
    pub frame_us: f64,
    /// The frame's duration is not known yet (the window's latest frame).
    pub frame_pending: bool,
    /// The CPU's LOD plan before the pipeline ran (zero with the animation on the GPU,
    /// whose LOD pass is timed on the GPU).
    pub lod_plan_us: f64,
    pub threads: usize,
    pub instances: usize,
    /// One of the first frames after the history was cleared ([`TimingHistory`]): they
    /// make what a configuration keeps (buffers, staging, pipelines, first uploads), so
    /// their times are one-off work, not the configuration's steady frame.
    pub setup: bool,
}

impl StageTimings {
    pub fn get(&self, stage: Stage) -> f64 {
        self.stage_us[stage.index()]
    }
}

/// Per-worker, per-stage nanosecond counters, and the timeline they also feed when one is
/// attached.
pub struct StageClock {
    rows: Box<[[AtomicU64; Stage::CPU_COUNT]]>,
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
    pub fn stage_us(&self, threads: usize) -> [f64; Stage::CPU_COUNT] {
        let mut out = [0.0; Stage::CPU_COUNT];
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
/// from 1 in the order it was pushed. The first `setup_frames` frames after it is made or
/// cleared (a new configuration) are marked [`StageTimings::setup`] and left out of every
/// reading ([`Self::span`]): a capture of ten frames at 10,000 characters read a CPU frame
/// of 213 ms where its steady frames took 13 ms, the first frame's buffers and uploads
/// averaged in.
#[derive(Clone, Debug)]
pub struct TimingHistory {
    frames: std::collections::VecDeque<StageTimings>,
    /// The number the next frame pushed gets.
    next_frame: u64,
    capacity: usize,
    /// Frames marked as setup after each clear, and how many are still to come.
    setup_frames: usize,
    setup_left: usize,
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
    /// Setup frames of the running configuration left out before `first_frame`.
    pub setup_frames_left_out: usize,
    /// The frames are setup frames: no steady frame has come yet, so the readings hold
    /// one-off work.
    pub setup_only: bool,
    /// Fewer frames than the reading asks for (its `min_frames`): a noisy mean.
    pub too_few: bool,
}

impl FrameSpan {
    /// What is wrong with the frames as a steady reading, in a few words (`None`: nothing).
    pub fn caveat(&self) -> Option<String> {
        if self.setup_only {
            Some(
                "setup frames only: one-off work (buffers, first uploads), not the steady frame"
                    .to_string(),
            )
        } else if self.too_few {
            Some(format!(
                "only {} steady frame{}: a noisy mean",
                self.frames,
                if self.frames == 1 { "" } else { "s" }
            ))
        } else {
            None
        }
    }
}

impl TimingHistory {
    /// Room for `capacity` frames; the first `setup_frames` after it is made and after each
    /// [`Self::clear`] are setup frames.
    pub fn new(capacity: usize, setup_frames: usize) -> Self {
        TimingHistory {
            frames: std::collections::VecDeque::with_capacity(capacity),
            next_frame: 1,
            capacity,
            setup_frames,
            setup_left: setup_frames,
            scratch: Vec::with_capacity(capacity),
        }
    }

    pub fn push(&mut self, mut timings: StageTimings) {
        if self.frames.len() == self.capacity {
            self.frames.pop_front();
        }
        timings.setup = self.setup_left > 0;
        self.setup_left = self.setup_left.saturating_sub(1);
        self.frames.push_back(timings);
        self.next_frame += 1;
    }

    /// Gives the latest frame, if its duration is pending, the duration `frame_us` (the
    /// window learns it when the next frame begins).
    pub fn complete_latest(&mut self, frame_us: f64) {
        if let Some(latest) = self.frames.back_mut()
            && latest.frame_pending
        {
            latest.frame_us = frame_us;
            latest.frame_pending = false;
        }
    }

    /// Forgets the frames (their numbers go on); the next frames are setup frames.
    pub fn clear(&mut self) {
        self.frames.clear();
        self.setup_left = self.setup_frames;
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

    /// The latest frame whose duration is known and those before it within `window`, and
    /// at least `min_frames` of them where the history holds as many (a few slow frames
    /// make a noisy mean: under 5 frames a second, a second holds two or three), setup
    /// frames left out; see [`FrameSpan`], which says when the frames are fewer than
    /// `min_frames`. Before any steady frame, the setup frames themselves, marked as such.
    /// `None` before a frame whose duration is known.
    pub fn span(&self, window: Duration, min_frames: usize) -> Option<FrameSpan> {
        let pending = self
            .frames
            .iter()
            .rev()
            .take_while(|t| t.frame_pending)
            .count();
        if pending == self.frames.len() {
            return None;
        }
        let last_frame = self.next_frame - 1 - pending as u64;
        let latest_setup = self.frames[self.frames.len() - 1 - pending].setup;
        let setup_in_history = self.frames.iter().filter(|t| t.setup).count();
        let window_us = window.as_secs_f64() * 1e6;
        let mut frames = 0;
        let mut span_us = 0.0;
        for t in self.frames.iter().rev().skip(pending) {
            // Steady frames only, unless there is none yet.
            if t.setup != latest_setup {
                break;
            }
            // The latest complete frame always counts; an older one while the newer ones
            // leave room.
            if frames >= min_frames.max(1) && span_us + t.frame_us > window_us {
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
            setup_frames_left_out: if latest_setup { 0 } else { setup_in_history },
            setup_only: latest_setup,
            too_few: frames < min_frames,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(frame_us: f64) -> StageTimings {
        StageTimings {
            frame_us,
            ..StageTimings::default()
        }
    }

    /// The first frames after the history is made or cleared are setup frames: a reading
    /// leaves them out once a steady frame has come and says how many; before that it reads
    /// them and says they are setup frames only; fewer steady frames than asked are said.
    #[test]
    fn readings_leave_the_setup_frames_out_and_say_so() {
        let mut history = TimingHistory::new(100, 3);
        let window = Duration::from_secs(1);
        history.push(frame(200_000.0));
        let span = history.span(window, 10).unwrap();
        assert!(span.setup_only && span.caveat().unwrap().contains("setup frames only"));
        history.push(frame(150_000.0));
        history.push(frame(100_000.0));
        for _ in 0..5 {
            history.push(frame(10_000.0));
        }
        let span = history.span(window, 10).unwrap();
        assert_eq!(
            (span.first_frame, span.last_frame, span.frames),
            (4, 8, 5),
            "{span:?}"
        );
        assert_eq!(span.setup_frames_left_out, 3);
        assert!(!span.setup_only && span.too_few);
        assert!(span.caveat().unwrap().contains("only 5 steady frames"));
        assert_eq!(history.stats_in(&span, |t| t.frame_us).mean, 10_000.0);
        for _ in 0..10 {
            history.push(frame(10_000.0));
        }
        let span = history.span(window, 10).unwrap();
        assert!(!span.too_few && span.caveat().is_none(), "{span:?}");
        // A new configuration: its first frames are setup frames again.
        history.clear();
        history.push(frame(90_000.0));
        assert!(history.span(window, 10).unwrap().setup_only);
    }
}
