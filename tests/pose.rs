//! `skinbench pose`: one instance's skinned mesh, written as glTF or OBJ in the rig file's
//! vertex order, on the built-in rig and every public rig; bad input is refused with the
//! value named and no file left behind.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use skinbench::crowd::PipelineConfig;
use skinbench::pose::pose;
use skinbench::prepare::PreparedRig;

fn skinbench(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_skinbench"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The rig files `pose` is run on: the built-in one (as shipped in assets/) and the public ones.
fn rig_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/reference.glb")];
    if let Some(dir) = common::rigs_dir() {
        files.extend(common::PUBLIC_RIGS.iter().map(|f| dir.join(f)));
    }
    files
}

/// Positions and normals of the one primitive of a .glb, read with the gltf crate (which
/// also checks the file's structure).
fn read_glb(path: &Path) -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<u32>) {
    let bytes = std::fs::read(path).unwrap();
    let gltf = gltf::Gltf::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let blob = gltf.blob.clone().expect("a BIN chunk");
    let mesh = gltf.meshes().next().expect("one mesh");
    let primitive = mesh.primitives().next().expect("one primitive");
    let reader = primitive.reader(|b| (b.index() == 0).then_some(&blob[..]));
    let positions: Vec<[f32; 3]> = reader.read_positions().expect("positions").collect();
    let normals: Vec<[f32; 3]> = reader.read_normals().expect("normals").collect();
    let indices: Vec<u32> = reader.read_indices().expect("indices").into_u32().collect();
    (positions, normals, indices)
}

fn read_obj_positions(path: &Path) -> Vec<[f32; 3]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

fn pose_writes_every_rig_in_file_order_as_glb_and_obj() {
    let dir = common::temp_dir("pose");
    for file in rig_files() {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let rig = Arc::new(PreparedRig::load(&file).unwrap());
        let glb = dir.join(format!("{name}.glb"));
        let obj = dir.join(format!("{name}.obj"));
        for out in [&glb, &obj] {
            let (code, stdout, err) = skinbench(&[
                "pose",
                file.to_str().unwrap(),
                "--time",
                "0.4",
                "--out",
                out.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "{name}: {err}");
            assert!(stdout.contains("wrote"), "{name}: {stdout}");
        }
        let (positions, normals, indices) = read_glb(&glb);
        assert_eq!(positions.len(), rig.source_mesh.vertex_count(), "{name}");
        assert_eq!(
            indices, rig.source_mesh.indices,
            "{name}: the file's own index buffer"
        );
        assert_eq!(
            read_obj_positions(&obj),
            positions,
            "{name}: OBJ and glTF agree"
        );
        for n in &normals {
            let length = glam::Vec3::from(*n).length();
            assert!(
                length == 0.0 || (length - 1.0).abs() < 1e-4,
                "{name}: normal {n:?}"
            );
        }
        // The baseline variants store in file order without any layout to decode: the
        // default (fastest) variant's file must agree with them vertex by vertex.
        let baseline = pose(
            rig.clone(),
            None,
            0.4,
            PipelineConfig::baseline_for(&rig, 1),
        )
        .unwrap();
        let size = rig.model_size as f64;
        for (v, (p, q)) in positions.iter().zip(&baseline.positions).enumerate() {
            let d = (glam::Vec3::from(*p) - *q).abs().max_element() as f64 / size;
            assert!(
                d <= 1e-4,
                "{name}: vertex {v} is {d:e} of the rig size from the baseline"
            );
        }
        assert!(
            baseline.deviation.within_tolerance(),
            "{name}: {:?}",
            baseline.deviation
        );
    }
}

fn pose_refuses_bad_input_and_writes_nothing() {
    let dir = common::temp_dir("pose-bad");
    let rig = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/reference.glb");
    let rig = rig.to_str().unwrap();
    let out = dir.join("x.glb");
    let out = out.to_str().unwrap();
    let blocked = dir.join("file-not-folder");
    std::fs::write(&blocked, b"x").unwrap();
    let unwritable = blocked.join("x.glb");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["pose", rig, "--clip", "dance", "--out", out], "dance"),
        (vec!["pose", rig, "--time", "-1", "--out", out], "-1"),
        (vec!["pose", rig, "--time", "NaN", "--out", out], "NaN"),
        (vec!["pose", rig, "--out", "/tmp/x.png"], ".png"),
        (
            vec!["pose", "/nonexistent/rig.glb", "--out", out],
            "/nonexistent/rig.glb",
        ),
        (vec!["pose", rig, "--skin", "fast", "--out", out], "fast"),
        (
            vec!["pose", rig, "--mesh-lod", "9", "--out", out],
            "mesh LOD chain has 5 levels (0 to 4",
        ),
        (vec!["pose", rig, "--mesh-lod", "-1", "--out", out], "-1"),
        (
            vec!["pose", rig, "--out", unwritable.to_str().unwrap()],
            "file-not-folder",
        ),
    ];
    for (args, named) in cases {
        let (code, _, err) = skinbench(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(err.contains(named), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 1, "only the blocking file is there: {left:?}");
}

/// `pose --mesh-lod N` writes level N's triangles over its vertices posed for the level:
/// the joints it holds at rest move them, within what the level states for them.
fn pose_writes_a_mesh_level() {
    let dir = common::temp_dir("pose-level");
    let rig = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/reference.glb");
    let prepared = skinbench::prepare::PreparedRig::reference();
    let chain = prepared.mesh_chain();
    let merges = skinbench::skin::level_errors::joint_merges(&prepared);
    let deepest = chain.deepest_levels_file(prepared.vertex_count());
    let mut full = Vec::new();
    for level in [0, 2, 3] {
        let out = dir.join(format!("level{level}.obj"));
        let (code, stdout, err) = skinbench(&[
            "pose",
            rig.to_str().unwrap(),
            "--mesh-lod",
            &level.to_string(),
            "--time",
            "0.4",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(
            stdout.contains("deviation from the f64 reference"),
            "{stdout}"
        );
        let text = std::fs::read_to_string(&out).unwrap();
        let faces = text.lines().filter(|l| l.starts_with("f ")).count();
        assert_eq!(faces, chain.levels()[level].triangles(), "level {level}");
        let positions: Vec<glam::Vec3> = read_obj_positions(&out)
            .into_iter()
            .map(glam::Vec3::from)
            .collect();
        assert_eq!(positions.len(), prepared.vertex_count());
        if level == 0 {
            full = positions;
            continue;
        }
        let mut largest: f32 = 0.0;
        for (v, (p, f)) in positions.iter().zip(&full).enumerate() {
            if deepest[v] as usize >= level {
                largest = largest.max((p - f).length());
            }
        }
        let held = &merges[level];
        assert!(!held.held.is_empty(), "level {level} holds no joint");
        // The .obj keeps six digits: a held joint moves a vertex by more than that.
        assert!(
            largest > 1e-3,
            "level {level}: the held joints moved nothing"
        );
        assert!(
            largest as f64 <= held.moved + 1e-4,
            "level {level}: a vertex moved {largest}, more than the {} stated",
            held.moved
        );
    }
}

/// `pose` takes every option that changes its output: an eight-influence rig posed with
/// one of the first (four-influence) variants needs `--max-influences 4` (which the refusal
/// names), and `--method` poses with dual quaternions.
fn pose_takes_the_method_and_the_influence_cut() {
    let Some(dir) = common::rigs_dir() else {
        common::cannot_run_here()
    };
    let rig = dir.join("FoxVariants/Fox_8influences.glb");
    let rig = rig.to_str().unwrap();
    let out_dir = common::temp_dir("pose-options");
    let out = out_dir.join("cut.glb");
    let out = out.to_str().unwrap();
    let (code, _, err) = skinbench(&["pose", rig, "--skin", "naive", "--out", out]);
    assert_ne!(code, 0);
    assert!(err.contains("--max-influences 4"), "{err}");
    let (code, stdout, err) = skinbench(&[
        "pose",
        rig,
        "--skin",
        "naive",
        "--max-influences",
        "4",
        "--out",
        out,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("naive linear"), "{stdout}");

    let fox = dir.join("Fox/Fox.glb");
    let (linear, dual) = (out_dir.join("linear.obj"), out_dir.join("dual.obj"));
    for (method, file) in [("linear", &linear), ("dual_quat", &dual)] {
        let (code, stdout, err) = skinbench(&[
            "pose",
            fox.to_str().unwrap(),
            "--skin",
            "simd",
            "--method",
            method,
            "--time",
            "0.8",
            "--out",
            file.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{method}: {err}");
        assert!(stdout.contains(&format!("simd {method}")), "{stdout}");
    }
    assert_ne!(
        read_obj_positions(&linear),
        read_obj_positions(&dual),
        "the two methods pose Fox differently"
    );
    let (code, _, err) = skinbench(&[
        "pose",
        fox.to_str().unwrap(),
        "--method",
        "quaternion",
        "--out",
        out,
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("quaternion") && err.contains("dual_quat"),
        "{err}"
    );
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "pose_writes_every_rig_in_file_order_as_glb_and_obj",
            pose_writes_every_rig_in_file_order_as_glb_and_obj,
        ),
        (
            "pose_refuses_bad_input_and_writes_nothing",
            pose_refuses_bad_input_and_writes_nothing,
        ),
        ("pose_writes_a_mesh_level", pose_writes_a_mesh_level),
        (
            "pose_takes_the_method_and_the_influence_cut",
            pose_takes_the_method_and_the_influence_cut,
        ),
    ];
    common::run_tests(tests);
}
