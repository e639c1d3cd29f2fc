//! The real window under Xvfb (`xvfb-run`): a timing screenshot's sidecar holds the
//! readings its panel drew in the last frame, averaged over the frames it names, at fast
//! and at slow (about a second and more) frames. The panel tests (`tests/panel.rs`) check
//! the same readings against the panel's drawn labels; here the window's own frame loop
//! makes them.

mod common;

use std::path::Path;
use std::process::Command;

/// `xvfb-run`, or `None` (with a message) where it is not installed; under `CI=true` it
/// must be.
fn xvfb_run() -> Option<&'static str> {
    let found = Command::new("xvfb-run")
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success() || !o.stdout.is_empty() || !o.stderr.is_empty());
    if found {
        return Some("xvfb-run");
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true requires xvfb-run (apt-get install xvfb xauth)");
    }
    common::missing("xvfb-run is not installed (apt-get install xvfb xauth)");
    None
}

/// Runs the window for `frames` frames and saves `out`; returns the sidecar.
fn screenshot(args: &[&str], frames: u64, out: &Path) -> Option<serde_json::Value> {
    let xvfb = xvfb_run()?;
    let runtime = common::temp_dir("xdg-runtime");
    let frames = frames.to_string();
    let output = Command::new(xvfb)
        .args(["-a", "-s", "-screen 0 1600x900x24"])
        .arg(env!("CARGO_BIN_EXE_skinbench"))
        .args(["--frames", &frames, "--no-vsync", "--screenshot"])
        .arg(out)
        .args(args)
        .env("XDG_RUNTIME_DIR", &runtime)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() && common::gpu_context().is_none() {
        return None;
    }
    assert!(output.status.success(), "{args:?}: {stderr}");
    let bytes = std::fs::read(out.with_extension("json")).unwrap();
    Some(serde_json::from_slice(&bytes).unwrap())
}

/// What every sidecar must say: its readings are the last drawn panel's, over frames it
/// names (the ones before the last, since a frame's panel shows the frames before it),
/// and each row's mean, p95 and share follow from those frames' own timings.
fn check(sidecar: &serde_json::Value, frames: u64) {
    let panel = &sidecar["panel"];
    let span = &panel["span"];
    assert_eq!(span["last_frame"].as_u64(), Some(frames - 1), "{span}");
    let listed = sidecar["panel_frames"].as_array().unwrap();
    assert_eq!(listed.len() as u64, span["frames"].as_u64().unwrap());
    let first = span["first_frame"].as_u64().unwrap();
    for (k, f) in listed.iter().enumerate() {
        assert_eq!(f["frame"].as_u64(), Some(first + k as u64));
    }
    let frame_us: Vec<f64> = listed
        .iter()
        .map(|f| f["timings"]["frame_us"].as_f64().unwrap())
        .collect();
    let frame_mean = frame_us.iter().sum::<f64>() / frame_us.len() as f64;
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0);
    assert!(close(panel["frame_mean_us"].as_f64().unwrap(), frame_mean));
    // The latest frames up to the reading's minimum always count; more only while they
    // fit the window.
    let window_us = span["window_secs"].as_f64().unwrap() * 1e6;
    let min_frames = skinbench::gpu::scene::readings::READING_MIN_FRAMES;
    assert!(
        frame_us.len() <= min_frames || frame_us.iter().sum::<f64>() <= window_us,
        "{} frames of {} µs in all, beyond the minimum {min_frames} and the window {window_us} µs",
        frame_us.len(),
        frame_us.iter().sum::<f64>()
    );
    // GPU rows are shares of the GPU's passes together.
    let gpu_mean = listed
        .iter()
        .map(|f| {
            f["timings"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| {
                    k.starts_with("gpu_") && k.ends_with("_us") && *k != "gpu_frame_us"
                })
                .filter_map(|(_, v)| v.as_f64())
                .sum::<f64>()
        })
        .sum::<f64>()
        / listed.len() as f64;
    let stage_names = [
        "sample",
        "blend",
        "hierarchy",
        "palette",
        "skin",
        "upload",
        "render",
    ];
    for row in panel["rows"].as_array().unwrap() {
        let key = row["key"].as_str().unwrap();
        let value = |t: &serde_json::Value| -> f64 {
            match stage_names.iter().position(|s| *s == key) {
                Some(i) => t["stage_us"][i].as_f64().unwrap(),
                None => t[&format!("{key}_us")].as_f64().unwrap_or(0.0),
            }
        };
        let mean = listed.iter().map(|f| value(&f["timings"])).sum::<f64>() / listed.len() as f64;
        assert!(
            close(row["mean_us"].as_f64().unwrap(), mean),
            "{key}: {row} against {mean}"
        );
        let whole = if key.starts_with("gpu_") {
            gpu_mean
        } else {
            frame_mean
        };
        // None where there is nothing to divide by (no GPU time back yet).
        let Some(share) = row["share_percent"].as_f64() else {
            assert_eq!(whole, 0.0, "{key}: {row}");
            continue;
        };
        assert!(close(share, 100.0 * mean / whole), "{key}: {row}");
        assert!(share <= 100.0 + 1e-9, "{key}: a share above 100 %: {row}");
    }
}

fn a_screenshot_at_fast_frames_records_the_panel_it_shows() {
    let dir = common::temp_dir("screenshot-fast");
    let out = dir.join("fast.png");
    let Some(sidecar) = screenshot(&["--instances", "20", "--shadows", "off"], 12, &out) else {
        common::cannot_run_here()
    };
    check(&sidecar, 12);
    assert!(
        sidecar["panel"]["span"]["frames"].as_u64().unwrap() >= 2,
        "{sidecar}"
    );
}

fn a_screenshot_at_slow_frames_records_the_panel_it_shows() {
    // Thousands of characters with shadows on a software renderer: about a second a
    // frame and more (on a GPU this is a fast run, and checks the same things).
    let dir = common::temp_dir("screenshot-slow");
    let out = dir.join("slow.png");
    let Some(sidecar) = screenshot(&["--instances", "3000", "--lod", "on"], 4, &out) else {
        common::cannot_run_here()
    };
    check(&sidecar, 4);
    // LOD's line is in the readings the panel drew.
    assert!(sidecar["panel"]["lod"]["stats"].is_object(), "{sidecar}");
}

/// Two frames: the first frame's duration is known only once the second begins, so the
/// panel of the last frame reads the first, with its whole duration (the window used to
/// divide by the time since the app started its clock: 5,636 FPS and shares of 7,573 %).
fn the_second_frame_reads_the_first_whole() {
    let dir = common::temp_dir("screenshot-two");
    let out = dir.join("two.png");
    let Some(sidecar) = screenshot(&["--instances", "20", "--shadows", "off"], 2, &out) else {
        common::cannot_run_here()
    };
    check(&sidecar, 2);
    let frame_us = sidecar["panel"]["frame_mean_us"].as_f64().unwrap();
    let cpu_us = sidecar["panel"]["cpu_total_us"].as_f64().unwrap();
    assert!(
        frame_us >= cpu_us,
        "a frame shorter than its own CPU work: {frame_us} µs against {cpu_us} µs"
    );
}

/// A load whose terminal is a file or a pipe (a log, CI) says each step on a line of its
/// own before the line of what the steps took: the bar a terminal shows is not drawn there,
/// and a long load would otherwise sit on nothing for seconds.
fn a_redirected_load_says_each_step() {
    let Some(xvfb) = xvfb_run() else {
        common::cannot_run_here()
    };
    let runtime = common::temp_dir("xdg-runtime-steps");
    let cache = common::temp_dir("load-steps-cache");
    let _ = std::fs::remove_dir_all(&cache);
    let output = Command::new(xvfb)
        .args(["-a", "-s", "-screen 0 1600x900x24"])
        .arg(env!("CARGO_BIN_EXE_skinbench"))
        .args(["--frames", "1", "--no-vsync", "--instances", "20"])
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("SKINBENCH_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() && common::gpu_context().is_none() {
        common::cannot_run_here()
    }
    assert!(output.status.success(), "{stderr}");
    let at = |text: &str| {
        stderr
            .find(text)
            .unwrap_or_else(|| panic!("no {text:?} in:\n{stderr}"))
    };
    let measuring = at("loading reference: measuring each level's error");
    let motions = at("loading reference: measuring how far each clip moves the mesh");
    let loaded = at("loaded reference in");
    assert!(measuring < motions && motions < loaded, "{stderr}");
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "a_screenshot_at_fast_frames_records_the_panel_it_shows",
            a_screenshot_at_fast_frames_records_the_panel_it_shows,
        ),
        (
            "a_screenshot_at_slow_frames_records_the_panel_it_shows",
            a_screenshot_at_slow_frames_records_the_panel_it_shows,
        ),
        (
            "the_second_frame_reads_the_first_whole",
            the_second_frame_reads_the_first_whole,
        ),
        (
            "a_redirected_load_says_each_step",
            a_redirected_load_says_each_step,
        ),
    ];
    common::run_tests(tests);
}
