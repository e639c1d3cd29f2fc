//! Update-rate LOD through the app's scene on a real adapter (lavapipe without a GPU): the
//! GPU buffer keeps the poses of characters not updated this frame, with every upload
//! variant (and their fallbacks for misaligned staging memory), and verify checks what is
//! drawn against the f64 oracle.

mod common;

use std::sync::Arc;

use skinbench::crowd::lod::LodSettings;
use skinbench::gpu::{CameraStart, OrbitCamera, UploadVariant, crowd_extent};
use skinbench::prepare::PreparedRig;
use skinbench::skin::SkinVariant;
use skinbench::ui::scene::Scene;
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
    };
    settings.shadows = false;
    let mut scene = Scene::new(
        gpu,
        rig,
        settings,
        wgpu::TextureFormat::Rgba8Unorm,
        (640, 360),
    )
    .unwrap();
    scene.camera = OrbitCamera {
        distance: 60.0,
        ..OrbitCamera::start(CameraStart::Overview, crowd_extent(&scene.crowd))
    };
    Some(scene)
}

/// Frames until one computes only part of the crowd, then verify.
fn partial_frames_verify(scene: &mut Scene, what: &str) {
    let mut partial = false;
    for _ in 0..6 {
        scene.render_frame(1.0 / 60.0).unwrap();
        let stats = scene.lod.stats;
        partial |= stats.updated > 0 && stats.updated < scene.crowd.len();
    }
    assert!(partial, "{what}: no frame computed part of the crowd");
    let deviation = scene.verify().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(deviation.within_tolerance(), "{what}: {deviation:?}");
    let error = scene.measure_lod_error(None).unwrap();
    assert!(error.max_px <= 4.0, "{what}: {error:?}");
}

#[test]
fn lod_frames_verify_with_every_upload_variant_and_skin_variant() {
    let Some(mut scene) = scene() else { return };
    for &upload in UploadVariant::ALL {
        for &skin in SkinVariant::ALL {
            let what = format!("{} {}", skin.name(), upload.name());
            if scene.skin_refusals.iter().any(|(s, _)| *s == skin) {
                continue;
            }
            scene.settings.upload = upload;
            scene.settings.pipeline.skin = skin;
            partial_frames_verify(&mut scene, &what);
        }
    }
}

#[test]
fn misaligned_staging_memory_falls_back_and_still_verifies() {
    let Some(mut scene) = scene() else { return };
    scene.uploader.simulate_misaligned_staging = true;
    for upload in [UploadVariant::InPlace, UploadVariant::StagingBelt] {
        scene.settings.upload = upload;
        partial_frames_verify(&mut scene, upload.name());
        let note = scene.uploader.note.clone().unwrap_or_default();
        assert!(note.contains("aligned"), "{}: {note:?}", upload.name());
    }
}
