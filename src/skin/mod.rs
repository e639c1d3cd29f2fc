//! skin: palette + prepared vertices → skinned positions and normals.
//!
//! How it works: one file per variant, each the cumulative seed-004 step of DESIGN §2:
//! `naive` (4 influences, 4×4 weighted sum, interleaved float3 output with the uv copied),
//! `split` (only the skinned stream is written), `float4` (16-byte aligned float4 in and
//! out), `sorted` (four loops by influence count), `tuned` (3×4 palette, checks hoisted),
//! `simd` (eight instances per register), `packed` (16-byte output), `distinct` (each
//! distinct vertex skinned once), `streamed` (lane blocks, non-temporal stores), `pulled`
//! (copies not stored; the vertex shader reads them by index). Every variant is checked
//! against
//! [`reference`](mod@reference), the f64 oracle.
//!
//! Output: each instance owns one slice of the caller's buffer, `instance_stride` bytes
//! apart (a multiple of 256, so slices are cache-line and GPU-offset aligned and no two
//! threads ever write the same cache line). Lane blocks (`streamed`) interleave a group's
//! eight slices vertex by vertex in the same space; [`SkinVariant::instance_offset`] and
//! [`SkinVariant::vertex_stride`] say where an instance's vertices are either way.

pub mod dest;
pub mod float4;
pub mod naive;
pub mod reference;
pub mod simd;
pub mod sorted;
pub mod split;
pub mod tuned;

pub use dest::Dest;

use crate::anim::palette::{PaletteLayout, Palettes};
use crate::prepare::{
    PreparedMesh, PreparedRig, VertexF3, VertexF4, VertexInterleaved, VertexPacked,
};
use crate::simd::LANES;
use crate::variant::Variant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkinVariant {
    Naive,
    Split,
    Float4,
    Sorted,
    Tuned,
    Simd,
    Packed,
    Distinct,
    Streamed,
    Pulled,
}

impl Variant for SkinVariant {
    const STAGE: &'static str = "skin";
    const ALL: &'static [Self] = &[
        Self::Naive,
        Self::Split,
        Self::Float4,
        Self::Sorted,
        Self::Tuned,
        Self::Simd,
        Self::Packed,
        Self::Distinct,
        Self::Streamed,
        Self::Pulled,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::Naive => "naive",
            Self::Split => "split",
            Self::Float4 => "float4",
            Self::Sorted => "sorted",
            Self::Tuned => "tuned",
            Self::Simd => "simd",
            Self::Packed => "packed",
            Self::Distinct => "distinct",
            Self::Streamed => "streamed",
            Self::Pulled => "pulled",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Self::Naive => {
                "always 4 influences, weighted 4x4 sum, interleaved float3 pos/normal + float2 uv out, uv copied every frame"
            }
            Self::Split => {
                "+ only the skinned stream (pos, normal) is written; the uv stream is static"
            }
            Self::Float4 => "+ float4 source and destination, 16-byte aligned",
            Self::Sorted => "+ vertices sorted by influence count, four specialised loops",
            Self::Tuned => "+ 3x4 palette, FMA-friendly, bounds checks hoisted by validating once",
            Self::Simd => {
                "8 instances per register (palettes SoA, lane = instance), AVX2/FMA detected at run time"
            }
            Self::Packed => {
                "+ 16-byte output: float3 position, unorm10:10:10:2 normal (half the bytes to store and upload)"
            }
            Self::Distinct => {
                "+ each distinct vertex skinned once, its copies (UV seams) stored from the same registers"
            }
            Self::Streamed => {
                "+ a group's 8 instances interleaved per vertex (128-byte blocks), written with non-temporal stores"
            }
            Self::Pulled => {
                "+ copies not stored: the vertex shader reads each vertex's block through a static index (vertex pulling)"
            }
        }
    }
}

/// How a variant's output vertices look in memory (and so on the GPU).
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
}

impl OutputFormat {
    /// Largest normal component difference from the reference a correct kernel may show:
    /// float formats carry the blend's rounding only; `Packed` keeps ten bits per
    /// component of the direction.
    pub fn normal_tolerance(self) -> f64 {
        match self {
            OutputFormat::Packed => crate::prepare::PACKED_NORMAL_TOLERANCE as f64,
            _ => 1e-3,
        }
    }

    pub fn vertex_size(self) -> usize {
        match self {
            OutputFormat::Interleaved => std::mem::size_of::<VertexInterleaved>(),
            OutputFormat::Float3 => std::mem::size_of::<VertexF3>(),
            OutputFormat::Float4 => std::mem::size_of::<VertexF4>(),
            OutputFormat::Packed => std::mem::size_of::<VertexPacked>(),
        }
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

/// Alignment of every instance's output slice, in bytes.
pub const INSTANCE_ALIGN: usize = 256;

impl SkinVariant {
    pub fn palette_layout(self) -> PaletteLayout {
        match self {
            Self::Naive | Self::Split | Self::Float4 | Self::Sorted => PaletteLayout::Mat4,
            Self::Tuned => PaletteLayout::Mat3x4,
            Self::Simd | Self::Packed | Self::Distinct | Self::Streamed | Self::Pulled => {
                PaletteLayout::Lanes
            }
        }
    }

    pub fn output_format(self) -> OutputFormat {
        match self {
            Self::Naive => OutputFormat::Interleaved,
            Self::Split => OutputFormat::Float3,
            Self::Packed | Self::Distinct | Self::Streamed | Self::Pulled => OutputFormat::Packed,
            _ => OutputFormat::Float4,
        }
    }

    /// Whether the output is in influence-sorted vertex order (else file order).
    pub fn sorted_order(self) -> bool {
        matches!(
            self,
            Self::Sorted
                | Self::Tuned
                | Self::Simd
                | Self::Packed
                | Self::Distinct
                | Self::Streamed
                | Self::Pulled
        )
    }

    /// Whether the output is in lane blocks (vertex `v` of a group's eight instances in
    /// one 128-byte block) instead of one contiguous slice per instance.
    pub fn lane_blocks(self) -> bool {
        matches!(self, Self::Streamed | Self::Pulled)
    }

    /// How many vertices each instance stores: every vertex, or for `pulled` only the
    /// distinct ones (the vertex shader finds a copy's result through an index).
    pub fn stored_vertices(self, mesh: &PreparedMesh) -> usize {
        if self == Self::Pulled {
            mesh.sorted.distinct.source.len()
        } else {
            mesh.vertex_count
        }
    }

    /// The space each instance takes in the output buffer: the bytes between consecutive
    /// instances' slices, or for lane blocks an eighth of a group's blocks (a group's
    /// output is `LANES` times this either way). `stored` is
    /// [`Self::stored_vertices`].
    pub fn instance_stride(self, stored: usize) -> usize {
        (stored * self.output_format().vertex_size()).next_multiple_of(INSTANCE_ALIGN)
    }

    /// Output bytes for `instances` instances. Lane blocks are written whole, so a
    /// partial last group takes a whole group's space.
    pub fn output_bytes(self, instances: usize, stored: usize) -> usize {
        let instances = if self.lane_blocks() {
            instances.next_multiple_of(LANES)
        } else {
            instances
        };
        instances * self.instance_stride(stored)
    }

    /// Where instance `instance`'s first stored vertex is in the output buffer.
    pub fn instance_offset(self, instance: usize, stored: usize) -> usize {
        let stride = self.instance_stride(stored);
        if self.lane_blocks() {
            let (group, lane) = (instance / LANES, instance % LANES);
            group * LANES * stride
                + crate::simd::block_slot(lane) * std::mem::size_of::<VertexPacked>()
        } else {
            instance * stride
        }
    }

    /// Bytes from one of an instance's output vertices to its next.
    pub fn vertex_stride(self) -> usize {
        let size = self.output_format().vertex_size();
        if self.lane_blocks() {
            size * LANES
        } else {
            size
        }
    }

    /// The alignment the output buffer needs (the non-temporal 32-byte stores of lane
    /// blocks need 32).
    pub fn output_align(self) -> usize {
        if self.lane_blocks() { 32 } else { 16 }
    }
}

/// Skins one group: `out` holds the group's instance slices (`active` of them,
/// `stride` bytes apart, 16-byte aligned).
pub fn run_group(
    variant: SkinVariant,
    rig: &PreparedRig,
    palettes: Palettes,
    mut out: Dest<u8>,
    stride: usize,
    active: usize,
) {
    debug_assert!(active <= LANES);
    let s = rig.joint_stride;
    let bytes = rig.vertex_count() * variant.output_format().vertex_size();
    match (variant, palettes) {
        (SkinVariant::Simd, Palettes::Lanes(p)) => {
            simd::run(rig, p, out, stride, active, simd::Output::Float4)
        }
        (SkinVariant::Packed, Palettes::Lanes(p)) => {
            simd::run(rig, p, out, stride, active, simd::Output::Packed)
        }
        (SkinVariant::Distinct, Palettes::Lanes(p)) => {
            simd::run(rig, p, out, stride, active, simd::Output::PackedDistinct)
        }
        (SkinVariant::Streamed, Palettes::Lanes(p)) => {
            simd::run(rig, p, out, stride, active, simd::Output::Blocks)
        }
        (SkinVariant::Pulled, Palettes::Lanes(p)) => simd::run(
            rig,
            p,
            out,
            stride,
            active,
            simd::Output::BlocksWithoutCopies,
        ),
        (variant, palettes) => {
            for k in 0..active {
                let instance = out.range(k * stride, bytes);
                match (variant, palettes) {
                    (SkinVariant::Naive, Palettes::Mat4(p)) => {
                        naive::run(&rig.mesh, &p[k * s..k * s + s], &mut instance.cast())
                    }
                    (SkinVariant::Split, Palettes::Mat4(p)) => {
                        split::run(&rig.mesh, &p[k * s..k * s + s], &mut instance.cast())
                    }
                    (SkinVariant::Float4, Palettes::Mat4(p)) => {
                        float4::run(&rig.mesh, &p[k * s..k * s + s], &mut instance.cast())
                    }
                    (SkinVariant::Sorted, Palettes::Mat4(p)) => {
                        sorted::run(&rig.mesh.sorted, &p[k * s..k * s + s], &mut instance.cast())
                    }
                    (SkinVariant::Tuned, Palettes::Mat3x4(p)) => {
                        tuned::run(&rig.mesh.sorted, &p[k * s..k * s + s], &mut instance.cast())
                    }
                    _ => panic!("skin variant {variant:?} given the wrong palette layout"),
                }
            }
        }
    }
}

/// Reads instance `instance`'s vertices from a frame's output `out`, in file vertex order,
/// as (positions, normals).
pub fn read_instance(
    variant: SkinVariant,
    rig: &PreparedRig,
    out: &[u8],
    instance: usize,
) -> (Vec<glam::Vec3>, Vec<glam::Vec3>) {
    use glam::Vec3;
    let n = rig.vertex_count();
    let size = variant.output_format().vertex_size();
    let distinct = &rig.mesh.sorted.distinct;
    let first = variant.instance_offset(instance, variant.stored_vertices(&rig.mesh));
    let step = variant.vertex_stride();
    // Where sorted vertex `v` is stored: at its distinct vertex for `pulled`.
    let slot = |v: usize| match variant {
        SkinVariant::Pulled => distinct.distinct_of_sorted[v] as usize,
        _ => v,
    };
    let bytes: Vec<u8> = (0..n)
        .flat_map(|v| &out[first + slot(v) * step..first + slot(v) * step + size])
        .copied()
        .collect();
    let bytes = &bytes[..];
    let (mut positions, mut normals): (Vec<Vec3>, Vec<Vec3>) = match variant.output_format() {
        OutputFormat::Interleaved => bytemuck::pod_collect_to_vec::<u8, VertexInterleaved>(bytes)
            .iter()
            .map(|v| (Vec3::from(v.position), Vec3::from(v.normal)))
            .unzip(),
        OutputFormat::Float3 => bytemuck::pod_collect_to_vec::<u8, VertexF3>(bytes)
            .iter()
            .map(|v| (Vec3::from(v.position), Vec3::from(v.normal)))
            .unzip(),
        OutputFormat::Float4 => bytemuck::pod_collect_to_vec::<u8, VertexF4>(bytes)
            .iter()
            .map(|v| {
                (
                    Vec3::from_slice(&v.position[..3]),
                    Vec3::from_slice(&v.normal[..3]),
                )
            })
            .unzip(),
        OutputFormat::Packed => bytemuck::pod_collect_to_vec::<u8, VertexPacked>(bytes)
            .iter()
            .map(|v| {
                (
                    Vec3::from(v.position),
                    crate::prepare::unpack_normal(v.normal),
                )
            })
            .unzip(),
    };
    if variant.sorted_order() {
        let order = &rig.mesh.sorted.original_of_sorted;
        let mut p = vec![Vec3::ZERO; n];
        let mut q = vec![Vec3::ZERO; n];
        for (sorted, &original) in order.iter().enumerate() {
            p[original as usize] = positions[sorted];
            q[original as usize] = normals[sorted];
        }
        positions = p;
        normals = q;
    }
    (positions, normals)
}
