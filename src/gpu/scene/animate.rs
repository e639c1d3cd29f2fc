//! The scene's frames with the animation on the GPU (`--animate gpu`): switching to and
//! from it, a frame's records and passes, and its verify.
//!
//! How it works: while the GPU animates, the crowd's times stay as they were written and
//! the scene's animation clock advances; [`GpuAnimator`] writes the records that changed
//! and records its passes into the palettes the skin variant reads, then `gpu_compute`'s
//! skinning pass runs as with the CPU's palettes.

use std::time::Instant;

use super::frame_passes::PreparedFrame;
use super::{Scene, SceneError, VERIFY_INSTANCES};
use crate::crowd::Instance;
use crate::crowd::animate::Record;
use crate::crowd::lod::LodStats;
use crate::crowd::lod::formats::UNSKINNED_LEVEL;
use crate::crowd::lod::per_character::{CharacterLod, DUE, LodFrame, VISIBLE};
use crate::crowd::trace::Track;
use crate::crowd::verify::{FrameDeviation, GpuLevels, verified_indices, verify_gpu_animation};
use crate::crowd::{AnimateDevice, Stage, StageTimings};
use crate::gpu::animate::AnimateFrame;
use crate::gpu::animate::lod::GpuLod;
use crate::gpu::animate::{DueList, GpuAnimateError, GpuAnimator};
use crate::gpu::{FrameShape, PaletteBuffer};
use crate::skin::OutputLayout;

/// Per character, what its pose on the GPU was computed from, and whether it was drawn.
pub type ShownOnGpu = (Vec<Instance>, Vec<bool>);

/// Per character, the level whose vertices were skinned or drawn, and the level whose
/// joints its pose holds ([`Scene::gpu_levels`]).
pub type SkinAndPosedLevels = (Vec<u32>, Vec<u32>);

impl Scene {
    /// Where the animation runs: `gpu` needs a GPU skin variant (the passes write the
    /// palettes it reads); a switch hands the crowd's times from one device to the other.
    pub(super) fn apply_animate_setting(&mut self) {
        if let Some(why) = self.settings.animate.refusal(self.settings.pipeline.skin) {
            self.notes.push(format!("{why}, so the CPU animates"));
            self.settings.animate = AnimateDevice::Cpu;
        }
        if self.settings.animate == self.sim.animated_on {
            return;
        }
        match self.settings.animate {
            AnimateDevice::Gpu => {
                if let Some(animator) = &mut self.sim.animator {
                    animator.forget_records();
                }
            }
            AnimateDevice::Cpu => {
                // What only the GPU's animation uses goes with it: its records, clip tables
                // and LOD pass held a crowd's worth of GPU memory no frame read (a soak's
                // checkpoints found 20 more GPU objects and up to 270 MiB more after a
                // visit to the GPU's animation). Going back makes them again.
                self.release_gpu_animation();
            }
        }
        self.sim.animated_on = self.settings.animate;
        if let Some(gpu_lod) = &mut self.sim.gpu_lod {
            gpu_lod.invalidate();
        }
        self.sim.lod.invalidate();
        self.history.clear();
        self.requests.last_verify = None;
    }

    /// Lets the GPU's animation go (its passes, tables, records and LOD pass), the crowd's
    /// times first taken back as the GPU last animated them.
    fn release_gpu_animation(&mut self) {
        if let Some(animator) = &self.sim.animator {
            let now = animator.crowd_at(self.sim.anim_clock_secs);
            for (c, g) in self.sim.crowd.as_mut_slice().iter_mut().zip(&now) {
                c.time_secs = g.time_secs;
            }
        }
        self.sim.animator = None;
        self.sim.gpu_lod = None;
        self.sim.gpu_lod_key = None;
        self.sim.lod_motions = crate::crowd::lod::per_character::MotionSet::new();
    }

    /// The frame animated on the GPU: the changed characters' records written, the LOD
    /// pass and the animation's passes prepared (the frame's pass list records them, then
    /// `gpu_compute`'s skinning). The CPU's part is the writing ("upload"); no CPU stage
    /// runs.
    pub(super) fn prepare_gpu_animation(
        &mut self,
    ) -> Result<(StageTimings, PreparedFrame), SceneError> {
        profiling::scope!("animate on the GPU");
        let n = self.sim.crowd.len();
        let layout = *self.sim.pipeline.output_layout();
        let view = self.lod_view();
        // The tables, the LOD pass and the shadow level read the level errors: measured
        // here, once per rig, where neither the load nor the app has yet.
        crate::skin::level_errors::level_errors(self.sim.pipeline.rig());
        let shadow_level = self.shadow_mesh_level(crate::gpu::crowd_extent(&self.sim.crowd) + 12.0);
        // The tables list the joints each level poses for one skinning method (linear
        // blending's influence cuts pose fewer): another method makes them again.
        let method = self.sim.pipeline.config().method;
        if self
            .sim
            .animator
            .as_ref()
            .is_some_and(|a| a.method() != method)
        {
            self.release_gpu_animation();
        }
        let (device, queue) = (&self.gpu.device, &self.gpu.queue);
        self.renderer.ensure_animated_palettes(device, &layout, n);
        let rig = self.sim.pipeline.rig();
        let animator = self
            .sim
            .animator
            .get_or_insert_with(|| GpuAnimator::new(device, rig, method));
        let start = Instant::now();
        let written =
            animator.write_characters(&self.gpu, &self.sim.crowd, self.sim.anim_clock_secs);
        let config = *self.sim.pipeline.config();
        // The LOD pass runs for either LOD: without update-rate LOD every character gets
        // period 1 (nothing skipped), the pass then only culls and chooses mesh levels.
        let lod_on = self.settings.lod.enabled || self.settings.lod.mesh;
        let frame = AnimateFrame {
            clock_secs: self.sim.anim_clock_secs,
            blend_weight: config.blend_weight,
            hierarchy: self.settings.gpu_hierarchy,
            // As many as the LOD pass chooses among (`LodFrame::mesh_levels`).
            joint_levels: if lod_on && self.settings.lod.mesh {
                rig.mesh_chain().levels().len() as u32
            } else {
                1
            },
        };
        let palettes = PaletteBuffer::new(self.renderer.palettes(), FrameShape::new(&layout, n));
        // Where the crowd's ranges take turns in the pose slots, verify's characters'
        // poses are copied out as each wave is done.
        animator.watch(n, VERIFY_INSTANCES);
        let prepared_animation = animator.prepare(&self.gpu, palettes, &frame, lod_on)?;
        let fresh = prepared_animation.bound_anew();
        let mut prepared_lod = None;
        if lod_on {
            profiling::scope!("lod on the GPU");
            let gpu_lod = self.sim.gpu_lod.get_or_insert_with(|| GpuLod::new(device));
            gpu_lod.reset_written_bytes();
            // A new motion is measured (on the CPU, once) when a character starts playing it.
            let new_motions = (written > 0 || fresh || !gpu_lod.has_motions())
                && self.sim.lod_motions.update(
                    rig,
                    self.sim.crowd.as_slice(),
                    config.blend_weight,
                    config.method,
                );
            if new_motions || !gpu_lod.has_motions() {
                gpu_lod.set_motions(device, queue, self.sim.lod_motions.words());
            }
            if fresh || self.sim.gpu_lod_key != Some((config, n)) {
                gpu_lod.invalidate();
                self.sim.gpu_lod_key = Some((config, n));
            }
            // Culling writes the instance counts of indirect draws; drawn one by one (the
            // adapter lacks indirect first-instance, or indirect draws are off) every
            // character is drawn: the culled ones are outside the view, so the picture is
            // the same, and LOD still skips their updates.
            let cull = self.renderer.indirect_draws();
            if !cull {
                self.notes.push(
                    "LOD on the GPU culls through indirect draws, which are off or missing on \
                     this adapter: every character is drawn (the picture is the same)"
                        .into(),
                );
            }
            self.renderer.set_per_character_draws(cull);

            let mut settings = self.settings.lod;
            if !settings.enabled {
                settings.max_period = 1;
            }
            let mut frame = LodFrame::new(
                &view,
                self.renderer.world_from_model(),
                &settings,
                self.sim.anim_clock_secs,
                self.sim.frame_clip_secs,
                n,
                cull,
            );
            if self.settings.shadows {
                frame.set_shadows(crate::gpu::camera::sun_direction());
            }
            if settings.mesh {
                frame.set_mesh_levels(
                    self.renderer.level_ranges(),
                    &crate::skin::level_errors::level_errors(rig).errors,
                );
                // The shadow pass draws everyone at its level: their vertices must be there.
                if self.settings.shadows {
                    frame.skin_level_cap = u32::from(shadow_level);
                }
            }
            let prepared = gpu_lod
                .prepare(
                    &self.gpu,
                    frame,
                    animator.records(),
                    &self.renderer.lod_draw_target(),
                )
                .map_err(GpuAnimateError::from)?;
            self.renderer.set_draw_runs(prepared.writes_draws());
            prepared_lod = Some(prepared);
            // A frame whose draws the pass did not write draws at the fallback level: full
            // detail in a full frame (every joint posed), else the coarsest level, whose
            // vertices and joints every character's pose holds.
            self.renderer
                .set_fallback_level(if settings.mesh && !gpu_lod.last_frame_full() {
                    (rig.mesh_chain().levels().len() - 1) as u8
                } else {
                    0
                });
        } else {
            self.renderer.set_per_character_draws(false);
            self.renderer.set_draw_runs(false);
            if let Some(gpu_lod) = &mut self.sim.gpu_lod {
                // What LOD skipped is stale once it is off.
                gpu_lod.invalidate();
                gpu_lod.reset_written_bytes();
            }
        }
        let upload_us = start.elapsed().as_secs_f64() * 1e6;
        if let Some(trace) = &self.trace {
            trace.record(Track::Thread(0), "upload", start, start.elapsed());
        }
        let mut stage_us = [0.0; Stage::COUNT];
        stage_us[Stage::Upload.index()] = upload_us;
        let timings = StageTimings {
            stage_us,
            threads: config.threads,
            instances: n,
            ..StageTimings::default()
        };
        let prepared = PreparedFrame {
            conditions: self.frame_conditions(),
            animation: Some(prepared_animation),
            lod: prepared_lod,
        };
        Ok((timings, prepared))
    }

    /// Verify of a frame the GPU animated: the GPU's local poses and model matrices of the
    /// compared characters read back against the oracles, then their output (what was
    /// skinned, or `gpu_vertex`'s palettes) as for the CPU's animation. Only the compared
    /// characters are read back, so verify costs the same at a million characters as at
    /// a hundred.
    pub(super) fn verify_animated_on_gpu(
        &self,
        layout: &OutputLayout,
    ) -> Result<FrameDeviation, SceneError> {
        let Some(animator) = &self.sim.animator else {
            return Err(SceneError::NotAnimated);
        };
        let crowd = match self.gpu_lod_shown()? {
            Some((shown, _)) => shown,
            None => animator.crowd_at(self.sim.anim_clock_secs),
        };
        let compared = verified_indices(crowd.len(), VERIFY_INSTANCES);
        let out = if layout.skinned_on_gpu().is_some() {
            // What the compute pass skinned, not the palettes uploaded for it.
            self.renderer
                .read_gpu_skinned_of(&self.gpu, layout, crowd.len(), &compared)?
        } else {
            // `gpu_vertex`'s palettes, as the GPU animation wrote them.
            self.renderer
                .read_palettes_of(&self.gpu, layout, crowd.len(), &compared)?
        };
        let (mut locals, mut models) = animator.read_back_characters(&self.gpu, &compared)?;
        // From here the compared characters are the crowd: the `k`th is at `k` in the
        // output read back, and in these.
        let levels = self.gpu_levels()?;
        let of_compared = |all: Vec<u32>| compared.iter().map(|&i| all[i]).collect::<Vec<_>>();
        let (skin, posed) = match levels {
            Some((skin, posed)) => (Some(of_compared(skin)), Some(of_compared(posed))),
            None => (None, None),
        };
        let mut indices: Vec<usize> = (0..compared.len()).collect();
        // Where the ranges took turns in the pose slots, a character the frame kept has
        // no poses of its own there: only those it computed are compared stage by stage
        // (every character's output still is).
        if animator.poses_are_scratch()
            && let Some(gpu_lod) = &self.sim.gpu_lod
            && (self.settings.lod.enabled || self.settings.lod.mesh)
        {
            let states = gpu_lod.read_back_states(&self.gpu, crowd.len())?;
            let computed = |k: usize| states.get(compared[k]).is_some_and(|s| s.flags & DUE != 0);
            let poses = std::mem::take(&mut locals)
                .into_iter()
                .zip(std::mem::take(&mut models));
            let all = std::mem::take(&mut indices).into_iter().zip(poses);
            (indices, (locals, models)) = all.filter(|&(i, _)| computed(i)).unzip();
        }
        let crowd: Vec<Instance> = compared.iter().map(|&i| crowd[i]).collect();
        Ok(verify_gpu_animation(
            &self.sim.pipeline,
            &crowd,
            &indices,
            &locals,
            &models,
            &out,
            GpuLevels {
                skin: skin.as_deref(),
                posed: posed.as_deref(),
                outputs_compared: compared.len(),
            },
        )?)
    }

    /// How many characters' records the GPU animation has compared with the crowd (0
    /// before it ran): a steady crowd adds none.
    pub fn animator_records_compared(&self) -> u64 {
        self.sim
            .animator
            .as_ref()
            .map_or(0, |a| a.records_compared())
    }

    /// Where the LOD pass runs: per character, the level of the mesh's chain whose
    /// vertices it skinned (`gpu_compute`) or whose vertices the draws read (`gpu_vertex`),
    /// and the level whose joints its pose holds (read back; blocks until the GPU is done).
    pub fn gpu_levels(&self) -> Result<Option<SkinAndPosedLevels>, SceneError> {
        let lod_on = self.settings.lod.enabled || self.settings.lod.mesh;
        let Some(gpu_lod) = &self.sim.gpu_lod else {
            return Ok(None);
        };
        if !(self.sim.animated_on == AnimateDevice::Gpu && lod_on) {
            return Ok(None);
        }
        let states = gpu_lod.read_back_states(&self.gpu, self.sim.crowd.len())?;
        let (mut skin, posed): (Vec<u32>, Vec<u32>) = states
            .iter()
            .map(|s| (s.skin_level(), s.posed_level()))
            .unzip();
        // The skinned pool's vertices are those of the level it held a character at: its
        // own, or the coarsest where it demoted it; one it left out has none this frame,
        // like one no pass draws.
        if let Some(pool) = self.renderer.read_gpu_pool(&self.gpu)? {
            for (c, level) in skin.iter_mut().enumerate() {
                *level = pool.level_of(c).map_or(UNSKINNED_LEVEL, |l| l as u32);
            }
        }
        Ok(Some((skin, posed)))
    }

    /// With LOD on the GPU: per character, what its pose on the GPU was computed from
    /// (its clip time when last recomputed) and whether the last frame drew it, read back
    /// (blocks until the GPU is done); `None` while the GPU is not deciding.
    pub fn gpu_lod_shown(&self) -> Result<Option<ShownOnGpu>, SceneError> {
        let (Some(animator), Some(gpu_lod)) = (&self.sim.animator, &self.sim.gpu_lod) else {
            return Ok(None);
        };
        if !(self.sim.animated_on == AnimateDevice::Gpu && self.settings.lod.enabled) {
            return Ok(None);
        }
        let mut shown = animator.crowd_at(self.sim.anim_clock_secs);
        let states = gpu_lod.read_back_states(&self.gpu, shown.len())?;
        let mut visible = vec![true; shown.len()];
        for ((instance, state), seen) in shown.iter_mut().zip(&states).zip(&mut visible) {
            instance.time_secs = state.shown_secs;
            *seen = state.flags & VISIBLE != 0;
        }
        Ok(Some((shown, visible)))
    }

    /// With LOD on the GPU: the states of the first `characters` characters after the
    /// last frame (the CPU twins' input).
    pub fn gpu_lod_states(&self, characters: usize) -> Result<Vec<CharacterLod>, SceneError> {
        let Some(gpu_lod) = &self.sim.gpu_lod else {
            return Err(SceneError::NotAnimated);
        };
        Ok(gpu_lod.read_back_states(&self.gpu, characters)?)
    }

    /// With LOD on the GPU: the last frame's parameters, the motions' words and the
    /// records, what the pass decided from (the CPU twins' input).
    pub fn gpu_lod_inputs(&self) -> Option<(LodFrame, Vec<u32>, Vec<Record>)> {
        let frame = self.sim.gpu_lod.as_ref()?.last_frame()?;
        let records = self.sim.animator.as_ref()?.records_held().to_vec();
        Some((frame, self.sim.lod_motions.words().to_vec(), records))
    }

    /// Has the animation on the GPU put its palettes into buffers of at most `characters`,
    /// and `gpu_compute` skin ranges of at most `skin_instances`, as a device with small
    /// binding limits would (see [`crate::gpu::CrowdRenderer::limit_palette_ranges`] and
    /// [`crate::gpu::CrowdRenderer::limit_gpu_ranges`]).
    pub fn limit_palette_buffers(
        &mut self,
        characters: Option<usize>,
        skin_instances: Option<usize>,
    ) {
        self.renderer.limit_palette_ranges(characters);
        self.renderer.limit_gpu_ranges(skin_instances);
    }

    /// Has the animation on the GPU split its characters into ranges of at most
    /// `characters`, as a device with small binding limits would (see
    /// [`GpuAnimator::limit_ranges`]), the ranges taking turns in at most `pose_slots`
    /// pose slots as a crowd past [`crate::crowd::budget::GPU_POSE_SLOTS_BYTES`] would
    /// ([`GpuAnimator::limit_pose_slots`]); kept until the animation's passes are made
    /// again (another rig or skinning method, or the animation back on the CPU).
    pub fn limit_animation_ranges(&mut self, characters: Option<usize>, pose_slots: Option<usize>) {
        let (device, rig) = (&self.gpu.device, self.sim.pipeline.rig());
        let method = self.sim.pipeline.config().method;
        let animator = self
            .sim
            .animator
            .get_or_insert_with(|| GpuAnimator::new(device, rig, method));
        animator.limit_ranges(characters);
        animator.limit_pose_slots(pose_slots);
    }

    /// With LOD on the GPU: the characters the animation's passes computed in the last
    /// frame, read back from the lists they dispatched over (ascending; blocks until the GPU
    /// is done). The CPU twin is the LOD pass's decision: the characters it made due.
    pub fn gpu_due_characters(&self) -> Result<Vec<u32>, SceneError> {
        Ok(self
            .gpu_due_lists()?
            .into_iter()
            .flat_map(|list| list.characters)
            .collect())
    }

    /// With LOD on the GPU: each range's list of due characters and its depth levels'
    /// dispatch arguments, as the last frame left them (blocks until the GPU is done).
    pub fn gpu_due_lists(&self) -> Result<Vec<DueList>, SceneError> {
        let Some(animator) = &self.sim.animator else {
            return Err(SceneError::NotAnimated);
        };
        Ok(animator.read_back_due_lists(&self.gpu)?)
    }

    /// With LOD on the GPU: the counts of the last frame, read back (blocks until the GPU
    /// is done; the panel's come back without waiting, a frame or two later).
    pub fn gpu_lod_counts(&self) -> Result<LodStats, SceneError> {
        let Some(gpu_lod) = &self.sim.gpu_lod else {
            return Err(SceneError::NotAnimated);
        };
        Ok(gpu_lod.read_back_stats(&self.gpu)?)
    }

    /// The LOD counts the panel shows: the CPU plan's, or the GPU pass's latest.
    pub fn lod_stats(&self) -> LodStats {
        match (self.sim.animated_on, &self.sim.gpu_lod) {
            (AnimateDevice::Gpu, Some(gpu_lod)) => gpu_lod.stats(),
            _ => self.sim.lod.stats(),
        }
    }

    /// The animation clock's reading now (clip-seconds a character of speed 1 advanced).
    pub fn anim_clock_secs(&self) -> f32 {
        self.sim.anim_clock_secs
    }
}
