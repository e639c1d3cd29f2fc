//! Eight-lane f32 vectors and run-time CPU-feature dispatch for the `simd` variants.
//!
//! How it works: kernels are written once, generic over [`Simd`], a small set of vector
//! operations on a token type. [`Avx2`] implements them with AVX2/FMA intrinsics on
//! `__m256` (one instruction each); its token can only be obtained from
//! [`Avx2::detect`], so holding one proves the CPU has the features, and the kernels are
//! entered through `#[target_feature(enable = "avx2,fma")]` functions so every intrinsic
//! is inlined. [`Portable`] implements the same operations on `[f32; 8]` arrays (the
//! compiler's baseline vectors: SSE2 on x86-64, NEON on aarch64). The same binary runs
//! everywhere and uses AVX2/FMA where present.
//!
//! Storage is always [`F32x8`] (32-byte aligned `[f32; 8]`); lane `k` of a vector is
//! instance `k` of a group. All instances share the skeleton and mesh, so every lane reads
//! the same joint index and weight, and nothing is gathered.

mod avx2;
mod lane_math;
mod portable;

#[cfg(target_arch = "x86_64")]
pub use avx2::Avx2;
pub use lane_math::{
    load_3x4, mul_3x4, mul_3x4_left_scalar, mul_3x4_right_scalar, normal_3x4, rows_3x4, store_3x4,
    trs_to_3x4,
};
pub use portable::Portable;

use crate::types::Qvs;
pub use crate::types::{F32x8, LANES, Lanes3x4, block_slot};

/// The vector operations the lane kernels use.
pub trait Simd: Copy {
    type V: Copy;
    fn splat(self, x: f32) -> Self::V;
    fn load(self, x: &F32x8) -> Self::V;
    fn store(self, x: &mut F32x8, v: Self::V);
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a * b + c` (one rounding with FMA).
    fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// `a / b`.
    fn div(self, a: Self::V, b: Self::V) -> Self::V;
    /// `√a` (correctly rounded).
    fn sqrt(self, a: Self::V) -> Self::V;
    /// `|a|`.
    fn abs(self, a: Self::V) -> Self::V;
    /// `a` with its sign flipped where `sign` is negative (or -0.0).
    fn flip_sign(self, a: Self::V, sign: Self::V) -> Self::V;
    /// Bit `k` set where lane `k` of `a` is below lane `k` of `b`.
    fn below_mask(self, a: Self::V, b: Self::V) -> u32;

    /// Joint `joint` of eight instances' local poses (instance `k` at `k * stride`) as
    /// lanes: rotation x, y, z, w, translation x, y, z, scale x, y, z.
    fn load_qvs_lanes(self, locals: &[Qvs], stride: usize, joint: usize) -> [Self::V; 10];

    /// Eight normals (any non-zero length) as unorm 10:10:10:2 directions, the bits of
    /// each lane (see `prepare::pack_normal`).
    fn encode_normal_unorm10(self, normal: [Self::V; 3]) -> Self::V;

    /// Four vectors transposed 4×4 within each 128-bit half: result `i` holds element `i`
    /// of every input, lanes 0–3 from the inputs' low halves in its low half and lanes 4–7
    /// from their high halves in its high half (lane matrices to per-instance vertices).
    fn transpose_halves(self, rows: [Self::V; 4]) -> [Self::V; 4];

    /// The low halves of `a` and `b`, concatenated.
    fn low_halves(self, a: Self::V, b: Self::V) -> Self::V;

    /// The high halves of `a` and `b`, concatenated.
    fn high_halves(self, a: Self::V, b: Self::V) -> Self::V;

    /// Stores lanes 0–3 (`high`: lanes 4–7) of `v` to `out[..4]`.
    ///
    /// # Safety
    /// `out` must be valid for writing four f32 (any alignment).
    unsafe fn store_half(self, out: *mut f32, v: Self::V, high: bool);

    /// Stores all eight lanes to `out[..8]`.
    ///
    /// # Safety
    /// `out` must be valid for writing eight f32 (any alignment).
    unsafe fn store_unaligned(self, out: *mut f32, v: Self::V);

    /// Stores all eight lanes to `out[..8]` past the caches (non-temporal) where the CPU
    /// can; call [`Simd::store_fence`] before another thread reads them.
    ///
    /// # Safety
    /// `out` must be 32-byte aligned and valid for writing eight f32.
    unsafe fn stream(self, out: *mut f32, v: Self::V);

    /// Orders this thread's earlier non-temporal stores before its later stores, so
    /// whoever synchronizes with this thread afterwards sees them.
    fn store_fence(self);
}

pub(crate) static FORCE_PORTABLE: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// From now on, every lane kernel in the process takes the [`Portable`] path (`true`) or
/// again the best the CPU has (`false`). For measuring what AVX2 buys (`--simd portable`)
/// and for testing the fallback on machines that have AVX2.
pub fn force_portable(portable: bool) {
    FORCE_PORTABLE.store(portable, std::sync::atomic::Ordering::Relaxed);
}

/// Which instruction set the `simd` kernels run with on this machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum SimdLevel {
    /// x86-64 with AVX2 and FMA: 8 lanes per instruction, fused multiply-add.
    Avx2Fma,
    /// Everything else: the compiler's baseline vectors (SSE2 on x86-64, NEON on aarch64).
    Portable,
}

impl SimdLevel {
    /// What the CPU offers, whatever [`force_portable`] says.
    pub fn native() -> SimdLevel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return SimdLevel::Avx2Fma;
        }
        SimdLevel::Portable
    }

    /// What the lane kernels run with now.
    pub fn detect() -> SimdLevel {
        #[cfg(target_arch = "x86_64")]
        if Avx2::detect().is_some() {
            return SimdLevel::Avx2Fma;
        }
        SimdLevel::Portable
    }

    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Avx2Fma => "AVX2+FMA",
            SimdLevel::Portable => "portable",
        }
    }
}

/// Runs `$kernel` (a generic function taking a `Simd` token first, named by a path that
/// may fix its other generic parameters: `loops::<_, true>`) with AVX2 when the CPU has
/// it, else with [`Portable`]. `$name` becomes the `#[target_feature]` wrapper.
#[macro_export]
#[doc(hidden)]
macro_rules! dispatch_simd {
    (fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty { $kernel:path }) => {
        fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma")]
                fn with_avx2(token: $crate::simd::Avx2, $($arg: $ty),*) -> $ret {
                    $kernel(token, $($arg),*)
                }
                if let Some(token) = $crate::simd::Avx2::detect() {
                    // SAFETY: `detect` proved the CPU supports AVX2 and FMA, which is
                    // all `with_avx2`'s target features require.
                    return unsafe { with_avx2(token, $($arg),*) };
                }
            }
            $kernel($crate::simd::Portable, $($arg),*)
        }
    };
}
