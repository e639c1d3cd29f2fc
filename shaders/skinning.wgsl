// The blends the two GPU skinning paths share: `gpu_compute` (skin.wgsl, a compute pass)
// and `gpu_vertex` (crowd.wgsl, the vertex shader). Each reads its palette from its own
// binding, so each overrides `palette_row`; each finds a vertex's joints and weights in its
// own way, so each runs its own loop over them and adds every influence here.
#define_import_path skinbench::skinning

#import skinbench::dual_quat::dual_quat_move


// The weighted sum of a vertex's 3x4 palette matrices (three row vec4s a joint: the rows
// that give x, y and z) and of their normal matrices, so far. (Names that end in a digit
// would be renamed by naga in an imported module.)
struct LinearBlend {
    x_row: vec4<f32>,
    y_row: vec4<f32>,
    z_row: vec4<f32>,
    normal_x_row: vec4<f32>,
    normal_y_row: vec4<f32>,
    normal_z_row: vec4<f32>,
};

struct Skinned {
    position: vec3<f32>,
    normal: vec3<f32>,
};
virtual fn palette_row(at: u32) -> vec4<f32> {
    // Row `at` of the bound palettes (vec4s from their start): the importing shader
    // overrides this with a read of its palette binding. (The comment is inside, and a
    // declaration comes before: naga_oil moves a `virtual fn` onto the line before it.)
    return vec4<f32>(0.0);
}

fn linear_none() -> LinearBlend {
    return LinearBlend(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
}

// `b` plus the influence of weight `w` whose matrix starts at row `at`; its normal matrix
// is `normal_offset` rows later (0: the rig has none of its own, the position matrix serves
// and the normal rows are filled in by `linear_move`).
fn linear_add(b: LinearBlend, w: f32, at: u32, normal_offset: u32) -> LinearBlend {
    var out = b;
    out.x_row = b.x_row + w * palette_row(at);
    out.y_row = b.y_row + w * palette_row(at + 1u);
    out.z_row = b.z_row + w * palette_row(at + 2u);
    if (normal_offset != 0u) {
        let nat = at + normal_offset;
        out.normal_x_row = b.normal_x_row + w * palette_row(nat);
        out.normal_y_row = b.normal_y_row + w * palette_row(nat + 1u);
        out.normal_z_row = b.normal_z_row + w * palette_row(nat + 2u);
    }
    return out;
}

// The vertex moved by the blended matrices (the normal not normalised).
fn linear_move(b: LinearBlend, normal_offset: u32, position: vec3<f32>, normal: vec3<f32>) -> Skinned {
    var normal_x_row = b.normal_x_row;
    var normal_y_row = b.normal_y_row;
    var normal_z_row = b.normal_z_row;
    if (normal_offset == 0u) {
        normal_x_row = b.x_row;
        normal_y_row = b.y_row;
        normal_z_row = b.z_row;
    }
    let p = vec4<f32>(position, 1.0);
    let n = vec4<f32>(normal, 0.0);
    return Skinned(
        vec3<f32>(dot(b.x_row, p), dot(b.y_row, p), dot(b.z_row, p)),
        vec3<f32>(dot(normal_x_row, n), dot(normal_y_row, n), dot(normal_z_row, n)),
    );
}

// The weighted sum of a vertex's dual quaternions (two rows a joint: rotation, dual part),
// each weight negated where its rotation points away from the first influence's
// (`pivot`: antipodality, Kavan et al. 2008).
struct DualQuatBlend {
    real: vec4<f32>,
    dual: vec4<f32>,
    pivot: vec4<f32>,
};

// An empty blend whose first influence's dual quaternion starts at row `first`.
fn dual_quat_none(first: u32) -> DualQuatBlend {
    return DualQuatBlend(vec4<f32>(0.0), vec4<f32>(0.0), palette_row(first));
}

fn dual_quat_add(b: DualQuatBlend, weight: f32, at: u32) -> DualQuatBlend {
    let q = palette_row(at);
    let w = select(weight, -weight, dot(q, b.pivot) < 0.0);
    return DualQuatBlend(b.real + w * q, b.dual + w * palette_row(at + 1u), b.pivot);
}

// The vertex moved by the blended dual quaternion (normalised on the way), its bind
// position first multiplied by `scale`: the uniform scale every skinning matrix carries,
// which the dual quaternions' rotations were made without (the normal only turns).
fn dual_quat_finish(b: DualQuatBlend, scale: f32, position: vec3<f32>, normal: vec3<f32>) -> Skinned {
    let moved = dual_quat_move(b.real, b.dual, position * scale, normal);
    return Skinned(moved.position, moved.normal);
}
