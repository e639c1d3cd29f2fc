//! `skinbench bench`: every workload declared once, measured, as tables in one report.
//!
//! How it works: [`Workload`] declares the workloads (the CPU stages' variant matrix:
//! `hierarchy`, `skin`, `frame`; and the ones that draw on an adapter: `gpu`, `crowd`),
//! each in its own file with its own row type and its own section of the report. [`run`]
//! measures the store bandwidth once where a CPU workload runs, then each workload asked
//! for, in the declaration's order, and returns one [`Report`]; [`report`] writes it as
//! Markdown and JSON, atomically and never replacing a report, and [`index`] lists the
//! latest report of each workload per machine. The CPU workloads run every configuration
//! through the app's own [`crate::crowd::Pipeline::run_frame_until`], interleaved
//! ([`measure`]); `gpu` and `crowd` drive the app's own [`crate::gpu::scene::Scene`].
//! Adding a workload is its file and its row in the declaration.
//!
//! SIMD levels (`--simd-level`): every lane variant is measured at each level asked for,
//! its pipeline set to that level, interleaved with all the other candidates, so the
//! levels' rows sit side by side in one run and name their level; scalar variants run once.
//! The frame workload takes each level's best variants.

pub mod bandwidth;
pub mod chart;
pub mod crowd;
pub mod frame;
pub mod gpu;
pub mod hierarchy;
pub mod index;
pub mod load;
pub mod measure;
pub mod report;
pub mod skin;
pub mod summary;
pub mod table;

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::anim::hierarchy::HierarchyVariant;
use crate::crowd::pipeline::available_threads;
use crate::crowd::trace::Trace;
use crate::crowd::{FrameError, Pipeline, PipelineConfig, Schedule};
use crate::gpu::GpuContext;
use crate::prepare::PreparedRig;
use crate::simd::SimdLevel;
use crate::skin::{SkinMethod, SkinVariant};
use crate::types::LANES;
use crate::variant::Variant;

pub use crate::machine::Machine;
pub use bandwidth::StoreBandwidth;

/// What a workload needs to run, and whether a plain `bench` runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkloadSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// It draws on a GPU adapter (lavapipe will do); it runs only when named.
    pub needs_adapter: bool,
}

crate::declare_variants! {
    /// What a bench run measures.
    pub enum Workload: WorkloadSpec in "workload" {
        Hierarchy => WorkloadSpec {
            name: "hierarchy",
            description: "hierarchy stage alone (and with palette), 1000 instances, 1 thread, every hierarchy variant",
            needs_adapter: false,
        },
        Skin => WorkloadSpec {
            name: "skin",
            description: "skin stage alone, 100 instances, 1 thread, every skin variant",
            needs_adapter: false,
        },
        Frame => WorkloadSpec {
            name: "frame",
            description: "the whole CPU frame with the best variants, 100 and 1000 instances, 1..N threads, both schedules; with N threads also the GPU variants' CPU part (sample → palettes)",
            needs_adapter: false,
        },
        Gpu => WorkloadSpec {
            name: "gpu",
            description: "CPU against GPU skinning, and the animation on the GPU, whole frames rendered offscreen, 100, 1000 and 10000 instances, animated on the GPU also 100000 (needs an adapter)",
            needs_adapter: true,
        },
        Crowd => WorkloadSpec {
            name: "crowd",
            description: "10,000 characters from two fixed cameras with update-rate LOD off and on, 1, 2 and all threads (needs an adapter)",
            needs_adapter: true,
        },
        Load => WorkloadSpec {
            name: "load",
            description: "the rig from its file to what its first frame reads (import, prepare, level errors, clip motions), cold and with the level measurements cached",
            needs_adapter: false,
        },
    }
}

impl Workload {
    /// The workloads a plain `bench` runs: those that need no adapter.
    pub fn default_set() -> Vec<Workload> {
        Workload::ALL
            .iter()
            .copied()
            .filter(|w| !w.spec().needs_adapter)
            .collect()
    }
}

/// The times an article published for the steps it measured, the figures a report puts
/// beside its own: the report compares ratios (each step's speed-up over the article's first
/// step), since the articles measured other machines.
#[derive(Clone, Copy, Debug)]
pub struct ArticleTimes<V: 'static> {
    /// The seed article's number (`000`, `004`).
    pub seed: &'static str,
    /// What was measured, and on what.
    pub workload: &'static str,
    /// Each step's variant and its time (ms), in the article's order; the first is the
    /// step the speed-ups are over.
    pub times_ms: &'static [(V, f64)],
}

impl<V: Variant + PartialEq + Copy> ArticleTimes<V> {
    /// The article's time for `variant`, where it measured that step.
    pub fn time_ms(&self, variant: V) -> Option<f64> {
        self.times_ms
            .iter()
            .find(|(v, _)| *v == variant)
            .map(|&(_, ms)| ms)
    }

    /// The article's speed-up for `variant` over its first step.
    pub fn ratio(&self, variant: V) -> Option<f64> {
        Some(self.times_ms.first()?.1 / self.time_ms(variant)?)
    }

    /// The steps and times in words: `tree 3.8 ms → flat 3.1 ms`.
    pub fn summary(&self) -> String {
        self.times_ms
            .iter()
            .map(|(v, ms)| format!("{} {ms:.2} ms", v.name()))
            .collect::<Vec<_>>()
            .join(" → ")
    }
}

/// Seed 000's published hierarchy times.
pub const SEED_HIERARCHY: ArticleTimes<HierarchyVariant> = ArticleTimes {
    seed: "000",
    workload: "1,000 characters of 96 joints",
    times_ms: &[(HierarchyVariant::Tree, 3.8), (HierarchyVariant::Flat, 3.1)],
};

/// Seed 004's published skinning times (linear blending).
pub const SEED_SKIN: ArticleTimes<SkinVariant> = ArticleTimes {
    seed: "004",
    workload: "100 characters of ~5,000 triangles, on an i7-2600K in 2013",
    times_ms: &[
        (SkinVariant::Naive, 4.15),
        (SkinVariant::Split, 4.00),
        (SkinVariant::Float4, 3.53),
        (SkinVariant::Sorted, 2.00),
        (SkinVariant::Tuned, 1.78),
    ],
};

#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub quick: bool,
    pub workloads: Vec<Workload>,
    /// Overrides every workload's instance count.
    pub instances: Option<usize>,
    pub max_threads: usize,
    /// `--threads`: the worker counts the frame and crowd workloads measure (default: every
    /// count from 1 to `max_threads` for frame; 1, 2 and `max_threads` for crowd). The
    /// gpu workload runs `max_threads`.
    pub thread_counts: Option<Vec<usize>>,
    /// The SIMD levels the lane kernels are measured at, side by side (each must be one
    /// the CPU has; [`SimdLevel::available`]). Scalar variants run once.
    pub simd_levels: Vec<SimdLevel>,
    /// `--trace`: every measured frame's stages, uploads, encoding and GPU passes also go
    /// to this timeline.
    pub trace: Option<Arc<Trace>>,
    /// `--clips`: which clips every workload's crowd plays.
    pub clips: crate::crowd::mix::ClipChoice,
    /// `--camera`: where the gpu workload's camera stands.
    pub camera: crate::gpu::camera::CameraStart,
    /// `--material`: what colours the drawing workloads draw the crowd in.
    pub material: crate::gpu::BaseColors,
    /// `--size`: the image the drawing workloads draw, and LOD measures pixels in.
    pub size: (u32, u32),
    /// `--skinned-pool`: the pool of the gpu workload's pooled `gpu_compute` row, `auto`
    /// or a share (`None`: no such row).
    pub skinned_pool: Option<crate::skin::pool::PoolSize>,
    /// `--blend`: the crowd workload's cross-fade weight towards each character's next
    /// clip (0: none).
    pub blend_weight: f32,
    /// Where the rig came from, for the load workload to load it again (`None`: that
    /// workload is refused).
    pub rig_source: Option<load::RigSource>,
}

/// The image the drawing workloads draw unless asked otherwise: the size a user looks at.
pub const DEFAULT_SIZE: (u32, u32) = (1920, 1080);

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            quick: false,
            workloads: Workload::default_set(),
            instances: None,
            max_threads: available_threads(),
            thread_counts: None,
            simd_levels: vec![SimdLevel::native()],
            trace: None,
            clips: Default::default(),
            camera: crate::gpu::camera::CameraStart::Overview,
            material: crate::gpu::BaseColors::DEFAULT,
            size: DEFAULT_SIZE,
            skinned_pool: Some(crate::skin::pool::PoolSize::Auto),
            blend_weight: 0.0,
            rig_source: None,
        }
    }
}

impl BenchOptions {
    /// The worker counts the frame workload measures, ascending.
    pub fn frame_thread_counts(&self) -> Vec<usize> {
        self.thread_counts
            .clone()
            .unwrap_or_else(|| (1..=self.max_threads).collect())
    }

    /// The worker counts the crowd workload measures, ascending.
    pub fn crowd_thread_counts(&self) -> Vec<usize> {
        self.thread_counts.clone().unwrap_or_else(|| {
            let mut counts = vec![1];
            counts.extend([2, self.max_threads].into_iter().filter(|&t| t > 1));
            counts.dedup();
            counts
        })
    }

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
    #[error(transparent)]
    Frame(#[from] FrameError),
    #[error(transparent)]
    Budget(#[from] crate::crowd::budget::BudgetError),
    #[error(transparent)]
    Simd(#[from] crate::simd::UnsupportedLevel),
    #[error("no SIMD level to measure (give at least one --simd-level)")]
    NoSimdLevel,
    #[error("the {workload} workload draws on a GPU adapter, and there is none: {reason}")]
    NoAdapter {
        workload: &'static str,
        reason: String,
    },
    #[error(transparent)]
    Scene(#[from] crate::gpu::scene::SceneError),
    #[error(transparent)]
    Clips(#[from] crate::crowd::mix::ClipChoiceError),
    /// A scene did not take the configuration the workload asked for.
    #[error("{0}")]
    Refused(String),
}

#[derive(Clone, Debug, Serialize)]
pub struct RigInfo {
    pub name: String,
    pub joints: usize,
    pub palette_entries: usize,
    pub vertices: usize,
    pub triangles: usize,
    /// Vertices with 1, 2, … 8 influences, as the kernels skin them.
    pub influences: [usize; crate::rig::MAX_INFLUENCES],
    /// `--max-influences`, where it cut any vertex's influences.
    pub cut_to_influences: Option<usize>,
}

/// The clips the crowds played (`--clips`).
#[derive(Clone, Debug, Serialize)]
pub struct ClipsInfo {
    /// What was asked: `moving`, `all` or names.
    pub choice: String,
    pub played: Vec<String>,
    /// Clips left out, each with why.
    pub left_out: Vec<String>,
}

/// One bench run: the machine, the rig, what was asked, and each workload's section.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub machine: Machine,
    pub rig: RigInfo,
    pub clips: ClipsInfo,
    pub quick: bool,
    /// The workloads that ran.
    pub workloads: Vec<&'static str>,
    /// `--instances`, when it overrode the workloads' own counts.
    pub instances: Option<usize>,
    pub budget_secs: f64,
    /// The SIMD levels measured side by side (rows name theirs).
    pub simd_levels: Vec<&'static str>,
    /// Per thread count, where a CPU workload ran.
    pub store_bandwidth: Vec<StoreBandwidth>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hierarchy: Option<hierarchy::HierarchySection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skin: Option<skin::SkinSection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<frame::FrameSection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<gpu::GpuSection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crowd: Option<crowd::CrowdSection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<load::LoadSection>,
}

/// What a workload runs with.
pub struct Context<'a> {
    pub rig: &'a Arc<PreparedRig>,
    pub options: &'a BenchOptions,
    /// `options.clips` resolved for the rig: what the CPU workloads' crowds are dealt.
    pub clip_mix: &'a crate::crowd::mix::ClipMix,
    gpu: Option<&'a GpuContext>,
    bandwidth: &'a [StoreBandwidth],
    progress: &'a mut dyn FnMut(&str),
}

impl Context<'_> {
    pub fn progress(&mut self, line: &str) {
        (self.progress)(line);
    }

    pub fn budget(&self) -> Duration {
        self.options.budget()
    }

    /// Says, before a block of `configurations` is measured, how long it should take: each
    /// is measured for the budget, interleaved (longer where a frame is so slow that the
    /// fewest frames take more).
    pub fn announce(&mut self, what: &str, configurations: usize) {
        let each = self.budget().as_secs_f64();
        let line = format!(
            "measuring the {what}: {configurations} configurations, interleaved, about {:.0} s \
             ({each:.1} s each{})",
            each * configurations as f64,
            if self.options.quick {
                ", --quick"
            } else {
                "; --quick: 0.4 s"
            }
        );
        self.progress(&line);
    }

    /// The regular-store bandwidth with `threads` threads, GB/s.
    pub fn bandwidth_for(&self, threads: usize) -> f64 {
        self.bandwidth
            .iter()
            .find(|b| b.threads == threads)
            .or(self.bandwidth.first())
            .map_or(f64::NAN, |b| b.regular_gbs)
    }

    /// The levels a variant is measured at: every one for lane kernels, the first for the
    /// scalar variants (no lane kernel in the measured stage; the level changes nothing).
    pub fn levels_for(&self, lanes: usize) -> Vec<Option<SimdLevel>> {
        if lanes == LANES {
            self.options.simd_levels.iter().map(|&l| Some(l)).collect()
        } else {
            vec![None]
        }
    }

    /// A single-thread configuration of `hierarchy` and `skin`. Single-thread workloads use
    /// the fused schedule: each group's intermediates are then fresh in the core's cache,
    /// as in a real frame, so the stage is measured rather than the memory traffic of a
    /// whole-crowd intermediate array.
    pub fn single(hierarchy: HierarchyVariant, skin: SkinVariant) -> PipelineConfig {
        PipelineConfig {
            hierarchy,
            skin,
            schedule: Schedule::Fused,
            threads: 1,
            blend_weight: 0.0,
            method: SkinMethod::Linear,
        }
    }

    /// A pipeline for `config` on the bench's rig, its measurements also on the timeline
    /// where `--trace` keeps one.
    pub fn pipeline(&self, config: PipelineConfig) -> Result<Pipeline, FrameError> {
        let mut pipeline = Pipeline::new(self.rig.clone(), config)?;
        pipeline.set_trace(self.options.trace.clone());
        Ok(pipeline)
    }

    /// A headless scene of `settings` on the adapter, drawing into a `size` image, its
    /// measurements also on the timeline where `--trace` keeps one.
    /// A scene drawing into an image of `--size`, refused where the adapter cannot make
    /// one that large.
    pub fn scene(
        &self,
        workload: &'static str,
        settings: crate::gpu::scene::Settings,
    ) -> Result<crate::gpu::scene::Scene, BenchError> {
        let size = self.options.size;
        let largest = self.gpu(workload)?.device.limits().max_texture_dimension_2d;
        if size.0 > largest || size.1 > largest {
            return Err(BenchError::Refused(format!(
                "--size {}x{}: this adapter's images are at most {largest} pixels a side",
                size.0, size.1
            )));
        }
        let settings = crate::gpu::scene::Settings {
            clips: self.options.clips.clone(),
            ..settings
        };
        let mut scene = crate::gpu::scene::Scene::new(
            self.gpu(workload)?.clone(),
            self.rig.clone(),
            settings,
            wgpu::TextureFormat::Rgba8Unorm,
            size,
        )?;
        scene.set_trace(self.options.trace.clone());
        Ok(scene)
    }

    /// The adapter, for a workload that draws.
    pub fn gpu(&self, workload: &'static str) -> Result<&GpuContext, BenchError> {
        self.gpu.ok_or(BenchError::NoAdapter {
            workload,
            reason: "none was given".into(),
        })
    }
}

/// Runs the workloads `options` asks for on `rig` (`gpu`: the adapter the drawing workloads
/// need). `progress` receives a line per finished configuration.
pub fn run(
    rig: Arc<PreparedRig>,
    options: &BenchOptions,
    gpu: Option<&GpuContext>,
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
    let cpu_workloads: Vec<&str> = Workload::ALL
        .iter()
        .filter(|w| options.workloads.contains(w) && !w.spec().needs_adapter)
        .map(|w| w.name())
        .collect();
    if !cpu_workloads.is_empty() {
        progress(&format!(
            "CPU workloads ({}): every configuration measured for {:.1} s, interleaved{}; \
             each block says how many it measures before it starts",
            cpu_workloads.join(", "),
            options.budget().as_secs_f64(),
            if options.quick {
                " (--quick: about 15 s in all for the defaults on 2 cores)"
            } else {
                " (about 3 minutes in all for the defaults on 2 cores; --quick: 0.4 s each)"
            }
        ));
    }
    let survey = crate::crowd::mix::ClipSurvey::measure(&rig);
    let clip_mix = crate::crowd::mix::ClipMix::choose(&options.clips, &rig, &survey)?;
    // Each character cross-fades towards the next clip the crowd plays: with one clip there
    // is nothing to fade to, and a report named for the cross-fade would measure none.
    if options.blend_weight > 0.0 && clip_mix.clips.len() < 2 {
        return Err(BenchError::Refused(format!(
            "--blend {}: the crowd of {} plays one clip ({}), so nothing cross-fades; \
             give --clips two or more of its clips: {}",
            options.blend_weight,
            rig.name,
            clip_mix.clips.first().map_or("none", |&c| survey.name(c)),
            survey.names()
        )));
    }
    let mut store_bandwidth = Vec::new();
    if options.workloads.iter().any(|w| !w.spec().needs_adapter) {
        let passes = if options.quick { 2 } else { 5 };
        for threads in options.frame_thread_counts() {
            let b = bandwidth::measure(threads, passes);
            progress(&format!(
                "store bandwidth, {threads} thread(s): {:.1} GB/s regular, {} non-temporal",
                b.regular_gbs,
                b.non_temporal_gbs
                    .map_or("n/a".into(), |g| format!("{g:.1} GB/s"))
            ));
            store_bandwidth.push(b);
        }
    }
    let clip_name = |c: u16| survey.name(c).to_string();
    let clips = ClipsInfo {
        choice: options.clips.label(),
        played: clip_mix.clips.iter().map(|&c| clip_name(c)).collect(),
        left_out: clip_mix
            .left_out
            .iter()
            .map(|&(c, why)| format!("{} ({why})", clip_name(c)))
            .collect(),
    };
    let summary = &rig.summary;
    let mut report = Report {
        machine: Machine::detect(),
        rig: RigInfo {
            name: rig.name.clone(),
            joints: rig.joint_count(),
            palette_entries: rig.palette_len(),
            vertices: rig.vertex_count(),
            triangles: summary.triangles,
            influences: rig.source_mesh.influence_histogram(),
            cut_to_influences: rig.uncut_mesh.as_ref().map(|_| rig.max_influences),
        },
        clips,
        quick: options.quick,
        workloads: Workload::ALL
            .iter()
            .filter(|w| options.workloads.contains(w))
            .map(|w| w.name())
            .collect(),
        instances: options.instances,
        budget_secs: options.budget().as_secs_f64(),
        simd_levels: options.simd_levels.iter().map(|l| l.label()).collect(),
        store_bandwidth,
        hierarchy: None,
        skin: None,
        frame: None,
        gpu: None,
        crowd: None,
        load: None,
    };
    let bandwidth = report.store_bandwidth.clone();
    let mut ctx = Context {
        rig: &rig,
        options,
        clip_mix: &clip_mix,
        gpu,
        bandwidth: &bandwidth,
        progress: &mut progress,
    };
    for &workload in Workload::ALL {
        if !options.workloads.contains(&workload) {
            continue;
        }
        match workload {
            Workload::Hierarchy => report.hierarchy = Some(hierarchy::run(&mut ctx)?),
            Workload::Skin => report.skin = Some(skin::run(&mut ctx)?),
            Workload::Frame => report.frame = Some(frame::run(&mut ctx)?),
            Workload::Gpu => report.gpu = Some(gpu::run(&mut ctx)?),
            Workload::Crowd => report.crowd = Some(crowd::run(&mut ctx)?),
            Workload::Load => report.load = Some(load::run(&mut ctx)?),
        }
    }
    Ok(report)
}
