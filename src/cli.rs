//! The command line: every flag and subcommand, and the parsers of their values.
//!
//! Every variant flag's values, help text and default come from the variant declarations
//! (`Variant::ALL`, each variant's description, `best_hierarchy`/`best_skin` and each
//! stage's `DEFAULT`), so the help lists exactly what the program has.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, Parser, Subcommand};

use skinbench::anim::hierarchy::{HierarchyVariant, Refuses};
use skinbench::bench::Workload;
use skinbench::crowd::lod::LodSettings;
use skinbench::crowd::mix::ClipChoice;
use skinbench::crowd::pipeline::{best_hierarchy, best_skin};
use skinbench::crowd::{AnimateDevice, Schedule};
use skinbench::gpu::animate::GpuHierarchy;
use skinbench::gpu::draws::Draws;
use skinbench::gpu::skin::ComputeShader;
use skinbench::gpu::{BaseColors, CameraStart, UploadVariant};
use skinbench::rig::generate::BuiltInRig;
use skinbench::simd::SimdLevel;
use skinbench::skin::pool::{PoolShare, PoolSize};
use skinbench::skin::{SkinMethod, SkinVariant};
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
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub app: AppArgs,
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

/// The skin variants that write vertices on the CPU (what `pose` can read back), with
/// their descriptions.
fn cpu_skin_parser() -> impl TypedValueParser<Value = SkinVariant> {
    PossibleValuesParser::new(
        SkinVariant::ALL
            .iter()
            .filter(|v| v.skins_on_cpu())
            .map(|v| PossibleValue::new(v.name()).help(v.description())),
    )
    .try_map(|name: String| SkinVariant::from_name(&name))
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
pub struct AppArgs {
    /// A .gltf or .glb rig, or a built-in rig by name: reference (the default) or twist
    /// (write ./twist for a file of that name).
    #[arg(long)]
    pub rig: Option<PathBuf>,
    /// Cut every vertex to its N heaviest influences (1..=8, renormalised) when the rig
    /// loads; `4` keeps what engines' usual vertex formats and the first variants take
    /// (`inspect` says what the cut moves). Default: all the file has, up to eight.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=8))]
    pub max_influences: Option<u64>,
    /// Number of characters: 1..=10000, or up to 1000000 with --animate gpu where the
    /// GPU's memory holds them (the app says how many fit and why, where fewer do).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub instances: u64,
    /// Which clips the crowd plays: `moving` (the default: every clip except those in which
    /// no vertex moves, such as a T-pose), `all`, or clip names separated by commas (a
    /// name the rig lacks is refused with the list of its clips; the panel's "clips"
    /// section changes it live). The crowd's spacing follows the clips' footprint.
    #[arg(long, value_name = "moving|all|NAME,...", default_value = "moving", value_parser = clip_choice)]
    pub clips: ClipChoice,
    /// Where sampling, the blend, the hierarchy and the palettes run: `gpu` animates in
    /// compute passes and needs a GPU skin variant (--skin gpu_compute, the default there,
    /// or gpu_vertex); with --lod on, LOD and culling then run on the GPU too (the panel's
    /// "animation device" box changes it live).
    #[arg(long, default_value = AnimateDevice::DEFAULT.spec().name, value_parser = variant_parser::<AnimateDevice>())]
    pub animate: AnimateDevice,
    /// How the GPU walks the hierarchy with --animate gpu.
    #[arg(long = "gpu-hierarchy", default_value = GpuHierarchy::DEFAULT.spec().name, value_parser = variant_parser::<GpuHierarchy>())]
    pub gpu_hierarchy: GpuHierarchy,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Hierarchy variant (help text set in `command()`: the default depends on the CPU).
    #[arg(long, value_parser = variant_parser::<HierarchyVariant>())]
    pub hierarchy: Option<HierarchyVariant>,
    /// Skinning variant (help text set in `command()`: the default depends on the CPU).
    #[arg(long, value_parser = variant_parser::<SkinVariant>())]
    pub skin: Option<SkinVariant>,
    /// Skinning method: how a vertex's influences are combined (the panel's "method" box
    /// changes it live). Dual quaternions run in the lane variants (simd … pulled) and
    /// refuse rigs whose skinning matrices scale.
    #[arg(long, default_value = SkinMethod::Linear.spec().name, value_parser = variant_parser::<SkinMethod>())]
    pub method: SkinMethod,
    /// Upload variant.
    #[arg(long, default_value = UploadVariant::DEFAULT.spec().name, value_parser = variant_parser::<UploadVariant>())]
    pub upload: UploadVariant,
    /// Schedule.
    #[arg(long, default_value = Schedule::DEFAULT.spec().name, value_parser = variant_parser::<Schedule>())]
    pub schedule: Schedule,
    /// Run the lane kernels at this SIMD level instead of the best the CPU has (a level
    /// the CPU lacks is refused; the panel's "SIMD level" box changes it live).
    #[arg(long = "simd-level", value_name = "LEVEL", value_parser = variant_parser::<SimdLevel>())]
    pub simd_level: Option<SimdLevel>,
    /// The compute shader `--skin gpu_compute` skins with (the panel's "compute shader"
    /// box changes it live).
    #[arg(long = "compute-shader", default_value = ComputeShader::DEFAULT.spec().name, value_parser = variant_parser::<ComputeShader>())]
    pub compute_shader: ComputeShader,
    /// How the crowd pass draws where the GPU's LOD pass decides who is drawn and at
    /// which level (`--animate gpu` with LOD; the panel's "draws" box changes it live).
    #[arg(long, default_value = Draws::DEFAULT.spec().name, value_parser = variant_parser::<Draws>())]
    pub draws: Draws,
    /// `gpu_compute`'s skinned output as a pool given out each frame by mesh level,
    /// instead of a full-detail slot per character (`off`): `auto` grows it from what the
    /// frames need up to what the memory budget allows; a share (1-100 percent of every
    /// character's full detail) stays fixed. It applies with the `per_level` compute
    /// shader, `--animate gpu` with LOD, and per-level draws; where the crowd needs more
    /// room than the pool has, the farthest characters are drawn at the coarsest mesh
    /// level, left out only where even that has no room, and the panel says how many of
    /// each (the panel's "skinned pool" box changes it live).
    #[arg(long = "skinned-pool", value_name = "auto|PERCENT|off", default_value = "auto", value_parser = pool_share)]
    pub skinned_pool: PoolChoice,
    /// The sun casts shadows from a shadow map onto the ground and the crowd (the panel's
    /// "shadows" box changes it live).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    pub shadows: bool,
    /// Draw the crowd with one indirect multi-draw per vertex binding where the adapter
    /// can (off: the same draws one by one; the panel's "indirect draws" box changes it
    /// live).
    #[arg(long = "indirect-draws", value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    pub indirect_draws: bool,
    /// Update-rate LOD: each character is recomputed every 1, 2, 4 or 8 frames, chosen so
    /// that its screen-space error stays under --lod-threshold; characters outside the
    /// view are not drawn (the panel's "LOD" box changes it live). With --animate gpu it
    /// runs on the GPU: one period per character, culled through the draw arguments.
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = on_off, action = clap::ArgAction::Set)]
    pub lod: bool,
    /// Geometric LOD: each character is drawn with the coarsest level of its mesh's chain
    /// (made at load with meshoptimizer, `inspect` lists it) whose error, measured over the
    /// clips and projected at the character's distance, stays under --lod-threshold (the
    /// panel's "mesh LOD" box changes it live). With --animate gpu the GPU's LOD pass
    /// chooses. On by default: it shortened the GPU frame on every draw path measured
    /// (docs/mesh-lod.md).
    #[arg(long = "mesh-lod", value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    pub mesh_lod: bool,
    /// Draw each character in the colour of its mesh level (white full detail, then green,
    /// yellow, orange, red, magenta) instead of its material: what geometric LOD chose
    /// (the panel's "colour by level" box).
    #[arg(long = "color-by-level")]
    pub color_by_level: bool,
    /// What colours the characters are drawn in: `file`, each character's own base
    /// colours (the file's textures and factors; a file that names no material, like the
    /// built-in rigs', shows the tints), or `tint`, three tints with a checker over each uv unit, which show the
    /// crowd's structure and uv layout (the panel's "file colours" box).
    #[arg(long, value_name = "file|tint", default_value = BaseColors::DEFAULT.spec().name, value_parser = variant_parser::<BaseColors>())]
    pub material: BaseColors,
    /// The screen-space error LOD allows, pixels (0.01 to 100).
    #[arg(long = "lod-threshold", value_name = "PX", default_value_t = 1.0, value_parser = lod_threshold, allow_negative_numbers = true)]
    pub lod_threshold: f32,
    /// The longest LOD update period, frames: 1, 2, 4 or 8.
    #[arg(long = "lod-max-period", value_name = "FRAMES", default_value_t = 8, value_parser = lod_max_period)]
    pub lod_max_period: u8,
    /// Where the camera starts: `overview` frames the whole crowd from above, `street`
    /// stands at its edge at eye height looking across it.
    #[arg(long, default_value = CameraStart::Overview.spec().name, value_parser = variant_parser::<CameraStart>())]
    pub camera: CameraStart,
    /// Animation speed factor, 0..=10.
    #[arg(long, default_value_t = 1.0, value_parser = speed, allow_negative_numbers = true)]
    pub speed: f32,
    /// Start paused.
    #[arg(long)]
    pub paused: bool,
    /// Start every character at this time into its clip, instead of a random phase (with
    /// --paused: a still of that pose, e.g. a rig's worst frame from the bench).
    #[arg(long, value_name = "SECS", value_parser = clip_time, allow_negative_numbers = true)]
    pub clip_time: Option<f32>,
    /// Cross-fade each character towards its second clip with this weight (0 = off).
    #[arg(long, default_value_t = 0.0, value_parser = blend_weight, allow_negative_numbers = true)]
    pub blend: f32,
    /// Present without vsync (for measuring).
    #[arg(long)]
    pub no_vsync: bool,
    /// Start with the panel hidden.
    #[arg(long)]
    pub hide_panel: bool,
    /// Window size in logical pixels.
    #[arg(long, default_value = "1600x900", value_parser = parse_size)]
    pub window: (u32, u32),
    /// Run this many frames (at least 1), then exit.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub frames: Option<u64>,
    /// With --frames: save the last frame (panel included) to this PNG, plus a .json sidecar.
    /// The folder must exist.
    #[arg(long, requires = "frames")]
    pub screenshot: Option<PathBuf>,
    /// With --frames: verify the last frame against the f64 oracles (the panel's verify
    /// button), print the deviation per stage, record it in the screenshot sidecar, and
    /// exit 1 beyond tolerance.
    #[arg(long, requires = "frames")]
    pub verify: bool,
    /// Open the timeline profiler at start (the panel's profiler button): in a build with
    /// --features profile-with-puffin, serves puffin's scopes on 127.0.0.1:8585 for
    /// puffin_viewer.
    #[arg(long)]
    pub profiler: bool,
    /// Measure the mesh levels' errors again instead of reading them from the cache, and
    /// keep nothing there (the cache: $SKINBENCH_CACHE_DIR, else the platform's cache
    /// folder, ~/.cache/skinbench on Linux; a file per character, keyed by its content and
    /// the program's version).
    #[arg(long = "no-cache")]
    pub no_cache: bool,
    /// Soak test: for SECS seconds, change variants, upload, schedule, threads, instance
    /// count, blend, pause, speed and rig at random every frame; exit 1 on a wgpu
    /// validation error, a verify beyond tolerance, or memory growing over checkpoints taken
    /// in the starting configuration: the fewest GPU objects of the second half of them
    /// more than 4 above the fewest of the first half, or the same floor of the live heap
    /// or trimmed resident memory more than 10 % higher.
    /// A soak longer than a minute first draws every rig once at 10,000 characters, a
    /// warm-up not counted in SECS.
    #[arg(long, value_name = "SECS", conflicts_with_all = ["frames", "screenshot", "verify"], value_parser = parse_soak_secs)]
    pub soak: Option<f64>,
    /// With --soak: the seed of its random changes (the same seed replays the same changes).
    #[arg(long, requires = "soak")]
    pub seed: Option<u64>,
    /// With --soak: a folder whose .gltf and .glb rigs it switches between, besides the
    /// starting rig and the built-in one (default: ../shared/rigs where it exists).
    #[arg(long, requires = "soak", value_name = "DIR")]
    pub soak_rigs: Option<PathBuf>,
}

fn parse_soak_secs(s: &str) -> Result<f64, String> {
    use skinbench::ui::soak::MIN_SOAK_SECS;
    match s.parse::<f64>() {
        Ok(secs) if secs.is_finite() && (MIN_SOAK_SECS..=86_400.0).contains(&secs) => Ok(secs),
        Ok(secs) if secs.is_finite() && (0.0..MIN_SOAK_SECS).contains(&secs) => Err(format!(
            "{s} s is too short to test anything: a frame of a large crowd can take seconds \
             on a software renderer; give it at least {MIN_SOAK_SECS} s"
        )),
        _ => Err(format!(
            "{s:?} is not a number of seconds in {MIN_SOAK_SECS}..=86400"
        )),
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print a summary of a glTF rig: joints, vertices, influences, clips.
    Inspect(InspectArgs),
    /// Measure the variants (the CPU stages; with --workload gpu or crowd, whole frames on
    /// a GPU adapter) and write tables and charts to bench-results/local/.
    Bench(BenchArgs),
    /// Write one instance's skinned mesh at one time as .glb or .obj (vertices in the rig
    /// file's order), through the same pipeline and read-back as verify.
    Pose(PoseArgs),
    /// Generate a built-in rig as a .glb file.
    GenRig(GenRigArgs),
    /// Print the GPU adapter the app and the GPU workloads would use: its name, type,
    /// driver and backend, and whether it is a CPU emulation (whose timings are not GPU
    /// speed).
    Adapter(AdapterArgs),
    /// Summarise a folder of bench reports into summary.md and summary.json beside them:
    /// the GPU's time per pass, the draw passes' share, the CPU's whole part of a frame,
    /// walk against levels, LOD off against on, thread scaling (what
    /// scripts/gpu-report.sh runs last).
    Summarize(SummarizeArgs),
}

/// `skinbench adapter`.
#[derive(clap::Args, Debug)]
pub struct AdapterArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `skinbench summarize`.
#[derive(clap::Args, Debug)]
pub struct SummarizeArgs {
    /// The folder holding the reports (`bench --out`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// `skinbench inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// A .gltf or .glb file, or a built-in rig by name (reference, twist).
    #[arg(value_name = "RIG")]
    pub file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `skinbench bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// A .gltf or .glb rig, or a built-in rig by name: reference (the default) or twist
    /// (write ./twist for a file of that name).
    #[arg(long)]
    pub rig: Option<PathBuf>,
    /// Cut every vertex to its N heaviest influences (1..=8, renormalised) when the rig
    /// loads; `4` keeps what engines' usual vertex formats and the first variants take
    /// (`inspect` says what the cut moves). Default: all the file has, up to eight.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=8))]
    pub max_influences: Option<u64>,
    /// Same workloads, every configuration, fewer frames: each configuration measured for
    /// 0.4 s instead of 8 (the CPU workloads: about 15 s on a 2-core machine against about
    /// 3 minutes; gpu and crowd render frames and take longer, and the gpu workload says
    /// how long it expects after its first frames and then every 10 s).
    #[arg(long)]
    pub quick: bool,
    /// Folder for the reports (.md, .json and the charts). The default is ignored by git,
    /// so a run leaves the checkout as it was; `--out bench-results` adds the report to the
    /// committed ones and to their index in bench-results/README.md.
    #[arg(long, default_value = "bench-results/local")]
    pub out: PathBuf,
    /// Print the JSON report to stdout (instead of the table).
    #[arg(long)]
    pub json: bool,
    /// Run only these workloads, repeatable or comma-separated (default: those that need
    /// no GPU adapter; the others run only when named).
    #[arg(long = "workload", value_name = "WORKLOAD", value_delimiter = ',', value_parser = variant_parser::<Workload>())]
    pub workloads: Vec<Workload>,
    /// Instance count for every workload (default: 1000 hierarchy, 100 skin, 100 and
    /// 1000 frame, 100, 1000 and 10000 gpu and animated on the GPU also 100000, 10000
    /// crowd).
    #[arg(long)]
    pub instances: Option<usize>,
    /// Worker thread counts for the frame and crowd workloads, comma-separated, each a
    /// number or `all` (this machine's cores), e.g. `1,2,4,8,all` (default: every count
    /// from 1 to all for frame; 1, 2 and all for crowd).
    #[arg(long = "threads", value_name = "N", value_delimiter = ',')]
    pub threads: Vec<String>,
    /// Measure the lane kernels at these SIMD levels side by side (help text set in
    /// `command()`: the level names come from their declaration).
    #[arg(long = "simd-level", value_name = "LEVEL")]
    pub simd_levels: Vec<String>,
    /// Also write a Chrome trace of every frame the bench runs (open it in Perfetto or
    /// chrome://tracing): each stage of each group on the thread that ran it, uploads,
    /// encoding and GPU passes. At most 500,000 spans are kept.
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<PathBuf>,
    /// Which clips every workload's crowd plays: `moving` (the default: every clip except
    /// those in which no vertex moves), `all`, or clip names separated by commas (a name
    /// the rig lacks is refused with the list of its clips). The report names them.
    #[arg(long, value_name = "moving|all|NAME,...", default_value = "moving", value_parser = clip_choice)]
    pub clips: ClipChoice,
    /// Where the gpu workload's camera stands: `overview` (the whole crowd from above) or
    /// `street` (at the crowd's corner at eye height, most characters far away and a few
    /// very near). The crowd workload measures both. The report's name ends in `_street`.
    #[arg(long, default_value = CameraStart::Overview.spec().name, value_parser = variant_parser::<CameraStart>())]
    pub camera: CameraStart,
    /// What colours the gpu and crowd workloads draw the crowd in: `file` (the rig's own
    /// base colours, textures sampled) or `tint` (three tints with a checker, no texture),
    /// to measure what the file's materials cost. The report says which; its name ends in
    /// `_tint` for the tints.
    #[arg(long, value_name = "file|tint", default_value = BaseColors::DEFAULT.spec().name, value_parser = variant_parser::<BaseColors>())]
    pub material: BaseColors,
    /// The size of the image the gpu and crowd workloads draw and measure LOD's pixels in,
    /// WIDTHxHEIGHT: what a user looks at, 1920x1080 unless asked. LOD's thresholds are in
    /// pixels, so a smaller image puts characters at their coarse levels nearer the camera.
    /// The report states it; its name ends in `_<W>x<H>` for another size.
    #[arg(long, value_name = "WxH", default_value = "1920x1080", value_parser = parse_size)]
    pub size: (u32, u32),
    /// The skinned pool of the gpu workload's `gpu_compute` row that skins into a pool
    /// (`--skinned-pool` of the app): `auto`, or a fixed share (1-100 percent of full
    /// detail); `off` leaves that row out.
    #[arg(long = "skinned-pool", value_name = "auto|PERCENT|off", default_value = "auto", value_parser = pool_share)]
    pub skinned_pool: PoolChoice,
    /// Cross-fade weight, 0 to 1, of the crowd workload's characters towards each one's
    /// next clip (0: no cross-fade, the default). The report states it; its name ends in
    /// `_blend<W>`.
    #[arg(long, value_name = "W", default_value_t = 0.0, value_parser = blend_weight, allow_negative_numbers = true)]
    pub blend: f32,
}

/// `skinbench pose`.
#[derive(clap::Args, Debug)]
pub struct PoseArgs {
    /// A .gltf or .glb rig, or a built-in rig by name (reference, twist).
    #[arg(value_name = "RIG")]
    pub file: PathBuf,
    /// The clip to pose (default: the rig's first clip; the rest pose without clips).
    #[arg(long)]
    pub clip: Option<String>,
    /// Time in the clip, seconds (loops over the clip's duration).
    #[arg(
        long = "time",
        default_value_t = 0.0,
        value_name = "SECS",
        allow_negative_numbers = true
    )]
    pub time_secs: f32,
    /// Skinning variant, one that skins on the CPU (default: the fastest on this CPU).
    #[arg(long, value_parser = cpu_skin_parser())]
    pub skin: Option<SkinVariant>,
    /// Hierarchy variant (default: the fastest on this CPU that accepts the rig).
    #[arg(long, value_parser = variant_parser::<HierarchyVariant>())]
    pub hierarchy: Option<HierarchyVariant>,
    /// Skinning method: how a vertex's influences are combined.
    #[arg(long, default_value = SkinMethod::Linear.spec().name, value_parser = variant_parser::<SkinMethod>())]
    pub method: SkinMethod,
    /// Cut every vertex to its N heaviest influences (1..=8, renormalised) when the rig
    /// loads, as the app's flag does (the first variants take four). Default: all the
    /// file has, up to eight.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=8))]
    pub max_influences: Option<u64>,
    /// Write level N of the mesh's LOD chain (0: the full mesh; `inspect` lists the
    /// levels): the same posed vertices, the level's triangles.
    #[arg(long = "mesh-lod", value_name = "N", default_value_t = 0)]
    pub mesh_level: usize,
    /// Output file: .glb (glTF binary) or .obj.
    #[arg(long)]
    pub out: PathBuf,
}

/// `skinbench gen-rig`.
#[derive(clap::Args, Debug)]
pub struct GenRigArgs {
    /// Which rig.
    #[arg(long, default_value = "reference", value_parser = built_in_rig_parser())]
    pub kind: BuiltInRig,
    /// Where to write it (default: the rig's file under assets/, the copy the binary
    /// embeds).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The command line with the help text that depends on this CPU (the real defaults of
/// `--hierarchy` and `--skin`) or lists declared names where clap cannot (`bench
/// --simd-level` also takes `all`).
pub fn command() -> clap::Command {
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
    let levels: Vec<&str> = SimdLevel::ALL.iter().map(|l| l.name()).collect();
    let bench_levels = format!(
        "Measure the lane kernels at these SIMD levels side by side ({}, or `all` the CPU \
         has; repeatable or comma-separated; default: the best the CPU has). Rows name \
         their level; the file name lists the levels",
        levels.join(", ")
    );
    Cli::command()
        .mut_arg("hierarchy", |a| a.help(hierarchy.clone()))
        .mut_arg("skin", |a| a.help(skin.clone()))
        .mut_subcommand("pose", |c| {
            c.mut_arg("hierarchy", |a| a.help(hierarchy.clone()))
                .mut_arg("skin", |a| a.help(skin.clone()))
        })
        .mut_subcommand("bench", |c| {
            c.mut_arg("simd_levels", |a| a.help(bench_levels))
        })
}

/// The built-in rig `path` names, if it is exactly one of their names.
pub fn built_in_rig(path: &std::path::Path) -> Option<BuiltInRig> {
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
pub fn parse_simd_levels(given: &[String]) -> anyhow::Result<Vec<SimdLevel>> {
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

/// `--speed`: a factor in 0..=10.
fn speed(value: &str) -> Result<f32, String> {
    match value.parse::<f32>() {
        Ok(s) if s.is_finite() && (0.0..=10.0).contains(&s) => Ok(s),
        Ok(_) => Err(format!("{value} is out of range 0..=10")),
        Err(_) => Err(format!(
            "{value:?} is not a number (a speed factor in 0..=10)"
        )),
    }
}

/// `--blend`: a weight in 0..=1.
fn blend_weight(value: &str) -> Result<f32, String> {
    match value.parse::<f32>() {
        Ok(w) if (0.0..=1.0).contains(&w) => Ok(w),
        Ok(_) => Err(format!("{value} is out of range 0..=1")),
        Err(_) => Err(format!(
            "{value:?} is not a number (a blend weight in 0..=1)"
        )),
    }
}

/// `--clips`.
fn clip_choice(value: &str) -> Result<ClipChoice, String> {
    ClipChoice::parse(value).map_err(|e| e.to_string())
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
/// `--skinned-pool`'s value: `None` for `off` (an alias, so that clap takes the value
/// whole rather than as an optional argument).
pub type PoolChoice = Option<PoolSize>;

/// `off`, `auto`, or a whole percentage of full detail from 1 to 100.
fn pool_share(value: &str) -> Result<PoolChoice, String> {
    match value {
        "off" => return Ok(None),
        "auto" => return Ok(Some(PoolSize::Auto)),
        _ => {}
    }
    let percent = value.trim_end_matches('%');
    percent
        .parse::<u32>()
        .ok()
        .and_then(PoolShare::from_percent)
        .map(|share| Some(PoolSize::Share(share)))
        .ok_or_else(|| {
            format!(
                "{value:?} is neither off, auto nor a whole percentage from {} to {}",
                PoolShare::MIN_PERCENT,
                PoolShare::MAX_PERCENT
            )
        })
}

fn on_off(value: &str) -> Result<bool, String> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{value:?} is neither on nor off")),
    }
}
