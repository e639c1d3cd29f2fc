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
//! The motions are the CPU's tables rounded to f32 ([`MotionSet::words`]). A cross-fade of
//! loops of different lengths has a sphere and no table: it is culled and given its level
//! by the sphere, and recomputed every frame it is in view. A clip the set has not
//! measured has no bound: such a character is recomputed every frame, drawn at full detail
//! and never culled. The tests run the GPU's pass and
//! [`decide`] on the same records and compare each character's decision.

use std::collections::HashMap;

use glam::{Mat4, Vec3, Vec4Swizzles};

pub use super::formats::{
    CharacterLod, DUE, FORCED, GPU_BYTES, LodFrame, MESH_LEVEL_MASK, MESH_LEVEL_SHIFT,
    MotionHeader, MotionKind, MotionSetHeader, NO_MOTION, PERIOD_MASK, PERIOD_SHIFT,
    POSED_LEVEL_MASK, POSED_LEVEL_SHIFT, RECORD_ANIMATE, RECORD_SKIN, RECORD_SKIN_LEVEL_SHIFT,
    RESKIN, SKIN_LEVEL_MASK, SKIN_LEVEL_SHIFT, STAT_AT_MESH_LEVEL, STAT_AT_PERIOD, STAT_COUNT,
    STAT_CULLED, STAT_FORCED, STAT_SKINNED_AT_LEVEL, STAT_UNBOUNDED, STAT_UNCHANGED, STAT_UPDATED,
    STATS_WORDS, UNBOUNDED, UNCHANGED, UNSKINNED_LEVEL, VISIBLE,
};
use super::motion::ClipMotion;
use super::{LodSettings, LodStats, LodView, PERIODS};
use crate::contract::{read_words, to_words};
use crate::crowd::animate::{Record, time_at};
use crate::crowd::instances::Instance;
use crate::prepare::PreparedRig;
use crate::prepare::cache::MeasureCache;
use crate::skin::SkinMethod;

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
            tan_x: view.tan_half_fov.x,
            tan_y: view.tan_half_fov.y,
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
            mesh_levels: 1,
            // No pass needs finer vertices than a character's own level until the scene
            // says the shadows do.
            skin_level_cap: SKIN_LEVEL_MASK >> SKIN_LEVEL_SHIFT,
            mesh_errors: [[0.0; 4]; 2],
            mesh_first_index: [[0; 4]; 2],
            mesh_index_count: [[0; 4]; 2],
            shadow_dir: [0.0; 4],
        }
    }

    /// The shadow pass draws, its light travelling along `direction` (world): a character
    /// out of view is skinned where its shadow may fall in the view.
    pub fn set_shadows(&mut self, direction: Vec3) {
        self.shadow_dir = direction.normalize_or_zero().extend(1.0).to_array();
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
        self.update_with(rig, crowd, blend_weight, method, None, &mut |_, _| {})
    }

    /// [`Self::update`], calling `measured(done, of)` after each motion it measures (of:
    /// the pairs it has not seen; a pair already measured is not counted).
    pub fn update_with(
        &mut self,
        rig: &PreparedRig,
        crowd: &[Instance],
        blend_weight: f32,
        method: SkinMethod,
        cache: Option<&MeasureCache>,
        measured: &mut dyn FnMut(usize, usize),
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
        let mut todo = Vec::new();
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
            if !self.index.contains_key(&pair_key) {
                todo.push((pair_key, i));
            }
        }
        let of = todo.len();
        for (done, (pair_key, i)) in todo.into_iter().enumerate() {
            let motion = ClipMotion::measure(
                rig,
                i.clip,
                blending.then_some((i.blend_clip, blend_weight)),
                method,
                cache,
            );
            self.index.insert(pair_key, self.motions.len() as u32);
            self.motions.push(motion);
            changed = true;
            measured(done + 1, of);
        }
        if changed || self.words.is_empty() {
            self.flatten(clips, blending);
            changed = true;
        }
        changed
    }

    fn flatten(&mut self, clips: usize, blending: bool) {
        let lookup = if blending { clips * clips } else { clips };
        let head = MotionSetHeader {
            clip_count: clips as u32,
            blend: blending as u32,
            lookup_at: SET_HEADER_WORDS as u32,
            motions: self.motions.len() as u32,
        };
        let mut words = to_words(&head).to_vec();
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

    /// The motions as the LOD pass reads them (see [`super::formats`]).
    pub fn words(&self) -> &[u32] {
        &self.words
    }
}

/// Words of the motions' set header.
const SET_HEADER_WORDS: usize = std::mem::size_of::<MotionSetHeader>() / 4;

fn word_f(words: &[u32], at: usize) -> f32 {
    f32::from_bits(words[at])
}

/// The header of the motion `clips` plays, or `None` (not measured: unbounded).
fn motion_of(words: &[u32], clips: u32) -> Option<MotionHeader> {
    let set: MotionSetHeader = read_words(words, 0)?;
    let (clip, blend) = (clips & 0xffff, clips >> 16);
    if clip >= set.clip_count || (set.blend != 0 && blend >= set.clip_count) {
        return None;
    }
    let entry = if set.blend != 0 {
        clip * set.clip_count + blend
    } else {
        clip
    };
    let at = words[set.lookup_at as usize + entry as usize];
    if at == NO_MOTION {
        return None;
    }
    read_words(words, at as usize)
}

struct Located {
    loops: f32,
    step: usize,
    fraction: f32,
}

fn locate(words: &[u32], m: &MotionHeader, t: f32) -> Located {
    let last = m.steps as usize;
    let loops = (t * m.per_duration).floor();
    let in_loop = t - loops * m.duration_secs;
    let cell = ((in_loop * m.grid_per_sec).max(0.0) as usize).min(m.grid_cells as usize - 1);
    let times = m.times_at as usize;
    let mut step = (words[m.grid_at as usize + cell] as usize).min(last - 1);
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

fn part(words: &[u32], m: &MotionHeader, k: usize, fraction: f32) -> f32 {
    let (times, travelled) = (m.times_at as usize, m.travelled_at as usize);
    let speed = word_f(words, m.speeds_at as usize + k);
    if fraction <= 0.0 {
        0.0
    } else if speed < 0.0 {
        word_f(words, travelled + k + 1) - word_f(words, travelled + k)
    } else {
        fraction * (word_f(words, times + k + 1) - word_f(words, times + k)) * speed
            + m.partial_slack
    }
}

/// The bound on how far any vertex gets between clip times `a` and `b` (the CPU's
/// [`ClipMotion::travel`], in f32 from the flattened tables).
fn travel(words: &[u32], m: &MotionHeader, a: f32, b: f32) -> f32 {
    if a == b || m.kind == MotionKind::Still as u32 {
        return 0.0;
    }
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let (s, e) = (locate(words, m, lo), locate(words, m, hi));
    let travelled = m.travelled_at as usize;
    let summed = if s.loops == e.loops && s.step == e.step {
        part(words, m, s.step, e.fraction - s.fraction)
    } else {
        (e.loops - s.loops) * m.whole_loop
            + word_f(words, travelled + e.step)
            + part(words, m, e.step, e.fraction)
            - word_f(words, travelled + s.step + 1)
            + part(words, m, s.step, 1.0 - s.fraction)
    };
    summed.max(0.0).min(2.0 * m.radius)
}

/// Whether the motion's sphere is in view, and its pixels per model unit (0 outside).
fn row(r: [f32; 4], p: Vec3) -> f32 {
    r[0] * p.x + r[1] * p.y + r[2] * p.z + r[3]
}

/// The motion's sphere in the world for a character standing at `ground`: centre, radius.
fn world_sphere(m: &MotionHeader, f: &LodFrame, ground: [f32; 2]) -> (Vec3, f32) {
    let c = Vec3::new(m.center_x, m.center_y, m.center_z);
    let center = Vec3::new(
        row(f.world_rows[0], c) + ground[0],
        row(f.world_rows[1], c),
        row(f.world_rows[2], c) + ground[1],
    );
    (center, m.radius * f.scale)
}

/// Whether the shadow of the sphere (`center`, `radius`) may fall in the view: the
/// capsule from the sphere along the light down to where its lowest point's ray meets
/// the ground (the whole shadow volume lies within it) is outside no frustum plane
/// entirely. Never without shadows.
pub fn shadow_reaches_view(f: &LodFrame, center: Vec3, radius: f32) -> bool {
    let d = Vec3::new(f.shadow_dir[0], f.shadow_dir[1], f.shadow_dir[2]);
    if f.shadow_dir[3] == 0.0 {
        return false;
    }
    let reach = if d.y < 0.0 {
        (center.y + radius).max(0.0) / -d.y
    } else {
        0.0
    };
    let end = center + d * reach;
    f.planes.iter().all(|p| {
        let at = |q: Vec3| p[0] * q.x + p[1] * q.y + p[2] * q.z + p[3];
        at(center) >= -radius || at(end) >= -radius
    })
}

fn place(m: &MotionHeader, f: &LodFrame, ground: [f32; 2]) -> (bool, f32) {
    let (center, radius) = world_sphere(m, f, ground);
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
    let a = ((view.x.abs() + radius) / depth).min(f.tan_x);
    let b = ((view.y.abs() + radius) / depth).min(f.tan_y);
    (
        true,
        f.scale * f.focal_px * (1.0 + a * a + b * b).sqrt() / depth,
    )
}

/// The level of the mesh's chain a character takes ([`super::mesh::choose_mesh_level`]
/// over the frame's table): the full mesh where no sphere holds its motion, its level
/// kept out of view. Narrows `margin` by the comparisons it makes.
fn mesh_level(
    f: &LodFrame,
    visible: bool,
    placed: bool,
    px: f32,
    previous: u32,
    margin: &mut f32,
) -> u32 {
    if f.mesh_levels <= 1 || !placed {
        return 0;
    }
    let errors: Vec<f32> = (0..f.mesh_levels).map(|l| f.mesh_error(l)).collect();
    let px = if visible { px } else { 0.0 };
    if px > 0.0 {
        for &e in &errors[1..] {
            for limit in [f.threshold_px, f.threshold_px * super::MESH_HYSTERESIS] {
                *margin = margin.min((e * px - limit).abs() / limit);
            }
        }
    }
    super::choose_mesh_level(&errors, px, f.threshold_px, previous)
}

/// The LOD pass for character `index` (see the module docs): updates `state` and returns
/// how close the closest comparison with the threshold came, as a share of it (a GPU may
/// round differently there, so the tests accept a different decision only where this is
/// tiny).
pub fn decide(
    words: &[u32],
    f: &LodFrame,
    index: u32,
    record: &Record,
    state: &mut CharacterLod,
) -> f32 {
    let now = time_at(
        record.time_secs,
        record.speed,
        record.since_secs,
        f.clock_secs,
    );
    let motion = motion_of(words, record.clips);
    // Placed by a sphere around every pose: all but an unmeasured motion and a mesh that
    // is not finite. A cross-fade of two loops of different lengths is placed but has no
    // table of travel: it is recomputed every frame it is in view.
    let placed = motion.filter(|m| m.kind != MotionKind::Unbounded as u32);
    let unbounded = placed.is_none_or(|m| m.kind == MotionKind::Reach as u32);
    let (visible, px) = match &placed {
        Some(m) => place(m, f, record.ground),
        None => (true, 0.0),
    };
    let mut margin = f32::INFINITY;
    let level = mesh_level(
        f,
        visible,
        placed.is_some(),
        px,
        state.mesh_level(),
        &mut margin,
    );
    let mut over = |error: f32| {
        margin = margin.min((error - f.threshold_px).abs() / f.threshold_px);
        error > f.threshold_px
    };
    let scheduled = f.full != 0 || f.frame >= state.next_due;
    let changed = record.clips != state.shown_clips;
    // The joints posed for it: its skin level's set (the coarsest where nothing draws it;
    // all of them in a full frame, which may draw at full detail). A pose that holds only a
    // coarser level's joints must be computed again.
    let skin_level = skin_level_of(f, visible, level, &placed, record);
    let posed_level = if f.full != 0 {
        0
    } else {
        skin_level.min(f.mesh_levels.max(1) - 1)
    };
    let finer = posed_level < state.posed_level();
    let forced = !scheduled
        && (changed
            || match &placed {
                None => true,
                Some(_) if px == 0.0 => false,
                Some(_) if unbounded => true,
                Some(m) => over(px * travel(words, m, state.shown_secs, now)),
            }
            || finer);
    // A finer skin level than last frame's needs the vertices the coarser one left
    // unskinned.
    let reskin = skin_level < state.skin_level();
    let mut flags = if visible { VISIBLE } else { 0 }
        | if unbounded { UNBOUNDED } else { 0 }
        | if reskin { RESKIN } else { 0 }
        | (level << MESH_LEVEL_SHIFT)
        | (skin_level << SKIN_LEVEL_SHIFT);
    let keep_period = state.flags & (PERIOD_MASK | POSED_LEVEL_MASK);
    if !(scheduled || forced) {
        state.flags = flags | keep_period;
        return margin;
    }
    if f.full == 0 && !changed && !finer && now == state.shown_secs {
        state.flags = flags | UNCHANGED | keep_period;
        return margin;
    }
    let cap = f.max_period;
    let period = match &placed {
        None => 1,
        Some(_) if !visible => cap,
        Some(_) if unbounded => 1,
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
    flags |= DUE | if forced { FORCED } else { 0 } | (posed_level << POSED_LEVEL_SHIFT);
    state.flags = flags | (period << PERIOD_SHIFT);
    margin
}

/// The level whose vertices are skinned for a character this frame: its level, or the
/// shadows' finer level; out of view only the shadow pass draws it, at the shadows' level,
/// and only where its shadow may fall in the view; elsewhere nothing needs its vertices
/// ([`UNSKINNED_LEVEL`]).
fn skin_level_of(
    f: &LodFrame,
    visible: bool,
    level: u32,
    motion: &Option<MotionHeader>,
    record: &Record,
) -> u32 {
    if visible {
        level.min(f.skin_level_cap)
    } else if motion.is_some_and(|m| {
        let (center, radius) = world_sphere(&m, f, record.ground);
        shadow_reaches_view(f, center, radius)
    }) {
        f.skin_level_cap.min(f.mesh_levels.max(1) - 1)
    } else {
        UNSKINNED_LEVEL
    }
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
        if s.flags & VISIBLE != 0 {
            let level = (s.mesh_level() as usize).min(stats.at_mesh_level.len() - 1);
            stats.at_mesh_level[level] += 1;
        }
        stats.unchanged += (s.flags & UNCHANGED != 0) as usize;
        if s.skinned() {
            let level = (s.skin_level() as usize).min(stats.skinned_at_level.len() - 1);
            stats.skinned_at_level[level] += 1;
        }
    }
    stats
}

/// The counts of a counts block read back from the GPU (see [`super::formats`]).
pub fn stats_from_words(words: &[u32]) -> LodStats {
    let w = |k: u32| words.get(k as usize).copied().unwrap_or(0) as usize;
    LodStats {
        at_period: std::array::from_fn(|p| w(STAT_AT_PERIOD + p as u32)),
        culled: w(STAT_CULLED),
        updated: w(STAT_UPDATED),
        forced: w(STAT_FORCED),
        unbounded: w(STAT_UNBOUNDED),
        unchanged: w(STAT_UNCHANGED),
        at_mesh_level: std::array::from_fn(|l| w(STAT_AT_MESH_LEVEL + l as u32)),
        skinned_at_level: std::array::from_fn(|l| w(STAT_SKINNED_AT_LEVEL + l as u32)),
        ..LodStats::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame whose view is the half-space x ≥ 0 (the other planes hold everything).
    fn half_space(light: Option<Vec3>) -> LodFrame {
        let mut f = LodFrame {
            planes: [[0.0, 0.0, 0.0, 1.0]; 6],
            ..LodFrame::default()
        };
        f.planes[0] = [1.0, 0.0, 0.0, 0.0];
        if let Some(d) = light {
            f.set_shadows(d);
        }
        f
    }

    /// The shadow of a sphere out of view reaches the view only where the light carries
    /// it there, far enough; never without shadows.
    #[test]
    fn shadows_reach_the_view_along_the_light() {
        let towards = half_space(Some(Vec3::new(1.0, -1.0, 0.0)));
        let away = half_space(Some(Vec3::new(-1.0, -1.0, 0.0)));
        let near = Vec3::new(-1.2, 1.0, 0.0);
        let far = Vec3::new(-3.0, 1.0, 0.0);
        // From 1.5 m up (the sphere's top) the light travels 1.5 m across: the shadow of
        // the near sphere ends at x = 0.3, the far one's at x = -1.5.
        assert!(shadow_reaches_view(&towards, near, 0.5));
        assert!(!shadow_reaches_view(&towards, far, 0.5));
        assert!(!shadow_reaches_view(&away, near, 0.5));
        assert!(!shadow_reaches_view(&half_space(None), near, 0.5));
        // In view, its shadow is too.
        assert!(shadow_reaches_view(&away, Vec3::new(2.0, 1.0, 0.0), 0.5));
    }
}
