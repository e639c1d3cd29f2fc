//! gpu: everything that touches wgpu — the context, the crowd renderer and its pipelines,
//! the camera, the offscreen targets and passes, upload variants, compute skinning
//! (`gpu_compute`), read-back, pass timers, and the one headless [`scene::Scene`] that the
//! window, the tests, verify, screenshots, the benches and the soak all drive.
//!
//! How it works: a frame is the upload (vertices, or a GPU variant's palettes, or the GPU
//! animation's records), then the passes of the frame's pass list
//! ([`scene::frame_passes::GpuPass`]) in order: the GPU animation's LOD, due-list,
//! sample, hierarchy and palette passes, `gpu_compute`'s per-level lists and skinning
//! pass, the skinned pool's draw lists, the sun's shadow pass (characters only,
//! into a depth map) and the crowd pass, rendered into an offscreen texture (the window
//! draws its panel on top and copies it to the swapchain). Each pass's module declares
//! its [`GpuPassSpec`] and records into a [`PassContext`]; [`scene::Scene`] puts the
//! frame together.

pub mod animate;
pub mod blit;
pub mod camera;
pub mod compute;
pub mod context;
pub mod draw_passes;
pub mod draws;
pub mod pass;
pub mod ranges;
pub mod readback;
pub mod renderer;
pub mod scene;
pub mod shaders;
pub mod shape;
pub mod skin;
pub mod skin_levels;
pub mod staging;
pub mod targets;
pub mod timers;
pub mod upload;

pub use blit::Blit;
pub use camera::{CameraStart, CameraUniform, OrbitCamera, crowd_extent};
pub use context::{
    AdapterSummary, DeviceRequest, GpuContext, GpuError, GpuMemory, MAX_MEMORY_BLOCK_BYTES,
};
pub use draw_passes::{CLEAR_COLOR, crowd_pass, shadow_pass};
pub use pass::{
    Access, FrameConditions, FrameResource, GpuPassSpec, PassContext, PassKind, PassRuns,
};
pub use readback::{ReadbackError, read_buffer, read_texture, save_png};
pub use renderer::{BaseColors, CrowdRenderer};
pub use scene::Scene;
pub use scene::frame_passes::{GpuPass, shared_structs};
pub use shape::{FrameShape, PaletteBuffer, PaletteBuffers};
pub use targets::FrameTargets;
pub use upload::{UploadVariant, Uploader};
