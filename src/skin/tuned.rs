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
use crate::prepare::{InfluenceCut, SortedMesh, VertexF4};

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
/// the position matrices serve (`normal_palette` is unused). With `cut`, each vertex blends
/// only the influences the character's level keeps, read from the cut's arrays.
pub fn run<const OWN_NORMALS: bool>(
    mesh: &SortedMesh,
    cut: Option<&InfluenceCut>,
    palette: &[Mat3x4],
    normal_palette: &[Mat3x4],
    out: &mut Dest<VertexF4>,
    level: usize,
) {
    // Validate once: every joint index is below `joint_bound` (a `SortedMesh` holds that:
    // its constructor computes the bound from the joints, and its fields cannot change
    // after); the palettes must hold that many matrices, the destination every vertex.
    // A cut is made from a mesh, whose bound its joints keep; one of another mesh may have
    // a larger one.
    let bound = cut
        .map_or(0, InfluenceCut::joint_bound)
        .max(mesh.joint_bound());
    assert!(
        palette.len() >= bound && (!OWN_NORMALS || normal_palette.len() >= bound),
        "palette shorter than the mesh's joints"
    );
    assert!(
        out.len() >= mesh.source().len(),
        "destination shorter than the mesh"
    );
    let rows = |j: u16| -> &[Vec4; 3] {
        // SAFETY: j < bound <= palette.len(): the bound is asserted above, and
        // `SortedMesh::joint_bound` is one more than the largest index in `mesh.joints()`
        // (computed by its only constructor over fields no one can change after); a cut's
        // joints are some of its mesh's, below the bound it carries (`InfluenceCut` is made
        // only by `SortedMesh::cut`).
        unsafe { &palette.get_unchecked(j as usize).rows }
    };
    let normal_rows = |j: u16| -> &[Vec4; 3] {
        if OWN_NORMALS {
            // SAFETY: j < bound <= normal_palette.len() (asserted above with OWN_NORMALS).
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
    let (joints, weights) = cut.map_or((mesh.joints(), mesh.weights()), |c| {
        (c.joints(), c.weights())
    });
    // How many influences a vertex of class `k` blends: all, or what the cut keeps.
    let keeps = |k: usize| cut.map_or(k, |c| c.keeps(k));
    let src = mesh.source();
    // Every `write_unchecked` below writes vertex `v + i`, inside a class's vertices
    // (`i` < the class's prefix <= its count): they sum to mesh.source().len() <= out.len()
    // (asserted above).
    let (mut v, mut j, mut w) = (0, 0, 0);
    // `count` vertices blending one influence each, of which the first `prefix` are
    // skinned: no weight read.
    macro_rules! one {
        ($count:expr, $prefix:expr) => {
            for (i, (s, &j0)) in src[v..v + $prefix]
                .iter()
                .zip(&joints[j..j + $prefix])
                .enumerate()
            {
                // SAFETY: v + i < mesh.source().len() <= out.len() (see above).
                unsafe {
                    out.write_unchecked(v + i, skin::<OWN_NORMALS>(rows(j0), normal_rows(j0), s))
                };
            }
            (v, j) = (v + $count, j + $count);
        };
    }
    // The same, blending `k` influences each.
    macro_rules! blended {
        ($count:expr, $prefix:expr, $k:literal) => {
            let jj = joints[j..j + $k * $prefix].chunks_exact($k);
            let ww = weights[w..w + $k * $prefix].chunks_exact($k);
            for (i, (s, (jj, ww))) in src[v..v + $prefix].iter().zip(jj.zip(ww)).enumerate() {
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
    // One class's loop: the specialised loop for as many influences as it keeps (a cut
    // keeps at most four).
    macro_rules! class {
        ($count:expr, $prefix:expr, $k:literal) => {
            match keeps($k) {
                1 => {
                    one!($count, $prefix);
                }
                2 => {
                    blended!($count, $prefix, 2);
                }
                3 => {
                    blended!($count, $prefix, 3);
                }
                4 => {
                    blended!($count, $prefix, 4);
                }
                _ => {
                    blended!($count, $prefix, $k);
                }
            }
        };
    }
    one!(n1, p1);
    class!(n2, p2, 2);
    class!(n3, p3, 3);
    class!(n4, p4, 4);
    class!(n5, p5, 5);
    class!(n6, p6, 6);
    class!(n7, p7, 7);
    class!(n8, p8, 8);
    let _ = (v, j, w);
}
