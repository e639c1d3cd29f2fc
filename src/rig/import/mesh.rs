//! The character's mesh: its parts' triangle primitives, one after another.
//!
//! How it works: parts come in node-index order and each part's primitives in order, so
//! the vertices keep the file's order (what `pose` writes and verify reads). A skinned
//! part's influences come from both glTF sets (JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1),
//! each skin joint mapped to its palette entry, reduced to the eight heaviest and
//! renormalized; a rigid part's vertices get one influence of weight 1 on the entry that
//! carries its node's global transform. Strips and fans become triangle lists; a
//! primitive without normals gets smooth ones, computed within its part.

use std::collections::HashMap;
use std::ops::Range;

use glam::{Vec2, Vec3};
use gltf::mesh::{Mode, Semantic};

use super::accessor::{FLOAT_VEC3, INDICES, JOINTS, UV, WEIGHTS};
use super::character::{Character, PartKind};
use super::skeleton::BuiltSkeleton;
use super::{ImportErrorKind, Importer, Result};
use crate::rig::{MAX_INFLUENCES, Mesh};

impl Importer<'_> {
    /// The character's mesh: every part's triangle primitives in node order.
    pub(super) fn build_mesh(
        &mut self,
        character: &Character,
        built: &BuiltSkeleton,
    ) -> Result<Mesh> {
        let nodes: Vec<gltf::Node> = self.document.nodes().collect();
        let mut mesh = Mesh {
            positions: Vec::new(),
            normals: Vec::new(),
            uvs: Vec::new(),
            joints: Vec::new(),
            weights: Vec::new(),
            indices: Vec::new(),
        };
        let mut any_missing_normals = false;
        let mut any_missing_uvs = false;
        let mut normal_known = Vec::new();
        let mut unused_vertices = 0;
        // How many primitives read each POSITION accessor: a shared one holds other
        // primitives' vertices too, which this primitive leaves out.
        let mut position_readers: std::collections::HashMap<usize, usize> =
            std::collections::HashMap::new();
        for part in &character.parts {
            let mesh_def = nodes[part.node].mesh().expect("parts are mesh nodes");
            for primitive in mesh_def.primitives() {
                if let Some(a) = primitive.get(&Semantic::Positions) {
                    *position_readers.entry(a.index()).or_default() += 1;
                }
            }
        }
        for part in &character.parts {
            let mesh_def = nodes[part.node].mesh().expect("parts are mesh nodes");
            let mi = mesh_def.index();
            let first_vertex = mesh.positions.len();
            let first_index = mesh.indices.len();
            let mut part_missing_normals = false;
            for primitive in mesh_def.primitives() {
                let pi = primitive.index();
                let mode = primitive.mode();
                if !matches!(
                    mode,
                    Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
                ) {
                    self.report.skipped_primitives += 1;
                    self.report.notes.push(format!(
                        "mesh {mi} primitive {pi}: mode {mode:?} is not triangles; skipped"
                    ));
                    continue;
                }
                let label = |attr: &str| format!("{attr} of mesh {mi} primitive {pi}");
                let position_accessor = primitive.get(&Semantic::Positions).ok_or_else(|| {
                    ImportErrorKind::Invalid(format!("mesh {mi} primitive {pi} has no POSITION"))
                })?;
                let positions =
                    self.read_finite_f32(&position_accessor, &label("POSITION"), &FLOAT_VEC3)?;
                let count = position_accessor.count();
                let base = mesh.positions.len();
                if base + count > u32::MAX as usize {
                    return Err(ImportErrorKind::Unsupported(
                        "more than 2^32 vertices".into(),
                    ));
                }
                mesh.positions
                    .extend(positions.chunks_exact(3).map(Vec3::from_slice));
                self.material_runs
                    .push((base as u32, primitive.material().index()));

                let check_count = |accessor: &gltf::Accessor, attr: &str| -> Result<()> {
                    if accessor.count() != count {
                        return Err(ImportErrorKind::OutOfRange {
                            what: format!("accessor {} ({})", accessor.index(), label(attr)),
                            detail: format!(
                                "{} elements, but POSITION has {count}",
                                accessor.count()
                            ),
                        });
                    }
                    Ok(())
                };
                if let Some(a) = primitive.get(&Semantic::Normals) {
                    check_count(&a, "NORMAL")?;
                    let normals = self.read_finite_f32(&a, &label("NORMAL"), &FLOAT_VEC3)?;
                    mesh.normals
                        .extend(normals.chunks_exact(3).map(Vec3::from_slice));
                    normal_known.extend(std::iter::repeat_n(true, count));
                } else {
                    part_missing_normals = true;
                    mesh.normals.extend(std::iter::repeat_n(Vec3::ZERO, count));
                    normal_known.extend(std::iter::repeat_n(false, count));
                }
                if let Some(a) = primitive.get(&Semantic::TexCoords(0)) {
                    check_count(&a, "TEXCOORD_0")?;
                    let uvs = self.read_finite_f32(&a, &label("TEXCOORD_0"), &UV)?;
                    mesh.uvs.extend(uvs.chunks_exact(2).map(Vec2::from_slice));
                } else {
                    any_missing_uvs = true;
                    mesh.uvs.extend(std::iter::repeat_n(Vec2::ZERO, count));
                }

                match part.kind {
                    PartKind::Skinned { skin } => self.read_influences(
                        &primitive,
                        count,
                        &built.skin_entries[skin],
                        (mi, pi),
                        character.skins[skin].index(),
                        &mut mesh,
                    )?,
                    PartKind::Rigid => {
                        // One influence: the entry that carries the node's global transform.
                        let mut joints = [0u16; MAX_INFLUENCES];
                        joints[0] = built.rigid_entry[&part.node];
                        let mut weights = [0f32; MAX_INFLUENCES];
                        weights[0] = 1.0;
                        mesh.joints.extend(std::iter::repeat_n(joints, count));
                        mesh.weights.extend(std::iter::repeat_n(weights, count));
                    }
                }

                let local_indices: Vec<u32> = match primitive.indices() {
                    Some(a) => self
                        .read(&a, &label("indices"), &INDICES)?
                        .into_iter()
                        .map(|i| i as u32)
                        .collect(),
                    None => (0..count as u32).collect(),
                };
                if let Some(pos) = local_indices.iter().position(|&i| i as usize >= count) {
                    return Err(ImportErrorKind::OutOfRange {
                        what: label("indices"),
                        detail: format!(
                            "index {} at position {pos} is beyond the {count} vertices",
                            local_indices[pos]
                        ),
                    });
                }
                let mut triangles = triangulate(&local_indices, mode);
                if position_readers[&position_accessor.index()] > 1 {
                    unused_vertices +=
                        drop_unused_vertices(&mut mesh, &mut normal_known, base, &mut triangles);
                }
                mesh.indices
                    .extend(triangles.into_iter().map(|i| i + base as u32));
                self.report.skinned_primitives += 1;
            }
            if part_missing_normals {
                // Smoothing stays within the part: another part's vertices live in another
                // space (a rigid part's in its node's), so equal positions mean nothing.
                let (vertices, indices) = (
                    first_vertex..mesh.positions.len(),
                    first_index..mesh.indices.len(),
                );
                compute_missing_normals(&mut mesh, &normal_known, vertices, indices);
                any_missing_normals = true;
            }
        }
        if mesh.positions.is_empty() || mesh.indices.is_empty() {
            return Err(ImportErrorKind::NoSkinnedMesh(
                "the skinned meshes have no triangles".into(),
            ));
        }
        if unused_vertices > 0 {
            self.report.notes.push(format!(
                "{unused_vertices} vertices no triangle uses were left out (primitives that \
                 share one vertex array, each drawing part of it)"
            ));
        }
        if any_missing_normals {
            self.report.computed_normals = true;
            self.report
                .notes
                .push("some primitives have no NORMAL; smooth normals were computed".into());
        }
        self.report.missing_uvs = any_missing_uvs;
        if any_missing_uvs {
            self.report
                .notes
                .push("some primitives have no TEXCOORD_0; their UVs are zero".into());
        }
        Ok(mesh)
    }

    /// A skinned primitive's influences (JOINTS_0/1, WEIGHTS_0/1), each skin joint mapped
    /// to its palette entry, reduced to the eight heaviest.
    fn read_influences(
        &mut self,
        primitive: &gltf::Primitive,
        count: usize,
        skin_entries: &[u16],
        (mi, pi): (usize, usize),
        skin: usize,
        mesh: &mut Mesh,
    ) -> Result<()> {
        let label = |attr: &str| format!("{attr} of mesh {mi} primitive {pi}");
        let check_count = |accessor: &gltf::Accessor, attr: &str| -> Result<()> {
            if accessor.count() != count {
                return Err(ImportErrorKind::OutOfRange {
                    what: format!("accessor {} ({})", accessor.index(), label(attr)),
                    detail: format!("{} elements, but POSITION has {count}", accessor.count()),
                });
            }
            Ok(())
        };
        // Up to eight influences from JOINTS_0/1 and WEIGHTS_0/1.
        let mut joint_sets = Vec::new();
        let mut weight_sets = Vec::new();
        for set in 0..2u32 {
            let joints = primitive.get(&Semantic::Joints(set));
            let weights = primitive.get(&Semantic::Weights(set));
            match (joints, weights) {
                (Some(j), Some(w)) => {
                    check_count(&j, &format!("JOINTS_{set}"))?;
                    check_count(&w, &format!("WEIGHTS_{set}"))?;
                    joint_sets.push(self.read(&j, &label(&format!("JOINTS_{set}")), &JOINTS)?);
                    weight_sets.push(self.read_finite_f32(
                        &w,
                        &label(&format!("WEIGHTS_{set}")),
                        &WEIGHTS,
                    )?);
                }
                (None, None) => {}
                _ => {
                    return Err(ImportErrorKind::Invalid(format!(
                        "mesh {mi} primitive {pi} has JOINTS_{set} or WEIGHTS_{set} without the other"
                    )));
                }
            }
        }
        if joint_sets.is_empty() {
            return Err(ImportErrorKind::NoSkinnedMesh(format!(
                "mesh {mi} primitive {pi} is bound to skin {skin} but has no JOINTS_0/WEIGHTS_0"
            )));
        }
        for v in 0..count {
            let mut influences: Vec<(u16, f32)> = Vec::with_capacity(8);
            let mut repeated = false;
            for (joints, weights) in joint_sets.iter().zip(&weight_sets) {
                for k in 0..4 {
                    let w = weights[v * 4 + k];
                    if w < 0.0 {
                        return Err(ImportErrorKind::Invalid(format!(
                            "mesh {mi} primitive {pi}: vertex {v} has negative weight {w}"
                        )));
                    }
                    if w == 0.0 {
                        continue;
                    }
                    let skin_joint = joints[v * 4 + k] as u32;
                    let entry = *skin_entries.get(skin_joint as usize).ok_or(
                        ImportErrorKind::JointIndexOutOfRange {
                            mesh: mi,
                            primitive: pi,
                            vertex: v,
                            joint: skin_joint,
                            joint_count: skin_entries.len(),
                        },
                    )?;
                    match influences.iter_mut().find(|(e, _)| *e == entry) {
                        Some((_, existing)) => {
                            *existing += w;
                            repeated = true;
                        }
                        None => influences.push((entry, w)),
                    }
                }
            }
            self.report.repeated_joint_vertices += repeated as usize;
            let (joints, weights) = self.reduce_influences(&mut influences);
            mesh.joints.push(joints);
            mesh.weights.push(weights);
        }
        Ok(())
    }

    /// Keeps the eight heaviest influences, sorted heaviest first, summing to 1.
    fn reduce_influences(
        &mut self,
        influences: &mut [(u16, f32)],
    ) -> ([u16; MAX_INFLUENCES], [f32; MAX_INFLUENCES]) {
        influences.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut joints = [0u16; MAX_INFLUENCES];
        let mut weights = [0f32; MAX_INFLUENCES];
        if influences.is_empty() {
            self.report.unweighted_vertices += 1;
            weights[0] = 1.0;
            return (joints, weights);
        }
        if influences.len() > MAX_INFLUENCES {
            self.report.reduced_influences += 1;
        }
        let kept = &influences[..influences.len().min(MAX_INFLUENCES)];
        let total_all: f32 = influences.iter().map(|i| i.1).sum();
        let total_kept: f32 = kept.iter().map(|i| i.1).sum();
        if influences.len() <= MAX_INFLUENCES && (total_all - 1.0).abs() > 1e-3 {
            self.report.renormalized_weights += 1;
        }
        for (k, &(j, w)) in kept.iter().enumerate() {
            joints[k] = j;
            weights[k] = w / total_kept;
        }
        (joints, weights)
    }
}

/// Keeps only the vertices from `base` on (the primitive just read) that `triangles` (its
/// indices, from 0) use, in their order, and renumbers `triangles` to match; returns how
/// many were dropped. For primitives that share their vertex arrays with others: exporters
/// give several primitives (one per material) the same arrays, each indexing its part; read
/// whole for each, a character of 2,868 vertices in 73 primitives skinned 209,364 vertices
/// a frame to draw 956 triangles. (A primitive with arrays of its own keeps every vertex,
/// used or not, as the file has it.)
fn drop_unused_vertices(
    mesh: &mut Mesh,
    normal_known: &mut Vec<bool>,
    base: usize,
    triangles: &mut [u32],
) -> usize {
    let count = mesh.positions.len() - base;
    let mut new_index = vec![u32::MAX; count];
    for &i in triangles.iter() {
        new_index[i as usize] = 0;
    }
    let mut kept = 0;
    for slot in new_index.iter_mut() {
        if *slot == 0 {
            *slot = kept;
            kept += 1;
        }
    }
    let kept = kept as usize;
    if kept == count {
        return 0;
    }
    for (old, &new) in new_index.iter().enumerate() {
        if new != u32::MAX {
            let (from, to) = (base + old, base + new as usize);
            mesh.positions[to] = mesh.positions[from];
            mesh.normals[to] = mesh.normals[from];
            mesh.uvs[to] = mesh.uvs[from];
            mesh.joints[to] = mesh.joints[from];
            mesh.weights[to] = mesh.weights[from];
            normal_known[to] = normal_known[from];
        }
    }
    mesh.positions.truncate(base + kept);
    mesh.normals.truncate(base + kept);
    mesh.uvs.truncate(base + kept);
    mesh.joints.truncate(base + kept);
    mesh.weights.truncate(base + kept);
    normal_known.truncate(base + kept);
    for i in triangles.iter_mut() {
        *i = new_index[*i as usize];
    }
    count - kept
}

fn triangulate(indices: &[u32], mode: Mode) -> Vec<u32> {
    match mode {
        Mode::TriangleStrip => {
            let mut out = Vec::with_capacity(indices.len().saturating_sub(2) * 3);
            for i in 0..indices.len().saturating_sub(2) {
                if i % 2 == 0 {
                    out.extend([indices[i], indices[i + 1], indices[i + 2]]);
                } else {
                    out.extend([indices[i + 1], indices[i], indices[i + 2]]);
                }
            }
            out
        }
        Mode::TriangleFan => {
            let mut out = Vec::with_capacity(indices.len().saturating_sub(2) * 3);
            for i in 1..indices.len().saturating_sub(1) {
                out.extend([indices[0], indices[i], indices[i + 1]]);
            }
            out
        }
        _ => indices[..indices.len() / 3 * 3].to_vec(),
    }
}

/// Area-weighted smooth normals for the vertices in `vertices` without one, from the
/// triangles in `indices` (which use only those vertices). Vertices at the same position
/// share their normal, so unindexed meshes (every triangle its own vertices) come out
/// smooth rather than faceted.
fn compute_missing_normals(
    mesh: &mut Mesh,
    known: &[bool],
    vertices: Range<usize>,
    indices: Range<usize>,
) {
    let key = |p: Vec3| (p.x.to_bits(), p.y.to_bits(), p.z.to_bits());
    let mut sums: HashMap<(u32, u32, u32), Vec3> = HashMap::new();
    for tri in mesh.indices[indices].chunks_exact(3) {
        let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| mesh.positions[i as usize]);
        let face = (b - a).cross(c - a); // length = 2 * area: area weighting for free
        for &i in tri {
            if !known[i as usize] {
                *sums
                    .entry(key(mesh.positions[i as usize]))
                    .or_insert(Vec3::ZERO) += face;
            }
        }
    }
    for i in vertices {
        let normal = &mut mesh.normals[i];
        if !known[i] {
            let sum = sums
                .get(&key(mesh.positions[i]))
                .copied()
                .unwrap_or(Vec3::ZERO);
            *normal = sum.try_normalize().unwrap_or(Vec3::Y);
        }
    }
}
