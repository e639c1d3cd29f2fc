//! What machine and build a report was measured on: CPU, cores, OS, compiler, commit,
//! the best SIMD level, the date. Read by the bench reports and the screenshot sidecars.

use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    pub cpu: String,
    /// `family 26, model 2` on x86 (from /proc/cpuinfo): virtual machines often name only
    /// the vendor's line (`AMD EPYC`), which hides a generation that changes every figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_id: Option<String>,
    pub cores: usize,
    pub os: String,
    pub rustc: String,
    pub profile: String,
    pub git_sha: String,
    /// The best SIMD level the CPU has (rows and the panel name the one in use).
    pub simd: String,
    pub date: String,
    /// The UTC time of day the run started (HH:MM:SS): what orders two reports of one day
    /// (reports from before it was recorded have none).
    pub time_utc: String,
}

impl Machine {
    pub fn detect() -> Self {
        let now = utc_now();
        Machine {
            cpu: cpu_model(),
            cpu_id: std::fs::read_to_string("/proc/cpuinfo")
                .ok()
                .and_then(|text| cpu_id(&text)),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            os: os_name(),
            rustc: env!("SKINBENCH_RUSTC_VERSION").to_string(),
            profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
            .to_string(),
            git_sha: git_sha(),
            simd: crate::simd::SimdLevel::native().label().to_string(),
            date: now.0,
            time_utc: now.1,
        }
    }

    /// The CPU as a report names it: `AMD EPYC (family 26, model 2)`.
    pub fn cpu_line(&self) -> String {
        match &self.cpu_id {
            Some(id) => format!("{} ({id})", self.cpu),
            None => self.cpu.clone(),
        }
    }

    /// `amd-epyc`-style short name for file names.
    pub fn cpu_slug(&self) -> String {
        let mut slug = String::new();
        for c in self.cpu.to_lowercase().chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c);
            } else if !slug.ends_with('-') {
                slug.push('-');
            }
        }
        let slug = slug.trim_matches('-').to_string();
        let slug: String = slug
            .split('-')
            .filter(|w| !matches!(*w, "r" | "tm" | "cpu" | "processor" | "with"))
            .collect::<Vec<_>>()
            .join("-");
        if slug.is_empty() {
            "unknown-cpu".into()
        } else {
            slug.chars().take(40).collect()
        }
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| format!("unknown {} CPU", std::env::consts::ARCH))
}

/// The first processor's family and model, where /proc/cpuinfo has them (x86).
fn cpu_id(cpuinfo: &str) -> Option<String> {
    let field = |name: &str| {
        cpuinfo
            .lines()
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == name)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    Some(format!(
        "family {}, model {}",
        field("cpu family")?,
        field("model")?
    ))
}

fn os_name() -> String {
    let pretty = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("PRETTY_NAME="))
                .map(|l| {
                    l.trim_start_matches("PRETTY_NAME=")
                        .trim_matches('"')
                        .to_string()
                })
        });
    match pretty {
        Some(p) => format!("{p} ({})", std::env::consts::ARCH),
        None => format!("{} ({})", std::env::consts::OS, std::env::consts::ARCH),
    }
}

fn git_sha() -> String {
    // A copy of the binary run away from its checkout (another machine) is told its commit.
    if let Ok(sha) = std::env::var("SKINBENCH_GIT_SHA")
        && !sha.is_empty()
    {
        return sha;
    }
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match run(&["rev-parse", "--short=10", "HEAD"]) {
        Some(sha) => {
            let dirty = run(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| changes_outside_outputs(&s));
            if dirty { format!("{sha}-dirty") } else { sha }
        }
        None => "unknown".into(),
    }
}

/// Whether `git status --porcelain` lists a change outside `bench-results/`. What lies
/// there (the reports, the index `bench` rewrites after each one, the screenshots) is what
/// the bench and the app write, not the code a report names: a second run of one checkout
/// is still that commit.
fn changes_outside_outputs(porcelain: &str) -> bool {
    porcelain.lines().any(|line| {
        // `XY path`, or `XY old -> new` for a rename (X or Y may be a space, and the
        // output arrives trimmed); paths from the repository's root, quoted where they
        // hold unusual characters.
        let paths = line
            .trim_start()
            .split_once(' ')
            .map_or("", |(_, paths)| paths.trim_start());
        paths
            .split(" -> ")
            .any(|path| !path.trim_matches('"').starts_with("bench-results/"))
    })
}

/// Today's UTC date as YYYY-MM-DD (civil-from-days, no date crate needed).
pub fn today() -> String {
    utc_now().0
}

/// The UTC date (YYYY-MM-DD) and time of day (HH:MM:SS) of one reading of the clock.
fn utc_now() -> (String, String) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let s = secs % 86_400;
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60),
    )
}

/// Current UTC time as YYYY-MM-DD_HH-MM-SS, for file names.
pub fn timestamp() -> String {
    let (date, time) = utc_now();
    format!("{date}_{}", time.replace(':', "-"))
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {

    #[test]
    fn outputs_in_bench_results_do_not_make_a_report_dirty() {
        use super::changes_outside_outputs;
        assert!(!changes_outside_outputs(""));
        assert!(!changes_outside_outputs(
            " M bench-results/README.md\n M bench-results/screenshots/readme_crowd_1000.png\n"
        ));
        // As `git_sha` reads it: the output trimmed, so the first line lost its space.
        assert!(!changes_outside_outputs(
            "M bench-results/README.md\nMM bench-results/screenshots/a.png"
        ));
        assert!(changes_outside_outputs(
            " M bench-results/README.md\n M src/machine.rs\n"
        ));
        assert!(changes_outside_outputs("M  docs/gpu.md\n"));
        assert!(changes_outside_outputs(
            "R  src/old.rs -> bench-results/old.rs\n"
        ));
        assert!(!changes_outside_outputs(
            "R  bench-results/a.md -> bench-results/b.md\n"
        ));
    }

    #[test]
    fn cpu_id_reads_the_first_processor() {
        let text = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\n\
                    model\t\t: 2\nmodel name\t: AMD EPYC\n\nprocessor\t: 1\ncpu family\t: 25\n";
        assert_eq!(super::cpu_id(text).as_deref(), Some("family 26, model 2"));
        assert_eq!(super::cpu_id("processor\t: 0\nmodel name\t: x\n"), None);
    }

    #[test]
    fn civil_dates() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(20_413), (2025, 11, 21));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
    }
}
