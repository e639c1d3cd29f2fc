//! The memory budget: what a configuration will allocate for `n` instances, checked
//! against the memory available before anything is allocated.
//!
//! How it works: every allocation that grows with the instance count is a product of
//! figures known up front: the instance store, the intermediate state of the schedule
//! (`staged` keeps a block per group of eight, `fused` one per worker), `tree`'s heap
//! nodes, and the skinned output ([`crate::skin::OutputLayout::bytes`]), which the app
//! holds twice (the CPU buffer and the GPU vertex buffer). [`Footprint::of`] adds them
//! up; [`check`] compares the total with the memory the system reports available (Linux
//! `MemAvailable`) and with the largest GPU buffer, and refuses with the figures and the
//! largest instance count that fits. The app keeps its previous configuration and shows
//! the message; the CLI, `bench` and `pose` exit 1 with it.
//!
//! The other way: when a configuration is replaced by one that needs much less,
//! [`return_freed_memory`] asks the allocator to give its free pages back to the system.
//! glibc keeps freed heap memory for reuse, so without it the app's resident memory would
//! stay at the largest crowd it ever had (the soak test measured +40 % over 30 minutes,
//! flat after the first 15).

use super::animate::AnimateDevice;
use super::instances::Instance;
use super::pipeline::{PipelineConfig, Schedule};
use crate::anim::hierarchy::{HierarchyVariant, JointTree};
use crate::prepare::PreparedRig;
use crate::skin::pool::PoolShare;
use crate::variant::Variant;

/// Where a configuration's memory goes, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Footprint {
    pub instances: usize,
    /// The instance store, and each instance's (empty unless `tree`) joint-tree slot.
    pub instance_store: u64,
    /// Local and model poses and palettes: per group for `staged`, per worker for `fused`.
    pub pipeline_state: u64,
    /// `tree`'s heap nodes (0 for the other hierarchy variants).
    pub trees: u64,
    /// The skinned vertices, once (the CPU output buffer).
    pub skinned_output: u64,
    /// Copies of the skinned output held elsewhere (the app's GPU vertex buffer: 1).
    pub output_copies: u64,
    /// What a variant that skins on the GPU writes there (its CPU output is palettes):
    /// a full-detail slot per character, or the skinned pool's share
    /// ([`crate::skin::pool`]).
    pub gpu_skinned: u64,
    /// With the animation on the GPU: every character's record and LOD state there, and
    /// the local poses and model matrices of as many as the pose slots hold at once
    /// ([`GPU_POSE_SLOTS_BYTES`]; the palettes are `skinned_output`, on the GPU too).
    pub gpu_animation: u64,
}

impl Footprint {
    /// What `config` allocates for `instances` instances of `rig`, with `output_copies`
    /// more copies of the skinned output (0 on the CPU alone, 1 in the app).
    pub fn of(
        rig: &PreparedRig,
        config: &PipelineConfig,
        instances: usize,
        output_copies: u64,
    ) -> Self {
        let n = instances as u64;
        let groups = instances.div_ceil(crate::types::LANES) as u64;
        let group_bytes = super::pipeline::group_block_bytes(rig, config) as u64;
        // Every instance has a (possibly empty) tree slot; `tree` fills it with nodes.
        let tree_slot = std::mem::size_of::<JointTree>() as u64;
        let tree_nodes = if config.hierarchy == HierarchyVariant::Tree {
            JointTree::heap_bytes_for(&rig.skeleton) as u64
        } else {
            0
        };
        Footprint {
            instances,
            instance_store: n * (std::mem::size_of::<Instance>() as u64 + tree_slot),
            pipeline_state: match config.schedule {
                Schedule::Staged => groups.saturating_mul(group_bytes),
                Schedule::Fused => config.threads as u64 * group_bytes,
            },
            trees: n.saturating_mul(tree_nodes),
            skinned_output: config.skin.layout(rig, config.method).bytes(instances) as u64,
            output_copies,
            gpu_skinned: config
                .skin
                .layout(rig, config.method)
                .skinned_on_gpu()
                .map_or(0, |l| l.bytes(instances) as u64),
            gpu_animation: 0,
        }
    }

    /// What `config` holds for `instances` characters animated on the GPU: the instance
    /// store on the CPU; on the GPU the palettes (which the CPU no longer holds), what
    /// `gpu_compute` skins into, and the animation's own buffers. The CPU pipeline's state
    /// is not allocated in this mode.
    /// What `instances` characters animated on `device` hold: [`Footprint::of`] with one
    /// output, or [`Footprint::animated_on_gpu`].
    /// `pool`: the skinned pool's share, where it applies (the GPU animation only).
    pub fn on(
        device: AnimateDevice,
        rig: &PreparedRig,
        config: &PipelineConfig,
        instances: usize,
        pool: Option<PoolShare>,
    ) -> Self {
        match device {
            AnimateDevice::Cpu => Footprint::of(rig, config, instances, 1),
            AnimateDevice::Gpu => Footprint::animated_on_gpu(rig, config, instances, pool),
        }
    }

    /// With `pool`, what the GPU skins into is the pool: its share of every character's
    /// full detail.
    pub fn animated_on_gpu(
        rig: &PreparedRig,
        config: &PipelineConfig,
        instances: usize,
        pool: Option<PoolShare>,
    ) -> Self {
        let cpu = Footprint::of(rig, config, instances, 0);
        let layout = config.skin.layout(rig, config.method);
        let gpu_skinned = match (layout.skinned_on_gpu(), pool) {
            (Some(skinned), Some(pool)) => (instances as u64)
                .saturating_mul(u64::from(pool.vertices_for(rig)))
                .saturating_mul(skinned.vertex_stride() as u64),
            _ => cpu.gpu_skinned,
        };
        Footprint {
            pipeline_state: 0,
            trees: 0,
            output_copies: 0,
            gpu_skinned,
            gpu_animation: (instances as u64)
                .saturating_mul(gpu_bytes_per_character(rig))
                .saturating_add(gpu_pose_bytes(rig, instances)),
            ..cpu
        }
    }

    pub fn total(&self) -> u64 {
        self.instance_store
            .saturating_add(self.pipeline_state)
            .saturating_add(self.trees)
            .saturating_add(self.skinned_output.saturating_mul(1 + self.output_copies))
            .saturating_add(self.gpu_skinned)
            .saturating_add(self.gpu_animation)
    }
}

/// What a configuration may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Memory the configuration may allocate, bytes.
    pub memory_bytes: u64,
    /// What the system reported available, where the budget came from it.
    pub available_bytes: Option<u64>,
    /// The largest GPU buffer (the skinned output must fit one), where there is a GPU.
    pub gpu_buffer_bytes: Option<u64>,
}

impl Budget {
    /// Three quarters of this machine's available memory (Linux `MemAvailable`): the rest
    /// is left to the renderer, the window system and whatever else runs. Where it cannot be
    /// read, the budget is unlimited and only the GPU limit applies.
    pub fn this_machine(gpu_buffer_bytes: Option<u64>) -> Self {
        let available = available_memory_bytes();
        Budget {
            memory_bytes: available.map_or(u64::MAX, |a| a / 4 * 3),
            available_bytes: available,
            gpu_buffer_bytes,
        }
    }
}

/// `MemAvailable` from `/proc/meminfo`, bytes.
pub fn available_memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A configuration that does not fit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{instances} instances of {subject} need {} ({}), but {limit}; at most {fits} instances fit",
    mb(footprint.total()),
    parts(footprint)
)]
pub struct BudgetError {
    pub instances: usize,
    /// The rig and the variants: "chain.glb with hierarchy tree, ...".
    pub subject: String,
    pub footprint: Box<Footprint>,
    /// Which limit, and its figure.
    pub limit: String,
    /// The largest instance count that fits (0: not even one).
    pub fits: usize,
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn parts(f: &Footprint) -> String {
    let mut parts = vec![format!("pipeline state {}", mb(f.pipeline_state))];
    if f.trees > 0 {
        parts.push(format!("tree nodes {}", mb(f.trees)));
    }
    parts.push(format!(
        "skinned output {}{}",
        mb(f.skinned_output),
        if f.output_copies > 0 {
            format!(" × {}", 1 + f.output_copies)
        } else {
            String::new()
        }
    ));
    if f.gpu_skinned > 0 {
        parts.push(format!("skinned on the GPU {}", mb(f.gpu_skinned)));
    }
    if f.gpu_animation > 0 {
        parts.push(format!(
            "animation on the GPU (records, local poses, model matrices, due lists, LOD state, lists per level) {}",
            mb(f.gpu_animation)
        ));
    }
    parts.join(", ")
}

/// Which limit `footprint` breaks, if any (`largest_output`: the largest single skinned
/// output, which must fit one GPU buffer).
fn broken_limit(footprint: &Footprint, largest_output: u64, budget: &Budget) -> Option<String> {
    if footprint.total() > budget.memory_bytes {
        return Some(match budget.available_bytes {
            Some(available) => format!(
                "{} of memory may be used (three quarters of the {} the system reports \
                 available)",
                mb(budget.memory_bytes),
                mb(available)
            ),
            None => format!("{} of memory may be used", mb(budget.memory_bytes)),
        });
    }
    match budget.gpu_buffer_bytes {
        Some(max) if largest_output > max => Some(format!(
            "the GPU's largest buffer is {} (the skinned output must fit one)",
            mb(max)
        )),
        _ => None,
    }
}

/// Checks `instances` characters of `rig` with `config`, animated on `device`, against
/// `budget` before anything is allocated (the CPU's pipeline with one output, or the GPU's
/// animation: [`check`] or [`check_animated_on_gpu`]).
pub fn check_on(
    device: AnimateDevice,
    rig: &PreparedRig,
    config: &PipelineConfig,
    instances: usize,
    pool: Option<PoolShare>,
    budget: &Budget,
) -> Result<Footprint, BudgetError> {
    match device {
        AnimateDevice::Cpu => check(rig, config, instances, 1, budget),
        AnimateDevice::Gpu => check_animated_on_gpu(rig, config, instances, pool, budget),
    }
}

/// Checks `instances` instances of `rig` with `config` against `budget` before anything
/// is allocated; `output_copies` as for [`Footprint::of`].
pub fn check(
    rig: &PreparedRig,
    config: &PipelineConfig,
    instances: usize,
    output_copies: u64,
    budget: &Budget,
) -> Result<Footprint, BudgetError> {
    let variants = format!(
        "hierarchy {}, skin {}, schedule {}, {} thread(s)",
        config.hierarchy.name(),
        config.skin.name(),
        config.schedule.name(),
        config.threads
    );
    check_configs(
        rig,
        &[*config],
        Outputs::Each,
        instances,
        output_copies,
        budget,
        &variants,
    )
}

/// Whether several configurations each have their own skinned output or share one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outputs {
    Each,
    /// One buffer of the largest size (the bench measures them in turn).
    Shared,
}

/// The same for several configurations held at once (the bench keeps every configuration
/// of a workload alive, to interleave their frames): their state adds up, their outputs
/// too unless `outputs` says they share one. `described` names them in the message.
pub fn check_configs(
    rig: &PreparedRig,
    configs: &[PipelineConfig],
    outputs: Outputs,
    instances: usize,
    output_copies: u64,
    budget: &Budget,
    described: &str,
) -> Result<Footprint, BudgetError> {
    let sum = |n: usize| {
        configs
            .iter()
            .map(|c| Footprint::of(rig, c, n, output_copies))
            .fold(Footprint::default(), |a, b| Footprint {
                instances: n,
                instance_store: a.instance_store.max(b.instance_store),
                pipeline_state: a.pipeline_state.saturating_add(b.pipeline_state),
                trees: a.trees.saturating_add(b.trees),
                skinned_output: match outputs {
                    Outputs::Each => a.skinned_output.saturating_add(b.skinned_output),
                    Outputs::Shared => a.skinned_output.max(b.skinned_output),
                },
                output_copies,
                gpu_skinned: a.gpu_skinned.saturating_add(b.gpu_skinned),
                gpu_animation: a.gpu_animation.saturating_add(b.gpu_animation),
            })
    };
    let largest_output = |n: usize| {
        configs
            .iter()
            .map(|c| c.skin.layout(rig, c.method).bytes(n) as u64)
            .max()
            .unwrap_or(0)
    };
    let broken = |n: usize| broken_limit(&sum(n), largest_output(n), budget);
    search(rig, instances, &sum, &broken, described)
}

/// The largest single buffer the GPU animation needs a crowd's palettes in, as
/// [`broken_limit`] reads it: none, since it splits them into buffers of what one binding
/// holds (`gpu::ranges::PaletteRanges`), as it splits its poses and `gpu_compute` its
/// output; what bounds such a crowd is memory.
const ANIMATED_LARGEST_BUFFER: u64 = 0;

/// `instances` characters of `rig` animated on the GPU with `config` (a GPU skin variant)
/// against `budget`: [`Footprint::animated_on_gpu`], every byte of it counted against the
/// memory (a software renderer's GPU memory is the system's; a discrete GPU's is not
/// reported by wgpu, and its uploads are staged in system memory).
pub fn check_animated_on_gpu(
    rig: &PreparedRig,
    config: &PipelineConfig,
    instances: usize,
    pool: Option<PoolShare>,
    budget: &Budget,
) -> Result<Footprint, BudgetError> {
    let sum = |n: usize| Footprint::animated_on_gpu(rig, config, n, pool);
    let broken = |n: usize| broken_limit(&sum(n), ANIMATED_LARGEST_BUFFER, budget);
    let described = format!(
        "the animation on the GPU, skin {}, method {}{}",
        config.skin.name(),
        config.method.name(),
        match pool {
            Some(pool) => format!(", a skinned pool of {} %", pool.percent()),
            None => String::new(),
        }
    );
    search(rig, instances, &sum, &broken, &described)
}

/// The largest skinned pool share, percent, that `instances` characters of `rig` animated
/// on the GPU with `config` may take within `budget`: where an `auto` pool may grow to.
/// `None` where not even the least share fits (then [`check_animated_on_gpu`] refuses).
pub fn pool_cap(
    rig: &PreparedRig,
    config: &PipelineConfig,
    instances: usize,
    budget: &Budget,
) -> Option<PoolShare> {
    let fits = |percent: usize| {
        PoolShare::from_percent(percent as u32).is_some_and(|share| {
            let f = Footprint::animated_on_gpu(rig, config, instances, Some(share));
            broken_limit(&f, ANIMATED_LARGEST_BUFFER, budget).is_none()
        })
    };
    let least = PoolShare::MIN_PERCENT as usize;
    if !fits(least) {
        return None;
    }
    // The footprint grows with the share.
    let most = largest_fitting(least, PoolShare::MAX_PERCENT as usize, &fits);
    PoolShare::from_percent(most as u32)
}

/// The largest `n` in `lo..=hi` for which `fits` holds, where it holds at `lo` (or `lo`
/// is the answer anyway) and, once it fails, fails for every larger `n`: a binary search.
fn largest_fitting(mut lo: usize, mut hi: usize, fits: &dyn Fn(usize) -> bool) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// The footprint of `instances` where it fits; otherwise the error with the largest count
/// that does.
fn search(
    rig: &PreparedRig,
    instances: usize,
    sum: &dyn Fn(usize) -> Footprint,
    broken: &dyn Fn(usize) -> Option<String>,
    described: &str,
) -> Result<Footprint, BudgetError> {
    let footprint = sum(instances);
    let Some(limit) = broken(instances) else {
        return Ok(footprint);
    };
    // Every part grows with the count; 0 is the answer where not even one fits.
    let lo = largest_fitting(0, instances, &|n| broken(n).is_none());
    Err(BudgetError {
        instances,
        subject: format!("{} with {described}", rig.name),
        footprint: Box::new(footprint),
        limit,
        fits: lo,
    })
}

/// Gives the allocator's free memory back to the system: glibc's `malloc_trim`, which
/// returns the free pages of every arena (heap fragments that stay mapped otherwise). Call
/// it when a configuration was replaced by a much smaller one; it walks the whole heap, so
/// never per frame. Elsewhere (other allocators return memory on their own terms) it does
/// nothing.
pub fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: malloc_trim takes no pointers and has no preconditions; glibc locks each
        // arena while it trims, so calling it while other threads allocate is sound.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// Bytes of GPU memory a character of `rig` takes for its animation besides its palette
/// and its poses: its record and its word of the due list (LOD's list of the characters
/// the passes compute), with LOD its LOD state and draw slot, and a word per mesh level in
/// `gpu_compute`'s lists of characters per level (its `per_level` shader).
pub fn gpu_bytes_per_character(rig: &PreparedRig) -> u64 {
    (super::animate::RECORD_BYTES + 4) as u64
        + super::lod::formats::GPU_BYTES
        + 4 * rig.mesh_chain().levels().len() as u64
}

/// Bytes of one joint's local pose or model matrix on the GPU (three vec4s).
pub const GPU_JOINT_BYTES: u64 = 48;

/// At most this much GPU memory holds the animation's local poses and model matrices: they
/// are scratch that only the frame's own sampling, hierarchy and palette passes read, so
/// where a crowd's would take more, its ranges of characters take turns in slots within
/// it (a wave of ranges at a time) instead of each keeping its own. A range holds at most
/// this much of them too.
pub const GPU_POSE_SLOTS_BYTES: u64 = 2 << 30;

/// A character's local poses and model matrices on the GPU, bytes.
pub fn gpu_pose_bytes_per_character(joint_stride: usize) -> u64 {
    2 * joint_stride as u64 * GPU_JOINT_BYTES
}

/// How many of `ranges` ranges, each `range_pose_bytes` of poses, have a slot of their own
/// at once: all where they fit [`GPU_POSE_SLOTS_BYTES`], else as many as fit, at least one.
pub fn gpu_pose_slots(ranges: usize, range_pose_bytes: u64) -> usize {
    let fit = (GPU_POSE_SLOTS_BYTES / range_pose_bytes.max(1)).max(1);
    ranges.min(usize::try_from(fit).unwrap_or(usize::MAX))
}

/// The local poses and model matrices `instances` GPU-animated characters of `rig` hold at
/// most: all of theirs, or the slots their ranges take turns in.
fn gpu_pose_bytes(rig: &PreparedRig, instances: usize) -> u64 {
    (instances as u64)
        .saturating_mul(gpu_pose_bytes_per_character(rig.joint_stride))
        .min(GPU_POSE_SLOTS_BYTES)
}
