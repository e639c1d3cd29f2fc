//! Update-rate LOD through the app's scene on a real adapter (lavapipe without a GPU): the
//! GPU buffer keeps the poses of characters not updated this frame, with every upload
//! variant (and their fallbacks for misaligned staging memory), and verify checks what is
//! drawn against the f64 oracle. And the draws of a culled crowd: indirect multi-draws
//! make the same picture as the same draws issued one by one, per skin variant.

mod common;

use std::sync::Arc;

use skinbench::crowd::lod::LodSettings;
use skinbench::gpu::readback::read_texture;
use skinbench::gpu::scene::Frame;
use skinbench::gpu::scene::Scene;
use skinbench::gpu::{CameraStart, OrbitCamera, UploadVariant, crowd_extent};
use skinbench::prepare::PreparedRig;
use skinbench::skin::SkinVariant;
use skinbench::variant::Variant;

/// 300 characters from 60 m away in a 640×360 image (a mix of periods at 4 px), LOD on.
fn scene() -> Option<Scene> {
    let gpu = common::gpu_context()?;
    let rig = Arc::new(PreparedRig::reference());
    let mut settings = common::app_settings(&rig, 300);
    settings.lod = LodSettings {
        enabled: true,
        threshold_px: 4.0,
        max_period: 8,
        ..LodSettings::default()
    };
    settings.shadows = false;
    let mut scene = common::offscreen_scene(&gpu, &rig, settings, (640, 360)).unwrap();
    *scene.camera_mut() = OrbitCamera {
        distance: 60.0,
        ..OrbitCamera::start(CameraStart::Overview, crowd_extent(scene.crowd()))
    };
    Some(scene)
}

/// Frames until one computes only part of the crowd, then verify. Returns the upload
/// notes of the frames (a frame that uploads nothing has none).
fn partial_frames_verify(scene: &mut Scene, what: &str) -> Vec<String> {
    let mut partial = false;
    let mut notes = Vec::new();
    for _ in 0..6 {
        scene.frame(Frame::headless(1.0 / 60.0)).unwrap();
        let stats = scene.lod_stats();
        partial |= stats.updated > 0 && stats.updated < scene.crowd().len();
        notes.extend(scene.upload_note().map(str::to_string));
    }
    assert!(partial, "{what}: no frame computed part of the crowd");
    let deviation = scene.verify().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(deviation.within_tolerance(), "{what}: {deviation:?}");
    let error = scene.measure_lod_error(None).unwrap();
    assert!(error.max_px <= 4.0, "{what}: {error:?}");
    notes
}

fn lod_frames_verify_with_every_upload_variant_and_skin_variant() {
    let Some(mut scene) = scene() else {
        common::cannot_run_here()
    };
    for &upload in UploadVariant::ALL {
        for &skin in SkinVariant::ALL {
            let what = format!("{} {}", skin.name(), upload.name());
            if scene.skin_refusals().iter().any(|(s, _)| *s == skin) {
                continue;
            }
            scene.settings_mut().upload = upload;
            scene.settings_mut().pipeline.skin = skin;
            let _ = partial_frames_verify(&mut scene, &what);
        }
    }
}

fn misaligned_staging_memory_falls_back_and_still_verifies() {
    let Some(mut scene) = scene() else {
        common::cannot_run_here()
    };
    scene.simulate_misaligned_staging(true);
    for upload in [UploadVariant::InPlace, UploadVariant::StagingBelt] {
        scene.settings_mut().upload = upload;
        let notes = partial_frames_verify(&mut scene, upload.name());
        assert!(
            notes.iter().any(|note| note.contains("aligned")),
            "{}: {notes:?}",
            upload.name()
        );
    }
}

/// The picture of the scene as it stands, with indirect draws on or off: frames that
/// advance no time, until every group LOD left stale has caught up (the longest period).
fn still_picture(scene: &mut Scene, indirect: bool) -> image::RgbaImage {
    scene.settings_mut().indirect_draws = indirect;
    for _ in 0..=scene.settings().lod.max_period {
        scene.frame(Frame::headless(0.0)).unwrap();
    }
    assert_eq!(
        scene.lod_stats().updated,
        0,
        "a still frame recomputed characters"
    );
    assert_eq!(scene.renderer().indirect_draws(), indirect);
    read_texture(scene.gpu(), &scene.targets().color).unwrap()
}

/// From the street camera (characters behind it culled), shadows on: the multi-draws'
/// picture is the one-by-one draws' picture, pixel for pixel, and takes a handful of
/// commands.
fn indirect_draws_match_direct_draws(skin: &str) {
    let Some(mut scene) = scene() else {
        common::cannot_run_here()
    };
    let skin = SkinVariant::from_name(skin).unwrap();
    if scene.skin_refusals().iter().any(|(s, _)| *s == skin) {
        return;
    }
    assert!(scene.renderer().indirect_supported(), "{}", skin.name());
    scene.settings_mut().pipeline.skin = skin;
    scene.settings_mut().shadows = true;
    *scene.camera_mut() = OrbitCamera::start(CameraStart::Street, crowd_extent(scene.crowd()));
    for _ in 0..3 {
        scene.frame(Frame::headless(1.0 / 60.0)).unwrap();
    }
    let indirect = still_picture(&mut scene, true);
    let indirect_commands = scene.renderer().draw_commands();
    let direct = still_picture(&mut scene, false);
    let direct_commands = scene.renderer().draw_commands();
    let culled = scene.lod_stats().culled;
    assert!(culled > 0, "{}: nothing culled", skin.name());
    let differing = indirect
        .pixels()
        .zip(direct.pixels())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differing, 0, "{}: pixels differ", skin.name());
    // Indirect: a multi-draw per binding (a lane-block slot each at most).
    assert!(
        indirect_commands.iter().all(|&c| (1..=8).contains(&c)),
        "{}: {indirect_commands:?}",
        skin.name()
    );
    // One by one: through a storage chunk, a draw per run of visible characters (the
    // shadow pass: one run); through vertex buffers, a draw per visible character.
    match direct_commands {
        [main, 1] => assert!(main >= 1, "{}: {direct_commands:?}", skin.name()),
        [main, all] => {
            assert_eq!(all, scene.crowd().len(), "{}", skin.name());
            assert_eq!(main, all - culled, "{}", skin.name());
        }
    }
}

macro_rules! indirect_draw_cases {
    ($($name:ident),* $(,)?) => {
        $(
            fn $name() {
                indirect_draws_match_direct_draws(
                    stringify!($name).trim_start_matches("indirect_draws_match_direct_"),
                );
            }
        )*

        /// The cases above, for the harness.
        fn indirect_draw_tests() -> Vec<(&'static str, fn())> {
            vec![$((stringify!($name), $name as fn())),*]
        }
    };
}

indirect_draw_cases!(
    indirect_draws_match_direct_naive,
    indirect_draws_match_direct_split,
    indirect_draws_match_direct_float4,
    indirect_draws_match_direct_sorted,
    indirect_draws_match_direct_tuned,
    indirect_draws_match_direct_simd,
    indirect_draws_match_direct_packed,
    indirect_draws_match_direct_distinct,
    indirect_draws_match_direct_streamed,
    indirect_draws_match_direct_pulled,
    indirect_draws_match_direct_gpu_compute,
    indirect_draws_match_direct_gpu_vertex,
);

fn the_indirect_draw_cases_name_every_skin_variant() {
    let named = [
        "naive",
        "split",
        "float4",
        "sorted",
        "tuned",
        "simd",
        "packed",
        "distinct",
        "streamed",
        "pulled",
        "gpu_compute",
        "gpu_vertex",
    ];
    let all: Vec<&str> = SkinVariant::ALL.iter().map(|v| v.name()).collect();
    assert_eq!(all, named);
}

fn main() {
    let mut tests: Vec<(&'static str, fn())> = vec![
        (
            "lod_frames_verify_with_every_upload_variant_and_skin_variant",
            lod_frames_verify_with_every_upload_variant_and_skin_variant,
        ),
        (
            "misaligned_staging_memory_falls_back_and_still_verifies",
            misaligned_staging_memory_falls_back_and_still_verifies,
        ),
        (
            "the_indirect_draw_cases_name_every_skin_variant",
            the_indirect_draw_cases_name_every_skin_variant,
        ),
    ];
    tests.extend(indirect_draw_tests());
    common::run_tests(tests);
}
