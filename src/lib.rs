//! skinbench: a data-oriented skeletal animation pipeline, its variants and their benchmark.
//!
//! How it works: `rig` imports glTF (or generates the reference rig), `prepare` derives the
//! runtime layouts of seed 004's asset pipeline. The CPU core (everything outside `gpu`
//! and `ui`) never touches wgpu or egui, so it is tested without a GPU.

pub mod prepare;
pub mod rig;
