//! The window and its egui panel over the headless [`Scene`]: settings, per-stage timings,
//! history plot, verify and screenshot.
//!
//! How it works: [`Settings`] is what the user can change (the pipeline configuration
//! itself, plus the upload, the crowd and the view); the [`Scene`] compares it with the
//! running configuration every frame and applies the difference (a refused variant is
//! reverted and the reason shown). The panel is a few small `*_ui` functions that draw the
//! scene's [`PanelReadings`] (taken once a frame, the same value a screenshot's sidecar
//! writes) and return the actions the user asked for; [`apply_actions`] hands them to the
//! scene. The window ([`app`]) adds the surface, input and this panel; the panel tests
//! drive the same functions over a headless scene.

pub mod app;
mod loading;
pub mod profiler;
pub mod soak;
mod window;

use egui::{Color32, RichText};
use egui_plot::{FilledArea, Plot};

use crate::anim::hierarchy::HierarchyVariant;
use crate::crowd::AnimateDevice;
use crate::crowd::lod::{LodSettings, PERIODS};
use crate::crowd::mix::{ClipChoice, ClipMix, ClipSummary};
use crate::crowd::verify::FrameDeviation;
use crate::crowd::{Stage, TimingHistory};
use crate::gpu::BaseColors;
use crate::gpu::context::AdapterSummary;
pub use crate::gpu::scene::{MAX_INSTANCES, PanelReadings, Scene, Settings};
use crate::machine::Machine;
use crate::simd::SimdLevel;
use crate::skin::pool::{PoolShare, PoolSize};
use crate::skin::{SkinDevice, SkinMethod, SkinVariant};
use crate::variant::Variant;

/// The panel over `scene`, the frame's readings taken once for it (and kept for a
/// screenshot's sidecar); returns the actions the user asked for.
pub fn scene_panel_ui(ui: &mut egui::Ui, scene: &mut Scene, present_mode: &str) -> Vec<UiAction> {
    scene.take_readings();
    let rig = scene.rig().clone();
    let info = PanelInfo {
        adapter: &scene.gpu().summary,
        machine: scene.machine(),
        rig_name: &rig.name,
        rig_line: rig.summary.character_line(),
        max_instances: scene.max_instances(),
        refusals: scene.hierarchy_refusals(),
        skin_refusals: scene
            .rig_skin_refusals()
            .variants(scene.settings().pipeline.method),
        method_refusals: scene
            .rig_skin_refusals()
            .methods(scene.settings().pipeline.skin),
        readings: scene.shown(),
        verify: scene.last_verify(),
        screenshot: scene.last_screenshot(),
        profiler: scene.last_profiler(),
        notes: scene.notes(),
        present_mode: present_mode.to_string(),
        indirect_supported: scene.indirect_supported(),
        has_materials: scene.has_materials(),
        draw_commands: scene.draw_commands(),
        clips: &scene.clip_survey().clips,
        clip_mix: scene.clip_mix(),
    };
    // The panel edits a copy; the scene takes it as its new settings (the one way in).
    let mut settings = scene.settings().clone();
    let actions = panel_ui(ui, &mut settings, &info, scene.history());
    *scene.settings_mut() = settings;
    actions
}

/// The panel as the window lays it out: resizable, on the right of `ui` (the whole
/// window). Returns the actions asked for and the panel's left edge, points.
pub fn side_panel_ui(
    ui: &mut egui::Ui,
    scene: &mut Scene,
    present_mode: &str,
) -> (Vec<UiAction>, f32) {
    let mut actions = Vec::new();
    let panel = egui::Panel::right("panel")
        .resizable(true)
        .default_size(440.0)
        .show(ui, |ui| actions = scene_panel_ui(ui, scene, present_mode));
    (actions, panel.response.rect.left())
}

/// Hands the panel's actions to the scene: verify and screenshot at the end of the frame,
/// the view reset at once.
pub fn apply_actions(scene: &mut Scene, actions: &[UiAction]) {
    for action in actions {
        match action {
            UiAction::Verify => scene.request_verify(),
            UiAction::Screenshot => scene.request_screenshot(),
            UiAction::ResetCamera => scene.reset_camera(),
            UiAction::Profiler => {
                scene.set_last_profiler(profiler::start().map_err(|e| e.to_string()))
            }
        }
    }
}

/// What the user asked for this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UiAction {
    Screenshot,
    Verify,
    ResetCamera,
    /// Open the timeline profiler (`--profiler`).
    Profiler,
}

/// Read-only facts the panel shows.
pub struct PanelInfo<'a> {
    pub adapter: &'a AdapterSummary,
    pub machine: &'a Machine,
    pub rig_name: &'a str,
    pub rig_line: String,
    pub max_instances: usize,
    pub refusals: &'a [(HierarchyVariant, String)],
    /// The skin variants this adapter cannot run, and why.
    pub skin_refusals: &'a [(SkinVariant, String)],
    /// The skinning methods the chosen skin variant cannot run on this rig, and why.
    pub method_refusals: &'a [(SkinMethod, String)],
    /// The numbers the panel shows this frame (`None` before the first frame).
    pub readings: Option<&'a PanelReadings>,
    pub verify: Option<&'a Result<FrameDeviation, String>>,
    pub screenshot: Option<&'a Result<String, String>>,
    /// What the profiler button (or `--profiler`) gave: where puffin serves, or why not.
    pub profiler: Option<&'a Result<String, String>>,
    pub notes: &'a [String],
    pub present_mode: String,
    /// The adapter draws indirectly with a first instance.
    pub indirect_supported: bool,
    /// The rig's file gives materials of its own (the built-in rigs' names none).
    pub has_materials: bool,
    /// Character draw commands the last frame recorded: main pass, shadow pass.
    pub draw_commands: [usize; 2],
    /// Every clip of the rig as surveyed at load.
    pub clips: &'a [ClipSummary],
    /// The clips the crowd is dealt and its spacing.
    pub clip_mix: &'a ClipMix,
}

/// Colours of the stages in the table and the plot.
pub fn stage_color(stage: Stage) -> Color32 {
    match stage {
        Stage::Sample => Color32::from_rgb(102, 170, 255),
        Stage::Blend => Color32::from_rgb(160, 130, 255),
        Stage::Hierarchy => Color32::from_rgb(110, 210, 140),
        Stage::Palette => Color32::from_rgb(230, 200, 90),
        Stage::Skin => Color32::from_rgb(240, 120, 90),
        Stage::Upload => Color32::from_rgb(200, 120, 200),
        Stage::Render => Color32::from_rgb(150, 150, 150),
    }
}

/// The variant boxes' width: two of them with their stage names fit a row of the panel.
const VARIANT_COMBO_WIDTH: f32 = 96.0;

fn variant_combo<V: Variant>(ui: &mut egui::Ui, value: &mut V, disabled: &[(V, String)]) {
    egui::ComboBox::from_label(V::STAGE)
        .selected_text(value.name())
        .width(VARIANT_COMBO_WIDTH)
        .show_ui(ui, |ui| {
            for &v in V::ALL {
                match disabled.iter().find(|(d, _)| *d == v) {
                    Some((_, reason)) => {
                        ui.add_enabled(false, egui::Button::selectable(false, v.name()))
                            .on_disabled_hover_text(format!("refused: {reason}"));
                    }
                    None => {
                        ui.selectable_value(value, v, v.name())
                            .on_hover_text(v.description());
                    }
                }
            }
        })
        .response
        .on_hover_text(value.description());
}

/// The panel. Returns the actions requested this frame. The actions (verify, screenshot,
/// reset) and the key hints stay at the bottom, always in view; everything else scrolls
/// above them, in sections that fold.
pub fn panel_ui(
    ui: &mut egui::Ui,
    settings: &mut Settings,
    info: &PanelInfo,
    history: &TimingHistory,
) -> Vec<UiAction> {
    let mut actions = Vec::new();
    ui.with_layout(egui::Layout::bottom_up(egui::Align::Min), |ui| {
        ui.label(
            RichText::new(
                "drag: orbit · wheel: zoom · R: reset · H: hide panel · Space: pause · F12: screenshot · Esc: quit",
            )
            .small(),
        );
        actions = actions_ui(ui, info);
        ui.separator();
        ui.with_layout(egui::Layout::top_down(egui::Align::Min), |ui| {
            // A solid bar, always drawn: egui's default floats over the content and shows
            // only while hovered, so nothing said the panel scrolls.
            ui.style_mut().spacing.scroll = egui::style::ScrollStyle::solid();
            egui::ScrollArea::vertical()
                .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    header_ui(ui, info);
                    egui::CollapsingHeader::new(RichText::new("Variants").strong())
                        .default_open(true)
                        .show(ui, |ui| variants_ui(ui, settings, info));
                    egui::CollapsingHeader::new(RichText::new("Crowd").strong())
                        .default_open(true)
                        .show(ui, |ui| crowd_ui(ui, settings, info));
                    let caption = info
                        .readings
                        .map_or("Timings".to_string(), PanelReadings::span_line);
                    egui::CollapsingHeader::new(RichText::new(caption).strong())
                        .id_salt("timings")
                        .default_open(true)
                        .show(ui, |ui| timings_ui(ui, info, history));
                });
        });
    });
    actions
}

/// Frame rate, adapter, CPU and rig.
fn header_ui(ui: &mut egui::Ui, info: &PanelInfo) {
    ui.heading("skinbench");
    if let Some(r) = info.readings {
        ui.label(r.frame_line(&info.present_mode));
    }
    ui.label(format!(
        "GPU: {} ({}, {})",
        info.adapter.name, info.adapter.backend, info.adapter.device_type
    ));
    ui.label(format!(
        "CPU: {} — {} threads, best: {}",
        info.machine.cpu_line(),
        info.machine.cores,
        info.machine.simd
    ));
    ui.label(format!("rig: {} — {}", info.rig_name, info.rig_line));
}

/// The variant combo boxes, two a row (the panel fits the window's height with the timings
/// in view), and the refusals.
fn variants_ui(ui: &mut egui::Ui, settings: &mut Settings, info: &PanelInfo) {
    let animate_refusals: Vec<(AnimateDevice, String)> = AnimateDevice::ALL
        .iter()
        .filter_map(|&d| Some((d, d.refusal(settings.pipeline.skin)?)))
        .collect();
    let unsupported: Vec<(SimdLevel, String)> = <SimdLevel as Variant>::ALL
        .iter()
        .filter(|l| !l.supported())
        .map(|&l| (l, "this CPU does not have it".to_string()))
        .collect();
    // While the GPU animates, the CPU pipeline's own choices change nothing: greyed.
    let on_cpu = settings.animate == AnimateDevice::Cpu;
    let cpu_only = "the GPU animates: this stage of the CPU pipeline does not run";
    let on_gpu = settings.animate == AnimateDevice::Gpu;
    let compute = settings.pipeline.skin.spec().runs_on.has_compute_pass();
    egui::Grid::new("variants")
        .num_columns(2)
        .spacing([8.0, 2.0])
        .show(ui, |ui| {
            variant_combo(ui, &mut settings.animate, &animate_refusals);
            if on_gpu {
                variant_combo(ui, &mut settings.gpu_hierarchy, &[]);
            } else {
                ui.add_enabled_ui(on_cpu, |ui| {
                    variant_combo(ui, &mut settings.pipeline.hierarchy, info.refusals);
                });
            }
            ui.end_row();
            variant_combo(ui, &mut settings.pipeline.skin, info.skin_refusals);
            variant_combo(ui, &mut settings.pipeline.method, info.method_refusals);
            ui.end_row();
            if compute {
                variant_combo(ui, &mut settings.compute_shader, &[]);
            }
            if on_gpu {
                ui.add_enabled_ui(false, |ui| {
                    variant_combo(ui, &mut settings.pipeline.hierarchy, info.refusals);
                })
                .response
                .on_disabled_hover_text(cpu_only);
            }
            if compute || on_gpu {
                ui.end_row();
            }
            // Who is drawn at which level is the GPU's LOD pass's decision only there.
            if on_gpu {
                variant_combo(ui, &mut settings.draws, &[]);
                if compute {
                    pool_ui(ui, &mut settings.skinned_pool);
                }
                ui.end_row();
            }
            ui.add_enabled_ui(on_cpu, |ui| {
                variant_combo(ui, &mut settings.upload, &[]);
            })
            .response
            .on_disabled_hover_text(cpu_only);
            ui.add_enabled_ui(on_cpu, |ui| {
                variant_combo(ui, &mut settings.pipeline.schedule, &[]);
            })
            .response
            .on_disabled_hover_text(cpu_only);
            ui.end_row();
            ui.add_enabled_ui(on_cpu, |ui| {
                variant_combo(ui, &mut settings.simd_level, &unsupported);
            })
            .response
            .on_disabled_hover_text(cpu_only);
            ui.end_row();
        });
    for (v, reason) in info.refusals {
        ui.label(
            RichText::new(format!("{} refuses this rig: {reason}", v.name()))
                .small()
                .color(Color32::YELLOW),
        );
    }
}

/// Threads, the crowd's size and motion, the passes, and LOD, a few settings a row.
fn crowd_ui(ui: &mut egui::Ui, settings: &mut Settings, info: &PanelInfo) {
    let pipeline = &mut settings.pipeline;
    ui.spacing_mut().slider_width = 90.0;
    ui.horizontal(|ui| {
        ui.add(
            egui::Slider::new(&mut settings.instances, 1..=info.max_instances.max(1))
                .logarithmic(true)
                .text("instances"),
        );
        ui.add(
            egui::Slider::new(&mut pipeline.threads, 1..=info.machine.cores.max(1)).text("threads"),
        );
    });
    ui.horizontal(|ui| {
        ui.checkbox(&mut settings.paused, "pause (Space)");
        ui.add(egui::Slider::new(&mut settings.speed, 0.0..=3.0).text("speed"));
        let mut blend = pipeline.blend_weight > 0.0;
        if ui.checkbox(&mut blend, "blend").changed() {
            pipeline.blend_weight = if blend { 0.5 } else { 0.0 };
        }
    });
    if pipeline.blend_weight > 0.0 {
        ui.add(egui::Slider::new(&mut pipeline.blend_weight, 0.01..=1.0).text("blend weight"));
    }
    ui.horizontal(|ui| {
        ui.checkbox(&mut settings.shadows, "shadows")
            .on_hover_text(
                "the sun's shadow map: a second pass over the characters; gpu_vertex skins again in it, the others draw the vertices they have",
            );
        // Unticked where the rig has no colours of its own: what is drawn is the tints.
        let mut file_colors = settings.base_colors == BaseColors::File && info.has_materials;
        let colors_box = ui
            .add_enabled(
                info.has_materials,
                egui::Checkbox::new(&mut file_colors, "file colours"),
            )
            .on_hover_text(
                "each character's own base colours (the file's textures and factors); off: \
                 three tints with a checker over each uv unit, which show the crowd's \
                 structure and uv layout (--material file|tint)",
            )
            .on_disabled_hover_text("this rig's file names no material: drawn in the tints");
        if colors_box.changed() {
            settings.base_colors = if file_colors {
                BaseColors::File
            } else {
                BaseColors::Tint
            };
        }
        ui.checkbox(&mut settings.vsync, "vsync")
            .on_hover_text("wait for the display's refresh: turn off to measure");
        ui.add_enabled(
            info.indirect_supported,
            egui::Checkbox::new(&mut settings.indirect_draws, "indirect draws"),
        )
        .on_hover_text(
            "one multi_draw_indexed_indirect per vertex binding (the GPU reads the draws' \
             arguments from a buffer); off: the same draws one by one",
        )
        .on_disabled_hover_text("this adapter cannot draw indirectly with a first instance");
        let [main, shadow] = info.draw_commands;
        ui.label(format!("{main} + {shadow} shadow draws"))
            .on_hover_text("draw commands the last frame recorded: crowd pass + shadow pass");
    });
    clips_ui(ui, settings, info);
    lod_ui(ui, settings, info);
}

/// Which clips the crowd plays, in bounded space whatever the rig has: one box that opens a
/// list of the clips (a box each, scrolled where they are many; at least one stays ticked;
/// "moving" brings the default mix back), and one line saying what plays, what is left
/// out and why (the whole of it on hover), and the spacing.
fn clips_ui(ui: &mut egui::Ui, settings: &mut Settings, info: &PanelInfo) {
    if info.clips.is_empty() {
        ui.label(RichText::new("clips: none (the rig has none: its rest pose)").small());
        return;
    }
    let played = &info.clip_mix.clips;
    let name = |c: u16| {
        info.clips
            .get(usize::from(c))
            .map_or("?", |s| s.name.as_str())
    };
    let played_names: Vec<&str> = played.iter().map(|&c| name(c)).collect();
    ui.horizontal(|ui| {
        // The count only: the names are in the list and on the line below, and a box
        // that held them would widen the panel.
        let chosen = format!("{} of {} playing", played.len(), info.clips.len());
        egui::ComboBox::from_label("clips")
            .selected_text(chosen)
            .truncate()
            .width(CLIP_BOX_WIDTH)
            .height(CLIP_LIST_HEIGHT)
            .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
            .show_ui(ui, |ui| clip_list_ui(ui, settings, info))
            .response
            .on_hover_text(format!(
                "playing {}; open to choose (`--clips`)",
                played_names.join(", ")
            ));
        if ui
            .add_enabled(
                settings.clips != ClipChoice::Moving,
                egui::Button::new("moving"),
            )
            .on_hover_text(
                "the default mix: every clip that moves and comes back to its first pose (no \
                 still poses, no actions such as a death)",
            )
            .clicked()
        {
            settings.clips = ClipChoice::Moving;
        }
    });
    let left_out: Vec<String> = info
        .clip_mix
        .left_out
        .iter()
        .map(|&(c, why)| format!("{} ({why})", name(c)))
        .collect();
    let [x, z] = info.clip_mix.spacing_metres;
    let spacing = format!("spaced {x:.2} × {z:.2} m (the clips' footprint)");
    let whole = format!(
        "playing {}{} · {spacing}",
        played_names.join(", "),
        if left_out.is_empty() {
            String::new()
        } else {
            format!(" · left out: {}", left_out.join(", "))
        }
    );
    // One line: the left-out clips by reason, a few names each and the rest counted; the
    // reasons in full on hover.
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for &(c, why) in &info.clip_mix.left_out {
        let tag = match why {
            crate::crowd::mix::STILL => "still",
            crate::crowd::mix::ACTION => "actions",
            _ => "not chosen",
        };
        match groups.iter_mut().find(|(t, _)| *t == tag) {
            Some((_, names)) => names.push(name(c)),
            None => groups.push((tag, vec![name(c)])),
        }
    }
    let mut parts: Vec<String> = groups
        .iter()
        .map(|(tag, names)| {
            let shown = names
                .iter()
                .take(LEFT_OUT_SHOWN)
                .copied()
                .collect::<Vec<_>>();
            match names.len().saturating_sub(LEFT_OUT_SHOWN) {
                0 => format!("{} ({tag})", shown.join(", ")),
                more => format!("{} +{more} ({tag})", shown.join(", ")),
            }
        })
        .collect();
    if let Some(first) = parts.first_mut() {
        *first = format!("left out: {first}");
    }
    parts.push(spacing);
    let line = parts.join(" · ");
    ui.add(egui::Label::new(RichText::new(line).small()).truncate())
        .on_hover_text(whole);
}

/// The clip chooser's width, points: the rest of its row holds its label and "moving".
const CLIP_BOX_WIDTH: f32 = 140.0;
/// The clip list's height at most, points (about a dozen clips; more scroll).
const CLIP_LIST_HEIGHT: f32 = 260.0;
/// Left-out clips of one reason the panel's clip line names before it counts the rest.
const LEFT_OUT_SHOWN: usize = 3;

/// The clip chooser's list: one box per clip, with what the survey found on hover.
fn clip_list_ui(ui: &mut egui::Ui, settings: &mut Settings, info: &PanelInfo) {
    let played = &info.clip_mix.clips;
    let mut ticked: Vec<bool> = (0..info.clips.len())
        .map(|c| played.contains(&(c as u16)))
        .collect();
    let last_one = played.len() == 1;
    let mut changed = false;
    for (c, clip) in info.clips.iter().enumerate() {
        let hover = match (clip.moves, clip.loops) {
            (false, _) => format!(
                "{:.2} s; still: no vertex moves (a pose, such as a T-pose), left out of the \
                 default mix",
                clip.duration_secs
            ),
            (true, true) => format!(
                "{:.2} s; its vertices move up to {:.2} m from its first pose and come back \
                 (a loop)",
                clip.duration_secs, clip.largest_move_metres
            ),
            (true, false) => format!(
                "{:.2} s; an action: its last pose is {:.2} m from its first (it does not \
                 loop), left out of the default mix",
                clip.duration_secs, clip.loop_gap_metres
            ),
        };
        let label = match (clip.moves, clip.loops) {
            (false, _) => RichText::new(format!("{} (still)", clip.name)).weak(),
            (true, false) => RichText::new(format!("{} (action)", clip.name)).weak(),
            (true, true) => RichText::new(&clip.name),
        };
        let keep_last = last_one && ticked[c];
        let response = ui
            .add_enabled(!keep_last, egui::Checkbox::new(&mut ticked[c], label))
            .on_hover_text(hover)
            .on_disabled_hover_text("the crowd plays at least one clip");
        changed |= response.changed();
    }
    if changed {
        settings.clips = ClipChoice::Named(
            info.clips
                .iter()
                .zip(&ticked)
                .filter(|&(_, &t)| t)
                .map(|(clip, _)| clip.name.clone())
                .collect(),
        );
    }
}

/// A count as the panel's lines write it: whole below ten thousand, in thousands (k) or
/// millions (M) above, so a small crowd does not read "0.00 M".
fn count_text(n: u64) -> String {
    match n {
        0..10_000 => n.to_string(),
        10_000..1_000_000 => format!("{:.1} k", n as f64 / 1e3),
        _ => format!("{:.2} M", n as f64 / 1e6),
    }
}

/// LOD's switch, threshold and period cap, and what it did last frame.
fn lod_ui(ui: &mut egui::Ui, settings: &mut Settings, info: &PanelInfo) {
    let on_gpu = settings.animate == AnimateDevice::Gpu;
    let pool_off_here = settings.skinned_pool.is_some() && settings.pool().is_none();
    let lod = &mut settings.lod;
    ui.horizontal(|ui| {
        ui.checkbox(&mut lod.enabled, "LOD")
            .on_hover_text(if on_gpu {
                "update-rate LOD on the GPU: a compute pass gives each character its own period \
             of 1, 2, 4 or 8 frames, the longest whose screen-space error stays under the \
             threshold, and culls the characters outside the view by their draw arguments"
            } else {
                "update-rate LOD: each character is recomputed every 1, 2, 4 or 8 frames, the \
             longest whose screen-space error stays under the threshold; characters outside \
             the view are not drawn"
            });
        ui.checkbox(&mut lod.mesh, "mesh LOD").on_hover_text(
            "geometric LOD: each character is drawn with the coarsest level of its mesh's \
             chain (meshoptimizer, made at load) whose error, measured over the clips and \
             projected at its distance, stays under the threshold; shadows take the level that \
             fits the shadow map's texels",
        );
        let mesh_on = lod.mesh;
        ui.add_enabled(
            mesh_on,
            egui::Checkbox::new(&mut settings.color_by_level, "colour by level"),
        )
        .on_hover_text(
            "each character in the colour of its mesh level: white full detail, then green, \
             yellow, orange, red, magenta as the levels get coarser",
        );
        ui.add_enabled(
            lod.enabled || lod.mesh,
            egui::Slider::new(&mut lod.threshold_px, LodSettings::THRESHOLD_PX)
                .logarithmic(true)
                .text("px"),
        );
        ui.add_enabled_ui(lod.enabled, |ui| {
            egui::ComboBox::from_label("period cap")
                .selected_text(format!("{}", lod.max_period))
                .width(40.0)
                .show_ui(ui, |ui| {
                    for p in PERIODS {
                        ui.selectable_value(&mut lod.max_period, p, format!("{p}"));
                    }
                });
        });
    });
    if let Some(mesh) = info.readings.and_then(|r| r.mesh_lod.as_ref()) {
        let levels: Vec<String> = mesh.at_level.iter().map(|n| n.to_string()).collect();
        // `gpu_vertex` skins again in every pass that draws: more than every vertex once.
        let every_pass = if settings.pipeline.skin.spec().runs_on == SkinDevice::GpuVertex {
            ", skinned again in every pass that draws"
        } else {
            ""
        };
        // What the skinning pass launched for them: with the class shaders every vertex of
        // every character, with `per_level` about the vertices skinned.
        let invocations = if mesh.skin_invocations > 0 {
            format!(
                " · {} compute invocations ({:.1}× the vertices skinned)",
                count_text(mesh.skin_invocations),
                mesh.skin_invocations as f64 / mesh.skinned_vertices.max(1) as f64
            )
        } else {
            String::new()
        };
        // Fewer influences than the vertices have where a level cuts them (the CPU's
        // kernels and `gpu_compute`, linear blending).
        let influences = mesh
            .influences_blended
            .map(|n| format!(", {} influences blended", count_text(n)))
            .unwrap_or_default();
        let [main_records, shadow_records] = mesh.draw_records;
        let records = format!(
            " · {} + {} draw records ({})",
            count_text(main_records as u64),
            count_text(shadow_records as u64),
            if mesh.per_level_draws {
                "per batch and level"
            } else {
                "per character"
            }
        );
        ui.label(
            RichText::new(format!(
                "mesh levels {}: {} · {} triangles ({:.0} % of full detail) · shadows at level {} · \
                 {} vertices skinned ({:.0} % of every vertex once{every_pass}){influences} · {} \
                 joints posed ({:.0} % of every joint), {} sampled{invocations}{records}",
                (0..levels.len()).map(|l| l.to_string()).collect::<Vec<_>>().join("/"),
                levels.join(" / "),
                count_text(mesh.triangles),
                100.0 * mesh.triangles as f64 / mesh.full_triangles.max(1) as f64,
                mesh.shadow_level,
                count_text(mesh.skinned_vertices),
                100.0 * mesh.skinned_vertices as f64 / mesh.full_vertices.max(1) as f64,
                count_text(mesh.joints_posed),
                100.0 * mesh.joints_posed as f64 / mesh.full_joints.max(1) as f64,
                count_text(mesh.joints_sampled),
            ))
            .small(),
        );
    }
    if let Some(line) = info
        .readings
        .and_then(|r| r.mesh_lod.as_ref())
        .and_then(|m| m.pool.as_ref())
        .map(pool_line)
    {
        ui.label(RichText::new(line).small());
    } else if pool_off_here {
        ui.label(
            RichText::new(
                "skinned pool: off here; it needs gpu_compute with per_level, the animation and \
                 its LOD on the GPU, per-level draws and indirect draws",
            )
            .small(),
        );
    }
    let Some(lod_reading) = info.readings.and_then(|r| r.lod.as_ref()) else {
        return;
    };
    let (stats, error) = (&lod_reading.stats, lod_reading.measured_error.as_ref());
    let [p1, p2, p4, p8] = stats.at_period;
    ui.label(
        RichText::new(format!(
            "period 1/2/4/8: {p1} / {p2} / {p4} / {p8} · culled {} · updated {} · unchanged {}",
            stats.culled, stats.updated, stats.unchanged
        ))
        .small(),
    );
    if stats.unbounded > 0 {
        ui.label(
            RichText::new(format!(
                "{} blended characters recomputed every frame they are in view: a cross-fade of two \
                 loops of different lengths has no single loop to bound its motion",
                stats.unbounded
            ))
            .small(),
        );
    }
    let line = match error {
        None => "measured error: next second".to_string(),
        Some(Ok(e)) => format!(
            "measured error: {:.2} px ({}) over {} of {} stale characters",
            e.max_px,
            if e.max_px <= lod.threshold_px {
                "within the threshold"
            } else {
                "OVER the threshold"
            },
            e.compared,
            e.stale_characters
        ),
        Some(Err(e)) => format!("measured error: failed: {e}"),
    };
    ui.label(RichText::new(line).small());
}

/// The skinned pool's line: what it held and what it left out.
pub fn pool_line(pool: &crate::gpu::skin::PoolReading) -> String {
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    let grows = pool.auto && pool.share_percent < pool.cap_percent;
    let short = |n: u32, what: &str, full: &str| match (n, grows) {
        (0, _) => String::new(),
        (n, true) => format!(
            " · {} characters {what} (the pool grows for them)",
            count_text(u64::from(n))
        ),
        (n, false) => format!(
            " · {} characters {what} (the pool is full: {full})",
            count_text(u64::from(n))
        ),
    };
    let left_out = short(pool.demoted, "drawn coarser", "no room at their level")
        + &short(pool.left_out, "left out", "drawn by no pass");
    let share = if pool.auto {
        format!(
            "auto, {} % (the budget allows {} %)",
            pool.share_percent, pool.cap_percent
        )
    } else {
        format!("{} %", pool.share_percent)
    };
    format!(
        "skinned pool {share}: {:.1} of {:.1} MiB in use (high-water {:.1} MiB){left_out}",
        mb(pool.in_use_bytes),
        mb(pool.capacity_bytes),
        mb(pool.high_water_bytes),
    )
}

/// The skinned pool's box, `auto` box and share (`--skinned-pool`): `auto` grows with
/// what the frames need; a share of full detail, in percent, stays.
fn pool_ui(ui: &mut egui::Ui, pool: &mut Option<PoolSize>) {
    ui.horizontal(|ui| {
        let mut on = pool.is_some();
        let mut auto = matches!(pool, None | Some(PoolSize::Auto));
        let mut percent = match pool {
            Some(PoolSize::Share(share)) => share.percent(),
            None | Some(PoolSize::Auto) => DEFAULT_POOL_PERCENT,
        };
        ui.checkbox(&mut on, "skinned pool").on_hover_text(
            "gpu_compute skins into a pool given out each frame by mesh level (with \
             per_level, LOD on the GPU and per-level draws); off: a full-detail slot per \
             character",
        );
        ui.add_enabled(on, egui::Checkbox::new(&mut auto, "auto"))
            .on_hover_text(
                "the pool grows whenever a frame leaves characters out, up to what the \
                 memory budget allows; unticked: a fixed share of every character's full \
                 detail",
            );
        ui.add_enabled(
            on && !auto,
            egui::DragValue::new(&mut percent)
                .range(PoolShare::MIN_PERCENT..=PoolShare::MAX_PERCENT)
                .suffix(" %"),
        );
        *pool = match (on, auto) {
            (false, _) => None,
            (true, true) => Some(PoolSize::Auto),
            (true, false) => PoolShare::from_percent(percent).map(PoolSize::Share),
        };
    });
}

/// The share the pool's box starts at when `auto` is unticked.
const DEFAULT_POOL_PERCENT: u32 = 10;

/// The per-stage table, the CPU total, the memory lines and the history plot, all from
/// the frame's readings.
fn timings_ui(ui: &mut egui::Ui, info: &PanelInfo, history: &TimingHistory) {
    let Some(r) = info.readings else {
        ui.label("no complete frame yet: a frame's time is known when the next one begins");
        return;
    };
    // A line that says what is wrong with the frames read, where something is: the plot
    // below gives up its height, so the panel's length does not change.
    let caveat_height = match r.span.caveat() {
        Some(caveat) => {
            let line = ui.label(RichText::new(caveat).color(Color32::from_rgb(255, 200, 80)));
            line.rect.height() + ui.spacing().item_spacing.y
        }
        None => 0.0,
    };
    let table = egui::Grid::new("timings")
        .striped(true)
        .num_columns(4)
        // Rows close together: the table, the CPU line and the plot fit a 900-pixel window.
        .spacing([8.0, 0.0])
        // A grid sizes its columns from the frame before: without room for eight digits,
        // a time that grows past its column (lavapipe drawing 10,000 characters takes
        // seconds) runs into the next one for a frame, which at one frame in seconds is
        // what a screenshot shows.
        .min_col_width(64.0)
        .show(ui, |ui| {
            ui.label("stage");
            ui.label("mean µs");
            ui.label("p95 µs");
            ui.label("share");
            ui.end_row();
            for row in &r.rows {
                let color = Stage::ALL
                    .iter()
                    .find(|s| s.name() == row.key)
                    .map_or(Color32::LIGHT_GRAY, |&s| stage_color(s));
                ui.label(RichText::new(&row.label).color(color));
                for cell in crate::gpu::scene::readings::row_cells(row) {
                    ui.label(cell);
                }
                ui.end_row();
            }
        });
    ui.label(RichText::new(r.cpu_line()).strong())
        .on_hover_text(
            "the LOD plan, the pipeline's stages, the upload, and encoding and submitting the \
         draws: everything the CPU spends on a frame. The share column divides a CPU row by \
         the frame's wall time (from its start to the next frame's) and a GPU row by the GPU's \
         passes together; a software renderer (lavapipe) fills the frame with its emulated GPU \
         passes, so read this line there.",
        );
    if !info.adapter.timestamps {
        ui.label(RichText::new("GPU render time: this adapter has no timestamp queries").small());
    }
    if info.adapter.device_type.contains("Cpu") {
        ui.label(
            RichText::new(
                "this adapter emulates a GPU on the CPU's cores: GPU times are not GPU speed",
            )
            .small(),
        );
    }
    let m = r.memory;
    // Coarse levels write part of each group's output, and only that part is copied.
    let share = if r.updated_bytes > r.uploaded_bytes {
        format!(
            "; {:.0} % of copying their every vertex",
            100.0 * r.uploaded_bytes as f64 / r.updated_bytes as f64
        )
    } else {
        String::new()
    };
    // Each copy costs the CPU a fixed time, so the count explains the upload row.
    let copies = match r.upload_copies {
        Some(1) => " in 1 copy".to_string(),
        Some(n) => format!(" in {n} copies"),
        None => String::new(),
    };
    ui.label(
        RichText::new(format!(
            "per instance: {} B state, {} B pipeline, {} B tree, {} KiB output · uploaded per \
             frame: {:.2} MB{copies} ({}{share})",
            m.instance_bytes,
            m.pipeline_state_bytes,
            m.tree_heap_bytes,
            m.output_bytes / 1024,
            r.uploaded_bytes as f64 / 1e6,
            r.uploads
        ))
        .small(),
    );
    // Past nine rows, each row takes its height from the plot too (down to half of it),
    // for the same reason: the fullest frames (the GPU animating with both LODs and a
    // skinned pool) list twelve.
    let row_height = table.response.rect.height() / (r.rows.len() + 1) as f32;
    let extra_rows = (r.rows.len() as f32 - 9.0).max(0.0) * row_height;
    history_plot(ui, history, (caveat_height + extra_rows).min(60.0));
}

/// Verify, screenshot and reset buttons, and what the last verify and screenshot gave.
fn actions_ui(ui: &mut egui::Ui, info: &PanelInfo) -> Vec<UiAction> {
    let mut actions = Vec::new();
    ui.horizontal(|ui| {
        if ui.button("verify").on_hover_text("max deviation of the current variants from the f64 reference, read back from the GPU buffer").clicked() {
            actions.push(UiAction::Verify);
        }
        if ui.button("screenshot (F12)").clicked() {
            actions.push(UiAction::Screenshot);
        }
        if ui.button("reset view (R)").clicked() {
            actions.push(UiAction::ResetCamera);
        }
        let hover = if profiler::available() {
            "puffin's flame graph of every frame: serves the scopes for puffin_viewer"
        } else {
            "this build has no profiler: build with --features profile-with-puffin"
        };
        if ui.button("profiler").on_hover_text(hover).clicked() {
            actions.push(UiAction::Profiler);
        }
    });
    match info.verify {
        Some(Ok(f)) => {
            let d = &f.skin;
            ui.label(
                RichText::new(format!(
                    "max deviation: position {:.2e} ({:.1e} of rig size), normal {:.2e}, hierarchy {:.1e}, blend {:.1e}, {} instances checked: {}",
                    d.max_position, d.relative_position, d.max_normal, f.hierarchy, f.blend, d.instances_checked,
                    if f.within_tolerance() { "within tolerance" } else { "BEYOND tolerance" }
                ))
                .color(if f.within_tolerance() { Color32::LIGHT_GREEN } else { Color32::LIGHT_RED }),
            );
        }
        Some(Err(e)) => {
            ui.label(RichText::new(format!("verify failed: {e}")).color(Color32::LIGHT_RED));
        }
        None => {}
    }
    match info.profiler {
        Some(Ok(status)) => {
            ui.label(RichText::new(status).color(Color32::LIGHT_GREEN));
        }
        Some(Err(e)) => {
            ui.label(RichText::new(e).color(Color32::LIGHT_RED));
        }
        None => {}
    }
    match info.screenshot {
        Some(Ok(path)) => {
            ui.label(RichText::new(format!("saved {path}")).color(Color32::LIGHT_GREEN));
        }
        Some(Err(e)) => {
            ui.label(RichText::new(format!("screenshot failed: {e}")).color(Color32::LIGHT_RED));
        }
        None => {}
    }
    for note in info.notes {
        ui.label(RichText::new(note).small().color(Color32::YELLOW));
    }
    actions
}

/// Stacked areas of the CPU stages and upload over the frames in the history.
fn history_plot(ui: &mut egui::Ui, history: &TimingHistory, less_height: f32) {
    let frames: Vec<_> = history.iter().collect();
    if frames.len() < 2 {
        return;
    }
    let xs: Vec<f64> = (0..frames.len()).map(|i| i as f64).collect();
    let mut lower = vec![0.0; frames.len()];
    // The y range follows the 95th percentile of the stacked totals, not their maximum: one
    // hitch (the first frame's allocations, a resize) would otherwise flatten every other
    // frame into the x axis for as long as it stays in the history. Spikes show clipped.
    let mut totals: Vec<f64> = frames
        .iter()
        .map(|t| Stage::ALL.iter().map(|&stage| t.get(stage)).sum())
        .collect();
    totals.sort_by(f64::total_cmp);
    let top = (totals[(totals.len() - 1) * 95 / 100] * 1.25).max(1.0);
    let right = (frames.len() - 1) as f64;
    let plotted = Plot::new("stage history")
        // With the rest of the panel, fits a 900-pixel window whole. No legend: the
        // table's stage names above are drawn in the areas' colours, and a legend of six
        // stages overflowed a plot this short.
        .height(110.0 - less_height)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .auto_bounds([false, false])
        // Marks in µs or ms, whichever keeps them short: at seconds a frame the µs figures
        // grew wider than the axis and were cut.
        .y_axis_formatter(|mark, _| {
            if mark.value >= 1e4 {
                format!("{:.0} ms", mark.value / 1e3)
            } else if mark.value >= 1e3 {
                format!("{:.1} ms", mark.value / 1e3)
            } else {
                format!("{:.0} µs", mark.value)
            }
        })
        .y_axis_min_width(56.0)
        .show(ui, |plot| {
            plot.set_plot_bounds_x(0.0..=right);
            plot.set_plot_bounds_y(0.0..=top);
            for &stage in Stage::ALL {
                let upper: Vec<f64> = lower
                    .iter()
                    .zip(&frames)
                    .map(|(l, t)| l + t.get(stage))
                    .collect();
                if upper.iter().zip(&lower).any(|(u, l)| u > l) {
                    plot.add(
                        FilledArea::new(stage.name(), &xs, &lower, &upper)
                            .fill_color(stage_color(stage).gamma_multiply(0.8)),
                    );
                }
                lower = upper;
            }
        });
    plotted
        .response
        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Figure, true, "stage history plot"));
}
