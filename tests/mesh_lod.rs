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
    let between_poses = &level_errors(rig).between_poses;
    for l in 1..errors.len() {
        // What the poses found, or the bound between them (posed as drawn) where larger.
        let unheld = (surface[l].max(between_poses[l])
            * (1.0 + skinbench::skin::mesh_lod::POSE_MARGIN)) as f32;
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

/// Each level's stated error holds at times no measurement chose: a seeded draw of times
/// in each clip, off any grid, posed as a character drawn at the level is (its held joints
/// at rest, its influences cut), and the exact two-sided distance between its surface and
/// the full one there stays within what the level states.
fn error_bound_holds_off_grid(rig: &PreparedRig) -> Result<(), Failed> {
    use skinbench::skin::joint_merges::held_surface_distances_at;
    if rig.clips.is_empty() {
        return Ok(());
    }
    let stated = &level_errors(rig).errors;
    let held: Vec<Vec<usize>> = joint_merges(rig).iter().map(|m| m.held.clone()).collect();
    let kept: Vec<Option<usize>> = (0..stated.len())
        .map(|l| skinbench::skin::level_errors::kept_at(rig, l))
        .collect();
    let mut rng = skinbench::crowd::instances::SplitMix64(0x5eed ^ rig.joint_count() as u64);
    let per_clip = 24;
    let times: Vec<(usize, f32)> = rig
        .clips
        .iter()
        .enumerate()
        .flat_map(|(c, clip)| {
            (0..per_clip)
                .map(|_| (c, clip.duration_secs * rng.unit()))
                .collect::<Vec<_>>()
        })
        .collect();
    let found = held_surface_distances_at(rig, &held, &kept, &times);
    for (l, (s, found)) in stated.iter().zip(&found).enumerate().skip(1) {
        for (&(c, t), f) in times.iter().zip(found) {
            if *f > *s as f64 * (1.0 + 1e-6) {
                return Err(format!(
                    "level {l}: at {t:.3} s of {} the surfaces are {f:.4e} apart, {:.2}× the \
                     stated {s:.4e}",
                    rig.clips[c].name,
                    f / *s as f64
                )
                .into());
            }
        }
    }
    Ok(())
}

/// A rig's level measurement read back from the cache is the measurement: a second
/// preparation of the same rig reads it (and measures nothing), and every level's error,
/// cut, held joints and joint sets come out equal.
fn a_cached_measurement_is_the_measurement() -> Result<(), Failed> {
    use skinbench::prepare::cache::MeasureCache;
    use skinbench::skin::level_cache::{LevelSource, level_errors_cached, path_for};
    let cache = MeasureCache::at(common::temp_dir("level-cache-roundtrip"));
    let first = PreparedRig::reference();
    let (measured, source, problem) = level_errors_cached(&first, Some(&cache));
    if source != LevelSource::Measured || problem.is_some() {
        return Err(format!("first load: {source:?}, {problem:?}").into());
    }
    if !path_for(&cache, &first).is_file() {
        return Err("nothing written".into());
    }
    let second = PreparedRig::reference();
    let (read, source, problem) = level_errors_cached(&second, Some(&cache));
    if source != LevelSource::Cache || problem.is_some() {
        return Err(format!("second load: {source:?}, {problem:?}").into());
    }
    if read != measured
        || read.cut_sets != measured.cut_sets
        || read.cut_merges != measured.cut_merges
    {
        return Err(format!("read {read:?}\nmeasured {measured:?}").into());
    }
    Ok(())
}

/// The cache's key is the rig's content: the same file gives the same key, a vertex moved
/// by one bit or influences cut to fewer give another (a miss), and a file written by
/// other code, a corrupt one or one that names a joint the rig lacks is not read (a miss,
/// then overwritten by the new measurement).
fn the_cache_is_keyed_by_content_and_code() -> Result<(), Failed> {
    use skinbench::prepare::cache::MeasureCache;
    use skinbench::rig::generate::BuiltInRig;
    use skinbench::skin::level_cache::{LevelSource, level_errors_cached, path_for};
    let dir = common::temp_dir("level-cache-keys");
    let cache = MeasureCache::at(&dir);
    let rig = PreparedRig::reference();
    let same = PreparedRig::reference();
    if rig.content_hash != same.content_hash {
        return Err("one rig, two keys".into());
    }
    let cut = PreparedRig::built_in_cut(BuiltInRig::Reference, 2);
    let (mut moved_rig, report) = skinbench::rig::import_slice(
        BuiltInRig::Reference.glb(),
        BuiltInRig::Reference.asset_path(),
        None,
    )
    .unwrap();
    moved_rig.mesh.positions[7].x = f32::from_bits(moved_rig.mesh.positions[7].x.to_bits() ^ 1);
    let moved = PreparedRig::new(moved_rig, &report, "moved").unwrap();
    for other in [&cut, &moved] {
        if other.content_hash == rig.content_hash {
            return Err(format!("{} shares the reference's key", other.name).into());
        }
    }
    level_errors_cached(&rig, Some(&cache));
    let path = path_for(&cache, &rig);
    let written = std::fs::read_to_string(&path).unwrap();
    // The file less the time the measurement took (which differs from one to the next).
    let content = |text: &str| {
        let mut json: serde_json::Value = serde_json::from_str(text).unwrap();
        json["value"]["measured"]["measure_secs"] = serde_json::Value::Null;
        json
    };
    let fresh = |what: &str, text: String| -> Result<(), Failed> {
        std::fs::write(&path, text).unwrap();
        let again = PreparedRig::reference();
        let (_, source, _) = level_errors_cached(&again, Some(&cache));
        if source != LevelSource::Measured {
            return Err(format!("{what}: {source:?}").into());
        }
        let rewritten = std::fs::read_to_string(&path).unwrap();
        if content(&rewritten) != content(&written) {
            return Err(format!("{what}: not overwritten with the measurement").into());
        }
        Ok(())
    };
    let version = skinbench::prepare::cache::CODE_VERSION;
    fresh(
        "another code version",
        written.replace(version, "0000000000000000"),
    )?;
    fresh("a corrupt file", written[..written.len() / 2].to_string())?;
    let mut json: serde_json::Value = serde_json::from_str(&written).unwrap();
    json["value"]["measured"]["held"][0][1] = serde_json::json!([rig.joint_count() + 5]);
    fresh("a joint past the skeleton", json.to_string())?;
    Ok(())
}

/// A clip's motion read back from the cache is the measurement, for a loop and for a
/// cross-fade of two clips; a file of the right length is what a second measurement
/// reads (a changed value there shows in the motion), and one of another length, a
/// corrupt one or one of another code version is measured again and overwritten.
fn a_cached_motion_is_the_measurement() -> Result<(), Failed> {
    use skinbench::crowd::lod::ClipMotion;
    use skinbench::prepare::cache::MeasureCache;
    use skinbench::skin::SkinMethod;
    let dir = common::temp_dir("motion-cache");
    let cache = MeasureCache::at(&dir);
    let rig = PreparedRig::reference();
    if rig.clips.len() < 2 {
        return Err("the reference rig has fewer than two clips".into());
    }
    let files = || -> Vec<std::path::PathBuf> {
        let mut f: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        f.sort();
        f
    };
    for (what, blend) in [("a loop", None), ("a cross-fade", Some((1u16, 0.5f32)))] {
        for f in files() {
            std::fs::remove_file(f).unwrap();
        }
        let measure = |cache: Option<&MeasureCache>| {
            ClipMotion::measure(&rig, 0, blend, SkinMethod::Linear, cache)
        };
        let uncached = measure(None);
        let first = measure(Some(&cache));
        let written = files();
        if written.len() != 1 || first != uncached {
            return Err(format!(
                "{what}: first load wrote {written:?}, equal {}",
                first == uncached
            )
            .into());
        }
        let path = &written[0];
        let text = std::fs::read_to_string(path).unwrap();
        if measure(Some(&cache)) != uncached {
            return Err(
                format!("{what}: the motion read back differs from the measurement").into(),
            );
        }
        // Every pose's box grown: a motion made from the file says so.
        let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
        for pose in json["value"].as_array_mut().unwrap() {
            let hi = f64::from_bits(pose[4].as_u64().unwrap()) + 10.0;
            pose[4] = serde_json::json!(hi.to_bits());
        }
        std::fs::write(path, json.to_string()).unwrap();
        let doctored = measure(Some(&cache));
        if doctored.radius <= uncached.radius {
            return Err(format!(
                "{what}: a kept value was not read ({} vs {})",
                doctored.radius, uncached.radius
            )
            .into());
        }
        let mut shorter: serde_json::Value = serde_json::from_str(&text).unwrap();
        shorter["value"].as_array_mut().unwrap().pop();
        let version = skinbench::prepare::cache::CODE_VERSION;
        for (case, bad) in [
            ("one pose fewer", shorter.to_string()),
            ("a corrupt file", text[..text.len() / 2].to_string()),
            (
                "another code version",
                text.replace(version, "0000000000000000"),
            ),
        ] {
            std::fs::write(path, bad).unwrap();
            if measure(Some(&cache)) != uncached {
                return Err(format!("{what}, {case}: not measured again").into());
            }
            if std::fs::read_to_string(path).unwrap() != text {
                return Err(format!("{what}, {case}: not overwritten").into());
            }
        }
    }
    Ok(())
}

/// The pairs that share one influence list are bounded between the measured poses by
/// their stretch instead of being skinned: at times between the poses, each one's
/// distance stays within its bound. And bounding them finds what measuring them finds:
/// the same errors, held joints, cuts and distances between the poses.
fn rigid_pairs_are_bounded(rig: &PreparedRig) -> Result<(), Failed> {
    use skinbench::skin::level_errors::{RigidPairs, measure_levels_with, rigid_bound_check};
    let (pairs, excess) = rigid_bound_check(rig);
    if excess > 1e-9 {
        return Err(format!(
            "a rigid pair's distance passes its bound by {excess:.3e} of the rig's size ({pairs} pairs)"
        )
        .into());
    }
    let mut bounded = measure_levels_with(rig, RigidPairs::Bounded);
    let mut measured = measure_levels_with(rig, RigidPairs::Measured);
    bounded.measure_secs = 0.0;
    measured.measure_secs = 0.0;
    if bounded != measured {
        return Err(format!("bounded {bounded:?}\nmeasured {measured:?}").into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    type Check = fn(&PreparedRig) -> Result<(), Failed>;
    let checks: [(&str, Check); 7] = [
        ("chain", chain_is_valid),
        ("error_bound", error_bounds_other_poses),
        ("error_bound_off_grid", error_bound_holds_off_grid),
        ("joint_sets", joint_sets_are_exact),
        ("influence_cuts", influence_cuts_bound_other_poses),
        ("joint_merges", joint_merges_bound_other_poses),
        ("rigid_pairs", rigid_pairs_are_bounded),
    ];
    let mut trials = Vec::new();
    for (name, rig) in common::prepared_rigs() {
        for (check, run) in checks {
            let r = rig.clone();
            trials.push(common::trial(format!("{check}/{name}"), move || run(&r)));
        }
    }
    // A long clip (about 20 s): what a measurement of a few poses per clip misses most.
    trials.push(common::trial("error_bound_off_grid/Fox_long_clip", || {
        let Some(rig) = common::long_clip_fox() else {
            common::rigs_or_skip();
            return Ok(());
        };
        error_bound_holds_off_grid(&rig)
    }));
    trials.push(common::trial(
        "level_cache/roundtrip",
        a_cached_measurement_is_the_measurement,
    ));
    trials.push(common::trial(
        "level_cache/keys",
        the_cache_is_keyed_by_content_and_code,
    ));
    trials.push(common::trial(
        "motion_cache/roundtrip",
        a_cached_motion_is_the_measurement,
    ));
    common::run_trials(&args, trials);
}
