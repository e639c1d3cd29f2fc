//! `gpu_compute`'s per-level dispatch (the `per_level` compute shader): only the vertices
//! of each skinned character's level are dispatched, not every vertex of every character.
//!
//! How it works: the sorted vertices are put in one order, coarsest first
//! ([`LevelOrder`]): the vertices every level uses (their deepest level is the coarsest),
//! then those the next finer level adds, and so on, each band in sorted order so the
//! influence classes stay contiguous and neighbouring invocations loop alike. Each level's
//! vertices are then a prefix of that order, uploaded once after the mesh's words. Each
//! frame a bucket dispatch puts every character skinned this frame into the list of its
//! *slot* — its range of the output and its skin level — with one atomic per character; a
//! small dispatch turns each slot's count times its level's vertices into the workgroups
//! of an indirect dispatch; then one indirect dispatch per slot skins its characters'
//! level vertices, an invocation each. The invocations are the vertices skinned plus at
//! most a workgroup's worth per slot, where the class and level shaders launch every
//! vertex of every character and skip the ones its level does not use.
//!
//! **The skinned pool.** With a pool ([`PoolShare`]), a range's output is not a
//! full-detail slot per character but room for a share of that, given out each frame:
//! every character with vertices this frame (drawn, or casting a shadow into the view) is
//! listed at its skin level, kept characters too (their kept palettes skin to the same
//! vertices). Each range's room goes first to every listed character at the chain's
//! coarsest level, then lets the finest levels keep their own ([`fit_slots`]); a character
//! a level cannot keep is demoted to the next coarser level, and on until one has room
//! left for it: moved to that level's list (a small dispatch) and marked in its record, so
//! the draw lists, written after the skinning, draw it at that level. A listed character's vertices are its level's prefix of the coarsest-first
//! order, so one position per vertex ([`LevelOrder::rank`]) finds a vertex in any
//! character's slot whatever its level, and every coarser level's triangles read a prefix
//! of it. The level dispatch writes each character's first vertex into the draws' base
//! vertices; a character the room could not hold even at the coarsest level gets
//! [`NO_POOL_BASE`] and is drawn by no pass.
//!
//! The lists and the arguments live in one work buffer and one argument buffer, laid out
//! by [`WorkLayout`]; [`bucket_characters`], [`fit_slots`] and [`pool_counts`] are the CPU
//! twins of the bucket and argument dispatches, which the tests compare slot by slot with
//! the GPU's.

use bytemuck::{Pod, Zeroable};

use crate::crowd::lod::formats::{RECORD_SKIN, RECORD_SKIN_LEVEL_SHIFT, UNSKINNED_LEVEL};
pub use crate::skin::pool::PoolShare;

crate::gpu_struct! {
    /// The bucket and argument dispatches' parameters (`SkinBucketParams` in skin.wgsl).
    #[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
    pub(crate) struct BucketParamsGpu in "SkinBucketParams" {
        characters: u32,
        per_range: u32,
        levels: u32,
        /// 1 where the records' skin word decides who is skinned at which level.
        lod: u32,
        slots: u32,
        /// 1 where the output is a pool ([`PoolShare`]).
        pool: u32,
        /// With a pool, the vertices of room a range holds per character.
        pool_vertices: u32,
        _pad_c: u32,
    }
}

const _: () = assert!(std::mem::size_of::<BucketParamsGpu>() == 32);

/// A character's base vertex where the pool did not hold it this frame: no pass draws it.
pub const NO_POOL_BASE: u32 = u32::MAX;

/// The frame's need (every listed character's level vertices) is counted in units of this
/// many vertices, each level's rounded up, so that a u32 holds a million characters of a
/// 60,000-vertex mesh.
pub const POOL_NEED_UNIT: u32 = 16;

/// The sorted vertices in coarsest-first order: level `l` skins vertex `v` where
/// `deepest[v] >= l` (the rule the class and level shaders skip by), and those vertices
/// are the first `count(l)` of the order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelOrder {
    order: Vec<u32>,
    counts: Vec<u32>,
}

impl LevelOrder {
    /// The order of the vertices whose deepest levels `deepest` gives (one a sorted
    /// vertex), for a chain of `levels` levels (at least 1: level 0 has every vertex).
    pub fn new(deepest: &[u32], levels: usize) -> Self {
        let levels = levels.max(1);
        let mut order: Vec<u32> = (0..deepest.len() as u32).collect();
        // Stable: within a band the sorted order, so the classes stay contiguous.
        order.sort_by_key(|&v| std::cmp::Reverse(deepest[v as usize].min(levels as u32 - 1)));
        let counts = (0..levels)
            .map(|level| deepest.iter().filter(|&&d| d as usize >= level).count() as u32)
            .collect();
        LevelOrder { order, counts }
    }

    /// The sorted vertices, coarsest first.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Each level's vertices: level `l`'s are the first `counts()[l]` of [`Self::order`].
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    /// Per sorted vertex, its position in [`Self::order`]: where it is in a pool slot.
    pub fn rank(&self) -> Vec<u32> {
        let mut rank = vec![0; self.order.len()];
        for (at, &v) in self.order.iter().enumerate() {
            rank[v as usize] = at as u32;
        }
        rank
    }
}

/// One slot's room in a frame: its first vertex in its range's pool, how many characters
/// it holds, where in its list the held ones start, and how many were demoted into it.
///
/// With a pool, a character the room cannot hold at its level is *demoted* to the next
/// coarser level: its entry is moved to that slot's list, after the slot's own characters
/// and before those it cannot hold in turn, which go on to the next. So each character is
/// held at the finest level the room has left for it, the finer levels' first. Only the
/// range's coarsest slot (the chain's last level) leaves characters out, the first `skip`
/// of its list: its own (the farthest) first, then those demoted into it, the coarsest
/// levels' first, so the finest levels' are the last left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlotFit {
    pub base: u32,
    pub fitted: u32,
    /// The coarsest slot: how many entries at the start of its list are left out (0
    /// elsewhere).
    pub skip: u32,
    /// How many characters of finer levels were moved to its list, after its own.
    pub moved: u32,
}

/// Words of a [`SlotFit`] in the work buffer.
pub const FIT_WORDS: usize = 4;

/// The CPU twin of the argument dispatch's room (`cs_args`): per range, `counts[slot]`
/// listed characters at each level, `level_vertices[l]` vertices at level `l`. Without a
/// pool every listed character fits where it is listed. With one, a range holds
/// `pool_vertices` per live character: first every listed character gets room at the
/// coarsest level, as many as fit (the rest are left out), then what is left lets the
/// finest levels keep their characters, finest first; a character a level cannot keep is
/// demoted to the next coarser level, where it is kept if the room left allows (see
/// [`SlotFit`]).
pub fn fit_slots(
    layout: &WorkLayout,
    characters: usize,
    counts: &[u32],
    level_vertices: &[u32],
    pool_vertices: Option<u32>,
) -> Vec<SlotFit> {
    let mut fits = vec![SlotFit::default(); layout.slots()];
    let count_of = |slot: usize| u64::from(counts.get(slot).copied().unwrap_or(0));
    let vertices_of = |level: usize| u64::from(level_vertices.get(level).copied().unwrap_or(0));
    for range in 0..layout.ranges {
        let Some(pool_vertices) = pool_vertices else {
            let mut used = 0u64;
            for level in 0..layout.levels {
                let slot = layout.slot(range, level);
                let fitted = count_of(slot);
                fits[slot] = SlotFit {
                    base: used as u32,
                    fitted: fitted as u32,
                    ..SlotFit::default()
                };
                used += fitted * vertices_of(level);
            }
            continue;
        };
        let live = crate::gpu::ranges::live_in_range(characters, layout.per_range, range) as u64;
        let room = live * u64::from(pool_vertices);
        let coarsest = layout.levels - 1;
        let listed: u64 = (0..layout.levels)
            .map(|l| count_of(layout.slot(range, l)))
            .sum();
        let at_coarsest = vertices_of(coarsest);
        let held = match at_coarsest {
            0 => listed,
            n => listed.min(room / n),
        };
        // What is left once everyone held has the coarsest level's room (nothing where
        // someone is left out: all are held at the coarsest level then).
        let mut spare = if held == listed {
            room - held * at_coarsest
        } else {
            0
        };
        // The characters still to be held, the finest levels' first; those a level cannot
        // keep are candidates at the next coarser one, after its own.
        let mut places = held;
        let mut used = 0u64;
        let mut moved = 0u64;
        for level in 0..coarsest {
            let slot = layout.slot(range, level);
            let candidates = count_of(slot) + moved;
            let extra = vertices_of(level).saturating_sub(at_coarsest);
            let kept = match extra {
                0 => candidates.min(places),
                extra => candidates.min(places).min(spare / extra),
            };
            places -= kept;
            spare -= kept * extra;
            fits[slot] = SlotFit {
                base: used as u32,
                fitted: kept as u32,
                skip: 0,
                moved: moved as u32,
            };
            used += kept * vertices_of(level);
            moved = candidates - kept;
        }
        let slot = layout.slot(range, coarsest);
        let skip = count_of(slot) + moved - places;
        fits[slot] = SlotFit {
            base: used as u32,
            fitted: places as u32,
            skip: skip as u32,
            moved: moved as u32,
        };
    }
    fits
}

/// The CPU twin of the frame's totals of characters the pool left out and demoted (held
/// at a coarser level than their own), from the slots' listed characters (`counts`) and
/// rooms ([`fit_slots`]): a slot holds its own first, then those moved to it.
pub fn pool_counts(layout: &WorkLayout, counts: &[u32], fits: &[SlotFit]) -> (u32, u32) {
    let coarsest = layout.levels - 1;
    let (mut left_out, mut demoted) = (0u32, 0u32);
    for (slot, fit) in fits.iter().enumerate().take(layout.slots()) {
        let own = counts.get(slot).copied().unwrap_or(0);
        if slot % layout.levels == coarsest {
            left_out = left_out.saturating_add(fit.skip);
            // Held: the list past the left-out; demoted and held: the moved among them.
            let listed = own.saturating_add(fit.moved);
            demoted = demoted.saturating_add(listed.saturating_sub(fit.skip.max(own)));
        } else {
            demoted = demoted.saturating_add(fit.fitted.saturating_sub(own));
        }
    }
    (left_out, demoted)
}

/// Words of the frame's totals ([`WorkLayout::totals_first`]).
pub const TOTALS: u64 = 4;

/// The CPU twin of the frame's need ([`WorkLayout::totals_first`]'s third word): every
/// slot's listed characters (`counts[slot]`) times its level's vertices in
/// [`POOL_NEED_UNIT`]s, rounded up.
pub fn needed_units(layout: &WorkLayout, counts: &[u32], level_vertices: &[u32]) -> u32 {
    (0..layout.slots())
        .map(|slot| {
            let units = level_vertices
                .get(slot % layout.levels)
                .copied()
                .unwrap_or(0)
                .div_ceil(POOL_NEED_UNIT);
            counts.get(slot).copied().unwrap_or(0) * units
        })
        .sum()
}

/// Where a frame's slots are in the work and argument buffers: `ranges × levels` slots,
/// slot `range * levels + level`; the work buffer holds each slot's count, then each
/// slot's list of `per_range` words, then each slot's [`SlotFit`] ([`FIT_WORDS`] words),
/// then the frame's totals ([`WorkLayout::totals_first`]); the argument buffer three
/// words a slot, then each level's vertex count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkLayout {
    ranges: usize,
    levels: usize,
    per_range: usize,
}

impl WorkLayout {
    /// The layout of `characters` split into ranges of `per_range` (at least 1), with
    /// `levels` levels (at least 1).
    pub fn new(characters: usize, per_range: usize, levels: usize) -> Self {
        let per_range = per_range.max(1);
        WorkLayout {
            ranges: characters.div_ceil(per_range),
            levels: levels.max(1),
            per_range,
        }
    }

    pub fn slots(&self) -> usize {
        self.ranges * self.levels
    }

    pub fn levels(&self) -> usize {
        self.levels
    }

    pub fn ranges(&self) -> usize {
        self.ranges
    }

    /// Characters a range holds (the last may hold fewer).
    pub fn per_range(&self) -> usize {
        self.per_range
    }

    pub fn slot(&self, range: usize, level: usize) -> usize {
        range * self.levels + level
    }

    /// The word where slot `slot`'s list of characters starts in the work buffer.
    pub fn list_first(&self, slot: usize) -> usize {
        self.slots() + slot * self.per_range
    }

    /// The word where slot `slot`'s [`SlotFit`] starts in the work buffer (base, fitted
    /// count, skip, moved).
    pub fn fit_first(&self, slot: usize) -> usize {
        self.slots() + self.slots() * self.per_range + FIT_WORDS * slot
    }

    /// The word of the work buffer where the frame's totals start: the pool's vertices in
    /// use, the characters the pool left out, the vertices every listed character's level
    /// needs, in [`POOL_NEED_UNIT`]s (with a pool; what an `auto` pool grows to), then the
    /// characters it demoted (held at a coarser level than their own).
    pub fn totals_first(&self) -> usize {
        self.fit_first(self.slots())
    }

    /// Bytes of the work buffer.
    pub fn work_bytes(&self) -> u64 {
        4 * (self.totals_first() + TOTALS as usize) as u64
    }

    /// Bytes of the argument buffer.
    pub fn args_bytes(&self) -> u64 {
        4 * (3 * self.slots() + self.levels) as u64
    }

    /// The bucket dispatches' parameters for `characters` characters.
    /// With `pool_vertices`, the output is a pool of that many vertices a character.
    pub(crate) fn params(
        &self,
        characters: usize,
        lod: bool,
        pool_vertices: Option<u32>,
    ) -> BucketParamsGpu {
        BucketParamsGpu {
            characters: characters as u32,
            per_range: self.per_range as u32,
            levels: self.levels as u32,
            lod: lod as u32,
            slots: self.slots() as u32,
            pool: pool_vertices.is_some() as u32,
            pool_vertices: pool_vertices.unwrap_or(0),
            ..BucketParamsGpu::default()
        }
    }

    /// Reads each slot's [`SlotFit`] and the frame's totals (pool vertices in use,
    /// characters left out, the need in [`POOL_NEED_UNIT`]s, characters demoted) from the
    /// work buffer's words; `None` where they are fewer than the layout says.
    pub fn fits_from_words(&self, words: &[u32]) -> Option<(Vec<SlotFit>, [u32; 4])> {
        let fits = (0..self.slots())
            .map(|slot| {
                let at = self.fit_first(slot);
                let word = |k: usize| words.get(at + k).copied();
                Some(SlotFit {
                    base: word(0)?,
                    fitted: word(1)?,
                    skip: word(2)?,
                    moved: word(3)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let t = self.totals_first();
        let totals = words.get(t..t + TOTALS as usize)?;
        Some((fits, [totals[0], totals[1], totals[2], totals[3]]))
    }

    /// Reads the work buffer's words back into each slot's list, each in ascending order
    /// (the GPU's order follows its atomics), for comparison with [`bucket_characters`].
    /// `None` where the words are fewer than the layout says or a count exceeds a range.
    pub fn lists_from_words(&self, words: &[u32]) -> Option<Vec<Vec<u32>>> {
        (0..self.slots())
            .map(|slot| {
                let count = *words.get(slot)? as usize;
                if count > self.per_range {
                    return None;
                }
                let first = self.list_first(slot);
                let mut list = words.get(first..first + count)?.to_vec();
                list.sort_unstable();
                Some(list)
            })
            .collect()
    }
}

/// A frame's lists of characters per slot, as read back from the GPU: the layout they
/// follow and each slot's characters, ascending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelLists {
    pub layout: WorkLayout,
    pub lists: Vec<Vec<u32>>,
}

/// The CPU twin of the bucket dispatch: each slot's characters (their index within the
/// range), ascending. `skin_words[c]` is character `c`'s record word 7 where the LOD pass
/// marks who is skinned (`None`: every character at level 0). With a pool, every
/// character with vertices this frame is listed, marked or kept.
pub fn bucket_characters(
    layout: &WorkLayout,
    characters: usize,
    skin_words: Option<&[u32]>,
    pool: bool,
) -> Vec<Vec<u32>> {
    let mut lists = vec![Vec::new(); layout.slots()];
    for c in 0..characters {
        let level = match skin_words {
            None => 0,
            Some(words) => {
                let word = words.get(c).copied().unwrap_or(0);
                let listed = if pool {
                    word >> RECORD_SKIN_LEVEL_SHIFT != UNSKINNED_LEVEL
                } else {
                    word & RECORD_SKIN != 0
                };
                if !listed {
                    continue;
                }
                ((word >> RECORD_SKIN_LEVEL_SHIFT) as usize).min(layout.levels - 1)
            }
        };
        let range = c / layout.per_range;
        lists[layout.slot(range, level)].push((c - range * layout.per_range) as u32);
    }
    lists
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_is_a_prefix_of_the_coarsest_first_order() {
        let deepest = [0, 2, 1, 2, 0];
        let order = LevelOrder::new(&deepest, 3);
        assert_eq!(order.order(), &[1, 3, 2, 0, 4]);
        assert_eq!(order.counts(), &[5, 3, 2]);
        assert_eq!(order.rank(), vec![3, 0, 2, 1, 4]);
        for (level, &n) in order.counts().iter().enumerate() {
            let mut prefix = order.order()[..n as usize].to_vec();
            prefix.sort_unstable();
            let uses: Vec<u32> = (0..5)
                .filter(|&v| deepest[v as usize] as usize >= level)
                .collect();
            assert_eq!(prefix, uses, "level {level}");
        }
        assert_eq!(LevelOrder::new(&deepest, 0).counts(), &[5]);
    }

    #[test]
    fn the_room_goes_to_the_finest_levels_first() {
        // Two ranges of 3 characters (the second has 1), levels of 10, 4 and 2 vertices.
        let layout = WorkLayout::new(4, 3, 3);
        let room = Some;
        let fit = |base, fitted| SlotFit {
            base,
            fitted,
            ..SlotFit::default()
        };
        let fits = fit_slots(&layout, 4, &[2, 1, 0, 0, 0, 1], &[10, 4, 2], room(8));
        // Range 0 holds 24 vertices: everyone keeps their level.
        assert_eq!(&fits[..3], &[fit(0, 2), fit(20, 1), fit(24, 0)]);
        // Range 1 holds 8: its character at level 2 fits.
        assert_eq!(fits[5], fit(0, 1));
        let unpooled = fit_slots(&layout, 4, &[3, 2, 1, 0, 0, 0], &[10, 4, 2], None);
        assert_eq!(&unpooled[..3], &[fit(0, 3), fit(30, 2), fit(38, 1)]);
    }

    #[test]
    fn characters_without_room_are_demoted_to_the_finest_level_that_fits() {
        // One range of 6 characters: 3 at level 0, 2 at level 1, 1 at level 2.
        let layout = WorkLayout::new(6, 6, 3);
        let counts = [3, 2, 1];
        // 30 vertices: all at level 2 take 12, the 18 left keep two at level 0 (8 more
        // each); level 1 then has three candidates (its two, level 0's third) and room
        // for one more (2 more); the other two go to level 2's list after its own
        // character, level 1's own first.
        let fits = fit_slots(&layout, 6, &counts, &[10, 4, 2], Some(5));
        let expected = [
            SlotFit {
                base: 0,
                fitted: 2,
                skip: 0,
                moved: 0,
            },
            SlotFit {
                base: 20,
                fitted: 1,
                skip: 0,
                moved: 1,
            },
            SlotFit {
                base: 24,
                fitted: 3,
                skip: 0,
                moved: 2,
            },
        ];
        assert_eq!(fits, expected);
        assert_eq!(pool_counts(&layout, &counts, &fits), (0, 2));
        // Level 1 empty: level 0's third, without room for 8 more vertices, is held at
        // level 1 (2 more), not at the coarsest.
        let counts = [3, 0, 1];
        let fits = fit_slots(&layout, 6, &counts, &[10, 4, 2], Some(5));
        assert_eq!((fits[0].fitted, fits[1].fitted, fits[2].fitted), (2, 1, 1));
        assert_eq!((fits[1].moved, fits[2].moved), (1, 0));
        assert_eq!(pool_counts(&layout, &counts, &fits), (0, 1));
        // 6 vertices hold three at level 2: everyone is demoted, and the first three of
        // level 2's list (its own, then level 1's two) are left out; level 0's are held.
        let counts = [3, 2, 1];
        let fits = fit_slots(&layout, 6, &counts, &[10, 4, 2], Some(1));
        assert_eq!(
            fits[2],
            SlotFit {
                base: 0,
                fitted: 3,
                skip: 3,
                moved: 5,
            }
        );
        assert_eq!((fits[0].fitted, fits[1].fitted), (0, 0));
        assert_eq!((fits[0].moved, fits[1].moved), (0, 3));
        assert_eq!(pool_counts(&layout, &counts, &fits), (3, 3));
        // Two levels of 10 vertices each: keeping a level costs nothing more, so no one is
        // demoted, and past the room the coarsest level's own are left out first.
        let flat = WorkLayout::new(4, 4, 2);
        let fits = fit_slots(&flat, 4, &[2, 2], &[10, 10], Some(5));
        assert_eq!((fits[0].fitted, fits[1].fitted, fits[1].skip), (2, 0, 2));
        assert_eq!(pool_counts(&flat, &[2, 2], &fits), (2, 0));
        // And never more than the room holds: the level-0 characters past it are demoted
        // and left out.
        let fits = fit_slots(&flat, 4, &[4, 0], &[10, 10], Some(5));
        assert_eq!((fits[0].fitted, fits[1].fitted, fits[1].skip), (2, 0, 2));
        assert_eq!(pool_counts(&flat, &[4, 0], &fits), (2, 0));
    }

    #[test]
    fn slots_are_range_by_level_and_lists_follow_the_counts() {
        let layout = WorkLayout::new(10, 4, 3);
        assert_eq!((layout.ranges(), layout.slots()), (3, 9));
        assert_eq!(layout.slot(2, 1), 7);
        assert_eq!(layout.list_first(0), 9);
        assert_eq!(layout.list_first(1), 13);
        assert_eq!(layout.fit_first(0), 45);
        assert_eq!(layout.totals_first(), 81);
        // Counts, lists, rooms, then the totals: in use, left out, needed, demoted.
        assert_eq!(layout.work_bytes(), 4 * (9 + 36 + 36 + 4));
        assert_eq!(layout.args_bytes(), 4 * (27 + 3));
    }

    #[test]
    fn the_twin_buckets_by_range_and_skin_level_and_skips_the_unmarked() {
        let layout = WorkLayout::new(5, 2, 2);
        let skin = |level: u32| RECORD_SKIN | (level << RECORD_SKIN_LEVEL_SHIFT);
        // Character 2 is not skinned; character 4's level is clamped to the last.
        let words = [skin(1), skin(0), 0, skin(1), skin(7)];
        let lists = bucket_characters(&layout, 5, Some(&words), false);
        assert_eq!(
            lists,
            vec![vec![1], vec![0], vec![], vec![1], vec![], vec![0]]
        );
        // A pool lists the unmarked character with vertices too, not one without.
        let mut pooled = words;
        pooled[2] = 1 << RECORD_SKIN_LEVEL_SHIFT;
        pooled[1] = UNSKINNED_LEVEL << RECORD_SKIN_LEVEL_SHIFT;
        let lists = bucket_characters(&layout, 5, Some(&pooled), true);
        assert_eq!(
            lists,
            vec![vec![], vec![0], vec![], vec![0, 1], vec![], vec![0]]
        );
        let all = bucket_characters(&layout, 5, None, false);
        assert_eq!(
            all,
            vec![vec![0, 1], vec![], vec![0, 1], vec![], vec![0], vec![]]
        );
    }

    #[test]
    fn lists_read_back_from_words_are_sorted_and_checked() {
        let layout = WorkLayout::new(3, 3, 1);
        let words = [2, 2, 0, 0];
        assert_eq!(layout.lists_from_words(&words), Some(vec![vec![0, 2]]));
        assert_eq!(layout.lists_from_words(&[4, 0, 0, 0]), None);
        assert_eq!(layout.lists_from_words(&[1]), None);
    }
}
