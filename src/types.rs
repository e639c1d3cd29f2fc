//! Shared data types: the vertex formats, the runtime transform (QVS), 3×4 matrices, the
//! lane layout and the cache line. The lowest layer: every other module may use these,
//! and this module uses nothing of the crate.
//!
//! How it works: each type is `#[repr(C)]` plain data (bytemuck `Pod`) with its size
//! asserted at compile time, because kernels, the GPU vertex layouts and the WGSL all rely
//! on the exact bytes.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Quat, Vec3A, Vec4};

/// Interleaved float3 position, float3 normal, float2 uv: the first version's vertex in
/// Stefan Reinalter's "Adventures in data-oriented design – Part 4: Skinning it to 11".
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct VertexInterleaved {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
}

/// The skinned stream in float3: position and normal.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct VertexF3 {
    pub position: [f32; 3],
    pub normal: [f32; 3],
}

/// The skinned stream in float4, 16-byte aligned: position (w = 1) and normal (w = 0).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct VertexF4 {
    pub position: [f32; 4],
    pub normal: [f32; 4],
}

/// A compact skinned vertex (the `packed` variant): float3 position and the normal's
/// direction in unorm 10:10:10:2 (16 bytes, half of [`VertexF4`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct VertexPacked {
    pub position: [f32; 3],
    /// x in bits 0..10, y in 10..20, z in 20..30 (WebGPU's `unorm10-10-10-2`); the top
    /// two bits are zero.
    pub normal: u32,
}

/// A normal's direction (any non-zero length) as unorm 10:10:10:2: each unit component
/// `c` becomes `q = round(511 c + 512)`, in 1..=1023, and the shader maps the fetched
/// `q / 1023` back to `(q - 512) / 511`, within half a step (1 / 1022) of `c`. (Not the
/// symmetric `511.5 c + 511.5`: the vector encoder rounds by adding `2^23 + 512` to a
/// float, and `2^23 + 511.5` is not one.) Ten bits per component are what shading needs
/// and the encode is a handful of instructions (an octahedral snorm16 code was measured:
/// more precise, but its encode cost more than the halved stores saved).
pub fn pack_normal(n: glam::Vec3) -> u32 {
    let scale = 511.0 / n.length_squared().max(1e-30).sqrt();
    // Round half to even, as the vector encoder's float rounding does.
    let q = |c: f32| ((c * scale + 512.0).round_ties_even() as u32).clamp(1, 1023);
    q(n.x) | (q(n.y) << 10) | (q(n.z) << 20)
}

/// [`pack_normal`] without the normalisation: `n * scale` rounded, its components
/// clamped to [-511, 511] (a caller's `scale` keeps them there: 511 over a bound on the
/// length). The direction survives to half a step per component of the bound, so a normal
/// shorter than its bound comes back less precisely, by the ratio of the two.
pub fn pack_scaled_normal(n: glam::Vec3, scale: f32) -> u32 {
    let q = |c: f32| (c * scale + 512.0).round_ties_even().clamp(1.0, 1023.0) as u32;
    q(n.x) | (q(n.y) << 10) | (q(n.z) << 20)
}

/// The unit direction of a packed normal (what the vertex shader computes).
pub fn unpack_normal(bits: u32) -> glam::Vec3 {
    let c = |shift: u32| (((bits >> shift) & 0x3FF) as f32 - 512.0) / 511.0;
    glam::Vec3::new(c(0), c(10), c(20)).normalize_or_zero()
}

/// Largest component error of [`unpack_normal`]`(`[`pack_normal`]`(n))` against
/// `n.normalize()`: half a step per component before renormalizing, at most √3 times that
/// after.
pub const PACKED_NORMAL_TOLERANCE: f32 = 1.8e-3;

const _: () = {
    assert!(std::mem::size_of::<VertexPacked>() == 16);
    assert!(std::mem::size_of::<VertexInterleaved>() == 32);
    assert!(std::mem::size_of::<VertexF3>() == 24);
    assert!(std::mem::size_of::<VertexF4>() == 32);
    assert!(std::mem::align_of::<VertexF4>() == 16);
};

/// Instances per SIMD group.
pub const LANES: usize = 8;

/// Where lane `k` of a group sits in a lane block (the `streamed` skin layout: one vertex
/// of all eight instances in 128 contiguous bytes): slots 0, 2, 4, 6 for lanes 0–3 and
/// 1, 3, 5, 7 for lanes 4–7, the order in which the AVX2 transpose leaves them.
pub const fn block_slot(lane: usize) -> usize {
    if lane < 4 {
        2 * lane
    } else {
        2 * (lane - 4) + 1
    }
}

/// Eight f32 lanes, 32-byte aligned (one AVX register).
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct F32x8(pub [f32; LANES]);

impl F32x8 {
    pub const ZERO: F32x8 = F32x8([0.0; LANES]);
}

/// A 3×4 affine matrix per lane: `[F32x8; 12]` is 384 bytes, one joint's matrices of
/// eight instances, contiguous. Element (row, column) is in slot
/// `m[LANE_SLOT[row * 4 + column]]`.
pub type Lanes3x4 = [F32x8; 12];

/// Where a lane matrix keeps element (row, column): slot `LANE_SLOT[row * 4 + column]`.
/// Rows 0 and 1 alternate by column, then row 2:
///
/// ```text
/// slot:    0    1    2    3    4    5    6    7    8    9    10   11
/// entry:   r0c0 r1c0 r0c1 r1c1 r0c2 r1c2 r0c3 r1c3 r2c0 r2c1 r2c2 r2c3
/// ```
///
/// Two adjacent slots make one 512-bit register, so at the `avx512-wide` SIMD level each
/// of rows 0 and 1's columns is one register for both rows: a vector is transformed by
/// both rows with three multiply-adds and no shuffles, and a matrix product computes both
/// rows' entries of a column in one (row-major pairs would hold two columns of one row,
/// whose products need adding across the halves). Where a kernel holds a matrix in
/// registers it is row-major; the slots are only where it lives in memory, so the
/// order costs nothing where it is not used (loads and stores go through this table).
pub const LANE_SLOT: [usize; 12] = [0, 2, 4, 6, 1, 3, 5, 7, 8, 9, 10, 11];

/// One cache line: the unit of the pipeline's arena and of the skinned-output buffers,
/// so every block and every output buffer starts on a line and no vertex store straddles
/// two lines.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct CacheLine(pub [u8; 64]);

impl CacheLine {
    pub const ZERO: CacheLine = CacheLine([0; 64]);
}

/// A joint transform as rotation + translation + scale ("QVS"): the runtime layout of
/// local poses (48 bytes, 16-byte aligned, no padding to skip).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Qvs {
    pub rotation: Quat,
    pub translation: Vec3A,
    pub scale: Vec3A,
}

impl Qvs {
    pub const IDENTITY: Qvs = Qvs {
        rotation: Quat::IDENTITY,
        translation: Vec3A::ZERO,
        scale: Vec3A::ONE,
    };

    #[inline]
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(
            self.scale.into(),
            self.rotation,
            self.translation.into(),
        )
    }

    /// `parent ∘ child`, exact when `parent.scale` is uniform (see `flat_qvs`).
    #[inline]
    pub fn compose(&self, child: &Qvs) -> Qvs {
        Qvs {
            rotation: self.rotation * child.rotation,
            translation: self.translation + self.rotation.mul_vec3a(self.scale * child.translation),
            scale: self.scale * child.scale,
        }
    }
}

/// A 3×4 affine matrix stored as three rows (48 bytes): the `tuned` palette. The implied
/// fourth row is (0, 0, 0, 1), so `row · (x, y, z, 1)` transforms a point and
/// `row · (x, y, z, 0)` a direction.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Mat3x4 {
    pub rows: [Vec4; 3],
}

impl Mat3x4 {
    pub const ZERO: Mat3x4 = Mat3x4 {
        rows: [Vec4::ZERO; 3],
    };

    pub fn from_mat4(m: &Mat4) -> Self {
        Mat3x4 {
            rows: [m.row(0), m.row(1), m.row(2)],
        }
    }

    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_cols_array_2d(&[
            [self.rows[0].x, self.rows[1].x, self.rows[2].x, 0.0],
            [self.rows[0].y, self.rows[1].y, self.rows[2].y, 0.0],
            [self.rows[0].z, self.rows[1].z, self.rows[2].z, 0.0],
            [self.rows[0].w, self.rows[1].w, self.rows[2].w, 1.0],
        ])
    }
}

const _: () = {
    assert!(std::mem::size_of::<Qvs>() == 48);
    assert!(std::mem::size_of::<Mat3x4>() == 48);
};

#[cfg(test)]
mod tests {
    use super::{PACKED_NORMAL_TOLERANCE, pack_normal, pack_scaled_normal, unpack_normal};
    use glam::Vec3;

    /// At a fixed scale a normal keeps half a step of its bound per component: the
    /// direction error grows as the normal shortens, by the bound over its length, and
    /// a normal at the bound fills the range without wrapping.
    #[test]
    fn scaled_normals_keep_their_share_of_the_bound() {
        let bound = 2.5f32;
        let scale = 511.0 / bound;
        for i in 0..20000 {
            let t = i as f32 * 0.618;
            let direction = Vec3::new(
                t.sin() * (t * 1.7).cos(),
                (t * 0.3).cos(),
                t.cos() * (t * 2.3).sin(),
            )
            .normalize();
            let length = bound * (0.05 + (i % 20) as f32 * 0.05);
            let back = unpack_normal(pack_scaled_normal(direction * length, scale));
            let error = (back - direction).abs().max_element();
            assert!(
                error <= PACKED_NORMAL_TOLERANCE * bound / length,
                "{direction} at {length}: {error}"
            );
        }
        assert_eq!(pack_scaled_normal(Vec3::X * bound, scale) & 0x3FF, 1023);
        assert_eq!(pack_scaled_normal(-Vec3::X * bound, scale) & 0x3FF, 1);
        assert_eq!(
            pack_scaled_normal(Vec3::ZERO, scale),
            512 | 512 << 10 | 512 << 20
        );
        assert_eq!(pack_scaled_normal(Vec3::ONE * bound, scale) >> 30, 0);
    }

    #[test]
    fn packed_normals_round_trip_within_half_a_step() {
        let mut worst: f32 = 0.0;
        let mut check = |n: Vec3| {
            let back = unpack_normal(pack_normal(n));
            worst = worst.max((back - n.normalize()).abs().max_element());
        };
        for i in 0..20000 {
            let t = i as f32 * 0.618;
            let n = Vec3::new(
                t.sin() * (t * 1.7).cos(),
                (t * 0.3).cos(),
                t.cos() * (t * 2.3).sin(),
            ) * (0.25 + i as f32 % 3.0);
            if n.length() > 1e-3 {
                check(n);
            }
        }
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            for length in [1e-3, 1.0, 7.5] {
                check(axis * length);
                check(-axis * length);
            }
        }
        assert!(
            worst <= PACKED_NORMAL_TOLERANCE,
            "worst component error {worst}"
        );
        assert_eq!(pack_normal(Vec3::X) & 0x3FF, 1023);
        assert_eq!(pack_normal(-Vec3::X) & 0x3FF, 1);
        assert_eq!(pack_normal(Vec3::Y) & 0x3FF, 512, "zero is exact");
        assert_eq!(pack_normal(Vec3::Y) >> 30, 0, "the two top bits stay clear");
    }
}
