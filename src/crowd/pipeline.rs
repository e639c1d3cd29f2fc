//! The frame pipeline: one entry point that runs sample → blend → hierarchy → palette →
//! skin for every instance and returns the frame's timings. The window, the bench and the
//! tests all call [`Pipeline::run_frame`].
//!
//! How it works: instances are processed in groups of eight (the `simd` lane count). All
//! per-instance intermediate state of a group (local poses, model poses, palettes) lives
//! in one contiguous, cache-line aligned block of an arena, so splitting the arena, the
//! instance array, the output buffer and the `tree` variant's trees into per-group chunks
//! gives every task its own disjoint memory: no two threads ever write the same cache
//! line. The calling thread and the crew's workers ([`super::crew`]) take group indices
//! from one counter, each index once, and each takes its chunks by index. The arena is
//! sized when the configuration or instance count changes; a steady-state frame allocates
//! nothing.
//!
//! Schedules: `staged` runs each stage over all groups in parallel with a barrier between
//! stages (the intermediate arrays make a round trip through L2/L3); `fused` runs all
//! stages of one group in one task, so its palettes are still in the core's cache when it
//! is skinned (the "groups" of "Creating an Optimized Transform Hierarchy").

use std::sync::Arc;
use std::time::Instant;

use glam::Mat4;

use super::crew::Crew;
use super::instances::Instance;
use super::timing::{Stage, StageClock, StageTimings};
use crate::anim::blend::{blend_listed, blend_poses, blend_reference};
use crate::anim::hierarchy::reference::LocalF64;
use crate::anim::hierarchy::{
    self, HierarchyError, HierarchyVariant, JointTree, ModelLayout, ModelPoses, ModelPosesMut,
};
use crate::anim::palette::{self, PaletteError, PaletteLayout, Palettes, PalettesMut};
use crate::anim::sample::{LevelPose, sample_clip_for};
use crate::chunks::{Claims, SliceChunks};
use crate::prepare::PreparedRig;
use crate::simd::{SimdLevel, UnsupportedLevel, with_level};
use crate::skin::dest::DestChunks;
use crate::skin::{self, BufferError, Dest, OutputBuffer, OutputLayout, SkinError, SkinMethod};
use crate::types::{CacheLine, LANES, Lanes3x4, Qvs};
use crate::variant::Variant;

pub use super::config::{PipelineConfig, Schedule, available_threads, best_hierarchy, best_skin};

impl PipelineConfig {
    /// Whether this configuration can run `rig` on this machine: the thread count, the
    /// blend weight, and each variant's refusal of the rig. [`Pipeline::new`] and
    /// [`Pipeline::set_config`] check it; the command line checks it before opening a
    /// window.
    pub fn check(&self, rig: &PreparedRig) -> Result<(), FrameError> {
        let config = self;
        let max = available_threads();
        if config.threads == 0 || config.threads > max {
            return Err(FrameError::Threads {
                given: config.threads,
                max,
            });
        }
        if !(0.0..=1.0).contains(&config.blend_weight) {
            return Err(FrameError::BlendWeight(config.blend_weight));
        }
        if let Some(reason) = config.hierarchy.refusal(rig) {
            return Err(FrameError::Refused {
                variant: config.hierarchy.name(),
                rig: rig.name.clone(),
                reason,
            });
        }
        if let Some(reason) = config.skin.refusal(config.method, rig) {
            return Err(FrameError::SkinRefused {
                variant: config.skin.name(),
                method: config.method.name(),
                rig: rig.name.clone(),
                reason,
            });
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("the {variant} hierarchy variant refuses rig {rig}: {reason}")]
    Refused {
        variant: &'static str,
        rig: String,
        reason: String,
    },
    #[error("the {variant} skin variant with {method} skinning refuses rig {rig}: {reason}")]
    SkinRefused {
        variant: &'static str,
        method: &'static str,
        rig: String,
        reason: String,
    },
    #[error("thread count {given} is out of range 1..={max}")]
    Threads { given: usize, max: usize },
    #[error("blend weight {0} is outside 0..=1")]
    BlendWeight(f32),
    #[error(transparent)]
    Output(#[from] BufferError),
    #[error("hierarchy: {0}")]
    Hierarchy(#[from] HierarchyError),
    #[error("palette: {0}")]
    Palette(#[from] PaletteError),
    #[error("skin: {0}")]
    Skin(#[from] SkinError),
    #[error("cannot start the worker threads: {0}")]
    Pool(#[source] std::io::Error),
    #[error("{runs} runs of groups but {destinations} destinations")]
    RunsDestinations { runs: usize, destinations: usize },
    #[error("group run {run:?} is not ascending, disjoint and within 0..{groups}")]
    Runs {
        run: std::ops::Range<usize>,
        groups: usize,
    },
    #[error("{given} skin levels for {groups} groups of eight (one a group, or none)")]
    SkinLevels { given: usize, groups: usize },
}

/// The first error any group task returned (groups run on several workers).
#[derive(Default)]
struct FirstError(std::sync::OnceLock<FrameError>);

impl FirstError {
    fn keep(&self, result: Result<(), FrameError>) {
        if let Err(e) = result {
            let _ = self.0.set(e);
        }
    }

    fn into_result(self) -> Result<(), FrameError> {
        match self.0.into_inner() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Each worker thread's stack. `tree`, the object-tree baseline, walks the hierarchy
/// recursively, one call per level, and import accepts chains as deep as
/// [`crate::rig::MAX_JOINTS`]: 65,535 levels of at most 512 bytes each (a walk frame is
/// under 200 bytes in release builds, tests/hostile.rs walks the deepest chain) fit in
/// 32 MiB. The stack is reserved address space; only the pages a walk touches are used.
/// A frame with `tree` runs on these workers alone, and so does verification's pose read;
/// other frames also run on the calling thread.
pub const WORKER_STACK_BYTES: usize = 32 << 20;

/// Byte sizes of the parts of one group's block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GroupLayout {
    locals: usize,
    locals_b: usize,
    model: usize,
    palette: usize,
}

impl GroupLayout {
    fn new(rig: &PreparedRig, config: &PipelineConfig) -> Self {
        let s = rig.joint_stride;
        let qvs = std::mem::size_of::<Qvs>();
        let lanes = std::mem::size_of::<Lanes3x4>();
        let per_instance = |bytes: usize| LANES * s * bytes;
        GroupLayout {
            locals: per_instance(qvs),
            locals_b: if config.blend_weight > 0.0 {
                per_instance(qvs)
            } else {
                0
            },
            model: match config.hierarchy.layout() {
                ModelLayout::Tree => 0,
                ModelLayout::Mat4 => per_instance(64),
                ModelLayout::Qvs => per_instance(qvs),
                ModelLayout::Lanes => s * lanes,
            },
            // Position matrices, and the normal matrices where the rig needs them.
            palette: match config.skin.palette_layout() {
                PaletteLayout::Mat4 => LANES * rig.palette_stride() * 64,
                PaletteLayout::Mat3x4 => LANES * rig.palette_stride() * 48,
                PaletteLayout::Lanes => rig.palette_stride() * lanes,
            },
        }
    }

    fn lines(&self) -> usize {
        (self.locals + self.locals_b + self.model + self.palette).div_ceil(64)
    }
}

/// Bytes of one group's block of intermediate state (local poses, model poses, palettes)
/// for `config` on `rig`: what the memory budget multiplies.
pub(crate) fn group_block_bytes(rig: &PreparedRig, config: &PipelineConfig) -> usize {
    GroupLayout::new(rig, config).lines() * std::mem::size_of::<CacheLine>()
}

/// One group's typed parts.
struct Parts<'a> {
    locals: &'a mut [Qvs],
    locals_b: &'a mut [Qvs],
    model: &'a mut [u8],
    palette: &'a mut [u8],
}

fn split<'a>(layout: &GroupLayout, block: &'a mut [CacheLine]) -> Parts<'a> {
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(block);
    let (locals, rest) = bytes.split_at_mut(layout.locals);
    let (locals_b, rest) = rest.split_at_mut(layout.locals_b);
    let (model, rest) = rest.split_at_mut(layout.model);
    let palette = &mut rest[..layout.palette];
    Parts {
        locals: bytemuck::cast_slice_mut(locals),
        locals_b: bytemuck::cast_slice_mut(locals_b),
        model,
        palette,
    }
}

fn model_mut<'a>(
    layout: ModelLayout,
    bytes: &'a mut [u8],
    trees: &'a mut [JointTree],
) -> ModelPosesMut<'a> {
    match layout {
        ModelLayout::Tree => ModelPosesMut::Tree(trees),
        ModelLayout::Mat4 => ModelPosesMut::Mat4(bytemuck::cast_slice_mut(bytes)),
        ModelLayout::Qvs => ModelPosesMut::Qvs(bytemuck::cast_slice_mut(bytes)),
        ModelLayout::Lanes => ModelPosesMut::Lanes(bytemuck::cast_slice_mut(bytes)),
    }
}

fn model_ref<'a>(layout: ModelLayout, bytes: &'a [u8], trees: &'a [JointTree]) -> ModelPoses<'a> {
    match layout {
        ModelLayout::Tree => ModelPoses::Tree(trees),
        ModelLayout::Mat4 => ModelPoses::Mat4(bytemuck::cast_slice(bytes)),
        ModelLayout::Qvs => ModelPoses::Qvs(bytemuck::cast_slice(bytes)),
        ModelLayout::Lanes => ModelPoses::Lanes(bytemuck::cast_slice(bytes)),
    }
}

fn palettes_mut(layout: PaletteLayout, bytes: &mut [u8]) -> PalettesMut<'_> {
    match layout {
        PaletteLayout::Mat4 => PalettesMut::Mat4(bytemuck::cast_slice_mut(bytes)),
        PaletteLayout::Mat3x4 => PalettesMut::Mat3x4(bytemuck::cast_slice_mut(bytes)),
        PaletteLayout::Lanes => PalettesMut::Lanes(bytemuck::cast_slice_mut(bytes)),
    }
}

fn palettes_ref(layout: PaletteLayout, bytes: &[u8]) -> Palettes<'_> {
    match layout {
        PaletteLayout::Mat4 => Palettes::Mat4(bytemuck::cast_slice(bytes)),
        PaletteLayout::Mat3x4 => Palettes::Mat3x4(bytemuck::cast_slice(bytes)),
        PaletteLayout::Lanes => Palettes::Lanes(bytemuck::cast_slice(bytes)),
    }
}

/// What every group task needs to know about the frame.
struct FrameContext<'a> {
    rig: &'a PreparedRig,
    config: PipelineConfig,
    layout: GroupLayout,
    output: OutputLayout,
    clock: &'a StageClock,
    /// Per group, the finest level of the mesh's chain its characters are drawn at (none:
    /// the full mesh).
    skin_levels: &'a [u8],
}

impl FrameContext<'_> {
    /// Runs one stage for group `g`, `instances`.
    fn run(
        &self,
        stage: Stage,
        block: &mut [CacheLine],
        g: usize,
        instances: &[Instance],
        out: Dest<u8>,
        trees: &mut [JointTree],
    ) -> Result<(), FrameError> {
        let rig = self.rig;
        let s = rig.joint_stride;
        let active = instances.len();
        let parts = split(&self.layout, block);
        // A group skinned for a level poses only the joints that level's vertices follow,
        // with the level's influence cut where the method cuts.
        let level = self.skin_levels.get(g).map(|&l| l as usize);
        let method = self.config.method;
        let set = level.map_or_else(
            || rig.all_joints(),
            |l| crate::skin::level_errors::posed_joints(rig, l, method),
        );
        match stage {
            Stage::Sample => self.clock.time(stage, || {
                profiling::scope!("sample");
                let blend = self.config.blend_weight > 0.0;
                let level = level.map(|level| LevelPose {
                    level,
                    set,
                    merges: Some(crate::skin::level_errors::level_merges(rig, level, method)),
                });
                for (k, inst) in instances.iter().enumerate() {
                    sample_instance(
                        rig,
                        inst.clip,
                        inst.time_secs,
                        &mut parts.locals[k * s..(k + 1) * s],
                        level,
                    );
                    if blend {
                        sample_instance(
                            rig,
                            inst.blend_clip,
                            inst.time_secs,
                            &mut parts.locals_b[k * s..(k + 1) * s],
                            level,
                        );
                    }
                }
            }),
            Stage::Blend => self.clock.time(stage, || {
                profiling::scope!("blend");
                let weight = self.config.blend_weight;
                // A group posed for a level blends only the joints it poses.
                let listed = (!set.has_every_joint()).then(|| set.joint_list());
                for k in 0..active {
                    let a = &mut parts.locals[k * s..k * s + rig.joint_count()];
                    let b = &parts.locals_b[k * s..k * s + rig.joint_count()];
                    match listed {
                        None => blend_poses(a, b, weight),
                        Some(joints) => blend_listed(a, b, weight, joints),
                    }
                }
            }),
            Stage::Hierarchy => self.clock.time(stage, || {
                profiling::scope!("hierarchy");
                let model = model_mut(self.config.hierarchy.layout(), parts.model, trees);
                hierarchy::run_group(self.config.hierarchy, rig, parts.locals, model, active, set)
            })?,
            Stage::Palette => self.clock.time(stage, || {
                profiling::scope!("palette");
                let model = model_ref(self.config.hierarchy.layout(), parts.model, trees);
                let layout = self.config.skin.palette_layout();
                palette::run_group(rig, model, palettes_mut(layout, parts.palette), active, set)?;
                match self.config.method {
                    SkinMethod::Linear => Ok(()),
                    SkinMethod::DualQuat => {
                        let scale = skin::method::dual_quat_scale(rig);
                        palette::to_dual_quat(rig, palettes_mut(layout, parts.palette), scale, set)
                    }
                }
            })?,
            Stage::Skin => self.clock.time(stage, || {
                profiling::scope!("skin");
                let palettes = palettes_ref(self.config.skin.palette_layout(), parts.palette);
                skin::run_group(
                    self.config.skin,
                    rig,
                    &self.output,
                    palettes,
                    out,
                    skin::SkinGroup {
                        active,
                        level: level.unwrap_or(0),
                    },
                    self.config.method,
                )
            })?,
            // Not CPU pipeline stages: `cpu_stages` never lists them.
            Stage::Upload | Stage::Render => {}
        }
        Ok(())
    }

    fn cpu_stages(&self) -> &'static [Stage] {
        if self.config.blend_weight > 0.0 {
            &[
                Stage::Sample,
                Stage::Blend,
                Stage::Hierarchy,
                Stage::Palette,
                Stage::Skin,
            ]
        } else {
            &[Stage::Sample, Stage::Hierarchy, Stage::Palette, Stage::Skin]
        }
    }
}

/// `level`: a mesh level, its joints and the ones it holds at rest; only the others'
/// tracks are sampled (`None`: every track).
pub(crate) fn sample_instance(
    rig: &PreparedRig,
    clip: u16,
    time_secs: f32,
    out: &mut [Qvs],
    level: Option<LevelPose<'_>>,
) {
    match rig.clips.get(clip as usize) {
        Some(c) => sample_clip_for(c, clip as usize, &rig.rest_pose, time_secs, out, level),
        None => out[..rig.rest_pose.len()].copy_from_slice(&rig.rest_pose),
    }
}

/// Memory per instance, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct MemoryReport {
    /// The instance struct in the store (clip, time, speed, material, position).
    pub instance_bytes: usize,
    /// Per-frame intermediate state: local pose(s), model pose, palette.
    pub pipeline_state_bytes: usize,
    /// Heap of the `tree` variant's joint tree (0 for the other variants).
    pub tree_heap_bytes: usize,
    /// Skinned output (one instance's slice of the vertex buffer).
    pub output_bytes: usize,
}

/// Runs frames for one rig and configuration (see the module docs).
pub struct Pipeline {
    rig: Arc<PreparedRig>,
    config: PipelineConfig,
    /// `threads` workers; the calling thread joins them (see [`super::crew`]).
    crew: Crew,
    /// The SIMD level of this pipeline's lane kernels (`None`: the process's).
    simd_level: Option<SimdLevel>,
    layout: GroupLayout,
    /// Where the skin variant puts each instance's vertices.
    output: OutputLayout,
    arena: Vec<CacheLine>,
    trees: Vec<JointTree>,
    /// One group block per worker for the `fused` schedule: a group's intermediates are
    /// consumed by the same task, so they need not outlive it, and the same few blocks
    /// stay in the worker's cache instead of a whole arena streaming through memory.
    scratch: Vec<std::sync::Mutex<Vec<CacheLine>>>,
    /// The frame's group tasks: (destination, chunk in it, group), reused every frame.
    jobs: Vec<(u32, u32, u32)>,
    /// Which chunks of the output, the arena and the trees a stage has handed out, reused
    /// every frame.
    claims: [Claims; 3],
    clock: StageClock,
}

impl Pipeline {
    pub fn new(rig: Arc<PreparedRig>, config: PipelineConfig) -> Result<Self, FrameError> {
        config.check(&rig)?;
        let crew = Self::build_crew(config.threads)?;
        Ok(Pipeline {
            layout: GroupLayout::new(&rig, &config),
            output: config.skin.layout(&rig, config.method),
            rig,
            config,
            crew,
            simd_level: None,
            arena: Vec::new(),
            trees: Vec::new(),
            scratch: Vec::new(),
            jobs: Vec::new(),
            claims: Default::default(),
            clock: StageClock::default(),
        })
    }

    /// `threads` workers: the calling thread and `threads - 1` of them run a frame; the
    /// last one stands in for the caller where a recursive hierarchy needs a worker's
    /// stack.
    fn build_crew(threads: usize) -> Result<Crew, FrameError> {
        Crew::new(threads, WORKER_STACK_BYTES).map_err(FrameError::Pool)
    }

    /// Runs `f` once per index in `0..items` on `threads` participants: the caller and
    /// `threads - 1` workers, or `threads` workers for a recursive hierarchy.
    fn run_job(crew: &mut Crew, config: &PipelineConfig, items: usize, f: &(dyn Fn(usize) + Sync)) {
        let caller_joins = !config.hierarchy.spec().recursive;
        let helpers = config.threads - usize::from(caller_joins);
        crew.run(items, helpers, caller_joins, f);
    }

    pub fn rig(&self) -> &Arc<PreparedRig> {
        &self.rig
    }

    pub fn config(&self) -> &PipelineConfig {
        &self.config
    }

    /// Keeps every stage measurement of every group also as a span of `trace` (see
    /// [`super::trace`]); `None` stops.
    pub fn set_trace(&mut self, trace: Option<Arc<super::trace::Trace>>) {
        self.clock.set_trace(trace);
    }

    /// Runs this pipeline's lane kernels at `level` (`None`: the level of the process,
    /// [`SimdLevel::detect`]), for comparing levels side by side and testing each. Refuses
    /// a level the CPU lacks.
    pub fn set_simd_level(&mut self, level: Option<SimdLevel>) -> Result<(), UnsupportedLevel> {
        if let Some(level) = level {
            level.require()?;
        }
        self.simd_level = level;
        Ok(())
    }

    /// The SIMD level this pipeline's lane kernels run at.
    pub fn simd_level(&self) -> SimdLevel {
        self.simd_level.unwrap_or_else(SimdLevel::detect)
    }

    /// Switches variants, schedule, threads or blend. On error nothing changes.
    pub fn set_config(&mut self, config: PipelineConfig) -> Result<(), FrameError> {
        config.check(&self.rig)?;
        if config.threads != self.config.threads {
            self.crew = Self::build_crew(config.threads)?;
        }
        if config.hierarchy != self.config.hierarchy {
            // Only `tree` builds heap trees; another variant would keep them for nothing.
            self.trees = Vec::new();
        }
        self.config = config;
        self.output = config.skin.layout(&self.rig, config.method);
        let layout = GroupLayout::new(&self.rig, &config);
        if layout != self.layout || config.threads != self.scratch.len() {
            self.layout = layout;
            self.arena = Vec::new();
            self.scratch.clear();
        }
        Ok(())
    }

    /// Where the current skin variant puts each instance's vertices: the one answer the
    /// uploads, the renderer and every read-back use.
    pub fn output_layout(&self) -> &OutputLayout {
        &self.output
    }

    /// Output bytes needed for `instances` instances.
    pub fn output_bytes(&self, instances: usize) -> usize {
        self.output.bytes(instances)
    }

    pub fn memory_report(&self) -> MemoryReport {
        MemoryReport {
            instance_bytes: std::mem::size_of::<Instance>(),
            pipeline_state_bytes: match self.config.schedule {
                Schedule::Staged => self.layout.lines() * 64 / LANES,
                // One block per worker, whatever the instance count.
                Schedule::Fused => 0,
            },
            tree_heap_bytes: if self.config.hierarchy == HierarchyVariant::Tree {
                JointTree::new(&self.rig.skeleton).heap_bytes() + std::mem::size_of::<JointTree>()
            } else {
                0
            },
            output_bytes: self.output.instance_stride(),
        }
    }

    /// Makes the state fit `n` instances (allocates only when it grows or the layout
    /// changed): the arena for `staged`, one block per worker for `fused`, and the trees.
    fn reserve(&mut self, n: usize) {
        match self.config.schedule {
            Schedule::Staged => self.reserve_arena(n),
            Schedule::Fused => {
                if self.scratch.len() != self.config.threads {
                    let block = vec![CacheLine::ZERO; self.layout.lines()];
                    self.scratch = (0..self.config.threads)
                        .map(|_| std::sync::Mutex::new(block.clone()))
                        .collect();
                }
            }
        }
        if self.trees.len() < n {
            self.trees.resize_with(n, JointTree::default);
        } else if n.saturating_mul(4) < self.trees.len() {
            // A crowd a quarter of the size it was gives the trees' memory back.
            self.trees.truncate(n);
            self.trees.shrink_to_fit();
        }
        if self.config.hierarchy == HierarchyVariant::Tree {
            for tree in &mut self.trees[..n] {
                if !tree.is_built() {
                    *tree = JointTree::new(&self.rig.skeleton);
                }
            }
        }
    }

    fn reserve_arena(&mut self, n: usize) {
        let lines = n.div_ceil(LANES) * self.layout.lines();
        if self.arena.len() < lines {
            self.arena.resize(lines, CacheLine::ZERO);
        } else if lines.saturating_mul(4) < self.arena.len() {
            // As the skinned buffer does: a crowd a quarter of the size gives memory back.
            self.arena = vec![CacheLine::ZERO; lines];
        }
    }

    /// Computes one frame for `instances` into `out` (each instance where
    /// [`Self::output_layout`] says) and returns its timings.
    pub fn run_frame(
        &mut self,
        instances: &[Instance],
        out: &mut OutputBuffer,
    ) -> Result<StageTimings, FrameError> {
        self.run_frame_until(instances, out.as_bytes_mut(), Stage::Skin)
    }

    /// Runs the stages up to and including `last` (the bench times the hierarchy without
    /// skinning; `out` may then be empty).
    pub fn run_frame_until(
        &mut self,
        instances: &[Instance],
        out: &mut [u8],
        last: Stage,
    ) -> Result<StageTimings, FrameError> {
        self.run_frame_into(instances, Dest::from_mut(out), last)
    }

    /// As [`Self::run_frame_until`], into a write-only destination (for example mapped GPU
    /// staging memory, which must not be read or viewed as a `&mut [u8]`).
    pub fn run_frame_into(
        &mut self,
        instances: &[Instance],
        out: Dest<u8>,
        last: Stage,
    ) -> Result<StageTimings, FrameError> {
        let groups = instances.len().div_ceil(LANES);
        let all = 0..groups;
        self.run_groups_into(instances, std::slice::from_ref(&all), &mut [out], last)
    }

    /// Computes only the groups of eight instances in `runs` (each a range of group
    /// indices, ascending and disjoint): what update-rate LOD and the dirty check ask for.
    /// Run `r`'s output goes to `outs[r]`, which starts where the layout puts group
    /// `runs[r].start` (so instance `i` of the run is at `instance_offset(i - first)`); the
    /// other groups' output is not touched. The timings count the groups computed.
    pub fn run_groups_into(
        &mut self,
        instances: &[Instance],
        runs: &[std::ops::Range<usize>],
        outs: &mut [Dest<'_, u8>],
        last: Stage,
    ) -> Result<StageTimings, FrameError> {
        self.run_groups_at_levels_into(instances, runs, &[], outs, last)
    }

    /// As [`Self::run_groups_into`], where group `g`'s characters are drawn at level
    /// `skin_levels[g]` of the mesh's chain or finer (one entry a group of the crowd,
    /// computed or not; empty: the full mesh): the skin stage writes only the vertices of
    /// that level (`skin::run_group`), the others keep what they held.
    pub fn run_groups_at_levels_into(
        &mut self,
        instances: &[Instance],
        runs: &[std::ops::Range<usize>],
        skin_levels: &[u8],
        outs: &mut [Dest<'_, u8>],
        last: Stage,
    ) -> Result<StageTimings, FrameError> {
        let n = instances.len();
        let groups = n.div_ceil(LANES);
        let skinning = last == Stage::Skin;
        if !skin_levels.is_empty() && skin_levels.len() != groups {
            return Err(FrameError::SkinLevels {
                given: skin_levels.len(),
                groups,
            });
        }
        if outs.len() != runs.len() {
            return Err(FrameError::RunsDestinations {
                runs: runs.len(),
                destinations: outs.len(),
            });
        }
        let mut previous_end = 0;
        for run in runs {
            if run.start < previous_end || run.end > groups || run.start > run.end {
                return Err(FrameError::Runs {
                    run: run.clone(),
                    groups,
                });
            }
            previous_end = run.end;
        }
        if skinning {
            for (run, out) in runs.iter().zip(outs.iter_mut()) {
                let count = n.min(run.end * LANES) - run.start * LANES;
                self.output
                    .check_buffer(out.as_mut_ptr() as usize, out.len(), count)?;
            }
        }
        self.reserve(n);
        // A mesh without stored vertices writes nothing: its groups get stand-ins too.
        let writes = skinning && self.output.group_bytes() > 0;
        // Every computed group once: (destination, chunk in it, group index).
        self.jobs.clear();
        for (r, run) in runs.iter().enumerate() {
            for g in run.clone() {
                let (dest, chunk) = if writes { (r, g - run.start) } else { (0, g) };
                self.jobs.push((dest as u32, chunk as u32, g as u32));
            }
        }
        self.clock.reset();
        let context = FrameContext {
            rig: &self.rig,
            config: self.config,
            layout: self.layout,
            output: self.output,
            clock: &self.clock,
            skin_levels,
        };
        // A coarse level's held joints come with the level errors, measured once per rig
        // the first time one is drawn: here, before the stages' clocks start. A crowd at
        // full detail holds nothing and measures nothing.
        if skin_levels.iter().any(|&l| l > 0) {
            crate::skin::level_errors::level_errors(&self.rig);
        }
        let group_lines = self.layout.lines();
        let trees = &mut self.trees[..n];
        let stages: &[Stage] = {
            let all = context.cpu_stages();
            let end = all
                .iter()
                .position(|&s| s == last)
                .map_or(all.len(), |i| i + 1);
            &all[..end]
        };
        // Without skinning (or with nothing to store), a group's task gets an empty
        // destination: the stages before skinning do not write one.
        let chunk_bytes = self.output.group_bytes();
        fn take<'b>(outs: &Option<DestChunks<'b, '_>>, dest: u32, chunk: u32) -> Dest<'b, u8> {
            match outs {
                Some(outs) => outs.take(dest as usize, chunk as usize),
                None => Dest::from_mut(&mut []),
            }
        }
        let jobs = &self.jobs;
        // The frame was validated above, so no group fails; should one, its error is kept
        // and returned.
        let first_error = FirstError::default();
        let start = Instant::now();
        let (crew, config, level) = (&mut self.crew, &self.config, self.simd_level);
        let [dest_claims, block_claims, tree_claims] = &mut self.claims;
        if !jobs.is_empty() {
            match self.config.schedule {
                Schedule::Staged => {
                    let arena = &mut self.arena[..groups * group_lines];
                    for &stage in stages {
                        // Each stage hands every group its chunks anew.
                        let outs = writes
                            .then(|| DestChunks::new(&mut *outs, chunk_bytes, &mut *dest_claims));
                        let blocks = SliceChunks::new(&mut *arena, group_lines, &mut *block_claims);
                        let trees = SliceChunks::new(&mut *trees, LANES, &mut *tree_claims);
                        Self::run_job(crew, config, jobs.len(), &|j| {
                            let (dest, chunk, g) = jobs[j];
                            let g = g as usize;
                            let mut out = take(&outs, dest, chunk);
                            let (block, trees) = (blocks.get(g), trees.get(g));
                            let group = &instances[g * LANES..(n.min((g + 1) * LANES))];
                            with_level(level, || {
                                first_error.keep(context.run(
                                    stage,
                                    block,
                                    g,
                                    group,
                                    out.range(0, out.len()),
                                    trees,
                                ))
                            })
                        });
                    }
                }
                Schedule::Fused => {
                    let scratch = &self.scratch;
                    let outs = writes.then(|| DestChunks::new(outs, chunk_bytes, dest_claims));
                    let trees = SliceChunks::new(trees, LANES, tree_claims);
                    Self::run_job(crew, config, jobs.len(), &|j| {
                        let (dest, chunk, g) = jobs[j];
                        let g = g as usize;
                        let mut out = take(&outs, dest, chunk);
                        let trees = trees.get(g);
                        let group = &instances[g * LANES..(n.min((g + 1) * LANES))];
                        // Each participant has its own block (participants are 0..threads,
                        // or 1..=threads without the caller, whose last one maps to the
                        // caller's unused 0); the lock is never contended.
                        let mut block = scratch[super::crew::participant() % scratch.len()]
                            .lock()
                            .unwrap_or_else(|e| e.into_inner());
                        with_level(level, || {
                            for &stage in stages {
                                first_error.keep(context.run(
                                    stage,
                                    &mut block,
                                    g,
                                    group,
                                    out.range(0, out.len()),
                                    trees,
                                ));
                            }
                        })
                    });
                }
            }
        }
        let wall_us = start.elapsed().as_secs_f64() * 1e6;
        first_error.into_result()?;
        let cpu = self.clock.stage_us(self.config.threads);
        let mut stage_us = [0.0; Stage::COUNT];
        stage_us[..Stage::CPU_COUNT].copy_from_slice(&cpu);
        Ok(StageTimings {
            stage_us,
            gpu_us: Default::default(),
            gpu_frame_us: None,
            cpu_pipeline_us: wall_us,
            frame_us: 0.0,
            frame_pending: false,
            lod_plan_us: 0.0,
            threads: self.config.threads,
            instances: n,
            setup: false,
        })
    }

    /// The model-space pose (`model_from_joint`) of every instance, computed by the current
    /// hierarchy variant and converted to 4×4 matrices: for verification, not per frame.
    pub fn model_poses(&mut self, instances: &[Instance]) -> Result<Vec<Vec<Mat4>>, FrameError> {
        let n = instances.len();
        self.reserve(n);
        self.reserve_arena(n);
        let joints = self.rig.joint_count();
        let s = self.rig.joint_stride;
        let context = FrameContext {
            rig: &self.rig,
            config: self.config,
            layout: self.layout,
            output: self.output,
            clock: &self.clock,
            skin_levels: &[],
        };
        let group_lines = self.layout.lines();
        let mut poses = Vec::with_capacity(n);
        let mut no_output: [u8; 0] = [];
        let (arena, trees_all, layout, hierarchy) = (
            &mut self.arena,
            &mut self.trees,
            self.layout,
            self.config.hierarchy,
        );
        // On a worker, whose stack holds the deepest `tree` walk (see WORKER_STACK_BYTES).
        let job = || -> Result<(), FrameError> {
            for (g, group) in instances.chunks(LANES).enumerate() {
                let block = &mut arena[g * group_lines..(g + 1) * group_lines];
                let trees = &mut trees_all[g * LANES..g * LANES + group.len()];
                for &stage in context.cpu_stages() {
                    if stage == Stage::Palette {
                        break;
                    }
                    context.run(
                        stage,
                        block,
                        g,
                        group,
                        Dest::from_mut(&mut no_output),
                        trees,
                    )?;
                }
                let parts = split(&layout, block);
                for k in 0..group.len() {
                    let pose: Vec<Mat4> = match model_ref(hierarchy.layout(), parts.model, trees) {
                        ModelPoses::Tree(t) => t[k].joints.iter().map(|j| j.global).collect(),
                        ModelPoses::Mat4(m) => m[k * s..k * s + joints].to_vec(),
                        ModelPoses::Qvs(q) => {
                            q[k * s..k * s + joints].iter().map(Qvs::to_mat4).collect()
                        }
                        ModelPoses::Lanes(l) => l[..joints]
                            .iter()
                            .map(|m| palette::lane_matrix(m, k))
                            .collect(),
                    };
                    poses.push(pose);
                }
            }
            Ok(())
        };
        // One item, on one worker (never the caller); the mutex only makes the `FnMut`
        // callable from the worker.
        let job = std::sync::Mutex::new((job, Ok(())));
        let level = self.simd_level;
        self.crew.run(1, 1, false, &|_| {
            let mut job = job.lock().unwrap_or_else(|e| e.into_inner());
            job.1 = with_level(level, || (job.0)());
        });
        job.into_inner().unwrap_or_else(|e| e.into_inner()).1?;
        Ok(poses)
    }

    /// The local pose every instance is given this frame (after the blend): the input of
    /// the reference hierarchy in verification.
    pub fn local_pose(&self, instance: &Instance) -> Vec<Qvs> {
        let (mut locals, other) = self.sampled_poses(instance);
        if let Some(other) = other {
            blend_poses(&mut locals, &other, self.config.blend_weight);
        }
        locals
    }

    /// The local pose every instance is given this frame, through the oracles: each clip
    /// sampled as the pipeline samples it, blended by the f64 blend oracle.
    pub fn reference_local_pose(&self, instance: &Instance) -> Vec<LocalF64> {
        match self.sampled_poses(instance) {
            (locals, Some(other)) => {
                blend_reference(&locals, &other, self.config.blend_weight as f64)
            }
            (locals, None) => locals.iter().map(LocalF64::from).collect(),
        }
    }

    /// [`Self::reference_local_pose`] for a character posed for `level` of the mesh's
    /// chain (`None`: every joint): the joints the level holds at rest
    /// ([`crate::skin::joint_merges`]) get their rest pose, as every sampler gives them.
    pub fn reference_local_pose_at(
        &self,
        instance: &Instance,
        level: Option<usize>,
    ) -> Vec<LocalF64> {
        let mut locals = self.reference_local_pose(instance);
        if let Some(level) = level {
            let merges =
                crate::skin::level_errors::level_merges(&self.rig, level, self.config.method);
            for &j in &merges.held {
                if let (Some(l), Some(r)) = (locals.get_mut(j), self.rig.rest_pose.get(j)) {
                    *l = LocalF64::from(r);
                }
            }
        }
        locals
    }

    /// An instance's clip sampled at its time, and its blend clip when blending is on.
    fn sampled_poses(&self, instance: &Instance) -> (Vec<Qvs>, Option<Vec<Qvs>>) {
        let rig = &self.rig;
        let mut locals = rig.rest_pose.clone();
        sample_instance(rig, instance.clip, instance.time_secs, &mut locals, None);
        let other = (self.config.blend_weight > 0.0).then(|| {
            let mut other = rig.rest_pose.clone();
            sample_instance(
                rig,
                instance.blend_clip,
                instance.time_secs,
                &mut other,
                None,
            );
            other
        });
        (locals, other)
    }
}
