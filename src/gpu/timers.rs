//! GPU pass times: timestamp queries around the animation's passes (`--animate gpu`), the
//! compute skinning pass, the shadow pass and the crowd pass, with `wgpu-profiler`.
//!
//! How it works: each frame the scene opens a query around each pass it records
//! ([`GpuTimers::pass`]), resolves them before the frame's commands are finished, and ends
//! the profiler's frame after submitting. The results come back when the GPU is done: the
//! window takes whatever frame finished last (a frame or two behind, without waiting), the
//! bench waits for each frame ([`GpuTimers::end_frame`] with `wait`). An adapter without
//! timestamp queries gives no times; on a CPU adapter (lavapipe) they are readings of an
//! emulation on the CPU's cores, not GPU speed, and the panel and reports say so.

use wgpu_profiler::{GpuProfiler, GpuProfilerQuery, GpuProfilerSettings};

use crate::gpu::GpuContext;

/// Why the pass timers could not be made.
#[derive(Debug, thiserror::Error)]
#[error("GPU pass timers: {0}")]
pub struct TimerError(String);

/// The scene's timestamp queries and the last times they gave.
pub struct GpuTimers {
    profiler: GpuProfiler,
    /// The last frame's passes as `(label, start_secs, end_secs)` on the GPU's clock.
    last_passes: Vec<(&'static str, f64, f64)>,
    /// When each frame whose times have not come back yet was submitted, on puffin's clock.
    #[cfg(feature = "profile-with-puffin")]
    submitted_ns: std::collections::VecDeque<puffin::NanoSecond>,
}

impl GpuTimers {
    /// Timers on `device`; with the `profile-with-tracy` feature their scopes also go to
    /// Tracy's GPU timeline.
    pub fn new(gpu: &GpuContext, backend: wgpu::Backend) -> Result<Self, TimerError> {
        let (device, queue) = (&gpu.device, &gpu.queue);
        let settings = GpuProfilerSettings::default();
        #[cfg(feature = "profile-with-tracy")]
        let profiler = match tracy_client::Client::running() {
            Some(_) => GpuProfiler::new_with_tracy_client(settings, backend, device, queue),
            None => GpuProfiler::new(device, settings),
        };
        #[cfg(not(feature = "profile-with-tracy"))]
        let profiler = {
            let _ = (queue, backend);
            GpuProfiler::new(device, settings)
        };
        let profiler = profiler.map_err(|e| TimerError(format!("{e:?}")))?;
        Ok(GpuTimers {
            profiler,
            last_passes: Vec::new(),
            #[cfg(feature = "profile-with-puffin")]
            submitted_ns: std::collections::VecDeque::new(),
        })
    }

    /// The passes of the latest frame the GPU finished, `(label, start_secs, end_secs)`
    /// on the GPU's clock (for the timeline: [`crate::crowd::trace`]).
    pub fn last_passes(&self) -> &[(&'static str, f64, f64)] {
        &self.last_passes
    }

    /// Opens a query labelled `label` around the pass `encoder` records next; its
    /// `*_pass_timestamp_writes()` go into that pass's descriptor.
    pub fn pass(
        &self,
        label: &'static str,
        encoder: &mut wgpu::CommandEncoder,
    ) -> GpuProfilerQuery {
        self.profiler.begin_pass_query(label, encoder)
    }

    /// Closes a query opened by [`Self::pass`] after its pass.
    pub fn end(&self, encoder: &mut wgpu::CommandEncoder, query: GpuProfilerQuery) {
        self.profiler.end_query(encoder, query);
    }

    /// Resolves the frame's queries; call last on the frame's encoder.
    pub fn resolve(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.profiler.resolve_queries(encoder);
    }

    /// Ends the frame's queries (after its commands were submitted) and takes the times of
    /// the latest frame the GPU finished ([`Self::last_passes`]): with `wait`, this one,
    /// after waiting for the device; without, whatever came back (the last times known
    /// when nothing did).
    /// `labels` are every label a query may have been opened with (the results name theirs
    /// as `String`s; the timeline keeps these).
    pub fn end_frame(&mut self, gpu: &GpuContext, wait: bool, labels: &[&'static str]) {
        let (device, queue) = (&gpu.device, &gpu.queue);
        // The frame was just submitted: its GPU passes go on puffin's timeline from here.
        #[cfg(feature = "profile-with-puffin")]
        {
            self.submitted_ns.push_back(puffin::now_ns());
            // Frames the profiler drops never come back: keep the queue short.
            while self.submitted_ns.len() > 8 {
                self.submitted_ns.pop_front();
            }
        }
        if let Err(e) = self.profiler.end_frame() {
            log::warn!("GPU pass timers: {e:?}");
        }
        if wait {
            let _ = device.poll(wgpu::PollType::wait_indefinitely());
        }
        while let Some(results) = self
            .profiler
            .process_finished_frame(queue.get_timestamp_period())
        {
            self.last_passes.clear();
            for result in &results {
                let label = labels.iter().find(|&&l| l == result.label);
                if let (Some(time), Some(&label)) = (&result.time, label) {
                    self.last_passes.push((label, time.start, time.end));
                }
            }
            #[cfg(feature = "profile-with-puffin")]
            {
                let submitted = self.submitted_ns.pop_front().unwrap_or_else(puffin::now_ns);
                gpu_passes_to_puffin(&results, submitted);
            }
        }
    }

    /// The time of the pass labelled `label` in the latest frame the GPU finished, µs: the
    /// sum over its queries where it was recorded more than once (the animation's passes,
    /// once per wave of ranges).
    pub fn last_us(&self, label: &str) -> Option<f64> {
        self.last_passes
            .iter()
            .filter(|(l, ..)| *l == label)
            .map(|(_, start, end)| (end - start) * 1e6)
            .reduce(|a, b| a + b)
    }
}

/// A frame's GPU passes as puffin's "GPU" thread. The GPU's timestamps count on its own
/// clock (a software renderer's from the machine's boot, puffin's from 1970), so the passes
/// are placed from the frame's submission at the offsets the GPU reported, as the Chrome
/// trace places them; otherwise one frame would span decades and hide the CPU's scopes.
#[cfg(feature = "profile-with-puffin")]
fn gpu_passes_to_puffin(results: &[wgpu_profiler::GpuTimerQueryResult], submitted: i64) {
    use puffin::{GlobalProfiler, ScopeDetails, StreamInfo, ThreadInfo};
    let timed: Vec<_> = results
        .iter()
        .filter_map(|r| Some((r, r.time.as_ref()?)))
        .collect();
    let Some(first) = timed.iter().map(|(_, t)| t.start).reduce(f64::min) else {
        return;
    };
    let mut profiler = GlobalProfiler::lock();
    let details: Vec<_> = timed
        .iter()
        .map(|(r, _)| ScopeDetails::from_scope_name(r.label.clone()))
        .collect();
    let ids = profiler.register_user_scopes(&details);
    let mut stream = StreamInfo::default();
    let at = |secs: f64| submitted + ((secs - first) * 1e9) as i64;
    stream.range_ns = (i64::MAX, i64::MIN);
    for ((_, time), id) in timed.iter().zip(ids) {
        let (start, end) = (at(time.start), at(time.end));
        stream.num_scopes += 1;
        stream.range_ns.0 = stream.range_ns.0.min(start);
        stream.range_ns.1 = stream.range_ns.1.max(end);
        let (offset, _) = stream.stream.begin_scope(|| start, id, "");
        stream.stream.end_scope(offset, end);
    }
    profiler.report_user_scopes(
        ThreadInfo {
            start_time_ns: None,
            name: "GPU".to_string(),
        },
        &stream.as_stream_into_ref(),
    );
}
