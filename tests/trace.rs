//! `bench --trace`: the timeline a bench run writes, read back as Perfetto would read it.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use skinbench::crowd::Stage;
use skinbench::variant::Variant;

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

/// The trace's threads by name, and the span names on each.
fn spans_by_thread(trace: &serde_json::Value) -> BTreeMap<String, BTreeSet<String>> {
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    let names: BTreeMap<u64, String> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            (
                e["tid"].as_u64().unwrap(),
                e["args"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut by_thread: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for event in events.iter().filter(|e| e["ph"] == "X") {
        assert!(event["ts"].as_f64().unwrap() >= 0.0, "{event}");
        assert!(event["dur"].as_f64().unwrap() >= 0.0, "{event}");
        let tid = event["tid"].as_u64().unwrap();
        let thread = names
            .get(&tid)
            .unwrap_or_else(|| panic!("thread {tid} has no name"));
        by_thread
            .entry(thread.clone())
            .or_default()
            .insert(event["name"].as_str().unwrap().to_string());
    }
    by_thread
}

/// The frame workload at every thread count: every CPU stage it runs appears on every
/// thread that took part (the calling thread and each worker).
fn a_frame_bench_trace_has_every_stage_on_every_thread() {
    let dir = common::temp_dir("trace-frame");
    let path = dir.join("frame.json");
    let (code, _, err) = skinbench(&[
        "bench",
        "--quick",
        "--workload",
        "frame",
        "--instances",
        "24",
        "--out",
        dir.to_str().unwrap(),
        "--trace",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let trace: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).expect("the trace parses");
    assert_eq!(trace["otherData"]["spans_left_out"], 0);
    let by_thread = spans_by_thread(&trace);
    let threads = skinbench::crowd::pipeline::available_threads();
    // With blend weight 0 the frame samples one clip and skips the blend.
    let stages: Vec<&str> = Stage::CPU
        .iter()
        .filter(|&&s| s != Stage::Blend)
        .map(|s| s.name())
        .collect();
    let mut expected_threads = vec!["main (participant 0)".to_string()];
    expected_threads.extend((1..threads).map(|w| format!("worker {w}")));
    for thread in &expected_threads {
        let names = by_thread
            .get(thread)
            .unwrap_or_else(|| panic!("no spans on {thread}: {by_thread:?}"));
        for stage in &stages {
            assert!(
                names.contains(*stage),
                "{thread} never ran {stage}: {names:?}"
            );
        }
    }
}

/// The gpu workload's frames: the main thread's LOD plan, upload and encoding beside the
/// stages, and the GPU's passes on their own track where the adapter has timestamps.
fn a_gpu_bench_trace_has_the_main_thread_and_the_gpu_passes() {
    if common::gpu_context().is_none() {
        common::cannot_run_here();
    }
    let dir = common::temp_dir("trace-gpu");
    let path = dir.join("gpu.json");
    let (code, stdout, err) = skinbench(&[
        "bench",
        "--quick",
        "--workload",
        "gpu",
        "--instances",
        "9",
        "--out",
        dir.to_str().unwrap(),
        "--json",
        "--trace",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let trace: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).expect("the trace parses");
    let by_thread = spans_by_thread(&trace);
    let main = &by_thread["main (participant 0)"];
    for name in ["lod plan", "upload", "encode and submit", "sample", "skin"] {
        assert!(main.contains(name), "main thread without {name}: {main:?}");
    }
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    if report["gpu"]["rows"][0]["gpu_render_us"].is_number() {
        let gpu = &by_thread["GPU (durations from timestamp queries)"];
        for pass in ["render", "shadow", "compute"] {
            assert!(gpu.contains(pass), "GPU track without {pass}: {gpu:?}");
        }
    }
}

fn a_trace_path_that_cannot_be_written_is_refused_before_measuring() {
    let dir = common::temp_dir("trace-bad");
    for (path, says) in [
        (dir.join("trace.txt"), "must end in .json"),
        (dir.join("missing").join("t.json"), "does not exist"),
    ] {
        let (code, _, err) = skinbench(&[
            "bench",
            "--quick",
            "--out",
            dir.to_str().unwrap(),
            "--trace",
            path.to_str().unwrap(),
        ]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("--trace") && err.contains(says), "{err}");
    }
    // Nothing was measured, so nothing was written.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "a_frame_bench_trace_has_every_stage_on_every_thread",
            a_frame_bench_trace_has_every_stage_on_every_thread,
        ),
        (
            "a_gpu_bench_trace_has_the_main_thread_and_the_gpu_passes",
            a_gpu_bench_trace_has_the_main_thread_and_the_gpu_passes,
        ),
        (
            "a_trace_path_that_cannot_be_written_is_refused_before_measuring",
            a_trace_path_that_cannot_be_written_is_refused_before_measuring,
        ),
    ];
    common::run_tests(tests);
}
