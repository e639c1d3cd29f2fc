//! GPU compute skinning for the `gpu_compute` variant: the CPU samples, runs the hierarchy
//! and builds 3×4 palettes; a compute pass skins every instance once per frame into packed
//! vertices that every draw pass then reads.
//!
//! How it works: the influence-sorted mesh is uploaded once (positions and normals as two
//! vec4s a vertex; joint indices, then weights, in one u32 buffer). Each frame the
//! palettes arrive where the upload variants put a CPU variant's vertices (the renderer's
//! dynamic buffer, laid out by the frame's [`OutputLayout`]). Instances are split into
//! ranges that fit the device's storage-binding and buffer-size limits and its 65,535
//! workgroups per dimension (10,000 instances of the built-in rig are 477 MB of output,
//! several times wgpu's default 128 MiB binding): each range has its own output buffer and
//! its own dispatches, so no instance count is refused. Three shaders do the same work
//! ([`ComputeShader`]): one pipeline per influence class, specialised by a WGSL override
//! so its influence loop has a constant trip count (the sorted loops of "Skinning it to 11", on the GPU),
//! or one pipeline for every class — both launch every vertex of every character and skip
//! the ones its mesh level does not use — or the per-level dispatch
//! ([`super::skin_levels`]), which launches only the vertices of each character's level.
//! Each shader blends, for a character skinned at a coarse level, only the influences that
//! level keeps (`kept_by_level`, from [`crate::skin::level_kept`]): the mesh holds each
//! vertex's heaviest first, so the cut is its first weights divided by their sum.

use bytemuck::{Pod, Zeroable};

use crate::prepare::PreparedRig;
use crate::rig::MAX_INFLUENCES;
use crate::skin::pool::{PoolNeed, PoolPlan, PoolSize};
use crate::skin::{OutputFormat, OutputLayout, SkinDevice, SkinMethod, SkinVariant};
use crate::variant::{PlainSpec, Variant};

/// Why `gpu_compute`'s skinning could not be recorded or read back.
#[derive(Debug, thiserror::Error)]
pub enum GpuSkinError {
    #[error("the {variant} variant does not skin on the GPU")]
    NotOnGpu { variant: &'static str },
    #[error("the {variant} variant has skinned nothing on the GPU")]
    NothingSkinned { variant: &'static str },
    #[error("the palette buffer holds {bytes} bytes; {instances} instances need {needed}")]
    PalettesTooSmall {
        bytes: u64,
        instances: usize,
        needed: usize,
    },
    #[error("the skinning ranges were not bound")]
    NotBound,
    #[error("{asked} instances asked for; the GPU skinned {skinned}")]
    Short { asked: usize, skinned: usize },
    #[error("the GPU's lists of characters per level hold a count past their range")]
    BadLevelLists,
    #[error("the skinned pool's rooms read back are fewer than its layout says")]
    BadPool,
    #[error(transparent)]
    Readback(#[from] super::readback::ReadbackError),
}

crate::declare_variants! {
    /// Which compute shader `gpu_compute` skins with.
    pub enum ComputeShader: PlainSpec in "compute shader" {
        PerClass => PlainSpec {
            name: "per_class",
            description: "one pipeline per influence class (1 to 8 influences), specialised by an override constant: a dispatch per class, constant-length influence loops",
        },
        AllClasses => PlainSpec {
            name: "all_classes",
            description: "one pipeline for every class: one dispatch, each invocation finds its vertex's class and loops over its influences",
        },
        PerLevel => PlainSpec {
            name: "per_level",
            description: "only each skinned character's level's vertices: the GPU lists the characters per level, then one indirect dispatch per level walks that level's vertices (adapters without indirect dispatch use all_classes)",
        },
    }
}

impl ComputeShader {
    /// `per_level`: with mesh levels it launches about the vertices skinned (the class
    /// shaders launch every vertex of every character), and without them the same work.
    pub const DEFAULT: Self = Self::PerLevel;
}

use super::pass::{FrameResource::*, GpuPassSpec, PassContext, PassKind, PassRuns, always, when};
use super::ranges::{BindingLimits, ParamBlocks, RangeBuffers, live_in_range};
use super::shaders::{MAX_GROUPS, WORKGROUP};
use super::skin_levels::{
    LevelLists, LevelOrder, NO_POOL_BASE, POOL_NEED_UNIT, PoolShare, SlotFit, TOTALS, WorkLayout,
};
use crate::gpu::{FrameShape, GpuContext, PaletteBuffer, PaletteBuffers};

crate::gpu_struct! {
    /// Where one influence class is in the mesh's words (`InfluenceClass` in skin.wgsl).
    #[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
    pub(crate) struct ClassGpu in "InfluenceClass" {
        first_vertex: u32,
        count: u32,
        first_joint: u32,
        first_weight: u32,
    }
}

crate::gpu_struct! {
    /// A range's parameters of the skinning pass (`ComputeSkinParams` in skin.wgsl).
    #[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
    pub(crate) struct ParamsGpu in "ComputeSkinParams" {
        classes: [ClassGpu; MAX_INFLUENCES],
        vertex_count: u32,
        palette_stride: u32,
        normal_offset: u32,
        output_stride: u32,
        instances: u32,
        /// 1 where the palettes hold dual quaternions.
        dual_quat: u32,
        first_instance: u32,
        lod: u32,
        /// With dual quaternions, the rig's uniform skinning scale (`skin::method`).
        dual_quat_scale: f32,
        /// `per_level` only: the level's vertices, where its vertex list starts in the
        /// mesh's words, where its slot's characters and its room start in the work
        /// buffer ([`WorkLayout`]).
        level_vertices: u32,
        level_first: u32,
        list_first: u32,
        fit_first: u32,
        /// Influences kept at each level of the chain, four bits a level from the lowest
        /// (0: every one): [`kept_by_level`].
        kept_by_level: u32,
        /// `per_level` only: the slot's level.
        level: u32,
        _pad_c: u32,
    }
}

/// `per_level`'s lists before the skinning: each due character into its level's bucket,
/// each range's dispatch arguments, and into the pool, the characters without room at
/// their level moved to the coarsest (`cs_bucket`, `cs_args`, `cs_demote`).
pub const LISTS_PASS: GpuPassSpec = GpuPassSpec {
    name: "skin_lists",
    description: "per_level's lists: the due characters by level, the dispatches' arguments, the pool's room",
    label: "skin lists",
    row: "GPU skin lists",
    key: "gpu_skin_lists",
    runs: PassRuns::PerLevelSkinning,
    kind: PassKind::Compute,
    reads: &[when(PassRuns::GpuLod, DueMarks)],
    writes: &[always(SkinLists)],
    shader: super::shaders::Shader::Skin,
    shares: SHARES,
};

/// The structs the skinning passes share with skin.wgsl.
const SHARES: &[crate::contract::StructLayout] = {
    use crate::contract::GpuStruct;
    &[
        ParamsGpu::LAYOUT,
        ClassGpu::LAYOUT,
        super::skin_levels::BucketParamsGpu::LAYOUT,
    ]
};

/// `gpu_compute`'s skinning pass, as the frame's pass list, the timers, the panel and the
/// contracts see it.
pub const PASS: GpuPassSpec = GpuPassSpec {
    name: "compute",
    description: "gpu_compute's skinning pass",
    label: "compute",
    row: "GPU compute skin",
    key: "gpu_compute",
    runs: PassRuns::ComputeSkinning,
    kind: PassKind::Compute,
    reads: &[
        always(Palettes),
        when(PassRuns::PerLevelSkinning, SkinLists),
        when(PassRuns::GpuLod, DueMarks),
    ],
    writes: &[always(SkinnedVertices)],
    shader: super::shaders::Shader::Skin,
    shares: SHARES,
};

const _: () = assert!(std::mem::size_of::<ParamsGpu>() == 192);

/// The influences a vertex keeps where a character is skinned with `method` for each
/// level of `rig`'s chain ([`crate::skin::level_kept`]), four bits a level from the lowest,
/// 0 for every one: the levels past the chain (up to the shader's eighth) are its coarsest.
pub(crate) fn kept_by_level(rig: &PreparedRig, method: SkinMethod) -> u32 {
    const _: () = assert!(crate::prepare::MAX_CUT < 16);
    (0..8).fold(0, |table, level| {
        let kept = crate::skin::level_kept(rig, level, method).unwrap_or(0) as u32;
        table | kept << (4 * level)
    })
}

/// The compute skinning of one rig (see the module docs).
pub struct GpuSkinner {
    per_class: Vec<wgpu::ComputePipeline>,
    all_classes: wgpu::ComputePipeline,
    bind_layout: wgpu::BindGroupLayout,
    /// `per_level`'s three pipelines and two layouts, where the adapter has indirect
    /// dispatch ([`LevelPipelines`]).
    per_level: Option<LevelPipelines>,
    /// Each level's vertex count (a prefix of the coarsest-first order), and where that
    /// order starts in the mesh's words.
    level_vertices: Vec<u32>,
    order_first: u32,
    /// Per sorted vertex, its place in a pool slot (a vertex buffer the pool's draws read).
    ranks: wgpu::Buffer,
    rank_of: Vec<u32>,
    /// The pool asked for (`None`: a full-detail slot per character), the share it runs at
    /// now (an `auto` pool's grows: [`PoolPlan::grown`]), and the vertices a character of
    /// a range holds where the last recording used it.
    pool: Option<PoolPlan>,
    share: Option<PoolShare>,
    pooled: Option<u32>,
    /// The pool's totals of a recent frame, read back without waiting ([`PoolTotals`]).
    totals: PoolTotals,
    mesh: wgpu::Buffer,
    no_records: wgpu::Buffer,
    no_bases: wgpu::Buffer,
    /// Each range's parameters.
    params: ParamBlocks,
    classes: [ClassGpu; MAX_INFLUENCES],
    /// The rig's uniform skinning scale, divided out of its dual quaternions.
    dual_quat_scale: f32,
    /// Influences kept at each level with linear blending ([`kept_by_level`]), taken once
    /// the rig's level errors are measured ([`Self::follow_cuts`]); `None`: not yet, so no
    /// character is at a coarse level and every one keeps every influence.
    kept_linear: Option<u32>,
    vertex_count: u32,
    /// vec4s from an instance's position matrices to its normal matrices (0: none).
    normal_offset: u32,
    /// Each range's skinned output (packed vertices): a full slot per character, or the
    /// range's pool.
    ranges: RangeBuffers,
    /// Bytes a character takes in its range's buffer (what [`Self::locate`] follows).
    range_stride: u64,
    limits: BindingLimits,
    scratch: Vec<u8>,
    /// The ranges' bind groups and parameters, made for this palette buffer, instance
    /// count and palette stride; remade only when one of them or a range's buffer changes,
    /// so a steady frame records its dispatches and nothing else.
    bound: Option<Bound>,
}

struct LevelPipelines {
    bucket: wgpu::ComputePipeline,
    args: wgpu::ComputePipeline,
    demote: wgpu::ComputePipeline,
    level: wgpu::ComputePipeline,
    bucket_layout: wgpu::BindGroupLayout,
    level_layout: wgpu::BindGroupLayout,
    /// The level dispatch into a pool, and its layout (one storage binding more: the
    /// draws' base vertices), where the device allows five storage bindings a stage.
    pool: Option<(wgpu::ComputePipeline, wgpu::BindGroupLayout)>,
    bucket_params: wgpu::Buffer,
}

/// Storage bindings the pool's level dispatch takes in one shader stage.
const POOL_STORAGE_BINDINGS: u32 = 5;

/// `per_level`'s buffers and bind groups for one crowd size and split.
struct LevelBound {
    layout: WorkLayout,
    /// The draws' base vertices the level dispatch writes, with a pool.
    draw_base: Option<wgpu::Buffer>,
    work: wgpu::Buffer,
    args: wgpu::Buffer,
    bucket_group: wgpu::BindGroup,
    /// One per range.
    level_groups: Vec<wgpu::BindGroup>,
}

struct Bound {
    palettes: PaletteBuffers,
    instances: usize,
    upload_stride: usize,
    /// What the palettes hold (3×4 rows or dual quaternions: the parameters say which).
    upload_format: OutputFormat,
    /// The records whose `due` word decides which instances are skinned (LOD on the GPU).
    due: Option<wgpu::Buffer>,
    groups: Vec<wgpu::BindGroup>,
    /// `per_level`'s, where it was bound.
    per_level: Option<LevelBound>,
    /// The pool's vertices a character, where the output is a pool.
    pooled: Option<u32>,
}

/// What the GPU's LOD pass gives the skinning pass: the records whose last word says who
/// is skinned at which level, and where the pool applies the draws' base vertices (one
/// word a character) the level dispatch writes.
#[derive(Clone, Copy)]
pub struct SkinMarks<'a> {
    pub records: &'a wgpu::Buffer,
    pub draw_base: Option<&'a wgpu::Buffer>,
}

/// The skin variants this adapter cannot run, each with the reason (greyed in the panel,
/// refused on the command line).
pub fn skin_refusals(gpu: &super::GpuContext) -> Vec<(SkinVariant, String)> {
    let limits = gpu.device.limits();
    let downlevel = gpu.adapter.get_downlevel_capabilities();
    SkinVariant::ALL
        .iter()
        .filter_map(|&skin| match skin.spec().runs_on {
            SkinDevice::Cpu => None,
            SkinDevice::GpuCompute => compute_refusal(&limits, &downlevel).map(|r| (skin, r)),
            SkinDevice::GpuVertex => vertex_refusal(&downlevel).map(|r| (skin, r)),
        })
        .collect()
}

/// What `gpu_vertex` needs of an adapter (a storage buffer the vertex shader reads), or
/// why it cannot run there.
pub fn vertex_refusal(downlevel: &wgpu::DownlevelCapabilities) -> Option<String> {
    (!downlevel
        .flags
        .contains(wgpu::DownlevelFlags::VERTEX_STORAGE))
    .then(|| "the adapter's vertex shaders cannot read storage buffers".to_string())
}

/// What `gpu_compute` needs of an adapter, or why it cannot run there.
pub fn compute_refusal(
    limits: &wgpu::Limits,
    downlevel: &wgpu::DownlevelCapabilities,
) -> Option<String> {
    if !downlevel
        .flags
        .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
    {
        return Some("the adapter has no compute shaders".into());
    }
    if limits.max_storage_buffers_per_shader_stage < 4 {
        return Some(format!(
            "the adapter allows {} storage buffers per shader stage; the skinning shader needs 4",
            limits.max_storage_buffers_per_shader_stage
        ));
    }
    if limits.max_compute_invocations_per_workgroup < WORKGROUP
        || limits.max_compute_workgroup_size_x < WORKGROUP
    {
        return Some(format!(
            "the adapter's compute workgroups hold fewer than {WORKGROUP} invocations"
        ));
    }
    None
}

/// A bind-group layout entry for compute: a buffer at `binding` of type `ty`.
fn compute_entry(
    binding: u32,
    ty: wgpu::BufferBindingType,
    has_dynamic_offset: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset,
            min_binding_size: None,
        },
        count: None,
    }
}

impl LevelPipelines {
    fn new(device: &wgpu::Device, shader: &wgpu::ShaderModule) -> Self {
        use wgpu::BufferBindingType::{Storage, Uniform};
        let poolable =
            device.limits().max_storage_buffers_per_shader_stage >= POOL_STORAGE_BINDINGS;
        let layout = |label: &str, entries: &[wgpu::BindGroupLayoutEntry]| {
            let bind = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries,
            });
            let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[Some(&bind)],
                immediate_size: 0,
            });
            (bind, pipeline)
        };
        // The bindings skin.wgsl gives each entry point: the bucket, argument and demotion
        // dispatches write the work and argument buffers (and the demotion the records'
        // skin levels); the level dispatch reads the work buffer and writes the skinned
        // output.
        let (bucket_layout, bucket_pipeline_layout) = layout(
            "skin: bucket by level",
            &[
                compute_entry(2, Storage { read_only: false }, false),
                compute_entry(5, Storage { read_only: false }, false),
                compute_entry(6, Storage { read_only: false }, false),
                compute_entry(7, Uniform, false),
                compute_entry(9, Storage { read_only: false }, false),
            ],
        );
        let level_entries = [
            compute_entry(0, Uniform, true),
            compute_entry(1, Storage { read_only: true }, false),
            compute_entry(3, Storage { read_only: true }, false),
            compute_entry(4, Storage { read_only: false }, false),
            compute_entry(8, Storage { read_only: true }, false),
            compute_entry(9, Storage { read_only: false }, false),
        ];
        let (level_layout, level_pipeline_layout) = layout("skin: one level", &level_entries[..5]);
        let pipeline = |label: &str, layout: &wgpu::PipelineLayout, entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                module: shader,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        LevelPipelines {
            bucket: pipeline(
                "skin: bucket by level",
                &bucket_pipeline_layout,
                "cs_bucket",
            ),
            args: pipeline("skin: level dispatches", &bucket_pipeline_layout, "cs_args"),
            demote: pipeline(
                "skin: demote to the coarsest level",
                &bucket_pipeline_layout,
                "cs_demote",
            ),
            level: pipeline("skin: one level", &level_pipeline_layout, "cs_level"),
            pool: poolable.then(|| {
                let (bind, pipeline_layout) = layout("skin: one level into a pool", &level_entries);
                (
                    pipeline(
                        "skin: one level into a pool",
                        &pipeline_layout,
                        "cs_level_pool",
                    ),
                    bind,
                )
            }),
            bucket_layout,
            level_layout,
            bucket_params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("skin: bucket parameters"),
                size: std::mem::size_of::<super::skin_levels::BucketParamsGpu>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        }
    }

    /// The work and argument buffers for `layout`, their parameters written (each level's
    /// vertex count after the arguments), and the bucket dispatches' bind group.
    fn make_work(
        &self,
        gpu: &GpuContext,
        layout: &WorkLayout,
        characters: usize,
        marks: WorkMarks<'_>,
        level_vertices: &[u32],
    ) -> (wgpu::Buffer, wgpu::Buffer, wgpu::BindGroup) {
        let device = &gpu.device;
        // COPY_DST: the counts are cleared each frame; COPY_SRC: the tests read it back.
        let work = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skin: characters per level"),
            size: layout.work_bytes(),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skin: level dispatches"),
            size: layout.args_bytes(),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut tail = vec![0u32; layout.levels()];
        for (t, &n) in tail.iter_mut().zip(level_vertices) {
            *t = n;
        }
        gpu.queue.write_buffer(
            &args,
            12 * layout.slots() as u64,
            bytemuck::cast_slice(&tail),
        );
        gpu.queue.write_buffer(
            &self.bucket_params,
            0,
            bytemuck::bytes_of(&layout.params(characters, marks.lod, marks.pooled)),
        );
        let bucket_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skin: bucket by level"),
            layout: &self.bucket_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: marks.records.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: work.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 9,
                    resource: marks.draw_base.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 6,
                    resource: args.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 7,
                    resource: self.bucket_params.as_entire_binding(),
                },
            ],
        });
        (work, args, bucket_group)
    }
}

/// What the bucket dispatch reads and writes besides its work: the records (or a
/// stand-in), whether they mark who is skinned, the draws' base vertices (or a stand-in)
/// and the pool's vertices a character.
#[derive(Clone, Copy)]
struct WorkMarks<'a> {
    records: &'a wgpu::Buffer,
    lod: bool,
    draw_base: &'a wgpu::Buffer,
    pooled: Option<u32>,
}

/// What a recording binds besides the palettes: the records where the LOD pass marks,
/// the draws' base vertices and the pool's vertices a character where the output is a
/// pool.
#[derive(Clone, Copy)]
struct BindMarks<'a> {
    due: Option<&'a wgpu::Buffer>,
    draw_base: Option<&'a wgpu::Buffer>,
    pooled: Option<u32>,
}

/// Records `per_level`'s dispatches: the characters into their slots' lists, each slot's
/// indirect arguments, then one indirect dispatch per slot.
/// `per_level`'s lists ([`LISTS_PASS`]): each character into its level's bucket, each
/// range's arguments, and into a pool the characters without room moved to the coarsest.
fn record_lists(
    pass: &mut wgpu::ComputePass<'_>,
    pipelines: &LevelPipelines,
    level: &LevelBound,
    characters: usize,
) {
    let groups = (characters as u32).div_ceil(WORKGROUP);
    let rows = groups.div_ceil(MAX_GROUPS).max(1);
    pass.set_pipeline(&pipelines.bucket);
    pass.set_bind_group(0, &level.bucket_group, &[]);
    pass.dispatch_workgroups(groups.div_ceil(rows), rows, 1);
    pass.set_pipeline(&pipelines.args);
    pass.dispatch_workgroups((level.layout.ranges() as u32).div_ceil(WORKGROUP), 1, 1);
    // With a pool: the characters without room at their level to the coarsest level.
    if level.draw_base.is_some() {
        pass.set_pipeline(&pipelines.demote);
        pass.dispatch_workgroups(groups.div_ceil(rows), rows, 1);
    }
}

/// `per_level`'s skinning: a dispatch per range and level over the level's list, with
/// the arguments [`record_lists`] wrote.
fn record_levels(pass: &mut wgpu::ComputePass<'_>, pipelines: &LevelPipelines, level: &LevelBound) {
    match (&pipelines.pool, level.draw_base.is_some()) {
        (Some((pool, _)), true) => pass.set_pipeline(pool),
        _ => pass.set_pipeline(&pipelines.level),
    }
    for (r, group) in level.level_groups.iter().enumerate() {
        for l in 0..level.layout.levels() {
            let slot = level.layout.slot(r, l);
            pass.set_bind_group(0, group, &[ParamBlocks::offset(slot)]);
            pass.dispatch_workgroups_indirect(&level.args, 12 * slot as u64);
        }
    }
}

impl GpuSkinner {
    /// Uploads `rig`'s influence-sorted mesh and its levels' vertex lists, and builds the
    /// shaders' pipelines (`per_level`'s where the adapter has indirect dispatch).
    pub fn new(gpu: &GpuContext, rig: &PreparedRig) -> Self {
        use wgpu::util::DeviceExt;
        let device = &gpu.device;
        let mesh = rig.mesh.sorted();
        let source: Vec<[f32; 4]> = mesh
            .source()
            .iter()
            .flat_map(|v| [v.position, v.normal])
            .collect();
        // One array of words: positions and normals, joint indices, then the weights'
        // bits; `first_joint` and `first_weight` count from the start.
        let mut words: Vec<u32> = bytemuck::cast_slice(&source).to_vec();
        // Each normal's w word: the deepest level of the mesh's chain using the vertex, so
        // a character drawn at a coarse level skins only that level's vertices.
        let deepest = rig.mesh_chain().deepest_levels_sorted(mesh.source().len());
        for (v, level) in deepest.iter().enumerate() {
            words[8 * v + 7] = *level;
        }
        let joints_at = words.len();
        words.extend(mesh.joints().iter().map(|&j| j as u32));
        words.extend(mesh.weights().iter().map(|w| w.to_bits()));
        // The sorted vertices coarsest first: each level's are a prefix (`per_level`).
        let order = LevelOrder::new(&deepest, rig.mesh_chain().levels().len());
        let order_first = words.len() as u32;
        words.extend_from_slice(order.order());
        let level_vertices = order.counts().to_vec();
        let rank_of = order.rank();
        // A binding may not be empty.
        words.push(0);
        let mut classes = [ClassGpu::default(); MAX_INFLUENCES];
        let (mut vertex, mut joint, mut weight) =
            (0usize, joints_at, joints_at + mesh.joints().len());
        for (c, class) in classes.iter_mut().enumerate() {
            let k = c + 1;
            let count = mesh.class_counts()[c];
            *class = ClassGpu {
                first_vertex: vertex as u32,
                count: count as u32,
                first_joint: joint as u32,
                first_weight: weight as u32,
            };
            vertex += count;
            joint += count * k;
            if k > 1 {
                weight += count * k;
            }
        }
        let mesh_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skin: sorted positions and normals, joints and weights"),
            contents: bytemuck::cast_slice(&words),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let ranks = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skin: each vertex's place in a pool slot"),
            // A vertex buffer may not be empty.
            contents: bytemuck::cast_slice(if rank_of.is_empty() {
                &[0u32]
            } else {
                &rank_of
            }),
            usage: wgpu::BufferUsages::VERTEX,
        });
        // Bound for the draws' base vertices without a pool (written by no shader then):
        // not `no_records`, which the same bind group reads.
        let no_bases = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skin: no base vertices"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        // Bound where no LOD marks instances (the shader then reads none of it).
        let no_records = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skin: no records"),
            size: 32,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let shader = super::shaders::create(device, super::shaders::Shader::Skin);
        let (bind_layout, layout) = super::compute::compute_layouts(
            device,
            "skin",
            std::mem::size_of::<ParamsGpu>() as u64,
            true,
            &[true, true, true, false],
        );
        let pipeline = |label: &str, entry: &str, constants: &[(&str, f64)]| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                module: &shader,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    ..Default::default()
                },
                cache: None,
            })
        };
        let per_class = (1..=MAX_INFLUENCES)
            .map(|k| {
                pipeline(
                    &format!("skin: {k}-influence class"),
                    "cs_class",
                    &[("INFLUENCES", k as f64)],
                )
            })
            .collect();
        let all_classes = pipeline("skin: all classes", "cs_all", &[]);
        let indirect = gpu
            .adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION);
        let per_level = indirect.then(|| LevelPipelines::new(device, &shader));
        GpuSkinner {
            per_class,
            all_classes,
            bind_layout,
            per_level,
            level_vertices,
            order_first,
            ranks,
            rank_of,
            pool: None,
            share: None,
            pooled: None,
            totals: PoolTotals::new(device),
            mesh: mesh_buffer,
            no_records,
            no_bases,
            params: ParamBlocks::new(device, "skin: parameters per range", 4),
            classes,
            vertex_count: mesh.source().len() as u32,
            dual_quat_scale: crate::skin::method::dual_quat_scale(rig),
            kept_linear: None,
            normal_offset: if rig.own_normal_matrices() {
                3 * rig.normal_palette_offset() as u32
            } else {
                0
            },
            // VERTEX: the draw passes read the output; COPY_SRC: verification reads it back.
            ranges: RangeBuffers::new(
                "skin: skinned vertices (one range of instances)",
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::VERTEX
                    | wgpu::BufferUsages::COPY_SRC,
            ),
            range_stride: 0,
            limits: BindingLimits::of(device),
            scratch: Vec::new(),
            bound: None,
        }
    }

    /// Makes the skinned output a pool of `pool`'s share of full detail where the GPU's
    /// LOD pass decides the levels and the draws are per level (`None`: a full-detail
    /// slot per character).
    pub fn set_pool(&mut self, pool: Option<PoolPlan>) {
        if self.pool != pool {
            self.pool = pool;
            self.share = pool.map(|p| p.start());
            self.pooled = None;
            // A copy on its way back is the old pool's: not this one's reading.
            self.totals.copied_with = None;
            self.bound = None;
            self.totals.reading = None;
        }
    }

    /// Takes the influences each level of `rig`'s chain keeps (`kept_by_level`) once its
    /// level errors are measured. Asking before would measure them for a crowd that may
    /// never leave full detail (seconds on a large rig); until they are, every character
    /// is at full detail, which keeps every influence. Call it before each record.
    pub fn follow_cuts(&mut self, rig: &PreparedRig) {
        if self.kept_linear.is_none() && crate::skin::level_errors::measured(rig).is_some() {
            self.kept_linear = Some(kept_by_level(rig, SkinMethod::Linear));
            // The parameters carry the table.
            self.bound = None;
        }
    }

    /// What the pool held in a recent frame (the latest read back), with its high-water
    /// mark since it was made; `None` without a pool or before the first came back.
    pub fn pool_reading(&self) -> Option<PoolReading> {
        self.pooled?;
        let mut reading = self.totals.reading?;
        reading.share_percent = self.share.map_or(0, PoolShare::percent);
        reading.cap_percent = self.pool.map_or(0, |p| p.cap().percent());
        reading.auto = self.pool.is_some_and(|p| p.size() == PoolSize::Auto);
        reading.capacity_bytes = self.output_bytes();
        Some(reading)
    }

    /// After the frame was submitted: asks for the pool's totals it copied, and takes
    /// those of an earlier frame that came back (never waits for the GPU).
    /// An `auto` pool grows from what came back ([`PoolPlan::grown`]): the next
    /// recording makes the larger pool.
    pub fn after_submit(&mut self, device: &wgpu::Device, characters: usize) {
        let came_back = self.totals.after_submit(device, VERTEX_BYTES);
        if let (Some(plan), Some(share), Some(reading)) = (self.pool, self.share, came_back) {
            // Only what a frame skinned at the share in use says whether it is enough.
            if Some(reading.pool_vertices) == self.share.map(|s| self.pool_vertices(s)) {
                let need = PoolNeed {
                    vertices_needed: reading.vertices_needed,
                    short_of_room: reading.left_out + reading.demoted,
                    characters,
                    full_vertices: self.vertex_count,
                };
                self.share = Some(plan.grown(share, need));
            }
        }
    }

    /// Whether this device can skin into a pool: `per_level` (indirect dispatch) and five
    /// storage bindings in a compute stage.
    pub fn can_pool(&self) -> bool {
        self.per_level.as_ref().is_some_and(|p| p.pool.is_some())
    }

    /// The vertices of room a character has in its range's pool, where the last
    /// recording skinned into a pool.
    pub fn pooled(&self) -> Option<u32> {
        self.pooled
    }

    /// Per sorted vertex, its place in a pool slot: the vertex buffer the pool's draws
    /// read beside the uv stream.
    pub fn ranks(&self) -> &wgpu::Buffer {
        &self.ranks
    }

    /// The pool's vertices per character for share `pool` of this mesh.
    fn pool_vertices(&self, pool: PoolShare) -> u32 {
        pool.vertices_per_character(
            self.vertex_count,
            self.level_vertices.last().copied().unwrap_or(0),
        )
    }

    /// Instances one range may hold: its palettes and its output each fit one storage
    /// binding and one buffer, and its instances one dispatch dimension.
    fn range_instances(&self, upload: &OutputLayout, output_stride: u64) -> usize {
        let bytes = [output_stride, upload.instance_stride() as u64];
        self.limits.per_range(&bytes, true)
    }

    /// Splits the instances into ranges of at most `instances` (`None`: as many as the
    /// device's limits allow), as a device with small binding limits would: lets the tests
    /// check the split on any adapter.
    pub fn limit_ranges(&mut self, instances: Option<usize>) {
        self.limits.limit_to(instances);
        self.bound = None;
    }

    /// The shader that skins when `shader` is asked for: `per_level` where the adapter
    /// can dispatch indirectly, `all_classes` otherwise (as its description says).
    pub fn recorded_shader(&self, shader: ComputeShader) -> ComputeShader {
        match (shader, &self.per_level) {
            (ComputeShader::PerLevel, None) => ComputeShader::AllClasses,
            (shader, _) => shader,
        }
    }

    /// Invocations the skinning pass launches for `characters` characters with `shader`:
    /// the class and all-class shaders launch every vertex of every character (skipping
    /// those a character's level does not use); `per_level` one a character to list it,
    /// one a range for its slots' arguments, then each level's listed characters times
    /// its vertices, each dispatch rounded up to whole workgroups. `skinned_at_level`: the
    /// characters skinned at each level this frame, where the LOD pass marks them (`None`:
    /// every character at level 0); into a pool, what it held is what was skinned (the
    /// rounding of its slots left out).
    pub fn invocations(
        &self,
        shader: ComputeShader,
        characters: usize,
        skinned_at_level: Option<&[usize]>,
    ) -> u64 {
        let workgroup = u64::from(WORKGROUP);
        let whole = |n: u64| n.div_ceil(workgroup) * workgroup;
        let n = characters as u64;
        match self.recorded_shader(shader) {
            ComputeShader::PerClass => {
                n * self
                    .classes
                    .iter()
                    .map(|c| whole(u64::from(c.count)))
                    .sum::<u64>()
            }
            ComputeShader::AllClasses => n * whole(u64::from(self.vertex_count)),
            ComputeShader::PerLevel => {
                let ranges = self
                    .bound
                    .as_ref()
                    .and_then(|b| b.per_level.as_ref())
                    .map_or(1, |l| l.layout.ranges());
                let pooled = self.pool_reading().map(|p| p.vertices_in_use);
                let skins: u64 = match (pooled, skinned_at_level) {
                    (Some(vertices), _) => vertices,
                    (None, Some(counts)) => counts
                        .iter()
                        .zip(&self.level_vertices)
                        .map(|(&c, &v)| whole(c as u64 * u64::from(v)))
                        .sum(),
                    (None, None) => {
                        whole(n * u64::from(self.level_vertices.first().copied().unwrap_or(0)))
                    }
                };
                whole(n) + whole(ranges as u64) + skins
            }
        }
    }

    /// Bytes of GPU memory the skinned output takes now.
    pub fn output_bytes(&self) -> u64 {
        self.ranges.bytes()
    }

    /// Bytes of output one character takes with `pool` (`None`: its full slot) for
    /// `skinned`: what the memory budget counts.
    pub fn character_bytes(&self, skinned: &OutputLayout, pool: Option<PoolShare>) -> u64 {
        match pool {
            Some(pool) => u64::from(self.pool_vertices(pool)) * skinned.vertex_stride() as u64,
            None => skinned.instance_stride() as u64,
        }
    }

    /// Records the skinning of the instances whose palettes `palettes` holds (the
    /// renderer's dynamic buffer, laid out as the upload's layout says), with `shader`.
    /// Afterwards instance `i`'s vertices are where [`Self::locate`]`(i)` says. With `due`
    /// (the GPU animation's records, marked by its LOD pass), only the instances marked due
    /// are skinned; the others keep their vertices. With a pool asked for ([`Self::set_pool`]),
    /// `per_level` and the draws' base vertices in `marks`, every character with vertices
    /// is skinned into the pool instead (see [`super::skin_levels`]).
    pub fn record(
        &mut self,
        ctx: &mut PassContext<'_>,
        palettes: PaletteBuffer<'_>,
        shader: ComputeShader,
        marks: Option<SkinMarks<'_>>,
    ) -> Result<(), GpuSkinError> {
        let gpu = ctx.gpu;
        let due = marks.map(|m| m.records);
        let FrameShape {
            layout: upload,
            characters: instances,
        } = palettes.shape;
        let palettes_buffers = palettes.buffers;
        let device = &gpu.device;
        let Some(skinned) = upload.skinned_on_gpu() else {
            return Err(GpuSkinError::NotOnGpu {
                variant: upload.variant().spec().name,
            });
        };
        if !palettes.holds_shape() {
            return Err(GpuSkinError::PalettesTooSmall {
                bytes: palettes_buffers.bytes(),
                instances,
                needed: upload.bytes(instances),
            });
        }
        let shader = self.recorded_shader(shader);
        let per_level = shader == ComputeShader::PerLevel;
        let draw_base = marks
            .and_then(|m| m.draw_base)
            .filter(|_| per_level && self.can_pool());
        let pooled = self
            .share
            .filter(|_| draw_base.is_some())
            .map(|share| self.pool_vertices(share));
        let output_stride = match pooled {
            Some(vertices) => u64::from(vertices) * skinned.vertex_stride() as u64,
            None => skinned.instance_stride() as u64,
        };
        let per_range = palettes_buffers.per_range(self.range_instances(upload, output_stride));
        self.fit_ranges(device, output_stride, instances, per_range);
        let current = self.bound.as_ref().is_some_and(|b| {
            b.palettes == *palettes_buffers
                && b.instances == instances
                && b.upload_stride == upload.instance_stride()
                && b.upload_format == upload.format()
                && b.due.as_ref() == due
                && b.per_level.is_some() == per_level
                && b.pooled == pooled
                && b.per_level.as_ref().and_then(|l| l.draw_base.as_ref()) == draw_base
        });
        if !current {
            let marks = BindMarks {
                due,
                draw_base,
                pooled,
            };
            self.bind(gpu, palettes, &skinned, per_range, marks, per_level);
        }
        self.pooled = pooled;
        let Some(bound) = &self.bound else {
            return Err(GpuSkinError::NotBound);
        };
        if let (Some(level), Some(pipelines)) = (&bound.per_level, &self.per_level) {
            // The counts and totals start at zero each frame; the lists are written up to
            // the counts, the rooms every frame.
            ctx.encoder
                .clear_buffer(&level.work, 0, Some(4 * level.layout.slots() as u64));
            ctx.encoder.clear_buffer(
                &level.work,
                4 * level.layout.totals_first() as u64,
                Some(4 * TOTALS),
            );
            ctx.compute(&LISTS_PASS, |pass| {
                record_lists(pass, pipelines, level, instances);
            });
            ctx.compute(&PASS, |pass| record_levels(pass, pipelines, level));
            if let (Some(_), Some(vertices)) = (&level.draw_base, pooled) {
                self.totals.copy(
                    ctx.encoder,
                    &level.work,
                    4 * level.layout.totals_first() as u64,
                    vertices,
                );
            }
            return Ok(());
        }
        let levels = self.level_vertices.len().max(1);
        ctx.compute(&PASS, |pass| {
            for (r, bind_group) in bound.groups.iter().enumerate() {
                let live = live_in_range(instances, per_range, r) as u32;
                // Each range's level-0 block (the blocks are range × levels + level).
                pass.set_bind_group(0, bind_group, &[ParamBlocks::offset(r * levels)]);
                match shader {
                    ComputeShader::PerClass => {
                        for (c, class) in self.classes.iter().enumerate() {
                            if class.count > 0 {
                                pass.set_pipeline(&self.per_class[c]);
                                pass.dispatch_workgroups(class.count.div_ceil(WORKGROUP), live, 1);
                            }
                        }
                    }
                    ComputeShader::AllClasses | ComputeShader::PerLevel => {
                        if self.vertex_count > 0 {
                            pass.set_pipeline(&self.all_classes);
                            pass.dispatch_workgroups(
                                self.vertex_count.div_ceil(WORKGROUP),
                                live,
                                1,
                            );
                        }
                    }
                }
            }
        });
        Ok(())
    }

    /// Writes every range's parameters and makes its bind group (palettes of its
    /// instances, its output buffer).
    fn bind(
        &mut self,
        gpu: &GpuContext,
        palettes: PaletteBuffer<'_>,
        skinned: &OutputLayout,
        per_range: usize,
        marks: BindMarks<'_>,
        per_level: bool,
    ) {
        let BindMarks {
            due,
            draw_base,
            pooled,
        } = marks;
        let FrameShape {
            layout: upload,
            characters: instances,
        } = palettes.shape;
        let palettes = palettes.buffers;
        let (device, queue) = (&gpu.device, &gpu.queue);
        let range_count = instances.div_ceil(per_range);
        let work = WorkLayout::new(instances, per_range, self.level_vertices.len());
        let levels = work.levels();
        let dual_quat = upload.format() == OutputFormat::PaletteDualQuat;
        self.params.reserve(device, work.slots());
        ParamBlocks::clear_scratch(&mut self.scratch, work.slots());
        for slot in 0..work.slots() {
            let (r, level) = (slot / levels, slot % levels);
            let live = live_in_range(instances, per_range, r);
            let params = ParamsGpu {
                classes: self.classes,
                vertex_count: self.vertex_count,
                palette_stride: (upload.instance_stride() / 16) as u32,
                normal_offset: self.normal_offset,
                output_stride: (skinned.instance_stride() / 16) as u32,
                instances: live as u32,
                dual_quat: dual_quat as u32,
                first_instance: (r * per_range) as u32,
                lod: due.is_some() as u32,
                dual_quat_scale: self.dual_quat_scale,
                level_vertices: self.level_vertices.get(level).copied().unwrap_or(0),
                level_first: self.order_first,
                list_first: work.list_first(slot) as u32,
                fit_first: work.fit_first(slot) as u32,
                kept_by_level: match (dual_quat, self.kept_linear) {
                    (false, Some(kept)) => kept,
                    (true, _) | (false, None) => 0,
                },
                level: level as u32,
                ..ParamsGpu::default()
            };
            ParamBlocks::put(&mut self.scratch, slot, &params);
        }
        if range_count > 0 {
            queue.write_buffer(self.params.buffer(), 0, &self.scratch);
        }
        let groups = (0..range_count)
            .map(|r| {
                let [params, mesh, palettes, output] =
                    self.range_entries(palettes, upload, instances, per_range, r)?;
                let records = wgpu::BindGroupEntry {
                    binding: 2,
                    resource: due.unwrap_or(&self.no_records).as_entire_binding(),
                };
                Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("skin range"),
                    layout: &self.bind_layout,
                    entries: &[params, mesh, records, palettes, output],
                }))
            })
            .collect::<Option<Vec<_>>>();
        // `fit_ranges` made a buffer for every range.
        let Some(groups) = groups else {
            self.bound = None;
            return;
        };
        let per_level = match (&self.per_level, per_level) {
            (Some(pipelines), true) => {
                let marks = WorkMarks {
                    records: due.unwrap_or(&self.no_records),
                    lod: due.is_some(),
                    draw_base: draw_base.unwrap_or(&self.no_bases),
                    pooled,
                };
                let (work_buffer, args, bucket_group) =
                    pipelines.make_work(gpu, &work, instances, marks, &self.level_vertices);
                let bases = draw_base.unwrap_or(&self.no_bases);
                let level_groups = (0..range_count)
                    .map(|r| {
                        let [params, mesh, palettes, output] =
                            self.range_entries(palettes, upload, instances, per_range, r)?;
                        let lists = wgpu::BindGroupEntry {
                            binding: 8,
                            resource: work_buffer.as_entire_binding(),
                        };
                        let bases = wgpu::BindGroupEntry {
                            binding: 9,
                            resource: bases.as_entire_binding(),
                        };
                        Some(match (&pipelines.pool, draw_base.is_some()) {
                            (Some((_, pool_layout)), true) => {
                                device.create_bind_group(&wgpu::BindGroupDescriptor {
                                    label: Some("skin range by level into a pool"),
                                    layout: pool_layout,
                                    entries: &[params, mesh, palettes, output, lists, bases],
                                })
                            }
                            _ => device.create_bind_group(&wgpu::BindGroupDescriptor {
                                label: Some("skin range by level"),
                                layout: &pipelines.level_layout,
                                entries: &[params, mesh, palettes, output, lists],
                            }),
                        })
                    })
                    .collect::<Option<Vec<_>>>();
                let Some(level_groups) = level_groups else {
                    self.bound = None;
                    return;
                };
                Some(LevelBound {
                    layout: work,
                    draw_base: draw_base.cloned(),
                    work: work_buffer,
                    args,
                    bucket_group,
                    level_groups,
                })
            }
            _ => None,
        };
        self.bound = Some(Bound {
            palettes: palettes.clone(),
            instances,
            upload_stride: upload.instance_stride(),
            upload_format: upload.format(),
            due: due.cloned(),
            groups,
            per_level,
            pooled,
        });
    }

    /// The bindings every shader of range `r` reads alike: the parameters (a block
    /// chosen by dynamic offset), the mesh's words, the range's palettes within
    /// `palettes` and its output buffer (`None` where [`Self::fit_ranges`] made none).
    fn range_entries<'a>(
        &'a self,
        palettes: &'a PaletteBuffers,
        upload: &OutputLayout,
        instances: usize,
        per_range: usize,
        r: usize,
    ) -> Option<[wgpu::BindGroupEntry<'a>; 4]> {
        let live = live_in_range(instances, per_range, r);
        Some([
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: self.params.buffer(),
                    offset: 0,
                    size: wgpu::BufferSize::new(std::mem::size_of::<ParamsGpu>() as u64),
                }),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: self.mesh.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::Buffer(palettes.binding(
                    r * per_range,
                    live,
                    upload.instance_stride(),
                )?),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: self.ranges.buffer(r)?.as_entire_binding(),
            },
        ])
    }

    /// Makes the ranges hold their shares of `instances` ([`RangeBuffers::fit`]).
    fn fit_ranges(
        &mut self,
        device: &wgpu::Device,
        bytes_per_character: u64,
        instances: usize,
        per_range: usize,
    ) {
        if self.range_stride != bytes_per_character {
            // Buffers of another stride hold another count: made again.
            self.ranges.fit(device, 0, per_range, bytes_per_character);
            self.range_stride = bytes_per_character;
        }
        if self
            .ranges
            .fit(device, instances, per_range, bytes_per_character)
        {
            self.bound = None;
        }
    }

    /// Where instance `instance`'s skinned vertices are: which range's output buffer
    /// ([`Self::range_output`]) and the byte offset there (in a pool, the range's start:
    /// its place is given out each frame, in the draws' base vertices); `None` past the
    /// ranges.
    pub fn locate(&self, instance: usize) -> Option<(usize, u64)> {
        // Every range but the last holds exactly its capacity (`fit_ranges`).
        let stride = self.range_stride.max(1);
        let mut base = 0;
        for (r, output) in self.ranges.buffers().enumerate() {
            let held = (output.size() / stride) as usize;
            if instance < base + held {
                let offset = match self.pooled {
                    Some(_) => 0,
                    None => (instance - base) as u64 * stride,
                };
                return Some((r, offset));
            }
            base += held;
        }
        None
    }

    /// Each range's output size, bytes (what [`Self::locate`] follows).
    pub fn range_sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.ranges.buffers().map(wgpu::Buffer::size)
    }

    /// Range `range`'s output buffer (packed vertices).
    pub fn range_output(&self, range: usize) -> Option<&wgpu::Buffer> {
        self.ranges.buffer(range)
    }

    /// `per_level`'s lists of the last frame read back: the work layout and each slot's
    /// characters, ascending (what [`super::skin_levels::bucket_characters`] computes on
    /// the CPU); `None` where the last frame did not skin by level. Blocks until the GPU
    /// is done.
    pub fn read_back_level_lists(
        &self,
        gpu: &GpuContext,
    ) -> Result<Option<LevelLists>, GpuSkinError> {
        let Some(level) = self.bound.as_ref().and_then(|b| b.per_level.as_ref()) else {
            return Ok(None);
        };
        let bytes = super::readback::read_buffer(gpu, &level.work, level.work.size())?;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let lists = level
            .layout
            .lists_from_words(words)
            .ok_or(GpuSkinError::BadLevelLists)?;
        Ok(Some(LevelLists {
            layout: level.layout,
            lists,
        }))
    }

    /// With a pool, the last frame's rooms and totals read back: each slot's
    /// [`SlotFit`], the pool's vertices in use, the characters it left out and demoted,
    /// and each character's base vertex ([`NO_POOL_BASE`] where it has none); `None`
    /// without a pool. Blocks until the GPU is done.
    pub fn read_back_pool(&self, gpu: &GpuContext) -> Result<Option<PoolFrame>, GpuSkinError> {
        let Some(level) = self.bound.as_ref().and_then(|b| b.per_level.as_ref()) else {
            return Ok(None);
        };
        let (Some(draw_base), Some(_)) = (&level.draw_base, self.pooled) else {
            return Ok(None);
        };
        let bytes = super::readback::read_buffer(gpu, &level.work, level.work.size())?;
        let (fits, [in_use, left_out, needed, demoted]) = level
            .layout
            .fits_from_words(bytemuck::cast_slice(&bytes))
            .ok_or(GpuSkinError::BadPool)?;
        let characters = self.bound.as_ref().map_or(0, |b| b.instances);
        let bases = super::readback::read_buffer(gpu, draw_base, 4 * characters as u64)?;
        Ok(Some(PoolFrame {
            layout: level.layout,
            fits,
            vertices_in_use: in_use,
            left_out,
            demoted,
            needed_units: needed,
            bases: bytemuck::cast_slice(&bases).to_vec(),
            level_vertices: self.level_vertices.clone(),
        }))
    }

    /// The skinned vertices of the first `instances` instances read back to the CPU,
    /// laid out as `skinned` says (instance `i` at `i * instance_stride`): for
    /// verification and the conformance tests. From a pool, each held character's
    /// vertices are gathered from its slot into that layout (what a slot does not hold
    /// stays zero). Blocks until the GPU is done.
    pub fn read_back(
        &self,
        gpu: &GpuContext,
        skinned: &OutputLayout,
        instances: usize,
    ) -> Result<Vec<u8>, GpuSkinError> {
        if self.pooled.is_some() {
            let every: Vec<usize> = (0..instances).collect();
            return self.read_back_characters(gpu, skinned, instances, &every);
        }
        let mut out = Vec::with_capacity(skinned.bytes(instances));
        let mut left = instances;
        for output in self.ranges.buffers() {
            if left == 0 {
                break;
            }
            let held = (output.size() as usize) / skinned.instance_stride().max(1);
            let take = held.min(left);
            let bytes = super::readback::read_buffer(
                gpu,
                output,
                (take * skinned.instance_stride()) as u64,
            )?;
            out.extend_from_slice(&bytes);
            left -= take;
        }
        if left > 0 {
            return Err(GpuSkinError::Short {
                asked: instances,
                skinned: instances - left,
            });
        }
        Ok(out)
    }
}

impl GpuSkinner {
    /// The skinned vertices of the instances `indices` names (each below `instances`), the
    /// `k`th at `k * instance_stride` as `skinned` lays one out: what verify compares,
    /// without gathering a large crowd's every vertex (a million characters' full detail
    /// would be tens of GB). From a pool, each is gathered from its slot (a character the
    /// pool did not hold stays zero). Blocks until the GPU is done.
    pub fn read_back_characters(
        &self,
        gpu: &GpuContext,
        skinned: &OutputLayout,
        instances: usize,
        indices: &[usize],
    ) -> Result<Vec<u8>, GpuSkinError> {
        let stride = skinned.instance_stride();
        let vertex = skinned.vertex_stride();
        let pool = match self.pooled {
            Some(_) => self.read_back_pool(gpu)?,
            None => None,
        };
        let mut out = vec![0u8; indices.len() * stride];
        for (k, &i) in indices.iter().enumerate() {
            let located = (i < instances).then(|| self.locate(i)).flatten();
            let Some((r, offset)) = located else {
                return Err(GpuSkinError::Short {
                    asked: i + 1,
                    skinned: instances.min(i),
                });
            };
            let Some(output) = self.range_output(r) else {
                return Err(GpuSkinError::Short {
                    asked: i + 1,
                    skinned: i,
                });
            };
            let to = &mut out[k * stride..(k + 1) * stride];
            let Some(pool) = &pool else {
                to.copy_from_slice(&super::readback::read_buffer_at(
                    gpu,
                    output,
                    offset,
                    stride as u64,
                )?);
                continue;
            };
            let base = pool.bases.get(i).copied().unwrap_or(NO_POOL_BASE);
            if base == NO_POOL_BASE {
                continue;
            }
            // The character's slot: its level's prefix of the coarsest-first order, at most
            // every vertex of it.
            let at = u64::from(base) * vertex as u64;
            let span =
                (self.rank_of.len() as u64 * vertex as u64).min(output.size().saturating_sub(at));
            let slot = super::readback::read_buffer_at(gpu, output, at, span)?;
            self.unpool(&slot, to, vertex);
        }
        Ok(out)
    }

    /// A character's vertices from its pool slot (`slot` from its base vertex on, in the
    /// coarsest-first order) into `to` in the sorted order, `vertex` bytes each; what the
    /// slot does not hold stays as it was.
    fn unpool(&self, slot: &[u8], to: &mut [u8], vertex: usize) {
        for (v, &rank) in self.rank_of.iter().enumerate() {
            let from = rank as usize * vertex;
            if let (Some(src), Some(dst)) = (
                slot.get(from..from + vertex),
                to.get_mut(v * vertex..(v + 1) * vertex),
            ) {
                dst.copy_from_slice(src);
            }
        }
    }
}

/// Bytes of a skinned (packed) vertex.
const VERTEX_BYTES: u64 = 16;

/// What the skinned pool held in a recent frame: what the panel, the sidecar and the bench
/// show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PoolReading {
    /// The pool's share of full detail, percent.
    pub share_percent: u32,
    /// Bytes of the pool's buffers (every range's).
    pub capacity_bytes: u64,
    /// Skinned vertices in it, their bytes, and the most bytes since the pool was made.
    pub vertices_in_use: u64,
    pub in_use_bytes: u64,
    pub high_water_bytes: u64,
    /// Characters with vertices that the pool did not hold (drawn by no pass).
    pub left_out: u32,
    /// Characters it held at a coarser level than their own (no room at theirs).
    pub demoted: u32,
    /// Whether the share grows with the crowd's need (`auto`), and the most it may take.
    pub auto: bool,
    pub cap_percent: u32,
    /// The vertices a character had in the frame this reading came from, and the vertices
    /// every character with vertices needed at its level (each level's rounded up to
    /// [`super::skin_levels::POOL_NEED_UNIT`]s).
    #[serde(skip)]
    pub pool_vertices: u32,
    pub vertices_needed: u64,
}

/// The pool's totals (vertices in use, characters left out and demoted), read back a
/// frame or two late, and what the latest that came back said.
struct PoolTotals {
    back: super::readback::LateWords,
    reading: Option<PoolReading>,
    /// The pool's vertices a character in the frame whose copy is on its way back.
    copied_with: Option<u32>,
}

impl PoolTotals {
    fn new(device: &wgpu::Device) -> Self {
        PoolTotals {
            back: super::readback::LateWords::new(
                device,
                "skin: the pool's totals, read back",
                4 * TOTALS,
            ),
            reading: None,
            copied_with: None,
        }
    }

    fn copy(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        work: &wgpu::Buffer,
        at: u64,
        pool_vertices: u32,
    ) {
        if self.back.copy(encoder, work, at) {
            self.copied_with = Some(pool_vertices);
        }
    }

    /// Takes what came back, if anything did: the new reading (none from a pool made
    /// again since its copy).
    fn after_submit(&mut self, device: &wgpu::Device, vertex_bytes: u64) -> Option<PoolReading> {
        let came_back = self.back.after_submit(device);
        let pool_vertices = self.copied_with?;
        if let Some(&[vertices, left_out, needed, demoted]) = came_back.as_deref() {
            let in_use = u64::from(vertices) * vertex_bytes;
            let high = self.reading.map_or(0, |r| r.high_water_bytes);
            self.reading = Some(PoolReading {
                vertices_in_use: u64::from(vertices),
                in_use_bytes: in_use,
                high_water_bytes: high.max(in_use),
                left_out,
                demoted,
                pool_vertices,
                vertices_needed: u64::from(needed) * u64::from(POOL_NEED_UNIT),
                ..PoolReading::default()
            });
            return self.reading;
        }
        None
    }
}

/// A frame of the skinned pool read back ([`GpuSkinner::read_back_pool`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolFrame {
    pub layout: WorkLayout,
    /// Per slot, its first vertex in its range's pool and the listed characters it held.
    pub fits: Vec<SlotFit>,
    /// The pool's vertices in use, over every range.
    pub vertices_in_use: u32,
    /// Characters with vertices this frame that the pool did not hold, and those it held
    /// at a coarser level than their own.
    pub left_out: u32,
    pub demoted: u32,
    /// The vertices every listed character's level needs, in
    /// [`super::skin_levels::POOL_NEED_UNIT`]s, each level's rounded up.
    pub needed_units: u32,
    /// Per character, its first vertex in its range's pool ([`NO_POOL_BASE`]: none).
    pub bases: Vec<u32>,
    /// Each level's vertices.
    pub level_vertices: Vec<u32>,
}

impl PoolFrame {
    /// The level character `c` was skinned at: the level of the slot whose room holds its
    /// base vertex (`None`: the pool did not hold it).
    pub fn level_of(&self, c: usize) -> Option<usize> {
        let base = *self.bases.get(c)?;
        if base == NO_POOL_BASE {
            return None;
        }
        let range = c / self.layout.per_range();
        (0..self.layout.levels()).find(|&level| {
            let Some(fit) = self.fits.get(self.layout.slot(range, level)) else {
                return false;
            };
            let n = self.level_vertices.get(level).copied().unwrap_or(0);
            base >= fit.base && u64::from(base - fit.base) < u64::from(fit.fitted) * u64::from(n)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capable() -> (wgpu::Limits, wgpu::DownlevelCapabilities) {
        (
            wgpu::Limits::default(),
            wgpu::DownlevelCapabilities::default(),
        )
    }

    #[test]
    fn an_adapter_with_what_the_shaders_need_refuses_nothing() {
        let (limits, downlevel) = capable();
        assert_eq!(compute_refusal(&limits, &downlevel), None);
        assert_eq!(vertex_refusal(&downlevel), None);
    }

    #[test]
    fn each_missing_capability_is_named() {
        let (limits, mut downlevel) = capable();
        downlevel
            .flags
            .remove(wgpu::DownlevelFlags::COMPUTE_SHADERS);
        assert!(
            compute_refusal(&limits, &downlevel).is_some_and(|r| r.contains("no compute shaders"))
        );
        let (mut limits, downlevel) = capable();
        limits.max_storage_buffers_per_shader_stage = 3;
        assert!(compute_refusal(&limits, &downlevel).is_some_and(|r| r.contains("needs 4")));
        let (mut limits, downlevel) = capable();
        limits.max_compute_invocations_per_workgroup = 32;
        assert!(compute_refusal(&limits, &downlevel).is_some_and(|r| r.contains("workgroups")));
        let (_, mut downlevel) = capable();
        downlevel.flags.remove(wgpu::DownlevelFlags::VERTEX_STORAGE);
        assert!(vertex_refusal(&downlevel).is_some_and(|r| r.contains("vertex shaders")));
    }
}
