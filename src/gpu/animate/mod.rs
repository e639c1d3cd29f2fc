//! The animation frame on the GPU (`--animate gpu`): sampling with the cross-fade, the
//! hierarchy and the palettes in compute passes (shaders/animate.wgsl), writing the
//! palettes where `gpu_compute`'s skinning and `gpu_vertex` read them.
//!
//! How it works: [`tables::AnimationTables`] (the rig and the prepared clips) are uploaded
//! once. Each character has a 32-byte record on the GPU: its clip, the cross-fade's clip,
//! its time at one reading of the scene's animation clock and its speed (so its time at
//! any later reading follows, [`crate::crowd::animate::time_at`]), its place and material.
//! [`GpuAnimator::write_characters`] compares the crowd with what the GPU holds and writes
//! only the records that changed, one write per run of neighbours; a steady crowd costs a
//! 256-byte parameter block a frame. [`GpuAnimator::record`] then records three passes:
//! sample (one invocation per character and joint a clip animates), hierarchy
//! ([`GpuHierarchy`]: one invocation per character walking its joints, or one dispatch
//! per depth level; a joint no clip animates is posed at rest) and palette (one
//! invocation per character and palette entry). Characters are split into
//! ranges that fit the device's storage-binding limit, as `gpu_compute` splits its output:
//! each range poses in a buffer of local poses and model matrices and binds its slice of
//! the palettes, which lies within one of the buffers they are split into
//! ([`super::shape::PaletteBuffers::per_range`]). The poses are scratch that only the
//! frame's three passes read, so a crowd whose poses would outgrow
//! [`GPU_POSE_SLOTS_BYTES`] has its ranges take turns in fewer such buffers (pose slots),
//! a wave of ranges at a time ([`GpuAnimator::record_passes`]).
//!
//! With update-rate LOD most characters are kept each frame, and launching every
//! character's invocations only for most to return cost as much as the work (on lavapipe
//! the sampling pass took 4.7 s at a million Foxes with an eighth of them due, against 5.3 s
//! with all). So each range first lists its due characters (`cs_due`, one invocation per
//! character, appending with an atomic to the range's list and to its posed level's;
//! `cs_due_args` turns the counts into each level's dispatch arguments, and
//! `cs_level_args` those of each depth level), the arguments are copied out of the range's
//! buffer (a dispatch cannot read its arguments from a buffer it writes), and each depth
//! level's dispatch goes indirectly over the list, sampling, the walk and the palettes
//! over the levels' lists: a character posed for a coarse level launches invocations only
//! for the joints its level samples ([`tables::TableOffsets::level_lists`]) and the entries
//! of its joints, and its walk visits only its set's joints, one dispatch per level. The
//! hierarchy poses the set's unsampled joints at rest. [`GpuAnimator::read_back_due_lists`]
//! reads the lists and the arguments back for the tests that compare them with the LOD
//! pass's decisions.

pub mod lod;
pub mod tables;

use bytemuck::{Pod, Zeroable};

use super::pass::{
    Access, FrameResource::*, GpuPassSpec, PassContext, PassKind, PassRuns, always, when,
};
use super::ranges::{BindingLimits, ParamBlocks, RangeBuffers, live_in_range};
use super::shape::{FrameShape, PaletteBuffer, PaletteBuffers};
use super::timers::GpuTimers;
use crate::crowd::budget::{GPU_POSE_SLOTS_BYTES, gpu_pose_slots};
use crate::crowd::verify::verified_indices;
use crate::crowd::{Instance, InstanceStore};
use crate::prepare::PreparedRig;
use crate::skin::{OutputFormat, OutputLayout, SkinMethod};
use crate::types::{Mat3x4, Qvs};
use crate::variant::PlainSpec;

pub use tables::AnimationTables;

/// The structs the animation's passes share with animate.wgsl.
const SHARES: &[crate::contract::StructLayout] = {
    use crate::contract::GpuStruct;
    &[
        ParamsGpu::LAYOUT,
        Record::LAYOUT,
        tables::TrackHeader::LAYOUT,
    ]
};

/// The passes of the animation, as the frame's pass list, the timers, the panel and the
/// contracts see them.
const fn animation_pass(
    [name, description, label, row, key]: [&'static str; 5],
    runs: PassRuns,
    reads: &'static [Access],
    writes: &'static [Access],
) -> GpuPassSpec {
    GpuPassSpec {
        name,
        description,
        label,
        row,
        key,
        runs,
        kind: PassKind::Compute,
        reads,
        writes,
        shader: super::shaders::Shader::Animate,
        shares: SHARES,
    }
}

/// With LOD, each range lists its due characters, whole and by posed level (`cs_due`,
/// `cs_due_args`, and `cs_level_args` for the pass per depth level): the three passes
/// after it dispatch over those lists.
pub const DUE_LISTS_PASS: GpuPassSpec = animation_pass(
    [
        "due_lists",
        "the animation's due lists: each range's due characters, whole and per posed level",
        "animate: due lists",
        "GPU due lists",
        "gpu_due_lists",
    ],
    PassRuns::GpuLod,
    &[always(Records), always(DueMarks)],
    &[always(DueLists)],
);
pub const SAMPLE_PASS: GpuPassSpec = animation_pass(
    [
        "sample",
        "the animation's sampling pass",
        "animate: sample",
        "GPU sample",
        "gpu_sample",
    ],
    PassRuns::GpuAnimation,
    &[always(Records), when(PassRuns::GpuLod, DueLists)],
    &[always(LocalPoses)],
);
pub const HIERARCHY_PASS: GpuPassSpec = animation_pass(
    [
        "hierarchy",
        "the animation's hierarchy pass (a walk per character, or a pass per depth level)",
        "animate: hierarchy",
        "GPU hierarchy",
        "gpu_hierarchy",
    ],
    PassRuns::GpuAnimation,
    &[always(LocalPoses), when(PassRuns::GpuLod, DueLists)],
    &[always(ModelPoses)],
);
pub const PALETTE_PASS: GpuPassSpec = animation_pass(
    [
        "palette",
        "the animation's palette pass",
        "animate: palette",
        "GPU palette",
        "gpu_palette",
    ],
    PassRuns::GpuAnimation,
    &[always(ModelPoses), when(PassRuns::GpuLod, DueLists)],
    &[always(Palettes)],
);

crate::declare_variants! {
    /// How the GPU walks the hierarchy.
    pub enum GpuHierarchy: PlainSpec in "GPU hierarchy pass" {
        Walk => PlainSpec {
            name: "walk",
            description: "one invocation per character walks its joints in order, parents first: one dispatch, each parent's matrix still in the invocation's cache",
        },
        Levels => PlainSpec {
            name: "levels",
            description: "one dispatch per depth level over every character's joints of that level: as many invocations as joints, as many dispatches as the rig is deep",
        },
    }
}

impl GpuHierarchy {
    /// The faster of the two on the software renderer, the only one measured
    /// (`bench-results/2026-11-24_intel-xeon_4098ad2245_gpu.md`); docs/gpu-animation.md
    /// says why that does not settle it for a real GPU.
    pub const DEFAULT: Self = Self::Walk;
}

use super::shaders::WORKGROUP;
pub use crate::crowd::animate::{RECORD_BYTES, Record};
use crate::gpu::GpuContext;
/// Bytes of one joint's local pose or model matrix (three vec4s).
const JOINT_BYTES: usize = crate::crowd::budget::GPU_JOINT_BYTES as usize;

crate::gpu_struct! {
    /// A range's (or a depth level's) parameters of the animation's passes
    /// (`AnimateParams` in animate.wgsl).
    #[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
    pub(crate) struct ParamsGpu in "AnimateParams" {
        joints: u32,
        root_count: u32,
        entries: u32,
        clip_count: u32,
        first_character: u32,
        characters: u32,
        joint_stride: u32,
        palette_stride: u32,
        normal_offset: u32,
        dual_quat: u32,
        level_first: u32,
        level_count: u32,
        clock_secs: f32,
        blend_weight: f32,
        roots_at: u32,
        binds_at: u32,
        parents_at: u32,
        entry_joints_at: u32,
        clips_at: u32,
        channels_at: u32,
        tracks_at: u32,
        model_at: u32,
        lod: u32,
        /// With dual quaternions, the rig's uniform skinning scale (`skin::method`).
        dual_quat_scale: f32,
        /// The moving joints' and entries' lists ([`tables::TableOffsets`]).
        moving_joints_at: u32,
        moving_joints: u32,
        moving_entries_at: u32,
        moving_entries: u32,
        /// The joint masks per mesh level ([`tables::TableOffsets`]), and how many levels
        /// the LOD pass chooses among (1: every character poses the full mesh's joints).
        joint_masks_at: u32,
        mask_words: u32,
        joint_levels: u32,
        /// With `lod`: where the range's list of due characters starts in its poses
        /// buffer, vec4s ([`GpuAnimator::due_header_bytes`]).
        due_at: u32,
        /// The rig's depth levels, and the one a depth level's block is for (0 in a
        /// range's own block): where `cs_level_args` writes its dispatch's arguments.
        depth_levels: u32,
        depth_level: u32,
        /// Per mesh level, a bit per joint: the joints it samples (the others it poses
        /// at rest), `mask_words` words a level; and the levels' lists of sampled joints
        /// and entries ([`tables::TableOffsets`]).
        sampled_masks_at: u32,
        level_lists_at: u32,
        list_levels: u32,
        /// The level of the chain a level's block dispatches sampling, the walk and the
        /// palettes for (0 in a range's own block).
        list_level: u32,
        _pad_c: u32,
        _pad_d: u32,
    }
}

/// Where in a range's due-list header the dispatch arguments start, bytes (after the
/// counts): what is copied out for the dispatches, each depth level's first, then each
/// mesh level's sampling, palette and walk dispatches' ([`GpuAnimator::due_args_bytes`]).
const DUE_ARGS_IN_HEADER: u64 = 16;
/// Depth level `l`'s arguments are at `LEVEL_ARGS_AT + 16 l`.
const LEVEL_ARGS_AT: u64 = 0;
/// One dispatch's arguments (x, y, z), in a vec4.
const ARGS_BYTES: u64 = 16;

const _: () = assert!(std::mem::size_of::<ParamsGpu>() == 160);

/// One range's list of due characters, read back ([`GpuAnimator::read_back_due_lists`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DueList {
    /// The listed characters' indices in the crowd, ascending.
    pub characters: Vec<u32>,
    /// Per depth level of the rig, the workgroups (x, y, z) its hierarchy dispatch over
    /// the list was given ([`workgroups`] of the list's length times the level's joints).
    pub level_workgroups: Vec<[u32; 3]>,
    /// Per level of the mesh's chain, the listed characters posed for it (their indices
    /// in the crowd, ascending).
    pub by_level: Vec<Vec<u32>>,
    /// Per level of the mesh's chain, the workgroups of its sampling, its palette and its
    /// walk dispatches: [`workgroups`] of its listed characters times the joints it
    /// samples (the entries of its joints; one).
    pub sample_workgroups: Vec<[u32; 3]>,
    pub palette_workgroups: Vec<[u32; 3]>,
    pub walk_workgroups: Vec<[u32; 3]>,
}

/// Each character's local poses and model matrices, read back.
pub type CharacterPoses = (Vec<Vec<Qvs>>, Vec<Vec<Mat3x4>>);

/// Why the animation could not be recorded or read back.
#[derive(Debug, thiserror::Error)]
pub enum GpuAnimateError {
    #[error("the {variant} variant does not read palettes on the GPU")]
    NoPalettes { variant: &'static str },
    #[error("the palette buffer holds {bytes} bytes; {characters} characters need {needed}")]
    PalettesTooSmall {
        bytes: u64,
        characters: usize,
        needed: usize,
    },
    #[error("{characters} characters animated; {asked} asked for")]
    Short { asked: usize, characters: usize },
    #[error(
        "a range of characters has no buffer for its poses, or its palettes lie in no one buffer"
    )]
    RangesMissing,
    #[error(
        "character {character}'s poses were not kept: the ranges take turns in the pose slots, and only the watched characters' are copied out"
    )]
    NotWatched { character: usize },
    #[error(
        "the poses and due lists of every range are not kept: the ranges take turns in the pose slots"
    )]
    PosesAreScratch,
    #[error(transparent)]
    Readback(#[from] super::readback::ReadbackError),
    #[error(transparent)]
    DrawArgs(#[from] lod::DrawArgsError),
}

/// What the bind groups and parameters were made for.
#[derive(Clone, Debug, PartialEq)]
struct BoundFor {
    palettes: PaletteBuffers,
    characters: usize,
    palette_stride: usize,
    format: OutputFormat,
    per_range: usize,
    /// Pose buffers the ranges take turns in: range `r` poses in slot `r % slots`.
    slots: usize,
    blend_weight: f32,
    clock_secs: f32,
    /// Only the characters the LOD pass marked due.
    lod: bool,
    /// With `lod`, the levels of the mesh's chain whose joint sets the characters pose.
    joint_levels: u32,
}

/// A frame's passes, prepared by [`GpuAnimator::prepare`] and handed to
/// [`GpuAnimator::record_passes`]: characters, characters per range, the hierarchy pass's
/// way.
#[derive(Clone, Copy, Debug)]
pub struct PreparedAnimation {
    characters: usize,
    per_range: usize,
    /// Ranges posed at once, each in its own pose slot (a wave).
    slots: usize,
    hierarchy: GpuHierarchy,
    /// Only the due characters: the passes dispatch over each range's due list.
    lod: bool,
    /// The buffers were bound anew: what the GPU held for the characters is gone.
    bound_anew: bool,
}

impl PreparedAnimation {
    /// Whether the buffers were bound anew (a LOD frame must then compute every character).
    pub fn bound_anew(&self) -> bool {
        self.bound_anew
    }
}

/// What one frame of the GPU animation computes: the clock's reading, the blend with the
/// second clip and the hierarchy pass's variant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnimateFrame {
    /// Clip-seconds a character of speed 1 has advanced (each record's time follows).
    pub clock_secs: f32,
    pub blend_weight: f32,
    pub hierarchy: GpuHierarchy,
    /// With the LOD pass on, how many levels of the mesh's chain it chooses among: each
    /// character poses only its skin level's joints
    /// ([`crate::crowd::lod::formats::POSED_LEVEL_SHIFT`]); 1 poses every moving joint.
    pub joint_levels: u32,
}

/// The animation passes of one rig (see the module docs).
pub struct GpuAnimator {
    sample: wgpu::ComputePipeline,
    /// With LOD: sampling, the palettes and the walk over one mesh level's list.
    sample_level: wgpu::ComputePipeline,
    palette_level: wgpu::ComputePipeline,
    walk_level: wgpu::ComputePipeline,
    walk: wgpu::ComputePipeline,
    level: wgpu::ComputePipeline,
    palette: wgpu::ComputePipeline,
    /// With LOD: each range's list of due characters, and the three passes' arguments
    /// over it.
    due: wgpu::ComputePipeline,
    due_args: wgpu::ComputePipeline,
    level_args: wgpu::ComputePipeline,
    /// Each range's dispatches' arguments over its due list ([`Self::due_args_bytes`]).
    due_args_buffer: wgpu::Buffer,
    bind_layout: wgpu::BindGroupLayout,
    data: wgpu::Buffer,
    offsets: tables::TableOffsets,
    tables_bytes: u64,
    joint_stride: usize,
    normal_offset_vec4s: u32,
    /// The rig's uniform skinning scale, divided out of the dual quaternions.
    dual_quat_scale: f32,
    records: wgpu::Buffer,
    /// What the GPU's records hold, and the crowd they were written from.
    held: Vec<Record>,
    held_from: Vec<Instance>,
    /// The crowd's revision `held_from` was compared with: while it holds, a frame writes
    /// and compares nothing.
    held_revision: Option<u64>,
    /// Characters whose records were compared with the crowd (a steady crowd adds none).
    records_compared: u64,
    /// Each range's parameters, a block per hierarchy level after the range's own.
    params: ParamBlocks,
    scratch: Vec<u8>,
    /// Each pose slot's local poses, then its model matrices, then its range's due list, in
    /// one buffer: a slot per range where they fit [`GPU_POSE_SLOTS_BYTES`], else the
    /// ranges take turns in fewer.
    ranges: RangeBuffers,
    /// At most this many pose slots (tests: waves on any adapter).
    slots_limit: Option<usize>,
    /// The characters verify reads the poses of ([`Self::watch`]), and where their local
    /// poses and model matrices are copied after each wave while the ranges take turns.
    watched: Vec<usize>,
    watched_for: (usize, usize),
    watch_buffer: Option<wgpu::Buffer>,
    bound: Option<(BoundFor, Vec<wgpu::BindGroup>)>,
    limits: BindingLimits,
    /// Bytes written for the last frame: the changed records ([`Self::write_characters`])
    /// and the passes' parameters ([`Self::record`]).
    written_bytes: u64,
    /// The skinning method the tables' per-level joint lists are for.
    method: SkinMethod,
}

impl GpuAnimator {
    /// Bytes written for the last frame (parameters and the records that changed).
    pub fn written_bytes(&self) -> u64 {
        self.written_bytes
    }

    /// The skinning method the tables pose each level's joints for.
    pub fn method(&self) -> SkinMethod {
        self.method
    }

    /// Uploads `rig`'s tables, each level's joints as `method` poses them, and builds the
    /// passes' pipelines.
    pub fn new(device: &wgpu::Device, rig: &PreparedRig, method: SkinMethod) -> Self {
        use wgpu::util::DeviceExt;
        let t = AnimationTables::new(rig, method);
        let data = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("animate: rig, keys and tables"),
            contents: bytemuck::cast_slice(&t.words),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let header_bytes = DUE_ARGS_IN_HEADER
            + args_bytes(&t.offsets)
            + ARGS_BYTES * u64::from(t.offsets.list_levels);
        let due_args_buffer = Self::due_args_buffer(device, args_bytes(&t.offsets));
        let shader = super::shaders::create(device, super::shaders::Shader::Animate);
        let (bind_layout, layout) = super::compute::compute_layouts(
            device,
            "animate",
            std::mem::size_of::<ParamsGpu>() as u64,
            true,
            &[true, true, false, false],
        );
        let pipeline =
            |entry: &str| crate::gpu::compute::compute_pipeline(device, &layout, &shader, entry);
        GpuAnimator {
            sample: pipeline("cs_sample"),
            sample_level: pipeline("cs_sample_level"),
            palette_level: pipeline("cs_palette_level"),
            walk: pipeline("cs_hierarchy_walk"),
            walk_level: pipeline("cs_hierarchy_walk_level"),
            level: pipeline("cs_hierarchy_level"),
            palette: pipeline("cs_palette"),
            due: pipeline("cs_due"),
            due_args: pipeline("cs_due_args"),
            level_args: pipeline("cs_level_args"),
            bind_layout,
            data,
            tables_bytes: t.bytes(),
            offsets: t.offsets,
            joint_stride: rig.joint_stride,
            normal_offset_vec4s: if rig.own_normal_matrices() {
                3 * rig.normal_palette_offset() as u32
            } else {
                0
            },
            dual_quat_scale: crate::skin::method::dual_quat_scale(rig),
            records: Self::records_buffer(device, 0),
            held: Vec::new(),
            held_from: Vec::new(),
            held_revision: None,
            records_compared: 0,
            params: ParamBlocks::new(device, "animate: parameters per range and level", 4),
            scratch: Vec::new(),
            // COPY_SRC: the CPU twins read them back, and the due lists' arguments are
            // copied out.
            ranges: RangeBuffers::new(
                "animate: local poses, model matrices and due list (one range)",
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            )
            .with_tail(header_bytes),
            due_args_buffer,
            slots_limit: None,
            watched: Vec::new(),
            watched_for: (0, 0),
            watch_buffer: None,
            bound: None,
            limits: BindingLimits::of(device),
            written_bytes: 0,
            method,
        }
    }

    /// What a range's poses buffer holds after its model matrices, before its list of due
    /// characters (a word each), bytes: the list's counts, then the sampling, walk and
    /// palette passes' indirect dispatch arguments and each depth level's, a vec4 each
    /// (`cs_due` in animate.wgsl).
    fn due_header_bytes(&self) -> u64 {
        DUE_ARGS_IN_HEADER + self.due_args_bytes() + self.level_counts_bytes()
    }

    /// The levels' counts in a range's due-list header, after the dispatch arguments: a
    /// vec4 per level of the chain (`cs_due` in animate.wgsl).
    fn level_counts_bytes(&self) -> u64 {
        ARGS_BYTES * u64::from(self.offsets.list_levels)
    }

    /// A range's dispatch arguments over its due list, bytes (see [`args_bytes`]).
    fn due_args_bytes(&self) -> u64 {
        args_bytes(&self.offsets)
    }

    /// Room for `bytes` of dispatch arguments (every range's).
    fn due_args_buffer(device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("animate: dispatch arguments over the due lists"),
            size: bytes.max(ARGS_BYTES),
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn records_buffer(device: &wgpu::Device, characters: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("animate: character records"),
            size: (characters.max(1) * RECORD_BYTES) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Splits the characters into ranges of at most `characters` (`None`: what the
    /// device's limits allow), as a device with a small binding limit would.
    pub fn limit_ranges(&mut self, characters: Option<usize>) {
        self.limits.limit_to(characters);
        self.bound = None;
    }

    /// At most `slots` pose slots (`None`: as many as [`GPU_POSE_SLOTS_BYTES`] holds), so
    /// the ranges take turns in them as a crowd past that size would.
    pub fn limit_pose_slots(&mut self, slots: Option<usize>) {
        self.slots_limit = slots.map(|s| s.max(1));
        self.bound = None;
    }

    /// Whether the last prepared frame's ranges took turns in fewer pose slots than there
    /// are ranges: then only the watched characters' poses can be read back, and only
    /// those the frame computed hold this frame's.
    pub fn poses_are_scratch(&self) -> bool {
        self.bound
            .as_ref()
            .is_some_and(|(b, _)| b.slots < b.characters.div_ceil(b.per_range.max(1)))
    }

    /// The characters whose local poses and model matrices each frame keeps for
    /// [`Self::read_back_characters`] while the ranges take turns in the pose slots:
    /// verify's `count` of `characters` ([`verified_indices`]).
    pub fn watch(&mut self, characters: usize, count: usize) {
        if self.watched_for != (characters, count) {
            self.watched_for = (characters, count);
            self.watched = verified_indices(characters, count);
        }
    }

    /// How many characters' records [`Self::write_characters`] has compared with the
    /// crowd: a steady crowd adds none.
    pub fn records_compared(&self) -> u64 {
        self.records_compared
    }

    /// Forgets what the GPU's records hold: the next [`Self::write_characters`] writes
    /// every one (after the crowd's times were changed behind the animator's back).
    pub fn forget_records(&mut self) {
        self.held.clear();
        self.held_from.clear();
    }

    /// Bytes of GPU memory the animation holds now: tables, records, local poses and
    /// model matrices (the palettes are the renderer's).
    pub fn gpu_bytes(&self) -> u64 {
        self.tables_bytes + self.records.size() + self.ranges.bytes()
    }

    /// Writes the record of every character of `crowd` that differs from what the GPU
    /// holds, with its time as of clock reading `clock_secs`; returns the bytes written.
    pub fn write_characters(
        &mut self,
        gpu: &GpuContext,
        store: &InstanceStore,
        clock_secs: f32,
    ) -> u64 {
        let (device, queue) = (&gpu.device, &gpu.queue);
        let crowd = store.as_slice();
        let n = crowd.len();
        if (self.records.size() as usize) < n * RECORD_BYTES {
            self.records = Self::records_buffer(device, n + n / 4);
            self.bound = None;
            self.forget_records();
        }
        // The crowd has not changed since the records were compared with it: nothing to
        // write, and no per-character pass (a steady crowd's CPU cost does not grow).
        let steady = self.held_revision == Some(store.revision()) && self.held_from.len() == n;
        self.held_revision = Some(store.revision());
        if steady {
            self.written_bytes = 0;
            return 0;
        }
        self.records_compared += n as u64;
        self.held.truncate(n);
        self.held_from.truncate(n);
        let mut written = 0u64;
        // Unchanged characters are found a block at a time (one memory comparison of
        // 64 records), so a steady crowd of 100,000 costs a pass over 2.4 MB.
        const BLOCK: usize = 64;
        let same = |held: &[Instance], now: &[Instance]| {
            held.len() == now.len()
                && bytemuck::cast_slice::<Instance, u8>(held)
                    == bytemuck::cast_slice::<Instance, u8>(now)
        };
        let mut i = 0;
        while i < n {
            let end = (i + BLOCK).min(n);
            if end <= self.held_from.len() && same(&self.held_from[i..end], &crowd[i..end]) {
                i = end;
                continue;
            }
            // Within the block, runs of changed neighbours: one write each.
            while i < end {
                let unchanged = |held: &[Instance], k: usize| {
                    k < held.len() && same(&held[k..=k], &crowd[k..=k])
                };
                if unchanged(&self.held_from, i) {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < n && !unchanged(&self.held_from, i) {
                    let record = Record::new(&crowd[i], clock_secs);
                    if i < self.held.len() {
                        self.held[i] = record;
                        self.held_from[i] = crowd[i];
                    } else {
                        self.held.push(record);
                        self.held_from.push(crowd[i]);
                    }
                    i += 1;
                }
                let bytes: &[u8] = bytemuck::cast_slice(&self.held[start..i]);
                queue.write_buffer(&self.records, (start * RECORD_BYTES) as u64, bytes);
                written += bytes.len() as u64;
            }
        }
        self.written_bytes = written;
        written
    }

    /// The crowd as the GPU animates it at clock reading `clock_secs`: each character's
    /// time advanced from its record (what verify and the tests compare against).
    pub fn crowd_at(&self, clock_secs: f32) -> Vec<Instance> {
        let since: Vec<f32> = self.held.iter().map(|r| r.since_secs).collect();
        crate::crowd::animate::instances_at(&self.held_from, &since, clock_secs)
    }

    /// Characters one range may hold: its local poses and model matrices together, and its
    /// slice of the palettes, each fit one storage binding, and its poses fit
    /// [`GPU_POSE_SLOTS_BYTES`].
    fn range_characters(&self, palettes: &OutputLayout) -> usize {
        let bytes = [
            self.range_bytes_per_character(),
            palettes.instance_stride() as u64,
        ];
        let slot = GPU_POSE_SLOTS_BYTES / self.range_bytes_per_character();
        self.limits
            .per_range_after(&bytes, &[self.due_header_bytes(), 0], false)
            .min(usize::try_from(slot).unwrap_or(usize::MAX).max(1))
    }

    /// The pose slots `ranges` ranges of `per_range` characters take turns in.
    fn pose_slots(&self, ranges: usize, per_range: usize) -> usize {
        let range_bytes = per_range as u64 * self.range_bytes_per_character();
        let slots = gpu_pose_slots(ranges, range_bytes);
        self.slots_limit.map_or(slots, |limit| slots.min(limit))
    }

    /// A character's local poses and model matrices, and its words of the due list and
    /// of each level's list, bytes.
    fn range_bytes_per_character(&self) -> u64 {
        (2 * self.joint_stride * JOINT_BYTES) as u64 + 4 * (1 + u64::from(self.offsets.list_levels))
    }

    /// Where pose slot `slot`'s due list (its header first) starts in its buffer, bytes:
    /// after every character's local poses and model matrices.
    fn due_list_at(&self, slot: usize) -> u64 {
        self.model_at(slot) * 2
    }

    /// Where pose slot `slot`'s model matrices start in its buffer, bytes.
    fn model_at(&self, slot: usize) -> u64 {
        (self.ranges.capacity(slot) * self.joint_stride * JOINT_BYTES) as u64
    }

    /// Makes the pose slots hold the ranges of `characters` that pose at once: every range,
    /// or `slots` full ones ([`RangeBuffers::fit`]).
    fn fit_ranges(
        &mut self,
        device: &wgpu::Device,
        characters: usize,
        per_range: usize,
        slots: usize,
    ) {
        let bytes = self.range_bytes_per_character();
        let at_once = characters.min(slots.saturating_mul(per_range));
        if self.ranges.fit(device, at_once, per_range, bytes) {
            self.bound = None;
        }
    }

    /// Records the three passes for the first `palettes.shape.characters` records
    /// (written by [`Self::write_characters`]) at `frame`'s clock reading, into
    /// `palettes` (laid out as a GPU skin variant's: 3×4 rows, or dual quaternions), each
    /// pass timed by `timers` where given: [`Self::prepare`], then the three `record_*`.
    pub fn record(
        &mut self,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        palettes: PaletteBuffer<'_>,
        frame: &AnimateFrame,
        timers: Option<&GpuTimers>,
    ) -> Result<(), GpuAnimateError> {
        let prepared = self.prepare(gpu, palettes, frame, false)?;
        let mut ctx = PassContext::new(gpu, encoder, timers, palettes.shape);
        self.record_passes(&mut ctx, &prepared);
        Ok(())
    }

    /// Records the passes over every range of the frame `prepared` describes (what
    /// [`Self::prepare`] returned), a wave of ranges at a time: the ranges of a wave each
    /// pose in a slot of their own, and the next wave reuses the slots once the palette
    /// pass has read them. A crowd whose poses fit has one wave. With LOD each wave first
    /// lists its due characters. Each pass of each wave is timed under its own label, so
    /// a pass's row is the sum over the waves. While the ranges take turns, each wave's
    /// watched characters' poses are copied out ([`Self::watch`]).
    pub fn record_passes(&self, ctx: &mut PassContext<'_>, prepared: &PreparedAnimation) {
        let ranges = prepared.characters.div_ceil(prepared.per_range);
        let mut first = 0;
        while first < ranges {
            let wave = first..(first + prepared.slots).min(ranges);
            if prepared.lod {
                self.record_due_lists(ctx, prepared, wave.clone());
            }
            self.record_sample(ctx, prepared, wave.clone());
            self.record_hierarchy(ctx, prepared, wave.clone());
            self.record_palette(ctx, prepared, wave.clone());
            if prepared.slots < ranges {
                self.copy_watched(ctx.encoder, prepared, wave.clone());
            }
            first = wave.end;
        }
    }

    /// Makes room to copy the watched characters' poses where the ranges take turns
    /// (dropped where they do not).
    fn fit_watch(&mut self, device: &wgpu::Device, taking_turns: bool) {
        if !taking_turns {
            self.watch_buffer = None;
            return;
        }
        let bytes =
            (self.watched.len().max(1) * 2 * self.offsets.joints as usize * JOINT_BYTES) as u64;
        if self.watch_buffer.as_ref().is_none_or(|b| b.size() < bytes) {
            self.watch_buffer = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("animate: the watched characters' poses"),
                size: bytes,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }));
        }
    }

    /// Copies the local poses and model matrices of the watched characters of `wave`'s
    /// ranges out of their slots, the `k`th watched character's at `k` times both.
    fn copy_watched(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        prepared: &PreparedAnimation,
        wave: std::ops::Range<usize>,
    ) {
        let Some(watch) = &self.watch_buffer else {
            return;
        };
        let bytes = (self.offsets.joints as usize * JOINT_BYTES) as u64;
        let character = (self.joint_stride * JOINT_BYTES) as u64;
        for (k, &i) in self.watched.iter().enumerate() {
            let r = i / prepared.per_range;
            if i >= prepared.characters || !wave.contains(&r) {
                continue;
            }
            let slot = r % prepared.slots;
            let Some(poses) = self.ranges.buffer(slot) else {
                continue;
            };
            let c = (i % prepared.per_range) as u64;
            let to = k as u64 * 2 * bytes;
            encoder.copy_buffer_to_buffer(poses, c * character, watch, to, bytes);
            let models = self.model_at(slot) + c * character;
            encoder.copy_buffer_to_buffer(poses, models, watch, to + bytes, bytes);
        }
    }

    /// Checks the frame's inputs, fits the ranges, writes the parameters and binds the
    /// buffers for the passes; returns the frame [`Self::record_passes`] records. With
    /// `lod`, the passes compute only the characters the LOD pass marked due.
    pub fn prepare(
        &mut self,
        gpu: &GpuContext,
        palettes: PaletteBuffer<'_>,
        frame: &AnimateFrame,
        lod: bool,
    ) -> Result<PreparedAnimation, GpuAnimateError> {
        let FrameShape { layout, characters } = palettes.shape;
        let AnimateFrame {
            clock_secs,
            blend_weight,
            joint_levels,
            ..
        } = *frame;
        let device = &gpu.device;
        let dual_quat = match layout.format() {
            OutputFormat::Palette3x4 => false,
            OutputFormat::PaletteDualQuat => true,
            OutputFormat::Interleaved
            | OutputFormat::Float3
            | OutputFormat::Float4
            | OutputFormat::Packed => {
                return Err(GpuAnimateError::NoPalettes {
                    variant: layout.variant().spec().name,
                });
            }
        };
        if !palettes.holds_shape() {
            return Err(GpuAnimateError::PalettesTooSmall {
                bytes: palettes.buffers.bytes(),
                characters,
                needed: layout.bytes(characters),
            });
        }
        if self.held.len() < characters {
            return Err(GpuAnimateError::Short {
                asked: characters,
                characters: self.held.len(),
            });
        }
        if characters == 0 {
            // Nothing to record: no range, no wave.
            return Ok(PreparedAnimation {
                characters: 0,
                per_range: 1,
                slots: 1,
                hierarchy: frame.hierarchy,
                lod,
                bound_anew: false,
            });
        }
        let per_range = palettes.buffers.per_range(self.range_characters(layout));
        let ranges = characters.div_ceil(per_range);
        let slots = self.pose_slots(ranges, per_range);
        self.fit_ranges(device, characters, per_range, slots);
        self.fit_watch(device, slots < ranges);
        let ranges = ranges as u64;
        if self.due_args_buffer.size() < ranges * self.due_args_bytes() {
            self.due_args_buffer = Self::due_args_buffer(device, ranges * self.due_args_bytes());
        }
        let wanted = BoundFor {
            palettes: palettes.buffers.clone(),
            characters,
            palette_stride: layout.instance_stride(),
            format: layout.format(),
            per_range,
            slots,
            blend_weight,
            clock_secs,
            lod,
            joint_levels,
        };
        self.write_params(gpu, &wanted, dual_quat);
        let current = self.bound.as_ref().is_some_and(|(b, _)| {
            BoundFor {
                clock_secs,
                lod,
                joint_levels,
                ..b.clone()
            } == wanted
        });
        if !current {
            let Some(groups) = self.bind_groups(device, &wanted) else {
                self.bound = None;
                return Err(GpuAnimateError::RangesMissing);
            };
            self.bound = Some((wanted, groups));
        }
        Ok(PreparedAnimation {
            characters,
            per_range,
            slots,
            hierarchy: frame.hierarchy,
            lod,
            bound_anew: !current,
        })
    }

    /// Records `spec`'s pass over the ranges of `wave`, timed: `work` dispatches a range's
    /// characters, given its live count and its bind group's parameter offset.
    fn record_pass<'s>(
        &'s self,
        ctx: &mut PassContext<'_>,
        spec: &GpuPassSpec,
        prepared: &PreparedAnimation,
        wave: std::ops::Range<usize>,
        pipeline: impl Fn(&PreparedAnimation) -> &'s wgpu::ComputePipeline,
        work: impl Fn(&mut wgpu::ComputePass<'_>, &PreparedAnimation, &[wgpu::BindGroup], usize),
    ) {
        let Some((_, groups)) = &self.bound else {
            return;
        };
        ctx.compute(spec, |pass| {
            pass.set_pipeline(pipeline(prepared));
            for r in wave.clone() {
                pass.set_bind_group(0, &groups[r], &[self.param_offset(r, 0)]);
                work(pass, prepared, groups, r);
            }
        });
    }

    /// The dynamic offset of range `r`'s parameter block `block` (0: the range's own;
    /// 1 + d: depth level d; 1 + depth levels + l: mesh level l's sampling, walk and
    /// palettes, [`mesh_level_block`]).
    fn param_offset(&self, r: usize, block: usize) -> u32 {
        ParamBlocks::offset(r * self.blocks_per_range() + block)
    }

    fn blocks_per_range(&self) -> usize {
        1 + self.offsets.levels.len() + self.offsets.list_levels as usize
    }

    /// Range `r`'s `pass_over` dispatches over its mesh levels' lists, each with its
    /// level's parameter block.
    fn dispatch_mesh_levels(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        group: &wgpu::BindGroup,
        r: usize,
        pass_over: LevelPass,
    ) {
        for l in 0..self.offsets.list_levels as usize {
            pass.set_bind_group(
                0,
                group,
                &[self.param_offset(r, mesh_level_block(&self.offsets, l))],
            );
            self.dispatch_listed(pass, r, level_pass_args_at(&self.offsets, l, pass_over));
        }
    }

    /// Range `r`'s pass whose arguments are `args_at` in the range's copied arguments, over
    /// the list (its arguments copied out by [`Self::record_sample`]: a buffer the dispatch
    /// writes cannot also hold its arguments).
    fn dispatch_listed(&self, pass: &mut wgpu::ComputePass<'_>, r: usize, args_at: u64) {
        let at = r as u64 * self.due_args_bytes() + args_at;
        pass.dispatch_workgroups_indirect(&self.due_args_buffer, at);
    }

    /// With LOD, each range of `wave` lists its due characters, whole and by posed level
    /// (`cs_due`, `cs_due_args`, and with the pass per depth level `cs_level_args`); the
    /// passes' arguments are then copied where a dispatch may read them (a buffer the
    /// dispatch writes cannot also hold its arguments).
    fn record_due_lists(
        &self,
        ctx: &mut PassContext<'_>,
        prepared: &PreparedAnimation,
        wave: std::ops::Range<usize>,
    ) {
        let Some((_, groups)) = &self.bound else {
            return;
        };
        ctx.compute(&DUE_LISTS_PASS, |pass| {
            for r in wave.clone() {
                let group = &groups[r];
                pass.set_bind_group(0, group, &[self.param_offset(r, 0)]);
                pass.set_pipeline(&self.due);
                dispatch(pass, live(prepared, r));
                pass.set_pipeline(&self.due_args);
                pass.dispatch_workgroups(1, 1, 1);
                if prepared.hierarchy == GpuHierarchy::Levels {
                    pass.set_pipeline(&self.level_args);
                    for l in 0..self.offsets.levels.len() {
                        pass.set_bind_group(0, group, &[self.param_offset(r, 1 + l)]);
                        pass.dispatch_workgroups(1, 1, 1);
                    }
                }
            }
        });
        for r in wave {
            let slot = r % prepared.slots;
            if let Some(poses) = self.ranges.buffer(slot) {
                ctx.encoder.copy_buffer_to_buffer(
                    poses,
                    self.due_list_at(slot) + DUE_ARGS_IN_HEADER,
                    &self.due_args_buffer,
                    r as u64 * self.due_args_bytes(),
                    self.due_args_bytes(),
                );
            }
        }
    }

    /// The sampling pass: one invocation per character and moving joint a clip animates
    /// (the full mesh's sampled joints, [`tables::TableOffsets::level_lists`]); with LOD,
    /// one per listed character and joint its level samples, over the due lists.
    fn record_sample(
        &self,
        ctx: &mut PassContext<'_>,
        prepared: &PreparedAnimation,
        wave: std::ops::Range<usize>,
    ) {
        // Without LOD, the joints the full mesh samples (its list is always there).
        let joints = self.offsets.level_lists.first().map_or(0, |list| list[1]);
        self.record_pass(
            ctx,
            &SAMPLE_PASS,
            prepared,
            wave,
            |p| {
                if p.lod {
                    &self.sample_level
                } else {
                    &self.sample
                }
            },
            |pass, p, groups, r| {
                if p.lod {
                    self.dispatch_mesh_levels(pass, &groups[r], r, LevelPass::Sample);
                } else {
                    dispatch(pass, live(p, r) * joints);
                }
            },
        );
    }

    /// The hierarchy pass, the way the frame was prepared with: with LOD the walk goes
    /// over each mesh level's list, through that level's joints.
    fn record_hierarchy(
        &self,
        ctx: &mut PassContext<'_>,
        prepared: &PreparedAnimation,
        wave: std::ops::Range<usize>,
    ) {
        let pipeline = |p: &PreparedAnimation| match p.hierarchy {
            GpuHierarchy::Walk if p.lod => &self.walk_level,
            GpuHierarchy::Walk => &self.walk,
            GpuHierarchy::Levels => &self.level,
        };
        let levels = &self.offsets.levels;
        self.record_pass(
            ctx,
            &HIERARCHY_PASS,
            prepared,
            wave,
            pipeline,
            |pass, p, groups, r| match p.hierarchy {
                GpuHierarchy::Walk if p.lod => {
                    self.dispatch_mesh_levels(pass, &groups[r], r, LevelPass::Walk)
                }
                GpuHierarchy::Walk => dispatch(pass, live(p, r)),
                GpuHierarchy::Levels => {
                    for (l, &(_, count)) in levels.iter().enumerate() {
                        pass.set_bind_group(0, &groups[r], &[self.param_offset(r, 1 + l)]);
                        if p.lod {
                            let at = LEVEL_ARGS_AT + ARGS_BYTES * l as u64;
                            self.dispatch_listed(pass, r, at);
                        } else {
                            dispatch(pass, live(p, r) * count);
                        }
                    }
                }
            },
        );
    }

    /// The palette pass (one invocation per character and palette entry some vertex
    /// reads), the last of the three.
    fn record_palette(
        &self,
        ctx: &mut PassContext<'_>,
        prepared: &PreparedAnimation,
        wave: std::ops::Range<usize>,
    ) {
        let entries = self.offsets.moving_entries;
        self.record_pass(
            ctx,
            &PALETTE_PASS,
            prepared,
            wave,
            |p| {
                if p.lod {
                    &self.palette_level
                } else {
                    &self.palette
                }
            },
            |pass, p, groups, r| {
                if p.lod {
                    self.dispatch_mesh_levels(pass, &groups[r], r, LevelPass::Palette);
                } else {
                    dispatch(pass, live(p, r) * entries);
                }
            },
        );
    }

    /// The records as the CPU last wrote them (the CPU twins' input: the LOD pass reads
    /// the same type).
    pub fn records_held(&self) -> &[Record] {
        &self.held
    }

    /// The records' buffer (the LOD pass reads them and marks each character due or not).
    pub fn records(&self) -> &wgpu::Buffer {
        &self.records
    }

    /// Every range's parameter blocks: one for sample, walk and palette, one per depth
    /// level. Written every frame (the clock moves); 256 bytes a block.
    fn write_params(&mut self, gpu: &GpuContext, b: &BoundFor, dual_quat: bool) {
        let (device, queue) = (&gpu.device, &gpu.queue);
        let ranges = b.characters.div_ceil(b.per_range);
        let blocks = self.blocks_per_range();
        if self.params.reserve(device, ranges * blocks) {
            self.bound = None;
        }
        let o = &self.offsets;
        ParamBlocks::clear_scratch(&mut self.scratch, ranges * blocks);
        for r in 0..ranges {
            let live = live_in_range(b.characters, b.per_range, r);
            let base = ParamsGpu {
                joints: o.joints,
                root_count: o.root_count,
                entries: o.entries,
                clip_count: o.clip_count,
                first_character: (r * b.per_range) as u32,
                characters: live as u32,
                joint_stride: self.joint_stride as u32,
                palette_stride: (b.palette_stride / 16) as u32,
                normal_offset: if dual_quat {
                    0
                } else {
                    self.normal_offset_vec4s
                },
                dual_quat: dual_quat as u32,
                level_first: 0,
                level_count: 0,
                clock_secs: b.clock_secs,
                blend_weight: b.blend_weight,
                roots_at: o.roots_at,
                binds_at: o.binds_at,
                parents_at: o.parents_at,
                entry_joints_at: o.entry_joints_at,
                clips_at: o.clips_at,
                channels_at: o.channels_at,
                tracks_at: o.tracks_at,
                model_at: (self.model_at(r % b.slots) / 16) as u32,
                lod: b.lod as u32,
                dual_quat_scale: self.dual_quat_scale,
                moving_joints_at: o.moving_joints_at,
                moving_joints: o.moving_joints,
                moving_entries_at: o.moving_entries_at,
                moving_entries: o.moving_entries,
                joint_masks_at: o.joint_masks_at,
                mask_words: o.mask_words,
                // The LOD pass chooses among the chain's levels, each with its lists.
                joint_levels: b.joint_levels.min(o.list_levels.max(1)),
                due_at: (self.due_list_at(r % b.slots) / 16) as u32,
                depth_levels: o.levels.len() as u32,
                depth_level: 0,
                sampled_masks_at: o.sampled_masks_at,
                level_lists_at: o.level_lists_at,
                list_levels: o.list_levels,
                list_level: 0,
                _pad_c: 0,
                _pad_d: 0,
            };
            let levels = std::iter::once((0, 0)).chain(o.levels.iter().copied());
            for (block, (first, count)) in levels.enumerate() {
                let params = ParamsGpu {
                    level_first: first,
                    level_count: count,
                    depth_level: block.saturating_sub(1) as u32,
                    ..base
                };
                ParamBlocks::put(&mut self.scratch, r * blocks + block, &params);
            }
            for l in 0..o.list_levels as usize {
                let params = ParamsGpu {
                    list_level: l as u32,
                    ..base
                };
                let block = r * blocks + mesh_level_block(o, l);
                ParamBlocks::put(&mut self.scratch, block, &params);
            }
        }
        queue.write_buffer(self.params.buffer(), 0, &self.scratch);
        self.written_bytes += self.scratch.len() as u64;
    }

    /// A bind group per range; `None` where a range has no buffer ([`Self::fit_ranges`]
    /// makes one for each).
    fn bind_groups(&self, device: &wgpu::Device, b: &BoundFor) -> Option<Vec<wgpu::BindGroup>> {
        let ranges = b.characters.div_ceil(b.per_range);
        (0..ranges)
            .map(|r| {
                let poses = self.ranges.buffer(r % b.slots)?;
                let live = live_in_range(b.characters, b.per_range, r);
                fn slice(
                    buffer: &wgpu::Buffer,
                    offset: u64,
                    size: u64,
                ) -> wgpu::BindingResource<'_> {
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset,
                        size: wgpu::BufferSize::new(size),
                    })
                }
                let entries = [
                    slice(
                        self.params.buffer(),
                        0,
                        std::mem::size_of::<ParamsGpu>() as u64,
                    ),
                    self.data.as_entire_binding(),
                    self.records.as_entire_binding(),
                    poses.as_entire_binding(),
                    wgpu::BindingResource::Buffer(b.palettes.binding(
                        r * b.per_range,
                        live,
                        b.palette_stride,
                    )?),
                ];
                let entries: Vec<wgpu::BindGroupEntry> = entries
                    .into_iter()
                    .enumerate()
                    .map(|(binding, resource)| wgpu::BindGroupEntry {
                        binding: binding as u32,
                        resource,
                    })
                    .collect();
                Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("animate range"),
                    layout: &self.bind_layout,
                    entries: &entries,
                }))
            })
            .collect()
    }

    /// The local poses and model matrices of the characters `indices` names, as the last
    /// recorded frame left them, read back (blocks until the GPU is done): what verify
    /// compares, without reading every character of a large crowd. The local pose of a
    /// joint the character's level does not sample (without LOD, level 0's: a moving
    /// joint no clip animates) is an older frame's (or none): the hierarchy took its rest
    /// pose without writing it, and verify takes the rest pose for it too.
    pub fn read_back_characters(
        &self,
        gpu: &GpuContext,
        indices: &[usize],
    ) -> Result<CharacterPoses, GpuAnimateError> {
        let joints = self.offsets.joints as usize;
        let stride = self.joint_stride;
        let per_range = self.bound.as_ref().map_or(0, |(b, _)| b.per_range);
        let mut locals = Vec::with_capacity(indices.len());
        let mut models = Vec::with_capacity(indices.len());
        if let (true, Some(watch)) = (self.poses_are_scratch(), &self.watch_buffer) {
            let bytes = (joints * JOINT_BYTES) as u64;
            for &i in indices {
                let Some(k) = self.watched.iter().position(|&w| w == i) else {
                    return Err(GpuAnimateError::NotWatched { character: i });
                };
                let both =
                    super::readback::read_buffer_at(gpu, watch, k as u64 * 2 * bytes, 2 * bytes)?;
                let both: Vec<[f32; 12]> = bytemuck::pod_collect_to_vec(&both);
                let (l, m) = poses_from(&both[..joints], &both[joints..]);
                locals.push(l);
                models.push(m);
            }
            return Ok((locals, models));
        }
        for &i in indices {
            let r = i / per_range.max(1);
            let poses = (per_range > 0)
                .then(|| self.ranges.buffer(r))
                .flatten()
                .filter(|_| i < self.held.len());
            let Some(poses) = poses else {
                return Err(GpuAnimateError::Short {
                    asked: i + 1,
                    characters: self.held.len(),
                });
            };
            let c = (i % per_range) as u64;
            let bytes = (joints * JOINT_BYTES) as u64;
            let character = (stride * JOINT_BYTES) as u64;
            let model_at = (self.ranges.capacity(r) * stride * JOINT_BYTES) as u64;
            let read = |offset: u64| super::readback::read_buffer_at(gpu, poses, offset, bytes);
            let l = read(c * character)?;
            let m = read(model_at + c * character)?;
            // Copied out: a byte vector need not be aligned for floats.
            let l: Vec<[f32; 12]> = bytemuck::pod_collect_to_vec(&l);
            let m: Vec<[f32; 12]> = bytemuck::pod_collect_to_vec(&m);
            let (l, m) = poses_from(&l, &m);
            locals.push(l);
            models.push(m);
        }
        Ok((locals, models))
    }

    /// Each range's list of the characters the last LOD frame computed (their indices in
    /// the crowd, ascending; the GPU's order follows its atomics) and its depth levels'
    /// dispatch arguments, read back (blocks until the GPU is done): the CPU twin is the
    /// LOD pass's decision (`crowd::lod`). Empty for a frame without LOD.
    pub fn read_back_due_lists(&self, gpu: &GpuContext) -> Result<Vec<DueList>, GpuAnimateError> {
        let Some((bound, _)) = self.bound.as_ref().filter(|(b, _)| b.lod) else {
            return Ok(Vec::new());
        };
        if self.poses_are_scratch() {
            return Err(GpuAnimateError::PosesAreScratch);
        }
        let ranges = bound.characters.div_ceil(bound.per_range.max(1));
        let mut lists = Vec::with_capacity(ranges);
        for r in 0..ranges {
            let Some(poses) = self.ranges.buffer(r) else {
                return Err(GpuAnimateError::RangesMissing);
            };
            let at = self.due_list_at(r);
            let words: Vec<u32> = bytemuck::pod_collect_to_vec(&super::readback::read_buffer_at(
                gpu,
                poses,
                at,
                poses.size() - at,
            )?);
            let header = (self.due_header_bytes() / 4) as usize;
            if words.len() < header {
                return Err(GpuAnimateError::RangesMissing);
            }
            let first = (r * bound.per_range) as u32;
            // `listed` words from `at`, as crowd indices, ascending.
            let list = |at: usize, listed: u32| -> Vec<u32> {
                let at = at.min(words.len());
                let end = (at + listed as usize).min(words.len());
                let mut characters: Vec<u32> = words[at..end].iter().map(|&c| first + c).collect();
                characters.sort_unstable();
                characters
            };
            let args = |bytes: u64| {
                let at = ((DUE_ARGS_IN_HEADER + bytes) / 4) as usize;
                [words[at], words[at + 1], words[at + 2]]
            };
            let characters = list(header, words[1]);
            let level_workgroups = (0..self.offsets.levels.len())
                .map(|l| args(LEVEL_ARGS_AT + ARGS_BYTES * l as u64))
                .collect();
            // The range's live characters: each level's list has room for as many.
            let live = live_in_range(bound.characters, bound.per_range, r);
            let counts_at = ((DUE_ARGS_IN_HEADER + self.due_args_bytes()) / 4) as usize;
            let per_level = |pass_over| {
                (0..self.offsets.list_levels as usize)
                    .map(|l| args(level_pass_args_at(&self.offsets, l, pass_over)))
                    .collect()
            };
            let by_level = (0..self.offsets.list_levels as usize)
                .map(|l| list(header + live * (1 + l), words[counts_at + 4 * l + 1]))
                .collect();
            lists.push(DueList {
                characters,
                level_workgroups,
                by_level,
                sample_workgroups: per_level(LevelPass::Sample),
                palette_workgroups: per_level(LevelPass::Palette),
                walk_workgroups: per_level(LevelPass::Walk),
            });
        }
        Ok(lists)
    }

    /// The first `characters` characters' local poses and model matrices as the last
    /// recorded frame left them, read back (blocks until the GPU is done): the CPU twins'
    /// input.
    pub fn read_back(
        &self,
        gpu: &GpuContext,
        characters: usize,
    ) -> Result<CharacterPoses, GpuAnimateError> {
        if self.poses_are_scratch() {
            return Err(GpuAnimateError::PosesAreScratch);
        }
        let joints = self.offsets.joints as usize;
        let stride = self.joint_stride;
        let mut locals = Vec::with_capacity(characters);
        let mut models = Vec::with_capacity(characters);
        let per_range = self.bound.as_ref().map_or(0, |(b, _)| b.per_range);
        let mut left = characters;
        for (r, poses) in self.ranges.buffers().enumerate() {
            if left == 0 || per_range == 0 {
                break;
            }
            let take = per_range.min(left);
            let all = super::readback::read_buffer(gpu, poses, self.due_list_at(r))?;
            // Copied out: a byte vector need not be aligned for floats.
            let all: Vec<[f32; 12]> = bytemuck::pod_collect_to_vec(&all);
            let (l, m) = all.split_at(self.ranges.capacity(r) * stride);
            for c in 0..take {
                let at = c * stride;
                let (l, m) = poses_from(&l[at..at + joints], &m[at..at + joints]);
                locals.push(l);
                models.push(m);
            }
            left -= take;
        }
        if left > 0 {
            return Err(GpuAnimateError::Short {
                asked: characters,
                characters: characters - left,
            });
        }
        Ok((locals, models))
    }
}

/// A range's dispatch arguments over its due lists, bytes: one per depth level of
/// `offsets`' rig, then one per [`LevelPass`] per level of its mesh's chain.
fn args_bytes(offsets: &tables::TableOffsets) -> u64 {
    level_pass_args_at(offsets, offsets.list_levels as usize, LevelPass::Sample)
}

/// Among a range's parameter blocks, mesh level `l`'s sampling, walk and palette
/// dispatches' (after the range's own and one per depth level).
fn mesh_level_block(offsets: &tables::TableOffsets, l: usize) -> usize {
    1 + offsets.levels.len() + l
}

/// The passes that dispatch once per mesh level over its list, in the order of their
/// arguments in a range's due-list header (`level_args_at` in animate.wgsl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LevelPass {
    Sample,
    Palette,
    Walk,
}

/// Where `pass_over`'s dispatch arguments for mesh level `l` are among a range's.
fn level_pass_args_at(offsets: &tables::TableOffsets, l: usize, pass_over: LevelPass) -> u64 {
    let nth = match pass_over {
        LevelPass::Sample => 0,
        LevelPass::Palette => 1,
        LevelPass::Walk => 2,
    };
    let vec4s = offsets.levels.len() + tables::LEVEL_PASSES as usize * l + nth;
    LEVEL_ARGS_AT + ARGS_BYTES * vec4s as u64
}

fn dispatch(pass: &mut wgpu::ComputePass<'_>, invocations: u32) {
    let (x, y) = workgroups(invocations);
    if x > 0 {
        pass.dispatch_workgroups(x, y, 1);
    }
}

/// A character's local poses and model matrices from their 48-byte joint records.
fn poses_from(l: &[[f32; 12]], m: &[[f32; 12]]) -> (Vec<Qvs>, Vec<Mat3x4>) {
    (
        l.iter()
            .map(|v| Qvs {
                rotation: glam::Quat::from_slice(&v[0..4]),
                translation: glam::Vec3A::from_slice(&v[4..7]),
                scale: glam::Vec3A::from_slice(&v[8..11]),
            })
            .collect(),
        m.iter()
            .map(|v| Mat3x4 {
                rows: [
                    glam::Vec4::from_slice(&v[0..4]),
                    glam::Vec4::from_slice(&v[4..8]),
                    glam::Vec4::from_slice(&v[8..12]),
                ],
            })
            .collect(),
    )
}

/// Range `r`'s characters in a prepared frame.
fn live(p: &PreparedAnimation, r: usize) -> u32 {
    live_in_range(p.characters, p.per_range, r) as u32
}

/// Workgroups (x, y) for `invocations` invocations: one row, or rows of 65,535 (the
/// shader's `flat_index` counts across them; its `store_workgroups` splits the same way).
pub fn workgroups(invocations: u32) -> (u32, u32) {
    const MAX: u32 = 65_535;
    let groups = invocations.div_ceil(WORKGROUP);
    if groups <= MAX {
        (groups, 1)
    } else {
        (MAX, groups.div_ceil(MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatches_past_the_dimension_limit_cover_every_invocation() {
        assert_eq!(workgroups(0), (0, 1));
        assert_eq!(workgroups(64), (1, 1));
        assert_eq!(workgroups(65), (2, 1));
        let n = 100_000 * 96;
        let (x, y) = workgroups(n);
        assert!(x <= 65_535 && (x * y * WORKGROUP) >= n);
    }
}
