//! The GPU frame's passes, in the order a frame records them: one row each, naming the
//! pass's own declaration (the [`GpuPassSpec`] its module keeps beside the code that
//! records it). The timers, the panel's rows, the timeline, the sidecars and reports
//! (`gpu_<pass>_us`), the bench's columns and the contracts test all read this list.
//!
//! How it works: [`Scene::frame`] resolves the frame's [`FrameConditions`] once, prepares
//! the frame ([`PreparedFrame`]: what the upload made ready for the passes), then records
//! the compute passes after the uploads and the draw passes after the window's panel is
//! built: each call of [`RECORDERS`] whose passes run this frame, in order, into one
//! [`PassContext`] (device, encoder, timers, the frame's shape). A call records only its
//! own passes (the animation's go wave by wave, so one call records its four), and the
//! frame fails on one that records another's. The order the passes were recorded in is
//! checked against what each declares it reads and writes ([`check_order`](crate::gpu::pass::check_order)) by the tests
//! and the soak. A frame's times are kept in [`StageTimings`]'s per-pass slots (the CPU
//! layer's record of a frame, which never names a pass), indexed by the pass's place here.

use super::{Scene, SceneError, Simulation};
use crate::crowd::AnimateDevice;
use crate::crowd::StageTimings;
use crate::crowd::timing::{GPU_PASS_SLOTS, PassTimes};
use crate::gpu::animate::{self, PreparedAnimation, lod};
use crate::gpu::draw_passes::{RENDER_PASS, SHADOW_PASS, crowd_pass, shadow_pass};
use crate::gpu::pass::{FrameConditions, GpuPassSpec, PassContext, PassKind, PassRuns};
use crate::gpu::renderer::CrowdRenderer;
use crate::gpu::shaders::Shader;
use crate::gpu::targets::FrameTargets;
use crate::gpu::{FrameShape, skin};
use crate::variant::Variant;

/// A row of the frame's pass list: the pass's declaration.
#[derive(Clone, Copy)]
pub struct FramePass {
    pub name: &'static str,
    pub description: &'static str,
    spec: GpuPassSpec,
}

const fn pass(spec: GpuPassSpec) -> FramePass {
    FramePass {
        name: spec.name,
        description: spec.description,
        spec,
    }
}

crate::declare_variants! {
    /// The GPU passes of a frame, in the order a frame records them (the panel's order too).
    pub enum GpuPass: FramePass in "GPU pass" {
        Lod => pass(lod::PASS),
        DueLists => pass(animate::DUE_LISTS_PASS),
        Sample => pass(animate::SAMPLE_PASS),
        Hierarchy => pass(animate::HIERARCHY_PASS),
        Palette => pass(animate::PALETTE_PASS),
        SkinLists => pass(skin::LISTS_PASS),
        Compute => pass(skin::PASS),
        PoolLists => pass(lod::POOL_LISTS_PASS),
        Shadow => pass(SHADOW_PASS),
        Render => pass(RENDER_PASS),
    }
}

/// What records passes: the frame's parts it reads, into the frame's context.
pub type RecordPasses = fn(&mut FrameParts<'_>, &mut PassContext<'_>) -> Result<(), SceneError>;

/// A call that records passes of the frame, and the passes it records.
pub struct Recorder {
    pub passes: &'static [GpuPass],
    record: RecordPasses,
}

/// The calls that record a frame's passes, in the list's order: each records the passes
/// it names and no other, and is called where one of them runs this frame. The
/// animation's four passes go wave by wave (a wave's ranges share the pose slots the next
/// wave reuses), and `per_level`'s lists share the skinning's bindings, so each of those
/// is one call.
pub const RECORDERS: &[Recorder] = &[
    Recorder {
        passes: &[GpuPass::Lod],
        record: |p, ctx| {
            if let (Some(gpu_lod), Some(prepared)) = (p.sim.gpu_lod.as_mut(), &p.prepared.lod) {
                gpu_lod.record(ctx, prepared);
            }
            Ok(())
        },
    },
    Recorder {
        passes: &[
            GpuPass::DueLists,
            GpuPass::Sample,
            GpuPass::Hierarchy,
            GpuPass::Palette,
        ],
        record: |p, ctx| {
            if let (Some(animator), Some(prepared)) = (&p.sim.animator, &p.prepared.animation) {
                animator.record_passes(ctx, prepared);
            }
            Ok(())
        },
    },
    Recorder {
        passes: &[GpuPass::SkinLists, GpuPass::Compute],
        record: |p, ctx| {
            let due = p.sim.due_records(p.prepared);
            Ok(p.renderer
                .record_gpu_skinning(ctx, p.sim.pipeline.rig(), due)?)
        },
    },
    Recorder {
        passes: &[GpuPass::PoolLists],
        record: |p, ctx| {
            if let (Some(gpu_lod), Some(prepared)) = (&p.sim.gpu_lod, &p.prepared.lod) {
                gpu_lod.record_pool_lists(ctx, prepared);
            }
            Ok(())
        },
    },
    Recorder {
        passes: &[GpuPass::Shadow],
        record: |p, ctx| {
            shadow_pass(ctx, p.renderer);
            Ok(())
        },
    },
    Recorder {
        passes: &[GpuPass::Render],
        record: |p, ctx| {
            crowd_pass(ctx, p.targets, p.renderer, p.viewport);
            Ok(())
        },
    },
];

/// What the upload made ready for the frame's passes, handed to each recording (so no
/// order of method calls is a contract): the animation's and the LOD pass's prepared
/// frames, where the GPU animates, and the frame's conditions.
pub struct PreparedFrame {
    pub(super) conditions: FrameConditions,
    pub(super) animation: Option<PreparedAnimation>,
    pub(super) lod: Option<lod::PreparedLod>,
}

impl PreparedFrame {
    /// A frame with nothing prepared for the GPU's animation (it animates on the CPU).
    pub(super) fn cpu(conditions: FrameConditions) -> Self {
        PreparedFrame {
            conditions,
            animation: None,
            lod: None,
        }
    }

    /// The conditions the frame was recorded under.
    pub fn conditions(&self) -> FrameConditions {
        self.conditions
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
    prepared: &'a PreparedFrame,
    renderer: &'a mut CrowdRenderer,
    targets: &'a FrameTargets,
    /// Where in the targets the crowd is drawn (x, y, w, h), or all of them.
    viewport: Option<[f32; 4]>,
}

impl Simulation {
    /// With the animation and its LOD pass on the GPU this frame: the records that pass
    /// marked due (only those characters are skinned again). With the animation on the
    /// CPU and geometric LOD, the CPU's marks: every character at its group's skin level.
    fn due_records(&self, prepared: &PreparedFrame) -> Option<&wgpu::Buffer> {
        if let Some(marks) = self.cpu_skin_marks.live() {
            return Some(marks);
        }
        let animator = self.animator.as_ref()?;
        prepared.conditions.gpu_lod.then(|| animator.records())
    }
}

impl Scene {
    /// What decides this frame's passes, from the settings and the adapter: the one place
    /// it is worked out.
    pub(super) fn frame_conditions(&self) -> FrameConditions {
        let on_gpu = self.sim.animated_on == AnimateDevice::Gpu;
        let gpu_lod = on_gpu && (self.settings.lod.enabled || self.settings.lod.mesh);
        FrameConditions {
            shadows: self.renderer.shadows(),
            skin: self.sim.pipeline.config().skin.spec().runs_on,
            per_level: self.renderer.skins_per_level(&self.gpu),
            gpu_animation: on_gpu,
            gpu_lod,
            pool: gpu_lod && self.renderer.lists_pooled(),
        }
    }

    /// Records the frame's passes of `kind` that run under `prepared`'s conditions, in the
    /// list's order, each inside its timestamp query where `timed` (not in an encoder that
    /// is never submitted: its queries would never be resolved); returns them in the order
    /// recorded. Fails on a call that records a pass it does not name, and on an order
    /// that reads what the frame has not written.
    pub(super) fn record_passes(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        kind: PassKind,
        prepared: &PreparedFrame,
        viewport: Option<[f32; 4]>,
        timed: bool,
    ) -> Result<Vec<GpuPassSpec>, SceneError> {
        let conditions = prepared.conditions;
        let layout = *self.sim.pipeline.output_layout();
        let shape = FrameShape::new(&layout, self.sim.crowd.len());
        let timers = timed.then_some(&self.timers);
        let mut ctx = PassContext::new(&self.gpu, encoder, timers, shape);
        let mut parts = FrameParts {
            sim: &mut self.sim,
            prepared,
            renderer: &mut self.renderer,
            targets: &self.targets,
            viewport,
        };
        for recorder in RECORDERS {
            let runs = recorder
                .passes
                .iter()
                .any(|&pass| pass.declared().kind == kind && conditions.holds(pass.runs()));
            if !runs {
                continue;
            }
            let before = ctx.recorded().len();
            (recorder.record)(&mut parts, &mut ctx)?;
            if let Some(stray) = ctx.recorded()[before..]
                .iter()
                .find(|spec| !recorder.passes.iter().any(|p| p.declared() == **spec))
            {
                return Err(SceneError::UndeclaredPass {
                    pass: stray.name,
                    recorder: recorder.passes[0].name(),
                });
            }
        }
        Ok(ctx.into_recorded())
    }

    /// Ends the frame's timestamp queries (after its submission), waiting for the GPU where
    /// the caller asked for its times.
    pub(super) fn end_pass_timers(&mut self) {
        self.timers
            .end_frame(&self.gpu, self.wait_for_gpu_times, &LABELS);
    }

    /// The times of the passes this frame records, from the latest frame the GPU finished
    /// (a pass that does not run keeps none, whatever the profiler last had).
    pub(super) fn pass_times(&self, conditions: FrameConditions) -> PassTimes {
        let mut times = PassTimes::default();
        for &pass in GpuPass::ALL {
            times[pass.index()] = self
                .timers
                .last_us(pass.label())
                .filter(|_| conditions.holds(pass.runs()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::pass::check_order;

    /// The passes a frame under `conditions` records, in the list's order (a crowd of one
    /// wave: the animation's passes once each).
    fn recorded(conditions: FrameConditions, list: &[GpuPass]) -> Vec<GpuPassSpec> {
        let by_kind = |kind: PassKind| {
            list.iter()
                .filter(move |p| p.declared().kind == kind && conditions.holds(p.runs()))
                .map(|p| p.declared())
        };
        by_kind(PassKind::Compute)
            .chain(by_kind(PassKind::Draw))
            .collect()
    }

    #[test]
    fn every_frame_reads_only_what_it_wrote_earlier() {
        for conditions in FrameConditions::every() {
            let frame = recorded(conditions, GpuPass::ALL);
            if let Err(e) = check_order(&frame, conditions) {
                panic!("{e}");
            }
        }
    }

    #[test]
    fn a_pass_moved_before_what_it_reads_is_found() {
        // The skinning before its lists, and the sampling before the due lists.
        let swaps = [
            (GpuPass::SkinLists, GpuPass::Compute),
            (GpuPass::DueLists, GpuPass::Sample),
            (GpuPass::Palette, GpuPass::Compute),
        ];
        for (a, b) in swaps {
            let mut list = GpuPass::ALL.to_vec();
            let (i, j) = (a.index(), b.index());
            list.swap(i, j);
            let caught = FrameConditions::every()
                .into_iter()
                .any(|c| check_order(&recorded(c, &list), c).is_err());
            assert!(caught, "{} after {} went unnoticed", a.name(), b.name());
        }
    }

    #[test]
    fn every_pass_has_one_recorder_in_the_lists_order() {
        let mut order = Vec::new();
        for recorder in RECORDERS {
            assert!(!recorder.passes.is_empty());
            order.extend(recorder.passes.iter().copied());
        }
        assert_eq!(
            order,
            GpuPass::ALL,
            "the recorders' passes, in order, are the list"
        );
    }

    #[test]
    fn every_row_key_and_label_is_its_own() {
        for (i, a) in GpuPass::ALL.iter().enumerate() {
            for b in &GpuPass::ALL[i + 1..] {
                assert_ne!(a.key(), b.key());
                assert_ne!(a.label(), b.label());
                assert_ne!(a.row(), b.row());
            }
        }
    }
}
