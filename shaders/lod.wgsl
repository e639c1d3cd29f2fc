// Update-rate LOD and culling on the GPU (`--animate gpu --lod on`): one invocation per
// character decides whether the animation passes recompute it this frame, whether it is
// in view, and writes its draw argument's instance count. The rule, and its CPU twin in
// the same f32 arithmetic, are in `crowd::lod::per_character` (`decide`).
//
// The motions (`motions`): a head of four words (clip count, blend, where the lookup
// starts, motions), the lookup (per clip, or per clip and blend clip, the word where that
// motion's header starts, or NONE), then per motion a 16-word header (kind, steps, centre
// xyz, radius, duration, 1/duration, grid cells per second, slack, whole loop, grid
// cells, where its times, travelled, speeds and grid start) and those four arrays.

struct Frame {
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
    _pad1: u32,
    _pad2: u32,
};

// `Character`, the animation's record: record.wgsl, prepended; this pass writes `due`.

// Counts for the panel (at period 1, 2, 4, 8; culled, updated, forced, unbounded,
// unchanged), then four words per character (shown time, shown clips, next due, flags),
// then per character the word of its draw argument's instance count (or NONE).
struct LodState {
    stats: array<atomic<u32>, 16>,
    words: array<u32>,
};

@group(0) @binding(0) var<uniform> f: Frame;
@group(0) @binding(1) var<storage, read> motions: array<u32>;
@group(0) @binding(2) var<storage, read_write> characters: array<Character>;
@group(0) @binding(3) var<storage, read_write> state: LodState;
@group(0) @binding(4) var<storage, read_write> draw_args: array<u32>;

const NONE: u32 = 0xffffffffu;
const STILL: u32 = 0u;
const UNBOUNDED_KIND: u32 = 1u;
const VISIBLE: u32 = 1u;
const DUE: u32 = 2u;
const FORCED: u32 = 4u;
const UNBOUNDED: u32 = 8u;
const UNCHANGED: u32 = 16u;
const PERIOD_SHIFT: u32 = 8u;
const PERIOD_MASK: u32 = 0xff00u;
const WORKGROUP: u32 = 64u;
const STAT_COUNT: u32 = 9u;

var<workgroup> counts: array<atomic<u32>, 9>;

fn mf(at: u32) -> f32 {
    return bitcast<f32>(motions[at]);
}

fn motion_of(clips: u32) -> u32 {
    let clip_count = motions[0];
    let clip = clips & 0xffffu;
    let blend = clips >> 16u;
    if (clip >= clip_count || (motions[1] != 0u && blend >= clip_count)) {
        return NONE;
    }
    var entry = clip;
    if (motions[1] != 0u) {
        entry = clip * clip_count + blend;
    }
    return motions[motions[2] + entry];
}

struct Located {
    loops: f32,
    step: u32,
    fraction: f32,
};

fn locate(m: u32, t: f32) -> Located {
    let last = motions[m + 1u];
    let duration = mf(m + 6u);
    let loops = floor(t * mf(m + 7u));
    let in_loop = t - loops * duration;
    let grid_count = motions[m + 11u];
    let cell = min(u32(max(in_loop * mf(m + 8u), 0.0)), grid_count - 1u);
    let times = motions[m + 12u];
    let grid = motions[m + 15u];
    var step = min(motions[grid + cell], last - 1u);
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

fn part(m: u32, k: u32, fraction: f32) -> f32 {
    let times = motions[m + 12u];
    let travelled = motions[m + 13u];
    let speed = mf(motions[m + 14u] + k);
    if (fraction <= 0.0) {
        return 0.0;
    }
    if (speed < 0.0) {
        return mf(travelled + k + 1u) - mf(travelled + k);
    }
    return fraction * (mf(times + k + 1u) - mf(times + k)) * speed + mf(m + 9u);
}

fn travel(m: u32, a: f32, b: f32) -> f32 {
    if (a == b || motions[m] == STILL) {
        return 0.0;
    }
    let lo = min(a, b);
    let hi = max(a, b);
    let s = locate(m, lo);
    let e = locate(m, hi);
    let travelled = motions[m + 13u];
    var summed: f32;
    if (s.loops == e.loops && s.step == e.step) {
        summed = part(m, s.step, e.fraction - s.fraction);
    } else {
        summed = (e.loops - s.loops) * mf(m + 10u) + mf(travelled + e.step)
            + part(m, e.step, e.fraction)
            - mf(travelled + s.step + 1u)
            + part(m, s.step, 1.0 - s.fraction);
    }
    return min(max(summed, 0.0), 2.0 * mf(m + 5u));
}

// Pixels per model unit of the motion's sphere; 0 outside the view.
fn pixels_per_unit(m: u32, ground: vec2<f32>) -> f32 {
    let c = vec4<f32>(mf(m + 2u), mf(m + 3u), mf(m + 4u), 1.0);
    let center = vec3<f32>(
        dot(f.world_rows[0], c) + ground.x,
        dot(f.world_rows[1], c),
        dot(f.world_rows[2], c) + ground.y,
    );
    let radius = mf(m + 5u) * f.scale;
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

// The decision for character `c`; returns its flags.
fn decide(c: u32) -> u32 {
    let r = characters[c];
    let now = r.time_secs + r.speed * (f.clock_secs - r.since_secs);
    let m = motion_of(r.clips);
    let unbounded = m == NONE || motions[m] == UNBOUNDED_KIND;
    var visible = true;
    var px = 0.0;
    if (!unbounded) {
        px = pixels_per_unit(m, r.ground);
        // A sphere in view always covers some pixels per unit.
        visible = px > 0.0;
    }
    let at = 4u * c;
    let shown_secs = bitcast<f32>(state.words[at]);
    let shown_clips = state.words[at + 1u];
    let next_due = state.words[at + 2u];
    let keep_period = state.words[at + 3u] & PERIOD_MASK;
    let scheduled = f.full != 0u || f.frame >= next_due;
    let changed = r.clips != shown_clips;
    var forced = false;
    if (!scheduled) {
        if (changed || unbounded) {
            forced = true;
        } else if (px > 0.0) {
            forced = px * travel(m, shown_secs, now) > f.threshold_px;
        }
    }
    var flags = select(0u, VISIBLE, visible) | select(0u, UNBOUNDED, unbounded);
    if (!(scheduled || forced)) {
        return flags | keep_period;
    }
    if (f.full == 0u && !changed && now == shown_secs) {
        return flags | UNCHANGED | keep_period;
    }
    var period = 1u;
    if (!unbounded) {
        if (!visible) {
            period = f.max_period;
        } else {
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
    state.words[at] = bitcast<u32>(now);
    state.words[at + 1u] = r.clips;
    state.words[at + 2u] = f.frame + wait;
    flags = flags | DUE | select(0u, FORCED, forced);
    return flags | (period << PERIOD_SHIFT);
}

@compute @workgroup_size(64)
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
        characters[c].due = select(0u, 1u, due);
        if ((flags & VISIBLE) != 0u) {
            let period = (flags & PERIOD_MASK) >> PERIOD_SHIFT;
            // Periods 1, 2, 4, 8: counts 0 to 3.
            atomicAdd(&counts[min(firstTrailingBit(max(period, 1u)), 3u)], 1u);
        } else {
            atomicAdd(&counts[4], 1u);
        }
        if (due) {
            atomicAdd(&counts[5], 1u);
        }
        if ((flags & FORCED) != 0u) {
            atomicAdd(&counts[6], 1u);
        }
        if ((flags & UNBOUNDED) != 0u) {
            atomicAdd(&counts[7], 1u);
        }
        if ((flags & UNCHANGED) != 0u) {
            atomicAdd(&counts[8], 1u);
        }
        if (f.cull != 0u) {
            let slot = state.words[f.slots_at + c];
            if (slot != NONE) {
                draw_args[slot] = select(0u, 1u, (flags & VISIBLE) != 0u);
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
