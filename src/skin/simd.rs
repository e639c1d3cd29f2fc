//! `simd`, `packed`, `distinct`, `streamed` and `pulled`: eight instances per register.
//!
//! How it works: per-vertex SIMD stalls on gathers, because every vertex reads different
//! palette matrices. But all instances share the mesh, its joint indices and weights; only
//! the palettes differ. So a group of eight instances keeps its palettes in lane layout
//! (joint `j`'s 3×4 matrices of all eight instances are 12 consecutive 8-float vectors):
//! for each vertex, each influence is one contiguous 384-byte read, its weight a
//! broadcast, and the blend is 12 multiply-adds covering eight instances. Position and
//! normal are transformed the same way, transposed in registers, and stored, one vertex
//! into each instance's output slice. The vertices are influence-sorted, so each class
//! loop blends exactly its number of matrices.
//!
//! `simd` stores float4 position and normal (32 bytes). Past the caches every stored byte
//! also goes to memory, so `packed` halves them: float3 position and the normal's direction
//! in unorm 10:10:10:2 (16 bytes), which the vertex fetch decodes.
//!
//! `distinct` skins each distinct vertex once. Meshes repeat vertices wherever their UVs
//! are split (seams, islands); the copies have the same skin input, so the same result.
//! The prepared mesh orders every vertex directly before its copies, in runs of equal copy
//! count ([`crate::prepare::DistinctVertices`]), and the kernel stores each result
//! `1 + copies` times from the registers it already holds. The other two walk the same
//! loops over every vertex (runs without copies).
//!
//! `streamed` is `distinct` with another output layout. Each instance's own slice means
//! eight store streams of 16-byte pieces, and a regular store first reads its cache line
//! and leaves it in L1, where it evicts the palettes the blend is reading. Non-temporal
//! stores would avoid both, but only pay for whole lines (16-byte non-temporal pieces in
//! eight streams, or lines staged in L1 and copied out, were both measured slower). So
//! `streamed` writes lane blocks: vertex `v` of a group's eight instances in 128
//! contiguous bytes (two cache lines), the order the transpose already leaves them in
//! ([`crate::simd::block_slot`]), as four 32-byte non-temporal stores into one
//! sequential stream. The GPU reads it as the same packed vertex with a 128-byte stride
//! and a per-instance offset. (The bench reports each variant's GB/s against the
//! machine's measured store bandwidth.)
//!
//! `pulled` stores the lane blocks of the distinct vertices only. The copies (16 % of the
//! reference rig's vertices) are not written at all: every vertex carries a static index
//! of its distinct vertex, and the vertex shader reads the instance's slot of that block
//! from a storage buffer (vertex pulling). Fewer bytes to write and to upload.
//!
//! A partial last group runs the same vector code; its stores skip the dead lanes (lane
//! blocks are written whole: the output reserves a whole group for them).

use super::Dest;
use crate::prepare::{PreparedRig, Run, SortedMesh, VertexF4, VertexPacked};
use crate::simd::{LANES, Lanes3x4, Simd};

/// What the `simd`, `packed`, `distinct`, `streamed` and `pulled` kernels store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// `VertexF4` for every vertex.
    Float4,
    /// `VertexPacked` for every vertex.
    Packed,
    /// `VertexPacked`, each distinct vertex skinned once and stored to its copies too.
    PackedDistinct,
    /// As `PackedDistinct`, in lane blocks: vertex `v` of all eight instances in 128
    /// contiguous bytes, written with non-temporal stores.
    Blocks,
    /// As `Blocks`, the distinct vertices only: the copies are not stored.
    BlocksWithoutCopies,
}

/// How `emit` stores (a const parameter, so each kernel copy has one store path).
const STORE_FLOAT4: u8 = 0;
const STORE_PACKED: u8 = 1;
const STORE_BLOCKS: u8 = 2;

/// The kernel's input: runs of vertices with their skin input, `runs[i].len` vertices each.
#[derive(Clone, Copy)]
pub(super) struct Input<'a> {
    pub runs: &'a [Run],
    pub source: &'a [VertexF4],
    pub joints: &'a [u16],
    pub weights: &'a [f32],
}

impl<'a> Input<'a> {
    /// Each distinct vertex once, with its copy count.
    pub fn distinct(mesh: &'a SortedMesh) -> Self {
        Input {
            runs: &mesh.distinct.runs,
            source: &mesh.distinct.source,
            joints: &mesh.distinct.joints,
            weights: &mesh.distinct.weights,
        }
    }

    /// Checks that the runs describe their arrays and cover the mesh's `n` output
    /// vertices: what lets the kernels index without per-element checks.
    pub fn validate(&self, mesh: &SortedMesh) {
        let runs = self.runs;
        assert!(runs.iter().all(|r| (1..=4).contains(&r.influences)));
        assert_eq!(runs.iter().map(|r| r.len).sum::<usize>(), self.source.len());
        assert_eq!(
            runs.iter().map(|r| r.len * r.influences).sum::<usize>(),
            self.joints.len()
        );
        assert_eq!(
            runs.iter()
                .filter(|r| r.influences > 1)
                .map(|r| r.len * r.influences)
                .sum::<usize>(),
            self.weights.len()
        );
        assert_eq!(
            runs.iter().map(|r| r.len * (1 + r.copies)).sum::<usize>(),
            mesh.source.len(),
            "runs do not cover the mesh"
        );
        // Every joint index is below `mesh.joint_bound`: it bounds the sorted mesh's
        // joints, and the distinct vertices' joints are a subset of those (built so in
        // `prepare`, tested in tests/prepare.rs).
    }
}

/// Skins `active` instances of one group; `out` holds their slices `stride` bytes apart.
pub fn run(
    rig: &PreparedRig,
    palettes: &[Lanes3x4],
    mut out: Dest<u8>,
    stride: usize,
    active: usize,
    output: Output,
) {
    let mesh = &rig.mesh.sorted;
    let n = mesh.source.len();
    let every_run: [Run; 4] = std::array::from_fn(|c| Run {
        influences: c + 1,
        copies: 0,
        len: mesh.class_counts[c],
    });
    let input = match output {
        Output::PackedDistinct | Output::Blocks | Output::BlocksWithoutCopies => {
            Input::distinct(mesh)
        }
        _ => Input {
            runs: &every_run,
            source: &mesh.source,
            joints: &mesh.joints,
            weights: &mesh.weights,
        },
    };
    let store = match output {
        Output::Float4 => STORE_FLOAT4,
        Output::Packed | Output::PackedDistinct => STORE_PACKED,
        Output::Blocks | Output::BlocksWithoutCopies => STORE_BLOCKS,
    };
    let copies = output != Output::BlocksWithoutCopies;
    // Output vertices per instance: the copies are stored, or not.
    let stored = if copies { n } else { input.source.len() };
    let size = if store == STORE_FLOAT4 {
        std::mem::size_of::<VertexF4>()
    } else {
        std::mem::size_of::<VertexPacked>()
    };
    // Validate once; the loops below do no per-element checks.
    assert!((1..=LANES).contains(&active));
    assert!(
        palettes.len() >= mesh.joint_bound,
        "palette shorter than the mesh's joints"
    );
    input.validate(mesh);
    let base = out.as_mut_ptr();
    if store == STORE_BLOCKS {
        // The whole group's blocks, dead lanes included: every block is written whole.
        assert!(out.len() >= stored * size * LANES, "output too small");
        assert!(
            (base as usize).is_multiple_of(32),
            "output not 32-byte aligned"
        );
    } else {
        assert!(
            out.len() >= (active - 1) * stride + n * size,
            "output too small"
        );
        assert!(
            (base as usize).is_multiple_of(16) && stride.is_multiple_of(16),
            "output not 16-byte aligned"
        );
    }
    // Lanes past `active` (a partial last group) keep lane 0's pointer, so every pointer
    // is valid, but the stores skip them. Lane blocks use `outs[0]` only.
    let mut outs = [base; LANES];
    if store != STORE_BLOCKS {
        for (k, o) in outs.iter_mut().enumerate().take(active) {
            // SAFETY: k * stride < out.len() (asserted above).
            *o = unsafe { base.add(k * stride) };
        }
    }
    skin_lanes(input, palettes, Outputs(outs), active, store, copies)
}

/// Eight output pointers; the first `active` are each valid for `mesh.source.len()`
/// vertices, or (lane blocks) the first is valid for that many blocks (checked in `run`).
#[derive(Clone, Copy)]
struct Outputs([*mut u8; LANES]);

crate::dispatch_simd!(
    fn skin_lanes(
        input: Input<'_>,
        palettes: &[Lanes3x4],
        outs: Outputs,
        active: usize,
        store: u8,
        copies: bool,
    ) -> () {
        kernel
    }
);

/// Full groups get a copy of the loops with `active` a constant, so the per-lane store
/// tests vanish from the hot path; a partial last group keeps them. Lane blocks write
/// every lane, so they need only one copy.
#[inline(always)]
fn kernel<S: Simd>(
    s: S,
    input: Input<'_>,
    palettes: &[Lanes3x4],
    outs: Outputs,
    active: usize,
    store: u8,
    copies: bool,
) {
    let outs = &outs.0;
    // SAFETY: `run` checked every live pointer for the mesh's vertices, that the runs cover
    // exactly those, and every joint index against a palette long enough.
    unsafe {
        match (store, active == LANES) {
            (STORE_BLOCKS, _) => {
                if copies {
                    runs::<S, STORE_BLOCKS, true>(s, input, palettes, outs, LANES);
                } else {
                    runs::<S, STORE_BLOCKS, false>(s, input, palettes, outs, LANES);
                }
                // The blocks were streamed past the caches: order them before the stores
                // that tell other threads (and the GPU upload) this group is done.
                s.store_fence();
            }
            (STORE_FLOAT4, true) => runs::<S, STORE_FLOAT4, true>(s, input, palettes, outs, LANES),
            (STORE_FLOAT4, false) => {
                runs::<S, STORE_FLOAT4, true>(s, input, palettes, outs, active)
            }
            (_, true) => runs::<S, STORE_PACKED, true>(s, input, palettes, outs, LANES),
            (_, false) => runs::<S, STORE_PACKED, true>(s, input, palettes, outs, active),
        }
    }
}

#[inline(always)]
fn palette(palettes: &[Lanes3x4], j: u16) -> &Lanes3x4 {
    // SAFETY: every joint index is < mesh.joint_bound <= palettes.len() (checked in `run`).
    unsafe { palettes.get_unchecked(j as usize) }
}

/// # Safety
/// `outs[..active]` must each be valid for the output vertices the runs cover (with their
/// copies, or without for `COPIES == false`), and every joint index must be below
/// `palettes.len()` (both checked in `run`).
#[inline(always)]
unsafe fn runs<S: Simd, const STORE: u8, const COPIES: bool>(
    s: S,
    input: Input<'_>,
    palettes: &[Lanes3x4],
    outs: &[*mut u8; LANES],
    active: usize,
) {
    let (mut first, mut j, mut w, mut v) = (0, 0, 0, 0);
    for run in input.runs {
        let k = run.influences;
        let source = &input.source[first..first + run.len];
        let joints = &input.joints[j..j + run.len * k];
        let weights = &input.weights[w..w + if k > 1 { run.len * k } else { 0 }];
        // Without the copies (`pulled`) each distinct vertex is stored once.
        let count = if COPIES { 1 + run.copies } else { 1 };
        // SAFETY (all four): forwarded from the caller; the run's outputs are
        // v..v + run.len * count, inside what the runs cover.
        unsafe {
            match k {
                1 => class::<S, STORE, 1>(
                    s, source, joints, weights, palettes, outs, active, v, count,
                ),
                2 => class::<S, STORE, 2>(
                    s, source, joints, weights, palettes, outs, active, v, count,
                ),
                3 => class::<S, STORE, 3>(
                    s, source, joints, weights, palettes, outs, active, v, count,
                ),
                _ => class::<S, STORE, 4>(
                    s, source, joints, weights, palettes, outs, active, v, count,
                ),
            }
        }
        first += run.len;
        j += run.len * k;
        w += weights.len();
        v += run.len * count;
    }
}

/// One run: `K` influences per vertex, each result stored `count` times.
///
/// # Safety
/// As for [`runs`], for output vertices `v..v + source.len() * count`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn class<S: Simd, const STORE: u8, const K: usize>(
    s: S,
    source: &[VertexF4],
    joints: &[u16],
    weights: &[f32],
    palettes: &[Lanes3x4],
    outs: &[*mut u8; LANES],
    active: usize,
    mut v: usize,
    count: usize,
) {
    if K == 1 {
        for (&j0, vertex) in joints.iter().zip(source) {
            let m = palette(palettes, j0);
            let mut r = [s.splat(0.0); 12];
            for e in 0..12 {
                r[e] = s.load(&m[e]);
            }
            // SAFETY: forwarded from the caller.
            unsafe { emit::<S, STORE>(s, &r, vertex, outs, active, v, count) };
            v += count;
        }
        return;
    }
    for ((jj, ww), vertex) in joints
        .chunks_exact(K)
        .zip(weights.chunks_exact(K))
        .zip(source)
    {
        let mut r = [s.splat(0.0); 12];
        if K == 2 {
            let (a, b) = (palette(palettes, jj[0]), palette(palettes, jj[1]));
            let (wa, wb) = (s.splat(ww[0]), s.splat(ww[1]));
            for e in 0..12 {
                r[e] = s.mul_add(s.load(&b[e]), wb, s.mul(s.load(&a[e]), wa));
            }
        } else if K == 3 {
            let (a, b, c) = (
                palette(palettes, jj[0]),
                palette(palettes, jj[1]),
                palette(palettes, jj[2]),
            );
            let (wa, wb, wc) = (s.splat(ww[0]), s.splat(ww[1]), s.splat(ww[2]));
            for e in 0..12 {
                let acc = s.mul_add(s.load(&b[e]), wb, s.mul(s.load(&a[e]), wa));
                r[e] = s.mul_add(s.load(&c[e]), wc, acc);
            }
        } else {
            let (a, b) = (palette(palettes, jj[0]), palette(palettes, jj[1]));
            let (c, d) = (palette(palettes, jj[2]), palette(palettes, jj[3]));
            let (wa, wb, wc, wd) = (
                s.splat(ww[0]),
                s.splat(ww[1]),
                s.splat(ww[2]),
                s.splat(ww[3]),
            );
            for e in 0..12 {
                // Two independent chains, summed: shorter dependency than one chain of four.
                let ab = s.mul_add(s.load(&b[e]), wb, s.mul(s.load(&a[e]), wa));
                let cd = s.mul_add(s.load(&d[e]), wd, s.mul(s.load(&c[e]), wc));
                r[e] = s.add(ab, cd);
            }
        }
        // SAFETY: forwarded from the caller.
        unsafe { emit::<S, STORE>(s, &r, vertex, outs, active, v, count) };
        v += count;
    }
}

/// Transforms one vertex by the blended lane matrices and stores it to output vertices
/// `v..v + count` of every live lane.
///
/// # Safety
/// `outs[..active]` valid for writing vertices `v..v + count` of the output format.
#[inline(always)]
unsafe fn emit<S: Simd, const STORE: u8>(
    s: S,
    m: &[S::V; 12],
    src: &VertexF4,
    outs: &[*mut u8; LANES],
    active: usize,
    v: usize,
    count: usize,
) {
    let [px, py, pz, _] = src.position;
    let [nx, ny, nz, _] = src.normal;
    let (px, py, pz) = (s.splat(px), s.splat(py), s.splat(pz));
    let (nx, ny, nz) = (s.splat(nx), s.splat(ny), s.splat(nz));
    let mut position = [s.splat(0.0); 3];
    let mut normal = [s.splat(0.0); 3];
    for r in 0..3 {
        position[r] = s.mul_add(
            m[r * 4 + 2],
            pz,
            s.mul_add(m[r * 4 + 1], py, s.mul_add(m[r * 4], px, m[r * 4 + 3])),
        );
        normal[r] = s.mul_add(
            m[r * 4 + 2],
            nz,
            s.mul_add(m[r * 4 + 1], ny, s.mul(m[r * 4], nx)),
        );
    }
    // SAFETY (all stores): the first `active` pointers are valid for `v..v + count`, or
    // for lane blocks `outs[0]` is valid for blocks `v..v + count` and 32-byte aligned
    // (caller).
    if STORE == STORE_BLOCKS {
        let bits = s.encode_normal_unorm10(normal);
        unsafe {
            s.store_blocks(
                outs[0] as *mut [VertexPacked; LANES],
                v,
                count,
                position,
                bits,
            )
        };
    } else if STORE == STORE_PACKED {
        let bits = s.encode_normal_unorm10(normal);
        unsafe {
            s.store_packed(
                &outs.map(|p| p as *mut VertexPacked),
                v,
                count,
                position,
                bits,
                active,
            )
        };
    } else {
        unsafe {
            s.store_vertices(
                &outs.map(|p| p as *mut VertexF4),
                v,
                count,
                position,
                normal,
                active,
            )
        };
    }
}
