//! `sorted`: + vertices sorted by influence count, four specialised loops.
//!
//! How it works: the asset pipeline put all 1-influence vertices first, then 2, 3 and 4,
//! and kept the four counts. Each class has its own loop that blends exactly as many
//! matrices as it needs, with no branches and no zero-weight work; 1-influence vertices
//! read no weight at all.

use glam::{Mat4, Vec4};

use super::Dest;
use crate::prepare::{SortedMesh, VertexF4};

#[inline(always)]
fn skin(m: &Mat4, n: &Mat4, src: &VertexF4) -> VertexF4 {
    VertexF4 {
        position: (*m * Vec4::from_array(src.position)).to_array(),
        normal: (*n * Vec4::from_array(src.normal)).to_array(),
    }
}

/// With `OWN_NORMALS`, normals blend `normal_palette` (the rig's normal matrices); without,
/// the position matrices serve (`normal_palette` is unused).
pub fn run<const OWN_NORMALS: bool>(
    mesh: &SortedMesh,
    palette: &[Mat4],
    normal_palette: &[Mat4],
    out: &mut Dest<VertexF4>,
) {
    // Four classes: a rig with more influences is refused (`SkinSpec::max_influences`).
    let [n1, n2, n3, n4, ..] = mesh.class_counts();
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

    for (s, &j0) in src[v..v + n1].iter().zip(&mesh.joints()[j..j + n1]) {
        let m = &palette[j0 as usize];
        let n = if OWN_NORMALS {
            &normal_palette[j0 as usize]
        } else {
            m
        };
        out.write(v, skin(m, n, s));
        v += 1;
    }
    j += n1;

    macro_rules! class {
        ($count:expr, $k:literal) => {
            let joints = mesh.joints()[j..j + $k * $count].chunks_exact($k);
            let weights = mesh.weights()[w..w + $k * $count].chunks_exact($k);
            for (s, (jj, ww)) in src[v..v + $count].iter().zip(joints.zip(weights)) {
                let m = blend!(palette, jj, ww, $k);
                let n = if OWN_NORMALS {
                    blend!(normal_palette, jj, ww, $k)
                } else {
                    m
                };
                out.write(v, skin(&m, &n, s));
                v += 1;
            }
            (j, w) = (j + $k * $count, w + $k * $count);
        };
    }
    class!(n2, 2);
    class!(n3, 3);
    class!(n4, 4);
    let _ = (j, w);
}
