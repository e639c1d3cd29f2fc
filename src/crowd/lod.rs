//! Update-rate LOD: each character is recomputed every 1, 2, 4 or 8 frames, the period
//! chosen from a bound on the screen-space error that skipping frames causes.
//!
//! How it works: at first use, for each (clip, blend clip, blend weight, method) the
//! crowd plays, [`ClipMotion::measure`] skins the clip through the f64 oracle at 240 Hz and
//! keeps the fastest any vertex moves (clip-seconds, model units; the loop's wrap
//! included) and a sphere around every pose (the clip's animated bounds). Each frame
//! [`Lod::plan`] places each character's sphere in the world: outside the view frustum it
//! is not drawn and takes the longest period; inside, a vertex shown `k` frames late is at
//! most `speed × k × frame time` from where it should be, which at the sphere's nearest
//! depth `z` covers at most `focal × that / z × √(1 + a² + b²)` pixels (a world
//! displacement `d` moves the projection by `focal/z · |M d|`, and `|M|` is that square root,
//! `a`, `b` the largest `|x/z|`, `|y/z|` in the character's sphere, at most the frustum's
//! edges: a character ahead moves less on screen than one at the image's corner). The
//! longest period whose `k = period - 1` stays under the threshold wins, up to the cap.
//!
//! The pipeline computes groups of eight instances (the lane width), so a group runs at
//! its members' shortest period. Characters play random clips at different speeds, so
//! neighbours rarely want the same period: [`Lod::plan`] swaps characters between groups
//! (their handles follow) until most groups hold one period, and a swapped slot is
//! recomputed once. A group updates when `(frame + phase) % period
//! == 0`, or when it is `period` frames old (after its period shrank); the phase is the
//! group's index divided by [`STAGGER_RUN`]: every frame updates about the same number, in
//! runs of consecutive groups (one upload each). Seed 003's dirty idea: a group whose
//! instances are exactly what its vertices were computed from (paused, speed 0) is not
//! recomputed at all. [`Lod::shown`] keeps, per instance, what its vertices on the GPU
//! were computed from: verification checks the frame against it, and [`measure_error`]
//! compares it with a full-rate frame.

use std::collections::HashMap;
use std::ops::Range;
use std::time::Instant;

use glam::{DVec3, Mat4, Vec2, Vec3, Vec4, Vec4Swizzles};

use super::instances::{Instance, InstanceStore};
use super::pipeline::{FrameError, Pipeline, sample_instance};
use super::timing::Stage;
use crate::anim::blend::blend_reference;
use crate::anim::hierarchy::reference::{self, LocalF64};
use crate::prepare::PreparedRig;
use crate::skin::{OutputBuffer, SkinMethod};
use crate::types::LANES;

/// The update periods, frames.
pub const PERIODS: [u8; 4] = [1, 2, 4, 8];
/// Consecutive groups that share a stagger phase, so the groups a frame updates come in
/// runs this long (one upload and one copy per run).
pub const STAGGER_RUN: usize = 8;
/// Samples per clip-second when measuring a clip's motion.
pub const MOTION_RATE_HZ: f64 = 240.0;
/// At most this many poses per clip are measured (a longer clip is sampled more coarsely).
const MAX_MOTION_SAMPLES: usize = 2048;

/// The user's LOD settings.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LodSettings {
    pub enabled: bool,
    /// The screen-space error allowed, pixels.
    pub threshold_px: f32,
    /// The longest period, frames: 1, 2, 4 or 8.
    pub max_period: u8,
}

impl Default for LodSettings {
    fn default() -> Self {
        LodSettings {
            enabled: false,
            threshold_px: 1.0,
            max_period: 8,
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LodError {
    #[error("LOD threshold {0} px is not a number from 0.01 to 100")]
    Threshold(f32),
    #[error("LOD period cap {0} is not one of 1, 2, 4, 8")]
    MaxPeriod(u32),
}

impl LodSettings {
    pub fn check_threshold(px: f32) -> Result<f32, LodError> {
        if (0.01..=100.0).contains(&px) {
            Ok(px)
        } else {
            Err(LodError::Threshold(px))
        }
    }

    pub fn check_max_period(frames: u32) -> Result<u8, LodError> {
        PERIODS
            .iter()
            .copied()
            .find(|&p| p as u32 == frames)
            .ok_or(LodError::MaxPeriod(frames))
    }

    pub fn validate(&self) -> Result<(), LodError> {
        Self::check_threshold(self.threshold_px)?;
        Self::check_max_period(self.max_period as u32)?;
        Ok(())
    }
}

/// What the camera sees, for culling and for the size of a world distance on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodView {
    pub view_from_world: Mat4,
    pub clip_from_world: Mat4,
    /// Pixels per unit of `x/z` or `y/z` in view space (half the height over tan(fov/2)).
    pub focal_px: f32,
    /// `tan(fov_x/2)`, `tan(fov_y/2)`: the most `|x/z|`, `|y/z|` a point on screen has.
    pub tan_half_fov: Vec2,
    pub near: f32,
    pub viewport_px: Vec2,
    /// The frustum's planes (inside: `dot(plane, (p, 1)) >= 0`), normalised.
    planes: [Vec4; 6],
}

impl LodView {
    /// A perspective view (`perspective_rh`, vertical field of view `fov_y_rad`) of a
    /// `viewport_px` image.
    pub fn new(
        view_from_world: Mat4,
        fov_y_rad: f32,
        near: f32,
        far: f32,
        viewport_px: Vec2,
    ) -> Self {
        let aspect = viewport_px.x / viewport_px.y.max(1.0);
        let clip_from_view = Mat4::perspective_rh(fov_y_rad, aspect.max(0.01), near, far);
        let clip_from_world = clip_from_view * view_from_world;
        let tan_y = (fov_y_rad * 0.5).tan();
        let tan_x = tan_y * aspect;
        // Gribb–Hartmann: each plane is a sum or difference of the matrix's rows (wgpu's
        // depth runs 0..1, so the near plane is the third row alone).
        let m = clip_from_world.transpose();
        let (r0, r1, r2, r3) = (m.x_axis, m.y_axis, m.z_axis, m.w_axis);
        let planes = [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2]
            .map(|p| p / p.xyz().length().max(f32::MIN_POSITIVE));
        LodView {
            view_from_world,
            clip_from_world,
            focal_px: viewport_px.y * 0.5 / tan_y,
            tan_half_fov: Vec2::new(tan_x, tan_y),
            near,
            viewport_px,
            planes,
        }
    }

    /// Whether any part of the sphere may be inside the frustum.
    pub fn sees(&self, center: Vec3, radius: f32) -> bool {
        self.planes
            .iter()
            .all(|p| p.xyz().dot(center) + p.w >= -radius)
    }

    /// How much more than `focal / z · |d|` pixels a world displacement `d` anywhere in
    /// the sphere may move on screen: `√(1 + a² + b²)`, the norm of the projection's
    /// derivative with `a`, `b` the largest `|x/z|`, `|y/z|` a point of the sphere (in front
    /// of `depth`) has, and at most the frustum's edges (points off screen draw nothing).
    pub fn off_axis(&self, view_center: Vec3, radius: f32, depth: f32) -> f32 {
        let a = ((view_center.x.abs() + radius) / depth).min(self.tan_half_fov.x);
        let b = ((view_center.y.abs() + radius) / depth).min(self.tan_half_fov.y);
        (1.0 + a * a + b * b).sqrt()
    }

    /// Distance in front of the camera (view-space −z).
    pub fn depth(&self, world: Vec3) -> f32 {
        -(self.view_from_world * world.extend(1.0)).z
    }

    /// Where `world` lands in the image, pixels; `None` behind the near plane.
    pub fn project_px(&self, world: Vec3) -> Option<Vec2> {
        let clip = self.clip_from_world * world.extend(1.0);
        if clip.w < self.near {
            return None;
        }
        let ndc = clip.xy() / clip.w;
        Some(Vec2::new(
            (ndc.x + 1.0) * 0.5 * self.viewport_px.x,
            (1.0 - ndc.y) * 0.5 * self.viewport_px.y,
        ))
    }
}

/// How fast a clip moves the mesh, and where it reaches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipMotion {
    /// The fastest any vertex moves, model units per clip-second.
    pub max_vertex_speed: f32,
    /// A sphere around every vertex of every pose, model space.
    pub center: Vec3,
    pub radius: f32,
}

/// Which motion a character plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct MotionKey {
    clip: u16,
    /// The blend clip and the weight's bits, when blending.
    blend: Option<(u16, u32)>,
    dual_quat: bool,
}

impl ClipMotion {
    /// Skins `clip` (cross-faded towards `blend` = (clip, weight) when given) through the
    /// f64 oracle at [`MOTION_RATE_HZ`] over one loop and one step past it.
    pub fn measure(
        rig: &PreparedRig,
        clip: u16,
        blend: Option<(u16, f32)>,
        method: SkinMethod,
    ) -> ClipMotion {
        let duration = rig
            .clips
            .get(clip as usize)
            .map_or(0.0, |c| c.duration_secs as f64);
        let samples = ((duration * MOTION_RATE_HZ).ceil() as usize).clamp(1, MAX_MOTION_SAMPLES);
        let step = if duration > 0.0 {
            duration / samples as f64
        } else {
            1.0
        };
        let mut locals = rig.rest_pose.clone();
        let mut other = rig.rest_pose.clone();
        let mut previous: Vec<DVec3> = Vec::new();
        let mut fastest = 0.0f64;
        let mut min = DVec3::splat(f64::INFINITY);
        let mut max = DVec3::splat(f64::NEG_INFINITY);
        // One step past the end: the wrap from the last pose to the first is motion too.
        for s in 0..=samples {
            let time_secs = (s as f64 * step) as f32;
            sample_instance(rig, clip, time_secs, &mut locals);
            let pose: Vec<LocalF64> = match blend {
                Some((blend_clip, weight)) => {
                    sample_instance(rig, blend_clip, time_secs, &mut other);
                    blend_reference(&locals, &other, weight as f64)
                }
                None => locals.iter().map(LocalF64::from).collect(),
            };
            let model = reference::model_from_joint_f64(&rig.skeleton, &pose);
            let palette = reference::palette(&rig.skeleton, &model);
            let (positions, _) = match method {
                SkinMethod::Linear => crate::skin::reference::skin(&rig.source_mesh, &palette),
                SkinMethod::DualQuat => {
                    crate::skin::reference::skin_dual_quat(&rig.source_mesh, &palette)
                }
            };
            for (v, p) in positions.iter().enumerate() {
                if let Some(q) = previous.get(v) {
                    fastest = fastest.max((*p - *q).length() / step);
                }
                min = min.min(*p);
                max = max.max(*p);
            }
            previous = positions;
        }
        if !(min.is_finite() && max.is_finite() && fastest.is_finite()) {
            // An empty or non-finite mesh: nothing to bound, so never skip it.
            return ClipMotion {
                max_vertex_speed: f32::INFINITY,
                center: Vec3::ZERO,
                radius: f32::INFINITY,
            };
        }
        ClipMotion {
            max_vertex_speed: fastest as f32,
            center: ((min + max) * 0.5).as_vec3(),
            radius: ((max - min).length() * 0.5) as f32,
        }
    }
}

/// How many characters did what in the last planned frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct LodStats {
    /// Drawn characters at each period of [`PERIODS`] (their group's period).
    pub at_period: [usize; 4],
    /// Characters outside the view (not drawn, longest period).
    pub culled: usize,
    /// Characters recomputed this frame.
    pub updated: usize,
    /// Characters due this frame but not recomputed: unchanged since their last update.
    pub unchanged: usize,
    /// Characters swapped into a group of their period this frame.
    pub moved: usize,
    /// The planning's own time, µs.
    pub plan_us: f64,
}

/// The LOD state of one crowd: what each group's vertices were computed from and when.
#[derive(Default)]
pub struct Lod {
    motions: HashMap<MotionKey, ClipMotion>,
    frame: u64,
    /// Per group: the frame it was last computed in.
    last_update: Vec<u64>,
    /// Per instance: the instance as its vertices on the GPU were computed.
    shown: Vec<Instance>,
    /// Per instance: inside the view.
    visible: Vec<bool>,
    runs: Vec<Range<usize>>,
    /// Per instance: the period it wants this frame.
    want: Vec<u8>,
    moved_characters: usize,
    /// Whether the vertices on the GPU are those `shown` describes.
    valid: bool,
    pub stats: LodStats,
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

    /// The groups the last plan computes.
    pub fn runs(&self) -> &[Range<usize>] {
        &self.runs
    }

    /// The motion of a character playing `instance` with `input`'s blend and method.
    fn motion(&mut self, input: &PlanInput<'_>, instance: &Instance) -> ClipMotion {
        let key = MotionKey {
            clip: instance.clip,
            blend: (input.blend_weight > 0.0)
                .then_some((instance.blend_clip, input.blend_weight.to_bits())),
            dual_quat: input.method == SkinMethod::DualQuat,
        };
        *self.motions.entry(key).or_insert_with(|| {
            ClipMotion::measure(
                input.rig,
                instance.clip,
                key.blend.map(|(c, _)| (c, input.blend_weight)),
                input.method,
            )
        })
    }

    /// Decides which groups this frame computes (see the module docs) and returns them as
    /// runs of group indices. With LOD off, or after [`Self::invalidate`], every group.
    /// With LOD on it may swap characters between groups (handles follow them), so that
    /// the characters of a group want the same period.
    pub fn plan(&mut self, input: &PlanInput<'_>, crowd: &mut InstanceStore) -> &[Range<usize>] {
        let start = Instant::now();
        let n = crowd.len();
        let groups = n.div_ceil(LANES);
        let frame = self.frame;
        self.frame += 1;
        self.runs.clear();
        self.visible.resize(n, true);
        let mut stats = LodStats::default();
        if !self.valid || !input.settings.enabled || self.shown.len() != n {
            self.shown.clear();
            self.shown.extend_from_slice(crowd.as_slice());
            self.last_update.clear();
            self.last_update.resize(groups, frame);
            self.visible.fill(true);
            if groups > 0 {
                self.runs.push(0..groups);
            }
            self.valid = true;
            stats.at_period[0] = n;
            stats.updated = n;
            stats.plan_us = start.elapsed().as_secs_f64() * 1e6;
            self.stats = stats;
            return &self.runs;
        }
        self.wanted_periods(input, crowd.as_slice());
        let moved = self.regroup(crowd);
        let instances = crowd.as_slice();
        for g in 0..groups {
            let members = g * LANES..n.min((g + 1) * LANES);
            let period = members
                .clone()
                .map(|i| self.want[i])
                .min()
                .unwrap_or(input.settings.max_period);
            let count = members.len();
            let seen = members.clone().filter(|&i| self.visible[i]).count();
            stats.at_period[PERIODS.iter().position(|&p| p == period).unwrap_or(0)] += seen;
            stats.culled += count - seen;
            let period = period as u64;
            let phase = (g / STAGGER_RUN) as u64;
            let due = (frame + phase).is_multiple_of(period)
                || frame.saturating_sub(self.last_update[g]) >= period
                || moved.binary_search(&g).is_ok();
            if !due {
                continue;
            }
            if self.shown[members.clone()] == instances[members.clone()] {
                stats.unchanged += count;
                continue;
            }
            self.shown[members.clone()].copy_from_slice(&instances[members]);
            self.last_update[g] = frame;
            stats.updated += count;
            match self.runs.last_mut() {
                Some(run) if run.end == g => run.end = g + 1,
                _ => self.runs.push(g..g + 1),
            }
        }
        stats.moved = self.moved_characters;
        stats.plan_us = start.elapsed().as_secs_f64() * 1e6;
        self.stats = stats;
        &self.runs
    }

    /// Each character's own period (`want`) and whether it is in view (`visible`).
    fn wanted_periods(&mut self, input: &PlanInput<'_>, instances: &[Instance]) {
        let cap = input.settings.max_period;
        let scale = {
            let m = input.world_from_model;
            m.x_axis
                .xyz()
                .length()
                .max(m.y_axis.xyz().length())
                .max(m.z_axis.xyz().length())
        };
        let view = input.view;
        // Pixels one frame of staleness costs per (model units per clip-second) at depth 1,
        // straight ahead.
        let px_per_speed = input.frame_clip_secs.abs() * scale * view.focal_px;
        let threshold = input.settings.threshold_px;
        self.want.clear();
        for (i, instance) in instances.iter().enumerate() {
            let motion = self.motion(input, instance);
            let [x, z] = instance.ground_position;
            let center = Mat4::from_translation(Vec3::new(x, 0.0, z))
                .transform_point3(input.world_from_model.transform_point3(motion.center));
            let radius = motion.radius * scale;
            let visible = view.sees(center, radius);
            self.visible[i] = visible;
            let period = if visible {
                let view_center = view.view_from_world.transform_point3(center);
                let depth = (-view_center.z - radius).max(view.near);
                let px_per_frame = motion.max_vertex_speed
                    * instance.speed.abs()
                    * px_per_speed
                    * view.off_axis(view_center, radius, depth)
                    / depth;
                PERIODS
                    .iter()
                    .copied()
                    .filter(|&p| p <= cap)
                    .rfind(|&p| (p - 1) as f32 * px_per_frame <= threshold)
                    .unwrap_or(1)
            } else {
                cap
            };
            self.want.push(period);
        }
    }

    /// Swaps characters between groups so that a group's members want one period. Each
    /// period with `c` characters gets `c / 8` whole groups, chosen among the groups where
    /// most members already want it (so a still camera settles and moves nobody after);
    /// every slot of such a group taken by a character of another period is swapped with
    /// a character of this period sitting outside its period's groups. What is left over
    /// shares mixed groups, which run at the shortest period a member wants. Returns the
    /// groups whose members changed: their vertices on the GPU belong to other characters
    /// now.
    fn regroup(&mut self, crowd: &mut InstanceStore) -> Vec<usize> {
        let n = crowd.len();
        let groups = n.div_ceil(LANES);
        let class = |p: u8| PERIODS.iter().position(|&q| q == p).unwrap_or(0);
        const MIXED: u8 = u8::MAX;
        let mut counts = [0usize; 4];
        let mut votes = vec![[0u8; 4]; groups];
        for (i, &p) in self.want.iter().enumerate() {
            counts[class(p)] += 1;
            votes[i / LANES][class(p)] += 1;
        }
        // Whole groups only: a partial last group stays mixed.
        let whole = n / LANES;
        let mut group_class = vec![MIXED; groups];
        for c in 0..4 {
            let mut candidates: Vec<usize> = (0..whole)
                .filter(|&g| group_class[g] == MIXED && votes[g][c] > 0)
                .collect();
            candidates.sort_by_key(|&g| std::cmp::Reverse(votes[g][c]));
            for &g in candidates.iter().take(counts[c] / LANES) {
                group_class[g] = c as u8;
            }
        }
        let mut moved = Vec::new();
        self.moved_characters = 0;
        for c in 0..4u8 {
            // Characters of period `c` outside its groups, and the slots in its groups that
            // others hold.
            let movers: Vec<usize> = (0..n)
                .filter(|&i| class(self.want[i]) == c as usize && group_class[i / LANES] != c)
                .collect();
            let holes: Vec<usize> = (0..n)
                .filter(|&i| group_class[i / LANES] == c && class(self.want[i]) != c as usize)
                .collect();
            for (&i, &j) in holes.iter().zip(&movers) {
                crowd.swap(i, j);
                self.want.swap(i, j);
                self.visible.swap(i, j);
                // What each slot shows is the other character's old pose: it must be
                // recomputed, whatever the dirty check would say.
                self.shown[i].time_secs = f32::NAN;
                self.shown[j].time_secs = f32::NAN;
                moved.push(i / LANES);
                moved.push(j / LANES);
                self.moved_characters += 2;
            }
        }
        moved.sort_unstable();
        moved.dedup();
        moved
    }
}

/// The largest screen-space displacement between what is shown and a full-rate frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct MeasuredError {
    pub max_px: f32,
    /// Visible characters shown with an older pose than the full-rate frame's.
    pub stale_characters: usize,
    /// How many of them were compared (all, or an even spread of at most the limit).
    pub compared: usize,
}

/// Characters a measurement skins at a time (two buffers of this many).
const MEASURE_BATCH: usize = 256;

/// Skins, aside with `pipeline` (a CPU skin variant), every visible character both as
/// `shown` and as `current`, projects both through `view` and returns the largest
/// displacement in pixels. Characters shown with their current state move 0 and are
/// skipped; with `limit`, at most that many stale characters, spread evenly over them,
/// are compared (the app's once-a-second check stays short; the bench compares all).
pub fn measure_error(
    pipeline: &mut Pipeline,
    shown: &[Instance],
    current: &[Instance],
    visible: &[bool],
    world_from_model: Mat4,
    view: &LodView,
    limit: Option<usize>,
) -> Result<MeasuredError, FrameError> {
    let layout = *pipeline.output_layout();
    let rig = pipeline.rig().clone();
    let stale: Vec<usize> = (0..current.len().min(shown.len()).min(visible.len()))
        .filter(|&i| visible[i] && shown[i] != current[i])
        .collect();
    let stale_characters = stale.len();
    let stale: Vec<usize> = match limit {
        Some(limit) if limit < stale.len() => {
            (0..limit).map(|k| stale[k * stale.len() / limit]).collect()
        }
        _ => stale,
    };
    let mut result = MeasuredError {
        max_px: 0.0,
        stale_characters,
        compared: stale.len(),
    };
    let mut out_shown = OutputBuffer::for_instances(&layout, MEASURE_BATCH);
    let mut out_current = OutputBuffer::for_instances(&layout, MEASURE_BATCH);
    for batch in stale.chunks(MEASURE_BATCH) {
        let a: Vec<Instance> = batch.iter().map(|&i| shown[i]).collect();
        let b: Vec<Instance> = batch.iter().map(|&i| current[i]).collect();
        pipeline.run_frame_until(&a, out_shown.as_bytes_mut(), Stage::Skin)?;
        pipeline.run_frame_until(&b, out_current.as_bytes_mut(), Stage::Skin)?;
        for (k, &i) in batch.iter().enumerate() {
            let [x, z] = current[i].ground_position;
            let world = Mat4::from_translation(Vec3::new(x, 0.0, z)) * world_from_model;
            let (pa, _) = layout.read_instance(&rig.mesh, out_shown.as_bytes(), k)?;
            let (pb, _) = layout.read_instance(&rig.mesh, out_current.as_bytes(), k)?;
            for (p, q) in pa.iter().zip(&pb) {
                let (Some(sp), Some(sq)) = (
                    view.project_px(world.transform_point3(*p)),
                    view.project_px(world.transform_point3(*q)),
                ) else {
                    continue;
                };
                result.max_px = result.max_px.max(sp.distance(sq));
            }
        }
    }
    Ok(result)
}
