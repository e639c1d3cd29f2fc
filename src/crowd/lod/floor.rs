//! What no schedule can beat: for a sample of characters, the exact error of every
//! skipped frame and the fewest recomputations that keep each under the threshold (the
//! crowd bench's floor).

use glam::{Mat4, Vec2, Vec3};

use super::error::MEASURE_BATCH;
use super::{LodView, PERIODS};
use crate::crowd::instances::Instance;
use crate::crowd::pipeline::{FrameError, Pipeline};
use crate::crowd::timing::Stage;
use crate::skin::OutputBuffer;

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

/// What one floor measurement looks at: which characters, seen how, for how long, and
/// against which thresholds.
#[derive(Clone, Copy, Debug)]
pub struct FloorMeasurement<'a> {
    pub crowd: &'a [Instance],
    /// Per character, whether it is in view (only those are measured).
    pub visible: &'a [bool],
    pub world_from_model: Mat4,
    pub view: &'a LodView,
    pub frame_clip_secs: f32,
    pub thresholds_px: &'a [f32],
    /// The longest gap between two updates allowed.
    pub max_period: u8,
    /// Visible characters measured at most (evenly spread).
    pub sample: usize,
    /// Frames looked ahead per character.
    pub frames: usize,
}

/// Computes [`UpdateFloor`]s for `m.thresholds_px`: for up to `m.sample` visible
/// characters of `m.crowd` (evenly spread), skins aside with `pipeline` (a CPU skin
/// variant) each of the next `m.frames` frames and `m.max_period - 1` more, projects every
/// vertex through `m.view`, and takes the exact error of showing frame `u`'s pose at frame
/// `u + j` for every `u` and `j < max_period` (the largest screen-space displacement of any
/// vertex, as [`measure_error`](super::error::measure_error) measures it). The fewest
/// updates keeping every frame within the threshold, gaps of any length up to the cap, is
/// a shortest path over the frames. One update is taken off each character's count: in a
/// running crowd the pose shown when the window opens may have been computed before it,
/// so the floor stays below what any schedule needs over a long run. With `frames`
/// covering the slowest clip's loop, the window sees every phase.
pub fn fewest_updates(
    pipeline: &mut Pipeline,
    m: &FloorMeasurement<'_>,
) -> Result<Vec<UpdateFloor>, FrameError> {
    let FloorMeasurement {
        crowd,
        visible,
        world_from_model,
        view,
        frame_clip_secs,
        thresholds_px,
        max_period,
        sample,
        frames,
    } = *m;
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
