//! What selects how a frame is computed: the schedule, the configuration of every stage's
//! variant, and the fastest choices on this CPU.
//!
//! How it works: [`PipelineConfig`] names one variant per stage plus the threads, blend
//! weight and skinning method (whether one can run a rig here is
//! [`PipelineConfig::check`], beside the errors it gives, in the pipeline). The "best"
//! choices depend only on the SIMD level the CPU has.

use crate::anim::hierarchy::HierarchyVariant;
use crate::prepare::PreparedRig;
use crate::skin::{SkinMethod, SkinVariant};
use crate::variant::{PlainSpec, Variant};

crate::declare_variants! {
    /// How a frame's stages are spread over the worker threads.
    pub enum Schedule: PlainSpec in "schedule" {
        Staged => PlainSpec {
            name: "staged",
            description: "each stage over all instances in parallel, a barrier between stages",
        },
        Fused => PlainSpec {
            name: "fused",
            description: "per group of 8 instances all stages in one task (palette stays in cache)",
        },
    }
}

impl Schedule {
    /// The app's default: a group's intermediates stay in the core's cache.
    pub const DEFAULT: Self = Self::Fused;
}

/// Everything that selects how a frame is computed.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PipelineConfig {
    pub hierarchy: HierarchyVariant,
    pub skin: SkinVariant,
    pub schedule: Schedule,
    pub threads: usize,
    /// Cross-fade weight towards each instance's `blend_clip`; 0 turns the blend stage off.
    pub blend_weight: f32,
    /// How the skin stage combines a vertex's influences (linear or dual quaternions).
    pub method: SkinMethod,
}

impl PipelineConfig {
    /// Where the articles' optimisation steps start: every baseline variant.
    pub fn baseline(threads: usize) -> Self {
        PipelineConfig {
            hierarchy: HierarchyVariant::baseline(),
            skin: SkinVariant::baseline(),
            schedule: Schedule::Staged,
            threads,
            blend_weight: 0.0,
            method: SkinMethod::Linear,
        }
    }

    /// [`PipelineConfig::baseline`] for `rig`: the first skin variant in declaration order
    /// that takes the rig's influences (`naive` for four or fewer, `tuned` above).
    pub fn baseline_for(rig: &PreparedRig, threads: usize) -> Self {
        let baseline = PipelineConfig::baseline(threads);
        let skin = SkinVariant::ALL
            .iter()
            .copied()
            .find(|s| s.refusal(baseline.method, rig).is_none())
            .unwrap_or(baseline.skin);
        PipelineConfig { skin, ..baseline }
    }

    /// The fastest variants of every stage for `rig` on this CPU: [`best_hierarchy`]
    /// (or `flat` where that refuses the rig) and [`best_skin`], `fused`.
    pub fn best_for(rig: &PreparedRig, threads: usize) -> Self {
        let hierarchy = match best_hierarchy().refusal(rig) {
            None => best_hierarchy(),
            Some(_) => HierarchyVariant::Flat,
        };
        PipelineConfig {
            hierarchy,
            skin: best_skin(),
            schedule: Schedule::Fused,
            threads,
            blend_weight: 0.0,
            method: SkinMethod::Linear,
        }
    }
}

/// Whether the lane kernels run with AVX2+FMA or AVX-512 here. Without, they run their
/// portable fallback, which is slower than the scalar variants (`bench --simd-level portable`).
fn lanes_are_fast() -> bool {
    crate::simd::SimdLevel::detect() != crate::simd::SimdLevel::Portable
}

/// The fastest hierarchy variant on this CPU (for rigs it accepts): `simd` with AVX2+FMA
/// or AVX-512, else `flat_qvs`.
pub fn best_hierarchy() -> HierarchyVariant {
    if lanes_are_fast() {
        HierarchyVariant::Simd
    } else {
        HierarchyVariant::FlatQvs
    }
}

/// The fastest skin variant on this CPU: `pulled` with AVX2+FMA or AVX-512 (`packed`, which stores
/// half `simd`'s bytes, minus the work on vertex copies (`distinct`), written as lane
/// blocks with non-temporal stores (`streamed`), the copies not stored at all; see
/// bench-results/), else `tuned`.
pub fn best_skin() -> SkinVariant {
    if lanes_are_fast() {
        SkinVariant::Pulled
    } else {
        SkinVariant::Tuned
    }
}

/// Machine parallelism (the upper bound of the thread setting).
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
