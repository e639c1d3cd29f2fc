//! The crowd renderer: long-lived pipelines and static buffers, separate from per-frame
//! data (the `re_renderer` split: what a frame builds, its draw lists and what it last
//! wrote to the per-character buffers, is one `DrawData` inside the renderer).
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
//! in chunks likewise, with its coarse levels' influence cuts in copies of the mesh that
//! their own index buffer names: `vertex_cuts`); slot 1 is the static uv stream, uploaded once in file order and
//! once in influence-sorted order (the interleaved path reads its uv from slot 0).
//! `instance_index` picks each character's transform and material colour from a storage
//! buffer. [`CrowdRenderer::prepare_draws`] lists each pass's draws ([`super::draws`]):
//! where the device allows, the passes record one `multi_draw_indexed_indirect` per
//! binding, else the same draws one by one; where the GPU's LOD pass decides, per batch and
//! mesh level one instanced draw of the characters it listed (`per_level`). The skinned
//! buffer grows (by a quarter more
//! than needed) or shrinks (when four times too big) by being recreated; the next frame
//! fills it, so a resize costs no stall.

mod drawing;
mod materials;
mod per_level;
mod pipelines;
mod vertex_cuts;

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};
use wgpu::util::DeviceExt;

use materials::MaterialTextures;
pub use materials::{BaseColors, MAX_LAYER_SIDE, MAX_TEXTURE_BYTES};
pub(crate) use materials::{MaterialGpu, MaterialParamsGpu};
pub use per_level::LevelLists;
pub(crate) use pipelines::SkinParamsGpu;
pub use pipelines::{CrowdPipelines, draws_per_level};

use super::camera::CameraUniform;
use super::draws::{DrawBinding, DrawList, Draws, LevelDraws, MeshLevels};
use super::pass::PassContext;
use super::ranges::{BindingLimits, PaletteRanges};
use super::skin::{ComputeShader, GpuSkinError, GpuSkinner, SkinMarks};
use super::targets::DEPTH_FORMAT;
use crate::crowd::{Instance, InstanceStore};
use crate::gpu::animate::lod::DrawArgsTarget;
use crate::gpu::{FrameShape, GpuContext, PaletteBuffer, PaletteBuffers};
use crate::prepare::PreparedRig;
use crate::skin::pool::PoolPlan;
use crate::skin::{DrawPath, OutputFormat, OutputLayout, VertexOrder};
use crate::types::LANES;
use wgpu::util::DrawIndexedIndirectArgs;

/// The three instance materials.
pub const MATERIAL_COLORS: [[f32; 3]; 3] =
    [[0.86, 0.42, 0.30], [0.30, 0.55, 0.86], [0.45, 0.78, 0.38]];

/// The colour of each mesh level in the "colour by level" view, full detail first: white,
/// then green, yellow, orange, red, magenta as the levels get coarser.
pub const LEVEL_COLORS: [[f32; 3]; 6] = [
    [0.92, 0.92, 0.92],
    [0.35, 0.80, 0.35],
    [0.95, 0.85, 0.25],
    [0.98, 0.55, 0.15],
    [0.90, 0.20, 0.20],
    [0.80, 0.25, 0.85],
];

crate::gpu_struct! {
    /// A character's placement and colour (`InstanceData` in crowd.wgsl).
    #[derive(Clone, Copy, Pod, Zeroable)]
    pub(crate) struct InstanceGpu in "InstanceData" {
        world_from_model: Mat4,
        color: Vec4,
    }
}

const _: () = assert!(std::mem::size_of::<InstanceGpu>() == 80);

/// Side of the sun's square depth map, texels.
pub const SHADOW_MAP_SIZE: u32 = 2048;

/// `model → world` placement of one character: normalized to a 1.8 m height, feet on the
/// ground, centred on its ground position.
pub fn rig_normalization(rig: &PreparedRig) -> Mat4 {
    crate::crowd::mix::world_from_model(rig)
}

pub struct CrowdRenderer {
    pipelines: CrowdPipelines,
    /// `pulled`'s lane blocks or `gpu_vertex`'s palettes, bound a chunk at a time.
    chunks: Option<Chunks>,
    /// Both lists' arguments as the GPU has them (shadow first), for indirect draws.
    indirect_args: wgpu::Buffer,
    /// The device draws indirectly with a first instance, and the user wants it.
    indirect_supported: bool,
    indirect_wanted: bool,
    /// The device draws with a count read from a buffer (`MULTI_DRAW_INDIRECT_COUNT`):
    /// each multi-draw then names its count in [`Self::draw_counts`], and wgpu records it
    /// as one command whatever the count (its indirect-call validation, which the plain
    /// multi-draw gets, costs the CPU a step per argument).
    count_draws: bool,
    /// Word `k` holds `k`: a multi-draw of `k` arguments reads its count at byte `4 k`.
    draw_counts: wgpu::Buffer,
    /// The main pass draws one argument per character (the GPU's LOD pass culls by their
    /// instance counts).
    per_character_draws: bool,
    /// How the GPU's LOD pass's draws are issued: per character or per level.
    draws: Draws,
    /// The level a frame draws at where the GPU's LOD pass chooses levels but did not
    /// write this frame's draws (the first after they were rebuilt). Read only when the
    /// draws are built, so a change of it alone rebuilds nothing.
    fallback_level: u8,
    /// `gpu_compute`'s output ranges as the per-level draws read them (storage), each
    /// with the buffer it was made for.
    pool_groups: Vec<(wgpu::Buffer, wgpu::BindGroup)>,
    /// Group 0 of the per-level draws: camera, instances, base vertices, instance lists.
    listed_bind_group: wgpu::BindGroup,
    distinct_index: wgpu::Buffer,
    /// Group 0 (camera, instances, base vertices, uv stream), per [`VertexOrder`]: file,
    /// influence-sorted.
    bind_groups: [wgpu::BindGroup; 2],
    /// Per instance, the base vertex its draws use (`vertex_base` in crowd.wgsl), and what
    /// was last written there.
    vertex_base: wgpu::Buffer,
    camera_buffer: wgpu::Buffer,
    instance_buffer: wgpu::Buffer,
    instance_capacity: usize,
    index_file: wgpu::Buffer,
    index_sorted: wgpu::Buffer,
    /// Per level of the mesh's LOD chain: its first index and index count in both index
    /// buffers (which hold every level, finest first).
    level_ranges: Vec<(u32, u32)>,
    uv_file: wgpu::Buffer,
    uv_sorted: wgpu::Buffer,
    skinned: wgpu::Buffer,
    /// `skinned` as palettes are found in it (one buffer).
    skinned_palettes: PaletteBuffers,
    skinned_capacity: u64,
    /// The GPU animation's palettes, split per range (`None`: the palettes, if any, are
    /// the CPU's, uploaded into `skinned`).
    animated_palettes: Option<PaletteRanges>,
    /// At most this many characters per buffer of `animated_palettes` (tests).
    palette_range_limit: Option<usize>,
    max_buffer_size: u64,
    world_from_model: Mat4,
    /// `gpu_compute`'s skinning, made the first time a frame needs it.
    gpu_skinner: Option<GpuSkinner>,
    compute_shader: ComputeShader,
    /// `gpu_compute`'s pool, asked for (`None`: a full-detail slot per character).
    skinned_pool: Option<PoolPlan>,
    gpu_range_limit: Option<usize>,
    /// `gpu_vertex`'s static mesh and its uniforms (3×4 palettes, dual quaternions).
    skin_mesh: wgpu::Buffer,
    /// `gpu_vertex`'s mesh with each level's influence cut, made while it draws once the
    /// level errors are measured ([`CrowdRenderer::follow_vertex_cuts`]).
    vertex_cuts: vertex_cuts::VertexCutState,
    skin_params: [wgpu::Buffer; 2],
    /// The sun's depth map (drawn by the shadow pass), and the main passes' bind group
    /// that samples it.
    shadow_view: wgpu::TextureView,
    shadow_bind_group: wgpu::BindGroup,
    shadows: bool,
    /// The character's materials (in the main passes' group 2 with the sun's map).
    materials: MaterialTextures,
    base_colors: BaseColors,
    /// What the frames build and compare against: the draw lists, what was last written
    /// to the GPU's per-character buffers, and the counts the tests read.
    frame: DrawData,
}

/// The per-frame part of the renderer (re_renderer's draw data): what a frame builds from
/// the crowd and the settings, kept only to compare the next frame's with, so a steady
/// frame rebuilds and writes nothing. Everything else in [`CrowdRenderer`] lives until the
/// rig or a setting changes.
struct DrawData {
    /// The main pass's draws (visible characters) and the shadow pass's (all of them),
    /// made by [`Self::prepare_draws`], and what they were made for.
    draws: [DrawList; 2],
    draws_for: Option<DrawsFor>,
    /// What the lists were last built from, where nothing per character went in (no
    /// visibility or levels from the CPU): while it holds, a frame rebuilds nothing.
    steady_key: Option<SteadyDraws>,
    /// `gpu_compute`'s output ranges' sizes when the lists were built (where each instance
    /// lies follows them); kept apart from the key so a steady frame compares without
    /// allocating.
    steady_ranges: Vec<u64>,
    /// How many times the lists were built (a steady frame builds none).
    list_builds: u64,
    indirect_written: Vec<DrawIndexedIndirectArgs>,
    vertex_base_written: Vec<u32>,
    vertex_base_scratch: Vec<u32>,
    /// What the instance buffer holds, and the (place, material) each entry was made from.
    instance_scratch: Vec<InstanceGpu>,
    placed_from: Vec<([f32; 2], u32, u8)>,
    /// The crowd's revision `placed_from` was compared with: while it holds (and no
    /// per-character colours are asked for), a frame compares nothing.
    placed_revision: Option<u64>,
    /// Characters whose placement was compared (a steady crowd adds none).
    placements_compared: u64,
    placement_bytes: u64,
    /// With counted draws and the GPU's LOD pass culling, the indirect buffer holds after
    /// both lists' arguments the runs (per main-pass batch, the visible characters'
    /// arguments the pass appended), then one word per batch counting its run. The LOD
    /// pass wrote this frame's runs: the main pass draws them. With per-level draws: the
    /// pass listed this frame's characters.
    draw_runs: bool,
    /// The lists are per level: `draws` holds the main pass's arguments per batch and
    /// level and the shadow pass's per batch, and `level` the rest.
    per_level: bool,
    /// `gpu_compute` skins into its pool: the skinning pass writes the base vertices.
    pool: bool,
    level: LevelDraws,
    /// Per-level draws' batches (binding, characters), rebuilt with the lists.
    level_batches: Vec<(DrawBinding, Vec<u32>)>,
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

crate::gpu_struct! {
    /// A storage binding's chunk of the crowd (`Chunk` in crowd.wgsl).
    #[derive(Clone, Copy, Pod, Zeroable)]
    pub(crate) struct ChunkGpu in "Chunk" {
        instances: u32,
        /// From one unit (a group of lane blocks, an instance's palette) to the next, vec4s.
        stride_vec4s: u32,
        _pad0: u32,
        _pad1: u32,
    }
}

/// What the prepared draw lists were made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DrawsFor {
    draw_path: DrawPath,
    order: VertexOrder,
    instances: usize,
}

/// Everything but per-character data that the draw lists depend on.
#[derive(Clone, Debug, PartialEq)]
struct SteadyDraws {
    draws_for: DrawsFor,
    per_character: bool,
    per_level: bool,
    pool: bool,
    indirect: bool,
    shadow_level: u8,
    skinned_capacity: u64,
    /// The storage chunks bound: instances each, instances held, chunks.
    chunks: Option<(usize, usize, usize)>,
}

/// Vertex layouts per skinned output format (locations: 0 position, 1 normal, 2 uv).
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
        let chain = rig.mesh_chain();
        let index_file = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("indices (file order)"),
            contents: bytemuck::cast_slice(chain.indices_file()),
            usage: wgpu::BufferUsages::INDEX,
        });
        let index_sorted = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("indices (influence-sorted)"),
            contents: bytemuck::cast_slice(chain.indices_sorted()),
            usage: wgpu::BufferUsages::INDEX,
        });
        let uv_file = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("uv stream (file order)"),
            // At least one entry: a storage binding is never empty.
            contents: bytemuck::cast_slice(if mesh.uvs().is_empty() {
                &[[0.0f32; 2]][..]
            } else {
                mesh.uvs()
            }),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE,
        });
        let uv_sorted = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("uv stream (influence-sorted)"),
            // At least one entry: a storage binding is never empty.
            contents: bytemuck::cast_slice(if mesh.sorted().uvs().is_empty() {
                &[[0.0f32; 2]][..]
            } else {
                mesh.sorted().uvs()
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
        let indirect_args = Self::indirect_buffer(device, 1024);
        let bind_groups = Self::bind_groups(
            device,
            &pipelines.bind_group_layout,
            [&camera_buffer, &instance_buffer, &vertex_base],
            [&uv_file, &uv_sorted],
        );
        let listed_bind_group = Self::listed_bind_group(
            device,
            &pipelines.listed_group_layout,
            [
                &camera_buffer,
                &instance_buffer,
                &vertex_base,
                &indirect_args,
            ],
        );
        let distinct_index = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("distinct vertex of each sorted vertex"),
            contents: bytemuck::cast_slice(mesh.sorted().distinct().distinct_of_sorted()),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let skinned = Self::skinned_buffer(device, 256);
        let skin_mesh_vertices = vertex_cuts::skin_mesh_vertices(rig, &rig.source_mesh);
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
                    dual_quat_scale: if dual_quat {
                        crate::skin::method::dual_quat_scale(rig)
                    } else {
                        1.0
                    },
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
        let materials = MaterialTextures::new(device, &rig.materials, mesh.material_uv());
        let [params, table, images, sampler] = materials.entries();
        let shadow_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("sun's map and materials"),
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
                params,
                table,
                images,
                sampler,
            ],
        });
        CrowdRenderer {
            shadow_view,
            shadow_bind_group,
            shadows: false,
            materials,
            base_colors: BaseColors::DEFAULT,
            pipelines,
            chunks: None,
            indirect_args,
            indirect_supported: device
                .features()
                .contains(wgpu::Features::INDIRECT_FIRST_INSTANCE),
            indirect_wanted: true,
            count_draws: device
                .features()
                .contains(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT),
            draw_counts: Self::draw_counts_buffer(device, 1024),
            per_character_draws: false,
            fallback_level: 0,
            draws: Draws::DEFAULT,
            pool_groups: Vec::new(),
            listed_bind_group,
            distinct_index,
            bind_groups,
            vertex_base,
            camera_buffer,
            instance_buffer,
            instance_capacity,
            index_file,
            index_sorted,
            level_ranges: chain
                .levels()
                .iter()
                .map(|l| (l.first_index, l.index_count))
                .collect(),
            uv_file,
            uv_sorted,
            skinned_palettes: PaletteBuffers::one(&skinned),
            skinned,
            skinned_capacity: 256,
            animated_palettes: None,
            palette_range_limit: None,
            max_buffer_size: device.limits().max_buffer_size,
            world_from_model: rig_normalization(rig),
            gpu_skinner: None,
            compute_shader: ComputeShader::DEFAULT,
            skinned_pool: None,
            gpu_range_limit: None,
            skin_mesh,
            vertex_cuts: vertex_cuts::VertexCutState::NotMade,
            skin_params,
            frame: DrawData {
                draws: Default::default(),
                draws_for: None,
                steady_key: None,
                steady_ranges: Vec::new(),
                list_builds: 0,
                indirect_written: Vec::new(),
                draw_runs: false,
                vertex_base_written: Vec::new(),
                vertex_base_scratch: Vec::new(),
                instance_scratch: Vec::new(),
                placed_from: Vec::new(),
                placed_revision: None,
                placements_compared: 0,
                placement_bytes: 0,
                per_level: false,
                pool: false,
                level: LevelDraws::default(),
                level_batches: Vec::new(),
            },
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

    /// How many characters' placements [`Self::update`] has compared with what the GPU
    /// holds: a steady crowd adds none (its CPU cost does not grow with it).
    pub fn placements_compared(&self) -> u64 {
        self.frame.placements_compared
    }

    /// The counts a multi-draw of up to `draws - 1` arguments reads (word `k` = `k`).
    fn draw_counts_buffer(device: &wgpu::Device, draws: usize) -> wgpu::Buffer {
        let counts: Vec<u32> = (0..draws as u32).collect();
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("indirect draw counts"),
            contents: bytemuck::cast_slice(&counts),
            usage: wgpu::BufferUsages::INDIRECT,
        })
    }

    fn indirect_buffer(device: &wgpu::Device, draws: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("indirect draws"),
            size: (draws * std::mem::size_of::<DrawIndexedIndirectArgs>()) as u64,
            // STORAGE: the GPU's LOD pass writes the main pass's instance counts (COPY_SRC:
            // its tests read them back).
            usage: wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::STORAGE,
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
            // STORAGE: with a pool the skinning pass writes them; COPY_SRC: verify reads
            // them back.
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
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

    /// The per-level draws' group 0.
    fn listed_bind_group(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        buffers: [&wgpu::Buffer; 4],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .zip([0, 1, 2, 4])
            .map(|(buffer, binding)| wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("crowd per level"),
            layout,
            entries: &entries,
        })
    }

    /// The per-level draws' group 0 for the current instances, base vertices and argument
    /// buffer (after any of them was made anew).
    fn remake_listed_bind_group(&mut self, device: &wgpu::Device) {
        self.listed_bind_group = Self::listed_bind_group(
            device,
            &self.pipelines.listed_group_layout,
            [
                &self.camera_buffer,
                &self.instance_buffer,
                &self.vertex_base,
                &self.indirect_args,
            ],
        );
    }

    /// Writes the base vertices built into `vertex_base_scratch` where they differ from
    /// what the buffer holds.
    fn write_vertex_base(&mut self, queue: &wgpu::Queue) {
        if self.frame.vertex_base_scratch != self.frame.vertex_base_written {
            std::mem::swap(
                &mut self.frame.vertex_base_scratch,
                &mut self.frame.vertex_base_written,
            );
            if !self.frame.vertex_base_written.is_empty() {
                queue.write_buffer(
                    &self.vertex_base,
                    0,
                    bytemuck::cast_slice(&self.frame.vertex_base_written),
                );
            }
        }
    }

    /// Group 0 for `layout`'s vertex order.
    fn bind_group(&self, layout: &OutputLayout) -> &wgpu::BindGroup {
        match layout.order() {
            VertexOrder::File => &self.bind_groups[0],
            VertexOrder::InfluenceSorted => &self.bind_groups[1],
        }
    }

    /// The largest skinned buffer this device allows, bytes.
    pub fn max_skinned_bytes(&self) -> u64 {
        self.max_buffer_size
    }

    /// Makes the skinned buffer hold `instances` instances of `layout`; returns whether
    /// what it held is gone: it was recreated, or the GPU animation's palettes were drawn
    /// until now (the CPU wrote nothing into it meanwhile).
    pub fn ensure_skinned_capacity(
        &mut self,
        device: &wgpu::Device,
        layout: &OutputLayout,
        instances: usize,
    ) -> bool {
        let was_animated = self.animated_palettes.take().is_some();
        if was_animated {
            self.chunks = None;
        }
        let recreate = self.fit_skinned(device, layout.bytes(instances) as u64);
        self.ensure_chunks(device, layout);
        recreate || was_animated
    }

    /// Makes the skinned buffer hold `bytes`, with a quarter to spare; returns whether it
    /// was made anew.
    fn fit_skinned(&mut self, device: &wgpu::Device, bytes: u64) -> bool {
        let bytes = bytes.max(256);
        let recreate = bytes > self.skinned_capacity || bytes * 4 < self.skinned_capacity;
        if recreate {
            let size = (bytes + bytes / 4)
                .next_multiple_of(256)
                .min(self.max_buffer_size)
                .max(bytes);
            self.skinned = Self::skinned_buffer(device, size);
            self.skinned_palettes = PaletteBuffers::one(&self.skinned);
            self.skinned_capacity = size;
            self.chunks = None;
        }
        recreate
    }

    /// Makes room for the palettes of `instances` instances of `layout` that the GPU
    /// animation writes: buffers split per range ([`PaletteRanges`]), so the crowd is
    /// bounded by memory and not by the largest buffer; the skinned buffer, which the CPU
    /// would upload into, is left at its least.
    pub fn ensure_animated_palettes(
        &mut self,
        device: &wgpu::Device,
        layout: &OutputLayout,
        instances: usize,
    ) {
        self.fit_skinned(device, 0);
        let mut limits = BindingLimits::of(device);
        limits.limit_to(self.palette_range_limit);
        let ranges = self
            .animated_palettes
            .get_or_insert_with(PaletteRanges::new);
        if ranges.fit(device, &limits, instances, layout.instance_stride() as u64) {
            self.chunks = None;
        }
        self.ensure_chunks(device, layout);
    }

    /// Where the crowd's palettes are: the GPU animation's ([`Self::ensure_animated_palettes`])
    /// or the skinned buffer the CPU uploads into.
    pub fn palettes(&self) -> &PaletteBuffers {
        self.animated_palettes
            .as_ref()
            .and_then(PaletteRanges::buffers)
            .unwrap_or(&self.skinned_palettes)
    }

    /// Has the GPU animation's palettes split into buffers of at most `characters`, as a
    /// device with small binding limits would (from the next
    /// [`Self::ensure_animated_palettes`]).
    pub fn limit_palette_ranges(&mut self, characters: Option<usize>) {
        self.palette_range_limit = characters;
    }

    /// The palettes of the first `instances` instances of `layout`, read back in order
    /// (blocks until the GPU is done).
    pub fn read_palettes(
        &self,
        gpu: &GpuContext,
        layout: &OutputLayout,
        instances: usize,
    ) -> Result<Vec<u8>, super::readback::ReadbackError> {
        self.palettes()
            .read(gpu, instances, layout.instance_stride())
    }

    /// The palettes of the characters `indices` names (of `instances`), the `k`th at `k`
    /// times the instance stride ([`crate::gpu::PaletteBuffers::read_characters`]).
    pub fn read_palettes_of(
        &self,
        gpu: &GpuContext,
        layout: &OutputLayout,
        instances: usize,
        indices: &[usize],
    ) -> Result<Vec<u8>, super::readback::ReadbackError> {
        self.palettes()
            .read_characters(gpu, instances, indices, layout.instance_stride())
    }

    /// Makes the chunk bind groups `layout`'s draw path reads through (`pulled`,
    /// `gpu_vertex`), unless they are there: chunks of the skinned buffer, or for the GPU
    /// animation's palettes one chunk per buffer they are split into.
    fn ensure_chunks(&mut self, device: &wgpu::Device, layout: &OutputLayout) {
        let (unit_bytes, unit_instances) = match layout.draw_path() {
            DrawPath::Pulled => (layout.group_bytes() as u64, LANES),
            DrawPath::GpuVertex => (layout.instance_stride() as u64, 1),
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks
            | DrawPath::GpuCompute => return,
        };
        let key = (
            layout.draw_path(),
            unit_bytes,
            layout.format(),
            self.skinned_capacity,
        );
        if self.chunks.as_ref().is_some_and(|c| c.key == key) {
            return;
        }
        self.chunks = None;
        let limits = BindingLimits::of(device);
        if unit_bytes == 0 || unit_bytes > limits.binding_bytes() || !unit_bytes.is_multiple_of(16)
        {
            return;
        }
        // Each chunk's units and binding. Units are 256-byte multiples (`INSTANCE_ALIGN`),
        // so every chunk's offset is a valid storage offset.
        let animated = self
            .animated_palettes
            .as_ref()
            .and_then(PaletteRanges::buffers)
            .filter(|_| layout.draw_path() == DrawPath::GpuVertex);
        let (units_per_chunk, sources): (u64, Vec<wgpu::BufferBinding<'_>>) = match animated {
            Some(palettes) => {
                let per_buffer = palettes.per_buffer().unwrap_or(1) as u64;
                let sources = palettes
                    .buffers()
                    .map(|(buffer, capacity)| wgpu::BufferBinding {
                        buffer,
                        offset: 0,
                        size: wgpu::BufferSize::new(capacity.unwrap_or(0) as u64 * unit_bytes),
                    })
                    .take_while(|binding| binding.size.is_some())
                    .collect();
                (per_buffer, sources)
            }
            None => {
                let units_per_chunk = (limits.per_range(&[unit_bytes], false) as u64)
                    .min(u32::MAX as u64 / LANES as u64);
                let chunk_bytes = units_per_chunk * unit_bytes;
                let held_bytes = self.skinned_capacity / unit_bytes * unit_bytes;
                let sources = (0..held_bytes.div_ceil(chunk_bytes))
                    .map(|c| wgpu::BufferBinding {
                        buffer: &self.skinned,
                        offset: c * chunk_bytes,
                        size: wgpu::BufferSize::new(chunk_bytes.min(held_bytes - c * chunk_bytes)),
                    })
                    .collect();
                (units_per_chunk, sources)
            }
        };
        // Every chunk but the last holds `units_per_chunk` units.
        let held_units = sources.last().map_or(0, |last| {
            (sources.len() as u64 - 1) * units_per_chunk
                + last.size.map_or(0, |size| size.get() / unit_bytes)
        });
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("chunk shape"),
            contents: bytemuck::bytes_of(&ChunkGpu {
                instances: (units_per_chunk as usize * unit_instances) as u32,
                stride_vec4s: (unit_bytes / 16) as u32,
                _pad0: 0,
                _pad1: 0,
            }),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let skin_params =
            &self.skin_params[(layout.format() == OutputFormat::PaletteDualQuat) as usize];
        let bind_groups = sources
            .into_iter()
            .map(|source| {
                let chunk = wgpu::BindingResource::Buffer(source);
                if layout.draw_path() == DrawPath::GpuVertex {
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
                }
            })
            .collect();
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

    /// Makes `gpu_compute`'s output a pool of `pool`'s share of full detail where it
    /// applies (`pool_applies`); `None`: a full-detail slot per character.
    pub fn set_skinned_pool(&mut self, pool: Option<PoolPlan>) {
        self.skinned_pool = pool;
        if let Some(skinner) = &mut self.gpu_skinner {
            skinner.set_pool(pool);
        }
    }

    pub fn skinned_pool(&self) -> Option<PoolPlan> {
        self.skinned_pool
    }

    /// Whether the last recorded skinning went into the pool: what the draws read then.
    pub fn skins_into_pool(&self) -> bool {
        self.gpu_skinner
            .as_ref()
            .is_some_and(|skinner| skinner.pooled().is_some())
    }

    /// Whether frames drawn in `layout` skin into the pool: one asked for, `gpu_compute`
    /// skinning with `per_level` and drawn per level (the GPU's LOD pass deciding who
    /// has vertices at which level).
    fn pool_applies(&self, layout: &OutputLayout) -> bool {
        self.skinned_pool.is_some()
            && layout.draw_path() == DrawPath::GpuCompute
            && self.per_level_wanted(layout)
            && self.gpu_skinner.as_ref().is_some_and(|skinner| {
                skinner.can_pool()
                    && skinner.recorded_shader(self.compute_shader) == ComputeShader::PerLevel
            })
    }

    /// Bytes of GPU memory `gpu_compute`'s output takes (0 before it first skinned).
    pub fn gpu_skinned_bytes(&self) -> u64 {
        self.gpu_skinner
            .as_ref()
            .map_or(0, GpuSkinner::output_bytes)
    }

    /// What the skinned pool held in a recent frame, where the frames skin into one.
    pub fn pool_reading(&self) -> Option<super::skin::PoolReading> {
        self.gpu_skinner.as_ref()?.pool_reading()
    }

    /// After the frame of `characters` characters was submitted: takes what came back of
    /// the pool's totals (an `auto` pool grows from them).
    pub fn after_submit(&mut self, device: &wgpu::Device, characters: usize) {
        if let Some(skinner) = &mut self.gpu_skinner {
            skinner.after_submit(device, characters);
        }
    }

    /// With a pool, the last frame's rooms, totals and base vertices read back
    /// ([`GpuSkinner::read_back_pool`]); `None` without one. Blocks until the GPU is done.
    pub fn read_gpu_pool(
        &self,
        gpu: &GpuContext,
    ) -> Result<Option<super::skin::PoolFrame>, GpuSkinError> {
        match &self.gpu_skinner {
            Some(skinner) => skinner.read_back_pool(gpu),
            None => Ok(None),
        }
    }

    /// Makes `gpu_vertex`'s mesh with each level's influence cut while `layout` draws with
    /// it blending linearly, once `rig`'s (the renderer's) level errors are measured; lets
    /// it go for any other layout, which never reads it. Asking for the errors here would
    /// measure them for a crowd that may never leave full detail; until they are, every
    /// character is at full detail, which keeps every influence. Call before each frame's
    /// draws.
    pub fn follow_vertex_cuts(
        &mut self,
        device: &wgpu::Device,
        rig: &PreparedRig,
        layout: &OutputLayout,
    ) {
        use vertex_cuts::VertexCutState;
        let reads_cuts = layout.draw_path() == DrawPath::GpuVertex
            && layout.format() == OutputFormat::Palette3x4;
        if !reads_cuts {
            self.vertex_cuts = VertexCutState::NotMade;
        } else if matches!(self.vertex_cuts, VertexCutState::NotMade)
            && crate::skin::level_errors::measured(rig).is_some()
        {
            self.vertex_cuts = match vertex_cuts::VertexCuts::new(device, rig, &self.level_ranges) {
                Some(cuts) => VertexCutState::Made(cuts),
                None => VertexCutState::Uncut,
            };
        }
    }

    /// Bytes of GPU memory `gpu_vertex`'s cut copies of the mesh take (0 while they are not
    /// made: another path draws, or no level cuts).
    pub fn vertex_cut_bytes(&self) -> u64 {
        self.vertex_cuts.bytes()
    }

    /// What `gpu_vertex` draws `layout` from: the index buffer, the static mesh and the uv
    /// stream, with each level's influence cut where it blends linearly and a level cuts
    /// (`indices` and `uvs`: the uncut ones of the layout's order).
    fn gpu_vertex_buffers<'a>(
        &'a self,
        layout: &OutputLayout,
        indices: &'a wgpu::Buffer,
        uvs: &'a wgpu::Buffer,
    ) -> [&'a wgpu::Buffer; 3] {
        match (layout.format(), &self.vertex_cuts) {
            (OutputFormat::Palette3x4, vertex_cuts::VertexCutState::Made(cuts)) => {
                [&cuts.indices, &cuts.skin_mesh, &cuts.uvs]
            }
            (
                OutputFormat::Palette3x4,
                vertex_cuts::VertexCutState::NotMade | vertex_cuts::VertexCutState::Uncut,
            )
            | (
                OutputFormat::PaletteDualQuat
                | OutputFormat::Interleaved
                | OutputFormat::Float3
                | OutputFormat::Float4
                | OutputFormat::Packed,
                _,
            ) => [indices, &self.skin_mesh, uvs],
        }
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
    pub fn record_gpu_skinning(
        &mut self,
        ctx: &mut PassContext<'_>,
        rig: &PreparedRig,
        due: Option<&wgpu::Buffer>,
    ) -> Result<(), GpuSkinError> {
        let shape = ctx.shape;
        match shape.layout.draw_path() {
            DrawPath::GpuCompute => {}
            DrawPath::GpuVertex
            | DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks
            | DrawPath::Pulled => return Ok(()),
        }
        let (limit, pool) = (self.gpu_range_limit, self.skinned_pool);
        if self.gpu_skinner.is_none() {
            let mut skinner = GpuSkinner::new(ctx.gpu, rig);
            skinner.limit_ranges(limit);
            skinner.set_pool(pool);
            self.gpu_skinner = Some(skinner);
        }
        // The pool's base vertices are the draws': the level dispatch writes them, a word
        // a character (made to hold the crowd here: frames without draws place no one).
        let pooled = self.pool_applies(shape.layout);
        if pooled {
            self.hold_instances(&ctx.gpu.device, shape.characters);
        }
        let marks = due.map(|records| SkinMarks {
            records,
            draw_base: pooled.then_some(&self.vertex_base),
        });
        let Some(skinner) = &mut self.gpu_skinner else {
            return Ok(());
        };
        skinner.follow_cuts(rig);
        let palettes = PaletteBuffer::new(
            self.animated_palettes
                .as_ref()
                .and_then(PaletteRanges::buffers)
                .unwrap_or(&self.skinned_palettes),
            shape,
        );
        let shader = self.compute_shader;
        skinner.record(ctx, palettes, shader, marks)
    }

    /// Invocations `gpu_compute`'s skinning pass launched for `characters` characters
    /// ([`GpuSkinner::invocations`]; 0 before it first skinned).
    pub fn gpu_skin_invocations(
        &self,
        characters: usize,
        skinned_at_level: Option<&[usize]>,
    ) -> u64 {
        self.gpu_skinner.as_ref().map_or(0, |skinner| {
            skinner.invocations(self.compute_shader, characters, skinned_at_level)
        })
    }

    /// `gpu_compute`'s lists of characters per level from the last frame that skinned by
    /// level ([`GpuSkinner::read_back_level_lists`]).
    pub fn read_gpu_level_lists(
        &self,
        gpu: &GpuContext,
    ) -> Result<Option<super::skin_levels::LevelLists>, GpuSkinError> {
        match &self.gpu_skinner {
            Some(skinner) => skinner.read_back_level_lists(gpu),
            None => Ok(None),
        }
    }

    /// The vertices the GPU skinned for the first `instances` instances, read back and laid
    /// out as `layout.skinned_on_gpu()` says (for verification). Blocks until the GPU is
    /// done.
    pub fn read_gpu_skinned(
        &self,
        gpu: &GpuContext,
        layout: &OutputLayout,
        instances: usize,
    ) -> Result<Vec<u8>, GpuSkinError> {
        let (Some(skinner), Some(skinned)) = (&self.gpu_skinner, layout.skinned_on_gpu()) else {
            return Err(GpuSkinError::NothingSkinned {
                variant: layout.variant().spec().name,
            });
        };
        skinner.read_back(gpu, &skinned, instances)
    }

    /// What the compute pass skinned for the instances `indices` names (of `instances`),
    /// the `k`th at `k` times the instance stride ([`GpuSkinner::read_back_characters`]).
    pub fn read_gpu_skinned_of(
        &self,
        gpu: &GpuContext,
        layout: &OutputLayout,
        instances: usize,
        indices: &[usize],
    ) -> Result<Vec<u8>, GpuSkinError> {
        let (Some(skinner), Some(skinned)) = (&self.gpu_skinner, layout.skinned_on_gpu()) else {
            return Err(GpuSkinError::NothingSkinned {
                variant: layout.variant().spec().name,
            });
        };
        skinner.read_back_characters(gpu, &skinned, instances, indices)
    }

    /// Writes the camera, and the transform and colour of every instance whose place or
    /// material changed since the last call (one write per run of neighbours): a crowd
    /// that stands where it stood costs the camera's 176 bytes, not 80 bytes a character more.
    /// With `levels`, each character takes the colour of its mesh level
    /// ([`LEVEL_COLORS`]) instead of its material's.
    pub fn update(
        &mut self,
        gpu: &GpuContext,
        camera: &CameraUniform,
        crowd: &InstanceStore,
        levels: Option<&[u8]>,
    ) {
        let (device, queue) = (&gpu.device, &gpu.queue);
        let instances = crowd.as_slice();
        self.hold_instances(device, instances.len());
        let n = instances.len();
        let steady = levels.is_none()
            && self.frame.placed_revision == Some(crowd.revision())
            && self.frame.placed_from.len() == n;
        // Per-character colours change without the crowd: compared every frame.
        self.frame.placed_revision = levels.is_none().then(|| crowd.revision());
        self.frame.instance_scratch.truncate(n);
        self.frame.placed_from.truncate(n);
        // A steady crowd's placements are what the buffer holds: no per-character pass.
        let n = if steady { 0 } else { n };
        self.frame.placements_compared += n as u64;
        let level_of = |k: usize| levels.and_then(|l| l.get(k).copied());
        let placed = |k: usize, i: &Instance| {
            (
                i.ground_position,
                i.material,
                level_of(k).map_or(u8::MAX, |l| l),
            )
        };
        let mut written = 0u64;
        let mut k = 0;
        while k < n {
            if k < self.frame.placed_from.len()
                && self.frame.placed_from[k] == placed(k, &instances[k])
            {
                k += 1;
                continue;
            }
            let start = k;
            while k < n
                && !(k < self.frame.placed_from.len()
                    && self.frame.placed_from[k] == placed(k, &instances[k]))
            {
                let i = &instances[k];
                let [x, z] = i.ground_position;
                let color = match level_of(k) {
                    Some(l) => LEVEL_COLORS[(l as usize).min(LEVEL_COLORS.len() - 1)],
                    None => MATERIAL_COLORS[i.material as usize % MATERIAL_COLORS.len()],
                };
                let gpu = InstanceGpu {
                    world_from_model: Mat4::from_translation(Vec3::new(x, 0.0, z))
                        * self.world_from_model,
                    color: Vec4::new(color[0], color[1], color[2], 1.0),
                };
                if k < self.frame.instance_scratch.len() {
                    self.frame.instance_scratch[k] = gpu;
                    self.frame.placed_from[k] = placed(k, i);
                } else {
                    self.frame.instance_scratch.push(gpu);
                    self.frame.placed_from.push(placed(k, i));
                }
                k += 1;
            }
            let bytes: &[u8] = bytemuck::cast_slice(&self.frame.instance_scratch[start..k]);
            queue.write_buffer(
                &self.instance_buffer,
                (start * std::mem::size_of::<InstanceGpu>()) as u64,
                bytes,
            );
            written += bytes.len() as u64;
        }
        // Colouring by level shows the level's tint, not the file's colours.
        let colors = if levels.is_some() {
            BaseColors::Tint
        } else {
            self.base_colors
        };
        self.materials.update(queue, colors);
        let mut camera = *camera;
        camera.ground.y = if self.shadows { 1.0 } else { 0.0 };
        queue.write_buffer(&self.camera_buffer, 0, bytemuck::bytes_of(&camera));
        self.frame.placement_bytes = written + std::mem::size_of::<CameraUniform>() as u64;
    }

    /// Makes the per-instance buffers (placements, base vertices) hold `instances`.
    fn hold_instances(&mut self, device: &wgpu::Device, instances: usize) {
        if instances <= self.instance_capacity {
            return;
        }
        self.instance_capacity = instances.next_power_of_two();
        self.instance_buffer = Self::instance_buffer(device, self.instance_capacity);
        self.vertex_base = Self::vertex_base_buffer(device, self.instance_capacity);
        self.frame.vertex_base_written.clear();
        self.frame.instance_scratch.clear();
        self.frame.placed_from.clear();
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
        self.remake_listed_bind_group(device);
    }

    /// Bytes the last [`Self::update`] wrote: the camera, and the places that changed.
    pub fn placement_bytes(&self) -> u64 {
        self.frame.placement_bytes
    }
}
