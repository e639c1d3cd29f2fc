//! The panel, driven the way a user drives it (egui_kittest): buttons clicked, combo boxes
//! opened, the answers read back from the panel's own labels. The scene behind it is the
//! app's own, rendering offscreen on whatever adapter exists (lavapipe without a GPU).

mod common;

use std::sync::Arc;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use skinbench::gpu::scene::Frame;
use skinbench::gpu::scene::Scene;
use skinbench::gpu::{GpuContext, UploadVariant};
use skinbench::prepare::PreparedRig;
use skinbench::skin::{SkinMethod, SkinVariant};
use skinbench::variant::Variant;

fn context() -> Option<GpuContext> {
    common::gpu_context()
}

/// The app's scene with 13 characters (a full group and a partial one), its panel in a
/// harness; every frame of the harness builds the panel and queues what was clicked.
fn harness() -> Option<Harness<'static, Scene>> {
    harness_for(Arc::new(PreparedRig::reference()), 13)
}

/// The scene a panel test drives: a small offscreen target.
fn panel_scene(
    gpu: GpuContext,
    rig: Arc<PreparedRig>,
    settings: skinbench::gpu::scene::Settings,
) -> Scene {
    common::offscreen_scene(&gpu, &rig, settings, (320, 200)).unwrap()
}

/// The same for `instances` characters of `rig`.
fn harness_for(rig: Arc<PreparedRig>, instances: usize) -> Option<Harness<'static, Scene>> {
    let gpu = context()?;
    let settings = common::app_settings(&rig, instances);
    let scene = panel_scene(gpu, rig, settings);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(520.0, 1400.0))
        .build_ui_state(
            |ui, scene: &mut Scene| {
                let actions = skinbench::ui::scene_panel_ui(ui, scene, "test");
                skinbench::ui::apply_actions(scene, &actions);
            },
            scene,
        );
    // Two frames, so the history plot has something to draw.
    for _ in 0..2 {
        run_frame(&mut harness);
    }
    harness.run_steps(2);
    Some(harness)
}

/// Lets the scene render a frame at 60 frames a second (which carries out what the panel
/// asked for).
fn run_frame(harness: &mut Harness<'static, Scene>) {
    harness
        .state_mut()
        .frame(Frame::headless(1.0 / 60.0))
        .unwrap();
}

/// The combo box labelled `label`.
fn combo<'h>(harness: &'h Harness<'static, Scene>, label: &'h str) -> egui_kittest::Node<'h> {
    harness.get_by_role_and_label(egui::accesskit::Role::ComboBox, label)
}

/// Whether the widget labelled `label` is greyed (shown, but not offered).
fn is_greyed(harness: &Harness<'static, Scene>, label: &str) -> bool {
    use egui_kittest::kittest::NodeT;
    harness.get_by_label(label).accesskit_node().is_disabled()
}

/// Opens the combo box `label` and expects its entry `entry` greyed, with `why` as the
/// failure's message; clicks the entry anyway (which must change nothing).
fn entry_is_greyed(harness: &mut Harness<'static, Scene>, label: &str, entry: &str, why: &str) {
    combo(harness, label).click();
    harness.run_steps(2);
    assert!(is_greyed(harness, entry), "{why}");
    harness.get_by_label(entry).click();
    harness.run_steps(2);
}

/// Clicks `label`, then lets the scene render a frame (which carries out the request) and
/// the panel show the outcome.
fn click_then_frame(harness: &mut Harness<'static, Scene>, label: &str) {
    harness.get_by_label(label).click();
    harness.run_steps(2);
    run_frame(harness);
    harness.run_steps(2);
}

/// Picks `name` in the combo box labelled `combo_label`, then runs a frame with it.
fn choose(harness: &mut Harness<'static, Scene>, combo_label: &str, name: &str) {
    combo(harness, combo_label).click();
    harness.run_steps(2);
    // The list's entry, not a box of the same name (a clip can be called `walk` too).
    harness
        .get(
            egui_kittest::kittest::By::new()
                .label(name)
                .predicate(|n| n.role() != egui::accesskit::Role::CheckBox),
        )
        .click();
    harness.run_steps(2);
    run_frame(harness);
}

/// Clicks verify and expects the frame within tolerance (two steps first: the combo's list
/// closes only after the choice was drawn, and would take the click).
fn verify_passes(harness: &mut Harness<'static, Scene>, what: &str) {
    harness.run_steps(2);
    click_then_frame(harness, "verify");
    let deviation = harness
        .state()
        .last_verify()
        .cloned()
        .unwrap_or_else(|| panic!("{what}: verify did not run"))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(deviation.within_tolerance(), "{what}: {deviation:?}");
}

fn verify_is_within_tolerance_for_every_skin_and_upload_variant() {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    for &upload in UploadVariant::ALL {
        for &skin in SkinVariant::ALL {
            let label = format!("{} {}", skin.name(), upload.name());
            {
                let scene = harness.state_mut();
                scene.settings_mut().pipeline.skin = skin;
                scene.settings_mut().upload = upload;
                scene.frame(Frame::headless(1.0 / 60.0)).unwrap();
                assert_eq!(scene.running_config().skin, skin, "{label}");
            }
            harness.run_steps(2);
            click_then_frame(&mut harness, "verify");
            let shown = harness
                .query_by_label_contains("max deviation")
                .unwrap_or_else(|| {
                    let err = harness.query_by_label_contains("verify failed");
                    panic!(
                        "{label}: no deviation shown ({:?})",
                        err.map(|n| format!("{n:?}"))
                    )
                });
            let text = format!("{shown:?}");
            assert!(text.contains("within tolerance"), "{label}: {text}");
            let result = harness.state().last_verify().cloned();
            let deviation = result
                .unwrap_or_else(|| panic!("{label}: verify did not run"))
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(deviation.within_tolerance(), "{label}: {deviation:?}");
            assert_eq!(deviation.skin.instances_checked, 13, "{label}");
        }
    }
}

fn choosing_a_variant_in_a_combo_box_changes_the_running_pipeline() {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    let start = harness.state().running_config().skin;
    let wanted = if start == SkinVariant::Tuned {
        SkinVariant::Sorted
    } else {
        SkinVariant::Tuned
    };
    // The combo box shows the current variant; its list shows every declared one.
    let combo = combo(&harness, "skin");
    assert_eq!(combo.value().as_deref(), Some(start.name()));
    combo.click();
    harness.run_steps(2);
    for &skin in SkinVariant::ALL {
        assert!(
            harness.query_all_by_label(skin.name()).next().is_some(),
            "{} is not in the skin list",
            skin.name()
        );
    }
    harness.get_by_label(wanted.name()).click();
    harness.run_steps(2);
    run_frame(&mut harness);
    assert_eq!(harness.state().settings().pipeline.skin, wanted);
    assert_eq!(harness.state().running_config().skin, wanted);
    assert_eq!(
        harness.state().output_layout().variant(),
        wanted,
        "the output layout follows the variant"
    );
}

fn choosing_a_simd_level_runs_the_pipeline_at_it() {
    use skinbench::simd::SimdLevel;
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    assert_eq!(harness.state().simd_level(), SimdLevel::native());
    let combo = combo(&harness, "SIMD level");
    assert_eq!(combo.value().as_deref(), Some(SimdLevel::native().name()));
    for level in SimdLevel::available() {
        choose(&mut harness, "SIMD level", level.name());
        assert_eq!(harness.state().settings().simd_level, level);
        assert_eq!(harness.state().simd_level(), level);
        // The frame at that level still verifies.
        verify_passes(&mut harness, level.name());
    }
}

fn choosing_a_compute_shader_skins_gpu_compute_with_it() {
    use skinbench::gpu::skin::ComputeShader;
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    // The box is there only while a GPU variant runs.
    assert!(
        harness
            .query_by_role_and_label(egui::accesskit::Role::ComboBox, "compute shader")
            .is_none()
    );
    harness.state_mut().settings_mut().pipeline.skin = SkinVariant::GpuCompute;
    run_frame(&mut harness);
    harness.run_steps(2);
    for &shader in ComputeShader::ALL {
        choose(&mut harness, "compute shader", shader.name());
        assert_eq!(harness.state().settings().compute_shader, shader);
        assert_eq!(harness.state().renderer().compute_shader(), shader);
        verify_passes(&mut harness, shader.name());
    }
}

/// The "draws" box is there while the GPU animates; with its LOD on, each choice draws
/// that way (per level: the renderer's lists are per level).
fn choosing_draws_per_level_or_per_character() {
    use skinbench::crowd::AnimateDevice;
    use skinbench::gpu::draws::Draws;
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    assert!(
        harness
            .query_by_role_and_label(egui::accesskit::Role::ComboBox, "draws")
            .is_none()
    );
    let settings = harness.state_mut().settings_mut();
    settings.pipeline.skin = SkinVariant::GpuVertex;
    settings.animate = AnimateDevice::Gpu;
    settings.lod.enabled = true;
    settings.lod.mesh = true;
    run_frame(&mut harness);
    harness.run_steps(2);
    for &draws in Draws::ALL.iter().rev() {
        choose(&mut harness, "draws", draws.name());
        harness.run_steps(2);
        assert_eq!(harness.state().settings().draws, draws);
        assert_eq!(harness.state().renderer().draws(), draws);
        assert_eq!(
            harness.state().renderer().draws_per_level(),
            draws == Draws::PerLevel,
            "{}",
            draws.name()
        );
    }
}

/// The "skinned pool" box is there for `gpu_compute` while the GPU animates; ticked, the
/// frames skin into an `auto` pool and the panel says what the pool held and what the
/// budget allows; "auto" unticked, a fixed share; unticked, full slots again.
fn the_skinned_pool_box_skins_into_a_pool() {
    use skinbench::crowd::AnimateDevice;
    use skinbench::skin::pool::{PoolShare, PoolSize};
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    assert!(harness.query_by_label("skinned pool").is_none());
    let settings = harness.state_mut().settings_mut();
    settings.pipeline.skin = SkinVariant::GpuCompute;
    settings.animate = AnimateDevice::Gpu;
    settings.lod.enabled = true;
    settings.lod.mesh = true;
    run_frame(&mut harness);
    harness.run_steps(2);
    click_then_frame(&mut harness, "skinned pool");
    // The pool's totals come back a frame or two later, without waiting for the GPU.
    let settle = |harness: &mut Harness<'static, Scene>| {
        for _ in 0..3 {
            run_frame(harness);
            harness.run_steps(2);
        }
    };
    settle(&mut harness);
    let running = |harness: &Harness<'static, Scene>| {
        harness.state().renderer().skinned_pool().map(|p| p.size())
    };
    assert_eq!(
        harness.state().settings().skinned_pool,
        Some(PoolSize::Auto)
    );
    assert_eq!(running(&harness), Some(PoolSize::Auto));
    harness.get_by_label_contains("skinned pool auto, ");
    harness.get_by_label_contains("(the budget allows ");
    verify_passes(&mut harness, "the auto skinned pool");
    click_then_frame(&mut harness, "auto");
    settle(&mut harness);
    let ten = PoolSize::Share(PoolShare::from_percent(10).unwrap());
    assert_eq!(harness.state().settings().skinned_pool, Some(ten));
    assert_eq!(running(&harness), Some(ten));
    harness.get_by_label_contains("skinned pool 10 %:");
    verify_passes(&mut harness, "the skinned pool");
    click_then_frame(&mut harness, "skinned pool");
    harness.run_steps(2);
    assert_eq!(harness.state().settings().skinned_pool, None);
    assert_eq!(harness.state().renderer().skinned_pool(), None);
    assert!(
        harness
            .query_by_label_contains("skinned pool 10 %:")
            .is_none()
    );
}

fn the_shadows_box_switches_the_shadow_pass() {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    // The app starts with shadows on (common::app_settings, as the --shadows default).
    assert!(harness.state().renderer().shadows());
    for expected in [false, true] {
        click_then_frame(&mut harness, "shadows");
        assert_eq!(harness.state().settings().shadows, expected);
        assert_eq!(harness.state().renderer().shadows(), expected);
    }
}

/// The profiler button says what it did: where puffin serves (a puffin build), or how to
/// build one (the default build, which this test runs in unless a feature is given).
fn the_profiler_button_says_where_to_look_or_how_to_build_it() {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    click_then_frame(&mut harness, "profiler");
    let wanted = if skinbench::ui::profiler::available() {
        "puffin serves on 127.0.0.1:8585"
    } else {
        "build with --features profile-with-puffin"
    };
    assert!(
        harness.query_by_label_contains(wanted).is_some(),
        "no {wanted:?} after pressing profiler"
    );
}

fn the_indirect_draws_box_switches_to_draws_one_by_one() {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    // On by default (as --indirect-draws); lavapipe and the GPUs tried draw indirectly.
    assert!(harness.state().renderer().indirect_supported());
    assert!(harness.state().renderer().indirect_draws());
    // 13 characters of `packed`: one vertex binding, so one multi-draw a pass; one by
    // one, a draw per character.
    choose(&mut harness, "skin", "packed");
    for (expected, commands) in [(false, "13 + 13"), (true, "1 + 1")] {
        click_then_frame(&mut harness, "indirect draws");
        assert_eq!(harness.state().settings().indirect_draws, expected);
        assert_eq!(harness.state().renderer().indirect_draws(), expected);
        let label = format!("{commands} shadow draws");
        assert!(
            harness.query_by_label_contains(&label).is_some(),
            "no {label:?}"
        );
    }
}

fn the_mesh_lod_box_draws_mesh_levels_and_the_colour_box_shows_them() {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    assert!(harness.query_by_label_contains("mesh levels").is_none());
    // A coarse threshold, so the small crowd takes levels that hold joints at rest.
    harness.state_mut().settings_mut().lod.threshold_px = 40.0;
    click_then_frame(&mut harness, "mesh LOD");
    assert!(harness.state().settings().lod.mesh);
    harness.run_steps(2);
    harness.get_by_label_contains("mesh levels 0/1/2/3/4:");
    let reading = harness.state_mut().mesh_lod_reading();
    assert_eq!(reading.at_level.iter().sum::<usize>(), 13, "{reading:?}");
    assert!(reading.triangles <= reading.full_triangles);
    // The CPU skinned each group of eight for its level: the reading counts what the
    // kernel wrote.
    let scene = harness.state();
    let skin = scene.settings().pipeline.skin;
    let expected: usize = scene
        .cpu_skin_levels()
        .iter()
        .enumerate()
        .map(|(g, &l)| (13 - 8 * g).min(8) * skin.vertices_skinned_at(scene.rig(), l as usize))
        .sum();
    assert_eq!(reading.skinned_vertices, expected as u64, "{reading:?}");
    // And posed only the joints of that level (with linear blending, of its influence cut).
    let method = scene.settings().pipeline.method;
    let posed: usize = scene
        .cpu_skin_levels()
        .iter()
        .enumerate()
        .map(|(g, &l)| {
            let set = skinbench::skin::level_errors::posed_joints(scene.rig(), l as usize, method);
            (13 - 8 * g).min(8) * set.len()
        })
        .sum();
    assert_eq!(reading.joints_posed, posed as u64, "{reading:?}");
    assert_eq!(reading.full_joints, 13 * scene.rig().joint_count() as u64);
    assert!(reading.joints_posed < reading.full_joints, "{reading:?}");
    // Of those, sampled: the level's animated joints less the ones it holds at rest.
    let merges =
        |l: u8| skinbench::skin::level_errors::level_merges(scene.rig(), l as usize, method);
    let sampled: usize = scene
        .cpu_skin_levels()
        .iter()
        .enumerate()
        .map(|(g, &l)| {
            let m = merges(l);
            (13 - 8 * g).min(8) * m.sampled()
        })
        .sum();
    assert_eq!(reading.joints_sampled, sampled as u64, "{reading:?}");
    assert!(
        scene
            .cpu_skin_levels()
            .iter()
            .any(|&l| !merges(l).held.is_empty()),
        "{reading:?}"
    );
    assert!(reading.joints_sampled < reading.joints_posed, "{reading:?}");
    harness.get_by_label_contains("joints posed");
    harness.get_by_label_contains(&format!("of every joint), {sampled} sampled"));
    // The upload line says how many copies took the levels' parts to the GPU.
    let copies = harness
        .state()
        .upload_bytes()
        .copies
        .expect("counted on the CPU");
    assert!(copies > 0);
    harness.get_by_label_contains(&format!(" MB in {copies} cop"));
    click_then_frame(&mut harness, "colour by level");
    assert!(harness.state().settings().color_by_level);
    click_then_frame(&mut harness, "mesh LOD");
    assert!(!harness.state().settings().lod.mesh);
    harness.run_steps(2);
    assert!(harness.query_by_label_contains("mesh levels").is_none());
}

/// At a threshold that puts the small crowd at coarse levels, the mesh LOD line counts the
/// influences each group blended: fewer than its vertices have where its level cuts them,
/// on the CPU's kernels (over their sorted classes) and on `gpu_compute` (over the level's
/// own vertices).
fn the_mesh_lod_line_counts_the_influences_the_cut_levels_blend() {
    use skinbench::skin::influence_cuts::{blended_influences, level_own_influences};
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    // Shadows off: the shadows' level would hold every group at theirs.
    // The widest threshold the flag takes.
    harness.state_mut().settings_mut().lod.threshold_px =
        *skinbench::crowd::lod::LodSettings::THRESHOLD_PX.end();
    harness.state_mut().settings_mut().shadows = false;
    click_then_frame(&mut harness, "mesh LOD");
    for skin in [None, Some(SkinVariant::GpuCompute)] {
        if let Some(skin) = skin {
            harness.state_mut().settings_mut().pipeline.skin = skin;
        }
        run_frame(&mut harness);
        harness.run_steps(2);
        let reading = harness.state_mut().mesh_lod_reading();
        let scene = harness.state();
        let rig = scene.rig();
        let kept = |l: usize| skinbench::skin::level_kept(rig, l, SkinMethod::Linear);
        let levels = scene.cpu_skin_levels();
        assert!(
            levels.iter().all(|&l| kept(l as usize).is_some()),
            "{skin:?}: group levels {levels:?} do not all cut"
        );
        let count = |kept: &dyn Fn(usize) -> Option<usize>| -> usize {
            let per_character = match skin {
                None => blended_influences,
                Some(_) => level_own_influences,
            };
            levels
                .iter()
                .enumerate()
                .map(|(g, &l)| {
                    (13 - 8 * g).min(8) * per_character(rig, l as usize, kept(l as usize))
                })
                .sum()
        };
        let expected = count(&kept);
        assert!(
            expected < count(&|_| None),
            "{skin:?}: the cut blends as many"
        );
        assert_eq!(
            reading.influences_blended,
            Some(expected as u64),
            "{skin:?}: {reading:?}"
        );
        harness.get_by_label_contains(&format!(", {expected} influences blended"));
    }
}

/// Ticking "mesh LOD" on a rig whose level errors are not measured leaves the measuring
/// to whoever runs the frames (the app: on a thread, showing the progress): the rest of
/// the frame the panel ran in draws as planned and measures nothing, the scene says the
/// errors are pending, and once they are measured the next frame draws the levels.
fn ticking_mesh_lod_leaves_the_measuring_to_the_app() {
    use skinbench::gpu::scene::{LoadProgress, LoadStep, measure_level_errors};
    use skinbench::skin::level_errors::measured;
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    let rig = harness.state().rig().clone();
    assert!(measured(&rig).is_none(), "the harness measured the levels");
    assert!(!harness.state().level_errors_pending());
    harness.get_by_label("mesh LOD").click();
    harness.run_steps(2);
    assert!(harness.state().settings().lod.mesh);
    // What the frame does after its panel: the draws, the shadow level among them.
    harness.state_mut().prepare_draws(None);
    assert!(
        measured(&rig).is_none(),
        "drawing the frame the box was ticked in measured the levels"
    );
    assert!(harness.state().level_errors_pending());
    let progress = LoadProgress::new();
    let shared = progress.clone();
    let measuring = rig.clone();
    std::thread::spawn(move || measure_level_errors(&measuring, &shared, None))
        .join()
        .unwrap();
    assert!(measured(&rig).is_some());
    let steps: Vec<LoadStep> = progress.status().finished.iter().map(|f| f.0).collect();
    assert_eq!(steps, [LoadStep::MeshLevels], "{steps:?}");
    assert_eq!(progress.status().step, Some(LoadStep::MeshErrors));
    assert!(!harness.state().level_errors_pending());
    run_frame(&mut harness);
    harness.run_steps(2);
    harness.get_by_label_contains("mesh levels 0/1/2/3/4:");
}

/// The threshold slider keeps whatever threshold the flag accepted, at both ends of its
/// range: drawing the panel must not move a value the user asked for.
fn the_threshold_slider_keeps_every_threshold_the_flag_accepts() {
    use skinbench::crowd::lod::LodSettings;
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    click_then_frame(&mut harness, "mesh LOD");
    let range = LodSettings::THRESHOLD_PX;
    for px in [*range.start(), 1.0, *range.end()] {
        LodSettings::check_threshold(px).unwrap();
        harness.state_mut().settings_mut().lod.threshold_px = px;
        harness.run_steps(2);
        run_frame(&mut harness);
        harness.run_steps(2);
        assert_eq!(
            harness.state().settings().lod.threshold_px,
            px,
            "the panel moved a threshold of {px} px"
        );
    }
}

fn the_lod_box_turns_lod_on_and_the_panel_shows_periods_and_the_measured_error() {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    assert!(harness.query_by_label_contains("period 1/2/4/8").is_none());
    click_then_frame(&mut harness, "LOD");
    assert!(harness.state().settings().lod.enabled);
    // Its first frame computes everything; the next plan periods, and the error is
    // measured once a second (the first time at once).
    run_frame(&mut harness);
    harness.run_steps(2);
    let stats = harness.state().lod_stats();
    assert_eq!(
        stats.at_period.iter().sum::<usize>() + stats.culled,
        13,
        "{stats:?}"
    );
    harness.get_by_label_contains("period 1/2/4/8");
    harness.get_by_label_contains("measured error:");
    assert!(matches!(harness.state().lod_error(), Some(Ok(_))));
    // A cross-fade of the built-in rig's clips (loops of different lengths) has no bound:
    // every blended character is recomputed every frame, and the panel says so.
    let unbounded = "blended characters recomputed every frame";
    assert!(harness.query_by_label_contains(unbounded).is_none());
    // "blend" also names a timing row and the plot legend's box: the panel's checkbox
    // comes first.
    let click_blend = |harness: &mut Harness<'static, Scene>| {
        harness
            .query_all_by_role_and_label(egui::accesskit::Role::CheckBox, "blend")
            .next()
            .expect("the blend checkbox")
            .click();
        harness.run_steps(2);
        for _ in 0..2 {
            run_frame(harness);
            harness.run_steps(2);
        }
    };
    click_blend(&mut harness);
    let stats = harness.state().lod_stats();
    assert_eq!(stats.unbounded, 13, "{stats:?}");
    assert_eq!(stats.updated, 13, "{stats:?}");
    harness.get_by_label_contains(unbounded);
    click_blend(&mut harness);
    assert_eq!(harness.state().lod_stats().unbounded, 0);
    assert!(harness.query_by_label_contains(unbounded).is_none());
    click_then_frame(&mut harness, "LOD");
    assert!(!harness.state().settings().lod.enabled);
    assert!(harness.query_by_label_contains("period 1/2/4/8").is_none());
}

fn the_screenshot_button_says_where_the_file_went_or_why_not() {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    let dir = common::temp_dir("panel-screenshots");
    harness.state_mut().set_screenshot_dir(dir.clone());
    click_then_frame(&mut harness, "screenshot (F12)");
    let saved = harness.get_by_label_contains("saved ");
    let text = format!("{saved:?}");
    assert!(text.contains(&*dir.to_string_lossy()), "{text}");
    let pngs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "png"))
        .collect();
    assert_eq!(pngs.len(), 1, "one PNG in {}", dir.display());
    assert!(
        pngs[0].path().with_extension("json").is_file(),
        "its sidecar"
    );

    // A folder that cannot be made (a file is in the way): the panel says so, and the app
    // goes on rendering.
    let blocker = dir.join("not-a-folder");
    std::fs::write(&blocker, b"x").unwrap();
    harness
        .state_mut()
        .set_screenshot_dir(blocker.join("shots"));
    click_then_frame(&mut harness, "screenshot (F12)");
    let failed = harness.get_by_label_contains("screenshot failed");
    assert!(format!("{failed:?}").contains("not-a-folder"), "{failed:?}");
    run_frame(&mut harness);
}

/// A change that would not fit in memory (a 60,000-joint chain, 10,000 instances of
/// `tree` with the `staged` schedule: about 125 GB) is refused before anything is
/// allocated: the scene keeps running as it was, and the panel says why and how many fit.
fn a_change_too_big_for_memory_is_refused_and_the_panel_says_why() {
    let (rig, report) =
        skinbench::rig::import_slice(&common::chain_glb(60_000), "chain.glb", None).unwrap();
    let rig = Arc::new(PreparedRig::new(rig, &report, "chain.glb").unwrap());
    let Some(mut harness) = harness_for(rig, 9) else {
        common::cannot_run_here()
    };
    let before = *harness.state().running_config();
    {
        let scene = harness.state_mut();
        scene.settings_mut().instances = 10_000;
        scene.settings_mut().pipeline.hierarchy =
            skinbench::anim::hierarchy::HierarchyVariant::Tree;
        scene.settings_mut().pipeline.schedule = skinbench::crowd::Schedule::Staged;
    }
    run_frame(&mut harness);
    harness.run_steps(2);
    assert_eq!(harness.state().crowd().len(), 9);
    assert_eq!(*harness.state().running_config(), before);
    assert_eq!(harness.state().settings().instances, 9);
    for text in ["10000 instances of chain.glb", "instances fit"] {
        assert!(
            harness.query_by_label_contains(text).is_some(),
            "the panel does not show the refusal ({text})"
        );
    }
}

fn the_method_box_switches_to_dual_quaternions_and_refuses_a_linear_only_variant() {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    choose(&mut harness, "skin", "pulled");
    choose(&mut harness, "method", "dual_quat");
    assert_eq!(
        harness.state().running_config().method,
        SkinMethod::DualQuat
    );
    verify_passes(&mut harness, "pulled with dual quaternions");
    // `tuned` implements linear blending only: its entry is greyed (clicking it does
    // nothing), and a setting that asks for it anyway is reverted with the reason.
    entry_is_greyed(
        &mut harness,
        "skin",
        "tuned",
        "tuned is offered with dual quaternions",
    );
    harness.state_mut().settings_mut().pipeline.skin = SkinVariant::Tuned;
    run_frame(&mut harness);
    let config = *harness.state().running_config();
    assert_eq!(
        (config.skin, config.method),
        (SkinVariant::Pulled, SkinMethod::DualQuat)
    );
    assert!(
        harness
            .state()
            .notes()
            .iter()
            .any(|n| n.contains("linear only")),
        "{:?}",
        harness.state().notes()
    );
    choose(&mut harness, "method", "linear");
    assert_eq!(harness.state().running_config().method, SkinMethod::Linear);
}

/// Every label's text in the panel, in the order drawn (depth first).
fn drawn_texts(harness: &Harness<'static, Scene>) -> Vec<String> {
    use egui_kittest::kittest::NodeT;
    fn walk<'n>(node: egui_kittest::Node<'n>, out: &mut Vec<String>) {
        let n = node.accesskit_node();
        // A label keeps its text as its value.
        let text = if n.role() == egui::accesskit::Role::Label {
            n.value()
        } else {
            n.label()
        };
        if let Some(text) = text {
            out.push(text.to_string());
        }
        for child in node.children() {
            walk(child, out);
        }
    }
    let mut out = Vec::new();
    walk(harness.root(), &mut out);
    out
}

/// The numbers the panel drew (the frame line, each timing row's three cells, the CPU
/// line) against the sidecar of a screenshot of that frame, after `frames` frames of
/// `dt_secs` each.
fn sidecar_matches_the_drawn_panel(dt_secs: f32, frames: usize) {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    let dir = common::temp_dir(&format!("sidecar-{dt_secs}"));
    for _ in 0..frames {
        harness.state_mut().frame(Frame::headless(dt_secs)).unwrap();
        harness.run_steps(1);
    }
    harness.run_steps(1);
    let texts = drawn_texts(&harness);
    let path = dir.join("shot.png");
    harness
        .state_mut()
        .save_screenshot(&path, Some("test"))
        .unwrap();
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path.with_extension("json")).unwrap()).unwrap();
    let panel: skinbench::gpu::scene::readings::PanelReadings =
        harness.state().shown().cloned().unwrap();
    assert_eq!(sidecar["panel"], serde_json::to_value(&panel).unwrap());

    let frame_line = panel.frame_line("test");
    assert!(
        texts.contains(&frame_line),
        "{frame_line:?} not drawn: {texts:?}"
    );
    assert!(texts.contains(&panel.cpu_line()), "{texts:?}");
    assert!(texts.contains(&panel.span_line()), "{texts:?}");
    // The table: its header, then four cells a row.
    let header = ["stage", "mean µs", "p95 µs", "share"];
    let at = texts
        .windows(4)
        .position(|w| w == header)
        .unwrap_or_else(|| panic!("no timing table: {texts:?}"))
        + 4;
    for (k, row) in panel.rows.iter().enumerate() {
        let drawn = &texts[at + 4 * k..at + 4 * k + 4];
        assert_eq!(drawn[0], row.label);
        assert_eq!(
            drawn[1..],
            skinbench::gpu::scene::readings::row_cells(row),
            "row {}",
            row.label
        );
    }
    // Which frames they average, and those frames' own timings, are in the sidecar too;
    // the frame line's mean is theirs.
    let span = &sidecar["panel"]["span"];
    let listed = sidecar["panel_frames"].as_array().unwrap();
    assert_eq!(listed.len() as u64, span["frames"].as_u64().unwrap());
    let mean = listed
        .iter()
        .map(|f| f["timings"]["frame_us"].as_f64().unwrap())
        .sum::<f64>()
        / listed.len() as f64;
    assert!(
        (mean - panel.frame_mean_us).abs() < 1e-6 * mean.max(1.0),
        "{mean} vs {}",
        panel.frame_mean_us
    );
    assert_eq!(
        span["last_frame"].as_u64().unwrap(),
        frames as u64 + 2,
        "the latest frame"
    );
}

fn the_sidecar_holds_what_the_panel_drew_at_sixty_frames_a_second() {
    // A second of frames: the readings average all sixty.
    sidecar_matches_the_drawn_panel(1.0 / 60.0, 62);
}

fn the_sidecar_holds_what_the_panel_drew_at_seconds_a_frame() {
    // Frames of three seconds (lavapipe drawing 10,000 characters): a reading is the
    // latest frame alone, and says so.
    sidecar_matches_the_drawn_panel(3.0, 4);
}

/// A capture of a few frames (`--frames 6 --screenshot`): its readings leave out the
/// frames that set the configuration up, the panel's caption and the sidecar say how many,
/// and the panel says that so few steady frames make a noisy mean.
fn a_short_capture_leaves_the_setup_frames_out_and_says_so() {
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    // The harness ran two frames; four more, each a tenth of a second.
    for _ in 0..4 {
        harness.state_mut().frame(Frame::headless(0.1)).unwrap();
        harness.run_steps(1);
    }
    harness.run_steps(1);
    let panel = harness.state().shown().cloned().expect("readings");
    let setup = skinbench::gpu::scene::MAX_FRAMES_IN_FLIGHT as u64 + 1;
    assert_eq!(panel.span.first_frame, setup + 1, "{:?}", panel.span);
    assert_eq!(panel.span.setup_frames_left_out as u64, setup);
    assert!(panel.span.too_few);
    let texts = drawn_texts(&harness);
    assert!(
        texts
            .iter()
            .any(|t| t.contains(&format!("{setup} setup frames left out"))),
        "{texts:?}"
    );
    let caveat = panel.span.caveat().expect("a caveat");
    assert!(texts.contains(&caveat), "{caveat:?} not drawn: {texts:?}");
    let dir = common::temp_dir("short-capture");
    let path = dir.join("shot.png");
    harness
        .state_mut()
        .save_screenshot(&path, Some("test"))
        .unwrap();
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path.with_extension("json")).unwrap()).unwrap();
    assert_eq!(sidecar["panel"]["span"]["setup_frames_left_out"], setup);
    assert_eq!(sidecar["panel"]["span"]["too_few"], true);
}

/// The window's side panel over a scene of `settings` (a few frames drawn first), in a
/// harness of the window's size.
fn side_panel_harness(
    settings: skinbench::gpu::scene::Settings,
    rig: Arc<PreparedRig>,
    gpu: GpuContext,
    size: (f32, f32),
) -> Harness<'static, Scene> {
    let mut scene = panel_scene(gpu, rig, settings);
    for _ in 0..4 {
        scene.frame(Frame::headless(1.0 / 60.0)).unwrap();
    }
    let mut harness = Harness::builder()
        .with_size(egui::vec2(size.0, size.1))
        .build_ui_state(
            |ui, scene: &mut Scene| {
                let (actions, _) = skinbench::ui::side_panel_ui(ui, scene, "test");
                skinbench::ui::apply_actions(scene, &actions);
            },
            scene,
        );
    harness.run_steps(3);
    harness
}

/// At the window sizes the app is used at, the panel's actions lie inside the window
/// without scrolling (the rest of the panel scrolls above them).
fn the_actions_fit_the_window_at_1280x720_and_1600x900() {
    for (width, height) in [(1280.0, 720.0), (1600.0, 900.0)] {
        let Some(gpu) = context() else {
            common::cannot_run_here()
        };
        let rig = Arc::new(PreparedRig::reference());
        let settings = common::app_settings(&rig, 13);
        let mut harness = side_panel_harness(settings, rig, gpu, (width, height));
        let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(width, height));
        for label in ["verify", "screenshot (F12)", "reset view (R)"] {
            let rect = harness.get_by_label(label).rect();
            assert!(
                window.contains_rect(rect),
                "{width}×{height}: {label} at {rect:?} is outside the window"
            );
        }
        // And they work from there.
        harness.get_by_label("verify").click();
        harness.run_steps(2);
        run_frame(&mut harness);
        harness.run_steps(2);
        assert!(
            harness.query_by_label_contains("max deviation").is_some(),
            "{width}×{height}: verify did not answer"
        );
    }
}

/// At the default 1600×900 window the whole panel is in view without scrolling, with the
/// most rows it has: every timing row, the CPU line and the plot above the
/// actions, with `gpu_compute` and both LODs, animated on the CPU and on the GPU.
fn every_row_is_in_view_at_1600x900() {
    use skinbench::crowd::AnimateDevice;
    use skinbench::skin::SkinVariant;
    let mut rigs = vec![Arc::new(PreparedRig::reference())];
    // A rig of 18 clips with long names: the clip chooser must not push the table down.
    if let Some(path) = common::fox_with_many_clips(&common::temp_dir("panel-many-clips"), 18) {
        rigs.push(Arc::new(PreparedRig::load(&path).unwrap()));
    }
    for (rig, animate) in rigs
        .iter()
        .flat_map(|r| [AnimateDevice::Cpu, AnimateDevice::Gpu].map(|a| (r.clone(), a)))
    {
        let Some(gpu) = context() else {
            common::cannot_run_here()
        };
        let mut settings = common::app_settings(&rig, 13);
        settings.pipeline.skin = SkinVariant::GpuCompute;
        settings.animate = animate;
        settings.lod.enabled = true;
        settings.lod.mesh = true;
        let what = format!(
            "{} with {} clips, {}",
            rig.name,
            rig.clips.len(),
            animate.name()
        );
        let harness = side_panel_harness(settings, rig, gpu, (1600.0, 900.0));
        let bottom = harness.get_by_label("verify").rect().top();
        let panel = harness.state().shown().cloned().expect("readings");
        let mut labels: Vec<String> = panel.rows.iter().map(|r| r.label.clone()).collect();
        labels.push("stage history plot".into());
        for label in &labels {
            let rect = harness
                .query_all_by_label(label)
                .map(|n| n.rect())
                .max_by(|a, b| a.top().total_cmp(&b.top()))
                .unwrap_or_else(|| panic!("{what}: no {label:?} drawn"));
            assert!(
                rect.top() >= 0.0 && rect.bottom() <= bottom,
                "{what}: {label:?} at {rect:?} is not in view above the actions (at {bottom})"
            );
        }
        let cpu_line = harness.get_by_label_contains("CPU per frame").rect();
        assert!(
            cpu_line.bottom() <= bottom,
            "{what}: the CPU line at {cpu_line:?}"
        );
    }
}

fn the_animate_box_moves_the_animation_to_the_gpu_and_back() {
    use skinbench::crowd::AnimateDevice;
    use skinbench::gpu::animate::GpuHierarchy;
    let Some(mut harness) = harness() else {
        common::cannot_run_here()
    };
    // With a CPU skin variant the GPU's entry is greyed, with the reason.
    entry_is_greyed(
        &mut harness,
        "animation device",
        "gpu",
        "the GPU animation is offered with a CPU skin variant",
    );
    assert_eq!(harness.state().settings().animate, AnimateDevice::Cpu);
    // The list stays open after a click on a greyed entry.
    harness.key_press(egui::Key::Escape);
    harness.run_steps(2);
    // (The skin list is longer than its popup shows: the GPU variants are set directly, as
    // the compute shader's test does.)
    harness.state_mut().settings_mut().pipeline.skin = SkinVariant::GpuCompute;
    run_frame(&mut harness);
    harness.run_steps(2);
    choose(&mut harness, "animation device", "gpu");
    assert_eq!(harness.state().settings().animate, AnimateDevice::Gpu);
    run_frame(&mut harness);
    harness.run_steps(2);
    // The animation's passes get their rows.
    harness.get_by_label("GPU sample");
    harness.get_by_label("GPU hierarchy");
    harness.get_by_label("GPU palette");
    {
        use egui_kittest::kittest::NodeT;
        // The CPU pipeline's own boxes change nothing while the GPU animates.
        for label in ["hierarchy", "upload", "schedule", "SIMD level"] {
            assert!(
                combo(&harness, label).accesskit_node().is_disabled(),
                "{label} is offered while the GPU animates"
            );
        }
        assert!(!combo(&harness, "skin").accesskit_node().is_disabled());
    }
    verify_passes(&mut harness, "gpu_compute animated on the GPU");
    for &hierarchy in GpuHierarchy::ALL {
        choose(&mut harness, "GPU hierarchy pass", hierarchy.name());
        assert_eq!(harness.state().settings().gpu_hierarchy, hierarchy);
        verify_passes(&mut harness, hierarchy.name());
    }
    harness.state_mut().settings_mut().pipeline.skin = SkinVariant::GpuVertex;
    run_frame(&mut harness);
    harness.run_steps(2);
    assert_eq!(harness.state().settings().animate, AnimateDevice::Gpu);
    verify_passes(&mut harness, "gpu_vertex animated on the GPU");
    // LOD runs on the GPU too: its pass gets a row, its counts come back, verify passes.
    click_then_frame(&mut harness, "LOD");
    assert!(harness.state().settings().lod.enabled);
    for _ in 0..3 {
        run_frame(&mut harness);
    }
    harness.run_steps(2);
    harness.get_by_label("GPU LOD");
    assert!(harness.state().lod_stats().at_period.iter().sum::<usize>() > 0);
    harness.get_by_label_contains("period 1/2/4/8");
    verify_passes(&mut harness, "gpu_vertex animated on the GPU with LOD");
    harness.state_mut().settings_mut().pipeline.skin = SkinVariant::GpuCompute;
    verify_passes(&mut harness, "gpu_compute animated on the GPU with LOD");
    click_then_frame(&mut harness, "LOD");
    // A CPU skin variant takes the animation back to the CPU, and says why.
    harness.state_mut().settings_mut().pipeline.skin = SkinVariant::Pulled;
    run_frame(&mut harness);
    harness.run_steps(2);
    assert_eq!(harness.state().settings().animate, AnimateDevice::Cpu);
    assert!(
        harness
            .state()
            .notes()
            .iter()
            .any(|n| n.contains("so the CPU animates")),
        "{:?}",
        harness.state().notes()
    );
    verify_passes(&mut harness, "pulled after the GPU animated");
}

/// The clip boxes choose what the crowd plays, live: the default leaves the still clip out
/// and says why, a ticked box deals it in, the last box cannot be unticked, and "moving"
/// brings the default back.
fn the_clip_boxes_choose_what_the_crowd_plays() {
    use skinbench::crowd::mix::ClipChoice;
    let Some(path) = common::fox_with_tpose(&common::temp_dir("panel-clips")) else {
        common::cannot_run_here()
    };
    let rig = Arc::new(PreparedRig::load(&path).unwrap());
    let Some(mut harness) = harness_for(rig, 40) else {
        common::cannot_run_here()
    };
    let plays = |harness: &Harness<'static, Scene>, clip: u16| {
        harness
            .state()
            .crowd()
            .as_slice()
            .iter()
            .any(|i| i.clip == clip)
    };
    assert_eq!(harness.state().settings().clips, ClipChoice::Moving);
    assert!(!plays(&harness, 3));
    assert!(
        drawn_texts(&harness)
            .iter()
            .any(|t| t.contains("left out: TPose (still)")),
        "{:?}",
        drawn_texts(&harness)
    );
    // The list opens from its box and stays open while boxes are clicked.
    combo(&harness, "clips").click();
    harness.run_steps(2);
    click_then_frame(&mut harness, "TPose (still)");
    assert_eq!(
        harness.state().settings().clips,
        ClipChoice::Named(vec![
            "Survey".into(),
            "Walk".into(),
            "Run".into(),
            "TPose".into()
        ])
    );
    assert_eq!(harness.state().clip_mix().clips, [0, 1, 2, 3]);
    assert!(plays(&harness, 3));
    for name in ["Survey", "Walk", "Run"] {
        click_then_frame(&mut harness, name);
    }
    assert!(
        harness
            .state()
            .crowd()
            .as_slice()
            .iter()
            .all(|i| i.clip == 3)
    );
    // The last clip stays: its box is disabled.
    click_then_frame(&mut harness, "TPose (still)");
    assert_eq!(
        harness.state().settings().clips,
        ClipChoice::Named(vec!["TPose".into()])
    );
    click_then_frame(&mut harness, "moving");
    assert_eq!(harness.state().settings().clips, ClipChoice::Moving);
    assert!(!plays(&harness, 3));
    assert!(plays(&harness, 0) && plays(&harness, 1) && plays(&harness, 2));
}

/// The "file colours" box: on by default for a character whose file has materials, it
/// switches the crowd to the tints and back (the picture changes with it); for a rig whose
/// file names no material it is off and cannot be ticked.
fn the_file_colours_box_switches_between_the_files_colours_and_the_tints() {
    use skinbench::gpu::BaseColors;
    let Some(dir) = common::rigs_dir() else {
        common::cannot_run_here()
    };
    let rig = Arc::new(PreparedRig::load(&dir.join("Fox/Fox.glb")).unwrap());
    let Some(mut fox) = harness_for(rig, 6) else {
        common::cannot_run_here()
    };
    let h = &mut fox;
    // Paused, so that every frame draws the same poses.
    h.state_mut().settings_mut().paused = true;
    h.state_mut().frame(Frame::headless(1.0 / 60.0)).unwrap();
    assert!(h.state().renderer().has_materials());
    assert_eq!(h.state().renderer().base_colors(), BaseColors::File);
    let file_picture = h.state_mut().read_image().unwrap();
    for expected in [BaseColors::Tint, BaseColors::File] {
        click_then_frame(h, "file colours");
        assert_eq!(h.state().settings().base_colors, expected);
        assert_eq!(h.state().renderer().base_colors(), expected);
        let picture = h.state_mut().read_image().unwrap();
        let differ = picture
            .pixels()
            .zip(file_picture.pixels())
            .filter(|(a, b)| a.0[..3] != b.0[..3])
            .count();
        match expected {
            BaseColors::Tint => assert!(differ > 100, "the tints changed {differ} pixels"),
            BaseColors::File => assert_eq!(differ, 0, "back to the file's colours"),
        }
    }

    let Some(mut built_in) = harness() else {
        common::cannot_run_here()
    };
    assert!(!built_in.state().renderer().has_materials());
    click_then_frame(&mut built_in, "file colours");
    assert_eq!(built_in.state().settings().base_colors, BaseColors::File);
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "verify_is_within_tolerance_for_every_skin_and_upload_variant",
            verify_is_within_tolerance_for_every_skin_and_upload_variant,
        ),
        (
            "choosing_a_variant_in_a_combo_box_changes_the_running_pipeline",
            choosing_a_variant_in_a_combo_box_changes_the_running_pipeline,
        ),
        (
            "choosing_a_simd_level_runs_the_pipeline_at_it",
            choosing_a_simd_level_runs_the_pipeline_at_it,
        ),
        (
            "choosing_a_compute_shader_skins_gpu_compute_with_it",
            choosing_a_compute_shader_skins_gpu_compute_with_it,
        ),
        (
            "choosing_draws_per_level_or_per_character",
            choosing_draws_per_level_or_per_character,
        ),
        (
            "the_skinned_pool_box_skins_into_a_pool",
            the_skinned_pool_box_skins_into_a_pool,
        ),
        (
            "the_shadows_box_switches_the_shadow_pass",
            the_shadows_box_switches_the_shadow_pass,
        ),
        (
            "the_profiler_button_says_where_to_look_or_how_to_build_it",
            the_profiler_button_says_where_to_look_or_how_to_build_it,
        ),
        (
            "the_indirect_draws_box_switches_to_draws_one_by_one",
            the_indirect_draws_box_switches_to_draws_one_by_one,
        ),
        (
            "the_mesh_lod_box_draws_mesh_levels_and_the_colour_box_shows_them",
            the_mesh_lod_box_draws_mesh_levels_and_the_colour_box_shows_them,
        ),
        (
            "the_mesh_lod_line_counts_the_influences_the_cut_levels_blend",
            the_mesh_lod_line_counts_the_influences_the_cut_levels_blend,
        ),
        (
            "ticking_mesh_lod_leaves_the_measuring_to_the_app",
            ticking_mesh_lod_leaves_the_measuring_to_the_app,
        ),
        (
            "the_threshold_slider_keeps_every_threshold_the_flag_accepts",
            the_threshold_slider_keeps_every_threshold_the_flag_accepts,
        ),
        (
            "the_lod_box_turns_lod_on_and_the_panel_shows_periods_and_the_measured_error",
            the_lod_box_turns_lod_on_and_the_panel_shows_periods_and_the_measured_error,
        ),
        (
            "the_screenshot_button_says_where_the_file_went_or_why_not",
            the_screenshot_button_says_where_the_file_went_or_why_not,
        ),
        (
            "a_change_too_big_for_memory_is_refused_and_the_panel_says_why",
            a_change_too_big_for_memory_is_refused_and_the_panel_says_why,
        ),
        (
            "the_method_box_switches_to_dual_quaternions_and_refuses_a_linear_only_variant",
            the_method_box_switches_to_dual_quaternions_and_refuses_a_linear_only_variant,
        ),
        (
            "the_sidecar_holds_what_the_panel_drew_at_sixty_frames_a_second",
            the_sidecar_holds_what_the_panel_drew_at_sixty_frames_a_second,
        ),
        (
            "the_sidecar_holds_what_the_panel_drew_at_seconds_a_frame",
            the_sidecar_holds_what_the_panel_drew_at_seconds_a_frame,
        ),
        (
            "a_short_capture_leaves_the_setup_frames_out_and_says_so",
            a_short_capture_leaves_the_setup_frames_out_and_says_so,
        ),
        (
            "the_actions_fit_the_window_at_1280x720_and_1600x900",
            the_actions_fit_the_window_at_1280x720_and_1600x900,
        ),
        (
            "every_row_is_in_view_at_1600x900",
            every_row_is_in_view_at_1600x900,
        ),
        (
            "the_animate_box_moves_the_animation_to_the_gpu_and_back",
            the_animate_box_moves_the_animation_to_the_gpu_and_back,
        ),
        (
            "the_clip_boxes_choose_what_the_crowd_plays",
            the_clip_boxes_choose_what_the_crowd_plays,
        ),
        (
            "the_file_colours_box_switches_between_the_files_colours_and_the_tints",
            the_file_colours_box_switches_between_the_files_colours_and_the_tints,
        ),
    ];
    common::run_tests(tests);
}
