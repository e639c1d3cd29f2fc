//! The `load` workload: how long a character takes from its file to what its first frame
//! reads, measured cold (nothing kept from an earlier load) and cached (the level
//! measurements read from the cache on disk), so that a load that grows slower shows in a
//! report.
//!
//! How it works: each round loads the rig twice from its source, both times from the
//! file's bytes: once with an empty cache folder of its own, then with the folder the
//! first load filled. A load is what the app does before its first frame on the CPU, step
//! by step: import and prepare (meshoptimizer's chain included), each level's error over
//! the clips (measured, or read from the cache), and the clip motions of the app's
//! starting crowd of 100 characters. The rounds alternate the two, so a noisy machine
//! slows both alike. The GPU buffers the app then makes are left out: they take no
//! measurement and do not grow with what the file holds.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use super::measure::{SpreadRatio, median};
use super::table::{Align, Table};
use super::{BenchError, Context};
use crate::prepare::PreparedRig;
use crate::prepare::cache::MeasureCache;
use crate::rig::generate::BuiltInRig;
use crate::skin::level_cache::{self, level_errors_cached};

/// Where the bench's rig comes from, for the load workload to load it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RigSource {
    BuiltIn(BuiltInRig, usize),
    /// A file and `--max-influences`.
    File(PathBuf, usize),
}

impl RigSource {
    /// Imports and prepares the rig, as the command line does.
    pub fn load(&self) -> Result<PreparedRig, BenchError> {
        match self {
            RigSource::BuiltIn(rig, max) => Ok(PreparedRig::built_in_cut(*rig, *max)),
            RigSource::File(path, max) => {
                PreparedRig::load_cut(path, *max).map_err(|e| BenchError::Refused(e.to_string()))
            }
        }
    }
}

/// The steps of a load, as the rows name them.
pub const STEPS: [&str; 4] = [
    "import and prepare",
    "level errors",
    "clip motions",
    "total",
];

/// One step's times over the rounds, cold and cached.
#[derive(Clone, Debug, Serialize)]
pub struct LoadRow {
    pub step: &'static str,
    pub cold_ms: Vec<f64>,
    pub cached_ms: Vec<f64>,
    pub cold_median_ms: f64,
    pub cached_median_ms: f64,
    /// Cached over cold, with its spread over the rounds.
    pub ratio: Option<SpreadRatio>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LoadSection {
    pub rig: String,
    pub triangles: usize,
    pub rounds: usize,
    /// The poses each level's error was measured over.
    pub poses: usize,
    pub rows: Vec<LoadRow>,
}

/// The characters whose clip motions a load measures: the app's starting crowd.
const CROWD: usize = 100;

/// One load of `source` with `cache`: each step's milliseconds, and the poses measured.
fn load_once(source: &RigSource, cache: &MeasureCache) -> Result<([f64; 4], usize), BenchError> {
    let start = Instant::now();
    let rig = source.load()?;
    let prepared = start.elapsed();
    let (levels, _, problem) = level_errors_cached(&rig, Some(cache));
    if let Some(problem) = problem {
        return Err(BenchError::Refused(problem.to_string()));
    }
    let poses = levels.poses;
    let measured = start.elapsed();
    let survey = crate::crowd::mix::ClipSurvey::measure(&rig);
    let mix = crate::crowd::mix::ClipMix::choose(&Default::default(), &rig, &survey)?;
    let mut crowd = crate::crowd::InstanceStore::new();
    mix.deal(&mut crowd, CROWD, &rig);
    crate::crowd::lod::Lod::new().measure_motions(
        &rig,
        0.0,
        crate::skin::SkinMethod::Linear,
        crowd.as_slice(),
        Some(cache),
        &mut |_, _| {},
    );
    let total = start.elapsed();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    Ok((
        [
            ms(prepared),
            ms(measured - prepared),
            ms(total - measured),
            ms(total),
        ],
        poses,
    ))
}

pub fn run(ctx: &mut Context) -> Result<LoadSection, BenchError> {
    let source = ctx.options.rig_source.clone().ok_or_else(|| {
        BenchError::Refused("the load workload needs the rig's file to load it again".into())
    })?;
    let rounds = if ctx.options.quick { 2 } else { 5 };
    ctx.progress(&format!(
        "measuring the load workload: {rounds} rounds of a cold load and a cached one of {}",
        ctx.rig.name
    ));
    let (mut cold, mut cached) = (vec![Vec::new(); 4], vec![Vec::new(); 4]);
    let mut poses = 0;
    for round in 0..rounds {
        let dir =
            std::env::temp_dir().join(format!("skinbench-load-{}-{round}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = MeasureCache::at(&dir);
        let (times, p) = load_once(&source, &cache)?;
        poses = p;
        // The second load must read what the first wrote.
        let again = source.load()?;
        if level_cache::read(&cache, &again).ok().flatten().is_none() {
            return Err(BenchError::Refused(format!(
                "the cold load wrote no level measurement to {}",
                dir.display()
            )));
        }
        drop(again);
        let (times_cached, _) = load_once(&source, &cache)?;
        let _ = std::fs::remove_dir_all(&dir);
        for step in 0..4 {
            cold[step].push(times[step]);
            cached[step].push(times_cached[step]);
        }
        ctx.progress(&format!(
            "load {}: cold {:.0} ms, cached {:.0} ms",
            round + 1,
            times[3],
            times_cached[3]
        ));
    }
    let rows = STEPS
        .iter()
        .enumerate()
        .map(|(s, &step)| LoadRow {
            step,
            cold_median_ms: median(cold[s].clone()),
            cached_median_ms: median(cached[s].clone()),
            ratio: SpreadRatio::of(&cached[s], &cold[s]),
            cold_ms: cold[s].clone(),
            cached_ms: cached[s].clone(),
        })
        .collect();
    Ok(LoadSection {
        rig: ctx.rig.name.clone(),
        triangles: ctx.rig.summary.triangles,
        rounds,
        poses,
        rows,
    })
}

pub fn markdown(section: &LoadSection, s: &mut String) {
    let _ = writeln!(
        s,
        "## load: {} ({} triangles) from its file to what its first frame reads, cold and cached\n",
        section.rig, section.triangles
    );
    use Align::{Left, Right};
    let mut table = Table::new(&[
        ("step", Left),
        ("cold median ms", Right),
        ("cached median ms", Right),
        ("cached / cold", Left),
    ]);
    for r in &section.rows {
        table.row([
            r.step.to_string(),
            format!("{:.0}", r.cold_median_ms),
            format!("{:.0}", r.cached_median_ms),
            r.ratio.map_or("-".into(), |ratio| ratio.markdown()),
        ]);
    }
    table.write(s);
    let _ = writeln!(
        s,
        "\n{} rounds, each a cold load (an empty cache folder) then a cached one (the folder \
         the cold load filled); each level's error measured over {} poses. import and \
         prepare = reading the file, the glTF import and the asset pipeline (the mesh's LOD \
         chain included); level errors = each level's error, held joints and influence cuts \
         over the clips (measured cold, read from the cache cached); clip motions = what \
         update-rate and geometric LOD bound the app's starting crowd of {CROWD} with. The \
         GPU buffers the app makes next are not in these times.\n",
        section.rounds, section.poses
    );
}
