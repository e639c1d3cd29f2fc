//! Update-rate LOD and culling on the GPU (`--animate gpu --lod on`): the pass that runs
//! before the animation's and decides per character whether it is recomputed this frame
//! and whether it is drawn (shaders/lod.wgsl; the rule and its CPU twin are in
//! [`crate::crowd::lod::per_character`]).
//!
//! How it works: the CPU measures the motions the crowd plays (the same tables as the
//! CPU's LOD) and uploads them when a new one appears. Each frame it writes one 256-byte
//! parameter block (view, threshold, clock, frame number); the pass reads every
//! character's record, keeps its LOD state on the GPU (16 bytes: the time its pose was
//! computed at, its clips, the frame it is next due, its flags), marks the record due or
//! not (the animation's passes skip the others: their poses and palettes stay as they
//! are) and writes the instance count of the character's draw argument, 1 in view and 0
//! culled, so the crowd pass draws the same few indirect draws at any crowd size. Where the
//! draws read their count from a buffer, it also appends each visible character's argument
//! (at its level) to its batch's run with an atomic counter, so the crowd pass reads only
//! the characters in view: the counts are the runs' lengths. With per-level draws
//! (`--draws per_level`) it instead appends each character in view to its batch's list at
//! its level, counted in that level's argument (the renderer's `per_level` module). The
//! panel's counts come back a frame or two later, without waiting for the GPU.
//!
//! The arguments the pass writes are drawn with `multi_draw_indexed_indirect_count` where
//! the adapter has it, which wgpu does not validate argument by argument: an index range
//! past the index buffer would be read by the GPU as it is. So the pass writes only into a
//! [`DrawArgsTarget`] (made by the renderer that owns the arguments and the index
//! buffers), checks every slot against the arguments it holds when the slots are written,
//! and checks the frame's table of level ranges against the index buffers before each
//! frame: no value a caller puts into [`LodFrame`] or the slots reaches a draw out of range.

use crate::contract::GpuStruct;
use crate::crowd::animate::Record;
use crate::crowd::lod::LodStats;
use crate::crowd::lod::formats::{CULL_PER_LEVEL, CULL_POOLED, DrawSlot};
use crate::crowd::lod::formats::{MotionHeader, MotionSetHeader};
use crate::crowd::lod::per_character::{CharacterLod, LodFrame, STATS_WORDS, stats_from_words};
use crate::gpu::pass::{FrameResource, GpuPassSpec, PassContext, PassKind, PassRuns, always};
use crate::gpu::shaders::Shader;

use super::super::readback::{self, ReadbackError};
use super::workgroups;
use crate::gpu::GpuContext;

/// The LOD pass, as the frame's pass list, the timers, the panel and the contracts see it.
pub const PASS: GpuPassSpec = GpuPassSpec {
    name: "lod",
    description: "update-rate LOD and culling, per character",
    label: "animate: lod",
    row: "GPU LOD",
    key: "gpu_lod",
    runs: PassRuns::GpuLod,
    kind: PassKind::Compute,
    reads: &[always(FrameResource::Records)],
    writes: &[
        always(FrameResource::DueMarks),
        always(FrameResource::LevelDraws),
    ],
    shader: Shader::Lod,
    shares: &[
        Record::LAYOUT,
        LodFrame::LAYOUT,
        CharacterLod::LAYOUT,
        DrawSlot::LAYOUT,
        MotionSetHeader::LAYOUT,
        MotionHeader::LAYOUT,
    ],
};

/// The skinned pool's draw lists: after the skinning pass gave out the pool's room, each
/// character listed at the level its vertices were skinned at (see [`CULL_POOLED`]).
pub const POOL_LISTS_PASS: GpuPassSpec = GpuPassSpec {
    name: "pool_lists",
    description: "the skinned pool's per-level draw lists, each character at the level the pool held it at",
    label: "animate: pool lists",
    row: "GPU pool lists",
    key: "gpu_pool_lists",
    runs: PassRuns::PoolLists,
    kind: PassKind::Compute,
    reads: &[
        always(FrameResource::DueMarks),
        always(FrameResource::SkinLists),
    ],
    writes: &[always(FrameResource::LevelDraws)],
    shader: Shader::Lod,
    shares: &[
        Record::LAYOUT,
        LodFrame::LAYOUT,
        CharacterLod::LAYOUT,
        DrawSlot::LAYOUT,
    ],
};

const STATS_BYTES: u64 = (STATS_WORDS * 4) as u64;
const STATE_BYTES: usize = std::mem::size_of::<CharacterLod>();
const SLOT_BYTES: usize = std::mem::size_of::<DrawSlot>();
/// A draw argument's instance count not written by the pass.
pub const NO_SLOT: u32 = u32::MAX;

/// Why the LOD pass refused to write draw arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawArgsError {
    #[error(
        "mesh level {level}: indices {first} + {count} lie past the {indices} indices the \
         crowd's draws read"
    )]
    LevelOutOfRange {
        level: usize,
        first: u32,
        count: u32,
        indices: u32,
    },
    #[error(
        "character {character}: word {slot} is not the instance count of one of the {args} \
         draw arguments"
    )]
    SlotOutOfRange {
        character: usize,
        slot: u32,
        args: u32,
    },
    #[error(
        "character {character}: per-level draws from word {slot} ({levels} levels) or lists \
         of {len} from word {word} do not lie within the {args} draw arguments and the \
         {list_words} words of the instance lists, or more characters share the batch than \
         its lists hold"
    )]
    LevelListOutOfRange {
        character: usize,
        slot: u32,
        levels: u32,
        word: u32,
        len: u32,
        args: u32,
        list_words: u32,
    },
    #[error(
        "the frame chooses among {frame} mesh levels, but the per-level draws have arguments \
         for {drawn}"
    )]
    MoreLevelsThanDraws { frame: u32, drawn: u32 },
    #[error(
        "character {character}: a run of {len} arguments from word {word}, counted in word \
         {count_word}, does not lie within the {args} draw arguments and the {counts} count \
         words after them"
    )]
    RunOutOfRange {
        character: usize,
        word: u32,
        len: u32,
        count_word: u32,
        args: u32,
        counts: u32,
    },
}

/// Words of one indexed indirect draw argument (index count, instance count, first index,
/// base vertex, first instance).
const ARG_WORDS: u32 = (std::mem::size_of::<wgpu::util::DrawIndexedIndirectArgs>() / 4) as u32;

/// Draw arguments the LOD pass may write into: the buffer, how many arguments it holds,
/// how many indices each index buffer the arguments are drawn from has, and the words
/// after the arguments that count the compacted runs. Made only by the arguments' owner
/// ([`crate::gpu::renderer::CrowdRenderer::lod_draw_target`]), from the buffers themselves.
#[derive(Clone, Copy)]
pub struct DrawArgsTarget<'a> {
    buffer: &'a wgpu::Buffer,
    args: u32,
    indices: u32,
    counts_at: u32,
    count_words: u32,
    lists: Option<LevelListsTarget>,
}

/// Per-level draws' instance lists, words of the arguments' buffer after the arguments:
/// the buffer's words, and the levels each batch has an argument and a list for.
#[derive(Clone, Copy)]
struct LevelListsTarget {
    words: u32,
    levels: u32,
    /// The lists are the skinned pool's: written after the skinning pass ([`CULL_POOLED`]).
    pooled: bool,
}

impl<'a> DrawArgsTarget<'a> {
    /// `args` arguments at the start of `buffer` (no more than the buffer holds), drawn
    /// from `index_buffers` (32-bit indices), then up to `count_words` words counting the
    /// runs (no more than the buffer holds after the arguments).
    pub(crate) fn new(
        buffer: &'a wgpu::Buffer,
        args: usize,
        index_buffers: &[&wgpu::Buffer],
        count_words: usize,
    ) -> Self {
        let fits = buffer.size() / (u64::from(ARG_WORDS) * 4);
        let args = u32::try_from((args as u64).min(fits)).unwrap_or(u32::MAX);
        let indices = index_buffers
            .iter()
            .map(|b| u32::try_from(b.size() / 4).unwrap_or(u32::MAX))
            .min()
            .unwrap_or(0);
        let words = buffer.size() / 4;
        let counts_at = u64::from(args) * u64::from(ARG_WORDS);
        let count_words = (count_words as u64).min(words.saturating_sub(counts_at));
        DrawArgsTarget {
            buffer,
            args,
            indices,
            counts_at: u32::try_from(counts_at).unwrap_or(u32::MAX),
            count_words: u32::try_from(count_words).unwrap_or(0),
            lists: None,
        }
    }

    /// The same arguments drawn per level: each batch has `levels` consecutive arguments
    /// (finest first) whose instance counts the pass raises, and a list per level, after
    /// the arguments in the same buffer, of the characters it drew there.
    /// `pooled`: the draws read the skinned pool, so the lists are written once the
    /// skinning pass has given out its room ([`CULL_POOLED`]).
    pub(crate) fn with_level_lists(mut self, levels: usize, pooled: bool) -> Self {
        self.lists = Some(LevelListsTarget {
            words: u32::try_from(self.buffer.size() / 4).unwrap_or(u32::MAX),
            levels: u32::try_from(levels).unwrap_or(u32::MAX),
            pooled,
        });
        self
    }

    /// Whether the arguments are drawn per level (with instance lists).
    pub fn per_level(&self) -> bool {
        self.lists.is_some()
    }
    /// Arguments the buffer holds.
    pub fn args(&self) -> u32 {
        self.args
    }

    /// The words after the arguments that count the runs: the first, and how many.
    pub fn count_words(&self) -> (u32, u32) {
        (self.counts_at, self.count_words)
    }

    /// Indices of the smallest index buffer the arguments are drawn from.
    pub fn indices(&self) -> u32 {
        self.indices
    }

    /// Whether `slot` is the instance-count word of one of the arguments (the pass also
    /// writes the words either side of it: the index count and the first index).
    fn holds_instance_count(&self, slot: u32) -> bool {
        slot % ARG_WORDS == 1 && slot / ARG_WORDS < self.args
    }

    /// Whether `slot`'s run (where it has one) is whole arguments within the arguments,
    /// counted by one of the count words: the pass appends at most `batch_len` arguments
    /// to it, whatever the count reaches.
    fn holds_run(&self, slot: &DrawSlot) -> bool {
        slot.batch_len == 0
            || (slot.compact_word.is_multiple_of(ARG_WORDS)
                && u64::from(slot.compact_word / ARG_WORDS) + u64::from(slot.batch_len)
                    <= u64::from(self.args)
                && slot.run_count_word >= self.counts_at
                && slot.run_count_word - self.counts_at < self.count_words)
    }

    /// Whether `slot`, a per-level slot, names `levels` arguments' instance counts and
    /// `levels` lists of `batch_len` words that lie after the arguments (the lists are
    /// never drawn from as arguments) and within the buffer.
    fn holds_level_lists(&self, slot: &DrawSlot, lists: &LevelListsTarget) -> bool {
        let levels = u64::from(lists.levels);
        // The shadow list, where there is one, lies before the level lists.
        let shadow = u64::from(slot.run_count_word != 0) * u64::from(slot.batch_len);
        (slot.run_count_word == 0 || self.holds_instance_count(slot.run_count_word))
            && u64::from(slot.compact_word) >= u64::from(self.args) * u64::from(ARG_WORDS) + shadow
            && self.holds_instance_count(slot.count_word)
            && u64::from(slot.count_word / ARG_WORDS) + levels <= u64::from(self.args)
            && u64::from(slot.compact_word) >= u64::from(self.args) * u64::from(ARG_WORDS)
            && u64::from(slot.compact_word) + levels * u64::from(slot.batch_len)
                <= u64::from(lists.words)
    }

    /// Checks every level range of `frame` (all eight entries: the pass clamps a level to
    /// the table, not to `mesh_levels`).
    fn check_levels(&self, frame: &LodFrame) -> Result<(), DrawArgsError> {
        for level in 0..8 {
            let first = frame.mesh_first_index[level / 4][level % 4];
            let count = frame.mesh_index_count[level / 4][level % 4];
            if first
                .checked_add(count)
                .is_none_or(|end| end > self.indices)
            {
                return Err(DrawArgsError::LevelOutOfRange {
                    level,
                    first,
                    count,
                    indices: self.indices,
                });
            }
        }
        Ok(())
    }
}

/// What the bind group was made for.
#[derive(Clone, PartialEq)]
struct BoundFor {
    records: wgpu::Buffer,
    draw_args: wgpu::Buffer,
    motions: wgpu::Buffer,
    state: wgpu::Buffer,
}

/// What slots were checked against: the arguments' buffer and count, and with per-level
/// draws the lists' buffer and the levels.
#[derive(Clone, PartialEq)]
struct CheckedFor {
    draw_args: wgpu::Buffer,
    args: u32,
    lists: Option<u32>,
}

impl CheckedFor {
    fn of(target: &DrawArgsTarget) -> Self {
        CheckedFor {
            draw_args: target.buffer.clone(),
            args: target.args,
            lists: target.lists.map(|l| l.levels),
        }
    }
}

/// A frame's pass, prepared by [`GpuLod::prepare`] and handed to [`GpuLod::record`] (and
/// [`GpuLod::record_pool_lists`]): how many characters it decides for, and the run
/// counts to clear first (the draw arguments' buffer, byte offset and length) where it
/// culls.
#[derive(Debug)]
pub struct PreparedLod {
    characters: u32,
    clear_counts: Option<(wgpu::Buffer, u64, u64)>,
    /// The frame's lists are the skinned pool's ([`CULL_POOLED`]).
    pooled: bool,
    /// The pass writes the draws this frame (the runs are then what to draw).
    writes_draws: bool,
}

impl PreparedLod {
    /// Whether the pass writes the draws this frame (the runs are then what to draw).
    pub fn writes_draws(&self) -> bool {
        self.writes_draws
    }
}

/// The LOD pass of one crowd (see the module docs).
pub struct GpuLod {
    pipeline: wgpu::ComputePipeline,
    /// `cs_pool_lists` ([`Self::record_pool_lists`]).
    lists_pipeline: wgpu::ComputePipeline,
    bind_layout: wgpu::BindGroupLayout,
    frame_params: wgpu::Buffer,
    motions: wgpu::Buffer,
    state: wgpu::Buffer,
    /// Characters the state holds room for (their draw slots follow their states).
    capacity: usize,
    slots_written: Vec<DrawSlot>,
    /// The arguments' buffer and count (and the lists' buffer and levels) the written
    /// slots were checked against.
    slots_checked_for: Option<CheckedFor>,
    has_motions: bool,
    /// The parameters of the last recorded frame (the CPU twins run the same frame).
    last_frame: Option<LodFrame>,
    frame: u32,
    /// The next frame computes everyone (first frame, or the GPU's poses were made anew).
    full: bool,
    bound: Option<(BoundFor, wgpu::BindGroup)>,
    stats_back: readback::LateWords,
    /// The counts of the latest frame that came back.
    stats: LodStats,
    /// Bytes written for the last frame (parameters, motions, draw slots).
    written_bytes: u64,
}

impl GpuLod {
    /// The parameters of the last recorded frame (the CPU twins run the same frame).
    /// Whether the last prepared frame was a full one (every character recomputed and
    /// posed whole).
    pub fn last_frame_full(&self) -> bool {
        self.last_frame.is_some_and(|f| f.full != 0)
    }

    pub fn last_frame(&self) -> Option<LodFrame> {
        self.last_frame
    }

    /// The counts of the latest frame that came back.
    pub fn stats(&self) -> LodStats {
        self.stats
    }

    /// Bytes written since [`Self::reset_written_bytes`] (parameters, motions, draw slots).
    pub fn written_bytes(&self) -> u64 {
        self.written_bytes
    }

    /// Starts counting a frame's written bytes.
    pub fn reset_written_bytes(&mut self) {
        self.written_bytes = 0;
    }

    pub fn new(device: &wgpu::Device) -> Self {
        let shader = super::super::shaders::create(device, super::super::shaders::Shader::Lod);
        let (bind_layout, layout) = super::super::compute::compute_layouts(
            device,
            "animate: lod",
            std::mem::size_of::<LodFrame>() as u64,
            false,
            &[true, false, false, false],
        );
        let pipeline =
            |entry: &str| crate::gpu::compute::compute_pipeline(device, &layout, &shader, entry);
        GpuLod {
            pipeline: pipeline("cs_lod"),
            lists_pipeline: pipeline("cs_pool_lists"),
            bind_layout,
            frame_params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("animate: lod frame"),
                size: std::mem::size_of::<LodFrame>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            motions: Self::motions_buffer(device, 16),
            state: Self::state_buffer(device, 0),
            capacity: 0,
            slots_written: Vec::new(),
            slots_checked_for: None,
            has_motions: false,
            last_frame: None,
            frame: 0,
            full: true,
            bound: None,
            stats_back: readback::LateWords::new(
                device,
                "animate: lod counts read-back",
                STATS_BYTES,
            ),
            stats: LodStats::default(),
            written_bytes: 0,
        }
    }

    fn motions_buffer(device: &wgpu::Device, words: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("animate: lod motions"),
            size: (words.max(16) * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn state_buffer(device: &wgpu::Device, characters: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("animate: lod state and draw slots"),
            size: STATS_BYTES + (characters.max(1) * (STATE_BYTES + SLOT_BYTES)) as u64,
            // COPY_SRC: the counts and the CPU twins read it back.
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    }

    /// Bytes of GPU memory the pass holds: motions, states and draw slots.
    pub fn gpu_bytes(&self) -> u64 {
        self.motions.size() + self.state.size()
    }

    /// Whether motions were uploaded.
    pub fn has_motions(&self) -> bool {
        self.has_motions
    }

    /// The next frame computes every character (what the GPU held for them is gone).
    pub fn invalidate(&mut self) {
        self.full = true;
    }

    /// Uploads the motions (a new set: [`crate::crowd::lod::per_character::MotionSet`]).
    pub fn set_motions(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, words: &[u32]) {
        if (self.motions.size() as usize) < words.len() * 4 {
            self.motions = Self::motions_buffer(device, words.len().next_power_of_two());
        }
        queue.write_buffer(&self.motions, 0, bytemuck::cast_slice(words));
        self.has_motions = !words.is_empty();
        self.written_bytes += (words.len() * 4) as u64;
    }

    /// Room for `characters` states; new room starts from a full frame.
    fn ensure_capacity(&mut self, device: &wgpu::Device, characters: usize) {
        if characters <= self.capacity {
            return;
        }
        self.capacity = characters + characters / 4;
        self.state = Self::state_buffer(device, self.capacity);
        self.slots_written.clear();
        self.slots_checked_for = None;
        self.full = true;
    }

    /// Where each character's draw goes ([`DrawSlot`]): its argument's instance count as
    /// a word of `target`'s buffer ([`NO_SLOT`]: not drawn by this pass's decision) and
    /// the run its batch's visible characters are appended to; written when they changed.
    /// A slot that is not an argument's instance count, or a run outside the arguments or
    /// the counts, is refused, and the pass then culls nothing until good slots are
    /// written.
    pub fn write_slots(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slots: &[DrawSlot],
        target: &DrawArgsTarget,
    ) -> Result<(), DrawArgsError> {
        self.ensure_capacity(device, slots.len());
        let checked_for = CheckedFor::of(target);
        if self.slots_written == slots && self.slots_checked_for.as_ref() == Some(&checked_for) {
            return Ok(());
        }
        self.slots_written.clear();
        self.slots_checked_for = None;
        if let Some(lists) = &target.lists {
            // Per batch (its level-0 argument), the characters listed in it.
            let mut listed = vec![0u32; target.args as usize];
            for (character, slot) in slots.iter().enumerate() {
                if slot.count_word == NO_SLOT {
                    continue;
                }
                let refused = DrawArgsError::LevelListOutOfRange {
                    character,
                    slot: slot.count_word,
                    levels: lists.levels,
                    word: slot.compact_word,
                    len: slot.batch_len,
                    args: target.args,
                    list_words: lists.words,
                };
                if !target.holds_level_lists(slot, lists) {
                    return Err(refused);
                }
                // The level arguments and the shadow argument each count at most their
                // batch's characters.
                for word in [slot.count_word, slot.run_count_word] {
                    if word == 0 {
                        continue;
                    }
                    let count = &mut listed[(word / ARG_WORDS) as usize];
                    *count += 1;
                    if *count > slot.batch_len {
                        return Err(refused);
                    }
                }
            }
        }
        for (character, slot) in slots.iter().enumerate() {
            if slot.count_word == NO_SLOT || target.lists.is_some() {
                continue;
            }
            if !target.holds_instance_count(slot.count_word) {
                return Err(DrawArgsError::SlotOutOfRange {
                    character,
                    slot: slot.count_word,
                    args: target.args,
                });
            }
            if !target.holds_run(slot) {
                return Err(DrawArgsError::RunOutOfRange {
                    character,
                    word: slot.compact_word,
                    len: slot.batch_len,
                    count_word: slot.run_count_word,
                    args: target.args,
                    counts: target.count_words,
                });
            }
        }
        self.slots_written.extend_from_slice(slots);
        self.slots_checked_for = Some(checked_for);
        if !slots.is_empty() {
            queue.write_buffer(
                &self.state,
                self.slots_offset_bytes(),
                bytemuck::cast_slice(slots),
            );
            self.written_bytes += (slots.len() * SLOT_BYTES) as u64;
        }
        Ok(())
    }

    /// Whether slots for `characters` are written (a new or regrown state has none).
    pub fn has_slots_for(&self, characters: usize) -> bool {
        self.slots_written.len() == characters
    }

    fn slots_offset_bytes(&self) -> u64 {
        STATS_BYTES + (self.capacity * STATE_BYTES) as u64
    }

    /// Prepares the pass for `frame.characters` characters of `records` (the animation's
    /// records), writing instance counts (and, with mesh levels, index ranges) into
    /// `target` where `frame.cull` says and the slots were checked against this target,
    /// and appending each visible character's argument to its batch's run where its slot
    /// has one (the runs' counts start from zero each frame). Fills in the frame number,
    /// whether it is a full frame and where the draw slots are. Refuses a frame whose
    /// level ranges lie past the target's index buffers. Returns the frame
    /// [`Self::record`] records.
    pub fn prepare(
        &mut self,
        gpu: &GpuContext,
        mut frame: LodFrame,
        records: &wgpu::Buffer,
        target: &DrawArgsTarget,
    ) -> Result<PreparedLod, DrawArgsError> {
        target.check_levels(&frame)?;
        let (device, queue) = (&gpu.device, &gpu.queue);
        let characters = frame.characters as usize;
        self.ensure_capacity(device, characters);
        frame.frame = self.frame;
        frame.full = self.full as u32;
        frame.slots_at = (self.capacity * STATE_BYTES / 4) as u32;
        let slots_fit = self.slots_written.len() >= characters
            && self.slots_checked_for.as_ref() == Some(&CheckedFor::of(target));
        if !slots_fit {
            frame.cull = 0;
        }
        if let Some(lists) = &target.lists
            && frame.cull != 0
        {
            // The pass lists a character at a level below `mesh_levels`: each must have
            // its argument and list.
            if frame.mesh_levels.max(1) > lists.levels {
                return Err(DrawArgsError::MoreLevelsThanDraws {
                    frame: frame.mesh_levels,
                    drawn: lists.levels,
                });
            }
            frame.cull = if lists.pooled {
                CULL_POOLED
            } else {
                CULL_PER_LEVEL
            };
        }
        let draw_args = target.buffer;
        self.last_frame = Some(frame);
        self.frame = self.frame.wrapping_add(1);
        self.full = false;
        queue.write_buffer(&self.frame_params, 0, bytemuck::bytes_of(&frame));
        self.written_bytes += std::mem::size_of::<LodFrame>() as u64;
        let wanted = BoundFor {
            records: records.clone(),
            draw_args: draw_args.clone(),
            motions: self.motions.clone(),
            state: self.state.clone(),
        };
        if self.bound.as_ref().is_none_or(|(b, _)| *b != wanted) {
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("animate: lod"),
                layout: &self.bind_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.frame_params.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: self.motions.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: records.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: self.state.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: draw_args.as_entire_binding(),
                    },
                ],
            });
            self.bound = Some((wanted, group));
        }
        let clear_counts = (frame.cull != 0 && target.count_words > 0).then(|| {
            (
                draw_args.clone(),
                u64::from(target.counts_at) * 4,
                u64::from(target.count_words) * 4,
            )
        });
        Ok(PreparedLod {
            characters: frame.characters,
            clear_counts,
            pooled: frame.cull == CULL_POOLED,
            writes_draws: frame.cull != 0,
        })
    }

    /// Records the pass `prepared` describes (what [`Self::prepare`] returned), timed, and
    /// copies its counts out for the panel where the last copy came back.
    pub fn record(&mut self, ctx: &mut PassContext<'_>, prepared: &PreparedLod) {
        let Some((_, group)) = &self.bound else {
            return;
        };
        ctx.encoder.clear_buffer(&self.state, 0, Some(STATS_BYTES));
        if let Some((draw_args, at, bytes)) = &prepared.clear_counts {
            ctx.encoder.clear_buffer(draw_args, *at, Some(*bytes));
        }
        ctx.compute(&PASS, |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, group, &[]);
            let (x, y) = workgroups(prepared.characters);
            if x > 0 {
                pass.dispatch_workgroups(x, y, 1);
            }
        });
        self.stats_back.copy(ctx.encoder, &self.state, 0);
    }

    /// Where the frame `prepared` describes draws from the skinned pool's lists: records
    /// the pass that lists each character at the level the skinning pass held it at
    /// (after that pass, before the draws).
    pub fn record_pool_lists(&self, ctx: &mut PassContext<'_>, prepared: &PreparedLod) {
        let Some((_, group)) = &self.bound else {
            return;
        };
        if !prepared.pooled {
            return;
        }
        let characters = prepared.characters;
        ctx.compute(&POOL_LISTS_PASS, |pass| {
            pass.set_pipeline(&self.lists_pipeline);
            pass.set_bind_group(0, group, &[]);
            let (x, y) = workgroups(characters);
            if x > 0 {
                pass.dispatch_workgroups(x, y, 1);
            }
        });
    }

    /// After the frame was submitted: asks for its counts, and takes those of an earlier
    /// frame that came back (never waits for the GPU).
    pub fn after_submit(&mut self, device: &wgpu::Device) {
        if let Some(words) = self.stats_back.after_submit(device) {
            self.stats = stats_from_words(&words);
        }
    }

    /// The states of the first `characters` characters as the last recorded frame left
    /// them, read back (blocks until the GPU is done): the CPU twins' and verify's input.
    pub fn read_back_states(
        &self,
        gpu: &GpuContext,
        characters: usize,
    ) -> Result<Vec<CharacterLod>, ReadbackError> {
        let bytes = readback::read_buffer_at(
            gpu,
            &self.state,
            STATS_BYTES,
            (characters.min(self.capacity) * STATE_BYTES) as u64,
        )?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    /// The counts of the last recorded frame, read back (blocks until the GPU is done).
    pub fn read_back_stats(&self, gpu: &GpuContext) -> Result<LodStats, ReadbackError> {
        let bytes = readback::read_buffer_at(gpu, &self.state, 0, STATS_BYTES)?;
        Ok(stats_from_words(&bytemuck::pod_collect_to_vec::<u8, u32>(
            &bytes,
        )))
    }
}
