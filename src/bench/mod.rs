//! `skinbench bench`: the variant matrix of the CPU stages, measured, as tables.
//!
//! How it works: every configuration runs through the same [`Pipeline::run_frame_until`]
//! the app uses. After a warm-up, frames are repeated (each advancing the clip time, so
//! poses change) until the median of the measured stage settles (the median of all frames
//! and of the first half agree within 0.5 %) or the configuration's time budget is spent.
//! Rows report median, p95 and min, the speed-up over the workload's baseline next to the
//! seed's published one, ns per joint or vertex, and the bytes the stage writes per second
//! as a share of the store bandwidth measured at the start of the same run.
//!
//! Workloads (DESIGN §6): `hierarchy` (1000 instances, 1 thread, every hierarchy variant;
//! also with the palette stage added, since the variants hand over different
//! representations), `skin` (100 instances, 1 thread, every skin variant) and `frame`
//! (sample through skin with the best variants at 100 and 1000 instances, 1..N threads,
//! both schedules).
//!
//! SIMD levels (`--simd-level`): every lane variant is measured at each level asked for,
//! its pipeline set to that level ([`Pipeline::set_simd_level`]), interleaved with all the
//! other candidates, so the levels' rows sit side by side in one run and name their level;
//! scalar variants run once. The frame workload takes each level's best variants.

pub mod bandwidth;
pub mod index;
pub use crate::crowd::machine;
pub mod report;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::anim::hierarchy::{HierarchyVariant, ModelLayout};
use crate::anim::palette::PaletteLayout;
use crate::crowd::pipeline::available_threads;
use crate::crowd::timing::Stats;
use crate::crowd::{
    FrameError, InstanceStore, Pipeline, PipelineConfig, Schedule, Stage, StageTimings,
};
use crate::prepare::PreparedRig;
use crate::simd::{SimdLevel, with_level};
use crate::skin::{SkinMethod, SkinVariant};
use crate::types::LANES;
use crate::variant::{PlainSpec, Variant};

pub use bandwidth::StoreBandwidth;
pub use machine::Machine;

crate::declare_variants! {
    /// What a bench run measures.
    pub enum Workload: PlainSpec in "workload" {
        Hierarchy => PlainSpec {
            name: "hierarchy",
            description: "hierarchy stage alone (and with palette), 1000 instances, 1 thread, every hierarchy variant",
        },
        Skin => PlainSpec {
            name: "skin",
            description: "skin stage alone, 100 instances, 1 thread, every skin variant",
        },
        Frame => PlainSpec {
            name: "frame",
            description: "the whole CPU frame with the best variants, 100 and 1000 instances, 1..N threads, both schedules; with N threads also the GPU variants' CPU part (sample → palettes)",
        },
    }
}

/// Seed 000's published hierarchy times (ms, 1000 characters, 96 joints).
pub const SEED_HIERARCHY_MS: [(HierarchyVariant, f64); 2] =
    [(HierarchyVariant::Tree, 3.8), (HierarchyVariant::Flat, 3.1)];
/// Seed 004's published skinning times (ms, 100 characters, ~5k triangles).
pub const SEED_SKIN_MS: [(SkinVariant, f64); 5] = [
    (SkinVariant::Naive, 4.15),
    (SkinVariant::Split, 4.00),
    (SkinVariant::Float4, 3.53),
    (SkinVariant::Sorted, 2.00),
    (SkinVariant::Tuned, 1.78),
];

#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub quick: bool,
    pub workloads: Vec<Workload>,
    /// Overrides every workload's instance count.
    pub instances: Option<usize>,
    pub max_threads: usize,
    /// The SIMD levels the lane kernels are measured at, side by side (each must be one
    /// the CPU has; [`SimdLevel::available`]). Scalar variants run once.
    pub simd_levels: Vec<SimdLevel>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            quick: false,
            workloads: Workload::ALL.to_vec(),
            instances: None,
            max_threads: available_threads(),
            simd_levels: vec![SimdLevel::native()],
        }
    }
}

impl BenchOptions {
    /// Time budget of one configuration: the CPU workloads take about 3 minutes on a 2-core
    /// machine, about 15 s with `--quick` (11.6 s on a 2-core Xeon).
    pub fn budget(&self) -> Duration {
        if self.quick {
            Duration::from_millis(400)
        } else {
            Duration::from_secs(8)
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("instance count must be at least 1 (got {0})")]
    ZeroInstances(usize),
    #[error("{0}")]
    Frame(#[from] FrameError),
    #[error("{0}")]
    Budget(#[from] crate::crowd::budget::BudgetError),
    #[error("{0}")]
    Simd(#[from] crate::simd::UnsupportedLevel),
    #[error("no SIMD level to measure (give at least one --simd-level)")]
    NoSimdLevel,
}

/// One measured configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub workload: &'static str,
    /// The variant this row is about (for `frame` rows, the skin variant).
    pub variant: &'static str,
    pub hierarchy: &'static str,
    pub skin: &'static str,
    /// The skinning method (`linear`, `dual_quat`).
    pub method: &'static str,
    pub schedule: &'static str,
    /// The SIMD level the row's lane kernels ran at (`AVX-512`, `AVX2+FMA`, `portable`);
    /// `None` where the measured stage has no lane kernel (the scalar variants).
    pub simd: Option<&'static str>,
    pub instances: usize,
    pub threads: usize,
    pub median_us: Option<f64>,
    pub p95_us: Option<f64>,
    pub min_us: Option<f64>,
    /// Baseline median / this median (a speed-up; 1 for the baseline itself).
    pub ratio_to_baseline: Option<f64>,
    /// Frame rows: the 1-thread median of the same schedule / this median (thread scaling).
    pub ratio_to_one_thread: Option<f64>,
    /// Frame rows of a GPU skin variant (its CPU part: sample → palettes laid out for the
    /// GPU): this median / the best CPU variant's at the same threads, schedule and level.
    pub ratio_to_best_cpu: Option<f64>,
    /// Skin rows with dual quaternions: this median / the same variant's with linear
    /// blending at the same level, same run.
    pub ratio_to_linear: Option<f64>,
    /// The seed's published time for this step, where it has one (ms, its machine).
    pub seed_ms: Option<f64>,
    /// The seed's published speed-up over its baseline.
    pub seed_ratio: Option<f64>,
    /// What `ns_per_item` counts: "joint", "vertex" or "vertex" (whole frame).
    pub item: &'static str,
    pub ns_per_item: Option<f64>,
    /// Bytes the measured stage writes per frame.
    pub bytes_per_frame: f64,
    pub gb_per_s: Option<f64>,
    /// `gb_per_s` as a percentage of the store bandwidth with the same thread count.
    pub store_bandwidth_percent: Option<f64>,
    /// Hierarchy rows: hierarchy + palette, median µs.
    pub with_palette_median_us: Option<f64>,
    /// Median µs of every CPU stage in this configuration.
    pub stages_median_us: Vec<(String, f64)>,
    pub frames: usize,
    /// Why the variant refused the rig (then there are no timings).
    pub refused: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RigInfo {
    pub name: String,
    pub joints: usize,
    pub vertices: usize,
    pub triangles: usize,
    /// Vertices with 1, 2, … 8 influences, as the kernels skin them.
    pub influences: [usize; crate::rig::MAX_INFLUENCES],
    /// `--max-influences`, where it cut any vertex's influences.
    pub cut_to_influences: Option<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub machine: Machine,
    pub rig: RigInfo,
    /// Regular-store bandwidth with one thread, GB/s: the reference for 1-thread rows.
    pub store_bandwidth_gbs: f64,
    pub store_bandwidth: Vec<StoreBandwidth>,
    pub quick: bool,
    /// The workloads that ran (all of them unless `--workload` chose).
    pub workloads: Vec<&'static str>,
    /// `--instances`, when it overrode the workloads' own counts.
    pub instances: Option<usize>,
    pub budget_secs: f64,
    /// The SIMD levels measured side by side (rows name theirs).
    pub simd_levels: Vec<&'static str>,
    pub rows: Vec<Row>,
    /// With the skin workload, on a closed mesh: for each method that accepts the rig, the
    /// pose where it keeps the bind pose's volume worst (f64 oracle, every clip).
    pub volumes: Vec<crate::skin::volume::WorstVolume>,
}

/// One configuration under measurement.
struct Candidate {
    /// Runs its lane kernels at the candidate's SIMD level.
    pipeline: Pipeline,
    last: Stage,
    metric: fn(&StageTimings) -> f64,
    frames: Vec<StageTimings>,
}

impl Candidate {
    fn new(
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
        })
    }

    fn stats(&self, value: impl Fn(&StageTimings) -> f64) -> Stats {
        let mut v: Vec<f64> = self.frames.iter().map(value).collect();
        Stats::of(&mut v)
    }

    fn stage_medians(&self) -> Vec<(String, f64)> {
        Stage::CPU
            .iter()
            .map(|&s| (s.name().to_string(), self.stats(|t| t.get(s)).median))
            .filter(|(_, v)| *v > 0.0)
            .collect()
    }
}

/// Measures several configurations on the same instances, interleaved: rounds of a few
/// frames each, round-robin, until every median has settled or the budget is spent.
/// Interleaving spreads the slow phases of a noisy machine over all configurations alike,
/// so their ratios stay meaningful even when absolute times drift.
fn measure_interleaved(
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
            // The first frame of a burst refills the caches after the other configurations
            // ran; it is run but not recorded.
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

#[allow(clippy::too_many_arguments)]
fn empty_row(
    workload: Workload,
    variant: &'static str,
    config: &PipelineConfig,
    simd: Option<SimdLevel>,
    instances: usize,
    item: &'static str,
    bytes_per_frame: f64,
    seed_ms: Option<f64>,
    seed_ratio: Option<f64>,
) -> Row {
    Row {
        workload: workload.name(),
        variant,
        hierarchy: config.hierarchy.name(),
        skin: config.skin.name(),
        method: config.method.name(),
        schedule: config.schedule.name(),
        simd: simd.map(SimdLevel::label),
        instances,
        threads: config.threads,
        median_us: None,
        p95_us: None,
        min_us: None,
        ratio_to_baseline: None,
        ratio_to_one_thread: None,
        ratio_to_best_cpu: None,
        ratio_to_linear: None,
        seed_ms,
        seed_ratio,
        item,
        ns_per_item: None,
        bytes_per_frame,
        gb_per_s: None,
        store_bandwidth_percent: None,
        with_palette_median_us: None,
        stages_median_us: Vec::new(),
        frames: 0,
        refused: None,
    }
}

fn hierarchy_metric(t: &StageTimings) -> f64 {
    t.get(Stage::Hierarchy)
}
fn skin_metric(t: &StageTimings) -> f64 {
    t.get(Stage::Skin)
}
fn frame_metric(t: &StageTimings) -> f64 {
    t.cpu_pipeline_us
}

/// Runs the bench. `progress` receives one line per finished configuration.
pub fn run(
    rig: Arc<PreparedRig>,
    options: &BenchOptions,
    mut progress: impl FnMut(&str),
) -> Result<Report, BenchError> {
    if let Some(n) = options.instances
        && n == 0
    {
        return Err(BenchError::ZeroInstances(n));
    }
    if options.simd_levels.is_empty() {
        return Err(BenchError::NoSimdLevel);
    }
    for &level in &options.simd_levels {
        level.require()?;
    }
    let levels = &options.simd_levels;
    // The levels a variant is measured at: every one for lane kernels, the first for the
    // scalar variants (no lane kernel in the measured stage; the level changes nothing).
    let levels_for = |lanes: usize| -> Vec<Option<SimdLevel>> {
        if lanes == LANES {
            levels.iter().map(|&l| Some(l)).collect()
        } else {
            vec![None]
        }
    };
    let passes = if options.quick { 2 } else { 5 };
    let mut store_bandwidth = Vec::new();
    for threads in 1..=options.max_threads {
        let b = bandwidth::measure(threads, passes);
        progress(&format!(
            "store bandwidth, {threads} thread(s): {:.1} GB/s regular, {} non-temporal",
            b.regular_gbs,
            b.non_temporal_gbs
                .map_or("n/a".into(), |g| format!("{g:.1} GB/s"))
        ));
        store_bandwidth.push(b);
    }
    let bandwidth_for = |threads: usize| {
        store_bandwidth
            .iter()
            .find(|b| b.threads == threads)
            .map_or(store_bandwidth[0].regular_gbs, |b| b.regular_gbs)
    };
    let budget = options.budget();
    let joints = rig.joint_count();
    let vertices = rig.vertex_count();
    // The bytes a skin variant writes per instance (`pulled` stores only distinct vertices).
    let stored_bytes = |skin: SkinVariant, method: SkinMethod| {
        let layout = skin.layout(&rig, method);
        layout.stored_vertices * layout.vertex_size()
    };
    let mut rows = Vec::new();
    // Single-thread workloads use the fused schedule: each group's intermediates are then
    // fresh in the core's cache, as in a real frame, so the stage is measured rather than
    // the memory traffic of a whole-crowd intermediate array.
    let single = |hierarchy, skin| PipelineConfig {
        hierarchy,
        skin,
        schedule: Schedule::Fused,
        threads: 1,
        blend_weight: 0.0,
        method: SkinMethod::Linear,
    };

    for &workload in &options.workloads {
        let mut workload_rows: Vec<Row> = Vec::new();
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut crowd = InstanceStore::new();
        match workload {
            Workload::Hierarchy => {
                let n = options.instances.unwrap_or(1000);
                crowd.resize(n, &rig, 2.0);
                for &h in HierarchyVariant::ALL {
                    // The palette layout the variant naturally feeds: lanes for a lane
                    // hierarchy, else the 3x4 rows; the first skin variant that reads it.
                    let palette = if h.spec().lanes == LANES {
                        PaletteLayout::Lanes
                    } else {
                        PaletteLayout::Mat3x4
                    };
                    let Some(&skin) = SkinVariant::ALL
                        .iter()
                        .find(|s| s.palette_layout() == palette)
                    else {
                        continue;
                    };
                    for level in levels_for(h.spec().lanes) {
                        let config = single(h, skin);
                        let seed_ms = SEED_HIERARCHY_MS
                            .iter()
                            .find(|(v, _)| *v == h)
                            .map(|(_, ms)| *ms);
                        let model_bytes = match h.layout() {
                            ModelLayout::Tree => 128.0,
                            ModelLayout::Mat4 => 64.0,
                            ModelLayout::Qvs | ModelLayout::Lanes => 48.0,
                        };
                        let mut row = empty_row(
                            workload,
                            h.name(),
                            &config,
                            level,
                            n,
                            "joint",
                            (n * joints) as f64 * model_bytes,
                            seed_ms,
                            seed_ms.map(|ms| SEED_HIERARCHY_MS[0].1 / ms),
                        );
                        match Pipeline::new(rig.clone(), config) {
                            Err(FrameError::Refused { reason, .. }) => row.refused = Some(reason),
                            Err(e) => return Err(e.into()),
                            Ok(p) => candidates.push(Candidate::new(
                                p,
                                level.unwrap_or(levels[0]),
                                Stage::Palette,
                                hierarchy_metric,
                            )?),
                        }
                        workload_rows.push(row);
                    }
                }
            }
            Workload::Skin => {
                let n = options.instances.unwrap_or(100);
                crowd.resize(n, &rig, 2.0);
                // The CPU kernels; a GPU variant's CPU part is its palettes.
                // Each variant with every skinning method it implements, dual quaternions
                // beside linear at the same level (the rig may refuse them: then a row
                // says why).
                for &skin in SkinVariant::ALL.iter().filter(|s| s.skins_on_cpu()) {
                    for level in levels_for(skin.spec().lanes) {
                        for &method in skin.spec().methods {
                            let config = PipelineConfig {
                                method,
                                ..single(HierarchyVariant::Simd, skin)
                            };
                            let seed_ms = SEED_SKIN_MS
                                .iter()
                                .find(|(v, _)| *v == skin && method == SkinMethod::Linear)
                                .map(|(_, ms)| *ms);
                            let mut row = empty_row(
                                workload,
                                skin.name(),
                                &config,
                                level,
                                n,
                                "vertex",
                                (n * stored_bytes(skin, method)) as f64,
                                seed_ms,
                                seed_ms.map(|ms| SEED_SKIN_MS[0].1 / ms),
                            );
                            match Pipeline::new(rig.clone(), config) {
                                Err(FrameError::SkinRefused { reason, .. }) => {
                                    row.refused = Some(reason)
                                }
                                Err(e) => return Err(e.into()),
                                Ok(p) => candidates.push(Candidate::new(
                                    p,
                                    level.unwrap_or(levels[0]),
                                    Stage::Skin,
                                    skin_metric,
                                )?),
                            }
                            workload_rows.push(row);
                        }
                    }
                }
            }
            Workload::Frame => {}
        }
        if workload == Workload::Frame {
            // Thread scaling: one interleaved set per instance count.
            let counts = match options.instances {
                Some(n) => vec![n],
                None => vec![100, 1000],
            };
            for n in counts {
                let mut crowd = InstanceStore::new();
                crowd.resize(n, &rig, 2.0);
                let mut set = Vec::new();
                let mut set_rows = Vec::new();
                for &level in levels {
                    for threads in 1..=options.max_threads {
                        for &schedule in Schedule::ALL {
                            // The best variants at this level (the scalar ones where it is
                            // portable).
                            let config = PipelineConfig {
                                schedule,
                                ..with_level(Some(level), || {
                                    PipelineConfig::best_for(&rig, threads)
                                })
                            };
                            set_rows.push(empty_row(
                                workload,
                                config.skin.name(),
                                &config,
                                Some(level),
                                n,
                                "vertex",
                                (n * stored_bytes(config.skin, config.method)) as f64,
                                None,
                                None,
                            ));
                            set.push(Candidate::new(
                                Pipeline::new(rig.clone(), config)?,
                                level,
                                Stage::Skin,
                                frame_metric,
                            )?);
                            // With every thread: the GPU variants' CPU part (sample →
                            // palettes laid out for the GPU) beside the best CPU frame.
                            // Every GPU variant shares it (the same palette layout and
                            // output format), so the first one stands for them all.
                            if threads == options.max_threads
                                && let Some(&gpu) =
                                    SkinVariant::ALL.iter().find(|s| !s.skins_on_cpu())
                            {
                                let config = PipelineConfig {
                                    skin: gpu,
                                    ..config
                                };
                                set_rows.push(empty_row(
                                    workload,
                                    gpu.name(),
                                    &config,
                                    Some(level),
                                    n,
                                    "vertex",
                                    (n * stored_bytes(gpu, config.method)) as f64,
                                    None,
                                    None,
                                ));
                                set.push(Candidate::new(
                                    Pipeline::new(rig.clone(), config)?,
                                    level,
                                    Stage::Skin,
                                    frame_metric,
                                )?);
                            }
                        }
                    }
                }
                measure_interleaved(&mut set, &mut crowd, budget, options.quick)?;
                let baseline = set[0].stats(frame_metric).median;
                type Key = (&'static str, &'static str, Option<&'static str>, usize);
                let key = |row: &Row| -> Key { (row.skin, row.schedule, row.simd, row.threads) };
                let medians: Vec<(Key, f64)> = set_rows
                    .iter()
                    .zip(&set)
                    .map(|(row, c)| (key(row), c.stats(frame_metric).median))
                    .collect();
                let median_of = |k: Key| {
                    medians
                        .iter()
                        .find(|(m, _)| *m == k)
                        .map(|(_, median)| *median)
                };
                for (row, c) in set_rows.iter_mut().zip(&set) {
                    let s = c.stats(frame_metric);
                    fill_timing(row, &s, bandwidth_for(row.threads), (n * vertices) as f64);
                    row.ratio_to_baseline = Some(baseline / s.median);
                    let (skin, schedule, simd, _) = key(row);
                    row.ratio_to_one_thread =
                        median_of((skin, schedule, simd, 1)).map(|one| one / s.median);
                    if !skins_on_cpu(skin) {
                        // The GPU skins: no CPU time per vertex to speak of.
                        row.ns_per_item = None;
                        row.ratio_to_best_cpu = medians
                            .iter()
                            .find(|((other, sc, si, t), _)| {
                                skins_on_cpu(other)
                                    && (*sc, *si, *t) == (schedule, simd, row.threads)
                            })
                            .map(|(_, best)| s.median / best);
                    }
                    row.stages_median_us = c.stage_medians();
                    row.frames = c.frames.len();
                    progress(&report::row_line(row));
                }
                rows.extend(set_rows);
            }
            continue;
        }
        measure_interleaved(&mut candidates, &mut crowd, budget, options.quick)?;
        let n = crowd.len();
        let items = match workload {
            Workload::Hierarchy => (n * joints) as f64,
            Workload::Skin | Workload::Frame => (n * vertices) as f64,
        };
        let mut measured = candidates.iter();
        let mut baseline: Option<(f64, f64)> = None;
        for row in &mut workload_rows {
            if row.refused.is_none() {
                let c = measured.next().expect("one candidate per accepted row");
                let s = c.stats(c.metric);
                fill_timing(row, &s, bandwidth_for(1), items);
                row.stages_median_us = c.stage_medians();
                row.frames = c.frames.len();
                if workload == Workload::Hierarchy {
                    row.with_palette_median_us = Some(
                        c.stats(|t| t.get(Stage::Hierarchy) + t.get(Stage::Palette))
                            .median,
                    );
                }
                let with_palette = row.with_palette_median_us.unwrap_or(0.0);
                let base = *baseline.get_or_insert((s.median, with_palette));
                row.ratio_to_baseline = Some(base.0 / s.median);
            }
            progress(&report::row_line(row));
        }
        let linear: Vec<(&'static str, Option<&'static str>, f64)> = workload_rows
            .iter()
            .filter(|r| r.method == SkinMethod::Linear.name())
            .filter_map(|r| Some((r.variant, r.simd, r.median_us?)))
            .collect();
        for row in &mut workload_rows {
            if row.method != SkinMethod::Linear.name()
                && let Some(median) = row.median_us
            {
                row.ratio_to_linear = linear
                    .iter()
                    .find(|(v, simd, _)| (*v, *simd) == (row.variant, row.simd))
                    .map(|(_, _, base)| median / base);
            }
        }
        rows.extend(workload_rows);
    }
    let volumes = if options.workloads.contains(&Workload::Skin) {
        SkinMethod::ALL
            .iter()
            .filter_map(|&m| crate::skin::volume::worst_volume(&rig, m))
            .collect()
    } else {
        Vec::new()
    };
    let summary = &rig.summary;
    Ok(Report {
        volumes,
        machine: Machine::detect(),
        simd_levels: levels.iter().map(|l| l.label()).collect(),
        rig: RigInfo {
            name: rig.name.clone(),
            joints,
            vertices,
            triangles: summary.triangles,
            influences: rig.source_mesh.influence_histogram(),
            cut_to_influences: rig.uncut_mesh.as_ref().map(|_| rig.max_influences),
        },
        store_bandwidth_gbs: store_bandwidth[0].regular_gbs,
        store_bandwidth,
        quick: options.quick,
        workloads: options.workloads.iter().map(|w| w.name()).collect(),
        instances: options.instances,
        budget_secs: budget.as_secs_f64(),
        rows,
    })
}

/// Whether the skin variant named `name` skins on the CPU (rows keep variant names).
fn skins_on_cpu(name: &str) -> bool {
    SkinVariant::ALL
        .iter()
        .any(|v| v.name() == name && v.skins_on_cpu())
}

fn fill_timing(row: &mut Row, s: &Stats, bandwidth_gbs: f64, items: f64) {
    row.median_us = Some(s.median);
    row.p95_us = Some(s.p95);
    row.min_us = Some(s.min);
    row.ns_per_item = Some(s.median * 1000.0 / items);
    let gbs = row.bytes_per_frame / (s.median * 1e-6) / 1e9;
    row.gb_per_s = Some(gbs);
    row.store_bandwidth_percent = Some(100.0 * gbs / bandwidth_gbs);
}
