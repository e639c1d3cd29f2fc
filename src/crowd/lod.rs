//! Update-rate LOD: each character is recomputed every 1, 2, 4 or 8 frames, the period
//! chosen from a bound on the screen-space error that showing an older pose causes.
//!
//! How it works: at first use, for each (clip, blend clip, blend weight, method) the
//! crowd plays, [`ClipMotion::measure`] skins the clip through the f64 oracle at 240 Hz
//! and at every key time (where a speed may jump), keeps per step the farthest any vertex
//! moves in it (the loop's wrap included), summed along the loop, and a sphere around
//! every pose (the clip's animated bounds). [`ClipMotion::travel`] then bounds how far
//! any vertex gets between two clip times by the steps in between: a running hand is fast
//! mid-swing and slow at the ends, so a character whose next frames fall in a slow part
//! of its clip may skip more of them than the clip's fastest moment would allow. A
//! cross-fade of two clips whose loops differ in length repeats only when both align, so
//! it has no such table: those characters are recomputed every frame.
//!
//! Each frame [`Lod::plan`] places each character's sphere in the world. Outside the view
//! frustum it is not drawn. Inside, a world displacement `d` at depth `z` moves the
//! projection by at most `focal / z · |d| · √(1 + a² + b²)` pixels (`a`, `b` the largest
//! `|x/z|`, `|y/z|` in the sphere, at most the frustum's edges); taken at the sphere's
//! nearest depth that gives the character's pixels per model unit. A group of eight is
//! recomputed when it is due (its period has passed since its last update) or when any
//! member's shown pose is already more than the threshold from its current one (the
//! camera came closer, a frame took longer, a clip changed): so every frame shown keeps
//! the bound, whatever the prediction said. The period a character gets when it is
//! recomputed is the longest (up to the cap) whose next frames stay under the threshold;
//! outside the view, the cap.
//!
//! The pipeline computes groups of eight instances (the lane width), so a group runs at
//! its members' shortest period. Periods follow the clip's phase, so they change as the
//! characters move through their clips: the members of the groups recomputed this frame
//! are sorted by their new period and dealt back into those same groups (their handles
//! follow them). Moving a character costs nothing, since every one of those groups is
//! computed anyway, and each group then holds one period (at most three hold two). The
//! first frame (or one after [`Lod::invalidate`]) computes everything and staggers each
//! period's groups over its frames in blocks, so every frame updates about the same
//! number in runs of neighbouring groups (one upload each); from then on a group is next
//! due `period` frames after its update. Seed 003's dirty idea: a due group whose
//! instances are exactly what its vertices were computed from (paused, speed 0) is not
//! recomputed at all. [`Lod::shown`] keeps, per instance, what its vertices on the GPU
//! were computed from: verification checks the frame against it, and [`measure_error`]
//! compares it with a full-rate frame. [`fewest_updates`] computes what no schedule can
//! beat: the exact error of every skipped frame for a sample of characters, and the
//! fewest recomputations that keep each one under the threshold.

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
        self.px_from_clip(self.clip_from_world * world.extend(1.0))
    }

    /// Where a point at clip-space `clip` (of this view's `clip_from_world`) lands in the
    /// image, pixels; `None` behind the near plane.
    fn px_from_clip(&self, clip: Vec4) -> Option<Vec2> {
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

/// How far a clip moves the mesh over each part of its loop, and where it reaches.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipMotion {
    /// The fastest any vertex moves, model units per clip-second.
    pub max_vertex_speed: f32,
    /// A sphere around every vertex of every pose, model space.
    pub center: Vec3,
    pub radius: f32,
    bound: MotionBound,
}

/// How [`ClipMotion::travel`] bounds a motion.
#[derive(Clone, Debug, PartialEq)]
enum MotionBound {
    /// One pose: nothing moves.
    Still,
    /// Nothing to bound it with: a mesh that is not finite, or a cross-fade of two loops
    /// of different lengths (it repeats only when both align, which may be never), so no
    /// table of one loop holds it. Such a character is recomputed every frame.
    Unbounded,
    Table(MotionTable),
}

/// The summed motion along one loop, measured at poses of known times.
#[derive(Clone, Debug, PartialEq)]
struct MotionTable {
    duration_secs: f64,
    per_duration: f64,
    /// The measured poses' times over one loop, increasing, from 0 to the duration: an
    /// even grid at [`MOTION_RATE_HZ`], every track's key times (where speeds may jump, so
    /// within a step a vertex's speed is smooth), and the last moment before the loop
    /// wraps (a loop whose ends differ jumps there).
    times_secs: Vec<f64>,
    /// `travelled[k]`: the sum over the steps before pose `k` of the farthest any vertex
    /// moves in that step.
    travelled: Vec<f64>,
    /// Per step: how fast a vertex may move inside it, model units per clip-second, for
    /// a time that cuts the step: the fastest of the step and its neighbours (a speed
    /// rising through a step peaks inside it above the step's own average; the
    /// neighbours' cover that to second order). Infinite where the step counts whole:
    /// a jump (a step too short to be motion, as a loop's wrap) or any step of a clip
    /// with a STEP track (it jumps at a key, and nothing says how a step's motion is
    /// spread) or with too many keys to measure each.
    partial_speed: Vec<f64>,
    /// Added to any part of a step: [`PARTIAL_SLACK`] of the longest step's travel.
    partial_slack: f64,
    /// `grid_pose[c]`: the pose at grid point `c` (its index in `times_secs`).
    grid_pose: Vec<u32>,
    grid_per_sec: f64,
}

/// What a part of a step adds besides its speed times its time, as a share of the
/// clip's longest step: a vertex turning or peaking inside a step outruns the chords
/// around it by a second-order amount (the most seen, over 1,500 windows inside a step in
/// each clip of the built-in and public rigs, was 0.4 % of the longest step; this is five
/// times that, and `travel_bounds_every_vertex` checks the bound with it).
const PARTIAL_SLACK: f64 = 0.02;

/// A step shorter than this, clip-seconds, is a jump, not motion.
const JUMP_SECS: f64 = 1e-5;

/// Which motion a character plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct MotionKey {
    clip: u16,
    /// The blend clip and the weight's bits, when blending.
    blend: Option<(u16, u32)>,
    dual_quat: bool,
}

/// Keys beyond this many per loop (besides the grid) are not measured one by one: the
/// clip's steps then count whole (and measuring stays within twice the grid's poses).
const MAX_MOTION_KEYS: usize = MAX_MOTION_SAMPLES;

impl ClipMotion {
    /// No bound: recomputed every frame, never culled.
    fn unbounded() -> ClipMotion {
        ClipMotion {
            max_vertex_speed: f32::INFINITY,
            center: Vec3::ZERO,
            radius: f32::INFINITY,
            bound: MotionBound::Unbounded,
        }
    }

    /// Skins `clip` (cross-faded towards `blend` = (clip, weight) when given) through the
    /// f64 oracle over one loop: at [`MOTION_RATE_HZ`], at every key time, just before the
    /// wrap and at the wrap (which shows the first pose again: that step is motion too). A
    /// blend of clips whose loops differ in length gets no table: its characters are
    /// recomputed every frame (see [`Self::is_unbounded`]).
    pub fn measure(
        rig: &PreparedRig,
        clip: u16,
        blend: Option<(u16, f32)>,
        method: SkinMethod,
    ) -> ClipMotion {
        let Some(first) = rig.clips.get(clip as usize) else {
            return Self::measure_at(rig, clip, None, method, &[0.0], false, 0.0);
        };
        let blend = blend.filter(|&(other, _)| other != clip);
        let (mut keys, mut stepped) = first.key_times();
        if let Some((other, _)) = blend {
            let Some(second) = rig.clips.get(other as usize) else {
                return Self::unbounded();
            };
            if second.duration_secs != first.duration_secs {
                return Self::unbounded();
            }
            let (more, more_stepped) = second.key_times();
            keys.extend(more);
            keys.sort_by(f32::total_cmp);
            stepped |= more_stepped;
        }
        let duration = first.duration_secs as f64;
        if !(duration > 0.0 && duration.is_finite()) {
            return Self::measure_at(rig, clip, blend, method, &[0.0], false, 0.0);
        }
        let (samples, grid_step) = motion_grid(duration);
        // The pose just before the wrap: the largest time below the duration that sampling
        // does not wrap to 0.
        let before_wrap = f32::from_bits(first.duration_secs.to_bits() - 1) as f64;
        // A key within f32 rounding of a grid point is that grid point.
        let tolerance = duration * 2e-7;
        let mut keys: Vec<f64> = keys
            .iter()
            .map(|&k| k as f64)
            .filter(|&k| k > 0.0 && k < before_wrap)
            .filter(|&k| {
                let nearest = (k / grid_step).round() * grid_step;
                (k - nearest).abs() > tolerance
            })
            .collect();
        if before_wrap > 0.0 {
            keys.push(before_wrap);
        }
        let (keys, whole_steps) = if keys.len() > MAX_MOTION_KEYS {
            (Vec::new(), true)
        } else {
            (keys, stepped)
        };
        // The grid and the keys, merged; the grid's last point is the duration (the wrap).
        let mut times = Vec::with_capacity(samples + 1 + keys.len());
        let mut keys = keys.iter().copied().peekable();
        for g in 0..=samples {
            let at = g as f64 * grid_step;
            while let Some(k) = keys.next_if(|&k| k < at) {
                if times.last().is_none_or(|&t: &f64| k > t) {
                    times.push(k);
                }
            }
            times.push(at);
        }
        Self::measure_at(rig, clip, blend, method, &times, whole_steps, duration)
    }

    /// Measures the poses at `times_secs` (one loop of `duration_secs`, grid at
    /// [`MOTION_RATE_HZ`]; a single time for a still clip).
    fn measure_at(
        rig: &PreparedRig,
        clip: u16,
        blend: Option<(u16, f32)>,
        method: SkinMethod,
        times_secs: &[f64],
        whole_steps: bool,
        duration_secs: f64,
    ) -> ClipMotion {
        let mut locals = rig.rest_pose.clone();
        let mut other = rig.rest_pose.clone();
        let mut previous: Vec<DVec3> = Vec::new();
        let mut travelled = Vec::with_capacity(times_secs.len());
        travelled.push(0.0f64);
        let mut fastest = 0.0f64;
        let mut longest_step = 0.0f64;
        let mut min = DVec3::splat(f64::INFINITY);
        let mut max = DVec3::splat(f64::NEG_INFINITY);
        for (k, &time_secs) in times_secs.iter().enumerate() {
            sample_instance(rig, clip, time_secs as f32, &mut locals);
            let pose: Vec<LocalF64> = match blend {
                Some((blend_clip, weight)) => {
                    sample_instance(rig, blend_clip, time_secs as f32, &mut other);
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
            if k > 0 {
                let farthest = positions
                    .iter()
                    .zip(&previous)
                    .map(|(p, q)| (*p - *q).length())
                    .fold(0.0f64, f64::max);
                let secs = time_secs - times_secs[k - 1];
                // A jump (a loop whose ends differ) is no speed, and no pose lies inside it.
                if secs >= JUMP_SECS {
                    longest_step = longest_step.max(farthest);
                    fastest = fastest.max(farthest / secs);
                }
                travelled.push(travelled[k - 1] + farthest);
            }
            for p in &positions {
                min = min.min(*p);
                max = max.max(*p);
            }
            previous = positions;
        }
        let whole_loop = travelled[travelled.len() - 1];
        if !(min.is_finite() && max.is_finite() && whole_loop.is_finite()) {
            // An empty or non-finite mesh: nothing to bound, so never skip it.
            return Self::unbounded();
        }
        // Between two measured poses a vertex stays within a step's travel of both.
        let center = ((min + max) * 0.5).as_vec3();
        let radius = ((max - min).length() * 0.5 + longest_step) as f32;
        if times_secs.len() < 2 {
            return ClipMotion {
                max_vertex_speed: 0.0,
                center,
                radius,
                bound: MotionBound::Still,
            };
        }
        let (samples, grid_step) = motion_grid(duration_secs);
        let mut grid_pose = Vec::with_capacity(samples + 1);
        for (k, &t) in times_secs.iter().enumerate() {
            if grid_pose.len() <= samples
                && t >= grid_pose.len() as f64 * grid_step - duration_secs * 1e-9
            {
                grid_pose.push(k as u32);
            }
        }
        let steps = times_secs.len() - 1;
        let speed = |k: usize| {
            let secs = times_secs[k + 1] - times_secs[k];
            if secs < JUMP_SECS {
                0.0
            } else {
                (travelled[k + 1] - travelled[k]) / secs
            }
        };
        let partial_speed = (0..steps)
            .map(|k| {
                if whole_steps || times_secs[k + 1] - times_secs[k] < JUMP_SECS {
                    return f64::INFINITY;
                }
                // The loop wraps: step 0's neighbour is the last step, and back.
                let before = speed((k + steps - 1) % steps);
                let after = speed((k + 1) % steps);
                speed(k).max(before).max(after)
            })
            .collect();
        ClipMotion {
            max_vertex_speed: fastest as f32,
            center,
            radius,
            bound: MotionBound::Table(MotionTable {
                duration_secs,
                per_duration: 1.0 / duration_secs,
                times_secs: times_secs.to_vec(),
                travelled,
                partial_speed,
                partial_slack: PARTIAL_SLACK * longest_step,
                grid_pose,
                grid_per_sec: 1.0 / grid_step,
            }),
        }
    }

    /// An upper bound on how far any vertex of the mesh gets between clip times `from_secs`
    /// and `to_secs` (either order), model units: the steps' farthest moves in between, a
    /// step cut by either time counted at its `partial_speed` for the part
    /// inside, and never more than the sphere's diameter.
    pub fn travel(&self, from_secs: f32, to_secs: f32) -> f32 {
        if from_secs == to_secs {
            return 0.0;
        }
        if !(from_secs.is_finite() && to_secs.is_finite()) {
            return f32::INFINITY;
        }
        match &self.bound {
            MotionBound::Still => 0.0,
            MotionBound::Unbounded => f32::INFINITY,
            MotionBound::Table(table) => {
                let (lo, hi) = if from_secs < to_secs {
                    (from_secs as f64, to_secs as f64)
                } else {
                    (to_secs as f64, from_secs as f64)
                };
                let (start, end) = (table.locate(lo), table.locate(hi));
                let summed = if start.loops == end.loops && start.step == end.step {
                    table.within(start, end)
                } else {
                    table.up_to(end) - table.from(start)
                };
                (summed.max(0.0) as f32).min(2.0 * self.radius)
            }
        }
    }

    /// Where the motion stands at `time_secs` seen as a window's start, for
    /// [`Self::travel_from`]; 0 where that does not use it.
    fn along(&self, time_secs: f32) -> f64 {
        match &self.bound {
            MotionBound::Table(table) if time_secs.is_finite() => {
                table.from(table.locate(time_secs as f64))
            }
            _ => 0.0,
        }
    }

    /// `travel` from a pose whose [`Self::along`] is known (the shown pose's, kept per
    /// instance) forwards to `to_secs` (backwards, as `travel`). A window inside one step
    /// counts that step's bound twice over: it is only ever a few milliseconds.
    fn travel_from(&self, from_along: f64, from_secs: f32, to_secs: f32) -> f32 {
        match &self.bound {
            MotionBound::Table(table) if to_secs > from_secs && to_secs.is_finite() => {
                let summed = table.up_to(table.locate(to_secs as f64)) - from_along;
                (summed.max(0.0) as f32).min(2.0 * self.radius)
            }
            _ => self.travel(from_secs, to_secs),
        }
    }

    /// Whether characters playing this are recomputed every frame (see
    /// `MotionBound::Unbounded`).
    pub fn is_unbounded(&self) -> bool {
        self.bound == MotionBound::Unbounded
    }
}

/// The even grid a loop of `duration_secs` is measured on: how many steps, and how long
/// each is (clip-seconds).
fn motion_grid(duration_secs: f64) -> (usize, f64) {
    let samples = ((duration_secs * MOTION_RATE_HZ).ceil() as usize).clamp(1, MAX_MOTION_SAMPLES);
    (samples, duration_secs / samples as f64)
}

/// A clip time in a [`MotionTable`]: whole loops before it, the step it falls in, and how
/// far into that step.
#[derive(Clone, Copy)]
struct Located {
    loops: f64,
    step: usize,
    fraction: f64,
}

impl MotionTable {
    fn locate(&self, time_secs: f64) -> Located {
        let last = self.times_secs.len() - 1;
        let loops = floor(time_secs * self.per_duration);
        let in_loop = time_secs - loops * self.duration_secs;
        let cell = ((in_loop * self.grid_per_sec) as usize).min(self.grid_pose.len() - 1);
        let mut step = (self.grid_pose[cell] as usize).min(last - 1);
        while step + 1 < last && self.times_secs[step + 1] <= in_loop {
            step += 1;
        }
        let start = self.times_secs[step];
        let fraction = ((in_loop - start) / (self.times_secs[step + 1] - start)).clamp(0.0, 1.0);
        Located {
            loops,
            step,
            fraction,
        }
    }

    /// The most any vertex moves in `fraction` of step `k` (all of it, where the step
    /// counts whole and the fraction is not 0).
    fn part(&self, k: usize, fraction: f64) -> f64 {
        let speed = self.partial_speed[k];
        let whole = self.travelled[k + 1] - self.travelled[k];
        if fraction <= 0.0 {
            0.0
        } else if speed.is_infinite() {
            whole
        } else {
            fraction * (self.times_secs[k + 1] - self.times_secs[k]) * speed + self.partial_slack
        }
    }

    fn whole_loop(&self) -> f64 {
        self.travelled[self.travelled.len() - 1]
    }

    /// The summed motion up to a window's end at `at`.
    fn up_to(&self, at: Located) -> f64 {
        at.loops * self.whole_loop() + self.travelled[at.step] + self.part(at.step, at.fraction)
    }

    /// The summed motion up to a window's start at `at`: what is left of its step counts
    /// from it.
    fn from(&self, at: Located) -> f64 {
        at.loops * self.whole_loop() + self.travelled[at.step + 1]
            - self.part(at.step, 1.0 - at.fraction)
    }

    /// The motion between two times in the same step.
    fn within(&self, start: Located, end: Located) -> f64 {
        self.part(start.step, end.fraction - start.fraction)
    }
}

/// `x.floor()` without the library call baseline x86-64 makes of it (no SSE4.1 rounding).
fn floor(x: f64) -> f64 {
    // From 2^52 on every f64 is a whole number (and `as i64` would saturate); NaN stays.
    if x.is_nan() || x.abs() >= 4_503_599_627_370_496.0 {
        return x;
    }
    let truncated = x as i64 as f64;
    if truncated > x {
        truncated - 1.0
    } else {
        truncated
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
    /// Characters whose motion has no bound (a cross-fade of two loops of different
    /// lengths): recomputed every frame, never culled.
    pub unbounded: usize,
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
    /// Scratch, reused: the groups computed this frame, their members with the period
    /// each wants, and where each of those characters is while they are dealt out.
    due: Vec<usize>,
    pool: Vec<(u8, u32)>,
    wanted: Vec<u8>,
    wanted_along: Vec<f64>,
    at: Vec<u32>,
    who: Vec<u32>,
    /// Whether the vertices on the GPU are those `shown` describes.
    valid: bool,
    pub stats: LodStats,
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

    /// The motion measured for `key`, measuring it at first use.
    fn motion_for(&mut self, input: &PlanInput<'_>, key: MotionKey) -> u32 {
        if let Some(&index) = self.motion_index.get(&key) {
            return index;
        }
        let motion = ClipMotion::measure(
            input.rig,
            key.clip,
            key.blend.map(|(c, _)| (c, input.blend_weight)),
            input.method,
        );
        let index = self.motions.len() as u32;
        self.motions.push(motion);
        self.motion_index.insert(key, index);
        index
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
        let mut stats = LodStats::default();
        let full = !self.valid || !input.settings.enabled || self.shown.len() != n;
        if !input.settings.enabled {
            self.shown.clear();
            self.shown.extend_from_slice(crowd.as_slice());
            self.visible.clear();
            self.visible.resize(n, true);
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
            self.due.extend(0..groups);
        } else {
            let instances = crowd.as_slice();
            for g in 0..groups {
                let members = g * LANES..n.min((g + 1) * LANES);
                let scheduled = self.next_due[g] <= frame;
                let forced = !scheduled
                    && members.clone().any(|i| {
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
                    });
                if !(scheduled || forced) {
                    continue;
                }
                if self.shown[members.clone()] == instances[members.clone()] {
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
                self.pool.push((period, i as u32));
            }
        }
        // Longest period first; ties keep their order, so a settled crowd stays put.
        self.pool
            .sort_by_key(|&(period, _)| std::cmp::Reverse(period));
        // `at[c]`: where character `c` (named by the slot it started the frame in) is now;
        // `who[s]`: which character slot `s` holds.
        self.at.resize(n, 0);
        self.who.resize(n, 0);
        for &(_, c) in &self.pool {
            self.at[c as usize] = c;
            self.who[c as usize] = c;
        }
        let mut moved = 0;
        let mut slot_index = 0;
        for k in 0..self.due.len() {
            let g = self.due[k];
            for slot in g * LANES..n.min((g + 1) * LANES) {
                let character = self.pool[slot_index].1 as usize;
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

/// The fewest recomputations per frame that any per-character schedule could make while
/// keeping every vertex within the threshold: what no bound-driven LOD can beat.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct UpdateFloor {
    pub threshold_px: f32,
    /// Characters recomputed per frame, at least: the sampled characters' fewest per frame
    /// scaled to every visible character, plus the culled ones at the period cap (what LOD
    /// gives them). Gaps of any length up to the cap.
    pub updates_per_frame: f64,
    /// The same with gaps of 1, 2, 4 or 8 frames only (LOD's periods): what that
    /// restriction costs.
    pub updates_per_frame_periods: f64,
    /// Visible characters whose every frame was skinned and compared.
    pub sampled: usize,
    pub visible: usize,
    pub culled: usize,
    /// Frames looked ahead per sampled character.
    pub frames: usize,
}

/// Computes [`UpdateFloor`]s for `thresholds_px`: for up to `sample` visible characters of
/// `crowd` (evenly spread), skins aside with `pipeline` (a CPU skin variant) each of the
/// next `frames` frames and `max_period - 1` more, projects every vertex through `view`,
/// and takes the exact error of showing frame `u`'s pose at frame `u + j` for every `u`
/// and `j < max_period` (the largest screen-space displacement of any vertex, as
/// [`measure_error`] measures it). The fewest updates keeping every frame within the
/// threshold, gaps of any length up to the cap, is a shortest path over the frames. One
/// update is taken off each character's count: in a running crowd the pose shown when the
/// window opens may have been computed before it, so the floor stays below what any
/// schedule needs over a long run. With `frames` covering the slowest clip's loop, the
/// window sees every phase.
#[allow(clippy::too_many_arguments)] // the inputs of one measurement, each needed
pub fn fewest_updates(
    pipeline: &mut Pipeline,
    crowd: &[Instance],
    visible: &[bool],
    world_from_model: Mat4,
    view: &LodView,
    frame_clip_secs: f32,
    thresholds_px: &[f32],
    max_period: u8,
    sample: usize,
    frames: usize,
) -> Result<Vec<UpdateFloor>, FrameError> {
    let layout = *pipeline.output_layout();
    let rig = pipeline.rig().clone();
    let cap = max_period.max(1) as usize;
    let frames = frames.max(1);
    let seen: Vec<usize> = (0..crowd.len().min(visible.len()))
        .filter(|&i| visible[i])
        .collect();
    let culled = crowd.len() - seen.len();
    let chosen: Vec<usize> = if sample < seen.len() {
        (0..sample).map(|k| seen[k * seen.len() / sample]).collect()
    } else {
        seen.clone()
    };
    // Each character at frames 0..frames + cap - 1, skinned a batch at a time.
    let poses = frames + cap - 1;
    let mut out = OutputBuffer::for_instances(&layout, MEASURE_BATCH);
    let mut batch = Vec::with_capacity(MEASURE_BATCH);
    let mut projected: Vec<Vec<Vec2>> = Vec::with_capacity(poses);
    // error[u * cap + j]: frame u's pose shown at frame u + j.
    let mut error = vec![0.0f32; frames * cap];
    let mut fewest_sum = vec![0.0f64; thresholds_px.len()];
    let mut fewest_periods_sum = vec![0.0f64; thresholds_px.len()];
    let any_gap: Vec<usize> = (1..=cap).collect();
    let periods: Vec<usize> = PERIODS
        .iter()
        .map(|&p| p as usize)
        .filter(|&p| p <= cap)
        .collect();
    for &i in &chosen {
        let character = crowd[i];
        let [x, z] = character.ground_position;
        let clip_from_model =
            view.clip_from_world * Mat4::from_translation(Vec3::new(x, 0.0, z)) * world_from_model;
        let per_frame = frame_clip_secs * character.speed;
        projected.clear();
        for first in (0..poses).step_by(MEASURE_BATCH) {
            batch.clear();
            batch.extend((first..poses.min(first + MEASURE_BATCH)).map(|f| Instance {
                time_secs: character.time_secs + f as f32 * per_frame,
                ..character
            }));
            pipeline.run_frame_until(&batch, out.as_bytes_mut(), Stage::Skin)?;
            for k in 0..batch.len() {
                let (positions, _) = layout.read_instance(&rig.mesh, out.as_bytes(), k)?;
                projected.push(
                    positions
                        .iter()
                        .map(|p| {
                            view.px_from_clip(clip_from_model * p.extend(1.0))
                                .unwrap_or(Vec2::NAN)
                        })
                        .collect(),
                );
            }
        }
        for u in 0..frames {
            for j in 1..cap {
                let largest_squared = projected[u]
                    .iter()
                    .zip(&projected[u + j])
                    .map(|(p, q)| p.distance_squared(*q))
                    .filter(|d| d.is_finite())
                    .fold(0.0f32, f32::max);
                error[u * cap + j] = largest_squared.sqrt();
            }
        }
        for (t, &threshold) in thresholds_px.iter().enumerate() {
            let fewest = fewest_covering(&error, frames, cap, &any_gap, threshold);
            fewest_sum[t] += (fewest - 1) as f64 / frames as f64;
            let fewest = fewest_covering(&error, frames, cap, &periods, threshold);
            fewest_periods_sum[t] += (fewest - 1) as f64 / frames as f64;
        }
    }
    let visible_count = seen.len();
    let per_frame = |sum: f64| {
        if chosen.is_empty() {
            0.0
        } else {
            sum / chosen.len() as f64 * visible_count as f64
        }
    } + culled as f64 / cap as f64;
    Ok(thresholds_px
        .iter()
        .zip(fewest_sum.iter().zip(&fewest_periods_sum))
        .map(|(&threshold_px, (&sum, &sum_periods))| UpdateFloor {
            threshold_px,
            updates_per_frame: per_frame(sum),
            updates_per_frame_periods: per_frame(sum_periods),
            sampled: chosen.len(),
            visible: visible_count,
            culled,
            frames,
        })
        .collect())
}

/// The fewest updates (the first at frame 0) after which every one of `frames` frames
/// shows a pose within `threshold` of its own: `error[u * cap + j]` is the error of
/// frame `u`'s pose shown at frame `u + j` (`j < cap`), and the gap from one update to the
/// next is one of `gaps` (each at most `cap`; the last update's pose may be shown to the
/// window's end for up to its gap). `fewest[u]` counts the updates up to one at frame `u`
/// that cover every frame before it.
pub fn fewest_covering(
    error: &[f32],
    frames: usize,
    cap: usize,
    gaps: &[usize],
    threshold: f32,
) -> usize {
    let covers = |u: usize, gap: usize| (1..gap).all(|j| error[u * cap + j] <= threshold);
    let mut fewest = vec![usize::MAX; frames];
    fewest[0] = 1;
    for u in 1..frames {
        for &gap in gaps.iter().filter(|&&g| (1..=cap.min(u)).contains(&g)) {
            let from = u - gap;
            if fewest[from] != usize::MAX && covers(from, gap) {
                fewest[u] = fewest[u].min(fewest[from] + 1);
            }
        }
    }
    // The last update must cover the frames after it to the end of the window.
    let longest = gaps
        .iter()
        .copied()
        .filter(|&g| g <= cap)
        .max()
        .unwrap_or(1);
    (frames.saturating_sub(longest)..frames)
        .filter(|&u| fewest[u] != usize::MAX && covers(u, frames - u))
        .map(|u| fewest[u])
        .min()
        .unwrap_or(frames)
}
