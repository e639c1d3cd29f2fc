//! crowd: many instances of one rig, animated on worker threads.
//!
//! How it works: [`instances`] is bulk data in the sense of Niklas Gray's "Data Structures Part 1: Bulk Data"
//! (a packed array of plain instance structs with generational handles); [`pipeline`] runs sample → blend →
//! hierarchy → palette → skin for all of them, in groups of eight, on the calling thread
//! and [`crew`]'s workers, with the `staged` or `fused` schedule; [`timing`] is the one
//! clock every stage is measured with, and the rolling history the UI and bench read;
//! [`trace`] keeps those measurements as a timeline when asked; [`verify`] compares a
//! frame with the f64 reference; [`lod`] chooses which groups a
//! frame recomputes; [`mix`] chooses the clips the crowd plays and its spacing; [`budget`] adds up what a configuration of the pipeline will
//! allocate and checks it before it does (it is the pipeline's own arithmetic, so it lives
//! beside it).

pub mod animate;
pub mod budget;
pub mod config;
pub mod crew;
pub mod instances;
pub mod lod;
pub mod mix;
pub mod pipeline;
pub mod timing;
pub mod trace;
pub mod verify;

pub use animate::AnimateDevice;
pub use instances::{Handle, Instance, InstanceStore, StaleHandle};
pub use pipeline::{FrameError, Pipeline, PipelineConfig, Schedule};
pub use timing::{Stage, StageTimings, TimingHistory};
