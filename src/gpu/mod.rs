//! gpu: everything that touches wgpu — context, crowd renderer, upload variants, compute
//! skinning (`gpu_compute`), the shadow pass, the blit to the window, screenshots, the
//! offscreen render used by tests and the `gpu` bench workload.
//!
//! How it works: a frame is the upload (vertices, or a GPU variant's palettes), then
//! `gpu_compute`'s skinning pass, the sun's shadow pass (characters only, into a depth
//! map) and the crowd pass, rendered into an offscreen texture (the egui panel on top)
//! and copied to the swapchain by a full-screen triangle; a screenshot reads that
//! offscreen texture back, so it works even where the surface does not allow copies.

pub mod bench;
pub mod context;
pub mod crowd_bench;
pub mod draws;
pub mod renderer;
pub mod skin;
pub mod upload;

use std::path::Path;
use std::sync::Arc;

use crate::crowd::{InstanceStore, Pipeline, PipelineConfig};
use crate::prepare::PreparedRig;
use crate::skin::OutputLayout;

pub use context::{AdapterSummary, GpuContext, GpuError};
pub use renderer::{CameraStart, CrowdRenderer, FrameTargets, OrbitCamera};
pub use upload::{UploadVariant, Uploader};

/// Copies the offscreen frame to the swapchain texture.
pub struct Blit {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
}

impl Blit {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("blit.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("../../shaders/blit.wgsl").into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("blit"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("blit"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("blit"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        Blit { pipeline, layout }
    }

    /// The bind group for a source frame (made once per frame texture, not per frame).
    pub fn bind(&self, device: &wgpu::Device, source: &wgpu::TextureView) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("blit"),
            layout: &self.layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(source),
            }],
        })
    }

    pub fn draw(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bind_group: &wgpu::BindGroup,
        target: &wgpu::TextureView,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("blit"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            ..Default::default()
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        pass.draw(0..3, 0..1);
    }
}

/// Background colour of the 3D view (a dusk sky).
pub const CLEAR_COLOR: wgpu::Color = wgpu::Color {
    r: 0.09,
    g: 0.11,
    b: 0.15,
    a: 1.0,
};

/// Records the sun's shadow pass (when the renderer has shadows on: the characters into
/// its depth map) and the crowd pass (ground and characters) into `targets`, with the
/// draws [`CrowdRenderer::prepare_draws`] listed: the crowd pass only the visible
/// characters, the shadow pass every one (a character outside the view may cast a shadow
/// into it).
#[allow(clippy::too_many_arguments)]
pub fn crowd_pass(
    encoder: &mut wgpu::CommandEncoder,
    targets: &FrameTargets,
    renderer: &CrowdRenderer,
    layout: &OutputLayout,
    instances: usize,
    viewport: Option<[f32; 4]>,
    timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
    shadow_timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
) {
    if renderer.shadows() {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: renderer.shadow_view(),
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: shadow_timestamp_writes,
            ..Default::default()
        });
        renderer.draw_shadow(&mut pass, layout, instances);
    }
    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("crowd"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: &targets.color_view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(CLEAR_COLOR),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: &targets.depth_view,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(1.0),
                store: wgpu::StoreOp::Discard,
            }),
            stencil_ops: None,
        }),
        timestamp_writes,
        ..Default::default()
    });
    if let Some([x, y, w, h]) = viewport {
        pass.set_viewport(x, y, w, h, 0.0, 1.0);
    }
    renderer.draw(&mut pass, layout, instances);
}

/// Renders `instances` of `rig` offscreen (no window, no panel) and reads the image back:
/// the same pipeline, upload and renderer the app uses. For tests and headless use.
#[allow(clippy::too_many_arguments)]
pub fn render_offscreen(
    gpu: &GpuContext,
    rig: Arc<PreparedRig>,
    crowd: &InstanceStore,
    config: PipelineConfig,
    upload: UploadVariant,
    camera: &OrbitCamera,
    size: (u32, u32),
    shadows: bool,
) -> Result<image::RgbaImage, String> {
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut renderer = CrowdRenderer::new(&gpu.device, &rig, format);
    renderer.set_shadows(shadows);
    let mut pipeline = Pipeline::new(rig, config).map_err(|e| e.to_string())?;
    let mut uploader = Uploader::new(&gpu.device);
    let targets = FrameTargets::new(&gpu.device, format, size.0, size.1);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    uploader
        .frame(
            upload,
            &gpu.device,
            &gpu.queue,
            &mut encoder,
            &mut renderer,
            &mut pipeline,
            crowd.as_slice(),
        )
        .map_err(|e| e.to_string())?;
    let aspect = size.0 as f32 / size.1.max(1) as f32;
    let extent = crowd_extent(crowd);
    renderer.update(
        &gpu.device,
        &gpu.queue,
        &camera.uniform(aspect, extent + 10.0),
        crowd.as_slice(),
    );
    renderer.prepare_draws(
        &gpu.queue,
        &gpu.device,
        pipeline.output_layout(),
        crowd.len(),
        None,
    );
    crowd_pass(
        &mut encoder,
        &targets,
        &renderer,
        pipeline.output_layout(),
        crowd.len(),
        None,
        None,
        None,
    );
    gpu.queue.submit([encoder.finish()]);
    uploader.after_submit();
    renderer::read_texture(&gpu.device, &gpu.queue, &targets.color)
}

/// Half the side of the square the crowd stands on, metres.
pub fn crowd_extent(crowd: &InstanceStore) -> f32 {
    crowd
        .as_slice()
        .iter()
        .map(|i| i.ground_position[0].abs().max(i.ground_position[1].abs()))
        .fold(1.0, f32::max)
}

/// Writes an image as PNG, creating the folder.
pub fn save_png(image: &image::RgbaImage, path: &Path) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    image
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Reads the first `bytes` of a buffer (made with `COPY_SRC`) back to the CPU. Blocks
/// until the GPU is done with everything submitted before.
pub fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    bytes: u64,
) -> Result<Vec<u8>, String> {
    let size = bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
    if size > buffer.size() {
        return Err(format!(
            "cannot read {bytes} bytes back from a buffer of {}",
            buffer.size()
        ));
    }
    if size == 0 {
        return Ok(Vec::new());
    }
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("buffer readback"),
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &readback, 0, size);
    queue.submit([encoder.finish()]);
    let data = map_for_reading(device, &readback)?;
    let out = data[..bytes as usize].to_vec();
    drop(data);
    readback.unmap();
    Ok(out)
}

/// Maps a `MAP_READ` buffer whose copy was submitted, waiting for the GPU.
pub(crate) fn map_for_reading(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
) -> Result<wgpu::BufferView, String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        let _ = sender.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| format!("waiting for the GPU: {e}"))?;
    receiver
        .recv()
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("mapping the readback buffer: {e}"))?;
    buffer
        .slice(..)
        .get_mapped_range()
        .map_err(|e| format!("reading the readback buffer: {e}"))
}
