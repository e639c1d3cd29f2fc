//! CPU twins of the animation on the GPU (`--animate gpu`): on whatever adapter exists
//! (lavapipe without a GPU), the compute passes sample, blend, walk the hierarchy and
//! write the palettes of a small crowd; the local poses, model matrices and palettes are
//! read back and compared with the CPU pipeline (the same palettes within the CPU
//! variants' tolerance) and with the f64 oracles (`verify_gpu_animation`), on every rig
//! (the built-in ones, the twist capsule, every public rig, the split Fox), with both
//! hierarchy passes, with and without the cross-fade, and with dual quaternions where the
//! rig takes them: one case each (`cargo test --test gpu_animate -- fox/levels`). Two more
//! cases split the characters into ranges, two more their palettes into buffers too, four
//! more have the ranges take turns in one or three pose slots (`pose_slots_*`), and one
//! changes only some characters between frames (only those records are written). The
//! `scene/...` cases draw a crowd with the app's scene animating on the GPU and on the
//! CPU, with `gpu_compute` and `gpu_vertex`: the pictures must be the same (as
//! tests/gpu_conformance.rs compares pictures) and the scene's verify of the GPU's frame
//! must pass; `scene_split_palettes/...` does so with the palettes split into buffers of
//! four characters, written and read in ranges of one, and `scene_pose_slots/...` with
//! those ranges taking turns in two pose slots.

mod common;

use std::sync::Arc;

use libtest_mimic::{Arguments, Failed};
use skinbench::crowd::verify::{
    FrameDeviation, GpuLevels, POSE_TOLERANCE, verified_indices, verify_gpu_animation,
};
use skinbench::crowd::{AnimateDevice, InstanceStore, Pipeline, PipelineConfig};
use skinbench::gpu::animate::{AnimateFrame, GpuAnimator, GpuHierarchy, RECORD_BYTES};
use skinbench::gpu::ranges::{BindingLimits, PaletteRanges};
use skinbench::gpu::scene::Frame;
use skinbench::gpu::{
    FrameShape, GpuContext, OrbitCamera, PaletteBuffer, PaletteBuffers, UploadVariant,
    crowd_extent, read_buffer,
};
use skinbench::prepare::PreparedRig;
use skinbench::prepare::joint_sets::weighted_entries;
use skinbench::skin::{OutputBuffer, SkinMethod, SkinVariant};
use skinbench::types::Mat3x4;
use skinbench::variant::Variant;

/// Clock readings between writing the records and animating: every time advances.
const CLOCK_SECS: f32 = 0.37;

struct Case {
    method: SkinMethod,
    hierarchy: GpuHierarchy,
    blend_weight: f32,
    characters: usize,
    range_limit: Option<usize>,
    /// Palettes split into buffers of at most this many characters (`None`: one buffer).
    palettes_per_buffer: Option<usize>,
    /// The ranges take turns in at most this many pose slots (`None`: each its own).
    pose_slots: Option<usize>,
}

/// What the GPU computed for `crowd` at [`CLOCK_SECS`]: the palettes, and the animator.
fn animate_on_gpu(
    gpu: &GpuContext,
    pipeline: &Pipeline,
    animator: &mut GpuAnimator,
    crowd: &InstanceStore,
    case: &Case,
    clock_secs: f32,
) -> Result<Vec<u8>, Failed> {
    let layout = *pipeline.output_layout();
    let n = crowd.len();
    let one = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("palettes"),
        size: layout.bytes(n).max(16) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut split = PaletteRanges::new();
    let palettes = match case.palettes_per_buffer {
        None => PaletteBuffers::one(&one),
        Some(per_buffer) => {
            let mut limits = BindingLimits::of(&gpu.device);
            limits.limit_to(Some(per_buffer));
            split.fit(&gpu.device, &limits, n, layout.instance_stride() as u64);
            split.buffers().cloned().ok_or("no palette buffers")?
        }
    };
    animator.write_characters(gpu, crowd, 0.0);
    // Verify's characters: where the ranges take turns in the pose slots, theirs are kept.
    animator.watch(n, 16);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    animator
        .record(
            gpu,
            &mut encoder,
            PaletteBuffer::new(&palettes, FrameShape::new(&layout, n)),
            &AnimateFrame {
                joint_levels: 1,
                clock_secs,
                blend_weight: case.blend_weight,
                hierarchy: case.hierarchy,
            },
            None,
        )
        .map_err(|e| e.to_string())?;
    gpu.queue.submit([encoder.finish()]);
    // The palettes in the characters' order, from each buffer they were split into.
    let out = palettes
        .read(gpu, n, layout.instance_stride())
        .map_err(|e| e.to_string())?;
    if out.len() != layout.bytes(n) {
        return Err(format!(
            "read {} bytes of palettes, not {}",
            out.len(),
            layout.bytes(n)
        )
        .into());
    }
    Ok(out)
}

fn twin(rig: &Arc<PreparedRig>, case: Case) -> Result<(), Failed> {
    let gpu = common::gpu_or_skip();
    let config = PipelineConfig {
        skin: SkinVariant::GpuVertex,
        method: case.method,
        blend_weight: case.blend_weight,
        ..PipelineConfig::best_for(rig, 1)
    };
    let mut pipeline = Pipeline::new(rig.clone(), config).map_err(|e| e.to_string())?;
    let mut animator = GpuAnimator::new(&gpu.device, rig, case.method);
    animator.limit_ranges(case.range_limit);
    animator.limit_pose_slots(case.pose_slots);
    let mut crowd = InstanceStore::new();
    crowd.resize(case.characters, rig, 2.0);
    crowd.advance(0.137);
    let gpu_palettes = animate_on_gpu(&gpu, &pipeline, &mut animator, &crowd, &case, CLOCK_SECS)?;
    let at_clock = animator.crowd_at(CLOCK_SECS);

    // The same frame on the CPU: the palettes a GPU skin variant would upload.
    let layout = *pipeline.output_layout();
    let mut cpu = OutputBuffer::for_instances(&layout, at_clock.len());
    pipeline
        .run_frame(&at_clock, &mut cpu)
        .map_err(|e| e.to_string())?;
    // Palette entries hold rotations (≤ 1) and translations (≤ the rig's size). The GPU
    // writes the entries a weighted influence names (the others move no vertex).
    let scale = rig.model_size.max(1.0);
    let mut worst = 0.0f32;
    if case.method == SkinMethod::Linear {
        let named = weighted_entries(&rig.source_mesh, rig.palette_len());
        let cpu_bytes = &cpu.as_bytes()[..gpu_palettes.len()];
        for i in 0..at_clock.len() {
            let read = |bytes: &[u8]| layout.read_palettes(rig, bytes, i);
            let (g, gn) = read(&gpu_palettes).map_err(|e| e.to_string())?;
            let (c, cn) = read(cpu_bytes).map_err(|e| e.to_string())?;
            // Each named entry's position rows, then its normal rows where the rig has them.
            let rows = |m: &[Mat3x4], n: &[Mat3x4]| -> Vec<f32> {
                named
                    .iter()
                    .enumerate()
                    .filter(|&(_, &named)| named)
                    .flat_map(|(e, _)| m.get(e).into_iter().chain(n.get(e)))
                    .flat_map(|entry| bytemuck::cast::<Mat3x4, [f32; 12]>(*entry))
                    .collect()
            };
            for (g, c) in rows(&g, &gn).iter().zip(rows(&c, &cn)) {
                worst = worst.max((g - c).abs() / scale);
            }
        }
    }
    // Dual quaternions may differ in sign (q and -q are one rotation): the oracle below
    // checks them; matrices must match entry for entry.
    if case.method == SkinMethod::Linear && (worst.is_nan() || worst as f64 > POSE_TOLERANCE) {
        return Err(
            format!("GPU palettes differ from the CPU's by {worst:e} of the rig size").into(),
        );
    }

    let indices = verified_indices(at_clock.len(), 16);
    let (locals, models) = if case.pose_slots.is_some() {
        // Taking turns, the slots hold the last wave's poses: only the watched
        // characters' were copied out, and reading every character is refused.
        if !animator.poses_are_scratch() {
            return Err("the ranges did not take turns in the pose slots".into());
        }
        if animator.read_back(&gpu, at_clock.len()).is_ok() {
            return Err("read every character's poses from slots the ranges share".into());
        }
        animator
            .read_back_characters(&gpu, &indices)
            .map_err(|e| e.to_string())?
    } else {
        let (locals, models) = animator
            .read_back(&gpu, at_clock.len())
            .map_err(|e| e.to_string())?;
        let locals: Vec<_> = indices.iter().map(|&i| locals[i].clone()).collect();
        let models: Vec<_> = indices.iter().map(|&i| models[i].clone()).collect();
        // Verify reads only the characters it compares: the same values.
        let (some_locals, some_models) = animator
            .read_back_characters(&gpu, &indices)
            .map_err(|e| e.to_string())?;
        if some_locals != locals || some_models != models {
            return Err("reading some characters back differs from reading all".into());
        }
        (locals, models)
    };
    let d = verify_gpu_animation(
        &pipeline,
        &at_clock,
        &indices,
        &locals,
        &models,
        &gpu_palettes,
        GpuLevels::default(),
    )
    .map_err(|e| e.to_string())?;
    if d.blend > POSE_TOLERANCE {
        return Err(format!("sampled local poses off by {:e}", d.blend).into());
    }
    if d.hierarchy > POSE_TOLERANCE {
        return Err(format!("model matrices off by {:e}", d.hierarchy).into());
    }
    common::skin_within_tolerance(&d.skin).map_err(Failed::from)?;
    Ok(())
}

/// A rig whose armature carries a unit conversion, at many clock readings (the error of a
/// badly composed hierarchy depends on the pose): the GPU's animation within the CPU's
/// tolerances at every one.
fn scaled_armature(rig: &Arc<PreparedRig>, hierarchy: GpuHierarchy) -> Result<(), Failed> {
    let gpu = common::gpu_or_skip();
    let config = PipelineConfig {
        skin: SkinVariant::GpuVertex,
        ..PipelineConfig::best_for(rig, 1)
    };
    let pipeline = Pipeline::new(rig.clone(), config).map_err(|e| e.to_string())?;
    let case = Case {
        method: SkinMethod::Linear,
        hierarchy,
        blend_weight: 0.0,
        characters: 9,
        range_limit: None,
        palettes_per_buffer: None,
        pose_slots: None,
    };
    let mut crowd = InstanceStore::new();
    crowd.resize(case.characters, rig, 2.0);
    let mut worst = (0.0f64, 0.0f32);
    for step in 0..48 {
        let clock_secs = 0.05 + 0.171 * step as f32;
        let mut animator = GpuAnimator::new(&gpu.device, rig, case.method);
        let gpu_palettes =
            animate_on_gpu(&gpu, &pipeline, &mut animator, &crowd, &case, clock_secs)?;
        let at_clock = animator.crowd_at(clock_secs);
        let indices = verified_indices(at_clock.len(), 16);
        let (locals, models) = animator
            .read_back_characters(&gpu, &indices)
            .map_err(|e| e.to_string())?;
        let d = verify_gpu_animation(
            &pipeline,
            &at_clock,
            &indices,
            &locals,
            &models,
            &gpu_palettes,
            GpuLevels::default(),
        )
        .map_err(|e| e.to_string())?;
        if d.skin.relative_position > worst.0 {
            worst = (d.skin.relative_position, clock_secs);
        }
        // The CPU skins within 1e-7 of the rig size here; the GPU within a few 1e-6 (an ulp
        // of the clip time moves a joint that much). Sampling rotations by `acos` put it at
        // 1.6e-5, within the general tolerance but ten times what it need be.
        if d.skin.relative_position > 5e-6 {
            return Err(format!(
                "at {clock_secs} s: skin positions off by {:e} of the rig size",
                d.skin.relative_position
            )
            .into());
        }
        if d.hierarchy > POSE_TOLERANCE {
            return Err(
                format!("at {clock_secs} s: model matrices off by {:e}", d.hierarchy).into(),
            );
        }
        common::skin_within_tolerance(&d.skin).map_err(|e| format!("at {clock_secs} s: {e}"))?;
    }
    eprintln!(
        "{}: worst skin position {:.2e} at {} s",
        rig.name, worst.0, worst.1
    );
    Ok(())
}

/// Only the characters that changed are written again, and the frame after is right.
fn changed_characters_only(rig: &Arc<PreparedRig>) -> Result<(), Failed> {
    let gpu = common::gpu_or_skip();
    let config = PipelineConfig {
        skin: SkinVariant::GpuVertex,
        ..PipelineConfig::best_for(rig, 1)
    };
    let pipeline = Pipeline::new(rig.clone(), config).map_err(|e| e.to_string())?;
    let mut animator = GpuAnimator::new(&gpu.device, rig, config.method);
    let mut crowd = InstanceStore::new();
    crowd.resize(20, rig, 2.0);
    let first = animator.write_characters(&gpu, &crowd, 0.0);
    if first != (20 * RECORD_BYTES) as u64 {
        return Err(format!("the first frame wrote {first} bytes").into());
    }
    let steady = animator.write_characters(&gpu, &crowd, 0.5);
    if steady != 0 {
        return Err(format!("a crowd that did not change wrote {steady} bytes").into());
    }
    let clips = rig.clips.len().max(1) as u16;
    for i in [3, 4, 11] {
        let c = &mut crowd.as_mut_slice()[i];
        c.clip = (c.clip + 1) % clips;
        c.time_secs += 0.25;
    }
    let changed = animator.write_characters(&gpu, &crowd, 0.5);
    if changed != (3 * RECORD_BYTES) as u64 {
        return Err(format!("three changed characters wrote {changed} bytes").into());
    }
    // The GPU's times: the changed ones from 0.5 on, the others from 0.
    let at = animator.crowd_at(CLOCK_SECS);
    for (i, c) in at.iter().enumerate() {
        let expected = if [3, 4, 11].contains(&i) {
            crowd.as_slice()[i].time_secs + crowd.as_slice()[i].speed * (CLOCK_SECS - 0.5)
        } else {
            crowd.as_slice()[i].time_secs + crowd.as_slice()[i].speed * CLOCK_SECS
        };
        if c.time_secs != expected {
            return Err(format!("character {i}: time {} not {expected}", c.time_secs).into());
        }
    }
    let case = Case {
        method: SkinMethod::Linear,
        hierarchy: GpuHierarchy::DEFAULT,
        blend_weight: 0.0,
        characters: 20,
        range_limit: None,
        palettes_per_buffer: None,
        pose_slots: None,
    };
    let layout = *pipeline.output_layout();
    let palettes = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("palettes"),
        size: layout.bytes(20) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    animator
        .record(
            &gpu,
            &mut encoder,
            PaletteBuffer::new(
                &PaletteBuffers::one(&palettes),
                FrameShape::new(&layout, 20),
            ),
            &AnimateFrame {
                joint_levels: 1,
                clock_secs: CLOCK_SECS,
                blend_weight: case.blend_weight,
                hierarchy: case.hierarchy,
            },
            None,
        )
        .map_err(|e| e.to_string())?;
    gpu.queue.submit([encoder.finish()]);
    let out = read_buffer(&gpu, &palettes, layout.bytes(20) as u64).map_err(|e| e.to_string())?;
    let d = skinbench::crowd::verify::verify_frame(&pipeline, &at, &out, 20)
        .map_err(|e| e.to_string())?;
    common::skin_within_tolerance(&d).map_err(Failed::from)
}

/// How a scene test splits the GPU animation: palette buffers of at most
/// `palettes_per_buffer` characters, ranges of one, taking turns in at most `pose_slots`
/// pose slots (`None`: each its own).
#[derive(Clone, Copy)]
struct Split {
    palettes_per_buffer: usize,
    pose_slots: Option<usize>,
}

impl Split {
    fn palettes(per_buffer: usize) -> Self {
        Split {
            palettes_per_buffer: per_buffer,
            pose_slots: None,
        }
    }
}

/// One frame of `crowd` drawn by the app's scene with the animation on `animate`, and the
/// verify of that frame.
fn scene_frame(
    gpu: &GpuContext,
    rig: &Arc<PreparedRig>,
    crowd: &InstanceStore,
    config: PipelineConfig,
    animate: AnimateDevice,
    camera: &OrbitCamera,
    split: Option<Split>,
) -> Result<(image::RgbaImage, FrameDeviation), Failed> {
    let mut settings = common::app_settings(rig, crowd.len());
    settings.pipeline = config;
    settings.animate = animate;
    settings.upload = UploadVariant::WriteBuffer;
    let mut scene =
        common::offscreen_scene(gpu, rig, settings, (320, 200)).map_err(|e| e.to_string())?;
    scene.set_crowd(crowd.clone());
    if let (AnimateDevice::Gpu, Some(split)) = (animate, split) {
        // Ranges of one character: each bound at its own place within its buffer.
        scene.limit_palette_buffers(Some(split.palettes_per_buffer), Some(1));
        scene.limit_animation_ranges(Some(1), split.pose_slots);
    }
    *scene.camera_mut() = *camera;
    scene.request_verify();
    scene
        .frame(Frame::headless(0.0))
        .map_err(|e| e.to_string())?;
    if scene.settings().animate != animate {
        return Err(format!(
            "the scene animated on the {:?}: {:?}",
            scene.settings().animate,
            scene.notes()
        )
        .into());
    }
    let image = scene.read_image().map_err(|e| e.to_string())?;
    let verify = match scene.take_last_verify() {
        Some(Ok(d)) => d,
        Some(Err(e)) => return Err(format!("verify: {e}").into()),
        None => return Err("no verify ran".into()),
    };
    Ok((image, verify))
}

/// The scene animating on the GPU draws what it draws animating on the CPU (the same
/// skin variant), and its verify passes; with `split`, the GPU animation's ranges and
/// palette buffers are split as it says.
fn scene_twin(
    rig: &Arc<PreparedRig>,
    skin: SkinVariant,
    method: SkinMethod,
    split: Option<Split>,
) -> Result<(), Failed> {
    let gpu = common::gpu_or_skip();
    let mut crowd = InstanceStore::new();
    crowd.resize(6, rig, 2.5);
    crowd.advance(0.37);
    let mut camera = OrbitCamera::framing(crowd_extent(&crowd));
    camera.distance *= 0.6;
    let config = PipelineConfig {
        skin,
        method,
        ..PipelineConfig::best_for(rig, 1)
    };
    let (expected, _) = scene_frame(&gpu, rig, &crowd, config, AnimateDevice::Cpu, &camera, None)?;
    let (got, verify) = scene_frame(
        &gpu,
        rig,
        &crowd,
        config,
        AnimateDevice::Gpu,
        &camera,
        split,
    )?;
    if !verify.within_tolerance() {
        return Err(format!("verify of the GPU's animation:\n{}", verify.to_text()).into());
    }
    let (empty, _) = scene_frame(
        &gpu,
        rig,
        &InstanceStore::new(),
        config,
        AnimateDevice::Cpu,
        &camera,
        None,
    )?;
    let covered = common::covered_pixels(&expected, &empty)?;
    common::pictures_match(&expected, &got, covered).map_err(|e| {
        let dir = common::temp_dir(&format!("gpu_animate_{}_{}", rig.name, skin.name()));
        let _ = got.save(dir.join("animate_gpu.png"));
        let _ = expected.save(dir.join("animate_cpu.png"));
        Failed::from(format!("{e} (pictures in {})", dir.display()))
    })
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for (name, rig) in common::prepared_rigs() {
        let methods: Vec<SkinMethod> = SkinMethod::ALL
            .iter()
            .copied()
            .filter(|m| m.rig_refusal(rig).is_none())
            .collect();
        for &method in &methods {
            for &hierarchy in GpuHierarchy::ALL {
                for blend_weight in [0.0, 0.4] {
                    let rig = rig.clone();
                    let method_part = match method {
                        SkinMethod::Linear => String::new(),
                        SkinMethod::DualQuat => "dual_quat/".to_string(),
                    };
                    let blend_part = if blend_weight > 0.0 { "/blend" } else { "" };
                    trials.push(common::trial(
                        format!("{method_part}{name}/{}{blend_part}", hierarchy.name()),
                        move || {
                            twin(
                                &rig,
                                Case {
                                    method,
                                    hierarchy,
                                    blend_weight,
                                    characters: 11,
                                    range_limit: None,
                                    palettes_per_buffer: None,
                                    pose_slots: None,
                                },
                            )
                        },
                    ));
                }
            }
        }
    }
    let (_, reference) = &common::prepared_rigs()[0];
    // The built-in rig split in ranges: of four (13 characters, four ranges); of two within
    // palette buffers of four, the last holding one (each range's palettes bound at its
    // place in its buffer); and those seven ranges of two taking turns in one pose slot
    // and in three (waves of three, three and one: each wave's poses made and read into
    // palettes before the next wave reuses the slots, verify's characters' poses copied
    // out as each is done).
    let splits: [(&str, usize, Option<usize>, Option<usize>); 4] = [
        ("ranges_of_four", 4, None, None),
        ("split_palettes", 3, Some(5), None),
        ("pose_slots_1", 3, Some(5), Some(1)),
        ("pose_slots_3", 3, Some(5), Some(3)),
    ];
    for &hierarchy in GpuHierarchy::ALL {
        for (case, range_limit, palettes_per_buffer, pose_slots) in splits {
            let rig = reference.clone();
            trials.push(common::trial(
                format!("{case}/{}", hierarchy.name()),
                move || {
                    twin(
                        &rig,
                        Case {
                            method: SkinMethod::Linear,
                            hierarchy,
                            blend_weight: 0.4,
                            characters: 13,
                            range_limit: Some(range_limit),
                            palettes_per_buffer,
                            pose_slots,
                        },
                    )
                },
            ));
        }
    }
    for (name, rig) in common::prepared_rigs() {
        for &skin in &[SkinVariant::GpuCompute, SkinVariant::GpuVertex] {
            for &method in SkinMethod::ALL {
                if skin.refusal(method, rig).is_some() {
                    continue;
                }
                let method_part = match method {
                    SkinMethod::Linear => String::new(),
                    SkinMethod::DualQuat => "dual_quat/".to_string(),
                };
                let rig = rig.clone();
                trials.push(common::trial(
                    format!("scene/{method_part}{name}/{}", skin.name()),
                    move || scene_twin(&rig, skin, method, None),
                ));
            }
        }
    }
    // The palettes split into buffers of four characters (two buffers for the six), as a
    // crowd larger than the largest buffer has them, written and read in ranges of one:
    // each skin path finds every character's palettes.
    for &skin in &[SkinVariant::GpuCompute, SkinVariant::GpuVertex] {
        let (_, reference) = &common::prepared_rigs()[0];
        let rig = reference.clone();
        trials.push(common::trial(
            format!("scene_split_palettes/{}", skin.name()),
            move || scene_twin(&rig, skin, SkinMethod::Linear, Some(Split::palettes(4))),
        ));
        // The same ranges taking turns in two pose slots, as a crowd whose poses outgrow
        // `GPU_POSE_SLOTS_BYTES` does: the picture and verify as before.
        let rig = reference.clone();
        trials.push(common::trial(
            format!("scene_pose_slots/{}", skin.name()),
            move || {
                let split = Split {
                    pose_slots: Some(2),
                    ..Split::palettes(4)
                };
                scene_twin(&rig, skin, SkinMethod::Linear, Some(split))
            },
        ));
    }
    if let Some(dir) = common::rigs_dir().map(|_| common::temp_dir("scaled-armatures")) {
        for scale in [100.0f32, 0.01] {
            let path = common::fox_armature_scaled(&dir, scale).expect("the Fox");
            let rig = Arc::new(PreparedRig::load(&path).map_err(|e| e.to_string()).unwrap());
            for &hierarchy in GpuHierarchy::ALL {
                let rig = rig.clone();
                trials.push(common::trial(
                    format!("scaled_armature/x{scale}/{}", hierarchy.name()),
                    move || scaled_armature(&rig, hierarchy),
                ));
            }
        }
    }
    let rig = reference.clone();
    trials.push(common::trial(
        "only_changed_characters_are_written",
        move || changed_characters_only(&rig),
    ));
    common::run_trials(&args, trials);
}
