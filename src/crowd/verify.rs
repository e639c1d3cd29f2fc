//! Verification: how far a frame computed by the current variants is from the f64
//! oracles (the panel's "verify" button, `--verify`, `pose` and the conformance tests).
//!
//! How it works: for a spread of instances, each clip is sampled (sampling is shared by
//! all variants and tested on its own), then the oracles take over in double precision:
//! the blend oracle (written independently of the blend stage), the reference hierarchy,
//! palette and skinning. The variant's output is decoded through its
//! [`OutputLayout`](crate::skin::OutputLayout) into file vertex order and the largest
//! position and normal differences are reported, positions also relative to the rig's
//! size. The blend and hierarchy stages are compared on their own as well, so a failure
//! names its stage.

use glam::DVec3;

use super::instances::Instance;
use super::pipeline::{FrameError, Pipeline};
use crate::anim::hierarchy::reference;
use crate::skin::{self, BufferError, OutputFormat, SkinMethod};
use crate::types::LANES;

/// Largest position error a correct variant may show, relative to the rig's size.
pub const POSITION_TOLERANCE: f64 = 1e-4;

/// Largest blend or hierarchy error a correct variant may show (relative to the rig's size
/// for translations, relative to the joint's scale for the rotation/scale part).
pub const POSE_TOLERANCE: f64 = 1e-4;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Deviation {
    /// Largest |variant - reference| over position components, model units.
    pub max_position: f64,
    /// The same divided by the rig's size ([`crate::prepare::PreparedData::model_size`]).
    pub relative_position: f64,
    /// Largest component difference of the unit normals (directions are compared).
    pub max_normal: f64,
    /// The most the output format may be off in a normal component (for normals at their
    /// bound's length where the format packs them at a fixed scale).
    pub normal_tolerance: f64,
    /// The largest normal error as a fraction of its own vertex's tolerance: the format's,
    /// or where normals are packed at a fixed scale that times the bound over the normal's
    /// length (`NormalEncoding::tolerance_factor`). At most 1 within tolerance.
    pub normal_excess: f64,
    pub worst_instance: usize,
    pub worst_vertex: usize,
    pub instances_checked: usize,
}

impl Deviation {
    /// Whether positions and normals are within tolerance.
    pub fn within_tolerance(&self) -> bool {
        self.relative_position <= POSITION_TOLERANCE && self.normal_excess <= 1.0
    }
}

/// The deviation of each stage from its oracle.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct FrameDeviation {
    /// The blend stage's local poses against the blend oracle (0 with blending off).
    pub blend: f64,
    /// The hierarchy variant's model matrices against the reference hierarchy.
    pub hierarchy: f64,
    /// The skinned output (hierarchy, palette and skin together) against the references.
    pub skin: Deviation,
}

impl FrameDeviation {
    pub fn within_tolerance(&self) -> bool {
        self.blend <= POSE_TOLERANCE
            && self.hierarchy <= POSE_TOLERANCE
            && self.skin.within_tolerance()
    }

    /// A verdict line, then one line per stage, for the terminal.
    pub fn to_text(&self) -> String {
        let d = &self.skin;
        let mut failed = Vec::new();
        if self.blend > POSE_TOLERANCE {
            failed.push("blend");
        }
        if self.hierarchy > POSE_TOLERANCE {
            failed.push("hierarchy");
        }
        if d.relative_position > POSITION_TOLERANCE {
            failed.push("skin positions");
        }
        if d.normal_excess > 1.0 {
            failed.push("skin normals");
        }
        let verdict = if failed.is_empty() {
            "PASS: every stage within its tolerance".to_string()
        } else {
            format!("FAIL: {} beyond tolerance", failed.join(", "))
        };
        format!(
            "verify: {verdict} ({} instances compared with the f64 oracles)\n\
             blend      local poses off by at most {:.2e} (tolerance {POSE_TOLERANCE:.0e})\n\
             hierarchy  model matrices off by at most {:.2e} (tolerance {POSE_TOLERANCE:.0e})\n\
             skin       positions off by at most {:.2e} of the rig size (tolerance \
             {POSITION_TOLERANCE:.0e})\n\
             skin       normals off by at most {:.2e} a component; each vertex's tolerance \
             follows how its normal is stored ({:.1e} at full length), and the worst vertex \
             used {:.0} % of its own (a pass is at most 100 %)\n",
            d.instances_checked,
            self.blend,
            self.hierarchy,
            d.relative_position,
            d.max_normal,
            d.normal_tolerance,
            d.normal_excess * 100.0,
        )
    }
}

/// Up to `count` instance indices spread evenly over `0..n`, always including the last.
fn spread(n: usize, count: usize) -> Vec<usize> {
    if n <= count {
        return (0..n).collect();
    }
    let mut v: Vec<usize> = (0..count)
        .map(|i| i * (n - 1) / (count - 1).max(1))
        .collect();
    v.dedup();
    v
}

fn finite_or_infinite(e: f64) -> f64 {
    if e.is_nan() { f64::INFINITY } else { e }
}

/// Compares `out` (the frame `pipeline` just computed for `instances`) with the reference.
/// For `gpu_compute`, `out` is what the GPU skinned, read back (laid out as
/// [`crate::skin::OutputLayout::skinned_on_gpu`] says), not the palettes the CPU wrote;
/// for `gpu_vertex`, which stores no vertices, `out` is its palettes, and what is compared
/// is those palettes skinned by the vertex shader's formula in f64
/// ([`skin::reference::skin_rows`]): the palettes the shader is given are checked here,
/// the shader by picture (tests/gpu_conformance.rs).
pub fn verify_frame(
    pipeline: &Pipeline,
    instances: &[Instance],
    out: &[u8],
    max_instances: usize,
) -> Result<Deviation, BufferError> {
    verify_frame_at_levels(pipeline, instances, out, max_instances, None)
}

/// [`verify_frame`] where each character was skinned only at its level of the mesh's
/// chain (`skin_levels`, one per instance: the LOD pass's or the CPU plan's): a
/// character's vertices its level's triangles do not use are not compared (they hold an
/// older pose, and nothing draws them).
pub fn verify_frame_at_levels(
    pipeline: &Pipeline,
    instances: &[Instance],
    out: &[u8],
    max_instances: usize,
    skin_levels: Option<&[u32]>,
) -> Result<Deviation, BufferError> {
    verify_frame_posed_at_levels(
        pipeline,
        instances,
        out,
        max_instances,
        skin_levels,
        skin_levels,
    )
}

/// [`verify_frame_at_levels`] where character `i` was posed for level `posed_levels[i]`
/// (its held joints at rest: [`Pipeline::reference_local_pose_at`]), which may differ
/// from the level it was skinned for (the GPU's LOD pass poses a character no pass draws
/// for the coarsest level). `None`: every joint posed.
pub fn verify_frame_posed_at_levels(
    pipeline: &Pipeline,
    instances: &[Instance],
    out: &[u8],
    max_instances: usize,
    skin_levels: Option<&[u32]>,
    posed_levels: Option<&[u32]>,
) -> Result<Deviation, BufferError> {
    let rig = pipeline.rig();
    let deepest = skin_levels.map(|_| {
        rig.mesh_chain()
            .deepest_levels_file(rig.source_mesh.vertex_count())
    });
    let layout = pipeline.output_layout();
    let layout = &layout.skinned_on_gpu().unwrap_or(*layout);
    let mut d = Deviation {
        normal_tolerance: layout.format().normal_tolerance(),
        ..Deviation::default()
    };
    // Every path skins a level that cuts its vertices' influences with the cut
    // (`skin::level_kept`): the oracle of that level skins the same cut mesh, each made
    // once, and so does `gpu_vertex`'s twin (its draws read the level's cut copy).
    let mut cut_meshes: [Option<crate::rig::Mesh>; crate::prepare::MAX_CUT] = Default::default();
    for i in spread(instances.len(), max_instances) {
        let posed = posed_levels.and_then(|l| l.get(i)).map(|&l| l as usize);
        let locals = pipeline.reference_local_pose_at(&instances[i], posed);
        let model = reference::model_from_joint_f64(&rig.skeleton, &locals);
        let palette = reference::palette(&rig.skeleton, &model);
        let level = skin_levels.and_then(|l| l.get(i)).copied().unwrap_or(0);
        let kept = skin::level_kept(rig, level as usize, pipeline.config().method);
        let oracle_mesh = match kept {
            Some(k) => &*cut_meshes[k - 1].get_or_insert_with(|| rig.source_mesh.reduced_to(k).0),
            None => &rig.source_mesh,
        };
        let (ref_positions, ref_normals) = match pipeline.config().method {
            SkinMethod::Linear => skin::reference::skin(oracle_mesh, &palette),
            SkinMethod::DualQuat => skin::reference::skin_dual_quat(
                &rig.source_mesh,
                &palette,
                skin::method::dual_quat_scale(rig) as f64,
            ),
        };
        // `gpu_vertex` stores no vertices: its palettes, skinned by the shader's twin.
        let twin = |(p, n): (Vec<glam::DVec3>, Vec<glam::DVec3>)| {
            (
                p.iter().map(|v| v.as_vec3()).collect::<Vec<_>>(),
                n.iter().map(|v| v.as_vec3()).collect::<Vec<_>>(),
            )
        };
        let (positions, normals) = match layout.format() {
            OutputFormat::Palette3x4 => {
                let (position_rows, normal_rows) = layout.read_palettes(rig, out, i)?;
                twin(skin::reference::skin_rows(
                    oracle_mesh,
                    &position_rows,
                    &normal_rows,
                ))
            }
            OutputFormat::PaletteDualQuat => {
                let given: Vec<(glam::DQuat, glam::DQuat)> = layout
                    .read_dual_quats(rig, out, i)?
                    .iter()
                    .map(|q| {
                        let q = q.map(f64::from);
                        (
                            glam::DQuat::from_xyzw(q[0], q[1], q[2], q[3]),
                            glam::DQuat::from_xyzw(q[4], q[5], q[6], q[7]),
                        )
                    })
                    .collect();
                twin(skin::reference::skin_dual_quats(
                    &rig.source_mesh,
                    &given,
                    skin::method::dual_quat_scale(rig) as f64,
                ))
            }
            OutputFormat::Interleaved
            | OutputFormat::Float3
            | OutputFormat::Float4
            | OutputFormat::Packed => layout.read_instance(&rig.mesh, out, i)?,
        };
        for v in 0..positions.len() {
            if let Some(deepest) = &deepest
                && deepest.get(v).is_some_and(|&d| d < level)
            {
                continue;
            }
            let dp = finite_or_infinite(
                (positions[v].as_dvec3() - ref_positions[v])
                    .abs()
                    .max_element(),
            );
            // Normals are directions: the renderer normalises, the packed format keeps
            // only the direction, and where the palette matrices serve as normal matrices
            // (one common scale) their lengths differ from the oracle's by that scale.
            let dn = finite_or_infinite(
                (normals[v].as_dvec3().normalize_or_zero() - ref_normals[v].normalize_or_zero())
                    .abs()
                    .max_element(),
            );
            if dp > d.max_position {
                d.max_position = dp;
                d.worst_instance = i;
                d.worst_vertex = v;
            }
            d.max_normal = d.max_normal.max(dn);
            let tolerance = d.normal_tolerance
                * layout
                    .normal_encoding()
                    .tolerance_factor(ref_normals[v].length());
            d.normal_excess = d.normal_excess.max(dn / tolerance);
        }
        d.instances_checked += 1;
    }
    d.relative_position = d.max_position / rig.model_size as f64;
    Ok(d)
}

/// Largest difference between the current hierarchy variant's model matrices and the
/// reference, relative to the rig's size (translations) or to the joint's scale (rotation/scale part).
pub fn verify_hierarchy(
    pipeline: &mut Pipeline,
    instances: &[Instance],
) -> Result<f64, FrameError> {
    let poses = pipeline.model_poses(instances)?;
    let rig = pipeline.rig().clone();
    let mut worst: f64 = 0.0;
    for (instance, pose) in instances.iter().zip(&poses) {
        // The same local pose the variant was given, so only the hierarchy is compared.
        let locals = pipeline.local_pose(instance);
        let reference = reference::model_from_joint(&rig.skeleton, &locals);
        worst = worst.max(model_deviation(
            pose.iter().map(|m| m.as_dmat4()),
            &reference,
            rig.model_size as f64,
            |_| true,
        ));
    }
    Ok(worst)
}

/// Largest difference of model matrices from the reference's: translations relative to
/// the rig's `size`, the rotation/scale part relative to the reference's scale (its
/// longest axis; absolute where a joint is scaled to nothing), so a rig whose matrices
/// all carry a unit conversion (100, 0.01) is held to the same relative precision.
fn model_deviation(
    model: impl Iterator<Item = glam::DMat4>,
    reference: &[glam::DMat4],
    size: f64,
    counted: impl Fn(usize) -> bool,
) -> f64 {
    let mut worst: f64 = 0.0;
    for (j, (m, r)) in model.zip(reference).enumerate() {
        if !counted(j) {
            continue;
        }
        let axes = longest_axis(r);
        let axes = if axes > 0.0 { axes } else { 1.0 };
        for c in 0..4 {
            let diff = (m.col(c) - r.col(c)).abs().max_element();
            let scale = if c == 3 { size } else { axes };
            worst = worst.max(finite_or_infinite(diff / scale));
        }
    }
    worst
}

/// Largest difference of local poses from the blend oracle's (translations in model
/// units relative to the rig's `size`; rotations, either sign, and scales absolute).
fn local_deviation(
    skeleton: &crate::rig::Skeleton,
    locals: &[crate::types::Qvs],
    oracle: &[reference::LocalF64],
    size: f64,
    counted: impl Fn(usize) -> bool,
) -> f64 {
    // A local translation is in its parent's space: scaled by the parent's model matrix
    // (a 0.01 armature over a centimetre skeleton) it moves the joint that much in model
    // units, the units `size` is in.
    let model = reference::model_from_joint_f64(skeleton, oracle);
    let mut worst: f64 = 0.0;
    for (j, (b, o)) in locals.iter().zip(oracle).enumerate() {
        if !counted(j) {
            continue;
        }
        let parent_scale = match skeleton.parents[j] {
            crate::rig::NO_PARENT => longest_axis(&skeleton.model_from_root_parent[j].as_dmat4()),
            p => longest_axis(&model[usize::from(p)]),
        };
        let b = reference::LocalF64::from(b);
        // q and -q are one rotation.
        let rotation = (b.rotation - o.rotation)
            .length()
            .min((b.rotation + o.rotation).length());
        let translation = max_abs(b.translation - o.translation) * parent_scale / size;
        let scale = max_abs(b.scale - o.scale);
        worst = worst.max(finite_or_infinite(rotation.max(translation).max(scale)));
    }
    worst
}

/// Largest difference between the blend stage's local poses and the blend oracle
/// (translations relative to the rig's size; rotations and scales absolute).
pub fn verify_blend(pipeline: &Pipeline, instances: &[Instance]) -> f64 {
    let size = pipeline.rig().model_size as f64;
    let mut worst: f64 = 0.0;
    for instance in instances {
        let blended = pipeline.local_pose(instance);
        let oracle = pipeline.reference_local_pose(instance);
        worst = worst.max(local_deviation(
            &pipeline.rig().skeleton,
            &blended,
            &oracle,
            size,
            |_| true,
        ));
    }
    worst
}

/// The longest of a matrix's three axes (how much it lengthens a vector at most, for a
/// rotation times a scale).
fn longest_axis(m: &glam::DMat4) -> f64 {
    (0..3)
        .map(|c| m.col(c).truncate().length())
        .fold(0.0f64, f64::max)
}

fn max_abs(v: DVec3) -> f64 {
    v.abs().max_element()
}

/// Every stage of the frame `out` holds against its oracle.
pub fn verify_stages(
    pipeline: &mut Pipeline,
    instances: &[Instance],
    out: &[u8],
    max_instances: usize,
) -> Result<FrameDeviation, FrameError> {
    verify_stages_at_levels(pipeline, instances, out, max_instances, &[], &[])
}

/// [`verify_stages`] where the CPU skinned group `g` of eight only for level
/// `skin_levels[g]` of the mesh's chain (empty: every vertex;
/// [`crate::crowd::Pipeline::run_groups_at_levels_into`]): only the vertices of that level
/// are compared, posed for `posed_levels[g]` (the level the group was computed for, its
/// held joints at rest; no finer than `skin_levels[g]`, which may name what a pass draws
/// of a kept group now; empty: `skin_levels`).
pub fn verify_stages_at_levels(
    pipeline: &mut Pipeline,
    instances: &[Instance],
    out: &[u8],
    max_instances: usize,
    skin_levels: &[u8],
    posed_levels: &[u8],
) -> Result<FrameDeviation, FrameError> {
    let sample: Vec<Instance> = spread(instances.len(), max_instances)
        .into_iter()
        .map(|i| instances[i])
        .collect();
    let per_group = |levels: &[u8]| -> Vec<u32> {
        (0..instances.len())
            .map(|i| levels.get(i / LANES).map_or(0, |&l| l as u32))
            .collect()
    };
    let per_instance = per_group(skin_levels);
    let posed = if posed_levels.is_empty() {
        per_instance.clone()
    } else {
        per_group(posed_levels)
    };
    let skin = verify_frame_posed_at_levels(
        pipeline,
        instances,
        out,
        max_instances,
        (!skin_levels.is_empty()).then_some(&per_instance[..]),
        (!skin_levels.is_empty() || !posed_levels.is_empty()).then_some(&posed[..]),
    )?;
    Ok(FrameDeviation {
        blend: verify_blend(pipeline, &sample),
        hierarchy: verify_hierarchy(pipeline, &sample)?,
        skin,
    })
}

/// Per character, what the GPU's LOD pass chose (`None`: no LOD pass, full detail and
/// every moving joint).
#[derive(Clone, Copy, Debug, Default)]
pub struct GpuLevels<'a> {
    /// The level of the mesh's chain whose vertices it skinned (or whose vertices the
    /// draws read).
    pub skin: Option<&'a [u32]>,
    /// The level whose joints its pose holds.
    pub posed: Option<&'a [u32]>,
    /// Characters whose output is compared, spread over the crowd (0: as many as
    /// `indices` names). Where the GPU keeps the poses of only the characters it computed
    /// this frame, `indices` names those, and the output is still compared for this many.
    pub outputs_compared: usize,
}

/// Every stage of a frame animated on the GPU against its oracle: `locals` and `models`
/// are the GPU's local poses and model matrices of the characters `indices` names (read
/// back), `out` what was skinned (or the palettes, as [`verify_frame`] takes them) for
/// every character of `instances` (their times as the GPU computed them). The local
/// poses (sampling and the cross-fade) are compared with the CPU's sampling blended by the
/// f64 oracle, the model matrices with the reference hierarchy of the GPU's own local
/// poses (both for the joints its pose holds: `levels.posed`, every moving joint without),
/// the output as [`verify_frame`] compares it (at `levels.skin` where the LOD pass chose
/// them: [`verify_frame_at_levels`]).
pub fn verify_gpu_animation(
    pipeline: &Pipeline,
    instances: &[Instance],
    indices: &[usize],
    locals: &[Vec<crate::types::Qvs>],
    models: &[Vec<crate::types::Mat3x4>],
    out: &[u8],
    levels: GpuLevels<'_>,
) -> Result<FrameDeviation, BufferError> {
    let rig = pipeline.rig();
    let size = rig.model_size as f64;
    let mut blend: f64 = 0.0;
    let mut hierarchy: f64 = 0.0;
    // The GPU poses a character's joints of its posed level (the moving ones, level 0's,
    // without): the others hold an older pose, or none. It samples only the level's
    // joints a clip animates and the level does not hold, and its hierarchy takes the
    // others at rest without writing their local poses: they are taken at rest here too,
    // and the model matrices, compared with the reference hierarchy of these poses, show
    // whether the GPU did.
    let method = pipeline.config().method;
    let mut at_rest = Vec::new();
    for ((&i, local), model) in indices.iter().zip(locals).zip(models) {
        let level = levels.posed.and_then(|l| l.get(i)).copied().unwrap_or(0) as usize;
        let set = skin::level_errors::posed_joints(rig, level, method);
        let moving = |j: usize| set.contains(j);
        at_rest.clear();
        at_rest.extend_from_slice(local);
        for j in set.joints() {
            if skin::level_errors::level_samples(rig, level, method, j) {
                continue;
            }
            if let (Some(l), Some(r)) = (at_rest.get_mut(j), rig.rest_pose.get(j)) {
                *l = *r;
            }
        }
        let local = &at_rest[..];
        let oracle = pipeline.reference_local_pose_at(&instances[i], levels.posed.map(|_| level));
        blend = blend.max(local_deviation(&rig.skeleton, local, &oracle, size, moving));
        let reference = reference::model_from_joint(&rig.skeleton, local);
        hierarchy = hierarchy.max(model_deviation(
            model.iter().map(|m| m.to_mat4().as_dmat4()),
            &reference,
            size,
            moving,
        ));
    }
    let skin = verify_frame_posed_at_levels(
        pipeline,
        instances,
        out,
        match levels.outputs_compared {
            0 => indices.len().max(1),
            n => n,
        },
        levels.skin,
        levels.posed,
    )?;
    Ok(FrameDeviation {
        blend,
        hierarchy,
        skin,
    })
}

/// The characters verify compares: up to `count` spread evenly over `0..n`, the last
/// always among them.
pub fn verified_indices(n: usize, count: usize) -> Vec<usize> {
    spread(n, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{NO_PARENT, Skeleton, Transform};
    use crate::types::Qvs;

    /// A root under a 0.01 armature with one child: the child's local translation is in
    /// the armature's centimetres.
    fn centimetre_skeleton() -> Skeleton {
        Skeleton {
            names: vec!["root".into(), "child".into()],
            parents: vec![NO_PARENT, 0],
            root_count: 1,
            model_from_root_parent: vec![glam::Mat4::from_scale(glam::Vec3::splat(0.01))],
            rest_pose: vec![Transform::IDENTITY; 2],
            palette_joints: vec![0, 1],
            joint_from_bind: vec![glam::Mat4::IDENTITY; 2],
        }
    }

    #[test]
    fn a_local_translation_counts_in_model_units() {
        let skeleton = centimetre_skeleton();
        let oracle: Vec<reference::LocalF64> = [Qvs::IDENTITY; 2]
            .iter()
            .map(reference::LocalF64::from)
            .collect();
        let mut locals = [Qvs::IDENTITY; 2];
        // One centimetre off: a hundredth of a model unit, a hundredth of a size of 1.
        locals[1].translation.x += 1.0;
        let d = local_deviation(&skeleton, &locals, &oracle, 1.0, |_| true);
        assert!((d - 0.01).abs() < 1e-9, "{d}");
        // The root's translation is scaled by the armature too.
        let mut locals = [Qvs::IDENTITY; 2];
        locals[0].translation.y += 1.0;
        let d = local_deviation(&skeleton, &locals, &oracle, 1.0, |_| true);
        assert!((d - 0.01).abs() < 1e-9, "{d}");
    }
}
