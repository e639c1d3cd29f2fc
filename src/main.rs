//! The `skinbench` command: the app (default), `bench`, `inspect`, `pose`, `gen-rig`,
//! `adapter` and `summarize`.
//!
//! How it works: [`cli`] declares the command line (from the variant declarations);
//! `main` parses it and hands each subcommand to its function in [`commands`], which
//! checks what the user gave, loads the rig and calls the library.

mod cli;
mod commands;

use std::process::ExitCode;

use clap::FromArgMatches;

use cli::{Cli, Command, command};
use commands::{adapter, bench, gen_rig, inspect, pose, run_app, summarize};

/// Counts the Rust code's heap, so that the soak tells it from the driver's.
#[global_allocator]
static ALLOCATOR: skinbench::memory::CountingAllocator = skinbench::memory::CountingAllocator;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    // Tracy's scopes need its client running before the first one opens.
    #[cfg(feature = "profile-with-tracy")]
    tracy_client::Client::start();
    let cli = match Cli::from_arg_matches(&command().get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
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
        Some(Command::Inspect(args)) => inspect(args),
        Some(Command::Bench(args)) => bench(args),
        Some(Command::Pose(args)) => pose(args),
        Some(Command::GenRig(args)) => gen_rig(args),
        Some(Command::Adapter(args)) => adapter(args),
        Some(Command::Summarize(args)) => summarize(args),
        None => run_app(cli.app),
    }
}
