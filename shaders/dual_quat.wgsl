// Dual-quaternion skinning's per-vertex transform (Kavan et al. 2008), for the blends of
// skinning.wgsl (`gpu_compute` and `gpu_vertex`); the CPU lane kernels do the same
// (`simd::transform_by_dual_quat`). A joint's palette entry is two vec4s: its unit
// rotation quaternion (xyzw) and the dual part (xyzw).
#define_import_path skinbench::dual_quat

struct DualQuatMoved {
    position: vec3<f32>,
    normal: vec3<f32>,
};

// The weighted sum of a vertex's dual quaternions (`real`, `dual`; each influence's
// weight negated where its rotation's dot with the first influence's is negative),
// normalised on the way: with L = |real|², p' = p + 2/L (r × (r × p + w p) + w d - d.w r
// + r × d), the normal the same without the translation terms.
fn dual_quat_move(real: vec4<f32>, dual: vec4<f32>, p: vec3<f32>, n: vec3<f32>) -> DualQuatMoved {
    let two_inv = 2.0 / max(dot(real, real), 1e-30);
    let r = real.xyz;
    let shift = real.w * dual.xyz - dual.w * r + cross(r, dual.xyz);
    let moved = cross(r, cross(r, p) + real.w * p) + shift;
    let turned = cross(r, cross(r, n) + real.w * n);
    return DualQuatMoved(p + two_inv * moved, n + two_inv * turned);
}
