//! Each frame's plan: which groups of eight are recomputed, which are culled, and the
//! period each character gets (the rule is in the module's docs).

use std::collections::HashMap;
use std::ops::Range;
use std::time::Instant;

use glam::{Mat4, Vec3, Vec4Swizzles};

use super::motion::{ClipMotion, MotionKey};
use super::{LodSettings, LodView, PERIODS};
use crate::crowd::instances::{Instance, InstanceStore};
use crate::prepare::PreparedRig;
use crate::prepare::cache::MeasureCache;
use crate::prepare::mesh_lod::MAX_MESH_LEVELS;
use crate::skin::SkinMethod;
use crate::types::LANES;

/// How many characters did what in the last planned frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct LodStats {
    /// Drawn characters at each period of [`PERIODS`] (their group's period).
    pub at_period: [usize; 4],
    /// Characters outside the view (not drawn, longest period).
    pub culled: usize,
    /// Characters recomputed this frame.
    pub updated: usize,
    /// Of those, characters in groups recomputed before their period was up, because a
    /// member's shown pose was already over the threshold (camera or frame time changed).
    pub forced: usize,
    /// Characters due this frame but not recomputed: unchanged since their last update.
    pub unchanged: usize,
    /// Characters dealt into another group among those recomputed (free: see the module
    /// docs).
    pub moved: usize,
    /// Runs of neighbouring groups recomputed (one upload each).
    pub runs: usize,
    /// Characters whose motion has no table of travel (a cross-fade of two loops of
    /// different lengths): recomputed every frame they are in view.
    pub unbounded: usize,
    /// Drawn characters at each level of the mesh's LOD chain.
    pub at_mesh_level: [usize; MAX_MESH_LEVELS],
    /// Characters skinned at each skin level this frame: by the CPU's plan, each
    /// recomputed group's members at the group's level; with the animation on the GPU,
    /// as `gpu_compute`'s pass counted them.
    pub skinned_at_level: [usize; MAX_MESH_LEVELS],
    /// The planning's own time, µs.
    pub plan_us: f64,
}

/// The LOD state of one crowd: what each group's vertices were computed from and when.
#[derive(Default)]
pub struct Lod {
    motions: Vec<ClipMotion>,
    motion_index: HashMap<MotionKey, u32>,
    /// Per instance: its motion and where it stood when last placed.
    placed: Vec<Placed>,
    /// The view and model transform the instances were last placed with.
    placed_with: Option<(LodView, Mat4)>,
    frame: u64,
    /// Per group: the frame it is next due and the period it was given.
    next_due: Vec<u64>,
    group_period: Vec<u8>,
    /// Per instance: the instance as its vertices on the GPU were computed, and how far
    /// along its clip's motion that pose is ([`ClipMotion::along`]).
    shown: Vec<Instance>,
    shown_along: Vec<f64>,
    /// Per instance: inside the view.
    visible: Vec<bool>,
    /// Per instance: pixels a displacement of one model unit covers (0 outside the view).
    px_per_unit: Vec<f32>,
    runs: Vec<Range<usize>>,
    /// Per instance: the level of the mesh's chain it is drawn with.
    mesh_levels: Vec<u8>,
    /// Per group: the level of the mesh's chain its vertices were skinned for (its
    /// members' finest when it was computed): the vertices of coarser levels only.
    skin_levels: Vec<u8>,
    /// The shadow pass's level in the latest plan ([`PlanInput::shadow_level`]).
    shadow_level: Option<u8>,
    /// Scratch, reused: the groups computed this frame, their members with the period
    /// each wants, and where each of those characters is while they are dealt out.
    due: Vec<usize>,
    pool: Vec<(u8, u8, u32)>,
    wanted: Vec<u8>,
    wanted_along: Vec<f64>,
    at: Vec<u32>,
    who: Vec<u32>,
    /// Whether the vertices on the GPU are those `shown` describes.
    valid: bool,
    stats: LodStats,
}

/// A character's motion (the key it was found for and its index in `Lod::motions`) and
/// the ground position its pixels per unit were found at.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Placed {
    key: MotionKey,
    motion: u32,
    ground_position: [f32; 2],
}

/// Everything a frame's plan depends on besides the instances.
#[derive(Clone, Copy, Debug)]
pub struct PlanInput<'a> {
    pub rig: &'a PreparedRig,
    pub settings: LodSettings,
    pub view: &'a LodView,
    /// Model → world of a character at the origin (the renderer's normalisation).
    pub world_from_model: Mat4,
    /// Clip-seconds one frame advances an instance of speed 1.
    pub frame_clip_secs: f32,
    pub blend_weight: f32,
    pub method: SkinMethod,
    /// Per level of the mesh's chain, its error in model units (geometric LOD, with
    /// `settings.mesh`).
    pub mesh_errors: &'a [f32],
    /// The level the shadow pass draws every character at, or `None` without shadows: a
    /// character's vertices are skinned for its own level or this one, the finer.
    pub shadow_level: Option<u8>,
}

impl Lod {
    pub fn new() -> Self {
        Self::default()
    }

    /// The vertices on the GPU no longer match what [`Self::shown`] says (a new
    /// configuration, rig, buffer): the next plan computes every group.
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Forgets the measured clip motions (the rig changed) and invalidates.
    pub fn reset(&mut self) {
        *self = Lod::default();
    }

    /// Per instance, what its vertices on the GPU were computed from.
    pub fn shown(&self) -> &[Instance] {
        &self.shown
    }

    /// Per instance, whether it is drawn.
    pub fn visible(&self) -> &[bool] {
        &self.visible
    }

    /// How many characters did what in the last planned frame.
    pub fn stats(&self) -> LodStats {
        self.stats
    }

    /// Per instance, the level of the mesh's chain it is drawn with (all 0 with geometric
    /// LOD off).
    pub fn mesh_levels(&self) -> &[u8] {
        &self.mesh_levels
    }

    /// The groups the last plan computes.
    pub fn runs(&self) -> &[Range<usize>] {
        &self.runs
    }

    /// Per group, the level of the mesh's chain its vertices are skinned for: a computed
    /// group's members' finest level this frame, a kept group's when it was computed (no
    /// finer than any member's now: a member that needs a finer level makes its group
    /// due). All 0 with geometric LOD off.
    pub fn skin_levels(&self) -> &[u8] {
        &self.skin_levels
    }

    /// The finest level group `g`'s members are drawn at: a member in view at its level
    /// or the shadows', the finer; out of view at the shadows' (where a shadow pass draws
    /// every character), or its kept level (nothing draws it).
    fn finest_level(&self, g: usize) -> u8 {
        let n = self.mesh_levels.len();
        let members = (g * LANES).min(n)..n.min((g + 1) * LANES);
        members.map(|i| self.drawn_level(i)).min().unwrap_or(0)
    }

    /// The finest level a pass draws character `i` at (see [`Self::finest_level`]).
    fn drawn_level(&self, i: usize) -> u8 {
        let level = self.mesh_levels.get(i).copied().unwrap_or(0);
        match (
            self.visible.get(i).copied().unwrap_or(true),
            self.shadow_level,
        ) {
            (true, Some(shadow)) => level.min(shadow),
            (false, Some(shadow)) => shadow,
            (_, None) => level,
        }
    }

    /// Gives each group in `groups` its members' finest level and counts its members as
    /// skinned at it.
    fn skin_at_levels(&mut self, groups: impl Iterator<Item = usize>, stats: &mut LodStats) {
        let n = self.mesh_levels.len();
        for g in groups {
            let level = self.finest_level(g);
            self.skin_levels[g] = level;
            let members = n.min((g + 1) * LANES) - (g * LANES).min(n);
            stats.skinned_at_level[(level as usize).min(MAX_MESH_LEVELS - 1)] += members;
        }
    }

    /// The motion measured for `key`, measuring it at first use.
    fn motion_for(&mut self, input: &PlanInput<'_>, key: MotionKey) -> u32 {
        self.motion_of(input.rig, input.blend_weight, input.method, key, None)
    }

    fn motion_of(
        &mut self,
        rig: &PreparedRig,
        blend_weight: f32,
        method: SkinMethod,
        key: MotionKey,
        cache: Option<&MeasureCache>,
    ) -> u32 {
        if let Some(&index) = self.motion_index.get(&key) {
            return index;
        }
        let motion = ClipMotion::measure(
            rig,
            key.clip,
            key.blend.map(|(c, _)| (c, blend_weight)),
            method,
            cache,
        );
        let index = self.motions.len() as u32;
        self.motions.push(motion);
        self.motion_index.insert(key, index);
        index
    }

    /// Measures now the motions `instances` play that the first plan would measure (at
    /// load, where a progress line can say so), calling `measured(done, of)` after each;
    /// each read from `cache` where this code measured it for this rig before, and kept
    /// there when measured.
    pub fn measure_motions(
        &mut self,
        rig: &PreparedRig,
        blend_weight: f32,
        method: SkinMethod,
        instances: &[Instance],
        cache: Option<&MeasureCache>,
        measured: &mut dyn FnMut(usize, usize),
    ) {
        let blend = (blend_weight > 0.0).then_some(blend_weight.to_bits());
        let dual_quat = method == SkinMethod::DualQuat;
        let mut keys: Vec<MotionKey> = instances
            .iter()
            .map(|i| MotionKey {
                clip: i.clip,
                blend: blend.map(|bits| (i.blend_clip, bits)),
                dual_quat,
            })
            .filter(|key| !self.motion_index.contains_key(key))
            .collect();
        keys.sort_unstable_by_key(|k| (k.clip, k.blend));
        keys.dedup();
        for (done, key) in keys.iter().enumerate() {
            self.motion_of(rig, blend_weight, method, *key, cache);
            measured(done + 1, keys.len());
        }
    }

    /// Decides which groups this frame computes (see the module docs) and returns them as
    /// runs of group indices. With LOD off, or after [`Self::invalidate`], every group.
    /// With LOD on it deals the characters of the groups it computes back into those groups
    /// by period (handles follow them).
    pub fn plan(&mut self, input: &PlanInput<'_>, crowd: &mut InstanceStore) -> &[Range<usize>] {
        let start = Instant::now();
        let n = crowd.len();
        let groups = n.div_ceil(LANES);
        let frame = self.frame;
        self.frame += 1;
        self.runs.clear();
        self.shadow_level = input.shadow_level.filter(|_| input.mesh_errors.len() > 1);
        let mut stats = LodStats::default();
        let full = !self.valid || !input.settings.enabled || self.shown.len() != n;
        let mesh_on = input.settings.mesh && input.mesh_errors.len() > 1;
        if !input.settings.enabled {
            if mesh_on {
                // Placing gives each character its pixels per unit; nothing is culled.
                self.place(input, crowd.as_slice());
            }
            self.visible.clear();
            self.visible.resize(n, true);
            self.choose_mesh_levels(input, mesh_on, &mut stats);
            if mesh_on {
                stats.moved = self.deal_by_level(crowd);
            }
            self.shown.clear();
            self.shown.extend_from_slice(crowd.as_slice());
            self.skin_levels.resize(groups, 0);
            self.skin_at_levels(0..groups, &mut stats);
            if groups > 0 {
                self.runs.push(0..groups);
            }
            // Turning LOD on starts from a full frame, with its periods and stagger, and
            // places everyone again (`visible` was just overwritten).
            self.valid = false;
            self.placed_with = None;
            stats.at_period[0] = n;
            stats.updated = n;
            stats.runs = self.runs.len();
            stats.plan_us = start.elapsed().as_secs_f64() * 1e6;
            self.stats = stats;
            return &self.runs;
        }
        self.place(input, crowd.as_slice());
        // Levels first: a group kept from an earlier frame whose member now needs a finer
        // level than its vertices were skinned for is due.
        self.choose_mesh_levels(input, mesh_on, &mut stats);
        let threshold = input.settings.threshold_px;
        self.due.clear();
        if full {
            self.shown.clear();
            self.shown.extend_from_slice(crowd.as_slice());
            self.shown_along.clear();
            self.shown_along.resize(n, 0.0);
            self.next_due.clear();
            self.next_due.resize(groups, frame);
            self.group_period.clear();
            self.group_period.resize(groups, 1);
            self.skin_levels.clear();
            self.skin_levels.resize(groups, 0);
            self.due.extend(0..groups);
        } else {
            let instances = crowd.as_slice();
            for g in 0..groups {
                let members = g * LANES..n.min((g + 1) * LANES);
                let scheduled = self.next_due[g] <= frame;
                // Vertices of a finer level than its vertices were skinned for were
                // never written.
                let finer = self.finest_level(g) < self.skin_levels[g];
                let forced = !scheduled
                    && (finer
                        || members.clone().any(|i| {
                            let (shown, now) = (&self.shown[i], &instances[i]);
                            let px_per_unit = self.px_per_unit[i];
                            shown.clip != now.clip
                                || shown.blend_clip != now.blend_clip
                                || (px_per_unit > 0.0
                                    && px_per_unit
                                        * self.motions[self.placed[i].motion as usize].travel_from(
                                            self.shown_along[i],
                                            shown.time_secs,
                                            now.time_secs,
                                        )
                                        > threshold)
                        }));
                if !(scheduled || forced) {
                    continue;
                }
                if !finer && self.shown[members.clone()] == instances[members.clone()] {
                    stats.unchanged += members.len();
                    continue;
                }
                if forced {
                    stats.forced += members.len();
                }
                self.due.push(g);
            }
        }
        stats.moved = self.deal(input, crowd);
        let instances = crowd.as_slice();
        let cap = input.settings.max_period;
        for k in 0..self.due.len() {
            let g = self.due[k];
            let members = g * LANES..n.min((g + 1) * LANES);
            let period = members.clone().map(|i| self.wanted[i]).min().unwrap_or(cap);
            self.group_period[g] = period;
            self.next_due[g] = frame + period as u64;
            self.shown[members.clone()].copy_from_slice(&instances[members.clone()]);
            self.shown_along[members.clone()].copy_from_slice(&self.wanted_along[members.clone()]);
            stats.updated += members.len();
            match self.runs.last_mut() {
                Some(run) if run.end == g => run.end = g + 1,
                _ => self.runs.push(g..g + 1),
            }
        }
        // Dealing moved characters (and their levels) only among the due groups.
        let due = std::mem::take(&mut self.due);
        self.skin_at_levels(due.iter().copied(), &mut stats);
        self.due = due;
        if full {
            self.stagger(frame);
        }
        stats.unbounded = self
            .placed
            .iter()
            .filter(|p| self.motions[p.motion as usize].is_unbounded())
            .count();
        for g in 0..groups {
            let members = g * LANES..n.min((g + 1) * LANES);
            let seen = members.clone().filter(|&i| self.visible[i]).count();
            let class = PERIODS
                .iter()
                .position(|&p| p == self.group_period[g])
                .unwrap_or(0);
            stats.at_period[class] += seen;
            stats.culled += members.len() - seen;
        }
        self.valid = true;
        stats.runs = self.runs.len();
        stats.plan_us = start.elapsed().as_secs_f64() * 1e6;
        self.stats = stats;
        &self.runs
    }

    /// Each instance's level of the mesh's chain (see [`super::mesh`]), and the count of
    /// drawn characters at each.
    fn choose_mesh_levels(&mut self, input: &PlanInput<'_>, on: bool, stats: &mut LodStats) {
        let n = self.visible.len();
        self.mesh_levels.resize(n, 0);
        if !on {
            self.mesh_levels.fill(0);
        } else {
            let threshold = input.settings.threshold_px;
            for i in 0..n {
                let px = if self.visible[i] {
                    self.px_per_unit.get(i).copied().unwrap_or(f32::INFINITY)
                } else {
                    0.0
                };
                self.mesh_levels[i] = super::mesh::choose_mesh_level(
                    input.mesh_errors,
                    px,
                    threshold,
                    self.mesh_levels[i] as u32,
                ) as u8;
            }
        }
        for (level, seen) in self.mesh_levels.iter().zip(&self.visible) {
            if *seen {
                stats.at_mesh_level[(*level as usize).min(MAX_MESH_LEVELS - 1)] += 1;
            }
        }
    }

    /// Per instance: its motion, whether it is in view and its pixels per model unit.
    /// With the view unchanged, only instances whose motion or place changed.
    fn place(&mut self, input: &PlanInput<'_>, instances: &[Instance]) {
        let n = instances.len();
        let blend = (input.blend_weight > 0.0).then_some(input.blend_weight.to_bits());
        let dual_quat = input.method == SkinMethod::DualQuat;
        let same_view = self.placed_with == Some((*input.view, input.world_from_model));
        self.placed_with = Some((*input.view, input.world_from_model));
        self.placed.truncate(n);
        self.visible.resize(n, true);
        self.px_per_unit.resize(n, 0.0);
        let scale = {
            let m = input.world_from_model;
            m.x_axis
                .xyz()
                .length()
                .max(m.y_axis.xyz().length())
                .max(m.z_axis.xyz().length())
        };
        let view = input.view;
        for (i, instance) in instances.iter().enumerate() {
            let key = MotionKey {
                clip: instance.clip,
                blend: blend.map(|bits| (instance.blend_clip, bits)),
                dual_quat,
            };
            let motion = match self.placed.get(i) {
                Some(p) if p.key == key => {
                    if same_view && p.ground_position == instance.ground_position {
                        continue;
                    }
                    p.motion
                }
                _ => self.motion_for(input, key),
            };
            let placed = Placed {
                key,
                motion,
                ground_position: instance.ground_position,
            };
            if i < self.placed.len() {
                self.placed[i] = placed;
            } else {
                self.placed.push(placed);
            }
            let motion = &self.motions[motion as usize];
            let [x, z] = instance.ground_position;
            let center =
                input.world_from_model.transform_point3(motion.center) + Vec3::new(x, 0.0, z);
            let radius = motion.radius * scale;
            let visible = view.sees(center, radius);
            self.visible[i] = visible;
            self.px_per_unit[i] = if visible {
                let view_center = view.view_from_world.transform_point3(center);
                let depth = (-view_center.z - radius).max(view.near);
                scale * view.focal_px * view.off_axis(view_center, radius, depth) / depth
            } else {
                0.0
            };
        }
    }

    /// The period instance `i` can take from now: the longest up to the cap whose next
    /// `period - 1` frames stay under the threshold; outside the view, the cap. Also how
    /// far along its motion the instance is now.
    fn period_from_now(&self, input: &PlanInput<'_>, instance: &Instance, i: usize) -> (u8, f64) {
        let cap = input.settings.max_period;
        let motion = &self.motions[self.placed[i].motion as usize];
        let now = instance.time_secs;
        let along = motion.along(now);
        let px_per_unit = self.px_per_unit[i];
        if px_per_unit == 0.0 {
            return (cap, along);
        }
        let per_frame = input.frame_clip_secs * instance.speed;
        let period = PERIODS
            .iter()
            .copied()
            .filter(|&p| p <= cap)
            .rfind(|&p| {
                let later = now + (p - 1) as f32 * per_frame;
                px_per_unit * motion.travel_from(along, now, later) <= input.settings.threshold_px
            })
            .unwrap_or(1);
        (period, along)
    }

    /// Deals the members of the due groups back into those groups, longest period first,
    /// so that each group's members want one period (see the module docs). Sets `wanted`
    /// for each of them and returns how many changed place.
    fn deal(&mut self, input: &PlanInput<'_>, crowd: &mut InstanceStore) -> usize {
        let n = crowd.len();
        self.wanted.resize(n, input.settings.max_period);
        self.wanted_along.resize(n, 0.0);
        self.pool.clear();
        for k in 0..self.due.len() {
            let g = self.due[k];
            for i in g * LANES..n.min((g + 1) * LANES) {
                let (period, along) = self.period_from_now(input, &crowd.as_slice()[i], i);
                self.wanted[i] = period;
                self.wanted_along[i] = along;
                self.pool.push((period, self.drawn_level(i), i as u32));
            }
        }
        // Longest period first, then finest level first (a group is skinned for its finest
        // member's level, so members of one level skin no more than they draw); ties keep
        // their order, so a settled crowd stays put.
        self.pool
            .sort_by_key(|&(period, level, _)| (std::cmp::Reverse(period), level));
        self.move_into_due(crowd)
    }

    /// With update-rate LOD off every group is computed every frame, so any character may
    /// change group at no cost: the whole crowd is dealt by the finest level a pass draws
    /// each character at, finest first. A group is skinned for its finest member's level,
    /// so sorted that way every group but one per border between two levels holds one
    /// level and skins no vertex its members do not draw. Ties keep their order, so a
    /// settled crowd stays put (and its characters of one level stay next to each other
    /// in the order they stood). Returns how many characters changed place.
    fn deal_by_level(&mut self, crowd: &mut InstanceStore) -> usize {
        let n = crowd.len();
        let mut pool = std::mem::take(&mut self.pool);
        pool.clear();
        // The period deal's pool, its period left at 1: every group is computed.
        pool.extend((0..n).map(|i| (1, self.drawn_level(i), i as u32)));
        self.pool = pool;
        if self.pool.is_sorted_by_key(|&(_, level, _)| level) {
            return 0;
        }
        self.pool.sort_by_key(|&(_, level, _)| level);
        self.due.clear();
        self.due.extend(0..n.div_ceil(LANES));
        self.wanted.resize(n, 1);
        self.wanted_along.resize(n, 0.0);
        let moved = self.move_into_due(crowd);
        self.due.clear();
        moved
    }

    /// Moves the characters of `pool`, in its order, into the slots of the `due` groups
    /// (each character named by the slot it started the frame in), with everything kept per
    /// character; returns how many changed place.
    fn move_into_due(&mut self, crowd: &mut InstanceStore) -> usize {
        let n = crowd.len();
        // `at[c]`: where character `c` (named by the slot it started the frame in) is now;
        // `who[s]`: which character slot `s` holds.
        self.at.resize(n, 0);
        self.who.resize(n, 0);
        for &(_, _, c) in &self.pool {
            self.at[c as usize] = c;
            self.who[c as usize] = c;
        }
        let mut moved = 0;
        let mut slot_index = 0;
        for k in 0..self.due.len() {
            let g = self.due[k];
            for slot in g * LANES..n.min((g + 1) * LANES) {
                let character = self.pool[slot_index].2 as usize;
                slot_index += 1;
                let from = self.at[character] as usize;
                if from == slot {
                    continue;
                }
                moved += 1;
                let other = self.who[slot] as usize;
                crowd.swap(slot, from);
                self.visible.swap(slot, from);
                self.px_per_unit.swap(slot, from);
                if self.mesh_levels.len() == n {
                    self.mesh_levels.swap(slot, from);
                }
                self.placed.swap(slot, from);
                self.wanted.swap(slot, from);
                self.wanted_along.swap(slot, from);
                self.at[character] = slot as u32;
                self.who[slot] = character as u32;
                self.at[other] = from as u32;
                self.who[from] = other as u32;
            }
        }
        moved
    }

    /// After a frame that computed everything: spreads each period's groups over that
    /// period's frames, in blocks of neighbours, so later frames update about the same
    /// number in long runs.
    fn stagger(&mut self, frame: u64) {
        for &period in &PERIODS {
            let count = self.group_period.iter().filter(|&&p| p == period).count() as u64;
            let mut rank = 0u64;
            for g in 0..self.group_period.len() {
                if self.group_period[g] == period {
                    self.next_due[g] = frame + 1 + rank * period as u64 / count;
                    rank += 1;
                }
            }
        }
    }
}
