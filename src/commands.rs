//! What each subcommand does once its arguments are parsed: check what the user gave,
//! load the rig, call the library, print or write the result.

use std::path::PathBuf;

use anyhow::Context as _;

use crate::cli::{
    AdapterArgs, AppArgs, BenchArgs, GenRigArgs, InspectArgs, PoseArgs, SummarizeArgs,
};
use crate::cli::{built_in_rig, parse_simd_levels};
use skinbench::bench::load::RigSource;
use skinbench::bench::{BenchOptions, Workload, report};
use skinbench::crowd::lod::LodSettings;
use skinbench::crowd::mix::{ClipChoice, ClipMix, ClipSurvey};
use skinbench::crowd::pipeline::available_threads;
use skinbench::crowd::trace::Trace;
use skinbench::crowd::{AnimateDevice, PipelineConfig};
use skinbench::gpu::camera::CameraStart;
use skinbench::gpu::scene::Settings;
use skinbench::pose::{MeshFormat, pose_at_level};
use skinbench::prepare::PreparedRig;
use skinbench::rig::MAX_INFLUENCES;
use skinbench::rig::generate::BuiltInRig;
use skinbench::rig::{self, RigSummary};
use skinbench::simd::SimdLevel;
use skinbench::skin::SkinVariant;
use skinbench::ui::app::AppOptions;
use skinbench::variant::Variant;

/// `println!` for the commands' results, except that a reader who stops reading (a pipe
/// into `head`) ends the command quietly instead of a panic: what it writes after that
/// has no one to read it.
macro_rules! say {
    ($($arg:tt)*) => {
        say_on!("{}\n", format_args!($($arg)*))
    };
}

/// `print!` as [`say!`] writes it.
macro_rules! say_on {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        match write!(std::io::stdout().lock(), $($arg)*) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            Err(e) => return Err(anyhow::Error::from(e).context("cannot write to standard output")),
        }
    }};
}

/// `inspect`: the rig's summary, what a cut to four influences would move, and how far
/// its normals turn.
pub fn inspect(InspectArgs { file, json }: InspectArgs) -> anyhow::Result<()> {
    let (loaded, report) = match built_in_rig(&file) {
        Some(built_in) => rig::import_slice(built_in.glb(), built_in.asset_path(), None)?,
        None => rig::import_path(&file)?,
    };
    let summary = RigSummary::new(&loaded, &report);
    let name = file.display().to_string();
    let prepared = PreparedRig::new(loaded, &report, &name)
        .with_context(|| format!("{name}: the imported rig cannot be prepared"))?;
    let normals = skinbench::skin::normal_rules::measure(&prepared);
    let cut = skinbench::skin::reduction::reduction_cost(&prepared, 4);
    if json {
        let mut value = serde_json::to_value(&summary)?;
        value["influence_cut"] = serde_json::to_value(&cut)?;
        value["normal_matrix_reason"] = serde_json::to_value(&prepared.normal_matrix_reason)?;
        value["normal_angles"] = serde_json::to_value(&normals)?;
        value["mesh_lod"] = mesh_lod_json(&prepared);
        let survey = ClipSurvey::measure(&prepared);
        let mix = ClipMix::choose(&ClipChoice::Moving, &prepared, &survey)?;
        value["crowd_clips"] = serde_json::json!({ "survey": survey, "default_mix": mix });
        say!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        say_on!("{}", summary.to_text());
        if let Some(cut) = &cut {
            say!(
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
        say_on!("{}", normals.to_text(&prepared));
        say_on!("{}", mesh_lod_text(&prepared));
        say_on!("{}", crowd_clips_text(&prepared)?);
    }
    Ok(())
}

/// What the crowd plays by default and how far apart it stands, as `inspect` prints it.
fn crowd_clips_text(rig: &PreparedRig) -> anyhow::Result<String> {
    use std::fmt::Write;
    let survey = ClipSurvey::measure(rig);
    let mix = ClipMix::choose(&ClipChoice::Moving, rig, &survey)?;
    let mut out = String::from(
        "crowd clips (each skinned at its keys and an even grid; the farthest a vertex gets from \
         the clip's first pose, how far its last pose is from its first, and the ground box of \
         every pose, metres as drawn at 1.8 m tall):\n",
    );
    for clip in &survey.clips {
        let [x0, x1, z0, z1] = clip.footprint_metres;
        let what = match (clip.moves, clip.loops) {
            (false, _) => "still (left out by default)".to_string(),
            (true, true) => format!(
                "moves up to {:>5.2} m, loops (ends {:.2} m from its start)",
                clip.largest_move_metres, clip.loop_gap_metres
            ),
            (true, false) => format!(
                "moves up to {:>5.2} m, an action: ends {:.2} m from its start (left out by default)",
                clip.largest_move_metres, clip.loop_gap_metres
            ),
        };
        let _ = writeln!(
            out,
            "  {:<24} {what}  ground box x {x0:.2}..{x1:.2}, z {z0:.2}..{z1:.2} m",
            clip.name,
        );
    }
    let [sx, sz] = mix.spacing_metres;
    let _ = writeln!(
        out,
        "  by default (--clips moving) the crowd plays {} and stands {sx:.2} m apart across, {sz:.2} m along",
        if survey.clips.is_empty() {
            "its rest pose".to_string()
        } else {
            mix.clips
                .iter()
                .map(|&c| survey.name(c))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    Ok(out)
}

/// The mesh LOD chain as `inspect` prints it: each level's triangles, vertices and error.
fn mesh_lod_text(rig: &PreparedRig) -> String {
    use std::fmt::Write;
    let chain = rig.mesh_chain();
    let measured = skinbench::skin::level_errors::level_errors(rig);
    let mut out = format!(
        "mesh LOD: {} levels (made in {:.0} ms, measured over {} poses in {:.0} ms; joints are \
         those that move the level's vertices and their ancestors, all a character drawn at \
         the level needs and all the animation poses for it (with linear blending, which cuts \
         the level's influences as below, those its kept influences name and their \
         ancestors); errors are the largest distance between the level's and the full \
         mesh's skinned surfaces over the clips, its held joints at rest, +{:.0} %, its influences cut (below), as a share of the rig size {:.3})\n",
        chain.levels().len(),
        chain.build_secs * 1e3,
        measured.poses,
        measured.measure_secs * 1e3,
        skinbench::skin::mesh_lod::POSE_MARGIN * 100.0,
        rig.model_size,
    );
    let joint_sets = rig.level_joint_sets();
    for (l, ((level, error), joints)) in chain
        .levels()
        .iter()
        .zip(&measured.errors)
        .zip(joint_sets)
        .enumerate()
    {
        let _ = writeln!(
            out,
            "  level {l}: {:>6} triangles {:>6} vertices {:>5} joints ({} with linear blending; {} influence it, {} held)  error {:.3e} ({:.2e} of the rig size; the simplifier's bind-pose estimate {:.2e})",
            level.triangles(),
            level.vertices,
            joints.len(),
            skinbench::skin::level_errors::posed_joints(
                rig,
                l,
                skinbench::skin::SkinMethod::Linear
            )
            .len(),
            joints.influencing(),
            measured.merges.get(l).map_or(0, |m| m.held.len()),
            error,
            *error as f64 / rig.model_size as f64,
            level.bind_error,
        );
    }
    if let Some(note) = &chain.note {
        let _ = writeln!(out, "  ({note})");
    }
    let cuts = skinbench::skin::level_errors::influence_cuts(rig);
    let _ = writeln!(
        out,
        "  influences per level (a vertex's heaviest 1/2/3/4, renormalised: the most, in model units, it moves a \
         vertex of the level over the clips, +{:.0} %; kept: the fewest whose cut, with the level's \
         held joints, keeps its surface and every coarser level's within their largest distance \
         from the full one at every measured pose, so no error grows; with linear blending \
         every skin path (the CPU's kernels, gpu_compute, gpu_vertex) skins the level's \
         vertices with them, dual quaternions keep every one; blended: influences a CPU kernel blends for a character skinned for the \
         level, with the cut and without):",
        skinbench::skin::mesh_lod::POSE_MARGIN * 100.0,
    );
    for (l, cut) in cuts.iter().enumerate() {
        let moved: Vec<String> = cut.moved.iter().map(|m| format!("{m:.2e}")).collect();
        let _ = writeln!(
            out,
            "  level {l}: {}  kept: {}  blended: {} of {}",
            moved.join(" / "),
            match cut.fits {
                Some(k) => format!("{k}"),
                None if l == 0 => "all (the full mesh)".to_string(),
                None => "all (no cut fits)".to_string(),
            },
            skinbench::skin::influence_cuts::blended_influences(rig, l, cut.fits),
            skinbench::skin::influence_cuts::blended_influences(rig, l, None),
        );
    }
    let merges = skinbench::skin::level_errors::joint_merges(rig);
    let _ = writeln!(
        out,
        "  joints per level held at their rest pose (leaves first, while at every pose the level's \
         vertices move no more than its surface's distance leaves room for under the largest, so \
         its error does not grow; a character drawn at the level gives them their rest pose on \
         every path and skips their tracks, the CPU's rotation blocks of eight included, which \
         it makes per level from the sampled joints' tracks; moving a vertex: the most, \
         +{:.0} %):",
        skinbench::skin::mesh_lod::POSE_MARGIN * 100.0,
    );
    for (l, m) in merges.iter().enumerate() {
        let cut = skinbench::skin::level_errors::level_merges(
            rig,
            l,
            skinbench::skin::SkinMethod::Linear,
        );
        let names: Vec<&str> = m
            .held
            .iter()
            .take(6)
            .map(|&j| rig.skeleton.names[j].as_str())
            .collect();
        let held = if names.is_empty() {
            "none held".to_string()
        } else {
            let more = if m.held.len() > names.len() {
                ", …"
            } else {
                ""
            };
            format!(
                "{} held ({}{more}), moving a vertex at most {:.2e}",
                m.held.len(),
                names.join(", "),
                m.moved
            )
        };
        let _ = writeln!(
            out,
            "  level {l}: {} of {} animated joints sampled ({} of {} with linear blending), {held}",
            m.sampled(),
            m.animated,
            cut.sampled(),
            cut.animated,
        );
    }
    out
}

fn mesh_lod_json(rig: &PreparedRig) -> serde_json::Value {
    let chain = rig.mesh_chain();
    let measured = skinbench::skin::level_errors::level_errors(rig);
    serde_json::json!({
        "levels": chain.levels().iter().zip(&measured.errors).zip(rig.level_joint_sets()).enumerate().map(|(l, ((level, error), joints))| serde_json::json!({
            "triangles": level.triangles(),
            "vertices": level.vertices,
            "joints": joints.len(),
            "joints_linear": skinbench::skin::level_errors::posed_joints(rig, l, skinbench::skin::SkinMethod::Linear).len(),
            "influencing_joints": joints.influencing(),
            "error": error,
            "bind_error": level.bind_error,
        })).collect::<Vec<_>>(),
        "influence_cuts": skinbench::skin::level_errors::influence_cuts(rig),
        "joint_merges": skinbench::skin::level_errors::joint_merges(rig),
        "note": chain.note,
        "build_secs": chain.build_secs,
        "measure_secs": measured.measure_secs,
        "poses": measured.poses,
    })
}

/// `pose`: one instance's skinned mesh at one time, written as .glb or .obj.
pub fn pose(
    PoseArgs {
        file,
        clip,
        time_secs,
        skin,
        hierarchy,
        method,
        max_influences,
        mesh_level,
        out,
    }: PoseArgs,
) -> anyhow::Result<()> {
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
    let posed = pose_at_level(rig.clone(), clip.as_deref(), time_secs, config, mesh_level)?;
    posed.write(&rig, &out)?;
    let d = &posed.deviation;
    say!(
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

/// `gen-rig`: a built-in rig as a .glb file.
pub fn gen_rig(GenRigArgs { kind, out }: GenRigArgs) -> anyhow::Result<()> {
    let out = out.unwrap_or_else(|| PathBuf::from(kind.asset_path()));
    let bytes = rig::glb::write_glb(&kind.generate(), rig::generate::GENERATOR);
    std::fs::write(&out, &bytes).with_context(|| format!("cannot write {}", out.display()))?;
    say!("wrote {} ({} bytes)", out.display(), bytes.len());
    Ok(())
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

/// Spans a bench's trace keeps at most (about 45 MB of JSON).
const TRACE_SPAN_LIMIT: u64 = 500_000;

/// An output file named by `flag`: its name ends in `.extension` and its folder exists,
/// checked before any work whose result it would hold (a trace is written only at the end,
/// a screenshot after the last frame).
fn check_output_path(flag: &str, path: &std::path::Path, extension: &str) -> anyhow::Result<()> {
    if path
        .extension()
        .is_none_or(|e| !e.eq_ignore_ascii_case(extension))
    {
        anyhow::bail!(
            "{flag} {}: the file name must end in .{extension}",
            path.display()
        );
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if !folder.is_dir() {
        anyhow::bail!(
            "{flag} {}: the folder {} does not exist",
            path.display(),
            folder.display()
        );
    }
    Ok(())
}

/// `bench`: the workloads asked for, measured, as one report in `out`.
pub fn bench(
    BenchArgs {
        rig,
        max_influences,
        quick,
        out,
        json,
        workloads,
        instances,
        threads,
        simd_levels,
        trace,
        clips,
        camera,
        material,
        size,
        skinned_pool,
        blend,
    }: BenchArgs,
) -> anyhow::Result<()> {
    // Everything the user gave is checked before measuring, so a bad value costs nothing
    // and leaves no files behind.
    let workloads = if workloads.is_empty() {
        Workload::default_set()
    } else {
        let mut chosen: Vec<Workload> = Vec::new();
        for workload in workloads {
            if !chosen.contains(&workload) {
                chosen.push(workload);
            }
        }
        chosen
    };
    if instances == Some(0) {
        anyhow::bail!("--instances must be at least 1");
    }
    let simd_levels = parse_simd_levels(&simd_levels)?;
    let thread_counts = parse_thread_counts(&threads)?;
    if let Some(path) = &trace {
        check_output_path("--trace", path, "json")?;
    }
    if camera != CameraStart::Overview && !workloads.contains(&Workload::Gpu) {
        anyhow::bail!(
            "--camera {}: only the gpu workload takes a camera (the crowd workload measures \
             both); add --workload gpu",
            camera.name()
        );
    }
    if blend > 0.0 && !workloads.contains(&Workload::Crowd) {
        anyhow::bail!(
            "--blend {blend}: only the crowd workload cross-fades its characters; add \
             --workload crowd"
        );
    }
    let max = max_influences.map_or(MAX_INFLUENCES, |n| n as usize);
    let rig_source = match rig.as_deref() {
        Some(p) => match built_in_rig(p) {
            Some(built_in) => RigSource::BuiltIn(built_in, max),
            None => RigSource::File(p.to_path_buf(), max),
        },
        None => RigSource::BuiltIn(BuiltInRig::Reference, max),
    };
    let rig = load_rig(rig.as_deref(), max_influences)?;
    clips.check(&rig)?;
    report::check_writable(&out)?;
    let timeline = trace
        .as_ref()
        .map(|_| std::sync::Arc::new(Trace::new(TRACE_SPAN_LIMIT)));
    let gpu = match workloads.iter().find(|w| w.spec().needs_adapter) {
        Some(workload) => Some(skinbench::gpu::GpuContext::offscreen().map_err(|e| {
            anyhow::anyhow!(
                "the {} workload draws on a GPU adapter, and there is none: {e}",
                workload.name()
            )
        })?),
        None => None,
    };
    let options = BenchOptions {
        quick,
        workloads,
        instances,
        simd_levels,
        thread_counts,
        trace: timeline.clone(),
        clips,
        camera,
        material,
        size,
        skinned_pool,
        blend_weight: blend,
        rig_source: Some(rig_source),
        ..BenchOptions::default()
    };
    let report = skinbench::bench::run(rig, &options, gpu.as_ref(), |line| eprintln!("{line}"))?;
    let (md, json_path) = report::write_files(&report, &out)?;
    if json {
        say!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        say!("{}", report::markdown(&report));
    }
    eprintln!("wrote {} and {}", md.display(), json_path.display());
    if let (Some(path), Some(timeline)) = (&trace, &timeline) {
        timeline.write(path)?;
        eprintln!(
            "wrote the trace {} ({} spans left out past the limit of {TRACE_SPAN_LIMIT})",
            path.display(),
            timeline.left_out()
        );
    }
    skinbench::bench::index::update_index(&out)
        .map_err(|e| anyhow::anyhow!("cannot update the index in {}: {e}", out.display()))?;
    Ok(())
}

/// `--threads` of `bench`: numbers or `all`, ascending without repeats; `None` when not
/// given (each workload's own counts).
fn parse_thread_counts(given: &[String]) -> anyhow::Result<Option<Vec<usize>>> {
    if given.is_empty() {
        return Ok(None);
    }
    let cores = available_threads();
    let max = skinbench::crowd::crew::MAX_WORKERS;
    let mut counts = Vec::new();
    for text in given {
        let count = match text.trim() {
            "all" => cores,
            t => match t.parse::<usize>() {
                Ok(n) if (1..=max).contains(&n) => n,
                _ => anyhow::bail!(
                    "--threads: {text:?} is not a worker count: give numbers in 1..={max} or \
                     `all` ({cores} here), comma-separated"
                ),
            },
        };
        counts.push(count);
    }
    counts.sort_unstable();
    counts.dedup();
    Ok(Some(counts))
}

pub fn run_app(args: AppArgs) -> anyhow::Result<()> {
    let cores = available_threads();
    let threads = args.threads.unwrap_or(cores);
    if args.profiler && !skinbench::ui::profiler::available() {
        anyhow::bail!(
            "--profiler: this build has no profiler; build with --features profile-with-puffin"
        );
    }
    if let Some(path) = &args.screenshot {
        check_output_path("--screenshot", path, "png")?;
    }
    let simd_level = match args.simd_level {
        Some(level) => level
            .require()
            .map_err(|e| anyhow::anyhow!("--simd-level: {e}"))?,
        None => SimdLevel::native(),
    };
    let rig = load_rig(args.rig.as_deref(), args.max_influences)?;
    args.clips.check(&rig)?;
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
    let skin = args
        .skin
        .unwrap_or_else(|| args.animate.default_skin(best.skin));
    check_animate(&args, skin)?;
    let pipeline = PipelineConfig {
        hierarchy: args.hierarchy.unwrap_or(best.hierarchy),
        skin,
        schedule: args.schedule,
        threads,
        blend_weight: args.blend,
        method: args.method,
    };
    // The pipeline's own check, before the window opens, each refusal naming its flag.
    pipeline.check(&rig).map_err(|e| match e {
        skinbench::crowd::pipeline::FrameError::Threads { given, max } => anyhow::anyhow!(
            "--threads {given}: out of range 1..={max} (the threads this machine runs at once)"
        ),
        skinbench::crowd::pipeline::FrameError::BlendWeight(w) => {
            anyhow::anyhow!("--blend {w}: out of range 0..=1")
        }
        skinbench::crowd::pipeline::FrameError::Refused {
            variant,
            rig,
            reason,
        } => {
            anyhow::anyhow!("--hierarchy {variant}: refuses {rig}: {reason}")
        }
        skinbench::crowd::pipeline::FrameError::SkinRefused {
            variant,
            method,
            rig,
            reason,
        } => anyhow::anyhow!("--skin {variant} --method {method}: refuses {rig}: {reason}"),
        other => other.into(),
    })?;
    let settings = Settings {
        animate: args.animate,
        gpu_hierarchy: args.gpu_hierarchy,
        simd_level,
        compute_shader: args.compute_shader,
        draws: args.draws,
        skinned_pool: args.skinned_pool,
        shadows: args.shadows,
        indirect_draws: args.indirect_draws,
        pipeline,
        upload: args.upload,
        lod: LodSettings {
            enabled: args.lod,
            mesh: args.mesh_lod,
            threshold_px: args.lod_threshold,
            max_period: args.lod_max_period,
        },
        color_by_level: args.color_by_level,
        base_colors: args.material,
        clips: args.clips.clone(),
        instances: args.instances as usize,
        speed: args.speed,
        paused: args.paused,
        vsync: !args.no_vsync,
        show_panel: !args.hide_panel,
    };
    // Refused here, before the window opens and anything is allocated; the GPU's buffer
    // limit is applied by the scene once the device exists.
    skinbench::crowd::budget::check_on(
        settings.animate,
        &rig,
        &settings.pipeline,
        settings.instances,
        settings.pool().map(skinbench::skin::pool::PoolSize::least),
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
            profiler: args.profiler,
            level_cache: (!args.no_cache)
                .then(skinbench::prepare::cache::MeasureCache::platform)
                .flatten(),
        },
    )?;
    Ok(())
}

/// What `--animate` asks of the other flags: `gpu` writes palettes for a GPU skin variant
/// (LOD then runs on the GPU too); `cpu` animates at most 10,000 characters.
fn check_animate(args: &AppArgs, skin: SkinVariant) -> anyhow::Result<()> {
    let cap = args.animate.spec().max_instances;
    if args.instances as usize > cap {
        let most = AnimateDevice::ALL
            .iter()
            .max_by_key(|d| d.spec().max_instances)
            .copied()
            .unwrap_or(args.animate);
        anyhow::bail!(
            "--instances {}: at most {cap} with --animate {} (--animate {} takes up to {})",
            args.instances,
            args.animate.name(),
            most.name(),
            most.spec().max_instances
        );
    }
    if let Some(why) = args.animate.refusal(skin) {
        anyhow::bail!(
            "--animate {} --skin {}: {why}",
            args.animate.name(),
            skin.name()
        );
    }
    Ok(())
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
        checkpoint_every: skinbench::ui::soak::CHECKPOINT_INTERVAL,
    })
}

/// `skinbench adapter`: the adapter the GPU workloads would get, said plainly.
pub fn adapter(AdapterArgs { json }: AdapterArgs) -> anyhow::Result<()> {
    let gpu = skinbench::gpu::GpuContext::offscreen()
        .map_err(|e| anyhow::anyhow!("no GPU adapter: {e}"))?;
    let a = &gpu.summary;
    let cpu_adapter = a.device_type.contains("Cpu");
    if json {
        say!(
            "{}",
            serde_json::json!({
                "name": a.name,
                "device_type": a.device_type,
                "backend": a.backend,
                "driver": a.driver,
                "timestamps": a.timestamps,
                "cpu_adapter": cpu_adapter,
            })
        );
    } else {
        say!(
            "adapter: {} ({}, {})\ndriver: {}\ntimestamps: {}\n{}",
            a.name,
            a.device_type,
            a.backend,
            a.driver,
            if a.timestamps { "yes" } else { "no" },
            if cpu_adapter {
                "a CPU emulation of a GPU: its timings are not GPU speed"
            } else {
                "a GPU"
            }
        );
    }
    Ok(())
}

/// `skinbench summarize DIR`.
pub fn summarize(SummarizeArgs { dir }: SummarizeArgs) -> anyhow::Result<()> {
    let (summary, md, json) = skinbench::bench::summary::write(&dir)?;
    say!("{}", skinbench::bench::summary::markdown(&summary));
    eprintln!("wrote {} and {}", md.display(), json.display());
    Ok(())
}
