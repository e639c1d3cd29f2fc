//! sample: an instance's clip at its time → local pose.
//!
//! How it works: at load time every track is checked for evenly spaced keys (all tracks of
//! the reference rig and most exported clips are); such a track finds its key with one
//! multiply instead of a binary search. Per instance the rest pose is copied and then only
//! the animated joints are evaluated: LINEAR rotations by slerp (as glTF specifies),
//! translations and scales by lerp, STEP by holding, CUBICSPLINE by the glTF Hermite form
//! with normalized rotations. Time loops over the clip's duration.

use glam::{Quat, Vec3A};

use super::Qvs;
use crate::rig::{Clip, Interpolation, Track};

/// A track ready for sampling.
#[derive(Clone, Debug)]
pub struct TrackRt<T> {
    pub interpolation: Interpolation,
    pub times_secs: Vec<f32>,
    /// One value per key, or (in-tangent, value, out-tangent) per key for CUBICSPLINE.
    pub values: Vec<T>,
    /// `(first key time, keys per second)` when keys are evenly spaced.
    uniform: Option<(f32, f32)>,
}

impl<T: Copy> TrackRt<T> {
    fn new<S: Copy>(track: &Track<S>, convert: impl Fn(S) -> T) -> Self {
        let times = &track.times_secs;
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
        TrackRt {
            interpolation: track.interpolation,
            times_secs: times.clone(),
            values: track.values.iter().map(|&v| convert(v)).collect(),
            uniform,
        }
    }

    /// Key `k` and fraction `s` such that `times[k] <= t < times[k + 1]` (clamped).
    #[inline]
    fn locate(&self, t: f32) -> (usize, f32) {
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

    fn interval(&self, k: usize) -> f32 {
        self.times_secs[k + 1] - self.times_secs[k]
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
    /// The joints with at least one track.
    pub animated: Vec<AnimatedJoint>,
}

impl ClipRt {
    pub fn new(clip: &Clip) -> Self {
        let animated = clip
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
        }
    }
}

fn hermite(s: f32) -> [f32; 4] {
    let s2 = s * s;
    let s3 = s2 * s;
    [
        2.0 * s3 - 3.0 * s2 + 1.0,
        s3 - 2.0 * s2 + s,
        -2.0 * s3 + 3.0 * s2,
        s3 - s2,
    ]
}

#[inline]
fn sample_vec(track: &TrackRt<Vec3A>, t: f32) -> Vec3A {
    let (k, s) = track.locate(t);
    let v = &track.values;
    match track.interpolation {
        Interpolation::Step => v[k],
        Interpolation::Linear => {
            if k + 1 >= v.len() {
                v[k]
            } else {
                v[k].lerp(v[k + 1], s)
            }
        }
        Interpolation::CubicSpline => {
            if k + 1 >= track.times_secs.len() {
                return v[3 * k + 1];
            }
            let dt = track.interval(k);
            let [h00, h10, h01, h11] = hermite(s);
            v[3 * k + 1] * h00
                + v[3 * k + 2] * (h10 * dt)
                + v[3 * (k + 1) + 1] * h01
                + v[3 * (k + 1)] * (h11 * dt)
        }
    }
}

#[inline]
fn sample_quat(track: &TrackRt<Quat>, t: f32) -> Quat {
    let (k, s) = track.locate(t);
    let v = &track.values;
    match track.interpolation {
        Interpolation::Step => v[k],
        Interpolation::Linear => {
            if k + 1 >= v.len() {
                v[k]
            } else {
                v[k].slerp(v[k + 1], s)
            }
        }
        Interpolation::CubicSpline => {
            if k + 1 >= track.times_secs.len() {
                return v[3 * k + 1].normalize();
            }
            let dt = track.interval(k);
            let [h00, h10, h01, h11] = hermite(s);
            let q = v[3 * k + 1] * h00
                + v[3 * k + 2] * (h10 * dt)
                + v[3 * (k + 1) + 1] * h01
                + v[3 * (k + 1)] * (h11 * dt);
            q.normalize()
        }
    }
}

/// Writes the local pose of `clip` at `time_secs` (looping) into `out[..rest.len()]`.
pub fn sample_clip(clip: &ClipRt, rest: &[Qvs], time_secs: f32, out: &mut [Qvs]) {
    let out = &mut out[..rest.len()];
    out.copy_from_slice(rest);
    let t = if clip.duration_secs > 0.0 {
        time_secs.rem_euclid(clip.duration_secs)
    } else {
        0.0
    };
    for a in &clip.animated {
        let q = &mut out[a.joint as usize];
        if let Some(track) = &a.translation {
            q.translation = sample_vec(track, t);
        }
        if let Some(track) = &a.rotation {
            q.rotation = sample_quat(track, t);
        }
        if let Some(track) = &a.scale {
            q.scale = sample_vec(track, t);
        }
    }
}
