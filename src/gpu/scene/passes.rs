//! The GPU frame's passes, in the order a frame records them: one row each, naming the
//! pass's own declaration (the [`GpuPassSpec`] its module keeps beside the code that
//! records it) and the one call that records it from the frame's parts (the animation's
//! three passes go wave by wave, so the sampling row's call records all three). The
//! timers, the panel's rows, the timeline, the sidecars and reports (`gpu_<pass>_us`), the
//! bench's columns and the contracts test all read this list.
//!
//! How it works: [`Scene::frame`] records the compute passes after the uploads and the draw
//! passes after the window's panel is built, each pass whose spec says it runs this
//! frame, in the list's order, into one [`PassContext`] (device, encoder, timers, the
//! frame's shape); a frame's times are kept in [`StageTimings`]'s per-pass slots (the CPU
//! layer's record of a frame, which never names a pass), indexed by the pass's place here.

use super::{Scene, SceneError, Simulation};
use crate::crowd::AnimateDevice;
use crate::crowd::StageTimings;
use crate::crowd::timing::{GPU_PASS_SLOTS, PassTimes};
use crate::gpu::animate::{self, lod};
use crate::gpu::pass::{GpuPassSpec, PassContext, PassKind, PassRuns};
use crate::gpu::passes::{RENDER_PASS, SHADOW_PASS, crowd_pass, shadow_pass};
use crate::gpu::renderer::CrowdRenderer;
use crate::gpu::shaders::Shader;
use crate::gpu::targets::FrameTargets;
use crate::gpu::{FrameShape, skin};
use crate::variant::Variant;

/// What records a pass: the frame's parts it reads, into the frame's context.
pub type RecordPass = fn(&mut FrameParts<'_>, &mut PassContext<'_>) -> Result<(), SceneError>;

/// A row of the frame's pass list: the pass's declaration and its recording.
#[derive(Clone, Copy)]
pub struct FramePass {
    pub name: &'static str,
    pub description: &'static str,
    spec: GpuPassSpec,
    record: RecordPass,
}

const fn pass(spec: GpuPassSpec, record: RecordPass) -> FramePass {
    FramePass {
        name: spec.name,
        description: spec.description,
        spec,
        record,
    }
}

crate::declare_variants! {
    /// The GPU passes of a frame, in the order a frame records them (the panel's order too).
    pub enum GpuPass: FramePass in "GPU pass" {
        Lod => pass(lod::PASS, |p, ctx| p.gpu_lod(|l| l.record(ctx))),
        // The animation's three passes go wave by wave (a wave's ranges share the pose
        // slots the next wave reuses), so the first row records all three, each pass of
        // each wave timed under its own row's label.
        Sample => pass(animate::SAMPLE_PASS, |p, ctx| p.animator(|a| a.record_passes(ctx))),
        Hierarchy => pass(animate::HIERARCHY_PASS, |_, _| Ok(())),
        Palette => pass(animate::PALETTE_PASS, |_, _| Ok(())),
        Compute => pass(skin::PASS, |p, ctx| Ok(p.renderer.record_gpu_skinning(ctx, p.sim.pipeline.rig(), p.sim.due_records())?)),
        PoolLists => pass(lod::POOL_LISTS_PASS, |p, ctx| p.gpu_lod(|l| l.record_pool_lists(ctx))),
        Shadow => pass(SHADOW_PASS, |p, ctx| p.draw(|renderer, _, _| shadow_pass(ctx, renderer))),
        Render => pass(RENDER_PASS, |p, ctx| p.draw(|renderer, targets, viewport| crowd_pass(ctx, targets, renderer, viewport))),
    }
}

// Every pass has a slot in a frame's timings.
const _: () = assert!(GpuPass::COUNT <= GPU_PASS_SLOTS);

/// Every pass's query label, in the list's order.
const LABELS: [&str; GpuPass::COUNT] = {
    let mut labels = [""; GpuPass::COUNT];
    let mut i = 0;
    while i < GpuPass::COUNT {
        labels[i] = <GpuPass as Variant>::ALL[i].declared().label;
        i += 1;
    }
    labels
};

impl GpuPass {
    /// What the pass declares about itself.
    pub const fn declared(self) -> GpuPassSpec {
        self.spec().spec
    }

    /// The label of its timestamp query (and its span on the timeline).
    pub fn label(self) -> &'static str {
        self.declared().label
    }

    /// Its row in the panel.
    pub fn row(self) -> &'static str {
        self.declared().row
    }

    /// The row's key (the sidecar's).
    pub fn key(self) -> &'static str {
        self.declared().key
    }

    /// When a frame records it.
    pub fn runs(self) -> PassRuns {
        self.declared().runs
    }
}

/// Every struct a shader shares with the CPU, from the passes' declarations: the shader,
/// and the layout of the Rust type the CPU reads or writes it as. `tests/contracts.rs`
/// checks each against the shader, and fails on a bound struct missing here.
pub fn shared_structs() -> Vec<(Shader, crate::contract::StructLayout)> {
    let mut shared: Vec<(Shader, crate::contract::StructLayout)> = Vec::new();
    for pass in GpuPass::ALL {
        let spec = pass.declared();
        for &layout in spec.shares {
            if !shared.contains(&(spec.shader, layout)) {
                shared.push((spec.shader, layout));
            }
        }
    }
    shared
}

/// What the passes of a frame read and change: the scene's parts, borrowed apart from the
/// device and the timers the [`PassContext`] holds.
pub struct FrameParts<'a> {
    sim: &'a mut Simulation,
    renderer: &'a mut CrowdRenderer,
    targets: &'a FrameTargets,
    /// Where in the targets the crowd is drawn (x, y, w, h), or all of them.
    viewport: Option<[f32; 4]>,
}

impl FrameParts<'_> {
    /// Records with the LOD pass on the GPU, where there is one.
    fn gpu_lod(&mut self, record: impl FnOnce(&mut lod::GpuLod)) -> Result<(), SceneError> {
        if let Some(gpu_lod) = self.sim.gpu_lod.as_mut() {
            record(gpu_lod);
        }
        Ok(())
    }

    /// Records with the GPU animation, where there is one.
    fn animator(
        &mut self,
        record: impl FnOnce(&mut animate::GpuAnimator),
    ) -> Result<(), SceneError> {
        if let Some(animator) = self.sim.animator.as_mut() {
            record(animator);
        }
        Ok(())
    }

    /// Records a draw pass: the renderer, the targets and the viewport.
    fn draw(
        &mut self,
        record: impl FnOnce(&CrowdRenderer, &FrameTargets, Option<[f32; 4]>),
    ) -> Result<(), SceneError> {
        record(self.renderer, self.targets, self.viewport);
        Ok(())
    }
}

impl Simulation {
    /// With the animation and its LOD pass on the GPU this frame: the records that pass
    /// marked due (only those characters are skinned again). With the animation on the
    /// CPU and geometric LOD, the CPU's marks: every character at its group's skin level.
    fn due_records(&self) -> Option<&wgpu::Buffer> {
        if let Some(marks) = self.cpu_skin_marks.live() {
            return Some(marks);
        }
        let animator = self.animator.as_ref()?;
        self.lod_marks_due.then(|| animator.records())
    }
}

impl Scene {
    /// Whether this frame records `pass`, by its declaration's [`PassRuns`].
    pub(super) fn pass_runs(&self, pass: GpuPass) -> bool {
        let on_gpu = self.sim.animated_on == AnimateDevice::Gpu;
        match pass.runs() {
            PassRuns::Always => true,
            PassRuns::Shadows => self.renderer.shadows(),
            PassRuns::ComputeSkinning => self.skins_in_compute_pass(),
            PassRuns::GpuAnimation => on_gpu,
            PassRuns::GpuLod => on_gpu && (self.settings.lod.enabled || self.settings.lod.mesh),
            PassRuns::PoolLists => {
                on_gpu
                    && (self.settings.lod.enabled || self.settings.lod.mesh)
                    && self.renderer.lists_pooled()
            }
        }
    }

    /// Records the frame's passes of `kind` that run this frame, in the list's order, each
    /// inside its timestamp query where `timed` (not in an encoder that is never
    /// submitted: its queries would never be resolved).
    pub(super) fn record_passes(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        kind: PassKind,
        viewport: Option<[f32; 4]>,
        timed: bool,
    ) -> Result<(), SceneError> {
        let mut runs = [false; GpuPass::COUNT];
        for &pass in GpuPass::ALL {
            runs[pass.index()] = pass.declared().kind == kind && self.pass_runs(pass);
        }
        let layout = *self.sim.pipeline.output_layout();
        let shape = FrameShape::new(&layout, self.sim.crowd.len());
        let timers = timed.then_some(&self.timers);
        let mut ctx = PassContext::new(&self.gpu, encoder, timers, shape);
        let mut parts = FrameParts {
            sim: &mut self.sim,
            renderer: &mut self.renderer,
            targets: &self.targets,
            viewport,
        };
        for &pass in GpuPass::ALL {
            if runs[pass.index()] {
                (pass.spec().record)(&mut parts, &mut ctx)?;
            }
        }
        Ok(())
    }

    /// Ends the frame's timestamp queries (after its submission), waiting for the GPU where
    /// the caller asked for its times.
    pub(super) fn end_pass_timers(&mut self) {
        self.timers
            .end_frame(&self.gpu, self.wait_for_gpu_times, &LABELS);
    }

    /// The times of the passes this frame records, from the latest frame the GPU finished
    /// (a pass that does not run keeps none, whatever the profiler last had).
    pub(super) fn pass_times(&self) -> PassTimes {
        let mut times = PassTimes::default();
        for &pass in GpuPass::ALL {
            times[pass.index()] = self
                .timers
                .last_us(pass.label())
                .filter(|_| self.pass_runs(pass));
        }
        times
    }
}

impl StageTimings {
    /// The GPU time of `pass`, where the frame recorded it and it was timed.
    pub fn gpu(&self, pass: GpuPass) -> Option<f64> {
        self.gpu_us[pass.index()]
    }
}

/// Written with one `gpu_<pass>_us` field per GPU pass, as the reports and sidecars have
/// always named them.
impl serde::Serialize for StageTimings {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("stage_us", &self.stage_us)?;
        for &pass in GpuPass::ALL {
            map.serialize_entry(&format!("gpu_{}_us", pass.name()), &self.gpu(pass))?;
        }
        map.serialize_entry("gpu_frame_us", &self.gpu_frame_us)?;
        map.serialize_entry("cpu_pipeline_us", &self.cpu_pipeline_us)?;
        map.serialize_entry("frame_us", &self.frame_us)?;
        map.serialize_entry("frame_pending", &self.frame_pending)?;
        map.serialize_entry("lod_plan_us", &self.lod_plan_us)?;
        map.serialize_entry("threads", &self.threads)?;
        map.serialize_entry("instances", &self.instances)?;
        map.serialize_entry("setup", &self.setup)?;
        map.end()
    }
}
