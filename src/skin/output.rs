//! Output writers: how the lane kernels store a skinned vertex of eight instances.
//!
//! How it works: the kernel is generic over an `OutputWriter` (ACL's `output_writer.h`):
//! it computes eight instances' position and normal in lane registers and hands them to the
//! writer, which owns the store format. Each writer is built from the same vector
//! primitives of [`Simd`] (a 4×4 transpose per 128-bit half, half and whole stores, the
//! non-temporal store), so the same code compiles to AVX2 shuffles or to plain arrays.
//! Which writer a variant uses follows from its [`OutputLayout`] (see `Writer::for_layout`).

use super::layout::{Arrangement, OutputFormat, OutputLayout};
use crate::simd::Simd;
use crate::types::{LANES, VertexF4, VertexPacked};

/// Where a group's output goes: eight base pointers, one per live instance's slice, or for
/// lane blocks the group's first block in `0` (the others unused).
pub(crate) type Outputs = [*mut u8; LANES];

/// Where a run of a group's skinned vertices goes: the lanes' outputs, how many lanes are
/// live, how many times each vertex is stored (itself and its copies: the same for a
/// whole run) and the writer that stores them.
#[derive(Clone, Copy)]
pub(crate) struct GroupSink<'a, W> {
    pub outs: &'a Outputs,
    pub active: usize,
    pub count: usize,
    pub writer: W,
}

/// Stores a skinned vertex of eight instances (lane `k` = instance `k` of the group).
pub(crate) trait OutputWriter: Copy {
    /// Whether the writer stores every lane whatever `active` says (lane blocks are written
    /// whole), so one kernel copy serves full and partial groups.
    const WHOLE_GROUP: bool;

    /// Writes output vertices `v..v + sink.count` (a vertex and its copies) of the first
    /// `sink.active` lanes from `position` and `normal` (x, y, z rows of lanes), with
    /// `sink.writer`'s settings.
    ///
    /// # Safety
    /// For slices, `sink.outs[k]` (`k < sink.active`) must be valid for writing vertices
    /// `v..v + sink.count` of the writer's format; for lane blocks, `sink.outs[0]` must be
    /// 32-byte aligned and valid for writing blocks `v..v + sink.count`.
    unsafe fn write<S: Simd>(
        s: S,
        sink: GroupSink<'_, Self>,
        v: usize,
        position: [S::V; 3],
        normal: [S::V; 3],
    );

    /// Called once after a group's last vertex.
    fn finish<S: Simd>(self, _s: S) {}
}

/// `VertexF4` into each instance's slice: an 8×4 transpose in registers and eight 32-byte
/// stores instead of 48 lane extractions.
#[derive(Clone, Copy)]
pub(crate) struct Float4Writer;

/// `VertexPacked` (float3 position, unorm10 normal) into each instance's slice: a 4×8
/// transpose and eight 16-byte stores.
#[derive(Clone, Copy)]
pub(crate) struct PackedWriter<const FIXED_SCALE: bool> {
    pub normal: NormalCode,
}

/// `VertexPacked` in lane blocks: the transpose leaves lanes `i` and `i + 4` in register
/// `i`, which is exactly the block's slot order, so a block is four 32-byte streaming
/// stores and no further shuffles.
#[derive(Clone, Copy)]
pub(crate) struct BlockWriter<const FIXED_SCALE: bool> {
    pub normal: NormalCode,
}

/// How the packed writers turn a normal into its unorm10 bits: with `FIXED_SCALE` the
/// normal times `scale` (511 over the rig's bound on normal lengths, see
/// [`super::layout::NormalEncoding`]), else each normalised first.
#[derive(Clone, Copy)]
pub(crate) struct NormalCode {
    pub scale: f32,
}

impl NormalCode {
    #[inline(always)]
    fn bits<S: Simd, const FIXED_SCALE: bool>(self, s: S, normal: [S::V; 3]) -> S::V {
        if FIXED_SCALE {
            s.encode_scaled_normal_unorm10(normal, s.splat(self.scale))
        } else {
            s.encode_normal_unorm10(normal)
        }
    }
}

impl OutputWriter for Float4Writer {
    const WHOLE_GROUP: bool = false;

    #[inline(always)]
    unsafe fn write<S: Simd>(
        s: S,
        sink: GroupSink<'_, Self>,
        v: usize,
        position: [S::V; 3],
        normal: [S::V; 3],
    ) {
        let GroupSink {
            outs,
            active,
            count,
            ..
        } = sink;
        // p[i] = (vertex of lane i | vertex of lane i + 4), same for n.
        let p = s.transpose_halves([position[0], position[1], position[2], s.splat(1.0)]);
        let n = s.transpose_halves([normal[0], normal[1], normal[2], s.splat(0.0)]);
        // A macro, not a closure: a closure would not inherit the kernel's target features.
        // With `active == LANES` (the full-group kernels) the tests fold away.
        macro_rules! store_at {
            ($c:expr) => {
                for i in 0..4 {
                    // SAFETY: the caller guarantees `outs[k]`, k < active, is valid for
                    // vertex `$c`.
                    unsafe {
                        if i < active {
                            let at = (outs[i] as *mut VertexF4).add($c) as *mut f32;
                            s.store_unaligned(at, s.low_halves(p[i], n[i]));
                        }
                        if i + 4 < active {
                            let at = (outs[i + 4] as *mut VertexF4).add($c) as *mut f32;
                            s.store_unaligned(at, s.high_halves(p[i], n[i]));
                        }
                    }
                }
            };
        }
        // The vertex itself straight from the registers; its copies (a minority) in a loop
        // of their own (`count` is the same for a whole run, so it is always predicted).
        store_at!(v);
        for c in v + 1..v + count {
            store_at!(c);
        }
    }
}

impl<const FIXED_SCALE: bool> OutputWriter for PackedWriter<FIXED_SCALE> {
    const WHOLE_GROUP: bool = false;

    #[inline(always)]
    unsafe fn write<S: Simd>(
        s: S,
        sink: GroupSink<'_, Self>,
        v: usize,
        position: [S::V; 3],
        normal: [S::V; 3],
    ) {
        let GroupSink {
            outs,
            active,
            count,
            writer,
        } = sink;
        let bits = writer.normal.bits::<S, FIXED_SCALE>(s, normal);
        let p = s.transpose_halves([position[0], position[1], position[2], bits]);
        macro_rules! store_at {
            ($c:expr) => {
                for i in 0..4 {
                    // SAFETY: the caller guarantees `outs[k]`, k < active, is valid for
                    // vertex `$c`.
                    unsafe {
                        if i < active {
                            let at = (outs[i] as *mut VertexPacked).add($c) as *mut f32;
                            s.store_half(at, p[i], false);
                        }
                        if i + 4 < active {
                            let at = (outs[i + 4] as *mut VertexPacked).add($c) as *mut f32;
                            s.store_half(at, p[i], true);
                        }
                    }
                }
            };
        }
        store_at!(v);
        for c in v + 1..v + count {
            store_at!(c);
        }
    }
}

impl<const FIXED_SCALE: bool> OutputWriter for BlockWriter<FIXED_SCALE> {
    const WHOLE_GROUP: bool = true;

    #[inline(always)]
    unsafe fn write<S: Simd>(
        s: S,
        sink: GroupSink<'_, Self>,
        v: usize,
        position: [S::V; 3],
        normal: [S::V; 3],
    ) {
        // Lane blocks are written whole: `active` does not matter.
        let GroupSink {
            outs,
            count,
            writer,
            ..
        } = sink;
        let bits = writer.normal.bits::<S, FIXED_SCALE>(s, normal);
        let p = s.transpose_halves([position[0], position[1], position[2], bits]);
        for c in v..v + count {
            // SAFETY: the caller guarantees `outs[0]` is 32-byte aligned and valid for
            // blocks `v..v + count`; a block is 128 bytes, so each quarter is aligned too.
            unsafe {
                let block = (outs[0] as *mut [VertexPacked; LANES]).add(c) as *mut f32;
                for (i, pair) in p.iter().enumerate() {
                    s.stream(block.add(i * 8), *pair);
                }
            }
        }
    }

    /// The blocks were streamed past the caches: order them before the stores that tell
    /// other threads (and the GPU upload) this group is done.
    #[inline(always)]
    fn finish<S: Simd>(self, s: S) {
        s.store_fence();
    }
}

/// The writer a layout's lane kernel uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Writer {
    Float4,
    Packed,
    Blocks,
}

impl Writer {
    /// `None` for layouts no lane kernel writes (the one-instance formats).
    pub(crate) fn for_layout(layout: &OutputLayout) -> Option<Writer> {
        match (layout.format(), layout.arrangement()) {
            (OutputFormat::Float4, Arrangement::Slices) => Some(Writer::Float4),
            (OutputFormat::Packed, Arrangement::Slices) => Some(Writer::Packed),
            (OutputFormat::Packed, Arrangement::LaneBlocks) => Some(Writer::Blocks),
            (
                OutputFormat::Interleaved
                | OutputFormat::Float3
                | OutputFormat::Palette3x4
                | OutputFormat::PaletteDualQuat,
                _,
            )
            | (OutputFormat::Float4, Arrangement::LaneBlocks) => None,
        }
    }
}
