//! Bad command-line values are refused with the valid ones listed, and the bench leaves no
//! partial report behind.

mod common;

use std::process::Command;

use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::crowd::pipeline::{best_hierarchy, best_skin};
use skinbench::crowd::{AnimateDevice, Schedule};
use skinbench::gpu::UploadVariant;
use skinbench::gpu::animate::GpuHierarchy;
use skinbench::simd::SimdLevel;
use skinbench::skin::SkinVariant;
use skinbench::variant::Variant;

fn skinbench(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_skinbench"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn unknown_variants_list_the_valid_ones() {
    for (flag, value, valid) in [
        ("--skin", "fast", names::<SkinVariant>()),
        ("--hierarchy", "bush", names::<HierarchyVariant>()),
        ("--upload", "fax", names::<UploadVariant>()),
        ("--schedule", "later", names::<Schedule>()),
        ("--simd-level", "avx1024", names::<SimdLevel>()),
        (
            "--compute-shader",
            "fastest",
            names::<skinbench::gpu::skin::ComputeShader>(),
        ),
        ("--method", "slerp", names::<skinbench::skin::SkinMethod>()),
    ] {
        let (code, _, err) = skinbench(&[flag, value]);
        assert_ne!(code, 0);
        assert!(err.contains(&valid.join(", ")), "{flag} {value}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Dual quaternions with a variant that implements linear blending only: refused
    // before the window opens, naming both.
    let (code, _, err) = skinbench(&["--method", "dual_quat", "--skin", "tuned"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--method dual_quat") && err.contains("tuned") && err.contains("linear only"),
        "{err}"
    );
    let (code, _, err) = skinbench(&["--instances", "0"]);
    assert_ne!(code, 0, "{err}");
    let (code, _, err) = skinbench(&["--threads", "100000"]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("--threads"), "{err}");
    let (code, _, err) = skinbench(&["--window", "big"]);
    assert_ne!(code, 0);
    assert!(err.contains("WIDTHxHEIGHT"), "{err}");
    let (code, _, err) = skinbench(&["--rig", "/nonexistent/rig.glb"]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/rig.glb"), "{err}");
    for time in ["-1", "soon", "inf"] {
        let (code, _, err) = skinbench(&[&format!("--clip-time={time}")]);
        assert_ne!(code, 0, "--clip-time {time}");
        assert!(
            err.contains("not a time in seconds"),
            "--clip-time {time}: {err}"
        );
    }
    for (flag, value, says) in [
        ("--lod-threshold", "0", "LOD threshold 0 px"),
        ("--lod-threshold", "wide", "not a number of pixels"),
        ("--lod-max-period", "3", "not one of 1, 2, 4, 8"),
        ("--lod", "maybe", "neither on nor off"),
        ("--camera", "drone", "overview"),
        ("--material", "gold", "tint"),
    ] {
        let (code, _, err) = skinbench(&[flag, value]);
        assert_ne!(code, 0, "{flag} {value}");
        assert!(err.contains(says), "{flag} {value}: {err}");
    }
    let (code, _, err) = skinbench(&["gen-rig", "--kind", "pretzel"]);
    assert_ne!(code, 0);
    assert!(err.contains("reference, twist"), "{err}");
    for flag in ["--shadows", "--indirect-draws"] {
        let (code, _, err) = skinbench(&[flag, "maybe"]);
        assert_ne!(code, 0);
        assert!(err.contains("neither on nor off"), "{flag}: {err}");
        assert!(err.contains(flag), "{flag}: {err}");
    }
    for value in ["file", "tint"] {
        let (code, _, err) = skinbench(&["--material", value, "--rig", "/nonexistent/rig.glb"]);
        assert_eq!(code, 1, "--material {value}: {err}");
    }
    // Both values parse: the run gets as far as the missing rig.
    for value in ["on", "off"] {
        let (code, _, err) = skinbench(&["--shadows", value, "--rig", "/nonexistent/rig.glb"]);
        assert_eq!(code, 1, "--shadows {value}: {err}");
        assert!(
            err.contains("/nonexistent/rig.glb"),
            "--shadows {value}: {err}"
        );
    }
}

fn names<V: Variant>() -> Vec<&'static str> {
    V::ALL.iter().map(|v| v.name()).collect()
}

/// The values `--help` lists under `flag`, in order.
fn listed_values(help: &str, flag: &str) -> Vec<String> {
    let start = help
        .lines()
        .position(|l| l.trim_start().starts_with(flag))
        .unwrap_or_else(|| panic!("{flag} is not in the help"));
    help.lines()
        .skip(start + 1)
        .skip_while(|l| !l.contains("Possible values:"))
        .skip(1)
        .take_while(|l| l.trim_start().starts_with("- "))
        .map(|l| {
            let item = l.trim_start().trim_start_matches("- ");
            item.split(':').next().unwrap_or("").trim().to_string()
        })
        .collect()
}

fn help_lists_exactly_the_declared_variants_with_the_real_defaults() {
    let (code, help, err) = skinbench(&["--help"]);
    assert_eq!(code, 0, "{err}");
    for (flag, valid) in [
        ("--skin", names::<SkinVariant>()),
        ("--hierarchy", names::<HierarchyVariant>()),
        ("--upload", names::<UploadVariant>()),
        ("--schedule", names::<Schedule>()),
        ("--simd-level", names::<SimdLevel>()),
        ("--animate", names::<AnimateDevice>()),
        ("--gpu-hierarchy", names::<GpuHierarchy>()),
    ] {
        assert_eq!(listed_values(&help, flag), valid, "{flag}");
    }
    // Each value's description is the declared one.
    for &skin in SkinVariant::ALL {
        assert!(help.contains(skin.description()), "{}", skin.name());
    }
    // The defaults are what the app runs.
    assert!(
        help.contains(&format!("the fastest on this CPU: {}", best_skin().name())),
        "{help}"
    );
    assert!(
        help.contains(&format!(
            "the fastest on this CPU: {}",
            best_hierarchy().name()
        )),
        "{help}"
    );
    assert!(help.contains(&format!("[default: {}]", UploadVariant::DEFAULT.name())));
    assert!(help.contains(&format!("[default: {}]", Schedule::DEFAULT.name())));
    // `pose` takes the variants that skin on the CPU, in the declared order.
    let (_, pose_help, _) = skinbench(&["pose", "--help"]);
    let cpu: Vec<&str> = SkinVariant::ALL
        .iter()
        .filter(|v| v.skins_on_cpu())
        .map(|v| v.name())
        .collect();
    assert_eq!(listed_values(&pose_help, "--skin"), cpu);
    // `bench --simd-level` takes `all` too, so its names are in its text, every one.
    let (_, bench_help, _) = skinbench(&["bench", "--help"]);
    let levels = names::<SimdLevel>().join(", ");
    assert!(
        bench_help.contains(&format!("({levels}, or `all`")),
        "bench --help does not list {levels}: {bench_help}"
    );
}

fn animate_gpu_is_refused_with_what_it_cannot_run_with() {
    for (args, code, expected) in [
        (
            &["--animate", "gpu", "--skin", "pulled"][..],
            1,
            "--animate gpu --skin pulled: the GPU's animation writes palettes for a GPU skin variant",
        ),
        (
            &["--instances", "20000"][..],
            1,
            "--instances 20000: at most 10000 with --animate cpu (--animate gpu takes up to 1000000)",
        ),
        (
            &["--animate", "gpu", "--instances", "1000001"][..],
            2,
            "1..=1000000",
        ),
        (&["--animate", "gpus"][..], 2, "[possible values: cpu, gpu]"),
    ] {
        let (got, _, err) = skinbench(args);
        assert_eq!(got, code, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// A run that would do nothing, or end by failing to save what it ran for, is refused
/// before the window opens.
fn frames_and_screenshot_are_checked_before_the_window_opens() {
    for (args, expected) in [
        (&["--frames", "0"][..], "0 is not in 1.."),
        (
            &[
                "--frames",
                "2",
                "--screenshot",
                "/nonexistent-folder/shot.png",
            ][..],
            "--screenshot /nonexistent-folder/shot.png: the folder /nonexistent-folder does not exist",
        ),
    ] {
        let (code, _, err) = skinbench(args);
        assert_ne!(code, 0, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

fn verify_needs_frames() {
    let (code, _, err) = skinbench(&["--verify"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--frames"), "{err}");
}

fn soak_flags_are_checked_before_the_window_opens() {
    for (args, code, expected) in [
        (&["--soak", "0"][..], 2, "at least 10 s"),
        (&["--soak", "5"][..], 2, "too short to test anything"),
        (&["--soak", "inf"][..], 2, "10..=86400"),
        (&["--seed", "3"][..], 2, "--soak"),
        (
            &["--soak", "60", "--frames", "3"][..],
            2,
            "cannot be used with",
        ),
        (
            &["--soak", "60", "--soak-rigs", "/nonexistent-rigs"][..],
            1,
            "--soak-rigs /nonexistent-rigs: cannot read the folder",
        ),
        (
            &["--soak", "60", "--soak-rigs", "src"][..],
            1,
            "no .gltf or .glb file",
        ),
    ] {
        let (got, _, err) = skinbench(args);
        assert_eq!(got, code, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}

fn without_a_display_the_app_says_what_to_do() {
    let (code, _, err) = skinbench(&["--frames", "1"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("Xvfb") && err.contains("display"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Said once, without the winit source file it comes from.
    assert!(!err.contains(".rs:") && !err.contains("registry"), "{err}");
    assert_eq!(err.matches("WAYLAND_SOCKET").count(), 1, "{err}");
}

/// Each message names the value and what is valid, without what the user did not ask.
fn refusals_name_the_flag_and_the_range() {
    // Negative numbers are values, refused with the range, not unknown arguments.
    for (args, wanted) in [
        (vec!["--speed", "-1"], "-1 is out of range 0..=10"),
        (vec!["--speed", "11"], "11 is out of range 0..=10"),
        (vec!["--blend", "-0.5"], "-0.5 is out of range 0..=1"),
        (vec!["--clip-time", "-2"], "a number, 0 or more"),
        (vec!["--lod-threshold", "-1"], "--lod-threshold"),
        (
            vec!["--skinned-pool", "0"],
            "\"0\" is neither off, auto nor a whole percentage from 1 to 100",
        ),
        (
            vec!["--skinned-pool", "101"],
            "\"101\" is neither off, auto",
        ),
        (
            vec!["--skinned-pool", "half"],
            "\"half\" is neither off, auto",
        ),
    ] {
        let (code, _, err) = skinbench(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(wanted), "{args:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
    // --threads 0 opens with the flag, not the whole configuration.
    let (code, _, err) = skinbench(&["--threads", "0", "--frames", "1"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("error: --threads 0: out of range 1..="),
        "{err}"
    );
    assert!(!err.contains("--hierarchy"), "{err}");
    // pose lists only the variants it takes, and refuses the GPU ones as unknown values.
    let (_, help, _) = skinbench(&["pose", "--help"]);
    let listed = listed_values(&help, "--skin");
    assert!(!listed.is_empty(), "{help}");
    for v in SkinVariant::ALL {
        assert_eq!(
            listed.iter().any(|l| l == v.name()),
            v.skins_on_cpu(),
            "pose --help and {}: {listed:?}",
            v.name()
        );
    }
    let (code, _, err) = skinbench(&[
        "pose",
        "reference",
        "--skin",
        "gpu_compute",
        "--out",
        "x.obj",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("pulled") && !err.contains("gpu_vertex"),
        "{err}"
    );
}

/// A clip the rig lacks is refused before the window opens or the bench measures, with
/// the rig's clips listed; naming none is a usage error.
fn unknown_clips_are_refused_with_the_rig_s_clips() {
    let Some(fox) = common::rigs_dir().map(|d| d.join("Fox/Fox.glb")) else {
        common::cannot_run_here()
    };
    let fox = fox.to_str().unwrap();
    let dir = common::temp_dir("clips-bad");
    let out = dir.to_str().unwrap();
    for args in [
        vec!["--rig", fox, "--clips", "Walk,Jump", "--frames", "1"],
        vec![
            "bench", "--quick", "--out", out, "--rig", fox, "--clips", "Jump",
        ],
    ] {
        let (code, _, err) = skinbench(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains("\"Jump\"") && err.contains("its clips: Survey, Walk, Run"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "the bench wrote files"
    );
    let (code, _, err) = skinbench(&["--clips", ",", "--frames", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("name at least one clip"), "{err}");
}

fn bench_refuses_bad_input_and_writes_nothing() {
    let dir = common::temp_dir("bench-bad");
    let out = dir.to_str().unwrap();
    // A value outside a declaration is a usage error (2, from the parser, as for every
    // variant flag); a value the run cannot take is 1.
    for (args, expected) in [
        (
            vec!["bench", "--quick", "--out", out, "--workload", "everything"],
            2,
        ),
        (
            vec!["bench", "--quick", "--out", out, "--instances", "0"],
            1,
        ),
        (vec!["bench", "--quick", "--out", out, "--size", "10x10"], 2),
        (
            vec!["bench", "--quick", "--out", out, "--size", "1920 by 1080"],
            2,
        ),
        (
            vec![
                "bench",
                "--quick",
                "--out",
                out,
                "--rig",
                "/nonexistent/rig.gltf",
            ],
            1,
        ),
    ] {
        let (code, _, err) = skinbench(&args);
        assert_eq!(code, expected, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (_, _, err) = skinbench(&["bench", "--quick", "--out", out, "--workload", "everything"]);
    assert!(err.contains("hierarchy, skin, frame"), "{err}");
    let (_, _, err) = skinbench(&["bench", "--quick", "--out", out, "--size", "10x10"]);
    assert!(
        err.contains("--size") && err.contains("64..=16384"),
        "{err}"
    );
    // Each refused with the exit code and the words that name what is wrong.
    let refused = |extra: &[&str], expected: i32, needles: &[&str]| {
        let args: Vec<&str> = ["bench", "--quick", "--out", out]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let (code, _, err) = skinbench(&args);
        assert_eq!(code, expected, "{extra:?}: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{extra:?}: {needle:?} not in {err}");
        }
    };
    // Only the gpu workload takes a camera.
    refused(
        &["--workload", "skin", "--camera", "street"],
        1,
        &["--camera street", "--workload gpu"],
    );
    // Only the crowd workload cross-fades, and only by a weight in 0..=1.
    refused(
        &["--workload", "skin", "--blend", "0.4"],
        1,
        &["--blend 0.4", "--workload crowd"],
    );
    // A crowd of one clip has nothing to cross-fade to.
    refused(
        &["--workload", "crowd", "--clips", "walk", "--blend", "0.4"],
        1,
        &["--blend 0.4", "one clip (walk)", "--clips"],
    );
    for weight in ["1.5", "-0.2", "much"] {
        refused(&["--workload", "crowd", "--blend", weight], 2, &["--blend"]);
    }
    refused(&["--camera", "roof"], 2, &["overview", "street"]);
    refused(
        &["--simd-level", "avx1024"],
        1,
        &["avx1024", "portable, avx2, avx512"],
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "partial report files were left"
    );
    // An output folder that cannot be created.
    let blocker = dir.join("file");
    std::fs::write(&blocker, b"").unwrap();
    let (code, _, err) = skinbench(&[
        "bench",
        "--quick",
        "--out",
        blocker.join("sub").to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot write the report"), "{err}");
}

/// A plain `bench` (no `--out`) in the checkout leaves `git status` as it found it: its
/// reports and charts go to bench-results/local/, which git ignores, and the committed
/// index is not rewritten.
fn a_plain_bench_leaves_the_checkout_clean() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = || {
        Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=all"])
            .current_dir(repo)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let Some(before) = status() else {
        common::missing("not a git checkout (or no git)");
        common::cannot_run_here()
    };
    let local = repo.join("bench-results/local");
    let existing: Vec<std::path::PathBuf> = std::fs::read_dir(&local)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    let out = Command::new(env!("CARGO_BIN_EXE_skinbench"))
        .args([
            "bench",
            "--quick",
            "--rig",
            "twist",
            "--workload",
            "skin",
            "--instances",
            "8",
        ])
        .current_dir(repo)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let after = status().unwrap();
    // What it wrote, removed again (this test's own run only).
    let written: Vec<std::path::PathBuf> = std::fs::read_dir(&local)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| !existing.contains(p))
        .collect();
    for p in &written {
        let _ = std::fs::remove_file(p);
    }
    assert_eq!(
        written.len(),
        3,
        "a report, its JSON and its chart: {written:?}"
    );
    assert_eq!(before, after, "git status changed: {err}");
}

/// The load workload loads the rig again from its file, cold then cached, round by round:
/// every step's times for both, and the cached load read what the cold one wrote.
fn bench_load_measures_cold_and_cached_loads() {
    let dir = common::temp_dir("bench-load");
    let (code, stdout, err) = skinbench(&[
        "bench",
        "--quick",
        "--rig",
        "twist",
        "--workload",
        "load",
        "--out",
        dir.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let load = &report["load"];
    assert_eq!(load["rounds"], 2, "{load}");
    let rows = load["rows"].as_array().unwrap();
    let steps: Vec<&str> = rows.iter().map(|r| r["step"].as_str().unwrap()).collect();
    assert_eq!(steps, skinbench::bench::load::STEPS);
    for row in rows {
        for key in ["cold_ms", "cached_ms"] {
            let times = row[key].as_array().unwrap();
            assert!(
                times.len() == 2 && times.iter().all(|t| t.as_f64().unwrap() >= 0.0),
                "{row}"
            );
        }
    }
    assert!(load["poses"].as_u64().unwrap() > 0, "{load}");
    let md = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "md"))
        .expect("a report");
    let text = std::fs::read_to_string(md).unwrap();
    assert!(text.contains("## load: twist"), "{text}");
}

fn bench_quick_writes_both_reports() {
    let dir = common::temp_dir("bench-quick");
    let run = [
        "bench",
        "--quick",
        "--rig",
        "twist",
        "--workload",
        "skin",
        "--instances",
        "8",
        "--out",
        dir.to_str().unwrap(),
    ];
    let (code, stdout, err) = skinbench(&[&run[..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}");
    // Each progress line names the method it measured.
    for line in err.lines().filter(|l| l.starts_with("skin ")) {
        assert!(
            line.contains(" linear ") || line.contains(" dual_quat "),
            "{line}"
        );
    }
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        report["store_bandwidth"][0]["regular_gbs"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let rows = report["skin"]["rows"].as_array().unwrap();
    // The CPU's skin workload measures the variants that skin on the CPU, each with every
    // skinning method it implements.
    assert_eq!(
        rows.len(),
        skinbench::skin::SkinVariant::ALL
            .iter()
            .filter(|s| s.skins_on_cpu())
            .map(|s| s.spec().methods.len())
            .sum::<usize>(),
        "one row per CPU skin variant and method"
    );
    assert!(
        rows.iter()
            .any(|r| r["method"] == "dual_quat" && r["ratio_to_linear"]["ratio"].as_f64().is_some()),
        "no dual-quaternion row with its ratio to linear"
    );
    // The twist rig is closed: each method's worst volume, linear's well below dual
    // quaternions'.
    let volumes = report["skin"]["volumes"].as_array().unwrap();
    let ratio = |method: &str| {
        volumes
            .iter()
            .find(|v| v["method"] == method)
            .and_then(|v| v["ratio"].as_f64())
            .unwrap_or_else(|| panic!("no worst volume for {method}: {volumes:?}"))
    };
    assert!(ratio("linear") < 0.8 && (ratio("dual_quat") - 1.0).abs() < 0.01);
    // Every row names its variant and method and has its timing (none is refused here).
    for row in rows {
        for key in ["variant", "method", "ratio_to_naive", "frames"] {
            assert!(row.get(key).is_some(), "row without {key}: {row}");
        }
        for key in ["median_us", "p95_us", "min_us", "ns_per_item"] {
            assert!(
                row["timing"][key].as_f64().is_some(),
                "row without timing.{key}: {row}"
            );
        }
    }
    let names = || {
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        files
    };
    let files = names();
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(
        files[0].ends_with("_skin_8inst_twist.json")
            && files[1].ends_with("_skin_8inst_twist.md")
            && files[2].ends_with("_skin_8inst_twist_skin.svg"),
        "a partial run says so in its name, and its chart is beside it: {files:?}"
    );
    // The chart is an SVG of the variants measured, linked from the report.
    let svg = std::fs::read_to_string(dir.join(&files[2])).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("naive linear"),
        "{svg}"
    );
    let md = std::fs::read_to_string(dir.join(&files[1])).unwrap();
    assert!(
        md.contains(&format!("]({})", files[2])),
        "the report links its chart: {md}"
    );
    // The same run again must not replace the first report.
    let (code, _, err) = skinbench(&run);
    assert_eq!(code, 0, "{err}");
    let again = names();
    assert_eq!(again.len(), 6, "{again:?}");
    assert!(
        again.iter().any(|f| f.ends_with("_skin_8inst_twist_2.md")),
        "{again:?}"
    );
    assert!(
        again
            .iter()
            .any(|f| f.ends_with("_skin_8inst_twist_2.json")),
        "{again:?}"
    );
}

fn bench_measures_every_simd_level_side_by_side() {
    let dir = common::temp_dir("bench-levels");
    let (code, stdout, err) = skinbench(&[
        "bench",
        "--quick",
        "--workload",
        "skin",
        "--instances",
        "8",
        "--simd-level",
        "all",
        "--json",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let rows = report["skin"]["rows"].as_array().unwrap();
    let available = SimdLevel::available();
    // Scalar variants once (no level), lane variants once per level, each naming it.
    for &skin in SkinVariant::ALL.iter().filter(|s| s.skins_on_cpu()) {
        let levels: Vec<&str> = rows
            .iter()
            .filter(|r| r["variant"] == skin.name() && r["method"] == "linear")
            .map(|r| r["simd"].as_str().unwrap_or("none"))
            .collect();
        if skin.spec().lanes == 1 {
            assert_eq!(levels, ["none"], "{}", skin.name());
        } else {
            let mut expected: Vec<&str> = available.iter().rev().map(|l| l.label()).collect();
            expected.sort();
            let mut got = levels.clone();
            got.sort();
            assert_eq!(got, expected, "{}", skin.name());
        }
    }
    let md = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|f| f.ends_with(".md"))
        .unwrap();
    if available.len() > 1 {
        let names: Vec<&str> = available.iter().rev().map(|l| l.name()).collect();
        assert!(md.ends_with(&format!("_{}.md", names.join("-"))), "{md}");
    }
}

fn bench_crowd_workload_compares_lod_off_and_on() {
    // An adapter is needed for the uploads (lavapipe in CI, where its absence fails).
    if common::gpu_context().is_none() {
        common::cannot_run_here();
    }
    let dir = common::temp_dir("bench-crowd");
    let (code, stdout, err) = skinbench(&[
        "bench",
        "--quick",
        "--workload",
        "crowd",
        "--instances",
        "300",
        "--json",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["crowd"]["instances"], 300);
    // Measured where users look unless asked otherwise, and not named for it.
    assert_eq!(report["crowd"]["size"], serde_json::json!([1920, 1080]));
    let rows = report["crowd"]["rows"].as_array().unwrap();
    // Both cameras, every thread count, LOD off then on, geometric LOD off then on.
    assert!(rows.len() >= 8, "{rows:?}");
    assert!(rows.iter().any(|r| r["mesh_lod"] == true), "{rows:?}");
    for row in rows {
        assert!(row["cpu_total_us"].as_f64().unwrap() > 0.0, "{row}");
        let lod = row["lod"].as_bool().unwrap();
        let mesh = row["mesh_lod"].as_bool().unwrap();
        assert_eq!(row["measured_error_px"].is_null(), !lod, "{row}");
        if lod {
            let error = row["measured_error_px"].as_f64().unwrap();
            assert!(error <= row["threshold_px"].as_f64().unwrap(), "{row}");
        } else if !mesh {
            assert_eq!(row["ratio_to_lod_off"], 1.0, "{row}");
        }
        // The CPU skins at most every vertex; with both LODs off, every one.
        let skinned = row["skinned_vertices"].as_f64().unwrap();
        let full = row["full_vertices"].as_f64().unwrap();
        assert!(skinned <= full, "{row}");
        if !lod && !mesh {
            assert_eq!(skinned, full, "{row}");
        }
        // And poses at most every joint: every one with both off, fewer with mesh LOD (the
        // built-in rig's levels leave out the joints that move no vertex).
        let posed = row["joints_posed"].as_f64().unwrap();
        let joints = row["full_joints"].as_f64().unwrap();
        assert_eq!(joints, 300.0 * 96.0, "{row}");
        assert!(posed <= joints, "{row}");
        if !lod && !mesh {
            assert_eq!(posed, joints, "{row}");
        }
        if mesh {
            assert!(posed < joints, "{row}");
        }
        // Of those, the sampled ones: fewer than posed (the built-in rig has joints no
        // clip animates, and coarse levels hold some at rest).
        let sampled = row["joints_sampled"].as_f64().unwrap();
        assert!(sampled < posed, "{row}");
    }
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        3,
        "the .md, the .json and the chart: {files:?}"
    );
    assert!(files[2].ends_with("_crowd.svg"), "{files:?}");
}

fn bench_gpu_workload_measures_cpu_and_gpu_skinning_side_by_side() {
    // An adapter is needed (lavapipe in CI, where its absence fails the test).
    if common::gpu_context().is_none() {
        common::cannot_run_here();
    }
    let dir = common::temp_dir("bench-gpu");
    let (code, stdout, err) = skinbench(&[
        "bench",
        "--quick",
        "--workload",
        "gpu",
        "--instances",
        "9",
        "--size",
        "640x360",
        "--json",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(!report["gpu"]["adapter"].as_str().unwrap().is_empty());
    // Drawn at the size asked for, which the report and its name state (below).
    assert_eq!(report["gpu"]["size"], serde_json::json!([640, 360]));
    let rows = report["gpu"]["rows"].as_array().unwrap();
    // The best CPU configuration first, then every GPU variant (compute with each shader).
    let configs: Vec<&str> = rows.iter().map(|r| r["config"].as_str().unwrap()).collect();
    assert!(configs[0].starts_with("best CPU"), "{configs:?}");
    for wanted in [
        "gpu_vertex",
        "gpu_compute (per_class)",
        "gpu_compute (all_classes)",
        "gpu_compute (per_level)",
        "gpu_compute (per_level), animated on the GPU (walk)",
        "gpu_compute (per_level), animated on the GPU (levels)",
        "gpu_compute (per_level), animated on the GPU (walk), LOD 1 px",
        "gpu_compute (per_level), animated on the GPU (levels), LOD 1 px",
        "gpu_compute (per_class), animated on the GPU (walk), LOD 1 px, mesh LOD",
        "gpu_compute (per_level), animated on the GPU (walk), LOD 1 px, mesh LOD",
        "gpu_vertex, animated on the GPU (walk)",
        "gpu_vertex, animated on the GPU (walk), LOD 1 px, mesh LOD, per_character draws",
        "gpu_compute (per_level), animated on the GPU (walk), LOD 1 px, mesh LOD, per_character \
         draws",
    ] {
        assert!(configs.contains(&wanted), "{wanted} missing: {configs:?}");
    }
    for row in rows {
        assert_eq!(row["instances"], 9);
        assert!(row["cpu_total_us"].as_f64().unwrap() > 0.0, "{row}");
        assert!(row["uploaded_bytes"].as_u64().unwrap() > 0, "{row}");
        // Animated on the GPU: no CPU stage, only the passes' parameters written in a
        // steady crowd, and each pass timed where the adapter has timestamps.
        let on_gpu = row["animate"] == "gpu";
        assert_eq!(
            on_gpu,
            row["config"]
                .as_str()
                .unwrap()
                .contains("animated on the GPU")
        );
        if on_gpu {
            assert_eq!(row["cpu_stages_us"].as_f64().unwrap(), 0.0, "{row}");
            assert!(row["uploaded_bytes"].as_u64().unwrap() < 10_000, "{row}");
            assert_eq!(
                !row["gpu_hierarchy_us"].is_null(),
                report_has_timestamps(&report),
                "{row}"
            );
        }
        let compute = !row["gpu_compute_us"].is_null();
        assert_eq!(
            compute,
            row["skin"] == "gpu_compute" && report_has_timestamps(&report),
            "{row}"
        );
    }
    // The GPU variants upload palettes, a fraction of the vertices.
    let bytes = |name: &str| {
        rows.iter().find(|r| r["config"] == name).unwrap()["uploaded_bytes"]
            .as_u64()
            .unwrap()
    };
    assert!(bytes("gpu_vertex") * 4 < bytes(configs[0]));
    let files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for end in [
        "_gpu_9inst_640x360.md",
        "_gpu_9inst_640x360.json",
        "_gpu_9inst_640x360_gpu.svg",
    ] {
        assert!(files.iter().any(|f| f.ends_with(end)), "{files:?}");
    }
}

/// Whether the run's adapter wrote timestamps (every row then has a render time).
fn report_has_timestamps(report: &serde_json::Value) -> bool {
    report["gpu"]["rows"][0]["gpu_render_us"].is_number()
}

fn an_unknown_workload_lists_gpu_and_crowd_too() {
    let (code, _, err) = skinbench(&["bench", "--workload", "disk"]);
    assert_ne!(code, 0);
    for name in ["hierarchy", "skin", "frame", "gpu", "crowd"] {
        assert!(err.contains(name), "{err}");
    }
}

/// `gen-rig --kind twist` writes the rig the binary embeds, and `inspect` and `--rig`
/// know the built-in rigs by name.
fn gen_rig_writes_the_embedded_twist_rig() {
    let dir = common::temp_dir("gen-rig");
    let out = dir.join("twist.glb");
    let (code, stdout, err) =
        skinbench(&["gen-rig", "--kind", "twist", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("twist.glb"), "{stdout}");
    assert!(std::fs::read(&out).unwrap() == skinbench::TWIST_RIG_GLB);
    let (code, stdout, err) = skinbench(&["inspect", "twist"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("joints:        4") && stdout.contains("twist"),
        "{stdout}"
    );
}

/// Input mistakes a newcomer makes, each answered with what is wrong and what is valid.
fn small_mistakes_get_messages_that_say_what_to_write() {
    // A window size without a height shows the format.
    let (code, _, err) = skinbench(&["--window", "100x"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("WIDTHxHEIGHT") && err.contains("1600x900"),
        "{err}"
    );
    // A folder given as a rig names the rigs in it.
    let dir = common::temp_dir("rig-folder");
    std::fs::write(dir.join("a.glb"), b"x").unwrap();
    std::fs::write(dir.join("notes.txt"), b"x").unwrap();
    for args in [
        vec!["inspect", dir.to_str().unwrap()],
        vec!["bench", "--quick", "--rig", dir.to_str().unwrap()],
    ] {
        let (code, _, err) = skinbench(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(
            err.contains("folder") && err.contains("a.glb"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("notes.txt"), "{err}");
    }
}

/// A misspelt WGPU_BACKEND lists the valid names (wgpu itself skips an unknown name and
/// ends in a confusing surface error).
fn an_unknown_wgpu_backend_lists_the_valid_ones() {
    let out = Command::new(env!("CARGO_BIN_EXE_skinbench"))
        .args(["bench", "--workload", "gpu", "--quick", "--instances", "1"])
        .env("WGPU_BACKEND", "vulcan")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("\"vulcan\" is not a backend") && err.contains("vulkan (or vk)"),
        "{err}"
    );
}

/// The compute-shader help counts the influence classes there are.
fn the_compute_shader_help_counts_eight_classes() {
    let (_, help, _) = skinbench(&["--help"]);
    assert!(!help.contains("(1-4)"), "{help}");
    assert!(help.contains("1 to 8 influences"), "{help}");
}

fn bench_thread_counts_are_numbers_or_all() {
    for bad in ["0", "lots", "1,,2", "100000"] {
        let (code, _, err) = skinbench(&["bench", "--workload", "frame", "--threads", bad]);
        assert_eq!(code, 1, "--threads {bad}: {err}");
        assert!(
            err.contains("--threads") && err.contains("`all`"),
            "--threads {bad}: {err}"
        );
    }
}

fn summarize_names_the_folder_or_file_it_cannot_read() {
    let dir = common::temp_dir("summarize-empty");
    let (code, _, err) = skinbench(&["summarize", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("holds no bench report"), "{err}");
    std::fs::write(dir.join("notes.json"), "{\"not\": \"a report\"}").unwrap();
    let (code, _, err) = skinbench(&["summarize", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("notes.json") && err.contains("no machine section"),
        "{err}"
    );
    let (code, _, err) = skinbench(&["summarize", "/nonexistent/folder"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("/nonexistent/folder"), "{err}");
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "unknown_variants_list_the_valid_ones",
            unknown_variants_list_the_valid_ones,
        ),
        (
            "help_lists_exactly_the_declared_variants_with_the_real_defaults",
            help_lists_exactly_the_declared_variants_with_the_real_defaults,
        ),
        (
            "animate_gpu_is_refused_with_what_it_cannot_run_with",
            animate_gpu_is_refused_with_what_it_cannot_run_with,
        ),
        (
            "frames_and_screenshot_are_checked_before_the_window_opens",
            frames_and_screenshot_are_checked_before_the_window_opens,
        ),
        ("verify_needs_frames", verify_needs_frames),
        (
            "soak_flags_are_checked_before_the_window_opens",
            soak_flags_are_checked_before_the_window_opens,
        ),
        (
            "without_a_display_the_app_says_what_to_do",
            without_a_display_the_app_says_what_to_do,
        ),
        (
            "refusals_name_the_flag_and_the_range",
            refusals_name_the_flag_and_the_range,
        ),
        (
            "unknown_clips_are_refused_with_the_rig_s_clips",
            unknown_clips_are_refused_with_the_rig_s_clips,
        ),
        (
            "bench_refuses_bad_input_and_writes_nothing",
            bench_refuses_bad_input_and_writes_nothing,
        ),
        (
            "a_plain_bench_leaves_the_checkout_clean",
            a_plain_bench_leaves_the_checkout_clean,
        ),
        (
            "bench_load_measures_cold_and_cached_loads",
            bench_load_measures_cold_and_cached_loads,
        ),
        (
            "bench_quick_writes_both_reports",
            bench_quick_writes_both_reports,
        ),
        (
            "bench_measures_every_simd_level_side_by_side",
            bench_measures_every_simd_level_side_by_side,
        ),
        (
            "bench_crowd_workload_compares_lod_off_and_on",
            bench_crowd_workload_compares_lod_off_and_on,
        ),
        (
            "bench_gpu_workload_measures_cpu_and_gpu_skinning_side_by_side",
            bench_gpu_workload_measures_cpu_and_gpu_skinning_side_by_side,
        ),
        (
            "an_unknown_workload_lists_gpu_and_crowd_too",
            an_unknown_workload_lists_gpu_and_crowd_too,
        ),
        (
            "gen_rig_writes_the_embedded_twist_rig",
            gen_rig_writes_the_embedded_twist_rig,
        ),
        (
            "small_mistakes_get_messages_that_say_what_to_write",
            small_mistakes_get_messages_that_say_what_to_write,
        ),
        (
            "an_unknown_wgpu_backend_lists_the_valid_ones",
            an_unknown_wgpu_backend_lists_the_valid_ones,
        ),
        (
            "the_compute_shader_help_counts_eight_classes",
            the_compute_shader_help_counts_eight_classes,
        ),
        (
            "bench_thread_counts_are_numbers_or_all",
            bench_thread_counts_are_numbers_or_all,
        ),
        (
            "summarize_names_the_folder_or_file_it_cannot_read",
            summarize_names_the_folder_or_file_it_cannot_read,
        ),
    ];
    common::run_tests(tests);
}
