//! crowd: many instances of one rig, animated on worker threads.
//!
//! How it works: [`instances`] is the bulk data of seed 001 (a packed array of plain
//! instance structs with generational handles); [`pipeline`] runs sample → blend →
//! hierarchy → palette → skin for all of them, in groups of eight, on the calling thread and
//! [`crew`]'s workers, with the `staged` or `fused` schedule; [`timing`] is the one clock every stage is measured
//! with, and the rolling history the UI and bench read; [`verify`] compares a frame with
//! the f64 reference; [`normals`] measures each normal rule against the skinned surface;
//! [`budget`] checks a configuration's memory before it allocates.

pub mod budget;
pub mod crew;
pub mod instances;
pub mod lod;
pub mod machine;
pub mod normals;
pub mod pipeline;
pub mod pose;
pub mod timing;
pub mod verify;

pub use instances::{Handle, Instance, InstanceStore, StaleHandle};
pub use pipeline::{FrameError, Pipeline, PipelineConfig, Schedule};
pub use timing::{Stage, StageTimings, TimingHistory};
