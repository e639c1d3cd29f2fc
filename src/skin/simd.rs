//! `simd` and `packed`: eight instances per register.
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
//! `simd` stores float4 position and normal (32 bytes). Past the caches the kernel is
//! limited by store bandwidth, so `packed` halves the bytes: float3 position and the
//! normal's direction in unorm 10:10:10:2 (16 bytes), which the vertex fetch decodes.
//!
//! A partial last group runs the same vector code; its stores skip the dead lanes.

use super::Dest;
use crate::prepare::{PreparedRig, SortedMesh, VertexF4, VertexPacked};
use crate::simd::{LANES, Lanes3x4, Simd};

/// Skins `active` instances of one group; `out` holds their slices `stride` bytes apart.
/// `packed` selects the 16-byte output.
pub fn run(
    rig: &PreparedRig,
    palettes: &[Lanes3x4],
    mut out: Dest<u8>,
    stride: usize,
    active: usize,
    packed: bool,
) {
    let mesh = &rig.mesh.sorted;
    let n = mesh.source.len();
    let size = if packed {
        std::mem::size_of::<VertexPacked>()
    } else {
        std::mem::size_of::<VertexF4>()
    };
    // Validate once; the loops below do no per-element checks.
    assert!((1..=LANES).contains(&active));
    assert!(
        palettes.len() >= mesh.joint_bound,
        "palette shorter than the mesh's joints"
    );
    assert!(
        out.len() >= (active - 1) * stride + n * size,
        "output too small"
    );
    let base = out.as_mut_ptr();
    assert!(
        (base as usize).is_multiple_of(16) && stride.is_multiple_of(16),
        "output not 16-byte aligned"
    );
    // Lanes past `active` (a partial last group) keep lane 0's pointer, so every pointer
    // is valid, but the stores skip them.
    let mut outs = [base; LANES];
    for (k, o) in outs.iter_mut().enumerate().take(active) {
        // SAFETY: k * stride < out.len() (asserted above).
        *o = unsafe { base.add(k * stride) };
    }
    skin_lanes(mesh, palettes, Outputs(outs), active, packed)
}

/// Eight output pointers; the first `active` are each valid for `mesh.source.len()`
/// vertices (checked in `run`).
#[derive(Clone, Copy)]
struct Outputs([*mut u8; LANES]);

crate::dispatch_simd!(
    fn skin_lanes(
        mesh: &SortedMesh,
        palettes: &[Lanes3x4],
        outs: Outputs,
        active: usize,
        packed: bool,
    ) -> () {
        kernel
    }
);

/// Full groups get a copy of the loops with `active` a constant, so the per-lane store
/// tests vanish from the hot path; a partial last group keeps them.
#[inline(always)]
fn kernel<S: Simd>(
    s: S,
    mesh: &SortedMesh,
    palettes: &[Lanes3x4],
    outs: Outputs,
    active: usize,
    packed: bool,
) {
    let outs = &outs.0;
    // SAFETY: `run` checked every live pointer for `mesh.source.len()` vertices and the
    // palette length against `mesh.joint_bound`.
    unsafe {
        match (packed, active == LANES) {
            (false, true) => classes::<S, false>(s, mesh, palettes, outs, LANES),
            (false, false) => classes::<S, false>(s, mesh, palettes, outs, active),
            (true, true) => classes::<S, true>(s, mesh, palettes, outs, LANES),
            (true, false) => classes::<S, true>(s, mesh, palettes, outs, active),
        }
    }
}

#[inline(always)]
fn palette(palettes: &[Lanes3x4], j: u16) -> &Lanes3x4 {
    // SAFETY: every joint index is < mesh.joint_bound <= palettes.len() (checked in `run`).
    unsafe { palettes.get_unchecked(j as usize) }
}

/// # Safety
/// `outs[..active]` must each be valid for `mesh.source.len()` vertices of the output
/// format, and `palettes.len() >= mesh.joint_bound`.
#[inline(always)]
unsafe fn classes<S: Simd, const PACKED: bool>(
    s: S,
    mesh: &SortedMesh,
    palettes: &[Lanes3x4],
    outs: &[*mut u8; LANES],
    active: usize,
) {
    let [n1, n2, n3, n4] = mesh.class_counts;
    let src = &mesh.source;
    let (mut v, mut j, mut w) = (0, 0, 0);
    // SAFETY (every `emit`): v < mesh.source.len(); pointers forwarded from the caller.
    for &j0 in &mesh.joints[j..j + n1] {
        let m = palette(palettes, j0);
        let mut r = [s.splat(0.0); 12];
        for e in 0..12 {
            r[e] = s.load(&m[e]);
        }
        unsafe { emit::<S, PACKED>(s, &r, &src[v], outs, active, v) };
        v += 1;
    }
    j += n1;
    for (jj, ww) in mesh.joints[j..j + 2 * n2]
        .chunks_exact(2)
        .zip(mesh.weights[w..w + 2 * n2].chunks_exact(2))
    {
        let (a, b) = (palette(palettes, jj[0]), palette(palettes, jj[1]));
        let (wa, wb) = (s.splat(ww[0]), s.splat(ww[1]));
        let mut r = [s.splat(0.0); 12];
        for e in 0..12 {
            r[e] = s.mul_add(s.load(&b[e]), wb, s.mul(s.load(&a[e]), wa));
        }
        unsafe { emit::<S, PACKED>(s, &r, &src[v], outs, active, v) };
        v += 1;
    }
    (j, w) = (j + 2 * n2, w + 2 * n2);
    for (jj, ww) in mesh.joints[j..j + 3 * n3]
        .chunks_exact(3)
        .zip(mesh.weights[w..w + 3 * n3].chunks_exact(3))
    {
        let (a, b, c) = (
            palette(palettes, jj[0]),
            palette(palettes, jj[1]),
            palette(palettes, jj[2]),
        );
        let (wa, wb, wc) = (s.splat(ww[0]), s.splat(ww[1]), s.splat(ww[2]));
        let mut r = [s.splat(0.0); 12];
        for e in 0..12 {
            let acc = s.mul_add(s.load(&b[e]), wb, s.mul(s.load(&a[e]), wa));
            r[e] = s.mul_add(s.load(&c[e]), wc, acc);
        }
        unsafe { emit::<S, PACKED>(s, &r, &src[v], outs, active, v) };
        v += 1;
    }
    (j, w) = (j + 3 * n3, w + 3 * n3);
    for (jj, ww) in mesh.joints[j..j + 4 * n4]
        .chunks_exact(4)
        .zip(mesh.weights[w..w + 4 * n4].chunks_exact(4))
    {
        let (a, b) = (palette(palettes, jj[0]), palette(palettes, jj[1]));
        let (c, d) = (palette(palettes, jj[2]), palette(palettes, jj[3]));
        let (wa, wb, wc, wd) = (
            s.splat(ww[0]),
            s.splat(ww[1]),
            s.splat(ww[2]),
            s.splat(ww[3]),
        );
        let mut r = [s.splat(0.0); 12];
        for e in 0..12 {
            // Two independent chains, summed: shorter dependency than one chain of four.
            let ab = s.mul_add(s.load(&b[e]), wb, s.mul(s.load(&a[e]), wa));
            let cd = s.mul_add(s.load(&d[e]), wd, s.mul(s.load(&c[e]), wc));
            r[e] = s.add(ab, cd);
        }
        unsafe { emit::<S, PACKED>(s, &r, &src[v], outs, active, v) };
        v += 1;
    }
}

/// Transforms one vertex by the blended lane matrices and stores it for every live lane.
///
/// # Safety
/// `outs[..active]` valid for writing vertex `v` of the output format.
#[inline(always)]
unsafe fn emit<S: Simd, const PACKED: bool>(
    s: S,
    m: &[S::V; 12],
    src: &VertexF4,
    outs: &[*mut u8; LANES],
    active: usize,
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
            m[r * 4 + 2],
            nz,
            s.mul_add(m[r * 4 + 1], ny, s.mul(m[r * 4], nx)),
        );
    }
    // SAFETY (both stores): the first `active` pointers are valid for vertex `v` (caller).
    if PACKED {
        let bits = s.encode_normal_unorm10(normal);
        unsafe {
            s.store_packed(
                &outs.map(|p| p as *mut VertexPacked),
                v,
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
                position,
                normal,
                active,
            )
        };
    }
}
