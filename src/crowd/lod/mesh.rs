//! Geometric LOD's choice: which level of the character's chain
//! ([`crate::prepare::mesh_lod`]) a character is drawn with.
//!
//! How it works: each level has an error measured over the clips' poses
//! ([`crate::skin::mesh_lod`]), model units. A character's pixels per model unit at its
//! nearest depth (what update-rate LOD computes anyway) turn an error into pixels; the
//! character takes the coarsest level whose error stays under the same threshold. To keep
//! a character at the boundary from flickering between two levels, it moves to a coarser
//! level only when that level's error is under [`MESH_HYSTERESIS`] of the threshold, and to
//! a finer one as soon as its own level passes the threshold; so the threshold always
//! holds. The GPU's LOD pass (`shaders/lod.wgsl`) makes the same choice in the same f32
//! arithmetic.

/// A coarser level is taken only under this share of the threshold.
pub const MESH_HYSTERESIS: f32 = 0.75;

/// The level of `errors` (one per level, finest first, never decreasing) a character
/// drawn at `px_per_unit` takes after `previous`. `px_per_unit` 0: not in view (it keeps
/// its level); not finite: the full mesh.
pub fn choose_mesh_level(
    errors: &[f32],
    px_per_unit: f32,
    threshold_px: f32,
    previous: u32,
) -> u32 {
    let levels = errors.len() as u32;
    if levels <= 1 || !px_per_unit.is_finite() {
        return 0;
    }
    if px_per_unit == 0.0 {
        return previous.min(levels - 1);
    }
    let previous = previous.min(levels - 1);
    let fits = |l: u32, limit: f32| errors[l as usize] * px_per_unit <= limit;
    let mut coarsest = 0;
    let mut coarsest_settled = 0;
    for l in 1..levels {
        if fits(l, threshold_px) {
            coarsest = l;
        }
        if fits(l, threshold_px * MESH_HYSTERESIS) {
            coarsest_settled = l;
        }
    }
    if previous > coarsest {
        coarsest
    } else {
        previous.max(coarsest_settled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarsest_within_threshold_with_hysteresis() {
        let errors = [0.0, 0.01, 0.04, 0.2];
        // 10 px per unit: level 2 costs 0.4 px, level 3 2 px.
        assert_eq!(choose_mesh_level(&errors, 10.0, 1.0, 0), 2);
        // Coming closer: level 2 at 30 px/unit costs 1.2 px: finer at once.
        assert_eq!(choose_mesh_level(&errors, 30.0, 1.0, 2), 1);
        // Going away: at 22 px/unit level 2 costs 0.88 px, within the threshold but not
        // under 0.75 of it: level 1 stays.
        assert_eq!(choose_mesh_level(&errors, 22.0, 1.0, 1), 1);
        // ... but a character already at level 2 keeps it.
        assert_eq!(choose_mesh_level(&errors, 22.0, 1.0, 2), 2);
        // Far: the coarsest.
        assert_eq!(choose_mesh_level(&errors, 1.0, 1.0, 0), 3);
        // Out of view: unchanged; no bound: full.
        assert_eq!(choose_mesh_level(&errors, 0.0, 1.0, 2), 2);
        assert_eq!(choose_mesh_level(&errors, f32::INFINITY, 1.0, 2), 0);
        assert_eq!(choose_mesh_level(&[0.0], 1.0, 1.0, 3), 0);
    }
}
