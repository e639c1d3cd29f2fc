// GPU compute skinning (`gpu_compute`): every instance's vertices skinned once a frame
// into packed vertices (float3 position, unorm 10:10:10:2 normal: the `packed` CPU
// variant's format, drawn by the same vertex shader), read by every draw pass.
//
// Input is the prepared, influence-sorted mesh: vertices of one influence class are
// contiguous, with k joint indices per vertex and k weights (none for one influence,
// whose weight is 1). `cs_class` is specialised per class through the `INFLUENCES`
// override (one pipeline each, one dispatch per class, so the influence loop has a
// constant trip count and no branch on the class); `cs_all` is one shader for every
// class (one dispatch; each invocation finds its vertex's class first); `cs_level` skins
// only each listed character's level's vertices (`per_level`, below). The palettes are
// the CPU pipeline's 3x4 matrices (three row vec4s a joint), instance after instance,
// `palette_stride` vec4s apart; a rig with its own normal matrices keeps them
// `normal_offset` vec4s after its position matrices. With `dual_quat` set, each joint's
// entry is its dual quaternion instead (two vec4s), which serves the normal too. A
// character skinned for a coarse level blends only the heaviest influences the level
// keeps (`kept_by_level`; linear blending only). The blends are skinning.wgsl's, shared
// with `gpu_vertex`.
//
// One dispatch covers a range of instances (`id.y`): the renderer binds the palettes and
// the output of that range, so no binding exceeds the device's storage binding limit.

#import skinbench::constants::{
    FIT_WORDS, MAX_GROUPS, NO_POOL_BASE, POOL_NEED_UNIT, RECORD_SKIN, RECORD_SKIN_LEVEL_SHIFT,
    UNSKINNED_LEVEL, WORKGROUP,
}
#import skinbench::skinning::{
    dual_quat_add, dual_quat_finish, dual_quat_none, linear_add, linear_move, linear_none,
}

struct InfluenceClass {
    first_vertex: u32,
    count: u32,
    first_joint: u32,
    first_weight: u32,
};

struct ComputeSkinParams {
    classes: array<InfluenceClass, 8>,
    vertex_count: u32,
    // vec4s from one instance's palette to the next.
    palette_stride: u32,
    // vec4s from an instance's position matrices to its normal matrices (0: none of its own).
    normal_offset: u32,
    // vec4<u32> (packed vertices) from one instance's output to the next.
    output_stride: u32,
    // Instances in this dispatch's range.
    instances: u32,
    // 1: the palettes are dual quaternions (dual-quaternion skinning), 0: 3x4 matrices.
    dual_quat: u32,
    // The range's first instance, and 1 where only instances marked due are skinned (the
    // GPU's update-rate LOD: the others keep their vertices).
    first_instance: u32,
    lod: u32,
    // The uniform scale of every skinning matrix, taken out of the dual quaternions'
    // rotations and applied to the bind position (1 for rigid rigs and for 3x4 matrices).
    dual_quat_scale: f32,
    // `cs_level` only: the level's vertices (the length of its list), where its list of
    // sorted vertices starts in `influences`, where its slot's (range × levels + level)
    // list of characters starts in `work` and where the slot's room is there (its first
    // vertex in the pool, then the listed characters it holds).
    level_vertices: u32,
    level_first: u32,
    list_first: u32,
    fit_first: u32,
    // How many influences each vertex keeps where a character is skinned for level l of
    // the chain: four bits a level from the lowest (0: every one; `skin::level_kept`).
    // Dual quaternions keep every one.
    kept_by_level: u32,
    // `cs_level` only: the slot's level.
    level: u32,
    _pad_c: u32,
};

// What `cs_bucket` and `cs_args` read: the crowd's size and split, and whether the
// records say who is skinned at which level.
struct SkinBucketParams {
    characters: u32,
    // Characters per range: a character's range is its index / per_range.
    per_range: u32,
    // Levels of the mesh's chain (at least 1); slots are range × levels + level.
    levels: u32,
    // 1: the records' skin word decides (LOD on the GPU); 0: every character at level 0.
    lod: u32,
    // Ranges × levels.
    slots: u32,
    // 1: the output is a pool of `pool_vertices` vertices a character of a range, given
    // out each frame to every character with vertices; 0: a full slot each.
    pool: u32,
    pool_vertices: u32,
    _pad_c: u32,
};

@group(0) @binding(0) var<uniform> params: ComputeSkinParams;
// One array of words (four storage bindings in all, what every adapter offers): two vec4s
// a vertex (position, w = 1; normal, its w word the deepest level of the mesh's chain
// whose triangles use the vertex), then every joint index, then every weight's bits
// (`first_joint` and `first_weight` count words from the start).
@group(0) @binding(1) var<storage, read> influences: array<u32>;
// The animation's 32-byte records, eight words each, the last written by the GPU's LOD
// pass (`params.lod`; an unused word otherwise): whether the instance is skinned this
// frame, and the level of the mesh's chain whose vertices it needs.
@group(0) @binding(2) var<storage, read> records: array<u32>;
// The same records where the bucket dispatches bind them: `cs_demote` writes the level a
// demoted or left-out character is skinned at (`cs_bucket` and `cs_demote` bind this).
@group(0) @binding(2) var<storage, read_write> records_rw: array<u32>;

fn source(at: u32) -> vec4<f32> {
    let w = 4u * at;
    return bitcast<vec4<f32>>(
        vec4<u32>(influences[w], influences[w + 1u], influences[w + 2u], influences[w + 3u]),
    );
}

const NOT_SKINNED: u32 = 0xffffffffu;

// The level of the mesh's chain whose vertices are skinned for `instance` this frame (0:
// every vertex), or NOT_SKINNED where it keeps its vertices (LOD: not marked).
fn skin_level(instance: u32) -> u32 {
    if (params.lod == 0u) {
        return 0u;
    }
    let word = records[(params.first_instance + instance) * 8u + 7u];
    if ((word & RECORD_SKIN) == 0u) {
        return NOT_SKINNED;
    }
    return word >> RECORD_SKIN_LEVEL_SHIFT;
}

// Whether sorted vertex `v` is left as it is for `instance`: the instance is not skinned,
// or its level's triangles do not use the vertex (its deepest level is coarser).
fn skipped(instance: u32, v: u32) -> bool {
    return skin_level(instance) > influences[8u * v + 7u];
}
@group(0) @binding(3) var<storage, read> palettes: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<vec4<u32>>;

override fn skinbench::skinning::palette_row(at: u32) -> vec4<f32> {
    return palettes[at];
}

override INFLUENCES: u32 = 4u;

// The per-level dispatch (`per_level`): `cs_bucket` sorts the characters skinned this
// frame into one list per slot (range and level), `cs_args` turns each slot's count into
// the workgroups of an indirect dispatch, and `cs_level`, once per slot, skins each listed
// character's level's vertices: one invocation per vertex skinned, not per vertex of the
// mesh. The lists' order follows the atomics; what each character's vertices become does
// not depend on it.
//
// `work`: the slots' counts (`slots` words), then each slot's list of characters (their
// index within the range), `per_range` words apart, then each slot's room (FIT_WORDS
// words: its first vertex in the range's pool, the characters it holds, how many at the
// start of its list are left out, where its demoted characters went: `SlotFit`), then
// the frame's totals (pool vertices in use, characters left out, the vertices every
// listed character's level needs in POOL_NEED_UNITs, characters demoted).
@group(0) @binding(5) var<storage, read_write> work_atomic: array<atomic<u32>>;
// The slots' indirect dispatch arguments (three words each), then each level's vertex
// count (written once by the CPU).
@group(0) @binding(6) var<storage, read_write> args: array<u32>;
@group(0) @binding(7) var<uniform> bucket: SkinBucketParams;
// `work` again, read-only, for `cs_level`.
@group(0) @binding(8) var<storage, read> work: array<u32>;
// With a pool: each character's first vertex in its range's pool (the draws' base
// vertices), NO_POOL_BASE where it has none this frame.
@group(0) @binding(9) var<storage, read_write> draw_base: array<u32>;

fn fit_first(slot: u32) -> u32 {
    return bucket.slots + bucket.slots * bucket.per_range + FIT_WORDS * slot;
}

fn list_first(slot: u32) -> u32 {
    return bucket.slots + slot * bucket.per_range;
}

@compute @workgroup_size(WORKGROUP)
fn cs_bucket(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let character = id.x + id.y * groups.x * WORKGROUP;
    if (character >= bucket.characters) {
        return;
    }
    if (bucket.pool != 0u) {
        // Drawn by no pass unless the level dispatch gives it room.
        draw_base[character] = NO_POOL_BASE;
    }
    var level = 0u;
    if (bucket.lod != 0u) {
        let word = records_rw[character * 8u + 7u];
        // A pool lists every character with vertices this frame; otherwise only those
        // marked (the others keep their vertices).
        let skin_level = word >> RECORD_SKIN_LEVEL_SHIFT;
        if (select((word & RECORD_SKIN) == 0u, skin_level == UNSKINNED_LEVEL, bucket.pool != 0u)) {
            return;
        }
        level = min(skin_level, bucket.levels - 1u);
    }
    let range = character / bucket.per_range;
    let slot = range * bucket.levels + level;
    let at = atomicAdd(&work_atomic[slot], 1u);
    atomicStore(&work_atomic[list_first(slot) + at], character - range * bucket.per_range);
}

// Slot `slot`'s room: its first vertex, the characters it holds, how many at the start of
// its list are left out, where its demoted characters went (`SlotFit`); and its dispatch
// arguments for `vertices` vertices a character.
fn set_fit(slot: u32, fit: vec4<u32>, vertices: u32) {
    let at = fit_first(slot);
    for (var k = 0u; k < FIT_WORDS; k = k + 1u) {
        atomicStore(&work_atomic[at + k], fit[k]);
    }
    let workgroups = (fit.y * vertices + WORKGROUP - 1u) / WORKGROUP;
    // Rows of at most MAX_GROUPS, as even as they come: at most `rows - 1` workgroups
    // more than needed.
    let rows = max((workgroups + MAX_GROUPS - 1u) / MAX_GROUPS, 1u);
    args[3u * slot] = (workgroups + rows - 1u) / rows;
    args[3u * slot + 1u] = rows;
    args[3u * slot + 2u] = 1u;
}

// One invocation a range (`skin_levels::fit_slots` is its CPU twin). Without a pool every
// listed character is held where it is listed. With one, every listed character first
// gets room at the coarsest level, as many as the range's room holds (the rest are left
// out), then what is left lets the finest levels keep their characters, finest first; a
// character a level cannot keep is demoted: a candidate at the next coarser level, after
// that level's own (`cs_demote` moves it to the list of the level that holds it). The
// coarsest slot leaves out the first `skip` of its list: the farthest first.
@compute @workgroup_size(WORKGROUP)
fn cs_args(@builtin(global_invocation_id) id: vec3<u32>) {
    let range = id.x;
    if (range >= bucket.slots / bucket.levels) {
        return;
    }
    let first_slot = range * bucket.levels;
    let totals = fit_first(bucket.slots);
    let vertices_at = 3u * bucket.slots;
    var needed = 0u;
    var listed = 0u;
    for (var level = 0u; level < bucket.levels; level = level + 1u) {
        let count = atomicLoad(&work_atomic[first_slot + level]);
        let n = args[vertices_at + level];
        // In units, a level's vertices rounded up: no u32 overflows before the totals.
        needed = needed + count * ((n + POOL_NEED_UNIT - 1u) / POOL_NEED_UNIT);
        listed = listed + count;
    }
    if (needed != 0u) {
        atomicAdd(&work_atomic[totals + 2u], needed);
    }
    var used = 0u;
    if (bucket.pool == 0u) {
        for (var level = 0u; level < bucket.levels; level = level + 1u) {
            let count = atomicLoad(&work_atomic[first_slot + level]);
            let n = args[vertices_at + level];
            set_fit(first_slot + level, vec4<u32>(used, count, 0u, 0u), n);
            used = used + count * n;
        }
        return;
    }
    let live = min(bucket.per_range, bucket.characters - range * bucket.per_range);
    let room = live * bucket.pool_vertices;
    let coarsest = bucket.levels - 1u;
    let at_coarsest = args[vertices_at + coarsest];
    var held = listed;
    if (at_coarsest > 0u) {
        held = min(listed, room / at_coarsest);
    }
    // What is left once everyone held has the coarsest level's room (nothing where some
    // are left out: all are held at the coarsest level then).
    var spare = 0u;
    if (held == listed) {
        spare = room - held * at_coarsest;
    }
    // The characters still to be held, the finest levels' first; those a level cannot
    // keep are candidates at the next coarser one, after its own.
    var places = held;
    var moved = 0u;
    var demoted = 0u;
    for (var level = 0u; level < coarsest; level = level + 1u) {
        let own = atomicLoad(&work_atomic[first_slot + level]);
        let candidates = own + moved;
        let n = args[vertices_at + level];
        let extra = n - min(n, at_coarsest);
        var kept = min(candidates, places);
        if (extra > 0u) {
            kept = min(kept, spare / extra);
        }
        places = places - kept;
        spare = spare - kept * extra;
        set_fit(first_slot + level, vec4<u32>(used, kept, 0u, moved), n);
        used = used + kept * n;
        demoted = demoted + kept - min(kept, own);
        moved = candidates - kept;
    }
    let own = atomicLoad(&work_atomic[first_slot + coarsest]);
    let skip = own + moved - places;
    set_fit(first_slot + coarsest, vec4<u32>(used, places, skip, moved), at_coarsest);
    used = used + places * at_coarsest;
    if (used != 0u) {
        atomicAdd(&work_atomic[totals], used);
    }
    if (skip != 0u) {
        atomicAdd(&work_atomic[totals + 1u], skip);
    }
    // Demoted and held at the coarsest: the moved past the left-out.
    demoted = demoted + own + moved - max(skip, own);
    if (demoted != 0u) {
        atomicAdd(&work_atomic[totals + 3u], demoted);
    }
}

// Character `c` of `range` is skinned at `level` this frame (UNSKINNED_LEVEL: left out):
// its record says so to the draw lists (`cs_pool_lists` in lod.wgsl) and to verify.
fn mark_skinned_at(range: u32, c: u32, level: u32) {
    let at = (range * bucket.per_range + c) * 8u + 7u;
    let low = (1u << RECORD_SKIN_LEVEL_SHIFT) - 1u;
    records_rw[at] = (records_rw[at] & low) | (level << RECORD_SKIN_LEVEL_SHIFT);
}

// With a pool, one invocation per listed character of a range (dispatched as
// `cs_bucket`; the `t`th of the range's lists one after another): where `cs_args`'s rooms
// hold it. Its candidate place at its own level is its place in the list; past the
// level's kept, it is a candidate at the next coarser level, after that level's own. A
// demoted character's entry is written at its place in the list of the level that holds
// it (past that list's own entries, which no invocation moves), and every demoted or
// left-out character's record is marked with the level it is skinned at.
@compute @workgroup_size(WORKGROUP)
fn cs_demote(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = id.x + id.y * groups.x * WORKGROUP;
    if (i >= bucket.characters || bucket.pool == 0u) {
        return;
    }
    let range = i / bucket.per_range;
    let first_slot = range * bucket.levels;
    let coarsest = bucket.levels - 1u;
    // The `t`th listed character: its level and its place in that level's list.
    var t = i - range * bucket.per_range;
    var own_level = bucket.levels;
    for (var level = 0u; level < bucket.levels; level = level + 1u) {
        let own = atomicLoad(&work_atomic[first_slot + level]);
        if (t < own) {
            own_level = level;
            break;
        }
        t = t - own;
    }
    if (own_level == bucket.levels) {
        return;
    }
    let c = atomicLoad(&work_atomic[list_first(first_slot + own_level) + t]);
    var level = own_level;
    var place = t;
    loop {
        if (level == coarsest) {
            break;
        }
        let kept = atomicLoad(&work_atomic[fit_first(first_slot + level) + 1u]);
        if (place < kept) {
            break;
        }
        place = atomicLoad(&work_atomic[first_slot + level + 1u]) + place - kept;
        level = level + 1u;
    }
    if (level == coarsest && place < atomicLoad(&work_atomic[fit_first(first_slot + coarsest) + 2u])) {
        mark_skinned_at(range, c, UNSKINNED_LEVEL);
        return;
    }
    if (level != own_level) {
        atomicStore(&work_atomic[list_first(first_slot + level) + place], c);
        mark_skinned_at(range, c, level);
    }
}

// The direction as unorm 10:10:10:2 (`types::pack_normal`): q = round(511 c + 512) per
// unit component, in 1..=1023.
fn pack_normal(n: vec3<f32>) -> u32 {
    let scale = 511.0 / sqrt(max(dot(n, n), 1e-30));
    let q = vec3<u32>(clamp(round(n * scale + 512.0), vec3<f32>(1.0), vec3<f32>(1023.0)));
    return q.x | (q.y << 10u) | (q.z << 20u);
}

// How many of a `k`-influence vertex's influences a character skinned for `level` blends:
// its heaviest `kept_by_level` says (they come first), or every one.
fn kept_of(level: u32, k: u32) -> u32 {
    let kept = (params.kept_by_level >> (4u * min(level, 7u))) & 0xfu;
    return select(k, min(k, kept), kept != 0u);
}

// Skins sorted vertex `v` (its `k` joints from `first_joint`, weights from `first_weight`)
// for `instance` of the dispatch's range into output vertex `out`, blending its first `n`
// influences (`n < k`: the level's cut, the kept weights divided by their sum, in the
// order and precision of `Mesh::reduced_to`).
fn skin_vertex(instance: u32, v: u32, k: u32, n: u32, first_joint: u32, first_weight: u32, out: u32) {
    let base = instance * params.palette_stride;
    let position = source(2u * v).xyz;
    let normal = source(2u * v + 1u).xyz;
    var moved: skinbench::skinning::Skinned;
    // The cut has a loop of its own so that the full-detail loop below stays as it was,
    // without a division per influence; the branch is the same for a character's every
    // vertex of one class.
    if (n < k) {
        var kept = 0.0;
        for (var i = 0u; i < n; i = i + 1u) {
            kept = kept + bitcast<f32>(influences[first_weight + i]);
        }
        var blend = linear_none();
        for (var i = 0u; i < n; i = i + 1u) {
            let w = bitcast<f32>(influences[first_weight + i]) / kept;
            blend = linear_add(blend, w, base + influences[first_joint + i] * 3u, params.normal_offset);
        }
        moved = linear_move(blend, params.normal_offset, position, normal);
    } else if (params.dual_quat != 0u) {
        var blend = dual_quat_none(base + influences[first_joint] * 2u);
        for (var i = 0u; i < k; i = i + 1u) {
            let w = select(bitcast<f32>(influences[first_weight + i]), 1.0, k == 1u);
            blend = dual_quat_add(blend, w, base + influences[first_joint + i] * 2u);
        }
        moved = dual_quat_finish(blend, params.dual_quat_scale, position, normal);
    } else {
        var blend = linear_none();
        for (var i = 0u; i < k; i = i + 1u) {
            let w = select(bitcast<f32>(influences[first_weight + i]), 1.0, k == 1u);
            blend = linear_add(blend, w, base + influences[first_joint + i] * 3u, params.normal_offset);
        }
        moved = linear_move(blend, params.normal_offset, position, normal);
    }
    skinned[out] = vec4<u32>(bitcast<vec3<u32>>(moved.position), pack_normal(moved.normal));
}

// Where sorted vertex `v` of `instance` goes in a full slot a character.
fn full_slot(instance: u32, v: u32) -> u32 {
    return instance * params.output_stride + v;
}

// Skins sorted vertex `v` for `instance`, skinned for `level`, into output vertex `out`,
// finding its influence class first (the shaders that are not specialised per class).
fn skin_in_its_class(instance: u32, v: u32, level: u32, out: u32) {
    var k = 1u;
    for (var c = 0u; c < 7u; c = c + 1u) {
        if (v >= params.classes[c].first_vertex + params.classes[c].count) {
            k = c + 2u;
        }
    }
    let c = params.classes[k - 1u];
    let i = v - c.first_vertex;
    skin_vertex(
        instance,
        v,
        k,
        kept_of(level, k),
        c.first_joint + i * k,
        c.first_weight + i * k,
        out,
    );
}

@compute @workgroup_size(WORKGROUP)
fn cs_class(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = params.classes[INFLUENCES - 1u];
    if (id.x >= c.count || id.y >= params.instances || skipped(id.y, c.first_vertex + id.x)) {
        return;
    }
    skin_vertex(
        id.y,
        c.first_vertex + id.x,
        INFLUENCES,
        kept_of(skin_level(id.y), INFLUENCES),
        c.first_joint + id.x * INFLUENCES,
        c.first_weight + id.x * INFLUENCES,
        full_slot(id.y, c.first_vertex + id.x),
    );
}

@compute @workgroup_size(WORKGROUP)
fn cs_all(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    if (v >= params.vertex_count || id.y >= params.instances || skipped(id.y, v)) {
        return;
    }
    skin_in_its_class(id.y, v, skin_level(id.y), full_slot(id.y, v));
}

// One invocation of a level dispatch: the listed character (its index within the
// range), its place in the slot's list, the vertex's place in the level's order and the
// sorted vertex; `listed` is NO_POOL_BASE past the characters the slot's room holds.
struct LevelWork {
    instance: u32,
    listed: u32,
    at: u32,
    v: u32,
};

fn level_work(group: vec3<u32>, groups: vec3<u32>, lane: u32) -> LevelWork {
    let t = (group.y * groups.x + group.x) * WORKGROUP + lane;
    let n = params.level_vertices;
    var w: LevelWork;
    // The listed characters the slot's room holds (every one without a pool).
    if (t >= work[params.fit_first + 1u] * n) {
        w.listed = NO_POOL_BASE;
        return w;
    }
    w.listed = t / n;
    w.at = t - w.listed * n;
    // Past the entries the room left out (the coarsest slot's, with a pool).
    w.instance = work[params.list_first + work[params.fit_first + 2u] + w.listed];
    w.v = influences[params.level_first + w.at];
    return w;
}

@compute @workgroup_size(WORKGROUP)
fn cs_level(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let w = level_work(group, groups, lane);
    if (w.listed != NO_POOL_BASE) {
        skin_in_its_class(w.instance, w.v, params.level, full_slot(w.instance, w.v));
    }
}

// The same into a pool: the level's vertices, coarsest first, one character after
// another in the slot's room, and each character's first vertex for the draws.
@compute @workgroup_size(WORKGROUP)
fn cs_level_pool(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let w = level_work(group, groups, lane);
    if (w.listed == NO_POOL_BASE) {
        return;
    }
    let base = work[params.fit_first] + w.listed * params.level_vertices;
    if (w.at == 0u) {
        draw_base[params.first_instance + w.instance] = base;
    }
    skin_in_its_class(w.instance, w.v, params.level, base + w.at);
}
