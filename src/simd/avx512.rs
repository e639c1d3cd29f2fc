//! The AVX-512 backends: eight instances per 256-bit vector, as [`super::Avx2`], compiled
//! with AVX-512 enabled; [`Avx512Wide`] adds 512-bit registers where a kernel pairs two
//! lane vectors.
//!
//! How it works: every [`Simd`] operation on one lane vector is AVX2's own (the methods
//! forward to [`Avx2`]), but the kernels enter through `#[target_feature(enable =
//! "avx512f,avx512vl,avx512dq,…")]` functions, so the compiler encodes them with EVEX, has
//! 32 vector registers instead of 16 (fewer spills in the four-influence blend and the
//! hierarchy's matrix products) and may use masked and ternary-logic forms. The two tokens
//! differ in [`Simd::W`], the pair of lane vectors: [`Avx512`] keeps it as two 256-bit
//! registers (so the kernels take their unpaired paths, as at AVX2), [`Avx512Wide`] makes
//! it one 512-bit register and the skin kernel blends and transforms two matrix entries
//! per instruction (`skin::simd`). Both are levels of their own ([`SimdLevel`]) because
//! which is faster depends on the core: one with full-width 512-bit units (AMD Zen 5,
//! Intel's server cores) runs a 512-bit multiply-add at the rate of a 256-bit one, one
//! that splits them in two (AMD Zen 4) does not, and there the pairing only adds the
//! extractions back to 256 bits.
//!
//! Sixteen instances per 512-bit register (groups of sixteen) were measured in a probe
//! on a Zen 4 (bench-results/2026-11-23_avx512.md): 11 % less time per instance in whole
//! groups, but at 100 instances a partial last group of sixteen costs a whole one and two
//! threads split 7 groups 4 to 3, so sixteen lanes came out 2–4 % faster on one thread
//! and 2–8 % slower on two; at 1,000 instances 11–15 % faster. Groups stay eight at every
//! level, so every level shares one output layout (the decision and what a
//! per-instance-count width would cost: bench-results/2026-11-23_avx512.md, section 3b).
#![cfg(target_arch = "x86_64")]

use super::avx2::Avx2;
use super::level::SimdLevel;
use super::vector::Simd;
use crate::types::F32x8;
use crate::types::Qvs;
use std::arch::x86_64::*;

/// AVX-512 (F, VL, DQ) with AVX2 and FMA, 256-bit vectors. The token proves the CPU has
/// them all.
#[derive(Clone, Copy, Debug)]
pub struct Avx512 {
    _proof: (),
}

impl Avx512 {
    /// The token, if this CPU has AVX-512 F, VL and DQ, AVX2 and FMA, and no lower level
    /// is forced ([`super::force_level`]).
    pub fn detect() -> Option<Avx512> {
        (SimdLevel::detect().spec().rank >= SimdLevel::Avx512.spec().rank)
            .then_some(Avx512 { _proof: () })
    }

    /// The AVX2 token: every AVX-512 CPU this token was made on has AVX2 and FMA
    /// (`SimdLevel::supported` checks them with the AVX-512 features).
    #[inline(always)]
    fn avx2(self) -> Avx2 {
        Avx2::implied_by_avx512()
    }
}

/// [`Avx512`] with 512-bit pairs of lane vectors ([`Simd::W`]). The token proves the CPU
/// has AVX-512 F, VL and DQ, AVX2 and FMA.
#[derive(Clone, Copy, Debug)]
pub struct Avx512Wide {
    _proof: (),
}

impl Avx512Wide {
    /// The token, if this CPU has AVX-512 F, VL and DQ, AVX2 and FMA, and no lower level
    /// is forced ([`super::force_level`]).
    pub fn detect() -> Option<Avx512Wide> {
        (SimdLevel::detect() == SimdLevel::Avx512Wide).then_some(Avx512Wide { _proof: () })
    }

    /// The AVX2 token, as for [`Avx512`].
    #[inline(always)]
    fn avx2(self) -> Avx2 {
        Avx2::implied_by_avx512()
    }
}

/// The operations on one lane vector, forwarded to `Avx2`'s (whose safety argument covers
/// the intrinsics: both tokens exist only where AVX2 and FMA were found too).
/// `#[inline(always)]` puts them into the kernels' AVX-512 `#[target_feature]` copies,
/// where they compile as such.
macro_rules! lane_vector_ops {
    () => {
        type V = __m256;

        #[inline(always)]
        fn splat(self, x: f32) -> __m256 {
            self.avx2().splat(x)
        }
        #[inline(always)]
        fn load(self, x: &F32x8) -> __m256 {
            self.avx2().load(x)
        }
        #[inline(always)]
        fn store(self, x: &mut F32x8, v: __m256) {
            self.avx2().store(x, v)
        }
        #[inline(always)]
        fn add(self, a: __m256, b: __m256) -> __m256 {
            self.avx2().add(a, b)
        }
        #[inline(always)]
        fn sub(self, a: __m256, b: __m256) -> __m256 {
            self.avx2().sub(a, b)
        }
        #[inline(always)]
        fn mul(self, a: __m256, b: __m256) -> __m256 {
            self.avx2().mul(a, b)
        }
        #[inline(always)]
        fn mul_add(self, a: __m256, b: __m256, c: __m256) -> __m256 {
            self.avx2().mul_add(a, b, c)
        }
        #[inline(always)]
        fn neg_mul_add(self, a: __m256, b: __m256, c: __m256) -> __m256 {
            self.avx2().neg_mul_add(a, b, c)
        }
        #[inline(always)]
        fn div(self, a: __m256, b: __m256) -> __m256 {
            self.avx2().div(a, b)
        }
        #[inline(always)]
        fn sqrt(self, a: __m256) -> __m256 {
            self.avx2().sqrt(a)
        }
        #[inline(always)]
        fn abs(self, a: __m256) -> __m256 {
            self.avx2().abs(a)
        }
        #[inline(always)]
        fn flip_sign(self, a: __m256, sign: __m256) -> __m256 {
            self.avx2().flip_sign(a, sign)
        }
        #[inline(always)]
        fn below_mask(self, a: __m256, b: __m256) -> u32 {
            self.avx2().below_mask(a, b)
        }
        #[inline(always)]
        fn select_below(self, a: __m256, b: __m256, if_below: __m256, otherwise: __m256) -> __m256 {
            self.avx2().select_below(a, b, if_below, otherwise)
        }
        #[inline(always)]
        fn load_qvs_lanes(self, locals: &[Qvs], stride: usize, joint: usize) -> [__m256; 10] {
            self.avx2().load_qvs_lanes(locals, stride, joint)
        }
        #[inline(always)]
        fn load_qt_lanes(self, locals: &[Qvs], stride: usize, joint: usize) -> [__m256; 7] {
            self.avx2().load_qt_lanes(locals, stride, joint)
        }
        #[inline(always)]
        fn encode_normal_unorm10(self, normal: [__m256; 3]) -> __m256 {
            self.avx2().encode_normal_unorm10(normal)
        }
        #[inline(always)]
        fn encode_scaled_normal_unorm10(self, normal: [__m256; 3], scale: __m256) -> __m256 {
            self.avx2().encode_scaled_normal_unorm10(normal, scale)
        }
        #[inline(always)]
        fn transpose_halves(self, rows: [__m256; 4]) -> [__m256; 4] {
            self.avx2().transpose_halves(rows)
        }
        #[inline(always)]
        fn low_halves(self, a: __m256, b: __m256) -> __m256 {
            self.avx2().low_halves(a, b)
        }
        #[inline(always)]
        fn high_halves(self, a: __m256, b: __m256) -> __m256 {
            self.avx2().high_halves(a, b)
        }
        #[inline(always)]
        unsafe fn store_half(self, out: *mut f32, v: __m256, high: bool) {
            // SAFETY: forwarded to the caller.
            unsafe { self.avx2().store_half(out, v, high) }
        }
        #[inline(always)]
        unsafe fn store_unaligned(self, out: *mut f32, v: __m256) {
            // SAFETY: forwarded to the caller.
            unsafe { self.avx2().store_unaligned(out, v) }
        }
        #[inline(always)]
        unsafe fn stream(self, out: *mut f32, v: __m256) {
            // SAFETY: forwarded to the caller.
            unsafe { self.avx2().stream(out, v) }
        }
        #[inline(always)]
        fn store_fence(self) {
            self.avx2().store_fence()
        }
    };
}

impl Simd for Avx512 {
    lane_vector_ops!();

    type W = [__m256; 2];
    const WIDE: bool = false;

    #[inline(always)]
    fn load_pair(self, x: &[F32x8; 2]) -> Self::W {
        self.avx2().load_pair(x)
    }
    #[inline(always)]
    fn store_pair(self, x: &mut [F32x8; 2], w: Self::W) {
        self.avx2().store_pair(x, w)
    }
    #[inline(always)]
    fn splat_pair(self, x: f32) -> Self::W {
        self.avx2().splat_pair(x)
    }
    #[inline(always)]
    fn pair_mul(self, a: Self::W, b: Self::W) -> Self::W {
        self.avx2().pair_mul(a, b)
    }
    #[inline(always)]
    fn pair_mul_add(self, a: Self::W, b: Self::W, c: Self::W) -> Self::W {
        self.avx2().pair_mul_add(a, b, c)
    }
    #[inline(always)]
    fn pair_neg_mul_add(self, a: Self::W, b: Self::W, c: Self::W) -> Self::W {
        self.avx2().pair_neg_mul_add(a, b, c)
    }
    #[inline(always)]
    fn pair(self, low: __m256, high: __m256) -> Self::W {
        [low, high]
    }
    #[inline(always)]
    fn unpair(self, w: Self::W) -> [__m256; 2] {
        w
    }
}

impl Simd for Avx512Wide {
    lane_vector_ops!();

    type W = __m512;
    const WIDE: bool = true;

    #[inline(always)]
    fn load_pair(self, x: &[F32x8; 2]) -> __m512 {
        // Unaligned: a pair is 32-byte aligned by its type; the pipeline's palettes are
        // whole cache lines, so there the load does not straddle two.
        // SAFETY: the token proves AVX-512 F; `x` is 64 readable bytes.
        unsafe { _mm512_loadu_ps(x.as_ptr() as *const f32) }
    }
    #[inline(always)]
    fn store_pair(self, x: &mut [F32x8; 2], w: __m512) {
        // SAFETY: the token proves AVX-512 F; `x` is 64 writable bytes.
        unsafe { _mm512_storeu_ps(x.as_mut_ptr() as *mut f32, w) }
    }
    #[inline(always)]
    fn splat_pair(self, x: f32) -> __m512 {
        // SAFETY: the token proves AVX-512 F.
        unsafe { _mm512_set1_ps(x) }
    }
    #[inline(always)]
    fn pair_mul(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: the token proves AVX-512 F.
        unsafe { _mm512_mul_ps(a, b) }
    }
    #[inline(always)]
    fn pair_mul_add(self, a: __m512, b: __m512, c: __m512) -> __m512 {
        // SAFETY: the token proves AVX-512 F.
        unsafe { _mm512_fmadd_ps(a, b, c) }
    }
    #[inline(always)]
    fn pair_neg_mul_add(self, a: __m512, b: __m512, c: __m512) -> __m512 {
        // SAFETY: the token proves AVX-512 F.
        unsafe { _mm512_fnmadd_ps(a, b, c) }
    }
    #[inline(always)]
    fn pair(self, low: __m256, high: __m256) -> __m512 {
        // SAFETY: the token proves AVX-512 F and DQ (the 256-bit insertion).
        unsafe { _mm512_insertf32x8::<1>(_mm512_castps256_ps512(low), high) }
    }
    #[inline(always)]
    fn unpair(self, w: __m512) -> [__m256; 2] {
        // SAFETY: the token proves AVX-512 F and DQ (the 256-bit extraction).
        unsafe { [_mm512_castps512_ps256(w), _mm512_extractf32x8_ps::<1>(w)] }
    }
}
