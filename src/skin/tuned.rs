//! `tuned`: + 3×4 palette, FMA-friendly arithmetic, bounds checks hoisted.
//!
//! How it works: the sorted loops of `sorted`, with three changes. The palette holds
//! 3×4 matrices (48 bytes instead of 64: the bottom row of an affine matrix is always
//! 0 0 0 1), so each influence blends three rows, not four columns. The blend is written
//! as one chain of multiply-adds per row. And the joint indices were validated once, when
//! the mesh was prepared, so the palette is read without a bounds check per influence;
//! sources, destinations, joints and weights are walked with iterators that need none.

use glam::{Mat4, Vec4};

use super::Dest;
use crate::anim::Mat3x4;
use crate::prepare::{SortedMesh, VertexF4};

#[inline(always)]
fn skin(r: &[Vec4; 3], src: &VertexF4) -> VertexF4 {
    // Rows → columns once per vertex (one 4×4 transpose, 8 shuffles), then position and
    // normal are column multiply-adds: cheaper on SSE2 than six horizontal dot products.
    let m = Mat4::from_cols(r[0], r[1], r[2], Vec4::W).transpose();
    VertexF4 {
        position: (m * Vec4::from_array(src.position)).to_array(),
        normal: (m * Vec4::from_array(src.normal)).to_array(),
    }
}

pub fn run(mesh: &SortedMesh, palette: &[Mat3x4], out: &mut Dest<VertexF4>) {
    // Validate once: every joint index is below `joint_bound`, checked when the mesh was
    // prepared; the palette must hold that many matrices, the destination every vertex.
    assert!(
        palette.len() >= mesh.joint_bound,
        "palette shorter than the mesh's joints"
    );
    assert!(
        out.len() >= mesh.source.len(),
        "destination shorter than the mesh"
    );
    let rows = |j: u16| -> &[Vec4; 3] {
        // SAFETY: j < mesh.joint_bound <= palette.len() (asserted above; `joint_bound`
        // is one more than the largest index in `mesh.joints`, see `SortedMesh`).
        unsafe { &palette.get_unchecked(j as usize).rows }
    };
    let [n1, n2, n3, n4] = mesh.class_counts;
    let src = &mesh.source[..];
    // SAFETY (every `write_unchecked` below): `v` counts the vertices of the four classes,
    // which sum to mesh.source.len() <= out.len() (asserted above).
    let (mut v, mut j, mut w) = (0, 0, 0);

    for (s, &j0) in src[v..v + n1].iter().zip(&mesh.joints[j..j + n1]) {
        unsafe { out.write_unchecked(v, skin(rows(j0), s)) };
        v += 1;
    }
    j += n1;

    let joints = mesh.joints[j..j + 2 * n2].chunks_exact(2);
    let weights = mesh.weights[w..w + 2 * n2].chunks_exact(2);
    for (s, (jj, ww)) in src[v..v + n2].iter().zip(joints.zip(weights)) {
        let (a, b) = (rows(jj[0]), rows(jj[1]));
        let (wa, wb) = (Vec4::splat(ww[0]), Vec4::splat(ww[1]));
        let r = [
            a[0] * wa + b[0] * wb,
            a[1] * wa + b[1] * wb,
            a[2] * wa + b[2] * wb,
        ];
        unsafe { out.write_unchecked(v, skin(&r, s)) };
        v += 1;
    }
    (j, w) = (j + 2 * n2, w + 2 * n2);

    let joints = mesh.joints[j..j + 3 * n3].chunks_exact(3);
    let weights = mesh.weights[w..w + 3 * n3].chunks_exact(3);
    for (s, (jj, ww)) in src[v..v + n3].iter().zip(joints.zip(weights)) {
        let (a, b, c) = (rows(jj[0]), rows(jj[1]), rows(jj[2]));
        let (wa, wb, wc) = (Vec4::splat(ww[0]), Vec4::splat(ww[1]), Vec4::splat(ww[2]));
        let r = [
            a[0] * wa + b[0] * wb + c[0] * wc,
            a[1] * wa + b[1] * wb + c[1] * wc,
            a[2] * wa + b[2] * wb + c[2] * wc,
        ];
        unsafe { out.write_unchecked(v, skin(&r, s)) };
        v += 1;
    }
    (j, w) = (j + 3 * n3, w + 3 * n3);

    let joints = mesh.joints[j..j + 4 * n4].chunks_exact(4);
    let weights = mesh.weights[w..w + 4 * n4].chunks_exact(4);
    for (s, (jj, ww)) in src[v..v + n4].iter().zip(joints.zip(weights)) {
        let (a, b, c, e) = (rows(jj[0]), rows(jj[1]), rows(jj[2]), rows(jj[3]));
        let (wa, wb, wc, we) = (
            Vec4::splat(ww[0]),
            Vec4::splat(ww[1]),
            Vec4::splat(ww[2]),
            Vec4::splat(ww[3]),
        );
        let r = [
            a[0] * wa + b[0] * wb + c[0] * wc + e[0] * we,
            a[1] * wa + b[1] * wb + c[1] * wc + e[1] * we,
            a[2] * wa + b[2] * wb + c[2] * wc + e[2] * we,
        ];
        unsafe { out.write_unchecked(v, skin(&r, s)) };
        v += 1;
    }
}
