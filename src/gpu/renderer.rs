//! The crowd renderer: long-lived pipelines and static buffers, separate from per-frame
//! data (the `re_renderer` split).
//!
//! How it works: one named pipeline per [`DrawPath`] (interleaved float3, split float3,
//! float4, packed, packed lane blocks, pulled lane blocks, `gpu_compute`'s output, and
//! `gpu_vertex`, which skins in the vertex shader), all from `crowd.wgsl`, and each again
//! as a depth-only shadow pipeline (the same vertex shader, the sun's projection chosen by
//! an override constant) that draws the characters into the sun's shadow map. The
//! frame's [`OutputLayout`] says which one draws it and where each instance's vertices
//! are; the renderer works nothing out again. Vertex slot 0 is the one dynamic skinned
//! buffer, bound at an offset from which each instance's vertices are a whole number of
//! vertices away (for `Pulled`, each vertex's distinct index, the blocks being read from
//! storage bindings of chunks of groups; for `gpu_vertex` the static mesh, the palettes
//! in chunks likewise); slot 1 is the static uv stream, uploaded once in file order and
//! once in influence-sorted order (the interleaved path reads its uv from slot 0).
//! `instance_index` picks each character's transform and material colour from a storage
//! buffer. [`CrowdRenderer::prepare_draws`] lists each pass's draws ([`super::draws`]):
//! where the device allows, the passes record one `multi_draw_indexed_indirect` per
//! binding, else the same draws one by one. The skinned buffer grows (by a quarter more
//! than needed) or shrinks (when four times too big) by being recreated; the next frame
//! fills it, so a resize costs no stall.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};
use wgpu::util::DeviceExt;

use super::draws::{DrawBinding, DrawList};
use super::skin::{ComputeShader, GpuSkinner};
use crate::crowd::Instance;
use crate::crowd::lod::LodView;
use crate::prepare::PreparedRig;
use crate::skin::{DrawPath, OutputFormat, OutputLayout, VertexOrder};
use crate::types::{LANES, VertexPacked, block_slot};
use crate::variant::PlainSpec;
use wgpu::util::DrawIndexedIndirectArgs;

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
    /// `pulled`'s lane blocks or `gpu_vertex`'s palettes, bound a chunk at a time.
    chunks: Option<Chunks>,
    /// The main pass's draws (visible characters) and the shadow pass's (all of them),
    /// made by [`Self::prepare_draws`], and what they were made for.
    draws: [DrawList; 2],
    draws_for: Option<DrawsFor>,
    /// Both lists' arguments as the GPU has them (shadow first), for indirect draws.
    indirect_args: wgpu::Buffer,
    indirect_written: Vec<DrawIndexedIndirectArgs>,
    /// The device draws indirectly with a first instance, and the user wants it.
    indirect_supported: bool,
    indirect_wanted: bool,
    distinct_index: wgpu::Buffer,
    /// Group 0 (camera, instances, base vertices, uv stream), per [`VertexOrder`]: file,
    /// influence-sorted.
    bind_groups: [wgpu::BindGroup; 2],
    /// Per instance, the base vertex its draws use (`vertex_base` in crowd.wgsl), and what
    /// was last written there.
    vertex_base: wgpu::Buffer,
    vertex_base_written: Vec<u32>,
    vertex_base_scratch: Vec<u32>,
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
    /// `gpu_vertex`'s static mesh and its uniforms (3×4 palettes, dual quaternions).
    skin_mesh: wgpu::Buffer,
    skin_params: [wgpu::Buffer; 2],
    /// The sun's depth map (drawn by the shadow pass), and the main passes' bind group
    /// that samples it.
    shadow_view: wgpu::TextureView,
    shadow_bind_group: wgpu::BindGroup,
    shadows: bool,
}

/// A storage view of the skinned buffer in chunks: `pulled` binds groups of lane blocks,
/// `gpu_vertex` instances' palettes; the shader finds an instance's part from
/// `instance_index % instances` (`ChunkGpu`).
struct Chunks {
    /// What they were made for: the draw path, its unit (a group or an instance) in
    /// bytes, the palette format, the buffer's capacity.
    key: (DrawPath, u64, OutputFormat, u64),
    /// Instances per chunk (whole units).
    chunk_instances: usize,
    /// Instances the bound chunks hold.
    held_instances: usize,
    bind_groups: Vec<wgpu::BindGroup>,
}

/// `Chunk` in crowd.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct ChunkGpu {
    instances: u32,
    /// From one unit (a group of lane blocks, an instance's palette) to the next, vec4s.
    stride_vec4s: u32,
    _pad: [u32; 2],
}

/// What the prepared draw lists were made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DrawsFor {
    draw_path: DrawPath,
    order: VertexOrder,
    instances: usize,
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
        let storage_entry = |binding: u32| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
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
                storage_entry(1),
                // Per instance, its base vertex in the draws; the static uv stream (the
                // paths drawn with a base vertex read it through these: vertex slot 1
                // would be offset by the base vertex too).
                storage_entry(2),
                storage_entry(3),
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
        // `pulled` reads a chunk of groups' lane blocks from the skinned buffer as storage
        // (one bind group per chunk), and the chunk's shape from a uniform.
        let chunk_entry = |binding: u32| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let blocks_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("lane blocks"),
            entries: &[storage_entry(0), chunk_entry(1)],
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
        // `gpu_vertex` reads a chunk of instances' palettes from the dynamic buffer as
        // storage (one bind group per chunk), the rig's normal-matrix offset from a
        // uniform, and the chunk's shape from another.
        let palette_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("palettes, a chunk of instances"),
            entries: &[
                storage_entry(0),
                chunk_entry(2),
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
                // Drawn with a base vertex per instance, these read the uv stream from
                // storage.
                DrawPath::Float3 => vec![Some(buffer(24, &FLOAT3))],
                DrawPath::Float4 => vec![Some(buffer(32, &FLOAT4))],
                DrawPath::Packed => vec![Some(buffer(16, &PACKED))],
                DrawPath::PackedBlocks => vec![Some(buffer(block_stride, &PACKED))],
                DrawPath::Pulled => vec![Some(buffer(4, &DISTINCT_INDEX)), Some(buffer(8, &UV))],
                // The compute pass's output is packed vertices, one instance's after another.
                DrawPath::GpuCompute => vec![Some(buffer(16, &PACKED))],
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
                DrawPath::Float3 => ("crowd float3 split", "vs_split"),
                DrawPath::Float4 => ("crowd float4", "vs_split"),
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
                DrawPath::Interleaved => ("vs_skinned", &shadow_base_layout),
                DrawPath::Float3 | DrawPath::Float4 => ("vs_split", &shadow_base_layout),
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
            // At least one entry: a storage binding is never empty.
            contents: bytemuck::cast_slice(if mesh.uvs.is_empty() {
                &[[0.0f32; 2]][..]
            } else {
                &mesh.uvs
            }),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE,
        });
        let uv_sorted = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("uv stream (influence-sorted)"),
            // At least one entry: a storage binding is never empty.
            contents: bytemuck::cast_slice(if mesh.sorted.uvs.is_empty() {
                &[[0.0f32; 2]][..]
            } else {
                &mesh.sorted.uvs
            }),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE,
        });
        let camera_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("camera"),
            size: std::mem::size_of::<CameraUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let instance_capacity = 64;
        let instance_buffer = Self::instance_buffer(device, instance_capacity);
        let vertex_base = Self::vertex_base_buffer(device, instance_capacity);
        let bind_groups = Self::bind_groups(
            device,
            &pipelines.bind_group_layout,
            [&camera_buffer, &instance_buffer, &vertex_base],
            [&uv_file, &uv_sorted],
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
            chunks: None,
            draws: Default::default(),
            draws_for: None,
            indirect_args: Self::indirect_buffer(device, 1024),
            indirect_written: Vec::new(),
            indirect_supported: device
                .features()
                .contains(wgpu::Features::INDIRECT_FIRST_INSTANCE),
            indirect_wanted: true,
            distinct_index,
            bind_groups,
            vertex_base,
            vertex_base_written: Vec::new(),
            vertex_base_scratch: Vec::new(),
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

    fn indirect_buffer(device: &wgpu::Device, draws: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("indirect draws"),
            size: (draws * std::mem::size_of::<DrawIndexedIndirectArgs>()) as u64,
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
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

    fn vertex_base_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("base vertex per instance"),
            size: (capacity * std::mem::size_of::<u32>()) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Group 0 with the camera, instances and base vertices, and each uv stream.
    fn bind_groups(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        [camera, instances, vertex_base]: [&wgpu::Buffer; 3],
        uvs: [&wgpu::Buffer; 2],
    ) -> [wgpu::BindGroup; 2] {
        uvs.map(|uv| {
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
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: vertex_base.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: uv.as_entire_binding(),
                    },
                ],
            })
        })
    }

    /// Group 0 for `layout`'s vertex order.
    fn bind_group(&self, layout: &OutputLayout) -> &wgpu::BindGroup {
        match layout.order {
            VertexOrder::File => &self.bind_groups[0],
            VertexOrder::InfluenceSorted => &self.bind_groups[1],
        }
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
            self.chunks = None;
        }
        self.ensure_chunks(device, layout);
        recreate
    }

    /// Makes the chunk bind groups `layout`'s draw path reads through (`pulled`,
    /// `gpu_vertex`), unless they are there.
    fn ensure_chunks(&mut self, device: &wgpu::Device, layout: &OutputLayout) {
        let (unit_bytes, unit_instances) = match layout.draw_path {
            DrawPath::Pulled => (layout.group_bytes() as u64, LANES),
            DrawPath::GpuVertex => (layout.instance_stride as u64, 1),
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks
            | DrawPath::GpuCompute => return,
        };
        let key = (
            layout.draw_path,
            unit_bytes,
            layout.format,
            self.skinned_capacity,
        );
        if self.chunks.as_ref().is_some_and(|c| c.key == key) {
            return;
        }
        self.chunks = None;
        let max_binding = device.limits().max_storage_buffer_binding_size;
        if unit_bytes == 0 || unit_bytes > max_binding || !unit_bytes.is_multiple_of(16) {
            return;
        }
        // Units are 256-byte multiples (`INSTANCE_ALIGN`), so every chunk's offset is a
        // valid storage offset.
        let units_per_chunk = (max_binding / unit_bytes).min(u32::MAX as u64 / LANES as u64);
        let chunk_bytes = units_per_chunk * unit_bytes;
        let held_units = self.skinned_capacity / unit_bytes;
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("chunk shape"),
            contents: bytemuck::bytes_of(&ChunkGpu {
                instances: (units_per_chunk as usize * unit_instances) as u32,
                stride_vec4s: (unit_bytes / 16) as u32,
                _pad: [0; 2],
            }),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let skin_params =
            &self.skin_params[(layout.format == OutputFormat::PaletteDualQuat) as usize];
        let mut bind_groups = Vec::new();
        let mut offset = 0;
        while offset + unit_bytes <= held_units * unit_bytes {
            let size = chunk_bytes.min(held_units * unit_bytes - offset);
            let chunk = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &self.skinned,
                offset,
                size: wgpu::BufferSize::new(size),
            });
            bind_groups.push(if layout.draw_path == DrawPath::GpuVertex {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("palettes, a chunk of instances"),
                    layout: &self.pipelines.palette_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: chunk,
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: skin_params.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: params.as_entire_binding(),
                        },
                    ],
                })
            } else {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("lane blocks, a chunk of groups"),
                    layout: &self.pipelines.blocks_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: chunk,
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: params.as_entire_binding(),
                        },
                    ],
                })
            });
            offset += size;
        }
        self.chunks = Some(Chunks {
            key,
            chunk_instances: units_per_chunk as usize * unit_instances,
            held_instances: held_units as usize * unit_instances,
            bind_groups,
        });
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
            self.vertex_base = Self::vertex_base_buffer(device, self.instance_capacity);
            self.vertex_base_written.clear();
            self.bind_groups = Self::bind_groups(
                device,
                &self.pipelines.bind_group_layout,
                [
                    &self.camera_buffer,
                    &self.instance_buffer,
                    &self.vertex_base,
                ],
                [&self.uv_file, &self.uv_sorted],
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

    /// Records the ground and the characters [`Self::prepare_draws`] listed for the main
    /// pass (the visible ones), each reading its vertices where `layout` says.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, layout: &OutputLayout, instances: usize) {
        pass.set_bind_group(0, self.bind_group(layout), &[]);
        pass.set_bind_group(2, &self.shadow_bind_group, &[]);
        pass.set_pipeline(&self.pipelines.ground_pipeline);
        pass.draw(0..6, 0..1);
        let [main, shadow] = &self.draws;
        // The main pass's arguments follow the shadow pass's in the indirect buffer.
        let offset = std::mem::size_of_val(shadow.args.as_slice()) as u64;
        self.draw_characters(
            pass,
            layout,
            instances,
            main,
            offset,
            &self.pipelines.pipelines,
        );
    }

    /// Records the characters into the sun's depth map: the same vertices (or, for
    /// `gpu_vertex`, the same skinning again) through the shadow pipelines.
    pub fn draw_shadow(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        layout: &OutputLayout,
        instances: usize,
    ) {
        pass.set_bind_group(0, self.bind_group(layout), &[]);
        self.draw_characters(
            pass,
            layout,
            instances,
            &self.draws[1],
            0,
            &self.pipelines.shadow_pipelines,
        );
    }

    fn draw_characters(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        layout: &OutputLayout,
        instances: usize,
        list: &DrawList,
        indirect_offset: u64,
        pipelines: &[(DrawPath, wgpu::RenderPipeline)],
    ) {
        let wanted = DrawsFor {
            draw_path: layout.draw_path,
            order: layout.order,
            instances,
        };
        if instances == 0 || self.draws_for != Some(wanted) {
            return;
        }
        let Some((_, pipeline)) = pipelines.iter().find(|(p, _)| *p == layout.draw_path) else {
            return;
        };
        pass.set_pipeline(pipeline);
        let (indices, uvs) = match layout.order {
            VertexOrder::InfluenceSorted => (&self.index_sorted, &self.uv_sorted),
            VertexOrder::File => (&self.index_file, &self.uv_file),
        };
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        // Drawn with base vertex 0, these two read the uv stream from slot 1; the others
        // from storage (`vertex_base`).
        match layout.draw_path {
            DrawPath::Pulled => {
                pass.set_vertex_buffer(0, self.distinct_index.slice(..));
                pass.set_vertex_buffer(1, uvs.slice(..));
            }
            DrawPath::GpuVertex => {
                pass.set_vertex_buffer(0, self.skin_mesh.slice(..));
                pass.set_vertex_buffer(1, uvs.slice(..));
            }
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks
            | DrawPath::GpuCompute => {}
        }
        let indirect = self.indirect_draws();
        let arg_bytes = std::mem::size_of::<DrawIndexedIndirectArgs>() as u64;
        for (binding, range) in &list.batches {
            match *binding {
                DrawBinding::Vertices { buffer, offset } => {
                    let source = match layout.draw_path {
                        DrawPath::GpuCompute => self
                            .gpu_skinner
                            .as_ref()
                            .and_then(|skinner| skinner.range_output(buffer)),
                        DrawPath::Interleaved
                        | DrawPath::Float3
                        | DrawPath::Float4
                        | DrawPath::Packed
                        | DrawPath::PackedBlocks
                        | DrawPath::Pulled
                        | DrawPath::GpuVertex => Some(&self.skinned),
                    };
                    let Some(source) = source else {
                        continue;
                    };
                    pass.set_vertex_buffer(0, source.slice(offset..));
                }
                DrawBinding::Chunk(chunk) => {
                    let Some(group) = self
                        .chunks
                        .as_ref()
                        .and_then(|chunks| chunks.bind_groups.get(chunk))
                    else {
                        continue;
                    };
                    pass.set_bind_group(1, group, &[]);
                }
            }
            if indirect {
                pass.multi_draw_indexed_indirect(
                    &self.indirect_args,
                    indirect_offset + range.start as u64 * arg_bytes,
                    range.len() as u32,
                );
            } else {
                for a in &list.args[range.clone()] {
                    pass.draw_indexed(
                        a.first_index..a.first_index + a.index_count,
                        a.base_vertex,
                        a.first_instance..a.first_instance + a.instance_count,
                    );
                }
            }
        }
    }

    /// Whether the passes draw indirectly: one `multi_draw_indexed_indirect` per binding.
    pub fn indirect_draws(&self) -> bool {
        self.indirect_supported && self.indirect_wanted
    }

    /// Whether the device can draw indirectly with a first instance (wgpu's
    /// `INDIRECT_FIRST_INSTANCE`).
    pub fn indirect_supported(&self) -> bool {
        self.indirect_supported
    }

    /// Draw indirectly where the device can (on by default), or issue the same draws
    /// one by one.
    pub fn set_indirect_draws(&mut self, on: bool) {
        self.indirect_wanted = on;
    }

    /// Draw commands the last prepared passes record (main, shadow): the encoding's
    /// size.
    pub fn draw_commands(&self) -> [usize; 2] {
        self.draws.each_ref().map(|list| {
            if self.indirect_draws() {
                list.batches.len()
            } else {
                list.args.len()
            }
        })
    }

    /// Makes the draw lists of the next passes: the characters `visible` marks (all
    /// without it) for the main pass, all of them for the shadow pass, each instance read
    /// where `layout` says; with indirect draws, writes their arguments for the GPU
    /// (only when they changed). Call after the frame's upload (which places
    /// `gpu_compute`'s output) and before recording the passes.
    pub fn prepare_draws(
        &mut self,
        queue: &wgpu::Queue,
        device: &wgpu::Device,
        layout: &OutputLayout,
        instances: usize,
        visible: Option<&[bool]>,
    ) {
        let [main, shadow] = &mut self.draws;
        for (list, visible) in [(&mut *main, visible), (&mut *shadow, None)] {
            Self::build_draws(
                list,
                layout,
                instances,
                visible,
                self.index_count,
                self.skinned_capacity,
                self.gpu_skinner.as_ref(),
                self.chunks.as_ref(),
            );
        }
        self.draws_for = Some(DrawsFor {
            draw_path: layout.draw_path,
            order: layout.order,
            instances,
        });
        // Each instance's base vertex, from the shadow list (which has every instance);
        // it changes with the layout and the crowd, not with what is visible.
        self.vertex_base_scratch.clear();
        self.vertex_base_scratch
            .resize(instances.min(self.instance_capacity), 0);
        for a in &self.draws[1].args {
            if let Some(base) = self.vertex_base_scratch.get_mut(a.first_instance as usize) {
                *base = a.base_vertex as u32;
            }
        }
        if self.vertex_base_scratch != self.vertex_base_written {
            std::mem::swap(&mut self.vertex_base_scratch, &mut self.vertex_base_written);
            if !self.vertex_base_written.is_empty() {
                queue.write_buffer(
                    &self.vertex_base,
                    0,
                    bytemuck::cast_slice(&self.vertex_base_written),
                );
            }
        }
        if !self.indirect_draws() {
            return;
        }
        let [main, shadow] = &self.draws;
        let same = self.indirect_written.len() == shadow.args.len() + main.args.len()
            && bytemuck::cast_slice::<_, u8>(&self.indirect_written[..shadow.args.len()])
                == bytemuck::cast_slice::<_, u8>(&shadow.args)
            && bytemuck::cast_slice::<_, u8>(&self.indirect_written[shadow.args.len()..])
                == bytemuck::cast_slice::<_, u8>(&main.args);
        if same {
            return;
        }
        self.indirect_written.clear();
        self.indirect_written.extend_from_slice(&shadow.args);
        self.indirect_written.extend_from_slice(&main.args);
        let bytes: &[u8] = bytemuck::cast_slice(&self.indirect_written);
        if bytes.len() as u64 > self.indirect_args.size() {
            self.indirect_args =
                Self::indirect_buffer(device, self.indirect_written.len().next_power_of_two());
        }
        if !bytes.is_empty() {
            queue.write_buffer(&self.indirect_args, 0, bytes);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn build_draws(
        list: &mut DrawList,
        layout: &OutputLayout,
        instances: usize,
        visible: Option<&[bool]>,
        index_count: u32,
        skinned_capacity: u64,
        gpu_skinner: Option<&GpuSkinner>,
        chunks: Option<&Chunks>,
    ) {
        match layout.draw_path {
            DrawPath::Pulled | DrawPath::GpuVertex => {
                let Some(chunks) = chunks else {
                    list.clear();
                    return;
                };
                list.build_chunks(
                    index_count,
                    instances.min(chunks.held_instances),
                    visible,
                    chunks.chunk_instances,
                    chunks.bind_groups.len(),
                );
            }
            DrawPath::GpuCompute => {
                let (Some(skinner), Some(skinned)) = (gpu_skinner, layout.skinned_on_gpu()) else {
                    list.clear();
                    return;
                };
                list.build_vertices(
                    index_count,
                    instances,
                    visible,
                    skinned.vertex_stride() as u64,
                    |i| skinner.locate(&skinned, i),
                );
            }
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks => {
                let span = layout.instance_span() as u64;
                list.build_vertices(
                    index_count,
                    instances,
                    visible,
                    layout.vertex_stride() as u64,
                    |i| {
                        let start = layout.instance_offset(i) as u64;
                        (start + span <= skinned_capacity).then_some((0, start))
                    },
                );
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
