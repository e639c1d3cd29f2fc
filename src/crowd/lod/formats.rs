//! What the LOD pass on the GPU (`shaders/lod.wgsl`) reads and writes, each one Rust type
//! that the CPU twin ([`super::per_character`]) reads by name as the shader does.
//!
//! How it works: the frame's parameters ([`LodFrame`]) are a uniform; each character's
//! state ([`CharacterLod`]) is four words of the state buffer after the counts; the motions
//! are one array of words: a [`MotionSetHeader`], the lookup (per clip, or per clip and
//! blend clip, the word where that motion's [`MotionHeader`] starts, or [`NO_MOTION`]),
//! then each motion's header and its tables (times, distance travelled up to each step,
//! each step's speed, the grid). Every struct is declared with [`crate::gpu_struct!`], so
//! `tests/contracts.rs` checks it against its WGSL declaration member by member; the flags
//! and counters below reach the shader as generated constants (`gpu::shaders`).

use crate::gpu_struct;

gpu_struct! {
    /// A character's LOD state on the GPU.
    #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct CharacterLod in "CharacterLod" {
        /// The clip time its pose on the GPU was computed at.
        pub shown_secs: f32,
        /// The clips of that pose (clip | blend clip << 16).
        pub shown_clips: u32,
        /// The frame it is next due.
        pub next_due: u32,
        pub flags: u32,
    }
}

impl CharacterLod {
    /// The period the character was last given, frames.
    pub fn period(&self) -> u32 {
        (self.flags & PERIOD_MASK) >> PERIOD_SHIFT
    }

    /// The level of the mesh's chain it is drawn with.
    pub fn mesh_level(&self) -> u32 {
        (self.flags & MESH_LEVEL_MASK) >> MESH_LEVEL_SHIFT
    }

    /// The level whose vertices `gpu_compute` keeps skinned for it: its own level, or a
    /// finer one where another pass (the shadows) draws it finer.
    pub fn skin_level(&self) -> u32 {
        (self.flags & SKIN_LEVEL_MASK) >> SKIN_LEVEL_SHIFT
    }

    /// The level of the mesh's chain whose joint set its pose holds
    /// ([`POSED_LEVEL_SHIFT`]).
    pub fn posed_level(&self) -> u32 {
        (self.flags & POSED_LEVEL_MASK) >> POSED_LEVEL_SHIFT
    }

    /// Whether `gpu_compute` skins it this frame: recomputed, or kept but now at a finer
    /// level whose vertices were not skinned.
    pub fn skinned(&self) -> bool {
        self.flags & (DUE | RESKIN) != 0 && self.skin_level() != UNSKINNED_LEVEL
    }

    /// The record's `due` word the pass writes for this state (`crowd::animate::Record`):
    /// [`RECORD_ANIMATE`] where the animation passes recompute the character,
    /// [`RECORD_SKIN`] where the skinning pass skins it, and its skin level.
    pub fn record_due_word(&self) -> u32 {
        (if self.flags & DUE != 0 {
            RECORD_ANIMATE
        } else {
            0
        }) | (if self.skinned() { RECORD_SKIN } else { 0 })
            | (self.skin_level() << RECORD_SKIN_LEVEL_SHIFT)
            | (self.posed_level() << RECORD_POSED_LEVEL_SHIFT)
    }
}

/// Bits of [`CharacterLod::flags`].
pub const VISIBLE: u32 = 1;
pub const DUE: u32 = 2;
pub const FORCED: u32 = 4;
pub const UNBOUNDED: u32 = 8;
pub const UNCHANGED: u32 = 16;
/// The period the character was last given, frames, from this bit on.
pub const PERIOD_SHIFT: u32 = 8;
pub const PERIOD_MASK: u32 = 0xff << PERIOD_SHIFT;
/// The level of the mesh's LOD chain the character is drawn with, from this bit on.
pub const MESH_LEVEL_SHIFT: u32 = 16;
pub const MESH_LEVEL_MASK: u32 = 0xf << MESH_LEVEL_SHIFT;
/// Its skin level became finer this frame: skinned again even where kept (with its kept
/// pose), since the vertices that level adds were not skinned while it was coarser.
pub const RESKIN: u32 = 32;
/// The level whose vertices are skinned for it, from this bit on: its mesh level, capped
/// at the level the shadow pass draws every character with.
pub const SKIN_LEVEL_SHIFT: u32 = 20;
pub const SKIN_LEVEL_MASK: u32 = 0xf << SKIN_LEVEL_SHIFT;
/// The skin level of a character nothing draws: out of view, with no shadow that can
/// reach the view. It is not skinned, and skinned again (`RESKIN`) when it takes a level.
pub const UNSKINNED_LEVEL: u32 = SKIN_LEVEL_MASK >> SKIN_LEVEL_SHIFT;
/// The level of the mesh's chain whose joint set the character's pose holds, from this bit
/// on: the animation passes compute a character's joints for its skin level only (the
/// coarsest level where nothing draws it; every joint in a full frame, whose draws may
/// be at full detail), so a skin level finer than this makes it due.
pub const POSED_LEVEL_SHIFT: u32 = 24;
pub const POSED_LEVEL_MASK: u32 = 0xf << POSED_LEVEL_SHIFT;

/// Bits of the record's `due` word (`crowd::animate::Record::due`), written by the pass
/// from the state ([`CharacterLod::record_due_word`]): the animation passes recompute
/// the character, the skinning pass skins it, and from bit 8 the level it skins.
pub const RECORD_ANIMATE: u32 = 1;
pub const RECORD_SKIN: u32 = 2;
pub const RECORD_SKIN_LEVEL_SHIFT: u32 = 8;
/// The record's `due` word from this bit, four bits: the level whose joints the animation
/// passes pose ([`POSED_LEVEL_SHIFT`]).
pub const RECORD_POSED_LEVEL_SHIFT: u32 = 4;

/// A draw slot of a character the pass does not cull (drawn directly).
pub const NO_SLOT: u32 = u32::MAX;

/// [`LodFrame::cull`] for per-level draws: the pass appends each character in view to
/// its batch's list at its level and counts it in that level's argument.
pub const CULL_PER_LEVEL: u32 = 2;
/// [`LodFrame::cull`] for per-level draws of a skinned pool: the pass lists no one; once
/// the pool has given out its room, the lists pass (`cs_pool_lists`) lists each character
/// in view at the level its vertices were skinned at, which is coarser than the level the
/// pass chose where the pool demoted it, and a character the pool left out nowhere.
pub const CULL_POOLED: u32 = 3;

gpu_struct! {
    /// Where the pass writes one character's draw (four words of the state buffer after
    /// the characters' states): the instance count of its own argument, and, where the
    /// draws read a count the GPU writes, the run of arguments its batch's visible
    /// characters are appended to.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct DrawSlot in "DrawSlot" {
        /// The word of its argument's instance count ([`NO_SLOT`]: not culled by the pass).
        pub count_word: u32,
        /// The first word of its batch's compacted arguments.
        pub compact_word: u32,
        /// The word (of the same buffer) counting the arguments appended to its batch's
        /// run: what the batch's draw reads as its count.
        pub run_count_word: u32,
        /// Arguments the batch's run holds (0: no compaction, the instance count alone).
        pub batch_len: u32,
    }
}

impl DrawSlot {
    /// A character the pass culls through its own argument's instance count alone.
    pub fn count_only(count_word: u32) -> Self {
        DrawSlot {
            count_word,
            ..Default::default()
        }
    }

    /// A character drawn per level ([`CULL_PER_LEVEL`]): `count_word` is the instance
    /// count of its batch's level-0 argument (level `l`'s lies `5 l` words on),
    /// `list_word` the first word of its batch's level-0 list of instances (level `l`'s
    /// lies `l batch_len` words on), `batch_len` the characters of its batch;
    /// `shadow_count_word` the instance count of its batch's shadow argument, whose list
    /// lies `batch_len` words before the level-0 list (0: no shadow list).
    pub fn listed(count_word: u32, list_word: u32, batch_len: u32, shadow_count_word: u32) -> Self {
        DrawSlot {
            count_word,
            compact_word: list_word,
            run_count_word: shadow_count_word,
            batch_len,
        }
    }

    /// A character the pass does not cull.
    pub const NONE: DrawSlot = DrawSlot {
        count_word: NO_SLOT,
        compact_word: 0,
        run_count_word: 0,
        batch_len: 0,
    };
}

/// Where each count is in the counts block at the start of the state buffer (the panel's
/// numbers): characters in view at period 1, 2, 4 and 8, then the other counts.
pub const STAT_AT_PERIOD: u32 = 0;
pub const STAT_CULLED: u32 = 4;
pub const STAT_UPDATED: u32 = 5;
pub const STAT_FORCED: u32 = 6;
pub const STAT_UNBOUNDED: u32 = 7;
pub const STAT_UNCHANGED: u32 = 8;
/// Characters in view at each level of the mesh's chain (up to
/// [`crate::prepare::mesh_lod::MAX_MESH_LEVELS`]).
pub const STAT_AT_MESH_LEVEL: u32 = 9;
/// Characters skinned this frame at each skin level (`gpu_compute`'s work).
pub const STAT_SKINNED_AT_LEVEL: u32 =
    STAT_AT_MESH_LEVEL + crate::prepare::mesh_lod::MAX_MESH_LEVELS as u32;
/// Counts the pass keeps.
pub const STAT_COUNT: u32 =
    STAT_SKINNED_AT_LEVEL + crate::prepare::mesh_lod::MAX_MESH_LEVELS as u32;
/// Words of the counts block (the counts, then unused words to a 128-byte block).
pub const STATS_WORDS: usize = 32;
const _: () = assert!(STAT_COUNT as usize <= STATS_WORDS);

gpu_struct! {
    /// The frame's parameters of the LOD pass: 256 bytes.
    #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct LodFrame in "LodFrame" {
        /// The view frustum's planes (inside: `dot(plane, (p, 1)) >= 0`).
        pub planes: [[f32; 4]; 6],
        /// Rows of view ← world and world ← model (a character at the origin).
        pub view_rows: [[f32; 4]; 3],
        pub world_rows: [[f32; 4]; 3],
        pub focal_px: f32,
        /// The tangents of half the field of view, across and up.
        pub tan_x: f32,
        pub tan_y: f32,
        pub near: f32,
        /// The largest scale of world ← model.
        pub scale: f32,
        pub threshold_px: f32,
        pub clock_secs: f32,
        /// Clip-seconds one frame advances a character of speed 1.
        pub frame_clip_secs: f32,
        pub frame: u32,
        pub max_period: u32,
        /// 1: compute everyone and spread the periods (see `per_character`).
        pub full: u32,
        pub characters: u32,
        /// 1: write each character's draw argument (instance count 1 in view, 0 culled);
        /// [`CULL_PER_LEVEL`]: list each character in view at its level of its batch;
        /// [`CULL_POOLED`]: list them later, at the level the skinned pool gave them.
        pub cull: u32,
        /// Where the draw slots ([`DrawSlot`]) start in the state's words (after the
        /// characters' states).
        pub slots_at: u32,
        /// Levels of the mesh's chain to choose from (1: geometric LOD off).
        pub mesh_levels: u32,
        /// The coarsest level whose vertices are skinned for a character: the level the
        /// shadow pass draws every character with (its vertices must be there too), or
        /// the last level without shadows.
        pub skin_level_cap: u32,
        /// Per level (four a vector): its error in model units, and its first index and
        /// index count, which the pass writes into a drawn character's argument.
        pub mesh_errors: [[f32; 4]; 2],
        pub mesh_first_index: [[u32; 4]; 2],
        pub mesh_index_count: [[u32; 4]; 2],
        /// The direction the sun's light travels (world), and 1 where the shadow pass
        /// draws (0: no shadows, so no character out of view needs vertices).
        pub shadow_dir: [f32; 4],
    }
}

const _: () = assert!(std::mem::size_of::<LodFrame>() == 368);
const _: () = assert!(crate::prepare::mesh_lod::MAX_MESH_LEVELS <= 8);

impl LodFrame {
    /// Level `level`'s error (model units).
    pub fn mesh_error(&self, level: u32) -> f32 {
        self.mesh_errors[level as usize / 4][level as usize % 4]
    }

    /// Geometric LOD over levels whose (first index, index count) are `ranges` and errors
    /// `errors` (at most [`crate::prepare::mesh_lod::MAX_MESH_LEVELS`]); without levels,
    /// off.
    pub fn set_mesh_levels(&mut self, ranges: &[(u32, u32)], errors: &[f32]) {
        let n = ranges.len().min(errors.len()).min(8);
        self.mesh_levels = n.max(1) as u32;
        for l in 0..8 {
            let (first, count) = ranges.get(l).copied().unwrap_or((0, 0));
            self.mesh_errors[l / 4][l % 4] =
                errors.get(l).copied().filter(|_| l < n).unwrap_or(0.0);
            self.mesh_first_index[l / 4][l % 4] = first;
            self.mesh_index_count[l / 4][l % 4] = count;
        }
    }
}

gpu_struct! {
    /// The first words of the motions.
    #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct MotionSetHeader in "MotionSetHeader" {
        /// Clips of the rig.
        pub clip_count: u32,
        /// 1: looked up by clip and blend clip; 0: by clip.
        pub blend: u32,
        /// The word where the lookup starts.
        pub lookup_at: u32,
        /// Motions in the set.
        pub motions: u32,
    }
}

gpu_struct! {
    /// One motion's header (a clip, or a cross-fade of two, measured).
    #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct MotionHeader in "MotionHeader" {
        /// A [`MotionKind`].
        pub kind: u32,
        /// Steps of its tables (times hold one more).
        pub steps: u32,
        /// The sphere around every pose, model space.
        pub center_x: f32,
        pub center_y: f32,
        pub center_z: f32,
        pub radius: f32,
        pub duration_secs: f32,
        pub per_duration: f32,
        /// Grid cells per clip-second.
        pub grid_per_sec: f32,
        /// What a partial step adds to its speed × time bound.
        pub partial_slack: f32,
        /// The distance of one whole loop.
        pub whole_loop: f32,
        pub grid_cells: u32,
        /// Where each table starts, as words of the motions.
        pub times_at: u32,
        pub travelled_at: u32,
        pub speeds_at: u32,
        pub grid_at: u32,
    }
}

/// A motion's kind ([`MotionHeader::kind`]).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MotionKind {
    Still = 0,
    Unbounded = 1,
    Table = 2,
    /// A sphere and no table: placed, recomputed every frame in view.
    Reach = 3,
}

/// A lookup entry of a motion not measured (recomputed every frame, never culled).
pub const NO_MOTION: u32 = u32::MAX;

/// Bytes of GPU memory LOD takes per character: its state and its draw slot.
pub const GPU_BYTES: u64 = (std::mem::size_of::<CharacterLod>() + 4) as u64;
