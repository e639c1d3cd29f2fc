//! Where a frame's animation runs: on the CPU pipeline's workers, or in compute passes on
//! the GPU (`--animate gpu`, `gpu::animate`).
//!
//! How it works: with `gpu`, a character's clip time is not advanced on the CPU every
//! frame. Each character's record on the GPU holds its time at one reading of the scene's
//! animation clock (`since_secs`) and its speed; its time at any later reading is
//! [`time_at`] of the two, which the shader and every CPU check compute with the same
//! formula. A record is written again only when the character changes.

use super::instances::Instance;
use crate::skin::SkinVariant;
use crate::variant::Variant;

/// What an animation device is, beyond its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnimateSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// The most characters it animates (the slider's and the command line's bound).
    pub max_instances: usize,
    /// It writes palettes on the GPU, so only a skin variant that skins there can draw
    /// them (`SkinVariant::skins_on_cpu` is false).
    pub needs_gpu_skin: bool,
}

crate::declare_variants! {
    /// Where sampling, the blend, the hierarchy and the palettes run.
    pub enum AnimateDevice: AnimateSpec in "animation device" {
        Cpu => AnimateSpec {
            name: "cpu",
            description: "the CPU pipeline samples, blends, walks the hierarchy and builds the palettes on its worker threads; a GPU skin variant gets the palettes uploaded",
            max_instances: 10_000,
            needs_gpu_skin: false,
        },
        Gpu => AnimateSpec {
            name: "gpu",
            description: "compute passes sample, blend, walk the hierarchy and write the palettes where gpu_compute and gpu_vertex read them; the CPU writes 32 bytes for a character that changed and nothing for the others",
            max_instances: 1_000_000,
            needs_gpu_skin: true,
        },
    }
}

impl AnimateDevice {
    pub const DEFAULT: Self = Self::Cpu;

    /// Why the animation cannot run here with `skin`, or `None`.
    pub fn refusal(self, skin: SkinVariant) -> Option<String> {
        if !(self.spec().needs_gpu_skin && skin.skins_on_cpu()) {
            return None;
        }
        let on_gpu: Vec<&str> = SkinVariant::ALL
            .iter()
            .filter(|v| !v.skins_on_cpu())
            .map(|v| v.name())
            .collect();
        Some(format!(
            "the GPU's animation writes palettes for a GPU skin variant ({}); {} skins on the CPU",
            on_gpu.join(", "),
            skin.name()
        ))
    }

    /// The skin variant to run here where none was asked for: `best` (the best CPU one),
    /// or on the GPU the first GPU skin variant.
    pub fn default_skin(self, best: SkinVariant) -> SkinVariant {
        if self.refusal(best).is_none() {
            return best;
        }
        SkinVariant::ALL
            .iter()
            .copied()
            .find(|v| self.refusal(*v).is_none())
            .unwrap_or(best)
    }
}

crate::gpu_struct! {
    /// A character's record on the GPU (`Character` in shaders/record.wgsl): its clip time
    /// at clock reading `since_secs`, its speed, place and material. The sampling pass and
    /// the LOD pass read it, and their CPU twins read the same type.
    #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct Record in "Character" {
        pub time_secs: f32,
        pub speed: f32,
        pub ground: [f32; 2],
        /// The clip in the low 16 bits, the cross-fade's clip in the high 16.
        pub clips: u32,
        pub material: u32,
        pub since_secs: f32,
        /// Written by the LOD pass on the GPU (`CharacterLod::record_due_word`: recomputed,
        /// skinned, the skin level); 0 from the CPU.
        pub due: u32,
    }
}

/// Bytes of a character's record on the GPU.
pub const RECORD_BYTES: usize = std::mem::size_of::<Record>();

impl Record {
    /// `instance`'s record, its time as of clock reading `since_secs`.
    pub fn new(instance: &Instance, since_secs: f32) -> Self {
        Record {
            time_secs: instance.time_secs,
            speed: instance.speed,
            ground: instance.ground_position,
            clips: u32::from(instance.clip) | (u32::from(instance.blend_clip) << 16),
            material: instance.material,
            since_secs,
            due: 0,
        }
    }
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
