//! Animation: clip time → local pose → model-space pose → skinning palette.
//!
//! How it works: [`sample`] evaluates each instance's clip into a local pose (one [`Qvs`]
//! per joint), [`blend`] optionally cross-fades it with a second clip, [`hierarchy`] walks
//! the joint tree to model space (one file per variant, all checked against
//! [`hierarchy::reference`]), and [`palette`] multiplies by the inverse bind matrices into
//! whatever layout the chosen skinning variant reads.

pub mod blend;
pub mod hierarchy;
pub mod palette;
pub mod sample;

pub use crate::types::{Mat3x4, Qvs};
