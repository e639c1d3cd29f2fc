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
//! also goes to memory, so `packed` halves them: float3 position and the normal in unorm
//! 10:10:10:2 (16 bytes), which the vertex fetch decodes. The normal is packed at a fixed
//! scale, 511 over the longest normal the rig's skinning can produce, not normalised
//! first: six operations a vertex fewer, since the vertex shader normalises anyway; only
//! rigs with their own normal matrices, whose normals have any length, normalise
//! ([`super::layout::NormalEncoding`]).
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
//!
//! At the `avx512-wide` SIMD level ([`Simd::WIDE`]) the linear blend and transform take
//! two lane vectors per 512-bit register (`pairs`): the blend is six multiply-adds an
//! influence instead of twelve, and the same bits as one vector at a time (tested).
//!
//! Rigs that need normal matrices (decided at load) carry them in the same lane palette,
//! after the position matrices; every kernel then blends the nine 3×3 entries of those
//! as well and transforms the normal by that. Every loop exists with and without it
//! (`OWN_NORMALS`), so rigs without pay nothing.

mod job;
mod pairs;

use super::Dest;
use super::SkinMethod;
use super::layout::OutputLayout;
use super::output::{
    BlockWriter, Float4Writer, GroupSink, OutputWriter, Outputs, PackedWriter, Writer,
};
use crate::prepare::PreparedRig;
use crate::simd::{Simd, matrix_from_dual_quat, transform_by_dual_quat};
use crate::types::{LANE_SLOT, LANES, Lanes3x4, VertexF4};
use job::{Input, LaneJob, LanePalettes, Loops, Storing};

/// The entries of a row-major 3×4 that make its 3×3 (the normal matrices' only ones).
const ENTRIES_3X3: [usize; 9] = [0, 1, 2, 4, 5, 6, 8, 9, 10];

/// Skins `active` instances of one group into `out`, the group's chunk of the output,
/// as `layout` says (its writer, and whether each distinct vertex is skinned once and
/// whether its copies are stored). `skin::run_group` refused every wrong input with its
/// typed error; [`LaneJob::new`] checks what the loops rely on once more, and the loops
/// rely on nothing else.
pub(super) fn run(
    rig: &PreparedRig,
    palettes: &[Lanes3x4],
    out: Dest<u8>,
    layout: &OutputLayout,
    active: usize,
    method: SkinMethod,
    level: usize,
) {
    let job = LaneJob::new(rig, palettes, out, layout, active, method, level);
    // Rigs with and without own normal matrices run separately compiled entry points, so
    // the loops without them are laid out as they were before normal matrices existed.
    match job.loops() {
        Loops::DualQuat => skin_lanes_dual_quat(&job),
        Loops::OwnNormals => skin_lanes_own_normals(&job),
        Loops::Linear => skin_lanes(&job),
    }
}

crate::dispatch_simd!(
    fn skin_lanes(job: &LaneJob<'_>) -> () {
        loops::<_, false, false, true>
    }
);

crate::dispatch_simd!(
    fn skin_lanes_own_normals(job: &LaneJob<'_>) -> () {
        loops::<_, true, false, false>
    }
);

crate::dispatch_simd!(
    fn skin_lanes_dual_quat(job: &LaneJob<'_>) -> () {
        loops::<_, false, true, true>
    }
);

/// Full groups get a copy of the loops with `active` a constant, so the per-lane store
/// tests vanish from the hot path; a partial last group keeps them. Writers that store
/// whole groups (lane blocks) need only one copy.
#[inline(always)]
fn loops<S: Simd, const OWN_NORMALS: bool, const DUAL_QUAT: bool, const FIXED_SCALE: bool>(
    s: S,
    job: &LaneJob<'_>,
) {
    let (input, palettes, outs, active) = (job.input(), job.palettes(), *job.outs(), job.active());
    let Storing {
        writer,
        copies,
        normal,
    } = job.storing();
    // SAFETY: every call below takes all five from one `LaneJob`, whose constructor checked
    // every live pointer for the output vertices its runs cover, that the runs describe
    // their arrays, and every joint index against a palette long enough.
    unsafe {
        match (writer, copies) {
            (Writer::Blocks, true) => group::<S, _, true, OWN_NORMALS, DUAL_QUAT>(
                s,
                input,
                palettes,
                &outs,
                active,
                BlockWriter::<FIXED_SCALE> { normal },
            ),
            (Writer::Blocks, false) => group::<S, _, false, OWN_NORMALS, DUAL_QUAT>(
                s,
                input,
                palettes,
                &outs,
                active,
                BlockWriter::<FIXED_SCALE> { normal },
            ),
            (Writer::Float4, _) => group::<S, _, true, OWN_NORMALS, DUAL_QUAT>(
                s,
                input,
                palettes,
                &outs,
                active,
                Float4Writer,
            ),
            (Writer::Packed, _) => group::<S, _, true, OWN_NORMALS, DUAL_QUAT>(
                s,
                input,
                palettes,
                &outs,
                active,
                PackedWriter::<FIXED_SCALE> { normal },
            ),
        }
    }
}

/// # Safety
/// As for [`runs`].
#[inline(always)]
unsafe fn group<
    S: Simd,
    W: OutputWriter,
    const COPIES: bool,
    const OWN_NORMALS: bool,
    const DUAL_QUAT: bool,
>(
    s: S,
    input: Input<'_>,
    palettes: LanePalettes<'_>,
    outs: &Outputs,
    active: usize,
    writer: W,
) {
    // SAFETY: forwarded from the caller.
    unsafe {
        if W::WHOLE_GROUP || active == LANES {
            runs::<S, W, COPIES, OWN_NORMALS, DUAL_QUAT>(s, input, palettes, outs, LANES, writer);
        } else {
            runs::<S, W, COPIES, OWN_NORMALS, DUAL_QUAT>(s, input, palettes, outs, active, writer);
        }
    }
    writer.finish(s);
}

/// # Safety
/// `outs[..active]` must each be valid for the output vertices the runs cover (with their
/// copies, or without for `COPIES == false`), and every joint index must be below
/// `palettes.len()` (both checked in `run`).
#[inline(always)]
unsafe fn runs<
    S: Simd,
    W: OutputWriter,
    const COPIES: bool,
    const OWN_NORMALS: bool,
    const DUAL_QUAT: bool,
>(
    s: S,
    input: Input<'_>,
    palettes: LanePalettes<'_>,
    outs: &Outputs,
    active: usize,
    writer: W,
) {
    let (mut first, mut j, mut w, mut v) = (0, 0, 0, 0);
    for run in input.runs {
        let k = run.influences;
        // Without the copies (`pulled`) each distinct vertex is stored once.
        let count = if COPIES { 1 + run.copies } else { 1 };
        let weight_len = if k > 1 { run.len * k } else { 0 };
        if run.deepest_level < input.level {
            // No level the group draws uses these vertices.
            first += run.len;
            j += run.len * k;
            w += weight_len;
            v += run.len * count;
            continue;
        }
        let source = &input.source[first..first + run.len];
        let joints = &input.joints[j..j + run.len * k];
        let weights = &input.weights[w..w + weight_len];
        let class_run = ClassRun {
            source,
            joints,
            weights,
        };
        let sink = GroupSink {
            outs,
            active,
            count,
            writer,
        };
        // SAFETY: each of the calls is forwarded from the caller; the run's outputs
        // are v..v + run.len * count, inside what the runs cover.
        unsafe {
            match k {
                1 => class::<S, W, 1, OWN_NORMALS, DUAL_QUAT>(s, class_run, palettes, sink, v),
                2 => class::<S, W, 2, OWN_NORMALS, DUAL_QUAT>(s, class_run, palettes, sink, v),
                3 => class::<S, W, 3, OWN_NORMALS, DUAL_QUAT>(s, class_run, palettes, sink, v),
                4 => class::<S, W, 4, OWN_NORMALS, DUAL_QUAT>(s, class_run, palettes, sink, v),
                5 => class::<S, W, 5, OWN_NORMALS, DUAL_QUAT>(s, class_run, palettes, sink, v),
                6 => class::<S, W, 6, OWN_NORMALS, DUAL_QUAT>(s, class_run, palettes, sink, v),
                7 => class::<S, W, 7, OWN_NORMALS, DUAL_QUAT>(s, class_run, palettes, sink, v),
                _ => class::<S, W, 8, OWN_NORMALS, DUAL_QUAT>(s, class_run, palettes, sink, v),
            }
        }
        first += run.len;
        j += run.len * k;
        w += weights.len();
        v += run.len * count;
    }
}

/// A vertex's `K` lane matrices (`matrix` of each of its joints `jj`) blended by its
/// weights `ww` into `out` (with `ONLY_3X3`, the nine entries of the 3×3, which is all a
/// normal matrix has): one multiply-add chain per entry, `K` operations. (Four influences
/// were once two chains of two, summed: a shorter dependency, but five operations an
/// entry instead of four, and the blend is bound by operations, not by latency: twelve
/// independent entries and the next vertex's overlap it. One chain measured 2–7 % faster
/// on the linear lane variants.) Matrices and broadcast weights are named one by one, as locals, so each stays in a register and the entry loop has constant
/// bounds. (Taking them as arrays built by the caller measured 8 % slower on Fox's
/// `distinct`, with the same instruction count: the loop the compiler made was worse.)
/// The four matrices are looked up before the four weights are broadcast: interleaving
/// the two made the compiler spill seven more registers per vertex in the four-influence
/// loop of `packed` and `distinct` (callgrind: +1.8 % instructions on the built-in rig,
/// 2 % slower by min); in this order the instruction counts equal the kernels' before
/// normal matrices, on the built-in rig, Fox and CesiumMan.
///
/// # Safety
/// Every entry of `jj` must be a joint index of the [`LaneJob`] `palettes` came from.
#[inline(always)]
unsafe fn blend_into<S: Simd, const K: usize, const ONLY_3X3: bool>(
    s: S,
    palettes: LanePalettes<'_>,
    jj: &[u16],
    ww: &[f32],
    out: &mut [S::V; 12],
) {
    // SAFETY: each index is an entry of `jj` (the caller's promise).
    let (a, b) = unsafe {
        (
            matrix::<ONLY_3X3>(palettes, jj[0]),
            matrix::<ONLY_3X3>(palettes, jj[1 % K]),
        )
    };
    // SAFETY: as above.
    let (c, d) = unsafe {
        (
            matrix::<ONLY_3X3>(palettes, jj[2 % K]),
            matrix::<ONLY_3X3>(palettes, jj[3 % K]),
        )
    };
    let (wa, wb) = (s.splat(ww[0]), s.splat(ww[1 % K]));
    let (wc, wd) = (s.splat(ww[2 % K]), s.splat(ww[3 % K]));
    // `out` is row-major (entry `e` is row `e / 4`, column `e % 4`); the palette's slots
    // are read where `LANE_SLOT` says.
    for e in 0..12 {
        if ONLY_3X3 && e % 4 == 3 {
            continue;
        }
        let slot = LANE_SLOT[e];
        let ab = s.mul_add(s.load(&b[slot]), wb, s.mul(s.load(&a[slot]), wa));
        out[e] = match K {
            2 => ab,
            3 => s.mul_add(s.load(&c[slot]), wc, ab),
            _ => s.mul_add(s.load(&d[slot]), wd, s.mul_add(s.load(&c[slot]), wc, ab)),
        };
    }
}

/// A joint's position matrices, or with `NORMAL` its normal matrices.
///
/// # Safety
/// As for [`LanePalettes::position`].
#[inline(always)]
unsafe fn matrix<'p, const NORMAL: bool>(palettes: LanePalettes<'p>, j: u16) -> &'p Lanes3x4 {
    // SAFETY: forwarded from the caller.
    unsafe {
        if NORMAL {
            palettes.normal(j)
        } else {
            palettes.position(j)
        }
    }
}

/// [`blend_into`] for any `K` in 2..=8: the first four as there, each further influence
/// added with one multiply-add per entry (twelve operations an influence). With
/// `ONLY_3X3` it blends the normal matrices, which is all their 3×3 is.
///
/// # Safety
/// As for [`blend_into`].
#[inline(always)]
unsafe fn blend_any<S: Simd, const K: usize, const ONLY_3X3: bool>(
    s: S,
    palettes: LanePalettes<'_>,
    jj: &[u16],
    ww: &[f32],
    out: &mut [S::V; 12],
) {
    if K <= 4 {
        // SAFETY: forwarded from the caller.
        unsafe { blend_into::<S, K, ONLY_3X3>(s, palettes, jj, ww, out) };
        return;
    }
    // SAFETY: forwarded from the caller (`jj[..4]` is part of `jj`).
    unsafe { blend_into::<S, 4, ONLY_3X3>(s, palettes, &jj[..4], &ww[..4], out) };
    for i in 4..K {
        // SAFETY: `jj[i]` is an entry of `jj` (the caller's promise).
        let (m, w) = (
            unsafe { matrix::<ONLY_3X3>(palettes, jj[i]) },
            s.splat(ww[i]),
        );
        for e in 0..12 {
            if ONLY_3X3 && e % 4 == 3 {
                continue;
            }
            out[e] = s.mul_add(s.load(&m[LANE_SLOT[e]]), w, out[e]);
        }
    }
}

/// One class's run of vertices: their source vertices and their `K` joints and weights
/// each (one influence stores no weights).
#[derive(Clone, Copy)]
struct ClassRun<'a> {
    source: &'a [VertexF4],
    joints: &'a [u16],
    weights: &'a [f32],
}

/// One run: `K` influences per vertex, each result stored `sink.count` times from output
/// vertex `v` on.
///
/// # Safety
/// As for [`runs`], for output vertices `v..v + run.source.len() * sink.count`.
#[inline(always)]
unsafe fn class<
    S: Simd,
    W: OutputWriter,
    const K: usize,
    const OWN_NORMALS: bool,
    const DUAL_QUAT: bool,
>(
    s: S,
    run: ClassRun<'_>,
    palettes: LanePalettes<'_>,
    sink: GroupSink<'_, W>,
    mut v: usize,
) {
    if DUAL_QUAT {
        // SAFETY: forwarded from the caller.
        unsafe { dual_quat_class::<S, W, K>(s, run, palettes, sink, v) };
        return;
    }
    if S::WIDE {
        // SAFETY: forwarded from the caller.
        unsafe { pairs::class::<S, W, K, OWN_NORMALS>(s, run, palettes, sink, v) };
        return;
    }
    let ClassRun {
        source,
        joints,
        weights,
    } = run;
    let count = sink.count;
    if K == 1 {
        for (&j0, vertex) in joints.iter().zip(source) {
            // SAFETY: `j0` is one of the job's joints (the caller's promise).
            let m = unsafe { palettes.position(j0) };
            let mut r = [s.splat(0.0); 12];
            for e in 0..12 {
                r[e] = s.load(&m[LANE_SLOT[e]]);
            }
            if OWN_NORMALS {
                // SAFETY: as above.
                let own = unsafe { palettes.normal(j0) };
                let mut n = r;
                for e in ENTRIES_3X3 {
                    n[e] = s.load(&own[LANE_SLOT[e]]);
                }
                // SAFETY: forwarded from the caller (`vertex`'s outputs are v..v + count).
                unsafe { emit(s, &r, &n, vertex, sink, v) };
            } else {
                // SAFETY: forwarded from the caller (`vertex`'s outputs are v..v + count).
                unsafe { emit(s, &r, &r, vertex, sink, v) };
            }
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
        // SAFETY: `jj` holds joints of the job (the caller's promise).
        unsafe { blend_any::<S, K, false>(s, palettes, jj, ww, &mut r) };
        if OWN_NORMALS {
            let mut n = r;
            // SAFETY: as above.
            unsafe { blend_any::<S, K, true>(s, palettes, jj, ww, &mut n) };
            // SAFETY: forwarded from the caller (`vertex`'s outputs are v..v + count).
            unsafe { emit(s, &r, &n, vertex, sink, v) };
        } else {
            // SAFETY: forwarded from the caller (`vertex`'s outputs are v..v + count).
            unsafe { emit(s, &r, &r, vertex, sink, v) };
        }
        v += count;
    }
}

/// One run with dual quaternions (the lane palette's entries 0–7 per joint, see
/// `anim::palette::to_dual_quat`): the first influence's dual quaternion scaled by its
/// weight, each further one added with its weight's sign flipped in the lanes where its
/// rotation's dot product with the first's is negative (antipodality, Kavan 2008), the sum
/// normalised (one division) and applied to position and normal directly
/// ([`transform_by_dual_quat`]: building the 3×4 and multiplying costs half again as
/// much). Where the rig's skinning matrices share a scale, the job's source vertices are
/// the bind pose times it (`skin::method::dual_quat_mesh`) and the dual quaternions'
/// rotations are without it: the loops are the same (a product per vertex here measured
/// 4–14 % slower, though it is three scalar multiplications). Blend and transform work on pairs of lane vectors at every level: at
/// `avx512-wide` a pair is one register and they take about half the operations, elsewhere
/// the same operations as one vector at a time, so there is one code path.
///
/// # Safety
/// As for [`class`].
#[inline(always)]
unsafe fn dual_quat_class<S: Simd, W: OutputWriter, const K: usize>(
    s: S,
    run: ClassRun<'_>,
    palettes: LanePalettes<'_>,
    sink: GroupSink<'_, W>,
    mut v: usize,
) {
    let ClassRun {
        source,
        joints,
        weights,
    } = run;
    let count = sink.count;
    if K == 1 {
        // One influence needs no blend and no normalisation: its joint's rigid matrix,
        // built once per joint (vertices are sorted by joint within a class, so a class
        // of one influence is runs of the same joint).
        // (At `avx512-wide` this transform in pairs measured no faster: the six insertions
        // a joint cost what the six multiply-adds a vertex saved.)
        let mut cached = None;
        let mut m = [s.splat(0.0); 12];
        for (&j0, vertex) in joints.iter().zip(source) {
            if cached != Some(j0) {
                // SAFETY: `j0` is one of the job's joints (the caller's promise).
                let q = unsafe { palettes.position(j0) };
                let mut dq = [s.splat(0.0); 8];
                for e in 0..8 {
                    dq[e] = s.load(&q[e]);
                }
                m = matrix_from_dual_quat(s, &dq);
                cached = Some(j0);
            }
            // SAFETY: forwarded from the caller.
            unsafe { emit(s, &m, &m, vertex, sink, v) };
            v += count;
        }
        return;
    }
    // The antipodality signs depend only on the joints, and consecutive vertices of a
    // class often share them (sorted by joints): their dot products are kept and
    // recomputed only when the joints change.
    let mut signs_of: [u16; K] = [u16::MAX; K];
    let mut signs = [s.splat(0.0); K];
    for ((jj, ww), vertex) in joints
        .chunks_exact(K)
        .zip(weights.chunks_exact(K))
        .zip(source)
    {
        // SAFETY: `jj` holds joints of the job (the caller's promise).
        let first = unsafe { palettes.position(jj[0]) };
        if jj != signs_of {
            for i in 1..K {
                // SAFETY: as above.
                let q = unsafe { palettes.position(jj[i]) };
                signs[i] = s.mul_add(
                    s.load(&q[3]),
                    s.load(&first[3]),
                    s.mul_add(
                        s.load(&q[2]),
                        s.load(&first[2]),
                        s.mul_add(
                            s.load(&q[1]),
                            s.load(&first[1]),
                            s.mul(s.load(&q[0]), s.load(&first[0])),
                        ),
                    ),
                );
            }
            signs_of.copy_from_slice(jj);
        }
        // SAFETY: as above.
        let dq = unsafe { blend_dual_quat::<S, K>(s, palettes, jj, ww, &signs) };
        let [px, py, pz, _] = vertex.position;
        let [nx, ny, nz, _] = vertex.normal;
        let (position, normal) = transform_by_dual_quat(
            s,
            &dq,
            [s.splat(px), s.splat(py), s.splat(pz)],
            [s.splat(nx), s.splat(ny), s.splat(nz)],
        );
        // SAFETY: forwarded from the caller.
        unsafe { W::write(s, sink, v, position, normal) };
        v += count;
    }
}

/// [`dual_quat_class`]'s blend: the eight entries of a joint's dual quaternion are four
/// pairs, so at `avx512-wide` each influence is four multiply-adds where one vector at a
/// time takes eight, for one insertion of the signed weight into both halves; elsewhere a
/// pair is two vectors and the operations are the same as one vector at a time.
///
/// # Safety
/// As for [`blend_into`].
#[inline(always)]
unsafe fn blend_dual_quat<S: Simd, const K: usize>(
    s: S,
    palettes: LanePalettes<'_>,
    jj: &[u16],
    ww: &[f32],
    signs: &[S::V; K],
) -> [S::V; 8] {
    let mut dq = [s.splat_pair(0.0); 4];
    let w0 = s.splat_pair(ww[0]);
    // SAFETY: `jj[0]` is one of the job's joints (the caller's promise).
    let first = unsafe { palettes.position(jj[0]) }.as_chunks::<2>().0;
    for (o, pair) in dq.iter_mut().zip(first) {
        *o = s.pair_mul(s.load_pair(pair), w0);
    }
    for i in 1..K {
        let w = s.flip_sign(s.splat(ww[i]), signs[i]);
        let w = s.pair(w, w);
        // SAFETY: as above, for `jj[i]`.
        let pairs = unsafe { palettes.position(jj[i]) }.as_chunks::<2>().0;
        for (o, pair) in dq.iter_mut().zip(pairs) {
            *o = s.pair_mul_add(s.load_pair(pair), w, *o);
        }
    }
    // Unpaired without a closure: a closure is not compiled with the kernel's target
    // features, so the intrinsics in it would be calls.
    let ([x, y], [z, w]) = (s.unpair(dq[0]), s.unpair(dq[1]));
    let ([dx, dy], [dz, dw]) = (s.unpair(dq[2]), s.unpair(dq[3]));
    [x, y, z, w, dx, dy, dz, dw]
}

/// Transforms one vertex by the blended lane matrices (`m` the position's, `n` the
/// normal's 3×3, both row-major) and has `sink`'s writer store it to output vertices
/// `v..v + sink.count` of every live lane.
///
/// # Safety
/// As for [`OutputWriter::write`].
#[inline(always)]
unsafe fn emit<S: Simd, W: OutputWriter>(
    s: S,
    m: &[S::V; 12],
    n: &[S::V; 12],
    src: &VertexF4,
    sink: GroupSink<'_, W>,
    v: usize,
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
            n[r * 4 + 2],
            nz,
            s.mul_add(n[r * 4 + 1], ny, s.mul(n[r * 4], nx)),
        );
    }
    // SAFETY: forwarded from the caller.
    unsafe { W::write(s, sink, v, position, normal) };
}
