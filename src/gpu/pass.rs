//! The shape of a GPU pass: what each pass declares about itself ([`GpuPassSpec`]), what
//! decides which passes a frame records ([`FrameConditions`]) and the one context every
//! pass records into ([`PassContext`]).
//!
//! How it works: each pass's module declares its spec as a constant beside the code that
//! records it: the query label (and span on the timeline), the panel's row and the
//! sidecars' key, when a frame records it, whether it is a compute pass or a draw pass,
//! what it reads and writes ([`Access`]), and the structs it shares with its shader (the
//! contract `tests/contracts.rs` checks). The frame's pass list (`gpu::scene::frame_passes`)
//! puts those specs in the order a frame records them; a pass records into a
//! [`PassContext`]: the device, the frame's encoder, the timers and the frame's shape.
//! [`PassContext::compute`] and [`PassContext::render`] are the only ways to begin a pass
//! (`tests/architecture.rs` fails on a `begin_compute_pass` or `begin_render_pass`
//! anywhere else but the window's own drawing), so every dispatch and draw is inside a
//! declared pass, and the context keeps the order the frame recorded them in, which
//! [`check_order`] holds against the declarations.

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
    /// What it reads: each must have been written earlier in the same frame, by the
    /// frame's uploads ([`UPLOAD_WRITES`]) or an earlier pass, wherever its condition holds.
    pub reads: &'static [Access],
    /// What it writes, wherever the condition holds.
    pub writes: &'static [Access],
    /// The shader it runs, and every struct it shares with that shader (each a
    /// `gpu_struct!`: the contract the reflection test checks).
    pub shader: Shader,
    pub shares: &'static [StructLayout],
}

/// When a frame records a GPU pass, or when a pass reads or writes something.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassRuns {
    Always,
    /// With shadows on.
    Shadows,
    /// With a skin variant whose CPU kernel writes the vertices (they are uploaded).
    CpuSkinning,
    /// With a skin variant that skins in a compute pass (`gpu_compute`).
    ComputeSkinning,
    /// With `gpu_compute` skinning level by level (`per_level`): its lists come first.
    PerLevelSkinning,
    /// With a skin variant the vertex shader skins (`gpu_vertex`).
    VertexSkinning,
    /// With the animation on the CPU (it uploads the palettes).
    CpuAnimation,
    /// With the animation on the GPU.
    GpuAnimation,
    /// With the animation and LOD on the GPU.
    GpuLod,
    /// With the animation and LOD on the GPU, drawn per level from the skinned pool.
    PoolLists,
}

/// What the frame's passes hand on to one another: the buffers and targets a pass reads
/// or writes, as the declarations name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameResource {
    /// The characters' records (clip, time, speed, LOD state): the CPU writes the changed
    /// ones.
    Records,
    /// Which characters are due this frame, and at which level: the LOD pass's marks (or,
    /// with the animation on the CPU, the CPU's).
    DueMarks,
    /// Each range's due characters, listed whole and by posed level, and the arguments
    /// of the animation's indirect dispatches over them.
    DueLists,
    /// The sampled local poses.
    LocalPoses,
    /// The model-space matrices.
    ModelPoses,
    /// The skinning palettes.
    Palettes,
    /// `per_level`'s characters listed per level, and its dispatches' arguments (and, into
    /// the pool, the level each character has room at).
    SkinLists,
    /// The skinned vertices the draws read.
    SkinnedVertices,
    /// The draws' indirect arguments per mesh level.
    LevelDraws,
    /// The sun's depth map.
    ShadowMap,
    /// The offscreen frame (colour and depth).
    Frame,
}

// `check_order` keeps a bit per resource in a u32.
const _: () = assert!((FrameResource::Frame as u32) < 32);

/// A read or write of `resource`, wherever `when` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub resource: FrameResource,
    pub when: PassRuns,
}

/// `resource`, every frame the pass records.
pub const fn always(resource: FrameResource) -> Access {
    Access {
        resource,
        when: PassRuns::Always,
    }
}

/// `resource`, in the frames where `when` holds.
pub const fn when(when: PassRuns, resource: FrameResource) -> Access {
    Access { resource, when }
}

/// What the CPU writes for a frame before its passes: the changed records with the
/// animation on the GPU; the palettes with it on the CPU; the vertices with a CPU skin
/// variant; the due marks with CPU LOD marking who a compute pass skins.
pub const UPLOAD_WRITES: &[Access] = {
    use FrameResource::*;
    &[
        when(PassRuns::GpuAnimation, Records),
        when(PassRuns::CpuAnimation, Palettes),
        when(PassRuns::CpuSkinning, SkinnedVertices),
        when(PassRuns::CpuAnimation, DueMarks),
    ]
};

/// What decides which passes a frame records and what they read: resolved once a frame
/// from the settings and the adapter, and read by the pass list, the panel's rows and
/// the order check alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameConditions {
    pub shadows: bool,
    pub skin: crate::skin::SkinDevice,
    /// `gpu_compute` skins level by level (`per_level`, the adapter allowing it).
    pub per_level: bool,
    pub gpu_animation: bool,
    /// The GPU's LOD pass runs (the animation on the GPU, with either LOD).
    pub gpu_lod: bool,
    /// The characters are skinned into the pool and drawn from its lists.
    pub pool: bool,
}

impl FrameConditions {
    /// Whether `when` holds this frame.
    pub fn holds(self, when: PassRuns) -> bool {
        use crate::skin::SkinDevice;
        match when {
            PassRuns::Always => true,
            PassRuns::Shadows => self.shadows,
            PassRuns::CpuSkinning => self.skin == SkinDevice::Cpu,
            PassRuns::ComputeSkinning => self.skin == SkinDevice::GpuCompute,
            PassRuns::PerLevelSkinning => self.skin == SkinDevice::GpuCompute && self.per_level,
            PassRuns::VertexSkinning => self.skin == SkinDevice::GpuVertex,
            PassRuns::CpuAnimation => !self.gpu_animation,
            PassRuns::GpuAnimation => self.gpu_animation,
            PassRuns::GpuLod => self.gpu_animation && self.gpu_lod,
            PassRuns::PoolLists => {
                self.gpu_animation && self.gpu_lod && self.pool && self.per_level
            }
        }
    }

    /// Every combination a frame can have (the pool only with `per_level` and the GPU's
    /// LOD, the LOD pass only with the GPU's animation): what the order test walks.
    pub fn every() -> Vec<FrameConditions> {
        use crate::variant::Variant;
        let mut all = Vec::new();
        for &skin in crate::skin::SkinDevice::ALL {
            for bits in 0..32u32 {
                let bit = |i: u32| bits & (1 << i) != 0;
                let conditions = FrameConditions {
                    shadows: bit(0),
                    skin,
                    per_level: bit(1),
                    gpu_animation: bit(2),
                    gpu_lod: bit(3),
                    pool: bit(4),
                };
                let consistent = (!conditions.per_level
                    || skin == crate::skin::SkinDevice::GpuCompute)
                    && (!conditions.gpu_lod || conditions.gpu_animation)
                    && (!conditions.pool || (conditions.gpu_lod && conditions.per_level));
                if consistent {
                    all.push(conditions);
                }
            }
        }
        all
    }
}

/// Checks that each pass of `recorded` (in the order a frame recorded them) reads only what
/// the frame's uploads or an earlier pass of `recorded` wrote, under `conditions`; names
/// the first pass that does not.
pub fn check_order(recorded: &[GpuPassSpec], conditions: FrameConditions) -> Result<(), String> {
    // One bit a resource: the check allocates nothing on the frame's path.
    let bit = |resource: FrameResource| 1u32 << resource as u32;
    let mut written = UPLOAD_WRITES
        .iter()
        .filter(|w| conditions.holds(w.when))
        .fold(0, |mask, w| mask | bit(w.resource));
    for spec in recorded {
        for read in spec.reads.iter().filter(|r| conditions.holds(r.when)) {
            if written & bit(read.resource) == 0 {
                return Err(format!(
                    "the {} pass reads {:?}, which neither the uploads nor an earlier pass \
                     of the frame wrote ({conditions:?}; recorded: {})",
                    spec.name,
                    read.resource,
                    recorded
                        .iter()
                        .map(|s| s.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        written |= spec
            .writes
            .iter()
            .filter(|w| conditions.holds(w.when))
            .fold(0, |mask, w| mask | bit(w.resource));
    }
    Ok(())
}

/// Whether a pass computes (recorded with the frame's uploads) or draws (recorded once
/// the frame's draws are prepared, and not at all in a frame without draws).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassKind {
    Compute,
    Draw,
}

/// What every pass records with: the device, the frame's encoder, the timers (none in the
/// tests that record a pass alone) and the frame's shape; it keeps the passes recorded, in
/// order.
pub struct PassContext<'a> {
    pub gpu: &'a GpuContext,
    pub encoder: &'a mut wgpu::CommandEncoder,
    pub timers: Option<&'a GpuTimers>,
    pub shape: FrameShape<'a>,
    recorded: Vec<GpuPassSpec>,
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
            recorded: Vec::new(),
        }
    }

    /// The passes recorded into this context so far, in order (a pass of several waves
    /// once a wave).
    pub fn recorded(&self) -> &[GpuPassSpec] {
        &self.recorded
    }

    /// The passes recorded, in order, the context given up.
    pub fn into_recorded(self) -> Vec<GpuPassSpec> {
        self.recorded
    }

    /// Records `spec`'s pass with `record`, inside its timestamp query where there are
    /// timers: `record` gets the encoder and the query, whose `*_pass_timestamp_writes()`
    /// go into the pass's descriptor.
    fn timed<R>(
        &mut self,
        spec: &GpuPassSpec,
        record: impl FnOnce(&mut wgpu::CommandEncoder, Option<&GpuProfilerQuery>) -> R,
    ) -> R {
        self.recorded.push(*spec);
        let query = self.timers.map(|t| t.pass(spec.label, self.encoder));
        let out = record(self.encoder, query.as_ref());
        if let (Some(t), Some(q)) = (self.timers, query) {
            t.end(self.encoder, q);
        }
        out
    }

    /// Records `spec`'s compute pass, `work` filling it, inside its timestamp query.
    pub fn compute<R>(
        &mut self,
        spec: &GpuPassSpec,
        work: impl FnOnce(&mut wgpu::ComputePass<'_>) -> R,
    ) -> R {
        self.timed(spec, |encoder, query| {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(spec.label),
                timestamp_writes: query.and_then(|q| q.compute_pass_timestamp_writes()),
            });
            work(&mut pass)
        })
    }

    /// Records `spec`'s draw pass into `color` and `depth`, `work` filling it, inside its
    /// timestamp query.
    pub fn render<R>(
        &mut self,
        spec: &GpuPassSpec,
        color: &[Option<wgpu::RenderPassColorAttachment<'_>>],
        depth: Option<wgpu::RenderPassDepthStencilAttachment<'_>>,
        work: impl FnOnce(&mut wgpu::RenderPass<'_>) -> R,
    ) -> R {
        self.timed(spec, |encoder, query| {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some(spec.label),
                color_attachments: color,
                depth_stencil_attachment: depth,
                timestamp_writes: query.and_then(|q| q.render_pass_timestamp_writes()),
                ..Default::default()
            });
            work(&mut pass)
        })
    }
}
