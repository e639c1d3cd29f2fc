//! Inputs that look valid but once killed the process: each must end in a clear error or
//! in correct output. The files are built here.

mod common;

use std::sync::Arc;

use serde_json::json;
use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::crowd::verify::{POSE_TOLERANCE, verify_hierarchy};
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig, Schedule};
use skinbench::prepare::PreparedRig;
use skinbench::rig::{ImportError, ImportReport, Rig, import_slice};
use skinbench::skin::{OutputBuffer, SkinVariant};

/// Imports a file built here, saving it as a fuzz seed too (`common::save_fuzz_seed`).
fn seeded_import(bytes: &[u8], name: &str) -> Result<(Rig, ImportReport), ImportError> {
    common::save_fuzz_seed(name, bytes);
    import_slice(bytes, name, None)
}

/// A 1 KB .gltf whose position accessor claims a billion elements: the file cannot back
/// them, so import must say so before allocating anything by that count.
#[test]
fn an_accessor_claiming_more_than_its_view_holds_is_refused_before_allocating() {
    let gltf = common::TinyGltf::new();
    let mut doc = gltf.document();
    doc["accessors"][0]["count"] = json!(1u64 << 31);
    let bytes = serde_json::to_vec(&doc).unwrap();
    assert!(bytes.len() < 4096);
    let err = seeded_import(&bytes, "huge.gltf").unwrap_err().to_string();
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
    let err = seeded_import(&bytes, "viewless.gltf")
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
    let err = seeded_import(&bytes, "stride.gltf")
        .unwrap_err()
        .to_string();
    assert!(err.contains("accessor 0"), "{err}");
}

/// A chain of 60,000 joints (inside the 65,535 limit) posed by `tree`, whose walk recurses
/// once per level: it must not overflow a worker's stack, in the frame or in verify, and
/// it must pose the chain as `flat` does (the same f32 products in the same order; against
/// the f64 oracle both drift by about 3e-3 of the rig's size over 60,000 levels).
#[test]
fn tree_walks_a_chain_of_sixty_thousand_joints() {
    let depth = 60_000;
    let (rig, report) = seeded_import(&common::chain_glb(depth), "chain.glb").unwrap();
    assert_eq!(rig.skeleton.max_depth(), depth);
    let rig = Arc::new(PreparedRig::new(rig, &report, "chain.glb").unwrap());
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
            method: skinbench::skin::SkinMethod::Linear,
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
            worst as f64 <= POSE_TOLERANCE * rig.model_size as f64,
            "{worst:e}"
        );
    }
}

/// Odd weights are handled and counted where `inspect` shows them: a vertex whose weights
/// are all zero (bound to the first root joint) and a vertex that lists one joint twice
/// (its weights added).
#[test]
fn odd_weights_are_counted_in_inspect() {
    let mut gltf = common::TinyGltf::new();
    gltf.weights = vec![0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    gltf.joints = vec![0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0];
    let (rig, report) = seeded_import(&gltf.glb_bytes(), "odd.glb").unwrap();
    assert_eq!(report.unweighted_vertices, 1);
    assert_eq!(report.repeated_joint_vertices, 1);
    // The repeated joint is one influence of weight 1.
    assert_eq!(
        rig.mesh.weights[1],
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    );
    assert_eq!(rig.mesh.joints[1][0], rig.mesh.joints[2][0]);
    let text = skinbench::rig::RigSummary::new(&rig, &report).to_text();
    assert!(
        text.contains("unweighted (bound to the first root): 1")
            && text.contains("a joint listed twice (weights added): 1"),
        "{text}"
    );
}

/// A configuration that would not fit is refused before allocating, with the figures and
/// the largest instance count that fits (and that count does fit).
#[test]
fn a_configuration_too_big_for_memory_names_the_count_that_fits() {
    use skinbench::crowd::budget::{Budget, Footprint, check};
    let (rig, report) = seeded_import(&common::chain_glb(60_000), "chain.glb").unwrap();
    let rig = PreparedRig::new(rig, &report, "chain.glb").unwrap();
    let config = PipelineConfig {
        hierarchy: HierarchyVariant::Tree,
        skin: SkinVariant::Naive,
        schedule: Schedule::Staged,
        threads: 1,
        blend_weight: 0.0,
        method: skinbench::skin::SkinMethod::Linear,
    };
    let budget = Budget {
        memory_bytes: 8_000_000_000,
        available_bytes: None,
        gpu_buffer_bytes: None,
    };
    let err = check(&rig, &config, 10_000, 1, &budget).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("10000 instances of chain.glb")
            && text.contains("8000.0 MB of memory may be used")
            && text.contains(&format!("at most {} instances fit", err.fits)),
        "{text}"
    );
    assert!(err.fits > 0 && err.fits < 10_000, "{text}");
    assert!(check(&rig, &config, err.fits, 1, &budget).is_ok());
    assert!(check(&rig, &config, err.fits + 1, 1, &budget).is_err());
    // The GPU limit: the skinned output must fit one buffer.
    let gpu = Budget {
        memory_bytes: u64::MAX,
        available_bytes: None,
        gpu_buffer_bytes: Some(1 << 20),
    };
    let err = check(&rig, &config, 10_000, 1, &gpu).unwrap_err();
    assert!(err.to_string().contains("largest buffer"), "{err}");
    // The figure for the trees is what building them takes.
    let tree = skinbench::anim::hierarchy::JointTree::new(&rig.skeleton);
    assert_eq!(
        skinbench::anim::hierarchy::JointTree::heap_bytes_for(&rig.skeleton),
        tree.heap_bytes()
    );
    let one = Footprint::of(&rig, &config, 1, 0);
    assert_eq!(one.trees as usize, tree.heap_bytes());
}

/// With the animation on the GPU the budget counts the GPU's buffers: records, local poses
/// and model matrices (what `GpuAnimator` allocates), LOD's state, `per_level`'s lists,
/// palettes and `gpu_compute`'s output;
/// 100,000 characters that do not fit are refused with the count that does.
#[test]
fn the_gpu_animation_budget_counts_the_gpu_buffers_and_names_the_count_that_fits() {
    use skinbench::crowd::budget::{Budget, Footprint, check_animated_on_gpu};
    let rig = PreparedRig::reference();
    let config = PipelineConfig {
        skin: SkinVariant::GpuCompute,
        ..PipelineConfig::best_for(&rig, 1)
    };
    let one = Footprint::animated_on_gpu(&rig, &config, 1, None);
    let layout = SkinVariant::GpuCompute.layout(&rig, skinbench::skin::SkinMethod::Linear);
    assert_eq!(one.pipeline_state, 0);
    assert_eq!(one.skinned_output, layout.bytes(1) as u64);
    assert_eq!(
        one.gpu_skinned,
        layout.skinned_on_gpu().unwrap().bytes(1) as u64
    );
    assert_eq!(
        one.gpu_animation,
        (32 + 2 * rig.joint_stride * 48 + 4 + 20 + 4 * rig.mesh_chain().levels().len()) as u64,
        "a record, the local poses and model matrices, a word of the due list, LOD's state \
         and draw slot, and a word a mesh level in gpu_compute's lists of characters per level"
    );
    let budget = Budget {
        memory_bytes: 2_000_000_000,
        available_bytes: None,
        gpu_buffer_bytes: None,
    };
    let err = check_animated_on_gpu(&rig, &config, 100_000, None, &budget).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("100000 instances of reference with the animation on the GPU")
            && text
                .contains("animation on the GPU (records, local poses, model matrices, due lists, LOD state, lists per level)")
            && text.contains(&format!("at most {} instances fit", err.fits)),
        "{text}"
    );
    assert!(check_animated_on_gpu(&rig, &config, err.fits, None, &budget).is_ok());
    assert!(check_animated_on_gpu(&rig, &config, err.fits + 1, None, &budget).is_err());
}

/// A million built-in characters animated on the GPU: the local poses and model matrices
/// are scratch, so the ranges past `GPU_POSE_SLOTS_BYTES` take turns in slots within it and
/// the budget counts those slots, not 9.2 KB of poses a character (9.2 GB at a million).
#[test]
fn a_million_gpu_animated_characters_share_the_pose_slots() {
    use skinbench::crowd::budget::{
        Footprint, GPU_POSE_SLOTS_BYTES, gpu_pose_bytes_per_character, gpu_pose_slots,
    };
    let rig = PreparedRig::reference();
    let config = PipelineConfig {
        skin: SkinVariant::GpuCompute,
        ..PipelineConfig::best_for(&rig, 1)
    };
    let per_character = gpu_pose_bytes_per_character(rig.joint_stride);
    assert_eq!(
        per_character,
        2 * 96 * 48,
        "96 joints, a local pose and a model matrix each"
    );
    let one = Footprint::animated_on_gpu(&rig, &config, 1, None).gpu_animation;
    let rest = one - per_character;
    let million = Footprint::animated_on_gpu(&rig, &config, 1_000_000, None).gpu_animation;
    assert_eq!(million, 1_000_000 * rest + GPU_POSE_SLOTS_BYTES);
    // Every crowd whose poses fit keeps them all.
    let fits = (GPU_POSE_SLOTS_BYTES / per_character) as usize;
    assert_eq!(
        Footprint::animated_on_gpu(&rig, &config, fits, None).gpu_animation,
        fits as u64 * one
    );
    // Lavapipe's ranges at a million: 131,072 characters each (a power of two within one
    // binding), eight of them, posing one at a time.
    let range = 131_072 * per_character;
    assert_eq!(gpu_pose_slots(8, range), 1);
    // Ranges of a few characters: each its own slot, one wave.
    assert_eq!(gpu_pose_slots(8, 100 * per_character), 8);
    // A range larger than the slots still gets one.
    assert_eq!(gpu_pose_slots(3, 2 * GPU_POSE_SLOTS_BYTES), 1);
    assert_eq!(gpu_pose_slots(3, GPU_POSE_SLOTS_BYTES / 2), 2);
}

/// The GPU animation splits its palettes per range, as its poses and `gpu_compute`'s
/// output: a crowd whose palettes outgrow the largest buffer is bounded by memory alone.
#[test]
fn the_gpu_animation_is_not_bounded_by_the_largest_buffer() {
    use skinbench::crowd::budget::{Budget, check, check_animated_on_gpu};
    let rig = PreparedRig::reference();
    for skin in [SkinVariant::GpuCompute, SkinVariant::GpuVertex] {
        let config = PipelineConfig {
            skin,
            ..PipelineConfig::best_for(&rig, 1)
        };
        let small_buffers = Budget {
            memory_bytes: u64::MAX,
            available_bytes: None,
            gpu_buffer_bytes: Some(1 << 20),
        };
        let palettes = skin.layout(&rig, config.method).bytes(10_000) as u64;
        assert!(palettes > 1 << 20);
        let animated = check_animated_on_gpu(&rig, &config, 10_000, None, &small_buffers);
        assert!(animated.is_ok(), "{skin:?}: {}", animated.unwrap_err());
        // Uploaded from the CPU, the palettes are one buffer.
        let uploaded = check(&rig, &config, 10_000, 1, &small_buffers).unwrap_err();
        assert!(
            uploaded.to_string().contains("largest buffer"),
            "{uploaded}"
        );
    }
}

/// With a skinned pool the budget counts the pool's share of `gpu_compute`'s output, not a
/// full-detail slot a character: more characters fit, and the refusal names the pool.
#[test]
fn the_budget_counts_the_skinned_pool() {
    use skinbench::crowd::budget::{Budget, Footprint, check_animated_on_gpu};
    use skinbench::skin::pool::{PoolShare, coarsest_level_vertices};
    let rig = PreparedRig::reference();
    let config = PipelineConfig {
        skin: SkinVariant::GpuCompute,
        ..PipelineConfig::best_for(&rig, 1)
    };
    let share = PoolShare::from_percent(5).unwrap();
    let full = Footprint::animated_on_gpu(&rig, &config, 1000, None);
    let pooled = Footprint::animated_on_gpu(&rig, &config, 1000, Some(share));
    let vertices = rig.mesh.sorted().source().len() as u64;
    let room = (vertices * 5)
        .div_ceil(100)
        .max(coarsest_level_vertices(&rig) as u64);
    assert_eq!(u64::from(share.vertices_for(&rig)), room);
    assert_eq!(pooled.gpu_skinned, 1000 * room * 16);
    let layout = SkinVariant::GpuCompute.layout(&rig, skinbench::skin::SkinMethod::Linear);
    assert_eq!(
        full.gpu_skinned,
        layout.skinned_on_gpu().unwrap().bytes(1000) as u64
    );
    assert_eq!(pooled.gpu_animation, full.gpu_animation);
    let budget = Budget {
        memory_bytes: 2_000_000_000,
        available_bytes: None,
        gpu_buffer_bytes: None,
    };
    let without = check_animated_on_gpu(&rig, &config, 1_000_000, None, &budget).unwrap_err();
    let with = check_animated_on_gpu(&rig, &config, 1_000_000, Some(share), &budget).unwrap_err();
    assert!(
        with.fits > without.fits,
        "{} vs {}",
        with.fits,
        without.fits
    );
    assert!(with.to_string().contains("a skinned pool of 5 %"), "{with}");
}

/// An `auto` pool may grow to the largest share whose footprint the budget holds: exactly
/// that share where the budget is its footprint, one less a byte below, none where not
/// even the least share fits.
#[test]
fn the_pool_cap_is_the_largest_share_the_budget_holds() {
    use skinbench::crowd::budget::{Budget, Footprint, pool_cap};
    use skinbench::skin::pool::PoolShare;
    let rig = PreparedRig::reference();
    let config = PipelineConfig {
        skin: SkinVariant::GpuCompute,
        ..PipelineConfig::best_for(&rig, 1)
    };
    let share = |p| PoolShare::from_percent(p).unwrap();
    let bytes = |p| Footprint::animated_on_gpu(&rig, &config, 1000, Some(share(p))).total();
    let budget = |memory_bytes| Budget {
        memory_bytes,
        available_bytes: None,
        gpu_buffer_bytes: None,
    };
    assert_eq!(
        pool_cap(&rig, &config, 1000, &budget(bytes(50))),
        Some(share(50))
    );
    assert_eq!(
        pool_cap(&rig, &config, 1000, &budget(bytes(50) - 1)),
        Some(share(49))
    );
    assert_eq!(
        pool_cap(&rig, &config, 1000, &budget(u64::MAX)),
        Some(share(100))
    );
    assert_eq!(pool_cap(&rig, &config, 1000, &budget(bytes(1) - 1)), None);
}

/// The CLI refuses such a configuration with exit 1 before it opens a window; so does the
/// bench.
#[test]
fn the_app_and_the_bench_exit_1_on_a_configuration_too_big_for_memory() {
    let dir = common::temp_dir("budget");
    let file = dir.join("chain.glb");
    std::fs::write(&file, common::chain_glb(60_000)).unwrap();
    for args in [
        vec![
            "--rig",
            file.to_str().unwrap(),
            "--instances",
            "10000",
            "--schedule",
            "staged",
            "--hierarchy",
            "tree",
        ],
        vec![
            "bench",
            "--rig",
            file.to_str().unwrap(),
            "--workload",
            "hierarchy",
            "--instances",
            "10000",
            "--quick",
            "--out",
            dir.to_str().unwrap(),
        ],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_skinbench"))
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("instances fit") && stderr.contains("the system reports available"),
            "{args:?}: {stderr}"
        );
    }
}

/// A clip of one key is legal glTF (a constant pose, duration 0): it imports, and every
/// variant poses it as that key, without dividing by the zero duration.
#[test]
fn a_clip_of_one_key_poses_its_key() {
    let mut gltf = common::TinyGltf::new();
    gltf.times = vec![0.0];
    gltf.rotations = vec![
        0.0,
        0.0,
        std::f32::consts::FRAC_1_SQRT_2,
        std::f32::consts::FRAC_1_SQRT_2,
    ];
    let (rig, report) = seeded_import(&gltf.glb_bytes(), "one-key.glb").unwrap();
    let rig = Arc::new(PreparedRig::new(rig, &report, "one-key.glb").unwrap());
    assert_eq!(rig.clips.len(), 1);
    for config in [
        PipelineConfig::baseline(1),
        PipelineConfig::best_for(&rig, 1),
    ] {
        for time_secs in [0.0, 0.5, 7.25] {
            let posed = skinbench::pose::pose(rig.clone(), None, time_secs, config).unwrap();
            assert!(
                posed.deviation.within_tolerance(),
                "{time_secs} s: {}",
                posed.deviation.to_text()
            );
            assert!(posed.positions.iter().all(|p| p.is_finite()));
            // The tip (vertex 2, bound to the turned joint) is turned a quarter about z.
            let tip = posed.positions[2];
            assert!(
                (tip - glam::Vec3::new(-1.0, 1.0, 0.0)).length() < 1e-5,
                "{tip}"
            );
        }
    }
}

/// A skin whose `skeleton` node is not an ancestor of its joints: noted by `inspect` and
/// ignored (the joints' own hierarchy is used), so the rig poses as without it.
#[test]
fn a_skeleton_node_that_is_not_an_ancestor_is_noted_and_ignored() {
    let plain = common::TinyGltf::new();
    let mut odd = common::TinyGltf::new();
    // Node 2 is the mesh node, not an ancestor of joints 0 and 1.
    odd.json["skins"][0]["skeleton"] = json!(2);
    let (rig, report) = seeded_import(&odd.glb_bytes(), "skeleton.glb").unwrap();
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("skeleton node 2 is not an ancestor of joint node 0")),
        "{:?}",
        report.notes
    );
    let (expected, _) = seeded_import(&plain.glb_bytes(), "plain.glb").unwrap();
    assert_eq!(rig, expected);
    // The root itself is a proper skeleton node: no note.
    let mut good = common::TinyGltf::new();
    good.json["skins"][0]["skeleton"] = json!(0);
    let (_, report) = seeded_import(&good.glb_bytes(), "good.glb").unwrap();
    assert!(
        !report.notes.iter().any(|n| n.contains("skeleton node")),
        "{:?}",
        report.notes
    );
}
