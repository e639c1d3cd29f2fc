//! Timeline profilers for the window: puffin and Tracy, through the `profiling` crate's
//! scopes that the frame already carries (every stage of every group on the thread that
//! ran it, the LOD plan, the upload, the encoding; the GPU passes via `wgpu-profiler`).
//!
//! How it works: a build with the `profile-with-puffin` feature turns puffin's scopes on
//! when the panel's "profiler" button is pressed (or `--profiler` is given) and serves
//! them on [`PUFFIN_ADDRESS`], where `puffin_viewer` shows the flame graph of every frame;
//! the released `puffin_egui` follows an older egui than the panel's, so the graph opens
//! in the viewer rather than inside the panel. A build with `profile-with-tracy` runs
//! Tracy's client from the start (connect the Tracy profiler to it). Without either
//! feature the scopes compile to nothing, and the button says how to build them.

use std::sync::Mutex;

/// Where puffin's frames are served for `puffin_viewer`.
pub const PUFFIN_ADDRESS: &str = "127.0.0.1:8585";

/// The puffin server, once started (it stops when the process ends).
#[cfg(feature = "profile-with-puffin")]
static PUFFIN_SERVER: Mutex<Option<puffin_http::Server>> = Mutex::new(None);
#[cfg(not(feature = "profile-with-puffin"))]
static PUFFIN_SERVER: Mutex<Option<()>> = Mutex::new(None);

/// Whether this build can open a profiler from the panel.
pub const fn available() -> bool {
    cfg!(feature = "profile-with-puffin")
}

/// Why the timeline profiler cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ProfilerError {
    #[error("cannot serve puffin on {address}: {reason}")]
    Serve {
        address: &'static str,
        /// puffin_http's own error, as it words it.
        reason: String,
    },
    #[error(
        "this build has no profiler: build with --features profile-with-puffin (or \
         profile-with-tracy, then connect Tracy)"
    )]
    NotBuilt,
}

/// Starts puffin's scopes and its server (once; later calls say where it serves), or says
/// why it cannot.
pub fn start() -> Result<String, ProfilerError> {
    #[cfg_attr(not(feature = "profile-with-puffin"), allow(unused_mut))]
    let mut server = PUFFIN_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    #[cfg(feature = "profile-with-puffin")]
    if server.is_none() {
        let started =
            puffin_http::Server::new(PUFFIN_ADDRESS).map_err(|e| ProfilerError::Serve {
                address: PUFFIN_ADDRESS,
                reason: e.to_string(),
            })?;
        *server = Some(started);
        puffin::set_scopes_on(true);
    }
    if available() && server.is_some() {
        Ok(format!(
            "puffin serves on {PUFFIN_ADDRESS}: run `puffin_viewer --url {PUFFIN_ADDRESS}`"
        ))
    } else {
        Err(ProfilerError::NotBuilt)
    }
}
