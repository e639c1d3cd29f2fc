//! skinbench: a data-oriented skeletal animation pipeline, its variants and their benchmark.
//!
//! How it works: `rig` imports glTF (or generates the reference rig), `prepare` derives the
//! runtime layouts of the asset pipeline of "Skinning it to 11" (Reinalter), `anim` turns clip time into skinning
//! matrices (sample → blend → hierarchy → palette), `skin` applies them to the vertices,
//! and `crowd` runs those stages for many instances on worker threads and times them.
//! Everything outside `gpu` and `ui` is plain CPU code that never touches wgpu or egui,
//! so it is tested without a GPU.

pub mod anim;
pub mod bench;
pub mod chunks;
pub mod contract;
pub mod crowd;
pub mod gpu;
pub mod machine;
pub mod memory;
pub mod pose;
pub mod prepare;
pub mod rig;
pub mod simd;
pub mod skin;
pub mod types;
pub mod ui;
pub mod variant;

/// The built-in reference rig (`assets/reference.glb`), embedded so the app needs no path.
pub const REFERENCE_RIG_GLB: &[u8] = include_bytes!("../assets/reference.glb");
/// The built-in `twist` rig (`assets/twist.glb`, `rig::generate::twist`).
pub const TWIST_RIG_GLB: &[u8] = include_bytes!("../assets/twist.glb");
