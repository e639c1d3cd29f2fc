//! The rig and its prepared clips flattened into the one array of words `animate.wgsl`
//! reads.
//!
//! How it works: three parts are built and then laid end to end ([`AnimationTables::words`],
//! every offset in words from the start): `rig` (vec4s: the rest pose as rotation,
//! translation, scale; each root's folded ancestors and each palette entry's inverse bind
//! as three rows), `values` (the keys, one vec4 each) and `tables` (u32s: parents, the
//! entries' joints, the joints by depth level, then per clip its duration, per clip and
//! joint the index of its translation, rotation and scale track, per track an eight-word
//! header, and every track's key times). One array keeps the shader at four storage
//! bindings, what every adapter offers. The
//! tracks are the prepared clips' own: the per-track ones and the LINEAR rotations the CPU
//! keeps eight to a vector, taken back out lane by lane, so both devices sample the same
//! keys. Built once per rig; nothing here runs per frame.

use glam::Mat4;

use crate::contract::to_words;
use crate::prepare::PreparedRig;
use crate::prepare::clip::{ClipRt, Timeline, TrackRt};
use crate::prepare::joint_sets::{JointSet, weighted_entries};
use crate::rig::{Interpolation, NO_PARENT};
use crate::skin::SkinMethod;
use crate::types::LANES;

/// A clip channel's "no track" (the joint keeps its rest value).
pub const NO_TRACK: u32 = u32::MAX;

crate::gpu_struct! {
    /// A track's header in the tables (`TrackHeader` in animate.wgsl).
    #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct TrackHeader in "TrackHeader" {
        /// [`interpolation_code`] of the track's interpolation.
        pub interpolation: u32,
        pub keys: u32,
        /// Where its key times are, and its values (vec4s of words), as words.
        pub times_at: u32,
        pub values_at: u32,
        /// 1 where the keys are evenly spaced: key k at `start_secs + k / keys_per_sec`.
        pub even: u32,
        pub start_secs: f32,
        pub keys_per_sec: f32,
        pub _pad: u32,
    }
}

/// u32s in a level's lists' header ([`TableOffsets::level_lists`]): the first word and the
/// count of its sampled joints, of its moving palette entries and of its posed joints.
pub const LEVEL_LIST_WORDS: usize = 6;

/// How many passes dispatch once per level over its lists (sampling, the palettes, the
/// walk: `LevelPass` in the animator), so how many dispatch arguments each level has in a
/// range's due-list header (`LEVEL_PASSES` in animate.wgsl).
pub const LEVEL_PASSES: u32 = 3;

/// u32s in a track's header.
pub const TRACK_WORDS: u32 = (std::mem::size_of::<TrackHeader>() / 4) as u32;

/// A track's interpolation as the tables store it (`STEP`, `LINEAR`, `CUBICSPLINE` in the
/// shaders' generated constants).
pub const fn interpolation_code(i: Interpolation) -> u32 {
    match i {
        Interpolation::Step => 0,
        Interpolation::Linear => 1,
        Interpolation::CubicSpline => 2,
    }
}

/// Where each table starts (words from the start of [`AnimationTables::words`]), and the
/// rig's counts: what the shader's parameters carry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableOffsets {
    pub joints: u32,
    pub root_count: u32,
    pub entries: u32,
    pub clip_count: u32,
    pub roots_at: u32,
    pub binds_at: u32,
    pub parents_at: u32,
    pub entry_joints_at: u32,
    pub clips_at: u32,
    pub channels_at: u32,
    pub tracks_at: u32,
    /// Each depth level's joints: (first word, count), roots first; only the moving
    /// joints, and no level without one.
    pub levels: Vec<(u32, u32)>,
    /// The joints that move a vertex (some vertex's influence follows it or a joint below
    /// it: the full mesh's [`crate::prepare::joint_sets::JointSet`]), ascending, and the
    /// palette entries a weighted influence names: where their lists start and how many.
    /// The passes sample, walk and write only those; the others move no vertex.
    pub moving_joints_at: u32,
    pub moving_joints: u32,
    pub moving_entries_at: u32,
    pub moving_entries: u32,
    /// Per level of the mesh's chain, a bit per joint: the joints that move its vertices
    /// (`crate::prepare::PreparedData::level_joint_sets`), `mask_words` words a level.
    pub joint_masks_at: u32,
    pub mask_words: u32,
    /// Per level of the chain, a bit per joint: the joints a character posed for it
    /// samples (its set's joints some clip animates and the level does not hold at rest,
    /// [`crate::skin::joint_merges`]), `mask_words` words a level. The others it poses
    /// at rest.
    pub sampled_masks_at: u32,
    /// Per level of the chain (`list_levels` of them, at least one): six words at
    /// `level_lists_at + 6 l`, the same as `level_lists[l]`: where the level's sampled
    /// joints start and how many (ascending), where the moving palette entries of its
    /// joints start and how many, where its set's joints start and how many (ascending:
    /// parents first). The passes over due lists dispatch each level over these.
    pub list_levels: u32,
    pub level_lists_at: u32,
    pub level_lists: Vec<[u32; LEVEL_LIST_WORDS]>,
}

/// What the animation shader reads (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct AnimationTables {
    /// The rig, the values and the tables end to end.
    pub words: Vec<u32>,
    pub offsets: TableOffsets,
    /// Tracks uploaded, for reports.
    pub tracks: usize,
}

fn push_rows(rig: &mut Vec<[f32; 4]>, m: &Mat4) {
    for r in 0..3 {
        rig.push(m.row(r).to_array());
    }
}

impl AnimationTables {
    /// `prepared`'s tables, each level's joint lists as a character skinned with `method`
    /// poses them ([`crate::skin::level_errors::posed_joints`]).
    pub fn new(prepared: &PreparedRig, method: SkinMethod) -> Self {
        let skeleton = &prepared.skeleton;
        let joints = skeleton.joint_count();
        let mut t = Parts::default();
        for q in &prepared.rest_pose {
            t.rig.push(q.rotation.to_array());
            t.rig.push(q.translation.extend(0.0).to_array());
            t.rig.push(q.scale.extend(0.0).to_array());
        }
        t.offsets.roots_at = t.rig.len() as u32;
        for m in &skeleton.model_from_root_parent {
            push_rows(&mut t.rig, m);
        }
        t.offsets.binds_at = t.rig.len() as u32;
        for m in &skeleton.joint_from_bind {
            push_rows(&mut t.rig, m);
        }

        t.offsets.parents_at = t.tables.len() as u32;
        t.tables
            .extend(skeleton.parents.iter().map(|&p| u32::from(p)));
        t.offsets.entry_joints_at = t.tables.len() as u32;
        t.tables
            .extend(skeleton.palette_joints.iter().map(|&j| u32::from(j)));
        // Depth levels: parents come before their children, so one forward pass finds
        // every joint's depth.
        let mut depth = vec![0usize; joints];
        for j in 0..joints {
            let parent = skeleton.parents[j];
            depth[j] = if parent == NO_PARENT {
                0
            } else {
                depth[parent as usize] + 1
            };
        }
        // Each level's joints as a character skinned with `method` poses them (its
        // influence cut's, with linear blending); level 0's are every joint that moves a
        // vertex, for either method.
        let sets: Vec<&JointSet> = (0..prepared.level_joint_sets().len())
            .map(|l| crate::skin::level_errors::posed_joints(prepared, l, method))
            .collect();
        let all = JointSet::all(skeleton);
        let moving = sets.first().copied().unwrap_or(&all);
        let levels = depth.iter().max().map_or(0, |d| d + 1);
        for level in 0..levels {
            let first = t.tables.len() as u32;
            t.tables.extend(
                moving
                    .joints()
                    .filter(|&j| depth[j] == level)
                    .map(|j| j as u32),
            );
            let count = t.tables.len() as u32 - first;
            if count > 0 {
                t.offsets.levels.push((first, count));
            }
        }
        t.offsets.moving_joints_at = t.tables.len() as u32;
        t.tables.extend(moving.joints().map(|j| j as u32));
        t.offsets.moving_joints = t.tables.len() as u32 - t.offsets.moving_joints_at;
        t.offsets.moving_entries_at = t.tables.len() as u32;
        let named = weighted_entries(&prepared.source_mesh, skeleton.palette_len());
        t.tables.extend(
            named
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n)
                .map(|(e, _)| e as u32),
        );
        t.offsets.moving_entries = t.tables.len() as u32 - t.offsets.moving_entries_at;
        t.offsets.joint_masks_at = t.tables.len() as u32;
        let mask_words = joints.div_ceil(32).max(1);
        t.offsets.mask_words = mask_words as u32;
        for set in &sets {
            let mut mask = vec![0u32; mask_words];
            for j in set.joints() {
                mask[j / 32] |= 1 << (j % 32);
            }
            t.tables.extend(mask);
        }
        let level_sets = if sets.is_empty() { vec![moving] } else { sets };
        // Per level, the joints a character posed for it samples: its set's joints a clip
        // animates and the level does not hold at rest.
        let sampled: Vec<Vec<u32>> = level_sets
            .iter()
            .enumerate()
            .map(|(level, set)| {
                set.joints()
                    .filter(|&j| {
                        crate::skin::level_errors::level_samples(prepared, level, method, j)
                    })
                    .map(|j| j as u32)
                    .collect()
            })
            .collect();
        t.offsets.sampled_masks_at = t.tables.len() as u32;
        for level in &sampled {
            let mut mask = vec![0u32; mask_words];
            for &j in level {
                mask[j as usize / 32] |= 1 << (j % 32);
            }
            t.tables.extend(mask);
        }
        // Per level, the palette entries its vertices read: the set's own entries (with
        // an influence cut, only those the kept influences name; a coarser level's are
        // among them, so a shadow drawn coarser reads written entries), weighted ones only
        // (the whole skeleton's set, without levels, lists every entry).
        let entries: Vec<Vec<u32>> = level_sets
            .iter()
            .map(|set| {
                set.entries()
                    .iter()
                    .filter(|&&e| named.get(e as usize) == Some(&true))
                    .map(|&e| u32::from(e))
                    .collect()
            })
            .collect();
        // The per-level lists' headers (sampled joints', entries' and posed joints' first
        // word and count), then the lists.
        t.offsets.list_levels = level_sets.len() as u32;
        t.offsets.level_lists_at = t.tables.len() as u32;
        let headers_at = t.tables.len();
        t.tables
            .resize(headers_at + LEVEL_LIST_WORDS * level_sets.len(), 0);
        for ((joints, entries), set) in sampled.iter().zip(&entries).zip(level_sets) {
            let sampled_at = t.tables.len() as u32;
            t.tables.extend(joints);
            let entries_at = t.tables.len() as u32;
            t.tables.extend(entries);
            let posed_at = t.tables.len() as u32;
            t.tables.extend(set.joints().map(|j| j as u32));
            t.offsets.level_lists.push([
                sampled_at,
                joints.len() as u32,
                entries_at,
                entries.len() as u32,
                posed_at,
                set.len() as u32,
            ]);
        }

        let clips = &prepared.clips;
        t.offsets.clips_at = t.tables.len() as u32;
        for clip in clips {
            t.tables.push(clip.duration_secs.to_bits());
            t.tables.push(0);
        }
        t.offsets.channels_at = t.tables.len() as u32;
        t.tables
            .resize(t.tables.len() + clips.len() * joints * 3, NO_TRACK);
        // The headers go into their own list first: the key times follow all of them.
        let mut headers: Vec<TrackHeader> = Vec::new();
        let mut times: Vec<u32> = Vec::new();
        for (c, clip) in clips.iter().enumerate() {
            for (joint, channel, track) in clip_tracks(clip) {
                let at = t.offsets.channels_at as usize + (c * joints + joint) * 3 + channel;
                t.tables[at] = headers.len() as u32;
                let (start, rate) = track.timeline.uniform.unwrap_or((0.0, 0.0));
                headers.push(TrackHeader {
                    interpolation: interpolation_code(track.interpolation),
                    keys: track.timeline.times_secs.len() as u32,
                    // Made absolute below, once the headers' length is known.
                    times_at: times.len() as u32,
                    // Counted in values here; words of the whole array in `end_to_end`.
                    values_at: t.values.len() as u32,
                    even: track.timeline.uniform.is_some() as u32,
                    start_secs: start,
                    keys_per_sec: rate,
                    _pad: 0,
                });
                times.extend(track.timeline.times_secs.iter().map(|x| x.to_bits()));
                t.values.extend(track.values);
            }
        }
        t.offsets.tracks_at = t.tables.len() as u32;
        let times_at = t.offsets.tracks_at + headers.len() as u32 * TRACK_WORDS;
        t.tracks = headers.len();
        // Their words are written in `end_to_end`, with the offsets made absolute.
        t.tables
            .resize(t.tables.len() + headers.len() * TRACK_WORDS as usize, 0);
        for mut h in headers {
            h.times_at += times_at;
            t.headers.push(h);
        }
        t.tables.extend(times);
        t.offsets.joints = joints as u32;
        t.offsets.root_count = skeleton.root_count as u32;
        t.offsets.entries = skeleton.palette_len() as u32;
        t.offsets.clip_count = clips.len() as u32;
        t.end_to_end()
    }

    /// Bytes the array takes on the GPU.
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 4
    }
}

/// The three parts while they are built, each counting from its own start.
#[derive(Default)]
struct Parts {
    rig: Vec<[f32; 4]>,
    tables: Vec<u32>,
    values: Vec<[f32; 4]>,
    headers: Vec<TrackHeader>,
    offsets: TableOffsets,
    tracks: usize,
}

impl Parts {
    /// The rig, then the values, then the tables, every offset made a word offset.
    fn end_to_end(self) -> AnimationTables {
        let values_at = self.rig.len() as u32 * 4;
        let tables_at = values_at + self.values.len() as u32 * 4;
        let mut o = self.offsets;
        o.roots_at *= 4;
        o.binds_at *= 4;
        for at in [
            &mut o.parents_at,
            &mut o.entry_joints_at,
            &mut o.moving_joints_at,
            &mut o.moving_entries_at,
            &mut o.joint_masks_at,
            &mut o.sampled_masks_at,
            &mut o.level_lists_at,
            &mut o.clips_at,
            &mut o.channels_at,
        ] {
            *at += tables_at;
        }
        for level in &mut o.levels {
            level.0 += tables_at;
        }
        let mut tables = self.tables;
        let headers_at = (o.level_lists_at - tables_at) as usize;
        for (l, list) in o.level_lists.iter_mut().enumerate() {
            list[0] += tables_at;
            list[2] += tables_at;
            list[4] += tables_at;
            let at = headers_at + LEVEL_LIST_WORDS * l;
            tables[at..at + LEVEL_LIST_WORDS].copy_from_slice(list);
        }
        // Each header with its times and values offsets made word offsets of the array.
        for (k, mut h) in self.headers.into_iter().enumerate() {
            h.times_at += tables_at;
            h.values_at = values_at + h.values_at * 4;
            let at = o.tracks_at as usize + k * TRACK_WORDS as usize;
            tables[at..at + TRACK_WORDS as usize].copy_from_slice(to_words(&h));
        }
        o.tracks_at += tables_at;
        let mut words: Vec<u32> = bytemuck::cast_slice::<[f32; 4], u32>(&self.rig).to_vec();
        words.extend_from_slice(bytemuck::cast_slice::<[f32; 4], u32>(&self.values));
        words.extend_from_slice(&tables);
        // A binding may not be empty.
        words.push(0);
        AnimationTables {
            words,
            offsets: o,
            tracks: self.tracks,
        }
    }
}

/// A track as the shader reads it: interpolation, timeline, values as vec4s.
pub struct FlatTrack {
    pub interpolation: Interpolation,
    pub timeline: Timeline,
    pub values: Vec<[f32; 4]>,
}

fn flat<T: Copy>(track: &TrackRt<T>, to: impl Fn(T) -> [f32; 4]) -> FlatTrack {
    FlatTrack {
        interpolation: track.interpolation,
        timeline: track.timeline.clone(),
        values: track.values.iter().map(|&v| to(v)).collect(),
    }
}

/// Every track of a prepared clip as (joint, channel: 0 translation, 1 rotation, 2 scale,
/// track), the lane rotations taken back out one track at a time.
pub fn clip_tracks(clip: &ClipRt) -> Vec<(usize, usize, FlatTrack)> {
    let vec3 = |v: glam::Vec3A| v.extend(0.0).to_array();
    let mut out = Vec::new();
    for a in &clip.animated {
        let joint = a.joint as usize;
        if let Some(track) = &a.translation {
            out.push((joint, 0, flat(track, vec3)));
        }
        if let Some(track) = &a.rotation {
            out.push((joint, 1, flat(track, |q: glam::Quat| q.to_array())));
        }
        if let Some(track) = &a.scale {
            out.push((joint, 2, flat(track, vec3)));
        }
    }
    if let Some(lanes) = &clip.lane_rotations {
        let keys = lanes.timeline.times_secs.len();
        for (i, &joint) in lanes.joints.iter().enumerate() {
            let (b, l) = (i / LANES, i % LANES);
            let values = (0..keys)
                .map(|k| {
                    let key = &lanes.keys[k * lanes.blocks + b];
                    [key[0].0[l], key[1].0[l], key[2].0[l], key[3].0[l]]
                })
                .collect();
            out.push((
                joint as usize,
                1,
                FlatTrack {
                    interpolation: Interpolation::Linear,
                    timeline: lanes.timeline.clone(),
                    values,
                },
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_track_of_every_clip_is_in_the_tables_once_for_dual_quaternions() {
        every_track_of_every_clip_is_in_the_tables_once(SkinMethod::DualQuat);
    }

    #[test]
    fn every_track_of_every_clip_is_in_the_tables_once_for_linear_blending() {
        every_track_of_every_clip_is_in_the_tables_once(SkinMethod::Linear);
        // Linear blending cuts the coarse levels' influences, so they pose fewer joints
        // than dual quaternions, which keep every influence.
        let rig = PreparedRig::reference();
        let [linear, dual_quat] = [SkinMethod::Linear, SkinMethod::DualQuat]
            .map(|m| AnimationTables::new(&rig, m).offsets.level_lists);
        let coarsest = linear.len() - 1;
        assert!(linear[coarsest][5] < dual_quat[coarsest][5]);
        assert_eq!(linear[0], dual_quat[0]);
    }

    /// The tables for `method`: every clip's tracks once, the moving joints and entries,
    /// and per level the joints that method poses.
    fn every_track_of_every_clip_is_in_the_tables_once(method: SkinMethod) {
        let rig = PreparedRig::reference();
        let t = AnimationTables::new(&rig, method);
        let per_clip: usize = rig.clips.iter().map(|c| clip_tracks(c).len()).sum();
        assert_eq!(t.tracks, per_clip);
        let channels = &t.words[t.offsets.channels_at as usize
            ..t.offsets.channels_at as usize + rig.clips.len() * rig.joint_count() * 3];
        let named = channels.iter().filter(|&&c| c != NO_TRACK).count();
        assert_eq!(named, per_clip);
        // The depth levels hold the moving joints, each once; the moving joints are the
        // full mesh's joint set, the moving entries those a weighted influence names.
        let moving = &rig.level_joint_sets()[0];
        let o = &t.offsets;
        let list = |at: u32, count: u32| t.words[at as usize..(at + count) as usize].to_vec();
        let mut by_depth: Vec<u32> = o.levels.iter().flat_map(|&(at, n)| list(at, n)).collect();
        by_depth.sort_unstable();
        let expected: Vec<u32> = moving.joints().map(|j| j as u32).collect();
        assert_eq!(by_depth, expected);
        assert_eq!(list(o.moving_joints_at, o.moving_joints), expected);
        // The built-in rig has end joints no vertex follows.
        assert!(expected.len() < rig.joint_count());
        assert_eq!(o.levels[0].1 as usize, rig.skeleton.root_count);
        let named = weighted_entries(&rig.source_mesh, rig.palette_len());
        let entries: Vec<u32> = (0..named.len() as u32)
            .filter(|&e| named[e as usize])
            .collect();
        assert_eq!(list(o.moving_entries_at, o.moving_entries), entries);
        assert!(
            entries
                .iter()
                .all(|&e| moving.contains(rig.skeleton.palette_joints[e as usize] as usize))
        );
        // Per level: its sampled joints are its set's animated joints less the held ones
        // (as many as the level's merges count), in its mask too; its entries are the
        // set's own, the entries the level's vertices read (with a cut, fewer than the
        // moving entries of its joints). A coarse level samples fewer than the full mesh.
        let sets: Vec<&JointSet> = (0..rig.level_joint_sets().len())
            .map(|l| crate::skin::level_errors::posed_joints(&rig, l, method))
            .collect();
        let merges: Vec<&crate::prepare::LevelMerges> = (0..sets.len())
            .map(|l| crate::skin::level_errors::level_merges(&rig, l, method))
            .collect();
        let animated = rig.animated_joints();
        assert_eq!(o.list_levels as usize, sets.len());
        assert_eq!(o.level_lists.len(), sets.len());
        for (l, set) in sets.iter().enumerate() {
            let [
                sampled_at,
                sampled,
                entries_at,
                entry_count,
                posed_at,
                posed,
            ] = o.level_lists[l];
            let header = o.level_lists_at as usize + LEVEL_LIST_WORDS * l;
            assert_eq!(t.words[header..header + LEVEL_LIST_WORDS], o.level_lists[l]);
            let set_joints: Vec<u32> = set.joints().map(|j| j as u32).collect();
            assert_eq!(list(posed_at, posed), set_joints, "level {l}");
            let expected: Vec<u32> = set
                .joints()
                .filter(|&j| animated[j] && !merges[l].holds(j))
                .map(|j| j as u32)
                .collect();
            assert_eq!(list(sampled_at, sampled), expected, "level {l}");
            assert_eq!(sampled as usize, merges[l].sampled(), "level {l}");
            let mask = &t.words[(o.sampled_masks_at + l as u32 * o.mask_words) as usize..];
            for j in 0..rig.joint_count() {
                let bit = mask[j / 32] >> (j % 32) & 1 != 0;
                assert_eq!(bit, expected.contains(&(j as u32)), "level {l}, joint {j}");
            }
            let level_entries: Vec<u32> = set.entries().iter().map(|&e| u32::from(e)).collect();
            assert_eq!(list(entries_at, entry_count), level_entries, "level {l}");
            assert!(
                level_entries.iter().all(|e| entries.contains(e)),
                "level {l}"
            );
        }
        let last = o.level_lists.last().unwrap();
        assert!(last[1] < o.level_lists[0][1] && last[3] < o.level_lists[0][3]);
        assert!(last[5] < o.level_lists[0][5]);
    }
}
