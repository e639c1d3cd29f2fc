//! One frame's inputs, what a caller may add to it and what it returns: [`Frame`] says how
//! long the frame is and whether it draws, [`FrameExtras`] records the window's panel
//! around the scene's passes, [`FrameReport`] is what the frame did (see [`Scene::frame`]).

use super::Scene;
use crate::crowd::StageTimings;

/// What a frame did, as the bench records it and the panel and sidecars show it.
#[derive(Clone, Debug, Default)]
pub struct FrameReport {
    /// Its timings (also pushed into the scene's history).
    pub timings: StageTimings,
    /// Bytes the CPU wrote for the GPU ([`Scene::uploaded_bytes`]).
    pub uploaded_bytes: u64,
    /// Triangles the crowd pass drew ([`Scene::triangles_drawn`]).
    pub triangles_drawn: u64,
    /// Vertices skinned, and every character's every vertex ([`Scene::vertices_skinned`]).
    pub vertices_skinned: (u64, u64),
    /// Invocations `gpu_compute`'s skinning pass launched ([`Scene::skin_invocations`]).
    pub skin_invocations: u64,
    /// Why a setting was not honoured this frame, or what it changed (as the panel lists
    /// them).
    pub notes: Vec<String>,
}

/// What a frame's `dt_secs` is, for its timings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameDuration {
    /// The frame's own duration (headless frames: a fixed step).
    Given,
    /// The wall time since the previous frame began (the window's): the previous frame's
    /// duration, so this frame's stays pending until the next.
    SincePrevious,
}

/// One frame's inputs (see [`Scene::frame`]).
pub struct Frame<'a> {
    /// Seconds since the previous frame.
    pub dt_secs: f32,
    /// Whose duration `dt_secs` is.
    pub duration: FrameDuration,
    /// Whether the shadow and crowd passes are recorded (without them: the frame's CPU
    /// part, its uploads and its compute passes, for the bench at crowd sizes a software
    /// renderer cannot draw in reasonable time).
    pub draws: bool,
    /// The window's present mode, for a screenshot's sidecar.
    pub present_mode: Option<&'a str>,
    /// What the caller records around the scene's passes (the window's panel).
    pub extras: Option<&'a mut dyn FrameExtras>,
}

impl<'a> Frame<'a> {
    /// A frame without a window: drawn into the offscreen targets, nothing else recorded.
    pub fn headless(dt_secs: f32) -> Self {
        Frame {
            dt_secs,
            duration: FrameDuration::Given,
            draws: true,
            present_mode: None,
            extras: None,
        }
    }

    /// The same frame without the shadow and crowd passes.
    pub fn without_draws(self) -> Self {
        Frame {
            draws: false,
            ..self
        }
    }
}

/// What [`FrameExtras::before_draws`] gives the frame.
#[derive(Default)]
pub struct BeforeDraws {
    /// Where in the targets the crowd is drawn (x, y, w, h), or all of them.
    pub viewport: Option<[f32; 4]>,
    /// Command buffers to submit before the frame's own (the panel's uploads).
    pub command_buffers: Vec<wgpu::CommandBuffer>,
}

/// What a caller adds to [`Scene::frame`], at the three points where it may: the window's
/// panel (built before the crowd is drawn, painted over it) and its copy to the surface.
pub trait FrameExtras {
    /// After the uploads, before the crowd's passes, recording into the frame's encoder.
    fn before_draws(
        &mut self,
        scene: &mut Scene,
        encoder: &mut wgpu::CommandEncoder,
    ) -> BeforeDraws;

    /// After the crowd's passes, into the same encoder.
    fn after_draws(&mut self, scene: &Scene, encoder: &mut wgpu::CommandEncoder);

    /// After the frame was submitted, before its requests are carried out.
    fn after_submit(&mut self, scene: &mut Scene);
}
