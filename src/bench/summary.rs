//! One summary of a folder of bench reports: what `scripts/gpu-report.sh` leaves behind
//! (`summary.md` and `summary.json` beside the reports), and what a user with a GPU
//! wants to read first.
//!
//! How it works: every `*.json` bench report in the folder is read as plain JSON (so a
//! report from an older build still reads), the rows of its gpu, frame and crowd sections
//! are collected, and each question is answered by a ratio within one report: the GPU's
//! time per pass and the draw passes' share of the GPU frame, the CPU's whole part of a
//! frame (stages + upload + encode) against the best CPU configuration's, encoding with
//! the animation on the GPU, walk against levels, update-rate LOD off against on, mesh
//! LOD off against on (triangles, vertices skinned, GPU frame, CPU part), thread scaling
//! of the whole CPU frame and the crowd workload's rows. `parts.tsv` (written by the
//! script: a part's name, its wall time in seconds and how it ended) adds how long each
//! part took. Nothing is measured here.

use super::gpu::PassColumns;
use super::table::{Align, Table};
use crate::gpu::GpuPass;
use crate::variant::Variant;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

/// Why a folder could not be summarised.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    #[error("cannot read the folder {path}: {source}")]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a bench report: {reason}")]
    NotAReport { path: PathBuf, reason: String },
    #[error("{0} holds no bench report (*.json with a machine section)")]
    Empty(PathBuf),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The summary of one folder (what `summary.json` holds).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub title: String,
    /// The adapter was a CPU emulation: its GPU columns are not GPU speed.
    pub cpu_adapter: bool,
    pub adapter: Option<String>,
    pub adapter_type: Option<String>,
    pub cpu: Option<String>,
    pub cores: Option<u64>,
    pub git: Option<String>,
    pub quick: bool,
    /// The reports read, by file name.
    pub reports: Vec<String>,
    /// Each part the script ran: name, wall seconds, how it ended.
    pub parts: Vec<Part>,
    pub gpu_passes: Vec<GpuPasses>,
    pub cpu_part: Vec<CpuPart>,
    pub walk_vs_levels: Vec<Comparison>,
    pub lod_off_vs_on: Vec<Comparison>,
    pub mesh_lod_off_vs_on: Vec<MeshLodComparison>,
    pub thread_scaling: Vec<ThreadScaling>,
    pub crowd: Vec<CrowdRow>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Part {
    pub name: String,
    pub seconds: f64,
    pub status: String,
}

/// One gpu-workload row's GPU passes, µs medians.
#[derive(Clone, Debug, Serialize)]
pub struct GpuPasses {
    pub config: String,
    pub instances: u64,
    pub shadows: bool,
    /// Each pass's time, in the frame's pass list (`gpu_<pass>_us` fields).
    #[serde(flatten)]
    pub passes: PassColumns,
    pub frame_us: Option<f64>,
    /// (shadow + render) / frame: how much of the GPU's frame is drawing.
    pub draw_share: Option<f64>,
}

/// One gpu-workload row's CPU side, µs medians.
#[derive(Clone, Debug, Serialize)]
pub struct CpuPart {
    pub config: String,
    pub instances: u64,
    pub shadows: bool,
    pub animated_on_gpu: bool,
    /// The CPU stages of the frame, the LOD plan included.
    pub stages_us: f64,
    pub upload_us: f64,
    pub encode_us: f64,
    /// Stages + upload + encode.
    pub total_us: f64,
    /// `total_us` over the best CPU configuration's at the same count and shadows.
    pub ratio_to_best_cpu: Option<f64>,
}

/// Two rows of one report against each other (`ratio` = second / first).
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub what: String,
    pub instances: u64,
    pub shadows: bool,
    pub first: String,
    pub second: String,
    pub measure: String,
    pub first_us: f64,
    pub second_us: f64,
    pub ratio: f64,
}

/// A configuration with mesh LOD off and on, in one report: what the crowd pass drew, what
/// was skinned, the GPU frame and the CPU's whole part.
#[derive(Clone, Debug, Serialize)]
pub struct MeshLodComparison {
    /// The configuration without mesh LOD.
    pub config: String,
    pub instances: u64,
    pub shadows: bool,
    pub triangles_off: f64,
    pub triangles_on: f64,
    pub skinned_off: f64,
    pub skinned_on: f64,
    pub frame_off_us: Option<f64>,
    pub frame_on_us: Option<f64>,
    /// Stages + upload + encode.
    pub cpu_off_us: f64,
    pub cpu_on_us: f64,
}

/// The whole CPU frame at one thread count (frame workload).
#[derive(Clone, Debug, Serialize)]
pub struct ThreadScaling {
    pub instances: u64,
    pub schedule: String,
    pub threads: u64,
    pub median_us: f64,
    /// One thread's median over this one.
    pub speedup: Option<f64>,
    /// `speedup / threads` (1 = linear scaling).
    pub efficiency: Option<f64>,
}

/// One crowd-workload row.
#[derive(Clone, Debug, Serialize)]
pub struct CrowdRow {
    pub camera: String,
    pub threads: u64,
    pub lod: bool,
    /// Geometric LOD on (reports from before it was measured have none: off).
    pub mesh_lod: bool,
    pub cpu_total_us: f64,
    pub encode_us: f64,
    pub ratio_to_lod_off: Option<f64>,
}

fn f(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// Reads every bench report in `dir` (and its `parts.tsv`) into a summary.
pub fn summarise(dir: &Path) -> Result<Summary, SummaryError> {
    let folder = |source| SummaryError::Folder {
        path: dir.to_path_buf(),
        source,
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(folder)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && p.file_name().is_some_and(|n| n != "summary.json")
        })
        .collect();
    paths.sort();
    let mut s = Summary::default();
    for path in &paths {
        let not_a_report = |reason: String| SummaryError::NotAReport {
            path: path.clone(),
            reason,
        };
        let bytes = std::fs::read(path).map_err(|e| not_a_report(e.to_string()))?;
        let report: Value =
            serde_json::from_slice(&bytes).map_err(|e| not_a_report(e.to_string()))?;
        let Some(machine) = report.get("machine") else {
            return Err(not_a_report("it has no machine section".into()));
        };
        s.reports.push(
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        s.cpu.get_or_insert_with(|| text(machine, "cpu"));
        s.cores = s.cores.or(machine.get("cores").and_then(Value::as_u64));
        s.git.get_or_insert_with(|| text(machine, "git_sha"));
        s.quick |= report
            .get("quick")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        for key in ["gpu", "crowd"] {
            if let Some(section) = report.get(key) {
                if s.adapter.is_none() {
                    s.adapter = section
                        .get("adapter")
                        .and_then(Value::as_str)
                        .map(String::from);
                    s.adapter_type = section
                        .get("adapter_type")
                        .and_then(Value::as_str)
                        .map(String::from);
                }
                s.cpu_adapter |= text(section, "adapter_type").contains("Cpu");
            }
        }
        if let Some(rows) = report.pointer("/gpu/rows").and_then(Value::as_array) {
            let camera = report
                .pointer("/gpu/camera")
                .and_then(Value::as_str)
                .unwrap_or("overview");
            gpu_rows(&mut s, rows, camera);
        }
        if let Some(rows) = report.pointer("/frame/rows").and_then(Value::as_array) {
            frame_rows(&mut s, rows);
        }
        if let Some(rows) = report.pointer("/crowd/rows").and_then(Value::as_array) {
            for r in rows {
                s.crowd.push(CrowdRow {
                    camera: text(r, "camera"),
                    threads: r.get("threads").and_then(Value::as_u64).unwrap_or(0),
                    lod: r.get("lod").and_then(Value::as_bool).unwrap_or(false),
                    mesh_lod: r.get("mesh_lod").and_then(Value::as_bool).unwrap_or(false),
                    cpu_total_us: f(r, "cpu_total_us").unwrap_or(f64::NAN),
                    encode_us: f(r, "encode_us").unwrap_or(f64::NAN),
                    ratio_to_lod_off: f(r, "ratio_to_lod_off"),
                });
            }
        }
    }
    if s.reports.is_empty() {
        return Err(SummaryError::Empty(dir.to_path_buf()));
    }
    if let Ok(parts) = std::fs::read_to_string(dir.join("parts.tsv")) {
        for line in parts.lines() {
            let mut cells = line.split('\t');
            if let (Some(name), Some(seconds), Some(status)) =
                (cells.next(), cells.next(), cells.next())
                && let Ok(seconds) = seconds.trim().parse::<f64>()
            {
                s.parts.push(Part {
                    name: name.to_string(),
                    seconds,
                    status: status.trim().to_string(),
                });
            }
        }
    }
    let adapter = s.adapter.clone().unwrap_or_else(|| "no adapter".into());
    s.title = if s.cpu_adapter {
        format!(
            "skinbench GPU report on a CPU adapter ({adapter}): not GPU speed, for testing the report only"
        )
    } else {
        format!("skinbench GPU report: {adapter}")
    };
    Ok(s)
}

fn gpu_rows(s: &mut Summary, rows: &[Value], camera: &str) {
    // Rows from another camera than the overview say so in their name.
    let label = |r: &Value| match camera {
        "overview" => text(r, "config"),
        other => format!("{}, {other} camera", text(r, "config")),
    };
    let key = |r: &Value| {
        (
            r.get("instances").and_then(Value::as_u64).unwrap_or(0),
            r.get("shadows").and_then(Value::as_bool).unwrap_or(false),
        )
    };
    // The CPU's whole part of a frame: stages, LOD plan and upload, then encode.
    let total = |r: &Value| {
        f(r, "cpu_total_us").unwrap_or(f64::NAN) + f(r, "encode_us").unwrap_or(f64::NAN)
    };
    for r in rows {
        let (instances, shadows) = key(r);
        let frame_us = f(r, "gpu_frame_us");
        let pass_us = |pass| f(r, &PassColumns::key(pass));
        let drawn =
            pass_us(GpuPass::Render).map(|render| render + pass_us(GpuPass::Shadow).unwrap_or(0.0));
        s.gpu_passes.push(GpuPasses {
            config: label(r),
            instances,
            shadows,
            passes: PassColumns::from_fn(pass_us),
            frame_us,
            draw_share: match (drawn, frame_us) {
                (Some(d), Some(frame)) if frame > 0.0 => Some((d / frame).min(1.0)),
                _ => None,
            },
        });
        let best = rows
            .iter()
            .find(|b| key(b) == (instances, shadows) && text(b, "config").starts_with("best CPU"));
        s.cpu_part.push(CpuPart {
            config: label(r),
            instances,
            shadows,
            animated_on_gpu: text(r, "animate") == "gpu",
            // The report's CPU total is stages, LOD plan and upload.
            stages_us: f(r, "cpu_total_us").unwrap_or(f64::NAN)
                - f(r, "upload_us").unwrap_or(f64::NAN),
            upload_us: f(r, "upload_us").unwrap_or(f64::NAN),
            encode_us: f(r, "encode_us").unwrap_or(f64::NAN),
            total_us: total(r),
            ratio_to_best_cpu: best.map(|b| total(r) / total(b)),
        });
    }
    // Walk against levels, and LOD off against on: rows whose names differ only there.
    for r in rows {
        let config = text(r, "config");
        let (instances, shadows) = key(r);
        let partner = |name: &str| {
            rows.iter()
                .find(|o| key(o) == (instances, shadows) && text(o, "config") == name)
        };
        let mut compare = |what: &str, other: &Value, field: &str, measure: &str| {
            if let (Some(a), Some(b)) = (f(r, field), f(other, field))
                && a > 0.0
            {
                let comparison = Comparison {
                    what: what.to_string(),
                    instances,
                    shadows,
                    first: label(r),
                    second: label(other),
                    measure: measure.to_string(),
                    first_us: a,
                    second_us: b,
                    ratio: b / a,
                };
                if what == "walk against levels" {
                    s.walk_vs_levels.push(comparison);
                } else {
                    s.lod_off_vs_on.push(comparison);
                }
            }
        };
        if config.ends_with("(walk)")
            && let Some(levels) = partner(&config.replace("(walk)", "(levels)"))
        {
            compare(
                "walk against levels",
                levels,
                "gpu_hierarchy_us",
                "GPU hierarchy pass",
            );
            compare("walk against levels", levels, "gpu_frame_us", "GPU frame");
        }
        if !config.contains("LOD")
            && let Some(on) = partner(&format!("{config}, LOD 1 px"))
        {
            compare("LOD off against on", on, "gpu_frame_us", "GPU frame");
            compare("LOD off against on", on, "encode_us", "encode (CPU)");
        }
        // Mesh LOD's row is the same name followed by ", mesh LOD" (and its threshold).
        if !config.contains("mesh LOD")
            && let Some(on) = rows.iter().find(|o| {
                let name = text(o, "config");
                key(o) == (instances, shadows)
                    && name.strip_prefix(&config).is_some_and(|rest| {
                        rest == ", mesh LOD"
                            || (rest.starts_with(", mesh LOD ") && rest.ends_with(" px"))
                    })
            })
        {
            s.mesh_lod_off_vs_on.push(MeshLodComparison {
                config: label(r),
                instances,
                shadows,
                triangles_off: f(r, "triangles").unwrap_or(f64::NAN),
                triangles_on: f(on, "triangles").unwrap_or(f64::NAN),
                skinned_off: f(r, "vertices_skinned").unwrap_or(f64::NAN),
                skinned_on: f(on, "vertices_skinned").unwrap_or(f64::NAN),
                frame_off_us: f(r, "gpu_frame_us"),
                frame_on_us: f(on, "gpu_frame_us"),
                cpu_off_us: total(r),
                cpu_on_us: total(on),
            });
        }
    }
}

fn frame_rows(s: &mut Summary, rows: &[Value]) {
    for r in rows {
        let instances = r.get("instances").and_then(Value::as_u64).unwrap_or(0);
        let threads = r.get("threads").and_then(Value::as_u64).unwrap_or(0);
        let schedule = text(r, "schedule");
        let Some(median_us) = r.pointer("/timing/median_us").and_then(Value::as_f64) else {
            continue;
        };
        // The best CPU variants' frames only (not the GPU variants' CPU part).
        if r.get("skin")
            .and_then(Value::as_str)
            .is_some_and(|k| k.starts_with("gpu"))
        {
            continue;
        }
        let one = rows.iter().find(|o| {
            o.get("instances").and_then(Value::as_u64) == Some(instances)
                && o.get("threads").and_then(Value::as_u64) == Some(1)
                && text(o, "schedule") == schedule
                && text(o, "simd") == text(r, "simd")
                && text(o, "skin") == text(r, "skin")
        });
        let speedup = one
            .and_then(|o| o.pointer("/timing/median_us").and_then(Value::as_f64))
            .map(|t1| t1 / median_us);
        s.thread_scaling.push(ThreadScaling {
            instances,
            schedule,
            threads,
            median_us,
            speedup,
            efficiency: speedup.map(|x| x / threads.max(1) as f64),
        });
    }
}

fn us(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.0}"),
        _ => "–".into(),
    }
}

fn ratio(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.2}×"),
        _ => "–".into(),
    }
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

/// The summary as Markdown.
pub fn markdown(s: &Summary) -> String {
    use Align::{Left, Right};
    let mut m = format!("# {}\n\n", s.title);
    if s.cpu_adapter {
        m += "**The adapter is a CPU emulation of a GPU: every GPU column below is software \
              rasterisation and compute on the same cores that run the CPU stages. Use these \
              numbers to check the report, never as GPU speed.**\n\n";
    }
    m += &format!(
        "- CPU: {} ({} threads)\n- adapter: {} ({})\n- git: {}\n- reports: {}{}\n",
        s.cpu.as_deref().unwrap_or("?"),
        s.cores.map_or("?".into(), |c| c.to_string()),
        s.adapter.as_deref().unwrap_or("none"),
        s.adapter_type.as_deref().unwrap_or("?"),
        s.git.as_deref().unwrap_or("?"),
        s.reports.join(", "),
        if s.quick {
            "\n- `--quick`: the fewest frames per configuration (and the script's tiny counts); figures are rough"
        } else {
            ""
        }
    );
    if !s.parts.is_empty() {
        let mut table = Table::new(&[("part", Left), ("wall time", Right), ("ended", Left)]);
        for p in &s.parts {
            table.row([
                p.name.to_string(),
                format!("{:.0} s", p.seconds),
                p.status.to_string(),
            ]);
        }
        m += "\n";
        table.write(&mut m);
    }
    m += "\nAll figures are medians per frame in µs from the reports named above; every ratio \
          compares two rows of the same report (same run, same machine).\n";
    if !s.gpu_passes.is_empty() {
        m += "\n## GPU time per pass\n\nDraw share = (shadow + render) / GPU frame: how much of the GPU's frame is drawing the crowd.\n\n";
        let table = Table::new(&[
            ("configuration", Left),
            ("instances", Right),
            ("shadows", Left),
        ]);
        let mut table = GpuPass::ALL
            .iter()
            .fold(table, |t, pass| t.with_column(pass.row(), Right))
            .with_column("GPU frame", Right)
            .with_column("draw share", Right);
        for r in &s.gpu_passes {
            table.row(
                [
                    r.config.to_string(),
                    r.instances.to_string(),
                    on_off(r.shadows).to_string(),
                ]
                .into_iter()
                .chain(GpuPass::ALL.iter().map(|&pass| us(r.passes.get(pass))))
                .chain([
                    us(r.frame_us),
                    r.draw_share
                        .map_or("–".into(), |x| format!("{:.0} %", 100.0 * x)),
                ]),
            );
        }
        table.write(&mut m);
    }
    if !s.cpu_part.is_empty() {
        m += "\n## The CPU's whole part of a frame\n\nStages (sample → skin, or → palettes for the GPU variants; none where the GPU animates; the LOD plan included) + upload + encode (recording the passes, including the per-character draw lists). × best CPU = this total over the best CPU configuration's at the same count and shadows.\n\n";
        let mut table = Table::new(&[
            ("configuration", Left),
            ("instances", Right),
            ("shadows", Left),
            ("stages", Right),
            ("upload", Right),
            ("encode", Right),
            ("total", Right),
            ("× best CPU", Right),
        ]);
        for r in &s.cpu_part {
            table.row([
                r.config.to_string(),
                r.instances.to_string(),
                on_off(r.shadows).to_string(),
                us(Some(r.stages_us)),
                us(Some(r.upload_us)),
                us(Some(r.encode_us)),
                us(Some(r.total_us)),
                ratio(r.ratio_to_best_cpu),
            ]);
        }
        table.write(&mut m);
        let encodes: Vec<&CpuPart> = s
            .cpu_part
            .iter()
            .filter(|r| r.animated_on_gpu && !r.shadows)
            .collect();
        if !encodes.is_empty() {
            m += "\n### Encoding with the animation on the GPU (shadows off)\n\n";
            let mut table = Table::new(&[
                ("configuration", Left),
                ("instances", Right),
                ("encode µs", Right),
            ]);
            for r in encodes {
                table.row([
                    r.config.to_string(),
                    r.instances.to_string(),
                    us(Some(r.encode_us)),
                ]);
            }
            table.write(&mut m);
        }
    }
    for (title, rows) in [
        ("Walk against levels", &s.walk_vs_levels),
        ("Update-rate LOD off against on", &s.lod_off_vs_on),
    ] {
        if rows.is_empty() {
            continue;
        }
        m +=
            &format!("\n## {title}\n\nRatio = second / first (below 1: the second is faster).\n\n");
        let mut table = Table::new(&[
            ("instances", Right),
            ("shadows", Left),
            ("measure", Left),
            ("first", Left),
            ("µs", Right),
            ("second", Left),
            ("µs", Right),
            ("ratio", Right),
        ]);
        for c in rows {
            table.row([
                c.instances.to_string(),
                on_off(c.shadows).to_string(),
                c.measure.to_string(),
                c.first.to_string(),
                us(Some(c.first_us)),
                c.second.to_string(),
                us(Some(c.second_us)),
                ratio(Some(c.ratio)),
            ]);
        }
        table.write(&mut m);
    }
    if !s.mesh_lod_off_vs_on.is_empty() {
        m += "\n## Mesh LOD off against on\n\nTriangles the crowd pass drew and vertices skinned a frame, millions (share = on / off); the GPU frame and the CPU's whole part (stages + upload + encode), µs, off → on (ratio = on / off).\n\n";
        let mut table = Table::new(&[
            ("configuration", Left),
            ("instances", Right),
            ("shadows", Left),
            ("triangles, M", Right),
            ("share", Right),
            ("skinned, M", Right),
            ("GPU frame", Right),
            ("ratio", Right),
            ("CPU part", Right),
        ]);
        for c in &s.mesh_lod_off_vs_on {
            let frame_ratio = match (c.frame_off_us, c.frame_on_us) {
                (Some(off), Some(on)) if off > 0.0 => Some(on / off),
                _ => None,
            };
            table.row([
                c.config.to_string(),
                c.instances.to_string(),
                on_off(c.shadows).to_string(),
                format!("{:.3} → {:.3}", c.triangles_off / 1e6, c.triangles_on / 1e6),
                if c.triangles_off > 0.0 {
                    format!("1/{:.0}", c.triangles_off / c.triangles_on.max(1.0))
                } else {
                    "–".into()
                },
                format!("{:.3} → {:.3}", c.skinned_off / 1e6, c.skinned_on / 1e6),
                format!("{} → {}", us(c.frame_off_us), us(c.frame_on_us)),
                ratio(frame_ratio),
                format!("{} → {}", us(Some(c.cpu_off_us)), us(Some(c.cpu_on_us))),
            ]);
        }
        table.write(&mut m);
    }
    if !s.thread_scaling.is_empty() {
        m += "\n## Thread scaling of the whole CPU frame\n\nThe frame workload's best CPU variants; speed-up = one thread's median over this one, efficiency = speed-up / threads (ozz-animation reports about linear scaling: efficiency near 1).\n\n";
        let mut table = Table::new(&[
            ("instances", Right),
            ("schedule", Left),
            ("threads", Right),
            ("median µs", Right),
            ("speed-up", Right),
            ("efficiency", Right),
        ]);
        for r in &s.thread_scaling {
            table.row([
                r.instances.to_string(),
                r.schedule.to_string(),
                r.threads.to_string(),
                us(Some(r.median_us)),
                ratio(r.speedup),
                r.efficiency.map_or("–".into(), |e| format!("{e:.2}")),
            ]);
        }
        table.write(&mut m);
    }
    if !s.crowd.is_empty() {
        m += "\n## Crowd workload\n\n";
        let mut table = Table::new(&[
            ("camera", Left),
            ("threads", Right),
            ("LOD", Left),
            ("mesh LOD", Left),
            ("CPU total µs", Right),
            ("encode µs", Right),
            ("× LOD off", Right),
        ]);
        for r in &s.crowd {
            table.row([
                r.camera.to_string(),
                r.threads.to_string(),
                on_off(r.lod).to_string(),
                on_off(r.mesh_lod).to_string(),
                us(Some(r.cpu_total_us)),
                us(Some(r.encode_us)),
                ratio(r.ratio_to_lod_off),
            ]);
        }
        table.write(&mut m);
    }
    m
}

/// Summarises `dir` and writes `summary.md` and `summary.json` into it.
pub fn write(dir: &Path) -> Result<(Summary, PathBuf, PathBuf), SummaryError> {
    let s = summarise(dir)?;
    let md = dir.join("summary.md");
    let json = dir.join("summary.json");
    let write = |path: &Path, bytes: &[u8]| {
        std::fs::write(path, bytes).map_err(|source| SummaryError::Write {
            path: path.to_path_buf(),
            source,
        })
    };
    write(&md, markdown(&s).as_bytes())?;
    let text = serde_json::to_string_pretty(&s).expect("a summary serialises");
    write(&json, text.as_bytes())?;
    Ok((s, md, json))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(config: &str, triangles: f64, frame_us: f64) -> Value {
        serde_json::json!({
            "config": config, "instances": 1000, "shadows": false, "animate": "gpu",
            "cpu_total_us": 10.0, "upload_us": 2.0, "encode_us": 5.0,
            "gpu_frame_us": frame_us, "triangles": triangles, "vertices_skinned": 100.0,
        })
    }

    /// Each configuration meets its mesh LOD row (and no other), and a street camera's rows
    /// say so in their names.
    #[test]
    fn mesh_lod_rows_are_paired_and_the_camera_named() {
        let rows = [
            row("best CPU (simd / pulled)", 4e6, 900.0),
            row("best CPU (simd / pulled), mesh LOD 1 px", 1e6, 300.0),
            row(
                "gpu_vertex, animated on the GPU (walk), LOD 1 px",
                4e6,
                1000.0,
            ),
            row(
                "gpu_vertex, animated on the GPU (walk), LOD 1 px, mesh LOD",
                2e5,
                100.0,
            ),
            row("gpu_vertex, animated on the GPU (walk)", 4e6, 1100.0),
        ];
        let mut s = Summary::default();
        gpu_rows(&mut s, &rows, "street");
        let pairs: Vec<(&str, f64, f64)> = s
            .mesh_lod_off_vs_on
            .iter()
            .map(|c| (c.config.as_str(), c.triangles_on, c.frame_on_us.unwrap()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("best CPU (simd / pulled), street camera", 1e6, 300.0),
                (
                    "gpu_vertex, animated on the GPU (walk), LOD 1 px, street camera",
                    2e5,
                    100.0
                ),
            ]
        );
        assert!(
            s.gpu_passes
                .iter()
                .all(|p| p.config.ends_with(", street camera"))
        );
        let md = markdown(&s);
        assert!(md.contains("| 4.000 → 0.200 | 1/20 |"), "{md}");
        let mut overview = Summary::default();
        gpu_rows(&mut overview, &rows, "overview");
        assert!(
            overview
                .gpu_passes
                .iter()
                .all(|p| !p.config.contains("camera"))
        );
    }
}
