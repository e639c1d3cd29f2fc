//! `gpu_compute`'s per-level dispatch (the `per_level` compute shader): only the vertices
//! of each skinned character's level are dispatched, not every vertex of every character.
//!
//! How it works: each level of the mesh's chain has a list of the sorted vertices it
//! skins (those whose deepest level is that level or coarser; in sorted order, so the
//! influence classes stay contiguous and neighbouring invocations loop alike), uploaded
//! once after the mesh's words. Each frame a bucket dispatch puts every character skinned
//! this frame into the list of its *slot* — its range of the output and its skin level —
//! with one atomic per character; a one-workgroup dispatch turns each slot's count times
//! its level's vertices into the workgroups of an indirect dispatch; then one indirect
//! dispatch per slot skins its characters' level vertices, an invocation each. The
//! invocations are the vertices skinned plus at most a workgroup's worth per slot, where
//! the class and level shaders launch every vertex of every character and skip the ones
//! its level does not use.
//!
//! The lists and the arguments live in one work buffer and one argument buffer, laid out
//! by [`WorkLayout`]; [`bucket_characters`] is the CPU twin of the bucket dispatch, which
//! the tests compare slot by slot with the GPU's.

use bytemuck::{Pod, Zeroable};

use crate::crowd::lod::formats::{RECORD_SKIN, RECORD_SKIN_LEVEL_SHIFT};

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
        _pad_a: u32,
        _pad_b: u32,
        _pad_c: u32,
    }
}

const _: () = assert!(std::mem::size_of::<BucketParamsGpu>() == 32);

/// Each level's list of sorted vertices: level `l` skins vertex `v` where
/// `deepest[v] >= l` (the rule the class and level shaders skip by), in sorted order.
/// At least one list (level 0: every vertex).
pub fn level_vertex_lists(deepest: &[u32], levels: usize) -> Vec<Vec<u32>> {
    (0..levels.max(1))
        .map(|level| {
            deepest
                .iter()
                .enumerate()
                .filter(|&(_, &d)| d as usize >= level)
                .map(|(v, _)| v as u32)
                .collect()
        })
        .collect()
}

/// Where a frame's slots are in the work and argument buffers: `ranges × levels` slots,
/// slot `range * levels + level`; the work buffer holds each slot's count, then each
/// slot's list of `per_range` words; the argument buffer three words a slot, then each
/// level's vertex count.
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

    pub fn slot(&self, range: usize, level: usize) -> usize {
        range * self.levels + level
    }

    /// The word where slot `slot`'s list of characters starts in the work buffer.
    pub fn list_first(&self, slot: usize) -> usize {
        self.slots() + slot * self.per_range
    }

    /// Bytes of the work buffer (at least one word: a binding may not be empty).
    pub fn work_bytes(&self) -> u64 {
        4 * (self.slots() + self.slots() * self.per_range).max(1) as u64
    }

    /// Bytes of the argument buffer.
    pub fn args_bytes(&self) -> u64 {
        4 * (3 * self.slots() + self.levels) as u64
    }

    /// The bucket dispatches' parameters for `characters` characters.
    pub(crate) fn params(&self, characters: usize, lod: bool) -> BucketParamsGpu {
        BucketParamsGpu {
            characters: characters as u32,
            per_range: self.per_range as u32,
            levels: self.levels as u32,
            lod: lod as u32,
            slots: self.slots() as u32,
            ..BucketParamsGpu::default()
        }
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
/// marks who is skinned (`None`: every character at level 0).
pub fn bucket_characters(
    layout: &WorkLayout,
    characters: usize,
    skin_words: Option<&[u32]>,
) -> Vec<Vec<u32>> {
    let mut lists = vec![Vec::new(); layout.slots()];
    for c in 0..characters {
        let level = match skin_words {
            None => 0,
            Some(words) => {
                let word = words.get(c).copied().unwrap_or(0);
                if word & RECORD_SKIN == 0 {
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
    fn each_level_lists_the_vertices_it_uses_in_sorted_order() {
        let deepest = [0, 2, 1, 2, 0];
        let lists = level_vertex_lists(&deepest, 3);
        assert_eq!(lists, vec![vec![0, 1, 2, 3, 4], vec![1, 2, 3], vec![1, 3]]);
        assert_eq!(level_vertex_lists(&deepest, 0).len(), 1);
    }

    #[test]
    fn slots_are_range_by_level_and_lists_follow_the_counts() {
        let layout = WorkLayout::new(10, 4, 3);
        assert_eq!((layout.ranges(), layout.slots()), (3, 9));
        assert_eq!(layout.slot(2, 1), 7);
        assert_eq!(layout.list_first(0), 9);
        assert_eq!(layout.list_first(1), 13);
        assert_eq!(layout.work_bytes(), 4 * (9 + 36));
        assert_eq!(layout.args_bytes(), 4 * (27 + 3));
    }

    #[test]
    fn the_twin_buckets_by_range_and_skin_level_and_skips_the_unmarked() {
        let layout = WorkLayout::new(5, 2, 2);
        let skin = |level: u32| RECORD_SKIN | (level << RECORD_SKIN_LEVEL_SHIFT);
        // Character 2 is not skinned; character 4's level is clamped to the last.
        let words = [skin(1), skin(0), 0, skin(1), skin(7)];
        let lists = bucket_characters(&layout, 5, Some(&words));
        assert_eq!(
            lists,
            vec![vec![1], vec![0], vec![], vec![1], vec![], vec![0]]
        );
        let all = bucket_characters(&layout, 5, None);
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
