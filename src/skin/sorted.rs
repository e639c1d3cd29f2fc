//! `sorted`: + vertices sorted by influence count, four specialised loops.
//!
//! How it works: the asset pipeline put all 1-influence vertices first, then 2, 3 and 4,
//! and kept the four counts. Each class has its own loop that blends exactly as many
//! matrices as it needs, with no branches and no zero-weight work; 1-influence vertices
//! read no weight at all. A level that cuts its vertices' influences
//! ([`crate::skin::influence_cuts`]) runs each class with the loop for as many as it keeps.

use glam::{Mat4, Vec4};

use super::Dest;
use crate::prepare::{InfluenceCut, SortedMesh, VertexF4};

#[inline(always)]
fn skin(m: &Mat4, n: &Mat4, src: &VertexF4) -> VertexF4 {
    VertexF4 {
        position: (*m * Vec4::from_array(src.position)).to_array(),
        normal: (*n * Vec4::from_array(src.normal)).to_array(),
    }
}

/// With `OWN_NORMALS`, normals blend `normal_palette` (the rig's normal matrices); without,
/// the position matrices serve (`normal_palette` is unused). With `cut`, each vertex blends
/// only the influences the character's level keeps, read from the cut's arrays.
pub fn run<const OWN_NORMALS: bool>(
    mesh: &SortedMesh,
    cut: Option<&InfluenceCut>,
    palette: &[Mat4],
    normal_palette: &[Mat4],
    out: &mut Dest<VertexF4>,
    level: usize,
) {
    // Four classes: a rig with more influences is refused (`SkinSpec::max_influences`).
    let [n1, n2, n3, n4, ..] = mesh.class_counts();
    // The first `p` of each class's `n` vertices are those the character's level draws.
    let [p1, p2, p3, p4, ..] = mesh.class_prefix(level);
    let (joints, weights) = cut.map_or((mesh.joints(), mesh.weights()), |c| {
        (c.joints(), c.weights())
    });
    // How many influences a vertex of class `k` blends: all, or what the cut keeps.
    let keeps = |k: usize| cut.map_or(k, |c| c.keeps(k));
    let src = mesh.source();
    let (mut v, mut j, mut w) = (0, 0, 0);
    // The same blend of `palette` or of `normal_palette` (a macro keeps it written once).
    macro_rules! blend {
        ($p:expr, $jj:expr, $ww:expr, $k:literal) => {{
            let mut m = $p[$jj[0] as usize] * $ww[0];
            for i in 1..$k {
                m += $p[$jj[i] as usize] * $ww[i];
            }
            m
        }};
    }
    // `count` vertices blending one influence each, of which the first `prefix` are
    // skinned: no weight read.
    macro_rules! one {
        ($count:expr, $prefix:expr) => {
            for (i, (s, &j0)) in src[v..v + $prefix]
                .iter()
                .zip(&joints[j..j + $prefix])
                .enumerate()
            {
                let m = &palette[j0 as usize];
                let n = if OWN_NORMALS {
                    &normal_palette[j0 as usize]
                } else {
                    m
                };
                out.write(v + i, skin(m, n, s));
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
                let m = blend!(palette, jj, ww, $k);
                let n = if OWN_NORMALS {
                    blend!(normal_palette, jj, ww, $k)
                } else {
                    m
                };
                out.write(v + i, skin(&m, &n, s));
            }
            (v, j, w) = (v + $count, j + $k * $count, w + $k * $count);
        };
    }
    // One class's loop: the specialised loop for as many influences as it keeps.
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
                _ => {
                    blended!($count, $prefix, 4);
                }
            }
        };
    }
    one!(n1, p1);
    class!(n2, p2, 2);
    class!(n3, p3, 3);
    class!(n4, p4, 4);
    let _ = (v, j, w);
}
