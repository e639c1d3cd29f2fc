//! `scripts/gpu-report.sh` end to end with its tiny configuration (`--quick`) on whatever
//! adapter exists: it refuses a CPU adapter unless told, runs every part, and leaves
//! reports and a summary whose JSON parses and holds every section.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/gpu-report.sh")
}

fn run(args: &[&str], out: &Path) -> Output {
    Command::new("bash")
        .arg(script())
        .args(args)
        .arg(out)
        .env("SKINBENCH", env!("CARGO_BIN_EXE_skinbench"))
        .output()
        .expect("bash runs")
}

fn is_cpu_adapter(gpu: &skinbench::gpu::GpuContext) -> bool {
    gpu.summary.device_type.contains("Cpu")
}

fn a_cpu_adapter_is_refused_without_the_flag() {
    let Some(gpu) = common::gpu_context() else {
        common::cannot_run_here()
    };
    if !is_cpu_adapter(&gpu) {
        // A real GPU is measured, not refused: there is nothing here to check, and the
        // case says so instead of passing.
        common::missing("a CPU adapter (this one is a real GPU, which the script measures)");
        common::cannot_run_here();
    }
    let out = common::temp_dir("gpu-report-refused");
    let result = run(&["--quick"], &out);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("not GPU speed"), "{stderr}");
    assert!(stderr.contains("--allow-cpu-adapter"), "{stderr}");
}

fn a_bad_option_is_refused_with_the_usage() {
    let out = common::temp_dir("gpu-report-usage");
    let result = run(&["--budget", "soon"], &out);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--budget soon"), "{stderr}");
}

fn the_quick_report_runs_every_part_and_its_summary_parses() {
    let Some(gpu) = common::gpu_context() else {
        common::cannot_run_here()
    };
    let out = common::temp_dir("gpu-report-quick");
    let result = run(&["--quick", "--allow-cpu-adapter"], &out);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let markdown = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let cpu_adapter = is_cpu_adapter(&gpu);
    assert_eq!(summary["cpu_adapter"], cpu_adapter);
    assert_eq!(
        summary["title"].as_str().unwrap().contains("not GPU speed"),
        cpu_adapter
    );
    assert!(markdown.starts_with(&format!("# {}", summary["title"].as_str().unwrap())));
    // Three parts, each ended well, each with its report.
    let parts = summary["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 3, "{parts:?}");
    for part in parts {
        assert_eq!(part["status"], "ok", "{part}");
    }
    assert_eq!(summary["reports"].as_array().unwrap().len(), 3);
    // Every section has rows, and the ratios are ratios of the rows beside them.
    let passes = summary["gpu_passes"].as_array().unwrap();
    assert!(passes.len() >= 10, "{}", passes.len());
    for p in passes {
        if let (Some(share), Some(frame)) = (p["draw_share"].as_f64(), p["frame_us"].as_f64()) {
            assert!((0.0..=1.0).contains(&share) && frame > 0.0, "{p}");
        }
    }
    let cpu = summary["cpu_part"].as_array().unwrap();
    for r in cpu {
        let sum = ["stages_us", "upload_us", "encode_us"]
            .iter()
            .map(|k| r[k].as_f64().unwrap())
            .sum::<f64>();
        assert!(
            (sum - r["total_us"].as_f64().unwrap()).abs() < 1e-6 * sum,
            "{r}"
        );
    }
    assert!(cpu.iter().any(|r| r["animated_on_gpu"] == true));
    for key in ["walk_vs_levels", "lod_off_vs_on"] {
        let rows = summary[key].as_array().unwrap();
        assert!(!rows.is_empty(), "{key}");
        for c in rows {
            let (a, b) = (
                c["first_us"].as_f64().unwrap(),
                c["second_us"].as_f64().unwrap(),
            );
            assert!((c["ratio"].as_f64().unwrap() - b / a).abs() < 1e-9, "{c}");
        }
    }
    // Mesh LOD off against on: the levels never draw more than the full meshes.
    let mesh = summary["mesh_lod_off_vs_on"].as_array().unwrap();
    assert!(!mesh.is_empty());
    for c in mesh {
        assert!(
            c["triangles_on"].as_f64().unwrap() <= c["triangles_off"].as_f64().unwrap(),
            "{c}"
        );
    }
    let scaling = summary["thread_scaling"].as_array().unwrap();
    assert!(
        scaling
            .iter()
            .any(|r| r["threads"] == 1 && r["speedup"] == 1.0)
    );
    let cores = skinbench::crowd::pipeline::available_threads() as u64;
    assert!(scaling.iter().any(|r| r["threads"] == cores));
    assert!(!summary["crowd"].as_array().unwrap().is_empty());
}

/// A budget too short for the first part: it is stopped, the rest are skipped, each is
/// recorded as such, and the script says there is nothing to summarise.
fn a_part_past_the_budget_is_stopped_and_the_rest_skipped() {
    let Some(_gpu) = common::gpu_context() else {
        common::cannot_run_here()
    };
    let out = common::temp_dir("gpu-report-budget");
    let result = run(&["--quick", "--allow-cpu-adapter", "--budget", "8"], &out);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no summary"), "{stderr}");
    let parts = std::fs::read_to_string(out.join("parts.tsv")).unwrap();
    let lines: Vec<&str> = parts.lines().collect();
    assert_eq!(lines.len(), 3, "{parts}");
    assert!(lines[0].ends_with("stopped at the budget"), "{parts}");
    assert!(lines[1..].iter().all(|l| l.contains("skipped")), "{parts}");
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "a_cpu_adapter_is_refused_without_the_flag",
            a_cpu_adapter_is_refused_without_the_flag,
        ),
        (
            "a_bad_option_is_refused_with_the_usage",
            a_bad_option_is_refused_with_the_usage,
        ),
        (
            "the_quick_report_runs_every_part_and_its_summary_parses",
            the_quick_report_runs_every_part_and_its_summary_parses,
        ),
        (
            "a_part_past_the_budget_is_stopped_and_the_rest_skipped",
            a_part_past_the_budget_is_stopped_and_the_rest_skipped,
        ),
    ];
    common::run_tests(tests);
}
