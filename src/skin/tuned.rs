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

/// Rows → columns once per vertex (one 4×4 transpose, 8 shuffles), then position and
/// normal are column multiply-adds: cheaper on SSE2 than six horizontal dot products.
#[inline(always)]
fn columns(r: &[Vec4; 3]) -> Mat4 {
    Mat4::from_cols(r[0], r[1], r[2], Vec4::W).transpose()
}

#[inline(always)]
fn skin<const OWN_NORMALS: bool>(r: &[Vec4; 3], n: &[Vec4; 3], src: &VertexF4) -> VertexF4 {
    let m = columns(r);
    let n = if OWN_NORMALS { columns(n) } else { m };
    VertexF4 {
        position: (m * Vec4::from_array(src.position)).to_array(),
        normal: (n * Vec4::from_array(src.normal)).to_array(),
    }
}

/// With `OWN_NORMALS`, normals blend `normal_palette` (the rig's normal matrices); without,
/// the position matrices serve (`normal_palette` is unused).
pub fn run<const OWN_NORMALS: bool>(
    mesh: &SortedMesh,
    palette: &[Mat3x4],
    normal_palette: &[Mat3x4],
    out: &mut Dest<VertexF4>,
    level: usize,
) {
    // Validate once: every joint index is below `joint_bound` (a `SortedMesh` holds that:
    // its constructor computes the bound from the joints, and its fields cannot change
    // after); the palettes must hold that many matrices, the destination every vertex.
    assert!(
        palette.len() >= mesh.joint_bound()
            && (!OWN_NORMALS || normal_palette.len() >= mesh.joint_bound()),
        "palette shorter than the mesh's joints"
    );
    assert!(
        out.len() >= mesh.source().len(),
        "destination shorter than the mesh"
    );
    let rows = |j: u16| -> &[Vec4; 3] {
        // SAFETY: j < mesh.joint_bound() <= palette.len(): the bound is asserted above, and
        // `SortedMesh::joint_bound` is one more than the largest index in `mesh.joints()`
        // (computed by its only constructor over fields no one can change after).
        unsafe { &palette.get_unchecked(j as usize).rows }
    };
    let normal_rows = |j: u16| -> &[Vec4; 3] {
        if OWN_NORMALS {
            // SAFETY: j < mesh.joint_bound() <= normal_palette.len() (asserted above with
            // OWN_NORMALS).
            unsafe { &normal_palette.get_unchecked(j as usize).rows }
        } else {
            rows(j)
        }
    };
    // One blend of three rows per influence, written once for both palettes: the rows of
    // `$get(jj[i])` weighted by `ww[i]`, as one multiply-add chain per row.
    macro_rules! blend {
        ($get:ident, $jj:expr, $ww:expr, $k:literal) => {{
            let first = $get($jj[0]);
            let w0 = Vec4::splat($ww[0]);
            let mut r = [first[0] * w0, first[1] * w0, first[2] * w0];
            for i in 1..$k {
                let m = $get($jj[i]);
                let wi = Vec4::splat($ww[i]);
                r = [r[0] + m[0] * wi, r[1] + m[1] * wi, r[2] + m[2] * wi];
            }
            r
        }};
    }
    let [n1, n2, n3, n4, n5, n6, n7, n8] = mesh.class_counts();
    // The first `p` of each class's `n` vertices are those the character's level draws.
    let [p1, p2, p3, p4, p5, p6, p7, p8] = mesh.class_prefix(level);
    let src = mesh.source();
    // Every `write_unchecked` below writes vertex `v + i`, inside a class's vertices
    // (`i` < the class's prefix <= its count): they sum to mesh.source().len() <= out.len()
    // (asserted above).
    let (mut v, mut j, mut w) = (0, 0, 0);

    for (i, (s, &j0)) in src[v..v + p1]
        .iter()
        .zip(&mesh.joints()[j..j + p1])
        .enumerate()
    {
        // SAFETY: v + i < mesh.source().len() <= out.len() (see above).
        unsafe { out.write_unchecked(v + i, skin::<OWN_NORMALS>(rows(j0), normal_rows(j0), s)) };
    }
    (v, j) = (v + n1, j + n1);

    macro_rules! class {
        ($count:expr, $prefix:expr, $k:literal) => {
            let joints = mesh.joints()[j..j + $k * $prefix].chunks_exact($k);
            let weights = mesh.weights()[w..w + $k * $prefix].chunks_exact($k);
            for (i, (s, (jj, ww))) in src[v..v + $prefix]
                .iter()
                .zip(joints.zip(weights))
                .enumerate()
            {
                let r = blend!(rows, jj, ww, $k);
                let n = if OWN_NORMALS {
                    blend!(normal_rows, jj, ww, $k)
                } else {
                    r
                };
                // SAFETY: v + i < mesh.source().len() <= out.len() (see above).
                unsafe { out.write_unchecked(v + i, skin::<OWN_NORMALS>(&r, &n, s)) };
            }
            (v, j, w) = (v + $count, j + $k * $count, w + $k * $count);
        };
    }
    class!(n2, p2, 2);
    class!(n3, p3, 3);
    class!(n4, p4, 4);
    class!(n5, p5, 5);
    class!(n6, p6, 6);
    class!(n7, p7, 7);
    class!(n8, p8, 8);
    let _ = (v, j, w);
}
