//! `flat`: the data-oriented version of Stefan Reinalter's "Adventures in data-oriented design – Part 2: Hierarchical data".
//!
//! How it works: joints are stored parents-first (depth-first), with a `u16` parent index
//! each; local and model poses are separate arrays. One forward loop: every parent's
//! model matrix is final before any child reads it, so there is no recursion and the
//! arrays are read and written in order. The loop runs over a list of joints (every joint,
//! or a mesh level's set: ascending, closed under parents), so a level's walk skips the
//! joints no vertex of it follows.

use glam::Mat4;

use crate::anim::Qvs;
use crate::rig::Skeleton;

/// `joints`: every joint (`None`), or a list ascending, below the skeleton's joint count,
/// every parent listed before its children ([`crate::prepare::joint_sets::JointSet::joint_list`]).
pub fn run(skeleton: &Skeleton, locals: &[Qvs], model: &mut [Mat4], joints: Option<&[u16]>) {
    let n = skeleton.joint_count();
    let roots = skeleton.root_count;
    let (locals, model, parents) = (&locals[..n], &mut model[..n], &skeleton.parents[..n]);
    match joints {
        // Every joint: the article's loops, roots first.
        None => {
            for r in 0..roots {
                model[r] = skeleton.model_from_root_parent[r] * locals[r].to_mat4();
            }
            for i in roots..n {
                model[i] = model[parents[i] as usize] * locals[i].to_mat4();
            }
        }
        // A level's set: its list, parents first.
        Some(list) => {
            for &i in list {
                let i = i as usize;
                model[i] = if i < roots {
                    skeleton.model_from_root_parent[i] * locals[i].to_mat4()
                } else {
                    model[parents[i] as usize] * locals[i].to_mat4()
                };
            }
        }
    }
}
