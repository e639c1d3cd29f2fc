//! The `frame` workload: the whole CPU frame (sample → skin) with the best variants at
//! each SIMD level, at 100 and 1,000 instances, 1..N threads, both schedules; with N
//! threads also the GPU variants' CPU part (sample → palettes laid out for the GPU).

use super::table::{Align, Table};
use std::fmt::Write as _;

use serde::Serialize;

use super::measure::{Candidate, SpreadRatio, Timing, measure_interleaved, opt, ratio, simd_label};
use super::{BenchError, Context};
use crate::crowd::{InstanceStore, PipelineConfig, Schedule, Stage, StageTimings};
use crate::simd::with_level;
use crate::skin::SkinVariant;
use crate::variant::Variant;

/// One configuration of the whole frame.
#[derive(Clone, Debug, Serialize)]
pub struct FrameRow {
    pub instances: usize,
    pub threads: usize,
    pub schedule: &'static str,
    pub simd: &'static str,
    pub hierarchy: &'static str,
    pub skin: &'static str,
    pub method: &'static str,
    /// The pipeline's wall time; for a GPU skin variant no ns per vertex (the GPU skins).
    pub timing: Timing,
    /// The first row's median over this one.
    pub ratio_to_first: f64,
    /// The 1-thread median of the same schedule and level over this one.
    pub ratio_to_one_thread: Option<f64>,
    /// A GPU skin variant's CPU part: this median over the best CPU variant's at the same
    /// threads, schedule and level, with its spread over the interleaved rounds.
    pub ratio_to_best_cpu: Option<SpreadRatio>,
    pub stages_median_us: Vec<(String, f64)>,
    pub frames: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct FrameSection {
    pub rows: Vec<FrameRow>,
}

fn metric(t: &StageTimings) -> f64 {
    t.cpu_pipeline_us
}

pub fn run(ctx: &mut Context) -> Result<FrameSection, BenchError> {
    let rig = ctx.rig.clone();
    let vertices = rig.vertex_count();
    let counts = match ctx.options.instances {
        Some(n) => vec![n],
        None => vec![100, 1000],
    };
    let stored_bytes = |config: &PipelineConfig| {
        let layout = config.skin.layout(&rig, config.method);
        layout.stored_vertices() * layout.vertex_size()
    };
    let mut rows = Vec::new();
    // Thread scaling: one interleaved set per instance count.
    for n in counts {
        let mut crowd = InstanceStore::new();
        crowd.resize_mixed(n, &rig, &ctx.clip_mix.clips, [2.0; 2]);
        let mut set = Vec::new();
        let mut configs = Vec::new();
        for &level in &ctx.options.simd_levels {
            let thread_counts = ctx.options.frame_thread_counts();
            let most = thread_counts.last().copied().unwrap_or(1);
            for threads in thread_counts {
                for &schedule in Schedule::ALL {
                    // The best variants at this level (the scalar ones where it is
                    // portable).
                    let config = PipelineConfig {
                        schedule,
                        ..with_level(Some(level), || PipelineConfig::best_for(&rig, threads))
                    };
                    configs.push((config, level));
                    set.push(Candidate::new(
                        ctx.pipeline(config)?,
                        level,
                        Stage::Skin,
                        metric,
                    )?);
                    // With every thread: the GPU variants' CPU part beside the best CPU
                    // frame. Every GPU variant shares it (the same palette layout and
                    // output format), so the first one stands for them all.
                    if threads == most
                        && let Some(&gpu) = SkinVariant::ALL.iter().find(|s| !s.skins_on_cpu())
                    {
                        let config = PipelineConfig {
                            skin: gpu,
                            ..config
                        };
                        configs.push((config, level));
                        set.push(Candidate::new(
                            ctx.pipeline(config)?,
                            level,
                            Stage::Skin,
                            metric,
                        )?);
                    }
                }
            }
        }
        ctx.announce(&format!("frame workload, {n} instances"), set.len());
        measure_interleaved(&mut set, &mut crowd, ctx.budget(), ctx.options.quick)?;
        let medians: Vec<f64> = set.iter().map(|c| c.stats(metric).median).collect();
        let first = medians[0];
        let median_of = |want: &dyn Fn(&PipelineConfig, &crate::simd::SimdLevel) -> bool| {
            configs
                .iter()
                .zip(&medians)
                .find(|((c, l), _)| want(c, l))
                .map(|(_, m)| *m)
        };
        let mut set_rows = Vec::new();
        for (((config, level), c), &median) in configs.iter().zip(&set).zip(&medians) {
            let s = c.stats(metric);
            let mut timing = Timing::of(
                &s,
                (n * stored_bytes(config)) as f64,
                (n * vertices) as f64,
                ctx.bandwidth_for(config.threads),
            );
            let on_cpu = config.skin.skins_on_cpu();
            if !on_cpu {
                // The GPU skins: no CPU time per vertex to speak of.
                timing.ns_per_item = f64::NAN;
            }
            let one_thread = median_of(&|other, l| {
                l == level
                    && other.threads == 1
                    && other.schedule == config.schedule
                    && other.skin == config.skin
            });
            // The best CPU variant's candidate, for the ratio with its spread.
            let best_cpu = (!on_cpu)
                .then(|| {
                    configs.iter().zip(&set).find(|((other, l), _)| {
                        l == level
                            && other.skin.skins_on_cpu()
                            && other.schedule == config.schedule
                            && other.threads == config.threads
                    })
                })
                .flatten()
                .and_then(|(_, best)| {
                    SpreadRatio::of(&c.round_medians(metric), &best.round_medians(metric))
                });
            let row = FrameRow {
                instances: n,
                threads: config.threads,
                schedule: config.schedule.name(),
                simd: level.label(),
                hierarchy: config.hierarchy.name(),
                skin: config.skin.name(),
                method: config.method.name(),
                timing,
                ratio_to_first: first / median,
                ratio_to_one_thread: one_thread.map(|one| one / median),
                ratio_to_best_cpu: best_cpu,
                stages_median_us: c.stage_medians(),
                frames: c.frames.len(),
            };
            ctx.progress(&row_line(&row));
            set_rows.push(row);
        }
        rows.extend(set_rows);
    }
    Ok(FrameSection { rows })
}

fn row_line(r: &FrameRow) -> String {
    format!(
        "frame {:<9} {:<9} {:<8} {:>5} inst {} thr {:<6}  median {:>9.1} µs  ×{:.2}  {} ns/vertex",
        r.skin,
        r.method,
        r.simd,
        r.instances,
        r.threads,
        r.schedule,
        r.timing.median_us,
        r.ratio_to_first,
        opt(Some(r.timing.ns_per_item).filter(|v| v.is_finite()), 2),
    )
}

pub fn markdown(section: &FrameSection, s: &mut String) {
    let Some(first) = section.rows.first() else {
        return;
    };
    let _ = writeln!(
        s,
        "## frame: sample → skin with the best variants at each SIMD level (first: {} hierarchy, {} skin)\n",
        first.hierarchy, first.skin
    );
    use Align::{Left, Right};
    let mut table = Table::new(&[
        ("instances", Right),
        ("threads", Right),
        ("schedule", Left),
        ("SIMD", Left),
        ("hierarchy, skin", Left),
        ("median µs", Right),
        ("p95 µs", Right),
        ("min µs", Right),
        ("× first row", Right),
        ("× 1 thread same schedule and level", Right),
        ("ns/vertex", Right),
        ("GB/s", Right),
        ("% store bw", Right),
        ("stages (median µs per thread)", Left),
    ]);
    for r in &section.rows {
        let stages: Vec<String> = r
            .stages_median_us
            .iter()
            .map(|(n, v)| format!("{n} {v:.0}"))
            .collect();
        let t = r.timing;
        table.row([
            r.instances.to_string(),
            r.threads.to_string(),
            r.schedule.to_string(),
            simd_label(Some(r.simd)).to_string(),
            format!("{}, {}", r.hierarchy, r.skin),
            format!("{:.1}", t.median_us),
            format!("{:.1}", t.p95_us),
            format!("{:.1}", t.min_us),
            ratio(Some(r.ratio_to_first)),
            ratio(r.ratio_to_one_thread),
            opt(Some(t.ns_per_item).filter(|v| v.is_finite()), 2),
            format!("{:.2}", t.gb_per_s),
            format!("{:.1}", t.store_bandwidth_percent),
            stages.join(", "),
        ]);
    }
    table.write(s);
    let _ = writeln!(
        s,
        "\nmedian, p95, min µs = the whole CPU frame (sample → skin) per frame, wall time. × \
         first row = the first row's median over this one's. × 1 thread = the same schedule \
         and SIMD level on one thread over this row (thread scaling). ns/vertex = the median \
         over every character's every vertex. stages = each stage's median, per thread. {}\n",
        super::measure::STORE_BANDWIDTH_NOTE
    );
    let mut any = false;
    for r in &section.rows {
        if let Some(ratio) = r.ratio_to_best_cpu {
            any = true;
            let _ = writeln!(
                s,
                "- {} instances, {} threads, {}: `{}`'s CPU part (sample → palettes laid out for the GPU, which skins) takes {:.0} µs (min {:.0} µs), {} the best CPU variant's frame in the same run (no upload in this workload; `bench --workload gpu` adds it){}.",
                r.instances,
                r.threads,
                r.schedule,
                r.skin,
                r.timing.median_us,
                r.timing.min_us,
                ratio.markdown(),
                if ratio.overlaps {
                    "; the two rows' rounds overlap, so this is no clear difference"
                } else {
                    ""
                },
            );
        }
    }
    if any {
        let _ = writeln!(s);
    }
}
