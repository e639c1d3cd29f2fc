//! The `skin` workload: every skin variant that skins on the CPU, with every skinning
//! method it implements, the stage alone at 100 instances on one thread, beside the
//! times published in Stefan Reinalter's "Adventures in data-oriented design – Part 4: Skinning it to 11" (the reports
//! call it "seed 004"); on a closed mesh, also each method's worst volume.

use std::fmt::Write as _;

use serde::Serialize;

use super::measure::{Candidate, SpreadRatio, Timing, measure_interleaved, opt, ratio, simd_label};
use super::table::{Align, Table};
use super::{BenchError, Context, SEED_SKIN};
use crate::anim::hierarchy::HierarchyVariant;
use crate::crowd::{FrameError, InstanceStore, PipelineConfig, Stage, StageTimings};
use crate::skin::{SkinMethod, SkinVariant};
use crate::variant::Variant;

/// One skin variant with one method at one SIMD level.
#[derive(Clone, Debug, Serialize)]
pub struct SkinRow {
    pub variant: &'static str,
    pub method: &'static str,
    /// The level its lane kernels ran at; `None` for a scalar variant.
    pub simd: Option<&'static str>,
    pub timing: Option<Timing>,
    /// `naive`'s median over this one (a speed-up).
    pub ratio_to_naive: Option<f64>,
    /// With dual quaternions: this median over the same variant's with linear blending at
    /// the same level, with its spread over the interleaved rounds.
    pub ratio_to_linear: Option<SpreadRatio>,
    pub seed_ms: Option<f64>,
    pub seed_ratio: Option<f64>,
    pub stages_median_us: Vec<(String, f64)>,
    pub frames: usize,
    pub refused: Option<String>,
    /// The median of each interleaved round (what a ratio's spread is taken over).
    #[serde(skip)]
    round_medians: Vec<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SkinSection {
    pub instances: usize,
    pub rows: Vec<SkinRow>,
    /// On a closed mesh: for each method that accepts the rig, the pose where it keeps the
    /// bind pose's volume worst (f64 oracle, every clip).
    pub volumes: Vec<crate::skin::volume::WorstVolume>,
}

fn metric(t: &StageTimings) -> f64 {
    t.get(Stage::Skin)
}

pub fn run(ctx: &mut Context) -> Result<SkinSection, BenchError> {
    let rig = ctx.rig.clone();
    let n = ctx.options.instances.unwrap_or(100);
    let mut crowd = InstanceStore::new();
    crowd.resize_mixed(n, &rig, &ctx.clip_mix.clips, [2.0; 2]);
    let vertices = rig.vertex_count();
    let stored_bytes = |skin: SkinVariant, method: SkinMethod| {
        let layout = skin.layout(&rig, method);
        layout.stored_vertices() * layout.vertex_size()
    };
    let mut rows = Vec::new();
    let mut candidates = Vec::new();
    let mut bytes = Vec::new();
    // The CPU kernels (a GPU variant's CPU part is its palettes, in the frame workload),
    // each with every method it implements, dual quaternions beside linear at the same
    // level (the rig may refuse them: then a row says why).
    for &skin in SkinVariant::ALL.iter().filter(|s| s.skins_on_cpu()) {
        for level in ctx.levels_for(skin.spec().lanes) {
            for &method in skin.spec().methods {
                let config = PipelineConfig {
                    method,
                    ..Context::single(HierarchyVariant::Simd, skin)
                };
                let linear = method == SkinMethod::Linear;
                let seed_ms = SEED_SKIN.time_ms(skin).filter(|_| linear);
                let mut row = SkinRow {
                    variant: skin.name(),
                    method: method.name(),
                    simd: level.map(|l| l.label()),
                    timing: None,
                    ratio_to_naive: None,
                    ratio_to_linear: None,
                    seed_ms,
                    seed_ratio: SEED_SKIN.ratio(skin).filter(|_| linear),
                    stages_median_us: Vec::new(),
                    frames: 0,
                    refused: None,
                    round_medians: Vec::new(),
                };
                match ctx.pipeline(config) {
                    Err(FrameError::SkinRefused { reason, .. }) => row.refused = Some(reason),
                    Err(e) => return Err(e.into()),
                    Ok(p) => {
                        candidates.push(Candidate::new(
                            p,
                            level.unwrap_or(ctx.options.simd_levels[0]),
                            Stage::Skin,
                            metric,
                        )?);
                        bytes.push((n * stored_bytes(skin, method)) as f64);
                    }
                }
                rows.push(row);
            }
        }
    }
    ctx.announce(&format!("skin workload, {n} instances"), candidates.len());
    measure_interleaved(&mut candidates, &mut crowd, ctx.budget(), ctx.options.quick)?;
    let mut measured = candidates.iter().zip(bytes);
    let mut baseline: Option<f64> = None;
    for row in &mut rows {
        if row.refused.is_none() {
            let (c, bytes) = measured.next().expect("one candidate per accepted row");
            let s = c.stats(metric);
            row.timing = Some(Timing::of(
                &s,
                bytes,
                (n * vertices) as f64,
                ctx.bandwidth_for(1),
            ));
            row.ratio_to_naive = Some(*baseline.get_or_insert(s.median) / s.median);
            row.stages_median_us = c.stage_medians();
            row.frames = c.frames.len();
            row.round_medians = c.round_medians(metric);
        }
        ctx.progress(&row_line(row, n));
    }
    let linear: Vec<(&'static str, Option<&'static str>, Vec<f64>)> = rows
        .iter()
        .filter(|r| r.method == SkinMethod::Linear.name() && r.timing.is_some())
        .map(|r| (r.variant, r.simd, r.round_medians.clone()))
        .collect();
    for row in &mut rows {
        if row.method != SkinMethod::Linear.name() && row.timing.is_some() {
            row.ratio_to_linear = linear
                .iter()
                .find(|(v, simd, _)| (*v, *simd) == (row.variant, row.simd))
                .and_then(|(_, _, base)| SpreadRatio::of(&row.round_medians, base));
        }
    }
    let volumes = SkinMethod::ALL
        .iter()
        .filter_map(|&m| crate::skin::volume::worst_volume(&rig, m))
        .collect();
    Ok(SkinSection {
        instances: n,
        rows,
        volumes,
    })
}

fn row_line(row: &SkinRow, instances: usize) -> String {
    match (&row.refused, &row.timing) {
        (Some(reason), _) => format!(
            "skin {:<9} {:<9} refused: {reason}",
            row.variant, row.method
        ),
        (None, t) => format!(
            "skin {:<9} {:<9} {:<8} {:>5} inst 1 thr  median {:>9} µs  ×{} (seed ×{})  {} ns/vertex",
            row.variant,
            row.method,
            simd_label(row.simd),
            instances,
            opt(t.map(|t| t.median_us), 1),
            opt(row.ratio_to_naive, 2),
            opt(row.seed_ratio, 2),
            opt(t.map(|t| t.ns_per_item), 2),
        ),
    }
}

pub fn markdown(section: &SkinSection, s: &mut String) {
    let _ = writeln!(
        s,
        "## skin: {} instances, 1 thread (seed {}: {})\n",
        section.instances,
        SEED_SKIN.seed,
        SEED_SKIN.summary()
    );
    use Align::{Left, Right};
    let mut table = Table::new(&[
        ("variant", Left),
        ("method", Left),
        ("SIMD", Left),
        ("median µs", Right),
        ("p95 µs", Right),
        ("min µs", Right),
        ("× naive", Right),
        ("seed ms", Right),
        ("seed ×", Right),
        ("ns/vertex", Right),
        ("GB/s", Right),
        ("% store bw", Right),
    ]);
    for r in &section.rows {
        let leading = [
            r.variant.to_string(),
            r.method.to_string(),
            simd_label(r.simd).to_string(),
        ];
        if let Some(reason) = &r.refused {
            table.note_row(leading, &format!("refused: {reason}"));
            continue;
        }
        let t = r.timing;
        table.row(leading.into_iter().chain([
            opt(t.map(|t| t.median_us), 1),
            opt(t.map(|t| t.p95_us), 1),
            opt(t.map(|t| t.min_us), 1),
            ratio(r.ratio_to_naive),
            opt(r.seed_ms, 2),
            ratio(r.seed_ratio),
            opt(t.map(|t| t.ns_per_item), 2),
            opt(t.map(|t| t.gb_per_s), 2),
            opt(t.map(|t| t.store_bandwidth_percent), 1),
        ]));
    }
    table.write(s);
    let _ = writeln!(
        s,
        "\nmedian, p95, min µs = the skin stage alone per frame (one thread). × naive = \
         `naive`'s median over the row's. seed ms, seed × = the article's time for that step \
         and its speed-up over its first version (measured with {}: compare the ratios, not \
         the times). ns/vertex = the median over every character's every vertex. {}\n",
        SEED_SKIN.workload,
        super::measure::STORE_BANDWIDTH_NOTE
    );
    let mut any = false;
    for r in &section.rows {
        if let Some(ratio) = r.ratio_to_linear {
            any = true;
            let _ = writeln!(
                s,
                "- `{}` at {}: {} ns/vertex with {}, {} its linear blend's (the palette stage's conversion to dual quaternions is not in these figures; the frame's stage medians in the JSON hold it)",
                r.variant,
                simd_label(r.simd),
                opt(r.timing.map(|t| t.ns_per_item), 2),
                r.method,
                ratio.markdown(),
            );
        }
    }
    if any {
        let _ = writeln!(s);
    }
    if !section.volumes.is_empty() {
        let _ = writeln!(
            s,
            "Volume enclosed by the skinned surface at each method's worst pose ({} poses per clip, f64 oracle; every variant matches it within tolerance):",
            crate::skin::volume::SAMPLES
        );
        for v in &section.volumes {
            let _ = writeln!(
                s,
                "- {}: **{:.3}×** the bind pose's (clip `{}` at {:.2} s)",
                v.method, v.ratio, v.clip, v.time_secs
            );
        }
        let _ = writeln!(s);
    }
}
