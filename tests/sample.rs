//! Sampling: interpolation modes, looping, and the CUBICSPLINE variant of Fox agreeing with
//! its LINEAR original (its tangents were made linear-equivalent).

mod common;

use glam::{Quat, Vec3};
use skinbench::anim::Qvs;
use skinbench::anim::sample::{ClipRt, sample_clip};
use skinbench::crowd::timing::Stats;
use skinbench::prepare::PreparedRig;
use skinbench::rig::{Clip, Interpolation, JointTracks, Track};
use skinbench::skin::SkinMethod;

fn clip(interpolation: Interpolation, values: Vec<Vec3>, rotations: Vec<Quat>) -> ClipRt {
    let keys = if interpolation == Interpolation::CubicSpline {
        values.len() / 3
    } else {
        values.len()
    };
    let times: Vec<f32> = (0..keys).map(|k| k as f32).collect();
    ClipRt::new(&Clip {
        name: "test".into(),
        duration_secs: (keys - 1) as f32,
        joint_tracks: vec![JointTracks {
            translation: Some(Track {
                interpolation,
                times_secs: times.clone(),
                values,
            }),
            rotation: Some(Track {
                interpolation,
                times_secs: times,
                values: rotations,
            }),
            scale: None,
        }],
    })
}

fn at(clip: &ClipRt, t: f32) -> Qvs {
    let mut out = [Qvs::IDENTITY];
    sample_clip(clip, &[Qvs::IDENTITY], t, &mut out);
    out[0]
}

fn linear_step_and_looping() {
    let q0 = Quat::IDENTITY;
    let q1 = Quat::from_rotation_y(1.0);
    let linear = clip(
        Interpolation::Linear,
        vec![Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::ZERO],
        vec![q0, q1, q0],
    );
    let mid = at(&linear, 0.5);
    assert!((mid.translation.x - 1.0).abs() < 1e-6);
    assert!(
        mid.rotation.angle_between(Quat::from_rotation_y(0.5)) < 1e-4,
        "slerp halfway"
    );
    // Looping: t = 2.5 is t = 0.5.
    assert!((at(&linear, 2.5).translation.x - 1.0).abs() < 1e-5);
    assert!((at(&linear, -1.5).translation.x - 1.0).abs() < 1e-5);
    let step = clip(
        Interpolation::Step,
        vec![Vec3::ZERO, Vec3::X, Vec3::ZERO],
        vec![q0, q1, q0],
    );
    assert_eq!(at(&step, 0.99).translation.x, 0.0);
    assert_eq!(at(&step, 1.01).translation.x, 1.0);
}

fn cubic_spline_follows_its_tangents() {
    // Keys 0 and 2 with tangents of slope 2: the Hermite curve is the straight line 2t.
    let values = vec![
        Vec3::splat(2.0),
        Vec3::ZERO,
        Vec3::splat(2.0),
        Vec3::splat(2.0),
        Vec3::splat(2.0),
        Vec3::splat(2.0),
    ];
    let rotations = vec![Quat::IDENTITY; 6];
    let cubic = clip(Interpolation::CubicSpline, values, rotations);
    let p = at(&cubic, 0.25);
    assert!((p.translation.x - 0.5).abs() < 1e-5, "{}", p.translation);
    assert!(
        (p.rotation.length() - 1.0).abs() < 1e-5,
        "rotations are normalized"
    );
}

fn fox_cubicspline_matches_fox_linear() {
    let Some(dir) = common::rigs_dir() else {
        common::cannot_run_here()
    };
    let linear = PreparedRig::load(&dir.join("Fox/Fox.glb")).unwrap();
    let cubic = PreparedRig::load(&dir.join("FoxVariants/Fox_cubicspline.glb")).unwrap();
    let n = linear.joint_count();
    let (mut worst_t, mut worst_deg) = (0.0f32, 0.0f32);
    for (a, b) in linear.clips.iter().zip(&cubic.clips) {
        for step in 0..40 {
            let t = a.duration_secs * step as f32 / 40.0;
            let mut pa = vec![Qvs::IDENTITY; n];
            let mut pb = vec![Qvs::IDENTITY; n];
            sample_clip(a, &linear.rest_pose, t, &mut pa);
            sample_clip(b, &cubic.rest_pose, t, &mut pb);
            for (x, y) in pa.iter().zip(&pb) {
                worst_t = worst_t.max((x.translation - y.translation).abs().max_element());
                worst_deg = worst_deg.max(x.rotation.angle_between(y.rotation).to_degrees());
            }
        }
    }
    // The variant's README: translations agree to 8.5e-9, rotations within 0.78° (slerp vs
    // the spline's normalized blend).
    assert!(worst_t < 1e-4, "translation differs by {worst_t}");
    assert!(worst_deg < 1.0, "rotation differs by {worst_deg}°");
}

fn stats_of_a_window() {
    let mut v = vec![5.0, 1.0, 3.0, 2.0, 4.0];
    let s = Stats::of(&mut v);
    assert_eq!((s.min, s.median, s.mean, s.count), (1.0, 3.0, 3.0, 5));
    assert_eq!(s.p95, 5.0);
    let mut even = vec![1.0, 2.0, 3.0, 4.0];
    assert_eq!(Stats::of(&mut even).median, 2.5);
}

fn lane_rotations_match_the_per_track_sampler_on_every_rig() {
    let reference = skinbench::rig::generate::reference_rig();
    let prepared = PreparedRig::reference();
    for (clip, rt) in reference.clips.iter().zip(&prepared.clips) {
        // Every rotation track of the reference rig shares its clip's timeline.
        let rotations = clip
            .joint_tracks
            .iter()
            .filter(|t| t.rotation.is_some())
            .count();
        assert_eq!(
            rt.lane_rotations.as_ref().map(|l| l.tracks),
            Some(rotations)
        );
        let worst = common::lane_vs_per_track(clip, &prepared.rest_pose);
        assert!(worst < 2e-6, "reference {}: {worst}", clip.name);
    }
    let Some(dir) = common::rigs_dir() else {
        common::cannot_run_here()
    };
    for file in common::PUBLIC_RIGS {
        let (rig, report) = skinbench::rig::import_path(&dir.join(file)).unwrap();
        let prepared = PreparedRig::new(rig.clone(), &report, file).unwrap();
        for clip in &rig.clips {
            let worst = common::lane_vs_per_track(clip, &prepared.rest_pose);
            assert!(worst < 2e-6, "{file} {}: {worst}", clip.name);
        }
    }
}

fn lane_rotations_take_the_exact_slerp_for_wide_steps() {
    // Four tracks on one timeline; the keys of the first are 170° apart, where the
    // polynomial weights would be off by up to 2.6e-5.
    let times: Vec<f32> = vec![0.0, 1.0, 2.0];
    let track = |angles: [f32; 3], axis: Vec3| {
        Some(Track {
            interpolation: Interpolation::Linear,
            times_secs: times.clone(),
            values: angles
                .iter()
                .map(|&a| Quat::from_axis_angle(axis, a))
                .collect(),
        })
    };
    let clip = Clip {
        name: "wide".into(),
        duration_secs: 2.0,
        joint_tracks: vec![
            JointTracks {
                translation: None,
                rotation: track([0.0, 2.97, 0.3], Vec3::X),
                scale: None,
            },
            JointTracks {
                translation: None,
                rotation: track([0.1, 0.2, 0.3], Vec3::Y),
                scale: None,
            },
            JointTracks {
                translation: None,
                rotation: track([-1.0, 1.0, 0.0], Vec3::Z),
                scale: None,
            },
            // 1.5 rad steps: cos θ = 0.73, the series just above its threshold.
            JointTracks {
                translation: None,
                rotation: track([0.0, 1.5, 3.0], Vec3::Y),
                scale: None,
            },
        ],
    };
    assert_eq!(ClipRt::new(&clip).lane_rotations.map(|l| l.tracks), Some(4));
    let worst = common::lane_vs_per_track(&clip, &[Qvs::IDENTITY; 4]);
    assert!(worst < 2e-6, "{worst}");
}

/// Sampled for a mesh level, every joint of the level's set gets exactly the pose the
/// full sampler gives it, and with the level's held joints (and their lane tracks, only
/// the unheld joints') every held one its rest pose (every other as before), on every
/// rig, clip and level (and a level past the chain, which is its coarsest).
fn a_level_samples_its_joints_exactly_on_every_rig() {
    use skinbench::anim::sample::{LevelPose, sample_clip_for};
    for (name, rig) in common::prepared_rigs() {
        let levels = rig.level_joint_sets().len();
        let methods = [SkinMethod::DualQuat, SkinMethod::Linear];
        for (c, clip) in rig.clips.iter().enumerate() {
            for (level, method) in (0..=levels).flat_map(|l| methods.map(|m| (l, m))) {
                let set = skinbench::skin::level_errors::posed_joints(rig, level, method);
                let held = skinbench::skin::level_errors::level_merges(rig, level, method);
                for step in 0..24 {
                    let t = clip.duration_secs * 1.3 * step as f32 / 24.0;
                    let n = rig.rest_pose.len();
                    let mut full = vec![Qvs::IDENTITY; n];
                    let mut at_level = vec![Qvs::IDENTITY; n];
                    let mut holding = vec![Qvs::IDENTITY; n];
                    sample_clip(clip, &rig.rest_pose, t, &mut full);
                    let pose = |merges| Some(LevelPose { level, set, merges });
                    sample_clip_for(clip, c, &rig.rest_pose, t, &mut at_level, pose(None));
                    sample_clip_for(clip, c, &rig.rest_pose, t, &mut holding, pose(Some(held)));
                    for j in set.joints() {
                        assert_eq!(
                            full[j], at_level[j],
                            "{name} {} level {level} ({method:?}) t {t}: joint {j}",
                            clip.name
                        );
                        let expected = if held.holds(j) {
                            rig.rest_pose[j]
                        } else {
                            full[j]
                        };
                        assert_eq!(
                            expected,
                            holding[j],
                            "{name} {} level {level} ({method:?}) t {t}: joint {j} (held: {})",
                            clip.name,
                            held.holds(j)
                        );
                    }
                }
            }
        }
    }
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "a_level_samples_its_joints_exactly_on_every_rig",
            a_level_samples_its_joints_exactly_on_every_rig,
        ),
        ("linear_step_and_looping", linear_step_and_looping),
        (
            "cubic_spline_follows_its_tangents",
            cubic_spline_follows_its_tangents,
        ),
        (
            "fox_cubicspline_matches_fox_linear",
            fox_cubicspline_matches_fox_linear,
        ),
        ("stats_of_a_window", stats_of_a_window),
        (
            "lane_rotations_match_the_per_track_sampler_on_every_rig",
            lane_rotations_match_the_per_track_sampler_on_every_rig,
        ),
        (
            "lane_rotations_take_the_exact_slerp_for_wide_steps",
            lane_rotations_take_the_exact_slerp_for_wide_steps,
        ),
    ];
    common::run_tests(tests);
}
