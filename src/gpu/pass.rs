//! The shape of a GPU pass: what each pass declares about itself ([`GpuPassSpec`]) and the
//! one context every pass records into ([`PassContext`]).
//!
//! How it works: each pass's module declares its spec as a constant beside the code that
//! records it: the query label (and span on the timeline), the panel's row and the
//! sidecars' key, when a frame records it, whether it is a compute pass or a draw pass,
//! and the structs it shares with its shader (the contract `tests/contracts.rs` checks).
//! The frame's pass list (`gpu::scene::passes`) puts those specs in the order a frame
//! records them, each with the one call that records it; a pass records into a
//! [`PassContext`]: the device, the frame's encoder, the timers and the frame's shape.

use wgpu_profiler::GpuProfilerQuery;

use super::context::GpuContext;
use super::shaders::Shader;
use super::shape::FrameShape;
use super::timers::GpuTimers;
use crate::contract::StructLayout;

/// What a GPU pass is, declared by its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuPassSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// The label of its timestamp query (and its span on the timeline).
    pub label: &'static str,
    /// Its row in the panel, and the row's key (the sidecar's).
    pub row: &'static str,
    pub key: &'static str,
    /// When a frame records it.
    pub runs: PassRuns,
    /// Where in the frame it goes: compute passes before the window's panel is built,
    /// draw passes after (the panel says where in the target the crowd is drawn).
    pub kind: PassKind,
    /// The shader it runs, and every struct it shares with that shader (each a
    /// `gpu_struct!`: the contract the reflection test checks).
    pub shader: Shader,
    pub shares: &'static [StructLayout],
}

/// When a frame records a GPU pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassRuns {
    Always,
    /// With shadows on.
    Shadows,
    /// With a skin variant that skins in a compute pass (`gpu_compute`).
    ComputeSkinning,
    /// With the animation on the GPU.
    GpuAnimation,
    /// With the animation and LOD on the GPU.
    GpuLod,
    /// With the animation and LOD on the GPU, drawn per level from the skinned pool.
    PoolLists,
}

/// Whether a pass computes (recorded with the frame's uploads) or draws (recorded once
/// the frame's draws are prepared, and not at all in a frame without draws).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassKind {
    Compute,
    Draw,
}

/// What every pass records with: the device, the frame's encoder, the timers (none in the
/// tests that record a pass alone) and the frame's shape.
pub struct PassContext<'a> {
    pub gpu: &'a GpuContext,
    pub encoder: &'a mut wgpu::CommandEncoder,
    pub timers: Option<&'a GpuTimers>,
    pub shape: FrameShape<'a>,
}

impl<'a> PassContext<'a> {
    pub fn new(
        gpu: &'a GpuContext,
        encoder: &'a mut wgpu::CommandEncoder,
        timers: Option<&'a GpuTimers>,
        shape: FrameShape<'a>,
    ) -> Self {
        PassContext {
            gpu,
            encoder,
            timers,
            shape,
        }
    }

    /// Records `spec`'s pass with `record`, inside its timestamp query where there are
    /// timers: `record` gets the device, the encoder and the query, whose
    /// `*_pass_timestamp_writes()` go into the pass's descriptor.
    pub fn timed<R>(
        &mut self,
        spec: &GpuPassSpec,
        record: impl FnOnce(&GpuContext, &mut wgpu::CommandEncoder, Option<&GpuProfilerQuery>) -> R,
    ) -> R {
        let query = self.timers.map(|t| t.pass(spec.label, self.encoder));
        let out = record(self.gpu, self.encoder, query.as_ref());
        if let (Some(t), Some(q)) = (self.timers, query) {
            t.end(self.encoder, q);
        }
        out
    }

    /// Records `spec`'s compute pass, `work` filling it, inside its timestamp query.
    pub fn compute(&mut self, spec: &GpuPassSpec, work: impl FnOnce(&mut wgpu::ComputePass<'_>)) {
        self.timed(spec, |_, encoder, query| {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(spec.label),
                timestamp_writes: query.and_then(|q| q.compute_pass_timestamp_writes()),
            });
            work(&mut pass);
        });
    }
}
