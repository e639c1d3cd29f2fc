//! Update-rate LOD per character, as the GPU runs it while it animates the crowd
//! (`--animate gpu --lod on`), and its CPU twin.
//!
//! How it works: the same bound as the CPU's plan (each clip's measured motion,
//! [`ClipMotion`]), without the groups of eight: the GPU's passes run one character at a
//! time, so each character has its own period and its own frame due ([`CharacterLod`], 16
//! bytes on the GPU). Each frame the LOD pass (`shaders/lod.wgsl`) does for every character
//! what [`decide`] does here, in the same f32 arithmetic:
//!
//! 1. its clip time now, from its record (as the sampling pass computes it);
//! 2. its motion's sphere placed in the world: outside the view frustum it is culled (not
//!    drawn, recomputed every `max_period` frames); inside, its pixels per model unit at
//!    the sphere's nearest depth;
//! 3. due when its period has passed, or (forced) when its clip changed or its shown pose
//!    is already more than the threshold from now (the camera came closer, a frame took
//!    longer, a time was set); a due character whose clip and time are what it shows is
//!    not recomputed (paused, speed 0);
//! 4. a due character gets the longest period (1, 2, 4, 8 up to the cap) whose next frames
//!    stay under the threshold, and shows its pose of now from then on. A full frame (the
//!    first, or after the buffers were made again) computes everyone and spreads each
//!    period's characters over its frames by index, so later frames update about as many.
//!
//! The motions are the CPU's tables rounded to f32 ([`MotionSet::words`]); a cross-fade of
//! loops of different lengths, or a clip the set has not measured, has no bound: such a
//! character is recomputed every frame and never culled. The tests run the GPU's pass and
//! [`decide`] on the same records and compare each character's decision.

use std::collections::HashMap;

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4Swizzles};

use super::motion::ClipMotion;
use super::{LodSettings, LodStats, LodView, PERIODS};
use crate::crowd::animate::time_at;
use crate::crowd::instances::Instance;
use crate::prepare::PreparedRig;
use crate::skin::SkinMethod;

/// Words of a motion's header in [`MotionSet::words`].
pub const MOTION_HEADER_WORDS: usize = 16;
/// Words before the lookup table: clip count, blend (1: looked up by clip and blend clip),
/// the lookup's first word, the number of motions.
pub const SET_HEADER_WORDS: usize = 4;
/// A lookup entry of a motion not measured (recomputed every frame, never culled).
pub const NO_MOTION: u32 = u32::MAX;

/// A motion's kind, the first word of its header.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MotionKind {
    Still = 0,
    Unbounded = 1,
    Table = 2,
}

/// Bytes of GPU memory LOD takes per character: its state and its draw slot.
pub const GPU_BYTES: u64 = (std::mem::size_of::<CharacterLod>() + 4) as u64;

/// Bits of [`CharacterLod::flags`].
pub const VISIBLE: u32 = 1;
pub const DUE: u32 = 2;
pub const FORCED: u32 = 4;
pub const UNBOUNDED: u32 = 8;
pub const UNCHANGED: u32 = 16;
/// The period the character was last given, frames, from this bit on.
pub const PERIOD_SHIFT: u32 = 8;
const PERIOD_MASK: u32 = 0xff << PERIOD_SHIFT;

/// A character's LOD state on the GPU (`CharacterLod` in lod.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CharacterLod {
    /// The clip time its pose on the GPU was computed at.
    pub shown_secs: f32,
    /// The clips of that pose (clip | blend clip << 16).
    pub shown_clips: u32,
    /// The frame it is next due.
    pub next_due: u32,
    pub flags: u32,
}

impl CharacterLod {
    pub fn period(&self) -> u32 {
        (self.flags & PERIOD_MASK) >> PERIOD_SHIFT
    }
}

/// The frame's parameters of the LOD pass (`Frame` in lod.wgsl): 256 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LodFrame {
    /// The view frustum's planes (inside: `dot(plane, (p, 1)) >= 0`).
    pub planes: [[f32; 4]; 6],
    /// Rows of view ← world and world ← model (a character at the origin).
    pub view_rows: [[f32; 4]; 3],
    pub world_rows: [[f32; 4]; 3],
    pub focal_px: f32,
    pub tan_half_fov: [f32; 2],
    pub near: f32,
    /// The largest scale of world ← model.
    pub scale: f32,
    pub threshold_px: f32,
    pub clock_secs: f32,
    /// Clip-seconds one frame advances a character of speed 1.
    pub frame_clip_secs: f32,
    pub frame: u32,
    pub max_period: u32,
    /// 1: compute everyone and spread the periods (see the module docs).
    pub full: u32,
    pub characters: u32,
    /// 1: write each character's draw argument (instance count 1 in view, 0 culled).
    pub cull: u32,
    /// Where the draw slots start in the state's words (after the characters' states).
    pub slots_at: u32,
    pub _pad: [u32; 2],
}

const _: () = assert!(std::mem::size_of::<LodFrame>() == 256);

impl LodFrame {
    /// A frame's parameters; the frame number, whether it is a full frame and where the
    /// draw slots start are the pass's to fill in (`gpu::animate::lod::GpuLod::record`).
    pub fn new(
        view: &LodView,
        world_from_model: Mat4,
        settings: &LodSettings,
        clock_secs: f32,
        frame_clip_secs: f32,
        characters: usize,
        cull: bool,
    ) -> Self {
        let rows = |m: Mat4| {
            let t = m.transpose();
            [
                t.x_axis.to_array(),
                t.y_axis.to_array(),
                t.z_axis.to_array(),
            ]
        };
        let m = world_from_model;
        let scale = m
            .x_axis
            .xyz()
            .length()
            .max(m.y_axis.xyz().length())
            .max(m.z_axis.xyz().length());
        LodFrame {
            planes: view.planes().map(|p| p.to_array()),
            view_rows: rows(view.view_from_world),
            world_rows: rows(world_from_model),
            focal_px: view.focal_px,
            tan_half_fov: view.tan_half_fov.to_array(),
            near: view.near,
            scale,
            threshold_px: settings.threshold_px,
            clock_secs,
            frame_clip_secs,
            frame: 0,
            max_period: settings.max_period as u32,
            full: 0,
            characters: characters as u32,
            cull: cull as u32,
            slots_at: 0,
            _pad: [0; 2],
        }
    }
}

/// A character's record as the LOD pass reads it (the animation's record).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodRecord {
    pub time_secs: f32,
    pub speed: f32,
    pub since_secs: f32,
    pub clips: u32,
    pub ground: [f32; 2],
}

impl LodRecord {
    pub fn new(instance: &Instance, since_secs: f32) -> Self {
        LodRecord {
            time_secs: instance.time_secs,
            speed: instance.speed,
            since_secs,
            clips: u32::from(instance.clip) | (u32::from(instance.blend_clip) << 16),
            ground: instance.ground_position,
        }
    }
}

/// The motions a crowd plays, measured at first use and flattened for the GPU.
#[derive(Default)]
pub struct MotionSet {
    motions: Vec<ClipMotion>,
    /// (clip, blend clip) → motion; the blend clip is the clip itself without blending.
    index: HashMap<(u16, u16), u32>,
    /// The rig, blend weight bits and method the motions were measured for.
    measured_for: Option<(usize, u32, SkinMethod)>,
    words: Vec<u32>,
}

impl MotionSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Measures the motions of `crowd` not measured yet (all again when the rig, blend
    /// weight or method changed); returns whether [`Self::words`] changed.
    pub fn update(
        &mut self,
        rig: &PreparedRig,
        crowd: &[Instance],
        blend_weight: f32,
        method: SkinMethod,
    ) -> bool {
        let blend_bits = if blend_weight > 0.0 {
            blend_weight.to_bits()
        } else {
            0
        };
        let key = (rig as *const PreparedRig as usize, blend_bits, method);
        let mut changed = false;
        if self.measured_for != Some(key) {
            *self = MotionSet {
                measured_for: Some(key),
                ..MotionSet::default()
            };
            changed = true;
        }
        let clips = rig.clips.len();
        let blending = blend_bits != 0;
        // Each pair once: a dense table of what this scan has seen.
        let mut seen = vec![false; if blending { clips * clips } else { clips }];
        for i in crowd {
            let (clip, blend) = (i.clip as usize, i.blend_clip as usize);
            if clip >= clips || (blending && blend >= clips) {
                continue;
            }
            let pair = if blending { clip * clips + blend } else { clip };
            if std::mem::replace(&mut seen[pair], true) {
                continue;
            }
            let pair_key = (i.clip, if blending { i.blend_clip } else { i.clip });
            if self.index.contains_key(&pair_key) {
                continue;
            }
            let motion = ClipMotion::measure(
                rig,
                i.clip,
                blending.then_some((i.blend_clip, blend_weight)),
                method,
            );
            self.index.insert(pair_key, self.motions.len() as u32);
            self.motions.push(motion);
            changed = true;
        }
        if changed || self.words.is_empty() {
            self.flatten(clips, blending);
            changed = true;
        }
        changed
    }

    fn flatten(&mut self, clips: usize, blending: bool) {
        let lookup = if blending { clips * clips } else { clips };
        let mut words = vec![0u32; SET_HEADER_WORDS];
        words[0] = clips as u32;
        words[1] = blending as u32;
        words[2] = SET_HEADER_WORDS as u32;
        words[3] = self.motions.len() as u32;
        words.resize(SET_HEADER_WORDS + lookup, NO_MOTION);
        let mut header_at = Vec::with_capacity(self.motions.len());
        for motion in &self.motions {
            header_at.push(words.len() as u32);
            motion.flatten_into(&mut words);
        }
        for (&(clip, blend), &m) in &self.index {
            let entry = if blending {
                clip as usize * clips + blend as usize
            } else {
                clip as usize
            };
            words[SET_HEADER_WORDS + entry] = header_at[m as usize];
        }
        self.words = words;
    }

    /// The motions as the LOD pass reads them (see [`SET_HEADER_WORDS`],
    /// [`MOTION_HEADER_WORDS`]).
    pub fn words(&self) -> &[u32] {
        &self.words
    }
}

fn word_f(words: &[u32], at: usize) -> f32 {
    f32::from_bits(words[at])
}

/// The header of the motion `clips` plays, or `None` (not measured: unbounded).
fn motion_of(words: &[u32], clips: u32) -> Option<usize> {
    let clip_count = words[0];
    let (clip, blend) = (clips & 0xffff, clips >> 16);
    if clip >= clip_count || (words[1] != 0 && blend >= clip_count) {
        return None;
    }
    let entry = if words[1] != 0 {
        clip * clip_count + blend
    } else {
        clip
    };
    let at = words[words[2] as usize + entry as usize];
    (at != NO_MOTION).then_some(at as usize)
}

struct Located {
    loops: f32,
    step: usize,
    fraction: f32,
}

fn locate(words: &[u32], m: usize, t: f32) -> Located {
    let last = words[m + 1] as usize;
    let duration = word_f(words, m + 6);
    let loops = (t * word_f(words, m + 7)).floor();
    let in_loop = t - loops * duration;
    let grid_count = words[m + 11] as usize;
    let cell = ((in_loop * word_f(words, m + 8)).max(0.0) as usize).min(grid_count - 1);
    let (times, grid) = (words[m + 12] as usize, words[m + 15] as usize);
    let mut step = (words[grid + cell] as usize).min(last - 1);
    while step + 1 < last && word_f(words, times + step + 1) <= in_loop {
        step += 1;
    }
    let start = word_f(words, times + step);
    let fraction = ((in_loop - start) / (word_f(words, times + step + 1) - start)).clamp(0.0, 1.0);
    Located {
        loops,
        step,
        fraction,
    }
}

fn part(words: &[u32], m: usize, k: usize, fraction: f32) -> f32 {
    let (times, travelled, speeds) = (
        words[m + 12] as usize,
        words[m + 13] as usize,
        words[m + 14] as usize,
    );
    let speed = word_f(words, speeds + k);
    if fraction <= 0.0 {
        0.0
    } else if speed < 0.0 {
        word_f(words, travelled + k + 1) - word_f(words, travelled + k)
    } else {
        fraction * (word_f(words, times + k + 1) - word_f(words, times + k)) * speed
            + word_f(words, m + 9)
    }
}

/// The bound on how far any vertex gets between clip times `a` and `b` (the CPU's
/// [`ClipMotion::travel`], in f32 from the flattened tables).
fn travel(words: &[u32], m: usize, a: f32, b: f32) -> f32 {
    if a == b || words[m] == MotionKind::Still as u32 {
        return 0.0;
    }
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let (s, e) = (locate(words, m, lo), locate(words, m, hi));
    let travelled = words[m + 13] as usize;
    let summed = if s.loops == e.loops && s.step == e.step {
        part(words, m, s.step, e.fraction - s.fraction)
    } else {
        (e.loops - s.loops) * word_f(words, m + 10)
            + word_f(words, travelled + e.step)
            + part(words, m, e.step, e.fraction)
            - word_f(words, travelled + s.step + 1)
            + part(words, m, s.step, 1.0 - s.fraction)
    };
    summed.max(0.0).min(2.0 * word_f(words, m + 5))
}

/// Whether the motion's sphere is in view, and its pixels per model unit (0 outside).
fn place(words: &[u32], m: usize, f: &LodFrame, ground: [f32; 2]) -> (bool, f32) {
    let row = |r: [f32; 4], p: Vec3| r[0] * p.x + r[1] * p.y + r[2] * p.z + r[3];
    let c = Vec3::new(
        word_f(words, m + 2),
        word_f(words, m + 3),
        word_f(words, m + 4),
    );
    let center = Vec3::new(
        row(f.world_rows[0], c) + ground[0],
        row(f.world_rows[1], c),
        row(f.world_rows[2], c) + ground[1],
    );
    let radius = word_f(words, m + 5) * f.scale;
    let inside = f
        .planes
        .iter()
        .all(|p| p[0] * center.x + p[1] * center.y + p[2] * center.z + p[3] >= -radius);
    if !inside {
        return (false, 0.0);
    }
    let view = Vec3::new(
        row(f.view_rows[0], center),
        row(f.view_rows[1], center),
        row(f.view_rows[2], center),
    );
    let depth = (-view.z - radius).max(f.near);
    let a = ((view.x.abs() + radius) / depth).min(f.tan_half_fov[0]);
    let b = ((view.y.abs() + radius) / depth).min(f.tan_half_fov[1]);
    (
        true,
        f.scale * f.focal_px * (1.0 + a * a + b * b).sqrt() / depth,
    )
}

/// The LOD pass for character `index` (see the module docs): updates `state` and returns
/// how close the closest comparison with the threshold came, as a share of it (a GPU may
/// round differently there, so the tests accept a different decision only where this is
/// tiny).
pub fn decide(
    words: &[u32],
    f: &LodFrame,
    index: u32,
    record: &LodRecord,
    state: &mut CharacterLod,
) -> f32 {
    let now = time_at(
        record.time_secs,
        record.speed,
        record.since_secs,
        f.clock_secs,
    );
    let motion = motion_of(words, record.clips);
    let unbounded = motion.is_none_or(|m| words[m] == MotionKind::Unbounded as u32);
    let (visible, px) = match motion {
        Some(m) if !unbounded => place(words, m, f, record.ground),
        _ => (true, 0.0),
    };
    let mut margin = f32::INFINITY;
    let mut over = |error: f32| {
        margin = margin.min((error - f.threshold_px).abs() / f.threshold_px);
        error > f.threshold_px
    };
    let scheduled = f.full != 0 || f.frame >= state.next_due;
    let changed = record.clips != state.shown_clips;
    let forced = !scheduled
        && (changed
            || unbounded
            || match motion {
                Some(m) if px > 0.0 => over(px * travel(words, m, state.shown_secs, now)),
                _ => false,
            });
    let mut flags = if visible { VISIBLE } else { 0 } | if unbounded { UNBOUNDED } else { 0 };
    let keep_period = state.flags & PERIOD_MASK;
    if !(scheduled || forced) {
        state.flags = flags | keep_period;
        return margin;
    }
    if f.full == 0 && !changed && now == state.shown_secs {
        state.flags = flags | UNCHANGED | keep_period;
        return margin;
    }
    let cap = f.max_period;
    let period = match motion {
        _ if unbounded => 1,
        _ if !visible => cap,
        None => 1,
        Some(m) => {
            let per_frame = f.frame_clip_secs * record.speed;
            let mut best = 1;
            for p in PERIODS.map(u32::from) {
                if p > 1 && p <= cap {
                    let later = now + (p - 1) as f32 * per_frame;
                    if !over(px * travel(words, m, now, later)) {
                        best = p;
                    }
                }
            }
            best
        }
    };
    state.next_due = f.frame.wrapping_add(if f.full != 0 {
        1 + index % period
    } else {
        period
    });
    state.shown_secs = now;
    state.shown_clips = record.clips;
    flags |= DUE | if forced { FORCED } else { 0 };
    state.flags = flags | (period << PERIOD_SHIFT);
    margin
}

/// The panel's counts for a frame of decided states (the GPU sums the same with atomics).
pub fn stats_of(states: &[CharacterLod]) -> LodStats {
    let mut stats = LodStats::default();
    for s in states {
        if s.flags & VISIBLE != 0 {
            if let Some(class) = PERIODS.iter().position(|&p| p as u32 == s.period()) {
                stats.at_period[class] += 1;
            }
        } else {
            stats.culled += 1;
        }
        stats.updated += (s.flags & DUE != 0) as usize;
        stats.forced += (s.flags & FORCED != 0) as usize;
        stats.unbounded += (s.flags & UNBOUNDED != 0) as usize;
        stats.unchanged += (s.flags & UNCHANGED != 0) as usize;
    }
    stats
}

/// Words of the stats block at the start of the GPU's LOD state: the counts of
/// [`stats_of`] in the order at_period[4], culled, updated, forced, unbounded, unchanged.
pub const STATS_WORDS: usize = 16;

/// The counts of a stats block read back from the GPU.
pub fn stats_from_words(words: &[u32]) -> LodStats {
    let w = |k: usize| words.get(k).copied().unwrap_or(0) as usize;
    LodStats {
        at_period: [w(0), w(1), w(2), w(3)],
        culled: w(4),
        updated: w(5),
        forced: w(6),
        unbounded: w(7),
        unchanged: w(8),
        ..LodStats::default()
    }
}
