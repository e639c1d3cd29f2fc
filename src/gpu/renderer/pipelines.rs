//! The crowd's pipelines: one named render pipeline per draw path, and each again as a
//! depth-only shadow pipeline, built once per device and colour format.
//!
//! How it works: for every draw path of the declaration (`skin::DrawPath`),
//! [`path_pipeline`] says its vertex shader, the bindings it reads and how its vertices are
//! laid out, in one exhaustive match; the pipelines are kept at [`DrawPath::index`]. All
//! come from `crowd.wgsl`, composed with its imports (`gpu::shaders`: the lane-block
//! layout among the generated constants, so the shader never restates a Rust one).

use bytemuck::{Pod, Zeroable};

use super::super::targets::DEPTH_FORMAT;
use crate::skin::DrawPath;
use crate::types::{LANES, VertexPacked};
use crate::variant::Variant;

/// The crowd's pipelines and bind group layouts. Nothing in them depends on the rig, so
/// they are built once per device and colour format and every rig's renderer shares them:
/// a rig switch compiles no shader.
#[derive(Clone, PartialEq, Eq)]
pub struct CrowdPipelines {
    /// One pipeline per draw path, at [`DrawPath::index`].
    pub(super) pipelines: Vec<wgpu::RenderPipeline>,
    /// The same vertex shaders into the sun's depth map (no fragment stage).
    pub(super) shadow_pipelines: Vec<wgpu::RenderPipeline>,
    /// Per draw path that can draw per level ([`listed_pipeline`]), its main and shadow
    /// pipelines reading each instance's character from the instance lists.
    pub(super) listed_pipelines: Vec<Option<[wgpu::RenderPipeline; 2]>>,
    /// `gpu_compute`'s per-level main and shadow pipelines where it skins into a pool
    /// ([`pool_slots_pipeline`]).
    pub(super) pool_slot_pipelines: [wgpu::RenderPipeline; 2],
    pub(super) ground_pipeline: wgpu::RenderPipeline,
    pub(super) bind_group_layout: wgpu::BindGroupLayout,
    /// Group 0 of the per-level pipelines (the instance lists where the uv stream was).
    pub(super) listed_group_layout: wgpu::BindGroupLayout,
    pub(super) blocks_layout: wgpu::BindGroupLayout,
    pub(super) palette_layout: wgpu::BindGroupLayout,
    /// `gpu_compute`'s output range, read as storage by the per-level draws.
    pub(super) pool_layout: wgpu::BindGroupLayout,
    pub(super) shadow_layout: wgpu::BindGroupLayout,
    pub color_format: wgpu::TextureFormat,
}

const INTERLEAVED: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2];
const FLOAT3: [wgpu::VertexAttribute; 2] = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
const FLOAT4: [wgpu::VertexAttribute; 2] = wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4];
const PACKED: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm10_10_10_2];
const UV: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![2 => Float32x2];
const DISTINCT_INDEX: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![3 => Uint32];
const POOL_RANK: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![3 => Uint32];
const SKIN_MESH: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    0 => Float32x3, 1 => Float32x3, 4 => Uint16x4, 5 => Float32x4, 6 => Uint16x4,
    7 => Float32x4
];

/// Which bind groups a draw path's vertex shader reads besides the camera's.
#[derive(Clone, Copy)]
enum Bindings {
    /// The camera, uniforms and uv storage only.
    Base,
    /// And the lane blocks of its group (storage).
    LaneBlocks,
    /// And a chunk of instances' palettes (storage).
    Palettes,
    /// And a range of `gpu_compute`'s output (storage).
    Pool,
}

/// How the renderer draws one draw path: its pipeline's label, vertex shader, bindings and
/// vertex buffers (slot 0, and slot 1 where there is one). Every path is one arm here, so
/// a new one is named by the compiler.
struct PathPipeline {
    label: &'static str,
    vertex_entry: &'static str,
    bindings: Bindings,
    /// Bytes per vertex and attributes of each vertex buffer slot.
    slots: &'static [Slot],
}

/// A vertex buffer slot: bytes per vertex and attributes.
type Slot = (u64, &'static [wgpu::VertexAttribute]);

/// Lane blocks are the packed vertex with a 128-byte stride: each instance reads its slot
/// of every block, so the shader is the packed one.
const BLOCK_STRIDE: u64 = (LANES * std::mem::size_of::<VertexPacked>()) as u64;

fn path_pipeline(path: DrawPath) -> PathPipeline {
    let (label, vertex_entry, bindings, slots): (&str, &str, Bindings, &'static [Slot]) = match path
    {
        DrawPath::Interleaved => (
            "crowd interleaved (naive)",
            "vs_skinned",
            Bindings::Base,
            &[(32, &INTERLEAVED)],
        ),
        // Drawn with a base vertex per instance, these read the uv stream from storage.
        DrawPath::Float3 => (
            "crowd float3 split",
            "vs_split",
            Bindings::Base,
            &[(24, &FLOAT3)],
        ),
        DrawPath::Float4 => ("crowd float4", "vs_split", Bindings::Base, &[(32, &FLOAT4)]),
        DrawPath::Packed => (
            "crowd packed",
            "vs_packed",
            Bindings::Base,
            &[(16, &PACKED)],
        ),
        DrawPath::PackedBlocks => (
            "crowd packed, lane blocks",
            "vs_packed",
            Bindings::Base,
            &[(BLOCK_STRIDE, &PACKED)],
        ),
        DrawPath::Pulled => (
            "crowd pulled lane blocks",
            "vs_pulled",
            Bindings::LaneBlocks,
            &[(4, &DISTINCT_INDEX), (8, &UV)],
        ),
        // The compute pass's output is packed vertices, one instance's after another.
        DrawPath::GpuCompute => (
            "crowd skinned by compute",
            "vs_packed",
            Bindings::Base,
            &[(16, &PACKED)],
        ),
        DrawPath::GpuVertex => (
            "crowd skinned in the vertex shader",
            "vs_gpu_skinned",
            Bindings::Palettes,
            &[
                (std::mem::size_of::<SkinMeshVertex>() as u64, &SKIN_MESH),
                (8, &UV),
            ],
        ),
    };
    PathPipeline {
        label,
        vertex_entry,
        bindings,
        slots,
    }
}

/// How a draw path draws per level (`--draws per_level`), where it can: the same vertex
/// shader reading its character from the instance lists (`gpu_vertex`), or one that pulls
/// `gpu_compute`'s output from storage, since a vertex buffer cannot step by character.
fn listed_pipeline(path: DrawPath) -> Option<PathPipeline> {
    match path {
        DrawPath::GpuVertex => Some(PathPipeline {
            label: "crowd skinned in the vertex shader, per level",
            vertex_entry: "vs_gpu_skinned_listed",
            ..path_pipeline(path)
        }),
        DrawPath::GpuCompute => Some(PathPipeline {
            label: "crowd skinned by compute, per level",
            vertex_entry: "vs_pool_listed",
            bindings: Bindings::Pool,
            slots: &[(8, &UV)],
        }),
        DrawPath::Interleaved
        | DrawPath::Float3
        | DrawPath::Float4
        | DrawPath::Packed
        | DrawPath::PackedBlocks
        | DrawPath::Pulled => None,
    }
}

/// `gpu_compute` drawn per level from a pool: each vertex's place in a slot beside its uv
/// (`GpuSkinner::ranks`), the character's slot from its base vertex.
fn pool_slots_pipeline() -> PathPipeline {
    PathPipeline {
        label: "crowd skinned into a pool, per level",
        vertex_entry: "vs_pool_slots",
        bindings: Bindings::Pool,
        slots: &[(8, &UV), (4, &POOL_RANK)],
    }
}

/// Whether `path` can draw per level (it has listed pipelines).
pub fn draws_per_level(path: DrawPath) -> bool {
    listed_pipeline(path).is_some()
}

/// `gpu_vertex`'s static mesh, one per vertex in file order (`SKIN_MESH`).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct SkinMeshVertex {
    pub(super) position: [f32; 3],
    pub(super) normal: [f32; 3],
    /// The first four influences, then the fifth to eighth (weight 0 where unused).
    pub(super) joints: [u16; 4],
    pub(super) weights: [f32; 4],
    pub(super) joints_hi: [u16; 4],
    pub(super) weights_hi: [f32; 4],
}

crate::gpu_struct! {
    /// `gpu_vertex`'s skinning parameters (`VertexSkinParams` in crowd.wgsl).
    #[derive(Clone, Copy, Pod, Zeroable)]
    pub(crate) struct SkinParamsGpu in "VertexSkinParams" {
        pub(super) normal_offset: u32,
        pub(super) dual_quat: u32,
        /// The most influences a vertex has: 4 or less skips the second set.
        pub(super) influences: u32,
        /// With dual quaternions, the rig's uniform skinning scale (`skin::method`).
        pub(super) dual_quat_scale: f32,
    }
}

const _: () = assert!(std::mem::size_of::<SkinMeshVertex>() == 72);

impl CrowdPipelines {
    pub fn new(device: &wgpu::Device, color_format: wgpu::TextureFormat) -> Self {
        let shader = super::super::shaders::create(device, super::super::shaders::Shader::Crowd);
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
        // The camera, read by the vertex and fragment stages of every pipeline.
        let camera_entry = wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("crowd"),
            entries: &[
                camera_entry,
                storage_entry(1),
                // Per instance, its base vertex in the draws; the static uv stream (the
                // paths drawn with a base vertex read it through these: vertex slot 1
                // would be offset by the base vertex too).
                storage_entry(2),
                storage_entry(3),
            ],
        });
        // The listed pipelines' group 0: the uv stream comes from a vertex buffer (drawn
        // with base vertex 0), its place taken by the instance lists, so a vertex shader
        // reads at most four storage buffers (the downlevel limit the device asks for).
        let listed_group_layout =
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("crowd per level"),
                entries: &[
                    camera_entry,
                    storage_entry(1),
                    storage_entry(2),
                    storage_entry(4),
                ],
            });
        // The main passes' fragment shaders read the sun's depth map and the character's
        // materials (group 2); the shadow pass, which writes the map, has no group 2.
        let fragment_entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty,
            count: None,
        };
        let buffer = |ty| wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let shadow_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sun's map and materials"),
            entries: &[
                fragment_entry(
                    0,
                    wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                fragment_entry(
                    1,
                    wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                ),
                // The character's materials: how the uvs carry them and which colours to
                // draw, the table, the images, their sampler.
                fragment_entry(2, buffer(wgpu::BufferBindingType::Uniform)),
                fragment_entry(
                    3,
                    buffer(wgpu::BufferBindingType::Storage { read_only: true }),
                ),
                fragment_entry(
                    4,
                    wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                ),
                fragment_entry(
                    5,
                    wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                ),
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
        let pool_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("gpu_compute's output, a range"),
            entries: &[storage_entry(0)],
        });
        // Per level: the listed group 0 with each path's group 1, with and without the
        // main passes' group 2.
        let listed_layouts = |group_1: &wgpu::BindGroupLayout, label: &str| {
            [true, false].map(|main| {
                let groups = [
                    Some(&listed_group_layout),
                    Some(group_1),
                    Some(&shadow_layout),
                ];
                device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(label),
                    bind_group_layouts: &groups[..if main { 3 } else { 2 }],
                    immediate_size: 0,
                })
            })
        };
        let listed_palettes = listed_layouts(&palette_layout, "crowd gpu_vertex per level");
        let listed_pool = listed_layouts(&pool_layout, "crowd gpu_compute per level");
        let buffers = |path: &PathPipeline| -> Vec<Option<wgpu::VertexBufferLayout>> {
            path.slots
                .iter()
                .map(|&(array_stride, attributes)| {
                    Some(wgpu::VertexBufferLayout {
                        array_stride,
                        step_mode: wgpu::VertexStepMode::Vertex,
                        attributes,
                    })
                })
                .collect()
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
                         buffers: &[Option<wgpu::VertexBufferLayout>],
                         constants: &[(&str, f64)]| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some(vs),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants,
                        ..Default::default()
                    },
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
                make_with(&layout, label, vs, fs, buffers, &[])
            };
        let main_pipeline = |path: &PathPipeline, listed: bool, constants: &[(&str, f64)]| {
            let layout = match (path.bindings, listed) {
                (Bindings::Palettes, true) => &listed_palettes[0],
                (Bindings::Pool, _) => &listed_pool[0],
                (Bindings::Base, _) => &layout,
                (Bindings::LaneBlocks, _) => &pulled_layout,
                (Bindings::Palettes, false) => &gpu_vertex_layout,
            };
            make_with(
                layout,
                path.label,
                path.vertex_entry,
                "fs_skinned",
                &buffers(path),
                constants,
            )
        };
        let pipelines = DrawPath::ALL
            .iter()
            .map(|&path| main_pipeline(&path_pipeline(path), false, &[]))
            .collect();
        // Depth only, biased against self-shadowing acne; the vertex shaders write the
        // sun's clip position with SHADOW_PASS set.
        let shadow_pipeline = |path: &PathPipeline, listed: bool, constants: &[(&str, f64)]| {
            let (vs, layout) = (
                path.vertex_entry,
                match (path.bindings, listed) {
                    (Bindings::Palettes, true) => &listed_palettes[1],
                    (Bindings::Pool, _) => &listed_pool[1],
                    (Bindings::Base, _) => &shadow_base_layout,
                    (Bindings::LaneBlocks, _) => &pulled_shadow_layout,
                    (Bindings::Palettes, false) => &gpu_vertex_shadow_layout,
                },
            );
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("crowd shadow"),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some(vs),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants,
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
            })
        };
        let shadow_pipelines = DrawPath::ALL
            .iter()
            .map(|&path| shadow_pipeline(&path_pipeline(path), false, &[("SHADOW_PASS", 1.0)]))
            .collect();
        let listed_pipelines = DrawPath::ALL
            .iter()
            .map(|&path| {
                let path = listed_pipeline(path)?;
                Some([
                    main_pipeline(&path, true, &[]),
                    shadow_pipeline(&path, true, &[("SHADOW_PASS", 1.0)]),
                ])
            })
            .collect();
        let pool_slot_pipelines = [
            main_pipeline(&pool_slots_pipeline(), true, &[]),
            shadow_pipeline(&pool_slots_pipeline(), true, &[("SHADOW_PASS", 1.0)]),
        ];
        let ground_pipeline = make("ground", "vs_ground", "fs_ground", &[]);
        CrowdPipelines {
            pipelines,
            shadow_pipelines,
            listed_pipelines,
            pool_slot_pipelines,
            ground_pipeline,
            bind_group_layout,
            listed_group_layout,
            blocks_layout,
            palette_layout,
            pool_layout,
            shadow_layout,
            color_format,
        }
    }
}
