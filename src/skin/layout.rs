//! The output layout: where instance `i`'s vertex `v` is, in which format, and which draw
//! path reads it, answered in one place.
//!
//! How it works: [`OutputLayout::new`] derives one value from the skin variant's declared
//! properties (format, arrangement, which vertices it stores, vertex order) and the
//! prepared mesh. Everything else asks it: the kernels validate their destination against
//! it, the pipeline and the uploads size buffers with [`OutputLayout::bytes`], the renderer
//! picks its named pipeline from [`OutputLayout::draw_path`] and its per-instance offsets
//! from [`OutputLayout::instance_offset`], and every read-back (verify, `pose`, the tests)
//! decodes through [`OutputLayout::read_instance`]. CPU-side output lives in an
//! [`OutputBuffer`], made of cache lines, so its alignment is right by construction.

use glam::Vec3;

use super::{SkinDevice, SkinMethod, SkinVariant};
use crate::prepare::{PreparedMesh, PreparedRig};
use crate::types::{
    CacheLine, LANES, Mat3x4, PACKED_NORMAL_TOLERANCE, VertexF3, VertexF4, VertexInterleaved,
    VertexPacked, block_slot, unpack_normal,
};

/// Alignment of every instance's output slice, in bytes: slices are cache-line and
/// GPU-offset aligned, and no two threads ever write the same cache line.
pub const INSTANCE_ALIGN: usize = 256;

/// How one output vertex looks in memory (and so on the GPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// `VertexInterleaved`: float3 position, float3 normal, float2 uv (32 bytes).
    Interleaved,
    /// `VertexF3`: float3 position, float3 normal (24 bytes).
    Float3,
    /// `VertexF4`: float4 position, float4 normal (32 bytes, 16-byte aligned).
    Float4,
    /// `VertexPacked`: float3 position, unorm 10:10:10:2 normal direction (16 bytes).
    Packed,
    /// Not vertices: a 3×4 palette matrix (48 bytes), what the CPU writes for a variant
    /// that skins on the GPU; an instance "stores" its palette's entries.
    Palette3x4,
    /// Not vertices: a unit dual quaternion (rotation xyzw, dual part xyzw: 32 bytes), what
    /// the CPU writes for a GPU variant skinning with dual quaternions.
    PaletteDualQuat,
}

impl OutputFormat {
    pub const fn vertex_size(self) -> usize {
        match self {
            OutputFormat::Interleaved => std::mem::size_of::<VertexInterleaved>(),
            OutputFormat::Float3 => std::mem::size_of::<VertexF3>(),
            OutputFormat::Float4 => std::mem::size_of::<VertexF4>(),
            OutputFormat::Packed => std::mem::size_of::<VertexPacked>(),
            OutputFormat::Palette3x4 => std::mem::size_of::<crate::types::Mat3x4>(),
            OutputFormat::PaletteDualQuat => std::mem::size_of::<[f32; 8]>(),
        }
    }

    /// Largest normal component difference from the reference a correct kernel may show:
    /// float formats carry the blend's rounding only; `Packed` keeps ten bits per
    /// component of the direction.
    pub fn normal_tolerance(self) -> f64 {
        match self {
            OutputFormat::Packed => PACKED_NORMAL_TOLERANCE as f64,
            OutputFormat::Interleaved
            | OutputFormat::Float3
            | OutputFormat::Float4
            | OutputFormat::Palette3x4
            | OutputFormat::PaletteDualQuat => 1e-3,
        }
    }

    /// The alignment the vertex stores need.
    const fn store_align(self) -> usize {
        match self {
            OutputFormat::Float4
            | OutputFormat::Packed
            | OutputFormat::Palette3x4
            | OutputFormat::PaletteDualQuat => 16,
            OutputFormat::Interleaved | OutputFormat::Float3 => 4,
        }
    }
}

/// How instances share the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrangement {
    /// Each instance owns one contiguous slice, `instance_stride` bytes apart.
    Slices,
    /// Lane blocks: vertex `v` of a group's eight instances in `8 × vertex_size`
    /// contiguous bytes, lane `k` in slot [`block_slot`]`(k)`, written whole with
    /// non-temporal stores (so they need 32-byte alignment).
    LaneBlocks,
}

/// Which vertices an instance's output holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stores {
    /// Every vertex of the mesh.
    EveryVertex,
    /// The distinct vertices only; a UV-seam copy's result is found through
    /// `distinct_of_sorted` (by the vertex shader, and by the read-back).
    DistinctOnly,
}

/// The order of the stored vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexOrder {
    /// The rig file's order (the index buffer as imported).
    File,
    /// Influence-sorted (`prepare`'s order, with the remapped index buffer).
    InfluenceSorted,
}

/// What a draw path is, beyond its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawPathSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// It reads the uv stream from slot 1 (the interleaved path carries its uv in slot 0).
    pub reads_uv_stream: bool,
}

crate::declare_variants! {
    /// The renderer's named pipeline (vertex layout and shader entry) for an output layout:
    /// `gpu::renderer::pipelines` builds one per path from this declaration, each also as
    /// a depth-only shadow pipeline.
    pub enum DrawPath: DrawPathSpec in "draw path" {
        Interleaved => DrawPathSpec {
            name: "interleaved",
            description: "interleaved float3 position, normal and uv in slot 0",
            reads_uv_stream: false,
        },
        Float3 => DrawPathSpec {
            name: "float3",
            description: "float3 position and normal in slot 0, uv in slot 1",
            reads_uv_stream: true,
        },
        Float4 => DrawPathSpec {
            name: "float4",
            description: "float4 position and normal in slot 0, uv in slot 1",
            reads_uv_stream: true,
        },
        Packed => DrawPathSpec {
            name: "packed",
            description: "packed vertices in slot 0, uv in slot 1",
            reads_uv_stream: true,
        },
        PackedBlocks => DrawPathSpec {
            name: "packed_blocks",
            description: "packed vertices with a lane-block stride and a per-instance offset",
            reads_uv_stream: true,
        },
        Pulled => DrawPathSpec {
            name: "pulled",
            description: "each vertex's distinct index in slot 0; the vertex shader reads the instance's slot of that lane block from a storage buffer bound per group",
            reads_uv_stream: true,
        },
        GpuCompute => DrawPathSpec {
            name: "gpu_compute",
            description: "the uploaded buffer holds palettes: a compute pass skins them into packed vertices first, drawn as packed is, from the compute pass's output",
            reads_uv_stream: true,
        },
        GpuVertex => DrawPathSpec {
            name: "gpu_vertex",
            description: "the uploaded buffer holds palettes, bound per instance; the static mesh (position, normal, four joints and weights) in slot 0; the vertex shader skins",
            reads_uv_stream: true,
        },
    }
}

impl DrawPath {
    /// Whether the draw path reads the uv stream from slot 1.
    pub fn reads_uv_stream(self) -> bool {
        self.spec().reads_uv_stream
    }
}

/// Why a layout cannot be built for a variant's declared properties.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {variant} skin variant declares {format:?} vertices in {arrangement:?} storing \
     {stores:?}, which no draw path reads"
)]
pub struct UnsupportedLayout {
    pub variant: &'static str,
    pub format: OutputFormat,
    pub arrangement: Arrangement,
    pub stores: Stores,
}

/// How a packed vertex's normal becomes its ten-bit components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NormalEncoding {
    /// Not packed: the format stores floats, or palettes.
    Floats,
    /// Each normal normalised, then packed: where the rig's own normal matrices give
    /// normals of any length.
    Normalised,
    /// Packed as it comes, each component times 511 / bound: no normalisation (six vector
    /// operations a vertex fewer), since the renderer normalises anyway. The bound holds
    /// every normal the rig's skinning can produce: the longest source normal times the
    /// most any palette matrix stretches (1 for dual quaternions, which only rotate), so
    /// no component overflows. A normal shorter than the bound (linear blending shortens
    /// them where its joints' rotations differ) keeps fewer bits of its direction, by
    /// that ratio: the verify tolerance scales with it. `longest` is the longest source
    /// normal: the bound where every palette matrix is a rotation.
    Scaled {
        bound: NormalBound,
        longest: NormalBound,
    },
}

/// A positive, finite f32 (its bits, so layouts compare exactly).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NormalBound(u32);

impl NormalBound {
    pub fn new(bound: f32) -> Self {
        assert!(bound.is_finite() && bound > 0.0, "normal bound {bound}");
        NormalBound(bound.to_bits())
    }

    pub fn get(self) -> f32 {
        f32::from_bits(self.0)
    }
}

impl NormalEncoding {
    /// The encoding a lane kernel's packed output uses for `rig` skinned with `method`.
    pub fn packed(rig: &PreparedRig, method: SkinMethod) -> Self {
        // A mesh of zero normals encodes them as zero at any scale.
        let longest = if rig.longest_normal > 0.0 {
            rig.longest_normal
        } else {
            1.0
        };
        // The blend's and the transform's f32 rounding.
        const ROUNDING: f32 = 1.0 + 1e-4;
        let bound = match (method, rig.palette_stretch) {
            (SkinMethod::DualQuat, _) => longest,
            (SkinMethod::Linear, Some(stretch)) => longest * stretch,
            (SkinMethod::Linear, None) => return NormalEncoding::Normalised,
        } * ROUNDING;
        if bound.is_finite() && bound > 0.0 {
            NormalEncoding::Scaled {
                bound: NormalBound::new(bound),
                longest: NormalBound::new(longest),
            }
        } else {
            NormalEncoding::Normalised
        }
    }

    /// How much a normal's direction error may exceed the format's tolerance: 1 where
    /// normals are normalised; where they are packed at a fixed scale, the longest source
    /// normal over `length`, the length of the oracle's normal (whose normal matrices are
    /// rotations where the palette's are a rotation times one scale), with 0.1 % for the
    /// bound's own margins.
    pub fn tolerance_factor(self, length: f64) -> f64 {
        match self {
            NormalEncoding::Floats | NormalEncoding::Normalised => 1.0,
            NormalEncoding::Scaled { longest, .. } => {
                (longest.get() as f64 / length).max(1.0) * 1.001
            }
        }
    }
}

/// Where every instance's skinned vertices are (see the module docs). Made only by
/// [`OutputLayout::new`] from a variant and a prepared rig (its fields are private), so its
/// sizes, strides and alignment always agree with each other and with the mesh it was
/// made for: the kernels write by them without a check per vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputLayout {
    variant: SkinVariant,
    format: OutputFormat,
    arrangement: Arrangement,
    stores: Stores,
    order: VertexOrder,
    draw_path: DrawPath,
    vertex_count: usize,
    stored_vertices: usize,
    instance_stride: usize,
    align: usize,
    gpu_vertices: Option<GpuVertices>,
    normal_encoding: NormalEncoding,
}

impl OutputLayout {
    /// The skin variant it was made for.
    pub fn variant(&self) -> SkinVariant {
        self.variant
    }

    /// One stored element's format (a vertex, or a palette entry for a GPU variant).
    pub fn format(&self) -> OutputFormat {
        self.format
    }

    pub fn arrangement(&self) -> Arrangement {
        self.arrangement
    }

    pub fn stores(&self) -> Stores {
        self.stores
    }

    pub fn order(&self) -> VertexOrder {
        self.order
    }

    /// The renderer's named pipeline for these vertices.
    pub fn draw_path(&self) -> DrawPath {
        self.draw_path
    }

    /// The mesh's vertex count (what a draw indexes).
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Vertices each instance stores (all, or the distinct ones; palette entries for a
    /// GPU variant).
    pub fn stored_vertices(&self) -> usize {
        self.stored_vertices
    }

    /// Bytes between consecutive instances' slices, or for lane blocks an eighth of a
    /// group's blocks (a group's output is `LANES` times this either way).
    pub fn instance_stride(&self) -> usize {
        self.instance_stride
    }

    /// Alignment the output buffer needs.
    pub fn align(&self) -> usize {
        self.align
    }

    /// For a variant that skins on the GPU: its vertices there (see
    /// [`OutputLayout::skinned_on_gpu`]); the other properties then describe the palettes
    /// the CPU writes.
    pub fn gpu_vertices(&self) -> Option<GpuVertices> {
        self.gpu_vertices
    }

    /// How the stored normals are packed.
    pub fn normal_encoding(&self) -> NormalEncoding {
        self.normal_encoding
    }
}

/// Where a GPU-skinning variant's vertices are in the GPU's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuVertices {
    /// Bytes between consecutive instances' packed vertices.
    pub instance_stride: usize,
}

impl OutputLayout {
    /// The layout of `variant`'s output for `rig`, skinning with `method` (which changes
    /// only what a GPU variant's palettes hold).
    pub fn new(variant: SkinVariant, rig: &PreparedRig, method: SkinMethod) -> Self {
        match Self::try_new(variant, rig, method) {
            Ok(layout) => layout,
            // Every declared variant has a draw path (tests/validation.rs); a declaration that
            // has none is a programming error caught the first time the tests run.
            Err(e) => panic!("{e}"),
        }
    }

    /// As [`Self::new`], saying why a declaration has no draw path.
    pub fn try_new(
        variant: SkinVariant,
        rig: &PreparedRig,
        method: SkinMethod,
    ) -> Result<Self, UnsupportedLayout> {
        let spec = variant.spec();
        let vertices = Self::vertices(variant, &rig.mesh)?;
        match spec.runs_on {
            SkinDevice::Cpu => Ok(OutputLayout {
                normal_encoding: match vertices.format {
                    OutputFormat::Packed => NormalEncoding::packed(rig, method),
                    OutputFormat::Interleaved
                    | OutputFormat::Float3
                    | OutputFormat::Float4
                    | OutputFormat::Palette3x4
                    | OutputFormat::PaletteDualQuat => NormalEncoding::Floats,
                },
                ..vertices
            }),
            // The CPU writes each instance's palette (position matrices, then the normal
            // matrices where the rig has its own) as 3×4 rows, or its joints' dual
            // quaternions (which serve the normals too); the GPU the vertices (a compute
            // pass), or nobody (the vertex shader skins in every pass).
            SkinDevice::GpuCompute | SkinDevice::GpuVertex => {
                let (draw_path, gpu_vertices) = match spec.runs_on {
                    SkinDevice::GpuVertex => (DrawPath::GpuVertex, None),
                    SkinDevice::GpuCompute | SkinDevice::Cpu => (
                        DrawPath::GpuCompute,
                        Some(GpuVertices {
                            instance_stride: vertices.instance_stride,
                        }),
                    ),
                };
                let (entries, format) = match method {
                    SkinMethod::Linear => (rig.palette_stride(), OutputFormat::Palette3x4),
                    SkinMethod::DualQuat => {
                        (rig.palette_entry_stride, OutputFormat::PaletteDualQuat)
                    }
                };
                Ok(OutputLayout {
                    format,
                    arrangement: Arrangement::Slices,
                    stores: Stores::EveryVertex,
                    draw_path,
                    stored_vertices: entries,
                    instance_stride: (entries * format.vertex_size())
                        .next_multiple_of(INSTANCE_ALIGN),
                    align: format.store_align(),
                    gpu_vertices,
                    ..vertices
                })
            }
        }
    }

    /// Where the vertices of `variant`'s declared format, arrangement and order are.
    fn vertices(variant: SkinVariant, mesh: &PreparedMesh) -> Result<Self, UnsupportedLayout> {
        let spec = variant.spec();
        let unsupported = UnsupportedLayout {
            variant: spec.name,
            format: spec.format,
            arrangement: spec.arrangement,
            stores: spec.stores,
        };
        let draw_path = match (spec.format, spec.arrangement, spec.stores) {
            (OutputFormat::Interleaved, Arrangement::Slices, Stores::EveryVertex) => {
                DrawPath::Interleaved
            }
            (OutputFormat::Float3, Arrangement::Slices, Stores::EveryVertex) => DrawPath::Float3,
            (OutputFormat::Float4, Arrangement::Slices, Stores::EveryVertex) => DrawPath::Float4,
            (OutputFormat::Packed, Arrangement::Slices, Stores::EveryVertex) => DrawPath::Packed,
            (OutputFormat::Packed, Arrangement::LaneBlocks, Stores::EveryVertex) => {
                DrawPath::PackedBlocks
            }
            (OutputFormat::Packed, Arrangement::LaneBlocks, Stores::DistinctOnly) => {
                DrawPath::Pulled
            }
            (_, Arrangement::Slices, Stores::DistinctOnly)
            | (
                OutputFormat::Interleaved
                | OutputFormat::Float3
                | OutputFormat::Float4
                | OutputFormat::Palette3x4
                | OutputFormat::PaletteDualQuat,
                _,
                _,
            ) => {
                return Err(unsupported);
            }
        };
        let stored_vertices = match spec.stores {
            Stores::EveryVertex => mesh.vertex_count(),
            Stores::DistinctOnly => mesh.sorted().distinct().source().len(),
        };
        let align = match spec.arrangement {
            Arrangement::Slices => spec.format.store_align(),
            Arrangement::LaneBlocks => 32,
        };
        Ok(OutputLayout {
            variant,
            format: spec.format,
            arrangement: spec.arrangement,
            stores: spec.stores,
            order: spec.order,
            draw_path,
            vertex_count: mesh.vertex_count(),
            stored_vertices,
            instance_stride: (stored_vertices * spec.format.vertex_size())
                .next_multiple_of(INSTANCE_ALIGN),
            align,
            gpu_vertices: None,
            normal_encoding: NormalEncoding::Floats,
        })
    }

    /// For a variant that skins on the GPU, where its vertices are in the GPU's output
    /// (instance `i` at `i * instance_stride`, packed, influence-sorted): what the draw
    /// passes read and verification decodes after reading it back. `None` for CPU
    /// variants, whose vertices are where `self` says.
    pub fn skinned_on_gpu(&self) -> Option<OutputLayout> {
        let gpu = self.gpu_vertices?;
        Some(OutputLayout {
            format: self.variant.spec().format,
            arrangement: self.variant.spec().arrangement,
            stores: self.variant.spec().stores,
            draw_path: DrawPath::Packed,
            stored_vertices: self.vertex_count,
            instance_stride: gpu.instance_stride,
            align: self.variant.spec().format.store_align(),
            gpu_vertices: None,
            // The compute shader normalises before it packs.
            normal_encoding: NormalEncoding::Normalised,
            ..*self
        })
    }

    pub fn vertex_size(&self) -> usize {
        self.format.vertex_size()
    }

    /// Output bytes for `instances` instances. Lane blocks are written whole, so a partial
    /// last group takes a whole group's space.
    pub fn bytes(&self, instances: usize) -> usize {
        self.group_instances(instances) * self.instance_stride
    }

    /// Instances whose space `instances` instances take (a whole last group for lane blocks).
    fn group_instances(&self, instances: usize) -> usize {
        match self.arrangement {
            Arrangement::Slices => instances,
            Arrangement::LaneBlocks => instances.next_multiple_of(LANES),
        }
    }

    /// Bytes of one group's output chunk (the unit handed to a group task).
    pub fn group_bytes(&self) -> usize {
        LANES * self.instance_stride
    }

    /// Where the groups `groups` of a crowd of `instances` write in the output, as
    /// (offset, bytes): the span a run of groups is computed into and uploaded from.
    pub fn groups_span(&self, instances: usize, groups: &std::ops::Range<usize>) -> (usize, usize) {
        let first = groups.start * LANES;
        let count = instances.min(groups.end * LANES).saturating_sub(first);
        (groups.start * self.group_bytes(), self.bytes(count))
    }

    /// The bytes a group of `active` instances must be given: up to the end of the last
    /// live slice, or every block.
    pub fn group_bytes_needed(&self, active: usize) -> usize {
        match self.arrangement {
            Arrangement::Slices => {
                active.saturating_sub(1) * self.instance_stride
                    + self.stored_vertices * self.vertex_size()
            }
            Arrangement::LaneBlocks => self.stored_vertices * self.vertex_size() * LANES,
        }
    }

    /// Where instance `instance`'s first stored vertex is.
    pub fn instance_offset(&self, instance: usize) -> usize {
        match self.arrangement {
            Arrangement::Slices => instance * self.instance_stride,
            Arrangement::LaneBlocks => {
                let (group, lane) = (instance / LANES, instance % LANES);
                group * self.group_bytes() + block_slot(lane) * self.vertex_size()
            }
        }
    }

    /// Bytes from one of an instance's stored vertices to its next.
    pub fn vertex_stride(&self) -> usize {
        match self.arrangement {
            Arrangement::Slices => self.vertex_size(),
            Arrangement::LaneBlocks => self.vertex_size() * LANES,
        }
    }

    /// Bytes from an instance's first stored vertex to the end of its last.
    pub fn instance_span(&self) -> usize {
        self.stored_vertices.saturating_sub(1) * self.vertex_stride() + self.vertex_size()
    }

    /// Checks that `len` bytes at address `addr` can hold `instances` instances.
    pub fn check_buffer(
        &self,
        addr: usize,
        len: usize,
        instances: usize,
    ) -> Result<(), BufferError> {
        let needed = self.bytes(instances);
        if len < needed {
            return Err(BufferError::TooSmall {
                given: len,
                needed,
                instances,
            });
        }
        if needed > 0 && !addr.is_multiple_of(self.align) {
            return Err(BufferError::Misaligned { align: self.align });
        }
        Ok(())
    }

    /// Instance `instance`'s vertices decoded from a frame's output `out`, in the rig
    /// file's vertex order, as (positions, normals). `mesh` must be the one the layout was
    /// made for.
    pub fn read_instance(
        &self,
        mesh: &PreparedMesh,
        out: &[u8],
        instance: usize,
    ) -> Result<(Vec<Vec3>, Vec<Vec3>), BufferError> {
        if matches!(
            self.format,
            OutputFormat::Palette3x4 | OutputFormat::PaletteDualQuat
        ) {
            return Err(BufferError::NotVertices {
                variant: self.variant.spec().name,
            });
        }
        if mesh.vertex_count() != self.vertex_count {
            return Err(BufferError::OtherMesh {
                layout: self.vertex_count,
                mesh: mesh.vertex_count(),
            });
        }
        let first = self.instance_offset(instance);
        let end = first + self.instance_span();
        if out.len() < end {
            return Err(BufferError::TooSmall {
                given: out.len(),
                needed: end,
                instances: instance + 1,
            });
        }
        let n = self.vertex_count;
        let step = self.vertex_stride();
        let size = self.vertex_size();
        let mut positions = vec![Vec3::ZERO; n];
        let mut normals = vec![Vec3::ZERO; n];
        for v in 0..n {
            // `v` is in the layout's order; where it is stored, and which file vertex it is.
            let (stored, file) = match self.order {
                VertexOrder::File => (v, v),
                VertexOrder::InfluenceSorted => {
                    let stored = match self.stores {
                        Stores::EveryVertex => v,
                        Stores::DistinctOnly => {
                            mesh.sorted().distinct().distinct_of_sorted()[v] as usize
                        }
                    };
                    (stored, mesh.sorted().original_of_sorted()[v] as usize)
                }
            };
            let at = first + stored * step;
            let bytes = &out[at..at + size];
            let (p, q) = decode(self.format, bytes);
            positions[file] = p;
            normals[file] = q;
        }
        Ok((positions, normals))
    }
}

impl OutputLayout {
    /// The stored vertices a character skinned for `level` of the mesh's chain has written
    /// (every one its level's draws, and its shadow level's, read), as ranges of places in
    /// its stored order, ascending, touching ranges joined. A level past the chain is its
    /// coarsest; the full mesh (level 0) writes every place. `mesh` must be the one the
    /// layout was made for.
    ///
    /// The sorted orders keep each level's vertices first in every influence class
    /// ([`crate::prepare::SortedMesh`]), so a sorted layout's level is one range a class;
    /// the file order's is the level's own vertices, wherever they lie. A layout of
    /// palettes (a GPU variant's) is written whole: its entries are few next to vertices.
    pub fn level_places(&self, mesh: &PreparedMesh, level: usize) -> Vec<std::ops::Range<usize>> {
        let every: Vec<std::ops::Range<usize>> = std::iter::once(0..self.stored_vertices).collect();
        let level = level.min(mesh.level_count() - 1);
        if level == 0 {
            return every;
        }
        let mut places: Vec<std::ops::Range<usize>> = Vec::new();
        let mut add = |range: std::ops::Range<usize>| match places.last_mut() {
            Some(last) if last.end == range.start => last.end = range.end,
            _ if range.is_empty() => {}
            _ => places.push(range),
        };
        match (self.format, self.order, self.stores) {
            (OutputFormat::Palette3x4 | OutputFormat::PaletteDualQuat, _, _) => return every,
            (_, VertexOrder::File, Stores::EveryVertex) => {
                for &v in mesh.level_vertices(level).unwrap_or_default() {
                    add(v as usize..v as usize + 1);
                }
            }
            // No layout stores the file order's distinct vertices; were one declared, every
            // place is the safe answer.
            (_, VertexOrder::File, Stores::DistinctOnly) => return every,
            (_, VertexOrder::InfluenceSorted, stores) => {
                let runs = match stores {
                    Stores::EveryVertex => mesh.sorted().class_runs(),
                    Stores::DistinctOnly => mesh.sorted().distinct().runs(),
                };
                // A run of the sorted order fills `len × (1 + copies)` places; the distinct
                // vertices, `len`.
                let mut at = 0;
                for run in runs {
                    let filled = match stores {
                        Stores::EveryVertex => run.len * (1 + run.copies),
                        Stores::DistinctOnly => run.len,
                    };
                    if run.deepest_level >= level {
                        add(at..at + filled);
                    }
                    at += filled;
                }
            }
        }
        places
    }

    /// [`Self::level_places`] as bytes of a group's output, from the group's first byte:
    /// what a group skinned for `level` has written, so what an upload of it copies. Each
    /// lane's slice in turn for slices; for lane blocks, the blocks of the level's places.
    pub fn level_group_bytes(
        &self,
        mesh: &PreparedMesh,
        level: usize,
    ) -> Vec<std::ops::Range<usize>> {
        let places = self.level_places(mesh, level);
        let stride = self.vertex_stride();
        let mut bytes: Vec<std::ops::Range<usize>> = Vec::new();
        let mut add = |range: std::ops::Range<usize>| match bytes.last_mut() {
            Some(last) if last.end == range.start => last.end = range.end,
            _ => bytes.push(range),
        };
        match self.arrangement {
            Arrangement::Slices => {
                for lane in 0..LANES {
                    let first = lane * self.instance_stride;
                    for p in &places {
                        add(first + p.start * stride..first + p.end * stride);
                    }
                }
            }
            Arrangement::LaneBlocks => {
                for p in &places {
                    add(p.start * stride..p.end * stride);
                }
            }
        }
        bytes
    }
}

impl OutputLayout {
    /// Instance `instance`'s palette from a frame's output `out` of a layout that holds
    /// palettes (a GPU variant's): its position matrices and its normal matrices (the same
    /// where the rig has no own ones), `rig.palette_len()` each.
    pub fn read_palettes(
        &self,
        rig: &PreparedRig,
        out: &[u8],
        instance: usize,
    ) -> Result<(Vec<Mat3x4>, Vec<Mat3x4>), BufferError> {
        if self.format != OutputFormat::Palette3x4 {
            return Err(BufferError::NotPalettes {
                variant: self.variant.spec().name,
            });
        }
        let joints = rig.palette_len();
        let first = self.instance_offset(instance);
        let end = first + self.stored_vertices * self.vertex_size();
        if out.len() < end || self.stored_vertices < rig.palette_stride() {
            return Err(BufferError::TooSmall {
                given: out.len(),
                needed: end,
                instances: instance + 1,
            });
        }
        let entry = |k: usize| -> Mat3x4 {
            let at = first + k * self.vertex_size();
            bytemuck::pod_read_unaligned(&out[at..at + self.vertex_size()])
        };
        let normals = rig.normal_palette_offset();
        Ok((
            (0..joints).map(entry).collect(),
            (normals..normals + joints).map(entry).collect(),
        ))
    }
}

impl OutputLayout {
    /// Instance `instance`'s dual quaternions (rotation xyzw, dual part xyzw), one per
    /// palette entry, from a frame's output `out` of a GPU variant skinning with dual quaternions.
    pub fn read_dual_quats(
        &self,
        rig: &PreparedRig,
        out: &[u8],
        instance: usize,
    ) -> Result<Vec<[f32; 8]>, BufferError> {
        if self.format != OutputFormat::PaletteDualQuat {
            return Err(BufferError::NotPalettes {
                variant: self.variant.spec().name,
            });
        }
        let first = self.instance_offset(instance);
        let end = first + self.stored_vertices * self.vertex_size();
        if out.len() < end || self.stored_vertices < rig.palette_len() {
            return Err(BufferError::TooSmall {
                given: out.len(),
                needed: end,
                instances: instance + 1,
            });
        }
        Ok((0..rig.palette_len())
            .map(|k| {
                let at = first + k * self.vertex_size();
                bytemuck::pod_read_unaligned(&out[at..at + self.vertex_size()])
            })
            .collect())
    }
}

/// One vertex of `format` from its bytes (any alignment).
fn decode(format: OutputFormat, bytes: &[u8]) -> (Vec3, Vec3) {
    match format {
        OutputFormat::Interleaved => {
            let v: VertexInterleaved = bytemuck::pod_read_unaligned(bytes);
            (Vec3::from(v.position), Vec3::from(v.normal))
        }
        OutputFormat::Float3 => {
            let v: VertexF3 = bytemuck::pod_read_unaligned(bytes);
            (Vec3::from(v.position), Vec3::from(v.normal))
        }
        OutputFormat::Float4 => {
            let v: VertexF4 = bytemuck::pod_read_unaligned(bytes);
            (
                Vec3::from_slice(&v.position[..3]),
                Vec3::from_slice(&v.normal[..3]),
            )
        }
        OutputFormat::Packed => {
            let v: VertexPacked = bytemuck::pod_read_unaligned(bytes);
            (Vec3::from(v.position), unpack_normal(v.normal))
        }
        // `read_instance` refuses palettes before decoding.
        OutputFormat::Palette3x4 | OutputFormat::PaletteDualQuat => (Vec3::NAN, Vec3::NAN),
    }
}

/// A buffer that does not fit an output layout.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BufferError {
    #[error("output buffer holds {given} bytes; {needed} are needed for {instances} instances")]
    TooSmall {
        given: usize,
        needed: usize,
        instances: usize,
    },
    #[error("output buffer is not {align}-byte aligned (the skin variant's stores need it)")]
    Misaligned { align: usize },
    #[error("the output layout is for a mesh of {layout} vertices, given one of {mesh}")]
    OtherMesh { layout: usize, mesh: usize },
    #[error(
        "the {variant} variant's CPU output is palettes: its vertices are skinned on the GPU \
         and must be read back from there"
    )]
    NotVertices { variant: &'static str },
    #[error("the {variant} variant's output is vertices, not palettes")]
    NotPalettes { variant: &'static str },
}

/// CPU-side skinned output: whole cache lines, so every layout's alignment (at most 32)
/// holds by construction. Every CPU caller (the `write_buffer` upload, verify, `pose`,
/// the bench, the tests) uses this type.
#[derive(Clone, Default)]
pub struct OutputBuffer {
    lines: Vec<CacheLine>,
    len: usize,
}

impl OutputBuffer {
    /// A zeroed buffer for `instances` instances of `layout`.
    pub fn for_instances(layout: &OutputLayout, instances: usize) -> Self {
        Self::zeroed(layout.bytes(instances))
    }

    /// A zeroed buffer of `bytes` bytes.
    pub fn zeroed(bytes: usize) -> Self {
        OutputBuffer {
            lines: vec![CacheLine::ZERO; bytes.div_ceil(64)],
            len: bytes,
        }
    }

    /// Makes the buffer `bytes` long, reallocating only when it must grow or when it holds
    /// more than four times what is asked (so a crowd that shrinks gives its memory back,
    /// and one that wavers around a size does not reallocate every frame).
    pub fn resize(&mut self, bytes: usize) {
        let lines = bytes.div_ceil(64);
        if self.lines.len() < lines || lines.saturating_mul(4) < self.lines.len() {
            self.lines = vec![CacheLine::ZERO; lines];
        }
        self.len = bytes;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_bytes(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.lines)[..self.len]
    }

    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        &mut bytemuck::cast_slice_mut(&mut self.lines)[..self.len]
    }

    /// The bytes it holds now, whatever its length.
    pub fn capacity_bytes(&self) -> usize {
        self.lines.len() * 64
    }
}

#[cfg(test)]
mod tests {
    use super::OutputBuffer;

    #[test]
    fn a_buffer_gives_memory_back_when_it_shrinks_to_under_a_quarter() {
        let mut buffer = OutputBuffer::default();
        buffer.resize(1 << 20);
        assert_eq!(buffer.capacity_bytes(), 1 << 20);
        // Down to a half: kept, so a wavering crowd does not reallocate every frame.
        buffer.resize(1 << 19);
        assert_eq!((buffer.len(), buffer.capacity_bytes()), (1 << 19, 1 << 20));
        buffer.resize(1 << 20);
        assert_eq!(buffer.capacity_bytes(), 1 << 20);
        // Down to under a quarter: given back.
        buffer.resize(1000);
        assert_eq!((buffer.len(), buffer.capacity_bytes()), (1000, 1024));
    }
}
