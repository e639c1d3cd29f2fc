//! What both fuzz targets do with a file once they have its bytes: import it, and where
//! import accepts it, prepare it and pose one instance with the chosen variants, the way
//! `skinbench pose` does (oracles included). Errors are the expected outcome for most
//! inputs; only a panic, an abort or a sanitizer report is a finding.

use std::sync::Arc;

use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::crowd::{PipelineConfig, Schedule};
use skinbench::prepare::PreparedRig;
use skinbench::skin::SkinVariant;
use skinbench::variant::Variant;

/// Which variants pose the file, as indices into each stage's `ALL` (taken modulo).
#[derive(Clone, Copy, Debug, arbitrary::Arbitrary)]
pub struct Choice {
    pub hierarchy: u8,
    pub skin: u8,
    pub fused: bool,
    pub blend_eighths: u8,
    pub time_centisecs: u16,
}

/// Posing is skipped above this many vertices × joints: it is linear in both, and a
/// fuzzer that spends a second per input finds little. Import and prepare still run.
const POSE_WORK_LIMIT: usize = 4_000_000;

pub fn exercise(bytes: &[u8], name: &str, choice: Choice) {
    let (rig, report) = match skinbench::rig::import_slice(bytes, name, None) {
        Ok(imported) => imported,
        Err(error) => {
            // The message is part of the contract: building it must not panic either.
            std::hint::black_box(error.to_string());
            return;
        }
    };
    let prepared = PreparedRig::new(rig, &report, name);
    std::hint::black_box(prepared.summary.to_text());
    if prepared.vertex_count().max(1) * prepared.joint_count().max(1) > POSE_WORK_LIMIT {
        return;
    }
    let config = PipelineConfig {
        hierarchy: pick(HierarchyVariant::ALL, choice.hierarchy),
        skin: pick(SkinVariant::ALL, choice.skin),
        schedule: if choice.fused {
            Schedule::Fused
        } else {
            Schedule::Staged
        },
        threads: 1,
        blend_weight: f32::from(choice.blend_eighths % 9) / 8.0,
    };
    let time_secs = f32::from(choice.time_centisecs) / 100.0;
    match skinbench::crowd::pose::pose(Arc::new(prepared), None, time_secs, config) {
        Ok(posed) => {
            std::hint::black_box(posed.deviation);
        }
        Err(error) => {
            std::hint::black_box(error.to_string());
        }
    }
}

fn pick<V: Copy>(all: &[V], index: u8) -> V {
    all[usize::from(index) % all.len()]
}
