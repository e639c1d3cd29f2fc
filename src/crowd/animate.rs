//! Where a frame's animation runs: on the CPU pipeline's workers, or in compute passes on
//! the GPU (`--animate gpu`, `gpu::animate`).
//!
//! How it works: with `gpu`, a character's clip time is not advanced on the CPU every
//! frame. Each character's record on the GPU holds its time at one reading of the scene's
//! animation clock (`since_secs`) and its speed; its time at any later reading is
//! [`time_at`] of the two, which the shader and every CPU check compute with the same
//! formula. A record is written again only when the character changes.

use super::instances::Instance;
use crate::variant::PlainSpec;

crate::declare_variants! {
    /// Where sampling, the blend, the hierarchy and the palettes run.
    pub enum AnimateDevice: PlainSpec in "animation device" {
        Cpu => PlainSpec {
            name: "cpu",
            description: "the CPU pipeline samples, blends, walks the hierarchy and builds the palettes on its worker threads; a GPU skin variant gets the palettes uploaded",
        },
        Gpu => PlainSpec {
            name: "gpu",
            description: "compute passes sample, blend, walk the hierarchy and write the palettes where gpu_compute and gpu_vertex read them; the CPU writes 32 bytes for a character that changed and nothing for the others",
        },
    }
}

impl AnimateDevice {
    pub const DEFAULT: Self = Self::Cpu;
}

/// Bytes of a character's record on the GPU.
pub const RECORD_BYTES: usize = 32;

/// Bytes of GPU memory a character of `rig` takes for its animation besides its palette:
/// its record, its local poses and its model matrices (three vec4s a joint each), and with
/// LOD its LOD state and draw slot.
pub fn gpu_bytes_per_character(rig: &crate::prepare::PreparedRig) -> u64 {
    (RECORD_BYTES + 2 * rig.joint_stride * 48) as u64 + super::lod::per_character::GPU_BYTES
}

/// A character's clip time at clock reading `clock_secs`, given its time `time_secs` at
/// reading `since_secs`: what the GPU's sampling pass computes.
#[inline]
pub fn time_at(time_secs: f32, speed: f32, since_secs: f32, clock_secs: f32) -> f32 {
    time_secs + speed * (clock_secs - since_secs)
}

/// `instances` (their times as of clock reading `since_secs`) as they are at `clock_secs`.
pub fn instances_at(instances: &[Instance], since_secs: &[f32], clock_secs: f32) -> Vec<Instance> {
    instances
        .iter()
        .zip(since_secs)
        .map(|(i, &since)| Instance {
            time_secs: time_at(i.time_secs, i.speed, since, clock_secs),
            ..*i
        })
        .collect()
}
