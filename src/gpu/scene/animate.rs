//! The scene's frames with the animation on the GPU (`--animate gpu`): switching to and
//! from it, a frame's records and passes, and its verify.
//!
//! How it works: while the GPU animates, the crowd's times stay as they were written and
//! the scene's animation clock advances; [`GpuAnimator`] writes the records that changed
//! and records its passes into the palettes the skin variant reads, then `gpu_compute`'s
//! skinning pass runs as with the CPU's palettes.

use std::time::Instant;

use super::{Scene, SceneError, VERIFY_INSTANCES};
use crate::crowd::trace::Track;
use crate::crowd::verify::{FrameDeviation, verified_indices, verify_gpu_animation};
use crate::crowd::{AnimateDevice, Stage, StageTimings};
use crate::gpu::animate::GpuAnimator;
use crate::gpu::timers::COMPUTE_PASS;
use crate::variant::Variant;

impl Scene {
    /// Where the animation runs: `gpu` needs a GPU skin variant (the passes write the
    /// palettes it reads) and runs without update-rate LOD; a switch hands the crowd's
    /// times from one device to the other.
    pub(super) fn apply_animate_setting(&mut self) {
        if self.settings.animate == AnimateDevice::Gpu {
            if self.settings.pipeline.skin.skins_on_cpu() {
                self.notes.push(format!(
                    "the animation runs on the GPU with a GPU skin variant only (gpu_compute, \
                     gpu_vertex); {} skins on the CPU, so the CPU animates",
                    self.settings.pipeline.skin.name()
                ));
                self.settings.animate = AnimateDevice::Cpu;
            } else if self.settings.lod.enabled {
                self.notes.push(
                    "update-rate LOD runs with the animation on the CPU: LOD is off while the \
                     GPU animates"
                        .into(),
                );
                self.settings.lod.enabled = false;
            }
        }
        if self.settings.animate == self.animated_on {
            return;
        }
        match self.settings.animate {
            AnimateDevice::Gpu => {
                if let Some(animator) = &mut self.animator {
                    animator.forget_records();
                }
            }
            AnimateDevice::Cpu => {
                // The crowd's times as the GPU last animated them.
                if let Some(animator) = &self.animator {
                    let now = animator.crowd_at(self.anim_clock_secs);
                    for (c, g) in self.crowd.as_mut_slice().iter_mut().zip(&now) {
                        c.time_secs = g.time_secs;
                    }
                }
            }
        }
        self.animated_on = self.settings.animate;
        self.lod.invalidate();
        self.history.clear();
        self.requests.last_verify = None;
    }

    /// The frame animated on the GPU: the changed characters' records written, the
    /// animation's passes and `gpu_compute`'s skinning recorded (each timed). The CPU's
    /// part is the writing ("upload"); no CPU stage runs.
    pub(super) fn animate_on_gpu(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<StageTimings, SceneError> {
        profiling::scope!("animate on the GPU");
        let n = self.crowd.len();
        let layout = *self.pipeline.output_layout();
        let (device, queue) = (&self.gpu.device, &self.gpu.queue);
        self.renderer.ensure_skinned_capacity(device, &layout, n);
        let rig = self.pipeline.rig();
        let animator = self
            .animator
            .get_or_insert_with(|| GpuAnimator::new(device, rig));
        let start = Instant::now();
        animator.write_characters(device, queue, self.crowd.as_slice(), self.anim_clock_secs);
        let upload_us = start.elapsed().as_secs_f64() * 1e6;
        if let Some(trace) = &self.trace {
            trace.record(Track::Thread(0), "upload", start, start.elapsed());
        }
        let config = *self.pipeline.config();
        animator.record(
            device,
            queue,
            encoder,
            self.renderer.skinned(),
            &layout,
            n,
            self.anim_clock_secs,
            config.blend_weight,
            self.settings.gpu_hierarchy,
            Some(&self.timers),
        )?;
        let compute = config
            .skin
            .spec()
            .runs_on
            .has_compute_pass()
            .then(|| self.timers.pass(COMPUTE_PASS, encoder));
        let skinned = self.renderer.record_gpu_skinning(
            device,
            queue,
            encoder,
            rig,
            &layout,
            n,
            compute
                .as_ref()
                .and_then(|q| q.compute_pass_timestamp_writes()),
        );
        if let Some(query) = compute {
            self.timers.end(encoder, query);
        }
        skinned?;
        let mut stage_us = [0.0; 7];
        stage_us[Stage::Upload.index()] = upload_us;
        Ok(StageTimings {
            stage_us,
            threads: config.threads,
            instances: n,
            ..StageTimings::default()
        })
    }

    /// Verify of a frame the GPU animated: the GPU's local poses and model matrices of the
    /// compared characters read back against the oracles, then `out` (what was skinned,
    /// or `gpu_vertex`'s palettes) as for the CPU's animation.
    pub(super) fn verify_animated_on_gpu(&self, out: &[u8]) -> Result<FrameDeviation, SceneError> {
        let Some(animator) = &self.animator else {
            return Err(SceneError::NotAnimated);
        };
        let crowd = animator.crowd_at(self.anim_clock_secs);
        let indices = verified_indices(crowd.len(), VERIFY_INSTANCES);
        let (locals, models) =
            animator.read_back_characters(&self.gpu.device, &self.gpu.queue, &indices)?;
        Ok(verify_gpu_animation(
            &self.pipeline,
            &crowd,
            &indices,
            &locals,
            &models,
            out,
        )?)
    }
}
