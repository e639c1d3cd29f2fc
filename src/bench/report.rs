//! Bench report writers: the stdout table, `<date>_<cpu>_<sha>.md` and `.json`.
//!
//! How it works: the report is written to temporary files in the output folder first and
//! renamed into place only when both are complete, so a failed run leaves no partial
//! report behind.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{Report, Row};

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// The level a row's lane kernels ran at; "scalar" for variants without lane kernels.
fn simd(r: &Row) -> &'static str {
    r.simd.unwrap_or("scalar")
}

fn ratio(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.2}×"))
}

/// One progress line for a finished row.
pub fn row_line(row: &Row) -> String {
    if let Some(reason) = &row.refused {
        return format!(
            "{:<9} {:<9} {:<9} refused: {reason}",
            row.workload, row.variant, row.method
        );
    }
    format!(
        "{:<9} {:<9} {:<9} {:<8} {:>5} inst {} thr {:<6}  median {:>9} µs  ×{} (seed ×{})  {} ns/{}  {} GB/s",
        row.workload,
        row.variant,
        row.method,
        simd(row),
        row.instances,
        row.threads,
        row.schedule,
        opt(row.median_us, 1),
        opt(row.ratio_to_baseline, 2),
        opt(row.seed_ratio, 2),
        opt(row.ns_per_item, 2),
        row.item,
        opt(row.gb_per_s, 2),
    )
}

/// The readable tables (markdown; also what stdout shows).
pub fn markdown(report: &Report) -> String {
    let mut s = String::new();
    let m = &report.machine;
    let _ = writeln!(s, "# skinbench report, {}\n", m.date);
    let _ = writeln!(s, "| machine | |\n|---|---|");
    let _ = writeln!(
        s,
        "| CPU | {} ({} threads, best SIMD level {}) |",
        m.cpu, m.cores, m.simd
    );
    let _ = writeln!(
        s,
        "| SIMD levels measured | {} (rows name theirs; scalar variants run once) |",
        report.simd_levels.join(", ")
    );
    let _ = writeln!(s, "| OS | {} |", m.os);
    let _ = writeln!(s, "| compiler | {} ({} build) |", m.rustc, m.profile);
    let _ = writeln!(s, "| git | {} |", m.git_sha);
    let r = &report.rig;
    let classes = r
        .influences
        .iter()
        .rposition(|&n| n > 0)
        .map_or(4, |c| c + 1)
        .max(4);
    let _ = writeln!(
        s,
        "| rig | {}: {} joints, {} vertices, {} triangles, influences {} = {}{} |",
        r.name,
        r.joints,
        r.vertices,
        r.triangles,
        (1..=classes)
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join("/"),
        r.influences[..classes]
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("/"),
        r.cut_to_influences.map_or(String::new(), |n| format!(
            " (cut to {n} by --max-influences)"
        ))
    );
    let bw: Vec<String> = report
        .store_bandwidth
        .iter()
        .map(|b| {
            format!(
                "{} thread(s): {:.1} GB/s regular, {} non-temporal",
                b.threads,
                b.regular_gbs,
                b.non_temporal_gbs
                    .map_or("n/a".into(), |g| format!("{g:.1} GB/s"))
            )
        })
        .collect();
    let _ = writeln!(s, "| store bandwidth | {} |", bw.join("; "));
    let _ = writeln!(
        s,
        "| method | {}warm-up, then frames until the median settles (0.5 %) or {:.1} s per configuration |\n",
        if report.quick {
            "QUICK RUN (few frames, noisy): "
        } else {
            ""
        },
        report.budget_secs
    );

    let rows = |workload: &'static str| report.rows.iter().filter(move |r| r.workload == workload);
    if let Some(first) = rows("hierarchy").next() {
        let _ = writeln!(
            s,
            "## hierarchy: {} instances, 1 thread (seed 000: tree 3.8 ms → flat 3.1 ms)\n",
            first.instances
        );
        let _ = writeln!(
            s,
            "| variant | SIMD | median µs | p95 µs | min µs | × tree | seed × | ns/joint | + palette µs | × tree with palette | GB/s | % store bw |"
        );
        let _ = writeln!(
            s,
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        let base_with_palette = first.with_palette_median_us;
        for r in rows("hierarchy") {
            if let Some(reason) = &r.refused {
                let _ = writeln!(
                    s,
                    "| {} | {} | refused: {reason} |||||||||| ",
                    r.variant,
                    simd(r)
                );
                continue;
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.variant,
                simd(r),
                opt(r.median_us, 1),
                opt(r.p95_us, 1),
                opt(r.min_us, 1),
                ratio(r.ratio_to_baseline),
                ratio(r.seed_ratio),
                opt(r.ns_per_item, 2),
                opt(r.with_palette_median_us, 1),
                ratio(
                    base_with_palette
                        .zip(r.with_palette_median_us)
                        .map(|(b, x)| b / x)
                ),
                opt(r.gb_per_s, 2),
                opt(r.store_bandwidth_percent, 1),
            );
        }
        let _ = writeln!(s);
    }
    if let Some(first) = rows("skin").next() {
        let _ = writeln!(
            s,
            "## skin: {} instances, 1 thread (seed 004: 4.15 → 4.00 → 3.53 → 2.00 → 1.78 ms)\n",
            first.instances
        );
        let _ = writeln!(
            s,
            "| variant | method | SIMD | median µs | p95 µs | min µs | × naive | seed ms | seed × | ns/vertex | GB/s | % store bw |"
        );
        let _ = writeln!(
            s,
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for r in rows("skin") {
            if let Some(reason) = &r.refused {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | refused: {reason} |||||||||",
                    r.variant,
                    r.method,
                    simd(r)
                );
                continue;
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.variant,
                r.method,
                simd(r),
                opt(r.median_us, 1),
                opt(r.p95_us, 1),
                opt(r.min_us, 1),
                ratio(r.ratio_to_baseline),
                opt(r.seed_ms, 2),
                ratio(r.seed_ratio),
                opt(r.ns_per_item, 2),
                opt(r.gb_per_s, 2),
                opt(r.store_bandwidth_percent, 1),
            );
        }
        let _ = writeln!(s);
        let mut any = false;
        for r in rows("skin") {
            if let Some(ratio) = r.ratio_to_linear {
                any = true;
                let _ = writeln!(
                    s,
                    "- `{}` at {}: {} ns/vertex with {}, **{ratio:.2}×** its linear blend's (the palette stage's conversion to dual quaternions is not in these figures; the frame's stage medians in the JSON hold it)",
                    r.variant,
                    simd(r),
                    opt(r.ns_per_item, 2),
                    r.method,
                );
            }
        }
        if any {
            let _ = writeln!(s);
        }
        if !report.volumes.is_empty() {
            let _ = writeln!(
                s,
                "Volume enclosed by the skinned surface at each method's worst pose ({} poses per clip, f64 oracle; every variant matches it within tolerance):",
                crate::skin::volume::SAMPLES
            );
            for v in &report.volumes {
                let _ = writeln!(
                    s,
                    "- {}: **{:.3}×** the bind pose's (clip `{}` at {:.2} s)",
                    v.method, v.ratio, v.clip, v.time_secs
                );
            }
            let _ = writeln!(s);
        }
    }
    if let Some(first) = rows("frame").next() {
        let _ = writeln!(
            s,
            "## frame: sample → skin with the best variants at each SIMD level (first: {} hierarchy, {} skin)\n",
            first.hierarchy, first.skin
        );
        let _ = writeln!(
            s,
            "| instances | threads | schedule | SIMD | hierarchy, skin | median µs | p95 µs | min µs | × first row | × 1 thread same schedule and level | ns/vertex | GB/s | % store bw | stages (median µs per thread) |"
        );
        let _ = writeln!(
            s,
            "|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        );
        for r in rows("frame") {
            let stages: Vec<String> = r
                .stages_median_us
                .iter()
                .map(|(n, v)| format!("{n} {v:.0}"))
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {}, {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.instances,
                r.threads,
                r.schedule,
                simd(r),
                r.hierarchy,
                r.skin,
                opt(r.median_us, 1),
                opt(r.p95_us, 1),
                opt(r.min_us, 1),
                ratio(r.ratio_to_baseline),
                ratio(r.ratio_to_one_thread),
                opt(r.ns_per_item, 2),
                opt(r.gb_per_s, 2),
                opt(r.store_bandwidth_percent, 1),
                stages.join(", "),
            );
        }
        let _ = writeln!(s);
        for r in rows("frame") {
            if let (Some(ratio), Some(median)) = (r.ratio_to_best_cpu, r.median_us) {
                let _ = writeln!(
                    s,
                    "- {} instances, {} threads, {}: `{}`'s CPU part (sample → palettes laid out for the GPU, which skins) takes {median:.0} µs, **{ratio:.2}×** the best CPU variant's frame in the same run (no upload in this workload; `bench --workload gpu` adds it).",
                    r.instances, r.threads, r.schedule, r.skin,
                );
            }
        }
        if rows("frame").any(|r| r.ratio_to_best_cpu.is_some()) {
            let _ = writeln!(s);
        }
    }
    let _ = writeln!(
        s,
        "Ratios are speed-ups (baseline median / row median). Seed figures are the articles' own, measured on an \
         i7-2600K in 2013; only their ratios are comparable. GB/s counts the bytes the stage writes (model poses \
         for hierarchy, skinned vertices for skin and frame)."
    );
    s
}

/// Base file name: `<date>_<cpu>_<git-sha>`, then what makes the run partial or special,
/// so runs of one commit do not share a name: `_<workload>-<workload>` when `--workload`
/// chose a subset, `_<n>inst` with `--instances`, `_<level>-<level>` when the SIMD levels
/// measured are not just the CPU's best (`--simd-level`).
pub fn base_name(report: &Report) -> String {
    let mut name = format!(
        "{}_{}_{}",
        report.machine.date,
        report.machine.cpu_slug(),
        report.machine.git_sha
    );
    use crate::variant::Variant;
    let all: Vec<&str> = super::Workload::ALL.iter().map(|w| w.name()).collect();
    if report.workloads != all {
        name += &format!("_{}", report.workloads.join("-"));
    }
    if let Some(n) = report.instances {
        name += &format!("_{n}inst");
    }
    // Other rigs than the built-in reference one, and a cut, are in the name.
    if report.rig.name != "reference" {
        let stem = report
            .rig
            .name
            .rsplit_once('.')
            .map_or(report.rig.name.as_str(), |(stem, _)| stem);
        let slug: String = stem
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        name += &format!("_{slug}");
    }
    if let Some(n) = report.rig.cut_to_influences {
        name += &format!("_max{n}infl");
    }
    if report.simd_levels != [report.machine.simd.as_str()] {
        let levels: Vec<&str> = report
            .simd_levels
            .iter()
            .filter_map(|label| {
                <crate::simd::SimdLevel as Variant>::ALL
                    .iter()
                    .find(|l| l.label() == *label)
                    .map(|l| l.name())
            })
            .collect();
        name += &format!("_{}", levels.join("-"));
    }
    name
}

#[derive(Debug, thiserror::Error)]
#[error("cannot write the report to {}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Checks that `dir` exists (creating it) and is writable, before any measuring.
pub fn check_writable(dir: &Path) -> Result<(), WriteError> {
    let err = |source| WriteError {
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(err)?;
    let probe = dir.join(format!(".skinbench-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(err)?;
    std::fs::remove_file(&probe).map_err(err)?;
    Ok(())
}

/// Writes `<base>.md` and `<base>.json` into `dir`, both or neither.
pub fn write_files(report: &Report, dir: &Path) -> Result<(PathBuf, PathBuf), WriteError> {
    // Never replace an earlier report: a second run of the same kind gets `_2`, `_3`, ...
    let first = base_name(report);
    let taken = |base: &str| {
        dir.join(format!("{base}.md")).exists() || dir.join(format!("{base}.json")).exists()
    };
    let mut base = first.clone();
    let mut n = 2;
    while taken(&base) {
        base = format!("{first}_{n}");
        n += 1;
    }
    let md_path = dir.join(format!("{base}.md"));
    let json_path = dir.join(format!("{base}.json"));
    let json = serde_json::to_string_pretty(report).expect("report serializes");
    let md = markdown(report);
    let md_tmp = dir.join(format!(".{base}.md.tmp"));
    let json_tmp = dir.join(format!(".{base}.json.tmp"));
    let write = |path: &Path, text: &str| {
        std::fs::write(path, text).map_err(|source| WriteError {
            path: path.to_path_buf(),
            source,
        })
    };
    let result = write(&md_tmp, &md)
        .and_then(|_| write(&json_tmp, &json))
        .and_then(|_| {
            std::fs::rename(&md_tmp, &md_path).map_err(|source| WriteError {
                path: md_path.clone(),
                source,
            })
        })
        .and_then(|_| {
            std::fs::rename(&json_tmp, &json_path).map_err(|source| WriteError {
                path: json_path.clone(),
                source,
            })
        });
    if result.is_err() {
        for p in [&md_tmp, &json_tmp, &md_path, &json_path] {
            let _ = std::fs::remove_file(p);
        }
    }
    result.map(|_| (md_path, json_path))
}
