//! What the crowd plays and how far apart it stands: the clips each character is dealt
//! (`--clips`, the panel's clip picker) and the spacing of the spawn grid.
//!
//! How it works: when a rig is loaded, [`ClipSurvey::measure`] skins each clip through the
//! f64 oracle at a few dozen poses over its loop (every key time and the midpoints
//! between keys, thinned evenly to at most [`SURVEY_POSES`], plus an even grid) and keeps
//! two facts per clip: how far any vertex gets from where it is in the clip's first pose
//! (a clip whose vertices never leave it is *still*: a T-pose or a bind-pose export), and
//! the ground-plane box every pose's vertices lie in. [`ClipChoice`] says what the user
//! asked for (the clips that move, all of them, or clips by name); [`ClipMix`] is that
//! choice resolved against one rig's survey: the clip indices characters are dealt from,
//! why others were left out, and the spacing that keeps neighbours' boxes apart. The crowd
//! stands on a square spiral, every character facing the same way, so two neighbours
//! cannot overlap when the grid's step along x and z each exceeds the box's extent
//! along that axis.

use glam::{DVec3, Mat4, Vec3};

use crate::anim::hierarchy::reference::{self, LocalF64};
use crate::crowd::pipeline::sample_instance;
use crate::prepare::PreparedRig;

/// At most this many poses of a clip are skinned for its survey (besides the even grid).
pub const SURVEY_POSES: usize = 64;
/// Poses of the even grid over each clip's loop.
const GRID_POSES: usize = 16;
/// A clip whose vertices stay within this fraction of the character's height of their
/// first pose counts as still.
pub const STILL_FRACTION: f64 = 1e-4;
/// A clip whose last pose is within this fraction of the character's height of its first
/// loops (see [`loops`]).
pub const LOOP_GAP_FRACTION: f32 = 0.05;
/// ... or within this share of the clip's own largest move.
pub const LOOP_GAP_SHARE: f32 = 0.2;
/// The height a character is drawn at, metres (every rig is scaled to it).
pub const CHARACTER_HEIGHT_METRES: f32 = 1.8;
/// Room left between neighbours' boxes, as a fraction of the character's height.
pub const GAP_FRACTION: f32 = 0.25;

/// World ← model for a character standing at the origin: scaled to
/// [`CHARACTER_HEIGHT_METRES`] by its rest pose's height, its feet on the ground and its
/// rest pose centred over the origin (every draw path and the crowd's spacing use it).
pub fn world_from_model(rig: &PreparedRig) -> Mat4 {
    let model = reference::model_from_joint(&rig.skeleton, &rig.rest_pose);
    let palette = reference::palette(&rig.skeleton, &model);
    let positions =
        crate::skin::reference::skin_positions(&rig.source_mesh, &palette, rig.drawn_vertices());
    let mut min = Vec3::splat(f32::INFINITY);
    let mut max = Vec3::splat(f32::NEG_INFINITY);
    for p in &positions {
        let p = p.as_vec3();
        min = min.min(p);
        max = max.max(p);
    }
    if !min.is_finite() || !max.is_finite() {
        return Mat4::IDENTITY;
    }
    let height = (max.y - min.y).max(1e-6);
    let scale = CHARACTER_HEIGHT_METRES / height;
    let center = (min + max) * 0.5;
    Mat4::from_scale(Vec3::splat(scale))
        * Mat4::from_translation(Vec3::new(-center.x, -min.y, -center.z))
}

/// A clip loops when its last pose is within [`LOOP_GAP_FRACTION`] of the character's
/// height of its first, or within [`LOOP_GAP_SHARE`] of the clip's own largest move: a
/// walk cycle whose seam pops by a few centimetres still loops; a death that ends lying
/// down or a roll that ends a body length away does not.
pub fn loops(loop_gap_metres: f32, largest_move_metres: f32) -> bool {
    loop_gap_metres <= LOOP_GAP_FRACTION * CHARACTER_HEIGHT_METRES
        || loop_gap_metres <= LOOP_GAP_SHARE * largest_move_metres
}

/// What one clip does, measured at load.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClipSummary {
    /// The name shown: the file's without the part every clip's name shares
    /// ([`crate::prepare::clip::short_names`]).
    pub name: String,
    /// The name in the file.
    pub file_name: String,
    pub duration_secs: f32,
    /// The farthest any vertex gets from its place in the clip's first pose, metres as
    /// drawn.
    pub largest_move_metres: f32,
    /// Whether it moves (see [`STILL_FRACTION`]).
    pub moves: bool,
    /// The farthest any vertex is between the clip's last pose and its first: what a
    /// character jumps by when the clip starts over. Metres as drawn.
    pub loop_gap_metres: f32,
    /// Whether the clip comes back to its first pose, so it can play over and over (see
    /// [`loops`]); one that does not is an action (a death, a roll, a jump that lands
    /// elsewhere), left out of the crowd by default.
    pub loops: bool,
    /// The ground-plane box every surveyed pose lies in, metres as drawn around the
    /// character's place: min x, max x, min z, max z.
    pub footprint_metres: [f32; 4],
}

/// Every clip of a rig, surveyed (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ClipSurvey {
    pub clips: Vec<ClipSummary>,
    /// The rest pose's box (the footprint of a rig without clips).
    pub rest_footprint_metres: [f32; 4],
}

impl ClipSurvey {
    /// Surveys every clip of `rig` (a few dozen f64 skinnings per clip).
    pub fn measure(rig: &PreparedRig) -> ClipSurvey {
        let world = world_from_model(rig);
        let scale = world.x_axis.x as f64;
        let to_world = |p: DVec3| world.transform_point3(p.as_vec3());
        let rest = skin_at(rig, None, 0.0);
        let rest_footprint_metres = footprint(rest.iter().map(|&p| to_world(p)));
        let names = crate::prepare::clip::short_names(rig.clips.iter().map(|c| c.name.as_str()));
        // Clips are independent: surveyed on every core.
        let clips = crate::prepare::parallel::map(rig.clips.len(), |c| {
            let (clip, name) = (&rig.clips[c], names[c].clone());
            {
                let times = survey_times(&clip.key_times().0, clip.duration_secs);
                let mut first: Vec<DVec3> = Vec::new();
                let mut largest = 0.0f64;
                let mut box_ = [
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                ];
                for &t in &times {
                    let positions = skin_at(rig, Some(c as u16), t);
                    if first.is_empty() {
                        first = positions.clone();
                    }
                    for (p, q) in positions.iter().zip(&first) {
                        largest = largest.max((*p - *q).length());
                    }
                    let b = footprint(positions.iter().map(|&p| to_world(p)));
                    box_ = [
                        box_[0].min(b[0]),
                        box_[1].max(b[1]),
                        box_[2].min(b[2]),
                        box_[3].max(b[3]),
                    ];
                }
                // The pose just before the clip wraps (sampling at the duration itself
                // wraps to the first pose).
                let last_time = f64::from(clip.duration_secs.next_down().max(0.0));
                let last = skin_at(rig, Some(c as u16), last_time);
                let gap = last
                    .iter()
                    .zip(&first)
                    .map(|(p, q)| (*p - *q).length())
                    .fold(0.0f64, f64::max);
                let largest = largest.max(gap);
                let largest_move_metres = (largest * scale) as f32;
                let loop_gap_metres = (gap * scale) as f32;
                ClipSummary {
                    name,
                    file_name: clip.name.clone(),
                    duration_secs: clip.duration_secs,
                    largest_move_metres,
                    moves: largest * scale > STILL_FRACTION * f64::from(CHARACTER_HEIGHT_METRES),
                    loop_gap_metres,
                    loops: loops(loop_gap_metres, largest_move_metres),
                    footprint_metres: if box_[0].is_finite() && box_[3].is_finite() {
                        box_
                    } else {
                        rest_footprint_metres
                    },
                }
            }
        });
        ClipSurvey {
            clips,
            rest_footprint_metres,
        }
    }

    /// Clip `clip`'s name (empty past the rig's clips).
    pub fn name(&self, clip: u16) -> &str {
        self.clips
            .get(usize::from(clip))
            .map_or("", |c| c.name.as_str())
    }

    /// The clips' names, comma-separated (what a refusal lists).
    pub fn names(&self) -> String {
        clip_names(self.clips.iter().map(|c| c.name.as_str()))
    }
}

fn clip_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    if names.is_empty() {
        "none (the rig has no clips)".into()
    } else {
        names.join(", ")
    }
}

/// The drawn vertices skinned at `time_secs` of `clip` (the rest pose without one), model
/// space.
fn skin_at(rig: &PreparedRig, clip: Option<u16>, time_secs: f64) -> Vec<DVec3> {
    let mut locals = rig.rest_pose.clone();
    if let Some(clip) = clip {
        sample_instance(rig, clip, time_secs as f32, &mut locals, None);
    }
    let pose: Vec<LocalF64> = locals.iter().map(LocalF64::from).collect();
    let model = reference::model_from_joint_f64(&rig.skeleton, &pose);
    let palette = reference::palette(&rig.skeleton, &model);
    crate::skin::reference::skin_positions(&rig.source_mesh, &palette, rig.drawn_vertices())
}

/// The times a clip is surveyed at: its key times and the midpoints between them, thinned
/// evenly to [`SURVEY_POSES`], and an even grid of [`GRID_POSES`] over the loop.
fn survey_times(keys: &[f32], duration_secs: f32) -> Vec<f64> {
    let duration = f64::from(duration_secs);
    let mut wanted: Vec<f64> = Vec::with_capacity(keys.len() * 2);
    for (k, &key) in keys.iter().enumerate() {
        wanted.push(f64::from(key));
        if let Some(&next) = keys.get(k + 1) {
            wanted.push((f64::from(key) + f64::from(next)) * 0.5);
        }
    }
    let mut times: Vec<f64> = if wanted.len() > SURVEY_POSES {
        (0..SURVEY_POSES)
            .map(|i| wanted[i * (wanted.len() - 1) / (SURVEY_POSES - 1)])
            .collect()
    } else {
        wanted
    };
    if duration > 0.0 && duration.is_finite() {
        times.extend((0..GRID_POSES).map(|i| duration * i as f64 / GRID_POSES as f64));
    }
    times.retain(|t| t.is_finite());
    if times.is_empty() {
        times.push(0.0);
    }
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
}

fn footprint(points: impl Iterator<Item = Vec3>) -> [f32; 4] {
    let mut b = [
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    for p in points {
        if p.is_finite() {
            b = [b[0].min(p.x), b[1].max(p.x), b[2].min(p.z), b[3].max(p.z)];
        }
    }
    b
}

/// Which clips the crowd plays, as asked (`--clips`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum ClipChoice {
    /// The clips that move and loop (the moving actions where no clip loops, all of
    /// them where none moves).
    #[default]
    Moving,
    All,
    /// These clips, by name, in this order.
    Named(Vec<String>),
}

impl ClipChoice {
    /// `moving`, `all`, or clip names separated by commas.
    pub fn parse(text: &str) -> Result<ClipChoice, ClipChoiceError> {
        match text.trim() {
            "moving" => Ok(ClipChoice::Moving),
            "all" => Ok(ClipChoice::All),
            _ => {
                let names: Vec<String> = text
                    .split(',')
                    .map(|n| n.trim().to_string())
                    .filter(|n| !n.is_empty())
                    .collect();
                if names.is_empty() {
                    Err(ClipChoiceError::Empty)
                } else {
                    Ok(ClipChoice::Named(names))
                }
            }
        }
    }

    /// Refuses a name `rig` has no clip of (before anything is surveyed).
    pub fn check(&self, rig: &PreparedRig) -> Result<(), ClipChoiceError> {
        let ClipChoice::Named(names) = self else {
            return Ok(());
        };
        match names
            .iter()
            .find(|n| crate::prepare::clip::find_clip(&rig.clips, n).is_none())
        {
            Some(name) => Err(ClipChoiceError::Unknown {
                name: name.clone(),
                rig: rig.name.clone(),
                available: clip_names(
                    crate::prepare::clip::short_names(rig.clips.iter().map(|c| c.name.as_str()))
                        .iter()
                        .map(String::as_str),
                ),
            }),
            None => Ok(()),
        }
    }

    /// What the command line would say for it.
    pub fn label(&self) -> String {
        match self {
            ClipChoice::Moving => "moving".into(),
            ClipChoice::All => "all".into(),
            ClipChoice::Named(names) => names.join(","),
        }
    }
}

/// Why a clip choice does not fit a rig.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClipChoiceError {
    #[error("name at least one clip, or say `moving` or `all`")]
    Empty,
    #[error("--clips {name:?}: {rig} has no clip of that name; its clips: {available}")]
    Unknown {
        name: String,
        rig: String,
        available: String,
    },
}

/// Why the default mix leaves a still clip out.
pub const STILL: &str = "still: no vertex moves";
/// Why the default mix leaves an action out.
pub const ACTION: &str = "an action: its last pose does not come back to its first";

/// A clip choice resolved against one rig's survey.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClipMix {
    /// The clips characters are dealt from (never empty where the rig has clips).
    pub clips: Vec<u16>,
    /// Clips left out and why.
    pub left_out: Vec<(u16, &'static str)>,
    /// The spawn grid's step along x and z, metres.
    pub spacing_metres: [f32; 2],
}

impl ClipMix {
    /// Resolves `choice` for `rig` (whose survey is `survey`).
    pub fn choose(
        choice: &ClipChoice,
        rig: &PreparedRig,
        survey: &ClipSurvey,
    ) -> Result<ClipMix, ClipChoiceError> {
        let all: Vec<u16> = (0..survey.clips.len().min(usize::from(u16::MAX)) as u16).collect();
        let (clips, left_out) = match choice {
            ClipChoice::All => (all, Vec::new()),
            ClipChoice::Moving => {
                let (moving, still): (Vec<u16>, Vec<u16>) = all
                    .iter()
                    .partition(|&&c| survey.clips[usize::from(c)].moves);
                let (looping, actions): (Vec<u16>, Vec<u16>) = moving
                    .iter()
                    .partition(|&&c| survey.clips[usize::from(c)].loops);
                let still = still.into_iter().map(|c| (c, STILL));
                if !looping.is_empty() {
                    let actions = actions.into_iter().map(|c| (c, ACTION));
                    (looping, actions.chain(still).collect())
                } else if !moving.is_empty() {
                    // Only actions move: play them rather than a still crowd.
                    (moving, still.collect())
                } else {
                    // Nothing moves: play them all rather than nothing.
                    (all, Vec::new())
                }
            }
            ClipChoice::Named(names) => {
                let mut clips = Vec::new();
                for name in names {
                    let Some(c) = survey
                        .clips
                        .iter()
                        .position(|c| &c.file_name == name)
                        .or_else(|| survey.clips.iter().position(|c| &c.name == name))
                    else {
                        return Err(ClipChoiceError::Unknown {
                            name: name.clone(),
                            rig: rig.name.clone(),
                            available: survey.names(),
                        });
                    };
                    if !clips.contains(&(c as u16)) {
                        clips.push(c as u16);
                    }
                }
                let left_out = all
                    .into_iter()
                    .filter(|c| !clips.contains(c))
                    .map(|c| (c, "not named"))
                    .collect();
                (clips, left_out)
            }
        };
        let spacing_metres = spacing_for(&clips, survey);
        Ok(ClipMix {
            clips,
            left_out,
            spacing_metres,
        })
    }

    /// Grows or shrinks `crowd` to `count` characters of `rig`, new ones dealt this mix's
    /// clips on its spacing.
    pub fn deal(&self, crowd: &mut crate::crowd::InstanceStore, count: usize, rig: &PreparedRig) {
        crowd.resize_mixed(count, rig, &self.clips, self.spacing_metres);
    }

    /// The box every pose of the mix's clips lies in, metres around a character's place.
    pub fn footprint_metres(&self, survey: &ClipSurvey) -> [f32; 4] {
        union_of(&self.clips, survey)
    }
}

/// The box of the clips' boxes (the rest pose's where no clip is played: the crowd then
/// stands in it).
fn union_of(clips: &[u16], survey: &ClipSurvey) -> [f32; 4] {
    let mut b = [
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    for &c in clips {
        if let Some(s) = survey.clips.get(usize::from(c)) {
            let f = s.footprint_metres;
            b = [
                b[0].min(f[0]),
                b[1].max(f[1]),
                b[2].min(f[2]),
                b[3].max(f[3]),
            ];
        }
    }
    if b[0].is_finite() && b[2].is_finite() {
        b
    } else {
        survey.rest_footprint_metres
    }
}

/// The grid step that keeps neighbours' boxes [`GAP_FRACTION`] of a character's height
/// apart, along x and z.
fn spacing_for(clips: &[u16], survey: &ClipSurvey) -> [f32; 2] {
    let b = union_of(clips, survey);
    let gap = GAP_FRACTION * CHARACTER_HEIGHT_METRES;
    let step = |extent: f32| {
        if extent.is_finite() && extent >= 0.0 {
            // A character whose clips carry it far (root motion) is capped at a street's
            // width apart: the crowd stays a crowd.
            (extent + gap).min(50.0)
        } else {
            gap
        }
    };
    [step(b[1] - b[0]), step(b[3] - b[2])]
}
