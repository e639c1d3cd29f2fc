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

use crate::types::{Qvs, pack_normal};

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
    fn encode_normal_unorm10(self, normal: [F32x8; 3]) -> F32x8 {
        let mut r = F32x8::ZERO;
        for k in 0..LANES {
            let n = glam::Vec3::new(normal[0].0[k], normal[1].0[k], normal[2].0[k]);
            r.0[k] = f32::from_bits(pack_normal(n));
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
}

/// AVX2 + FMA on `__m256`. The token proves the CPU has both features.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx2 {
    _proof: (),
}

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// The token, if this CPU has AVX2 and FMA (and [`force_portable`] is off).
    pub fn detect() -> Option<Avx2> {
        (!FORCE_PORTABLE.load(std::sync::atomic::Ordering::Relaxed)
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma"))
        .then_some(Avx2 { _proof: () })
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
        unsafe { std::arch::x86_64::_mm256_set1_ps(x) }
    }
    #[inline(always)]
    fn load(self, x: &F32x8) -> Self::V {
        unsafe { std::arch::x86_64::_mm256_load_ps(x.0.as_ptr()) }
    }
    #[inline(always)]
    fn store(self, x: &mut F32x8, v: Self::V) {
        unsafe { std::arch::x86_64::_mm256_store_ps(x.0.as_mut_ptr(), v) }
    }
    #[inline(always)]
    fn add(self, a: Self::V, b: Self::V) -> Self::V {
        unsafe { std::arch::x86_64::_mm256_add_ps(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: Self::V, b: Self::V) -> Self::V {
        unsafe { std::arch::x86_64::_mm256_sub_ps(a, b) }
    }
    #[inline(always)]
    fn mul(self, a: Self::V, b: Self::V) -> Self::V {
        unsafe { std::arch::x86_64::_mm256_mul_ps(a, b) }
    }
    #[inline(always)]
    fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V {
        unsafe { std::arch::x86_64::_mm256_fmadd_ps(a, b, c) }
    }
    #[inline(always)]
    fn abs(self, a: Self::V) -> Self::V {
        use std::arch::x86_64::*;
        unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), a) }
    }
    #[inline(always)]
    fn flip_sign(self, a: Self::V, sign: Self::V) -> Self::V {
        use std::arch::x86_64::*;
        unsafe { _mm256_xor_ps(a, _mm256_and_ps(sign, _mm256_set1_ps(-0.0))) }
    }
    #[inline(always)]
    fn below_mask(self, a: Self::V, b: Self::V) -> u32 {
        use std::arch::x86_64::*;
        unsafe { _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(a, b)) as u32 }
    }

    /// Three 16-byte loads per instance, then an in-register 4×4 transpose in each
    /// 128-bit half: 24 loads and 36 shuffles for 80 values instead of 80 inserts.
    #[inline(always)]
    fn load_qvs_lanes(self, locals: &[Qvs], stride: usize, joint: usize) -> [Self::V; 10] {
        use std::arch::x86_64::*;
        assert!(locals.len() > (LANES - 1) * stride + joint);
        let base = locals[joint..].as_ptr() as *const f32;
        // SAFETY: see the impl comment; instance k's joint is `locals[k * stride + joint]`,
        // in bounds (asserted above); `Qvs` is 16-byte aligned, so each of its three
        // 16-byte parts is an aligned load. No closures: they would not inherit AVX.
        unsafe {
            macro_rules! transposed {
                ($part:expr) => {{
                    let a0 = _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_load_ps(qvs_part(base, stride, 0, $part))),
                        _mm_load_ps(qvs_part(base, stride, 4, $part)),
                    );
                    let a1 = _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_load_ps(qvs_part(base, stride, 1, $part))),
                        _mm_load_ps(qvs_part(base, stride, 5, $part)),
                    );
                    let a2 = _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_load_ps(qvs_part(base, stride, 2, $part))),
                        _mm_load_ps(qvs_part(base, stride, 6, $part)),
                    );
                    let a3 = _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_load_ps(qvs_part(base, stride, 3, $part))),
                        _mm_load_ps(qvs_part(base, stride, 7, $part)),
                    );
                    transpose_halves([a0, a1, a2, a3])
                }};
            }
            let r = transposed!(0);
            let t = transposed!(1);
            let sc = transposed!(2);
            [
                r[0], r[1], r[2], r[3], t[0], t[1], t[2], sc[0], sc[1], sc[2],
            ]
        }
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
            // Adding 2^23 + 512 rounds c * 511 + 512 to an integer q (the float spacing at
            // 2^23 is 1) and leaves q in the low mantissa bits: the float's bits are
            // 0x4B00_0000 + q. Shifted left by 10 or 20, the 0x4B00_0000 part leaves the
            // 32-bit word, so only x's needs subtracting: no float-to-int conversions, no
            // clamps. (511 and 512, not 511.5 and 511.5: 2^23 + 511.5 is not a float.)
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

static FORCE_PORTABLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

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

/// Runs `$body` (a generic function call taking a `Simd` token) with AVX2 when the CPU
/// has it, else with [`Portable`]. `$name` becomes the `#[target_feature]` wrapper.
#[macro_export]
#[doc(hidden)]
macro_rules! dispatch_simd {
    (fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty { $kernel:ident }) => {
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
    let [x, y, z, w] = q;
    let (x2, y2, z2) = (s.add(x, x), s.add(y, y), s.add(z, z));
    let (xx, yy, zz) = (s.mul(x, x2), s.mul(y, y2), s.mul(z, z2));
    let (xy, xz, yz) = (s.mul(x, y2), s.mul(x, z2), s.mul(y, z2));
    let (wx, wy, wz) = (s.mul(w, x2), s.mul(w, y2), s.mul(w, z2));
    let one = s.splat(1.0);
    [
        s.mul(s.sub(one, s.add(yy, zz)), scale[0]),
        s.mul(s.sub(xy, wz), scale[1]),
        s.mul(s.add(xz, wy), scale[2]),
        t[0],
        s.mul(s.add(xy, wz), scale[0]),
        s.mul(s.sub(one, s.add(xx, zz)), scale[1]),
        s.mul(s.sub(yz, wx), scale[2]),
        t[1],
        s.mul(s.sub(xz, wy), scale[0]),
        s.mul(s.add(yz, wx), scale[1]),
        s.mul(s.sub(one, s.add(xx, yy)), scale[2]),
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
