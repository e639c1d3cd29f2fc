//! A timeline of a run, written as a Chrome trace (open it in Perfetto or
//! `chrome://tracing`): every stage of every group on the thread that ran it, the main
//! thread's LOD planning, upload and encoding, and the GPU passes.
//!
//! How it works: the stage clock ([`super::timing::StageClock`]) is the one place stage
//! times are taken; when a [`Trace`] is attached to it, each measurement it makes is also
//! kept here as a span (the same `Instant` start and duration, so the timeline and the
//! panel's or the bench's numbers agree). Each participant of a frame writes into its own
//! row behind its own lock, so recording takes no lock another thread holds. GPU passes
//! come with durations from timestamp queries on the GPU's clock, which is not the CPU's:
//! they are drawn on a "GPU" track starting at the frame's submission, in the order and at
//! the offsets the GPU gave them. A trace keeps at most `limit` spans (a bench runs
//! thousands of frames) and says in its metadata how many it left out.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::crew::MAX_WORKERS;

/// One recorded span: what, and when relative to the trace's start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    pub name: &'static str,
    pub start_ns: u64,
    pub duration_ns: u64,
}

/// The spans of one run, per thread of the frame, plus the GPU's.
pub struct Trace {
    epoch: Instant,
    /// Per participant of a frame (0: the thread that called the pipeline; 1.. its
    /// workers), the spans it ran.
    threads: Box<[Mutex<Vec<Span>>]>,
    gpu: Mutex<Vec<Span>>,
    limit: u64,
    recorded: AtomicU64,
    left_out: AtomicU64,
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace")
            .field("limit", &self.limit)
            .field("recorded", &self.recorded.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// The track a span is drawn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Track {
    /// A participant of the frame: 0 the calling thread, 1.. the crew's workers.
    Thread(usize),
    Gpu,
}

/// Why a trace could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the trace {}: {source}", path.display())]
pub struct TraceWriteError {
    pub path: std::path::PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl Trace {
    /// A trace that keeps at most `limit` spans.
    pub fn new(limit: u64) -> Self {
        Trace {
            epoch: Instant::now(),
            threads: (0..MAX_WORKERS).map(|_| Mutex::new(Vec::new())).collect(),
            gpu: Mutex::new(Vec::new()),
            limit,
            recorded: AtomicU64::new(0),
            left_out: AtomicU64::new(0),
        }
    }

    /// Keeps the span `name` that started at `start` and lasted `duration` on `track`.
    pub fn record(&self, track: Track, name: &'static str, start: Instant, duration: Duration) {
        if self.recorded.fetch_add(1, Ordering::Relaxed) >= self.limit {
            self.left_out.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let span = Span {
            name,
            start_ns: start.saturating_duration_since(self.epoch).as_nanos() as u64,
            duration_ns: duration.as_nanos() as u64,
        };
        let row = match track {
            Track::Thread(participant) => &self.threads[participant % MAX_WORKERS],
            Track::Gpu => &self.gpu,
        };
        // A poisoned row only means a thread panicked while pushing; its spans are
        // still plain data.
        row.lock().unwrap_or_else(|e| e.into_inner()).push(span);
    }

    /// Keeps the GPU passes of a frame submitted at `submitted`: `(name, start_secs,
    /// end_secs)` on the GPU's clock, placed so the first starts at the submission.
    pub fn record_gpu_passes(&self, submitted: Instant, passes: &[(&'static str, f64, f64)]) {
        let Some(first) = passes.iter().map(|p| p.1).min_by(f64::total_cmp) else {
            return;
        };
        for &(name, start_secs, end_secs) in passes {
            let offset = Duration::from_secs_f64((start_secs - first).max(0.0));
            let duration = Duration::from_secs_f64((end_secs - start_secs).max(0.0));
            self.record(Track::Gpu, name, submitted + offset, duration);
        }
    }

    /// The spans recorded on `track`, in the order they were recorded.
    pub fn spans(&self, track: Track) -> Vec<Span> {
        let row = match track {
            Track::Thread(participant) => &self.threads[participant % MAX_WORKERS],
            Track::Gpu => &self.gpu,
        };
        row.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Spans not kept because the limit was reached.
    pub fn left_out(&self) -> u64 {
        self.left_out.load(Ordering::Relaxed)
    }

    /// The trace in the Chrome trace event format: one complete event (`"ph": "X"`) per
    /// span, µs from the trace's start, one thread per participant and one for the GPU,
    /// each named.
    pub fn to_chrome_json(&self) -> serde_json::Value {
        const GPU_TID: usize = MAX_WORKERS;
        let mut events = Vec::new();
        let mut name_thread = |tid: usize, name: String| {
            events.push(serde_json::json!({
                "ph": "M", "name": "thread_name", "pid": 1, "tid": tid,
                "args": { "name": name },
            }));
        };
        let threads: Vec<(usize, Vec<Span>)> = (0..MAX_WORKERS)
            .map(|p| (p, self.spans(Track::Thread(p))))
            .filter(|(_, spans)| !spans.is_empty())
            .collect();
        for (participant, _) in &threads {
            name_thread(
                *participant,
                if *participant == 0 {
                    "main (participant 0)".to_string()
                } else {
                    format!("worker {participant}")
                },
            );
        }
        let gpu = self.spans(Track::Gpu);
        if !gpu.is_empty() {
            name_thread(
                GPU_TID,
                "GPU (durations from timestamp queries)".to_string(),
            );
        }
        let span_event = |tid: usize, span: &Span| {
            serde_json::json!({
                "ph": "X", "name": span.name, "pid": 1, "tid": tid,
                "ts": span.start_ns as f64 / 1000.0,
                "dur": span.duration_ns as f64 / 1000.0,
            })
        };
        for (participant, spans) in &threads {
            events.extend(spans.iter().map(|s| span_event(*participant, s)));
        }
        events.extend(gpu.iter().map(|s| span_event(GPU_TID, s)));
        serde_json::json!({
            "traceEvents": events,
            "displayTimeUnit": "ms",
            "otherData": {
                "producer": "skinbench",
                "spans_left_out": self.left_out(),
                "span_limit": self.limit,
            },
        })
    }

    /// Writes [`Self::to_chrome_json`] to `path` (whole or not at all).
    pub fn write(&self, path: &Path) -> Result<(), TraceWriteError> {
        let err = |source| TraceWriteError {
            path: path.to_path_buf(),
            source,
        };
        let text = serde_json::to_string(&self.to_chrome_json())
            .map_err(|e| err(std::io::Error::other(e)))?;
        let partial = path.with_extension("json.partial");
        std::fs::write(&partial, text).map_err(err)?;
        std::fs::rename(&partial, path).map_err(err)
    }
}
