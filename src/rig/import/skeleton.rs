//! The skeleton of the character: the union of its skins' joints, and its palette.
//!
//! How it works: every joint of every skin is a joint; a non-joint node lying between two
//! joints becomes one (its transform is part of the chain); an animated non-joint ancestor
//! of the skeleton becomes one too, with the nodes between it and the skeleton (its motion
//! moves every joint below it). Static ancestors of the roots are folded into
//! `model_from_root_parent`. Joints are ordered roots first (in the skins' order), then
//! each root's subtree depth-first, so every parent precedes its children.
//!
//! The palette holds one entry per distinct (joint, inverse bind matrix) pair: entry `j`
//! is joint `j` with the inverse bind matrix of the first skin that lists it, and a skin
//! that binds a joint differently adds an entry after the joints. A rigid part (a mesh
//! node without a skin under a joint) needs its node's global transform: where nothing
//! between its nearest joint and the node is animated, that is the joint's transform
//! times the static path below it, so the part takes the entry (joint, path) and adds no
//! joint; an animated node on the way makes the path joints, and the part takes (node,
//! identity).

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3, Vec4};
use gltf::animation::Property;

use super::accessor::MATRICES;
use super::character::{Character, PartKind, node_name};
use super::{AttachedMesh, ImportErrorKind, Importer, Result};
use crate::rig::{MAX_JOINTS, NO_PARENT, Skeleton, Transform};

/// The skeleton and how the file's nodes and skins map onto it.
pub(super) struct BuiltSkeleton {
    pub skeleton: Skeleton,
    /// The joint of every node, or `None`.
    pub joint_of_node: Vec<Option<u16>>,
    /// For each of the character's skins, the palette entry of each of its joints.
    pub skin_entries: Vec<Vec<u16>>,
    /// The palette entry of each rigid part, by node.
    pub rigid_entry: HashMap<usize, u16>,
}

/// One joint-to-be: a glTF node that is a skin joint or lies between two of them.
struct JointNode {
    node: usize,
    /// Nearest ancestor that is also a joint node (index into the node list).
    parent_node: Option<usize>,
}

/// The palette under construction: the joints' own entries, then the further ones.
struct PaletteBuilder {
    own: Vec<Option<Mat4>>,
    further: Vec<(u16, Mat4)>,
    further_index: HashMap<(u16, [u32; 16]), u16>,
    /// Pairs asked for, shared or not.
    bindings: usize,
}

impl PaletteBuilder {
    fn new(joints: usize) -> Self {
        PaletteBuilder {
            own: vec![None; joints],
            further: Vec::new(),
            further_index: HashMap::new(),
            bindings: 0,
        }
    }

    /// The entry for `joint` with `bind`: its own where that is free or equal, else a
    /// further one (shared with any identical pair).
    fn entry(&mut self, joint: u16, bind: Mat4) -> Result<u16> {
        self.bindings += 1;
        let own = &mut self.own[joint as usize];
        match own {
            None => {
                *own = Some(bind);
                return Ok(joint);
            }
            Some(m)
                if m.to_cols_array().map(f32::to_bits)
                    == bind.to_cols_array().map(f32::to_bits) =>
            {
                return Ok(joint);
            }
            Some(_) => {}
        }
        let key = (joint, bind.to_cols_array().map(f32::to_bits));
        if let Some(&e) = self.further_index.get(&key) {
            return Ok(e);
        }
        let e = self.own.len() + self.further.len();
        if e >= MAX_JOINTS {
            return Err(ImportErrorKind::TooManyPaletteEntries { count: e + 1 });
        }
        self.further.push((joint, bind));
        self.further_index.insert(key, e as u16);
        Ok(e as u16)
    }

    fn finish(self) -> (Vec<u16>, Vec<Mat4>) {
        let mut joints = Skeleton::palette_per_joint(self.own.len());
        let mut binds: Vec<Mat4> = self
            .own
            .into_iter()
            .map(|m| m.unwrap_or(Mat4::IDENTITY))
            .collect();
        for (joint, bind) in self.further {
            joints.push(joint);
            binds.push(bind);
        }
        (joints, binds)
    }
}

impl Importer<'_> {
    /// Builds the skeleton from the character's skins and rigid parts.
    pub(super) fn build_skeleton(
        &mut self,
        character: &Character,
        node_parents: &[Option<usize>],
    ) -> Result<BuiltSkeleton> {
        let node_count = node_parents.len();
        let nodes: Vec<gltf::Node> = self.document.nodes().collect();
        // Every skin joint, in the skins' order, each once.
        let mut is_member = vec![false; node_count];
        let mut skin_nodes: Vec<usize> = Vec::new();
        for skin in &character.skins {
            for joint in skin.joints() {
                let n = joint.index();
                if !is_member[n] {
                    is_member[n] = true;
                    skin_nodes.push(n);
                }
            }
        }
        if skin_nodes.len() > MAX_JOINTS {
            return Err(ImportErrorKind::TooManyJoints {
                count: skin_nodes.len(),
            });
        }
        // Ancestors of the skeleton that an animation moves become joints (no vertex is
        // bound to them): a joint's global transform includes every ancestor (glTF 2.0
        // §3.7.3), so folding them into a static root-parent transform would drop their
        // motion. The nodes between them and the skeleton follow as inserted joints below.
        let mut animated = vec![false; node_count];
        for animation in self.document.animations() {
            for channel in animation.channels() {
                if channel.target().property() != Property::MorphTargetWeights {
                    animated[channel.target().node().index()] = true;
                }
            }
        }
        let mut ancestor_roots: Vec<usize> = Vec::new();
        for &n in &skin_nodes {
            let mut cur = node_parents[n];
            while let Some(p) = cur {
                if animated[p] && !is_member[p] {
                    is_member[p] = true;
                    ancestor_roots.push(p);
                }
                cur = node_parents[p];
            }
        }
        // Non-joint nodes between a joint and its nearest joint ancestor become joints.
        let mut inserted = 0;
        let mut insert_path_above = |n: usize, is_member: &mut [bool]| {
            let mut path: Vec<usize> = Vec::new();
            let mut cur = node_parents[n];
            while let Some(p) = cur {
                if is_member[p] {
                    for &between in &path {
                        if !is_member[between] {
                            is_member[between] = true;
                            inserted += 1;
                        }
                    }
                    break;
                }
                path.push(p);
                cur = node_parents[p];
            }
        };
        // Above an animated ancestor too: a skin may name a joint above it (a scene's root
        // among the joints, the skeleton's root left out), and the nodes between them
        // must join as well, or the ancestor hangs under a joint by no chain of joints.
        for &n in skin_nodes.iter().chain(&ancestor_roots) {
            insert_path_above(n, &mut is_member);
        }
        // A rigid part whose way down from its nearest joint is animated becomes a joint
        // with that way; the others are folded into their palette entry below.
        let nearest_member = |n: usize, is_member: &[bool]| {
            let mut cur = Some(n);
            while let Some(c) = cur {
                if is_member[c] {
                    return Some(c);
                }
                cur = node_parents[c];
            }
            None
        };
        let mut rigid_as_joint = Vec::new();
        for part in &character.parts {
            if part.kind != PartKind::Rigid {
                continue;
            }
            let mut cur = Some(part.node);
            let mut moving = false;
            while let Some(c) = cur.filter(|&c| !is_member[c]) {
                moving |= animated[c];
                cur = node_parents[c];
            }
            if moving {
                is_member[part.node] = true;
                insert_path_above(part.node, &mut is_member);
                rigid_as_joint.push(part.node);
            }
        }
        let member_count = is_member.iter().filter(|&&m| m).count();
        if member_count > MAX_JOINTS {
            return Err(ImportErrorKind::TooManyJoints {
                count: member_count,
            });
        }
        if !ancestor_roots.is_empty() {
            self.report.animated_ancestors = ancestor_roots
                .iter()
                .map(|&n| {
                    nodes[n]
                        .name()
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("node {n}"))
                })
                .collect();
            self.report.notes.push(format!(
                "{} animated non-joint ancestors of the skeleton became joints (their channels move it): {}",
                ancestor_roots.len(),
                self.report.animated_ancestors.join(", ")
            ));
        }
        self.report.inserted_joints = inserted;
        if inserted > 0 {
            self.report.notes.push(format!(
                "{inserted} non-joint nodes between joints were added to the skeleton"
            ));
        }

        let nearest_member_parent =
            |n: usize| node_parents[n].and_then(|p| nearest_member(p, &is_member));
        // Roots in the skins' order (nodes inserted between joints are never roots;
        // animated ancestors may be), then depth-first.
        let mut members: Vec<JointNode> = Vec::with_capacity(member_count);
        let mut joint_of_node: Vec<Option<u16>> = vec![None; node_count];
        for &n in skin_nodes.iter().chain(&ancestor_roots) {
            if nearest_member_parent(n).is_none() {
                joint_of_node[n] = Some(members.len() as u16);
                members.push(JointNode {
                    node: n,
                    parent_node: None,
                });
            }
        }
        let root_count = members.len();
        for r in 0..root_count {
            let mut stack = vec![members[r].node];
            while let Some(n) = stack.pop() {
                // Children of member n that are members, or reach members via non-members.
                let mut found = Vec::new();
                collect_member_children(&nodes, n, &is_member, &mut found);
                for &c in found.iter().rev() {
                    stack.push(c);
                }
                if n != members[r].node {
                    joint_of_node[n] = Some(members.len() as u16);
                    members.push(JointNode {
                        node: n,
                        parent_node: nearest_member_parent(n),
                    });
                }
            }
        }
        debug_assert_eq!(members.len(), member_count);

        let mut names = Vec::with_capacity(members.len());
        let mut parents = Vec::with_capacity(members.len());
        let mut rest_pose = Vec::with_capacity(members.len());
        for m in &members {
            let node = &nodes[m.node];
            names.push(
                node.name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("joint_{}", m.node)),
            );
            parents.push(match m.parent_node {
                Some(p) => joint_of_node[p].expect("parents are members"),
                None => NO_PARENT,
            });
            rest_pose.push(self.node_transform(node)?);
        }

        let mut model_from_root_parent = Vec::with_capacity(root_count);
        for m in &members[..root_count] {
            let mut matrix = Mat4::IDENTITY;
            let mut cur = node_parents[m.node];
            while let Some(p) = cur {
                matrix = self.node_matrix(&nodes[p])? * matrix;
                cur = node_parents[p];
            }
            model_from_root_parent.push(matrix);
        }

        // The palette: every skin's (joint, inverse bind) pairs, then the rigid parts'.
        let mut palette = PaletteBuilder::new(members.len());
        let mut skin_entries = Vec::with_capacity(character.skins.len());
        for skin in &character.skins {
            let joints: Vec<u16> = skin
                .joints()
                .map(|n| joint_of_node[n.index()].expect("skin joints are members"))
                .collect();
            let binds = self.inverse_binds(skin)?;
            let mut entries = Vec::with_capacity(joints.len());
            for (&joint, &bind) in joints.iter().zip(&binds) {
                entries.push(palette.entry(joint, bind)?);
            }
            skin_entries.push(entries);
        }
        let mut rigid_entry = HashMap::new();
        for part in &character.parts {
            if part.kind != PartKind::Rigid {
                continue;
            }
            let joint_node =
                nearest_member(part.node, &is_member).expect("a rigid part hangs under a joint");
            // The static way from the joint down to the part's node.
            let mut path = Mat4::IDENTITY;
            let mut cur = part.node;
            while cur != joint_node {
                path = self.node_matrix(&nodes[cur])? * path;
                cur = node_parents[cur].expect("the joint is an ancestor");
            }
            let joint = joint_of_node[joint_node].expect("a member");
            let bottom = path.row(3);
            if (bottom - Vec4::W).abs().max_element() > 1e-5 {
                return Err(ImportErrorKind::Invalid(format!(
                    "mesh node {} hangs under joint {} through a projective transform",
                    part.node, names[joint as usize]
                )));
            }
            rigid_entry.insert(part.node, palette.entry(joint, path)?);
            self.report.attached_meshes.push(AttachedMesh {
                node: part.node,
                name: node_name(&nodes[part.node]),
                joint: names[joint as usize].clone(),
                vertices: Self::mesh_node_vertices(&nodes[part.node]),
            });
        }
        let bindings = palette.bindings;
        let (palette_joints, joint_from_bind) = palette.finish();
        self.report.palette_entries = palette_joints.len();
        self.report.skin_bindings = bindings;
        if character.skins.len() > 1 {
            self.report.notes.push(format!(
                "{} skins merged into one skeleton of {} joints; the {bindings} (joint, inverse \
                 bind) pairs they and the attached meshes bind share {} palette entries",
                character.skins.len(),
                members.len(),
                palette_joints.len()
            ));
        }
        if !rigid_as_joint.is_empty() {
            self.report.notes.push(format!(
                "{} mesh nodes hung under joints are animated on the way down and became joints",
                rigid_as_joint.len()
            ));
        }

        Ok(BuiltSkeleton {
            skeleton: Skeleton {
                names,
                parents,
                root_count,
                model_from_root_parent,
                rest_pose,
                palette_joints,
                joint_from_bind,
            },
            joint_of_node,
            skin_entries,
            rigid_entry,
        })
    }

    /// A skin's inverse bind matrices, one per joint (identity where the skin has none).
    fn inverse_binds(&self, skin: &gltf::Skin) -> Result<Vec<Mat4>> {
        let joint_count = skin.joints().count();
        let Some(accessor) = skin.inverse_bind_matrices() else {
            return Ok(vec![Mat4::IDENTITY; joint_count]);
        };
        let what = format!("inverse bind matrices of skin {}", skin.index());
        let values = self.read_finite_f32(&accessor, &what, &MATRICES)?;
        if accessor.count() < joint_count {
            return Err(ImportErrorKind::OutOfRange {
                what,
                detail: format!("{} matrices for {joint_count} joints", accessor.count()),
            });
        }
        (0..joint_count)
            .map(|s| {
                let m = Mat4::from_cols_slice(&values[s * 16..s * 16 + 16]);
                // Skinning treats the palette as affine (3×4); a projective inverse bind
                // matrix would be silently wrong, so it is refused.
                let bottom = m.row(3);
                if (bottom - Vec4::W).abs().max_element() > 1e-5 {
                    return Err(ImportErrorKind::Invalid(format!(
                        "{what}: matrix {s} is not affine (bottom row {:?})",
                        bottom.to_array()
                    )));
                }
                Ok(m)
            })
            .collect()
    }

    pub(super) fn node_matrix(&self, node: &gltf::Node) -> Result<Mat4> {
        let m = Mat4::from_cols_array_2d(&node.transform().matrix());
        if !m.is_finite() {
            return Err(ImportErrorKind::NonFinite {
                what: format!("transform of node {}", node.index()),
                index: 0,
                value: f32::NAN,
            });
        }
        Ok(m)
    }

    fn node_transform(&self, node: &gltf::Node) -> Result<Transform> {
        let matrix = self.node_matrix(node)?;
        let (translation, rotation, scale) = match node.transform() {
            gltf::scene::Transform::Decomposed {
                translation,
                rotation,
                scale,
            } => (
                Vec3::from(translation),
                Quat::from_array(rotation),
                Vec3::from(scale),
            ),
            gltf::scene::Transform::Matrix { .. } => {
                let (s, r, t) = matrix.to_scale_rotation_translation();
                let magnitude = matrix.abs().to_cols_array().into_iter().fold(1.0, f32::max);
                let rebuilt = Mat4::from_scale_rotation_translation(s, r, t);
                let exact = s.is_finite()
                    && r.is_finite()
                    && t.is_finite()
                    && rebuilt.abs_diff_eq(matrix, 1e-4 * magnitude);
                if !exact {
                    return Err(ImportErrorKind::Unsupported(format!(
                        "joint node {} has a matrix that is not translation * rotation * scale (shear or projection)",
                        node.index()
                    )));
                }
                (t, r, s)
            }
        };
        let rotation = if rotation.length_squared() > 0.0 {
            rotation.normalize()
        } else {
            return Err(ImportErrorKind::Invalid(format!(
                "node {} has a zero rotation quaternion",
                node.index()
            )));
        };
        Ok(Transform {
            translation,
            rotation,
            scale,
        })
    }
}

fn collect_member_children(
    nodes: &[gltf::Node],
    n: usize,
    is_member: &[bool],
    found: &mut Vec<usize>,
) {
    for child in nodes[n].children() {
        let c = child.index();
        // A non-member child leads to no member: any node between two joints was
        // inserted as a member already.
        if is_member[c] {
            found.push(c);
        }
    }
}
