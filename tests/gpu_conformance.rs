//! CPU twins of the GPU skinning paths (vello's compare_gpu_cpu is the model): what
//! `gpu_compute` skins on whatever adapter exists (lavapipe without a GPU) is read back and
//! checked against the f64 reference with the CPU variants' tolerances, on the built-in rig
//! and every public rig, with both compute shaders: one case each
//! (`cargo test --test gpu_conformance -- fox/per_class`). One more case splits the
//! instances into ranges, as a device with small binding limits does. `gpu_vertex` stores
//! nothing to read back: it is checked by picture, the same image as the CPU `packed` path
//! (no channel of any pixel more than 2 of 255 apart, but for edge pixels whose coverage
//! flips with the last bit of a position, one per thousand drawn pixels at most) on every
//! rig, with shadows off and on (where `gpu_vertex` skins again in the shadow pass). Both
//! again with dual quaternions (`dual_quat/...`) on every rig that accepts them.

mod common;

use std::sync::Arc;

use libtest_mimic::{Arguments, Failed};
use skinbench::crowd::verify::verify_frame;
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig};
use skinbench::gpu::skin::ComputeShader;
use skinbench::gpu::{
    CrowdRenderer, FrameShape, OrbitCamera, PassContext, UploadVariant, Uploader, crowd_extent,
};
use skinbench::prepare::PreparedRig;
use skinbench::skin::{SkinMethod, SkinVariant};
use skinbench::variant::Variant;

/// Three frames of `instances` instances skinned on the GPU, each read back and compared
/// with the oracle.
fn gpu_compute(
    rig: &Arc<PreparedRig>,
    shader: ComputeShader,
    instances: usize,
    range_limit: Option<usize>,
    method: SkinMethod,
) -> Result<(), Failed> {
    gpu_compute_frames(rig, shader, &[instances; 3], range_limit, method)
}

/// One frame per entry of `counts` (that many instances), each read back and compared with
/// the oracle: a count that changes makes the skinner remake its ranges and bindings.
fn gpu_compute_frames(
    rig: &Arc<PreparedRig>,
    shader: ComputeShader,
    counts: &[usize],
    range_limit: Option<usize>,
    method: SkinMethod,
) -> Result<(), Failed> {
    let gpu = common::gpu_or_skip();
    let config = PipelineConfig {
        skin: SkinVariant::GpuCompute,
        method,
        ..PipelineConfig::best_for(rig, 1)
    };
    let mut pipeline = Pipeline::new(rig.clone(), config).map_err(|e| e.to_string())?;
    let mut renderer = CrowdRenderer::new(&gpu.device, rig, wgpu::TextureFormat::Rgba8Unorm);
    renderer.set_compute_shader(shader);
    renderer.limit_gpu_ranges(range_limit);
    let mut uploader = Uploader::new(&gpu.device);
    let mut crowd = InstanceStore::new();
    for &instances in counts {
        crowd.resize(instances, rig, 2.0);
        crowd.advance(0.137);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        uploader
            .frame(
                UploadVariant::WriteBuffer,
                &gpu,
                &mut encoder,
                &mut renderer,
                &mut pipeline,
                crowd.as_slice(),
            )
            .map_err(|e| e.to_string())?;
        let shape = FrameShape::new(pipeline.output_layout(), crowd.len());
        let mut ctx = PassContext::new(&gpu, &mut encoder, None, shape);
        renderer.record_gpu_skinning(&mut ctx, rig, None)?;
        gpu.queue.submit([encoder.finish()]);
        uploader.after_submit();
        let skinned = renderer.read_gpu_skinned(&gpu, pipeline.output_layout(), crowd.len())?;
        let d = verify_frame(&pipeline, crowd.as_slice(), &skinned, usize::MAX)
            .map_err(|e| e.to_string())?;
        if d.instances_checked != instances {
            return Err(format!("checked {} instances of {instances}", d.instances_checked).into());
        }
        common::skin_within_tolerance(&d)?;
    }
    Ok(())
}

/// `gpu_vertex` draws the same picture as `packed` does from the CPU's vertices, with the
/// same skinning method.
fn gpu_vertex_picture(
    rig: &Arc<PreparedRig>,
    shadows: bool,
    method: SkinMethod,
) -> Result<(), Failed> {
    let gpu = common::gpu_or_skip();
    let mut crowd = InstanceStore::new();
    crowd.resize(6, rig, 2.5);
    crowd.advance(0.37);
    let mut camera = OrbitCamera::framing(crowd_extent(&crowd));
    camera.distance *= 0.6;
    let size = (320, 200);
    let picture = |skin: SkinVariant| {
        let config = PipelineConfig {
            skin,
            method,
            ..PipelineConfig::best_for(rig, 1)
        };
        common::render_picture(
            &gpu,
            rig.clone(),
            &crowd,
            common::Drawn {
                config,
                upload: UploadVariant::WriteBuffer,
                shadows,
            },
            &camera,
            size,
        )
    };
    let expected = picture(SkinVariant::Packed)?;
    let got = picture(SkinVariant::GpuVertex)?;
    let empty = common::render_picture(
        &gpu,
        rig.clone(),
        &InstanceStore::new(),
        common::Drawn {
            config: PipelineConfig::best_for(rig, 1),
            upload: UploadVariant::WriteBuffer,
            shadows,
        },
        &camera,
        size,
    )?;
    let covered = common::covered_pixels(&expected, &empty)?;
    common::pictures_match(&expected, &got, covered).map_err(|e| {
        let dir = common::temp_dir(&format!(
            "gpu_vertex_picture_{}_{}_{shadows}",
            rig.name,
            method.name()
        ));
        let _ = got.save(dir.join("gpu_vertex.png"));
        let _ = expected.save(dir.join("packed.png"));
        Failed::from(format!("{e} (pictures in {})", dir.display()))
    })
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    let rigs = common::prepared_rigs();
    // Each method on every rig that accepts it: linear on all, dual quaternions on the
    // rigid ones (named `dual_quat/...`).
    for &method in SkinMethod::ALL {
        let prefix = match method {
            SkinMethod::Linear => String::new(),
            SkinMethod::DualQuat => format!("{}/", method.name()),
        };
        // A rig with more influences than the GPU paths take is refused (tests/cli.rs).
        for (name, rig) in rigs.iter().filter(|(_, r)| {
            SkinVariant::GpuCompute.refusal(method, r).is_none()
                && SkinVariant::GpuVertex.refusal(method, r).is_none()
        }) {
            for &shader in ComputeShader::ALL {
                let rig = rig.clone();
                trials.push(common::trial(
                    format!("{prefix}gpu_compute/{name}/{}", shader.name()),
                    move || gpu_compute(&rig, shader, 13, None, method),
                ));
            }
            for shadows in [false, true] {
                let rig = rig.clone();
                let label = if shadows { "shadows_on" } else { "shadows_off" };
                trials.push(common::trial(
                    format!("{prefix}gpu_vertex/{name}/same_picture_as_packed/{label}"),
                    move || gpu_vertex_picture(&rig, shadows, method),
                ));
            }
        }
    }
    let (_, reference) = &rigs[0];
    for &shader in ComputeShader::ALL {
        let rig = reference.clone();
        trials.push(common::trial(
            format!("gpu_compute/reference/{}/ranges_of_5", shader.name()),
            move || gpu_compute(&rig, shader, 13, Some(5), SkinMethod::Linear),
        ));
    }
    for &shader in ComputeShader::ALL {
        let rig = reference.clone();
        trials.push(common::trial(
            format!(
                "gpu_compute/reference/{}/changing_counts_in_ranges_of_7",
                shader.name()
            ),
            move || {
                gpu_compute_frames(
                    &rig,
                    shader,
                    &[12, 13, 40, 40, 5, 29],
                    Some(7),
                    SkinMethod::Linear,
                )
            },
        ));
    }
    common::run_trials(&args, trials);
}
