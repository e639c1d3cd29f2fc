//! The `hierarchy` workload: every hierarchy variant's stage alone, and with the palette
//! stage added (the variants hand over different representations), 1,000 instances on
//! one thread, beside the times published in Stefan Reinalter's "Adventures in data-oriented design – Part 2: Hierarchical data"
//! (the reports call it "seed 000").

use std::fmt::Write as _;

use serde::Serialize;

use super::measure::{Candidate, Timing, measure_interleaved, opt, ratio, simd_label};
use super::table::{Align, Table};
use super::{BenchError, Context, SEED_HIERARCHY};
use crate::anim::hierarchy::{HierarchyVariant, ModelLayout};
use crate::anim::palette::PaletteLayout;
use crate::crowd::{FrameError, InstanceStore, Stage, StageTimings};
use crate::skin::SkinVariant;
use crate::types::LANES;
use crate::variant::Variant;

/// One hierarchy variant at one SIMD level.
#[derive(Clone, Debug, Serialize)]
pub struct HierarchyRow {
    pub variant: &'static str,
    /// The level its lane kernels ran at; `None` for a scalar variant.
    pub simd: Option<&'static str>,
    pub timing: Option<Timing>,
    /// `tree`'s median over this one (a speed-up).
    pub ratio_to_tree: Option<f64>,
    /// The article's published time and speed-up, where it has one.
    pub seed_ms: Option<f64>,
    pub seed_ratio: Option<f64>,
    /// Hierarchy + palette, median µs, and `tree`'s over it.
    pub with_palette_median_us: Option<f64>,
    pub with_palette_ratio_to_tree: Option<f64>,
    pub stages_median_us: Vec<(String, f64)>,
    pub frames: usize,
    /// Why the variant refused the rig (then there are no timings).
    pub refused: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct HierarchySection {
    pub instances: usize,
    pub rows: Vec<HierarchyRow>,
}

fn metric(t: &StageTimings) -> f64 {
    t.get(Stage::Hierarchy)
}

pub fn run(ctx: &mut Context) -> Result<HierarchySection, BenchError> {
    let rig = ctx.rig.clone();
    let n = ctx.options.instances.unwrap_or(1000);
    let mut crowd = InstanceStore::new();
    crowd.resize_mixed(n, &rig, &ctx.clip_mix.clips, [2.0; 2]);
    let joints = rig.joint_count();
    let mut rows = Vec::new();
    let mut candidates = Vec::new();
    for &h in HierarchyVariant::ALL {
        // The palette layout the variant naturally feeds: lanes for a lane hierarchy,
        // else the 3×4 rows; the first skin variant that reads it.
        let palette = if h.spec().lanes == LANES {
            PaletteLayout::Lanes
        } else {
            PaletteLayout::Mat3x4
        };
        let Some(&skin) = SkinVariant::ALL
            .iter()
            .find(|s| s.palette_layout() == palette)
        else {
            continue;
        };
        for level in ctx.levels_for(h.spec().lanes) {
            let seed_ms = SEED_HIERARCHY.time_ms(h);
            let mut row = HierarchyRow {
                variant: h.name(),
                simd: level.map(|l| l.label()),
                timing: None,
                ratio_to_tree: None,
                seed_ms,
                seed_ratio: SEED_HIERARCHY.ratio(h),
                with_palette_median_us: None,
                with_palette_ratio_to_tree: None,
                stages_median_us: Vec::new(),
                frames: 0,
                refused: None,
            };
            match ctx.pipeline(Context::single(h, skin)) {
                Err(FrameError::Refused { reason, .. }) => row.refused = Some(reason),
                Err(e) => return Err(e.into()),
                Ok(p) => candidates.push(Candidate::new(
                    p,
                    level.unwrap_or(ctx.options.simd_levels[0]),
                    Stage::Palette,
                    metric,
                )?),
            }
            rows.push(row);
        }
    }
    ctx.announce(
        &format!("hierarchy workload, {n} instances"),
        candidates.len(),
    );
    measure_interleaved(&mut candidates, &mut crowd, ctx.budget(), ctx.options.quick)?;
    let mut measured = candidates.iter();
    let mut baseline: Option<(f64, f64)> = None;
    for row in &mut rows {
        if row.refused.is_none() {
            let c = measured.next().expect("one candidate per accepted row");
            let s = c.stats(metric);
            let h = HierarchyVariant::from_name(row.variant).expect("a declared variant");
            let model_bytes = match h.layout() {
                ModelLayout::Tree => 128.0,
                ModelLayout::Mat4 => 64.0,
                ModelLayout::Qvs | ModelLayout::Lanes => 48.0,
            };
            row.timing = Some(Timing::of(
                &s,
                (n * joints) as f64 * model_bytes,
                (n * joints) as f64,
                ctx.bandwidth_for(1),
            ));
            let with_palette = c
                .stats(|t| t.get(Stage::Hierarchy) + t.get(Stage::Palette))
                .median;
            row.with_palette_median_us = Some(with_palette);
            let base = *baseline.get_or_insert((s.median, with_palette));
            row.ratio_to_tree = Some(base.0 / s.median);
            row.with_palette_ratio_to_tree = Some(base.1 / with_palette);
            row.stages_median_us = c.stage_medians();
            row.frames = c.frames.len();
        }
        ctx.progress(&row_line(row, n));
    }
    Ok(HierarchySection { instances: n, rows })
}

fn row_line(row: &HierarchyRow, instances: usize) -> String {
    match (&row.refused, &row.timing) {
        (Some(reason), _) => format!("hierarchy {:<9} refused: {reason}", row.variant),
        (None, t) => format!(
            "hierarchy {:<9} {:<8} {:>5} inst 1 thr  median {:>9} µs  ×{} (seed ×{})  {} ns/joint",
            row.variant,
            simd_label(row.simd),
            instances,
            opt(t.map(|t| t.median_us), 1),
            opt(row.ratio_to_tree, 2),
            opt(row.seed_ratio, 2),
            opt(t.map(|t| t.ns_per_item), 2),
        ),
    }
}

pub fn markdown(section: &HierarchySection, s: &mut String) {
    let _ = writeln!(
        s,
        "## hierarchy: {} instances, 1 thread (seed {}: {})\n",
        section.instances,
        SEED_HIERARCHY.seed,
        SEED_HIERARCHY.summary()
    );
    use Align::{Left, Right};
    let mut table = Table::new(&[
        ("variant", Left),
        ("SIMD", Left),
        ("median µs", Right),
        ("p95 µs", Right),
        ("min µs", Right),
        ("× tree", Right),
        ("seed ×", Right),
        ("ns/joint", Right),
        ("+ palette µs", Right),
        ("× tree with palette", Right),
        ("GB/s", Right),
        ("% store bw", Right),
    ]);
    for r in &section.rows {
        let leading = [r.variant.to_string(), simd_label(r.simd).to_string()];
        if let Some(reason) = &r.refused {
            table.note_row(leading, &format!("refused: {reason}"));
            continue;
        }
        let t = r.timing;
        table.row(leading.into_iter().chain([
            opt(t.map(|t| t.median_us), 1),
            opt(t.map(|t| t.p95_us), 1),
            opt(t.map(|t| t.min_us), 1),
            ratio(r.ratio_to_tree),
            ratio(r.seed_ratio),
            opt(t.map(|t| t.ns_per_item), 2),
            opt(r.with_palette_median_us, 1),
            ratio(r.with_palette_ratio_to_tree),
            opt(t.map(|t| t.gb_per_s), 2),
            opt(t.map(|t| t.store_bandwidth_percent), 1),
        ]));
    }
    table.write(s);
    let _ = writeln!(
        s,
        "\nmedian, p95, min µs = the hierarchy stage alone per frame, over the frames measured \
         (one thread). × tree = `tree`'s median over the row's (a speed-up). seed × = the \
         article's own speed-up for that step (its times, {}: {}). ns/joint = the median \
         over every character's every joint. + palette µs = the hierarchy and palette \
         stages together (variants hand the palette different representations, so \
         this is the fair comparison); × tree with palette = the same speed-up for both. {}\n",
        SEED_HIERARCHY.workload,
        SEED_HIERARCHY.summary(),
        super::measure::STORE_BANDWIDTH_NOTE
    );
}
