//! Normals under skinning, against the geometry rather than against an oracle.
//!
//! Each rig is given, as its bind normals, the normals of its own bind surface (the
//! triangles around each vertex, copies welded by position). Then the skinned output of
//! every skin variant must carry the normals of the skinned surface wherever that is
//! exact: at rigid vertices, whose surrounding triangles are all bound to one joint, the
//! skinned surface is that joint's affine map of the bind surface. Rigs whose joints
//! scale non-uniformly (Fox_nonuniform) fail this when normals follow the position
//! matrices. Also: which rigs carry normal matrices (decided at load, known here from the
//! files themselves), and the measurement `inspect` prints.
//!
//! One case per (rig, check) and per (rig, skin variant), so a failure names its case.

mod common;

use std::sync::Arc;

use glam::DVec3;
use libtest_mimic::{Arguments, Failed};
use skinbench::crowd::pipeline::best_hierarchy;
use skinbench::crowd::{PipelineConfig, Schedule};
use skinbench::pose::pose;
use skinbench::prepare::PreparedRig;
use skinbench::rig::{Rig, import_path, import_slice};
use skinbench::skin::normal_rules::{Welded, angle_deg, measure};
use skinbench::skin::{OutputFormat, SkinMethod, SkinVariant};
use skinbench::variant::Variant;

/// The public rigs whose joints scale non-uniformly, from FoxVariants/README.md.
const NONUNIFORM_RIGS: &[&str] = &["fox_nonuniform"];

/// Poses per clip the skinned normals are checked at.
const TIMES: [f32; 3] = [0.13, 0.5, 0.81];

/// The rig with its bind normals replaced by the normals of its bind surface.
fn with_surface_normals(mut rig: Rig) -> Rig {
    let welded = Welded::new(&rig.mesh);
    let positions: Vec<DVec3> = rig.mesh.positions.iter().map(|p| p.as_dvec3()).collect();
    let surface = welded.surface_normals(&positions, &rig.mesh.indices);
    for (v, normal) in rig.mesh.normals.iter_mut().enumerate() {
        let s = surface[welded.index[v]];
        if s.length() > 0.0 {
            *normal = s.normalize().as_vec3();
        }
    }
    rig
}

/// Every rig, imported (not prepared): the built-in one and the public ones.
fn rigs() -> Vec<(String, Rig, skinbench::rig::ImportReport)> {
    let (rig, report) = import_slice(skinbench::REFERENCE_RIG_GLB, "reference.glb", None).unwrap();
    let mut rigs = vec![("reference".to_string(), rig, report)];
    if let Some(dir) = common::rigs_dir() {
        for f in common::PUBLIC_RIGS {
            let (rig, report) = import_path(&dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
            let name = std::path::Path::new(f)
                .file_stem()
                .map(|s| s.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            rigs.push((name, rig, report));
        }
    }
    rigs
}

/// How far a unit normal in `format` may be off in direction, degrees: float formats
/// carry f32 rounding; unorm 10:10:10:2 steps of 1/511 per component.
fn angle_tolerance_deg(format: OutputFormat) -> f64 {
    match format {
        OutputFormat::Packed => 0.5,
        OutputFormat::Interleaved | OutputFormat::Float3 | OutputFormat::Float4 => 0.02,
        OutputFormat::Palette3x4 | OutputFormat::PaletteDualQuat => {
            panic!("a variant declares the vertices it skins")
        }
    }
}

/// `skin`'s normals at every rigid vertex are the skinned surface's.
fn rigid_normals_follow_the_surface(
    rig: &Arc<PreparedRig>,
    skin: SkinVariant,
) -> Result<(), Failed> {
    let welded = Welded::new(&rig.source_mesh);
    let rigid = welded.rigid.iter().filter(|&&r| r).count();
    let config = PipelineConfig {
        hierarchy: match best_hierarchy().refusal(rig) {
            None => best_hierarchy(),
            Some(_) => PipelineConfig::baseline(1).hierarchy,
        },
        skin,
        schedule: Schedule::Fused,
        threads: 1,
        blend_weight: 0.0,
        method: skinbench::skin::SkinMethod::Linear,
    };
    let tolerance = angle_tolerance_deg(skin.output_format());
    let clips: Vec<Option<(&str, f32)>> = if rig.clips.is_empty() {
        vec![None]
    } else {
        rig.clips
            .iter()
            .map(|c| Some((c.name.as_str(), c.duration_secs)))
            .collect()
    };
    let mut worst = (0.0f64, 0usize, String::new());
    for clip in clips {
        for t in TIMES {
            let (name, time_secs) = match clip {
                Some((name, duration)) => (Some(name), duration * t),
                None => (None, 0.0),
            };
            let posed = pose(rig.clone(), name, time_secs, config).map_err(|e| e.to_string())?;
            let positions: Vec<DVec3> = posed.positions.iter().map(|p| p.as_dvec3()).collect();
            let surface = welded.surface_normals(&positions, &rig.source_mesh.indices);
            for (v, normal) in posed.normals.iter().enumerate() {
                let w = welded.index[v];
                if !welded.rigid[w] || surface[w].length() == 0.0 {
                    continue;
                }
                // NaN (a zero normal) counts as the worst.
                let angle = match angle_deg(normal.as_dvec3(), surface[w]) {
                    a if a.is_nan() => f64::INFINITY,
                    a => a,
                };
                if angle > worst.0 {
                    worst = (angle, v, format!("{name:?} at {time_secs:.3} s"));
                }
            }
        }
    }
    if worst.0 > tolerance {
        return Err(format!(
            "vertex {} ({}) is {:.3}° from the skinned surface's normal (tolerance {tolerance}°; \
             {rigid} rigid vertices)",
            worst.1, worst.2, worst.0
        )
        .into());
    }
    Ok(())
}

fn decision(name: &str, rig: &PreparedRig) -> Result<(), Failed> {
    let expected = NONUNIFORM_RIGS.contains(&name);
    if rig.own_normal_matrices() != expected {
        return Err(format!(
            "normal matrices {}expected; the analysis says {:?}",
            if expected { "" } else { "not " },
            rig.normal_matrix_reason
        )
        .into());
    }
    Ok(())
}

/// The measurement: the normal-matrix rule is exact at rigid vertices, and on the rigs
/// with non-uniform scale the position rule visibly is not.
fn measurement(name: &str, rig: &PreparedRig) -> Result<(), Failed> {
    let angles = measure(rig);
    let rigid = angles.rigid;
    if rigid.normal_matrix_rule.max_deg > 1e-6 {
        return Err(format!("normal matrices off at rigid vertices: {angles:?}").into());
    }
    let nonuniform = NONUNIFORM_RIGS.contains(&name);
    if nonuniform && rigid.position_rule.max_deg < 10.0 {
        return Err(format!("the position rule should be far off here: {angles:?}").into());
    }
    if !nonuniform && rigid.position_rule.max_deg > 1e-3 {
        return Err(format!("the position rule should be exact here: {angles:?}").into());
    }
    Ok(())
}

/// Packed normals skip their normalisation where the layout packs them at a fixed scale
/// (`NormalEncoding::Scaled`): that is only right if no skinned normal outgrows the bound,
/// which would wrap its bits into the next component. Checked at 16 times of every clip,
/// more than the conformance frames reach: each palette matrix stretches by at most the
/// rig's bound, each linearly blended normal (and each dual-quaternion one, a rotated
/// source normal) fits, and the rigs that carry normal matrices normalise instead.
fn packed_normals_fit_their_bound(name: &str, rig: &PreparedRig) -> Result<(), Failed> {
    use skinbench::anim::hierarchy::reference::{model_from_joint, palette};
    use skinbench::anim::sample::sample_clip;
    use skinbench::skin::layout::NormalEncoding;
    let linear = NormalEncoding::packed(rig, SkinMethod::Linear);
    let NormalEncoding::Scaled { bound, .. } = linear else {
        return if NONUNIFORM_RIGS.contains(&name) {
            Ok(())
        } else {
            Err(format!("{linear:?} for a rig without normal matrices").into())
        };
    };
    let bound = bound.get() as f64;
    let Some(stretch) = rig.palette_stretch else {
        return Err("a fixed scale without a palette stretch bound".into());
    };
    let mesh = &rig.source_mesh;
    let mut longest: f64 = 0.0;
    let mut widest: f64 = 0.0;
    for clip in &rig.clips {
        for i in 0..16 {
            let mut locals = rig.rest_pose.clone();
            sample_clip(
                clip,
                &rig.rest_pose,
                clip.duration_secs * i as f32 / 16.0,
                &mut locals,
            );
            let palette = palette(&rig.skeleton, &model_from_joint(&rig.skeleton, &locals));
            for m in &palette {
                let m3 = glam::DMat3::from_mat4(*m);
                // The largest stretch of a 3×3: the square root of MᵀM's largest
                // eigenvalue, here by power iteration (64 steps are plenty for the
                // near-rotations these are).
                let mtm = m3.transpose() * m3;
                let mut x = DVec3::new(0.577, 0.577, 0.578);
                for _ in 0..64 {
                    x = (mtm * x).normalize_or_zero();
                }
                widest = widest.max((m3 * x).length());
            }
            for v in 0..mesh.vertex_count() {
                let mut n = DVec3::ZERO;
                for k in 0..skinbench::rig::MAX_INFLUENCES {
                    let (j, w) = (mesh.joints[v][k] as usize, mesh.weights[v][k] as f64);
                    n += palette[j].transform_vector3(mesh.normals[v].as_dvec3()) * w;
                }
                longest = longest.max(n.abs().max_element());
            }
        }
    }
    if widest > stretch as f64 {
        return Err(
            format!("a palette matrix stretches by {widest}, beyond the bound {stretch}").into(),
        );
    }
    if longest > bound {
        return Err(format!(
            "a skinned normal component reaches {longest}, beyond the bound {bound}"
        )
        .into());
    }
    if let NormalEncoding::Scaled { bound, .. } = NormalEncoding::packed(rig, SkinMethod::DualQuat)
        && (rig.longest_normal as f64) > bound.get() as f64
    {
        return Err(format!(
            "dual quaternions: longest normal {} over the bound {bound:?}",
            rig.longest_normal
        )
        .into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for (name, rig, report) in rigs() {
        let plain = Arc::new(PreparedRig::new(rig.clone(), &report, &name).unwrap());
        let surface =
            Arc::new(PreparedRig::new(with_surface_normals(rig), &report, &name).unwrap());
        {
            let (n, r) = (name.clone(), plain.clone());
            trials.push(common::trial(
                format!("{name}/normal_matrices_decided_at_load"),
                move || decision(&n, &r),
            ));
        }
        {
            let (n, r) = (name.clone(), plain.clone());
            trials.push(common::trial(
                format!("{name}/packed_normals_fit_their_bound"),
                move || packed_normals_fit_their_bound(&n, &r),
            ));
        }
        {
            let (n, r) = (name.clone(), surface.clone());
            trials.push(common::trial(
                format!("{name}/measured_angles"),
                move || measurement(&n, &r),
            ));
        }
        // GPU variants' normals are checked against the oracle in tests/gpu_conformance.rs;
        // a variant that takes fewer influences than the rig has refuses it
        // (tests/conformance.rs, `influences/...`).
        for &skin in SkinVariant::ALL
            .iter()
            .filter(|s| s.skins_on_cpu() && s.refusal(SkinMethod::Linear, &surface).is_none())
        {
            let r = surface.clone();
            trials.push(common::trial(
                format!("{name}/{}/rigid_normals_follow_the_surface", skin.name()),
                move || rigid_normals_follow_the_surface(&r, skin),
            ));
        }
    }
    common::run_trials(&args, trials);
}
