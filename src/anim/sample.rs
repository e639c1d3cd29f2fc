//! sample: an instance's clip at its time → local pose.
//!
//! How it works: at load time every track is checked for evenly spaced keys (all tracks of
//! the reference rig and most exported clips are); such a track finds its key with one
//! multiply instead of a binary search. Per instance the rest pose is copied and then only
//! the animated joints are evaluated: LINEAR rotations by slerp (as glTF specifies),
//! translations and scales by lerp, STEP by holding, CUBICSPLINE by the glTF Hermite form
//! with normalized rotations. Time loops over the clip's duration.
//!
//! Most clips key every rotation at the same times (exporters bake them so). For those, the
//! LINEAR rotation tracks are also stored eight tracks per vector, key by key
//! ([`LaneRotations`]): one key search per instance instead of one per track, and slerp
//! for eight joints at a time. Their slerp needs no trigonometry: the weights
//! `sin((1 - s)θ) / sin θ` and `sin(sθ) / sin θ` are polynomials in `cos θ` (D. Eberly, "A
//! Fast and Accurate Algorithm for Computing SLERP", 2011), and `s` is the same for every
//! lane, so each polynomial step is one multiply and one multiply-add. The series is
//! accurate to float precision when consecutive keys are less than 2 × 45° apart; lanes
//! with a wider step (rare at any usual key rate) are redone with the exact slerp.

use glam::{Quat, Vec3A};

use crate::prepare::LevelMerges;
use crate::prepare::clip::LaneRotations;
pub use crate::prepare::clip::{AnimatedJoint, ClipRt, Timeline, TrackRt};
use crate::prepare::joint_sets::JointSet;
use crate::rig::Interpolation;
use crate::simd::{F32x8, LANES, Simd};
use crate::types::Qvs;

impl LaneRotations {
    /// Writes the rotation at `t` (already looped into the clip) of every track `level`
    /// needs (`None`: every track) into `out`.
    fn sample(&self, t: f32, out: &mut [Qvs], level: Option<usize>) {
        let (k, s) = self.timeline.locate(t);
        let next = (k + 1).min(self.timeline.times_secs.len() - 1);
        let blocks = self.blocks_for(level);
        // Validate once, so no index in the kernel can fail.
        assert!((next + 1) * self.blocks <= self.keys.len());
        assert!(self.joint_bound <= out.len() && blocks <= self.blocks);
        lanes_dispatch(self, k, next, s, out, blocks);
    }
}

/// `1 / (i (2i + 1))` and `i / (2i + 1)` for i = 1..=8, the last pair scaled by `1 + μ`,
/// which corrects the truncation of the series after eight terms (Eberly's constants).
pub const SLERP_ONE_PLUS_MU: f32 = 1.901_107_5;
pub const SLERP_U: [f32; 8] = [
    1.0 / 3.0,
    1.0 / 10.0,
    1.0 / 21.0,
    1.0 / 36.0,
    1.0 / 55.0,
    1.0 / 78.0,
    1.0 / 105.0,
    SLERP_ONE_PLUS_MU / 136.0,
];
pub const SLERP_V: [f32; 8] = [
    1.0 / 3.0,
    2.0 / 5.0,
    3.0 / 7.0,
    4.0 / 9.0,
    5.0 / 11.0,
    6.0 / 13.0,
    7.0 / 15.0,
    SLERP_ONE_PLUS_MU * 8.0 / 17.0,
];

/// Below this `cos θ` (θ the angle between the two keys as 4-vectors) the eight-term series
/// is off by more than float precision (up to 2.6e-5 near cos θ = 0.1); above it by less
/// than 2e-8.
pub const SLERP_SERIES_MIN_COS: f32 = 0.7;

crate::dispatch_simd!(
    fn lanes_dispatch(
        lanes: &LaneRotations,
        k: usize,
        next: usize,
        s: f32,
        out: &mut [Qvs],
        blocks: usize,
    ) -> () {
        lanes_kernel
    }
);

#[inline(always)]
fn lanes_kernel<S: Simd>(
    simd: S,
    lanes: &LaneRotations,
    k: usize,
    next: usize,
    s: f32,
    out: &mut [Qvs],
    blocks: usize,
) {
    // The weight of key k+1 is s (1 + b₁(1 + b₂(…))), bᵢ = (uᵢ s² - vᵢ)(cos θ - 1); the
    // factors (uᵢ s² - vᵢ) are the same for every lane. Key k's weight uses 1 - s.
    let d = 1.0 - s;
    let mut factor_s = [0.0f32; 8];
    let mut factor_d = [0.0f32; 8];
    for i in 0..8 {
        factor_s[i] = SLERP_U[i] * s * s - SLERP_V[i];
        factor_d[i] = SLERP_U[i] * d * d - SLERP_V[i];
    }
    let one = simd.splat(1.0);
    let min_cos = simd.splat(SLERP_SERIES_MIN_COS);
    let count = lanes.joints.len();
    for b in 0..blocks {
        let a = &lanes.keys[k * lanes.blocks + b];
        let z = &lanes.keys[next * lanes.blocks + b];
        let (a, z) = (
            [
                simd.load(&a[0]),
                simd.load(&a[1]),
                simd.load(&a[2]),
                simd.load(&a[3]),
            ],
            [
                simd.load(&z[0]),
                simd.load(&z[1]),
                simd.load(&z[2]),
                simd.load(&z[3]),
            ],
        );
        let dot = simd.mul_add(
            a[3],
            z[3],
            simd.mul_add(a[2], z[2], simd.mul_add(a[1], z[1], simd.mul(a[0], z[0]))),
        );
        // The shorter arc: cos θ made non-negative, key k+1's weight negated instead of it.
        let cos = simd.abs(dot);
        let cos_minus_1 = simd.sub(cos, one);
        let mut series_s = one;
        let mut series_d = one;
        for i in (0..8).rev() {
            let bs = simd.mul(simd.splat(factor_s[i]), cos_minus_1);
            let bd = simd.mul(simd.splat(factor_d[i]), cos_minus_1);
            series_s = simd.mul_add(bs, series_s, one);
            series_d = simd.mul_add(bd, series_d, one);
        }
        let weight_z = simd.flip_sign(simd.mul(simd.splat(s), series_s), dot);
        let weight_a = simd.mul(simd.splat(d), series_d);
        let mut q = [F32x8::ZERO; 4];
        for c in 0..4 {
            simd.store(
                &mut q[c],
                simd.mul_add(z[c], weight_z, simd.mul(a[c], weight_a)),
            );
        }
        let wide = simd.below_mask(cos, min_cos);
        let live = (count - b * LANES).min(LANES);
        for l in 0..live {
            let joint = lanes.joints[b * LANES + l] as usize;
            out[joint].rotation = if wide & (1 << l) != 0 {
                let key =
                    |v: &[F32x8; 4]| Quat::from_xyzw(v[0].0[l], v[1].0[l], v[2].0[l], v[3].0[l]);
                key(&lanes.keys[k * lanes.blocks + b])
                    .slerp(key(&lanes.keys[next * lanes.blocks + b]), s)
            } else {
                Quat::from_xyzw(q[0].0[l], q[1].0[l], q[2].0[l], q[3].0[l])
            };
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

/// One track at time `t`: STEP holds, LINEAR uses `lerp` (lerp or slerp), CUBICSPLINE the
/// glTF Hermite form, whose result `finish` fixes up (normalizes rotations).
#[inline]
fn sample_track<T>(
    track: &TrackRt<T>,
    t: f32,
    lerp: impl Fn(T, T, f32) -> T,
    finish: impl Fn(T) -> T,
) -> T
where
    T: Copy + std::ops::Mul<f32, Output = T> + std::ops::Add<Output = T>,
{
    let (k, s) = track.timeline.locate(t);
    let v = &track.values;
    match track.interpolation {
        Interpolation::Step => v[k],
        Interpolation::Linear => {
            if k + 1 >= v.len() {
                v[k]
            } else {
                lerp(v[k], v[k + 1], s)
            }
        }
        Interpolation::CubicSpline => {
            if k + 1 >= track.timeline.times_secs.len() {
                return finish(v[3 * k + 1]);
            }
            let dt = track.timeline.interval(k);
            let [h00, h10, h01, h11] = hermite(s);
            finish(
                v[3 * k + 1] * h00
                    + v[3 * k + 2] * (h10 * dt)
                    + v[3 * (k + 1) + 1] * h01
                    + v[3 * (k + 1)] * (h11 * dt),
            )
        }
    }
}

#[inline]
fn sample_vec(track: &TrackRt<Vec3A>, t: f32) -> Vec3A {
    sample_track(track, t, Vec3A::lerp, |v| v)
}

#[inline]
fn sample_quat(track: &TrackRt<Quat>, t: f32) -> Quat {
    sample_track(track, t, Quat::slerp, Quat::normalize)
}

/// Writes the local pose of `clip` at `time_secs` (looping) into `out[..rest.len()]`.
pub fn sample_clip(clip: &ClipRt, rest: &[Qvs], time_secs: f32, out: &mut [Qvs]) {
    sample_clip_for(clip, 0, rest, time_secs, out, None);
}

/// A character posed for a level of the mesh's chain: the level, its joints
/// ([`crate::prepare::PreparedRig::joints_at_level`], or fewer where the level's influences
/// are cut, `skin::level_errors::posed_joints`) and the joints it holds at rest
/// (`None`: none). Sampling a clip, the rotation lane tracks come from the merges where
/// they were made for it ([`LevelMerges::lanes`]: only the tracks the level samples, so
/// no block is evaluated for a held joint), otherwise from the clip, by level blocks.
#[derive(Clone, Copy, Debug)]
pub struct LevelPose<'a> {
    pub level: usize,
    pub set: &'a JointSet,
    pub merges: Option<&'a LevelMerges>,
}

impl LevelPose<'_> {
    /// Whether joint `joint`'s tracks are sampled: it is in the set and not held.
    #[inline]
    fn samples(&self, joint: usize) -> bool {
        self.set.contains(joint) && !self.merges.is_some_and(|m| m.holds(joint))
    }
}

/// [`sample_clip`] for a character posed for a mesh level (`level`): the tracks of
/// joints outside the level's set or held at rest are skipped, and those joints keep the
/// rest pose. The lane tracks come from the level's own blocks where its merges carry them
/// (only the sampled joints'); otherwise from the clip's blocks ordered so that a level's
/// tracks come first, where a skipped joint may get what its block wrote, so the held ones
/// get their rest pose last. `None`: every track.
///
/// `clip_index` is `clip`'s place in the rig's clips, which the level's lane tracks are
/// kept by.
pub fn sample_clip_for(
    clip: &ClipRt,
    clip_index: usize,
    rest: &[Qvs],
    time_secs: f32,
    out: &mut [Qvs],
    level: Option<LevelPose<'_>>,
) {
    let out = &mut out[..rest.len()];
    out.copy_from_slice(rest);
    let t = if clip.duration_secs > 0.0 {
        time_secs.rem_euclid(clip.duration_secs)
    } else {
        0.0
    };
    let level_lanes = level
        .and_then(|l| l.merges)
        .and_then(|m| m.lanes(clip_index));
    match (level_lanes, &clip.lane_rotations) {
        (Some(lanes), _) => lanes.sample(t, out, None),
        (None, Some(lanes)) => lanes.sample(t, out, level.map(|l| l.level)),
        (None, None) => {}
    }
    for a in &clip.animated {
        if let Some(l) = level
            && !l.samples(a.joint as usize)
        {
            continue;
        }
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
    // A clip's own lane block samples its held joints with the others: their rest pose
    // again. (The level's lane tracks leave them out.)
    if let Some(merges) = level.and_then(|l| l.merges)
        && level_lanes.is_none()
    {
        for &j in &merges.held {
            if let (Some(o), Some(r)) = (out.get_mut(j), rest.get(j)) {
                *o = *r;
            }
        }
    }
}
