//! The index of a reports folder: the latest report of each workload on each machine,
//! written into the folder's README above its history, so a reader finds the current
//! figures first.
//!
//! How it works: every `.json` report in the folder is read; its machine (cores, CPU and,
//! where recorded, its family and model, SIMD level) and its workloads (the CPU workloads
//! a report lists, or `gpu` / `crowd` for theirs), qualified by what makes a run a different measurement (another rig, an
//! instance count, several SIMD levels, `--quick`), form a key; per key the newest report
//! (by date, then the time of day where recorded, then name) is listed. The table replaces what lies between two marker lines
//! of the folder's `README.md`; a folder without them is left alone.

use super::table::{Align, Table};
use std::collections::BTreeMap;
use std::path::Path;

/// The line that opens the index in README.md.
pub const INDEX_START: &str =
    "<!-- index: written by `skinbench bench`; edits between these lines are replaced -->";
/// The line that closes it.
pub const INDEX_END: &str = "<!-- end of index -->";

/// One report as the index lists it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Listed {
    machine: String,
    workload: String,
    qualifiers: String,
    date: String,
    /// The run's UTC start time, where the report records it (empty otherwise).
    time: String,
    file: String,
    commit: String,
}

/// The machine of a report, as a row heading.
fn machine(report: &serde_json::Value) -> Option<String> {
    let m = report.get("machine")?;
    let cpu = m
        .get("cpu")?
        .as_str()?
        .replace("(R)", "")
        .replace("  ", " ");
    let cores = m.get("cores")?.as_u64()?;
    let simd = m.get("simd").and_then(|s| s.as_str()).unwrap_or("?");
    // Reports from before the family and model were recorded keep the name alone.
    let id = m
        .get("cpu_id")
        .and_then(|s| s.as_str())
        .map(|id| format!(" ({id})"))
        .unwrap_or_default();
    Some(format!("{cores}-core {}{id}, {simd}", cpu.trim()))
}

/// The workloads a report measured.
fn workloads(report: &serde_json::Value, file: &str) -> Vec<String> {
    if let Some(list) = report.get("workloads").and_then(|w| w.as_array()) {
        return list
            .iter()
            .filter_map(|w| w.as_str().map(str::to_string))
            .collect();
    }
    if let Some(w) = report.get("workload").and_then(|w| w.as_str()) {
        return vec![w.to_string()];
    }
    // Reports written before they named their workload: known by their shape.
    if report.get("cpu_adapter").is_some() || file.contains("_gpu") {
        vec!["gpu".into()]
    } else if file.contains("_crowd") {
        vec!["crowd".into()]
    } else {
        Vec::new()
    }
}

/// What sets a run apart from the default one of its workload.
fn qualifiers(report: &serde_json::Value, workload: &str) -> String {
    let mut q = Vec::new();
    let rig = report
        .get("rig")
        .and_then(|r| r.get("name").or(Some(r)))
        .and_then(|r| r.as_str())
        .unwrap_or("reference");
    if rig != "reference" {
        q.push(format!("rig {rig}"));
    }
    if let Some(n) = report.get("instances").and_then(|n| n.as_u64())
        && !(workload == "crowd" && n == 10_000)
    {
        q.push(format!("{n} instances"));
    }
    if let Some(levels) = report.get("simd_levels").and_then(|l| l.as_array())
        && levels.len() > 1
    {
        let names: Vec<&str> = levels.iter().filter_map(|l| l.as_str()).collect();
        q.push(names.join(" / "));
    }
    // A cross-faded crowd (`--blend`) is another measurement than the plain one.
    if let Some(weight) = report
        .get("crowd")
        .and_then(|c| c.get("blend_weight"))
        .and_then(|w| w.as_f64())
        .filter(|&w| w > 0.0)
    {
        q.push(format!("--blend {weight}"));
    }
    if report.get("quick").and_then(|q| q.as_bool()) == Some(true) {
        q.push("--quick".into());
    }
    q.join(", ")
}

/// Every report in `dir`, as the index lists it.
fn listed(dir: &Path) -> Vec<Listed> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(report) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            continue;
        };
        let Some(machine) = machine(&report) else {
            continue;
        };
        let m = &report["machine"];
        let date = m["date"].as_str().unwrap_or("").to_string();
        let time = m["time_utc"].as_str().unwrap_or("").to_string();
        let commit = m["git_sha"].as_str().unwrap_or("").to_string();
        for workload in workloads(&report, &stem) {
            out.push(Listed {
                machine: machine.clone(),
                qualifiers: qualifiers(&report, &workload),
                workload,
                date: date.clone(),
                time: time.clone(),
                file: stem.clone(),
                commit: commit.clone(),
            });
        }
    }
    out
}

/// The index table: per machine, workload and qualifiers, the newest report.
pub fn index_markdown(dir: &Path) -> String {
    let mut latest: BTreeMap<(String, String, String), Listed> = BTreeMap::new();
    for l in listed(dir) {
        let key = (l.machine.clone(), l.workload.clone(), l.qualifiers.clone());
        match latest.get(&key) {
            // The latest by date, then time of day (a report with a time is later than
            // one of the same day without: those came before times were recorded), then
            // name.
            Some(have) if (&have.date, &have.time, &have.file) >= (&l.date, &l.time, &l.file) => {}
            _ => {
                latest.insert(key, l);
            }
        }
    }
    let mut s = String::from(
        "## Latest runs\n\nThe newest report of each workload on each machine (rows with a \
         qualifier measured something other than the workload's default run). Compare \
         figures within one report; across reports the machines drift.\n\n",
    );
    use Align::Left;
    let mut table = Table::new(&[
        ("machine", Left),
        ("workload", Left),
        ("qualifiers", Left),
        ("report", Left),
        ("date", Left),
        ("commit", Left),
    ]);
    for l in latest.values() {
        table.row([
            l.machine.to_string(),
            l.workload.to_string(),
            if l.qualifiers.is_empty() {
                "-".to_string()
            } else {
                l.qualifiers.to_string()
            },
            format!("[{}]({}.md)", l.file, l.file),
            l.date.to_string(),
            l.commit.to_string(),
        ]);
    }
    table.write(&mut s);
    s
}

/// Rewrites the index between the markers of `dir/README.md`; returns whether it did
/// (false where the README or its markers are absent).
pub fn update_index(dir: &Path) -> std::io::Result<bool> {
    let readme = dir.join("README.md");
    let Ok(text) = std::fs::read_to_string(&readme) else {
        return Ok(false);
    };
    let (Some(start), Some(end)) = (text.find(INDEX_START), text.find(INDEX_END)) else {
        return Ok(false);
    };
    if end < start {
        return Ok(false);
    }
    let updated = format!(
        "{}{INDEX_START}\n{}{}",
        &text[..start],
        index_markdown(dir),
        &text[end..]
    );
    if updated != text {
        // Written whole or not at all, like the reports.
        let temp = dir.join(".README.md.partial");
        std::fs::write(&temp, &updated)?;
        std::fs::rename(&temp, &readme)?;
    }
    Ok(true)
}
