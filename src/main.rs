//! The `skinbench` command: the app (default), `bench`, `inspect` and `gen-rig`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

use skinbench::bench::{BenchOptions, Workload, report};
use skinbench::prepare::PreparedRig;
use skinbench::rig::{self, RigSummary};
use skinbench::variant::Variant;

#[derive(Parser, Debug)]
#[command(
    name = "skinbench",
    version,
    about = "Data-oriented skeletal animation: demo and benchmark"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a summary of a glTF rig: joints, vertices, influences, clips.
    Inspect {
        /// A .gltf or .glb file.
        rig: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Measure the CPU stages' variants and write tables to bench-results/.
    Bench {
        /// A .gltf or .glb rig (default: the built-in reference rig).
        #[arg(long)]
        rig: Option<PathBuf>,
        /// Same workloads, fewer frames (under a minute).
        #[arg(long)]
        quick: bool,
        /// Folder for the .md and .json reports.
        #[arg(long, default_value = "bench-results")]
        out: PathBuf,
        /// Print the JSON report to stdout (instead of the table).
        #[arg(long)]
        json: bool,
        /// Run only these workloads (hierarchy, skin, frame); repeatable.
        #[arg(long = "workload")]
        workloads: Vec<String>,
        /// Instance count for every workload (default: 1000 hierarchy, 100 skin, 100 and 1000 frame).
        #[arg(long)]
        instances: Option<usize>,
    },
    /// Generate the built-in reference rig as a .glb file.
    GenRig {
        /// Where to write it.
        #[arg(long, default_value = "assets/reference.glb")]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Inspect { rig, json }) => {
            let (loaded, report) = rig::import_path(&rig)?;
            let summary = RigSummary::new(&loaded, &report);
            if json {
                println!("{}", serde_json::to_string_pretty(&summary)?);
            } else {
                print!("{}", summary.to_text());
            }
            Ok(())
        }
        Some(Command::Bench {
            rig,
            quick,
            out,
            json,
            workloads,
            instances,
        }) => bench(rig, quick, out, json, workloads, instances),
        Some(Command::GenRig { out }) => {
            let bytes =
                rig::glb::write_glb(&rig::generate::reference_rig(), rig::generate::GENERATOR);
            std::fs::write(&out, &bytes)
                .with_context(|| format!("cannot write {}", out.display()))?;
            println!("wrote {} ({} bytes)", out.display(), bytes.len());
            Ok(())
        }
        None => {
            anyhow::bail!("the windowed app is not built yet; use a subcommand (see --help)")
        }
    }
}

fn load_rig(path: Option<&std::path::Path>) -> anyhow::Result<std::sync::Arc<PreparedRig>> {
    Ok(std::sync::Arc::new(match path {
        Some(p) => PreparedRig::load(p)?,
        None => PreparedRig::reference(),
    }))
}

fn bench(
    rig: Option<PathBuf>,
    quick: bool,
    out: PathBuf,
    json: bool,
    workloads: Vec<String>,
    instances: Option<usize>,
) -> anyhow::Result<()> {
    // Everything the user gave is checked before measuring, so a bad value costs nothing
    // and leaves no files behind.
    let workloads = if workloads.is_empty() {
        Workload::ALL.to_vec()
    } else {
        workloads
            .iter()
            .flat_map(|w| w.split(','))
            .map(Workload::from_name)
            .collect::<Result<Vec<_>, _>>()?
    };
    if instances == Some(0) {
        anyhow::bail!("--instances must be at least 1");
    }
    let rig = load_rig(rig.as_deref())?;
    report::check_writable(&out)?;
    let options = BenchOptions {
        quick,
        workloads,
        instances,
        ..BenchOptions::default()
    };
    let report = skinbench::bench::run(rig, &options, |line| eprintln!("{line}"))?;
    let (md, json_path) = report::write_files(&report, &out)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{}", report::markdown(&report));
    }
    eprintln!("wrote {} and {}", md.display(), json_path.display());
    Ok(())
}
