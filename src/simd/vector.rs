//! The vector operations every SIMD level implements ([`Simd`]), the one trait the lane
//! kernels are generic over.
//!
//! How it works: a token type per level implements these on its vector type (see the
//! backends beside this file); a kernel written once against the trait compiles to each.

use crate::types::{F32x8, Qvs};

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
