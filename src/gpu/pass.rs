//! The GPU passes a frame times: one declaration, which the timers (query labels), the
//! panel (rows), the timeline, the sidecars and reports (`gpu_<pass>_us`) and the scene
//! (when a pass runs) all read.
//!
//! How it works: each pass is a row of [`GpuPass`]'s declaration; a frame's times are kept
//! in [`StageTimings`]'s per-pass slots (the CPU layer's record of a frame, which never
//! names a pass), indexed by the pass's place in the declaration.

use crate::crowd::StageTimings;
use crate::crowd::timing::GPU_PASS_SLOTS;
use crate::variant::Variant;

/// What a GPU pass is, beyond its name.
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
}

crate::declare_variants! {
    /// The GPU passes a frame times with timestamp queries, in the panel's order.
    pub enum GpuPass: GpuPassSpec in "GPU pass" {
        Render => GpuPassSpec {
            name: "render",
            description: "the crowd pass: the characters and the ground, lit",
            label: "render",
            row: "GPU render",
            key: "gpu_render",
            runs: PassRuns::Always,
        },
        Shadow => GpuPassSpec {
            name: "shadow",
            description: "the crowd drawn again into the sun's depth map",
            label: "shadow",
            row: "GPU shadow",
            key: "gpu_shadow",
            runs: PassRuns::Shadows,
        },
        Compute => GpuPassSpec {
            name: "compute",
            description: "gpu_compute's skinning pass",
            label: "compute",
            row: "GPU compute skin",
            key: "gpu_compute",
            runs: PassRuns::ComputeSkinning,
        },
        Lod => GpuPassSpec {
            name: "lod",
            description: "update-rate LOD and culling, per character",
            label: "animate: lod",
            row: "GPU LOD",
            key: "gpu_lod",
            runs: PassRuns::GpuLod,
        },
        Sample => GpuPassSpec {
            name: "sample",
            description: "the animation's sampling pass",
            label: "animate: sample",
            row: "GPU sample",
            key: "gpu_sample",
            runs: PassRuns::GpuAnimation,
        },
        Hierarchy => GpuPassSpec {
            name: "hierarchy",
            description: "the animation's hierarchy pass (a walk per character, or a pass per depth level)",
            label: "animate: hierarchy",
            row: "GPU hierarchy",
            key: "gpu_hierarchy",
            runs: PassRuns::GpuAnimation,
        },
        Palette => GpuPassSpec {
            name: "palette",
            description: "the animation's palette pass",
            label: "animate: palette",
            row: "GPU palette",
            key: "gpu_palette",
            runs: PassRuns::GpuAnimation,
        },
    }
}

impl GpuPass {
    /// The label of its timestamp query.
    pub fn label(self) -> &'static str {
        self.spec().label
    }
}

// Every pass has a slot in a frame's timings.
const _: () = assert!(GpuPass::COUNT <= GPU_PASS_SLOTS);

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
        map.end()
    }
}
