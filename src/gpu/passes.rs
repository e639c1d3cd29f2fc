//! The frame's draw passes: the sun's shadow pass and the crowd pass into the offscreen
//! targets, and the blit that copies the offscreen frame to the window's swapchain.
//!
//! How it works: the shadow pass draws the characters (every one: a character outside the
//! view may cast a shadow into it) into the sun's depth map; the crowd pass clears the
//! offscreen colour and depth, draws the ground and the visible characters sampling that
//! map; the window then draws its panel on top and copies the frame to the swapchain with a
//! full-screen triangle, so a screenshot can read the offscreen texture back even where
//! the surface does not allow copies.

use super::pass::{GpuPassSpec, PassContext, PassKind, PassRuns};
use super::renderer::CrowdRenderer;
use super::shaders::Shader;
use super::targets::FrameTargets;

/// The structs both draw passes share with crowd.wgsl.
const CROWD_SHARES: &[crate::contract::StructLayout] = {
    use super::renderer::{ChunkGpu, InstanceGpu, MaterialGpu, MaterialParamsGpu, SkinParamsGpu};
    use crate::contract::GpuStruct;
    &[
        super::camera::CameraUniform::LAYOUT,
        InstanceGpu::LAYOUT,
        ChunkGpu::LAYOUT,
        SkinParamsGpu::LAYOUT,
        MaterialParamsGpu::LAYOUT,
        MaterialGpu::LAYOUT,
    ]
};

/// The sun's shadow pass, as the frame's pass list, the timers, the panel and the
/// contracts see it.
pub const SHADOW_PASS: GpuPassSpec = GpuPassSpec {
    name: "shadow",
    description: "the crowd drawn again into the sun's depth map",
    label: "shadow",
    row: "GPU shadow",
    key: "gpu_shadow",
    runs: PassRuns::Shadows,
    kind: PassKind::Draw,
    shader: Shader::Crowd,
    shares: CROWD_SHARES,
};

/// The crowd pass, likewise.
pub const RENDER_PASS: GpuPassSpec = GpuPassSpec {
    name: "render",
    description: "the crowd pass: the characters and the ground, lit",
    label: "render",
    row: "GPU render",
    key: "gpu_render",
    runs: PassRuns::Always,
    kind: PassKind::Draw,
    shader: Shader::Crowd,
    shares: CROWD_SHARES,
};

/// Copies the offscreen frame to the swapchain texture.
pub struct Blit {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
}

impl Blit {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let shader = super::shaders::create(device, super::shaders::Shader::Blit);
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

/// Records the sun's shadow pass (every character, with the draws
/// [`CrowdRenderer::prepare_draws`] listed: a character outside the view may cast a shadow
/// into it) into the renderer's depth map, timed; nothing where the renderer has shadows
/// off.
pub fn shadow_pass(ctx: &mut PassContext<'_>, renderer: &CrowdRenderer) {
    if !renderer.shadows() {
        return;
    }
    let shape = ctx.shape;
    ctx.timed(&SHADOW_PASS, |_, encoder, query| {
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
            timestamp_writes: query.and_then(|q| q.render_pass_timestamp_writes()),
            ..Default::default()
        });
        renderer.draw_shadow(&mut pass, shape.layout, shape.characters);
    });
}

/// Records the crowd pass (the ground and the visible characters, lit, sampling the
/// shadow pass's map) into `targets`, within `viewport` (x, y, w, h; all of the target
/// where `None`), timed.
pub fn crowd_pass(
    ctx: &mut PassContext<'_>,
    targets: &FrameTargets,
    renderer: &CrowdRenderer,
    viewport: Option<[f32; 4]>,
) {
    let shape = ctx.shape;
    ctx.timed(&RENDER_PASS, |_, encoder, query| {
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
            timestamp_writes: query.and_then(|q| q.render_pass_timestamp_writes()),
            ..Default::default()
        });
        if let Some([x, y, w, h]) = viewport {
            pass.set_viewport(x, y, w, h, 0.0, 1.0);
        }
        renderer.draw(&mut pass, shape.layout, shape.characters);
    });
}
