//! Geometric LOD's chains on every rig: each level a valid triangle list over the
//! character's own vertices, coarser than the one before and made of its vertices, and each
//! level's stated error an upper bound of what the f64 oracle finds at other poses of the
//! clips (halfway between the times the load-time measurement used).
//!
//! One case per (rig, check), so a failure names its case.

mod common;

use std::collections::HashSet;

use libtest_mimic::{Arguments, Failed};
use skinbench::prepare::PreparedRig;
use skinbench::skin::SkinMethod;
use skinbench::skin::level_errors::{joint_merges, level_errors};

fn chain_is_valid(rig: &PreparedRig) -> Result<(), Failed> {
    let chain = rig.mesh_chain();
    let levels = chain.levels();
    if levels.is_empty() {
        return Err("no levels".into());
    }
    if levels[0].index_count as usize != rig.mesh.indices().len() {
        return Err("level 0 is not the full mesh".into());
    }
    if levels.len() == 1 && chain.note.is_none() {
        return Err("one level and no note saying why".into());
    }
    let vertex_count = rig.mesh.vertex_count() as u32;
    for (l, level) in levels.iter().enumerate() {
        let indices = chain.level_indices(l);
        if !indices.len().is_multiple_of(3) || indices.iter().any(|&v| v >= vertex_count) {
            return Err(format!("level {l}: not a triangle list over the mesh's vertices").into());
        }
        if l > 0 {
            let finer = &levels[l - 1];
            if level.triangles() as f64 > finer.triangles() as f64 * 0.9 {
                return Err(format!(
                    "level {l}: {} triangles after {}",
                    level.triangles(),
                    finer.triangles()
                )
                .into());
            }
            let kept: HashSet<u32> = chain.level_indices(l - 1).iter().copied().collect();
            if let Some(v) = indices.iter().find(|v| !kept.contains(v)) {
                return Err(format!("level {l}: vertex {v} is not in level {}", l - 1).into());
            }
        }
    }
    let original = rig.mesh.sorted().original_of_sorted();
    for (k, (f, s)) in chain
        .indices_file()
        .iter()
        .zip(chain.indices_sorted())
        .enumerate()
    {
        if original[*s as usize] != *f {
            return Err(format!("index {k}: the sorted list names another vertex").into());
        }
    }
    Ok(())
}

/// Each level's stated error bounds what the oracle finds halfway between the measured
/// poses: the distance between the full surface and the level's, posed with the joints
/// the level holds at rest and skinned with the influences it keeps, or those a finer
/// level keeps (a coarse character in a finer character's group of eight).
fn error_bounds_other_poses(rig: &PreparedRig) -> Result<(), Failed> {
    use skinbench::skin::joint_merges::held_surface_distances;
    let stated = &level_errors(rig).errors;
    if stated.len() != rig.mesh_chain().levels().len() || stated[0] != 0.0 {
        return Err(format!("errors {stated:?}").into());
    }
    if stated.windows(2).any(|w| w[1] < w[0]) {
        return Err(format!("errors shrink along the chain: {stated:?}").into());
    }
    let held: Vec<Vec<usize>> = joint_merges(rig).iter().map(|m| m.held.clone()).collect();
    let kept: Vec<Option<usize>> = (0..stated.len())
        .map(|l| skinbench::skin::level_errors::kept_at(rig, l))
        .collect();
    let found = held_surface_distances(rig, &held, &kept, 0.5);
    for (l, (s, found)) in stated.iter().zip(&found).enumerate() {
        for (p, f) in found.iter().enumerate() {
            if *f > *s as f64 * (1.0 + 1e-6) {
                return Err(format!(
                    "level {l}, pose {p}: the oracle finds {f:.4e} between the surfaces, {} \
                     joints held, {:?} influences kept, between the measured poses; stated \
                     {s:.4e}",
                    held[l].len(),
                    kept[l]
                )
                .into());
            }
        }
    }
    // A group of eight is posed and skinned for its finest member's level, so a coarse
    // member may carry a finer level's held joints and cut: each level drawn so, for
    // every finer level that cuts, stays within its own stated error too.
    for (group, cut) in kept.iter().enumerate() {
        let Some(cut) = *cut else {
            continue;
        };
        let carried: Vec<Option<usize>> = (0..stated.len())
            .map(|l| (l > group).then_some(cut))
            .collect();
        let carried_held: Vec<Vec<usize>> = (0..stated.len())
            .map(|l| {
                if l > group {
                    held[group].clone()
                } else {
                    Vec::new()
                }
            })
            .collect();
        let found = held_surface_distances(rig, &carried_held, &carried, 0.5);
        for (l, (s, found)) in stated.iter().zip(&found).enumerate().skip(group + 1) {
            if let Some(f) = found
                .iter()
                .copied()
                .find(|&f| f > *s as f64 * (1.0 + 1e-6))
            {
                return Err(format!(
                    "level {l} in a group of level {group} (its cut to {cut}): the oracle finds \
                     {f:.4e} between the surfaces between the measured poses; stated {s:.4e}"
                )
                .into());
            }
        }
    }
    Ok(())
}

/// Each level's joint set is exact: with every joint outside it posed wildly otherwise,
/// the oracle skins the level's vertices to the same bits. So is the set linear blending
/// poses, for the level's vertices with their influences cut as that level cuts them; it
/// holds no joint the level's whole set does not, and the sets nest.
fn joint_sets_are_exact(rig: &PreparedRig) -> Result<(), Failed> {
    use glam::{DQuat, DVec3};
    use skinbench::anim::hierarchy::reference::{LocalF64, model_from_joint_f64, palette};
    use skinbench::skin::reference::skin_positions;
    let chain = rig.mesh_chain();
    let sets = rig.level_joint_sets();
    if sets.len() != chain.levels().len() {
        return Err(format!("{} sets for {} levels", sets.len(), chain.levels().len()).into());
    }
    let deepest = chain.deepest_levels_file(rig.source_mesh.vertex_count());
    let posed: Vec<LocalF64> = rig.rest_pose.iter().map(LocalF64::from).collect();
    let expected_palette = palette(&rig.skeleton, &model_from_joint_f64(&rig.skeleton, &posed));
    let mut cases = Vec::new();
    for (level, set) in sets.iter().enumerate() {
        cases.push((level, set, "every influence", None));
        let cut = skinbench::skin::level_errors::posed_joints(rig, level, SkinMethod::Linear);
        let kept = skinbench::skin::level_kept(rig, level, SkinMethod::Linear);
        if let Some(j) = cut.joints().find(|&j| !set.contains(j)) {
            return Err(format!("level {level}: the cut set holds joint {j}, the set not").into());
        }
        if level > 0
            && let Some(j) = cut.joints().find(|&j| {
                !skinbench::skin::level_errors::posed_joints(rig, level - 1, SkinMethod::Linear)
                    .contains(j)
            })
        {
            return Err(
                format!("level {level}: the cut set holds joint {j}, the finer not").into(),
            );
        }
        cases.push((level, cut, "its influences cut", kept));
    }
    let mut cut_meshes = std::collections::BTreeMap::new();
    for (level, set, what, kept) in cases {
        if set.is_empty() {
            return Err(format!("level {level} ({what}) keeps no joint").into());
        }
        let mesh = match kept {
            Some(k) => &*cut_meshes
                .entry(k)
                .or_insert_with(|| rig.source_mesh.reduced_to(k).0),
            None => &rig.source_mesh,
        };
        let scrambled: Vec<LocalF64> = posed
            .iter()
            .enumerate()
            .map(|(j, l)| {
                if set.contains(j) {
                    *l
                } else {
                    LocalF64 {
                        rotation: DQuat::from_rotation_x(1.3) * DQuat::from_rotation_z(0.7),
                        translation: l.translation + DVec3::new(1e3, -2e3, 5e2),
                        scale: DVec3::splat(7.0),
                    }
                }
            })
            .collect();
        let got_palette = palette(
            &rig.skeleton,
            &model_from_joint_f64(&rig.skeleton, &scrambled),
        );
        let vertices: Vec<u32> = (0..deepest.len() as u32)
            .filter(|&v| deepest[v as usize] as usize >= level)
            .collect();
        let expected = skin_positions(mesh, &expected_palette, &vertices);
        let got = skin_positions(mesh, &got_palette, &vertices);
        if let Some(k) = (0..got.len()).find(|&k| got[k] != expected[k]) {
            return Err(format!(
                "level {level}, {what} ({} of {} joints): vertex {} moves with a joint outside \
                 the set ({} against {})",
                set.len(),
                rig.skeleton.joint_count(),
                vertices[k],
                got[k],
                expected[k]
            )
            .into());
        }
    }
    Ok(())
}

/// What cutting each level's influences moves, as stated at load, bounds what the oracle
/// finds halfway between the measured poses, for every cut.
fn influence_cuts_bound_other_poses(rig: &PreparedRig) -> Result<(), Failed> {
    use skinbench::skin::influence_cuts::largest_moves;
    use skinbench::skin::level_errors::influence_cuts;
    let stated = influence_cuts(rig);
    let between = largest_moves(rig, 0.5);
    for (l, (s, b)) in stated.iter().zip(&between).enumerate() {
        for (k, (&found, &moved)) in b.iter().zip(&s.moved).enumerate() {
            if found > moved * (1.0 + 1e-9) {
                return Err(format!(
                    "level {l}, {} influences: the oracle finds a vertex moved {found:.4e} \
                     between the measured poses; stated {moved:.4e}",
                    k + 1,
                )
                .into());
            }
        }
        if let Some(k) = s.fits
            && s.moved[k - 1] == 0.0
        {
            return Err(format!("level {l} keeps a cut to {k} that moves nothing").into());
        }
    }
    if stated[0].fits.is_some() {
        return Err("the full mesh cuts its influences".into());
    }
    Ok(())
}

/// What the oracle finds halfway between the measured poses with each level's joints held
/// at rest moves a vertex at most what is stated for them; the full mesh holds nothing.
/// (A held joint may move a vertex farther than the level's error: along the surface.
/// What bounds the error is the held surface's distance, `error_bound`.)
fn joint_merges_bound_other_poses(rig: &PreparedRig) -> Result<(), Failed> {
    use skinbench::skin::joint_merges::held_moves;
    let stated = joint_merges(rig);
    let held: Vec<Vec<usize>> = stated.iter().map(|m| m.held.clone()).collect();
    let between = held_moves(rig, &held, 0.5);
    // Holding (and the influence cuts) never grows a level's error: it is the surface's
    // distance without them.
    let errors = &level_errors(rig).errors;
    let (surface, _) = skinbench::skin::mesh_lod::measure(
        rig,
        skinbench::skin::mesh_lod::poses_per_clip(rig),
        0.0,
    );
    for l in 1..errors.len() {
        let unheld = (surface[l] * (1.0 + skinbench::skin::mesh_lod::POSE_MARGIN)) as f32;
        if errors[l] > unheld.max(errors[l - 1]) {
            return Err(format!(
                "level {l}: holding {} joints grows its error from {unheld:.4e} to {:.4e}",
                held[l].len(),
                errors[l]
            )
            .into());
        }
    }
    for (l, (s, &found)) in stated.iter().zip(&between).enumerate() {
        if found > s.moved * (1.0 + 1e-9) {
            return Err(format!(
                "level {l}, {} joints held: the oracle finds a vertex moved {found:.4e} between \
                 the measured poses; stated {:.4e}",
                s.held.len(),
                s.moved
            )
            .into());
        }
        if s.held.len() > s.animated {
            return Err(format!("level {l}: more joints held than animated").into());
        }
    }
    if !stated[0].held.is_empty() {
        return Err("the full mesh holds joints at rest".into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    type Check = fn(&PreparedRig) -> Result<(), Failed>;
    let checks: [(&str, Check); 5] = [
        ("chain", chain_is_valid),
        ("error_bound", error_bounds_other_poses),
        ("joint_sets", joint_sets_are_exact),
        ("influence_cuts", influence_cuts_bound_other_poses),
        ("joint_merges", joint_merges_bound_other_poses),
    ];
    let mut trials = Vec::new();
    for (name, rig) in common::prepared_rigs() {
        for (check, run) in checks {
            let r = rig.clone();
            trials.push(common::trial(format!("{check}/{name}"), move || run(&r)));
        }
    }
    common::run_trials(&args, trials);
}
