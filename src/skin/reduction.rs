//! What cutting a rig's influences to four (`--max-influences 4`, the most the first
//! variants (`naive` to `sorted`) and engines' usual vertex formats take) costs: the largest distance any vertex
//! moves, over every clip, between the file's influences (up to eight) and the cut ones,
//! relative to the rig's size (`inspect` prints it).
//!
//! How it works: both meshes are skinned by the f64 linear-blend oracle at the same
//! sampled poses (`volume::for_each_pose`); nothing else differs, so the distance is the
//! cut's alone.

use crate::prepare::PreparedRig;
use crate::skin::reference::skin;
use crate::skin::volume::for_each_pose;

/// Poses per clip.
pub const SAMPLES: usize = 64;

/// The largest displacement the cut causes and where.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ReductionCost {
    /// Vertices that lost an influence.
    pub vertices_cut: usize,
    /// Largest vertex displacement / the rig's bind-pose size (box diagonal).
    pub relative_displacement: f64,
    /// The pose where it is largest: a clip and a time, or the bind pose (no clips).
    pub clip: Option<String>,
    pub time_secs: f32,
    pub vertex: usize,
}

/// What cutting `rig`'s vertices to `max` influences moves; `None` where no vertex has
/// more.
pub fn reduction_cost(rig: &PreparedRig, max: usize) -> Option<ReductionCost> {
    let uncut = rig.uncut_mesh.as_ref().unwrap_or(&rig.source_mesh);
    let (cut, vertices_cut) = uncut.reduced_to(max);
    if vertices_cut == 0 {
        return None;
    }
    let cut = &cut;
    let mut worst = ReductionCost {
        vertices_cut,
        relative_displacement: 0.0,
        clip: None,
        time_secs: 0.0,
        vertex: 0,
    };
    let size = rig.model_size as f64;
    for_each_pose(rig, SAMPLES, |clip, time_secs, skinning| {
        let (full, _) = skin(uncut, skinning);
        let (kept, _) = skin(cut, skinning);
        for (v, (a, b)) in full.iter().zip(&kept).enumerate() {
            let d = a.distance(*b) / size;
            if d > worst.relative_displacement {
                worst = ReductionCost {
                    relative_displacement: d,
                    clip: Some(clip.to_string()),
                    time_secs,
                    vertex: v,
                    ..worst
                };
            }
        }
    });
    Some(worst)
}
