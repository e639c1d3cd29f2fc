//! blend: cross-fade between two local poses.
//!
//! How it works: translation and scale are lerped; rotations are nlerped (normalized lerp)
//! after flipping the second quaternion into the first one's hemisphere, so the blend
//! takes the short way round. nlerp is not constant-speed in the weight, but a cross-fade
//! weight is an artistic control, not a time, and nlerp is a third of slerp's cost.

use super::hierarchy::reference::LocalF64;
use crate::types::Qvs;

/// `a = blend(a, b, weight)` for every joint; `weight` 0 keeps `a`, 1 gives `b`.
pub fn blend_poses(a: &mut [Qvs], b: &[Qvs], weight: f32) {
    for (x, y) in a.iter_mut().zip(b) {
        blend_joint(x, y, weight);
    }
}

/// [`blend_poses`] for the joints `joints` lists (a mesh level's set): a character posed
/// for a level reads no other joint, so the others keep `a` (both poses hold their rest
/// pose there). An index past either pose is skipped.
pub fn blend_listed(a: &mut [Qvs], b: &[Qvs], weight: f32, joints: &[u16]) {
    for &j in joints {
        if let (Some(x), Some(y)) = (a.get_mut(j as usize), b.get(j as usize)) {
            blend_joint(x, y, weight);
        }
    }
}

#[inline]
fn blend_joint(x: &mut Qvs, y: &Qvs, weight: f32) {
    // glam's Quat::lerp flips to the short hemisphere and normalizes: an nlerp.
    x.rotation = x.rotation.lerp(y.rotation, weight);
    x.translation = x.translation.lerp(y.translation, weight);
    x.scale = x.scale.lerp(y.scale, weight);
}

/// The blend oracle: the same cross-fade written independently in f64 from its definition
/// (short-hemisphere nlerp of rotations, lerp of translation and scale), for verification.
pub fn blend_reference(a: &[Qvs], b: &[Qvs], weight: f64) -> Vec<LocalF64> {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let (x, y) = (LocalF64::from(x), LocalF64::from(y));
            // q and -q are the same rotation: take the one on x's side.
            let target = if x.rotation.dot(y.rotation) < 0.0 {
                -y.rotation
            } else {
                y.rotation
            };
            let mixed = x.rotation * (1.0 - weight) + target * weight;
            LocalF64 {
                rotation: mixed.normalize(),
                translation: x.translation * (1.0 - weight) + y.translation * weight,
                scale: x.scale * (1.0 - weight) + y.scale * weight,
            }
        })
        .collect()
}
