//! Writes a [`Rig`] as binary glTF 2.0 (`.glb`).
//!
//! How it works: one node per joint (same order, rest TRS, children lists), one skinned
//! mesh node, one skin, one animation per clip. Every accessor gets its own tightly packed,
//! 4-byte aligned buffer view in the single BIN chunk; key-time accessors are shared when
//! tracks use identical times. The JSON is built with `serde_json` (sorted keys) and the
//! numbers are written exactly, so the same rig always gives the same bytes.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use serde_json::{Value, json};

use super::{NO_PARENT, Rig, Track};

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_BYTE: u32 = 5121;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;

struct Writer {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    time_accessors: HashMap<Vec<u32>, usize>,
}

impl Writer {
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view = json!({
            "buffer": 0,
            "byteOffset": self.bin.len(),
            "byteLength": bytes.len(),
        });
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    fn accessor(
        &mut self,
        view: usize,
        component: u32,
        count: usize,
        kind: &str,
        extra: Value,
    ) -> usize {
        let mut accessor = json!({
            "bufferView": view,
            "componentType": component,
            "count": count,
            "type": kind,
        });
        if let (Value::Object(target), Value::Object(extra)) = (&mut accessor, extra) {
            target.extend(extra);
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// Float accessor with `n` components per element; `bounds` adds min/max.
    fn floats(
        &mut self,
        values: &[f32],
        n: usize,
        kind: &str,
        target: Option<u32>,
        bounds: bool,
    ) -> usize {
        // -0.0 becomes +0.0: debug and release builds may disagree on the sign of a zero,
        // and the file must be byte-identical from both.
        let values: Vec<f32> = values
            .iter()
            .map(|&v| if v == 0.0 { 0.0 } else { v })
            .collect();
        let values = values.as_slice();
        let view = self.view(bytemuck::cast_slice(values), target);
        let extra = if bounds {
            let mut min = vec![f32::INFINITY; n];
            let mut max = vec![f32::NEG_INFINITY; n];
            for chunk in values.chunks_exact(n) {
                for (i, &v) in chunk.iter().enumerate() {
                    min[i] = min[i].min(v);
                    max[i] = max[i].max(v);
                }
            }
            json!({ "min": min, "max": max })
        } else {
            json!({})
        };
        self.accessor(view, FLOAT, values.len() / n, kind, extra)
    }

    fn times(&mut self, times: &[f32]) -> usize {
        let key: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
        if let Some(&a) = self.time_accessors.get(&key) {
            return a;
        }
        let a = self.floats(times, 1, "SCALAR", None, true);
        self.time_accessors.insert(key, a);
        a
    }
}

fn track_sampler<T: Copy>(
    w: &mut Writer,
    track: &Track<T>,
    flatten: impl Fn(T) -> Vec<f32>,
    kind: &str,
) -> Value {
    let input = w.times(&track.times_secs);
    let values: Vec<f32> = track.values.iter().flat_map(|&v| flatten(v)).collect();
    let n = match kind {
        "VEC4" => 4,
        _ => 3,
    };
    let output = w.floats(&values, n, kind, None, false);
    json!({
        "input": input,
        "output": output,
        "interpolation": track.interpolation.name(),
    })
}

/// Serializes the rig as a `.glb` file: one skin over every joint and one mesh node. The
/// rig's palette must be one entry per joint (what the generators make); a palette with
/// further entries (several skins binding a joint differently) has no one-skin form.
pub fn write_glb(rig: &Rig, generator: &str) -> Vec<u8> {
    let skeleton = &rig.skeleton;
    let mesh = &rig.mesh;
    let joint_count = skeleton.joint_count();
    assert_eq!(
        skeleton.palette_len(),
        joint_count,
        "write_glb writes one skin: a palette of one entry per joint"
    );
    let mut w = Writer {
        bin: Vec::new(),
        views: Vec::new(),
        accessors: Vec::new(),
        time_accessors: HashMap::new(),
    };

    // Nodes: joints first (same indices), then one parent node per root whose folded
    // ancestor transform is not the identity, then the mesh node.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); joint_count];
    for (j, &p) in skeleton.parents.iter().enumerate() {
        if p != NO_PARENT {
            children[p as usize].push(j);
        }
    }
    let mut nodes: Vec<Value> = Vec::new();
    for (j, kids) in children.iter().enumerate() {
        let rest = skeleton.rest_pose[j];
        let mut node = json!({ "name": skeleton.names[j] });
        let canonical = |v: &[f32]| {
            v.iter()
                .map(|&x| if x == 0.0 { 0.0 } else { x })
                .collect::<Vec<f32>>()
        };
        if rest.translation != Vec3::ZERO {
            node["translation"] = json!(canonical(&rest.translation.to_array()));
        }
        if rest.rotation != Quat::IDENTITY {
            node["rotation"] = json!(canonical(&rest.rotation.to_array()));
        }
        if rest.scale != Vec3::ONE {
            node["scale"] = json!(canonical(&rest.scale.to_array()));
        }
        if !kids.is_empty() {
            node["children"] = json!(kids);
        }
        nodes.push(node);
    }
    let mut scene_nodes: Vec<usize> = Vec::new();
    for r in 0..skeleton.root_count {
        let parent = skeleton.model_from_root_parent[r];
        if parent == Mat4::IDENTITY {
            scene_nodes.push(r);
        } else {
            nodes.push(json!({
                "name": format!("{}_parent", skeleton.names[r]),
                "matrix": parent.to_cols_array(),
                "children": [r],
            }));
            scene_nodes.push(nodes.len() - 1);
        }
    }

    // Mesh.
    let positions: Vec<f32> = mesh.positions.iter().flat_map(|p| p.to_array()).collect();
    let normals: Vec<f32> = mesh.normals.iter().flat_map(|n| n.to_array()).collect();
    let uvs: Vec<f32> = mesh.uvs.iter().flat_map(|t| t.to_array()).collect();
    let position = w.floats(&positions, 3, "VEC3", Some(ARRAY_BUFFER), true);
    let normal = w.floats(&normals, 3, "VEC3", Some(ARRAY_BUFFER), false);
    let uv = w.floats(&uvs, 2, "VEC2", Some(ARRAY_BUFFER), false);
    // Influence set `set` (0: JOINTS_0/WEIGHTS_0, 1: the fifth to eighth): its joints and
    // weights accessors.
    let influence_set = |w: &mut Writer, set: usize| {
        let four = |k: usize| set * 4 + k;
        let weights: Vec<f32> = mesh
            .weights
            .iter()
            .flat_map(|ws| (0..4).map(move |k| ws[four(k)]))
            .collect();
        let joints = if joint_count <= 256 {
            let bytes: Vec<u8> = mesh
                .joints
                .iter()
                .flat_map(|js| (0..4).map(move |k| js[four(k)] as u8))
                .collect();
            let view = w.view(&bytes, Some(ARRAY_BUFFER));
            w.accessor(view, UNSIGNED_BYTE, mesh.vertex_count(), "VEC4", json!({}))
        } else {
            let shorts: Vec<u16> = mesh
                .joints
                .iter()
                .flat_map(|js| (0..4).map(move |k| js[four(k)]))
                .collect();
            let view = w.view(bytemuck::cast_slice(&shorts), Some(ARRAY_BUFFER));
            w.accessor(view, UNSIGNED_SHORT, mesh.vertex_count(), "VEC4", json!({}))
        };
        (
            joints,
            w.floats(&weights, 4, "VEC4", Some(ARRAY_BUFFER), false),
        )
    };
    let (joints, weight) = influence_set(&mut w, 0);
    // The second set only where some vertex has more than four influences, so a rig
    // without writes the same file as before there were two.
    let second_set = (mesh.max_influences() > 4).then(|| influence_set(&mut w, 1));
    let indices = if mesh.vertex_count() <= u16::MAX as usize {
        let shorts: Vec<u16> = mesh.indices.iter().map(|&i| i as u16).collect();
        let view = w.view(bytemuck::cast_slice(&shorts), Some(ELEMENT_ARRAY_BUFFER));
        w.accessor(view, UNSIGNED_SHORT, shorts.len(), "SCALAR", json!({}))
    } else {
        let view = w.view(
            bytemuck::cast_slice(&mesh.indices),
            Some(ELEMENT_ARRAY_BUFFER),
        );
        w.accessor(view, UNSIGNED_INT, mesh.indices.len(), "SCALAR", json!({}))
    };
    let inverse_binds: Vec<f32> = skeleton
        .joint_from_bind
        .iter()
        .flat_map(|m| m.to_cols_array())
        .collect();
    let inverse_bind = w.floats(&inverse_binds, 16, "MAT4", None, false);

    nodes.push(json!({ "name": "body", "mesh": 0, "skin": 0 }));
    let mesh_node = nodes.len() - 1;
    scene_nodes.push(mesh_node);

    // Animations.
    let mut animations = Vec::new();
    for clip in &rig.clips {
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for (j, tracks) in clip.joint_tracks.iter().enumerate() {
            let mut push = |sampler: Value, path: &str| {
                samplers.push(sampler);
                channels.push(json!({
                    "sampler": samplers.len() - 1,
                    "target": { "node": j, "path": path },
                }));
            };
            if let Some(t) = &tracks.translation {
                push(
                    track_sampler(&mut w, t, |v| v.to_array().to_vec(), "VEC3"),
                    "translation",
                );
            }
            if let Some(t) = &tracks.rotation {
                push(
                    track_sampler(&mut w, t, |q| q.to_array().to_vec(), "VEC4"),
                    "rotation",
                );
            }
            if let Some(t) = &tracks.scale {
                push(
                    track_sampler(&mut w, t, |v| v.to_array().to_vec(), "VEC3"),
                    "scale",
                );
            }
        }
        animations.push(json!({
            "name": clip.name,
            "samplers": samplers,
            "channels": channels,
        }));
    }
    while !w.bin.len().is_multiple_of(4) {
        w.bin.push(0);
    }
    let mut attributes = json!({
        "POSITION": position,
        "NORMAL": normal,
        "TEXCOORD_0": uv,
        "JOINTS_0": joints,
        "WEIGHTS_0": weight,
    });
    if let Some((joints, weight)) = second_set {
        attributes["JOINTS_1"] = json!(joints);
        attributes["WEIGHTS_1"] = json!(weight);
    }
    let document = json!({
        "asset": { "version": "2.0", "generator": generator },
        "scene": 0,
        "scenes": [{ "nodes": scene_nodes }],
        "nodes": nodes,
        "meshes": [{
            "name": "body",
            "primitives": [{
                "attributes": attributes,
                "indices": indices,
                "mode": 4,
            }],
        }],
        "skins": [{
            "name": "skeleton",
            "joints": (0..joint_count).collect::<Vec<_>>(),
            "inverseBindMatrices": inverse_bind,
        }],
        "animations": animations,
        "accessors": w.accessors,
        "bufferViews": w.views,
        "buffers": [{ "byteLength": w.bin.len() }],
    });
    container(&document, &w.bin)
}

/// The GLB container: header, JSON chunk (space-padded) and BIN chunk.
fn container(document: &Value, bin: &[u8]) -> Vec<u8> {
    let mut json_bytes = serde_json::to_vec(document).expect("JSON of numbers and strings");
    while !json_bytes.len().is_multiple_of(4) {
        json_bytes.push(b' ');
    }
    let total = 12 + 8 + json_bytes.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json_bytes);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out
}

/// Serializes a static triangle mesh (one node, one primitive, no skin) as a `.glb` file:
/// what `skinbench pose` writes. Vertices and indices stay in the order given.
pub fn write_mesh_glb(
    name: &str,
    positions: &[Vec3],
    normals: &[Vec3],
    uvs: &[glam::Vec2],
    indices: &[u32],
    generator: &str,
) -> Vec<u8> {
    let mut w = Writer {
        bin: Vec::new(),
        views: Vec::new(),
        accessors: Vec::new(),
        time_accessors: HashMap::new(),
    };
    let flat3: Vec<f32> = positions.iter().flat_map(|p| p.to_array()).collect();
    let position = w.floats(&flat3, 3, "VEC3", Some(ARRAY_BUFFER), true);
    let flat3: Vec<f32> = normals.iter().flat_map(|n| n.to_array()).collect();
    let normal = w.floats(&flat3, 3, "VEC3", Some(ARRAY_BUFFER), false);
    let flat2: Vec<f32> = uvs.iter().flat_map(|t| t.to_array()).collect();
    let uv = w.floats(&flat2, 2, "VEC2", Some(ARRAY_BUFFER), false);
    let view = w.view(bytemuck::cast_slice(indices), Some(ELEMENT_ARRAY_BUFFER));
    let index = w.accessor(view, UNSIGNED_INT, indices.len(), "SCALAR", json!({}));
    while !w.bin.len().is_multiple_of(4) {
        w.bin.push(0);
    }
    let document = json!({
        "asset": { "version": "2.0", "generator": generator },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "name": name, "mesh": 0 }],
        "meshes": [{
            "name": name,
            "primitives": [{
                "attributes": { "POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv },
                "indices": index,
                "mode": 4,
            }],
        }],
        "accessors": w.accessors,
        "bufferViews": w.views,
        "buffers": [{ "byteLength": w.bin.len() }],
    });
    container(&document, &w.bin)
}
