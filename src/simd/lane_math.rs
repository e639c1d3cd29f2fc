//! Affine 3×4 matrix math on lane registers (one matrix per instance of a group), written
//! once over [`Simd`].

use super::vector::Simd;
use crate::types::LANE_SLOT;
use crate::types::Lanes3x4;

// The helpers below use plain loops, not closures (`array::from_fn` and friends): a
// closure is a separate function that does not inherit the caller's target features,
// and if it is not inlined its intrinsics are not either.

/// `a * b` for two affine 3×4 matrices per lane (the implied bottom rows are 0 0 0 1).
#[inline(always)]
pub fn mul_3x4<S: Simd>(s: S, a: &[S::V; 12], b: &[S::V; 12]) -> [S::V; 12] {
    let mut c = *a;
    for r in 0..3 {
        for col in 0..4 {
            // The translation column starts from `a`'s translation: one multiply-add
            // instead of a multiply and a final add (36 operations, not 39).
            let mut acc = if col == 3 {
                s.mul_add(a[r * 4], b[col], a[r * 4 + 3])
            } else {
                s.mul(a[r * 4], b[col])
            };
            acc = s.mul_add(a[r * 4 + 1], b[4 + col], acc);
            acc = s.mul_add(a[r * 4 + 2], b[8 + col], acc);
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
            let mut acc = if col == 3 {
                s.mul_add(b[col], s.splat(a[r][0]), s.splat(a[r][3]))
            } else {
                s.mul(b[col], s.splat(a[r][0]))
            };
            acc = s.mul_add(b[4 + col], s.splat(a[r][1]), acc);
            acc = s.mul_add(b[8 + col], s.splat(a[r][2]), acc);
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
            let mut acc = if col == 3 {
                s.mul_add(a[r * 4], s.splat(b[0][col]), a[r * 4 + 3])
            } else {
                s.mul(a[r * 4], s.splat(b[0][col]))
            };
            acc = s.mul_add(a[r * 4 + 1], s.splat(b[1][col]), acc);
            acc = s.mul_add(a[r * 4 + 2], s.splat(b[2][col]), acc);
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
    // Seventeen operations: the diagonal's `1 - 2y² - 2z²` as two negated multiply-adds
    // from 1 (sharing `1 - 2x²`), each off-diagonal pair `2xy ∓ 2wz` as one product and
    // two multiply-adds, instead of every product apart and summed (24).
    let [x, y, z, w] = q;
    let (x2, y2, z2) = (s.add(x, x), s.add(y, y), s.add(z, z));
    let one = s.splat(1.0);
    let one_minus_xx = s.neg_mul_add(x, x2, one);
    let (xy, xz, yz) = (s.mul(x, y2), s.mul(x, z2), s.mul(y, z2));
    [
        s.neg_mul_add(z, z2, s.neg_mul_add(y, y2, one)),
        s.neg_mul_add(w, z2, xy),
        s.mul_add(w, y2, xz),
        t[0],
        s.mul_add(w, z2, xy),
        s.neg_mul_add(z, z2, one_minus_xx),
        s.neg_mul_add(w, x2, yz),
        t[1],
        s.neg_mul_add(w, y2, xz),
        s.mul_add(w, x2, yz),
        s.neg_mul_add(y, y2, one_minus_xx),
        t[2],
    ]
}

/// Loads one joint's lane matrices into registers, row-major (from [`LANE_SLOT`]'s slots).
#[inline(always)]
pub fn load_3x4<S: Simd>(s: S, m: &Lanes3x4) -> [S::V; 12] {
    let mut v = [s.splat(0.0); 12];
    for e in 0..12 {
        v[e] = s.load(&m[LANE_SLOT[e]]);
    }
    v
}

/// Stores row-major lane matrices into [`LANE_SLOT`]'s slots.
#[inline(always)]
pub fn store_3x4<S: Simd>(s: S, m: &mut Lanes3x4, v: [S::V; 12]) {
    for (e, v) in v.into_iter().enumerate() {
        s.store(&mut m[LANE_SLOT[e]], v);
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

/// The unit dual quaternion of a rigid 3×4 matrix per lane, as eight lane vectors: the
/// rotation quaternion x, y, z, w, then the dual part `½ (t, 0) ⊗ q` x, y, z, w.
///
/// The rotation comes from the 3×3 by Shepperd's method, branch-free: each of the four
/// formulas (each divides by the component it takes a square root for) is computed, and
/// every lane keeps the one whose pivot is largest (`trace`, `m00`, `m11` or `m22`), so
/// no lane divides by a small number, including rotations by 180°, where the trace-only
/// formula loses the axis's signs. The result is normalised (a matrix with rounding in its
/// 3×3 gives a quaternion a hair off unit length). The quaternion's overall sign is
/// whatever the pivot gives; skinning fixes antipodality per vertex.
#[inline(always)]
pub fn dual_quat_from_3x4<S: Simd>(s: S, m: &[S::V; 12]) -> [S::V; 8] {
    let (m00, m01, m02, tx) = (m[0], m[1], m[2], m[3]);
    let (m10, m11, m12, ty) = (m[4], m[5], m[6], m[7]);
    let (m20, m21, m22, tz) = (m[8], m[9], m[10], m[11]);
    let one = s.splat(1.0);
    let trace = s.add(s.add(m00, m11), m22);
    let root_w = s.sqrt(s.abs(s.add(one, trace)));
    let root_x = s.sqrt(s.abs(s.add(one, s.sub(s.sub(m00, m11), m22))));
    let root_y = s.sqrt(s.abs(s.add(one, s.sub(s.sub(m11, m00), m22))));
    let root_z = s.sqrt(s.abs(s.add(one, s.sub(s.sub(m22, m00), m11))));
    let tiny = s.splat(f32::MIN_POSITIVE);
    let half = s.splat(0.5);
    // 1 / (2·root) = 1 / (4c) where c = root / 2.
    let inv_w = s.div(half, s.add(root_w, tiny));
    let inv_x = s.div(half, s.add(root_x, tiny));
    let inv_y = s.div(half, s.add(root_y, tiny));
    let inv_z = s.div(half, s.add(root_z, tiny));
    let (d21_12, d02_20, d10_01) = (s.sub(m21, m12), s.sub(m02, m20), s.sub(m10, m01));
    let (s01_10, s02_20, s12_21) = (s.add(m01, m10), s.add(m02, m20), s.add(m12, m21));
    let w_pivot = [
        s.mul(d21_12, inv_w),
        s.mul(d02_20, inv_w),
        s.mul(d10_01, inv_w),
        s.mul(root_w, half),
    ];
    let x_pivot = [
        s.mul(root_x, half),
        s.mul(s01_10, inv_x),
        s.mul(s02_20, inv_x),
        s.mul(d21_12, inv_x),
    ];
    let y_pivot = [
        s.mul(s01_10, inv_y),
        s.mul(root_y, half),
        s.mul(s12_21, inv_y),
        s.mul(d02_20, inv_y),
    ];
    let z_pivot = [
        s.mul(s02_20, inv_z),
        s.mul(s12_21, inv_z),
        s.mul(root_z, half),
        s.mul(d10_01, inv_z),
    ];
    // The largest of (trace, m00, m11, m22) picks the pivot.
    let mut q = w_pivot;
    let mut key = trace;
    for (diagonal, pivot) in [(m00, x_pivot), (m11, y_pivot), (m22, z_pivot)] {
        for c in 0..4 {
            q[c] = s.select_below(key, diagonal, pivot[c], q[c]);
        }
        key = s.select_below(key, diagonal, diagonal, key);
    }
    let length_squared = s.mul_add(
        q[3],
        q[3],
        s.mul_add(q[2], q[2], s.mul_add(q[1], q[1], s.mul(q[0], q[0]))),
    );
    let scale = s.div(one, s.sqrt(length_squared));
    for c in &mut q {
        *c = s.mul(*c, scale);
    }
    let [x, y, z, w] = q;
    // ½ (t, 0) ⊗ q: xyz = ½ (w t + t × q.xyz), w = −½ t · q.xyz.
    let cross = [
        s.sub(s.mul(ty, z), s.mul(tz, y)),
        s.sub(s.mul(tz, x), s.mul(tx, z)),
        s.sub(s.mul(tx, y), s.mul(ty, x)),
    ];
    let dot = s.mul_add(tz, z, s.mul_add(ty, y, s.mul(tx, x)));
    [
        x,
        y,
        z,
        w,
        s.mul(half, s.mul_add(w, tx, cross[0])),
        s.mul(half, s.mul_add(w, ty, cross[1])),
        s.mul(half, s.mul_add(w, tz, cross[2])),
        s.mul(s.splat(-0.5), dot),
    ]
}

/// The rigid 3×4 matrix of a (not necessarily unit) dual quaternion per lane, normalised
/// on the way (Kavan et al. 2008, the blended dual quaternion divided by its real part's
/// length): with `n = |r|²`, the rotation is the quaternion's matrix divided by `n` and the
/// translation `2 (r.w d.xyz − d.w r.xyz + r.xyz × d.xyz) / n`. One division, no square
/// root.
#[inline(always)]
pub fn matrix_from_dual_quat<S: Simd>(s: S, dq: &[S::V; 8]) -> [S::V; 12] {
    let [x, y, z, w, dx, dy, dz, dw] = *dq;
    let n = s.mul_add(w, w, s.mul_add(z, z, s.mul_add(y, y, s.mul(x, x))));
    let inv = s.div(s.splat(1.0), n);
    let two_inv = s.add(inv, inv);
    let (xx, yy, zz, ww) = (s.mul(x, x), s.mul(y, y), s.mul(z, z), s.mul(w, w));
    let (xy, xz, yz) = (s.mul(x, y), s.mul(x, z), s.mul(y, z));
    let (wx, wy, wz) = (s.mul(w, x), s.mul(w, y), s.mul(w, z));
    // r.w d.xyz − d.w r.xyz + r.xyz × d.xyz
    let tx = s.add(
        s.sub(s.mul(w, dx), s.mul(dw, x)),
        s.sub(s.mul(y, dz), s.mul(z, dy)),
    );
    let ty = s.add(
        s.sub(s.mul(w, dy), s.mul(dw, y)),
        s.sub(s.mul(z, dx), s.mul(x, dz)),
    );
    let tz = s.add(
        s.sub(s.mul(w, dz), s.mul(dw, z)),
        s.sub(s.mul(x, dy), s.mul(y, dx)),
    );
    [
        s.mul(s.sub(s.add(ww, xx), s.add(yy, zz)), inv),
        s.mul(s.sub(xy, wz), two_inv),
        s.mul(s.add(xz, wy), two_inv),
        s.mul(tx, two_inv),
        s.mul(s.add(xy, wz), two_inv),
        s.mul(s.sub(s.add(ww, yy), s.add(xx, zz)), inv),
        s.mul(s.sub(yz, wx), two_inv),
        s.mul(ty, two_inv),
        s.mul(s.sub(xz, wy), two_inv),
        s.mul(s.add(yz, wx), two_inv),
        s.mul(s.sub(s.add(ww, zz), s.add(xx, yy)), inv),
        s.mul(tz, two_inv),
    ]
}

/// A point `p` and a direction `n` moved by a (not necessarily unit) dual quaternion per
/// lane, without building its matrix: with `L = |r|²`,
/// `p' = p + 2/L · (r × (r × p + w p) + w d − d.w r + r × d)`
/// and the direction the same without the translation terms. The
/// same result as [`matrix_from_dual_quat`] applied to both, in about 54 operations where
/// the matrix and its two products take about 82: what a vertex with several influences
/// pays once it has blended its dual quaternions (one influence reuses a cached matrix).
///
/// Both vectors turn by the same rotation, so they are turned as pairs, the point in the
/// low half and the direction in the high half (which adds zero where the point adds the
/// translation): at `avx512-wide`, where a pair is one register, that is one pass for both
/// (eighteen multiply-type operations fewer, for eleven insertions and three
/// extractions); elsewhere a pair is two vectors and the operations are those of two
/// passes.
#[inline(always)]
pub fn transform_by_dual_quat<S: Simd>(
    s: S,
    dq: &[S::V; 8],
    p: [S::V; 3],
    n: [S::V; 3],
) -> ([S::V; 3], [S::V; 3]) {
    let [x, y, z, w, dx, dy, dz, dw] = *dq;
    let len2 = s.mul_add(w, w, s.mul_add(z, z, s.mul_add(y, y, s.mul(x, x))));
    let two_inv = s.div(s.splat(2.0), len2);
    // w d − d.w r + r × d: the translation times L/2.
    let shift = [
        s.mul_add(
            w,
            dx,
            s.neg_mul_add(dw, x, s.neg_mul_add(z, dy, s.mul(y, dz))),
        ),
        s.mul_add(
            w,
            dy,
            s.neg_mul_add(dw, y, s.neg_mul_add(x, dz, s.mul(z, dx))),
        ),
        s.mul_add(
            w,
            dz,
            s.neg_mul_add(dw, z, s.neg_mul_add(y, dx, s.mul(x, dy))),
        ),
    ];
    let q = [s.pair(x, x), s.pair(y, y), s.pair(z, z), s.pair(w, w)];
    let zero = s.splat(0.0);
    let acc = [
        s.pair(shift[0], zero),
        s.pair(shift[1], zero),
        s.pair(shift[2], zero),
    ];
    let v = [s.pair(p[0], n[0]), s.pair(p[1], n[1]), s.pair(p[2], n[2])];
    let turned = turn(s, q, v, acc);
    let two_inv = s.pair(two_inv, two_inv);
    let [p0, n0] = s.unpair(s.pair_mul_add(two_inv, turned[0], v[0]));
    let [p1, n1] = s.unpair(s.pair_mul_add(two_inv, turned[1], v[1]));
    let [p2, n2] = s.unpair(s.pair_mul_add(two_inv, turned[2], v[2]));
    ([p0, p1, p2], [n0, n1, n2])
}

/// `acc + r × (r × v + w v)` for the quaternion `[r, w]`, on pairs: the rotation's change
/// of `v` times `|q|²/2`. A function rather than a closure so that it is inlined into the
/// `#[target_feature]` copies of the kernels (a closure does not get their features).
#[inline(always)]
fn turn<S: Simd>(s: S, q: [S::W; 4], v: [S::W; 3], acc: [S::W; 3]) -> [S::W; 3] {
    let [x, y, z, w] = q;
    let c = [
        s.pair_mul_add(w, v[0], s.pair_neg_mul_add(z, v[1], s.pair_mul(y, v[2]))),
        s.pair_mul_add(w, v[1], s.pair_neg_mul_add(x, v[2], s.pair_mul(z, v[0]))),
        s.pair_mul_add(w, v[2], s.pair_neg_mul_add(y, v[0], s.pair_mul(x, v[1]))),
    ];
    [
        s.pair_mul_add(y, c[2], s.pair_neg_mul_add(z, c[1], acc[0])),
        s.pair_mul_add(z, c[0], s.pair_neg_mul_add(x, c[2], acc[1])),
        s.pair_mul_add(x, c[1], s.pair_neg_mul_add(y, c[0], acc[2])),
    ]
}
