//! Charts beside a report: one SVG per workload, drawn with plotters, linked from the
//! report's Markdown under its table.
//!
//! How it works: each workload's section becomes one chart of what its table compares:
//! `hierarchy` and `skin` a bar per variant (median µs; the hierarchy's palette stage as a
//! second bar), `frame` the frame's time per character against the thread count (one line
//! per instance count, schedule and variants), `gpu` the GPU's passes stacked per configuration (one
//! panel per instance count and shadow setting, each on its own scale) with the CPU's part
//! beside them, `crowd` the CPU's part of a frame with LOD off and on. Every chart names
//! the machine in its title; a CPU adapter's GPU times are marked as emulated. The SVG's
//! text is laid out with estimated glyph widths (no font is read), and a viewer draws it in
//! its own sans-serif face.

use plotters::prelude::*;

use super::Report;

/// One chart: the workload it shows and its SVG text.
pub struct Chart {
    pub workload: &'static str,
    pub svg: String,
}

/// Why a chart could not be drawn (plotters' drawing errors, as text).
#[derive(Debug, thiserror::Error)]
#[error("drawing the {workload} chart: {message}")]
pub struct ChartError {
    workload: &'static str,
    message: String,
}

const WIDTH: u32 = 960;
/// Height of one bar or legend row, pixels.
const ROW_PX: u32 = 22;
/// Room above and below a chart's bars: title, caption, axis.
const FRAME_PX: u32 = 110;

const COLORS: [RGBColor; 8] = [
    RGBColor(102, 170, 255),
    RGBColor(110, 210, 140),
    RGBColor(230, 200, 90),
    RGBColor(240, 120, 90),
    RGBColor(200, 120, 200),
    RGBColor(150, 150, 150),
    RGBColor(90, 200, 210),
    RGBColor(170, 120, 80),
];

/// A bar of a bar chart: its label and its segments (value, legend entry), stacked.
struct Bar {
    label: String,
    segments: Vec<(f64, usize)>,
}

/// Every chart `report` has data for.
pub fn charts(report: &Report) -> Result<Vec<Chart>, ChartError> {
    let machine = format!(
        "{}, {} threads{}",
        report.machine.cpu_line(),
        report.machine.cores,
        if report.quick {
            " — a --quick run: few frames, noisy"
        } else {
            ""
        }
    );
    let mut out = Vec::new();
    let mut add = |workload: &'static str, svg: Result<String, String>| match svg {
        Ok(svg) => {
            out.push(Chart { workload, svg });
            Ok(())
        }
        Err(message) => Err(ChartError { workload, message }),
    };
    if let Some(h) = &report.hierarchy {
        let bars: Vec<Bar> = h
            .rows
            .iter()
            .filter_map(|r| {
                let t = r.timing?;
                let mut segments = vec![(t.median_us, 0)];
                if let Some(with) = r.with_palette_median_us {
                    segments.push(((with - t.median_us).max(0.0), 1));
                }
                Some(Bar {
                    label: format!("{} ({})", r.variant, r.simd.unwrap_or("scalar")),
                    segments,
                })
            })
            .collect();
        add(
            "hierarchy",
            bar_chart(
                &format!(
                    "hierarchy: {} characters, one thread — {machine}",
                    h.instances
                ),
                "median µs per frame (shorter is faster)",
                &["hierarchy", "+ palette"],
                &[bars],
                &[String::new()],
            ),
        )?;
    }
    if let Some(s) = &report.skin {
        let bars: Vec<Bar> = s
            .rows
            .iter()
            .filter_map(|r| {
                Some(Bar {
                    label: format!(
                        "{} {} ({})",
                        r.variant,
                        r.method,
                        r.simd.unwrap_or("scalar")
                    ),
                    segments: vec![(r.timing?.median_us, 0)],
                })
            })
            .collect();
        add(
            "skin",
            bar_chart(
                &format!("skin: {} characters, one thread — {machine}", s.instances),
                "median µs per frame (shorter is faster)",
                &["skin"],
                &[bars],
                &[String::new()],
            ),
        )?;
    }
    if let Some(f) = &report.frame {
        // Per character, so crowds of different sizes share the scale.
        let mut series: Vec<(String, Vec<(i32, f64)>)> = Vec::new();
        for r in &f.rows {
            let name = format!(
                "{} characters, {}, {} / {}, {}",
                r.instances, r.schedule, r.hierarchy, r.skin, r.simd
            );
            let point = (
                r.threads.min(i32::MAX as usize) as i32,
                r.timing.median_us / r.instances.max(1) as f64,
            );
            match series.iter_mut().find(|(n, _)| *n == name) {
                Some((_, points)) => points.push(point),
                None => series.push((name, vec![point])),
            }
        }
        add(
            "frame",
            line_chart(
                &format!("frame: the whole CPU frame against threads — {machine}"),
                "threads",
                "median µs per character and frame",
                &series,
            ),
        )?;
    }
    if let Some(g) = &report.gpu {
        use crate::gpu::GpuPass;
        use crate::variant::Variant;
        let passes: Vec<&str> = GpuPass::ALL.iter().map(|p| p.row()).collect();
        let mut panels: Vec<Vec<Bar>> = Vec::new();
        let mut captions = Vec::new();
        for r in &g.rows {
            let caption = format!(
                "{} characters, shadows {}",
                r.instances,
                if r.shadows { "on" } else { "off" }
            );
            if captions.last() != Some(&caption) {
                captions.push(caption);
                panels.push(Vec::new());
            }
            let mut segments: Vec<(f64, usize)> = GpuPass::ALL
                .iter()
                .filter_map(|&pass| r.passes.get(pass).map(|v| (v, pass.index())))
                .collect();
            // The CPU's part of the same frame, as its own bar below.
            let cpu = Bar {
                label: "  its CPU part".into(),
                segments: vec![(r.cpu_total_us + r.encode_us, passes.len())],
            };
            if segments.is_empty() {
                segments.push((0.0, 0));
            }
            let panel = panels.last_mut().expect("a panel per caption");
            panel.push(Bar {
                label: r.config.clone(),
                segments,
            });
            panel.push(cpu);
        }
        let emulated = if g.cpu_adapter {
            " (a CPU emulation: its GPU times are not GPU speed)"
        } else {
            ""
        };
        let mut legend: Vec<&str> = passes.clone();
        legend.push("CPU: stages, upload, encode");
        add(
            "gpu",
            bar_chart(
                &format!("gpu: {}{emulated} — {machine}", g.adapter),
                "median µs per frame: GPU passes stacked, the CPU's part below each",
                &legend,
                &panels,
                &captions,
            ),
        )?;
    }
    if let Some(c) = &report.crowd {
        let bars: Vec<Bar> = c
            .rows
            .iter()
            .map(|r| Bar {
                label: format!(
                    "LOD {}{} ({} camera, {} thread{})",
                    if r.lod { "on" } else { "off" },
                    if r.mesh_lod { ", mesh LOD" } else { "" },
                    r.camera,
                    r.threads,
                    if r.threads == 1 { "" } else { "s" }
                ),
                segments: vec![(r.plan_us, 0), (r.cpu_stages_us, 1), (r.upload_us, 2)],
            })
            .collect();
        add(
            "crowd",
            bar_chart(
                &format!("crowd: {} characters — {machine}", c.instances),
                "median µs of the CPU's part of a frame",
                &["LOD plan", "pipeline", "upload"],
                &[bars],
                &[String::new()],
            ),
        )?;
    }
    Ok(out)
}

fn text(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&BLACK)
}

/// Horizontal stacked bars, one panel per group of `panels` (each on its own scale, its
/// caption above it), and a legend of `legend`'s entries that occur.
fn bar_chart(
    title: &str,
    x_label: &str,
    legend: &[&str],
    panels: &[Vec<Bar>],
    captions: &[String],
) -> Result<String, String> {
    let used: Vec<usize> = (0..legend.len())
        .filter(|k| {
            panels
                .iter()
                .flatten()
                .any(|b| b.segments.iter().any(|(_, s)| s == k))
        })
        .collect();
    let legend_rows = used.len().div_ceil(4) as u32;
    let panel_heights: Vec<u32> = panels
        .iter()
        .map(|p| p.len() as u32 * ROW_PX + 70)
        .collect();
    let height = 50 + legend_rows * ROW_PX + panel_heights.iter().sum::<u32>().max(FRAME_PX);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        root.draw(&Text::new(title.to_string(), (12, 10), text(16)))
            .map_err(|e| e.to_string())?;
        for (i, &k) in used.iter().enumerate() {
            let (col, row) = (i % 4, i / 4);
            let x = 12 + col as i32 * 230;
            let y = 36 + row as i32 * ROW_PX as i32;
            root.draw(&Rectangle::new(
                [(x, y), (x + 14, y + 14)],
                COLORS[k % COLORS.len()].filled(),
            ))
            .map_err(|e| e.to_string())?;
            root.draw(&Text::new(legend[k].to_string(), (x + 20, y), text(13)))
                .map_err(|e| e.to_string())?;
        }
        let top = 50 + legend_rows * ROW_PX;
        let (_, rest) = root.split_vertically(top);
        let mut area = rest;
        for ((panel, caption), &h) in panels.iter().zip(captions).zip(&panel_heights) {
            if panel.is_empty() {
                continue;
            }
            let (this, below) = area.split_vertically(h);
            area = below;
            let max = panel
                .iter()
                .map(|b| b.segments.iter().map(|(v, _)| v.max(0.0)).sum::<f64>())
                .fold(0.0f64, f64::max)
                .max(1e-3)
                * 1.08;
            let labels: Vec<String> = panel.iter().map(|b| b.label.clone()).collect();
            let rows = panel.len() as i32;
            let mut chart = ChartBuilder::on(&this)
                .caption(caption, text(14))
                .margin(8)
                .x_label_area_size(32)
                .y_label_area_size(390)
                // plotters' segments include the range's end: rows - 1 is the top bar.
                .build_cartesian_2d(0f64..max, (0i32..rows - 1).into_segmented())
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(panel.len())
                .y_label_formatter(&|y| match y {
                    // Row `y` from the bottom: the first bar is on top.
                    SegmentValue::CenterOf(y) => labels
                        .get((rows - 1 - *y).max(0) as usize)
                        .cloned()
                        .unwrap_or_default(),
                    _ => String::new(),
                })
                .y_label_style(text(12))
                .x_desc(x_label)
                .x_label_style(text(12))
                .draw()
                .map_err(|e| e.to_string())?;
            for (i, bar) in panel.iter().enumerate() {
                // The first bar on top.
                let y = (panel.len() - 1 - i) as i32;
                let mut from = 0.0;
                for &(value, k) in &bar.segments {
                    let to = from + value.max(0.0);
                    chart
                        .draw_series(std::iter::once(Rectangle::new(
                            [
                                (from, SegmentValue::Exact(y)),
                                (to, SegmentValue::Exact(y + 1)),
                            ],
                            COLORS[k % COLORS.len()].filled(),
                        )))
                        .map_err(|e| e.to_string())?;
                    from = to;
                }
                chart
                    .draw_series(std::iter::once(Text::new(
                        format!(" {from:.0}"),
                        (from, SegmentValue::CenterOf(y)),
                        text(11),
                    )))
                    .map_err(|e| e.to_string())?;
            }
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// Lines of (x, y) points, one per series, with a legend.
fn line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(i32, f64)>)],
) -> Result<String, String> {
    let height = 420 + series.len() as u32 * ROW_PX;
    let (x_max, y_max) = series
        .iter()
        .flat_map(|(_, p)| p.iter())
        .fold((1i32, 1e-3f64), |(x, y), &(px, py)| (x.max(px), y.max(py)));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, text(16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            // Room above the lines for the legend, a row per series.
            .build_cartesian_2d(
                0i32..x_max + 1,
                0f64..y_max * (1.15 + 0.07 * series.len() as f64),
            )
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .x_labels(x_max as usize + 2)
            .label_style(text(12))
            .draw()
            .map_err(|e| e.to_string())?;
        for (k, (name, points)) in series.iter().enumerate() {
            let color = COLORS[k % COLORS.len()];
            let mut points = points.clone();
            points.sort_by_key(|p| p.0);
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(|e| e.to_string())?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font(text(12))
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}
