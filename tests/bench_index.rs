//! bench-results/README.md's index lists the latest report of each workload per machine:
//! the committed one is what the reports in the folder give. `skinbench bench` rewrites it
//! after each report it writes; after adding or removing reports by hand, run this test
//! with `SKINBENCH_WRITE_INDEX=1` to rewrite it.

use std::path::PathBuf;

use skinbench::bench::index::{INDEX_END, INDEX_START, index_markdown, update_index};

#[test]
fn the_committed_index_lists_the_latest_reports() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench-results");
    if std::env::var_os("SKINBENCH_WRITE_INDEX").is_some() {
        assert!(update_index(&dir).unwrap(), "the README has its markers");
    }
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let start = readme
        .find(INDEX_START)
        .expect("the index's opening marker")
        + INDEX_START.len()
        + 1;
    let end = readme.find(INDEX_END).expect("the index's closing marker");
    assert_eq!(
        &readme[start..end],
        index_markdown(&dir),
        "bench-results/README.md's index is stale: rerun with SKINBENCH_WRITE_INDEX=1"
    );
}

#[test]
fn the_index_keeps_the_newest_report_per_machine_and_workload() {
    let dir = std::env::temp_dir().join(format!("skinbench-index-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let report = |name: &str, date: &str, cpu: &str, workloads: &[&str]| {
        let json = serde_json::json!({
            "machine": { "cpu": cpu, "cores": 2, "simd": "AVX-512", "date": date, "git_sha": "abc" },
            "workloads": workloads,
            "rig": { "name": "reference" },
        });
        std::fs::write(dir.join(format!("{name}.json")), json.to_string()).unwrap();
    };
    report("old", "2026-11-01", "Xeon", &["skin", "frame"]);
    report("new", "2026-11-02", "Xeon", &["skin"]);
    report("other", "2026-11-01", "EPYC", &["skin"]);
    std::fs::write(
        dir.join("README.md"),
        format!("# x\n\n{INDEX_START}\nstale\n{INDEX_END}\n\n## History\n"),
    )
    .unwrap();
    assert!(update_index(&dir).unwrap());
    let text = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(
        !text.contains("stale") && text.contains("## History"),
        "{text}"
    );
    let row = |machine: &str, workload: &str, file: &str| {
        format!("| 2-core {machine}, AVX-512 | {workload} | - | [{file}]({file}.md) |")
    };
    for expected in [
        row("Xeon", "skin", "new"),
        row("Xeon", "frame", "old"),
        row("EPYC", "skin", "other"),
    ] {
        assert!(text.contains(&expected), "no {expected:?} in {text}");
    }
    assert!(!text.contains(&row("Xeon", "skin", "old")), "{text}");
}

#[test]
fn of_one_day_the_index_keeps_the_latest_run_whatever_its_name() {
    let dir = std::env::temp_dir().join(format!("skinbench-index-time-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let report = |name: &str, time: Option<&str>| {
        let mut machine = serde_json::json!({
            "cpu": "EPYC", "cores": 2, "simd": "AVX-512", "date": "2026-11-29", "git_sha": "abc",
        });
        if let Some(time) = time {
            machine["time_utc"] = time.into();
        }
        let json = serde_json::json!({ "machine": machine, "workloads": ["skin"] });
        std::fs::write(dir.join(format!("{name}.json")), json.to_string()).unwrap();
    };
    // Names sort against the order of the runs; one report predates recorded times.
    report("z_untimed", None);
    report("c_morning", Some("09:30:00"));
    report("b_evening", Some("23:56:10"));
    report("a_noon", Some("12:00:00"));
    let text = index_markdown(&dir);
    assert!(text.contains("[b_evening](b_evening.md)"), "{text}");
    for other in ["z_untimed", "c_morning", "a_noon"] {
        assert!(!text.contains(other), "{text}");
    }
}

#[test]
fn reports_of_one_cpu_name_and_two_generations_are_two_machines() {
    let dir = std::env::temp_dir().join(format!("skinbench-index-id-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, id) in [
        ("zen4", "family 25, model 17"),
        ("zen5", "family 26, model 2"),
    ] {
        let json = serde_json::json!({
            "machine": { "cpu": "AMD EPYC", "cpu_id": id, "cores": 2, "simd": "AVX-512",
                         "date": "2026-11-01", "git_sha": "abc" },
            "workloads": ["skin"],
        });
        std::fs::write(dir.join(format!("{name}.json")), json.to_string()).unwrap();
    }
    let text = index_markdown(&dir);
    for (name, id) in [
        ("zen4", "family 25, model 17"),
        ("zen5", "family 26, model 2"),
    ] {
        let expected =
            format!("| 2-core AMD EPYC ({id}), AVX-512 | skin | - | [{name}]({name}.md) |");
        assert!(text.contains(&expected), "no {expected:?} in {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cross_faded_crowd_is_listed_beside_the_plain_one() {
    let dir = std::env::temp_dir().join(format!("skinbench-index-blend-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, time, weight) in [("plain", "09:00:00", 0.0), ("blended", "10:00:00", 0.4)] {
        let json = serde_json::json!({
            "machine": { "cpu": "Xeon", "cores": 2, "simd": "AVX-512", "date": "2026-12-01",
                         "git_sha": "abc", "time_utc": time },
            "workloads": ["crowd"],
            "crowd": { "blend_weight": weight },
        });
        std::fs::write(dir.join(format!("{name}.json")), json.to_string()).unwrap();
    }
    let text = index_markdown(&dir);
    assert!(
        text.contains("| crowd | - | [plain](plain.md)"),
        "the newer cross-faded run hid the plain one: {text}"
    );
    assert!(
        text.contains("| crowd | --blend 0.4 | [blended](blended.md)"),
        "{text}"
    );
}
