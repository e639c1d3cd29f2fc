//! What every fuzz target does with a character once it has one: where import accepts the
//! file, prepare it, make its mesh LOD chain and measure each level's error, survey its
//! clips, measure the motion of one clip, and pose one instance with the chosen variants
//! the way `skinbench pose` does (oracles included). Errors are the expected outcome for
//! most inputs; only a panic, an abort or a sanitizer report is a finding.

#![allow(dead_code)]

use std::sync::Arc;

use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::crowd::{PipelineConfig, Schedule};
use skinbench::prepare::PreparedRig;
use skinbench::rig::{ImportReport, Rig};
use skinbench::skin::{SkinMethod, SkinVariant};
use skinbench::variant::Variant;

/// Which variants pose the file, as indices into each stage's `ALL` (taken modulo).
#[derive(Clone, Copy, Debug, arbitrary::Arbitrary)]
pub struct Choice {
    pub hierarchy: u8,
    pub skin: u8,
    pub method: u8,
    pub fused: bool,
    pub blend_eighths: u8,
    pub time_centisecs: u16,
}

/// Posing and the load-time measurements are skipped above this many vertices × joints:
/// they are linear in both, and a fuzzer that spends a second per input finds little.
/// Import and prepare still run.
const POSE_WORK_LIMIT: usize = 4_000_000;
/// The LOD chain's error measurement skins every level at up to 48 poses and between them
/// at 30 a second, and a clip's motion the mesh at 240 poses a second: only for meshes up
/// to this many triangles and vertices, so an input takes a millisecond or two, not a
/// third of a second (the small meshes `lod_chain` builds and the small rigs are
/// measured; the Fox, CesiumMan and the built-in rig are not).
const MEASURE_TRIANGLES: usize = 64;
const MEASURE_VERTICES: usize = 128;

/// Imports `bytes` as the file `name` (files it names are looked for in `base_dir`) and
/// nothing more: the parsers and the importer's checks (no prepare, LOD chain or pose). The
/// messages of an error and the summary of a rig are made too (they must not panic).
pub fn import_only(bytes: &[u8], name: &str, base_dir: Option<&std::path::Path>) {
    match skinbench::rig::import_slice(bytes, name, base_dir) {
        Ok((rig, report)) => {
            std::hint::black_box(rig.model_size());
            let summary = skinbench::rig::RigSummary::new(&rig, &report);
            std::hint::black_box(summary.to_text());
        }
        Err(error) => {
            std::hint::black_box(error.to_string());
        }
    }
}

/// Imports `bytes` as the file `name` (files it names are looked for in `base_dir`) and,
/// where that works, exercises the character.
pub fn exercise(bytes: &[u8], name: &str, choice: Choice) {
    exercise_in(bytes, name, None, choice);
}

/// [`exercise`] with the folder a `.gltf`'s other files are read from.
pub fn exercise_in(bytes: &[u8], name: &str, base_dir: Option<&std::path::Path>, choice: Choice) {
    match skinbench::rig::import_slice(bytes, name, base_dir) {
        Ok((rig, report)) => exercise_rig(rig, &report, name, choice),
        Err(error) => {
            // The message is part of the contract: building it must not panic either.
            std::hint::black_box(error.to_string());
        }
    }
}

/// Everything after import, for a rig from a file or one a target built.
pub fn exercise_rig(rig: Rig, report: &ImportReport, name: &str, choice: Choice) {
    std::hint::black_box(rig.model_size());
    let prepared = match PreparedRig::new(rig, report, name) {
        Ok(prepared) => prepared,
        Err(error) => {
            std::hint::black_box(error.to_string());
            return;
        }
    };
    std::hint::black_box(prepared.summary.to_text());
    if prepared.vertex_count().max(1) * prepared.joint_count().max(1) > POSE_WORK_LIMIT {
        return;
    }
    let chain = prepared.mesh_chain();
    std::hint::black_box(chain.levels().len());
    let measured = prepared.mesh.indices().len() / 3 <= MEASURE_TRIANGLES
        && prepared.vertex_count() <= MEASURE_VERTICES;
    if measured {
        std::hint::black_box(skinbench::skin::level_errors::level_errors(&prepared));
        let survey = skinbench::crowd::mix::ClipSurvey::measure(&prepared);
        std::hint::black_box(&survey);
    }
    let method = pick(SkinMethod::ALL, choice.method);
    if measured && !prepared.clips.is_empty() {
        let clip = (choice.time_centisecs as usize % prepared.clips.len()) as u16;
        let motion =
            skinbench::crowd::lod::ClipMotion::measure(&prepared, clip, None, method, None);
        std::hint::black_box(motion.travel(0.0, f32::from(choice.time_centisecs) / 100.0));
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
        method,
    };
    let time_secs = f32::from(choice.time_centisecs) / 100.0;
    match skinbench::pose::pose(Arc::new(prepared), None, time_secs, config) {
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
