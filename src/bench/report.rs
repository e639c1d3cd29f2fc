//! The one report writer: a bench run's Markdown (also what stdout shows) and JSON, as
//! `<date>_<cpu>_<git-sha>[_…].md` and `.json`.
//!
//! How it works: the Markdown is the run's header (machine, rig, store bandwidth, method)
//! and each workload's section in the declaration's order; the JSON is the [`Report`]
//! itself. Both are written to temporary files in the output folder first and renamed into
//! place only when both are complete, so a failed run leaves no partial report; a name
//! already taken gets `_2`, `_3`, …, so no report is ever replaced.

use super::table::{Align, Table};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{Report, Workload};
use crate::variant::Variant;

/// The readable report (markdown; also what stdout shows).
pub fn markdown(report: &Report) -> String {
    markdown_with_charts(report, None)
}

/// [`markdown`] with each workload's chart linked under its section: `charts` names the
/// report's base name and the workloads that have one (`<base>_<workload>.svg` beside it).
fn markdown_with_charts(report: &Report, charts: Option<(&str, &[&str])>) -> String {
    let mut s = String::new();
    let m = &report.machine;
    let _ = writeln!(s, "# skinbench report, {}\n", m.date);
    let mut machine = Table::new(&[("machine", Align::Left), ("", Align::Left)]);
    machine.row([
        "CPU".to_string(),
        format!(
            "{} ({} threads, best SIMD level {})",
            m.cpu_line(),
            m.cores,
            m.simd
        ),
    ]);
    machine.row([
        "SIMD levels measured".to_string(),
        format!(
            "{} (rows name theirs; scalar variants run once)",
            report.simd_levels.join(", ")
        ),
    ]);
    machine.row(["OS".to_string(), m.os.to_string()]);
    machine.row([
        "compiler".to_string(),
        format!("{} ({} build)", m.rustc, m.profile),
    ]);
    machine.row(["git".to_string(), m.git_sha.to_string()]);
    let r = &report.rig;
    let classes = r
        .influences
        .iter()
        .rposition(|&n| n > 0)
        .map_or(4, |c| c + 1)
        .max(4);
    machine.row([
        "rig".to_string(),
        format!(
            "{}: {} joints ({} palette entries), {} vertices, {} triangles, influences {} = {}{}",
            r.name,
            r.joints,
            r.palette_entries,
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
        ),
    ]);
    machine.row([
        "clips".to_string(),
        format!(
            "{}: {}{}",
            report.clips.choice,
            report.clips.played.join(", "),
            if report.clips.left_out.is_empty() {
                String::new()
            } else {
                format!("; left out: {}", report.clips.left_out.join(", "))
            }
        ),
    ]);
    if !report.store_bandwidth.is_empty() {
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
        machine.row(["store bandwidth".to_string(), bw.join("; ")]);
    }
    machine.row([
        "method".to_string(),
        format!(
            "{}warm-up, then frames until the median settles (0.5 %) or {:.1} s per configuration (CPU workloads)",
        if report.quick {
            "QUICK RUN (few frames, noisy): "
        } else {
            ""
        },
        report.budget_secs
        ),
    ]);
    machine.write(&mut s);
    s.push('\n');
    for &workload in Workload::ALL {
        let before = s.len();
        match workload {
            Workload::Hierarchy => {
                if let Some(section) = &report.hierarchy {
                    super::hierarchy::markdown(section, &mut s);
                }
            }
            Workload::Skin => {
                if let Some(section) = &report.skin {
                    super::skin::markdown(section, &mut s);
                }
            }
            Workload::Frame => {
                if let Some(section) = &report.frame {
                    super::frame::markdown(section, &mut s);
                }
            }
            Workload::Gpu => {
                if let Some(section) = &report.gpu {
                    super::gpu::markdown(section, &mut s);
                }
            }
            Workload::Crowd => {
                if let Some(section) = &report.crowd {
                    super::crowd::markdown(section, &mut s);
                }
            }
            Workload::Load => {
                if let Some(section) = &report.load {
                    super::load::markdown(section, &mut s);
                }
            }
        }
        if let Some((base, drawn)) = charts
            && s.len() > before
            && drawn.contains(&workload.name())
        {
            let _ = writeln!(
                s,
                "![{0} chart]({base}_{0}.svg)\n\n*The same figures as a chart: [{base}_{0}.svg]({base}_{0}.svg).*\n",
                workload.name()
            );
        }
    }
    if report.hierarchy.is_some() || report.skin.is_some() || report.frame.is_some() {
        let _ = writeln!(
            s,
            "Ratios are speed-ups (baseline median / row median). Seed figures are the articles' own, measured on an \
             i7-2600K in 2013; only their ratios are comparable."
        );
    }
    s
}

/// Base file name: `<date>_<cpu>_<git-sha>`, then what makes the run partial or special,
/// so runs of one commit do not share a name: `_<workload>-<workload>` when `--workload`
/// chose a subset, `_<n>inst` with `--instances`, `_street` for the gpu workload seen from
/// the street camera, `_tint` for the gpu workload drawn in the tints, `_<W>x<H>` for the
/// drawing workloads at another `--size` than 1920×1080, `_blend<W>` for the crowd workload
/// cross-faded (`--blend`), `_<level>-<level>` when the SIMD levels
/// measured are not just the CPU's best (`--simd-level`).
pub fn base_name(report: &Report) -> String {
    let mut name = format!(
        "{}_{}_{}",
        report.machine.date,
        report.machine.cpu_slug(),
        report.machine.git_sha
    );
    let default: Vec<&str> = Workload::default_set().iter().map(|w| w.name()).collect();
    if report.workloads != default {
        name += &format!("_{}", report.workloads.join("-"));
    }
    if let Some(n) = report.instances {
        name += &format!("_{n}inst");
    }
    // The gpu workload seen from another camera than its overview.
    if let Some(gpu) = &report.gpu
        && gpu.camera != crate::gpu::camera::CameraStart::Overview.name()
    {
        name += &format!("_{}", gpu.camera);
    }
    // Drawn in the tints rather than the file's colours.
    if let Some(gpu) = &report.gpu
        && gpu.material != crate::gpu::BaseColors::DEFAULT.name()
    {
        name += &format!("_{}", gpu.material);
    }
    // Drawn into another image than the default.
    let size = report
        .gpu
        .as_ref()
        .map(|g| g.size)
        .or_else(|| report.crowd.as_ref().map(|c| c.size));
    if let Some((w, h)) = size.filter(|&s| s != super::DEFAULT_SIZE) {
        name += &format!("_{w}x{h}");
    }
    if let Some(crowd) = report.crowd.as_ref().filter(|c| c.blend_weight > 0.0) {
        name += &format!("_blend{}", crowd.blend_weight);
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

/// Writes `<base>.md`, `<base>.json` and a chart per workload (`<base>_<workload>.svg`)
/// into `dir`, all or none. A chart that cannot be drawn leaves the report without charts,
/// and its Markdown says why.
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
    let (charts, chart_error) = match super::chart::charts(report) {
        Ok(charts) => (charts, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let drawn: Vec<&str> = charts.iter().map(|c| c.workload).collect();
    let mut md = markdown_with_charts(report, Some((&base, &drawn)));
    if let Some(e) = chart_error {
        let _ = writeln!(md, "\n(No charts: {e}.)");
    }
    // Every file as (temporary, final, text), written first, then renamed into place.
    let mut files = vec![
        (dir.join(format!(".{base}.md.tmp")), md_path.clone(), md),
        (
            dir.join(format!(".{base}.json.tmp")),
            json_path.clone(),
            json,
        ),
    ];
    for chart in charts {
        files.push((
            dir.join(format!(".{base}_{}.svg.tmp", chart.workload)),
            dir.join(format!("{base}_{}.svg", chart.workload)),
            chart.svg,
        ));
    }
    let fail = |path: &Path| {
        let path = path.to_path_buf();
        move |source| WriteError { path, source }
    };
    let result = files
        .iter()
        .try_for_each(|(temp, _, text)| std::fs::write(temp, text).map_err(fail(temp)))
        .and_then(|_| {
            files
                .iter()
                .try_for_each(|(temp, path, _)| std::fs::rename(temp, path).map_err(fail(path)))
        });
    if result.is_err() {
        for (temp, path, _) in &files {
            let _ = std::fs::remove_file(temp);
            let _ = std::fs::remove_file(path);
        }
    }
    result.map(|_| (md_path, json_path))
}
