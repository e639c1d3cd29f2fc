//! Draw lists: the crowd's characters in a handful of draw commands.
//!
//! How it works: every draw path reads an instance's vertex data one of two ways, and
//! both can be said as `draw_indexed` arguments (`DrawIndexedIndirectArgs`) under a few
//! bindings, which the renderer then issues either as one `multi_draw_indexed_indirect`
//! per binding (the GPU reads the arguments from a buffer: encoding costs a few commands
//! whatever the crowd's size) or, where the adapter lacks indirect first-instance, as
//! direct draws of the same arguments (the CPU twin the tests compare pixels with).
//!
//! - Through a vertex buffer ([`DrawList::build_vertices`]: the slice layouts, lane
//!   blocks, `gpu_compute`'s output, `gpu_vertex`'s static mesh): an instance's first vertex
//!   sits at some byte offset `o` of some buffer. Binding the buffer at `o % stride` and
//!   drawing with `base_vertex = o / stride` reaches it, so instances whose offsets share
//!   a remainder share one binding (slices 256-byte aligned: one or three remainders;
//!   lane blocks: one per lane slot). One argument per instance: a vertex buffer cannot
//!   step per instance.
//! - Through a storage binding ([`DrawList::build_chunks`]: `pulled`, `gpu_vertex`'s
//!   palettes): the shader finds an instance's data from `instance_index % chunk`, so one
//!   binding of a chunk of instances serves an instanced draw per run of consecutive
//!   visible instances (one per chunk without culling).

//! - Per level ([`LevelDraws`], `--draws per_level`, where the GPU's LOD pass decides):
//!   per batch (a chunk of palettes, or a range of `gpu_compute`'s output) one instanced
//!   draw per mesh level, whose instances the LOD pass lists as it decides each character's
//!   level; the vertex shader reads its character from the list. Draw records then follow
//!   batches × levels, not the crowd.

use std::ops::Range;

use wgpu::util::DrawIndexedIndirectArgs;

use crate::variant::PlainSpec;

crate::declare_variants! {
    /// How the crowd pass draws the characters where the GPU's LOD pass decides who is
    /// drawn and at which level (`--animate gpu` with LOD).
    pub enum Draws: PlainSpec in "draws" {
        PerCharacter => PlainSpec {
            name: "per_character",
            description: "one indirect draw argument per character, its instance count 1 in view and 0 culled (compacted into runs of the visible ones where the adapter counts draws): records follow the crowd",
        },
        PerLevel => PlainSpec {
            name: "per_level",
            description: "gpu_vertex and gpu_compute: per batch and mesh level one instanced draw of the characters the LOD pass listed at that level (the vertex shader reads its character from the list; gpu_compute's output is pulled from storage): records follow batches x levels. Other paths, or adapters without indirect first-instance draws, draw per_character",
        },
    }
}

impl Draws {
    pub const DEFAULT: Self = Self::PerLevel;
}

/// Which indices each instance is drawn with: a level of the mesh's LOD chain (its first
/// index and index count in the index buffer, which holds every level one after the other),
/// one per instance or one for all.
#[derive(Clone, Copy, Debug)]
pub struct MeshLevels<'a> {
    /// Per level: first index and index count.
    pub ranges: &'a [(u32, u32)],
    /// Per instance, its level; without it every instance takes `uniform`.
    pub per_instance: Option<&'a [u8]>,
    pub uniform: u8,
}

impl<'a> MeshLevels<'a> {
    /// Every instance drawn with the one range `ranges[0]`.
    pub fn full(ranges: &'a [(u32, u32)]) -> Self {
        MeshLevels {
            ranges,
            per_instance: None,
            uniform: 0,
        }
    }

    /// The first index and index count instance `i` is drawn with.
    pub fn range(&self, i: usize) -> (u32, u32) {
        let level = self
            .per_instance
            .and_then(|p| p.get(i).copied())
            .unwrap_or(self.uniform) as usize;
        self.ranges
            .get(level.min(self.ranges.len().saturating_sub(1)))
            .copied()
            .unwrap_or((0, 0))
    }
}

/// What a batch of draws binds before drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawBinding {
    /// Vertex slot 0: buffer `buffer` (of those the draw path reads) from byte `offset`.
    Vertices { buffer: usize, offset: u64 },
    /// Storage chunk `chunk`: instances `chunk * chunk_instances ..` of the crowd.
    Chunk(usize),
}

/// The draws of one pass: arguments, and the bindings they are drawn under.
#[derive(Clone, Debug, Default)]
pub struct DrawList {
    pub args: Vec<DrawIndexedIndirectArgs>,
    /// Each binding and the arguments (a range of `args`) drawn under it.
    pub batches: Vec<(DrawBinding, Range<usize>)>,
}

impl DrawList {
    pub fn clear(&mut self) {
        self.args.clear();
        self.batches.clear();
    }

    /// Characters the list draws.
    pub fn instances(&self) -> usize {
        self.args.iter().map(|a| a.instance_count as usize).sum()
    }

    /// The list for vertex data read through vertex slot 0: `locate(i)` says which buffer
    /// holds instance `i`'s first vertex and at what byte offset (`None`: it has no room
    /// there and is not drawn), `array_stride` the bytes from one of its vertices to the
    /// next. Instances hidden in `visible` are left out.
    pub fn build_vertices(
        &mut self,
        levels: MeshLevels<'_>,
        instances: usize,
        visible: Option<&[bool]>,
        array_stride: u64,
        locate: impl Fn(usize) -> Option<(usize, u64)>,
    ) {
        self.clear();
        let stride = array_stride.max(1);
        let shown = |i: usize| visible.is_none_or(|v| v.get(i).copied().unwrap_or(true));
        // The bindings: few (a remainder per lane slot at most, per buffer), found first so
        // that each batch's arguments are consecutive.
        for i in (0..instances).filter(|&i| shown(i)) {
            if let Some((buffer, offset)) = locate(i) {
                let binding = DrawBinding::Vertices {
                    buffer,
                    offset: offset % stride,
                };
                if !self.batches.iter().any(|(b, _)| *b == binding) {
                    self.batches.push((binding, 0..0));
                }
            }
        }
        for b in 0..self.batches.len() {
            let start = self.args.len();
            let binding = self.batches[b].0;
            for i in (0..instances).filter(|&i| shown(i)) {
                let Some((buffer, offset)) = locate(i) else {
                    continue;
                };
                // A base vertex past i32 cannot be drawn (no buffer of this device holds
                // 2³¹ vertices; checked anyway).
                let Ok(base_vertex) = i32::try_from(offset / stride) else {
                    continue;
                };
                let here = DrawBinding::Vertices {
                    buffer,
                    offset: offset % stride,
                };
                if here == binding {
                    let (first_index, index_count) = levels.range(i);
                    self.args.push(DrawIndexedIndirectArgs {
                        index_count,
                        instance_count: 1,
                        first_index,
                        base_vertex,
                        first_instance: i as u32,
                    });
                }
            }
            self.batches[b].1 = start..self.args.len();
        }
        self.batches.retain(|(_, range)| !range.is_empty());
    }

    /// The list for vertex data read through storage chunks of `chunk_instances`
    /// instances each (`chunks` of them bound): one instanced draw per run of consecutive
    /// visible instances of one level within a chunk, or with `one_each` one draw per visible instance
    /// (whose instance count the GPU can then set).
    pub fn build_chunks(
        &mut self,
        levels: MeshLevels<'_>,
        instances: usize,
        visible: Option<&[bool]>,
        chunk_instances: usize,
        chunks: usize,
        one_each: bool,
    ) {
        self.clear();
        let shown = |i: usize| visible.is_none_or(|v| v.get(i).copied().unwrap_or(true));
        let chunk_instances = chunk_instances.max(1);
        for chunk in 0..chunks {
            let members = chunk * chunk_instances..instances.min((chunk + 1) * chunk_instances);
            if members.is_empty() {
                break;
            }
            let start = self.args.len();
            let mut i = members.start;
            while i < members.end {
                if !shown(i) {
                    i += 1;
                    continue;
                }
                let first = i;
                let (first_index, index_count) = levels.range(first);
                while i < members.end
                    && shown(i)
                    && !(one_each && i > first)
                    && levels.range(i) == (first_index, index_count)
                {
                    i += 1;
                }
                self.args.push(DrawIndexedIndirectArgs {
                    index_count,
                    instance_count: (i - first) as u32,
                    first_index,
                    base_vertex: 0,
                    first_instance: first as u32,
                });
            }
            if self.args.len() > start {
                self.batches
                    .push((DrawBinding::Chunk(chunk), start..self.args.len()));
            }
        }
    }
}

/// Per-level draws of a crowd split into batches (see the module docs): the main pass's
/// arguments per batch and level (instance count 0: the LOD pass raises it as it lists
/// the characters), the shadow pass's and the fallback's arguments (every character of a
/// batch, drawn through the identity list that opens the lists), and where each batch's
/// lists lie.
#[derive(Clone, Debug, Default)]
pub struct LevelDraws {
    /// Per batch, one argument per level, finest first.
    pub main: DrawList,
    /// Per batch, runs of consecutive characters at the shadow level: the shadow pass of a
    /// frame whose LOD pass did not list.
    pub shadow: DrawList,
    /// Per batch, one argument at the shadow level (instance count 0: the LOD pass raises
    /// it) over the batch's shadow list, the characters whose shadow may fall in the view.
    pub shadow_listed: DrawList,
    /// Per batch, runs of consecutive characters at the fallback level: the main pass of a
    /// frame whose LOD pass did not list (its first, or one after the lists were rebuilt).
    /// The coarsest level where the LOD pass chooses levels: every character's skinned
    /// vertices and posed joints hold at least that level's.
    pub fallback: DrawList,
    /// Per batch: its first level list's word (level `l`'s list lies `l len` words on; its
    /// shadow list `len` words before) and its characters `len`.
    pub lists: Vec<(u32, u32)>,
    /// Per character, its batch (`u32::MAX`: in none, not drawn).
    pub batch_of: Vec<u32>,
    /// Words of the lists: the identity list of every character, then each batch's.
    pub list_words: usize,
}

impl LevelDraws {
    /// The draws of `instances` characters in `batches` (a binding and its characters,
    /// ascending), each drawn at a level of `ranges` (first index and index count per level,
    /// finest first), the shadow pass at `shadow_level`, the fallback at `fallback_level`.
    pub fn build(
        &mut self,
        ranges: &[(u32, u32)],
        [shadow_level, fallback_level]: [u8; 2],
        instances: usize,
        batches: &[(DrawBinding, Vec<u32>)],
    ) {
        for list in [
            &mut self.main,
            &mut self.shadow,
            &mut self.shadow_listed,
            &mut self.fallback,
        ] {
            list.clear();
        }
        self.lists.clear();
        self.batch_of.clear();
        self.batch_of.resize(instances, u32::MAX);
        let levels = ranges.len().max(1);
        let range = |level: usize| ranges.get(level).copied().unwrap_or((0, 0));
        let shadow = range((shadow_level as usize).min(levels - 1));
        let fallback = range((fallback_level as usize).min(levels - 1));
        let mut word = instances as u64;
        for (b, (binding, members)) in batches.iter().enumerate() {
            let len = members.len() as u64;
            // The batch's shadow list, then its level lists.
            let end = word + (levels as u64 + 1) * len;
            let (Ok(shadow_word), Ok(_)) = (u32::try_from(word), u32::try_from(end)) else {
                break;
            };
            let first_word = shadow_word + len as u32;
            let start = self.shadow_listed.args.len();
            self.shadow_listed.args.push(DrawIndexedIndirectArgs {
                index_count: shadow.1,
                instance_count: 0,
                first_index: shadow.0,
                base_vertex: 0,
                first_instance: shadow_word,
            });
            self.shadow_listed
                .batches
                .push((*binding, start..self.shadow_listed.args.len()));
            let start = self.main.args.len();
            for level in 0..levels {
                let (first_index, index_count) = range(level);
                self.main.args.push(DrawIndexedIndirectArgs {
                    index_count,
                    instance_count: 0,
                    first_index,
                    base_vertex: 0,
                    first_instance: first_word + (level as u64 * len) as u32,
                });
            }
            self.main
                .batches
                .push((*binding, start..self.main.args.len()));
            for (list, (first_index, index_count)) in
                [(&mut self.shadow, shadow), (&mut self.fallback, fallback)]
            {
                let start = list.args.len();
                let mut k = 0;
                while k < members.len() {
                    let first = members[k];
                    let mut n = 1;
                    while k + n < members.len() && members[k + n] == first + n as u32 {
                        n += 1;
                    }
                    list.args.push(DrawIndexedIndirectArgs {
                        index_count,
                        instance_count: n as u32,
                        first_index,
                        base_vertex: 0,
                        first_instance: first,
                    });
                    k += n;
                }
                list.batches.push((*binding, start..list.args.len()));
            }
            for &c in members {
                if let Some(batch) = self.batch_of.get_mut(c as usize) {
                    *batch = b as u32;
                }
            }
            self.lists.push((first_word, len as u32));
            word = end;
        }
        self.list_words = word as usize;
    }

    /// Moves the lists to start at word `at` (of the buffer that holds them after the
    /// arguments): every argument's first instance and every batch's first list word move
    /// with them. Lists that would end past `u32::MAX` words are left where they are and
    /// `false` returned.
    pub fn place_lists(&mut self, at: u32) -> bool {
        if u64::from(at) + self.list_words as u64 > u64::from(u32::MAX) {
            return false;
        }
        for list in [
            &mut self.main,
            &mut self.shadow,
            &mut self.shadow_listed,
            &mut self.fallback,
        ] {
            for a in &mut list.args {
                a.first_instance += at;
            }
        }
        for (first, _) in &mut self.lists {
            *first += at;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per batch one argument per level, lists that do not overlap, and the shadow and
    /// fallback lists drawing every character once through the identity list.
    #[test]
    fn level_draws_cover_every_character_once_per_pass() {
        let ranges = [(0, 300), (300, 90), (390, 24)];
        let batches = vec![
            (DrawBinding::Chunk(0), (0..40).collect::<Vec<u32>>()),
            (
                DrawBinding::Chunk(1),
                (40..60).chain(70..100).collect::<Vec<u32>>(),
            ),
        ];
        let mut draws = LevelDraws::default();
        draws.build(&ranges, [2, 1], 100, &batches);
        assert_eq!(draws.main.args.len(), 6);
        // Each batch's shadow list, then its three level lists.
        assert_eq!(draws.lists, [(140, 40), (310, 50)]);
        assert_eq!(draws.list_words, 260 + 200);
        for (k, a) in draws.shadow_listed.args.iter().enumerate() {
            assert_eq!((a.first_index, a.index_count), ranges[2]);
            assert_eq!((a.instance_count, a.first_instance), (0, [100, 260][k]));
        }
        for (b, (_, args)) in draws.main.batches.iter().enumerate() {
            for (level, a) in draws.main.args[args.clone()].iter().enumerate() {
                assert_eq!((a.first_index, a.index_count), ranges[level]);
                assert_eq!(a.instance_count, 0);
                let (first, len) = draws.lists[b];
                assert_eq!(a.first_instance, first + level as u32 * len);
            }
        }
        for (list, range) in [(&draws.shadow, ranges[2]), (&draws.fallback, ranges[1])] {
            let mut seen = vec![0; 100];
            for a in &list.args {
                assert_eq!((a.first_index, a.index_count), range);
                for c in a.first_instance..a.first_instance + a.instance_count {
                    seen[c as usize] += 1;
                }
            }
            let expected: Vec<i32> = (0..100).map(|c| (!(60..70).contains(&c)) as i32).collect();
            assert_eq!(seen, expected);
            // The second batch's gap splits it into two runs.
            assert_eq!(list.args.len(), 3);
        }
        assert_eq!(draws.batch_of[45], 1);
        assert_eq!(draws.batch_of[65], u32::MAX);
    }

    /// Every shown instance exactly once, where `locate` says, in a batch of its binding.
    #[test]
    fn vertex_lists_reach_every_visible_instance_once() {
        // 24-byte vertices in 256-aligned slices: offsets leave three remainders.
        let stride = 24u64;
        let slice = (1000 * 24u64).next_multiple_of(256);
        let locate = |i: usize| Some((i / 700, (i % 700) as u64 * slice));
        let visible: Vec<bool> = (0..2000).map(|i| i % 7 != 3).collect();
        let mut list = DrawList::default();
        list.build_vertices(
            MeshLevels::full(&[(0, 36)]),
            2000,
            Some(&visible),
            stride,
            locate,
        );
        let mut seen = vec![0; 2000];
        for (binding, range) in &list.batches {
            let DrawBinding::Vertices { buffer, offset } = *binding else {
                panic!("a chunk binding in a vertex list");
            };
            for a in &list.args[range.clone()] {
                let i = a.first_instance as usize;
                assert_eq!(a.instance_count, 1);
                assert_eq!(a.index_count, 36);
                assert_eq!(
                    Some((buffer, offset + a.base_vertex as u64 * stride)),
                    locate(i)
                );
                seen[i] += 1;
            }
        }
        for (i, n) in seen.iter().enumerate() {
            assert_eq!(*n, visible[i] as i32, "instance {i}");
        }
        // Three buffers × three remainders of 256·k mod 24.
        assert_eq!(list.batches.len(), 9);
    }

    #[test]
    fn chunk_lists_draw_runs_within_chunks() {
        let visible: Vec<bool> = (0..100)
            .map(|i| !(10..20).contains(&i) && i != 55)
            .collect();
        let mut list = DrawList::default();
        list.build_chunks(
            MeshLevels::full(&[(0, 12)]),
            100,
            Some(&visible),
            40,
            3,
            false,
        );
        let runs: Vec<(DrawBinding, u32, u32)> = list
            .batches
            .iter()
            .flat_map(|(b, r)| {
                list.args[r.clone()]
                    .iter()
                    .map(move |a| (*b, a.first_instance, a.instance_count))
            })
            .collect();
        use DrawBinding::Chunk;
        assert_eq!(
            runs,
            [
                (Chunk(0), 0, 10),
                (Chunk(0), 20, 20),
                (Chunk(1), 40, 15),
                (Chunk(1), 56, 24),
                (Chunk(2), 80, 20),
            ]
        );
        assert_eq!(list.instances(), 89);
        // Without culling, one draw per chunk; chunks not bound are not drawn.
        list.build_chunks(MeshLevels::full(&[(0, 12)]), 100, None, 40, 2, false);
        assert_eq!(list.args.len(), 2);
        assert_eq!(list.instances(), 80);
        // One draw each: every instance of the bound chunks, in order, under its chunk.
        list.build_chunks(MeshLevels::full(&[(0, 12)]), 100, None, 40, 2, true);
        assert_eq!(list.args.len(), 80);
        for (k, a) in list.args.iter().enumerate() {
            assert_eq!((a.first_instance, a.instance_count), (k as u32, 1));
        }
        assert_eq!(list.batches, [(Chunk(0), 0..40), (Chunk(1), 40..80)]);
    }

    /// Runs break where the level changes; each argument carries its level's indices.
    #[test]
    fn levels_split_runs_and_pick_indices() {
        let ranges = [(0, 300), (300, 90), (390, 24)];
        let per: Vec<u8> = (0..20).map(|i| [0, 0, 1, 1, 1, 2][i % 6]).collect();
        let levels = MeshLevels {
            ranges: &ranges,
            per_instance: Some(&per),
            uniform: 0,
        };
        let mut list = DrawList::default();
        list.build_chunks(levels, 20, None, 20, 1, false);
        let mut covered = 0;
        for a in &list.args {
            for i in a.first_instance..a.first_instance + a.instance_count {
                assert_eq!(
                    ranges[per[i as usize] as usize],
                    (a.first_index, a.index_count)
                );
            }
            covered += a.instance_count;
        }
        assert_eq!(covered, 20);
        // 0 0 | 1 1 1 | 2 | 0 0 | ...: three runs per six instances.
        assert_eq!(list.args.len(), 10);
        list.build_vertices(levels, 20, None, 16, |i| Some((0, i as u64 * 1600)));
        for a in &list.args {
            assert_eq!(
                ranges[per[a.first_instance as usize] as usize],
                (a.first_index, a.index_count)
            );
        }
    }
}
