//! Which skins and meshes make up the character.
//!
//! How it works: a character is everything the default scene draws that a joint moves.
//! Each skin a mesh node of the scene uses is a candidate; skins join when their joints
//! lie in one hierarchy (the trees of the node graph that their joints belong to,
//! joined wherever one skin spans two), and the hierarchy with the most joints is the
//! character's (a file may hold other characters, or a stray skin, elsewhere). A mesh node
//! without a skin joins as a rigid part when it is a joint of those skins or hangs below
//! one. Everything else is left out and reported with the reason: a skin whose joints are
//! in another hierarchy, a skin with no joints, a mesh no joint moves, a node outside the
//! default scene. The parts are kept in node-index order, the order their vertices take.

use gltf::mesh::Mode;

use super::{ImportErrorKind, Importer, LeftOutMesh, Result, SkinPart};
use crate::rig::MAX_JOINTS;

/// What the character is made of, chosen before anything is built.
pub(super) struct Character<'a> {
    /// The skins that make it up, in file order.
    pub skins: Vec<gltf::Skin<'a>>,
    /// Its mesh nodes, in node-index order.
    pub parts: Vec<Part>,
}

/// One mesh node of the character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Part {
    pub node: usize,
    pub kind: PartKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PartKind {
    /// Skinned by `Character::skins[skin]`.
    Skinned { skin: usize },
    /// Moved rigidly by its node's global transform.
    Rigid,
}

/// The node names reports use: the glTF name, or `node <index>`.
pub(super) fn node_name(node: &gltf::Node) -> String {
    node.name()
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| format!("node {}", node.index()))
}

impl<'a> Importer<'a> {
    /// glTF says a skin's `skeleton` node, where given, is the common root of its joints;
    /// the skeleton is rebuilt from the joints' own hierarchy either way, so one that is not
    /// an ancestor (or the node itself) of every joint is noted and ignored.
    fn check_skeleton_node(&mut self, skin: &gltf::Skin, node_parents: &[Option<usize>]) {
        let Some(root) = skin.skeleton() else { return };
        let root = root.index();
        // Walks up at most as many steps as there are nodes (the hierarchy has no cycles:
        // `node_parents` refused them).
        let under_root = |mut node: usize| {
            for _ in 0..=node_parents.len() {
                if node == root {
                    return true;
                }
                match node_parents[node] {
                    Some(parent) => node = parent,
                    None => return false,
                }
            }
            false
        };
        if let Some(joint) = skin.joints().map(|j| j.index()).find(|&j| !under_root(j)) {
            self.report.notes.push(format!(
                "skin {}: its skeleton node {root} is not an ancestor of joint node {joint}; \
                 ignored (the joints' own hierarchy is used)",
                skin.index()
            ));
        }
    }

    /// Parent of every node, rejecting shared children and cycles.
    pub(super) fn node_parents(&self) -> Result<Vec<Option<usize>>> {
        let node_count = self.document.nodes().len();
        let mut parents: Vec<Option<usize>> = vec![None; node_count];
        for node in self.document.nodes() {
            for child in node.children() {
                let c = child.index();
                if c == node.index() {
                    return Err(ImportErrorKind::Cycle { node: c });
                }
                if let Some(first) = parents[c] {
                    return Err(ImportErrorKind::SharedChild {
                        node: c,
                        first_parent: first,
                        second_parent: node.index(),
                    });
                }
                parents[c] = Some(node.index());
            }
        }
        // With at most one parent per node, a cycle is a walk up that never ends.
        for start in 0..node_count {
            let mut steps = 0;
            let mut n = start;
            while let Some(p) = parents[n] {
                n = p;
                steps += 1;
                if steps > node_count {
                    return Err(ImportErrorKind::Cycle { node: start });
                }
            }
        }
        Ok(parents)
    }

    /// Which nodes the default scene (the first scene where none is named) draws: each
    /// scene root and everything below it. A file without scenes draws every node.
    fn scene_nodes(&self) -> (Vec<bool>, Option<usize>) {
        let node_count = self.document.nodes().len();
        let Some(scene) = self
            .document
            .default_scene()
            .or_else(|| self.document.scenes().next())
        else {
            return (vec![true; node_count], None);
        };
        let mut in_scene = vec![false; node_count];
        let mut stack: Vec<gltf::Node> = scene.nodes().collect();
        // Each node has at most one parent and there are no cycles (`node_parents`), so
        // every node is pushed at most once per scene root that reaches it; `in_scene`
        // keeps a root listed twice from being walked twice.
        while let Some(node) = stack.pop() {
            if std::mem::replace(&mut in_scene[node.index()], true) {
                continue;
            }
            stack.extend(node.children());
        }
        (in_scene, Some(scene.index()))
    }

    /// Vertices of a mesh node's triangle primitives (what it would add to the character).
    pub(super) fn mesh_node_vertices(node: &gltf::Node) -> usize {
        node.mesh().map_or(0, |mesh| {
            mesh.primitives()
                .filter(|p| {
                    matches!(
                        p.mode(),
                        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
                    )
                })
                .filter_map(|p| p.get(&gltf::Semantic::Positions))
                .map(|a| a.count())
                .sum()
        })
    }

    /// Chooses the skins and mesh nodes of the character and reports the rest.
    pub(super) fn gather_character(
        &mut self,
        node_parents: &[Option<usize>],
    ) -> Result<Character<'a>> {
        let document = self.document;
        let nodes: Vec<gltf::Node<'a>> = document.nodes().collect();
        let skins: Vec<gltf::Skin<'a>> = document.skins().collect();
        self.report.skins_in_file = skins.len();
        let (in_scene, scene) = self.scene_nodes();
        let skinned_in_file = nodes
            .iter()
            .filter(|n| n.skin().is_some() && n.mesh().is_some())
            .count();
        let skinned_in_scene: Vec<&gltf::Node> = nodes
            .iter()
            .filter(|n| n.skin().is_some() && n.mesh().is_some() && in_scene[n.index()])
            .collect();
        if skins.is_empty() || skinned_in_scene.is_empty() {
            let outside = match (scene, skinned_in_file) {
                (Some(scene), n) if n > 0 => {
                    format!(", none of them in the default scene (scene {scene})")
                }
                _ => String::new(),
            };
            return Err(ImportErrorKind::NoSkinnedMesh(format!(
                "{} skins and {skinned_in_file} nodes with both a mesh and a skin{outside}",
                skins.len(),
            )));
        }

        // The candidates: skins a mesh node of the scene uses, in file order.
        let mut candidates: Vec<usize> = skinned_in_scene
            .iter()
            .filter_map(|n| n.skin().map(|s| s.index()))
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let mut parts_report: Vec<SkinPart> = candidates
            .iter()
            .map(|&s| {
                let mesh_nodes: Vec<usize> = skinned_in_scene
                    .iter()
                    .filter(|n| n.skin().map(|k| k.index()) == Some(s))
                    .map(|n| n.index())
                    .collect();
                SkinPart {
                    skin: s,
                    joints: skins[s].joints().count(),
                    vertices: mesh_nodes
                        .iter()
                        .map(|&n| Self::mesh_node_vertices(&nodes[n]))
                        .sum(),
                    mesh_nodes,
                    merged: false,
                    left_out: None,
                }
            })
            .collect();
        for part in &mut parts_report {
            let skin = &skins[part.skin];
            if part.joints > MAX_JOINTS {
                return Err(ImportErrorKind::TooManyJoints { count: part.joints });
            }
            let mut listed = std::collections::HashSet::new();
            if let Some(n) = skin
                .joints()
                .map(|j| j.index())
                .find(|&n| !listed.insert(n))
            {
                return Err(ImportErrorKind::Invalid(format!(
                    "skin {} lists node {n} twice",
                    skin.index()
                )));
            }
            if part.joints == 0 {
                part.left_out = Some("it has no joints".into());
            }
        }

        // The tree of the node graph each node belongs to (its topmost ancestor); skins
        // join the trees their joints span (a union-find over trees).
        let tree_of = |mut n: usize| {
            // No cycles (`node_parents`), so this ends within `nodes.len()` steps.
            while let Some(p) = node_parents[n] {
                n = p;
            }
            n
        };
        let mut joined: Vec<usize> = (0..nodes.len()).collect();
        fn find(joined: &mut [usize], mut n: usize) -> usize {
            while joined[n] != n {
                joined[n] = joined[joined[n]];
                n = joined[n];
            }
            n
        }
        for part in parts_report.iter().filter(|p| p.left_out.is_none()) {
            let mut trees = skins[part.skin].joints().map(|j| tree_of(j.index()));
            let first = trees.next().expect("a skin with joints");
            for tree in trees {
                let (a, b) = (find(&mut joined, first), find(&mut joined, tree));
                joined[a] = b;
            }
        }
        // The hierarchy with the most joints (the earliest skin's on a tie).
        let mut hierarchy_joints: std::collections::HashMap<
            usize,
            std::collections::HashSet<usize>,
        > = std::collections::HashMap::new();
        let mut order: Vec<usize> = Vec::new();
        for part in parts_report.iter().filter(|p| p.left_out.is_none()) {
            let first = skins[part.skin]
                .joints()
                .next()
                .expect("a skin with joints");
            let hierarchy = find(&mut joined, tree_of(first.index()));
            if !hierarchy_joints.contains_key(&hierarchy) {
                order.push(hierarchy);
            }
            hierarchy_joints
                .entry(hierarchy)
                .or_default()
                .extend(skins[part.skin].joints().map(|j| j.index()));
        }
        let Some(chosen) = order.iter().copied().reduce(|best, h| {
            if hierarchy_joints[&h].len() > hierarchy_joints[&best].len() {
                h
            } else {
                best
            }
        }) else {
            let all: Vec<String> = parts_report.iter().map(|p| p.skin.to_string()).collect();
            return Err(ImportErrorKind::NoSkinnedMesh(format!(
                "the skins the scene's mesh nodes use ({}) have no joints",
                all.join(", ")
            )));
        };
        let mut character_skins = Vec::new();
        let mut skin_slot = vec![None; skins.len()];
        for part in &mut parts_report {
            if part.left_out.is_some() {
                continue;
            }
            let first = skins[part.skin]
                .joints()
                .next()
                .expect("a skin with joints");
            let hierarchy = find(&mut joined, tree_of(first.index()));
            if hierarchy == chosen {
                part.merged = true;
                skin_slot[part.skin] = Some(character_skins.len());
                character_skins.push(skins[part.skin].clone());
            } else {
                part.left_out = Some(format!(
                    "its joints are in another hierarchy (under {}) than the character's (under {}, {} joints)",
                    node_name(&nodes[hierarchy]),
                    node_name(&nodes[chosen]),
                    hierarchy_joints[&chosen].len()
                ));
            }
        }
        let mut is_skin_joint = vec![false; nodes.len()];
        for skin in &character_skins {
            for joint in skin.joints() {
                is_skin_joint[joint.index()] = true;
            }
        }
        // Whether a node is a joint of the character's skins or hangs below one.
        let moved = |mut n: usize| loop {
            if is_skin_joint[n] {
                return true;
            }
            match node_parents[n] {
                Some(p) => n = p,
                None => return false,
            }
        };

        let mut parts = Vec::new();
        for node in nodes.iter().filter(|n| n.mesh().is_some()) {
            let n = node.index();
            let left_out = |reason: String| LeftOutMesh {
                node: n,
                name: node_name(node),
                vertices: Self::mesh_node_vertices(node),
                reason,
            };
            if !in_scene[n] {
                self.report.left_out_meshes.push(left_out(format!(
                    "not in the default scene (scene {})",
                    scene.unwrap_or(0)
                )));
                continue;
            }
            match node.skin() {
                Some(skin) => match skin_slot[skin.index()] {
                    Some(slot) => parts.push(Part {
                        node: n,
                        kind: PartKind::Skinned { skin: slot },
                    }),
                    None => {
                        let why = parts_report
                            .iter()
                            .find(|p| p.skin == skin.index())
                            .and_then(|p| p.left_out.clone())
                            .unwrap_or_default();
                        self.report.left_out_meshes.push(left_out(format!(
                            "its skin {} is left out: {why}",
                            skin.index()
                        )));
                    }
                },
                None if moved(n) => parts.push(Part {
                    node: n,
                    kind: PartKind::Rigid,
                }),
                None => self.report.left_out_meshes.push(left_out(
                    "no joint moves it (it hangs under no joint of the character's skins)".into(),
                )),
            }
        }
        for part in parts_report.iter().filter(|p| p.left_out.is_some()) {
            self.report.notes.push(format!(
                "skin {} ({} joints, {} vertices) left out: {}",
                part.skin,
                part.joints,
                part.vertices,
                part.left_out.as_deref().unwrap_or_default()
            ));
        }
        if !self.report.left_out_meshes.is_empty() {
            self.report.notes.push(format!(
                "{} mesh nodes are not part of the character ({} vertices; `inspect` lists them)",
                self.report.left_out_meshes.len(),
                self.report
                    .left_out_meshes
                    .iter()
                    .map(|m| m.vertices)
                    .sum::<usize>()
            ));
        }
        self.report.skins = parts_report;
        for skin in &character_skins {
            self.check_skeleton_node(skin, node_parents);
        }
        Ok(Character {
            skins: character_skins,
            parts,
        })
    }
}
