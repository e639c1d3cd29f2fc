//! glTF import: the public rigs, our own writer's output, and every kind of bad input.

mod common;

use std::path::Path;
use std::process::Command;

use common::{TinyGltf, rigs_dir, temp_dir};
use serde_json::json;
use skinbench::rig::import::ImportErrorKind;
use skinbench::rig::{Interpolation, NO_PARENT, RigSummary, import_path, import_slice};

struct Expected {
    file: &'static str,
    joints: usize,
    vertices: usize,
    triangles: usize,
    clips: &'static [&'static str],
}

const EXPECTED: [Expected; 7] = [
    Expected {
        file: "SimpleSkin/SimpleSkin.gltf",
        joints: 2,
        vertices: 10,
        triangles: 8,
        clips: &["animation_0"],
    },
    Expected {
        file: "RiggedSimple/RiggedSimple.gltf",
        joints: 2,
        vertices: 160,
        triangles: 188,
        clips: &["animation_0"],
    },
    Expected {
        file: "Fox/Fox.glb",
        joints: 24,
        vertices: 1728,
        triangles: 576,
        clips: &["Survey", "Walk", "Run"],
    },
    Expected {
        file: "CesiumMan/CesiumMan.glb",
        joints: 19,
        vertices: 3273,
        triangles: 4672,
        clips: &["animation"],
    },
    Expected {
        file: "FoxVariants/Fox_cubicspline.glb",
        joints: 24,
        vertices: 1728,
        triangles: 576,
        clips: &["Survey", "Walk", "Run"],
    },
    Expected {
        file: "FoxVariants/Fox_nonuniform.glb",
        joints: 24,
        vertices: 1728,
        triangles: 576,
        clips: &["Survey", "Walk", "Run"],
    },
    Expected {
        file: "FoxVariants/Fox_8influences.glb",
        joints: 24,
        vertices: 1728,
        triangles: 576,
        clips: &["Survey", "Walk", "Run"],
    },
];

fn public_rigs_import_with_expected_counts() {
    let Some(dir) = rigs_dir() else {
        common::cannot_run_here()
    };
    for e in &EXPECTED {
        let (rig, report) = import_path(&dir.join(e.file)).unwrap_or_else(|err| panic!("{err}"));
        let s = RigSummary::new(&rig, &report);
        assert_eq!(s.joints, e.joints, "{}", e.file);
        assert_eq!(s.vertices, e.vertices, "{}", e.file);
        assert_eq!(s.triangles, e.triangles, "{}", e.file);
        let names: Vec<&str> = rig.clips.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, e.clips, "{}", e.file);
        assert_eq!(s.influences.iter().sum::<usize>(), s.vertices, "{}", e.file);
        // Parents come before children, roots first.
        let sk = &rig.skeleton;
        for (j, &p) in sk.parents.iter().enumerate() {
            if j < sk.root_count {
                assert_eq!(p, NO_PARENT, "{}", e.file);
            } else {
                assert!((p as usize) < j, "{}: joint {j} has parent {p}", e.file);
            }
        }
        // Weights are normalized, sorted, and finite.
        for w in &rig.mesh.weights {
            let sum: f32 = w.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "{}: weights {w:?}", e.file);
            assert!(
                w.windows(2).all(|p| p[0] >= p[1]),
                "{}: weights {w:?}",
                e.file
            );
        }
        assert!(rig.clips.iter().all(|c| c.duration_secs > 0.0));
    }
}

fn rig_specific_facts() {
    let Some(dir) = rigs_dir() else {
        common::cannot_run_here()
    };
    let (fox, _) = import_path(&dir.join("Fox/Fox.glb")).unwrap();
    assert_eq!(fox.skeleton.max_depth(), 8);
    // Fox has no normals: they are computed, smooth and unit length.
    assert!(
        fox.mesh
            .normals
            .iter()
            .all(|n| (n.length() - 1.0).abs() < 1e-4)
    );

    let (cubic, _) = import_path(&dir.join("FoxVariants/Fox_cubicspline.glb")).unwrap();
    assert!(
        cubic
            .clips
            .iter()
            .all(|c| c.interpolations() == vec![Interpolation::CubicSpline])
    );

    let (eight, report) = import_path(&dir.join("FoxVariants/Fox_8influences.glb")).unwrap();
    // The importer keeps both sets (5 to 8 influences, 432 vertices each); prepare keeps
    // them, or cuts them where asked.
    assert_eq!(
        report.reduced_influences, 0,
        "no vertex has more than eight"
    );
    assert_eq!(
        eight.mesh.influence_histogram(),
        [0, 0, 0, 0, 432, 432, 432, 432]
    );
    let kept = skinbench::prepare::PreparedRig::new(eight.clone(), &report, "eight").unwrap();
    assert_eq!(
        *kept.mesh.sorted().class_counts(),
        [0, 0, 0, 0, 432, 432, 432, 432]
    );
    assert!(kept.uncut_mesh.is_none());
    // `--max-influences 4`.
    let prepared =
        skinbench::prepare::PreparedRig::with_max_influences(eight, &report, "eight", 4).unwrap();
    assert_eq!(
        prepared.source_mesh.influence_histogram(),
        [0, 0, 0, 1728, 0, 0, 0, 0]
    );
    assert!(prepared.uncut_mesh.is_some());
    for v in 0..prepared.source_mesh.vertex_count() {
        let sum: f32 = prepared.source_mesh.weights[v].iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "vertex {v}: weights sum to {sum}");
    }

    let (nonuniform, _) = import_path(&dir.join("FoxVariants/Fox_nonuniform.glb")).unwrap();
    let parent = nonuniform.skeleton.model_from_root_parent[0];
    let (scale, _, _) = parent.to_scale_rotation_translation();
    assert!(
        (scale.y - 1.5).abs() < 1e-4 && (scale.z - 0.75).abs() < 1e-4,
        "{scale}"
    );

    let (cesium, report) = import_path(&dir.join("CesiumMan/CesiumMan.glb")).unwrap();
    assert_eq!(report.merged_animations, 19);
    assert_eq!(cesium.clips[0].channel_count(), 57);
    // The Z-up root node is folded in: the model stands along +y.
    let (min, max) = cesium.mesh.bounds();
    assert!(cesium.skeleton.model_from_root_parent[0] != glam::Mat4::IDENTITY);
    assert!(
        max.z - min.z > 1.0,
        "CesiumMan is tall in its own (z-up) mesh space: {min} {max}"
    );

    let (simple, report) = import_path(&dir.join("RiggedSimple/RiggedSimple.gltf")).unwrap();
    assert_eq!(simple.skeleton.root_count, 1);
    assert!(!report.computed_normals);
}

fn tiny_file_round_trips_in_both_containers() {
    let tiny = TinyGltf::new();
    for (bytes, name) in [
        (tiny.gltf_bytes(), "tiny.gltf"),
        (tiny.glb_bytes(), "tiny.glb"),
    ] {
        let (rig, report) = import_slice(&bytes, name, None).unwrap();
        assert_eq!(rig.skeleton.names, vec!["root", "tip"]);
        assert_eq!(rig.mesh.vertex_count(), 3);
        assert_eq!(rig.mesh.influence_histogram(), [2, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(rig.clips[0].name, "bend");
        assert!(report.computed_normals && report.missing_uvs);
    }
}

fn byte_stride_sparse_and_normalized_weights_are_read() {
    // Positions interleaved with padding (byteStride 16), a sparse override of vertex 2,
    // and weights as normalized u8.
    let mut tiny = TinyGltf::new();
    tiny.weights = vec![]; // replaced below by a u8 view
    let mut doc = tiny.document();
    let positions_padded: Vec<u8> = [
        [0.0f32, 0.0, 0.0, 9.0],
        [1.0, 0.0, 0.0, 9.0],
        [5.0, 5.0, 5.0, 9.0],
    ]
    .iter()
    .flatten()
    .flat_map(|f| f.to_le_bytes())
    .collect();
    let sparse_index: Vec<u8> = vec![2, 0, 0, 0];
    let sparse_value: Vec<u8> = [0.0f32, 1.0, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let weights_u8: Vec<u8> = vec![255, 0, 0, 0, 128, 127, 0, 0, 255, 0, 0, 0];
    let extra: Vec<u8> = [positions_padded, sparse_index, sparse_value, weights_u8].concat();
    let uri = doc["buffers"][0]["uri"].as_str().unwrap().to_string();
    let (prefix, data) = uri.split_once("base64,").unwrap();
    use base64::Engine as _;
    let mut bin = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let base = bin.len();
    bin.extend_from_slice(&extra);
    doc["buffers"][0] = json!({
        "byteLength": bin.len(),
        "uri": format!("{prefix}base64,{}", base64::engine::general_purpose::STANDARD.encode(&bin)),
    });
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(json!({ "buffer": 0, "byteOffset": base, "byteLength": 48, "byteStride": 16 }));
    views.push(json!({ "buffer": 0, "byteOffset": base + 48, "byteLength": 4 }));
    views.push(json!({ "buffer": 0, "byteOffset": base + 52, "byteLength": 12 }));
    views.push(json!({ "buffer": 0, "byteOffset": base + 64, "byteLength": 12 }));
    let n = views.len();
    doc["accessors"][0] = json!({
        "bufferView": n - 4, "componentType": 5126, "count": 3, "type": "VEC3",
        "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0],
        "sparse": { "count": 1,
            "indices": { "bufferView": n - 3, "componentType": 5125 },
            "values": { "bufferView": n - 2 } }
    });
    doc["accessors"][2] = json!({ "bufferView": n - 1, "componentType": 5121, "normalized": true, "count": 3, "type": "VEC4" });
    let (rig, report) =
        import_slice(&serde_json::to_vec(&doc).unwrap(), "strided.gltf", None).unwrap();
    assert_eq!(rig.mesh.positions[1], glam::Vec3::new(1.0, 0.0, 0.0));
    assert_eq!(
        rig.mesh.positions[2],
        glam::Vec3::new(0.0, 1.0, 0.0),
        "sparse value applied"
    );
    let w = rig.mesh.weights[1];
    assert!(
        (w[0] - 128.0 / 255.0).abs() < 1e-3 && (w[0] + w[1] - 1.0).abs() < 1e-6,
        "{w:?}"
    );
    assert_eq!(
        report.renormalized_weights, 0,
        "128 + 127 = 255 sums to one"
    );
}

fn a_skin_in_another_hierarchy_is_left_out_and_said() {
    // A second hierarchy: a lone joint node at the scene root, skinning a second mesh node
    // (the same triangle). The character is the first hierarchy's (two joints).
    let mut tiny = TinyGltf::new();
    let nodes = tiny.json["nodes"].as_array_mut().unwrap();
    nodes.push(json!({ "name": "lonely" }));
    nodes.push(json!({ "name": "stray", "mesh": 0, "skin": 1 }));
    tiny.json["skins"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "joints": [3] }));
    tiny.json["scenes"][0]["nodes"] = json!([0, 2, 3, 4]);
    let (rig, report) = import_slice(&tiny.gltf_bytes(), "two-hierarchies.gltf", None).unwrap();
    assert_eq!(rig.skeleton.joint_count(), 2);
    assert_eq!(
        rig.mesh.vertex_count(),
        3,
        "the stray mesh node is not drawn"
    );
    assert_eq!(report.skins.len(), 2);
    assert!(report.skins[0].merged && report.skins[0].left_out.is_none());
    let why = report.skins[1].left_out.as_deref().unwrap();
    assert!(
        why.contains("another hierarchy") && why.contains("lonely"),
        "{why}"
    );
    assert_eq!(report.left_out_meshes.len(), 1);
    assert_eq!(report.left_out_meshes[0].node, 4);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("skin 1") && n.contains("left out"))
    );
}

fn a_skin_without_joints_is_left_out_and_said() {
    let mut tiny = TinyGltf::new();
    tiny.json["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "name": "jointless", "mesh": 0, "skin": 1 }));
    tiny.json["skins"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "joints": [] }));
    tiny.json["scenes"][0]["nodes"] = json!([0, 2, 3]);
    // The schema asks for at least one joint; the gltf crate does not check it, so the
    // importer leaves the skin out and says so.
    let (rig, report) = import_slice(&tiny.gltf_bytes(), "jointless.gltf", None).unwrap();
    assert_eq!(rig.mesh.vertex_count(), 3);
    assert_eq!(
        report.skins[1].left_out.as_deref(),
        Some("it has no joints")
    );
    assert_eq!(report.left_out_meshes[0].node, 3);
    assert!(
        report.left_out_meshes[0].reason.contains("skin 1"),
        "{:?}",
        report.left_out_meshes
    );
}

fn skins_that_name_different_skeleton_roots_still_share_the_node_hierarchy() {
    // In glTF a joint's parent is its node's parent, so two skins cannot disagree about
    // it; what they can disagree about is their `skeleton` root. The second skin names the
    // tip as its root, which is not an ancestor of the root joint: noted, ignored, and the
    // two skins are one skeleton.
    let mut tiny = TinyGltf::new();
    tiny.json["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "name": "second", "mesh": 0, "skin": 1 }));
    tiny.json["skins"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "joints": [1, 0], "skeleton": 1 }));
    tiny.json["scenes"][0]["nodes"] = json!([0, 2, 3]);
    let (rig, report) = import_slice(&tiny.gltf_bytes(), "two-roots.gltf", None).unwrap();
    assert_eq!(rig.skeleton.joint_count(), 2);
    assert_eq!(rig.skeleton.parents, vec![NO_PARENT, 0]);
    assert_eq!(rig.mesh.vertex_count(), 6, "both mesh nodes");
    assert_eq!(
        rig.skeleton.palette_len(),
        2,
        "the same pairs share the palette"
    );
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("skin 1") && n.contains("not an ancestor")),
        "{:?}",
        report.notes
    );
}

fn joints_are_reordered_parents_first_and_indices_remapped() {
    // Skin lists the child first; node order is child, parent.
    let mut tiny = TinyGltf::new();
    tiny.json["skins"][0]["joints"] = json!([1, 0]);
    // Vertex 0 is bound to skin joint 1 (node 0 = "root"), vertex 2 to skin joint 0 ("tip").
    tiny.joints = vec![1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
    let (rig, _) = import_slice(&tiny.gltf_bytes(), "reordered.gltf", None).unwrap();
    assert_eq!(rig.skeleton.names, vec!["root", "tip"]);
    assert_eq!(
        rig.mesh.joints[0][0], 0,
        "skin joint 1 is node 0, our joint 0"
    );
    assert_eq!(rig.mesh.joints[2][0], 1);
}

fn non_joint_ancestor_is_folded_and_channels_on_other_nodes_are_counted() {
    let mut tiny = TinyGltf::new();
    let nodes = tiny.json["nodes"].as_array_mut().unwrap();
    nodes.push(json!({ "name": "armature", "translation": [0.0, 0.0, 5.0], "children": [0] }));
    tiny.json["scenes"][0]["nodes"] = json!([3, 2]);
    tiny.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "sampler": 0, "target": { "node": 2, "path": "rotation" } }));
    let (rig, report) = import_slice(&tiny.gltf_bytes(), "folded.gltf", None).unwrap();
    assert_eq!(rig.skeleton.model_from_root_parent[0].w_axis.z, 5.0);
    assert_eq!(report.ignored_node_channels, 1);
}

/// A file named .glb that is not one is refused with its first bytes as a reader can read
/// them: text where they are text (and what such a file usually is), hex where not.
fn a_file_that_is_not_a_glb_is_shown_as_what_it_starts_with() {
    let cases: [(&[u8], &str, &[&str]); 4] = [
        (
            b"<!DOCTYPE html><html><head>",
            "page.glb",
            &["starts \"<!DOCTYPE html><\"", "HTML"],
        ),
        (
            b"version https://git-lfs.github.com/spec/v1\noid sha256:",
            "pointer.glb",
            &[
                "starts \"version https://\"",
                "Git LFS pointer",
                "git lfs pull",
            ],
        ),
        (
            b"PK\x03\x04zipzipzip",
            "zip.glb",
            &["with the bytes 50 4b 03 04 7a 69 70"],
        ),
        (b"ab", "short.glb", &["starts \"ab\""]),
    ];
    for (bytes, name, wanted) in cases {
        let message = import_slice(bytes, name, None).unwrap_err().to_string();
        for w in wanted {
            assert!(message.contains(w), "{name}: {message:?} lacks {w:?}");
        }
        assert!(
            !message.contains("[60,"),
            "{name}: bytes as decimals: {message}"
        );
    }
}

fn expect_error(bytes: &[u8], name: &str, check: impl Fn(&ImportErrorKind) -> bool) {
    common::save_fuzz_seed(name, bytes);
    match import_slice(bytes, name, None) {
        Ok(_) => panic!("{name}: imported without error"),
        Err(e) => {
            let message = e.to_string();
            assert!(
                message.starts_with(name),
                "message names the file: {message}"
            );
            assert!(check(&e.kind), "{name}: unexpected error {message}");
        }
    }
}

fn bad_containers() {
    expect_error(b"", "empty.gltf", |k| matches!(k, ImportErrorKind::Empty));
    expect_error(b"hello, world", "hello.gltf", |k| {
        matches!(k, ImportErrorKind::NotGltf(_))
    });
    expect_error(b"PK\x03\x04zipzipzip", "zip.glb", |k| {
        matches!(k, ImportErrorKind::BadGlbMagic { .. })
    });
    let glb = TinyGltf::new().glb_bytes();
    expect_error(&glb[..glb.len() / 2], "half.glb", |k| {
        matches!(k, ImportErrorKind::TruncatedGlb(_))
    });
    expect_error(&glb[..10], "header.glb", |k| {
        matches!(k, ImportErrorKind::TruncatedGlb(_))
    });
    let mut text = String::from_utf8(TinyGltf::new().gltf_bytes()).unwrap();
    text.insert(text.len() / 2, '}');
    expect_error(
        text.as_bytes(),
        "syntax.gltf",
        |k| matches!(k, ImportErrorKind::Json { line, .. } if *line > 1),
    );
}

fn missing_external_buffer_names_the_uri() {
    let mut doc = TinyGltf::new().document();
    doc["buffers"][0]["uri"] = json!("missing.bin");
    let dir = temp_dir("missing-buffer");
    let path = dir.join("external.gltf");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    let err = import_path(&path).unwrap_err();
    assert!(
        matches!(err.kind, ImportErrorKind::MissingBuffer { ref uri, .. } if uri == "missing.bin"),
        "{err}"
    );
    assert!(err.to_string().contains("external.gltf"));
}

fn external_buffer_is_loaded() {
    let tiny = TinyGltf::new();
    let mut doc = tiny.document();
    use base64::Engine as _;
    let uri = doc["buffers"][0]["uri"].as_str().unwrap().to_string();
    let bin = base64::engine::general_purpose::STANDARD
        .decode(uri.split_once("base64,").unwrap().1)
        .unwrap();
    let dir = temp_dir("external-buffer");
    std::fs::write(dir.join("my data.bin"), &bin).unwrap();
    doc["buffers"][0]["uri"] = json!("my%20data.bin");
    std::fs::write(dir.join("external.gltf"), serde_json::to_vec(&doc).unwrap()).unwrap();
    let (rig, _) = import_path(&dir.join("external.gltf")).unwrap();
    assert_eq!(rig.mesh.vertex_count(), 3);
}

fn out_of_range_views_and_accessors() {
    let mut doc = TinyGltf::new().document();
    doc["bufferViews"][0]["byteLength"] = json!(100_000);
    expect_error(&serde_json::to_vec(&doc).unwrap(), "view.gltf", |k| {
        matches!(k, ImportErrorKind::OutOfRange { .. })
    });

    let mut doc = TinyGltf::new().document();
    doc["accessors"][0]["count"] = json!(4);
    expect_error(&serde_json::to_vec(&doc).unwrap(), "accessor.gltf", |k| {
        matches!(k, ImportErrorKind::OutOfRange { .. })
    });

    let mut doc = TinyGltf::new().document();
    doc["accessors"][0]["bufferView"] = json!(42);
    expect_error(&serde_json::to_vec(&doc).unwrap(), "index.gltf", |k| {
        matches!(k, ImportErrorKind::Invalid(_))
    });

    let mut tiny = TinyGltf::new();
    tiny.indices = vec![0, 1, 7];
    expect_error(&tiny.gltf_bytes(), "indices.gltf", |k| {
        matches!(k, ImportErrorKind::OutOfRange { .. })
    });
}

fn accessor_of_the_wrong_type() {
    let mut doc = TinyGltf::new().document();
    doc["accessors"][2]["type"] = json!("VEC2");
    expect_error(&serde_json::to_vec(&doc).unwrap(), "vec2.gltf", |k| {
        matches!(k, ImportErrorKind::WrongAccessorType { what, found, .. }
            if what.contains("WEIGHTS_0") && found == "VEC2 of FLOAT")
    });
    let mut doc = TinyGltf::new().document();
    doc["accessors"][0]["type"] = json!("VEC2");
    expect_error(
        &serde_json::to_vec(&doc).unwrap(),
        "position-vec2.gltf",
        |k| matches!(k, ImportErrorKind::WrongAccessorType { what, .. } if what.contains("POSITION")),
    );
    let mut doc = TinyGltf::new().document();
    doc["accessors"][1]["componentType"] = json!(5126);
    expect_error(
        &serde_json::to_vec(&doc).unwrap(),
        "joints-float.gltf",
        |k| matches!(k, ImportErrorKind::WrongAccessorType { .. }),
    );
}

fn no_skinned_mesh() {
    let mut tiny = TinyGltf::new();
    tiny.json["nodes"][2]
        .as_object_mut()
        .unwrap()
        .remove("skin");
    expect_error(&tiny.gltf_bytes(), "unskinned.gltf", |k| {
        matches!(k, ImportErrorKind::NoSkinnedMesh(_))
    });
}

fn joint_index_beyond_the_skin() {
    let mut tiny = TinyGltf::new();
    tiny.joints[4] = 9;
    expect_error(&tiny.gltf_bytes(), "joint9.gltf", |k| {
        matches!(
            k,
            ImportErrorKind::JointIndexOutOfRange {
                joint: 9,
                joint_count: 2,
                vertex: 1,
                ..
            }
        )
    });
}

fn too_many_joints() {
    let count = 65_536;
    let mut tiny = TinyGltf::new();
    let mut nodes = vec![json!({ "name": "root", "children": (1..count).collect::<Vec<_>>() })];
    nodes.extend((1..count).map(|_| json!({})));
    nodes.push(json!({ "mesh": 0, "skin": 0 }));
    tiny.json["nodes"] = json!(nodes);
    tiny.json["scenes"][0]["nodes"] = json!([0, count]);
    tiny.json["skins"][0]["joints"] = json!((0..count).collect::<Vec<_>>());
    tiny.json["animations"] = json!([]);
    expect_error(&tiny.gltf_bytes(), "huge.gltf", |k| {
        matches!(k, ImportErrorKind::TooManyJoints { count: 65_536 })
    });
}

fn non_finite_numbers() {
    let mut tiny = TinyGltf::new();
    tiny.positions[4] = f32::NAN;
    expect_error(
        &tiny.gltf_bytes(),
        "nan-position.gltf",
        |k| matches!(k, ImportErrorKind::NonFinite { what, index: 4, .. } if what.contains("POSITION")),
    );
    let mut tiny = TinyGltf::new();
    tiny.weights[0] = f32::INFINITY;
    expect_error(
        &tiny.gltf_bytes(),
        "inf-weight.gltf",
        |k| matches!(k, ImportErrorKind::NonFinite { what, .. } if what.contains("WEIGHTS_0")),
    );
    let mut tiny = TinyGltf::new();
    tiny.rotations[5] = f32::NAN;
    expect_error(
        &tiny.gltf_bytes(),
        "nan-key.gltf",
        |k| matches!(k, ImportErrorKind::NonFinite { what, .. } if what.contains("animation 0")),
    );
    let mut tiny = TinyGltf::new();
    tiny.times[1] = f32::INFINITY;
    expect_error(&tiny.gltf_bytes(), "inf-time.gltf", |k| {
        matches!(k, ImportErrorKind::NonFinite { .. })
    });
}

fn hierarchy_cycles_are_rejected() {
    let mut tiny = TinyGltf::new();
    tiny.json["nodes"][1]["children"] = json!([0]);
    expect_error(&tiny.gltf_bytes(), "cycle.gltf", |k| {
        matches!(k, ImportErrorKind::Cycle { .. })
    });
    let mut tiny = TinyGltf::new();
    tiny.json["nodes"][1]["children"] = json!([1]);
    expect_error(&tiny.gltf_bytes(), "self.gltf", |k| {
        matches!(k, ImportErrorKind::Cycle { .. })
    });
    let mut tiny = TinyGltf::new();
    tiny.json["nodes"][2]["children"] = json!([1]);
    expect_error(&tiny.gltf_bytes(), "shared.gltf", |k| {
        matches!(k, ImportErrorKind::SharedChild { .. })
    });
}

/// The binary: every bad file exits non-zero with a message naming it, never a panic.
fn inspect_reports_bad_files_without_panicking() {
    let dir = temp_dir("inspect-bad");
    let mut cases: Vec<(String, Vec<u8>)> = vec![
        ("empty.gltf".into(), vec![]),
        ("text.gltf".into(), b"not gltf".to_vec()),
        ("magic.glb".into(), b"GLTF\x02\0\0\0".to_vec()),
        ("cut.glb".into(), TinyGltf::new().glb_bytes()[..40].to_vec()),
    ];
    let mut tiny = TinyGltf::new();
    tiny.joints[4] = 200;
    cases.push(("joint.gltf".into(), tiny.gltf_bytes()));
    let mut tiny = TinyGltf::new();
    tiny.json["nodes"][1]["children"] = json!([0]);
    cases.push(("cycle.gltf".into(), tiny.gltf_bytes()));
    for (name, bytes) in &cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        check_inspect_fails(&path);
    }
    check_inspect_fails(&dir.join("does-not-exist.glb"));
}

fn check_inspect_fails(path: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_skinbench"))
        .args(["inspect", path.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}: {stderr}", path.display());
    assert!(
        stderr.contains(path.file_name().unwrap().to_str().unwrap()),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn inspect_json_has_the_documented_keys() {
    let Some(dir) = rigs_dir() else {
        common::cannot_run_here()
    };
    let out = Command::new(env!("CARGO_BIN_EXE_skinbench"))
        .args(["inspect", "--json"])
        .arg(dir.join("Fox/Fox.glb"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "joints",
        "max_depth",
        "vertices",
        "triangles",
        "influences",
        "reduced_influences",
        "renormalized_weights",
        "clips",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["influences"].as_array().unwrap().len(), 8);
    assert_eq!(v["clips"][0]["name"], "Survey");
    assert!(v["clips"][0]["duration_secs"].as_f64().unwrap() > 0.0);
    assert!(v["clips"][0]["channels"].as_u64().unwrap() > 0);
    // Fox has four influences at most: nothing to cut.
    assert!(v["influence_cut"].is_null(), "{}", v["influence_cut"]);
    // Per mesh level: its joints, its influence cuts and the joints it could hold at rest
    // (none at full detail).
    let levels = v["mesh_lod"]["levels"].as_array().unwrap().len();
    assert!(levels > 1, "{}", v["mesh_lod"]);
    for key in ["influence_cuts", "joint_merges"] {
        assert_eq!(
            v["mesh_lod"][key].as_array().unwrap().len(),
            levels,
            "{key}"
        );
    }
    let merges = &v["mesh_lod"]["joint_merges"];
    assert_eq!(merges[0]["held"].as_array().unwrap().len(), 0, "{merges}");
    assert!(merges[0]["animated"].as_u64().unwrap() > 0, "{merges}");
}

/// `inspect` says what cutting a rig's fifth to eighth influences moves.
fn inspect_reports_what_cutting_to_four_influences_costs() {
    let Some(dir) = rigs_dir() else {
        common::cannot_run_here()
    };
    let file = dir.join("FoxVariants/Fox_8influences.glb");
    let json = Command::new(env!("CARGO_BIN_EXE_skinbench"))
        .args(["inspect", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(json.status.success());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let cut = &v["influence_cut"];
    assert_eq!(cut["vertices_cut"], 1728, "{cut}");
    // Fox is about 170 units tall; dropping up to half of each vertex's influences moves
    // some by more than a thousandth of that, and by less than a tenth.
    let moved = cut["relative_displacement"].as_f64().unwrap();
    assert!((1e-3..0.1).contains(&moved), "{cut}");
    let text = Command::new(env!("CARGO_BIN_EXE_skinbench"))
        .arg("inspect")
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("5: 432 (25.0 %)") && text.contains("cut to 4 influences"),
        "{text}"
    );
}

/// Primitives that share one vertex array, each drawing a part of it (how some exporters
/// write one primitive per material): each primitive's unused vertices are left out, so the
/// character has its own vertices once, in order, not once per primitive. The Fox split
/// into three primitives over its one array imports as the Fox.
fn primitives_sharing_one_vertex_array_keep_only_what_they_draw() {
    let Some(dir) = rigs_dir() else {
        common::cannot_run_here()
    };
    let fox = dir.join("Fox/Fox.glb");
    let (whole, _) = import_path(&fox).unwrap();
    let mut edit = common::GlbEdit::open(&fox);
    let primitive = edit.doc["meshes"][0]["primitives"][0].clone();
    let count = whole.mesh.positions.len() as u32;
    assert!(primitive.get("indices").is_none() && count.is_multiple_of(3));
    let third = count / 3;
    let mut primitives = Vec::new();
    for part in 0..3 {
        let indices: Vec<u32> = (part * third..(part + 1) * third).collect();
        let mut p = primitive.clone();
        p["indices"] = json!(edit.add_indices(&indices));
        primitives.push(p);
    }
    edit.doc["meshes"][0]["primitives"] = json!(primitives);
    let path = edit.write(&temp_dir("shared-vertex-array"), "Fox_three_primitives.glb");
    let (split, report) = import_path(&path).unwrap();
    assert_eq!(split.mesh.positions.len(), whole.mesh.positions.len());
    assert_eq!(split.mesh.positions, whole.mesh.positions);
    assert_eq!(split.mesh.weights, whole.mesh.weights);
    assert_eq!(split.mesh.uvs, whole.mesh.uvs);
    assert_eq!(split.mesh.indices, whole.mesh.indices);
    let dropped = 2 * whole.mesh.positions.len();
    assert!(
        report.notes.iter().any(|n| n.starts_with(&format!(
            "{dropped} vertices no triangle uses were left out"
        ))),
        "{:?}",
        report.notes
    );
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "public_rigs_import_with_expected_counts",
            public_rigs_import_with_expected_counts,
        ),
        ("rig_specific_facts", rig_specific_facts),
        (
            "tiny_file_round_trips_in_both_containers",
            tiny_file_round_trips_in_both_containers,
        ),
        (
            "byte_stride_sparse_and_normalized_weights_are_read",
            byte_stride_sparse_and_normalized_weights_are_read,
        ),
        (
            "a_skin_in_another_hierarchy_is_left_out_and_said",
            a_skin_in_another_hierarchy_is_left_out_and_said,
        ),
        (
            "a_skin_without_joints_is_left_out_and_said",
            a_skin_without_joints_is_left_out_and_said,
        ),
        (
            "skins_that_name_different_skeleton_roots_still_share_the_node_hierarchy",
            skins_that_name_different_skeleton_roots_still_share_the_node_hierarchy,
        ),
        (
            "joints_are_reordered_parents_first_and_indices_remapped",
            joints_are_reordered_parents_first_and_indices_remapped,
        ),
        (
            "non_joint_ancestor_is_folded_and_channels_on_other_nodes_are_counted",
            non_joint_ancestor_is_folded_and_channels_on_other_nodes_are_counted,
        ),
        (
            "a_file_that_is_not_a_glb_is_shown_as_what_it_starts_with",
            a_file_that_is_not_a_glb_is_shown_as_what_it_starts_with,
        ),
        ("bad_containers", bad_containers),
        (
            "missing_external_buffer_names_the_uri",
            missing_external_buffer_names_the_uri,
        ),
        ("external_buffer_is_loaded", external_buffer_is_loaded),
        (
            "out_of_range_views_and_accessors",
            out_of_range_views_and_accessors,
        ),
        ("accessor_of_the_wrong_type", accessor_of_the_wrong_type),
        ("no_skinned_mesh", no_skinned_mesh),
        ("joint_index_beyond_the_skin", joint_index_beyond_the_skin),
        ("too_many_joints", too_many_joints),
        ("non_finite_numbers", non_finite_numbers),
        (
            "hierarchy_cycles_are_rejected",
            hierarchy_cycles_are_rejected,
        ),
        (
            "inspect_reports_bad_files_without_panicking",
            inspect_reports_bad_files_without_panicking,
        ),
        (
            "inspect_json_has_the_documented_keys",
            inspect_json_has_the_documented_keys,
        ),
        (
            "inspect_reports_what_cutting_to_four_influences_costs",
            inspect_reports_what_cutting_to_four_influences_costs,
        ),
        (
            "primitives_sharing_one_vertex_array_keep_only_what_they_draw",
            primitives_sharing_one_vertex_array_keep_only_what_they_draw,
        ),
    ];
    common::run_tests(tests);
}
