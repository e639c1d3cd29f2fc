//! `tree`: the baseline of Stefan Reinalter's "Adventures in data-oriented design – Part 2: Hierarchical data", an object tree
//! walked recursively.
//!
//! How it works: each instance owns its own joint array on the heap; every joint holds a
//! 4×4 local and a 4×4 global matrix and a `Vec` of its children's indices (a separate
//! heap allocation per joint, like the article's `std::vector<Joint*>`). The walk starts at
//! the roots and recurses into the children, so the memory order of the visit is decided
//! by pointers, not by one forward loop. The palette stage then reads `global` out of the
//! joints, with the tree's 152-byte stride.

use glam::Mat4;

use crate::anim::Qvs;
use crate::prepare::joint_sets::JointSet;
use crate::rig::{NO_PARENT, Skeleton};

/// One joint of the object tree.
#[derive(Clone, Debug)]
pub struct TreeJoint {
    pub global: Mat4,
    pub local: Mat4,
    pub children: Vec<usize>,
}

/// One instance's joint tree (empty until the `tree` variant is used).
#[derive(Clone, Debug, Default)]
pub struct JointTree {
    pub joints: Vec<TreeJoint>,
    roots: Vec<usize>,
}

impl JointTree {
    pub fn new(skeleton: &Skeleton) -> Self {
        let mut joints: Vec<TreeJoint> = (0..skeleton.joint_count())
            .map(|_| TreeJoint {
                global: Mat4::IDENTITY,
                local: Mat4::IDENTITY,
                children: Vec::new(),
            })
            .collect();
        let mut roots = Vec::new();
        for (j, &p) in skeleton.parents.iter().enumerate() {
            if p == NO_PARENT {
                roots.push(j);
            } else {
                joints[p as usize].children.push(j);
            }
        }
        JointTree { joints, roots }
    }

    /// What [`Self::heap_bytes`] will be for `skeleton`, without building the tree: the
    /// joint array, and each children vector as `Vec::push` grows it (capacity 4, then
    /// doubling).
    pub fn heap_bytes_for(skeleton: &Skeleton) -> usize {
        let capacity = |n: usize| {
            if n == 0 {
                0
            } else {
                n.next_power_of_two().max(4)
            }
        };
        let roots = skeleton.parents.iter().filter(|&&p| p == NO_PARENT).count();
        skeleton.joint_count() * std::mem::size_of::<TreeJoint>()
            + skeleton
                .child_counts()
                .iter()
                .map(|&c| capacity(c as usize) * std::mem::size_of::<usize>())
                .sum::<usize>()
            + capacity(roots) * std::mem::size_of::<usize>()
    }

    pub fn is_built(&self) -> bool {
        !self.joints.is_empty()
    }

    /// Heap bytes owned by this tree (joint array plus every children vector).
    pub fn heap_bytes(&self) -> usize {
        self.joints.capacity() * std::mem::size_of::<TreeJoint>()
            + self
                .joints
                .iter()
                .map(|j| j.children.capacity() * std::mem::size_of::<usize>())
                .sum::<usize>()
            + self.roots.capacity() * std::mem::size_of::<usize>()
    }
}

/// Poses one instance: locals in, `global` of every tree joint `set` holds out. A set is
/// closed under parents, so a joint outside it has no descendant inside: the walk stops
/// there.
pub fn run(tree: &mut JointTree, skeleton: &Skeleton, locals: &[Qvs], set: &JointSet) {
    for r in 0..tree.roots.len() {
        let root = tree.roots[r];
        if set.contains(root) {
            walk(
                &mut tree.joints,
                root,
                &skeleton.model_from_root_parent[r],
                locals,
                set,
            );
        }
    }
}

fn walk(
    joints: &mut [TreeJoint],
    joint: usize,
    parent_global: &Mat4,
    locals: &[Qvs],
    set: &JointSet,
) {
    let node = &mut joints[joint];
    node.local = locals[joint].to_mat4();
    node.global = *parent_global * node.local;
    let global = node.global;
    for c in 0..joints[joint].children.len() {
        let child = joints[joint].children[c];
        if set.contains(child) {
            walk(joints, child, &global, locals, set);
        }
    }
}
