//! Load-time measurements kept on disk, so that a character loaded again does not measure
//! again what it measured before (seconds for a large mesh or a long clip).
//!
//! How it works: one JSON file per measurement in the platform's cache folder
//! ([`MeasureCache::platform`]), named by what is measured, the rig's content hash
//! ([`super::content::ContentHash`]) and the measurement's own key, and holding the
//! build's source hash and the rig's hash beside the value. A file made by other code or
//! for another rig, or one that does not parse as the value, is a miss: the caller measures
//! again and the new file overwrites it. The callers check a value's shape against the rig
//! before using it (`skin::level_cache`, `crowd::lod::motion`, layers above). A file is
//! written to a temporary name and renamed, so a reader never sees half of one.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::PreparedRig;

/// The source the measurements come from: a hash of the crate's code and its locked
/// dependencies at build time.
pub const CODE_VERSION: &str = env!("SKINBENCH_SOURCE_HASH");

/// Why the cache could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("the measurement cache {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the measurement cache {path}: {source}")]
    Format {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// A folder of cached measurements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeasureCache {
    dir: PathBuf,
}

/// One file as written.
#[derive(Serialize)]
struct Written<'a, T> {
    code_version: &'a str,
    rig: String,
    value: &'a T,
}

/// One file as read.
#[derive(serde::Deserialize)]
struct Read<T> {
    code_version: String,
    rig: String,
    value: T,
}

impl MeasureCache {
    /// The cache in `dir` (made when first written).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        MeasureCache { dir: dir.into() }
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

    /// The file the measurement `kind` of `rig` under `key` is kept in: `kind` and `key`
    /// are short names of letters, digits and dashes ("levels", "motion", "3-0-lin").
    pub fn path(&self, kind: &str, rig: &PreparedRig, key: &str) -> PathBuf {
        let key = if key.is_empty() {
            String::new()
        } else {
            format!("-{key}")
        };
        self.dir
            .join(format!("{kind}-{}{key}.json", rig.content_hash.hex()))
    }

    /// The value kept for `kind`, `rig` and `key`, where a file made by this code for this
    /// rig holds one that parses; `Ok(None)` for a miss.
    pub fn read<T: DeserializeOwned>(
        &self,
        kind: &str,
        rig: &PreparedRig,
        key: &str,
    ) -> Result<Option<T>, CacheError> {
        let path = self.path(kind, rig, key);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(CacheError::Io { path, source }),
        };
        // A file of another version or shape is a miss, not an error: it is overwritten.
        let Ok(file) = serde_json::from_slice::<Read<T>>(&bytes) else {
            return Ok(None);
        };
        let fits = file.code_version == CODE_VERSION && file.rig == rig.content_hash.hex();
        Ok(fits.then_some(file.value))
    }

    /// Keeps `value` as the measurement `kind` of `rig` under `key`.
    pub fn write<T: Serialize>(
        &self,
        kind: &str,
        rig: &PreparedRig,
        key: &str,
        value: &T,
    ) -> Result<(), CacheError> {
        let path = self.path(kind, rig, key);
        let io = |source| CacheError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        let file = Written {
            code_version: CODE_VERSION,
            rig: rig.content_hash.hex(),
            value,
        };
        let bytes = serde_json::to_vec(&file).map_err(|source| CacheError::Format {
            path: path.clone(),
            source,
        })?;
        // Another process may write the same file: each writes its own temporary one.
        let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
        std::fs::write(&temporary, bytes).map_err(io)?;
        std::fs::rename(&temporary, &path).map_err(io)
    }
}
