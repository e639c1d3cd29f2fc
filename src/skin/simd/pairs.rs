//! The linear blend and transform two lane vectors at a time, where a pair is one 512-bit
//! register ([`Simd::WIDE`], the `avx512-wide` level). (Dual quaternions are paired at
//! every level, where pairing costs nothing: see [`super::dual_quat_class`].)
//!
//! How it works: lane matrices keep rows 0 and 1 alternating by column
//! ([`crate::types::LANE_SLOT`]), so slot pair `c` (`c` < 4) is column `c` of both rows.
//! The blend is one multiply-add a pair per influence, six a matrix; rows 0 and 1 of the
//! position are three multiply-adds on pairs from the translation pair, of the normal a
//! multiply and two; row 2's two pairs are split into four vectors and transformed one
//! vector at a time. The same multiplies and multiply-adds, in the same order, as
//! [`super::class`]'s unpaired path, so the same bits.

use super::{ClassRun, GroupSink, LanePalettes, OutputWriter, matrix};
use crate::simd::Simd;
use crate::types::{F32x8, Lanes3x4, VertexF4};

/// A lane matrix's twelve slots as six pairs: pair `p` is slots `2p` and `2p + 1`.
#[inline(always)]
fn pairs_of(m: &Lanes3x4) -> &[[F32x8; 2]] {
    m.as_chunks::<2>().0
}

/// [`super::blend_any`] two slots at a time: the six pairs of the blended matrix, in the lane
/// palette's slot order (a normal matrix's too: its translation slots are zero and blend
/// to zero). The same multiplies and multiply-adds, in the same order, as
/// [`super::blend_into`].
/// With `NORMAL` it blends the normal matrices.
///
/// # Safety
/// Every entry of `jj` must be a joint index of the job `palettes` came from.
#[inline(always)]
unsafe fn blend_pairs<S: Simd, const K: usize, const NORMAL: bool>(
    s: S,
    palettes: LanePalettes<'_>,
    jj: &[u16],
    ww: &[f32],
) -> [S::W; 6] {
    let mut out = [s.splat_pair(0.0); 6];
    // SAFETY: `jj[0]` is one of the job's joints (the caller's promise).
    let first = pairs_of(unsafe { matrix::<NORMAL>(palettes, jj[0]) });
    if K == 1 {
        for (o, pair) in out.iter_mut().zip(first) {
            *o = s.load_pair(pair);
        }
        return out;
    }
    let w = s.splat_pair(ww[0]);
    for (o, pair) in out.iter_mut().zip(first) {
        *o = s.pair_mul(s.load_pair(pair), w);
    }
    for i in 1..K {
        // SAFETY: as above, for `jj[i]`.
        let (m, w) = (
            pairs_of(unsafe { matrix::<NORMAL>(palettes, jj[i]) }),
            s.splat_pair(ww[i]),
        );
        for (o, pair) in out.iter_mut().zip(m) {
            *o = s.pair_mul_add(s.load_pair(pair), w, *o);
        }
    }
    out
}

/// A vertex moved by a blended matrix held as pairs (`m` the position's, `n` the
/// normal's, in [`LANE_SLOT`]'s order): pairs 0–3 are column 0–3 of rows 0 and 1, so
/// both rows' positions are three multiply-adds on pairs (from the translation pair) and
/// their normals a multiply and two; row 2's pairs (columns 0, 1 and 2, 3) are split into
/// four single vectors and transformed as the unpaired kernel does. Twelve multiply-type
/// operations and four extractions of a high half, where one vector at a time takes
/// eighteen.
#[inline(always)]
fn transform_pairs<S: Simd>(
    s: S,
    m: &[S::W; 6],
    n: &[S::W; 6],
    src: &VertexF4,
) -> ([S::V; 3], [S::V; 3]) {
    let [px, py, pz, _] = src.position;
    let [nx, ny, nz, _] = src.normal;
    let (x, y, z) = (s.splat_pair(px), s.splat_pair(py), s.splat_pair(pz));
    let (ax, ay, az) = (s.splat_pair(nx), s.splat_pair(ny), s.splat_pair(nz));
    let rows_01 = s.pair_mul_add(
        m[2],
        z,
        s.pair_mul_add(m[1], y, s.pair_mul_add(m[0], x, m[3])),
    );
    let normals_01 = s.pair_mul_add(n[2], az, s.pair_mul_add(n[1], ay, s.pair_mul(n[0], ax)));
    let ([m20, m21], [m22, m23]) = (s.unpair(m[4]), s.unpair(m[5]));
    let ([n20, n21], [n22, _]) = (s.unpair(n[4]), s.unpair(n[5]));
    let (px, py, pz) = (s.splat(px), s.splat(py), s.splat(pz));
    let (nx, ny, nz) = (s.splat(nx), s.splat(ny), s.splat(nz));
    let [p0, p1] = s.unpair(rows_01);
    let [n0, n1] = s.unpair(normals_01);
    let p2 = s.mul_add(m22, pz, s.mul_add(m21, py, s.mul_add(m20, px, m23)));
    let n2 = s.mul_add(n22, nz, s.mul_add(n21, ny, s.mul(n20, nx)));
    ([p0, p1, p2], [n0, n1, n2])
}

/// [`super::class`] two matrix entries per operation.
///
/// # Safety
/// As for [`super::class`].
#[inline(always)]
pub(super) unsafe fn class<S: Simd, W: OutputWriter, const K: usize, const OWN_NORMALS: bool>(
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
    if K == 1 {
        // One influence stores no weights.
        for (j0, vertex) in joints.iter().zip(source) {
            // SAFETY: forwarded from the caller.
            unsafe {
                paired_vertex::<S, W, 1, OWN_NORMALS>(
                    s,
                    std::slice::from_ref(j0),
                    &[],
                    vertex,
                    palettes,
                    sink,
                    v,
                )
            };
            v += sink.count;
        }
        return;
    }
    for ((jj, ww), vertex) in joints
        .chunks_exact(K)
        .zip(weights.chunks_exact(K))
        .zip(source)
    {
        // SAFETY: forwarded from the caller.
        unsafe { paired_vertex::<S, W, K, OWN_NORMALS>(s, jj, ww, vertex, palettes, sink, v) };
        v += sink.count;
    }
}

/// One vertex of [`class`]: its joints `jj` and weights `ww` blended as pairs,
/// the vertex transformed and stored to output vertices `v..v + sink.count`.
///
/// # Safety
/// As for [`OutputWriter::write`].
#[inline(always)]
unsafe fn paired_vertex<S: Simd, W: OutputWriter, const K: usize, const OWN_NORMALS: bool>(
    s: S,
    jj: &[u16],
    ww: &[f32],
    vertex: &VertexF4,
    palettes: LanePalettes<'_>,
    sink: GroupSink<'_, W>,
    v: usize,
) {
    // SAFETY: `jj` holds joints of the job (the caller's promise).
    let m = unsafe { blend_pairs::<S, K, false>(s, palettes, jj, ww) };
    let n = if OWN_NORMALS {
        // SAFETY: as above.
        unsafe { blend_pairs::<S, K, true>(s, palettes, jj, ww) }
    } else {
        m
    };
    let (position, normal) = transform_pairs(s, &m, &n, vertex);
    // SAFETY: forwarded from the caller.
    unsafe { W::write(s, sink, v, position, normal) };
}
