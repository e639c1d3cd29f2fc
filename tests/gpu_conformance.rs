//! CPU twins of the GPU skinning paths (vello's compare_gpu_cpu is the model): what
//! `gpu_compute` skins on whatever adapter exists (lavapipe without a GPU) is read back and
//! checked against the f64 reference with the CPU variants' tolerances, on the built-in rig
//! and every public rig, with both compute shaders: one case each
//! (`cargo test --test gpu_conformance -- fox/per_class`). One more case splits the
//! instances into ranges, as a device with small binding limits does.

mod common;

use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use skinbench::crowd::verify::{POSITION_TOLERANCE, verify_frame};
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig};
use skinbench::gpu::skin::ComputeShader;
use skinbench::gpu::{CrowdRenderer, UploadVariant, Uploader};
use skinbench::prepare::PreparedRig;
use skinbench::skin::SkinVariant;
use skinbench::variant::Variant;

/// Three frames of `instances` instances skinned on the GPU, each read back and compared
/// with the oracle.
fn gpu_compute(
    rig: &Arc<PreparedRig>,
    shader: ComputeShader,
    instances: usize,
    range_limit: Option<usize>,
) -> Result<(), Failed> {
    let Some(gpu) = common::gpu_context() else {
        return Ok(());
    };
    let config = PipelineConfig {
        skin: SkinVariant::GpuCompute,
        ..PipelineConfig::best_for(rig, 1)
    };
    let mut pipeline = Pipeline::new(rig.clone(), config).map_err(|e| e.to_string())?;
    let mut renderer = CrowdRenderer::new(&gpu.device, rig, wgpu::TextureFormat::Rgba8Unorm);
    renderer.set_compute_shader(shader);
    renderer.limit_gpu_ranges(range_limit);
    let mut uploader = Uploader::new(&gpu.device);
    let mut crowd = InstanceStore::new();
    crowd.resize(instances, rig, 2.0);
    for _ in 0..3 {
        crowd.advance(0.137);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        uploader
            .frame(
                UploadVariant::WriteBuffer,
                &gpu.device,
                &gpu.queue,
                &mut encoder,
                &mut renderer,
                &mut pipeline,
                crowd.as_slice(),
            )
            .map_err(|e| e.to_string())?;
        gpu.queue.submit([encoder.finish()]);
        uploader.after_submit();
        let skinned = renderer.read_gpu_skinned(
            &gpu.device,
            &gpu.queue,
            pipeline.output_layout(),
            crowd.len(),
        )?;
        let d = verify_frame(&pipeline, crowd.as_slice(), &skinned, usize::MAX)
            .map_err(|e| e.to_string())?;
        if d.instances_checked != instances {
            return Err(format!("checked {} instances of {instances}", d.instances_checked).into());
        }
        if d.relative_position > POSITION_TOLERANCE {
            return Err(format!(
                "position error {:e} of the rig size: {d:?}",
                d.relative_position
            )
            .into());
        }
        if d.max_normal > d.normal_tolerance {
            return Err(format!("normal error {:e}: {d:?}", d.max_normal).into());
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    let rigs = common::prepared_rigs();
    for (name, rig) in rigs {
        for &shader in ComputeShader::ALL {
            let rig = rig.clone();
            trials.push(Trial::test(
                format!("gpu_compute/{name}/{}", shader.name()),
                move || gpu_compute(&rig, shader, 13, None),
            ));
        }
    }
    let (_, reference) = &rigs[0];
    for &shader in ComputeShader::ALL {
        let rig = reference.clone();
        trials.push(Trial::test(
            format!("gpu_compute/reference/{}/ranges_of_5", shader.name()),
            move || gpu_compute(&rig, shader, 13, Some(5)),
        ));
    }
    libtest_mimic::run(&args, trials).exit();
}
