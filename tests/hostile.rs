//! Inputs that look valid but once killed the process: each must end in a clear error or
//! in correct output. The files are built here.

mod common;

use std::sync::Arc;

use serde_json::json;
use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::crowd::verify::{POSE_TOLERANCE, verify_hierarchy};
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig, Schedule};
use skinbench::prepare::PreparedRig;
use skinbench::rig::import_slice;
use skinbench::skin::{OutputBuffer, SkinVariant};

/// A 1 KB .gltf whose position accessor claims a billion elements: the file cannot back
/// them, so import must say so before allocating anything by that count.
#[test]
fn an_accessor_claiming_more_than_its_view_holds_is_refused_before_allocating() {
    let gltf = common::TinyGltf::new();
    let mut doc = gltf.document();
    doc["accessors"][0]["count"] = json!(1u64 << 31);
    let bytes = serde_json::to_vec(&doc).unwrap();
    assert!(bytes.len() < 4096);
    let err = import_slice(&bytes, "huge.gltf", None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("huge.gltf") && err.contains("accessor 0") && err.contains("2147483648"),
        "{err}"
    );
    // The same claim without a buffer view: zeros the file does not hold (plus one sparse
    // substitution, without which glTF needs a buffer view).
    doc["accessors"][0]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    doc["accessors"][0]["sparse"] = json!({
        "count": 1,
        "indices": { "bufferView": 3, "componentType": 5123 },
        "values": { "bufferView": 0 }
    });
    let bytes = serde_json::to_vec(&doc).unwrap();
    let err = import_slice(&bytes, "viewless.gltf", None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("viewless.gltf") && err.contains("without a buffer view"),
        "{err}"
    );
    // A byte stride that makes the claim larger still.
    let mut doc = gltf.document();
    doc["accessors"][0]["count"] = json!(u32::MAX);
    doc["bufferViews"][0]["byteStride"] = json!(252);
    let bytes = serde_json::to_vec(&doc).unwrap();
    let err = import_slice(&bytes, "stride.gltf", None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("accessor 0"), "{err}");
}

/// The tiny rig with its two joints replaced by one chain of `depth` joints, the
/// animated one second in the chain.
fn chain_glb(depth: usize) -> Vec<u8> {
    let mut gltf = common::TinyGltf::new();
    // Node 0 is the root, node 1 the animated joint, node 2 the mesh; the chain goes on
    // from node 3.
    let mut nodes = vec![
        json!({ "name": "root", "children": [1] }),
        json!({ "name": "joint_1", "translation": [0.0, 1e-4, 0.0], "children": [3] }),
        json!({ "name": "mesh", "mesh": 0, "skin": 0 }),
    ];
    let mut joints = vec![0, 1];
    for i in 3..depth + 1 {
        let mut node = json!({ "translation": [0.0, 1e-4, 0.0] });
        if i < depth {
            node["children"] = json!([i + 1]);
        }
        nodes.push(node);
        joints.push(i);
    }
    gltf.json["nodes"] = json!(nodes);
    gltf.json["skins"] = json!([{ "joints": joints }]);
    gltf.glb_bytes()
}

/// A chain of 60,000 joints (inside the 65,535 limit) posed by `tree`, whose walk recurses
/// once per level: it must not overflow a worker's stack, in the frame or in verify, and
/// it must pose the chain as `flat` does (the same f32 products in the same order; against
/// the f64 oracle both drift by about 3e-3 of the rig's size over 60,000 levels).
#[test]
fn tree_walks_a_chain_of_sixty_thousand_joints() {
    let depth = 60_000;
    let (rig, report) = import_slice(&chain_glb(depth), "chain.glb", None).unwrap();
    assert_eq!(rig.skeleton.max_depth(), depth);
    let rig = Arc::new(PreparedRig::new(rig, &report, "chain.glb"));
    let mut crowd = InstanceStore::new();
    crowd.resize(9, &rig, 2.0);
    crowd.advance(0.3);
    let poses = |hierarchy, schedule| {
        let config = PipelineConfig {
            hierarchy,
            skin: SkinVariant::Naive,
            schedule,
            threads: 1,
            blend_weight: 0.0,
        };
        let mut pipeline = Pipeline::new(rig.clone(), config).unwrap();
        let mut out = OutputBuffer::for_instances(pipeline.output_layout(), crowd.len());
        pipeline.run_frame(crowd.as_slice(), &mut out).unwrap();
        let error = verify_hierarchy(&mut pipeline, crowd.as_slice()).unwrap();
        assert!(error < 1e-2, "{hierarchy:?}: {error:e}");
        pipeline.model_poses(crowd.as_slice()).unwrap()
    };
    let flat = poses(HierarchyVariant::Flat, Schedule::Fused);
    for schedule in [Schedule::Staged, Schedule::Fused] {
        let tree = poses(HierarchyVariant::Tree, schedule);
        let worst = tree
            .iter()
            .flatten()
            .zip(flat.iter().flatten())
            .map(|(a, b)| {
                (*a - *b)
                    .abs()
                    .to_cols_array()
                    .into_iter()
                    .fold(0.0, f32::max)
            })
            .fold(0.0, f32::max);
        assert!(
            worst as f64 <= POSE_TOLERANCE * rig.bounds_size as f64,
            "{worst:e}"
        );
    }
}
