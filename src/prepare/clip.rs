//! Load-time clip data: each glTF clip's tracks converted once into what sampling reads.
//!
//! How it works: every track gets a [`Timeline`] that knows whether its keys are evenly
//! spaced (then a key is found with one multiply instead of a binary search); tracks keep
//! only the animated joints; and LINEAR rotation tracks that share one timeline are moved
//! into [`LaneRotations`], eight tracks per vector, key by key, so `anim::sample` finds the
//! key once and slerps eight joints at a time. Nothing here runs per frame.

use glam::{Quat, Vec3A};

use super::joint_sets::JointSet;
use crate::rig::{Clip, Interpolation, Track};
use crate::types::{F32x8, LANES};

/// Key times, and how to find the key before a time.
#[derive(Clone, Debug)]
pub struct Timeline {
    pub times_secs: Vec<f32>,
    /// `(first key time, keys per second)` when keys are evenly spaced.
    pub(crate) uniform: Option<(f32, f32)>,
}

impl Timeline {
    pub(crate) fn new(times: &[f32]) -> Self {
        let uniform = if times.len() >= 2 {
            let step = (times[times.len() - 1] - times[0]) / (times.len() - 1) as f32;
            let even = times
                .iter()
                .enumerate()
                .all(|(k, &t)| (t - (times[0] + step * k as f32)).abs() <= step * 1e-3);
            (even && step > 0.0).then(|| (times[0], 1.0 / step))
        } else {
            None
        };
        Timeline {
            times_secs: times.to_vec(),
            uniform,
        }
    }

    /// Key `k` and fraction `s` such that `times[k] <= t < times[k + 1]` (clamped).
    #[inline]
    pub(crate) fn locate(&self, t: f32) -> (usize, f32) {
        let times = &self.times_secs;
        let last = times.len() - 1;
        if last == 0 || t <= times[0] {
            return (0, 0.0);
        }
        if t >= times[last] {
            return (last, 0.0);
        }
        let k = match self.uniform {
            Some((start, rate)) => {
                // The float estimate can be one key off at boundaries; fix it up.
                let mut k = (((t - start) * rate) as usize).min(last - 1);
                if times[k] > t {
                    k -= 1;
                } else if times[k + 1] <= t {
                    k += 1;
                }
                k
            }
            None => times.partition_point(|&x| x <= t) - 1,
        };
        let s = (t - times[k]) / (times[k + 1] - times[k]);
        (k, s)
    }

    pub(crate) fn interval(&self, k: usize) -> f32 {
        self.times_secs[k + 1] - self.times_secs[k]
    }
}

/// A track ready for sampling.
#[derive(Clone, Debug)]
pub struct TrackRt<T> {
    pub interpolation: Interpolation,
    pub timeline: Timeline,
    /// One value per key, or (in-tangent, value, out-tangent) per key for CUBICSPLINE.
    pub values: Vec<T>,
}

impl<T: Copy> TrackRt<T> {
    fn new<S: Copy>(track: &Track<S>, convert: impl Fn(S) -> T) -> Self {
        TrackRt {
            interpolation: track.interpolation,
            timeline: Timeline::new(&track.times_secs),
            values: track.values.iter().map(|&v| convert(v)).collect(),
        }
    }
}

/// One joint's tracks in a clip.
#[derive(Clone, Debug)]
pub struct AnimatedJoint {
    pub joint: u16,
    pub translation: Option<TrackRt<Vec3A>>,
    pub rotation: Option<TrackRt<Quat>>,
    pub scale: Option<TrackRt<Vec3A>>,
}

/// A clip ready for sampling: only the animated joints are listed.
#[derive(Clone, Debug)]
pub struct ClipRt {
    pub name: String,
    pub duration_secs: f32,
    pub channels: usize,
    /// The joints with at least one track. Rotation tracks moved into `lane_rotations`
    /// are `None` here.
    pub animated: Vec<AnimatedJoint>,
    /// The LINEAR rotation tracks that share one timeline, eight per vector.
    pub lane_rotations: Option<LaneRotations>,
}

/// LINEAR rotation tracks with identical key times, in lanes: track `b * 8 + l` is lane
/// `l` of block `b`; the keys of one time are `blocks` consecutive `[x, y, z, w]` vectors.
#[derive(Clone, Debug)]
pub struct LaneRotations {
    /// How many tracks took this path (for tests and reports).
    pub tracks: usize,
    pub(crate) timeline: Timeline,
    /// The joint each track animates.
    pub(crate) joints: Vec<u16>,
    /// One more than the largest of `joints`: a pose at least this long can take them all.
    pub(crate) joint_bound: usize,
    pub(crate) blocks: usize,
    /// `keys[k * blocks + b]`: x, y, z, w of block `b`'s tracks at key `k` (unused lanes
    /// hold the identity).
    pub(crate) keys: Vec<[F32x8; 4]>,
    /// Per mesh level, the blocks that hold every track of its joints (the tracks ordered
    /// coarsest level first: [`LaneRotations::order_by_level`]); empty: not ordered, every
    /// block.
    pub(crate) level_blocks: Vec<usize>,
}

impl LaneRotations {
    /// Takes the LINEAR rotation tracks that share the first such track's key times out of
    /// `animated`, if there are at least two (tracks with other times stay per-track).
    pub(crate) fn take(animated: &mut [AnimatedJoint]) -> Option<LaneRotations> {
        let shared = |t: &TrackRt<Quat>| {
            t.interpolation == Interpolation::Linear && t.timeline.times_secs.len() >= 2
        };
        let first = animated
            .iter()
            .filter_map(|a| a.rotation.as_ref())
            .find(|t| shared(t))?;
        let timeline = first.timeline.clone();
        let same = |t: &TrackRt<Quat>| shared(t) && t.timeline.times_secs == timeline.times_secs;
        let count = animated
            .iter()
            .filter(|a| a.rotation.as_ref().is_some_and(same))
            .count();
        if count < 2 {
            return None;
        }
        let blocks = count.div_ceil(LANES);
        let identity = [
            F32x8([0.0; LANES]),
            F32x8([0.0; LANES]),
            F32x8([0.0; LANES]),
            F32x8([1.0; LANES]),
        ];
        let mut keys = vec![identity; timeline.times_secs.len() * blocks];
        let mut joints = Vec::with_capacity(count);
        for a in animated.iter_mut() {
            if !a.rotation.as_ref().is_some_and(same) {
                continue;
            }
            let track = a.rotation.take().expect("checked above");
            let (b, l) = (joints.len() / LANES, joints.len() % LANES);
            for (k, q) in track.values.iter().enumerate() {
                let key = &mut keys[k * blocks + b];
                for (c, v) in q.to_array().into_iter().enumerate() {
                    key[c].0[l] = v;
                }
            }
            joints.push(a.joint);
        }
        Some(LaneRotations {
            tracks: joints.len(),
            joint_bound: joints.iter().map(|&j| j as usize + 1).max().unwrap_or(0),
            timeline,
            joints,
            blocks,
            keys,
            level_blocks: Vec::new(),
        })
    }

    /// Puts the tracks of the joints the coarsest levels need first (`sets`: each mesh
    /// level's joints, finest first, each a subset of the one before), so every level's
    /// tracks are the first blocks, and a character sampled for a level evaluates only
    /// those. Each track keeps its keys; only its lane moves.
    pub(crate) fn order_by_level(&mut self, sets: &[JointSet]) {
        // How many levels need the joint: the sets are nested, so those are the finest.
        let rank = |joint: u16| sets.iter().filter(|s| s.contains(joint as usize)).count();
        let mut order: Vec<usize> = (0..self.joints.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(rank(self.joints[i])));
        *self = self.gathered(&order);
        self.level_blocks = (0..sets.len())
            .map(|level| {
                let needed = self.joints.iter().filter(|&&j| rank(j) > level).count();
                needed.div_ceil(LANES)
            })
            .collect();
    }

    /// Only the tracks of the joints `keep` accepts, packed into blocks of their own in
    /// the same order: what a level that samples those joints evaluates, and no block of
    /// another's (none kept: no block; the key search still runs). Each track keeps its
    /// keys, bit for bit.
    pub(crate) fn select(&self, keep: impl Fn(usize) -> bool) -> LaneRotations {
        let kept: Vec<usize> = (0..self.joints.len())
            .filter(|&i| keep(self.joints[i] as usize))
            .collect();
        self.gathered(&kept)
    }

    /// Tracks `order` (indices into `joints`), in that order, packed from the first block
    /// (unused lanes the identity); not ordered by level.
    fn gathered(&self, order: &[usize]) -> LaneRotations {
        let blocks = order.len().div_ceil(LANES);
        let times = self.timeline.times_secs.len();
        let identity = [
            F32x8([0.0; LANES]),
            F32x8([0.0; LANES]),
            F32x8([0.0; LANES]),
            F32x8([1.0; LANES]),
        ];
        let mut keys = vec![identity; times * blocks];
        for (to, &from) in order.iter().enumerate() {
            let (tb, tl) = (to / LANES, to % LANES);
            let (fb, fl) = (from / LANES, from % LANES);
            for k in 0..times {
                let source = &self.keys[k * self.blocks + fb];
                for (to_vector, from_vector) in keys[k * blocks + tb].iter_mut().zip(source) {
                    to_vector.0[tl] = from_vector.0[fl];
                }
            }
        }
        let joints: Vec<u16> = order.iter().map(|&i| self.joints[i]).collect();
        LaneRotations {
            tracks: joints.len(),
            joint_bound: joints.iter().map(|&j| j as usize + 1).max().unwrap_or(0),
            timeline: self.timeline.clone(),
            joints,
            blocks,
            keys,
            level_blocks: Vec::new(),
        }
    }

    /// The blocks a character sampled for `level` needs (a level past the chain is its
    /// coarsest; `None`, or tracks never ordered: every block).
    pub(crate) fn blocks_for(&self, level: Option<usize>) -> usize {
        match (level, self.level_blocks.last()) {
            (Some(level), Some(&coarsest)) => {
                self.level_blocks.get(level).copied().unwrap_or(coarsest)
            }
            _ => self.blocks,
        }
    }
}

/// The clips' names as the panel, the notes and the sidecar show them: without the part
/// every name shares up to a `|` (Blender writes `HumanArmature|Run`, `HumanArmature|Walk`:
/// shown `Run`, `Walk`). A single clip, or names that share no such part, keep their
/// names. `--clips` and `pose --clip` take either form.
pub fn short_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let names: Vec<&str> = names.into_iter().collect();
    let shared = match names.as_slice() {
        [] | [_] => 0,
        [first, rest @ ..] => {
            // The longest prefix of the first name, ending in `|`, that every name has.
            first
                .match_indices('|')
                .map(|(at, _)| at + 1)
                .take_while(|&end| rest.iter().all(|n| n.starts_with(&first[..end])))
                .last()
                .unwrap_or(0)
        }
    };
    names
        .iter()
        .map(|n| match &n[shared..] {
            "" => n.to_string(),
            short => short.to_string(),
        })
        .collect()
}

/// The clip of `clips` that `name` names, by its file name or its short name
/// ([`short_names`]).
pub fn find_clip(clips: &[ClipRt], name: &str) -> Option<usize> {
    clips.iter().position(|c| c.name == name).or_else(|| {
        short_names(clips.iter().map(|c| c.name.as_str()))
            .iter()
            .position(|n| n == name)
    })
}

impl ClipRt {
    /// Every track's key times, sorted and without repeats, and whether any track holds its
    /// value from one key to the next (STEP): the times where a pose's speed may jump, which
    /// update-rate LOD measures the clip at.
    pub fn key_times(&self) -> (Vec<f32>, bool) {
        let mut times = Vec::new();
        let mut stepped = false;
        let mut add = |interpolation: Interpolation, timeline: &Timeline| {
            stepped |= interpolation == Interpolation::Step;
            times.extend_from_slice(&timeline.times_secs);
        };
        for a in &self.animated {
            if let Some(t) = &a.translation {
                add(t.interpolation, &t.timeline);
            }
            if let Some(t) = &a.rotation {
                add(t.interpolation, &t.timeline);
            }
            if let Some(t) = &a.scale {
                add(t.interpolation, &t.timeline);
            }
        }
        if let Some(lanes) = &self.lane_rotations {
            add(Interpolation::Linear, &lanes.timeline);
        }
        times.retain(|t| t.is_finite());
        times.sort_by(f32::total_cmp);
        times.dedup();
        (times, stepped)
    }

    /// Orders the lane tracks by the mesh levels that need their joints
    /// ([`LaneRotations::order_by_level`]).
    pub(crate) fn order_by_level(&mut self, sets: &[JointSet]) {
        if let Some(lanes) = &mut self.lane_rotations {
            lanes.order_by_level(sets);
        }
    }

    pub fn new(clip: &Clip) -> Self {
        let mut rt = ClipRt::per_track(clip);
        rt.lane_rotations = LaneRotations::take(&mut rt.animated);
        // Joints whose only track moved into the lanes need no visit.
        rt.animated
            .retain(|a| a.translation.is_some() || a.rotation.is_some() || a.scale.is_some());
        rt
    }

    /// Every track sampled on its own (no lane path): the plain sampler, which the lane
    /// path is tested against.
    pub fn per_track(clip: &Clip) -> Self {
        let animated: Vec<AnimatedJoint> = clip
            .joint_tracks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.translation.is_some() || t.rotation.is_some() || t.scale.is_some())
            .map(|(j, t)| AnimatedJoint {
                joint: j as u16,
                translation: t.translation.as_ref().map(|t| TrackRt::new(t, Vec3A::from)),
                rotation: t.rotation.as_ref().map(|t| TrackRt::new(t, |q| q)),
                scale: t.scale.as_ref().map(|t| TrackRt::new(t, Vec3A::from)),
            })
            .collect();
        ClipRt {
            name: clip.name.clone(),
            duration_secs: clip.duration_secs,
            channels: clip.channel_count(),
            animated,
            lane_rotations: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::short_names;

    /// The reference rig's coarse levels need fewer joints, so after ordering they sample
    /// fewer lane blocks; each level's joints with a lane track are in its blocks.
    #[test]
    fn coarse_levels_sample_fewer_lane_blocks() {
        let rig = crate::prepare::PreparedRig::reference();
        let sets = rig.level_joint_sets();
        for clip in &rig.clips {
            let lanes = clip.lane_rotations.as_ref().expect("baked rotations");
            assert_eq!(lanes.level_blocks.len(), sets.len());
            assert!(lanes.level_blocks.windows(2).all(|w| w[0] >= w[1]));
            assert!(
                lanes.blocks_for(Some(sets.len() - 1)) < lanes.blocks,
                "{}",
                clip.name
            );
            assert_eq!(
                lanes.blocks_for(Some(99)),
                lanes.blocks_for(Some(sets.len() - 1))
            );
            assert_eq!(lanes.blocks_for(None), lanes.blocks);
            for (level, set) in sets.iter().enumerate() {
                let covered = lanes.level_blocks[level] * crate::types::LANES;
                for (i, &joint) in lanes.joints.iter().enumerate() {
                    if set.contains(joint as usize) {
                        assert!(i < covered, "{} level {level}: joint {joint}", clip.name);
                    }
                }
            }
        }
    }

    #[test]
    fn short_names_drop_only_what_every_name_shares_up_to_a_bar() {
        assert_eq!(
            short_names(["HumanArmature|Run", "HumanArmature|Walk"]),
            ["Run", "Walk"]
        );
        // Up to the last bar they all share, not into a name.
        assert_eq!(
            short_names(["A|B|Run", "A|B|Roll", "A|Bx|Idle"]),
            ["B|Run", "B|Roll", "Bx|Idle"]
        );
        assert_eq!(short_names(["Armature|Walk"]), ["Armature|Walk"]);
        assert_eq!(short_names(["Walk", "Run"]), ["Walk", "Run"]);
        assert_eq!(short_names(["R|Walk", "Run"]), ["R|Walk", "Run"]);
        // A name that is only the shared part keeps it.
        assert_eq!(short_names(["A|", "A|Run"]), ["A|", "Run"]);
    }
}
