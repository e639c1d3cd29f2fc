//! Which material a vertex is drawn with, carried in the unskinned stream's u coordinate.
//!
//! How it works: every draw path already brings each vertex's uv to the fragment shader
//! (from the interleaved vertex, vertex slot 1 or a storage stream), and a vertex shader
//! may read only four storage buffers on the devices skinbench supports, all of them
//! taken. So the material travels inside the uv: the mesh's u coordinates span whole
//! units, and material `m` moves its vertices' u by `m × stride_u`, a power of two
//! above the span with half a unit of room on either side; the slots start at
//! `origin_u`. The fragment shader takes the material
//! back as `floor((u − origin_u) / stride_u)` and the file's u as `u − m × stride_u`.
//! Material 0 moves nothing, so a character with one material keeps its uvs bit for bit.
//! A triangle never mixes materials (each glTF primitive has one, and the mesh levels
//! only collapse edges inside a primitive), so the interpolated u stays inside its
//! material's slot. [`MaterialUv::decode`] is the shader's arithmetic in Rust, for tests.

/// The largest `|u|` a moved uv may reach: f32 keeps 1/8192 of a unit there, a
/// quarter of a texel of a 2048-texel texture.
pub const MAX_MOVED_U: f32 = 1024.0;

/// How the materials are laid along u (see the module docs). Made by
/// [`MaterialUv::for_mesh`]; the shader reads `origin_u` and `stride_u` from a uniform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialUv {
    origin_u: f32,
    stride_u: f32,
    /// Materials the slots hold (1: nothing is moved).
    materials: u32,
}

impl Default for MaterialUv {
    fn default() -> Self {
        MaterialUv {
            origin_u: 0.0,
            stride_u: 1.0,
            materials: 1,
        }
    }
}

impl MaterialUv {
    /// The slots for a mesh whose vertices have u coordinates `us` and use `materials`
    /// materials. Non-finite u are left out of the span (they draw garbage, never read
    /// out of bounds). Where the slots would move u past [`MAX_MOVED_U`] (uvs spread
    /// over hundreds of units, or very many materials) there are none: every vertex is
    /// drawn with material 0, and [`MaterialUv::marks_materials`] says so.
    pub fn for_mesh(us: impl Iterator<Item = f32>, materials: usize) -> Self {
        let (mut low, mut high) = (f32::INFINITY, f32::NEG_INFINITY);
        for u in us.filter(|u| u.is_finite()) {
            low = low.min(u);
            high = high.max(u);
        }
        if low > high {
            (low, high) = (0.0, 0.0);
        }
        // Half a unit of room below the lowest whole u and half above the highest: a u
        // that sits on a whole unit (every uv of a mesh without uvs is 0) and comes out
        // of the rasteriser's interpolation a rounding error lower or higher stays in its
        // slot.
        let origin_u = low.floor() - 0.5;
        let span = high.floor() - low.floor() + 2.0;
        let stride_u = if span < (1u32 << 20) as f32 {
            (span as u32).next_power_of_two() as f32
        } else {
            f32::INFINITY
        };
        let reach = origin_u
            .abs()
            .max((origin_u + stride_u * materials as f32).abs());
        // A NaN reach (never, with the finite span above) counts as too far.
        let fits = reach.partial_cmp(&MAX_MOVED_U).is_some_and(|o| o.is_le());
        if materials <= 1 || !fits {
            return MaterialUv {
                origin_u,
                stride_u: if stride_u.is_finite() { stride_u } else { 1.0 },
                materials: 1,
            };
        }
        MaterialUv {
            origin_u,
            stride_u,
            materials: materials as u32,
        }
    }

    /// Whether the uvs carry the materials (else every vertex draws material 0).
    pub fn marks_materials(&self) -> bool {
        self.materials > 1
    }

    /// Where the slots start: half a unit below the mesh's lowest whole u.
    pub fn origin_u(&self) -> f32 {
        self.origin_u
    }

    /// How far apart the materials' slots are along u.
    pub fn stride_u(&self) -> f32 {
        self.stride_u
    }

    /// Materials the slots hold.
    pub fn materials(&self) -> u32 {
        self.materials
    }

    /// `uv` of a vertex drawn with `material` (material 0 where the slots do not hold it).
    pub fn encode(&self, uv: [f32; 2], material: u16) -> [f32; 2] {
        let m = if (material as u32) < self.materials {
            material as f32
        } else {
            0.0
        };
        [uv[0] + m * self.stride_u, uv[1]]
    }

    /// The material and the file's u of a drawn `u`, as `fs_skinned` computes them.
    pub fn decode(&self, u: f32) -> (u32, f32) {
        let slot = ((u - self.origin_u) / self.stride_u)
            .floor()
            .clamp(0.0, (self.materials - 1) as f32);
        (slot as u32, u - slot * self.stride_u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_material_moves_nothing() {
        let slots = MaterialUv::for_mesh([0.25, 0.75, -0.5].into_iter(), 1);
        assert!(!slots.marks_materials());
        assert_eq!(slots.encode([0.75, 0.5], 0), [0.75, 0.5]);
        assert_eq!(slots.decode(-0.5), (0, -0.5));
    }

    #[test]
    fn each_material_comes_back_with_its_own_u() {
        let us = [-1.0, -0.25, 0.0, 0.5, 0.999, 1.0, 1.75];
        let slots = MaterialUv::for_mesh(us.into_iter(), 5);
        assert!(slots.marks_materials());
        assert_eq!(slots.origin_u(), -1.5);
        // Whole units -1..=1 and half a unit of room either side: 4.
        assert_eq!(slots.stride_u(), 4.0);
        for m in 0..5u16 {
            for u in us {
                let moved = slots.encode([u, 0.3], m);
                assert_eq!(moved[1], 0.3);
                let (material, back) = slots.decode(moved[0]);
                assert_eq!(material, m as u32, "u {u} material {m}");
                assert!((back - u).abs() < 1e-5, "u {u} material {m}: {back}");
            }
        }
    }

    /// The rasteriser's interpolation gives back a vertex's u within rounding: u on a
    /// whole unit (every uv of a mesh without uvs) must stay in its slot a little lower
    /// or higher.
    #[test]
    fn a_u_interpolated_a_little_off_keeps_its_material() {
        for us in [
            vec![0.0f32],
            vec![0.0, 1.0],
            vec![-2.0, 3.0],
            vec![0.25, 0.75],
        ] {
            let slots = MaterialUv::for_mesh(us.iter().copied(), 40);
            for m in 0..40u16 {
                for &u in &us {
                    let moved = slots.encode([u, 0.0], m)[0];
                    for off in [1.0 - 1e-5, 1.0 + 1e-5] {
                        for near in [moved * off, moved - 1e-3, moved + 1e-3] {
                            assert_eq!(slots.decode(near).0, m as u32, "us {us:?} u {u} m {m}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn uvs_spread_too_far_draw_material_zero() {
        let slots = MaterialUv::for_mesh([0.0, 900.0].into_iter(), 3);
        assert!(!slots.marks_materials());
        assert_eq!(slots.encode([5.0, 1.0], 2), [5.0, 1.0]);
        let slots = MaterialUv::for_mesh([f32::NAN, f32::INFINITY, 0.5].into_iter(), 3);
        assert!(slots.marks_materials());
        assert_eq!(slots.origin_u(), -0.5);
        assert_eq!(slots.decode(slots.encode([0.5, 0.0], 2)[0]), (2, 0.5));
        let slots = MaterialUv::for_mesh([f32::MAX, -f32::MAX].into_iter(), 2);
        assert!(!slots.marks_materials());
    }
}
