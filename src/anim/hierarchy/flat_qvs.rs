//! `flat_qvs`: the linear walk in rotation + translation + scale (suggested in the
//! comments on "Hierarchical data" (Reinalter), and the representation of
//! "Creating an Optimized Transform Hierarchy").
//!
//! How it works: the same forward loop as `flat`, but composing QVS transforms instead of
//! multiplying 4×4 matrices: `model.rotation = parent.rotation * local.rotation`,
//! `model.translation = parent.translation + parent.rotation * (parent.scale *
//! local.translation)`, `model.scale = parent.scale * local.scale`: about 60 flops instead
//! of 112. The matrices are built afterwards, by the palette stage.
//!
//! That composition is exact only while every parent's scale is uniform: a non-uniform
//! scale followed by a rotation is a shear, which QVS cannot hold.
//! [`crate::prepare::scale::shear_reason`] checks the rig once (rest pose, every scale key, the folded ancestors) and the variant refuses
//! such rigs instead of producing wrong poses.

use crate::rig::Skeleton;
use crate::types::Qvs;

/// `joints` as [`super::flat::run`] takes them.
pub fn run(
    skeleton: &Skeleton,
    root_parents: &[Qvs],
    locals: &[Qvs],
    model: &mut [Qvs],
    joints: Option<&[u16]>,
) {
    let n = skeleton.joint_count();
    let roots = skeleton.root_count;
    let (locals, model, parents) = (&locals[..n], &mut model[..n], &skeleton.parents[..n]);
    match joints {
        // Every joint: the plain loops, roots first.
        None => {
            for r in 0..roots {
                model[r] = root_parents[r].compose(&locals[r]);
            }
            for i in roots..n {
                model[i] = model[parents[i] as usize].compose(&locals[i]);
            }
        }
        // A level's set: its list, parents first.
        Some(list) => {
            for &i in list {
                let i = i as usize;
                model[i] = if i < roots {
                    root_parents[i].compose(&locals[i])
                } else {
                    model[parents[i] as usize].compose(&locals[i])
                };
            }
        }
    }
}
