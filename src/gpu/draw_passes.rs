//! The frame's draw passes: the sun's shadow pass and the crowd pass into the offscreen
//! targets.
//!
//! How it works: the shadow pass draws the characters (every one: a character outside the
//! view may cast a shadow into it) into the sun's depth map; the crowd pass clears the
//! offscreen colour and depth, draws the ground and the visible characters sampling that
//! map. The window then draws its panel on top and copies the frame to the swapchain
//! ([`super::blit`]).

use super::pass::{
    Access, FrameResource, GpuPassSpec, PassContext, PassKind, PassRuns, always, when,
};
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

/// What both draw passes read: the vertices a CPU variant or `gpu_compute` skinned, the
/// palettes `gpu_vertex` skins with, and with the GPU's LOD the draws it wrote per level.
const DRAW_READS: &[Access] = &[
    when(PassRuns::CpuSkinning, FrameResource::SkinnedVertices),
    when(PassRuns::ComputeSkinning, FrameResource::SkinnedVertices),
    when(PassRuns::VertexSkinning, FrameResource::Palettes),
    when(PassRuns::GpuLod, FrameResource::LevelDraws),
];

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
    reads: DRAW_READS,
    writes: &[always(FrameResource::ShadowMap)],
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
    reads: &[
        DRAW_READS[0],
        DRAW_READS[1],
        DRAW_READS[2],
        DRAW_READS[3],
        when(PassRuns::Shadows, FrameResource::ShadowMap),
    ],
    writes: &[always(FrameResource::Frame)],
    shader: Shader::Crowd,
    shares: CROWD_SHARES,
};

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
    let depth = wgpu::RenderPassDepthStencilAttachment {
        view: renderer.shadow_view(),
        depth_ops: Some(wgpu::Operations {
            load: wgpu::LoadOp::Clear(1.0),
            store: wgpu::StoreOp::Store,
        }),
        stencil_ops: None,
    };
    ctx.render(&SHADOW_PASS, &[], Some(depth), |pass| {
        renderer.draw_shadow(pass, shape.layout, shape.characters);
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
    let color = wgpu::RenderPassColorAttachment {
        view: &targets.color_view,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations {
            load: wgpu::LoadOp::Clear(CLEAR_COLOR),
            store: wgpu::StoreOp::Store,
        },
    };
    let depth = wgpu::RenderPassDepthStencilAttachment {
        view: &targets.depth_view,
        depth_ops: Some(wgpu::Operations {
            load: wgpu::LoadOp::Clear(1.0),
            store: wgpu::StoreOp::Discard,
        }),
        stencil_ops: None,
    };
    ctx.render(&RENDER_PASS, &[Some(color)], Some(depth), |pass| {
        if let Some([x, y, w, h]) = viewport {
            pass.set_viewport(x, y, w, h, 0.0, 1.0);
        }
        renderer.draw(pass, shape.layout, shape.characters);
    });
}
