//! How far a clip moves the mesh over each part of its loop: measured once per motion
//! through the f64 oracle ([`ClipMotion::measure`]), then bounded between any two clip
//! times ([`ClipMotion::travel`]).

use glam::{DVec3, Vec3};

use super::formats::{MotionHeader, MotionKind};
use crate::anim::blend::blend_reference;
use crate::anim::hierarchy::reference::{self, LocalF64};
use crate::contract::to_words;
use crate::crowd::pipeline::sample_instance;
use crate::prepare::PreparedRig;
use crate::prepare::cache::MeasureCache;
use crate::skin::SkinMethod;
use crate::types::Qvs;
use crate::variant::Variant;

/// Samples per clip-second when measuring a clip's motion.
pub const MOTION_RATE_HZ: f64 = 240.0;
/// At most this many poses per clip are measured (a longer clip is sampled more coarsely).
const MAX_MOTION_SAMPLES: usize = 2048;

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
    /// Nothing to bound it with: a mesh that is not finite. Such a character is recomputed
    /// every frame, drawn at full detail and never culled.
    Unbounded,
    /// A sphere around every pose but no table of travel: a cross-fade of two loops of
    /// different lengths repeats only when both align (which may be never), so no table
    /// of one loop holds it, but every pose it shows pairs a time of one loop with a time
    /// of the other, and [`ClipMotion::measure_reach`] bounds all such pairs. Such a
    /// character is placed, culled and given its mesh level by the sphere, and recomputed
    /// every frame it is in view.
    Reach,
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

/// The poses a loop is measured at: one loop of `duration_secs`, on a grid at
/// [`MOTION_RATE_HZ`] with its keys; a single time for a still clip. `whole_steps`: every
/// step counts whole (see `MotionTable::partial_speed`).
#[derive(Clone, Copy)]
struct LoopTimes<'a> {
    times_secs: &'a [f64],
    whole_steps: bool,
    duration_secs: f64,
}

impl LoopTimes<'static> {
    const STILL: Self = LoopTimes {
        times_secs: &[0.0],
        whole_steps: false,
        duration_secs: 0.0,
    };
}

/// Which motion a character plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct MotionKey {
    pub(super) clip: u16,
    /// The blend clip and the weight's bits, when blending.
    pub(super) blend: Option<(u16, u32)>,
    pub(super) dual_quat: bool,
}

/// Samples per clip-second along each loop when bounding a cross-fade of two loops of
/// different lengths over every pair of their times ([`ClipMotion::measure_reach`]).
const REACH_RATE_HZ: f64 = 30.0;
/// At most this many pairs of times are measured for such a cross-fade (longer loops are
/// sampled more coarsely, and the sphere grows by the longer steps).
const MAX_REACH_POSES: usize = 768;

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
    /// blend of clips whose loops differ in length gets no table, only a sphere measured
    /// over a grid of every pair of the two loops' times: its characters are recomputed
    /// every frame they are in view.
    pub fn measure(
        rig: &PreparedRig,
        clip: u16,
        blend: Option<(u16, f32)>,
        method: SkinMethod,
        cache: Option<&MeasureCache>,
    ) -> ClipMotion {
        let Some(first) = rig.clips.get(clip as usize) else {
            return Self::measure_at(rig, clip, None, method, LoopTimes::STILL, None);
        };
        let blend = blend.filter(|&(other, _)| other != clip);
        let (mut keys, mut stepped) = first.key_times();
        if let Some((other, weight)) = blend {
            let Some(second) = rig.clips.get(other as usize) else {
                return Self::unbounded();
            };
            if second.duration_secs != first.duration_secs {
                return Self::measure_reach(rig, clip, (other, weight), method, cache);
            }
            let (more, more_stepped) = second.key_times();
            keys.extend(more);
            keys.sort_by(f32::total_cmp);
            stepped |= more_stepped;
        }
        let duration = first.duration_secs as f64;
        if !(duration > 0.0 && duration.is_finite()) {
            return Self::measure_at(rig, clip, blend, method, LoopTimes::STILL, None);
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
        let times = LoopTimes {
            times_secs: &times,
            whole_steps,
            duration_secs: duration,
        };
        Self::measure_at(rig, clip, blend, method, times, cache)
    }

    /// Bounds a cross-fade of two loops of different lengths: its pose at any clip time
    /// pairs a time of `clip`'s loop with one of the blend clip's, so a grid over every
    /// pair (at [`REACH_RATE_HZ`] along each loop, at most [`MAX_REACH_POSES`] pairs, each
    /// loop's last pose just before its wrap included) holds every pose it shows, to
    /// within a step along each loop. The sphere is the grid's box grown by the farthest
    /// any vertex moves in one step along each loop. There is no table of travel: a
    /// character playing it is recomputed every frame it is in view.
    fn measure_reach(
        rig: &PreparedRig,
        clip: u16,
        blend: (u16, f32),
        method: SkinMethod,
        cache: Option<&MeasureCache>,
    ) -> ClipMotion {
        let (blend_clip, weight) = blend;
        let loop_secs = |c: u16| rig.clips.get(c as usize).map_or(0.0, |c| c.duration_secs);
        let (first_secs, second_secs) = (loop_secs(clip), loop_secs(blend_clip));
        if !(first_secs > 0.0
            && first_secs.is_finite()
            && second_secs > 0.0
            && second_secs.is_finite())
        {
            return Self::unbounded();
        }
        let steps = |secs: f32| ((secs as f64 * REACH_RATE_HZ).ceil() as usize).max(1);
        let (mut first_steps, mut second_steps) = (steps(first_secs), steps(second_secs));
        // The grid holds (steps + 1)² points; shrink both axes alike to fit.
        let pairs = ((first_steps + 1) * (second_steps + 1)) as f64;
        if pairs > MAX_REACH_POSES as f64 {
            let shrink = (MAX_REACH_POSES as f64 / pairs).sqrt();
            first_steps = ((first_steps as f64 * shrink) as usize).max(1);
            second_steps = ((second_steps as f64 * shrink) as usize).max(1);
        }
        // Grid point `i` of a loop of `steps` steps: the last one is the largest time below
        // the duration that sampling does not wrap to 0 (the wrap itself may be a jump,
        // which is no motion and shows no pose between its ends).
        let time_at = |secs: f32, steps: usize, i: usize| -> f32 {
            if i == steps {
                f32::from_bits(secs.to_bits() - 1)
            } else {
                (i as f64 * secs as f64 / steps as f64) as f32
            }
        };
        // Lines of the grid: along the first loop at each of the second's points, then
        // along the second at each of the first's. Per line: the farthest step and the box.
        let along_first = second_steps + 1;
        let lines = along_first + first_steps + 1;
        let key = motion_key("reach", clip, Some(blend), method);
        let measured = cached_poses(cache, rig, &key, lines, || {
            crate::prepare::parallel::map(lines, |line| {
                let mut poser = OraclePoser::new(rig, clip, method);
                let along = line < along_first;
                let points = if along {
                    first_steps + 1
                } else {
                    second_steps + 1
                };
                // The pair of times of point `i` on this line.
                let at = |i: usize| {
                    if along {
                        (
                            time_at(first_secs, first_steps, i),
                            time_at(second_secs, second_steps, line),
                        )
                    } else {
                        (
                            time_at(first_secs, first_steps, line - along_first),
                            time_at(second_secs, second_steps, i),
                        )
                    }
                };
                let mut farthest = 0.0f64;
                let mut min = DVec3::splat(f64::INFINITY);
                let mut max = DVec3::splat(f64::NEG_INFINITY);
                let mut previous: Option<Vec<DVec3>> = None;
                for i in 0..points {
                    let (secs, blend_secs) = at(i);
                    let positions = poser.drawn_at(secs, Some((blend_clip, weight, blend_secs)));
                    if let Some(previous) = &previous {
                        farthest = farthest.max(farthest_move(&positions, previous));
                    }
                    let (lo, hi) = bounds(&positions);
                    (min, max) = (min.min(lo), max.max(hi));
                    previous = Some(positions);
                }
                (farthest, min, max)
            })
        });
        let mut step = [0.0f64; 2];
        let mut min = DVec3::splat(f64::INFINITY);
        let mut max = DVec3::splat(f64::NEG_INFINITY);
        for (line, (farthest, lo, hi)) in measured.into_iter().enumerate() {
            let axis = usize::from(line >= along_first);
            step[axis] = step[axis].max(farthest);
            min = min.min(lo);
            max = max.max(hi);
        }
        let radius = (max - min).length() * 0.5 + step[0] + step[1];
        if !(min.is_finite() && max.is_finite() && radius.is_finite()) {
            return Self::unbounded();
        }
        ClipMotion {
            max_vertex_speed: f32::INFINITY,
            center: ((min + max) * 0.5).as_vec3(),
            radius: radius as f32,
            bound: MotionBound::Reach,
        }
    }

    /// Measures the poses at `times`.
    fn measure_at(
        rig: &PreparedRig,
        clip: u16,
        blend: Option<(u16, f32)>,
        method: SkinMethod,
        times: LoopTimes<'_>,
        cache: Option<&MeasureCache>,
    ) -> ClipMotion {
        let LoopTimes {
            times_secs,
            whole_steps,
            duration_secs,
        } = times;
        // The drawn vertices at pose `k`, model space.
        let pose_at = |k: usize, poser: &mut OraclePoser| -> Vec<DVec3> {
            let time_secs = times_secs[k] as f32;
            let blend = blend.map(|(blend_clip, weight)| (blend_clip, weight, time_secs));
            poser.drawn_at(time_secs, blend)
        };
        // Poses are independent but each step needs the pose before it: every core takes a
        // run of poses and skins the one before its run too. Per pose: the farthest any
        // vertex moved since the previous pose (0 for the first), and its box.
        let key = motion_key("loop", clip, blend, method);
        let measured = cached_poses(cache, rig, &key, times_secs.len(), || {
            let runs = crate::prepare::parallel::chunks(times_secs.len());
            let per_run: Vec<Vec<(f64, DVec3, DVec3)>> =
                crate::prepare::parallel::map(runs.len(), |r| {
                    let run = runs[r].clone();
                    let mut poser = OraclePoser::new(rig, clip, method);
                    let mut previous = (run.start > 0).then(|| pose_at(run.start - 1, &mut poser));
                    run.map(|k| {
                        let positions = pose_at(k, &mut poser);
                        let farthest = previous
                            .as_ref()
                            .map_or(0.0, |previous| farthest_move(&positions, previous));
                        let (min, max) = bounds(&positions);
                        previous = Some(positions);
                        (farthest, min, max)
                    })
                    .collect()
                });
            per_run.into_iter().flatten().collect()
        });
        let mut travelled = Vec::with_capacity(times_secs.len());
        travelled.push(0.0f64);
        let mut fastest = 0.0f64;
        let mut longest_step = 0.0f64;
        let mut min = DVec3::splat(f64::INFINITY);
        let mut max = DVec3::splat(f64::NEG_INFINITY);
        for (k, (farthest, lo, hi)) in measured.into_iter().enumerate() {
            if k > 0 {
                let secs = times_secs[k] - times_secs[k - 1];
                // A jump (a loop whose ends differ) is no speed, and no pose lies inside it.
                if secs >= JUMP_SECS {
                    longest_step = longest_step.max(farthest);
                    fastest = fastest.max(farthest / secs);
                }
                travelled.push(travelled[k - 1] + farthest);
            }
            min = min.min(lo);
            max = max.max(hi);
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
            MotionBound::Unbounded | MotionBound::Reach => f32::INFINITY,
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
    pub(super) fn along(&self, time_secs: f32) -> f64 {
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
    pub(super) fn travel_from(&self, from_along: f64, from_secs: f32, to_secs: f32) -> f32 {
        match &self.bound {
            MotionBound::Table(table) if to_secs > from_secs && to_secs.is_finite() => {
                let summed = table.up_to(table.locate(to_secs as f64)) - from_along;
                (summed.max(0.0) as f32).min(2.0 * self.radius)
            }
            _ => self.travel(from_secs, to_secs),
        }
    }

    /// Appends this motion as the GPU's LOD pass reads it ([`super::formats`]): its
    /// [`MotionHeader`] at the current end of `words`, then its tables.
    pub(super) fn flatten_into(&self, words: &mut Vec<u32>) {
        let at = words.len();
        let header_words = std::mem::size_of::<MotionHeader>() / 4;
        words.resize(at + header_words, 0);
        let f = |x: f64| (x as f32).to_bits();
        let mut header = MotionHeader {
            kind: MotionKind::Still as u32,
            center_x: self.center.x,
            center_y: self.center.y,
            center_z: self.center.z,
            radius: self.radius,
            ..MotionHeader::default()
        };
        match &self.bound {
            MotionBound::Still => {}
            MotionBound::Unbounded => header.kind = MotionKind::Unbounded as u32,
            MotionBound::Reach => header.kind = MotionKind::Reach as u32,
            MotionBound::Table(t) => {
                header.kind = MotionKind::Table as u32;
                header.steps = (t.times_secs.len() - 1) as u32;
                header.duration_secs = t.duration_secs as f32;
                header.per_duration = t.per_duration as f32;
                header.grid_per_sec = t.grid_per_sec as f32;
                header.partial_slack = t.partial_slack as f32;
                header.whole_loop = t.whole_loop() as f32;
                header.grid_cells = t.grid_pose.len() as u32;
                header.times_at = words.len() as u32;
                words.extend(t.times_secs.iter().map(|&x| f(x)));
                header.travelled_at = words.len() as u32;
                words.extend(t.travelled.iter().map(|&x| f(x)));
                header.speeds_at = words.len() as u32;
                // A step that counts whole is marked by a negative speed.
                words.extend(t.partial_speed.iter().map(|&x| {
                    if x.is_finite() {
                        f(x)
                    } else {
                        (-1.0f32).to_bits()
                    }
                }));
                header.grid_at = words.len() as u32;
                words.extend_from_slice(&t.grid_pose);
            }
        }
        words[at..at + header_words].copy_from_slice(to_words(&header));
    }

    /// Whether nothing bounds how far this moves between two clip times, so characters
    /// playing it are recomputed every frame they are in view (see
    /// `MotionBound::Unbounded` and `MotionBound::Reach`).
    pub fn is_unbounded(&self) -> bool {
        matches!(self.bound, MotionBound::Unbounded | MotionBound::Reach)
    }
}

/// Poses one clip's drawn vertices through the f64 oracle, model space. Each thread that
/// measures poses holds its own, with its sampling scratch.
struct OraclePoser<'a> {
    rig: &'a PreparedRig,
    method: SkinMethod,
    clip: u16,
    locals: Vec<Qvs>,
    other: Vec<Qvs>,
}

impl<'a> OraclePoser<'a> {
    fn new(rig: &'a PreparedRig, clip: u16, method: SkinMethod) -> Self {
        OraclePoser {
            rig,
            method,
            clip,
            locals: rig.rest_pose.clone(),
            other: rig.rest_pose.clone(),
        }
    }

    /// The drawn vertices at `time_secs`, cross-faded towards `blend` = (clip, weight, its
    /// own time) when given.
    fn drawn_at(&mut self, time_secs: f32, blend: Option<(u16, f32, f32)>) -> Vec<DVec3> {
        let rig = self.rig;
        sample_instance(rig, self.clip, time_secs, &mut self.locals, None);
        let pose: Vec<LocalF64> = match blend {
            Some((blend_clip, weight, blend_secs)) => {
                sample_instance(rig, blend_clip, blend_secs, &mut self.other, None);
                blend_reference(&self.locals, &self.other, weight as f64)
            }
            None => self.locals.iter().map(LocalF64::from).collect(),
        };
        let model = reference::model_from_joint_f64(&rig.skeleton, &pose);
        let palette = reference::palette(&rig.skeleton, &model);
        let drawn = rig.drawn_vertices();
        match self.method {
            SkinMethod::Linear => {
                crate::skin::reference::skin_positions(&rig.source_mesh, &palette, drawn)
            }
            SkinMethod::DualQuat => {
                let scale = crate::skin::method::dual_quat_scale(rig) as f64;
                let (all, _) =
                    crate::skin::reference::skin_dual_quat(&rig.source_mesh, &palette, scale);
                drawn.iter().map(|&v| all[v as usize]).collect()
            }
        }
    }
}

/// The farthest any vertex moved between two poses of the same vertices.
fn farthest_move(positions: &[DVec3], previous: &[DVec3]) -> f64 {
    positions
        .iter()
        .zip(previous)
        .map(|(p, q)| (*p - *q).length())
        .fold(0.0, f64::max)
}

/// The box around `positions` (inverted, infinite, when there are none).
fn bounds(positions: &[DVec3]) -> (DVec3, DVec3) {
    positions.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    )
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

/// The name a motion's poses are kept under in the measurement cache: its kind ("loop" or
/// "reach"), its clip, its blend clip and weight, and the skinning method.
fn motion_key(kind: &str, clip: u16, blend: Option<(u16, f32)>, method: SkinMethod) -> String {
    let (blend_clip, weight) = blend.map_or((String::from("none"), 0), |(c, w)| {
        (c.to_string(), w.to_bits())
    });
    format!("{kind}-{clip}-{blend_clip}-{weight:08x}-{}", method.name())
}

/// `count` measured poses (each: the farthest a vertex moved since the one before, and the
/// box of the drawn vertices), read from `cache` where this code kept them for this rig
/// and key, else measured by `measure` and kept. They are kept as each f64's bits, which
/// hold what JSON cannot (an infinite or not-a-number move of a mesh that is not finite).
/// A cache that cannot be read or written costs only the measurement.
fn cached_poses(
    cache: Option<&MeasureCache>,
    rig: &PreparedRig,
    key: &str,
    count: usize,
    measure: impl FnOnce() -> Vec<(f64, DVec3, DVec3)>,
) -> Vec<(f64, DVec3, DVec3)> {
    const KIND: &str = "motion";
    let from_bits = |b: &[u64; 7]| {
        let f = |i: usize| f64::from_bits(b[i]);
        (
            f(0),
            DVec3::new(f(1), f(2), f(3)),
            DVec3::new(f(4), f(5), f(6)),
        )
    };
    if let Some(cache) = cache
        && let Ok(Some(kept)) = cache.read::<Vec<[u64; 7]>>(KIND, rig, key)
        && kept.len() == count
    {
        return kept.iter().map(from_bits).collect();
    }
    let measured = measure();
    if let Some(cache) = cache {
        let bits: Vec<[u64; 7]> = measured
            .iter()
            .map(|(d, lo, hi)| [*d, lo.x, lo.y, lo.z, hi.x, hi.y, hi.z].map(f64::to_bits))
            .collect();
        let _ = cache.write(KIND, rig, key, &bits);
    }
    measured
}
