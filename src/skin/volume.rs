//! The volume a skinning method keeps: how much of the bind pose's enclosed volume the
//! skinned surface keeps at its worst pose, the figure the `twist` rig exists for.
//!
//! How it works: a closed, consistently wound triangle surface encloses
//! `Σ p0 · (p1 × p2) / 6` (the divergence theorem). The surface is closed when, with
//! vertices welded by exact position (UV seams repeat a position), every directed edge is
//! used once and its reverse once; open meshes (most exported characters: eyes, clothing, cut
//! necks) have no volume to speak of and get none. Each clip is posed at `SAMPLES`
//! evenly spaced times with the f64 oracle of the method (every variant conforms to it
//! within tolerance), and the pose whose volume is farthest from the bind pose's, in
//! either direction, is the worst.

use std::collections::HashMap;

use glam::{DMat4, DVec3};

use crate::anim::hierarchy::reference::{LocalF64, model_from_joint_f64, palette};
use crate::anim::sample::sample_clip;
use crate::prepare::PreparedRig;
use crate::rig::Mesh;
use crate::skin::method::SkinMethod;
use crate::skin::reference::{skin, skin_dual_quat};
use crate::variant::Variant;

/// Poses per clip.
pub const SAMPLES: usize = 240;

/// The pose where a method keeps the bind pose's volume worst.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct WorstVolume {
    pub method: &'static str,
    /// Skinned volume / bind-pose volume at the worst pose.
    pub ratio: f64,
    pub clip: String,
    pub time_secs: f32,
}

/// The volume `positions` enclose through `indices` (positive for counter-clockwise
/// triangles seen from outside).
pub fn enclosed_volume(positions: &[DVec3], indices: &[u32]) -> f64 {
    indices
        .chunks_exact(3)
        .map(|t| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| positions[i as usize]);
            a.dot(b.cross(c))
        })
        .sum::<f64>()
        / 6.0
}

/// Whether the mesh, vertices welded by exact position, is closed and consistently wound:
/// every directed edge is used once and its reverse once (by the neighbouring triangle).
pub fn is_closed(mesh: &Mesh) -> bool {
    let mut welded: HashMap<[u32; 3], u32> = HashMap::new();
    let ids: Vec<u32> = mesh
        .positions
        .iter()
        .map(|p| {
            let next = welded.len() as u32;
            *welded.entry(p.to_array().map(f32::to_bits)).or_insert(next)
        })
        .collect();
    let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
    for t in mesh.indices.chunks_exact(3) {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            *directed
                .entry((ids[a as usize], ids[b as usize]))
                .or_insert(0) += 1;
        }
    }
    !directed.is_empty()
        && directed
            .iter()
            .all(|(&(a, b), &n)| n == 1 && directed.get(&(b, a)) == Some(&1))
}

/// For a closed mesh, the pose at which `method` keeps the bind pose's volume worst over
/// every clip; `None` for an open mesh, a rig without clips, or a method that refuses the
/// rig.
pub fn worst_volume(rig: &PreparedRig, method: SkinMethod) -> Option<WorstVolume> {
    let mesh = &rig.source_mesh;
    if rig.clips.is_empty() || method.rig_refusal(rig).is_some() || !is_closed(mesh) {
        return None;
    }
    let bind: Vec<DVec3> = mesh.positions.iter().map(|p| p.as_dvec3()).collect();
    let bind_volume = enclosed_volume(&bind, &mesh.indices);
    if bind_volume.abs() < f64::MIN_POSITIVE {
        return None;
    }
    let mut worst: Option<WorstVolume> = None;
    for_each_pose(rig, SAMPLES, |clip, time_secs, skinning| {
        let positions = match method {
            SkinMethod::Linear => skin(mesh, skinning).0,
            SkinMethod::DualQuat => {
                skin_dual_quat(mesh, skinning, super::method::dual_quat_scale(rig) as f64).0
            }
        };
        let ratio = enclosed_volume(&positions, &mesh.indices) / bind_volume;
        if worst
            .as_ref()
            .is_none_or(|w| (ratio - 1.0).abs() > (w.ratio - 1.0).abs())
        {
            worst = Some(WorstVolume {
                method: method.name(),
                ratio,
                clip: clip.to_string(),
                time_secs,
            });
        }
    });
    worst
}

/// Calls `f` with each clip's name, a time and the rig's skinning matrices there (f64
/// oracle), at `samples` evenly spaced times per clip.
pub fn for_each_pose(rig: &PreparedRig, samples: usize, f: impl FnMut(&str, f32, &[DMat4])) {
    for_each_pose_shifted(rig, samples, 0.0, f);
}

/// As [`for_each_pose`], each time `shift` of a step later (0.5: halfway between those
/// [`for_each_pose`] gives).
pub fn for_each_pose_shifted(
    rig: &PreparedRig,
    samples: usize,
    shift: f32,
    f: impl FnMut(&str, f32, &[DMat4]),
) {
    for_each_pose_at(rig, &grid_times(rig, samples, shift), f);
}

/// `samples` evenly spaced times of each clip, `shift` of a step later (0.5: halfway
/// between the unshifted ones), as (clip, seconds into it), clips in order.
pub fn grid_times(rig: &PreparedRig, samples: usize, shift: f32) -> Vec<(usize, f32)> {
    rig.clips
        .iter()
        .enumerate()
        .flat_map(|(c, clip)| {
            (0..samples).map(move |i| (c, clip.duration_secs * (i as f32 + shift) / samples as f32))
        })
        .collect()
}

/// As [`for_each_pose`], at `times` (clip, seconds into it).
pub fn for_each_pose_at(
    rig: &PreparedRig,
    times: &[(usize, f32)],
    mut f: impl FnMut(&str, f32, &[DMat4]),
) {
    let mut locals = rig.rest_pose.clone();
    for &(c, time_secs) in times {
        let clip = &rig.clips[c];
        locals.copy_from_slice(&rig.rest_pose);
        sample_clip(clip, &rig.rest_pose, time_secs, &mut locals);
        let locals64: Vec<LocalF64> = locals.iter().map(LocalF64::from).collect();
        let model = model_from_joint_f64(&rig.skeleton, &locals64);
        f(&clip.name, time_secs, &palette(&rig.skeleton, &model));
    }
}
