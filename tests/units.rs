//! A file's export units do not move a tolerance: the Fox exported in centimetres under a
//! 0.01 armature (as Mixamo's characters are) and in hundredths under a 100 armature (as
//! Quaternius's are), or at 1/128 and 128, is the same character in model space, so it has the same size, the
//! same error reads the same relative figure in verify, and its mesh LOD levels state the
//! same errors. The size every relative figure divides by is the skinned rest pose's box,
//! checked here against the f64 oracles on every rig.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{PUBLIC_RIGS, fox_in_units, rigs_dir, temp_dir};
use skinbench::anim::hierarchy::reference;
use skinbench::crowd::PipelineConfig;
use skinbench::crowd::instances::InstanceStore;
use skinbench::crowd::pipeline::Pipeline;
use skinbench::crowd::verify::verify_frame;
use skinbench::prepare::PreparedRig;
use skinbench::skin::{OutputBuffer, SkinVariant};

fn load(path: &Path) -> Arc<PreparedRig> {
    Arc::new(PreparedRig::load(path).unwrap_or_else(|e| panic!("{e}")))
}

/// The Fox, and the Fox exported with each armature scale of `scales`.
fn foxes(name: &str, scales: &[f32]) -> Option<Vec<(String, Arc<PreparedRig>)>> {
    let dir = temp_dir(name);
    let mut foxes = vec![("Fox".to_string(), load(&rigs_dir()?.join("Fox/Fox.glb")))];
    for &scale in scales {
        let path = fox_in_units(&dir, scale)?;
        foxes.push((format!("Fox at x{scale}"), load(&path)));
    }
    Some(foxes)
}

/// The diagonal of the box around the rest pose skinned by the oracles.
fn oracle_rest_size(rig: &PreparedRig) -> f64 {
    let model = reference::model_from_joint(&rig.skeleton, &rig.rest_pose);
    let palette = reference::palette(&rig.skeleton, &model);
    let (positions, _) = skinbench::skin::reference::skin(&rig.source_mesh, &palette);
    // The drawn vertices: those a triangle uses.
    let drawn = rig
        .source_mesh
        .indices
        .iter()
        .map(|&v| positions[v as usize]);
    let min = drawn.clone().fold(glam::DVec3::INFINITY, |a, p| a.min(p));
    let max = drawn.fold(glam::DVec3::NEG_INFINITY, |a, p| a.max(p));
    (max - min).length()
}

fn the_rig_size_is_the_skinned_rest_pose_on_every_rig() {
    let mut rigs = vec![
        ("reference".to_string(), Arc::new(PreparedRig::reference())),
        (
            "twist".to_string(),
            Arc::new(PreparedRig::built_in(
                skinbench::rig::generate::BuiltInRig::Twist,
            )),
        ),
    ];
    if let Some(dir) = rigs_dir() {
        rigs.extend(
            PUBLIC_RIGS
                .iter()
                .map(|r| (r.to_string(), load(&dir.join(r)))),
        );
    }
    for (name, rig) in rigs {
        let oracle = oracle_rest_size(&rig);
        let size = f64::from(rig.model_size);
        assert!(
            (size - oracle).abs() <= 1e-5 * oracle,
            "{name}: model size {size} against the oracle's rest pose {oracle}"
        );
    }
}

fn a_fox_in_other_units_has_the_fox_size() {
    let Some(foxes) = foxes("units-size", &[0.01, 100.0]) else {
        common::cannot_run_here()
    };
    let fox = f64::from(foxes[0].1.model_size);
    for (name, rig) in &foxes[1..] {
        let size = f64::from(rig.model_size);
        assert!(
            (size / fox - 1.0).abs() <= 1e-5,
            "{name}: size {size}, the Fox's {fox}"
        );
    }
}

/// Verify's relative figure for a frame of the `naive` variant with instance 0's first
/// vertex moved by `error` model units along x.
fn relative_error_read(rig: &Arc<PreparedRig>, error: f32) -> f64 {
    let config = PipelineConfig {
        skin: SkinVariant::Naive,
        ..PipelineConfig::best_for(rig, 1)
    };
    let mut pipeline = Pipeline::new(rig.clone(), config).unwrap();
    let mut crowd = InstanceStore::new();
    crowd.resize(3, rig, 2.0);
    crowd.advance(0.4);
    let mut out = OutputBuffer::for_instances(pipeline.output_layout(), crowd.len());
    pipeline.run_frame(crowd.as_slice(), &mut out).unwrap();
    // `naive` writes file order, interleaved, the position's x first.
    let at = pipeline.output_layout().instance_offset(0);
    let bytes = &mut out.as_bytes_mut()[at..at + 4];
    let x = f32::from_le_bytes(bytes.try_into().unwrap()) + error;
    bytes.copy_from_slice(&x.to_le_bytes());
    verify_frame(&pipeline, crowd.as_slice(), out.as_bytes(), usize::MAX)
        .unwrap()
        .relative_position
}

fn one_error_reads_one_relative_figure_in_every_unit() {
    let Some(foxes) = foxes("units-verify", &[0.01, 100.0]) else {
        common::cannot_run_here()
    };
    // A thousandth of the Fox's size: far above the kernels' rounding (~1e-7 of it).
    let error = foxes[0].1.model_size * 1e-3;
    for (name, rig) in &foxes {
        let read = relative_error_read(rig, error);
        assert!(
            (read / 1e-3 - 1.0).abs() <= 0.01,
            "{name}: an error of a thousandth of the Fox's size reads {read:e} of the rig size"
        );
    }
}

fn mesh_lod_errors_are_the_same_in_every_unit() {
    // Powers of two: the file's numbers are then the Fox's exactly scaled, the simplifier
    // makes the same levels, and the errors must agree to rounding. (At 0.01 and 100 the
    // rounded numbers tip a few of its choices, and its levels differ by whole edges.)
    let Some(foxes) = foxes("units-lod", &[1.0 / 128.0, 128.0]) else {
        common::cannot_run_here()
    };
    let fox = &foxes[0].1;
    let measured = skinbench::skin::level_errors::level_errors(fox);
    let chain = fox.mesh_chain();
    for (name, rig) in &foxes[1..] {
        let other = skinbench::skin::level_errors::level_errors(rig);
        let other_chain = rig.mesh_chain();
        let triangles = |c: &skinbench::prepare::mesh_lod::MeshChain| {
            c.levels().iter().map(|l| l.triangles()).collect::<Vec<_>>()
        };
        assert_eq!(triangles(chain), triangles(other_chain), "{name}: levels");
        for (l, (a, b)) in measured.errors.iter().zip(&other.errors).enumerate() {
            assert!(
                (a - b).abs() <= 1e-4 * a.max(*b),
                "{name}: level {l}'s measured error {b} model units, the Fox's {a}"
            );
            let (a, b) = (
                chain.levels()[l].bind_error,
                other_chain.levels()[l].bind_error,
            );
            assert!(
                (a - b).abs() <= 1e-4 * a.max(b),
                "{name}: level {l}'s bind-pose estimate {b} model units, the Fox's {a}"
            );
        }
    }
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "the_rig_size_is_the_skinned_rest_pose_on_every_rig",
            the_rig_size_is_the_skinned_rest_pose_on_every_rig,
        ),
        (
            "a_fox_in_other_units_has_the_fox_size",
            a_fox_in_other_units_has_the_fox_size,
        ),
        (
            "one_error_reads_one_relative_figure_in_every_unit",
            one_error_reads_one_relative_figure_in_every_unit,
        ),
        (
            "mesh_lod_errors_are_the_same_in_every_unit",
            mesh_lod_errors_are_the_same_in_every_unit,
        ),
    ];
    common::run_tests(tests);
}
