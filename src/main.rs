//! The `skinbench` command: the app (default), `bench`, `inspect`, `pose` and `gen-rig`.
//!
//! Every variant flag's values, help text and default come from the variant declarations
//! (`Variant::ALL`, each variant's description, `best_hierarchy`/`best_skin` and each
//! stage's `DEFAULT`), so the help lists exactly what the program has.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use skinbench::anim::hierarchy::{HierarchyVariant, Refuses};
use skinbench::bench::{BenchOptions, Workload, report};
use skinbench::crowd::lod::LodSettings;
use skinbench::crowd::pipeline::{available_threads, best_hierarchy, best_skin};
use skinbench::crowd::pose::{MeshFormat, pose};
use skinbench::crowd::{PipelineConfig, Schedule};
use skinbench::gpu::skin::ComputeShader;
use skinbench::gpu::{CameraStart, UploadVariant};
use skinbench::prepare::PreparedRig;
use skinbench::rig::MAX_INFLUENCES;
use skinbench::rig::generate::BuiltInRig;
use skinbench::rig::{self, RigSummary};
use skinbench::simd::SimdLevel;
use skinbench::skin::{SkinMethod, SkinVariant};
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

/// A flag's value parser from a stage's declaration: exactly its variants, each with its
/// description (shown by `--help`).
fn variant_parser<V: Variant + Send + Sync + Clone>() -> impl TypedValueParser<Value = V> {
    PossibleValuesParser::new(
        V::ALL
            .iter()
            .map(|v| PossibleValue::new(v.name()).help(v.description())),
    )
    .try_map(|name: String| V::from_name(&name))
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once('x')
        .ok_or_else(|| format!("{s:?} is not WIDTHxHEIGHT (e.g. 1600x900)"))?;
    let parse = |v: &str| v.parse::<u32>().ok().filter(|&n| (64..=16384).contains(&n));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!(
            "{s:?} is not WIDTHxHEIGHT with both in 64..=16384 (e.g. 1600x900)"
        )),
    }
}

/// The app's settings (all of them can also be changed in the panel).
#[derive(clap::Args, Debug)]
struct AppArgs {
    /// A .gltf or .glb rig, or a built-in rig by name: reference (the default) or twist
    /// (write ./twist for a file of that name).
    #[arg(long)]
    rig: Option<PathBuf>,
    /// Cut every vertex to its N heaviest influences (1..=8, renormalised) when the rig
    /// loads; `4` keeps what engines' usual vertex formats and the seed's variants take
    /// (`inspect` says what the cut moves). Default: all the file has, up to eight.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=8))]
    max_influences: Option<u64>,
    /// Number of characters, 1..=10000.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    instances: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Hierarchy variant (help text set in `command()`: the default depends on the CPU).
    #[arg(long, value_parser = variant_parser::<HierarchyVariant>())]
    hierarchy: Option<HierarchyVariant>,
    /// Skinning variant (help text set in `command()`: the default depends on the CPU).
    #[arg(long, value_parser = variant_parser::<SkinVariant>())]
    skin: Option<SkinVariant>,
    /// Skinning method: how a vertex's influences are combined (the panel's "method" box
    /// changes it live). Dual quaternions run in the lane variants (simd … pulled) and
    /// refuse rigs whose skinning matrices scale.
    #[arg(long, default_value = SkinMethod::Linear.spec().name, value_parser = variant_parser::<SkinMethod>())]
    method: SkinMethod,
    /// Upload variant.
    #[arg(long, default_value = UploadVariant::DEFAULT.spec().name, value_parser = variant_parser::<UploadVariant>())]
    upload: UploadVariant,
    /// Schedule.
    #[arg(long, default_value = Schedule::DEFAULT.spec().name, value_parser = variant_parser::<Schedule>())]
    schedule: Schedule,
    /// Run the lane kernels at this SIMD level instead of the best the CPU has (a level
    /// the CPU lacks is refused; the panel's "SIMD level" box changes it live).
    #[arg(long = "simd-level", value_name = "LEVEL", value_parser = variant_parser::<SimdLevel>())]
    simd_level: Option<SimdLevel>,
    /// The compute shader `--skin gpu_compute` skins with (the panel's "compute shader"
    /// box changes it live).
    #[arg(long = "compute-shader", default_value = ComputeShader::DEFAULT.spec().name, value_parser = variant_parser::<ComputeShader>())]
    compute_shader: ComputeShader,
    /// The sun casts shadows from a shadow map onto the ground and the crowd (the panel's
    /// "shadows" box changes it live).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    shadows: bool,
    /// Draw the crowd with one indirect multi-draw per vertex binding where the adapter
    /// can (off: the same draws one by one; the panel's "indirect draws" box changes it
    /// live).
    #[arg(long = "indirect-draws", value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    indirect_draws: bool,
    /// Update-rate LOD: each character is recomputed every 1, 2, 4 or 8 frames, chosen so
    /// that its screen-space error stays under --lod-threshold; characters outside the
    /// view are not drawn (the panel's "LOD" box changes it live).
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = on_off, action = clap::ArgAction::Set)]
    lod: bool,
    /// The screen-space error LOD allows, pixels (0.01 to 100).
    #[arg(long = "lod-threshold", value_name = "PX", default_value_t = 1.0, value_parser = lod_threshold)]
    lod_threshold: f32,
    /// The longest LOD update period, frames: 1, 2, 4 or 8.
    #[arg(long = "lod-max-period", value_name = "FRAMES", default_value_t = 8, value_parser = lod_max_period)]
    lod_max_period: u8,
    /// Where the camera starts: `overview` frames the whole crowd from above, `street`
    /// stands at its edge at eye height looking across it.
    #[arg(long, default_value = CameraStart::Overview.spec().name, value_parser = variant_parser::<CameraStart>())]
    camera: CameraStart,
    /// Animation speed factor, 0..=10.
    #[arg(long, default_value_t = 1.0)]
    speed: f32,
    /// Start paused.
    #[arg(long)]
    paused: bool,
    /// Start every character at this time into its clip, instead of a random phase (with
    /// --paused: a still of that pose, e.g. a rig's worst frame from the bench).
    #[arg(long, value_name = "SECS", value_parser = clip_time)]
    clip_time: Option<f32>,
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
    /// With --frames: verify the last frame against the f64 oracles (the panel's verify
    /// button), print the deviation per stage, record it in the screenshot sidecar, and
    /// exit 1 beyond tolerance.
    #[arg(long, requires = "frames")]
    verify: bool,
    /// Soak test: for SECS seconds, change variants, upload, schedule, threads, instance
    /// count, blend, pause, speed and rig at random every frame; exit 1 on a wgpu
    /// validation error, a verify beyond tolerance, or resident memory growing more than
    /// 10 % from the first minute to the end (measured in the starting configuration).
    #[arg(long, value_name = "SECS", conflicts_with_all = ["frames", "screenshot", "verify"], value_parser = parse_soak_secs)]
    soak: Option<f64>,
    /// With --soak: the seed of its random changes (the same seed replays the same changes).
    #[arg(long, requires = "soak")]
    seed: Option<u64>,
    /// With --soak: a folder whose .gltf and .glb rigs it switches between, besides the
    /// starting rig and the built-in one (default: ../shared/rigs where it exists).
    #[arg(long, requires = "soak", value_name = "DIR")]
    soak_rigs: Option<PathBuf>,
}

fn parse_soak_secs(s: &str) -> Result<f64, String> {
    use skinbench::ui::soak::MIN_SOAK_SECS;
    match s.parse::<f64>() {
        Ok(secs) if secs.is_finite() && (MIN_SOAK_SECS..=86_400.0).contains(&secs) => Ok(secs),
        Ok(secs) if secs.is_finite() && (0.0..MIN_SOAK_SECS).contains(&secs) => Err(format!(
            "{s} s is too short to test anything: the soak first draws every rig once at \
             10,000 characters (its warm-up); give it at least {MIN_SOAK_SECS} s"
        )),
        _ => Err(format!(
            "{s:?} is not a number of seconds in {MIN_SOAK_SECS}..=86400"
        )),
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a summary of a glTF rig: joints, vertices, influences, clips.
    Inspect {
        /// A .gltf or .glb file, or a built-in rig by name (reference, twist).
        #[arg(value_name = "RIG")]
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Measure the CPU stages' variants and write tables to bench-results/.
    Bench {
        /// A .gltf or .glb rig, or a built-in rig by name: reference (the default) or twist
        /// (write ./twist for a file of that name).
        #[arg(long)]
        rig: Option<PathBuf>,
        /// Cut every vertex to its N heaviest influences (1..=8, renormalised) when the rig
        /// loads; `4` keeps what engines' usual vertex formats and the seed's variants take
        /// (`inspect` says what the cut moves). Default: all the file has, up to eight.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=8))]
        max_influences: Option<u64>,
        /// Same workloads, fewer frames: each configuration measured for 0.4 s instead of 8
        /// (the CPU workloads: about 15 s on a 2-core machine against about 3 minutes; gpu
        /// and crowd render frames and take longer).
        #[arg(long)]
        quick: bool,
        /// Folder for the .md and .json reports.
        #[arg(long, default_value = "bench-results")]
        out: PathBuf,
        /// Print the JSON report to stdout (instead of the table).
        #[arg(long)]
        json: bool,
        /// Run only these workloads (hierarchy, skin, frame: the CPU alone; gpu: CPU against
        /// GPU skinning, whole frames rendered offscreen; crowd: 10,000 characters from two
        /// fixed cameras with update-rate LOD off and on, 1, 2 and all threads; gpu and
        /// crowd need an adapter and run only when named); repeatable or comma-separated.
        #[arg(long = "workload")]
        workloads: Vec<String>,
        /// Instance count for every workload (default: 1000 hierarchy, 100 skin, 100 and
        /// 1000 frame, 100, 1000 and 10000 gpu, 10000 crowd).
        #[arg(long)]
        instances: Option<usize>,
        /// Measure the lane kernels at these SIMD levels side by side (avx512, avx2,
        /// portable, or `all` the CPU has; repeatable or comma-separated; default: the
        /// best the CPU has). Rows name their level; the file name lists the levels.
        #[arg(long = "simd-level", value_name = "LEVEL")]
        simd_levels: Vec<String>,
    },
    /// Write one instance's skinned mesh at one time as .glb or .obj (vertices in the rig
    /// file's order), through the same pipeline and read-back as verify.
    Pose {
        /// A .gltf or .glb rig, or a built-in rig by name (reference, twist).
        #[arg(value_name = "RIG")]
        file: PathBuf,
        /// The clip to pose (default: the rig's first clip; the rest pose without clips).
        #[arg(long)]
        clip: Option<String>,
        /// Time in the clip, seconds (loops over the clip's duration).
        #[arg(
            long = "time",
            default_value_t = 0.0,
            value_name = "SECS",
            allow_negative_numbers = true
        )]
        time_secs: f32,
        /// Skinning variant (default: the fastest on this CPU).
        #[arg(long, value_parser = variant_parser::<SkinVariant>())]
        skin: Option<SkinVariant>,
        /// Hierarchy variant (default: the fastest on this CPU that accepts the rig).
        #[arg(long, value_parser = variant_parser::<HierarchyVariant>())]
        hierarchy: Option<HierarchyVariant>,
        /// Skinning method: how a vertex's influences are combined.
        #[arg(long, default_value = SkinMethod::Linear.spec().name, value_parser = variant_parser::<SkinMethod>())]
        method: SkinMethod,
        /// Cut every vertex to its N heaviest influences (1..=8, renormalised) when the rig
        /// loads, as the app's flag does (the seed's variants take four). Default: all the
        /// file has, up to eight.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=8))]
        max_influences: Option<u64>,
        /// Output file: .glb (glTF binary) or .obj.
        #[arg(long)]
        out: PathBuf,
    },
    /// Generate a built-in rig as a .glb file.
    GenRig {
        /// Which rig.
        #[arg(long, default_value = "reference", value_parser = built_in_rig_parser())]
        kind: BuiltInRig,
        /// Where to write it (default: the rig's file under assets/, the copy the binary
        /// embeds).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// The command line with the help text that depends on this CPU: the real defaults of
/// `--hierarchy` and `--skin`.
fn command() -> clap::Command {
    let defaults = |what: &str, default: &str| {
        format!("{what} variant (default: the fastest on this CPU: {default})")
    };
    let hierarchy = defaults(
        "Hierarchy",
        &match best_hierarchy().spec().refuses {
            Refuses::Nothing => best_hierarchy().name().to_string(),
            Refuses::ShearingScale => {
                format!(
                    "{}, or flat where it refuses the rig",
                    best_hierarchy().name()
                )
            }
        },
    );
    let skin = defaults("Skinning", best_skin().name());
    Cli::command()
        .mut_arg("hierarchy", |a| a.help(hierarchy.clone()))
        .mut_arg("skin", |a| a.help(skin.clone()))
        .mut_subcommand("pose", |c| {
            c.mut_arg("hierarchy", |a| a.help(hierarchy.clone()))
                .mut_arg("skin", |a| a.help(skin.clone()))
        })
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
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
        Some(Command::Inspect { file, json }) => {
            let (loaded, report) = match built_in_rig(&file) {
                Some(built_in) => rig::import_slice(built_in.glb(), built_in.asset_path(), None)?,
                None => rig::import_path(&file)?,
            };
            let summary = RigSummary::new(&loaded, &report);
            let name = file.display().to_string();
            let prepared = PreparedRig::new(loaded, &report, &name);
            let normals = skinbench::crowd::normals::measure(&prepared);
            let cut = skinbench::skin::reduction::reduction_cost(&prepared, 4);
            if json {
                let mut value = serde_json::to_value(&summary)?;
                value["influence_cut"] = serde_json::to_value(&cut)?;
                value["normal_matrix_reason"] =
                    serde_json::to_value(&prepared.normal_matrix_reason)?;
                value["normal_angles"] = serde_json::to_value(&normals)?;
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                print!("{}", summary.to_text());
                if let Some(cut) = &cut {
                    println!(
                        "cut to 4 influences (--max-influences 4): {} vertices; the largest move over the clips is {:.2e} of the rig size (vertex {}, {})",
                        cut.vertices_cut,
                        cut.relative_displacement,
                        cut.vertex,
                        cut.clip
                            .as_deref()
                            .map_or("bind pose".to_string(), |c| format!(
                                "clip {c} at {:.2} s",
                                cut.time_secs
                            )),
                    );
                }
                print!("{}", normals.to_text(&prepared));
            }
            Ok(())
        }
        Some(Command::Bench {
            rig,
            max_influences,
            quick,
            out,
            json,
            workloads,
            instances,
            simd_levels,
        }) => bench(
            rig,
            max_influences,
            quick,
            out,
            json,
            workloads,
            instances,
            simd_levels,
        ),
        Some(Command::Pose {
            file,
            clip,
            time_secs,
            skin,
            hierarchy,
            method,
            max_influences,
            out,
        }) => {
            // Everything the user gave is checked before any work, and nothing is written
            // unless the whole file can be.
            MeshFormat::of(&out)?;
            let rig = load_rig(Some(&file), max_influences)?;
            let best = PipelineConfig::best_for(&rig, 1);
            let config = PipelineConfig {
                hierarchy: hierarchy.unwrap_or(best.hierarchy),
                skin: skin.unwrap_or(best.skin),
                method,
                ..best
            };
            let posed = pose(rig.clone(), clip.as_deref(), time_secs, config)?;
            posed.write(&rig, &out)?;
            let d = &posed.deviation;
            println!(
                "wrote {} ({} vertices in {}'s order, {} {} {}, clip {} at {} s); deviation from the f64 reference: position {:.1e} of the rig size, normal {:.1e}",
                out.display(),
                posed.positions.len(),
                rig.name,
                config.hierarchy.name(),
                config.skin.name(),
                config.method.name(),
                posed.clip.as_deref().unwrap_or("(rest pose)"),
                time_secs,
                d.skin.relative_position,
                d.skin.max_normal
            );
            Ok(())
        }
        Some(Command::GenRig { kind, out }) => {
            let out = out.unwrap_or_else(|| PathBuf::from(kind.asset_path()));
            let bytes = rig::glb::write_glb(&kind.generate(), rig::generate::GENERATOR);
            std::fs::write(&out, &bytes)
                .with_context(|| format!("cannot write {}", out.display()))?;
            println!("wrote {} ({} bytes)", out.display(), bytes.len());
            Ok(())
        }
        None => run_app(cli.app),
    }
}

/// `--rig`: a built-in rig's name, else a file (`./twist` reads a file of that name).
/// `max_influences`: `--max-influences` (all the file has where not given).
fn load_rig(
    path: Option<&std::path::Path>,
    max_influences: Option<u64>,
) -> anyhow::Result<std::sync::Arc<PreparedRig>> {
    let max = max_influences.map_or(MAX_INFLUENCES, |n| n as usize);
    Ok(std::sync::Arc::new(match path {
        Some(p) => match built_in_rig(p) {
            Some(built_in) => PreparedRig::built_in_cut(built_in, max),
            None => PreparedRig::load_cut(p, max)?,
        },
        None => PreparedRig::built_in_cut(BuiltInRig::Reference, max),
    }))
}

/// The built-in rig `path` names, if it is exactly one of their names.
fn built_in_rig(path: &std::path::Path) -> Option<BuiltInRig> {
    path.to_str().and_then(BuiltInRig::from_name)
}

fn built_in_rig_parser() -> impl TypedValueParser<Value = BuiltInRig> {
    PossibleValuesParser::new(
        BuiltInRig::ALL
            .iter()
            .map(|r| PossibleValue::new(r.name()).help(r.description())),
    )
    .map(|name: String| BuiltInRig::from_name(&name).expect("one of the possible values"))
}

/// `--simd-level` values: names from the one declaration, comma-separated or repeated,
/// `all` for every level the CPU has; the best level alone when none is given. A level
/// the CPU lacks is refused with the ones it has.
fn parse_simd_levels(given: &[String]) -> anyhow::Result<Vec<SimdLevel>> {
    if given.is_empty() {
        return Ok(vec![SimdLevel::native()]);
    }
    let mut levels = Vec::new();
    for name in given.iter().flat_map(|g| g.split(',')) {
        let named = if name == "all" {
            SimdLevel::available().into_iter().rev().collect()
        } else {
            let level = SimdLevel::from_name(name)
                .map_err(|e| anyhow::anyhow!("--simd-level: {e} (or all)"))?
                .require()
                .map_err(|e| anyhow::anyhow!("--simd-level: {e}"))?;
            vec![level]
        };
        for level in named {
            if !levels.contains(&level) {
                levels.push(level);
            }
        }
    }
    Ok(levels)
}

/// `--clip-time`: a finite time, 0 or later.
fn clip_time(value: &str) -> Result<f32, String> {
    match value.parse::<f32>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!(
            "{value:?} is not a time in seconds (a number, 0 or more)"
        )),
    }
}

/// `--lod-threshold`.
fn lod_threshold(value: &str) -> Result<f32, String> {
    let px = value
        .parse::<f32>()
        .map_err(|_| format!("{value:?} is not a number of pixels"))?;
    LodSettings::check_threshold(px).map_err(|e| e.to_string())
}

/// `--lod-max-period`.
fn lod_max_period(value: &str) -> Result<u8, String> {
    let frames = value
        .parse::<u32>()
        .map_err(|_| format!("{value:?} is not a number of frames"))?;
    LodSettings::check_max_period(frames).map_err(|e| e.to_string())
}

/// `on` or `off`.
fn on_off(value: &str) -> Result<bool, String> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{value:?} is neither on nor off")),
    }
}

/// Writes a GPU-module workload's report as `base.md` and `base.json` in `out`, and prints
/// one of them.
fn write_gpu_report(
    out: &std::path::Path,
    base: &str,
    md: &str,
    report: &serde_json::Value,
    json: bool,
) -> anyhow::Result<()> {
    let md_path = out.join(format!("{base}.md"));
    let json_path = out.join(format!("{base}.json"));
    let pretty = serde_json::to_string_pretty(report)?;
    std::fs::write(&md_path, md)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", md_path.display()))?;
    std::fs::write(&json_path, &pretty)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", json_path.display()))?;
    if json {
        println!("{pretty}");
    } else {
        println!("{md}");
    }
    eprintln!("wrote {} and {}", md_path.display(), json_path.display());
    skinbench::bench::index::update_index(out)
        .map_err(|e| anyhow::anyhow!("cannot update the index in {}: {e}", out.display()))?;
    Ok(())
}

/// The `--workload` names of the GPU module's workloads.
const GPU_WORKLOAD: &str = "gpu";
const CROWD_WORKLOAD: &str = "crowd";

#[allow(clippy::too_many_arguments)]
fn bench(
    rig: Option<PathBuf>,
    max_influences: Option<u64>,
    quick: bool,
    out: PathBuf,
    json: bool,
    workloads: Vec<String>,
    instances: Option<usize>,
    simd_levels: Vec<String>,
) -> anyhow::Result<()> {
    // Everything the user gave is checked before measuring, so a bad value costs nothing
    // and leaves no files behind.
    let named: Vec<&str> = workloads.iter().flat_map(|w| w.split(',')).collect();
    // `gpu` is the GPU module's workload (the CPU bench never touches wgpu).
    let gpu = named.contains(&GPU_WORKLOAD);
    let crowd = named.contains(&CROWD_WORKLOAD);
    let workloads = if workloads.is_empty() {
        Workload::ALL.to_vec()
    } else {
        named
            .iter()
            .filter(|&&w| w != GPU_WORKLOAD && w != CROWD_WORKLOAD)
            .map(|w| {
                Workload::from_name(w)
                    .map_err(|e| anyhow::anyhow!("{e} (or {GPU_WORKLOAD}, {CROWD_WORKLOAD})"))
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    if instances == Some(0) {
        anyhow::bail!("--instances must be at least 1");
    }
    let simd_levels = parse_simd_levels(&simd_levels)?;
    let rig = load_rig(rig.as_deref(), max_influences)?;
    report::check_writable(&out)?;
    if gpu {
        let context = skinbench::gpu::GpuContext::offscreen().map_err(|e| {
            anyhow::anyhow!("the gpu workload renders on a GPU adapter, and there is none: {e}")
        })?;
        let options = skinbench::gpu::bench::GpuBenchOptions::new(quick, instances);
        let gpu_report =
            skinbench::gpu::bench::run(&context, rig.clone(), &options, |line| eprintln!("{line}"))
                .map_err(|e| anyhow::anyhow!("gpu workload: {e}"))?;
        let md = skinbench::gpu::bench::markdown(&gpu_report);
        let m = &gpu_report.machine;
        let mut base = format!("{}_{}_{}_gpu", m.date, m.cpu_slug(), m.git_sha);
        if let Some(n) = instances {
            base += &format!("_{n}inst");
        }
        write_gpu_report(&out, &base, &md, &serde_json::to_value(&gpu_report)?, json)?;
    }
    if crowd {
        let context = skinbench::gpu::GpuContext::offscreen().map_err(|e| {
            anyhow::anyhow!("the crowd workload uploads to a GPU adapter, and there is none: {e}")
        })?;
        let options = skinbench::gpu::crowd_bench::CrowdBenchOptions::new(quick, instances);
        let crowd_report =
            skinbench::gpu::crowd_bench::run(&context, rig.clone(), &options, |line| {
                eprintln!("{line}")
            })
            .map_err(|e| anyhow::anyhow!("crowd workload: {e}"))?;
        let md = skinbench::gpu::crowd_bench::markdown(&crowd_report);
        let m = &crowd_report.machine;
        let base = format!(
            "{}_{}_{}_crowd_{}inst",
            m.date,
            m.cpu_slug(),
            m.git_sha,
            crowd_report.instances
        );
        write_gpu_report(
            &out,
            &base,
            &md,
            &serde_json::to_value(&crowd_report)?,
            json,
        )?;
    }
    if (gpu || crowd) && workloads.is_empty() {
        return Ok(());
    }
    let options = BenchOptions {
        quick,
        workloads,
        instances,
        simd_levels,
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
    skinbench::bench::index::update_index(&out)
        .map_err(|e| anyhow::anyhow!("cannot update the index in {}: {e}", out.display()))?;
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
    let simd_level = match args.simd_level {
        Some(level) => level
            .require()
            .map_err(|e| anyhow::anyhow!("--simd-level: {e}"))?,
        None => SimdLevel::native(),
    };
    let rig = load_rig(args.rig.as_deref(), args.max_influences)?;
    let soak = match args.soak {
        Some(secs) => Some(soak_plan(
            rig.clone(),
            secs,
            args.seed.unwrap_or(1),
            args.soak_rigs.as_deref(),
            cores,
        )?),
        None => None,
    };
    let best = PipelineConfig::best_for(&rig, threads);
    let hierarchy = args.hierarchy.unwrap_or(best.hierarchy);
    if let Some(reason) = hierarchy.refusal(&rig) {
        anyhow::bail!(
            "--hierarchy {} cannot pose {}: {reason}",
            hierarchy.name(),
            rig.name
        );
    }
    let skin = args.skin.unwrap_or(best.skin);
    if let Some(reason) = skin.refusal(args.method, &rig) {
        anyhow::bail!(
            "--skin {} with --method {} cannot skin {}: {reason}",
            skin.name(),
            args.method.name(),
            rig.name
        );
    }
    let settings = Settings {
        simd_level,
        compute_shader: args.compute_shader,
        shadows: args.shadows,
        indirect_draws: args.indirect_draws,
        pipeline: PipelineConfig {
            hierarchy,
            skin,
            schedule: args.schedule,
            threads,
            blend_weight: args.blend,
            method: args.method,
        },
        upload: args.upload,
        lod: LodSettings {
            enabled: args.lod,
            threshold_px: args.lod_threshold,
            max_period: args.lod_max_period,
        },
        instances: args.instances as usize,
        speed: args.speed,
        paused: args.paused,
        vsync: !args.no_vsync,
        show_panel: !args.hide_panel,
    };
    // Refused here, before the window opens and anything is allocated; the GPU's buffer
    // limit is applied by the scene once the device exists.
    skinbench::crowd::budget::check(
        &rig,
        &settings.pipeline,
        settings.instances,
        1,
        &skinbench::crowd::budget::Budget::this_machine(None),
    )?;
    skinbench::ui::app::run(
        rig,
        AppOptions {
            settings,
            frames: args.frames,
            screenshot: args.screenshot,
            verify: args.verify,
            window_size: args.window,
            soak,
            clip_time_secs: args.clip_time,
            camera: args.camera,
        },
    )
}

/// The soak's rigs: the starting one, the built-in ones, and every .gltf and .glb in
/// `rigs_dir` and its subfolders (default: `../shared/rigs` where it exists).
fn soak_plan(
    start: std::sync::Arc<PreparedRig>,
    secs: f64,
    seed: u64,
    rigs_dir: Option<&std::path::Path>,
    cores: usize,
) -> anyhow::Result<skinbench::ui::soak::SoakPlan> {
    let mut rigs = vec![start.clone()];
    for built_in in BuiltInRig::ALL {
        if start.name != built_in.name() {
            rigs.push(std::sync::Arc::new(PreparedRig::built_in(built_in)));
        }
    }
    let default_dir = std::path::Path::new("../shared/rigs");
    let dir = match rigs_dir {
        Some(dir) => Some(dir),
        None => default_dir.is_dir().then_some(default_dir),
    };
    if let Some(dir) = dir {
        let mut files = Vec::new();
        let entries = std::fs::read_dir(dir)
            .with_context(|| format!("--soak-rigs {}: cannot read the folder", dir.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                for inner in std::fs::read_dir(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?
                {
                    files.push(inner?.path());
                }
            } else {
                files.push(path);
            }
        }
        files.retain(|p| {
            p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("glb"))
        });
        files.sort();
        if files.is_empty() {
            anyhow::bail!(
                "--soak-rigs {}: no .gltf or .glb file in the folder or its subfolders",
                dir.display()
            );
        }
        for file in files {
            rigs.push(load_rig(Some(&file), None)?);
        }
    }
    eprintln!(
        "soak: {secs} s, seed {seed}, {} rigs: {}",
        rigs.len(),
        rigs.iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(skinbench::ui::soak::SoakPlan {
        duration: std::time::Duration::from_secs_f64(secs),
        seed,
        rigs,
        max_instances: skinbench::ui::app::MAX_INSTANCES,
        max_threads: cores,
    })
}
