//! Eight-lane f32 vectors and run-time CPU-feature dispatch for the lane kernels.
//!
//! How it works: kernels are written once, generic over [`Simd`], a small set of vector
//! operations on a token type. [`Avx2`] implements them with AVX2/FMA intrinsics on
//! `__m256` (one instruction each); [`Avx512`] forwards to those, so its kernels differ
//! only in what the compiler may use (EVEX encodings, 32 registers); [`Avx512Wide`] also
//! holds a pair of lane vectors ([`Simd::W`]) in one 512-bit register, which the skin
//! kernel uses to blend and transform two matrix entries per instruction. Tokens can only
//! be obtained from `detect`, so holding one proves the CPU has the features, and
//! [`dispatch_simd!`](crate::dispatch_simd) enters each kernel through a
//! `#[target_feature]` copy per level, so every intrinsic is inlined and compiled for it.
//! [`Portable`] implements the same operations on `[f32; 8]` arrays (the compiler's
//! baseline vectors: SSE2 on x86-64, NEON on aarch64). The same binary runs everywhere and
//! uses the best level present ([`SimdLevel`]); tests and the bench force lower ones with
//! [`force_level`].
//!
//! Storage is always [`F32x8`] (32-byte aligned `[f32; 8]`); lane `k` of a vector is
//! instance `k` of a group. All instances share the skeleton and mesh, so every lane reads
//! the same joint index and weight, and nothing is gathered.

mod avx2;
mod avx512;
mod lane_math;
mod level;
mod portable;
mod vector;

#[cfg(target_arch = "x86_64")]
pub use avx2::Avx2;
#[cfg(target_arch = "x86_64")]
pub use avx512::{Avx512, Avx512Wide};
pub use lane_math::{
    dual_quat_from_3x4, load_3x4, matrix_from_dual_quat, mul_3x4, mul_3x4_left_scalar,
    mul_3x4_right_scalar, normal_3x4, rows_3x4, rt_to_3x4, store_3x4, transform_by_dual_quat,
    trs_to_3x4,
};
pub use level::{SimdLevel, SimdLevelSpec, UnsupportedLevel, force_level, with_level};
pub use portable::Portable;
pub use vector::Simd;

pub use crate::types::{F32x8, LANES, Lanes3x4, block_slot};

/// Runs `$kernel` (a generic function taking a `Simd` token first, named by a path that
/// may fix its other generic parameters: `loops::<_, true>`) at the level
/// [`SimdLevel::detect`] says: AVX-512 wide, AVX-512, AVX2 or [`Portable`]. `$name` becomes the entry
/// point; each x86 level gets its own `#[target_feature]` copy of the kernel.
#[macro_export]
#[doc(hidden)]
macro_rules! dispatch_simd {
    (fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty { $kernel:path }) => {
        fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
                fn with_avx512_wide(token: $crate::simd::Avx512Wide, $($arg: $ty),*) -> $ret {
                    $kernel(token, $($arg),*)
                }
                #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
                fn with_avx512(token: $crate::simd::Avx512, $($arg: $ty),*) -> $ret {
                    $kernel(token, $($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn with_avx2(token: $crate::simd::Avx2, $($arg: $ty),*) -> $ret {
                    $kernel(token, $($arg),*)
                }
                if let Some(token) = $crate::simd::Avx512Wide::detect() {
                    // SAFETY: `detect` proved the CPU supports AVX-512 F/VL/DQ, AVX2 and
                    // FMA, which is all `with_avx512_wide`'s target features require.
                    return unsafe { with_avx512_wide(token, $($arg),*) };
                }
                if let Some(token) = $crate::simd::Avx512::detect() {
                    // SAFETY: `detect` proved the CPU supports AVX-512 F/VL/DQ, AVX2 and
                    // FMA, which is all `with_avx512`'s target features require.
                    return unsafe { with_avx512(token, $($arg),*) };
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
