//! The crowd renderer: long-lived pipelines and static buffers, separate from per-frame
//! data (the `re_renderer` split).
//!
//! How it works: one named pipeline per [`DrawPath`] (interleaved float3, split float3,
//! float4, packed, packed lane blocks, pulled lane blocks, `gpu_compute`'s output, and
//! `gpu_vertex`, which skins in the vertex shader), all from `crowd.wgsl`, and each again
//! as a depth-only shadow pipeline (the same vertex shader, the sun's projection chosen by
//! an override constant) that draws the characters into the sun's shadow map. The
//! frame's [`OutputLayout`] says which one draws it and where each instance's vertices
//! are; the renderer works nothing out again. Vertex slot 0 is an instance's part of the
//! one dynamic skinned buffer (for `Pulled`, each vertex's distinct index, the blocks
//! being read from a storage binding moved per group); slot 1 is the static uv stream,
//! uploaded once in file order and once in influence-sorted order (the interleaved path
//! reads its uv from slot 0). Each instance is one draw: `instance_index` picks its
//! transform and material colour from a storage buffer. The skinned buffer grows (by a
//! quarter more than needed) or shrinks (when four times too big) by being recreated; the
//! next frame fills it, so a resize costs no stall.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};
use wgpu::util::DeviceExt;

use super::skin::{ComputeShader, GpuSkinner};
use crate::crowd::Instance;
use crate::crowd::lod::LodView;
use crate::prepare::PreparedRig;
use crate::skin::{DrawPath, OutputFormat, OutputLayout, VertexOrder};
use crate::types::{LANES, VertexPacked, block_slot};
use crate::variant::PlainSpec;

pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The three instance materials.
pub const MATERIAL_COLORS: [[f32; 3]; 3] =
    [[0.86, 0.42, 0.30], [0.30, 0.55, 0.86], [0.45, 0.78, 0.38]];

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct CameraUniform {
    pub view_proj: Mat4,
    /// The sun's view-projection (world → shadow-map clip space).
    pub light_view_proj: Mat4,
    pub eye: Vec4,
    pub light_dir: Vec4,
    pub ground: Vec4,
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct InstanceGpu {
    world_from_model: Mat4,
    color: Vec4,
}

const _: () = {
    assert!(std::mem::size_of::<CameraUniform>() == 176);
    assert!(std::mem::size_of::<InstanceGpu>() == 80);
};

crate::declare_variants! {
    /// Where the camera starts (`--camera`), and the bench's `crowd` workload's views.
    pub enum CameraStart: PlainSpec in "camera" {
        Overview => PlainSpec {
            name: "overview",
            description: "frames the whole crowd from above",
        },
        Street => PlainSpec {
            name: "street",
            description: "at the crowd's corner at eye height, looking across it to its centre",
        },
    }
}

/// An orbit camera around a target point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    pub target: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
}

impl OrbitCamera {
    /// A view that frames a crowd spread over `extent` metres.
    pub fn framing(extent: f32) -> Self {
        OrbitCamera {
            target: Vec3::new(0.0, 0.9, 0.0),
            yaw: 0.55,
            pitch: 0.42,
            distance: (extent * 1.9 + 5.0).max(5.0),
        }
    }

    /// The view `start` names over a crowd spread over `extent` metres.
    pub fn start(start: CameraStart, extent: f32) -> Self {
        match start {
            CameraStart::Overview => Self::framing(extent),
            CameraStart::Street => {
                let target = Vec3::new(0.0, 1.0, 0.0);
                // Three metres beyond the corner character, 1.7 m up (0.7 m above the
                // target): nearer, the eye stood inside that character's head.
                let distance = (extent * std::f32::consts::SQRT_2 + 3.0).max(3.0);
                OrbitCamera {
                    target,
                    yaw: std::f32::consts::FRAC_PI_4,
                    pitch: (0.7 / distance).asin(),
                    distance,
                }
            }
        }
    }

    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + Vec3::new(sy * cp, sp, cy * cp) * self.distance
    }

    /// Vertical field of view, radians.
    pub const FOV_Y_RAD: f32 = 40f32.to_radians();
    pub const NEAR: f32 = 0.1;

    fn view_and_far(&self, ground_extent: f32) -> (Mat4, f32) {
        let view = Mat4::look_at_rh(self.eye(), self.target, Vec3::Y);
        let far = (self.distance * 4.0 + ground_extent * 2.0).max(100.0);
        (view, far)
    }

    /// The same view as [`Self::uniform`], for LOD's culling and error bound, drawn into
    /// `viewport_px` pixels.
    pub fn lod_view(&self, viewport_px: glam::Vec2, ground_extent: f32) -> LodView {
        let (view, far) = self.view_and_far(ground_extent);
        LodView::new(view, Self::FOV_Y_RAD, Self::NEAR, far, viewport_px)
    }

    pub fn uniform(&self, aspect: f32, ground_extent: f32) -> CameraUniform {
        let eye = self.eye();
        let (view, far) = self.view_and_far(ground_extent);
        let proj = Mat4::perspective_rh(Self::FOV_Y_RAD, aspect.max(0.01), Self::NEAR, far);
        let light_dir = Vec3::new(-0.4, -1.0, -0.55).normalize();
        CameraUniform {
            view_proj: proj * view,
            light_view_proj: light_view_proj(light_dir, ground_extent),
            eye: eye.extend(1.0),
            light_dir: light_dir.extend(0.0),
            // y: shadows, set by the renderer.
            ground: Vec4::new(ground_extent, 0.0, 0.0, 0.0),
        }
    }

    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(0.05, 1.5);
    }

    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * (1.0 - 0.1 * steps)).clamp(1.0, 2000.0);
    }
}

/// The sun's view and orthographic projection over the ground (half-extent `extent`
/// metres, characters up to a few metres tall): what the shadow map covers.
pub fn light_view_proj(light_dir: Vec3, extent: f32) -> Mat4 {
    let radius = extent.max(1.0) * std::f32::consts::SQRT_2;
    let target = Vec3::ZERO;
    let eye = target - light_dir * (radius * 2.0);
    let view = Mat4::look_at_rh(eye, target, Vec3::Y);
    Mat4::orthographic_rh(-radius, radius, -radius, radius, 0.1, radius * 4.0) * view
}

/// Side of the sun's square depth map, texels.
pub const SHADOW_MAP_SIZE: u32 = 2048;

/// `model → world` placement of one character: normalized to a 1.8 m height, feet on the
/// ground, centred on its ground position.
pub fn rig_normalization(rig: &PreparedRig) -> Mat4 {
    use crate::anim::hierarchy::reference;
    let model = reference::model_from_joint(&rig.skeleton, &rig.rest_pose);
    let palette = reference::palette(&rig.skeleton, &model);
    let (positions, _) = crate::skin::reference::skin(&rig.source_mesh, &palette);
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
    let scale = 1.8 / height;
    let center = (min + max) * 0.5;
    Mat4::from_scale(Vec3::splat(scale))
        * Mat4::from_translation(Vec3::new(-center.x, -min.y, -center.z))
}

/// The crowd's pipelines and bind group layouts. Nothing in them depends on the rig, so
/// they are built once per device and colour format and every rig's renderer shares them:
/// a rig switch compiles no shader.
#[derive(Clone, PartialEq, Eq)]
pub struct CrowdPipelines {
    /// One pipeline per draw path, in `DrawPath::ALL` order.
    pipelines: [(DrawPath, wgpu::RenderPipeline); 8],
    /// The same vertex shaders into the sun's depth map (no fragment stage).
    shadow_pipelines: [(DrawPath, wgpu::RenderPipeline); 8],
    ground_pipeline: wgpu::RenderPipeline,
    bind_group_layout: wgpu::BindGroupLayout,
    blocks_layout: wgpu::BindGroupLayout,
    palette_layout: wgpu::BindGroupLayout,
    shadow_layout: wgpu::BindGroupLayout,
    pub color_format: wgpu::TextureFormat,
}

pub struct CrowdRenderer {
    pipelines: CrowdPipelines,
    /// One group's lane blocks of the skinned buffer (for `Pulled`) and the group's bytes,
    /// when the buffer is that big.
    blocks_bind_group: Option<(wgpu::BindGroup, u64)>,
    distinct_index: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    camera_buffer: wgpu::Buffer,
    instance_buffer: wgpu::Buffer,
    instance_capacity: usize,
    index_file: wgpu::Buffer,
    index_sorted: wgpu::Buffer,
    index_count: u32,
    uv_file: wgpu::Buffer,
    uv_sorted: wgpu::Buffer,
    skinned: wgpu::Buffer,
    skinned_capacity: u64,
    max_buffer_size: u64,
    world_from_model: Mat4,
    instance_scratch: Vec<InstanceGpu>,
    /// `gpu_compute`'s skinning, made the first time a frame needs it.
    gpu_skinner: Option<GpuSkinner>,
    compute_shader: ComputeShader,
    gpu_range_limit: Option<usize>,
    /// `gpu_vertex`'s static mesh and its uniforms (3×4 palettes, dual quaternions), and
    /// the bind group of one instance's palette in the dynamic buffer with the palette's
    /// bytes and format (made when needed).
    skin_mesh: wgpu::Buffer,
    skin_params: [wgpu::Buffer; 2],
    palette_bind_group: Option<(wgpu::BindGroup, u64, OutputFormat)>,
    /// The sun's depth map (drawn by the shadow pass), and the main passes' bind group
    /// that samples it.
    shadow_view: wgpu::TextureView,
    shadow_bind_group: wgpu::BindGroup,
    shadows: bool,
}

/// Vertex layouts per skinned output format (locations: 0 position, 1 normal, 2 uv).
const INTERLEAVED: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2];
const FLOAT3: [wgpu::VertexAttribute; 2] = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
const FLOAT4: [wgpu::VertexAttribute; 2] = wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4];
const PACKED: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm10_10_10_2];
const UV: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![2 => Float32x2];
const DISTINCT_INDEX: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![3 => Uint32];
const SKIN_MESH: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    0 => Float32x3, 1 => Float32x3, 4 => Uint16x4, 5 => Float32x4, 6 => Uint16x4,
    7 => Float32x4
];

/// `gpu_vertex`'s static mesh, one per vertex in file order (`SKIN_MESH`).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SkinMeshVertex {
    position: [f32; 3],
    normal: [f32; 3],
    /// The first four influences, then the fifth to eighth (weight 0 where unused).
    joints: [u16; 4],
    weights: [f32; 4],
    joints_hi: [u16; 4],
    weights_hi: [f32; 4],
}

/// `SkinParams` in crowd.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SkinParamsGpu {
    normal_offset: u32,
    dual_quat: u32,
    /// The most influences a vertex has: 4 or less skips the second set.
    influences: u32,
    _pad: u32,
}

const _: () = assert!(std::mem::size_of::<SkinMeshVertex>() == 72);

/// The lane-block layout as WGSL constants, from the one Rust definition (`LANES`,
/// [`block_slot`]), prepended to `crowd.wgsl` so the shader never restates it.
fn lane_layout_wgsl() -> String {
    let slots: Vec<String> = (0..LANES).map(|k| format!("{}u", block_slot(k))).collect();
    format!(
        "const LANES: u32 = {LANES}u;\nconst BLOCK_SLOT = array<u32, {LANES}>({});\n",
        slots.join(", ")
    )
}

impl CrowdPipelines {
    pub fn new(device: &wgpu::Device, color_format: wgpu::TextureFormat) -> Self {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("crowd.wgsl"),
            source: wgpu::ShaderSource::Wgsl(
                (lane_layout_wgsl()
                    + include_str!("../../shaders/dual_quat.wgsl")
                    + include_str!("../../shaders/crowd.wgsl"))
                .into(),
            ),
        });
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("crowd"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        // The main passes' fragment shaders read the sun's depth map (group 2); the shadow
        // pass, which writes it, has no group 2.
        let shadow_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shadow map"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                    count: None,
                },
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("crowd"),
            bind_group_layouts: &[Some(&bind_group_layout), None, Some(&shadow_layout)],
            immediate_size: 0,
        });
        let shadow_base_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("crowd shadow"),
            bind_group_layouts: &[Some(&bind_group_layout)],
            immediate_size: 0,
        });
        // `pulled` reads one group's lane blocks from the skinned buffer as storage, at a
        // dynamic offset per group.
        let blocks_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("lane blocks"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: true,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let pulled_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("crowd pulled"),
            bind_group_layouts: &[
                Some(&bind_group_layout),
                Some(&blocks_layout),
                Some(&shadow_layout),
            ],
            immediate_size: 0,
        });
        let pulled_shadow_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("crowd pulled shadow"),
            bind_group_layouts: &[Some(&bind_group_layout), Some(&blocks_layout)],
            immediate_size: 0,
        });
        // `gpu_vertex` reads the instance's palette from the dynamic buffer as storage, at
        // a dynamic offset per draw, and the rig's normal-matrix offset from a uniform.
        let palette_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("palette per instance"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: true,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let gpu_vertex_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("crowd gpu_vertex"),
            bind_group_layouts: &[
                Some(&bind_group_layout),
                Some(&palette_layout),
                Some(&shadow_layout),
            ],
            immediate_size: 0,
        });
        let gpu_vertex_shadow_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("crowd gpu_vertex shadow"),
                bind_group_layouts: &[Some(&bind_group_layout), Some(&palette_layout)],
                immediate_size: 0,
            });
        let buffer =
            |stride: u64, attributes: &'static [wgpu::VertexAttribute]| wgpu::VertexBufferLayout {
                array_stride: stride,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes,
            };
        // Lane blocks are the packed vertex with a 128-byte stride: each instance reads
        // its slot of every block, so the shader is the packed one.
        let block_stride = (LANES * std::mem::size_of::<VertexPacked>()) as u64;
        let buffers = |path: DrawPath| -> Vec<Option<wgpu::VertexBufferLayout>> {
            match path {
                DrawPath::Interleaved => vec![Some(buffer(32, &INTERLEAVED))],
                DrawPath::Float3 => vec![Some(buffer(24, &FLOAT3)), Some(buffer(8, &UV))],
                DrawPath::Float4 => vec![Some(buffer(32, &FLOAT4)), Some(buffer(8, &UV))],
                DrawPath::Packed => vec![Some(buffer(16, &PACKED)), Some(buffer(8, &UV))],
                DrawPath::PackedBlocks => {
                    vec![Some(buffer(block_stride, &PACKED)), Some(buffer(8, &UV))]
                }
                DrawPath::Pulled => vec![Some(buffer(4, &DISTINCT_INDEX)), Some(buffer(8, &UV))],
                // The compute pass's output is packed vertices, one instance's after another.
                DrawPath::GpuCompute => vec![Some(buffer(16, &PACKED)), Some(buffer(8, &UV))],
                DrawPath::GpuVertex => vec![
                    Some(buffer(
                        std::mem::size_of::<SkinMeshVertex>() as u64,
                        &SKIN_MESH,
                    )),
                    Some(buffer(8, &UV)),
                ],
            }
        };
        let depth = Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: Default::default(),
        });
        let make_with = |layout: &wgpu::PipelineLayout,
                         label: &str,
                         vs: &str,
                         fs: &str,
                         buffers: &[Option<wgpu::VertexBufferLayout>]| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    front_face: wgpu::FrontFace::Ccw,
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: depth.clone(),
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &shader,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: color_format,
                        blend: None,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let make =
            |label: &str, vs: &str, fs: &str, buffers: &[Option<wgpu::VertexBufferLayout>]| {
                make_with(&layout, label, vs, fs, buffers)
            };
        let pipelines = DrawPath::ALL.map(|path| {
            let (label, vs) = match path {
                DrawPath::Interleaved => ("crowd interleaved (naive)", "vs_skinned"),
                DrawPath::Float3 => ("crowd float3 split", "vs_skinned"),
                DrawPath::Float4 => ("crowd float4", "vs_skinned"),
                DrawPath::Packed => ("crowd packed", "vs_packed"),
                DrawPath::PackedBlocks => ("crowd packed, lane blocks", "vs_packed"),
                DrawPath::Pulled => ("crowd pulled lane blocks", "vs_pulled"),
                DrawPath::GpuCompute => ("crowd skinned by compute", "vs_packed"),
                DrawPath::GpuVertex => ("crowd skinned in the vertex shader", "vs_gpu_skinned"),
            };
            let layout = match path {
                DrawPath::Pulled => &pulled_layout,
                DrawPath::GpuVertex => &gpu_vertex_layout,
                DrawPath::Interleaved
                | DrawPath::Float3
                | DrawPath::Float4
                | DrawPath::Packed
                | DrawPath::PackedBlocks
                | DrawPath::GpuCompute => &layout,
            };
            (
                path,
                make_with(layout, label, vs, "fs_skinned", &buffers(path)),
            )
        });
        // Depth only, biased against self-shadowing acne; the vertex shaders write the
        // sun's clip position with SHADOW_PASS set.
        let shadow_constants: &[(&str, f64)] = &[("SHADOW_PASS", 1.0)];
        let shadow_pipelines = DrawPath::ALL.map(|path| {
            let (vs, layout) = match path {
                DrawPath::Interleaved | DrawPath::Float3 | DrawPath::Float4 => {
                    ("vs_skinned", &shadow_base_layout)
                }
                DrawPath::Packed | DrawPath::PackedBlocks | DrawPath::GpuCompute => {
                    ("vs_packed", &shadow_base_layout)
                }
                DrawPath::Pulled => ("vs_pulled", &pulled_shadow_layout),
                DrawPath::GpuVertex => ("vs_gpu_skinned", &gpu_vertex_shadow_layout),
            };
            let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("crowd shadow"),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some(vs),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: shadow_constants,
                        ..Default::default()
                    },
                    buffers: &buffers(path),
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: wgpu::DepthBiasState {
                        constant: 2,
                        slope_scale: 2.0,
                        clamp: 0.0,
                    },
                }),
                multisample: Default::default(),
                fragment: None,
                multiview_mask: None,
                cache: None,
            });
            (path, pipeline)
        });
        let ground_pipeline = make("ground", "vs_ground", "fs_ground", &[]);
        CrowdPipelines {
            pipelines,
            shadow_pipelines,
            ground_pipeline,
            bind_group_layout,
            blocks_layout,
            palette_layout,
            shadow_layout,
            color_format,
        }
    }
}

impl CrowdRenderer {
    /// A renderer for `rig` with its own pipelines (see [`CrowdRenderer::with_pipelines`]
    /// to share them).
    pub fn new(
        device: &wgpu::Device,
        rig: &PreparedRig,
        color_format: wgpu::TextureFormat,
    ) -> Self {
        Self::with_pipelines(device, rig, CrowdPipelines::new(device, color_format))
    }

    /// A renderer for `rig` drawing with `pipelines` (those of the renderer it replaces).
    pub fn with_pipelines(
        device: &wgpu::Device,
        rig: &PreparedRig,
        pipelines: CrowdPipelines,
    ) -> Self {
        let mesh = &rig.mesh;
        let index_file = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("indices (file order)"),
            contents: bytemuck::cast_slice(&mesh.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let index_sorted = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("indices (influence-sorted)"),
            contents: bytemuck::cast_slice(&mesh.sorted.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let uv_file = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("uv stream (file order)"),
            contents: bytemuck::cast_slice(&mesh.uvs),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let uv_sorted = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("uv stream (influence-sorted)"),
            contents: bytemuck::cast_slice(&mesh.sorted.uvs),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let camera_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("camera"),
            size: std::mem::size_of::<CameraUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let instance_capacity = 64;
        let instance_buffer = Self::instance_buffer(device, instance_capacity);
        let bind_group = Self::bind_group(
            device,
            &pipelines.bind_group_layout,
            &camera_buffer,
            &instance_buffer,
        );
        let distinct_index = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("distinct vertex of each sorted vertex"),
            contents: bytemuck::cast_slice(&mesh.sorted.distinct.distinct_of_sorted),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let skinned = Self::skinned_buffer(device, 256);
        let skin_mesh_vertices: Vec<SkinMeshVertex> = (0..mesh.vertex_count)
            .map(|v| {
                let f3 = mesh.source_f3[v];
                let (j, w) = (rig.source_mesh.joints[v], rig.source_mesh.weights[v]);
                SkinMeshVertex {
                    position: f3.position,
                    normal: f3.normal,
                    joints: [j[0], j[1], j[2], j[3]],
                    weights: [w[0], w[1], w[2], w[3]],
                    joints_hi: [j[4], j[5], j[6], j[7]],
                    weights_hi: [w[4], w[5], w[6], w[7]],
                }
            })
            .collect();
        let skin_mesh = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("gpu_vertex mesh (file order, eight influences)"),
            contents: bytemuck::cast_slice(&skin_mesh_vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let skin_params = [false, true].map(|dual_quat| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("gpu_vertex parameters"),
                contents: bytemuck::bytes_of(&SkinParamsGpu {
                    normal_offset: if rig.own_normal_matrices() && !dual_quat {
                        3 * rig.normal_palette_offset() as u32
                    } else {
                        0
                    },
                    dual_quat: dual_quat as u32,
                    influences: rig.max_influences as u32,
                    _pad: 0,
                }),
                usage: wgpu::BufferUsages::UNIFORM,
            })
        });
        let shadow_map = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("shadow map"),
            size: wgpu::Extent3d {
                width: SHADOW_MAP_SIZE,
                height: SHADOW_MAP_SIZE,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let shadow_view = shadow_map.create_view(&Default::default());
        let shadow_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow comparison"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let shadow_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("shadow map"),
            layout: &pipelines.shadow_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&shadow_view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&shadow_sampler),
                },
            ],
        });
        CrowdRenderer {
            shadow_view,
            shadow_bind_group,
            shadows: false,
            pipelines,
            blocks_bind_group: None,
            distinct_index,
            bind_group,
            camera_buffer,
            instance_buffer,
            instance_capacity,
            index_file,
            index_sorted,
            index_count: mesh.indices.len() as u32,
            uv_file,
            uv_sorted,
            skinned,
            skinned_capacity: 256,
            max_buffer_size: device.limits().max_buffer_size,
            world_from_model: rig_normalization(rig),
            instance_scratch: Vec::new(),
            gpu_skinner: None,
            compute_shader: ComputeShader::DEFAULT,
            gpu_range_limit: None,
            skin_mesh,
            skin_params,
            palette_bind_group: None,
        }
    }

    /// Model → world of a character standing at the origin.
    pub fn world_from_model(&self) -> Mat4 {
        self.world_from_model
    }

    /// The pipelines it draws with (shared with the renderer of the next rig).
    pub fn pipelines(&self) -> &CrowdPipelines {
        &self.pipelines
    }

    fn instance_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("instances"),
            size: (capacity * std::mem::size_of::<InstanceGpu>()) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn skinned_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skinned vertices"),
            size,
            // COPY_SRC: verify reads back exactly what is drawn.
            usage: wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    }

    fn bind_group(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        camera: &wgpu::Buffer,
        instances: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("crowd"),
            layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: camera.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: instances.as_entire_binding(),
                },
            ],
        })
    }

    /// The largest skinned buffer this device allows, bytes.
    pub fn max_skinned_bytes(&self) -> u64 {
        self.max_buffer_size
    }

    /// Makes the skinned buffer hold `instances` instances of `layout`; returns whether it
    /// was recreated.
    pub fn ensure_skinned_capacity(
        &mut self,
        device: &wgpu::Device,
        layout: &OutputLayout,
        instances: usize,
    ) -> bool {
        let bytes = (layout.bytes(instances) as u64).max(256);
        let recreate = bytes > self.skinned_capacity || bytes * 4 < self.skinned_capacity;
        if recreate {
            let size = (bytes + bytes / 4)
                .next_multiple_of(256)
                .min(self.max_buffer_size)
                .max(bytes);
            self.skinned = Self::skinned_buffer(device, size);
            self.skinned_capacity = size;
            self.blocks_bind_group = None;
            self.palette_bind_group = None;
        }
        // `gpu_vertex` binds one instance's palette at a time, at a dynamic offset per draw.
        let palette_bytes = layout.instance_stride as u64;
        let current = self
            .palette_bind_group
            .as_ref()
            .map(|(_, bytes, format)| (*bytes, *format));
        if layout.draw_path == DrawPath::GpuVertex
            && self.skinned_capacity >= palette_bytes
            && current != Some((palette_bytes, layout.format))
        {
            let params =
                &self.skin_params[(layout.format == OutputFormat::PaletteDualQuat) as usize];
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("palette per instance"),
                layout: &self.pipelines.palette_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &self.skinned,
                            offset: 0,
                            size: wgpu::BufferSize::new(palette_bytes),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: params.as_entire_binding(),
                    },
                ],
            });
            self.palette_bind_group = Some((bind_group, palette_bytes, layout.format));
        }
        // `Pulled` binds one group of blocks at a time, at a dynamic offset per group.
        let group = layout.group_bytes() as u64;
        let wanted = match layout.draw_path {
            DrawPath::Pulled => self.skinned_capacity >= group,
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks
            | DrawPath::GpuCompute
            | DrawPath::GpuVertex => false,
        };
        let current = self.blocks_bind_group.as_ref().map(|(_, bytes)| *bytes);
        if wanted && current != Some(group) {
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("lane blocks"),
                layout: &self.pipelines.blocks_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &self.skinned,
                        offset: 0,
                        size: wgpu::BufferSize::new(group),
                    }),
                }],
            });
            self.blocks_bind_group = Some((bind_group, group));
        }
        recreate
    }

    pub fn skinned(&self) -> &wgpu::Buffer {
        &self.skinned
    }

    /// Whether the sun casts shadows (a shadow pass before the main pass).
    pub fn set_shadows(&mut self, on: bool) {
        self.shadows = on;
    }

    pub fn shadows(&self) -> bool {
        self.shadows
    }

    /// The sun's depth map, for the shadow pass's depth attachment.
    pub fn shadow_view(&self) -> &wgpu::TextureView {
        &self.shadow_view
    }

    /// Which shader `gpu_compute` skins with.
    pub fn set_compute_shader(&mut self, shader: ComputeShader) {
        self.compute_shader = shader;
    }

    pub fn compute_shader(&self) -> ComputeShader {
        self.compute_shader
    }

    /// Has `gpu_compute` split its instances into ranges of at most `instances`, as a
    /// device with small binding limits would (see [`GpuSkinner::limit_ranges`]).
    pub fn limit_gpu_ranges(&mut self, instances: Option<usize>) {
        self.gpu_range_limit = instances;
        if let Some(skinner) = &mut self.gpu_skinner {
            skinner.limit_ranges(instances);
        }
    }

    /// For a layout that skins on the GPU, records the compute pass that skins the
    /// palettes just uploaded into the skinned buffer (after the upload, before the draw
    /// passes); nothing for the others. `rig` must be the renderer's.
    #[allow(clippy::too_many_arguments)]
    pub fn record_gpu_skinning(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        rig: &PreparedRig,
        layout: &OutputLayout,
        instances: usize,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<(), String> {
        match layout.draw_path {
            DrawPath::GpuCompute => {}
            DrawPath::GpuVertex
            | DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks
            | DrawPath::Pulled => return Ok(()),
        }
        let limit = self.gpu_range_limit;
        let skinner = self.gpu_skinner.get_or_insert_with(|| {
            let mut skinner = GpuSkinner::new(device, rig);
            skinner.limit_ranges(limit);
            skinner
        });
        skinner.record(
            device,
            queue,
            encoder,
            &self.skinned,
            layout,
            instances,
            self.compute_shader,
            timestamp_writes,
        )
    }

    /// The vertices the GPU skinned for the first `instances` instances, read back and laid
    /// out as `layout.skinned_on_gpu()` says (for verification). Blocks until the GPU is
    /// done.
    pub fn read_gpu_skinned(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layout: &OutputLayout,
        instances: usize,
    ) -> Result<Vec<u8>, String> {
        let (Some(skinner), Some(skinned)) = (&self.gpu_skinner, layout.skinned_on_gpu()) else {
            return Err(format!(
                "the {} variant has skinned nothing on the GPU",
                layout.variant.spec().name
            ));
        };
        skinner.read_back(device, queue, &skinned, instances)
    }

    /// Writes the camera and every instance's transform and colour.
    pub fn update(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        camera: &CameraUniform,
        instances: &[Instance],
    ) {
        if instances.len() > self.instance_capacity {
            self.instance_capacity = instances.len().next_power_of_two();
            self.instance_buffer = Self::instance_buffer(device, self.instance_capacity);
            self.bind_group = Self::bind_group(
                device,
                &self.pipelines.bind_group_layout,
                &self.camera_buffer,
                &self.instance_buffer,
            );
        }
        self.instance_scratch.clear();
        for i in instances {
            let [x, z] = i.ground_position;
            let color = MATERIAL_COLORS[i.material as usize % MATERIAL_COLORS.len()];
            self.instance_scratch.push(InstanceGpu {
                world_from_model: Mat4::from_translation(Vec3::new(x, 0.0, z))
                    * self.world_from_model,
                color: Vec4::new(color[0], color[1], color[2], 1.0),
            });
        }
        let mut camera = *camera;
        camera.ground.y = if self.shadows { 1.0 } else { 0.0 };
        queue.write_buffer(&self.camera_buffer, 0, bytemuck::bytes_of(&camera));
        if !self.instance_scratch.is_empty() {
            queue.write_buffer(
                &self.instance_buffer,
                0,
                bytemuck::cast_slice(&self.instance_scratch),
            );
        }
    }

    /// Records the ground and the characters, each reading its vertices where `layout`
    /// says; with `visible`, only the characters marked visible.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        layout: &OutputLayout,
        instances: usize,
        visible: Option<&[bool]>,
    ) {
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_bind_group(2, &self.shadow_bind_group, &[]);
        pass.set_pipeline(&self.pipelines.ground_pipeline);
        pass.draw(0..6, 0..1);
        self.draw_characters(pass, layout, instances, visible, &self.pipelines.pipelines);
    }

    /// Records the characters into the sun's depth map: the same vertices (or, for
    /// `gpu_vertex`, the same skinning again) through the shadow pipelines.
    pub fn draw_shadow(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        layout: &OutputLayout,
        instances: usize,
    ) {
        pass.set_bind_group(0, &self.bind_group, &[]);
        self.draw_characters(
            pass,
            layout,
            instances,
            None,
            &self.pipelines.shadow_pipelines,
        );
    }

    fn draw_characters(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        layout: &OutputLayout,
        instances: usize,
        visible: Option<&[bool]>,
        pipelines: &[(DrawPath, wgpu::RenderPipeline)],
    ) {
        if instances == 0 {
            return;
        }
        let hidden = |i: usize| visible.is_some_and(|v| !v.get(i).copied().unwrap_or(true));
        let Some((_, pipeline)) = pipelines.iter().find(|(p, _)| *p == layout.draw_path) else {
            return;
        };
        pass.set_pipeline(pipeline);
        let (indices, uvs) = match layout.order {
            VertexOrder::InfluenceSorted => (&self.index_sorted, &self.uv_sorted),
            VertexOrder::File => (&self.index_file, &self.uv_file),
        };
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        if layout.draw_path.reads_uv_stream() {
            pass.set_vertex_buffer(1, uvs.slice(..));
        }
        match layout.draw_path {
            DrawPath::Pulled => self.draw_pulled(pass, layout, instances, &hidden),
            DrawPath::GpuVertex => {
                let Some((palettes, bytes, format)) = &self.palette_bind_group else {
                    return;
                };
                if *bytes != layout.instance_stride as u64 || *format != layout.format {
                    return;
                }
                pass.set_vertex_buffer(0, self.skin_mesh.slice(..));
                for i in (0..instances).filter(|&i| !hidden(i)) {
                    let offset = layout.instance_offset(i) as u64;
                    let Ok(dynamic) = u32::try_from(offset) else {
                        break;
                    };
                    if offset + bytes > self.skinned_capacity {
                        break;
                    }
                    pass.set_bind_group(1, palettes, &[dynamic]);
                    pass.draw_indexed(0..self.index_count, 0, i as u32..i as u32 + 1);
                }
            }
            DrawPath::GpuCompute => {
                let (Some(skinner), Some(skinned)) = (&self.gpu_skinner, layout.skinned_on_gpu())
                else {
                    return;
                };
                for i in (0..instances).filter(|&i| !hidden(i)) {
                    let Some(slice) = skinner.instance_slice(&skinned, i) else {
                        break;
                    };
                    pass.set_vertex_buffer(0, slice);
                    pass.draw_indexed(0..self.index_count, 0, i as u32..i as u32 + 1);
                }
            }
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks => {
                let bytes = layout.instance_span() as u64;
                for i in (0..instances as u64).filter(|&i| !hidden(i as usize)) {
                    let start = layout.instance_offset(i as usize) as u64;
                    if start + bytes > self.skinned_capacity {
                        break;
                    }
                    pass.set_vertex_buffer(0, self.skinned.slice(start..start + bytes));
                    pass.draw_indexed(0..self.index_count, 0, i as u32..i as u32 + 1);
                }
            }
        }
    }

    /// `Pulled`: slot 0 is each vertex's distinct index, and the vertex shader reads the
    /// instance's group of lane blocks through bind group 1, moved per group.
    fn draw_pulled(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        layout: &OutputLayout,
        instances: usize,
        hidden: &dyn Fn(usize) -> bool,
    ) {
        let Some((blocks, group_bytes)) = &self.blocks_bind_group else {
            return;
        };
        if *group_bytes != layout.group_bytes() as u64 {
            return;
        }
        pass.set_vertex_buffer(0, self.distinct_index.slice(..));
        for group in 0..instances.div_ceil(LANES) {
            let offset = group as u64 * group_bytes;
            let Ok(dynamic) = u32::try_from(offset) else {
                break;
            };
            if offset + group_bytes > self.skinned_capacity {
                break;
            }
            // One instanced draw per run of visible instances in the group (one per group
            // without culling): the shader picks each instance's slot in the blocks from
            // `instance_index % LANES` and its place from `instance_index`.
            let members = group * LANES..instances.min((group + 1) * LANES);
            let mut bound = false;
            let mut i = members.start;
            while i < members.end {
                if hidden(i) {
                    i += 1;
                    continue;
                }
                let first = i;
                while i < members.end && !hidden(i) {
                    i += 1;
                }
                if !bound {
                    pass.set_bind_group(1, blocks, &[dynamic]);
                    bound = true;
                }
                pass.draw_indexed(0..self.index_count, 0, first as u32..i as u32);
            }
        }
    }
}

/// The offscreen colour and depth targets every frame is rendered into (then copied to
/// the window, or read back for a screenshot).
pub struct FrameTargets {
    pub color: wgpu::Texture,
    pub color_view: wgpu::TextureView,
    pub depth_view: wgpu::TextureView,
    pub width: u32,
    pub height: u32,
}

impl FrameTargets {
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
    ) -> Self {
        let size = wgpu::Extent3d {
            width: width.max(1),
            height: height.max(1),
            depth_or_array_layers: 1,
        };
        let color = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("frame"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let depth = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("depth"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        FrameTargets {
            color_view: color.create_view(&Default::default()),
            depth_view: depth.create_view(&Default::default()),
            color,
            width: size.width,
            height: size.height,
        }
    }
}

/// Reads a texture back as RGBA8 (BGRA formats are swizzled). Blocks until the GPU is done.
pub fn read_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<image::RgbaImage, String> {
    let (width, height) = (texture.width(), texture.height());
    let bgra = matches!(
        texture.format(),
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    );
    let row = (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: (row * height) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(height),
            },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    let data = super::map_for_reading(device, &buffer)?;
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height as usize {
        let line = &data[y * row as usize..y * row as usize + width as usize * 4];
        if bgra {
            for px in line.chunks_exact(4) {
                pixels.extend_from_slice(&[px[2], px[1], px[0], 255]);
            }
        } else {
            for px in line.chunks_exact(4) {
                pixels.extend_from_slice(&[px[0], px[1], px[2], 255]);
            }
        }
    }
    drop(data);
    buffer.unmap();
    image::RgbaImage::from_raw(width, height, pixels)
        .ok_or_else(|| "readback size mismatch".to_string())
}
