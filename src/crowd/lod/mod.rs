//! Update-rate LOD: each character is recomputed every 1, 2, 4 or 8 frames, the period
//! chosen from a bound on the screen-space error that showing an older pose causes.
//!
//! How it works: at first use, for each (clip, blend clip, blend weight, method) the
//! crowd plays, [`ClipMotion::measure`] skins the clip through the f64 oracle at 240 Hz
//! and at every key time (where a speed may jump), keeps per step the farthest any vertex
//! moves in it (the loop's wrap included), summed along the loop, and a sphere around
//! every pose (the clip's animated bounds). [`ClipMotion::travel`] then bounds how far
//! any vertex gets between two clip times by the steps in between: a running hand is fast
//! mid-swing and slow at the ends, so a character whose next frames fall in a slow part
//! of its clip may skip more of them than the clip's fastest moment would allow. A
//! cross-fade of two clips whose loops differ in length repeats only when both align, so
//! it has no such table: those characters are recomputed every frame they are in view,
//! and their sphere ([`ClipMotion::measure`] over a grid of every pair of the two loops'
//! times) still culls them and gives them their mesh level.
//!
//! Each frame [`Lod::plan`] places each character's sphere in the world. Outside the view
//! frustum it is not drawn. Inside, a world displacement `d` at depth `z` moves the
//! projection by at most `focal / z · |d| · √(1 + a² + b²)` pixels (`a`, `b` the largest
//! `|x/z|`, `|y/z|` in the sphere, at most the frustum's edges); taken at the sphere's
//! nearest depth that gives the character's pixels per model unit. A group of eight is
//! recomputed when it is due (its period has passed since its last update) or when any
//! member's shown pose is already more than the threshold from its current one (the
//! camera came closer, a frame took longer, a clip changed): so every frame shown keeps
//! the bound, whatever the prediction said. The period a character gets when it is
//! recomputed is the longest (up to the cap) whose next frames stay under the threshold;
//! outside the view, the cap.
//!
//! The pipeline computes groups of eight instances (the lane width), so a group runs at
//! its members' shortest period. Periods follow the clip's phase, so they change as the
//! characters move through their clips: the members of the groups recomputed this frame
//! are sorted by their new period (and, within one, by the finest level of the mesh's
//! chain a pass draws them at: a group is skinned for its finest member's) and dealt back
//! into those same groups (their handles follow them). Moving a character costs nothing,
//! since every one of those groups is computed anyway, and each group then holds one
//! period (at most three hold two). With update-rate LOD off and geometric LOD on, every
//! group is computed every frame, so the whole crowd is dealt by that level alone. The
//! first frame (or one after [`Lod::invalidate`]) computes everything and staggers each
//! period's groups over its frames in blocks, so every frame updates about the same
//! number in runs of neighbouring groups (one upload each); from then on a group is next
//! due `period` frames after its update. Seed 003's dirty idea: a due group whose
//! instances are exactly what its vertices were computed from (paused, speed 0) is not
//! recomputed at all. [`Lod::shown`] keeps, per instance, what its vertices on the GPU
//! were computed from: verification checks the frame against it, and [`measure_error`]
//! compares it with a full-rate frame. [`fewest_updates`] computes what no schedule can
//! beat: the exact error of every skipped frame for a sample of characters, and the
//! fewest recomputations that keep each one under the threshold.

mod error;
mod floor;
pub mod formats;
pub mod mesh;
mod motion;
pub mod per_character;
mod plan;
mod settings;
mod view;

pub use error::{MeasuredError, measure_error};
pub use floor::{FloorMeasurement, UpdateFloor, fewest_covering, fewest_updates};
pub use mesh::{MESH_HYSTERESIS, choose_mesh_level};
pub use motion::{ClipMotion, MOTION_RATE_HZ};
pub use plan::{Lod, LodStats, PlanInput};
pub use settings::{LodError, LodSettings};
pub use view::LodView;

/// The update periods, frames.
pub const PERIODS: [u8; 4] = [1, 2, 4, 8];
