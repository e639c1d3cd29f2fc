//! Affine 3×4 matrix math on lane registers (one matrix per instance of a group), written
//! once over [`Simd`].

use super::{Lanes3x4, Simd};

// The helpers below use plain loops, not closures (`array::from_fn` and friends): a
// closure is a separate function that does not inherit the caller's target features,
// and if it is not inlined its intrinsics are not either.

/// `a * b` for two affine 3×4 matrices per lane (the implied bottom rows are 0 0 0 1).
#[inline(always)]
pub fn mul_3x4<S: Simd>(s: S, a: &[S::V; 12], b: &[S::V; 12]) -> [S::V; 12] {
    let mut c = *a;
    for r in 0..3 {
        for col in 0..4 {
            let mut acc = s.mul(a[r * 4], b[col]);
            acc = s.mul_add(a[r * 4 + 1], b[4 + col], acc);
            acc = s.mul_add(a[r * 4 + 2], b[8 + col], acc);
            if col == 3 {
                acc = s.add(acc, a[r * 4 + 3]);
            }
            c[r * 4 + col] = acc;
        }
    }
    c
}

/// `a * b` where `a` is the same affine matrix in every lane (3 rows of 4).
#[inline(always)]
pub fn mul_3x4_left_scalar<S: Simd>(s: S, a: &[[f32; 4]; 3], b: &[S::V; 12]) -> [S::V; 12] {
    let mut c = *b;
    for r in 0..3 {
        for col in 0..4 {
            let mut acc = s.mul(b[col], s.splat(a[r][0]));
            acc = s.mul_add(b[4 + col], s.splat(a[r][1]), acc);
            acc = s.mul_add(b[8 + col], s.splat(a[r][2]), acc);
            if col == 3 {
                acc = s.add(acc, s.splat(a[r][3]));
            }
            c[r * 4 + col] = acc;
        }
    }
    c
}

/// `a * b` where `b` is the same affine matrix in every lane (3 rows of 4).
#[inline(always)]
pub fn mul_3x4_right_scalar<S: Simd>(s: S, a: &[S::V; 12], b: &[[f32; 4]; 3]) -> [S::V; 12] {
    let mut c = *a;
    for r in 0..3 {
        for col in 0..4 {
            let mut acc = s.mul(a[r * 4], s.splat(b[0][col]));
            acc = s.mul_add(a[r * 4 + 1], s.splat(b[1][col]), acc);
            acc = s.mul_add(a[r * 4 + 2], s.splat(b[2][col]), acc);
            if col == 3 {
                acc = s.add(acc, a[r * 4 + 3]);
            }
            c[r * 4 + col] = acc;
        }
    }
    c
}

/// Translation * rotation * scale as a 3×4 matrix per lane (`q` = x, y, z, w).
#[inline(always)]
pub fn trs_to_3x4<S: Simd>(s: S, q: [S::V; 4], t: [S::V; 3], scale: [S::V; 3]) -> [S::V; 12] {
    let m = rt_to_3x4(s, q, t);
    let mut out = m;
    for r in 0..3 {
        for c in 0..3 {
            out[r * 4 + c] = s.mul(m[r * 4 + c], scale[c]);
        }
    }
    out
}

/// Translation * rotation as a 3×4 matrix per lane (`q` = x, y, z, w): [`trs_to_3x4`]
/// with every scale exactly 1, the same bits.
#[inline(always)]
pub fn rt_to_3x4<S: Simd>(s: S, q: [S::V; 4], t: [S::V; 3]) -> [S::V; 12] {
    let [x, y, z, w] = q;
    let (x2, y2, z2) = (s.add(x, x), s.add(y, y), s.add(z, z));
    let (xx, yy, zz) = (s.mul(x, x2), s.mul(y, y2), s.mul(z, z2));
    let (xy, xz, yz) = (s.mul(x, y2), s.mul(x, z2), s.mul(y, z2));
    let (wx, wy, wz) = (s.mul(w, x2), s.mul(w, y2), s.mul(w, z2));
    let one = s.splat(1.0);
    [
        s.sub(one, s.add(yy, zz)),
        s.sub(xy, wz),
        s.add(xz, wy),
        t[0],
        s.add(xy, wz),
        s.sub(one, s.add(xx, zz)),
        s.sub(yz, wx),
        t[1],
        s.sub(xz, wy),
        s.add(yz, wx),
        s.sub(one, s.add(xx, yy)),
        t[2],
    ]
}

/// Loads one joint's lane matrices into registers.
#[inline(always)]
pub fn load_3x4<S: Simd>(s: S, m: &Lanes3x4) -> [S::V; 12] {
    let mut v = [s.splat(0.0); 12];
    for e in 0..12 {
        v[e] = s.load(&m[e]);
    }
    v
}

/// Stores lane matrices.
#[inline(always)]
pub fn store_3x4<S: Simd>(s: S, m: &mut Lanes3x4, v: [S::V; 12]) {
    for (dst, v) in m.iter_mut().zip(v) {
        s.store(dst, v);
    }
}

/// Rows 0..3 of an affine `Mat4` as plain arrays.
pub fn rows_3x4(m: &glam::Mat4) -> [[f32; 4]; 3] {
    [
        m.row(0).to_array(),
        m.row(1).to_array(),
        m.row(2).to_array(),
    ]
}

#[inline(always)]
fn cross<S: Simd>(s: S, u: [S::V; 3], v: [S::V; 3]) -> [S::V; 3] {
    [
        s.sub(s.mul(u[1], v[2]), s.mul(u[2], v[1])),
        s.sub(s.mul(u[2], v[0]), s.mul(u[0], v[2])),
        s.sub(s.mul(u[0], v[1]), s.mul(u[1], v[0])),
    ]
}

/// Each lane's normal matrix, as the skinning oracle defines it
/// (the 3×3's inverse transpose scaled to a rotation's norm √3), computed without an
/// inverse: the cofactor matrix, whose columns are cross products of the 3×3's columns,
/// is the inverse transpose times the determinant, so it is signed by the determinant
/// and scaled. Translation entries are zero. A singular 3×3 gives zero.
#[inline(always)]
pub fn normal_3x4<S: Simd>(s: S, m: &[S::V; 12]) -> [S::V; 12] {
    let a = [m[0], m[4], m[8]];
    let b = [m[1], m[5], m[9]];
    let c = [m[2], m[6], m[10]];
    let columns = [cross(s, b, c), cross(s, c, a), cross(s, a, b)];
    let det = s.mul_add(
        a[2],
        columns[0][2],
        s.mul_add(a[1], columns[0][1], s.mul(a[0], columns[0][0])),
    );
    let mut norm2 = s.splat(f32::MIN_POSITIVE);
    for column in &columns {
        for &x in column {
            norm2 = s.mul_add(x, x, norm2);
        }
    }
    let scale = s.flip_sign(s.div(s.splat(3f32.sqrt()), s.sqrt(norm2)), det);
    let mut n = [s.splat(0.0); 12];
    for (col, column) in columns.iter().enumerate() {
        for r in 0..3 {
            n[r * 4 + col] = s.mul(column[r], scale);
        }
    }
    n
}
