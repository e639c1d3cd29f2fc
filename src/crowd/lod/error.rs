//! LOD's error as a user sees it: what is shown against a full-rate frame, both skinned
//! aside and projected, in pixels.

use glam::{Mat4, Vec3};

use super::LodView;
use crate::crowd::instances::Instance;
use crate::crowd::pipeline::{FrameError, Pipeline};
use crate::crowd::timing::Stage;
use crate::skin::OutputBuffer;

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
pub(super) const MEASURE_BATCH: usize = 256;

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
