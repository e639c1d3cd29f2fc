//! Every hierarchy and skin variant against the f64 oracles: one test case per (rig,
//! hierarchy, skin, threads, schedule), generated from the variant declarations, so a
//! failure names its case (`cargo test --test conformance -- fox/flat_qvs/pulled`).
//! Those run at the CPU's best SIMD level; every pair with a lane kernel runs again at each
//! lower level the CPU has (`…/threads_1/avx2`, `…/portable`), its pipeline set to it.
//!
//! The cases are listed at run time from `Variant::ALL` and the rigs present (libtest-mimic
//! runs them in parallel like the built-in harness): a new variant is tested everywhere
//! without touching this file.

mod common;

use std::sync::Arc;

use libtest_mimic::{Arguments, Failed};
use skinbench::anim::hierarchy::reference::{model_from_joint_f64, palette};
use skinbench::anim::hierarchy::{HierarchyVariant, Refuses};
use skinbench::crowd::{FrameError, InstanceStore, Pipeline, PipelineConfig, Schedule};
use skinbench::prepare::PreparedRig;
use skinbench::simd::SimdLevel;
use skinbench::skin::{SkinDevice, SkinMethod, SkinVariant};
use skinbench::variant::Variant;

/// The public rigs that carry a shear (non-uniform scale above a rotated child), known
/// from the files themselves (FoxVariants/README.md), not from the importer's analysis.
const SHEARED_RIGS: &[&str] = &["fox_nonuniform"];

/// The public rigs whose skinning matrices scale somewhere in their clips (the ones the
/// conformance frames may happen not to reach), so dual quaternions refuse them.
const SCALING_RIGS: &[&str] = &[];

/// Three frames of 13 instances (a full group of eight and a partial one) against the
/// oracles: positions, normals, the hierarchy, and (with a blend weight) the blend.
fn conformance(
    rig: &Arc<PreparedRig>,
    config: PipelineConfig,
    level: Option<SimdLevel>,
) -> Result<(), Failed> {
    common::frames_match_the_oracles(rig, config, level, 13, 3)?;
    Ok(())
}

/// A variant is refused exactly where its declaration says it refuses and the rig has
/// what it refuses.
fn refusal(name: &str, rig: &Arc<PreparedRig>, hierarchy: HierarchyVariant) -> Result<(), Failed> {
    let sheared = SHEARED_RIGS.contains(&name);
    if rig.shear_reason.is_some() != sheared {
        return Err(format!("shear analysis says {:?}", rig.shear_reason).into());
    }
    let expect_refusal = match hierarchy.spec().refuses {
        Refuses::Nothing => false,
        Refuses::ShearingScale => sheared,
    };
    let config = PipelineConfig {
        hierarchy,
        ..any_influences(PipelineConfig::baseline(1))
    };
    match (Pipeline::new(rig.clone(), config), expect_refusal) {
        (Ok(_), false) => Ok(()),
        (
            Err(FrameError::Refused {
                variant, reason, ..
            }),
            true,
        ) => {
            if variant != hierarchy.name() || !reason.contains("non-uniform") {
                return Err(format!("refused as {variant}: {reason}").into());
            }
            Ok(())
        }
        (Ok(_), true) => Err("accepted a rig it must refuse".into()),
        (Err(e), _) => Err(format!("unexpected error: {e}").into()),
    }
}

/// `config` with a skin variant that takes every influence count (the baseline's takes
/// four), for the cases that check another stage.
fn any_influences(config: PipelineConfig) -> PipelineConfig {
    PipelineConfig {
        skin: SkinVariant::Tuned,
        ..config
    }
}

/// A skin variant that takes fewer influences than the rig has refuses it, naming the
/// count and `--max-influences`; with the rig cut to what it takes (`--max-influences`),
/// it conforms.
fn influence_refusal(name: &str, skin: SkinVariant) -> Result<(), Failed> {
    let rig = common::prepared_rig_cut(name, skinbench::rig::MAX_INFLUENCES);
    let config = PipelineConfig {
        skin,
        ..any_influences(PipelineConfig::baseline(1))
    };
    match Pipeline::new(rig.clone(), config) {
        Err(FrameError::SkinRefused { reason, .. })
            if reason.contains("influences") && reason.contains("--max-influences") => {}
        Err(e) => return Err(format!("refused for another reason: {e}").into()),
        Ok(_) => return Err("accepted more influences than it takes".into()),
    }
    let cut = common::prepared_rig_cut(name, skin.spec().max_influences);
    conformance(&cut, config, None)
}

/// Dual quaternions accept a rig exactly where its skinning matrices are one uniform scale
/// (common to all of them) times a rotation, judged here independently of the importer's
/// analysis: at the frames the conformance cases run (13 instances, three steps), each
/// reference palette matrix's 3×3 over the median of their scales must be a rotation where
/// the rig is accepted; a refusal must name the joint's matrix and what would make it work.
fn dual_quat_refusal(name: &str, rig: &Arc<PreparedRig>) -> Result<(), Failed> {
    let refusal = SkinMethod::DualQuat
        .rig_refusal(rig)
        .map(|why| why.to_string());
    let pipeline = Pipeline::new(rig.clone(), any_influences(PipelineConfig::baseline(1)))?;
    let mut crowd = InstanceStore::new();
    crowd.resize(13, rig, 2.0);
    let mut matrices = Vec::new();
    for _ in 0..3 {
        crowd.advance(0.137);
        for instance in crowd.as_slice() {
            let locals = pipeline.reference_local_pose(instance);
            let model = model_from_joint_f64(&rig.skeleton, &locals);
            matrices.extend(
                palette(&rig.skeleton, &model)
                    .iter()
                    .map(|m| glam::DMat3::from_mat4(*m)),
            );
        }
    }
    let mut scales: Vec<f64> = matrices
        .iter()
        .map(|m| m.determinant().abs().cbrt())
        .collect();
    scales.sort_by(f64::total_cmp);
    let common = scales[scales.len() / 2];
    let worst = matrices.iter().fold(0.0f64, |worst, m| {
        let r = *m * (1.0 / common);
        (r.transpose() * r - glam::DMat3::IDENTITY)
            .to_cols_array()
            .iter()
            .fold(worst, |a, x| a.max(x.abs()))
    });
    match refusal {
        None if worst > 10.0 * skinbench::skin::method::RIGID_TOLERANCE => Err(format!(
            "{name}: accepted, but a skinning matrix over the common scale {common} is \
             {worst:e} from a rotation"
        )
        .into()),
        Some(reason)
            if !(reason.contains("skinning matrix") && reason.contains("--method linear")) =>
        {
            Err(format!("{name}: refused for {reason}").into())
        }
        Some(reason) if worst < 1e-6 && !SCALING_RIGS.contains(&name) => Err(format!(
            "{name}: refused ({reason}), but every matrix checked here is a rotation times \
             {common}"
        )
        .into()),
        _ => Ok(()),
    }
}

/// Where a method is checked with every thread count, schedule and lower SIMD level: linear
/// blending everywhere; dual quaternions change only the skin stage, so the hierarchies
/// are checked once each at one thread, and the lane hierarchy (the one a frame uses
/// with them) at every thread count, schedule and level.
fn full_matrix(method: SkinMethod, hierarchy: HierarchyVariant) -> bool {
    match method {
        SkinMethod::Linear => true,
        SkinMethod::DualQuat => hierarchy.spec().lanes > 1,
    }
}

/// The start of a case's name: none for linear blending, the method's name otherwise.
fn method_prefix(method: SkinMethod) -> String {
    match method {
        SkinMethod::Linear => String::new(),
        SkinMethod::DualQuat => format!("{}/", method.name()),
    }
}

/// Every group of 13 instances skinned for `level` of the mesh's chain: the vertices that
/// level draws match the oracle, and a kernel writes exactly the vertices
/// [`SkinVariant::vertices_skinned_at`] says (the others keep the NaN the output was filled
/// with), so a character drawn at a coarse level costs only that level's vertices. The
/// hierarchy and palette stages pose only the level's joints: a joint or entry the level's
/// vertices follow left out fails the comparison. `hierarchy`: the pipeline's best
/// where not given. `blend_weight` above 0 cross-fades each character's clip with a
/// second one, which the blend stage does over the level's joints only.
fn level_matches_the_oracle(
    rig: &Arc<PreparedRig>,
    skin: SkinVariant,
    method: SkinMethod,
    level: usize,
    hierarchy: Option<HierarchyVariant>,
    blend_weight: f32,
) -> Result<(), Failed> {
    use skinbench::crowd::Stage;
    use skinbench::crowd::verify::verify_frame_at_levels;
    use skinbench::skin::{Dest, OutputBuffer};
    let best = PipelineConfig::best_for(rig, 1);
    let config = PipelineConfig {
        skin,
        method,
        hierarchy: hierarchy.unwrap_or(best.hierarchy),
        blend_weight,
        ..best
    };
    let mut pipeline = Pipeline::new(rig.clone(), config)?;
    let mut crowd = InstanceStore::new();
    crowd.resize(13, rig, 2.0);
    crowd.advance(0.37);
    let groups = crowd.len().div_ceil(skinbench::types::LANES);
    let mut out = OutputBuffer::for_instances(pipeline.output_layout(), crowd.len());
    out.as_bytes_mut().fill(0xff);
    let levels = vec![level as u8; groups];
    let mut outs = [Dest::from_mut(out.as_bytes_mut())];
    let all = 0..groups;
    pipeline.run_groups_at_levels_into(
        crowd.as_slice(),
        std::slice::from_ref(&all),
        &levels,
        &mut outs,
        Stage::Skin,
    )?;
    // The upload copies each group's level's parts (`OutputLayout::level_group_bytes`):
    // the kernel wrote nothing outside them, and a buffer that received only them (NaN
    // elsewhere) holds every vertex the level draws.
    let layout = pipeline.output_layout();
    let parts = layout.level_group_bytes(&rig.mesh, level);
    let bytes = layout.bytes(crowd.len());
    let mut uploaded = vec![0xffu8; out.len()];
    for g in 0..groups {
        let first = g * layout.group_bytes();
        let mut outside = first;
        for part in &parts {
            let (start, end) = (first + part.start, (first + part.end).min(bytes));
            if let Some(at) = (outside..start.min(bytes)).find(|&b| out.as_bytes()[b] != 0xff) {
                return Err(format!(
                    "group {g}: the kernel wrote byte {} of its block, outside the {} parts \
                     level {level} writes",
                    at - first,
                    parts.len()
                )
                .into());
            }
            if start < end {
                uploaded[start..end].copy_from_slice(&out.as_bytes()[start..end]);
            }
            outside = outside.max(end);
        }
        let block_end = (first + layout.group_bytes()).min(bytes);
        if let Some(at) = (outside..block_end).find(|&b| out.as_bytes()[b] != 0xff) {
            return Err(format!(
                "group {g}: the kernel wrote byte {} of its block, past the {} parts level \
                 {level} writes",
                at - first,
                parts.len()
            )
            .into());
        }
    }
    let per_instance = vec![level as u32; crowd.len()];
    for (what, buffer) in [
        ("the output", out.as_bytes()),
        ("the uploaded parts", &uploaded[..]),
    ] {
        let d = verify_frame_at_levels(
            &pipeline,
            crowd.as_slice(),
            buffer,
            usize::MAX,
            Some(&per_instance),
        )?;
        common::skin_within_tolerance(&d).map_err(|e| format!("{what}: {e}"))?;
    }
    let expected = skin.vertices_skinned_at(rig, level);
    for i in 0..crowd.len() {
        let (positions, _) =
            pipeline
                .output_layout()
                .read_instance(&rig.mesh, out.as_bytes(), i)?;
        let written = positions.iter().filter(|p| !p.x.is_nan()).count();
        if written != expected {
            return Err(format!(
                "instance {i}: {written} vertices written, {expected} expected at level {level} \
                 (of {})",
                rig.vertex_count()
            )
            .into());
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for (name, rig) in common::prepared_rigs() {
        // Each level of the mesh's chain, skinned by every CPU kernel with each method.
        for level in 0..rig.mesh_chain().levels().len() {
            for &method in SkinMethod::ALL {
                if method.rig_refusal(rig).is_some() {
                    continue;
                }
                for &skin in SkinVariant::ALL.iter().filter(|s| {
                    s.skins_on_cpu()
                        && s.spec().methods.contains(&method)
                        && rig.max_influences <= s.spec().max_influences
                }) {
                    let r = rig.clone();
                    trials.push(common::trial(
                        format!(
                            "levels/{}{name}/{}/level_{level}",
                            method_prefix(method),
                            skin.name()
                        ),
                        move || level_matches_the_oracle(&r, skin, method, level, None, 0.0),
                    ));
                }
            }
            // Each hierarchy variant walking only the level's joints.
            for &hierarchy in HierarchyVariant::ALL {
                if hierarchy.refusal(rig).is_some() {
                    continue;
                }
                let r = rig.clone();
                let skin = PipelineConfig::best_for(rig, 1).skin;
                trials.push(common::trial(
                    format!("levels/{name}/hierarchy_{}/level_{level}", hierarchy.name()),
                    move || {
                        level_matches_the_oracle(
                            &r,
                            skin,
                            SkinMethod::Linear,
                            level,
                            Some(hierarchy),
                            0.0,
                        )
                    },
                ));
            }
            // Two clips cross-faded: the blend stage blends only the level's joints.
            let r = rig.clone();
            let skin = PipelineConfig::best_for(rig, 1).skin;
            trials.push(common::trial(
                format!("levels/{name}/blend/level_{level}"),
                move || level_matches_the_oracle(&r, skin, SkinMethod::Linear, level, None, 0.4),
            ));
        }
        for &hierarchy in HierarchyVariant::ALL {
            let (n, r) = (name.clone(), rig.clone());
            trials.push(common::trial(
                format!("refusal/{name}/{}", hierarchy.name()),
                move || refusal(&n, &r, hierarchy),
            ));
        }
        // Dual quaternions: a rig they refuse must be one whose skinning matrices scale,
        // said so; one they accept is checked against the f64 dual-quaternion oracle.
        let (n, r) = (name.clone(), rig.clone());
        trials.push(common::trial(
            format!("dual_quat/refusal/{name}"),
            move || dual_quat_refusal(&n, &r),
        ));
        for &method in SkinMethod::ALL {
            if method.rig_refusal(rig).is_some() {
                continue; // checked by the refusal case
            }
            let prefix = method_prefix(method);
            for &hierarchy in HierarchyVariant::ALL {
                if hierarchy.refusal(rig).is_some() {
                    continue; // checked by the refusal case
                }
                // `gpu_compute`'s vertices are on the GPU: tests/gpu_conformance.rs reads
                // them back. `gpu_vertex`'s CPU part (the palettes laid out for the shader)
                // is checked here, through the shader's formula in f64, at every SIMD level.
                for &skin in SkinVariant::ALL.iter().filter(|s| {
                    s.spec().runs_on != SkinDevice::GpuCompute && s.spec().methods.contains(&method)
                }) {
                    // More influences than the variant takes: refused, and checked once
                    // with the rig cut to what it takes.
                    if rig.max_influences > skin.spec().max_influences {
                        if hierarchy == HierarchyVariant::ALL[0] && method == SkinMethod::ALL[0] {
                            let n = name.clone();
                            trials.push(common::trial(
                                format!("influences/{name}/{}", skin.name()),
                                move || influence_refusal(&n, skin),
                            ));
                        }
                        continue;
                    }
                    // Every thread count and schedule at the CPU's best level; with a lane
                    // kernel, one thread and `fused` again at each lower level.
                    let mut cases: Vec<(usize, Schedule, Option<SimdLevel>)> =
                        vec![(1, Schedule::Fused, None)];
                    if full_matrix(method, hierarchy) {
                        for threads in common::thread_counts() {
                            for &schedule in Schedule::ALL {
                                if (threads, schedule) != (1, Schedule::Fused) {
                                    cases.push((threads, schedule, None));
                                }
                            }
                        }
                        if hierarchy.spec().lanes > 1 || skin.spec().lanes > 1 {
                            for level in SimdLevel::available() {
                                if level != SimdLevel::native() {
                                    cases.push((1, Schedule::Fused, Some(level)));
                                }
                            }
                        }
                    }
                    for (threads, schedule, level) in cases {
                        let config = PipelineConfig {
                            hierarchy,
                            skin,
                            schedule,
                            threads,
                            blend_weight: 0.0,
                            method,
                        };
                        let level_suffix =
                            level.map_or(String::new(), |l| format!("/{}", l.name()));
                        let rig = rig.clone();
                        trials.push(common::trial(
                            format!(
                                "{prefix}{name}/{}/{}/{}/threads_{threads}{level_suffix}",
                                hierarchy.name(),
                                skin.name(),
                                schedule.name()
                            ),
                            move || conformance(&rig, config, level),
                        ));
                    }
                }
            }
        }
    }
    // Blending, on the built-in rig: every variant pair, the blend against its own oracle.
    let (_, reference) = &common::prepared_rigs()[0];
    for &hierarchy in HierarchyVariant::ALL {
        for &skin in SkinVariant::ALL.iter().filter(|s| s.skins_on_cpu()) {
            let config = PipelineConfig {
                hierarchy,
                skin,
                schedule: Schedule::Fused,
                threads: 1,
                blend_weight: 0.4,
                method: skinbench::skin::SkinMethod::Linear,
            };
            let rig = reference.clone();
            trials.push(common::trial(
                format!("blend/reference/{}/{}", hierarchy.name(), skin.name()),
                move || conformance(&rig, config, None),
            ));
        }
    }
    common::run_trials(&args, trials);
}
