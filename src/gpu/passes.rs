//! The frame's passes: the sun's shadow pass and the crowd pass into the offscreen targets,
//! and the blit that copies the offscreen frame to the window's swapchain.
//!
//! How it works: the shadow pass draws the characters (every one: a character outside the
//! view may cast a shadow into it) into the sun's depth map; the crowd pass clears the
//! offscreen colour and depth, draws the ground and the visible characters sampling that
//! map; the window then draws its panel on top and copies the frame to the swapchain with a
//! full-screen triangle, so a screenshot can read the offscreen texture back even where
//! the surface does not allow copies.

use super::renderer::CrowdRenderer;
use super::shape::FrameShape;
use super::targets::FrameTargets;

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

/// Records the sun's shadow pass (when the renderer has shadows on: the characters into
/// its depth map) and the crowd pass (ground and characters) into `targets`, with the
/// draws [`CrowdRenderer::prepare_draws`] listed: the crowd pass only the visible
/// characters, the shadow pass every one (a character outside the view may cast a shadow
/// into it).
pub fn crowd_pass(
    encoder: &mut wgpu::CommandEncoder,
    targets: &FrameTargets,
    renderer: &CrowdRenderer,
    shape: FrameShape<'_>,
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
        renderer.draw_shadow(&mut pass, shape.layout, shape.characters);
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
    renderer.draw(&mut pass, shape.layout, shape.characters);
}
