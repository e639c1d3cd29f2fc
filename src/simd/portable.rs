//! The portable backend: [`Simd`] on plain `[f32; 8]` arrays, which the compiler
//! vectorizes with the build target's baseline (SSE2 on x86-64, NEON on aarch64). The
//! same kernels run on it wherever AVX2+FMA are missing, or when forced for tests.

use super::vector::Simd;
use crate::types::{F32x8, LANES};
use crate::types::{Qvs, pack_normal, pack_scaled_normal};

/// Plain arrays; the compiler vectorizes what it can for the build target.
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

impl Simd for Portable {
    type V = F32x8;

    #[inline(always)]
    fn splat(self, x: f32) -> F32x8 {
        F32x8([x; LANES])
    }
    #[inline(always)]
    fn load(self, x: &F32x8) -> F32x8 {
        *x
    }
    #[inline(always)]
    fn store(self, x: &mut F32x8, v: F32x8) {
        *x = v;
    }
    #[inline(always)]
    fn add(self, mut a: F32x8, b: F32x8) -> F32x8 {
        for i in 0..LANES {
            a.0[i] += b.0[i];
        }
        a
    }
    #[inline(always)]
    fn sub(self, mut a: F32x8, b: F32x8) -> F32x8 {
        for i in 0..LANES {
            a.0[i] -= b.0[i];
        }
        a
    }
    #[inline(always)]
    fn mul(self, mut a: F32x8, b: F32x8) -> F32x8 {
        for i in 0..LANES {
            a.0[i] *= b.0[i];
        }
        a
    }
    #[inline(always)]
    fn mul_add(self, mut a: F32x8, b: F32x8, c: F32x8) -> F32x8 {
        for i in 0..LANES {
            a.0[i] = a.0[i] * b.0[i] + c.0[i];
        }
        a
    }
    #[inline(always)]
    fn neg_mul_add(self, mut a: F32x8, b: F32x8, c: F32x8) -> F32x8 {
        for i in 0..LANES {
            a.0[i] = c.0[i] - a.0[i] * b.0[i];
        }
        a
    }
    #[inline(always)]
    fn div(self, mut a: F32x8, b: F32x8) -> F32x8 {
        for i in 0..LANES {
            a.0[i] /= b.0[i];
        }
        a
    }
    #[inline(always)]
    fn sqrt(self, mut a: F32x8) -> F32x8 {
        for x in &mut a.0 {
            *x = x.sqrt();
        }
        a
    }
    #[inline(always)]
    fn abs(self, mut a: F32x8) -> F32x8 {
        for x in &mut a.0 {
            *x = x.abs();
        }
        a
    }
    #[inline(always)]
    fn flip_sign(self, mut a: F32x8, sign: F32x8) -> F32x8 {
        for i in 0..LANES {
            a.0[i] = f32::from_bits(a.0[i].to_bits() ^ (sign.0[i].to_bits() & 0x8000_0000));
        }
        a
    }
    #[inline(always)]
    fn below_mask(self, a: F32x8, b: F32x8) -> u32 {
        let mut mask = 0;
        for i in 0..LANES {
            mask |= ((a.0[i] < b.0[i]) as u32) << i;
        }
        mask
    }
    #[inline(always)]
    fn select_below(self, a: F32x8, b: F32x8, if_below: F32x8, mut otherwise: F32x8) -> F32x8 {
        for i in 0..LANES {
            if a.0[i] < b.0[i] {
                otherwise.0[i] = if_below.0[i];
            }
        }
        otherwise
    }
    #[inline(always)]
    fn load_qvs_lanes(self, locals: &[Qvs], stride: usize, joint: usize) -> [F32x8; 10] {
        let mut v = [F32x8::ZERO; 10];
        for k in 0..LANES {
            let q = &locals[k * stride + joint];
            let values = [
                q.rotation.x,
                q.rotation.y,
                q.rotation.z,
                q.rotation.w,
                q.translation.x,
                q.translation.y,
                q.translation.z,
                q.scale.x,
                q.scale.y,
                q.scale.z,
            ];
            for (c, value) in values.into_iter().enumerate() {
                v[c].0[k] = value;
            }
        }
        v
    }

    #[inline(always)]
    fn load_qt_lanes(self, locals: &[Qvs], stride: usize, joint: usize) -> [F32x8; 7] {
        let v = self.load_qvs_lanes(locals, stride, joint);
        [v[0], v[1], v[2], v[3], v[4], v[5], v[6]]
    }

    #[inline(always)]
    fn encode_normal_unorm10(self, normal: [F32x8; 3]) -> F32x8 {
        let mut r = F32x8::ZERO;
        for k in 0..LANES {
            let n = glam::Vec3::new(normal[0].0[k], normal[1].0[k], normal[2].0[k]);
            r.0[k] = f32::from_bits(pack_normal(n));
        }
        r
    }

    fn encode_scaled_normal_unorm10(self, normal: [F32x8; 3], scale: F32x8) -> F32x8 {
        let mut r = F32x8::ZERO;
        for k in 0..LANES {
            let n = glam::Vec3::new(normal[0].0[k], normal[1].0[k], normal[2].0[k]);
            r.0[k] = f32::from_bits(pack_scaled_normal(n, scale.0[k]));
        }
        r
    }

    #[inline(always)]
    fn transpose_halves(self, rows: [F32x8; 4]) -> [F32x8; 4] {
        let mut out = [F32x8::ZERO; 4];
        for (i, o) in out.iter_mut().enumerate() {
            for (j, row) in rows.iter().enumerate() {
                o.0[j] = row.0[i];
                o.0[j + 4] = row.0[i + 4];
            }
        }
        out
    }

    #[inline(always)]
    fn low_halves(self, a: F32x8, b: F32x8) -> F32x8 {
        let mut r = a;
        r.0[4..].copy_from_slice(&b.0[..4]);
        r
    }

    #[inline(always)]
    fn high_halves(self, a: F32x8, b: F32x8) -> F32x8 {
        let mut r = b;
        r.0[..4].copy_from_slice(&a.0[4..]);
        r
    }

    #[inline(always)]
    unsafe fn store_half(self, out: *mut f32, v: F32x8, high: bool) {
        let half: [f32; 4] = if high {
            [v.0[4], v.0[5], v.0[6], v.0[7]]
        } else {
            [v.0[0], v.0[1], v.0[2], v.0[3]]
        };
        // SAFETY: the caller guarantees `out` is valid for four f32.
        unsafe { (out as *mut [f32; 4]).write_unaligned(half) }
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, out: *mut f32, v: F32x8) {
        // SAFETY: the caller guarantees `out` is valid for eight f32.
        unsafe { (out as *mut [f32; LANES]).write_unaligned(v.0) }
    }

    #[inline(always)]
    unsafe fn stream(self, out: *mut f32, v: F32x8) {
        // SAFETY: the caller guarantees `out` is aligned and valid for eight f32.
        unsafe { (out as *mut F32x8).write(v) }
    }

    #[inline(always)]
    fn store_fence(self) {}

    type W = [F32x8; 2];
    const WIDE: bool = false;

    #[inline(always)]
    fn load_pair(self, x: &[F32x8; 2]) -> [F32x8; 2] {
        *x
    }
    #[inline(always)]
    fn store_pair(self, x: &mut [F32x8; 2], w: [F32x8; 2]) {
        *x = w;
    }
    #[inline(always)]
    fn splat_pair(self, x: f32) -> [F32x8; 2] {
        [self.splat(x); 2]
    }
    #[inline(always)]
    fn pair_mul(self, a: [F32x8; 2], b: [F32x8; 2]) -> [F32x8; 2] {
        [self.mul(a[0], b[0]), self.mul(a[1], b[1])]
    }
    #[inline(always)]
    fn pair_mul_add(self, a: [F32x8; 2], b: [F32x8; 2], c: [F32x8; 2]) -> [F32x8; 2] {
        [
            self.mul_add(a[0], b[0], c[0]),
            self.mul_add(a[1], b[1], c[1]),
        ]
    }
    #[inline(always)]
    fn pair_neg_mul_add(self, a: [F32x8; 2], b: [F32x8; 2], c: [F32x8; 2]) -> [F32x8; 2] {
        [
            self.neg_mul_add(a[0], b[0], c[0]),
            self.neg_mul_add(a[1], b[1], c[1]),
        ]
    }
    #[inline(always)]
    fn pair(self, low: F32x8, high: F32x8) -> [F32x8; 2] {
        [low, high]
    }
    #[inline(always)]
    fn unpair(self, w: [F32x8; 2]) -> [F32x8; 2] {
        w
    }
}
