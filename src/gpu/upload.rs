//! upload: the skinned stream → the GPU vertex buffer, three ways.
//!
//! How it works:
//! - `write_buffer`: the workers skin into a CPU buffer, then `queue.write_buffer` copies
//!   it into wgpu's staging memory (one extra pass over every byte).
//! - `in_place`: `queue.write_buffer_with` hands out the staging memory first and the
//!   workers skin straight into it: no CPU-side copy at all. The mapping is write-only
//!   (possibly uninitialized, write-combined), which is why the pipeline writes through a
//!   [`Dest`] and never reads it.
//! - `staging_belt`: like `in_place`, but into chunks of a `StagingBelt` that are recalled
//!   and reused frame after frame instead of a fresh staging buffer each time.
//!
//! The upload stage's time is what each variant spends outside the skinning kernels: the
//! copy for `write_buffer`, acquiring and releasing the mapping for the other two.

use std::num::NonZeroU64;
use std::time::Instant;

use crate::crowd::{FrameError, Instance, Pipeline, Stage, StageTimings};
use crate::skin::{BufferError, Dest, OutputBuffer};
use crate::variant::PlainSpec;

use super::renderer::CrowdRenderer;

crate::declare_variants! {
    /// How the skinned stream reaches the GPU buffer.
    pub enum UploadVariant: PlainSpec in "upload" {
        WriteBuffer => PlainSpec {
            name: "write_buffer",
            description: "skin into a CPU buffer, then queue.write_buffer copies it",
        },
        InPlace => PlainSpec {
            name: "in_place",
            description: "skin straight into queue.write_buffer_with staging memory (no extra copy)",
        },
        StagingBelt => PlainSpec {
            name: "staging_belt",
            description: "skin straight into reused StagingBelt chunks",
        },
    }
}

impl UploadVariant {
    /// The app's default: no CPU-side copy.
    pub const DEFAULT: Self = Self::InPlace;
}

/// Owns what the upload variants keep between frames.
pub struct Uploader {
    cpu: OutputBuffer,
    belt: wgpu::util::StagingBelt,
    belt_chunk: u64,
    /// Set when a variant had to fall back this frame (shown in the panel).
    pub note: Option<String>,
}

impl Uploader {
    pub fn new(device: &wgpu::Device) -> Self {
        Uploader {
            cpu: OutputBuffer::default(),
            belt: wgpu::util::StagingBelt::new(device.clone(), 1 << 20),
            belt_chunk: 1 << 20,
            note: None,
        }
    }

    /// Runs the CPU pipeline for `instances` and gets the skinned stream (for a variant
    /// that skins on the GPU: the palettes, then the compute pass that skins them) into the
    /// renderer's buffers with `variant`. Copies recorded into `encoder` (staging belt)
    /// must be submitted before [`Self::after_submit`].
    #[allow(clippy::too_many_arguments)]
    pub fn frame(
        &mut self,
        variant: UploadVariant,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &mut CrowdRenderer,
        pipeline: &mut Pipeline,
        instances: &[Instance],
    ) -> Result<StageTimings, FrameError> {
        self.frame_timed(
            variant, device, queue, encoder, renderer, pipeline, instances, None,
        )
    }

    /// As [`Self::frame`], with timestamps written around `gpu_compute`'s compute pass.
    #[allow(clippy::too_many_arguments)]
    pub fn frame_timed(
        &mut self,
        variant: UploadVariant,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &mut CrowdRenderer,
        pipeline: &mut Pipeline,
        instances: &[Instance],
        compute_timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<StageTimings, FrameError> {
        let timings = self.upload_frame(
            variant, device, queue, encoder, renderer, pipeline, instances,
        )?;
        // A GPU-skinning variant uploaded palettes: its compute pass goes after the upload
        // and before every draw pass.
        renderer
            .record_gpu_skinning(
                device,
                queue,
                encoder,
                pipeline.rig(),
                pipeline.output_layout(),
                instances.len(),
                compute_timestamps,
            )
            .map_err(FrameError::Gpu)?;
        Ok(timings)
    }

    #[allow(clippy::too_many_arguments)]
    fn upload_frame(
        &mut self,
        variant: UploadVariant,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &mut CrowdRenderer,
        pipeline: &mut Pipeline,
        instances: &[Instance],
    ) -> Result<StageTimings, FrameError> {
        self.note = None;
        self.release_unused(variant, device);
        let bytes = pipeline.output_bytes(instances.len()) as u64;
        renderer.ensure_skinned_capacity(device, pipeline.output_layout(), instances.len());
        let Some(size) = NonZeroU64::new(bytes) else {
            return pipeline.run_frame_until(instances, &mut [], Stage::Skin);
        };
        let upload = Stage::Upload.index();
        match variant {
            UploadVariant::WriteBuffer => {
                self.cpu.resize(bytes as usize);
                let mut timings = pipeline.run_frame(instances, &mut self.cpu)?;
                let start = Instant::now();
                queue.write_buffer(renderer.skinned(), 0, self.cpu.as_bytes());
                timings.stage_us[upload] = start.elapsed().as_secs_f64() * 1e6;
                Ok(timings)
            }
            UploadVariant::InPlace => {
                let start = Instant::now();
                let Some(mut view) = queue.write_buffer_with(renderer.skinned(), 0, size) else {
                    self.note =
                        Some("write_buffer_with refused the write; used write_buffer".into());
                    return self.upload_frame(
                        UploadVariant::WriteBuffer,
                        device,
                        queue,
                        encoder,
                        renderer,
                        pipeline,
                        instances,
                    );
                };
                let acquire = start.elapsed();
                let mut timings =
                    Self::skin_into_mapping(pipeline, instances, view.slice(..), &mut self.note)?;
                let release = Instant::now();
                drop(view);
                timings.stage_us[upload] = (acquire + release.elapsed()).as_secs_f64() * 1e6;
                Ok(timings)
            }
            UploadVariant::StagingBelt => {
                let start = Instant::now();
                let shrunk = bytes.saturating_mul(4) < self.belt_chunk && self.belt_chunk > 1 << 20;
                if bytes > self.belt_chunk || shrunk {
                    // One chunk per frame's worth: the belt reuses it once recalled. A new
                    // belt when the frame outgrows the chunk, or needs under a quarter of it
                    // (the old belt's chunks are freed with it).
                    self.belt_chunk = bytes.next_power_of_two().max(1 << 20);
                    self.belt = wgpu::util::StagingBelt::new(device.clone(), self.belt_chunk);
                }
                let slice = self
                    .belt
                    .allocate(size, NonZeroU64::new(256).expect("non-zero"));
                encoder.copy_buffer_to_buffer(
                    slice.buffer(),
                    slice.offset(),
                    renderer.skinned(),
                    0,
                    bytes,
                );
                let mut view = slice
                    .get_mapped_range_mut()
                    .map_err(|e| FrameError::Pool(format!("staging belt: {e}")))?;
                let acquire = start.elapsed();
                let mut timings =
                    Self::skin_into_mapping(pipeline, instances, view.slice(..), &mut self.note)?;
                let release = Instant::now();
                drop(view);
                self.belt.finish();
                timings.stage_us[upload] = (acquire + release.elapsed()).as_secs_f64() * 1e6;
                Ok(timings)
            }
        }
    }

    /// Frees the memory of the variants not in use: the CPU copy of `write_buffer` and the
    /// staging belt's chunks each hold a whole frame's skinned stream (a gigabyte for
    /// 10,000 large characters), which would otherwise stay after switching away.
    fn release_unused(&mut self, variant: UploadVariant, device: &wgpu::Device) {
        match variant {
            UploadVariant::WriteBuffer => {}
            UploadVariant::InPlace | UploadVariant::StagingBelt => {
                if !self.cpu.is_empty() {
                    self.cpu = OutputBuffer::default();
                }
            }
        }
        match variant {
            UploadVariant::StagingBelt => {}
            UploadVariant::WriteBuffer | UploadVariant::InPlace => {
                if self.belt_chunk > 1 << 20 {
                    self.belt_chunk = 1 << 20;
                    self.belt = wgpu::util::StagingBelt::new(device.clone(), self.belt_chunk);
                }
            }
        }
    }

    /// Skins straight into mapped staging memory.
    fn skin_into_mapping(
        pipeline: &mut Pipeline,
        instances: &[Instance],
        mut mapping: wgpu::WriteOnly<'_, [u8]>,
        note: &mut Option<String>,
    ) -> Result<StageTimings, FrameError> {
        let len = mapping.len();
        let ptr = mapping.as_raw_element_ptr();
        // SAFETY: `mapping` is an exclusive view of `len` mapped bytes, borrowed for this
        // whole call, so the memory stays mapped and untouched by anything else while the
        // `Dest` exists; the pipeline only writes through it, never reads, as mapped
        // (possibly uninitialized, write-combined) memory requires.
        let dest = unsafe { Dest::from_raw(ptr, len) };
        let result = pipeline.run_frame_into(instances, dest, Stage::Skin);
        if let Err(FrameError::Output(BufferError::Misaligned { align })) = result {
            *note = Some(format!(
                "the mapped staging memory is not {align}-byte aligned"
            ));
        }
        result
    }

    /// Call after the frame's command buffers were submitted.
    pub fn after_submit(&mut self) {
        self.belt.recall();
    }
}
