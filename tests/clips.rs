//! Which clips the crowd plays and how far apart it stands (`crowd::mix`):
//!
//! - `still_clip_left_out_by_default`, `all_and_named_clips`, `unknown_clip_refused_with_the_list`:
//!   the Fox with a `TPose` clip added (two joints holding their rest rotations).
//! - `actions_left_out_by_default`, `only_actions_still_play`: the Fox with its clips named
//!   behind an armature prefix and `Death`, `Roll` (actions), `Spin` (a loop) added.
//! - `spacing/<rig>`: 25 characters of every rig dealt the default mix on its spacing,
//!   each skinned through the f64 oracle at times of its clip the survey did not use: no
//!   two characters' ground boxes overlap.

mod common;

use std::sync::Arc;

use glam::DMat4;
use libtest_mimic::{Arguments, Failed};
use skinbench::anim::hierarchy::reference::{self, LocalF64};
use skinbench::anim::sample::sample_clip;
use skinbench::crowd::InstanceStore;
use skinbench::crowd::mix::{ClipChoice, ClipChoiceError, ClipMix, ClipSurvey, world_from_model};
use skinbench::prepare::PreparedRig;

/// Made once: the trials run in parallel and would write the same file. Without the
/// public rigs the trial is ignored, saying so.
fn fox_with_tpose() -> Result<Arc<PreparedRig>, Failed> {
    common::rigs_or_skip();
    static RIG: std::sync::OnceLock<Option<Arc<PreparedRig>>> = std::sync::OnceLock::new();
    RIG.get_or_init(|| {
        let dir = common::temp_dir("clips");
        let path = common::fox_with_tpose(&dir)?;
        Some(Arc::new(
            PreparedRig::load(&path).expect("the Fox with a TPose clip loads"),
        ))
    })
    .clone()
    .ok_or_else(|| "the Fox with a TPose clip was not written".into())
}

fn still_clip_left_out_by_default() -> Result<(), Failed> {
    let rig = fox_with_tpose()?;
    let survey = ClipSurvey::measure(&rig);
    let names: Vec<(&str, bool)> = survey
        .clips
        .iter()
        .map(|c| (c.name.as_str(), c.moves))
        .collect();
    if names
        != [
            ("Survey", true),
            ("Walk", true),
            ("Run", true),
            ("TPose", false),
        ]
    {
        return Err(format!("surveyed {names:?}").into());
    }
    let mix = ClipMix::choose(&ClipChoice::Moving, &rig, &survey)?;
    if mix.clips != [0, 1, 2] || mix.left_out.iter().map(|l| l.0).collect::<Vec<_>>() != [3] {
        return Err(format!("default mix {mix:?}").into());
    }
    let mut crowd = InstanceStore::new();
    crowd.resize_mixed(200, &rig, &mix.clips, mix.spacing_metres);
    if let Some(i) = crowd
        .as_slice()
        .iter()
        .find(|i| i.clip == 3 || i.blend_clip == 3)
    {
        return Err(format!("a character plays the still clip: {i:?}").into());
    }
    for clip in 0..3 {
        if !crowd.as_slice().iter().any(|i| i.clip == clip) {
            return Err(format!("no character plays clip {clip}").into());
        }
    }
    Ok(())
}

fn all_and_named_clips() -> Result<(), Failed> {
    let rig = fox_with_tpose()?;
    let survey = ClipSurvey::measure(&rig);
    let all = ClipMix::choose(&ClipChoice::parse("all")?, &rig, &survey)?;
    if all.clips != [0, 1, 2, 3] || !all.left_out.is_empty() {
        return Err(format!("all: {all:?}").into());
    }
    let named = ClipMix::choose(&ClipChoice::parse(" Run , TPose,Run")?, &rig, &survey)?;
    if named.clips != [2, 3] {
        return Err(format!("Run,TPose: {named:?}").into());
    }
    let mut crowd = InstanceStore::new();
    crowd.resize_mixed(50, &rig, &named.clips, named.spacing_metres);
    for i in crowd.as_slice() {
        if ![2, 3].contains(&i.clip) || ![2, 3].contains(&i.blend_clip) || i.clip == i.blend_clip {
            return Err(format!("Run,TPose dealt {i:?}").into());
        }
    }
    // A T-pose stands wider than the Fox's own clips reach? Whatever it does, the spacing
    // covers the union of the chosen clips' boxes.
    let run_only = ClipMix::choose(&ClipChoice::Named(vec!["Run".into()]), &rig, &survey)?;
    let box_of = |mix: &ClipMix| mix.footprint_metres(&survey);
    for (mix, what) in [(&named, "Run,TPose"), (&run_only, "Run")] {
        let b = box_of(mix);
        if mix.spacing_metres[0] < b[1] - b[0] || mix.spacing_metres[1] < b[3] - b[2] {
            return Err(
                format!("{what}: spacing {:?} inside box {b:?}", mix.spacing_metres).into(),
            );
        }
    }
    Ok(())
}

fn unknown_clip_refused_with_the_list() -> Result<(), Failed> {
    let rig = fox_with_tpose()?;
    let survey = ClipSurvey::measure(&rig);
    let choice = ClipChoice::parse("Walk,Jump")?;
    let refused = ClipMix::choose(&choice, &rig, &survey);
    let Err(e @ ClipChoiceError::Unknown { .. }) = refused else {
        return Err(format!("Walk,Jump: {refused:?}").into());
    };
    let text = e.to_string();
    if !(text.contains("\"Jump\"") && text.contains("Survey, Walk, Run, TPose")) {
        return Err(format!("the refusal does not name the clip and the list: {text}").into());
    }
    if choice.check(&rig) != Err(e) {
        return Err("the command line's check differs from the mix's".into());
    }
    for empty in ["", ",", " , "] {
        if ClipChoice::parse(empty) != Err(ClipChoiceError::Empty) {
            return Err(format!("{empty:?} is not refused as naming no clip").into());
        }
    }
    Ok(())
}

/// Made once, as [`fox_with_tpose`].
fn fox_with_actions() -> Result<Arc<PreparedRig>, Failed> {
    common::rigs_or_skip();
    static RIG: std::sync::OnceLock<Option<Arc<PreparedRig>>> = std::sync::OnceLock::new();
    RIG.get_or_init(|| {
        let dir = common::temp_dir("clips-actions");
        let path = common::fox_with_actions(&dir)?;
        Some(Arc::new(
            PreparedRig::load(&path).expect("the Fox with actions loads"),
        ))
    })
    .clone()
    .ok_or_else(|| "the Fox with actions was not written".into())
}

fn actions_left_out_by_default() -> Result<(), Failed> {
    let rig = fox_with_actions()?;
    let survey = ClipSurvey::measure(&rig);
    let names: Vec<(&str, bool, bool)> = survey
        .clips
        .iter()
        .map(|c| (c.name.as_str(), c.moves, c.loops))
        .collect();
    let expected = [
        ("Survey", true, true),
        ("Walk", true, true),
        ("Run", true, true),
        ("TPose", false, true),
        ("Death", true, false),
        ("Roll", true, false),
        ("Spin", true, true),
    ];
    if names != expected {
        return Err(format!("surveyed {names:?}, expected {expected:?}").into());
    }
    let mix = ClipMix::choose(&ClipChoice::Moving, &rig, &survey)?;
    let left_out: Vec<(u16, &str)> = mix.left_out.clone();
    if mix.clips != [0, 1, 2, 6]
        || left_out
            != [
                (4, skinbench::crowd::mix::ACTION),
                (5, skinbench::crowd::mix::ACTION),
                (3, skinbench::crowd::mix::STILL),
            ]
    {
        return Err(format!("default mix {mix:?}").into());
    }
    // Still choosable, by the name shown or the file's.
    for choice in ["Death,Roll", "FoxArmature|Death,FoxArmature|Roll"] {
        let named = ClipMix::choose(&ClipChoice::parse(choice)?, &rig, &survey)?;
        if named.clips != [4, 5] {
            return Err(format!("--clips {choice}: {named:?}").into());
        }
        ClipChoice::parse(choice)?.check(&rig)?;
    }
    Ok(())
}

/// Where every clip that moves is an action, the crowd plays them (not a still crowd).
fn only_actions_still_play() -> Result<(), Failed> {
    let rig = fox_with_actions()?;
    let mut survey = ClipSurvey::measure(&rig);
    for clip in &mut survey.clips {
        clip.loops = !clip.moves;
    }
    let mix = ClipMix::choose(&ClipChoice::Moving, &rig, &survey)?;
    if mix.clips != [0, 1, 2, 4, 5, 6] {
        return Err(format!("default mix of actions only: {mix:?}").into());
    }
    Ok(())
}

/// Each character's ground box (x, z, metres) at `time_secs` of its clip, through the f64
/// oracle.
fn ground_box(rig: &PreparedRig, clip: u16, time_secs: f32, place: [f32; 2]) -> [f64; 4] {
    let mut locals = rig.rest_pose.clone();
    if let Some(c) = rig.clips.get(usize::from(clip)) {
        sample_clip(c, &rig.rest_pose, time_secs, &mut locals);
    }
    let pose: Vec<LocalF64> = locals.iter().map(LocalF64::from).collect();
    let model = reference::model_from_joint_f64(&rig.skeleton, &pose);
    let palette = reference::palette(&rig.skeleton, &model);
    let (positions, _) = skinbench::skin::reference::skin(&rig.source_mesh, &palette);
    let world = DMat4::from_translation(glam::DVec3::new(
        f64::from(place[0]),
        0.0,
        f64::from(place[1]),
    )) * world_from_model(rig).as_dmat4();
    let mut b = [
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for p in positions {
        let w = world.transform_point3(p);
        b = [b[0].min(w.x), b[1].max(w.x), b[2].min(w.z), b[3].max(w.z)];
    }
    b
}

fn spacing(rig: &PreparedRig) -> Result<(), Failed> {
    let survey = ClipSurvey::measure(rig);
    let mix = ClipMix::choose(&ClipChoice::Moving, rig, &survey)?;
    let mut crowd = InstanceStore::new();
    crowd.resize_mixed(25, rig, &mix.clips, mix.spacing_metres);
    let mut boxes: Vec<[f64; 4]> = Vec::new();
    for (n, i) in crowd.as_slice().iter().enumerate() {
        let duration = rig
            .clips
            .get(usize::from(i.clip))
            .map_or(1.0, |c| c.duration_secs);
        // Times off the survey's grid and keys: odd fractions of the loop.
        let mut b = [
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for k in 0..12 {
            let t = duration * ((k as f32 * 0.0791 + n as f32 * 0.0113) % 1.0);
            let at = ground_box(rig, i.clip, t, i.ground_position);
            b = [
                b[0].min(at[0]),
                b[1].max(at[1]),
                b[2].min(at[2]),
                b[3].max(at[3]),
            ];
        }
        boxes.push(b);
    }
    for (a, ba) in boxes.iter().enumerate() {
        for (b, bb) in boxes.iter().enumerate().skip(a + 1) {
            let apart = ba[1] <= bb[0] || bb[1] <= ba[0] || ba[3] <= bb[2] || bb[3] <= ba[2];
            if !apart {
                return Err(format!(
                    "characters {a} and {b} overlap on the ground: {ba:?} and {bb:?} (spacing {:?})",
                    mix.spacing_metres
                )
                .into());
            }
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![
        common::trial(
            "still_clip_left_out_by_default",
            still_clip_left_out_by_default,
        ),
        common::trial("all_and_named_clips", all_and_named_clips),
        common::trial("actions_left_out_by_default", actions_left_out_by_default),
        common::trial("only_actions_still_play", only_actions_still_play),
        common::trial(
            "unknown_clip_refused_with_the_list",
            unknown_clip_refused_with_the_list,
        ),
    ];
    for (name, rig) in common::prepared_rigs() {
        let rig = rig.clone();
        trials.push(common::trial(format!("spacing/{name}"), move || {
            spacing(&rig)
        }));
    }
    common::run_trials(&args, trials);
}
