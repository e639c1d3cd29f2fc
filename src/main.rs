//! The `skinbench` command: the app (default), `bench`, `inspect` and `gen-rig`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::bench::{BenchOptions, Workload, report};
use skinbench::crowd::pipeline::available_threads;
use skinbench::crowd::{PipelineConfig, Schedule};
use skinbench::gpu::UploadVariant;
use skinbench::prepare::PreparedRig;
use skinbench::rig::{self, RigSummary};
use skinbench::skin::SkinVariant;
use skinbench::ui::Settings;
use skinbench::ui::app::AppOptions;
use skinbench::variant::Variant;

#[derive(Parser, Debug)]
#[command(
    name = "skinbench",
    version,
    about = "Data-oriented skeletal animation: demo and benchmark",
    long_about = "Without a subcommand, opens the window: a crowd of skinned characters animated \
                  on the CPU, with a panel of per-stage timings where every optimization can be \
                  toggled live."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    app: AppArgs,
}

fn parse_variant<V: Variant>(s: &str) -> Result<V, String> {
    V::from_name(s).map_err(|e| e.to_string())
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once('x')
        .ok_or_else(|| format!("{s:?} is not WIDTHxHEIGHT"))?;
    let parse = |v: &str| v.parse::<u32>().ok().filter(|&n| (64..=16384).contains(&n));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!("{s:?}: width and height must be 64..16384")),
    }
}

/// The app's settings (all of them can also be changed in the panel).
#[derive(clap::Args, Debug)]
struct AppArgs {
    /// A .gltf or .glb rig (default: the built-in reference rig).
    #[arg(long)]
    rig: Option<PathBuf>,
    /// Number of characters, 1..=10000.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    instances: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Hierarchy variant: tree, flat, flat_qvs, simd (default: the fastest on this CPU and
    /// rig; simd with AVX2+FMA).
    #[arg(long, value_parser = parse_variant::<HierarchyVariant>)]
    hierarchy: Option<HierarchyVariant>,
    /// Skinning variant: naive, split, float4, sorted, tuned, simd, packed, distinct
    /// (default: the fastest on this CPU; distinct with AVX2+FMA).
    #[arg(long, value_parser = parse_variant::<SkinVariant>)]
    skin: Option<SkinVariant>,
    /// Upload variant: write_buffer, in_place, staging_belt.
    #[arg(long, default_value = "in_place", value_parser = parse_variant::<UploadVariant>)]
    upload: UploadVariant,
    /// Schedule: staged, fused.
    #[arg(long, default_value = "fused", value_parser = parse_variant::<Schedule>)]
    schedule: Schedule,
    /// Animation speed factor, 0..=10.
    #[arg(long, default_value_t = 1.0)]
    speed: f32,
    /// Start paused.
    #[arg(long)]
    paused: bool,
    /// Cross-fade each character towards its second clip with this weight (0 = off).
    #[arg(long, default_value_t = 0.0)]
    blend: f32,
    /// Present without vsync (for measuring).
    #[arg(long)]
    no_vsync: bool,
    /// Start with the panel hidden.
    #[arg(long)]
    hide_panel: bool,
    /// Window size in logical pixels.
    #[arg(long, default_value = "1600x900", value_parser = parse_size)]
    window: (u32, u32),
    /// Run this many frames, then exit.
    #[arg(long)]
    frames: Option<u64>,
    /// With --frames: save the last frame (panel included) to this PNG, plus a .json sidecar.
    #[arg(long, requires = "frames")]
    screenshot: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a summary of a glTF rig: joints, vertices, influences, clips.
    Inspect {
        /// A .gltf or .glb file.
        #[arg(value_name = "RIG")]
        file: PathBuf,
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
        /// Run the lane kernels on the portable fallback even where AVX2+FMA exist, to see
        /// what the instructions buy (the report names the SIMD level; files end in `_portable`).
        #[arg(long)]
        portable_simd: bool,
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
        Some(Command::Inspect { file, json }) => {
            let (loaded, report) = rig::import_path(&file)?;
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
            portable_simd,
        }) => {
            skinbench::simd::force_portable(portable_simd);
            bench(rig, quick, out, json, workloads, instances)
        }
        Some(Command::GenRig { out }) => {
            let bytes =
                rig::glb::write_glb(&rig::generate::reference_rig(), rig::generate::GENERATOR);
            std::fs::write(&out, &bytes)
                .with_context(|| format!("cannot write {}", out.display()))?;
            println!("wrote {} ({} bytes)", out.display(), bytes.len());
            Ok(())
        }
        None => run_app(cli.app),
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

fn run_app(args: AppArgs) -> anyhow::Result<()> {
    let cores = available_threads();
    let threads = args.threads.unwrap_or(cores);
    if threads == 0 || threads > cores {
        anyhow::bail!("--threads {threads} is out of range: this machine has 1..={cores}");
    }
    if !(0.0..=1.0).contains(&args.blend) {
        anyhow::bail!("--blend {} is out of range 0..=1", args.blend);
    }
    if !(args.speed.is_finite() && (0.0..=10.0).contains(&args.speed)) {
        anyhow::bail!("--speed {} is out of range 0..=10", args.speed);
    }
    if let Some(path) = &args.screenshot
        && path
            .extension()
            .is_none_or(|e| !e.eq_ignore_ascii_case("png"))
    {
        anyhow::bail!(
            "--screenshot {}: the file name must end in .png",
            path.display()
        );
    }
    let rig = load_rig(args.rig.as_deref())?;
    let best = PipelineConfig::best_for(&rig, threads);
    let hierarchy = args.hierarchy.unwrap_or(best.hierarchy);
    if let Some(reason) = hierarchy.refusal(&rig) {
        anyhow::bail!(
            "--hierarchy {} cannot pose {}: {reason}",
            hierarchy.name(),
            rig.name
        );
    }
    let settings = Settings {
        hierarchy,
        skin: args.skin.unwrap_or(best.skin),
        upload: args.upload,
        schedule: args.schedule,
        threads,
        instances: args.instances as usize,
        speed: args.speed,
        paused: args.paused,
        vsync: !args.no_vsync,
        blend_weight: args.blend,
        show_panel: !args.hide_panel,
    };
    skinbench::ui::app::run(
        rig,
        AppOptions {
            settings,
            frames: args.frames,
            screenshot: args.screenshot,
            window_size: args.window,
        },
    )
}
