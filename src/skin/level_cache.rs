//! The level measurements kept on disk, so that a character loaded again does not measure
//! its LOD chain again (seconds for a large mesh).
//!
//! How it works: one JSON file per rig in the platform's cache folder
//! ([`LevelCache::platform`]), named by the rig's content hash
//! ([`crate::prepare::content::ContentHash`]) and holding the build's source hash, the
//! format's version and the rig's level and joint counts beside the measurement
//! ([`MeasuredLevels`]). A file made by other code, for another rig or of another shape
//! is not read: a mismatch is a miss, and the new measurement overwrites it. A file is
//! written to a temporary name and renamed, so a reader never sees half of one.

use std::path::{Path, PathBuf};

use super::level_errors::{MeasuredLevels, keep_measured, level_errors, measure_levels, measured};
use crate::prepare::{MeshLevelErrors, PreparedRig};

/// The version of the file's layout (the source hash covers what is measured).
const FORMAT: u32 = 1;

/// The source the measurements come from: a hash of the crate's code and its locked
/// dependencies at build time.
pub const CODE_VERSION: &str = env!("SKINBENCH_SOURCE_HASH");

/// Why the cache could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LevelCacheError {
    #[error("the level cache {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the level cache {path}: {source}")]
    Format {
        path: PathBuf,
        source: serde_json::Error,
    },
}

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
    cache: Option<&LevelCache>,
) -> (&'r MeshLevelErrors, LevelSource, Option<LevelCacheError>) {
    if let Some(kept) = measured(rig) {
        return (kept, LevelSource::Kept, None);
    }
    let Some(cache) = cache else {
        return (level_errors(rig), LevelSource::Measured, None);
    };
    let mut problem = None;
    match cache.load(rig) {
        Ok(Some(levels)) => {
            let kept = keep_measured(rig, levels);
            return (kept, LevelSource::Cache, None);
        }
        Ok(None) => {}
        Err(e) => problem = Some(e),
    }
    let levels = measure_levels(rig);
    if let Err(e) = cache.store(rig, &levels) {
        problem.get_or_insert(e);
    }
    let kept = keep_measured(rig, levels);
    (kept, LevelSource::Measured, problem)
}

/// A folder of cached level measurements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelCache {
    dir: PathBuf,
}

/// One file's contents.
#[derive(serde::Serialize, serde::Deserialize)]
struct CacheFile {
    format: u32,
    code_version: String,
    rig: String,
    levels: usize,
    joints: usize,
    measured: MeasuredLevels,
}

impl LevelCache {
    /// The cache in `dir` (made when first written).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        LevelCache { dir: dir.into() }
    }

    /// The platform's cache folder for skinbench: `$SKINBENCH_CACHE_DIR` where set, else
    /// `$XDG_CACHE_HOME/skinbench` or `~/.cache/skinbench` (Linux and other Unix),
    /// `~/Library/Caches/skinbench` (macOS), `%LOCALAPPDATA%\skinbench` (Windows); `None`
    /// where none of these is known.
    pub fn platform() -> Option<Self> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(dir) = var("SKINBENCH_CACHE_DIR") {
            return Some(Self::at(dir));
        }
        let base = if cfg!(target_os = "windows") {
            var("LOCALAPPDATA").map(PathBuf::from)
        } else if cfg!(target_os = "macos") {
            var("HOME").map(|h| Path::new(&h).join("Library/Caches"))
        } else {
            var("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| var("HOME").map(|h| Path::new(&h).join(".cache")))
        };
        base.map(|b| Self::at(b.join("skinbench")))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file `rig`'s measurement is kept in.
    pub fn path_for(&self, rig: &PreparedRig) -> PathBuf {
        self.dir
            .join(format!("levels-{}.json", rig.content_hash.hex()))
    }

    /// `rig`'s measurement, where a file made by this code for this rig holds it.
    pub fn load(&self, rig: &PreparedRig) -> Result<Option<MeasuredLevels>, LevelCacheError> {
        let path = self.path_for(rig);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(LevelCacheError::Io { path, source }),
        };
        // A file of another version or shape is a miss, not an error: it is overwritten.
        let Ok(file) = serde_json::from_slice::<CacheFile>(&bytes) else {
            return Ok(None);
        };
        let levels = rig.mesh_chain().levels().len();
        let m = &file.measured;
        let fits = file.format == FORMAT
            && file.code_version == CODE_VERSION
            && file.rig == rig.content_hash.hex()
            && file.levels == levels
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
    pub fn store(
        &self,
        rig: &PreparedRig,
        measured: &MeasuredLevels,
    ) -> Result<(), LevelCacheError> {
        let path = self.path_for(rig);
        let io = |source| LevelCacheError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        let file = CacheFile {
            format: FORMAT,
            code_version: CODE_VERSION.to_string(),
            rig: rig.content_hash.hex(),
            levels: rig.mesh_chain().levels().len(),
            joints: rig.joint_count(),
            measured: measured.clone(),
        };
        let bytes = serde_json::to_vec(&file).map_err(|source| LevelCacheError::Format {
            path: path.clone(),
            source,
        })?;
        // Another process may write the same file: each writes its own temporary one.
        let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
        std::fs::write(&temporary, bytes).map_err(io)?;
        std::fs::rename(&temporary, &path).map_err(io)
    }
}
