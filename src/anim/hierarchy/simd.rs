//! `simd`: eight instances per register.
//!
//! How it works: all instances share the skeleton, so in a group of eight, lane `k` of
//! every vector is instance `k` and all lanes have the same parent index: the walk is the
//! `flat` loop, executed once for eight instances. Each joint's local transforms are
//! loaded and transposed into lanes (rotation, translation, scale: ten vectors), turned
//! into 3×4 matrices and multiplied by the parent's 3×4 lanes. The result stays in lane
//! layout for the palette stage. Runs with AVX2+FMA when the CPU has them.

use crate::anim::Qvs;
use crate::rig::Skeleton;
use crate::simd::{
    LANES, Lanes3x4, Simd, load_3x4, mul_3x4, mul_3x4_left_scalar, rows_3x4, store_3x4, trs_to_3x4,
};

/// `locals`: `LANES * stride` transforms (instance `k` at `k * stride`); `model`: at least
/// `joint_count` lane matrices.
pub fn run(skeleton: &Skeleton, locals: &[Qvs], stride: usize, model: &mut [Lanes3x4]) {
    let n = skeleton.joint_count();
    // Validate once: the kernel indexes parents, locals and model without further checks
    // beyond what the iterators do.
    assert!(locals.len() >= LANES * stride && stride >= n && model.len() >= n);
    assert!(
        skeleton.parents[skeleton.root_count..n]
            .iter()
            .enumerate()
            .all(|(i, &p)| (p as usize) < i + skeleton.root_count)
    );
    dispatch(skeleton, locals, stride, model);
}

crate::dispatch_simd!(
    fn dispatch(skeleton: &Skeleton, locals: &[Qvs], stride: usize, model: &mut [Lanes3x4]) -> () {
        kernel
    }
);

#[inline(always)]
fn kernel<S: Simd>(
    s: S,
    skeleton: &Skeleton,
    locals: &[Qvs],
    stride: usize,
    model: &mut [Lanes3x4],
) {
    let n = skeleton.joint_count();
    for i in 0..n {
        let v = s.load_qvs_lanes(locals, stride, i);
        let local = trs_to_3x4(
            s,
            [v[0], v[1], v[2], v[3]],
            [v[4], v[5], v[6]],
            [v[7], v[8], v[9]],
        );
        let result = if i < skeleton.root_count {
            mul_3x4_left_scalar(s, &rows_3x4(&skeleton.model_from_root_parent[i]), &local)
        } else {
            let parent = load_3x4(s, &model[skeleton.parents[i] as usize]);
            mul_3x4(s, &parent, &local)
        };
        store_3x4(s, &mut model[i], result);
    }
}
