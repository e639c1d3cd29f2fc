//! The level measurements kept on disk, so that a character loaded again does not measure
//! its LOD chain again (seconds for a large mesh).
//!
//! How it works: one file per rig in the measurement cache
//! ([`crate::prepare::cache::MeasureCache`], keyed by the rig's content and the build's
//! source), holding the measurement ([`MeasuredLevels`]) with the rig's level and joint
//! counts. A file of another shape, or one naming a joint the rig lacks, is a miss, and the
//! new measurement overwrites it.

use std::path::PathBuf;

use super::level_errors::{MeasuredLevels, keep_measured, level_errors, measure_levels, measured};
use crate::prepare::cache::{CacheError, MeasureCache};
use crate::prepare::{MeshLevelErrors, PreparedRig};

/// The measurement's name in the cache.
const KIND: &str = "levels";

/// Where [`level_errors_cached`] found a rig's level errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelSource {
    /// Already kept with the rig.
    Kept,
    /// Read from the cache on disk.
    Cache,
    /// Measured now (and written to the cache, where one was given).
    Measured,
}

/// [`level_errors`], first looking in `cache` (keyed by the rig's content and the code's
/// version) and writing a new measurement to it. A cache that cannot be read or written
/// costs only the measurement: its error is returned beside the errors, for a note.
pub fn level_errors_cached<'r>(
    rig: &'r PreparedRig,
    cache: Option<&MeasureCache>,
) -> (&'r MeshLevelErrors, LevelSource, Option<CacheError>) {
    if let Some(kept) = measured(rig) {
        return (kept, LevelSource::Kept, None);
    }
    let Some(cache) = cache else {
        return (level_errors(rig), LevelSource::Measured, None);
    };
    let mut problem = None;
    match read(cache, rig) {
        Ok(Some(levels)) => {
            let kept = keep_measured(rig, levels);
            return (kept, LevelSource::Cache, None);
        }
        Ok(None) => {}
        Err(e) => problem = Some(e),
    }
    let levels = measure_levels(rig);
    if let Err(e) = store(cache, rig, &levels) {
        problem.get_or_insert(e);
    }
    let kept = keep_measured(rig, levels);
    (kept, LevelSource::Measured, problem)
}

/// One file's contents.
#[derive(serde::Serialize, serde::Deserialize)]
struct LevelFile {
    levels: usize,
    joints: usize,
    measured: MeasuredLevels,
}

/// The file `rig`'s level measurement is kept in, in `cache`.
pub fn path_for(cache: &MeasureCache, rig: &PreparedRig) -> PathBuf {
    cache.path(KIND, rig, "")
}

/// `rig`'s measurement, where a file made by this code for this rig holds one of its shape.
pub fn read(cache: &MeasureCache, rig: &PreparedRig) -> Result<Option<MeasuredLevels>, CacheError> {
    let Some(file) = cache.read::<LevelFile>(KIND, rig, "")? else {
        return Ok(None);
    };
    let levels = rig.mesh_chain().levels().len();
    let m = &file.measured;
    let fits = file.levels == levels
        && file.joints == rig.joint_count()
        && m.errors.len() == levels
        && m.influences.len() == levels
        && m.held.len() == levels.saturating_sub(1)
        && m.between_poses.len() == levels
        && m.held.iter().all(|(animated, held, moved)| {
            held.len() <= *animated
                && held.windows(2).all(|w| w[0] < w[1])
                && held.iter().all(|&j| j < rig.joint_count())
                && moved.is_finite()
        })
        && m.errors.iter().all(|e| e.is_finite() && *e >= 0.0);
    Ok(fits.then_some(file.measured))
}

/// Keeps `measured` as `rig`'s.
fn store(
    cache: &MeasureCache,
    rig: &PreparedRig,
    measured: &MeasuredLevels,
) -> Result<(), CacheError> {
    let file = LevelFile {
        levels: rig.mesh_chain().levels().len(),
        joints: rig.joint_count(),
        measured: measured.clone(),
    };
    cache.write(KIND, rig, "", &file)
}
