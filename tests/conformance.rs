//! Every hierarchy and skin variant against the f64 reference, on the reference rig and
//! on every public rig, with 1 and 2 threads and both schedules.

mod common;

use std::sync::Arc;

use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::crowd::pipeline::available_threads;
use skinbench::crowd::verify::{verify_frame, verify_hierarchy};
use skinbench::crowd::{FrameError, InstanceStore, Pipeline, PipelineConfig, Schedule};
use skinbench::prepare::PreparedRig;
use skinbench::skin::SkinVariant;
use skinbench::variant::Variant;

/// Tolerance: max abs error ≤ 1e-4 of the rig's bounding-box size.
const TOLERANCE: f64 = 1e-4;

fn rigs() -> Vec<Arc<PreparedRig>> {
    let mut rigs = vec![Arc::new(PreparedRig::reference())];
    if let Some(dir) = common::rigs_dir() {
        for f in common::PUBLIC_RIGS {
            rigs.push(Arc::new(PreparedRig::load(&dir.join(f)).unwrap()));
        }
    }
    rigs
}

fn thread_counts() -> Vec<usize> {
    let mut t = vec![1];
    if available_threads() >= 2 {
        t.push(2);
    }
    t
}

/// An aligned output buffer.
fn buffer(bytes: usize) -> Vec<skinbench::crowd::pipeline::Line> {
    skinbench::crowd::pipeline::output_buffer(bytes)
}

#[test]
fn every_variant_matches_the_reference_on_every_rig() {
    let mut worst_report = Vec::new();
    for rig in rigs() {
        let mut crowd = InstanceStore::new();
        // 13 instances: one full group of eight and a partial one.
        crowd.resize(13, &rig, 2.0);
        for &hierarchy in HierarchyVariant::ALL {
            for &skin in SkinVariant::ALL {
                for threads in thread_counts() {
                    for &schedule in Schedule::ALL {
                        let config = PipelineConfig {
                            hierarchy,
                            skin,
                            schedule,
                            threads,
                            blend_weight: 0.0,
                        };
                        let mut pipeline = match Pipeline::new(rig.clone(), config) {
                            Ok(p) => p,
                            Err(FrameError::Refused { reason, .. }) => {
                                assert!(
                                    rig.qvs_refusal.is_some(),
                                    "{}: unexpected refusal: {reason}",
                                    rig.name
                                );
                                continue;
                            }
                            Err(e) => panic!("{e}"),
                        };
                        let mut out = buffer(pipeline.output_bytes(crowd.len()));
                        let mut worst = 0.0f64;
                        let mut worst_normal = 0.0f64;
                        for _ in 0..3 {
                            crowd.advance(0.137);
                            pipeline
                                .run_frame(crowd.as_slice(), bytemuck::cast_slice_mut(&mut out))
                                .unwrap();
                            let d = verify_frame(
                                &pipeline,
                                crowd.as_slice(),
                                bytemuck::cast_slice(&out),
                                usize::MAX,
                            );
                            worst = worst.max(d.relative_position);
                            worst_normal = worst_normal.max(d.max_normal);
                        }
                        let label = format!(
                            "{} {} {} {} threads {}",
                            rig.name,
                            hierarchy.name(),
                            skin.name(),
                            schedule.name(),
                            threads
                        );
                        assert!(
                            worst <= TOLERANCE,
                            "{label}: position error {worst:e} of the rig size"
                        );
                        assert!(
                            worst_normal <= skin.output_format().normal_tolerance(),
                            "{label}: normal error {worst_normal:e}"
                        );
                        let h = verify_hierarchy(&mut pipeline, crowd.as_slice());
                        assert!(h <= TOLERANCE, "{label}: hierarchy error {h:e}");
                        worst_report.push((worst, label));
                    }
                }
            }
        }
    }
    worst_report.sort_by(|a, b| b.0.total_cmp(&a.0));
    eprintln!("worst relative position errors:");
    for (e, label) in worst_report.iter().take(5) {
        eprintln!("  {e:.2e}  {label}");
    }
}

#[test]
fn blending_is_the_same_for_every_variant() {
    let rig = Arc::new(PreparedRig::reference());
    let mut crowd = InstanceStore::new();
    crowd.resize(9, &rig, 2.0);
    for &hierarchy in HierarchyVariant::ALL {
        for &skin in SkinVariant::ALL {
            let config = PipelineConfig {
                hierarchy,
                skin,
                schedule: Schedule::Fused,
                threads: 1,
                blend_weight: 0.4,
            };
            let mut pipeline = Pipeline::new(rig.clone(), config).unwrap();
            let mut out = buffer(pipeline.output_bytes(crowd.len()));
            let timings = pipeline
                .run_frame(crowd.as_slice(), bytemuck::cast_slice_mut(&mut out))
                .unwrap();
            assert!(timings.stage_us[1] > 0.0, "blend stage ran");
            let d = verify_frame(
                &pipeline,
                crowd.as_slice(),
                bytemuck::cast_slice(&out),
                usize::MAX,
            );
            assert!(
                d.relative_position <= TOLERANCE,
                "{hierarchy:?} {skin:?}: {d:?}"
            );
        }
    }
}

#[test]
fn flat_qvs_refuses_non_uniform_scale() {
    let Some(dir) = common::rigs_dir() else {
        return;
    };
    let rig = Arc::new(PreparedRig::load(&dir.join("FoxVariants/Fox_nonuniform.glb")).unwrap());
    let reason = rig
        .qvs_refusal
        .clone()
        .expect("Fox_nonuniform has non-uniform scale");
    assert!(reason.contains("non-uniform"), "{reason}");
    let config = PipelineConfig {
        hierarchy: HierarchyVariant::FlatQvs,
        ..PipelineConfig::best_for(&rig, 1)
    };
    match Pipeline::new(rig, config) {
        Err(FrameError::Refused {
            variant, reason, ..
        }) => {
            assert_eq!(variant, "flat_qvs");
            assert!(reason.contains("non-uniform"));
        }
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
    // The rigs without shear are accepted.
    let fox = PreparedRig::load(&dir.join("Fox/Fox.glb")).unwrap();
    assert!(fox.qvs_refusal.is_none());
    assert!(PreparedRig::reference().qvs_refusal.is_none());
}
