//! What a frame leaves behind on request: its image, its verify against the oracles, a
//! screenshot with the sidecar of the readings its panel drew.
//!
//! How it works: each reads back what the frame just submitted (the offscreen target, the
//! skinned buffer or the palettes) after the GPU is done, so it runs from
//! the end of [`Scene::frame`], never inside a frame.

use std::path::{Path, PathBuf};

use super::*;

impl Scene {
    /// The offscreen frame as an image (read back from the GPU).
    pub fn read_image(&self) -> Result<image::RgbaImage, SceneError> {
        Ok(read_texture(&self.gpu, &self.targets.color)?)
    }

    /// The frame the GPU buffer holds now (read back, decoded through the output layout)
    /// against the f64 oracles, stage by stage. Call after the frame was submitted and
    /// before the clocks advance.
    pub fn verify(&mut self) -> Result<FrameDeviation, SceneError> {
        let layout = *self.sim.pipeline.output_layout();
        if self.sim.animated_on == AnimateDevice::Gpu {
            return self.verify_animated_on_gpu(&layout);
        }
        let out = if layout.skinned_on_gpu().is_some() {
            // What the compute pass skinned, not the palettes uploaded for it.
            self.renderer
                .read_gpu_skinned(&self.gpu, &layout, self.sim.crowd.len())?
        } else {
            let bytes = self.sim.pipeline.output_bytes(self.sim.crowd.len()) as u64;
            read_buffer(&self.gpu, self.renderer.skinned(), bytes)?
        };
        // What the buffer's vertices were computed from: with LOD, a character not updated
        // this frame shows an older pose.
        let shown = if self.sim.lod.shown().len() == self.sim.crowd.len() {
            self.sim.lod.shown()
        } else {
            self.sim.crowd.as_slice()
        };
        // The CPU posed (and skinned, where it skins) each group only for a level: every
        // vertex the passes draw a member with now must hold its pose, whichever device
        // skins it (`gpu_vertex` skins what it draws with the palettes of the joints the
        // level posed). The levels are taken from what the passes draw, not from the
        // plan's own choice: the main pass draws a character in view at its level, the
        // shadow pass every character at the shadows'.
        let drawn_levels = self.drawn_levels(shown.len());
        // Each group was posed for the level the plan skinned it for, when it was
        // computed (a kept group's may be finer than what is drawn of it now).
        let skinned_for = self.sim.lod.skin_levels();
        let posed_levels = if drawn_levels.is_empty() || skinned_for.len() != drawn_levels.len() {
            &[][..]
        } else {
            skinned_for
        };
        Ok(verify_stages_at_levels(
            &mut self.sim.pipeline,
            shown,
            &out,
            VERIFY_INSTANCES,
            &drawn_levels,
            posed_levels,
        )?)
    }

    /// Per group of eight of `n` characters, the finest level of the mesh's chain a pass
    /// draws one of them at (`u8::MAX` where none is drawn).
    fn drawn_levels(&self, n: usize) -> Vec<u8> {
        let (levels, visible) = (self.sim.lod.mesh_levels(), self.sim.lod.visible());
        let shadow = self
            .settings
            .shadows
            .then(|| self.shadow_mesh_level(crowd_extent(&self.sim.crowd) + 12.0));
        (0..n.div_ceil(crate::types::LANES))
            .map(|g| {
                let members = g * crate::types::LANES..n.min((g + 1) * crate::types::LANES);
                let main = members
                    .filter(|&i| visible.get(i).copied().unwrap_or(true))
                    .map(|i| levels.get(i).copied().unwrap_or(0))
                    .min()
                    .unwrap_or(u8::MAX);
                shadow.map_or(main, |s| main.min(s))
            })
            .collect()
    }

    /// Saves the offscreen frame as a PNG with a JSON sidecar of the readings its panel
    /// showed; returns where it went.
    pub fn save_screenshot(
        &self,
        path: &Path,
        present_mode: Option<&str>,
    ) -> Result<PathBuf, SceneError> {
        let image = self.read_image()?;
        save_png(&image, path)?;
        let sidecar = path.with_extension("json");
        let json = serde_json::to_string_pretty(&self.sidecar(
            image.width(),
            image.height(),
            present_mode,
        ))
        .expect("the sidecar is plain JSON");
        std::fs::write(&sidecar, json).map_err(|source| SceneError::Write {
            path: sidecar.clone(),
            source,
        })?;
        Ok(path.to_path_buf())
    }

    /// Takes the readings the panel shows this frame and keeps them for a screenshot's
    /// sidecar ([`Self::shown`]).
    pub fn take_readings(&mut self) -> Option<&PanelReadings> {
        let upload = self.upload_bytes();
        let inputs = ReadingInputs {
            skin: self.settings.pipeline.skin,
            animate: self.sim.animated_on,
            conditions: self.frame_conditions(),
            instances: self.sim.crowd.len(),
            uploaded_bytes: upload.copied,
            updated_bytes: upload.every_vertex,
            upload_copies: upload.copies,
            memory: self.sim.pipeline.memory_report(),
            lod: self.settings.lod.enabled.then(|| LodReading {
                stats: self.lod_stats(),
                measured_error: self.lod_error.clone(),
            }),
            mesh_lod: self.settings.lod.mesh.then(|| self.mesh_lod_reading()),
        };
        self.shown = PanelReadings::take(&mut self.history, inputs);
        self.shown.as_ref()
    }

    /// The sidecar of a screenshot of the frame just drawn: the readings its panel drew
    /// (`panel`, with the frames they average and each of those frames' timings), the
    /// configuration, adapter, machine and rig, and the verify of that frame where one ran.
    fn sidecar(&self, width: u32, height: u32, present_mode: Option<&str>) -> serde_json::Value {
        let rig = self.sim.pipeline.rig();
        let frames: Vec<serde_json::Value> = self
            .shown
            .as_ref()
            .map(|r| {
                self.history
                    .frames_in(&r.span)
                    .map(|(n, t)| serde_json::json!({ "frame": n, "timings": t }))
                    .collect()
            })
            .unwrap_or_default();
        serde_json::json!({
            "timestamp": timestamp(),
            "panel": self.shown,
            "panel_shown": self.settings.show_panel,
            "panel_frames": frames,
            "gpu_is_cpu_emulation": self.gpu.summary.device_type.contains("Cpu"),
            "settings": self.settings,
            "config": self.sim.pipeline.config(),
            "instances": self.sim.crowd.len(),
            // The clips the crowd was dealt (the settings say what was asked).
            "clips": {
                "played": self.sim.clip_mix.clips.iter().map(|&c| self.sim.clip_survey.name(c)).collect::<Vec<_>>(),
                "left_out": self.sim.clip_mix.left_out.iter().map(|&(c, why)| serde_json::json!({ "clip": self.sim.clip_survey.name(c), "why": why })).collect::<Vec<_>>(),
                "spacing_metres": self.sim.clip_mix.spacing_metres,
                "survey": self.sim.clip_survey,
            },
            "window": { "width": width, "height": height },
            "present_mode": present_mode,
            "adapter": self.gpu.summary,
            "machine": self.machine,
            "rig": {
                "name": rig.name,
                "joints": rig.joint_count(),
                "palette_entries": rig.palette_len(),
                "vertices": rig.vertex_count(),
                "triangles": rig.summary.triangles,
                "character": rig.summary.character_line(),
            },
            // The verify of the frame in the picture: run after it was drawn, so its panel
            // shows the verify before it, if any.
            "verify_of_this_frame": self.requests.last_verify.as_ref().map(|v| v.as_ref().map_err(|e| e.clone()).ok()),
            "verify_within_tolerance": self.requests.last_verify.as_ref().map(|v| v.as_ref().is_ok_and(|d| d.within_tolerance())),
        })
    }
}
