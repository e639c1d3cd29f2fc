//! The scene's crowd: the clips it plays (the rig's survey, the settings' choice resolved
//! against it), the crowd dealt anew when either changes, and a crowd set from outside.
//!
//! How it works: a rig is surveyed once when it is loaded ([`ClipSurvey::measure`]); the
//! settings' [`ClipChoice`] is resolved into a [`ClipMix`] then and whenever the panel or
//! a flag changes it, and the mix deals the crowd its clips and spacing.

use std::sync::Arc;

use super::{Scene, SceneError};
use crate::crowd::InstanceStore;
use crate::crowd::mix::{ClipChoice, ClipMix, ClipSurvey};
use crate::prepare::PreparedRig;

impl Scene {
    /// Shows `crowd` as it stands (its count becomes the setting): the tests' pictures of
    /// chosen characters at chosen times.
    pub fn set_crowd(&mut self, crowd: InstanceStore) {
        self.settings.instances = crowd.len();
        self.sim.crowd = crowd;
        if let Some(animator) = &mut self.sim.animator {
            // The new crowd's times count from now.
            animator.forget_records();
        }
        if let Some(gpu_lod) = &mut self.sim.gpu_lod {
            gpu_lod.invalidate();
        }
        self.sim.lod.invalidate();
        self.history.clear();
    }

    /// Every clip of the rig as surveyed at load (which move, where their poses reach).
    pub fn clip_survey(&self) -> &ClipSurvey {
        &self.sim.clip_survey
    }

    /// The clips the crowd is dealt, those left out and why, and the crowd's spacing.
    pub fn clip_mix(&self) -> &ClipMix {
        &self.sim.clip_mix
    }

    /// Deals the crowd the clips the settings ask for, anew (same count; spacing and
    /// camera follow the new clips' footprint). A choice the rig cannot take is noted and
    /// the clips stay as they were.
    pub(super) fn apply_clips(&mut self) {
        let rig = self.sim.pipeline.rig().clone();
        match ClipMix::choose(&self.settings.clips, &rig, &self.sim.clip_survey) {
            Ok(mix) => {
                self.sim.clip_mix = mix;
                self.sim.clip_mix_for = self.settings.clips.clone();
                let mut crowd = InstanceStore::new();
                self.sim
                    .clip_mix
                    .deal(&mut crowd, self.sim.crowd.len(), &rig);
                self.set_crowd(crowd);
                self.reset_camera();
                self.requests.last_verify = None;
            }
            Err(e) => {
                self.notes.push(e.to_string());
                self.settings.clips = self.sim.clip_mix_for.clone();
            }
        }
    }

    /// Surveys a new rig's clips and resolves the settings' choice for it; a named choice
    /// the rig cannot take falls back to the clips that move, with a note.
    pub(super) fn survey_clips(&mut self, rig: &Arc<PreparedRig>) -> Result<(), SceneError> {
        self.sim.clip_survey = ClipSurvey::measure(rig);
        self.sim.clip_mix = match ClipMix::choose(&self.settings.clips, rig, &self.sim.clip_survey)
        {
            Ok(mix) => mix,
            Err(e) => {
                self.notes.push(format!("{e}: the clips that move instead"));
                self.settings.clips = ClipChoice::Moving;
                ClipMix::choose(&ClipChoice::Moving, rig, &self.sim.clip_survey)?
            }
        };
        self.sim.clip_mix_for = self.settings.clips.clone();
        Ok(())
    }
}
