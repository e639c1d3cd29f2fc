//! The joints each level of the mesh LOD chain needs: the joints its vertices' influences
//! follow, and their ancestors. Nothing outside the set moves a vertex of the level, so a
//! character drawn at that level needs no other joint sampled, walked or written: the
//! set is exact, no error added.
//!
//! How it works: a level's vertices are those whose deepest level
//! ([`super::mesh_lod::MeshChain::deepest_levels_file`]) is that level or coarser. Each of
//! their influences with a weight above 0 names a palette entry, which follows one joint
//! ([`crate::rig::Skeleton::palette_joints`]); that joint and every joint up to its root
//! go in the set. Joints come parents first, so one backward pass over the marks closes
//! the set under parents. A coarser level's vertices are a subset of a finer level's, so
//! its set is a subset too.
//!
//! The CPU pipeline walks a set as lists: its joints ascending (parents before children,
//! so the hierarchy's forward loop stays valid over the list) and the palette entries the
//! level's influences name, so a group posed for a level samples, walks and writes only
//! those.

use crate::rig::{Mesh, NO_PARENT, Skeleton};

/// The joints one mesh level needs ([`level_joint_sets`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JointSet {
    /// Per joint, whether the level needs it.
    needed: Vec<bool>,
    /// Joints an influence of the level's vertices names (the rest of the set are their
    /// ancestors).
    influencing: usize,
    /// The joints of the set, ascending.
    list: Vec<u16>,
    /// Palette entries an influence of the level's vertices names with a weight above 0,
    /// ascending; each one's joint is in the set.
    entries: Vec<u16>,
    /// Entries of the palette the set was made for (every entry is below it).
    palette_len: usize,
}

impl JointSet {
    /// Every joint of `skeleton` and every palette entry.
    pub fn all(skeleton: &Skeleton) -> Self {
        let joints = skeleton.joint_count();
        let palette_len = skeleton.palette_joints.len();
        JointSet {
            needed: vec![true; joints],
            influencing: joints,
            list: (0..joints as u16).collect(),
            entries: (0..palette_len as u16).collect(),
            palette_len,
        }
    }

    /// From per-joint marks and per-entry marks (entries whose joint is not marked are
    /// left out, so every listed entry reads a joint of the set).
    fn from_marks(
        skeleton: &Skeleton,
        needed: Vec<bool>,
        influencing: usize,
        named: &[bool],
    ) -> Self {
        let list = (0..needed.len())
            .filter(|&j| needed[j])
            .map(|j| j as u16)
            .collect();
        let entries = named
            .iter()
            .zip(&skeleton.palette_joints)
            .enumerate()
            .filter(|&(_, (&n, &joint))| n && needed.get(joint as usize) == Some(&true))
            .map(|(e, _)| e as u16)
            .collect();
        JointSet {
            needed,
            influencing,
            list,
            entries,
            palette_len: skeleton.palette_joints.len(),
        }
    }

    /// The joints of the set, ascending (parents before children).
    pub fn joint_list(&self) -> &[u16] {
        &self.list
    }

    /// Whether the set holds every joint of its skeleton (its list is `0..joint_count`).
    pub fn has_every_joint(&self) -> bool {
        self.list.len() == self.needed.len()
    }

    /// The palette entries the level's vertices read, ascending.
    pub fn entries(&self) -> &[u16] {
        &self.entries
    }

    /// Whether the set lists every palette entry (its entries are `0..palette_len`).
    pub fn has_every_entry(&self) -> bool {
        self.entries.len() == self.palette_len
    }

    /// Joints of the skeleton the set was made for.
    pub fn joint_count(&self) -> usize {
        self.needed.len()
    }

    /// Entries of the palette the set was made for.
    pub fn palette_len(&self) -> usize {
        self.palette_len
    }

    /// Whether the level needs joint `joint` (false past the skeleton).
    pub fn contains(&self, joint: usize) -> bool {
        self.needed.get(joint).copied().unwrap_or(false)
    }

    /// The joints of the set, ascending (so parents before children).
    pub fn joints(&self) -> impl Iterator<Item = usize> + '_ {
        self.needed
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n)
            .map(|(j, _)| j)
    }

    /// Joints in the set.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Joints of the set an influence of the level's vertices names directly.
    pub fn influencing(&self) -> usize {
        self.influencing
    }
}

/// Per level of a chain of `levels` (finest first), the joints of `skeleton` that move
/// its vertices: `mesh` is the file-order mesh the palette entries index, `deepest` each
/// of its vertices' deepest level (see the module docs). A vertex whose deepest level is
/// past `levels` counts for every level; an influence naming an entry past the palette, or
/// an entry naming a joint past the skeleton, names nothing (a prepared rig has neither).
pub fn level_joint_sets(
    skeleton: &Skeleton,
    mesh: &Mesh,
    deepest: &[u32],
    levels: usize,
) -> Vec<JointSet> {
    cut_joint_sets(skeleton, mesh, deepest, &vec![None; levels.max(1)])
}

/// [`level_joint_sets`] with each level's influences cut: level `l`'s vertices keep their
/// first `kept[l]` influences (`None`: every one), as [`crate::rig::Mesh::reduced_to`] and
/// the kernels' [`super::InfluenceCut`] cut them, so the joints only a cut influence named
/// leave the set. A level's set also holds every coarser level's (a character posed for a
/// level may be drawn, or cast its shadow, at a coarser one with that level's cut), so the
/// sets still nest; without cuts they nest by themselves. One level per entry of `kept`
/// (at least one).
pub fn cut_joint_sets(
    skeleton: &Skeleton,
    mesh: &Mesh,
    deepest: &[u32],
    kept: &[Option<usize>],
) -> Vec<JointSet> {
    let joints = skeleton.joint_count();
    let levels = kept.len().max(1);
    let mut needed = vec![false; joints];
    let mut named = vec![false; skeleton.palette_joints.len()];
    let mut sets = Vec::with_capacity(levels);
    // Coarsest first, each level adding its own vertices' kept influences to the marks.
    for level in (0..levels).rev() {
        let keeps = kept.get(level).copied().flatten().unwrap_or(usize::MAX);
        for ((influences, weights), &d) in mesh.joints.iter().zip(&mesh.weights).zip(deepest) {
            if (d as usize) < level {
                continue;
            }
            for (&entry, &w) in influences.iter().zip(weights).take(keeps) {
                if w <= 0.0 {
                    continue;
                }
                if let Some(n) = named.get_mut(entry as usize) {
                    *n = true;
                }
                let joint = skeleton.palette_joints.get(entry as usize).copied();
                if let Some(n) = joint.and_then(|j| needed.get_mut(j as usize)) {
                    *n = true;
                }
            }
        }
        let influencing = needed.iter().filter(|&&n| n).count();
        let mut closed = needed.clone();
        // Children come after their parents: walking back, every child marks its
        // parent before the parent is reached.
        for j in (0..joints).rev() {
            let parent = skeleton.parents[j];
            if closed[j]
                && parent != NO_PARENT
                && let Some(p) = closed.get_mut(parent as usize)
            {
                *p = true;
            }
        }
        sets.push(JointSet::from_marks(skeleton, closed, influencing, &named));
    }
    sets.reverse();
    sets
}

/// Per palette entry, whether an influence with a weight above 0 names it: the entries a
/// skinned vertex reads (their joints are in the full mesh's [`JointSet`]).
pub fn weighted_entries(mesh: &Mesh, palette_len: usize) -> Vec<bool> {
    let mut named = vec![false; palette_len];
    for (influences, weights) in mesh.joints.iter().zip(&mesh.weights) {
        for (&entry, &w) in influences.iter().zip(weights) {
            if w > 0.0
                && let Some(n) = named.get_mut(entry as usize)
            {
                *n = true;
            }
        }
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prepare::PreparedRig;

    fn sets(rig: &PreparedRig) -> Vec<JointSet> {
        let chain = rig.mesh_chain();
        let deepest = chain.deepest_levels_file(rig.source_mesh.vertex_count());
        level_joint_sets(
            &rig.skeleton,
            &rig.source_mesh,
            &deepest,
            chain.levels().len(),
        )
    }

    #[test]
    fn sets_hold_every_influence_and_its_ancestors_and_shrink_with_the_level() {
        let rig = PreparedRig::reference();
        let sets = sets(&rig);
        let deepest = rig
            .mesh_chain()
            .deepest_levels_file(rig.source_mesh.vertex_count());
        for (level, set) in sets.iter().enumerate() {
            for (v, &d) in deepest.iter().enumerate() {
                if (d as usize) < level {
                    continue;
                }
                for (&e, &w) in rig.source_mesh.joints[v]
                    .iter()
                    .zip(&rig.source_mesh.weights[v])
                {
                    if w > 0.0 {
                        let joint = rig.skeleton.palette_joints[e as usize] as usize;
                        assert!(
                            set.contains(joint),
                            "level {level}: vertex {v}'s joint {joint}"
                        );
                    }
                }
            }
            for j in set.joints() {
                let p = rig.skeleton.parents[j];
                assert!(
                    p == NO_PARENT || set.contains(p as usize),
                    "level {level}: {j}'s parent"
                );
            }
            if let Some(finer) = level.checked_sub(1).map(|l| &sets[l]) {
                assert!(
                    set.joints().all(|j| finer.contains(j)),
                    "level {level} ⊄ finer"
                );
            }
        }
        // The coarsest level of the reference rig loses its fingers and face.
        assert!(sets.last().unwrap().len() < sets[0].len());
    }

    /// Two roots with no ancestor in common (0 → 2 → 3 and 1 → 5; roots first, then each
    /// root's subtree), one joint (4, under 2) that no vertex's influence names, and three
    /// vertices: vertex 0 on joint 3 and, with a zero weight, joint 4; vertex 1 on joint 5
    /// (deepest level 1); vertex 2 half on joints 3 and 5 (deepest level 0). Palette entry
    /// `e` follows joint `e`.
    fn two_roots() -> (Skeleton, Mesh) {
        use crate::rig::MAX_INFLUENCES;
        use crate::rig::Transform;
        let joints = 6;
        let skeleton = Skeleton {
            names: (0..joints).map(|j| format!("j{j}")).collect(),
            parents: vec![NO_PARENT, NO_PARENT, 0, 2, 2, 1],
            root_count: 2,
            model_from_root_parent: vec![glam::Mat4::IDENTITY; 2],
            rest_pose: vec![Transform::IDENTITY; joints],
            palette_joints: (0..joints as u16).collect(),
            joint_from_bind: vec![glam::Mat4::IDENTITY; joints],
        };
        let influence = |pairs: &[(u16, f32)]| {
            let mut j = [0u16; MAX_INFLUENCES];
            let mut w = [0f32; MAX_INFLUENCES];
            for (k, &(joint, weight)) in pairs.iter().enumerate() {
                j[k] = joint;
                w[k] = weight;
            }
            (j, w)
        };
        let vertices = [
            influence(&[(3, 1.0), (4, 0.0)]),
            influence(&[(5, 1.0)]),
            influence(&[(3, 0.5), (5, 0.5)]),
        ];
        let mesh = Mesh {
            positions: vec![glam::Vec3::ZERO; 3],
            normals: vec![glam::Vec3::Y; 3],
            uvs: vec![glam::Vec2::ZERO; 3],
            joints: vertices.iter().map(|v| v.0).collect(),
            weights: vertices.iter().map(|v| v.1).collect(),
            indices: vec![0, 1, 2],
        };
        (skeleton, mesh)
    }

    #[test]
    fn roots_without_a_common_ancestor_each_keep_their_own_chain() {
        let (skeleton, mesh) = two_roots();
        let sets = level_joint_sets(&skeleton, &mesh, &[2, 1, 0], 3);
        let joints = |set: &JointSet| set.joints().collect::<Vec<_>>();
        // Level 0: both chains; joint 4, named only with a zero weight, is not needed.
        assert_eq!(joints(&sets[0]), vec![0, 1, 2, 3, 5]);
        assert_eq!(sets[0].influencing(), 2);
        // Level 1: vertex 0 (joint 3) and vertex 1 (joint 5): still both roots.
        assert_eq!(joints(&sets[1]), vec![0, 1, 2, 3, 5]);
        // Level 2: vertex 0 alone, so one root's chain.
        assert_eq!(joints(&sets[2]), vec![0, 2, 3]);
        // The lists the CPU stages walk: the joints ascending, and the entries weighted
        // influences name (entry 4 only with a zero weight, so never written).
        assert_eq!(sets[0].joint_list(), &[0, 1, 2, 3, 5]);
        assert_eq!(sets[0].entries(), &[3, 5]);
        assert_eq!(sets[2].joint_list(), &[0, 2, 3]);
        assert_eq!(sets[2].entries(), &[3]);
        let all = JointSet::all(&skeleton);
        assert_eq!(all.joint_list(), &[0, 1, 2, 3, 4, 5]);
        assert_eq!(all.entries(), &[0, 1, 2, 3, 4, 5]);
        assert_eq!((all.joint_count(), all.palette_len()), (6, 6));
        assert!(!sets.iter().any(|s| s.contains(4)));
    }

    #[test]
    fn a_level_whose_vertices_are_gone_keeps_no_joint() {
        let (skeleton, mesh) = two_roots();
        // No vertex reaches level 1: the level keeps nothing, which poses nothing.
        let sets = level_joint_sets(&skeleton, &mesh, &[0, 0, 0], 2);
        assert_eq!(sets[0].len(), 5);
        assert!(sets[1].is_empty());
        assert!(sets[1].joint_list().is_empty() && sets[1].entries().is_empty());
        assert_eq!(sets[1].influencing(), 0);
        assert!((0..6).all(|j| !sets[1].contains(j)));
        // A joint past the skeleton is in no set, and asking for it is no error.
        assert!(!sets[0].contains(99));
    }

    #[test]
    fn a_vertex_deeper_than_the_chain_counts_for_every_level() {
        let rig = PreparedRig::reference();
        let deepest = vec![u32::MAX; rig.source_mesh.vertex_count()];
        let sets = level_joint_sets(&rig.skeleton, &rig.source_mesh, &deepest, 3);
        assert_eq!(sets.len(), 3);
        assert!(sets.windows(2).all(|w| w[0] == w[1]));
        let none = level_joint_sets(&rig.skeleton, &rig.source_mesh, &[], 2);
        assert!(none.iter().all(JointSet::is_empty));
    }
}
