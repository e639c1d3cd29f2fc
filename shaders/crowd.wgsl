// The crowd: skinned characters and the ground they stand on.
//
// `vs_skinned` serves the interleaved layout and `vs_split` the split float3 and float4
// ones (their uv from storage): the pipelines differ only in their vertex buffer layouts,
// and a vec3 input reads the first three components of a float4 attribute. `vs_packed` decodes the
// packed normal (also for lane blocks, which are the packed vertex at a 128-byte stride);
// `vs_pulled` fetches the packed vertex itself from a storage buffer; `vs_gpu_skinned`
// skins the static mesh with the instance's palette. The fragment shader lights with
// a sun and a sky/ground hemisphere; it draws the file's base colour (its texture through
// the uv, times its factor), or a tint modulated by a checker pattern in UV space, so a
// wrong or missing unskinned (uv) stream shows at once.

#import skinbench::constants::{BLOCK_SLOT, LANES, NO_POOL_BASE}
#import skinbench::skinning::{
    dual_quat_add, dual_quat_finish, dual_quat_none, linear_add, linear_move, linear_none,
}

struct Camera {
    view_proj: mat4x4<f32>,
    // The sun's view and orthographic projection: world → shadow-map clip space.
    light_view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    // Direction the light travels (from the sun towards the scene).
    light_dir: vec4<f32>,
    // x: ground half-extent in metres; y: 1 with shadows on, 0 off.
    ground: vec4<f32>,
};

// The shadow pass draws the characters with the same vertex shaders into the sun's depth
// map: the pipelines differ only in this constant (and have no fragment stage).
override SHADOW_PASS: bool = false;

struct InstanceData {
    world_from_model: mat4x4<f32>,
    color: vec4<f32>,
};

@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<storage, read> instances: array<InstanceData>;
// The paths drawn with a base vertex per instance (one vertex buffer binding for many
// characters) read the static uv stream here: as vertex slot 1 it would be offset by the
// base vertex too. `vertex_index - vertex_base[instance]` is the mesh's own vertex.
@group(0) @binding(2) var<storage, read> vertex_base: array<u32>;
@group(0) @binding(3) var<storage, read> static_uv: array<vec2<f32>>;

// Per-level draws (`gpu::draws::Draws::PerLevel`): one instanced draw per batch and level,
// whose instances are the characters the LOD pass listed for it. An instance's index is
// its place in these lists; the word there names the character. Only the `_listed` entry
// points read it (their group 0 has it where the others have the uv stream).
@group(0) @binding(4) var<storage, read> instance_list: array<u32>;

fn stored_uv(vertex: u32, instance: u32) -> vec2<f32> {
    return static_uv[vertex - vertex_base[instance]];
}

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) color: vec3<f32>,
    @location(3) world: vec3<f32>,
};

@vertex
fn vs_skinned(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @builtin(instance_index) instance: u32,
) -> VsOut {
    return place(position, normal, uv, instance);
}

// Split float3 and float4: the uv stream from storage.
@vertex
fn vs_split(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) instance: u32,
) -> VsOut {
    return place(position, normal, stored_uv(vertex, instance), instance);
}

// The `packed` layout: the normal arrives as unorm 10:10:10:2, q / 1023 per component;
// the encoder stored q = round(511 c + 512), so c = (q - 512) / 511. The CPU packs it at
// a fixed scale, not normalised (linear blending shortens normals), so it is normalised
// here: the rasteriser then interpolates directions, not lengths.
fn unit_normal(c: vec3<f32>) -> vec3<f32> {
    return c * inverseSqrt(max(dot(c, c), 1e-30));
}

@vertex
fn vs_packed(
    @location(0) position: vec3<f32>,
    @location(1) packed_normal: vec4<f32>,
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) instance: u32,
) -> VsOut {
    let normal = unit_normal((packed_normal.xyz * 1023.0 - 512.0) / 511.0);
    return place(position, normal, stored_uv(vertex, instance), instance);
}

// A storage binding that holds a chunk of the crowd: `instances` instances, one unit
// (a group of lane blocks, an instance's palette) every `stride_vec4s` vec4s. Chunks start
// at multiples of `instances`, so `instance_index % instances` is the instance's place in
// its chunk: one binding serves an instanced draw of many characters.
struct Chunk {
    instances: u32,
    stride_vec4s: u32,
    _pad0: u32,
    _pad1: u32,
};

// The `pulled` layout: only distinct vertices are stored, as lane blocks (vertex d of a
// group's eight instances in 128 bytes, one vec4<u32> each: position bits, normal bits).
// This binding is a chunk of groups' blocks; each vertex brings the index of its distinct
// vertex, the instance's group in the chunk picks the blocks, and its lane its slot in the
// block, in the order the CPU's transpose left them (`LANES` and `BLOCK_SLOT` come from the
// Rust lane layout, `types::block_slot`).
@group(1) @binding(0) var<storage, read> group_blocks: array<vec4<u32>>;
@group(1) @binding(1) var<uniform> blocks_chunk: Chunk;

@vertex
fn vs_pulled(
    @location(2) uv: vec2<f32>,
    @location(3) distinct_vertex: u32,
    @builtin(instance_index) instance: u32,
) -> VsOut {
    var slots = BLOCK_SLOT;
    let group = (instance % blocks_chunk.instances) / LANES;
    let v = group_blocks[group * blocks_chunk.stride_vec4s + distinct_vertex * LANES
        + slots[instance % LANES]];
    let q = vec3<f32>(vec3<u32>(v.w & 0x3ffu, (v.w >> 10u) & 0x3ffu, (v.w >> 20u) & 0x3ffu));
    return place(bitcast<vec3<f32>>(v.xyz), unit_normal((q - 512.0) / 511.0), uv, instance);
}

// `gpu_vertex`: the vertex shader skins. The mesh arrives as it is in the file (position,
// normal, up to eight joints and weights in two sets of four, unused ones weighing 0); this
// binding is a chunk of instances' palettes, each: three row vec4s a joint, the normal
// matrices `normal_offset` vec4s after the position matrices where the rig has its own;
// or, with dual quaternions, two vec4s a joint. The blends are skinning.wgsl's, shared
// with `gpu_compute`.
struct VertexSkinParams {
    normal_offset: u32,
    // 1: the palette holds dual quaternions (two vec4s a joint, `dual_quat_move`).
    dual_quat: u32,
    // The most influences a vertex has (the second set is read only above four).
    influences: u32,
    // The uniform scale of every skinning matrix, taken out of the dual quaternions'
    // rotations and applied to the bind position (1 for rigid rigs).
    dual_quat_scale: f32,
};
@group(1) @binding(0) var<storage, read> palette: array<vec4<f32>>;
@group(1) @binding(1) var<uniform> skin_params: VertexSkinParams;
@group(1) @binding(2) var<uniform> palette_chunk: Chunk;

override fn skinbench::skinning::palette_row(at: u32) -> vec4<f32> {
    return palette[at];
}

struct SkinMeshIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(4) joints_lo: vec4<u32>,
    @location(5) weights_lo: vec4<f32>,
    @location(6) joints_hi: vec4<u32>,
    @location(7) weights_hi: vec4<f32>,
};

@vertex
fn vs_gpu_skinned(v: SkinMeshIn, @builtin(instance_index) instance: u32) -> VsOut {
    return skin_in_vertex_shader(v, instance);
}

// The same, drawn per level: the instance's character from the lists.
@vertex
fn vs_gpu_skinned_listed(v: SkinMeshIn, @builtin(instance_index) instance: u32) -> VsOut {
    return skin_in_vertex_shader(v, instance_list[instance]);
}

fn skin_in_vertex_shader(v: SkinMeshIn, instance: u32) -> VsOut {
    let position = v.position;
    let normal = v.normal;
    let uv = v.uv;
    let joints_lo = v.joints_lo;
    let weights_lo = v.weights_lo;
    let joints_hi = v.joints_hi;
    let weights_hi = v.weights_hi;
    let count = select(4u, 8u, skin_params.influences > 4u);
    let base = (instance % palette_chunk.instances) * palette_chunk.stride_vec4s;
    if (skin_params.dual_quat != 0u) {
        var blend = dual_quat_none(base + joints_lo[0] * 2u);
        for (var i = 0u; i < count; i = i + 1u) {
            let j = select(joints_hi[i % 4u], joints_lo[i % 4u], i < 4u);
            let weight = select(weights_hi[i % 4u], weights_lo[i % 4u], i < 4u);
            blend = dual_quat_add(blend, weight, base + j * 2u);
        }
        let moved = dual_quat_finish(blend, skin_params.dual_quat_scale, position, normal);
        return place(moved.position, normalize(moved.normal), uv, instance);
    }
    var blend = linear_none();
    for (var i = 0u; i < count; i = i + 1u) {
        let j = select(joints_hi[i % 4u], joints_lo[i % 4u], i < 4u);
        let w = select(weights_hi[i % 4u], weights_lo[i % 4u], i < 4u);
        // A vertex's weights come heaviest first and zeros last (`rig::Mesh`), and a
        // level's cut zeroes its tail: the first zero ends what the vertex blends, so a
        // coarse level reads only the palette rows it keeps. Adding a zero weight would
        // change nothing.
        if (w == 0.0) {
            break;
        }
        blend = linear_add(blend, w, base + j * 3u, skin_params.normal_offset);
    }
    // The direction only, as the packed paths store it: a normal matrix that scales
    // unevenly gives each vertex's normal another length, and interpolating those would
    // weigh the vertices unevenly across a triangle.
    let moved = linear_move(blend, skin_params.normal_offset, position, normal);
    return place(
        moved.position,
        moved.normal * inverseSqrt(max(dot(moved.normal, moved.normal), 1e-30)),
        uv,
        instance,
    );
}

// `gpu_compute` drawn per level: its output (packed vertices, one character's after
// another in a range's buffer) read from storage, since one instanced draw covers many
// characters and a vertex buffer cannot step by character. `vertex_base[c]` is where the
// character's vertices start in the bound range; drawn with base vertex 0, `vertex` is
// the mesh's own vertex (its uv from vertex slot 0).
@group(1) @binding(0) var<storage, read> pool: array<vec4<u32>>;

@vertex
fn vs_pool_listed(
    @location(2) uv: vec2<f32>,
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) instance_index: u32,
) -> VsOut {
    let instance = instance_list[instance_index];
    return place_pooled(pool[vertex_base[instance] + vertex], uv, instance);
}

// A packed vertex read from storage (float3 position, unorm 10:10:10:2 normal), placed.
fn place_pooled(v: vec4<u32>, uv: vec2<f32>, instance: u32) -> VsOut {
    let q = vec3<f32>(vec3<u32>(v.w & 0x3ffu, (v.w >> 10u) & 0x3ffu, (v.w >> 20u) & 0x3ffu));
    return place(bitcast<vec3<f32>>(v.xyz), unit_normal((q - 512.0) / 511.0), uv, instance);
}

// `gpu_compute` skinned into a pool (`--skinned-pool`): a character's vertices are its
// skin level's, in the order that puts every coarser level's first, from
// `vertex_base[c]`, which the skinning pass wrote this frame (NO_POOL_BASE where the pool
// did not hold the character: clipped whole). `rank` is the vertex's place in that
// order, the same whatever the character's level, so every level's triangles at or
// coarser than its skin level read its slot.
@vertex
fn vs_pool_slots(
    @location(2) uv: vec2<f32>,
    @location(3) rank: u32,
    @builtin(instance_index) instance_index: u32,
) -> VsOut {
    let instance = instance_list[instance_index];
    let base = vertex_base[instance];
    if (base == NO_POOL_BASE) {
        var out: VsOut;
        // Behind the near plane: every vertex of the triangle, so it is clipped whole.
        out.clip = vec4<f32>(0.0, 0.0, -1.0, 1.0);
        return out;
    }
    return place_pooled(pool[base + rank], uv, instance);
}

fn place(position: vec3<f32>, normal: vec3<f32>, uv: vec2<f32>, instance: u32) -> VsOut {
    let data = instances[instance];
    let world = data.world_from_model * vec4<f32>(position, 1.0);
    var out: VsOut;
    if (SHADOW_PASS) {
        out.clip = camera.light_view_proj * world;
    } else {
        out.clip = camera.view_proj * world;
    }
    out.normal = (data.world_from_model * vec4<f32>(normal, 0.0)).xyz;
    out.uv = uv;
    out.color = data.color.rgb;
    out.world = world.xyz;
    return out;
}

// The sun's depth map, drawn by the shadow pass this frame (main passes only).
@group(2) @binding(0) var shadow_map: texture_depth_2d;
@group(2) @binding(1) var shadow_sampler: sampler_comparison;

// How much of the sun reaches `world`: 1 lit, 0 in shadow, a 3x3 percentage-closer filter
// in between; 1 with shadows off and outside the map.
fn sunlight(world: vec3<f32>) -> f32 {
    if (camera.ground.y == 0.0) {
        return 1.0;
    }
    let clip = camera.light_view_proj * vec4<f32>(world, 1.0);
    let ndc = clip.xyz / clip.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0) {
        return 1.0;
    }
    let texel = 1.0 / vec2<f32>(textureDimensions(shadow_map));
    var lit = 0.0;
    for (var y = -1; y <= 1; y = y + 1) {
        for (var x = -1; x <= 1; x = x + 1) {
            let at = uv + vec2<f32>(f32(x), f32(y)) * texel;
            lit = lit + textureSampleCompareLevel(shadow_map, shadow_sampler, at, ndc.z - 0.0015);
        }
    }
    return lit / 9.0;
}

fn shade(base: vec3<f32>, normal: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    let n = normalize(normal);
    let sun = max(dot(n, -camera.light_dir.xyz), 0.0) * sunlight(world);
    let sky = mix(vec3<f32>(0.28, 0.24, 0.22), vec3<f32>(0.55, 0.62, 0.75), n.y * 0.5 + 0.5);
    return base * (sun * vec3<f32>(1.0, 0.95, 0.85) * 0.85 + sky * 0.55);
}

fn to_display(linear: vec3<f32>) -> vec4<f32> {
    // The swapchain is a UNORM format: encode gamma here.
    return vec4<f32>(pow(clamp(linear, vec3<f32>(0.0), vec3<f32>(1.0)), vec3<f32>(1.0 / 2.2)), 1.0);
}

// The character's base colours (group 2 with the sun's map). The uv carries the material
// (`prepare::MaterialUv`): material m's u is moved by m slots of `stride_u` from
// `origin_u`, so one material moves nothing.
struct MaterialParams {
    origin_u: f32,
    stride_u: f32,
    // Materials the uv slots hold (the table has at least as many).
    materials: u32,
    // 1: the file's base colours; 0: the tints with the checker.
    file_colors: u32,
};

struct Material {
    // Linear RGBA, times the texture where there is one.
    base_color_factor: vec4<f32>,
    // The texture array's layer, -1 for the factor alone.
    layer: i32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};

@group(2) @binding(2) var<uniform> material_params: MaterialParams;
@group(2) @binding(3) var<storage, read> materials: array<Material>;
@group(2) @binding(4) var base_color_images: texture_2d_array<f32>;
@group(2) @binding(5) var base_color_sampler: sampler;

@fragment
fn fs_skinned(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var n = in.normal;
    if (!front) {
        n = -n;
    }
    // The slot offset is constant over a triangle, so the moved uv's derivatives are the
    // file uv's: the mip level is chosen from them, unaffected by the slot.
    let uv_dx = dpdx(in.uv);
    let uv_dy = dpdy(in.uv);
    let p = material_params;
    let slot = clamp(floor((in.uv.x - p.origin_u) / p.stride_u), 0.0, f32(max(p.materials, 1u) - 1u));
    let uv = vec2<f32>(in.uv.x - slot * p.stride_u, in.uv.y);
    if (p.file_colors != 0u) {
        let material = materials[u32(slot)];
        var base = material.base_color_factor.rgb;
        if (material.layer >= 0) {
            base = base * textureSampleGrad(
                base_color_images, base_color_sampler, uv, material.layer, uv_dx, uv_dy,
            ).rgb;
        }
        return to_display(shade(base, n, in.world));
    }
    // 8 x 8 checks per UV unit, with thin seams: the UV layout is visible on every part.
    let cell = floor(uv * 8.0);
    let checker = (i32(cell.x) + i32(cell.y)) & 1;
    let f = fract(uv * 8.0);
    let seam = min(min(f.x, 1.0 - f.x), min(f.y, 1.0 - f.y));
    var pattern = select(0.62, 1.0, checker == 1);
    if (seam < 0.04) {
        pattern = pattern * 0.7;
    }
    return to_display(shade(in.color * pattern, n, in.world));
}

// The ground: one quad generated in the vertex shader, with a 1 m grid.
struct GroundOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
};

@vertex
fn vs_ground(@builtin(vertex_index) index: u32) -> GroundOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let c = corners[index] * camera.ground.x;
    let world = vec3<f32>(c.x, 0.0, c.y);
    var out: GroundOut;
    out.clip = camera.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    return out;
}

@fragment
fn fs_ground(in: GroundOut) -> @location(0) vec4<f32> {
    let g = abs(fract(in.world.xz + 0.5) - 0.5);
    let line = select(0.0, 1.0, min(g.x, g.y) < 0.02);
    let fade = clamp(1.0 - length(in.world.xz) / camera.ground.x, 0.0, 1.0);
    let base = mix(vec3<f32>(0.30, 0.32, 0.30), vec3<f32>(0.22, 0.24, 0.22), line * fade);
    return to_display(shade(base, vec3<f32>(0.0, 1.0, 0.0), in.world));
}
