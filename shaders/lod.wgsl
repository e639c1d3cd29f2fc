// Update-rate LOD and culling on the GPU (`--animate gpu --lod on`): one invocation per
// character decides whether the animation passes recompute it this frame, whether it is
// in view, and writes its draw argument's instance count (and appends it to its batch's
// run of visible characters, where the draws read a count). The rule, and its CPU twin in
// the same f32 arithmetic, are in `crowd::lod::per_character` (`decide`).
//
// The formats are `crowd::lod::formats`' Rust types, member for member (tests/contracts.rs
// checks each): the frame's parameters (`LodFrame`), each character's state
// (`CharacterLod`, four words of `state.words` after the counts), and the motions
// (`motions`): a `MotionSetHeader`, the lookup (per clip, or per clip and blend clip, the
// word where that motion's `MotionHeader` starts, or NO_MOTION), then each motion's header
// and its tables (times, travelled, speeds, grid). Headers are read from the words by
// name: `motion_set()`, `motion_header(at)`.

#import skinbench::record::Character
#import skinbench::constants::{
    DUE, FORCED, MESH_HYSTERESIS, MESH_LEVEL_MASK, MESH_LEVEL_SHIFT, MOTION_STILL,
    MOTION_REACH, MOTION_UNBOUNDED, NO_MOTION, NO_SLOT, PERIOD_MASK, PERIOD_SHIFT, RECORD_ANIMATE,
    RECORD_SKIN, RECORD_SKIN_LEVEL_SHIFT, RESKIN, SKIN_LEVEL_MASK, SKIN_LEVEL_SHIFT,
    STAT_AT_MESH_LEVEL, STAT_AT_PERIOD, STAT_COUNT, STAT_CULLED, STAT_FORCED,
    STAT_SKINNED_AT_LEVEL, STAT_UNBOUNDED, STAT_UNCHANGED, STAT_UPDATED, STATS_WORDS, UNBOUNDED,
    UNCHANGED, VISIBLE, WORKGROUP, CULL_PER_LEVEL, CULL_POOLED, UNSKINNED_LEVEL, POSED_LEVEL_MASK,
    POSED_LEVEL_SHIFT, RECORD_POSED_LEVEL_SHIFT,
}

struct LodFrame {
    planes: array<vec4<f32>, 6>,
    view_rows: array<vec4<f32>, 3>,
    world_rows: array<vec4<f32>, 3>,
    focal_px: f32,
    tan_x: f32,
    tan_y: f32,
    near: f32,
    scale: f32,
    threshold_px: f32,
    clock_secs: f32,
    frame_clip_secs: f32,
    frame: u32,
    max_period: u32,
    full: u32,
    characters: u32,
    cull: u32,
    // Where the draw slots start in `state.words`.
    slots_at: u32,
    // Levels of the mesh's chain (1: geometric LOD off), and per level (four a vector) its
    // error in model units, first index and index count.
    mesh_levels: u32,
    // The coarsest level skinned for a character (the shadow pass's level, where drawn).
    skin_level_cap: u32,
    mesh_errors: array<vec4<f32>, 2>,
    mesh_first_index: array<vec4<u32>, 2>,
    mesh_index_count: array<vec4<u32>, 2>,
    // The direction the sun's light travels, and w 1 where the shadow pass draws.
    shadow_dir: vec4<f32>,
};

struct CharacterLod {
    shown_secs: f32,
    shown_clips: u32,
    next_due: u32,
    flags: u32,
};

// Where a character's draw goes (`crowd::lod::formats::DrawSlot`), four words of
// `state.words` from `slots_at`. With per-level draws (`cull` CULL_PER_LEVEL) the words
// say where its batch's draws are: `count_word` is the instance count of the batch's
// level-0 argument (level l's is 5 l words on), `compact_word` the first word of the
// batch's level-0 list of characters, words of `draw_args` after the arguments (level
// l's is l `batch_len` words on): what the crowd's vertex shaders read as `instance_list`;
// `run_count_word` the instance count of the batch's shadow argument, whose list of the
// characters whose shadow may fall in the view lies `batch_len` words before the level-0
// list (0: none).
struct DrawSlot {
    count_word: u32,
    compact_word: u32,
    run_count_word: u32,
    batch_len: u32,
};

struct MotionSetHeader {
    clip_count: u32,
    blend: u32,
    lookup_at: u32,
    motions: u32,
};

struct MotionHeader {
    kind: u32,
    steps: u32,
    center_x: f32,
    center_y: f32,
    center_z: f32,
    radius: f32,
    duration_secs: f32,
    per_duration: f32,
    grid_per_sec: f32,
    partial_slack: f32,
    whole_loop: f32,
    grid_cells: u32,
    times_at: u32,
    travelled_at: u32,
    speeds_at: u32,
    grid_at: u32,
};

// `Character`, the animation's record (record.wgsl): this pass writes `due`.

// Counts for the panel (at the STAT_* places), then each character's `CharacterLod`, then
// each character's `DrawSlot`.
struct LodState {
    stats: array<atomic<u32>, STATS_WORDS>,
    words: array<u32>,
};

@group(0) @binding(0) var<uniform> f: LodFrame;
@group(0) @binding(1) var<storage, read> motions: array<u32>;
@group(0) @binding(2) var<storage, read_write> characters: array<Character>;
@group(0) @binding(3) var<storage, read_write> state: LodState;
// The draw arguments, then per batch of the main pass the count of its run (zeroed before
// the pass): atomic, since the runs are appended to from many invocations.
@group(0) @binding(4) var<storage, read_write> draw_args: array<atomic<u32>>;

fn draw_slot(c: u32) -> DrawSlot {
    let at = f.slots_at + 4u * c;
    return DrawSlot(state.words[at], state.words[at + 1u], state.words[at + 2u], state.words[at + 3u]);
}

var<workgroup> counts: array<atomic<u32>, STAT_COUNT>;

fn mf(at: u32) -> f32 {
    return bitcast<f32>(motions[at]);
}

// The structs below from their words, member by member in order (the Rust types write them
// with `contract::to_words`, so word k is member k).
fn motion_set() -> MotionSetHeader {
    return MotionSetHeader(motions[0], motions[1], motions[2], motions[3]);
}

fn motion_header(at: u32) -> MotionHeader {
    return MotionHeader(
        motions[at], motions[at + 1u], mf(at + 2u), mf(at + 3u), mf(at + 4u), mf(at + 5u),
        mf(at + 6u), mf(at + 7u), mf(at + 8u), mf(at + 9u), mf(at + 10u), motions[at + 11u],
        motions[at + 12u], motions[at + 13u], motions[at + 14u], motions[at + 15u],
    );
}

fn character_lod(c: u32) -> CharacterLod {
    let at = 4u * c;
    return CharacterLod(
        bitcast<f32>(state.words[at]), state.words[at + 1u], state.words[at + 2u], state.words[at + 3u],
    );
}

fn set_character_lod(c: u32, s: CharacterLod) {
    let at = 4u * c;
    state.words[at] = bitcast<u32>(s.shown_secs);
    state.words[at + 1u] = s.shown_clips;
    state.words[at + 2u] = s.next_due;
    state.words[at + 3u] = s.flags;
}

// The motion `clips` plays, or NO_MOTION (not measured).
fn motion_of(clips: u32) -> u32 {
    let head = motion_set();
    let clip = clips & 0xffffu;
    let blend = clips >> 16u;
    if (clip >= head.clip_count || (head.blend != 0u && blend >= head.clip_count)) {
        return NO_MOTION;
    }
    var entry = clip;
    if (head.blend != 0u) {
        entry = clip * head.clip_count + blend;
    }
    return motions[head.lookup_at + entry];
}

struct Located {
    loops: f32,
    step: u32,
    fraction: f32,
};

fn locate(m: MotionHeader, t: f32) -> Located {
    let last = m.steps;
    let loops = floor(t * m.per_duration);
    let in_loop = t - loops * m.duration_secs;
    let cell = min(u32(max(in_loop * m.grid_per_sec, 0.0)), m.grid_cells - 1u);
    let times = m.times_at;
    var step = min(motions[m.grid_at + cell], last - 1u);
    loop {
        if (!(step + 1u < last && mf(times + step + 1u) <= in_loop)) {
            break;
        }
        step = step + 1u;
    }
    let start = mf(times + step);
    let fraction = clamp((in_loop - start) / (mf(times + step + 1u) - start), 0.0, 1.0);
    return Located(loops, step, fraction);
}

fn part(m: MotionHeader, k: u32, fraction: f32) -> f32 {
    let times = m.times_at;
    let travelled = m.travelled_at;
    let speed = mf(m.speeds_at + k);
    if (fraction <= 0.0) {
        return 0.0;
    }
    if (speed < 0.0) {
        return mf(travelled + k + 1u) - mf(travelled + k);
    }
    return fraction * (mf(times + k + 1u) - mf(times + k)) * speed + m.partial_slack;
}

fn travel(m: MotionHeader, a: f32, b: f32) -> f32 {
    if (a == b || m.kind == MOTION_STILL) {
        return 0.0;
    }
    let lo = min(a, b);
    let hi = max(a, b);
    let s = locate(m, lo);
    let e = locate(m, hi);
    let travelled = m.travelled_at;
    var summed: f32;
    if (s.loops == e.loops && s.step == e.step) {
        summed = part(m, s.step, e.fraction - s.fraction);
    } else {
        summed = (e.loops - s.loops) * m.whole_loop + mf(travelled + e.step)
            + part(m, e.step, e.fraction)
            - mf(travelled + s.step + 1u)
            + part(m, s.step, 1.0 - s.fraction);
    }
    return min(max(summed, 0.0), 2.0 * m.radius);
}

// The motion's sphere's centre in the world for a character standing at `ground`.
fn world_center(m: MotionHeader, ground: vec2<f32>) -> vec3<f32> {
    let c = vec4<f32>(m.center_x, m.center_y, m.center_z, 1.0);
    return vec3<f32>(
        dot(f.world_rows[0], c) + ground.x,
        dot(f.world_rows[1], c),
        dot(f.world_rows[2], c) + ground.y,
    );
}

// Whether the sphere's shadow may fall in the view (`per_character::shadow_reaches_view`):
// the capsule from it along the light to where its lowest point's ray meets the ground
// lies outside no frustum plane entirely. Never without shadows.
fn shadow_reaches_view(center: vec3<f32>, radius: f32) -> bool {
    if (f.shadow_dir.w == 0.0) {
        return false;
    }
    let d = f.shadow_dir.xyz;
    var reach = 0.0;
    if (d.y < 0.0) {
        reach = max(center.y + radius, 0.0) / -d.y;
    }
    let end = center + d * reach;
    for (var k = 0u; k < 6u; k = k + 1u) {
        let p = f.planes[k];
        if (dot(p.xyz, center) + p.w < -radius && dot(p.xyz, end) + p.w < -radius) {
            return false;
        }
    }
    return true;
}

// Pixels per model unit of the motion's sphere; 0 outside the view.
fn pixels_per_unit(m: MotionHeader, ground: vec2<f32>) -> f32 {
    let center = world_center(m, ground);
    let radius = m.radius * f.scale;
    for (var k = 0u; k < 6u; k = k + 1u) {
        if (dot(f.planes[k].xyz, center) + f.planes[k].w < -radius) {
            return 0.0;
        }
    }
    let p = vec4<f32>(center, 1.0);
    let view = vec3<f32>(dot(f.view_rows[0], p), dot(f.view_rows[1], p), dot(f.view_rows[2], p));
    let depth = max(-view.z - radius, f.near);
    let a = min((abs(view.x) + radius) / depth, f.tan_x);
    let b = min((abs(view.y) + radius) / depth, f.tan_y);
    return f.scale * f.focal_px * sqrt(1.0 + a * a + b * b) / depth;
}

fn mesh_error(level: u32) -> f32 {
    return f.mesh_errors[level / 4u][level % 4u];
}

// The level of the mesh's chain a character takes (`crowd::lod::mesh`): the coarsest
// whose error, projected, stays under the threshold, coarser only under MESH_HYSTERESIS
// of it; the full mesh where no sphere holds its motion; its level kept out of view.
fn mesh_level(visible: bool, placed: bool, px: f32, previous_flags: u32) -> u32 {
    if (f.mesh_levels <= 1u || !placed) {
        return 0u;
    }
    let previous = min((previous_flags & MESH_LEVEL_MASK) >> MESH_LEVEL_SHIFT, f.mesh_levels - 1u);
    if (!visible || px == 0.0) {
        return previous;
    }
    var coarsest = 0u;
    var settled = 0u;
    for (var l = 1u; l < f.mesh_levels; l = l + 1u) {
        let e = mesh_error(l) * px;
        if (e <= f.threshold_px) {
            coarsest = l;
        }
        if (e <= f.threshold_px * MESH_HYSTERESIS) {
            settled = l;
        }
    }
    if (previous > coarsest) {
        return coarsest;
    }
    return max(previous, settled);
}

// The decision for character `c`; returns its flags.
fn decide(c: u32) -> u32 {
    let r = characters[c];
    let now = r.time_secs + r.speed * (f.clock_secs - r.since_secs);
    let at = motion_of(r.clips);
    var m: MotionHeader;
    if (at != NO_MOTION) {
        m = motion_header(at);
    }
    // Placed by a sphere around every pose: all but an unmeasured motion and a mesh that
    // is not finite. A cross-fade of two loops of different lengths is placed but has no
    // table of travel: it is recomputed every frame it is in view.
    let placed = at != NO_MOTION && m.kind != MOTION_UNBOUNDED;
    let unbounded = !placed || m.kind == MOTION_REACH;
    var visible = true;
    var px = 0.0;
    if (placed) {
        px = pixels_per_unit(m, r.ground);
        // A sphere in view always covers some pixels per unit.
        visible = px > 0.0;
    }
    var s = character_lod(c);
    let shown_secs = s.shown_secs;
    let shown_clips = s.shown_clips;
    let next_due = s.next_due;
    let keep_period = s.flags & PERIOD_MASK;
    let scheduled = f.full != 0u || f.frame >= next_due;
    let changed = r.clips != shown_clips;
    let level = mesh_level(visible, placed, px, s.flags);
    // The vertices skinned for it; a finer skin level needs what the coarser one skipped.
    // Out of view only the shadow pass draws it, at the shadows' level, and only where its
    // shadow may fall in the view; elsewhere nothing needs its vertices.
    var skin_level = min(level, f.skin_level_cap);
    if (!visible) {
        skin_level = UNSKINNED_LEVEL;
        if (placed && shadow_reaches_view(world_center(m, r.ground), m.radius * f.scale)) {
            skin_level = min(f.skin_level_cap, max(f.mesh_levels, 1u) - 1u);
        }
    }
    // The joints posed for it: its skin level's set (the coarsest where nothing draws it;
    // all of them in a full frame, which may draw at full detail). A pose that holds only a
    // coarser level's joints must be computed again.
    var posed_level = min(skin_level, max(f.mesh_levels, 1u) - 1u);
    if (f.full != 0u) {
        posed_level = 0u;
    }
    let held_level = (s.flags & POSED_LEVEL_MASK) >> POSED_LEVEL_SHIFT;
    let finer = posed_level < held_level;
    var forced = false;
    if (!scheduled) {
        if (changed || !placed) {
            forced = true;
        } else if (px > 0.0) {
            forced = unbounded || px * travel(m, shown_secs, now) > f.threshold_px;
        }
        forced = forced || finer;
    }
    let previous_skin_level = (s.flags & SKIN_LEVEL_MASK) >> SKIN_LEVEL_SHIFT;
    let reskin = skin_level < previous_skin_level;
    var flags = select(0u, VISIBLE, visible) | select(0u, UNBOUNDED, unbounded)
        | select(0u, RESKIN, reskin) | (level << MESH_LEVEL_SHIFT)
        | (skin_level << SKIN_LEVEL_SHIFT);
    let keep = keep_period | (s.flags & POSED_LEVEL_MASK);
    if (!(scheduled || forced)) {
        return flags | keep;
    }
    if (f.full == 0u && !changed && !finer && now == shown_secs) {
        return flags | UNCHANGED | keep;
    }
    var period = 1u;
    if (placed) {
        if (!visible) {
            period = f.max_period;
        } else if (!unbounded) {
            let per_frame = f.frame_clip_secs * r.speed;
            for (var p = 2u; p <= 8u; p = p * 2u) {
                if (p <= f.max_period) {
                    let later = now + f32(p - 1u) * per_frame;
                    if (!(px * travel(m, now, later) > f.threshold_px)) {
                        period = p;
                    }
                }
            }
        }
    }
    var wait = period;
    if (f.full != 0u) {
        wait = 1u + c % period;
    }
    s.shown_secs = now;
    s.shown_clips = r.clips;
    s.next_due = f.frame + wait;
    set_character_lod(c, s);
    flags = flags | DUE | select(0u, FORCED, forced) | (posed_level << POSED_LEVEL_SHIFT);
    return flags | (period << PERIOD_SHIFT);
}

// Per-level draws: character `c` listed in its batch at `level` where it is `visible` (the
// level's argument counts the instances), and in the shadow pass's list where it has
// vertices (`skin_level`): in view, or its shadow may fall in it.
fn list_character(c: u32, visible: bool, level: u32, skin_level: u32) {
    let d = draw_slot(c);
    if (d.count_word == NO_SLOT) {
        return;
    }
    if (visible && level < f.mesh_levels) {
        let k = atomicAdd(&draw_args[d.count_word + 5u * level], 1u);
        // Never past the list (it holds every character of the batch).
        if (k < d.batch_len) {
            atomicStore(&draw_args[d.compact_word + level * d.batch_len + k], c);
        }
    }
    if (skin_level != UNSKINNED_LEVEL && d.run_count_word != 0u) {
        let k = atomicAdd(&draw_args[d.run_count_word], 1u);
        if (k < d.batch_len) {
            atomicStore(&draw_args[d.compact_word - d.batch_len + k], c);
        }
    }
}

// Per-level draws of a skinned pool (`f.cull` CULL_POOLED), after the skinning pass gave
// out the pool's room: each character listed as `list_character` does, at the level its
// record says it was skinned at where that is coarser than the level this frame chose
// for it (the pool demoted it to the chain's last level: its vertices are that level's),
// and nowhere where the pool left it out.
@compute @workgroup_size(WORKGROUP)
fn cs_pool_lists(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let c = id.x + id.y * groups.x * WORKGROUP;
    if (c >= f.characters || f.cull != CULL_POOLED) {
        return;
    }
    let flags = state.words[4u * c + 3u];
    let skinned_at = characters[c].due >> RECORD_SKIN_LEVEL_SHIFT;
    if (skinned_at == UNSKINNED_LEVEL) {
        return;
    }
    let level = max((flags & MESH_LEVEL_MASK) >> MESH_LEVEL_SHIFT, skinned_at);
    // The shadow pass draws its level's triangles: a character held coarser has no
    // vertices for them, and casts no shadow this frame.
    var shadow_level = skinned_at;
    if (skinned_at > f.skin_level_cap) {
        shadow_level = UNSKINNED_LEVEL;
    }
    list_character(c, (flags & VISIBLE) != 0u, level, shadow_level);
}

@compute @workgroup_size(WORKGROUP)
fn cs_lod(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    if (local < STAT_COUNT) {
        atomicStore(&counts[local], 0u);
    }
    workgroupBarrier();
    let c = id.x + id.y * groups.x * WORKGROUP;
    if (c < f.characters) {
        let flags = decide(c);
        state.words[4u * c + 3u] = flags;
        let due = (flags & DUE) != 0u;
        let skin_level = (flags & SKIN_LEVEL_MASK) >> SKIN_LEVEL_SHIFT;
        // `CharacterLod::skinned`.
        let skinned = (flags & (DUE | RESKIN)) != 0u && skin_level != UNSKINNED_LEVEL;
        // `CharacterLod::record_due_word`.
        characters[c].due = select(0u, RECORD_ANIMATE, due) | select(0u, RECORD_SKIN, skinned)
            | (skin_level << RECORD_SKIN_LEVEL_SHIFT)
            | (((flags & POSED_LEVEL_MASK) >> POSED_LEVEL_SHIFT) << RECORD_POSED_LEVEL_SHIFT);
        if (skinned) {
            atomicAdd(&counts[STAT_SKINNED_AT_LEVEL + skin_level], 1u);
        }
        let level = (flags & MESH_LEVEL_MASK) >> MESH_LEVEL_SHIFT;
        if ((flags & VISIBLE) != 0u) {
            atomicAdd(&counts[STAT_AT_MESH_LEVEL + level], 1u);
            let period = (flags & PERIOD_MASK) >> PERIOD_SHIFT;
            // Periods 1, 2, 4, 8: counts 0 to 3.
            atomicAdd(&counts[STAT_AT_PERIOD + min(firstTrailingBit(max(period, 1u)), 3u)], 1u);
        } else {
            atomicAdd(&counts[STAT_CULLED], 1u);
        }
        if (due) {
            atomicAdd(&counts[STAT_UPDATED], 1u);
        }
        if ((flags & FORCED) != 0u) {
            atomicAdd(&counts[STAT_FORCED], 1u);
        }
        if ((flags & UNBOUNDED) != 0u) {
            atomicAdd(&counts[STAT_UNBOUNDED], 1u);
        }
        if ((flags & UNCHANGED) != 0u) {
            atomicAdd(&counts[STAT_UNCHANGED], 1u);
        }
        if (f.cull == CULL_PER_LEVEL) {
            list_character(c, (flags & VISIBLE) != 0u, level, skin_level);
        } else if (f.cull != 0u && f.cull != CULL_POOLED) {
            let d = draw_slot(c);
            let slot = d.count_word;
            if (slot != NO_SLOT) {
                let visible = (flags & VISIBLE) != 0u;
                atomicStore(&draw_args[slot], select(0u, 1u, visible));
                // The argument's index count and first index are the words around it.
                if (f.mesh_levels > 1u) {
                    atomicStore(&draw_args[slot - 1u], f.mesh_index_count[level / 4u][level % 4u]);
                    atomicStore(&draw_args[slot + 1u], f.mesh_first_index[level / 4u][level % 4u]);
                }
                // Appended to its batch's run: the same argument, drawn once. A count past
                // the run (never, for the renderer's slots) appends nothing.
                if (visible && d.batch_len != 0u) {
                    let k = atomicAdd(&draw_args[d.run_count_word], 1u);
                    if (k < d.batch_len) {
                        let out = d.compact_word + 5u * k;
                        atomicStore(&draw_args[out], atomicLoad(&draw_args[slot - 1u]));
                        atomicStore(&draw_args[out + 1u], 1u);
                        atomicStore(&draw_args[out + 2u], atomicLoad(&draw_args[slot + 1u]));
                        atomicStore(&draw_args[out + 3u], atomicLoad(&draw_args[slot + 2u]));
                        atomicStore(&draw_args[out + 4u], atomicLoad(&draw_args[slot + 3u]));
                    }
                }
            }
        }
    }
    workgroupBarrier();
    if (local < STAT_COUNT) {
        let n = atomicLoad(&counts[local]);
        if (n != 0u) {
            atomicAdd(&state.stats[local], n);
        }
    }
}
