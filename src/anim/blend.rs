//! blend: cross-fade between two local poses.
//!
//! How it works: translation and scale are lerped; rotations are nlerped (normalized lerp)
//! after flipping the second quaternion into the first one's hemisphere, so the blend
//! takes the short way round. nlerp is not constant-speed in the weight, but a cross-fade
//! weight is an artistic control, not a time, and nlerp is a third of slerp's cost.

use super::Qvs;

/// `a = blend(a, b, weight)` for every joint; `weight` 0 keeps `a`, 1 gives `b`.
pub fn blend_poses(a: &mut [Qvs], b: &[Qvs], weight: f32) {
    for (x, y) in a.iter_mut().zip(b) {
        // glam's Quat::lerp flips to the short hemisphere and normalizes: an nlerp.
        x.rotation = x.rotation.lerp(y.rotation, weight);
        x.translation = x.translation.lerp(y.translation, weight);
        x.scale = x.scale.lerp(y.scale, weight);
    }
}
