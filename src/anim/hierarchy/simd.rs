//! `simd`: eight instances per register.
//!
//! How it works: all instances share the skeleton, so in a group of eight, lane `k` of
//! every vector is instance `k` and all lanes have the same parent index: the walk is the
//! `flat` loop, executed once for eight instances. Each joint's local transforms are
//! loaded and transposed into lanes (rotation, translation, scale: ten vectors), turned
//! into 3×4 matrices and multiplied by the parent's 3×4 lanes. The result stays in lane
//! layout for the palette stage. Runs at the best SIMD level the CPU has (AVX-512, AVX2,
//! else the portable arrays).
//!
//! Many rigs never scale a joint (the built-in one, Fox, SimpleSkin): their scales are
//! exactly 1 in every frame ([`crate::prepare::PreparedData::unit_scale`]), and a copy of
//! the loop compiled for them skips transposing the scales into lanes and multiplying by
//! them, the same bits for 15–19 % less time (bench-results/2026-11-23_avx512.md).

use crate::anim::Qvs;
use crate::prepare::joint_sets::JointSet;
use crate::rig::Skeleton;
use crate::simd::{
    LANES, Lanes3x4, Simd, load_3x4, mul_3x4, mul_3x4_left_scalar, rows_3x4, rt_to_3x4, store_3x4,
    trs_to_3x4,
};

/// `locals`: `LANES * stride` transforms (instance `k` at `k * stride`); `model`: at least
/// `joint_count` lane matrices. `unit_scale`: every scale in `locals` is exactly 1
/// ([`crate::prepare::PreparedData::unit_scale`]), so the kernel skips them. `set`: the
/// joints to pose (made for this skeleton: its list holds only its joints, parents first).
pub fn run(
    skeleton: &Skeleton,
    locals: &[Qvs],
    stride: usize,
    model: &mut [Lanes3x4],
    unit_scale: bool,
    set: &JointSet,
) {
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
    assert_eq!(
        set.joint_count(),
        n,
        "a joint set made for another skeleton"
    );
    // Every joint: the plain range, whose order the loop knows; a level's set: its list.
    let joints = (!set.has_every_joint()).then(|| set.joint_list());
    if unit_scale {
        dispatch_unit_scale(skeleton, locals, stride, model, joints);
    } else {
        dispatch(skeleton, locals, stride, model, joints);
    }
}

crate::dispatch_simd!(
    fn dispatch(
        skeleton: &Skeleton,
        locals: &[Qvs],
        stride: usize,
        model: &mut [Lanes3x4],
        joints: Option<&[u16]>,
    ) -> () {
        kernel::<_, false>
    }
);

crate::dispatch_simd!(
    fn dispatch_unit_scale(
        skeleton: &Skeleton,
        locals: &[Qvs],
        stride: usize,
        model: &mut [Lanes3x4],
        joints: Option<&[u16]>,
    ) -> () {
        kernel::<_, true>
    }
);

/// With `UNIT_SCALE` the scales are neither transposed into lanes nor multiplied in: a
/// third of the loads and shuffles and nine multiplies per joint fewer.
#[inline(always)]
fn kernel<S: Simd, const UNIT_SCALE: bool>(
    s: S,
    skeleton: &Skeleton,
    locals: &[Qvs],
    stride: usize,
    model: &mut [Lanes3x4],
    joints: Option<&[u16]>,
) {
    match joints {
        None => {
            for i in 0..skeleton.joint_count() {
                pose::<S, UNIT_SCALE>(s, skeleton, locals, stride, model, i);
            }
        }
        Some(joints) => {
            for &i in joints {
                pose::<S, UNIT_SCALE>(s, skeleton, locals, stride, model, i as usize);
            }
        }
    }
}

/// One joint of the walk: its local transform into lanes, times its parent's (a root's
/// folded ancestors for a root). A function, not a closure: a closure would not inherit
/// the kernel's target features, and every SIMD operation in it would become a call.
#[inline(always)]
fn pose<S: Simd, const UNIT_SCALE: bool>(
    s: S,
    skeleton: &Skeleton,
    locals: &[Qvs],
    stride: usize,
    model: &mut [Lanes3x4],
    i: usize,
) {
    let local = if UNIT_SCALE {
        let v = s.load_qt_lanes(locals, stride, i);
        rt_to_3x4(s, [v[0], v[1], v[2], v[3]], [v[4], v[5], v[6]])
    } else {
        let v = s.load_qvs_lanes(locals, stride, i);
        trs_to_3x4(
            s,
            [v[0], v[1], v[2], v[3]],
            [v[4], v[5], v[6]],
            [v[7], v[8], v[9]],
        )
    };
    let result = if i < skeleton.root_count {
        mul_3x4_left_scalar(s, &rows_3x4(&skeleton.model_from_root_parent[i]), &local)
    } else {
        let parent = load_3x4(s, &model[skeleton.parents[i] as usize]);
        mul_3x4(s, &parent, &local)
    };
    store_3x4(s, &mut model[i], result);
}
