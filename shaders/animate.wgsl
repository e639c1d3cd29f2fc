// The animation frame on the GPU (`--animate gpu`): sampling with the cross-fade, the
// hierarchy and the palettes, in compute passes, from the same prepared clips the CPU
// samples (`gpu::animate::tables` flattens them).
//
// Every character has a 32-byte record (`Character`) that the CPU writes only when the
// character changes: its clip time at `since_secs` on the scene's clock and its speed, so
// its time now is `time_secs + speed * (clock_secs - since_secs)` and nothing per frame
// has to be written for it. Joints that move no vertex (no influence follows them or a
// joint below them: the end joints many files carry) are neither sampled, walked nor
// written, nor are palette entries no weighted influence names; with the LOD pass, a
// character poses only the joints that move its skin level's vertices. The passes:
//
// - `cs_sample`: one invocation per (character, joint it samples): the joint's tracks of the clip at
//   the character's time (STEP, LINEAR with slerp for rotations, CUBICSPLINE with the
//   glTF Hermite form), the rest pose where the clip has no track, then the cross-fade
//   towards the second clip (nlerp on the short arc, lerp of translation and scale), into
//   `locals` as rotation, translation, scale (the CPU's `Qvs`).
// - `cs_hierarchy_walk`: one invocation per character walks its joints in order (parents
//   first); or `cs_hierarchy_level`: one dispatch per depth level over every character's
//   joints of that level. Either writes each joint's model matrix as three row vec4s.
// - `cs_palette`: one invocation per (character, palette entry): model × inverse bind as
//   three row vec4s (and the normal matrix `normal_offset` vec4s later where the rig needs
//   it), or as a dual quaternion (two vec4s), exactly where the CPU's palette upload would
//   put them, so `gpu_compute`'s skinning and `gpu_vertex` read them in place.
//
// With LOD, `cs_due` and `cs_due_args` (and `cs_level_args` per depth level) first list
// each range's due characters, whole and per level of the mesh's chain; the walk or the
// depth levels dispatch over the whole list, sampling and the palettes over the levels'
// lists, each level over only the joints it samples and the entries of its joints (see
// `cs_due`). A joint the level poses but does not sample (no clip animates it, or the
// level holds it) the hierarchy takes at rest.
//
// A dispatch covers one range of characters: `poses` (its local poses, model matrices and
// due list) and `palettes` are that range's, the records and the data whole.

struct AnimateParams {
    joints: u32,
    root_count: u32,
    entries: u32,
    clip_count: u32,
    // This range's first character (its record's index) and how many it holds.
    first_character: u32,
    characters: u32,
    // Joints from one character's locals (and model matrices) to the next.
    joint_stride: u32,
    // vec4s from one character's palette to the next; the normal matrices' offset in it
    // (0: the rig has none of its own).
    palette_stride: u32,
    normal_offset: u32,
    dual_quat: u32,
    // The depth level `cs_hierarchy_level` computes: where its joints are in `data`.
    level_first: u32,
    level_count: u32,
    clock_secs: f32,
    blend_weight: f32,
    // Where each table starts in `data` (words).
    roots_at: u32,
    binds_at: u32,
    parents_at: u32,
    entry_joints_at: u32,
    clips_at: u32,
    channels_at: u32,
    tracks_at: u32,
    // Where this range's model matrices start in `poses` (vec4s).
    model_at: u32,
    // 1: only characters whose record says `due` (update-rate LOD's pass decided it).
    lod: u32,
    // The uniform scale of every skinning matrix, taken out of its 3x3 before the dual
    // quaternion is made (the skinning pass applies it to the bind position).
    dual_quat_scale: f32,
    // The joints that move a vertex (an influence follows them or a joint below them),
    // ascending, and the palette entries a weighted influence names: where their lists
    // start in `data` and how many. The passes sample, walk and write only those; the
    // others move no vertex.
    moving_joints_at: u32,
    moving_joints: u32,
    moving_entries_at: u32,
    moving_entries: u32,
    // Per level of the mesh's chain, a bit per joint: the joints that move its vertices
    // (`mask_words` words a level); and with `lod`, how many levels the LOD pass chooses
    // among: a character poses only the joints of the level its record names (its skin
    // level, the coarsest where nothing draws it; 1: every moving joint).
    joint_masks_at: u32,
    mask_words: u32,
    joint_levels: u32,
    // With `lod`: where this range's list of due characters starts in `poses` (vec4s, after
    // the model matrices; see `cs_due`).
    due_at: u32,
    // The rig's depth levels, and the one this block is for (`cs_level_args`; 0 in a
    // range's own block).
    depth_levels: u32,
    depth_level: u32,
    // Per level of the mesh's chain, a bit per joint: the joints a character posed for it
    // samples (its joints a clip animates and the level does not hold); it poses the
    // others at rest (`mask_words` words a level).
    sampled_masks_at: u32,
    // Per level of the chain (`list_levels` of them), `LEVEL_LIST_WORDS` words: where its
    // sampled joints start in `data` and how many, where the moving palette entries of its
    // joints start and how many, where its set's joints start and how many (ascending,
    // parents first). With `lod`, sampling, the walk and the palettes dispatch each
    // level's due characters over its own lists (see `cs_due`).
    level_lists_at: u32,
    list_levels: u32,
    // The level of the chain whose sampling, walk or palette dispatch this block is for (0
    // in a range's own block).
    list_level: u32,
    _pad_c: u32,
    _pad_d: u32,
};

#import skinbench::record::Character
#import skinbench::constants::{
    LINEAR, NO_PARENT, NO_TRACK, RECORD_ANIMATE, RECORD_POSED_LEVEL_SHIFT, SLERP_SERIES_MIN_COS,
    LEVEL_LIST_WORDS, LEVEL_PASSES, SLERP_U, SLERP_V, STEP, TRACK_WORDS, WORKGROUP,
}

@group(0) @binding(0) var<uniform> p: AnimateParams;
// One array of words (four storage bindings in all, what every adapter offers): the rest
// pose (twelve words a joint: rotation, translation, scale), each root's folded ancestors
// and each palette entry's inverse bind (twelve words: three rows), the key values (four
// words each: a vec3 as xyz, a rotation as xyzw, CUBICSPLINE keys as in, value, out), then
// the tables: parents, palette entries' joints, the depth levels' joints, per clip
// (duration bits, 0), per clip and joint its translation, rotation and scale track (or
// NO_TRACK), per track its `TrackHeader`, and the key times' bits. Every offset counts
// words from the start.
@group(0) @binding(1) var<storage, read> data: array<u32>;
@group(0) @binding(2) var<storage, read> characters: array<Character>;
// This range's local poses (three vec4s a joint), then its model matrices from `model_at`.
@group(0) @binding(3) var<storage, read_write> poses: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> palettes: array<vec4<f32>>;
// The same buffer as `poses`, as words the list passes append to (only `cs_due` and
// `cs_due_args` use it: an entry point binds one of the two).
@group(0) @binding(3) var<storage, read_write> due_words: array<atomic<u32>>;

fn vec4_at(at: u32) -> vec4<f32> {
    return bitcast<vec4<f32>>(vec4<u32>(data[at], data[at + 1u], data[at + 2u], data[at + 3u]));
}


struct Pose {
    rotation: vec4<f32>,
    translation: vec3<f32>,
    scale: vec3<f32>,
};

struct Rows {
    r0: vec4<f32>,
    r1: vec4<f32>,
    r2: vec4<f32>,
};

// Dispatches are two-dimensional past 65,535 workgroups: the flat invocation index.
fn flat_index(id: vec3<u32>, groups: vec3<u32>) -> u32 {
    return id.x + id.y * groups.x * WORKGROUP;
}

// With update-rate LOD, most characters are kept each frame: launching an invocation for
// every joint of every character only to return costs more than the work where few are
// due (on a software renderer most of the pass). So each range lists its due characters
// first, and sampling, the hierarchy and the palettes dispatch over the lists (indirect
// arguments the list pass writes). The lists, from `due_at` in `poses` (vec4s):
//
// - vec4 0: the count being appended to (x), and the count of this frame's list (y);
// - vec4 1 + d, for each depth level d: its `cs_hierarchy_level` dispatch's workgroups;
// - vec4 1 + depth_levels + LEVEL_PASSES l and the next two, for each level l of the
//   mesh's chain: its sampling, its palette and its walk dispatches' workgroups;
// - vec4 1 + depth_levels + LEVEL_PASSES list_levels + l: level l's count being appended
//   to (x) and this frame's (y);
// - then the characters (their index in the range), a word each, in the order the
//   atomics gave (what each character's pose becomes does not depend on it), room for
//   every character of the range; then, as much room each, per level of the chain the
//   listed characters posed for it.
//
// The depth levels go over the whole list. Sampling, the walk and the palettes dispatch
// once per level of the chain (its parameter block names it: `list_level`) over that
// level's list: a character posed for a coarse level launches invocations only for the
// joints it samples and the entries of its joints, not for every moving joint and entry
// only to return (a software renderer pays for each), and its walk loops over its set's
// joints only.
//
// `GpuAnimator::read_back_due_lists` reads them back; the CPU twin is the LOD pass's
// decision.

// Where depth level `d`'s dispatch arguments are in `poses` (vec4s).
fn depth_args_at(d: u32) -> u32 {
    return p.due_at + 1u + d;
}

// Where level `l`'s sampling dispatch arguments are (vec4s); its palette's and its walk's
// follow.
fn level_args_at(l: u32) -> u32 {
    return p.due_at + 1u + p.depth_levels + LEVEL_PASSES * l;
}

// Where level `l`'s counts are (vec4s).
fn level_counts_at(l: u32) -> u32 {
    return p.due_at + 1u + p.depth_levels + LEVEL_PASSES * p.list_levels + l;
}

// Where the list's characters start (vec4s).
fn due_list_start() -> u32 {
    return p.due_at + 1u + p.depth_levels + (LEVEL_PASSES + 1u) * p.list_levels;
}

// Where level `l`'s list starts, words.
fn level_list_word(l: u32) -> u32 {
    return 4u * due_list_start() + p.characters * (1u + l);
}

// Appends character `c` of the range to the list, and to its posed level's, where the
// LOD pass marked it due.
@compute @workgroup_size(WORKGROUP)
fn cs_due(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = flat_index(id, groups);
    // Dispatched with `lod` only, so `skipped` is the LOD pass's mark.
    if (c >= p.characters || skipped(c)) {
        return;
    }
    let k = atomicAdd(&due_words[4u * p.due_at], 1u);
    atomicStore(&due_words[4u * due_list_start() + k], c);
    let level = min(posed_level(c), p.list_levels - 1u);
    let in_level = atomicAdd(&due_words[4u * level_counts_at(level)], 1u);
    atomicStore(&due_words[level_list_word(level) + in_level], c);
}

// The workgroups of `invocations`, in rows of at most 65,535 (`flat_index` counts across
// them; `gpu::animate::workgroups` is the same split).
fn store_workgroups(at: u32, invocations: u32) {
    let groups = (invocations + WORKGROUP - 1u) / WORKGROUP;
    var x = groups;
    var y = 1u;
    if (groups > 65535u) {
        x = 65535u;
        y = (groups + 65534u) / 65535u;
    }
    atomicStore(&due_words[at], x);
    atomicStore(&due_words[at + 1u], y);
    atomicStore(&due_words[at + 2u], 1u);
}

// One invocation a range, after `cs_due`: the lists' counts for the passes, the counts
// reset for the next frame, and each level's dispatches' arguments.
@compute @workgroup_size(1)
fn cs_due_args() {
    let at = 4u * p.due_at;
    let count = atomicExchange(&due_words[at], 0u);
    atomicStore(&due_words[at + 1u], count);
    for (var l = 0u; l < p.list_levels; l = l + 1u) {
        let counts = 4u * level_counts_at(l);
        let listed = atomicExchange(&due_words[counts], 0u);
        atomicStore(&due_words[counts + 1u], listed);
        let args = 4u * level_args_at(l);
        let lists = p.level_lists_at + LEVEL_LIST_WORDS * l;
        store_workgroups(args, listed * data[lists + 1u]);
        store_workgroups(args + 4u, listed * data[lists + 3u]);
        store_workgroups(args + 8u, listed);
    }
}

// One invocation a range and depth level (its parameter block), after `cs_due_args`:
// the level's `cs_hierarchy_level` dispatch over the list, one invocation per listed
// character and joint of the level.
@compute @workgroup_size(1)
fn cs_level_args() {
    let count = atomicLoad(&due_words[4u * p.due_at + 1u]);
    store_workgroups(4u * depth_args_at(p.depth_level), count * p.level_count);
}

// With `lod`: how many characters the range's list holds this frame, and its `k`th.
fn due_count() -> u32 {
    return bitcast<u32>(poses[p.due_at].y);
}

fn list_word(w: u32) -> u32 {
    return bitcast<u32>(poses[w / 4u][w % 4u]);
}

fn due_character(k: u32) -> u32 {
    return list_word(4u * due_list_start() + k);
}

// The character and the item of it (joint or palette entry, among `per_character`) that
// invocation `i` of a pass over the range computes: over the due list with `lod`, over
// every character otherwise. `found` is false past the last.
struct Item {
    c: u32,
    k: u32,
    found: bool,
};

fn item(i: u32, per_character: u32) -> Item {
    var it: Item;
    var n = p.characters;
    if (p.lod != 0u) {
        n = due_count();
    }
    it.found = i < n * per_character;
    if (!it.found) {
        return it;
    }
    let listed = i / per_character;
    it.k = i - listed * per_character;
    it.c = listed;
    if (p.lod != 0u) {
        it.c = due_character(listed);
    }
    return it;
}

// With `lod`: the character and the joint (`entries` false: one its level samples) or
// palette entry (true: one of its level's joints') that invocation `i` of the sampling or
// palette dispatch of level `list_level` computes, over that level's list. `found` is
// false past the last.
struct LevelItem {
    c: u32,
    item: u32,
    found: bool,
};

fn level_item(i: u32, entries: bool) -> LevelItem {
    var it: LevelItem;
    let l = p.list_level;
    let lists = p.level_lists_at + LEVEL_LIST_WORDS * l + select(0u, 2u, entries);
    let per_character = data[lists + 1u];
    let listed = bitcast<u32>(poses[level_counts_at(l)].y);
    it.found = i < listed * per_character;
    if (!it.found) {
        return it;
    }
    let k = i / per_character;
    it.c = list_word(level_list_word(l) + k);
    it.item = data[data[lists] + i - k * per_character];
    return it;
}

// Whether this frame leaves character `c` of the range as it is (LOD: not due).
fn skipped(c: u32) -> bool {
    return p.lod != 0u && (characters[p.first_character + c].due & RECORD_ANIMATE) == 0u;
}

// The level of the mesh's chain whose joints character `c` of the range poses, as the LOD
// pass wrote it into the record (`crowd::lod::formats::POSED_LEVEL_SHIFT`).
fn posed_level(c: u32) -> u32 {
    if (p.lod == 0u || p.joint_levels <= 1u) {
        return 0u;
    }
    let posed = (characters[p.first_character + c].due >> RECORD_POSED_LEVEL_SHIFT) & 15u;
    return min(posed, p.joint_levels - 1u);
}

// Whether `joint` moves a vertex of `level`.
fn is_posed(level: u32, joint: u32) -> bool {
    let word = data[p.joint_masks_at + level * p.mask_words + joint / 32u];
    return ((word >> (joint % 32u)) & 1u) != 0u;
}

// Whether a character posed for `level` samples `joint` (else it poses it at rest).
fn is_sampled(level: u32, joint: u32) -> bool {
    let word = data[p.sampled_masks_at + level * p.mask_words + joint / 32u];
    return ((word >> (joint % 32u)) & 1u) != 0u;
}

fn rest(joint: u32) -> Pose {
    let at = joint * 12u;
    return Pose(vec4_at(at), vec4_at(at + 4u).xyz, vec4_at(at + 8u).xyz);
}

// A track's header in `data` (`gpu::animate::tables::TrackHeader`), read from its words by
// name: member k is word k.
struct TrackHeader {
    interpolation: u32,
    keys: u32,
    times_at: u32,
    values_at: u32,
    even: u32,
    start_secs: f32,
    keys_per_sec: f32,
    _pad: u32,
};

fn track_header(at: u32) -> TrackHeader {
    return TrackHeader(
        data[at], data[at + 1u], data[at + 2u], data[at + 3u], data[at + 4u],
        bitcast<f32>(data[at + 5u]), bitcast<f32>(data[at + 6u]), data[at + 7u],
    );
}

struct Located {
    key: u32,
    fraction: f32,
};

// Key k and fraction s with times[k] <= t < times[k + 1], clamped at both ends
// (`prepare::clip::Timeline::locate`).
fn locate(track: TrackHeader, t: f32) -> Located {
    let keys = track.keys;
    let times = track.times_at;
    let last = keys - 1u;
    if (last == 0u || t <= bitcast<f32>(data[times])) {
        return Located(0u, 0.0);
    }
    if (t >= bitcast<f32>(data[times + last])) {
        return Located(last, 0.0);
    }
    var k = 0u;
    if (track.even != 0u) {
        // Evenly spaced keys: one multiply, then the estimate fixed up by a key.
        let start = track.start_secs;
        let rate = track.keys_per_sec;
        k = min(u32(max((t - start) * rate, 0.0)), last - 1u);
        if (bitcast<f32>(data[times + k]) > t) {
            k = k - 1u;
        } else if (bitcast<f32>(data[times + k + 1u]) <= t) {
            k = k + 1u;
        }
    } else {
        var lo = 0u;
        var hi = last;
        while (hi - lo > 1u) {
            let mid = (lo + hi) / 2u;
            if (bitcast<f32>(data[times + mid]) <= t) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        k = lo;
    }
    let t0 = bitcast<f32>(data[times + k]);
    let t1 = bitcast<f32>(data[times + k + 1u]);
    return Located(k, (t - t0) / (t1 - t0));
}

fn hermite(s: f32) -> vec4<f32> {
    let s2 = s * s;
    let s3 = s2 * s;
    return vec4<f32>(2.0 * s3 - 3.0 * s2 + 1.0, s3 - 2.0 * s2 + s, -2.0 * s3 + 3.0 * s2, s3 - s2);
}

// The CUBICSPLINE value between keys k and k + 1 (the last key's value past the end).
fn cubic(track: TrackHeader, at: Located) -> vec4<f32> {
    let v = track.values_at;
    let keys = track.keys;
    let k = at.key;
    if (k + 1u >= keys) {
        return vec4_at(v + 4u * (3u * k + 1u));
    }
    let times = track.times_at;
    let dt = bitcast<f32>(data[times + k + 1u]) - bitcast<f32>(data[times + k]);
    let h = hermite(at.fraction);
    return vec4_at(v + 4u * (3u * k + 1u)) * h.x + vec4_at(v + 4u * (3u * k + 2u)) * (h.y * dt)
        + vec4_at(v + 4u * (3u * (k + 1u) + 1u)) * h.z + vec4_at(v + 4u * (3u * (k + 1u))) * (h.w * dt);
}

fn sample_vec(track: TrackHeader, t: f32) -> vec3<f32> {
    let at = locate(track, t);
    let kind = track.interpolation;
    let v = track.values_at;
    if (kind == STEP) {
        return vec4_at(v + 4u * (at.key)).xyz;
    }
    if (kind == LINEAR) {
        if (at.key + 1u >= track.keys) {
            return vec4_at(v + 4u * (at.key)).xyz;
        }
        let a = vec4_at(v + 4u * (at.key)).xyz;
        let b = vec4_at(v + 4u * (at.key + 1u)).xyz;
        // As glam's `lerp`, term for term.
        return a * (1.0 - at.fraction) + b * at.fraction;
    }
    return cubic(track, at).xyz;
}

// The short-arc slerp as the CPU samples it (`anim::sample`): where the keys are less than
// 2 × 45° apart, Eberly's series for the weights `sin((1 - s)θ) / sin θ` and
// `sin(sθ) / sin θ` as polynomials in cos θ (accurate to float precision; `acos` of a
// cosine near 1 is not: it lost 1e-5 of a rotation between closely spaced keys); glam's
// `Quat::slerp` beyond.
fn slerp(a: vec4<f32>, b_in: vec4<f32>, s: f32) -> vec4<f32> {
    var b = b_in;
    var d = dot(a, b);
    if (d < 0.0) {
        b = -b;
        d = -d;
    }
    if (d >= SLERP_SERIES_MIN_COS) {
        let e = 1.0 - s;
        let cos_minus_1 = d - 1.0;
        var series_s = 1.0;
        var series_e = 1.0;
        for (var i = 7; i >= 0; i = i - 1) {
            series_s = fma((SLERP_U[i] * s * s - SLERP_V[i]) * cos_minus_1, series_s, 1.0);
            series_e = fma((SLERP_U[i] * e * e - SLERP_V[i]) * cos_minus_1, series_e, 1.0);
        }
        return b * (s * series_s) + a * (e * series_e);
    }
    let theta = acos(d);
    return (a * sin(theta * (1.0 - s)) + b * sin(theta * s)) / sin(theta);
}

fn sample_rotation(track: TrackHeader, t: f32) -> vec4<f32> {
    let at = locate(track, t);
    let kind = track.interpolation;
    let v = track.values_at;
    if (kind == STEP) {
        return vec4_at(v + 4u * (at.key));
    }
    if (kind == LINEAR) {
        if (at.key + 1u >= track.keys) {
            return vec4_at(v + 4u * (at.key));
        }
        return slerp(vec4_at(v + 4u * (at.key)), vec4_at(v + 4u * (at.key + 1u)), at.fraction);
    }
    return normalize(cubic(track, at));
}

// The joint's local pose in `clip` at `time_secs` (looped over the clip), or its rest
// pose where the clip has no track for it (or there is no such clip).
fn sample_joint(clip: u32, joint: u32, time_secs: f32) -> Pose {
    var pose = rest(joint);
    if (clip >= p.clip_count) {
        return pose;
    }
    let duration = bitcast<f32>(data[p.clips_at + clip * 2u]);
    var t = 0.0;
    if (duration > 0.0) {
        t = fma(-floor(time_secs / duration), duration, time_secs);
        t = select(t, 0.0, t >= duration || t < 0.0);
    }
    let channels = p.channels_at + (clip * p.joints + joint) * 3u;
    let translation = data[channels];
    let rotation = data[channels + 1u];
    let scale = data[channels + 2u];
    if (translation != NO_TRACK) {
        pose.translation = sample_vec(track_header(p.tracks_at + translation * TRACK_WORDS), t);
    }
    if (rotation != NO_TRACK) {
        pose.rotation = sample_rotation(track_header(p.tracks_at + rotation * TRACK_WORDS), t);
    }
    if (scale != NO_TRACK) {
        pose.scale = sample_vec(track_header(p.tracks_at + scale * TRACK_WORDS), t);
    }
    return pose;
}

// Joint `joint` of character `c` sampled at its time, cross-faded with the second clip,
// into the range's local poses.
fn sample_into(c: u32, joint: u32) {
    let character = characters[p.first_character + c];
    let time_secs = character.time_secs + character.speed * (p.clock_secs - character.since_secs);
    var pose = sample_joint(character.clips & 0xffffu, joint, time_secs);
    if (p.blend_weight > 0.0) {
        let other = sample_joint(character.clips >> 16u, joint, time_secs);
        let w = p.blend_weight;
        // Short-hemisphere nlerp, as glam's `Quat::lerp`.
        let b = select(other.rotation, -other.rotation, dot(pose.rotation, other.rotation) < 0.0);
        pose.rotation = normalize(pose.rotation * (1.0 - w) + b * w);
        pose.translation = pose.translation * (1.0 - w) + other.translation * w;
        pose.scale = pose.scale * (1.0 - w) + other.scale * w;
    }
    store_local(c, joint, pose);
}

fn store_local(c: u32, joint: u32, pose: Pose) {
    let at = (c * p.joint_stride + joint) * 3u;
    poses[at] = pose.rotation;
    poses[at + 1u] = vec4<f32>(pose.translation, 0.0);
    poses[at + 2u] = vec4<f32>(pose.scale, 0.0);
}

// Without `lod`: every character's joints the full mesh samples (level 0's list: the
// moving joints a clip animates; it holds none). The hierarchy poses the other moving
// joints at rest.
@compute @workgroup_size(WORKGROUP)
fn cs_sample(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let it = item(flat_index(id, groups), data[p.level_lists_at + 1u]);
    if (it.found) {
        sample_into(it.c, data[data[p.level_lists_at] + it.k]);
    }
}

// With `lod`: level `list_level`'s listed characters' sampled joints; the hierarchy poses
// their other joints at rest. An entry point of its own: with both ways in one, lavapipe
// sampled a crowd without LOD 1.3–1.9× slower.
@compute @workgroup_size(WORKGROUP)
fn cs_sample_level(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let it = level_item(flat_index(id, groups), false);
    if (it.found) {
        sample_into(it.c, it.item);
    }
}

// The rows of scale, then rotation, then translation (`Qvs::to_mat4`).
fn pose_rows(pose: Pose) -> Rows {
    let q = pose.rotation;
    let t = pose.translation;
    let s = pose.scale;
    let x2 = q.x + q.x;
    let y2 = q.y + q.y;
    let z2 = q.z + q.z;
    let xx = q.x * x2;
    let xy = q.x * y2;
    let xz = q.x * z2;
    let yy = q.y * y2;
    let yz = q.y * z2;
    let zz = q.z * z2;
    let wx = q.w * x2;
    let wy = q.w * y2;
    let wz = q.w * z2;
    let c0 = vec3<f32>(1.0 - (yy + zz), xy + wz, xz - wy) * s.x;
    let c1 = vec3<f32>(xy - wz, 1.0 - (xx + zz), yz + wx) * s.y;
    let c2 = vec3<f32>(xz + wy, yz - wx, 1.0 - (xx + yy)) * s.z;
    return Rows(vec4<f32>(c0.x, c1.x, c2.x, t.x), vec4<f32>(c0.y, c1.y, c2.y, t.y), vec4<f32>(c0.z, c1.z, c2.z, t.z));
}

// a × b for affine 3x4 matrices (implied last row 0, 0, 0, 1).
fn mul_rows(a: Rows, b: Rows) -> Rows {
    let w = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    return Rows(
        a.r0.x * b.r0 + a.r0.y * b.r1 + a.r0.z * b.r2 + a.r0.w * w,
        a.r1.x * b.r0 + a.r1.y * b.r1 + a.r1.z * b.r2 + a.r1.w * w,
        a.r2.x * b.r0 + a.r2.y * b.r1 + a.r2.z * b.r2 + a.r2.w * w,
    );
}

fn rig_rows(at: u32) -> Rows {
    return Rows(vec4_at(at), vec4_at(at + 4u), vec4_at(at + 8u));
}

fn model_rows(c: u32, joint: u32) -> Rows {
    let at = p.model_at + (c * p.joint_stride + joint) * 3u;
    return Rows(poses[at], poses[at + 1u], poses[at + 2u]);
}

// Joint `joint` of character `c`, posed for `level`: its parent's model matrix (a root's:
// its folded ancestors) times its local matrix. A joint the level does not sample (without
// `lod`, level 0: a moving joint no clip animates) is posed at rest; its local pose in
// `poses` is not written (it may hold an older frame's, or nothing: verify reads the rest
// pose for it, and checks the model matrices made from it).
fn pose_joint(c: u32, joint: u32, level: u32) {
    var parent: Rows;
    if (joint < p.root_count) {
        parent = rig_rows(p.roots_at + joint * 12u);
    } else {
        parent = model_rows(c, data[p.parents_at + joint]);
    }
    var local: Pose;
    if (!is_sampled(level, joint)) {
        local = rest(joint);
    } else {
        let at = (c * p.joint_stride + joint) * 3u;
        local = Pose(poses[at], poses[at + 1u].xyz, poses[at + 2u].xyz);
    }
    let m = mul_rows(parent, pose_rows(local));
    let at = p.model_at + (c * p.joint_stride + joint) * 3u;
    poses[at] = m.r0;
    poses[at + 1u] = m.r1;
    poses[at + 2u] = m.r2;
}

// Without `lod`: one invocation per character walks every moving joint (the full mesh's
// set), parents first.
@compute @workgroup_size(WORKGROUP)
fn cs_hierarchy_walk(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = flat_index(id, groups);
    if (c >= p.characters) {
        return;
    }
    // Ascending: parents first.
    for (var k = 0u; k < p.moving_joints; k = k + 1u) {
        pose_joint(c, data[p.moving_joints_at + k], 0u);
    }
}

// With `lod`: one invocation per character of level `list_level`'s list walks the level's
// joints, parents first; the joints outside its set are not visited (no vertex the level
// draws follows them).
@compute @workgroup_size(WORKGROUP)
fn cs_hierarchy_walk_level(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = p.list_level;
    let i = flat_index(id, groups);
    if (i >= bitcast<u32>(poses[level_counts_at(l)].y)) {
        return;
    }
    let c = list_word(level_list_word(l) + i);
    let lists = p.level_lists_at + LEVEL_LIST_WORDS * l;
    let posed_at = data[lists + 4u];
    let posed = data[lists + 5u];
    for (var k = 0u; k < posed; k = k + 1u) {
        pose_joint(c, data[posed_at + k], l);
    }
}

@compute @workgroup_size(WORKGROUP)
fn cs_hierarchy_level(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // Over the due list with `lod` (the dispatch's arguments are `cs_level_args`'), over
    // every character otherwise.
    let it = item(flat_index(id, groups), p.level_count);
    if (!it.found) {
        return;
    }
    let joint = data[p.level_first + it.k];
    let level = posed_level(it.c);
    if (!is_posed(level, joint)) {
        return;
    }
    pose_joint(it.c, joint, level);
}

// The normal matrix: the 3x3's cofactor, signed by its determinant and scaled to norm √3
// (`simd::normal_3x4`), translation zero.
fn normal_rows(m: Rows) -> Rows {
    let a = vec3<f32>(m.r0.x, m.r1.x, m.r2.x);
    let b = vec3<f32>(m.r0.y, m.r1.y, m.r2.y);
    let c = vec3<f32>(m.r0.z, m.r1.z, m.r2.z);
    let n0 = cross(b, c);
    let n1 = cross(c, a);
    let n2 = cross(a, b);
    let det = dot(a, n0);
    let norm2 = dot(n0, n0) + dot(n1, n1) + dot(n2, n2) + 1.1754944e-38;
    var scale = sqrt(3.0) / sqrt(norm2);
    if (det < 0.0) {
        scale = -scale;
    }
    return Rows(
        vec4<f32>(n0.x, n1.x, n2.x, 0.0) * scale,
        vec4<f32>(n0.y, n1.y, n2.y, 0.0) * scale,
        vec4<f32>(n0.z, n1.z, n2.z, 0.0) * scale,
    );
}

// The unit dual quaternion of a rigid matrix (`simd::dual_quat_from_3x4`): the rotation by
// Shepperd's method (the largest of trace and diagonal picks the pivot), normalised; the
// dual part ½ (t, 0) ⊗ q.
fn dual_quat_rows(m: Rows) -> array<vec4<f32>, 2> {
    let m00 = m.r0.x;
    let m01 = m.r0.y;
    let m02 = m.r0.z;
    let m10 = m.r1.x;
    let m11 = m.r1.y;
    let m12 = m.r1.z;
    let m20 = m.r2.x;
    let m21 = m.r2.y;
    let m22 = m.r2.z;
    let trace = m00 + m11 + m22;
    var q: vec4<f32>;
    var key = trace;
    let root_w = sqrt(abs(1.0 + trace));
    q = vec4<f32>((m21 - m12), (m02 - m20), (m10 - m01), 0.0) * (0.5 / (root_w + 1.1754944e-38));
    q.w = root_w * 0.5;
    if (key < m00) {
        let root = sqrt(abs(1.0 + m00 - m11 - m22));
        let inv = 0.5 / (root + 1.1754944e-38);
        q = vec4<f32>(root * 0.5, (m01 + m10) * inv, (m02 + m20) * inv, (m21 - m12) * inv);
        key = m00;
    }
    if (key < m11) {
        let root = sqrt(abs(1.0 + m11 - m00 - m22));
        let inv = 0.5 / (root + 1.1754944e-38);
        q = vec4<f32>((m01 + m10) * inv, root * 0.5, (m12 + m21) * inv, (m02 - m20) * inv);
        key = m11;
    }
    if (key < m22) {
        let root = sqrt(abs(1.0 + m22 - m00 - m11));
        let inv = 0.5 / (root + 1.1754944e-38);
        q = vec4<f32>((m02 + m20) * inv, (m12 + m21) * inv, root * 0.5, (m10 - m01) * inv);
    }
    q = q / sqrt(dot(q, q));
    let t = vec3<f32>(m.r0.w, m.r1.w, m.r2.w);
    let dual = vec4<f32>(0.5 * (q.w * t + cross(t, q.xyz)), -0.5 * dot(t, q.xyz));
    return array<vec4<f32>, 2>(q, dual);
}

// Every character's every moving entry (the full mesh's joints). Without `lod`.
@compute @workgroup_size(WORKGROUP)
fn cs_palette(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let it = item(flat_index(id, groups), p.moving_entries);
    if (it.found) {
        write_entry(it.c, data[p.moving_entries_at + it.k]);
    }
}

// With `lod`: level `list_level`'s listed characters' entries of its joints.
@compute @workgroup_size(WORKGROUP)
fn cs_palette_level(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let it = level_item(flat_index(id, groups), true);
    if (it.found) {
        write_entry(it.c, it.item);
    }
}

// Palette entry `entry` of character `c`: its joint's model matrix times its inverse bind.
fn write_entry(c: u32, entry: u32) {
    let joint = data[p.entry_joints_at + entry];
    let m = mul_rows(model_rows(c, joint), rig_rows(p.binds_at + entry * 12u));
    let base = c * p.palette_stride;
    if (p.dual_quat != 0u) {
        let unscale = vec4<f32>(vec3<f32>(1.0 / p.dual_quat_scale), 1.0);
        let dq = dual_quat_rows(Rows(m.r0 * unscale, m.r1 * unscale, m.r2 * unscale));
        palettes[base + entry * 2u] = dq[0];
        palettes[base + entry * 2u + 1u] = dq[1];
        return;
    }
    palettes[base + entry * 3u] = m.r0;
    palettes[base + entry * 3u + 1u] = m.r1;
    palettes[base + entry * 3u + 2u] = m.r2;
    if (p.normal_offset != 0u) {
        let n = normal_rows(m);
        let at = base + p.normal_offset + entry * 3u;
        palettes[at] = n.r0;
        palettes[at + 1u] = n.r1;
        palettes[at + 2u] = n.r2;
    }
}
