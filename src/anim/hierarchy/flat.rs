//! `flat`: the data-oriented version of Stefan Reinalter's "Adventures in data-oriented design – Part 2: Hierarchical data".
//!
//! How it works: joints are stored parents-first (depth-first), with a `u16` parent index
//! each; local and model poses are separate arrays. One forward loop: every parent's
//! model matrix is final before any child reads it, so there is no recursion and the
//! arrays are read and written in order.

use glam::Mat4;

use crate::anim::Qvs;
use crate::rig::Skeleton;

pub fn run(skeleton: &Skeleton, locals: &[Qvs], model: &mut [Mat4]) {
    let n = skeleton.joint_count();
    let roots = skeleton.root_count;
    let (locals, model, parents) = (&locals[..n], &mut model[..n], &skeleton.parents[..n]);
    for r in 0..roots {
        model[r] = skeleton.model_from_root_parent[r] * locals[r].to_mat4();
    }
    for i in roots..n {
        model[i] = model[parents[i] as usize] * locals[i].to_mat4();
    }
}
