//! The AVX2+FMA backend: [`Simd`] on `__m256`, one instruction per operation. A token
//! [`Avx2`] can only be had from [`Avx2::detect`], so holding one proves the CPU has both
//! features.
#![cfg(target_arch = "x86_64")]

use super::level::SimdLevel;
use super::vector::Simd;
use crate::types::Qvs;
use crate::types::{F32x8, LANES};

/// AVX2 + FMA on `__m256`. The token proves the CPU has both features.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx2 {
    _proof: (),
}

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// The token, if this CPU has AVX2 and FMA and the portable level is not forced
    /// ([`super::force_level`]).
    pub fn detect() -> Option<Avx2> {
        (SimdLevel::detect() != SimdLevel::Portable).then_some(Avx2 { _proof: () })
    }

    /// The token for an AVX-512 kernel: [`super::Avx512`] exists only where
    /// `SimdLevel::supported` found AVX2 and FMA beside AVX-512.
    #[inline(always)]
    pub(super) fn implied_by_avx512() -> Avx2 {
        Avx2 { _proof: () }
    }
}

// SAFETY (every `unsafe` block in this impl): an `Avx2` value exists only if `detect`
// found AVX2 and FMA, so the intrinsics are supported; loads and stores go through
// `F32x8`, which is 32-byte aligned. The methods are `#[inline(always)]` and the kernels
// call them from `#[target_feature(enable = "avx2,fma")]` functions, where they compile to
// single instructions.
#[cfg(target_arch = "x86_64")]
impl Simd for Avx2 {
    type V = std::arch::x86_64::__m256;

    #[inline(always)]
    fn splat(self, x: f32) -> Self::V {
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2).
        unsafe { std::arch::x86_64::_mm256_set1_ps(x) }
    }
    #[inline(always)]
    fn load(self, x: &F32x8) -> Self::V {
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2
        // and FMA), and `F32x8` is 32-byte aligned, as the aligned access needs.
        unsafe { std::arch::x86_64::_mm256_load_ps(x.0.as_ptr()) }
    }
    #[inline(always)]
    fn store(self, x: &mut F32x8, v: Self::V) {
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2
        // and FMA), and `F32x8` is 32-byte aligned, as the aligned access needs.
        unsafe { std::arch::x86_64::_mm256_store_ps(x.0.as_mut_ptr(), v) }
    }
    #[inline(always)]
    fn add(self, a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2).
        unsafe { std::arch::x86_64::_mm256_add_ps(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2).
        unsafe { std::arch::x86_64::_mm256_sub_ps(a, b) }
    }
    #[inline(always)]
    fn mul(self, a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2).
        unsafe { std::arch::x86_64::_mm256_mul_ps(a, b) }
    }
    #[inline(always)]
    fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V {
        // SAFETY: FMA is present (an `Avx2` exists only where `detect` found it).
        unsafe { std::arch::x86_64::_mm256_fmadd_ps(a, b, c) }
    }
    #[inline(always)]
    fn neg_mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V {
        // SAFETY: FMA is present (an `Avx2` exists only where `detect` found it).
        unsafe { std::arch::x86_64::_mm256_fnmadd_ps(a, b, c) }
    }
    #[inline(always)]
    fn div(self, a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2).
        unsafe { std::arch::x86_64::_mm256_div_ps(a, b) }
    }
    #[inline(always)]
    fn sqrt(self, a: Self::V) -> Self::V {
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2).
        unsafe { std::arch::x86_64::_mm256_sqrt_ps(a) }
    }
    #[inline(always)]
    fn abs(self, a: Self::V) -> Self::V {
        use std::arch::x86_64::*;
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2).
        unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), a) }
    }
    #[inline(always)]
    fn flip_sign(self, a: Self::V, sign: Self::V) -> Self::V {
        use std::arch::x86_64::*;
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2).
        unsafe { _mm256_xor_ps(a, _mm256_and_ps(sign, _mm256_set1_ps(-0.0))) }
    }
    #[inline(always)]
    fn below_mask(self, a: Self::V, b: Self::V) -> u32 {
        use std::arch::x86_64::*;
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2).
        unsafe { _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(a, b)) as u32 }
    }
    #[inline(always)]
    fn select_below(
        self,
        a: Self::V,
        b: Self::V,
        if_below: Self::V,
        otherwise: Self::V,
    ) -> Self::V {
        use std::arch::x86_64::*;
        // SAFETY: AVX is present (an `Avx2` exists only where `detect` found AVX2).
        unsafe { _mm256_blendv_ps(otherwise, if_below, _mm256_cmp_ps::<_CMP_LT_OQ>(a, b)) }
    }

    /// Three 16-byte loads per instance, then an in-register 4×4 transpose in each
    /// 128-bit half: 24 loads and 36 shuffles for 80 values instead of 80 inserts.
    #[inline(always)]
    fn load_qvs_lanes(self, locals: &[Qvs], stride: usize, joint: usize) -> [Self::V; 10] {
        let [r, t, sc] = qvs_parts::<3>(locals, stride, joint);
        [
            r[0], r[1], r[2], r[3], t[0], t[1], t[2], sc[0], sc[1], sc[2],
        ]
    }

    #[inline(always)]
    fn load_qt_lanes(self, locals: &[Qvs], stride: usize, joint: usize) -> [Self::V; 7] {
        let [r, t] = qvs_parts::<2>(locals, stride, joint);
        [r[0], r[1], r[2], r[3], t[0], t[1], t[2]]
    }

    #[inline(always)]
    fn encode_normal_unorm10(self, normal: [Self::V; 3]) -> Self::V {
        use std::arch::x86_64::*;
        // SAFETY: see the impl comment.
        unsafe {
            let [nx, ny, nz] = normal;
            let len2 = _mm256_fmadd_ps(nz, nz, _mm256_fmadd_ps(ny, ny, _mm256_mul_ps(nx, nx)));
            // The approximate reciprocal square root (relative error < 1.5 * 2^-12) is
            // enough: the shader renormalizes, and its overshoot (c * 511 off by at most
            // 0.19) keeps every rounded component in 1..=1023.
            let inv = _mm256_rsqrt_ps(_mm256_max_ps(len2, _mm256_set1_ps(1e-30)));
            let scale = _mm256_mul_ps(inv, _mm256_set1_ps(511.0));
            scaled_unorm10(normal, scale)
        }
    }

    #[inline(always)]
    fn encode_scaled_normal_unorm10(self, normal: [Self::V; 3], scale: Self::V) -> Self::V {
        // SAFETY: see the impl comment.
        unsafe { scaled_unorm10(normal, scale) }
    }

    #[inline(always)]
    fn transpose_halves(self, rows: [Self::V; 4]) -> [Self::V; 4] {
        transpose_halves(rows)
    }

    #[inline(always)]
    fn low_halves(self, a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: see the impl comment.
        unsafe { std::arch::x86_64::_mm256_permute2f128_ps::<0x20>(a, b) }
    }

    #[inline(always)]
    fn high_halves(self, a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: see the impl comment.
        unsafe { std::arch::x86_64::_mm256_permute2f128_ps::<0x31>(a, b) }
    }

    #[inline(always)]
    unsafe fn store_half(self, out: *mut f32, v: Self::V, high: bool) {
        use std::arch::x86_64::*;
        // SAFETY: see the impl comment; the caller guarantees `out` is valid for four f32.
        unsafe {
            let half = if high {
                _mm256_extractf128_ps::<1>(v)
            } else {
                _mm256_castps256_ps128(v)
            };
            _mm_storeu_ps(out, half)
        }
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, out: *mut f32, v: Self::V) {
        // SAFETY: see the impl comment; the caller guarantees `out` is valid for eight f32.
        unsafe { std::arch::x86_64::_mm256_storeu_ps(out, v) }
    }

    #[inline(always)]
    unsafe fn stream(self, out: *mut f32, v: Self::V) {
        // SAFETY: see the impl comment; the caller guarantees `out` is 32-byte aligned and
        // valid for eight f32.
        unsafe { std::arch::x86_64::_mm256_stream_ps(out, v) }
    }

    #[inline(always)]
    fn store_fence(self) {
        // SAFETY: see the impl comment (SSE is part of x86-64).
        unsafe { std::arch::x86_64::_mm_sfence() }
    }

    type W = [std::arch::x86_64::__m256; 2];
    const WIDE: bool = false;

    #[inline(always)]
    fn load_pair(self, x: &[F32x8; 2]) -> Self::W {
        [self.load(&x[0]), self.load(&x[1])]
    }
    #[inline(always)]
    fn store_pair(self, x: &mut [F32x8; 2], w: Self::W) {
        self.store(&mut x[0], w[0]);
        self.store(&mut x[1], w[1]);
    }
    #[inline(always)]
    fn splat_pair(self, x: f32) -> Self::W {
        [self.splat(x); 2]
    }
    #[inline(always)]
    fn pair_mul(self, a: Self::W, b: Self::W) -> Self::W {
        [self.mul(a[0], b[0]), self.mul(a[1], b[1])]
    }
    #[inline(always)]
    fn pair_mul_add(self, a: Self::W, b: Self::W, c: Self::W) -> Self::W {
        [
            self.mul_add(a[0], b[0], c[0]),
            self.mul_add(a[1], b[1], c[1]),
        ]
    }
    #[inline(always)]
    fn pair_neg_mul_add(self, a: Self::W, b: Self::W, c: Self::W) -> Self::W {
        [
            self.neg_mul_add(a[0], b[0], c[0]),
            self.neg_mul_add(a[1], b[1], c[1]),
        ]
    }
    #[inline(always)]
    fn pair(self, low: Self::V, high: Self::V) -> Self::W {
        [low, high]
    }
    #[inline(always)]
    fn unpair(self, w: Self::W) -> [Self::V; 2] {
        w
    }
}

/// The first `PARTS` 16-byte parts (rotation, translation, scale) of joint `joint` of
/// eight instances (instance `k` at `k * stride`), each transposed into four lane vectors.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn qvs_parts<const PARTS: usize>(
    locals: &[Qvs],
    stride: usize,
    joint: usize,
) -> [[std::arch::x86_64::__m256; 4]; PARTS] {
    use std::arch::x86_64::*;
    assert!(locals.len() > (LANES - 1) * stride + joint);
    let base = locals[joint..].as_ptr() as *const f32;
    // SAFETY: only inlined into the AVX kernels (see the `Avx2` impl comment); instance
    // k's joint is `locals[k * stride + joint]`, in bounds (asserted above); `Qvs` is
    // 16-byte aligned, so each of its three 16-byte parts is an aligned load. A loop over
    // parts, not a closure: a closure would not inherit AVX.
    unsafe {
        let mut out = [[_mm256_setzero_ps(); 4]; PARTS];
        for (part, o) in out.iter_mut().enumerate() {
            let mut rows = [_mm256_setzero_ps(); 4];
            for (k, row) in rows.iter_mut().enumerate() {
                *row = _mm256_insertf128_ps::<1>(
                    _mm256_castps128_ps256(_mm_load_ps(qvs_part(base, stride, k, part))),
                    _mm_load_ps(qvs_part(base, stride, k + 4, part)),
                );
            }
            *o = transpose_halves(rows);
        }
        out
    }
}

/// A 4×4 transpose in each 128-bit half of four vectors: result `i` holds element `i` of
/// every input, from the low half in its low half and from the high half in its high half.
/// Lane matrices to per-instance vertices (stores) and per-instance transforms to lanes
/// (loads) are both this: four unpacks and four shuffles.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transpose_halves(
    [a, b, c, d]: [std::arch::x86_64::__m256; 4],
) -> [std::arch::x86_64::__m256; 4] {
    use std::arch::x86_64::*;
    // SAFETY: only inlined into the AVX kernels (see the `Avx2` impl comment).
    unsafe {
        let ab_low = _mm256_unpacklo_ps(a, b);
        let ab_high = _mm256_unpackhi_ps(a, b);
        let cd_low = _mm256_unpacklo_ps(c, d);
        let cd_high = _mm256_unpackhi_ps(c, d);
        [
            _mm256_shuffle_ps::<0x44>(ab_low, cd_low),
            _mm256_shuffle_ps::<0xEE>(ab_low, cd_low),
            _mm256_shuffle_ps::<0x44>(ab_high, cd_high),
            _mm256_shuffle_ps::<0xEE>(ab_high, cd_high),
        ]
    }
}

/// Address of part `part` (0 rotation, 1 translation, 2 scale) of instance `k`'s joint,
/// `base` pointing at instance 0's joint and instances `stride` joints apart.
///
/// # Safety
/// The address must lie inside the slice `base` was taken from.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn qvs_part(base: *const f32, stride: usize, k: usize, part: usize) -> *const f32 {
    // SAFETY: forwarded to the caller.
    unsafe { base.add(k * stride * 12 + part * 4) }
}

/// The unorm 10:10:10:2 bits of `normal * scale` (each component in [-511, 511]).
/// Adding 2^23 + 512 rounds c * scale + 512 to an integer q (the float spacing at 2^23 is
/// one) and leaves q in the low mantissa bits: the float's bits are 0x4B00_0000 + q.
/// Shifted left by 10 or 20, the 0x4B00_0000 part leaves the 32-bit word, so only x's
/// needs subtracting: no float-to-int conversions, no clamps. (511 and 512, not 511.5 and
/// 511.5: 2^23 + 511.5 is not a float.)
///
/// # Safety
/// The CPU must have AVX2 and FMA (every caller holds a token proving it).
#[inline(always)]
unsafe fn scaled_unorm10(
    normal: [std::arch::x86_64::__m256; 3],
    scale: std::arch::x86_64::__m256,
) -> std::arch::x86_64::__m256 {
    use std::arch::x86_64::*;
    let [nx, ny, nz] = normal;
    // SAFETY: the caller guarantees AVX2 and FMA.
    unsafe {
        let magic = _mm256_set1_ps(8_388_608.0 + 512.0);
        // A macro, not a closure: a closure would not inherit the kernel's target
        // features (see the note before `mul_3x4`).
        macro_rules! bits_of {
            ($c:expr) => {
                _mm256_castps_si256(_mm256_fmadd_ps($c, scale, magic))
            };
        }
        let (qx, qy, qz) = (bits_of!(nx), bits_of!(ny), bits_of!(nz));
        let bits = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_sub_epi32(qx, _mm256_set1_epi32(0x4B00_0000)),
                _mm256_slli_epi32::<10>(qy),
            ),
            _mm256_slli_epi32::<20>(qz),
        );
        _mm256_castsi256_ps(bits)
    }
}
