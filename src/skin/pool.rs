//! The skinned pool's size: how much room `gpu_compute`'s pool gives a character, as a
//! share of its full detail (`--skinned-pool`).
//!
//! How it works: a pool holds, per range of characters, room for the share of each
//! character's full-detail vertices, rounded up, and never less than one character at
//! the mesh's coarsest level; each frame the GPU gives that room out by level (see
//! `gpu::skin_levels`). The memory budget counts it from here, before anything is made.
//!
//! The share is fixed where the user names one; `auto` ([`PoolSize::Auto`], the default)
//! resolves against the crowd and the memory budget into a [`PoolPlan`]: it starts at what
//! [`PoolPlan::START_BYTES`] holds (everything, for a small crowd) and grows from what the
//! frames read back ([`PoolPlan::grown`]) whenever one could not hold every character at
//! its own level, never past the largest share the budget allows. A crowd that walks up
//! to the camera gets room a frame or two later instead of staying drawn coarser.
//!
//! A frame whose room is short draws the characters it cannot hold at their level at the
//! finest coarser level it still has room for (`gpu::skin_levels::fit_slots`), and leaves
//! out only those for whom even the coarsest has no room.

use crate::prepare::PreparedRig;

/// How much room the skinned pool gives a character, as a share of its full detail
/// (`--skinned-pool`): 1 to 100 percent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
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

/// How the pool is sized (`--skinned-pool auto|PERCENT`; `off` is no pool at all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PoolSize {
    /// From what the crowd's frames need, up to what the memory budget allows.
    Auto,
    /// A fixed share of full detail: a crowd that needs more has characters left out.
    Share(PoolShare),
}

impl PoolSize {
    /// The least share this size may run at: what the memory budget must hold for the
    /// crowd to be accepted at all.
    pub fn least(self) -> PoolShare {
        match self {
            PoolSize::Auto => PoolShare(PoolShare::MIN_PERCENT as u8),
            PoolSize::Share(share) => share,
        }
    }

    /// `auto` or the percentage, as the command line takes it.
    pub fn name(self) -> String {
        match self {
            PoolSize::Auto => "auto".to_string(),
            PoolSize::Share(share) => format!("{} %", share.percent()),
        }
    }
}

/// A pool size resolved for one crowd and memory budget: the share it starts at, the
/// largest it may grow to, and whether it grows (`auto`) or stays (a named share).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct PoolPlan {
    size: PoolSize,
    start: PoolShare,
    cap: PoolShare,
}

/// What a frame of the pool read back: the vertices its listed characters needed at their
/// levels and the characters it did not hold at their own level (left out, or demoted to
/// a coarser one), for `characters` characters of `full_vertices` vertices at full
/// detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolNeed {
    pub vertices_needed: u64,
    pub short_of_room: u32,
    pub characters: usize,
    pub full_vertices: u32,
}

impl PoolPlan {
    /// An `auto` pool's first size for a large crowd: the share whose pool takes about
    /// this many bytes (a small crowd starts with room for everyone at full detail).
    pub const START_BYTES: u64 = 64 << 20;

    /// A named share: starts and stays there.
    pub fn fixed(share: PoolShare) -> Self {
        PoolPlan {
            size: PoolSize::Share(share),
            start: share,
            cap: share,
        }
    }

    /// `size` for `characters` characters of `full_vertices` vertices of `vertex_bytes`
    /// each, where the memory budget allows at most `cap` (`None`: not even the least
    /// share; the budget refuses the crowd before this is asked). An `auto` pool starts
    /// at the share whose pool takes `start_bytes`, at least 1 % and at most `cap`.
    pub fn resolve(
        size: PoolSize,
        cap: PoolShare,
        characters: usize,
        full_vertices: u32,
        vertex_bytes: u64,
        start_bytes: u64,
    ) -> Self {
        match size {
            PoolSize::Share(share) => PoolPlan::fixed(share),
            PoolSize::Auto => {
                let full_bytes = (characters as u64)
                    .saturating_mul(u64::from(full_vertices))
                    .saturating_mul(vertex_bytes)
                    .max(1);
                let percent = (u128::from(start_bytes) * 100 / u128::from(full_bytes)).clamp(
                    u128::from(PoolShare::MIN_PERCENT),
                    u128::from(cap.percent()),
                ) as u32;
                PoolPlan {
                    size,
                    start: PoolShare(percent as u8),
                    cap,
                }
            }
        }
    }

    /// The same plan starting at `share`, at most its cap.
    pub fn starting_at(self, share: PoolShare) -> Self {
        PoolPlan {
            start: share.min(self.cap),
            ..self
        }
    }

    pub fn size(&self) -> PoolSize {
        self.size
    }

    pub fn start(&self) -> PoolShare {
        self.start
    }

    /// The largest share the pool may take (a named share's own).
    pub fn cap(&self) -> PoolShare {
        self.cap
    }

    /// The share after a frame that read back `need`, from `share`: an `auto` pool that
    /// did not hold every character at its own level grows to what the frame needed (every listed character at its
    /// level) and a quarter more, at least a quarter more than it had, never past its cap;
    /// otherwise the share stays (the high-water mark: a pool never shrinks while its crowd
    /// runs).
    pub fn grown(&self, share: PoolShare, need: PoolNeed) -> PoolShare {
        if self.size != PoolSize::Auto || need.short_of_room == 0 || share >= self.cap {
            return share;
        }
        let full = (need.characters as u64)
            .saturating_mul(u64::from(need.full_vertices))
            .max(1);
        let needed = need.vertices_needed;
        let needed_percent = needed.saturating_mul(100).div_ceil(full);
        let with_headroom = needed_percent + needed_percent.div_ceil(4);
        let at_least = u64::from(share.percent()) + u64::from(share.percent()).div_ceil(4);
        let percent = with_headroom
            .max(at_least)
            .min(u64::from(self.cap.percent()));
        PoolShare(percent as u8)
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

    fn percent(p: u32) -> PoolShare {
        PoolShare::from_percent(p).unwrap()
    }

    #[test]
    fn an_auto_pool_starts_at_its_bytes_within_the_cap() {
        // 100 characters of 1000 vertices of 16 bytes: 1.6 MB at full detail.
        let plan = |cap, characters, start_bytes| {
            PoolPlan::resolve(
                PoolSize::Auto,
                percent(cap),
                characters,
                1000,
                16,
                start_bytes,
            )
        };
        assert_eq!(plan(100, 100, 64 << 20).start(), percent(100));
        assert_eq!(plan(40, 100, 64 << 20).start(), percent(40));
        // A million: 16 GB at full detail, 64 MiB of it is 0.4 %: the least share.
        assert_eq!(plan(100, 1_000_000, 64 << 20).start(), percent(1));
        assert_eq!(plan(100, 100_000, 160_000_000).start(), percent(10));
        let fixed = PoolPlan::resolve(PoolSize::Share(percent(7)), percent(50), 10, 1000, 16, 0);
        assert_eq!((fixed.start(), fixed.cap()), (percent(7), percent(7)));
    }

    #[test]
    fn an_auto_pool_grows_to_what_a_frame_needed_and_never_past_its_cap() {
        let plan = PoolPlan::resolve(PoolSize::Auto, percent(60), 1000, 1000, 16, 0);
        let need = |needed: u64, short_of_room: u32| PoolNeed {
            vertices_needed: needed,
            short_of_room,
            characters: 1000,
            full_vertices: 1000,
        };
        // Everyone held at their level: the share stays, however full.
        assert_eq!(plan.grown(percent(5), need(49_000, 0)), percent(5));
        // 150,000 needed of 1,000,000 at full detail is 15 %, and a quarter more is 19 %
        // (rounded up).
        assert_eq!(plan.grown(percent(5), need(150_000, 100)), percent(19));
        // 201,000 is 21 %, and a quarter more 27 %.
        assert_eq!(plan.grown(percent(20), need(201_000, 1)), percent(27));
        // Where the frame's need is below the share (one range full, others not), it
        // still grows by a quarter.
        assert_eq!(plan.grown(percent(20), need(100_000, 1)), percent(25));
        // Never past the cap, and at the cap it stays.
        assert_eq!(plan.grown(percent(20), need(1_100_000, 900)), percent(60));
        assert_eq!(plan.grown(percent(60), need(1_100_000, 900)), percent(60));
        // A named share never grows.
        let fixed = PoolPlan::fixed(percent(5));
        assert_eq!(fixed.grown(percent(5), need(50_000, 100)), percent(5));
    }
}
