//! The skinned pool's share: how much room `gpu_compute`'s pool gives a character, as a
//! share of its full detail (`--skinned-pool`).
//!
//! How it works: a pool holds, per range of characters, room for the share of each
//! character's full-detail vertices, rounded up, and never less than one character at
//! the mesh's coarsest level; each frame the GPU gives that room out by level (see
//! `gpu::skin_levels`). The memory budget counts it from here, before anything is made.

use crate::prepare::PreparedRig;

/// How much room the skinned pool gives a character, as a share of its full detail
/// (`--skinned-pool`): 1 to 100 percent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct PoolShare(u8);

impl PoolShare {
    pub const MIN_PERCENT: u32 = 1;
    pub const MAX_PERCENT: u32 = 100;

    /// The share of `percent` percent; `None` outside 1..=100.
    pub fn from_percent(percent: u32) -> Option<Self> {
        (Self::MIN_PERCENT..=Self::MAX_PERCENT)
            .contains(&percent)
            .then_some(PoolShare(percent as u8))
    }

    pub fn percent(self) -> u32 {
        u32::from(self.0)
    }

    /// The vertices of room per character for a mesh of `full` vertices whose coarsest
    /// level has `coarsest`: the share of `full`, rounded up, and never less than one
    /// character at the coarsest level.
    pub fn vertices_per_character(self, full: u32, coarsest: u32) -> u32 {
        let share = (u64::from(full) * u64::from(self.0)).div_ceil(100) as u32;
        share.max(coarsest).max(1)
    }

    /// The vertices of room per character of `rig`'s sorted mesh.
    pub fn vertices_for(self, rig: &PreparedRig) -> u32 {
        self.vertices_per_character(
            rig.mesh.sorted().source().len() as u32,
            coarsest_level_vertices(rig),
        )
    }
}

/// The vertices of `rig`'s coarsest mesh level (every vertex without a chain).
pub fn coarsest_level_vertices(rig: &PreparedRig) -> u32 {
    let n = rig.mesh.sorted().source().len();
    let levels = rig.mesh_chain().levels().len().max(1);
    rig.mesh_chain()
        .deepest_levels_sorted(n)
        .iter()
        .filter(|&&d| d as usize >= levels - 1)
        .count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_shares_are_percentages_and_hold_the_coarsest_level() {
        assert_eq!(PoolShare::from_percent(0), None);
        assert_eq!(PoolShare::from_percent(101), None);
        let share = PoolShare::from_percent(5).unwrap();
        assert_eq!(share.percent(), 5);
        assert_eq!(share.vertices_per_character(1000, 10), 50);
        assert_eq!(share.vertices_per_character(1001, 10), 51);
        assert_eq!(share.vertices_per_character(100, 30), 30);
    }
}
