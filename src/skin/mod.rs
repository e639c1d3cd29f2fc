//! skin: palette + prepared vertices → skinned positions and normals.
//!
//! How it works: one file per variant, each one step on from the one before, first the
//! steps of Stefan Reinalter's "Adventures in data-oriented design – Part 4: Skinning it to 11":
//! `naive` (4 influences, 4×4 weighted sum, interleaved float3 output with the uv copied),
//! `split` (only the skinned stream is written), `float4` (16-byte aligned float4 in and
//! out), `sorted` (four loops by influence count), `tuned` (3×4 palette, checks hoisted),
//! then the lane kernels of [`simd`](mod@simd): `simd` (eight instances per register),
//! `packed` (16-byte output), `distinct` (each distinct vertex skinned once), `streamed`
//! (lane blocks, non-temporal stores), `pulled` (copies not stored; the vertex shader reads
//! them by index). Every variant is checked against [`reference`](mod@reference), the f64
//! oracle.
//!
//! The variants are declared once, below: each row names the palette layout the variant
//! reads and the output it writes (format, arrangement, which vertices, order). From that
//! row [`OutputLayout`] derives where each instance's vertices are; the lane kernels are
//! generic over an [`output`] writer, the store format as one type (ACL's output writer).
//! [`run_group`] validates a group's inputs against the layout once, then runs the kernel,
//! which skins only the vertices the group's level of the mesh's chain draws (a prefix of
//! each influence class in the sorted order, the level's own list in the file's order);
//! every other vertex keeps its place and what it held.

pub mod dest;
pub mod float4;
pub mod influence_cuts;
pub mod joint_merges;
pub mod layout;
pub mod level_cache;
pub mod level_errors;
pub mod mesh_lod;
pub mod method;
pub mod naive;
pub mod normal_rules;
pub mod output;
mod palette_rows;
pub mod pool;
pub mod reduction;
pub mod reference;
pub mod simd;
pub mod sorted;
pub mod split;
pub mod tracked_bound;
pub mod tuned;
pub mod volume;

pub use dest::Dest;
pub use layout::{
    Arrangement, BufferError, DrawPath, INSTANCE_ALIGN, OutputBuffer, OutputFormat, OutputLayout,
    Stores, VertexOrder,
};

pub use method::{MethodSpec, NotRigid, SkinMethod};

use crate::anim::palette::{PaletteLayout, Palettes};
use crate::prepare::PreparedRig;
use crate::rig::MAX_INFLUENCES;
use crate::types::LANES;
use crate::variant::Variant;

crate::declare_variants! {
    /// The skin stage's variants, baseline first, each the previous one plus one step.
    pub enum SkinVariant: SkinSpec in "skin" {
        Naive => SkinSpec {
            name: "naive",
            description: "always 4 influences, weighted 4x4 sum, interleaved float3 pos/normal + float2 uv out, uv copied every frame",
            palette: PaletteLayout::Mat4,
            format: OutputFormat::Interleaved,
            arrangement: Arrangement::Slices,
            skins: Skins::EveryVertex,
            stores: Stores::EveryVertex,
            order: VertexOrder::File,
            lanes: 1,
            runs_on: SkinDevice::Cpu,
            methods: LINEAR_ONLY,
            max_influences: 4,
        },
        Split => SkinSpec {
            name: "split",
            description: "+ only the skinned stream (pos, normal) is written; the uv stream is static",
            palette: PaletteLayout::Mat4,
            format: OutputFormat::Float3,
            arrangement: Arrangement::Slices,
            skins: Skins::EveryVertex,
            stores: Stores::EveryVertex,
            order: VertexOrder::File,
            lanes: 1,
            runs_on: SkinDevice::Cpu,
            methods: LINEAR_ONLY,
            max_influences: 4,
        },
        Float4 => SkinSpec {
            name: "float4",
            description: "+ float4 source and destination, 16-byte aligned",
            palette: PaletteLayout::Mat4,
            format: OutputFormat::Float4,
            arrangement: Arrangement::Slices,
            skins: Skins::EveryVertex,
            stores: Stores::EveryVertex,
            order: VertexOrder::File,
            lanes: 1,
            runs_on: SkinDevice::Cpu,
            methods: LINEAR_ONLY,
            max_influences: 4,
        },
        Sorted => SkinSpec {
            name: "sorted",
            description: "+ vertices sorted by influence count, four specialised loops",
            palette: PaletteLayout::Mat4,
            format: OutputFormat::Float4,
            arrangement: Arrangement::Slices,
            skins: Skins::EveryVertex,
            stores: Stores::EveryVertex,
            order: VertexOrder::InfluenceSorted,
            lanes: 1,
            runs_on: SkinDevice::Cpu,
            methods: LINEAR_ONLY,
            max_influences: 4,
        },
        Tuned => SkinSpec {
            name: "tuned",
            description: "+ 3x4 palette, FMA-friendly, bounds checks hoisted by validating once",
            palette: PaletteLayout::Mat3x4,
            format: OutputFormat::Float4,
            arrangement: Arrangement::Slices,
            skins: Skins::EveryVertex,
            stores: Stores::EveryVertex,
            order: VertexOrder::InfluenceSorted,
            lanes: 1,
            runs_on: SkinDevice::Cpu,
            methods: LINEAR_ONLY,
            max_influences: MAX_INFLUENCES,
        },
        Simd => SkinSpec {
            name: "simd",
            description: "8 instances per register (palettes SoA, lane = instance), AVX-512 or AVX2/FMA detected at run time",
            palette: PaletteLayout::Lanes,
            format: OutputFormat::Float4,
            arrangement: Arrangement::Slices,
            skins: Skins::EveryVertex,
            stores: Stores::EveryVertex,
            order: VertexOrder::InfluenceSorted,
            lanes: LANES,
            runs_on: SkinDevice::Cpu,
            methods: BOTH_METHODS,
            max_influences: MAX_INFLUENCES,
        },
        Packed => SkinSpec {
            name: "packed",
            description: "+ 16-byte output: float3 position, unorm10:10:10:2 normal (half the bytes to store and upload)",
            palette: PaletteLayout::Lanes,
            format: OutputFormat::Packed,
            arrangement: Arrangement::Slices,
            skins: Skins::EveryVertex,
            stores: Stores::EveryVertex,
            order: VertexOrder::InfluenceSorted,
            lanes: LANES,
            runs_on: SkinDevice::Cpu,
            methods: BOTH_METHODS,
            max_influences: MAX_INFLUENCES,
        },
        Distinct => SkinSpec {
            name: "distinct",
            description: "+ each distinct vertex skinned once, its copies (UV seams) stored from the same registers",
            palette: PaletteLayout::Lanes,
            format: OutputFormat::Packed,
            arrangement: Arrangement::Slices,
            skins: Skins::DistinctOnce,
            stores: Stores::EveryVertex,
            order: VertexOrder::InfluenceSorted,
            lanes: LANES,
            runs_on: SkinDevice::Cpu,
            methods: BOTH_METHODS,
            max_influences: MAX_INFLUENCES,
        },
        Streamed => SkinSpec {
            name: "streamed",
            description: "+ a group's 8 instances interleaved per vertex (128-byte blocks), written with non-temporal stores",
            palette: PaletteLayout::Lanes,
            format: OutputFormat::Packed,
            arrangement: Arrangement::LaneBlocks,
            skins: Skins::DistinctOnce,
            stores: Stores::EveryVertex,
            order: VertexOrder::InfluenceSorted,
            lanes: LANES,
            runs_on: SkinDevice::Cpu,
            methods: BOTH_METHODS,
            max_influences: MAX_INFLUENCES,
        },
        Pulled => SkinSpec {
            name: "pulled",
            description: "+ copies not stored: the vertex shader reads each vertex's block through a static index (vertex pulling)",
            palette: PaletteLayout::Lanes,
            format: OutputFormat::Packed,
            arrangement: Arrangement::LaneBlocks,
            skins: Skins::DistinctOnce,
            stores: Stores::DistinctOnly,
            order: VertexOrder::InfluenceSorted,
            lanes: LANES,
            runs_on: SkinDevice::Cpu,
            methods: BOTH_METHODS,
            max_influences: MAX_INFLUENCES,
        },
        GpuCompute => SkinSpec {
            name: "gpu_compute",
            description: "the GPU skins: the CPU uploads 3x4 palettes, a compute pass per influence class writes every instance's packed vertices once a frame, every draw pass reads them",
            palette: PaletteLayout::Lanes,
            format: OutputFormat::Packed,
            arrangement: Arrangement::Slices,
            skins: Skins::EveryVertex,
            stores: Stores::EveryVertex,
            order: VertexOrder::InfluenceSorted,
            lanes: 1,
            runs_on: SkinDevice::GpuCompute,
            methods: BOTH_METHODS,
            max_influences: MAX_INFLUENCES,
        },
        GpuVertex => SkinSpec {
            name: "gpu_vertex",
            description: "the GPU skins in the vertex shader: the CPU uploads 3x4 palettes, the mesh (up to 8 influences a vertex) is uploaded once, every draw pass skins again",
            palette: PaletteLayout::Lanes,
            format: OutputFormat::Float3,
            arrangement: Arrangement::Slices,
            skins: Skins::EveryVertex,
            stores: Stores::EveryVertex,
            order: VertexOrder::File,
            lanes: 1,
            runs_on: SkinDevice::GpuVertex,
            methods: BOTH_METHODS,
            max_influences: MAX_INFLUENCES,
        },
    }
}

/// A skin variant's properties (its row of the declaration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkinSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// The palette layout it reads.
    pub palette: PaletteLayout,
    /// One output vertex's format.
    pub format: OutputFormat,
    /// Instance slices, or a group's instances interleaved in lane blocks.
    pub arrangement: Arrangement,
    /// Which vertices it computes: every one, or each distinct vertex once.
    pub skins: Skins,
    /// Which vertices it stores.
    pub stores: Stores,
    pub order: VertexOrder,
    /// Instances per kernel call (1, or a group of [`LANES`] in one register).
    pub lanes: usize,
    /// Where the vertices are skinned. For a GPU variant, `format`, `arrangement`,
    /// `stores` and `order` describe the vertices the GPU computes; what the CPU writes (and
    /// uploads) is the palettes ([`OutputLayout`] says where).
    pub runs_on: SkinDevice,
    /// The skinning methods its kernel implements (linear first).
    pub methods: &'static [SkinMethod],
    /// The most influences a vertex may have (its kernel's classes, or four for the
    /// article's first variants);
    /// a rig with more is refused (`--max-influences` cuts a rig's to fewer).
    pub max_influences: usize,
}

const LINEAR_ONLY: &[SkinMethod] = &[SkinMethod::Linear];
const BOTH_METHODS: &[SkinMethod] = &[SkinMethod::Linear, SkinMethod::DualQuat];

/// What a skin device does each frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkinDeviceSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// The CPU writes every vertex (otherwise it writes palettes and the GPU skins).
    pub cpu_writes_vertices: bool,
    /// A compute pass skins before the draws (the frame records it, and times it).
    pub compute_pass: bool,
}

crate::declare_variants! {
    /// Where a skin variant skins: each variant's `runs_on`. The renderer, the uploads,
    /// the adapter checks and the bench match on it exhaustively.
    pub enum SkinDevice: SkinDeviceSpec in "skin device" {
        Cpu => SkinDeviceSpec {
            name: "cpu",
            description: "a CPU kernel writes the vertices; they are uploaded",
            cpu_writes_vertices: true,
            compute_pass: false,
        },
        GpuCompute => SkinDeviceSpec {
            name: "gpu_compute",
            description: "the CPU writes 3×4 palettes; a compute pass skins them on the GPU once a frame",
            cpu_writes_vertices: false,
            compute_pass: true,
        },
        GpuVertex => SkinDeviceSpec {
            name: "gpu_vertex",
            description: "the CPU writes 3×4 palettes; the vertex shader skins, in every pass, and nothing is stored",
            cpu_writes_vertices: false,
            compute_pass: false,
        },
    }
}

impl SkinDevice {
    /// Whether a compute pass skins (the frame records it, and times it, before the draws).
    pub fn has_compute_pass(self) -> bool {
        self.spec().compute_pass
    }
}

/// Which vertices a variant computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skins {
    EveryVertex,
    /// UV-seam copies share position, normal and influences: computed once, from the
    /// prepared mesh's distinct runs.
    DistinctOnce,
}

impl SkinVariant {
    pub fn palette_layout(self) -> PaletteLayout {
        self.spec().palette
    }

    pub fn output_format(self) -> OutputFormat {
        self.spec().format
    }

    /// The vertices a CPU kernel of this variant writes for one character drawn at
    /// `level` of the mesh's chain ([`run_group`]): in file order the level's own, in
    /// sorted order each class's prefix that holds them (with the copies of their
    /// distinct vertices).
    pub fn vertices_skinned_at(self, rig: &PreparedRig, level: usize) -> usize {
        match self.spec().order {
            VertexOrder::File => rig
                .mesh
                .level_vertices(level)
                .map_or(rig.vertex_count(), <[u32]>::len),
            VertexOrder::InfluenceSorted => rig.mesh.sorted().class_prefix(level).iter().sum(),
        }
    }

    /// Whether a CPU kernel skins (the vertices are in the CPU's output); otherwise the
    /// CPU writes palettes and the GPU skins.
    pub fn skins_on_cpu(self) -> bool {
        self.spec().runs_on.spec().cpu_writes_vertices
    }

    /// Why this variant cannot skin `rig` with `method` (the rig has more influences a
    /// vertex than the kernel takes, the kernel does not implement the method, or the
    /// rig's joints are not rigid for dual quaternions), or `None`.
    pub fn refusal(self, method: SkinMethod, rig: &PreparedRig) -> Option<String> {
        let most = rig.max_influences;
        if most > self.spec().max_influences {
            return Some(format!(
                "the {} skin variant takes {} influences a vertex; {} has vertices with {most} \
                 (--max-influences {} cuts them)",
                self.name(),
                self.spec().max_influences,
                rig.name,
                self.spec().max_influences
            ));
        }
        if !self.spec().methods.contains(&method) {
            let with: Vec<&str> = SkinVariant::ALL
                .iter()
                .filter(|v| v.spec().methods.contains(&method))
                .map(|v| v.name())
                .collect();
            return Some(format!(
                "the {} skin variant implements {} only; {} skinning runs in {}",
                self.name(),
                self.spec()
                    .methods
                    .iter()
                    .map(|m| m.name())
                    .collect::<Vec<_>>()
                    .join(" and "),
                method.name(),
                with.join(", ")
            ));
        }
        method.rig_refusal(rig).map(|why| why.to_string())
    }

    /// This variant's output layout for `rig`, skinning with `method`.
    pub fn layout(self, rig: &PreparedRig, method: SkinMethod) -> OutputLayout {
        OutputLayout::new(self, rig, method)
    }
}

/// The weighted sum of a vertex's four palette matrices (unused influences weigh 0 and are
/// multiplied anyway): the blend of the three unsorted variants.
#[inline(always)]
pub(crate) fn blend4(palette: &[glam::Mat4], joints: [u16; 4], weights: [f32; 4]) -> glam::Mat4 {
    palette[joints[0] as usize] * weights[0]
        + palette[joints[1] as usize] * weights[1]
        + palette[joints[2] as usize] * weights[2]
        + palette[joints[3] as usize] * weights[3]
}

/// Why a skin call was refused (checked once per group, before any vertex is touched).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SkinError {
    #[error("the {variant} skin variant reads {expected:?} palettes, given {given:?}")]
    WrongPalette {
        variant: &'static str,
        expected: PaletteLayout,
        given: PaletteLayout,
    },
    #[error("palettes hold {given} entries; {needed} are needed")]
    PaletteTooShort { given: usize, needed: usize },
    #[error("the output layout is the {layout} variant's, not {variant}'s")]
    OtherVariant {
        variant: &'static str,
        layout: &'static str,
    },
    #[error("{active} live instances in a group; 1..={LANES} are allowed")]
    Active { active: usize },
    #[error("the {variant} skin variant does not implement {method} skinning")]
    Method {
        variant: &'static str,
        method: &'static str,
    },
    #[error("the output layout holds {format:?} palettes, not what {method} skinning needs")]
    MethodLayout {
        method: &'static str,
        format: OutputFormat,
    },
    #[error(
        "the output layout was made for another rig than {rig}, or for another method than {method}"
    )]
    LayoutOfAnotherRig { rig: String, method: &'static str },
    #[error(transparent)]
    Buffer(#[from] BufferError),
}

/// Which instances of a group are skinned, and for which level of the mesh's chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkinGroup {
    /// Live instances, 1..=8 (a partial last group has fewer).
    pub active: usize,
    /// Every instance of the group is drawn at this level or finer (0: the full mesh), so
    /// only the vertices that level's triangles use are skinned; the others keep what they
    /// held. A level past the chain's coarsest is the coarsest.
    pub level: usize,
}

impl SkinGroup {
    /// `active` instances, every vertex.
    pub fn full(active: usize) -> Self {
        SkinGroup { active, level: 0 }
    }
}

/// Skins one group (`group.active` instances) into `out`, the group's chunk of the output
/// (instance `k`'s vertices where `layout` says, counted from the chunk's start), for
/// `group.level`. Validates everything once (ozz's `Validate()`), then runs the variant's
/// kernel, which does no per-element checks.
pub fn run_group(
    variant: SkinVariant,
    rig: &PreparedRig,
    layout: &OutputLayout,
    palettes: Palettes,
    mut out: Dest<u8>,
    group: SkinGroup,
    method: SkinMethod,
) -> Result<(), SkinError> {
    let SkinGroup { active, level } = group;
    if !variant.spec().methods.contains(&method) {
        return Err(SkinError::Method {
            variant: variant.spec().name,
            method: method.name(),
        });
    }
    if layout.variant() != variant {
        return Err(SkinError::OtherVariant {
            variant: variant.spec().name,
            layout: layout.variant().spec().name,
        });
    }
    let palette_format = match method {
        SkinMethod::Linear => OutputFormat::Palette3x4,
        SkinMethod::DualQuat => OutputFormat::PaletteDualQuat,
    };
    // A GPU variant's palettes hold what its method's shaders read.
    if !variant.skins_on_cpu() && layout.format() != palette_format {
        return Err(SkinError::MethodLayout {
            method: method.name(),
            format: layout.format(),
        });
    }
    if layout.vertex_count() != rig.vertex_count() {
        return Err(BufferError::OtherMesh {
            layout: layout.vertex_count(),
            mesh: rig.vertex_count(),
        }
        .into());
    }
    // A layout is only made from a rig, so it always agrees with itself; it must also be
    // the one this rig and method give, or the kernels would write another mesh's sizes.
    if OutputLayout::try_new(variant, rig, method).ok().as_ref() != Some(layout) {
        return Err(SkinError::LayoutOfAnotherRig {
            rig: rig.name.clone(),
            method: method.name(),
        });
    }
    if !(1..=LANES).contains(&active) {
        return Err(SkinError::Active { active });
    }
    if palettes.layout() != variant.palette_layout() {
        return Err(SkinError::WrongPalette {
            variant: variant.spec().name,
            expected: variant.palette_layout(),
            given: palettes.layout(),
        });
    }
    let s = rig.palette_stride();
    let normals = rig.normal_palette_offset();
    let needed = match palettes.layout() {
        PaletteLayout::Mat4 | PaletteLayout::Mat3x4 => active * s,
        PaletteLayout::Lanes => normals + rig.mesh.sorted().joint_bound(),
    };
    if palettes.len() < needed {
        return Err(SkinError::PaletteTooShort {
            given: palettes.len(),
            needed,
        });
    }
    let needed = layout.group_bytes_needed(active);
    if out.len() < needed {
        return Err(BufferError::TooSmall {
            given: out.len(),
            needed,
            instances: active,
        }
        .into());
    }
    if !(out.as_mut_ptr() as usize).is_multiple_of(layout.align()) {
        return Err(BufferError::Misaligned {
            align: layout.align(),
        }
        .into());
    }
    let stride = layout.instance_stride();
    let bytes = layout.stored_vertices() * layout.vertex_size();
    // One instance's slice and its palettes (position matrices, and the normal matrices,
    // which are the same slice where the rig needs no own ones): for the one-instance
    // kernels, each monomorphized with and without own normal matrices.
    let own = rig.own_normal_matrices();
    // The file-order kernels take the level's vertex list, the sorted ones the level.
    let listed = rig.mesh.level_vertices(level);
    // A level that cuts its vertices' influences is skinned with the cut: the file-order
    // kernels blend its weights, the sorted ones read its arrays.
    let cut = level_cut(rig, level, method);
    let weights4 = cut.map_or(rig.mesh.weights4(), |c| rig.mesh.weights4_cut(c.kept()));
    macro_rules! each_instance {
        ($p:ident, $kernel:ident, ($($input:expr),+), $level:expr) => {
            for k in 0..active {
                let palette = &$p[k * s..(k + 1) * s];
                let normal_palette = &palette[normals..];
                let mut dest = out.range(k * stride, bytes).cast();
                if own {
                    $kernel::run::<true>($($input),+, palette, normal_palette, &mut dest, $level);
                } else {
                    $kernel::run::<false>($($input),+, palette, normal_palette, &mut dest, $level);
                }
            }
        };
    }
    let wrong = || SkinError::WrongPalette {
        variant: variant.spec().name,
        expected: variant.palette_layout(),
        given: palettes.layout(),
    };
    match variant {
        SkinVariant::Naive => {
            let Palettes::Mat4(p) = palettes else {
                return Err(wrong());
            };
            each_instance!(p, naive, (&rig.mesh, weights4), listed);
        }
        SkinVariant::Split => {
            let Palettes::Mat4(p) = palettes else {
                return Err(wrong());
            };
            each_instance!(p, split, (&rig.mesh, weights4), listed);
        }
        SkinVariant::Float4 => {
            let Palettes::Mat4(p) = palettes else {
                return Err(wrong());
            };
            each_instance!(p, float4, (&rig.mesh, weights4), listed);
        }
        SkinVariant::Sorted => {
            let Palettes::Mat4(p) = palettes else {
                return Err(wrong());
            };
            each_instance!(p, sorted, (rig.mesh.sorted(), cut), level);
        }
        SkinVariant::Tuned => {
            let Palettes::Mat3x4(p) = palettes else {
                return Err(wrong());
            };
            each_instance!(p, tuned, (rig.mesh.sorted(), cut), level);
        }
        SkinVariant::Simd
        | SkinVariant::Packed
        | SkinVariant::Distinct
        | SkinVariant::Streamed
        | SkinVariant::Pulled => {
            let Palettes::Lanes(p) = palettes else {
                return Err(wrong());
            };
            simd::run(rig, p, out, layout, active, method, level);
        }
        SkinVariant::GpuCompute | SkinVariant::GpuVertex => {
            let Palettes::Lanes(p) = palettes else {
                return Err(wrong());
            };
            // The GPU skins; the CPU's part is the palettes, each instance's as 3×4 rows
            // where the layout says.
            palette_rows::run(p, out, layout, active);
        }
    }
    Ok(())
}

/// How many influences each vertex of a character skinned for `level` of `rig`'s chain
/// with `method` blends, where its level cuts them ([`influence_cuts`]; linear blending
/// only: the cuts are measured with it, and dual quaternions keep every influence);
/// `None`: every influence. Every path asks here: the CPU's kernels, `gpu_compute`'s
/// parameters and `gpu_vertex`'s cut copies of its mesh.
pub fn level_kept(rig: &PreparedRig, level: usize, method: SkinMethod) -> Option<usize> {
    match method {
        SkinMethod::Linear => level_errors::kept_at(rig, level),
        SkinMethod::DualQuat => None,
    }
}

/// The CPU kernels' form of [`level_kept`]: the sorted mesh's cut.
pub(crate) fn level_cut(
    rig: &PreparedRig,
    level: usize,
    method: SkinMethod,
) -> Option<&crate::prepare::InfluenceCut> {
    level_kept(rig, level, method).map(|k| rig.mesh.sorted().cut(k))
}

/// Instance `instance`'s vertices from a frame's output `out`, in file vertex order, as
/// (positions, normals): [`OutputLayout::read_instance`] for `variant`'s layout.
pub fn read_instance(
    variant: SkinVariant,
    rig: &PreparedRig,
    out: &[u8],
    instance: usize,
) -> Result<(Vec<glam::Vec3>, Vec<glam::Vec3>), BufferError> {
    variant
        .layout(rig, SkinMethod::Linear)
        .read_instance(&rig.mesh, out, instance)
}
