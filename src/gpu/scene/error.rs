//! What can stop the scene: each lower layer's error, and the scene's own refusals.

use std::path::PathBuf;

use crate::crowd::FrameError;
use crate::crowd::budget::BudgetError;
use crate::gpu::animate::GpuAnimateError;
use crate::gpu::readback::ReadbackError;
use crate::gpu::timers::TimerError;
use crate::skin::BufferError;

#[derive(Debug, thiserror::Error)]
/// Why the scene could not do what was asked.
pub enum SceneError {
    #[error("--skin {skin} cannot run on {adapter}: {reason}")]
    SkinOnAdapter {
        skin: &'static str,
        adapter: String,
        reason: String,
    },
    #[error(transparent)]
    Frame(#[from] FrameError),
    #[error(transparent)]
    Budget(#[from] BudgetError),
    #[error(transparent)]
    Readback(#[from] ReadbackError),
    #[error(transparent)]
    Buffer(#[from] BufferError),
    #[error(transparent)]
    Timers(#[from] TimerError),
    #[error(transparent)]
    Upload(#[from] crate::gpu::upload::UploadError),
    #[error(transparent)]
    GpuSkin(#[from] crate::gpu::skin::GpuSkinError),
    #[error(transparent)]
    GpuAnimate(#[from] GpuAnimateError),
    #[error(transparent)]
    Clips(#[from] crate::crowd::mix::ClipChoiceError),
    #[error(transparent)]
    Simd(#[from] crate::simd::UnsupportedLevel),
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("verify asked for the GPU's animation before the GPU animated a frame")]
    NotAnimated,
    #[error("no pipeline for the LOD error measurement")]
    NoMeasurementPipeline,
    #[error("waiting for the GPU failed: {0}")]
    Poll(String),
    #[error(
        "the GPU refused a command ({} wgpu validation error(s)), a bug in skinbench: please \
         report it with the command line and the rig. The first: {}",
        .0.len(),
        .0.first().map_or("", String::as_str)
    )]
    Validation(Vec<String>),
    #[error(
        "the call recording the {recorder} pass recorded the {pass} pass, which it does not \
         declare: a bug in skinbench"
    )]
    UndeclaredPass {
        pass: &'static str,
        recorder: &'static str,
    },
    #[error("the frame's passes were recorded out of order, a bug in skinbench: {0}")]
    PassOrder(String),
}
