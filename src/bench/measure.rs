//! Interleaved measurement of CPU configurations, shared by the CPU workloads.
//!
//! How it works: every configuration ([`Candidate`]) runs through the app's own frame
//! entry point, [`Pipeline::run_frame_until`], on the same instances. They are measured in
//! rounds of a few frames each, round-robin (the first frame of a burst refills the caches
//! after the others ran and is not recorded), until every median has settled (the median
//! of all frames and of the first half agree within 0.5 %) or the budget is spent.
//! Interleaving spreads a noisy machine's slow phases over all configurations alike, so
//! their ratios stay meaningful even when absolute times drift.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::BenchError;
use crate::crowd::timing::Stats;
use crate::crowd::{InstanceStore, Pipeline, Stage, StageTimings};
use crate::simd::SimdLevel;
use crate::variant::Variant;

/// One configuration under measurement.
pub struct Candidate {
    /// Runs its lane kernels at the candidate's SIMD level.
    pub pipeline: Pipeline,
    /// The last stage a frame runs.
    pub last: Stage,
    /// What the candidate's rows report.
    pub metric: fn(&StageTimings) -> f64,
    pub frames: Vec<StageTimings>,
    /// Where each interleaved round's frames start in `frames`.
    round_starts: Vec<usize>,
}

impl Candidate {
    pub fn new(
        mut pipeline: Pipeline,
        level: SimdLevel,
        last: Stage,
        metric: fn(&StageTimings) -> f64,
    ) -> Result<Self, BenchError> {
        pipeline.set_simd_level(Some(level))?;
        Ok(Candidate {
            pipeline,
            last,
            metric,
            frames: Vec::new(),
            round_starts: Vec::new(),
        })
    }

    /// The median of `value` in each interleaved round, in order.
    pub fn round_medians(&self, value: impl Fn(&StageTimings) -> f64) -> Vec<f64> {
        let ends = self.round_starts.iter().skip(1).copied();
        self.round_starts
            .iter()
            .zip(ends.chain([self.frames.len()]))
            .filter(|(start, end)| **start < *end)
            .map(|(&start, end)| median(self.frames[start..end].iter().map(&value).collect()))
            .collect()
    }

    pub fn stats(&self, value: impl Fn(&StageTimings) -> f64) -> Stats {
        let mut v: Vec<f64> = self.frames.iter().map(value).collect();
        Stats::of(&mut v)
    }

    /// The median µs of every CPU stage that ran.
    pub fn stage_medians(&self) -> Vec<(String, f64)> {
        Stage::CPU
            .iter()
            .map(|&s| (s.name().to_string(), self.stats(|t| t.get(s)).median))
            .filter(|(_, v)| *v > 0.0)
            .collect()
    }
}

/// A row's timing: the statistics of its metric and what follows from them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Timing {
    pub median_us: f64,
    pub p95_us: f64,
    pub min_us: f64,
    /// Per joint or per vertex, as the workload counts.
    pub ns_per_item: f64,
    /// The bytes the measured stage writes per second.
    pub gb_per_s: f64,
    /// `gb_per_s` as a percentage of the store bandwidth with the same thread count.
    pub store_bandwidth_percent: f64,
}

impl Timing {
    /// From `stats` of a stage that writes `bytes_per_frame` over `items` joints or
    /// vertices, against `bandwidth_gbs`.
    pub fn of(stats: &Stats, bytes_per_frame: f64, items: f64, bandwidth_gbs: f64) -> Self {
        let gb_per_s = bytes_per_frame / (stats.median * 1e-6) / 1e9;
        Timing {
            median_us: stats.median,
            p95_us: stats.p95,
            min_us: stats.min,
            ns_per_item: stats.median * 1000.0 / items,
            gb_per_s,
            store_bandwidth_percent: 100.0 * gb_per_s / bandwidth_gbs,
        }
    }
}

/// Measures `candidates` on `crowd`, interleaved (see the module docs).
pub fn measure_interleaved(
    candidates: &mut [Candidate],
    crowd: &mut InstanceStore,
    budget_per_candidate: Duration,
    quick: bool,
) -> Result<(), BenchError> {
    // Every candidate's state is allocated at its first frame and kept: check the sum
    // first (their outputs share one buffer).
    if let Some(first) = candidates.first() {
        let rig = first.pipeline.rig().clone();
        let configs: Vec<_> = candidates.iter().map(|c| *c.pipeline.config()).collect();
        crate::crowd::budget::check_configs(
            &rig,
            &configs,
            crate::crowd::budget::Outputs::Shared,
            crowd.len(),
            0,
            &crate::crowd::budget::Budget::this_machine(None),
            &format!("the {} configurations measured together", configs.len()),
        )?;
    }
    let bytes = candidates
        .iter()
        .map(|c| {
            if c.last == Stage::Skin {
                c.pipeline.output_bytes(crowd.len())
            } else {
                0
            }
        })
        .max()
        .unwrap_or(0);
    let mut out = crate::skin::OutputBuffer::zeroed(bytes);
    let burst = if quick { 3 } else { 6 };
    let (min_frames, max_frames) = if quick { (6, 400) } else { (40, 4000) };
    let budget = budget_per_candidate * candidates.len() as u32;
    let start = Instant::now();
    loop {
        for c in candidates.iter_mut() {
            c.round_starts.push(c.frames.len());
            for f in 0..=burst {
                crowd.advance(1.0 / 60.0);
                let t = c
                    .pipeline
                    .run_frame_until(crowd.as_slice(), out.as_bytes_mut(), c.last)?;
                if f > 0 {
                    c.frames.push(t);
                }
            }
        }
        let frames = candidates.iter().map(|c| c.frames.len()).min().unwrap_or(0);
        if frames >= max_frames || (frames >= min_frames && start.elapsed() >= budget) {
            break;
        }
        let settled = candidates.iter().all(|c| {
            let n = c.frames.len();
            let mut all: Vec<f64> = c.frames.iter().map(c.metric).collect();
            let mut half: Vec<f64> = c.frames[..n / 2].iter().map(c.metric).collect();
            let (a, h) = (Stats::of(&mut all).median, Stats::of(&mut half).median);
            a > 0.0 && ((a - h) / a).abs() < 0.005
        });
        if frames >= min_frames && settled && start.elapsed() >= budget / 4 {
            break;
        }
    }
    Ok(())
}

/// A ratio of two candidates' medians with its spread over the interleaved rounds: the
/// smallest and largest of the rounds' own ratios, and whether the two candidates' round
/// medians overlap at all (only a ratio whose spreads do not overlap is a clear
/// difference; a report bolds only those).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SpreadRatio {
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    pub rounds: usize,
    /// The numerator's and the denominator's round medians overlap.
    pub overlaps: bool,
}

impl SpreadRatio {
    /// `numerator`'s median over `denominator`'s, from their round medians.
    pub fn of(numerator: &[f64], denominator: &[f64]) -> Option<Self> {
        let (n, d) = (median(numerator.to_vec()), median(denominator.to_vec()));
        if numerator.is_empty() || denominator.is_empty() || d.is_nan() || d <= 0.0 {
            return None;
        }
        let per_round: Vec<f64> = numerator
            .iter()
            .zip(denominator)
            .filter(|(_, d)| **d > 0.0)
            .map(|(n, d)| n / d)
            .collect();
        let range = |v: &[f64]| {
            v.iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                    (lo.min(x), hi.max(x))
                })
        };
        let ((n_lo, n_hi), (d_lo, d_hi)) = (range(numerator), range(denominator));
        let (low, high) = range(&per_round);
        Some(SpreadRatio {
            ratio: n / d,
            low,
            high,
            rounds: per_round.len(),
            overlaps: n_lo <= d_hi && d_lo <= n_hi,
        })
    }

    /// `2.31× (1.20–3.05× over 3 rounds)`, in bold where the spreads do not overlap.
    pub fn markdown(&self) -> String {
        let text = format!(
            "{:.2}× ({:.2}–{:.2}× over {} rounds)",
            self.ratio, self.low, self.high, self.rounds
        );
        if self.overlaps {
            text
        } else {
            format!("**{text}**")
        }
    }
}

/// The median of `values` (the middle one; NaN for none).
pub fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// `v` with `digits` decimals, or `-`.
pub fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// A speed-up as `1.23×`, or `-`.
pub fn ratio(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.2}×"))
}

/// A level's label, or `scalar` for a variant without lane kernels.
pub fn simd_label(level: Option<&'static str>) -> &'static str {
    level.unwrap_or("scalar")
}

/// What a table's `GB/s` and `% store bw` columns mean, said under each table that has them.
pub const STORE_BANDWIDTH_NOTE: &str = "GB/s = the bytes the stage writes per frame (model \
     poses for the hierarchy, skinned vertices for skin and frame) over its median time. % store \
     bw = that rate over this machine's store bandwidth measured in the same run with as many \
     threads (regular 16-byte stores over a 256 MiB buffer, far larger than the caches: the \
     header's `store bandwidth`). Above 100 % means the output did not go to memory: a \
     frame's output of a few MB stays in the last-level cache from one frame to the next, \
     where stores run faster than the probe's, which is built to miss it.";

#[cfg(test)]
mod tests {
    use super::*;

    /// A ratio comes with the smallest and largest of its rounds' own ratios, and is in
    /// bold only where the two candidates' rounds do not overlap.
    #[test]
    fn a_ratio_is_stated_with_its_spread_and_bolded_only_when_clear() {
        let overlapping = SpreadRatio::of(&[60.0, 140.0, 100.0], &[50.0, 70.0, 45.0]).unwrap();
        assert_eq!(overlapping.rounds, 3);
        assert!(overlapping.overlaps);
        assert_eq!(
            (overlapping.low, overlapping.high),
            (60.0 / 50.0, 100.0 / 45.0)
        );
        assert_eq!(overlapping.ratio, 100.0 / 50.0);
        assert!(
            !overlapping.markdown().contains("**"),
            "{}",
            overlapping.markdown()
        );
        let clear = SpreadRatio::of(&[200.0, 210.0, 205.0], &[100.0, 104.0, 102.0]).unwrap();
        assert!(!clear.overlaps);
        assert!(
            clear
                .markdown()
                .starts_with("**2.01× (2.00–2.02× over 3 rounds)**")
        );
        assert!(SpreadRatio::of(&[], &[1.0]).is_none());
    }
}
