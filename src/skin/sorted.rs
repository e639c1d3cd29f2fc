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
fn skin(m: &Mat4, src: &VertexF4) -> VertexF4 {
    VertexF4 {
        position: (*m * Vec4::from_array(src.position)).to_array(),
        normal: (*m * Vec4::from_array(src.normal)).to_array(),
    }
}

pub fn run(mesh: &SortedMesh, palette: &[Mat4], out: &mut Dest<VertexF4>) {
    let [n1, n2, n3, n4] = mesh.class_counts;
    let src = &mesh.source[..];
    let (mut v, mut j, mut w) = (0, 0, 0);

    for (s, &j0) in src[v..v + n1].iter().zip(&mesh.joints[j..j + n1]) {
        out.write(v, skin(&palette[j0 as usize], s));
        v += 1;
    }
    j += n1;

    let joints = mesh.joints[j..j + 2 * n2].chunks_exact(2);
    let weights = mesh.weights[w..w + 2 * n2].chunks_exact(2);
    for (s, (jj, ww)) in src[v..v + n2].iter().zip(joints.zip(weights)) {
        let m = palette[jj[0] as usize] * ww[0] + palette[jj[1] as usize] * ww[1];
        out.write(v, skin(&m, s));
        v += 1;
    }
    (j, w) = (j + 2 * n2, w + 2 * n2);

    let joints = mesh.joints[j..j + 3 * n3].chunks_exact(3);
    let weights = mesh.weights[w..w + 3 * n3].chunks_exact(3);
    for (s, (jj, ww)) in src[v..v + n3].iter().zip(joints.zip(weights)) {
        let m = palette[jj[0] as usize] * ww[0]
            + palette[jj[1] as usize] * ww[1]
            + palette[jj[2] as usize] * ww[2];
        out.write(v, skin(&m, s));
        v += 1;
    }
    (j, w) = (j + 3 * n3, w + 3 * n3);

    let joints = mesh.joints[j..j + 4 * n4].chunks_exact(4);
    let weights = mesh.weights[w..w + 4 * n4].chunks_exact(4);
    for (s, (jj, ww)) in src[v..v + n4].iter().zip(joints.zip(weights)) {
        let m = palette[jj[0] as usize] * ww[0]
            + palette[jj[1] as usize] * ww[1]
            + palette[jj[2] as usize] * ww[2]
            + palette[jj[3] as usize] * ww[3];
        out.write(v, skin(&m, s));
        v += 1;
    }
}
