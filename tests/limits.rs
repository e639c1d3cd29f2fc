//! The device's limits, reached with small crowds: a device asked for a small largest
//! buffer (an odd size, as 2 GiB − 1 is) runs the largest crowd the memory budget accepts
//! with every upload variant, exactly, and without a validation error; one more character is
//! refused with the count that fits. Animated on the GPU, a crowd whose palettes are
//! several times that buffer runs (they are split per range).

mod common;

use std::sync::Arc;

use skinbench::crowd::{AnimateDevice, PipelineConfig};
use skinbench::gpu::scene::{Frame, Scene, SceneError};
use skinbench::gpu::upload::split_runs;
use skinbench::gpu::{DeviceRequest, GpuContext, UploadVariant};
use skinbench::prepare::PreparedRig;
use skinbench::skin::SkinVariant;
use skinbench::variant::Variant;

/// 6 MiB and a page: not a power of two, so a staging request rounded up to one passes it.
const LIMIT: u64 = (6 << 20) + 4096;

fn limited_context() -> Option<GpuContext> {
    common::gpu_context()?;
    Some(
        GpuContext::offscreen_with(DeviceRequest {
            max_buffer_size: Some(LIMIT),
        })
        .expect("the adapter takes a smaller largest buffer"),
    )
}

/// The test rig whose skinned character is the largest, with its best configuration.
fn largest_rig() -> (Arc<PreparedRig>, PipelineConfig) {
    common::prepared_rigs()
        .iter()
        .map(|(_, rig)| (rig.clone(), PipelineConfig::best_for(rig, 1)))
        .max_by_key(|(rig, config)| config.skin.layout(rig, config.method).bytes(1))
        .expect("rigs")
}

fn scene(gpu: &GpuContext, rig: &Arc<PreparedRig>, upload: UploadVariant, n: usize) -> Scene {
    let mut settings = common::app_settings(rig, n);
    settings.upload = upload;
    settings.shadows = false;
    Scene::new(
        gpu.clone(),
        rig.clone(),
        settings,
        wgpu::TextureFormat::Rgba8Unorm,
        (64, 40),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", upload.name()))
}

fn the_largest_crowd_that_fits_runs_exactly_on_every_upload() {
    let Some(gpu) = limited_context() else {
        common::cannot_run_here()
    };
    assert_eq!(gpu.device.limits().max_buffer_size, LIMIT);
    let (rig, config) = largest_rig();
    let layout = config.skin.layout(&rig, config.method);
    for &upload in UploadVariant::ALL {
        let mut settings = common::app_settings(&rig, 10_000);
        settings.upload = upload;
        let refused = Scene::new(
            gpu.clone(),
            rig.clone(),
            settings,
            wgpu::TextureFormat::Rgba8Unorm,
            (64, 40),
        );
        let fits = match refused {
            Err(SceneError::Budget(e)) => {
                assert!(
                    e.to_string().contains("largest buffer"),
                    "{}: {e}",
                    upload.name()
                );
                e.fits
            }
            Err(e) => panic!("{}: refused for another reason: {e}", upload.name()),
            Ok(_) => panic!(
                "{}: 10,000 of {} fit {LIMIT} bytes",
                upload.name(),
                rig.name
            ),
        };
        let bytes = layout.bytes(fits) as u64;
        assert!(bytes <= LIMIT && layout.bytes(fits + 1) as u64 > LIMIT);
        assert!(
            bytes.next_power_of_two() > LIMIT,
            "the crowd must be large enough that a request rounded up would not fit"
        );
        let mut scene = scene(&gpu, &rig, upload, fits);
        for _ in 0..3 {
            scene
                .frame(Frame::headless(1.0 / 30.0))
                .unwrap_or_else(|e| panic!("{} at {fits}: {e}", upload.name()));
        }
        let verdict = scene.verify().unwrap();
        assert!(
            verdict.within_tolerance(),
            "{} at {fits}: {}",
            upload.name(),
            verdict.to_text()
        );
        assert!(gpu.take_errors().is_empty());
    }
}

/// The animation on the GPU splits its palettes per range: a crowd whose palettes are
/// several times the largest buffer runs with either GPU skin path, exactly, without a
/// validation error (uploaded from the CPU, the same palettes are refused).
fn a_gpu_animated_crowd_outgrows_the_largest_buffer() {
    let Some(gpu) = limited_context() else {
        common::cannot_run_here()
    };
    let rig = Arc::new(PreparedRig::reference());
    for skin in [SkinVariant::GpuVertex, SkinVariant::GpuCompute] {
        let mut settings = common::app_settings(&rig, 1);
        settings.pipeline.skin = skin;
        let layout = skin.layout(&rig, settings.pipeline.method);
        // Three and a half buffers' worth of palettes.
        let n = (7 * LIMIT / 2) as usize / layout.instance_stride();
        settings.instances = n;
        settings.animate = AnimateDevice::Gpu;
        settings.shadows = false;
        let mut scene = Scene::new(
            gpu.clone(),
            rig.clone(),
            settings,
            wgpu::TextureFormat::Rgba8Unorm,
            (64, 40),
        )
        .unwrap_or_else(|e| panic!("{}: {n} refused: {e}", skin.name()));
        assert!(layout.bytes(n) as u64 > 3 * LIMIT);
        scene.request_verify();
        scene
            .frame(Frame::headless(1.0 / 30.0))
            .unwrap_or_else(|e| panic!("{} at {n}: {e}", skin.name()));
        assert_eq!(
            scene.settings().animate,
            AnimateDevice::Gpu,
            "{:?}",
            scene.notes()
        );
        assert_eq!(
            scene.settings().instances,
            n,
            "{}: the crowd was cut to what one buffer holds",
            skin.name()
        );
        let verdict = match scene.take_last_verify() {
            Some(Ok(verdict)) => verdict,
            other => panic!("{}: no verify: {other:?}", skin.name()),
        };
        assert!(
            verdict.within_tolerance(),
            "{}: {}",
            skin.name(),
            verdict.to_text()
        );
        assert!(gpu.take_errors().is_empty());
    }
}

/// A validation error reaches the caller of a frame as an error that says what it is, not
/// as wgpu's panic.
fn a_validation_error_is_an_error_not_a_panic() {
    let Some(gpu) = limited_context() else {
        common::cannot_run_here()
    };
    let (rig, _) = largest_rig();
    let mut scene = scene(&gpu, &rig, UploadVariant::DEFAULT, 4);
    scene.frame(Frame::headless(1.0 / 30.0)).unwrap();
    let _too_large = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("past the limit on purpose"),
        size: LIMIT * 2,
        usage: wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let error = scene
        .frame(Frame::headless(1.0 / 30.0))
        .expect_err("the error is reported");
    let text = error.to_string();
    assert!(
        matches!(error, SceneError::Validation(_)) && text.contains("past the limit on purpose"),
        "{text}"
    );
}

/// The pieces a frame is staged in cover its runs' groups, in order, each within the cap.
fn runs_are_cut_into_pieces_within_the_cap() {
    let (rig, config) = largest_rig();
    let layout = config.skin.layout(&rig, config.method);
    let instances: usize = 997;
    let groups = instances.div_ceil(skinbench::types::LANES);
    let runs = [0..3, 5..groups / 2, groups / 2 + 1..groups];
    for cap in [
        layout.groups_span(instances, &(0..1)).1 as u64,
        LIMIT,
        1 << 30,
    ] {
        let pieces = split_runs(&layout, instances, &runs, cap).unwrap();
        let covered: Vec<usize> = pieces.iter().flat_map(|p| p.clone()).collect();
        let wanted: Vec<usize> = runs.iter().flat_map(|r| r.clone()).collect();
        assert_eq!(covered, wanted, "cap {cap}");
        for piece in &pieces {
            assert!(!piece.is_empty());
            assert!(
                layout.groups_span(instances, piece).1 as u64 <= cap,
                "cap {cap}"
            );
        }
    }
    assert!(
        split_runs(&layout, instances, &runs, 16).is_err(),
        "a group larger than the cap is refused"
    );
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "the_largest_crowd_that_fits_runs_exactly_on_every_upload",
            the_largest_crowd_that_fits_runs_exactly_on_every_upload,
        ),
        (
            "a_gpu_animated_crowd_outgrows_the_largest_buffer",
            a_gpu_animated_crowd_outgrows_the_largest_buffer,
        ),
        (
            "a_validation_error_is_an_error_not_a_panic",
            a_validation_error_is_an_error_not_a_panic,
        ),
        (
            "runs_are_cut_into_pieces_within_the_cap",
            runs_are_cut_into_pieces_within_the_cap,
        ),
    ];
    common::run_tests(tests);
}
