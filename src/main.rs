//! The `skinbench` command: the app (default), `bench`, `inspect` and `gen-rig`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

use skinbench::rig::{self, RigSummary};

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
