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
mod portable;

#[cfg(target_arch = "x86_64")]
pub use avx2::Avx2;
#[cfg(target_arch = "x86_64")]
pub use avx512::{Avx512, Avx512Wide};
pub use lane_math::{
    dual_quat_from_3x4, load_3x4, matrix_from_dual_quat, mul_3x4, mul_3x4_left_scalar,
    mul_3x4_right_scalar, normal_3x4, rows_3x4, rt_to_3x4, store_3x4, transform_by_dual_quat,
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
    /// `c - a * b` (one rounding with FMA).
    fn neg_mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
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

    /// Per lane: `if_below` where `a < b`, else `otherwise` (a blend, no branch).
    fn select_below(self, a: Self::V, b: Self::V, if_below: Self::V, otherwise: Self::V)
    -> Self::V;

    /// Joint `joint` of eight instances' local poses (instance `k` at `k * stride`) as
    /// lanes: rotation x, y, z, w, translation x, y, z, scale x, y, z.
    fn load_qvs_lanes(self, locals: &[Qvs], stride: usize, joint: usize) -> [Self::V; 10];

    /// As [`Simd::load_qvs_lanes`] without the scale: rotation x, y, z, w and translation
    /// x, y, z (for rigs whose scales are all exactly 1).
    fn load_qt_lanes(self, locals: &[Qvs], stride: usize, joint: usize) -> [Self::V; 7];

    /// Eight normals (any non-zero length) as unorm 10:10:10:2 directions, the bits of
    /// each lane (see `prepare::pack_normal`).
    fn encode_normal_unorm10(self, normal: [Self::V; 3]) -> Self::V;

    /// As [`Simd::encode_normal_unorm10`] without the normalisation: each component times
    /// `scale` must lie in [-511, 511] (`scale` is 511 over a bound on the normals'
    /// length), and the stored direction is the normal's own (see
    /// `prepare::pack_scaled_normal`).
    fn encode_scaled_normal_unorm10(self, normal: [Self::V; 3], scale: Self::V) -> Self::V;

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

    /// Two lane vectors side by side, `[low | high]`: two adjacent entries of a lane
    /// matrix. One 512-bit register at the AVX-512 level, else a pair of [`Simd::V`].
    type W: Copy;

    /// Whether [`Simd::W`] is one register, so that an operation on a pair costs one
    /// instruction: the skin kernel blends and transforms two entries at a time only then
    /// (elsewhere the paired transform would cost more operations than the unpaired one).
    const WIDE: bool;

    /// Entries `x[0]` and `x[1]` as one pair.
    fn load_pair(self, x: &[F32x8; 2]) -> Self::W;
    /// Stores a pair into `x[0]` and `x[1]`.
    fn store_pair(self, x: &mut [F32x8; 2], w: Self::W);
    /// `x` in every lane of both halves.
    fn splat_pair(self, x: f32) -> Self::W;
    fn pair_mul(self, a: Self::W, b: Self::W) -> Self::W;
    /// `a * b + c`.
    fn pair_mul_add(self, a: Self::W, b: Self::W, c: Self::W) -> Self::W;
    /// `c - a * b`.
    fn pair_neg_mul_add(self, a: Self::W, b: Self::W, c: Self::W) -> Self::W;
    /// `low` and `high` as one pair.
    fn pair(self, low: Self::V, high: Self::V) -> Self::W;
    /// `[low, high]`.
    fn unpair(self, w: Self::W) -> [Self::V; 2];
}

/// What a SIMD level is; one row per level in [`SimdLevel`]'s declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimdLevelSpec {
    /// The CLI value (`--simd-level`).
    pub name: &'static str,
    pub description: &'static str,
    /// How reports and the panel name it.
    pub label: &'static str,
    /// Higher is preferred where the CPU has it.
    pub rank: u8,
}

crate::declare_variants! {
    /// Which instruction set the lane kernels (sampler, hierarchy, palette, skin) run
    /// with: the best the CPU has, detected at run time, or a lower one forced with
    /// [`force_level`] (`bench --simd-level`, the tests).
    pub enum SimdLevel: SimdLevelSpec in "SIMD level" {
        Portable => SimdLevelSpec {
            name: "portable",
            description: "plain arrays the compiler vectorizes for the build target (SSE2 on x86-64, NEON on aarch64)",
            label: "portable",
            rank: 0,
        },
        Avx2Fma => SimdLevelSpec {
            name: "avx2",
            description: "AVX2 and FMA: eight instances per 256-bit register, fused multiply-add",
            label: "AVX2+FMA",
            rank: 1,
        },
        Avx512 => SimdLevelSpec {
            name: "avx512",
            description: "AVX-512 F/VL/DQ: eight instances per 256-bit register, with 32 registers and EVEX encodings",
            label: "AVX-512",
            rank: 2,
        },
        Avx512Wide => SimdLevelSpec {
            name: "avx512-wide",
            description: "AVX-512 as avx512, and where a kernel pairs two lane vectors (the skin kernel's blend and transform) one 512-bit register for both",
            label: "AVX-512 wide",
            rank: 3,
        },
    }
}

/// A SIMD level this CPU does not have was asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("SIMD level {asked:?} is not supported by this CPU; it has: {available}")]
pub struct UnsupportedLevel {
    pub asked: &'static str,
    pub available: String,
}

/// The forced level's rank + 1; 0 for none.
static FORCED_LEVEL: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

thread_local! {
    /// This thread's level (rank + 1; 0: the process's), set by [`with_level`].
    static THREAD_LEVEL: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// Runs `f` with the lane kernels on this thread at `level` (`None`: the process's
/// level), then restores the thread's previous one, also when `f` panics. A pipeline
/// sets its own level around every group it runs, so pipelines at different levels (the
/// bench's, the conformance tests') can run side by side in one process. The caller
/// checks that the CPU has the level ([`SimdLevel::require`]): a level it lacks would
/// run instructions it does not have.
pub fn with_level<R>(level: Option<SimdLevel>, f: impl FnOnce() -> R) -> R {
    struct Restore(u8);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD_LEVEL.with(|l| l.set(self.0));
        }
    }
    let value = level.map_or(0, |l| {
        assert!(l.supported(), "SIMD level {} not supported here", l.label());
        l.spec().rank + 1
    });
    let _restore = Restore(THREAD_LEVEL.with(|l| l.replace(value)));
    f()
}

/// From now on every lane kernel in the process runs at `level` (`None`: the best the CPU
/// has again). For measuring what each instruction set buys (`bench --simd-level`) and
/// for testing every level on a machine that has a higher one. Refuses a level the CPU
/// lacks.
pub fn force_level(level: Option<SimdLevel>) -> Result<(), UnsupportedLevel> {
    if let Some(level) = level {
        level.require()?;
    }
    let value = level.map_or(0, |l| l.spec().rank + 1);
    FORCED_LEVEL.store(value, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

impl SimdLevel {
    /// Whether this CPU has the level's instructions.
    pub fn supported(self) -> bool {
        match self {
            SimdLevel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx2Fma => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx512Wide => SimdLevel::Avx512.supported(),
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx512 => {
                SimdLevel::Avx2Fma.supported()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512dq")
            }
            #[cfg(not(target_arch = "x86_64"))]
            SimdLevel::Avx2Fma | SimdLevel::Avx512 | SimdLevel::Avx512Wide => false,
        }
    }

    /// The level itself if this CPU has it, else an error listing the ones it has.
    pub fn require(self) -> Result<SimdLevel, UnsupportedLevel> {
        if self.supported() {
            return Ok(self);
        }
        Err(UnsupportedLevel {
            asked: self.spec().name,
            available: SimdLevel::available()
                .iter()
                .map(|l| l.spec().name)
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    /// The levels this CPU has, lowest first.
    pub fn available() -> Vec<SimdLevel> {
        let mut levels: Vec<SimdLevel> = <SimdLevel as crate::variant::Variant>::ALL
            .iter()
            .copied()
            .filter(|l| l.supported())
            .collect();
        levels.sort_by_key(|l| l.spec().rank);
        levels
    }

    /// The best level the CPU has, whatever [`force_level`] says (found once, then read
    /// from a static: every kernel call asks).
    pub fn native() -> SimdLevel {
        static NATIVE: std::sync::OnceLock<SimdLevel> = std::sync::OnceLock::new();
        *NATIVE.get_or_init(|| {
            let mut best = SimdLevel::Portable;
            for &level in <SimdLevel as crate::variant::Variant>::ALL {
                if level.spec().rank > best.spec().rank && level.supported() {
                    best = level;
                }
            }
            best
        })
    }

    /// What the lane kernels run with now, on this thread: the level [`with_level`] set
    /// here, else the one [`force_level`] set for the process, else the native one.
    /// Called once per kernel call (a group of eight instances), it allocates nothing.
    pub fn detect() -> SimdLevel {
        let own = THREAD_LEVEL.with(std::cell::Cell::get);
        let forced = if own != 0 {
            own
        } else {
            FORCED_LEVEL.load(std::sync::atomic::Ordering::Relaxed)
        };
        SimdLevel::from_rank(forced.wrapping_sub(1)).unwrap_or_else(SimdLevel::native)
    }

    fn from_rank(rank: u8) -> Option<SimdLevel> {
        <SimdLevel as crate::variant::Variant>::ALL
            .iter()
            .copied()
            .find(|l| l.spec().rank == rank)
    }

    /// How reports and the panel name the level (`AVX-512`, `AVX2+FMA`, `portable`).
    pub fn label(self) -> &'static str {
        self.spec().label
    }
}

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
