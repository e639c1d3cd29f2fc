//! Update-rate LOD and culling on the GPU (`--animate gpu --lod on`), on whatever adapter
//! exists (lavapipe without a GPU), through the app's scene, one case per rig:
//!
//! - `decisions/<rig>`: over frames of changing length and a camera that moves closer,
//!   every character's decision on the GPU (due, forced, unchanged, in view, its period,
//!   the frame it is next due, the time its pose shows) equals the CPU twin's
//!   (`crowd::lod::per_character::decide`, run on the same state, records and frame), and
//!   the GPU's counts equal the twin's count of those states, and the animation's passes
//!   ran over lists holding exactly the characters made due (in four ranges). A decision
//!   may differ only where the twin's closest comparison with the threshold came within
//!   0.1 % of it (f32 rounding may differ there).
//!   `decisions_mesh_lod_blended/<rig>` does the same with geometric LOD and a cross-fade
//!   of clips whose loops differ in length (no table bounds its travel, a sphere bounds
//!   its reach): those characters are also culled and drawn coarser.
//! - `picture/<rig>/<skin>`: after such frames (`gpu_compute` taking over from
//!   `gpu_vertex` after three), the picture equals the picture of the
//!   same scene without LOD whose characters are set to the times the GPU says they show
//!   (so the skipped characters keep exactly their last poses, and culled characters are
//!   ones the picture does not show), the scene's verify passes, and LOD's measured
//!   screen-space error stays under the threshold.
//! - `vertex_cut_picture/animated_on_<device>`: every character at the coarsest level,
//!   drawn by `gpu_vertex` and by `gpu_compute` from the same poses, shows the same
//!   silhouettes: the vertex shader draws the level's influence cut too.
//! - `full_detail_measures_nothing/<skin>`: a crowd at full detail (geometric LOD off, the
//!   animation on the CPU) runs verified frames and the panel's readings without measuring
//!   the coarse levels (seconds on a large rig); turning geometric LOD on measures them.

mod common;

use std::sync::Arc;

use libtest_mimic::{Arguments, Failed};
use skinbench::crowd::lod::LodSettings;
use skinbench::crowd::lod::LodStats;
use skinbench::crowd::lod::formats::{CULL_PER_LEVEL, DrawSlot, NO_SLOT};
use skinbench::crowd::lod::per_character::LodFrame;
use skinbench::crowd::lod::per_character::{
    CharacterLod, DUE, RESKIN, UNBOUNDED, UNSKINNED_LEVEL, VISIBLE, decide, stats_of,
};
use skinbench::crowd::{AnimateDevice, InstanceStore};
use skinbench::gpu::animate::lod::{DrawArgsError, GpuLod};
use skinbench::gpu::animate::{AnimationTables, GpuHierarchy, workgroups};
use skinbench::gpu::draws::Draws;
use skinbench::gpu::scene::Frame;
use skinbench::gpu::scene::{Scene, Settings};
use skinbench::gpu::skin::ComputeShader;
use skinbench::gpu::skin_levels::{
    LevelLists, LevelOrder, NO_POOL_BASE, PoolShare, bucket_characters, fit_slots, needed_units,
    pool_counts,
};
use skinbench::gpu::{
    CameraStart, FrameShape, GpuContext, OrbitCamera, PassContext, UploadVariant, crowd_extent,
};
use skinbench::prepare::PreparedRig;
use skinbench::skin::pool::PoolSize;
use skinbench::skin::{SkinMethod, SkinVariant, VertexOrder, level_kept};
use skinbench::types::LANES;
use skinbench::variant::Variant;

const CHARACTERS: usize = 120;
/// Characters a range holds where a test splits the crowd: a power of two, as ranges over
/// the GPU animation's palette buffers are (`PaletteBuffers::per_range`), so four ranges.
const RANGE: usize = 32;
const THRESHOLD_PX: f32 = 2.0;

/// The street camera over a crowd of [`CHARACTERS`] (the characters behind it culled),
/// animated on the GPU with LOD on.
fn lod_scene(
    rig: &Arc<PreparedRig>,
    skin: SkinVariant,
    lod: bool,
    mesh: bool,
) -> Result<Scene, Failed> {
    lod_scene_animated_on(rig, skin, lod, mesh, AnimateDevice::Gpu)
}

/// [`lod_scene`] with the animation on `animate`.
fn lod_scene_animated_on(
    rig: &Arc<PreparedRig>,
    skin: SkinVariant,
    lod: bool,
    mesh: bool,
    animate: AnimateDevice,
) -> Result<Scene, Failed> {
    let gpu = common::gpu_or_skip();
    let mut settings = common::app_settings(rig, CHARACTERS);
    settings.pipeline.skin = skin;
    settings.animate = animate;
    settings.upload = UploadVariant::WriteBuffer;
    settings.lod = LodSettings {
        enabled: lod,
        mesh,
        threshold_px: THRESHOLD_PX,
        max_period: 8,
    };
    let mut scene =
        common::offscreen_scene(&gpu, rig, settings, (480, 270)).map_err(|e| e.to_string())?;
    *scene.camera_mut() = OrbitCamera::start(CameraStart::Street, crowd_extent(scene.crowd()));
    Ok(scene)
}

/// Each frame's length, and whether the camera moves closer before it: steady frames, a
/// long one (shown poses fall behind: forced updates), the camera closer, still frames.
const FRAMES: [(f32, bool); 12] = [
    (1.0 / 60.0, false),
    (1.0 / 60.0, false),
    (1.0 / 60.0, false),
    (1.0 / 60.0, false),
    (1.0 / 60.0, false),
    (0.1, false),
    (1.0 / 60.0, false),
    (1.0 / 60.0, true),
    (1.0 / 60.0, false),
    (0.0, false),
    (0.0, false),
    (1.0 / 60.0, false),
];

/// The verify the last frame ran, within tolerance; `what` names it in the error.
fn verified(scene: &mut Scene, what: &str) -> Result<(), Failed> {
    match scene.take_last_verify() {
        Some(Ok(d)) if d.within_tolerance() => Ok(()),
        Some(Ok(d)) => Err(format!("{what}:\n{}", d.to_text()).into()),
        Some(Err(e)) => Err(format!("{what}: {e}").into()),
        None => Err(format!("{what}: no verify ran").into()),
    }
}

/// Frame `step`, `dt` long, with verify asked for; its verify within tolerance.
fn verified_frame(scene: &mut Scene, step: usize, dt: f32) -> Result<(), Failed> {
    scene.request_verify();
    scene
        .frame(Frame::headless(dt))
        .map_err(|e| e.to_string())?;
    verified(scene, &format!("frame {step}: verify"))
}

fn same_time(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

fn decisions(rig: &Arc<PreparedRig>, mesh: bool, blend_weight: f32) -> Result<(), Failed> {
    common::gpu_or_skip();
    let mut scene = lod_scene(rig, SkinVariant::GpuCompute, true, mesh)?;
    scene.settings_mut().pipeline.blend_weight = blend_weight;
    // The runs of per-character draws are checked here; per-level lists in `level_draws`.
    scene.settings_mut().draws = Draws::PerCharacter;
    // Four ranges of characters, each with its own list of due characters.
    scene.limit_animation_ranges(Some(RANGE), None);
    let ranges = scene.renderer().level_ranges().to_vec();
    let mut levels_seen = std::collections::BTreeSet::new();
    let mut level_changes = 0;

    let n = scene.crowd().len();
    let mut seen = LodStats::default();
    let mut runs_checked = 0;
    let mut borderline = 0;
    let mut longer_periods = 0;
    let (mut blended_culled, mut blended_coarse) = (0, 0);
    for (step, &(dt, closer)) in FRAMES.iter().enumerate() {
        let before = if step == 0 {
            vec![CharacterLod::default(); n]
        } else {
            scene.gpu_lod_states(n).map_err(|e| e.to_string())?
        };
        if closer {
            scene.camera_mut().distance *= 0.5;
        }
        if mesh && (1..=5).contains(&step) {
            // Away from the crowd (characters move to coarser levels, past the hysteresis)
            // before the step closer (some back to finer ones).
            scene.camera_mut().distance *= 1.6;
        }
        scene
            .frame(Frame::headless(dt))
            .map_err(|e| e.to_string())?;
        if scene.settings().animate != AnimateDevice::Gpu || !scene.settings().lod.enabled {
            return Err(format!("the scene left the GPU's LOD: {:?}", scene.notes()).into());
        }
        let (frame, words, records) = scene.gpu_lod_inputs().ok_or("no LOD frame ran")?;
        let after = scene.gpu_lod_states(n).map_err(|e| e.to_string())?;
        for i in 0..n {
            let mut twin = before[i];
            let margin = decide(&words, &frame, i as u32, &records[i], &mut twin);
            let gpu = after[i];
            let same = twin.flags == gpu.flags
                && twin.next_due == gpu.next_due
                && twin.shown_clips == gpu.shown_clips
                && same_time(twin.shown_secs, gpu.shown_secs);
            if !same {
                if margin < 1e-3 {
                    borderline += 1;
                    continue;
                }
                return Err(format!(
                    "frame {step}, character {i}: the GPU decided {gpu:?}, the CPU twin \
                     {twin:?} (closest comparison {margin:e} of the threshold)"
                )
                .into());
            }
        }
        // The animation's passes ran over each range's list of due characters: exactly
        // those the decisions made due (the lists' order follows the atomics; sorted).
        let listed = scene.gpu_due_characters().map_err(|e| e.to_string())?;
        let due: Vec<u32> = (0..n as u32)
            .filter(|&i| after[i as usize].flags & DUE != 0)
            .collect();
        if listed != due {
            let missing: Vec<_> = due.iter().filter(|c| !listed.contains(c)).take(5).collect();
            let extra: Vec<_> = listed.iter().filter(|c| !due.contains(c)).take(5).collect();
            return Err(format!(
                "frame {step}: the due lists hold {} characters, the decisions made {} due \
                 (missing {missing:?}, extra {extra:?})",
                listed.len(),
                due.len()
            )
            .into());
        }
        // A cross-fade of loops of different lengths has a sphere and no table: its
        // characters are culled and take coarse levels like the rest.
        for s in &after {
            if s.flags & UNBOUNDED != 0 {
                if s.flags & VISIBLE == 0 {
                    blended_culled += 1;
                } else if s.mesh_level() > 0 {
                    blended_coarse += 1;
                }
            }
        }
        let counts = scene.gpu_lod_counts().map_err(|e| e.to_string())?;
        let expected = stats_of(&after);
        if counts != expected {
            return Err(format!(
                "frame {step}: the GPU counted {counts:?}, its states say {expected:?}"
            )
            .into());
        }
        // Each character's draw argument in the main pass: drawn in view, culled outside.
        let mut slots = Vec::new();
        scene.renderer().main_count_slots(n, &mut slots);
        if step > 0 {
            if !scene.renderer().indirect_draws() {
                return Err("the adapter draws directly: nothing culls on the GPU".into());
            }
            let words = scene
                .renderer()
                .read_indirect_args(scene.gpu())
                .map_err(|e| e.to_string())?;
            for (i, (slot, s)) in slots.iter().zip(&after).enumerate() {
                let slot = slot.count_word;
                let Some(&count) = words.get(slot as usize) else {
                    return Err(format!("character {i} has no draw argument").into());
                };
                if count != (s.flags & VISIBLE != 0) as u32 {
                    return Err(format!(
                        "frame {step}, character {i}: instance count {count}, flags {:#x}",
                        s.flags
                    )
                    .into());
                }
                // Its level's indices: the words around the instance count.
                let level = if mesh { s.mesh_level() as usize } else { 0 };
                let (first_index, index_count) = ranges[level];
                let slot = slot as usize;
                if (words[slot - 1], words[slot + 1]) != (index_count, first_index) {
                    return Err(format!(
                        "frame {step}, character {i} at level {level}: drawn with {} indices \
                         from {}, the level has {index_count} from {first_index}",
                        words[slot - 1],
                        words[slot + 1]
                    )
                    .into());
                }
                if s.flags & VISIBLE != 0 {
                    levels_seen.insert(level);
                }
            }
            if scene.renderer().compacts() != scene.renderer().count_draws() {
                return Err("counted draws without runs, or runs without counted draws".into());
            }
            if scene.renderer().draws_runs() {
                check_runs(&scene, &words, &slots, &after, mesh, &ranges)
                    .map_err(|e| format!("frame {step}: {e}"))?;
                runs_checked += 1;
            }
        }
        if step > 0 {
            level_changes += after
                .iter()
                .zip(&before)
                .filter(|(a, b)| a.flags & VISIBLE != 0 && a.mesh_level() != b.mesh_level())
                .count();
        }
        seen.culled += counts.culled;
        seen.forced += counts.forced;
        seen.unchanged += counts.unchanged;
        longer_periods += after
            .iter()
            .filter(|s| s.flags & VISIBLE != 0 && s.period() > 1)
            .count();
        if step == 0 && after.iter().any(|s| s.flags & DUE == 0) {
            return Err("the first frame did not compute every character".into());
        }
        // A frame that advances no time recomputes only characters shown at another time.
        if dt == 0.0 {
            for (i, (s, b)) in after.iter().zip(&before).enumerate() {
                if s.flags & DUE != 0 && same_time(s.shown_secs, b.shown_secs) {
                    return Err(format!(
                        "frame {step} advanced no time and recomputed character {i} at the \
                         time it showed"
                    )
                    .into());
                }
            }
        }
    }
    // Where the draws read a count (lavapipe does), every frame after the first drew the
    // runs.
    if scene.renderer().count_draws() && runs_checked < FRAMES.len() - 2 {
        return Err(format!("only {runs_checked} frames drew the runs").into());
    }
    if borderline > n * FRAMES.len() / 100 {
        return Err(format!("{borderline} decisions differ at the threshold").into());
    }
    if blend_weight > 0.0 && (blended_culled == 0 || (mesh && blended_coarse == 0)) {
        return Err(format!(
            "cross-faded characters: {blended_culled} culled, {blended_coarse} drawn coarser \
             than full detail"
        )
        .into());
    }
    // The frames exercised what they are there for.
    if mesh && ranges.len() > 1 && (levels_seen.iter().all(|&l| l == 0) || level_changes == 0) {
        return Err(format!(
            "drawn characters took levels {levels_seen:?} of {}, {level_changes} changes",
            ranges.len()
        )
        .into());
    }
    if !mesh && (seen.culled == 0 || longer_periods == 0 || seen.unchanged == 0) {
        return Err(format!(
            "nothing culled, no visible character at a longer period, or none unchanged: \
             {seen:?}, {longer_periods} at longer periods"
        )
        .into());
    }
    if rig.name == PreparedRig::reference().name && seen.forced == 0 && !mesh {
        return Err("the long frame forced no update".into());
    }
    Ok(())
}

/// Whether the crowd's cross-fade pairs clips whose loops differ in length (each character
/// blends towards the next clip of the rig), so its motions have a sphere and no table.
fn cross_fades_loops_of_different_lengths(rig: &PreparedRig) -> bool {
    let loops: Vec<f32> = rig.clips.iter().map(|c| c.duration_secs).collect();
    loops.windows(2).any(|w| w[0] != w[1])
}

/// The CPU's plan (animation on the CPU) and the GPU's LOD pass choose the same mesh level
/// for each character of the same crowd under the same camera, over frames that move the
/// camera away and back (update-rate LOD off; the CPU plan deals its crowd by level, so
/// characters are matched by where they stand).
fn cpu_and_gpu_levels(rig: &Arc<PreparedRig>, blend_weight: f32) -> Result<(), Failed> {
    common::gpu_or_skip();
    let mut on_gpu = lod_scene(rig, SkinVariant::GpuCompute, false, true)?;
    let mut on_cpu = lod_scene(rig, SkinVariant::GpuCompute, false, true)?;
    on_cpu.settings_mut().animate = AnimateDevice::Cpu;
    for scene in [&mut on_gpu, &mut on_cpu] {
        scene.settings_mut().pipeline.blend_weight = blend_weight;
    }
    let n = on_gpu.crowd().len();
    let mut compared = 0;
    let mut differ = 0;
    let mut coarse = 0;
    for step in 0..6 {
        for scene in [&mut on_gpu, &mut on_cpu] {
            if step > 0 {
                scene.camera_mut().distance *= if step < 4 { 1.8 } else { 0.6 };
            }
            scene
                .frame(Frame::headless(1.0 / 60.0))
                .map_err(|e| e.to_string())?;
        }
        if on_cpu.settings().animate != AnimateDevice::Cpu {
            return Err("the CPU scene left the CPU".into());
        }
        let states = on_gpu.gpu_lod_states(n).map_err(|e| e.to_string())?;
        let cpu: std::collections::HashMap<[u32; 2], u32> = on_cpu
            .crowd()
            .as_slice()
            .iter()
            .zip(on_cpu.mesh_levels())
            .map(|(c, &level)| (c.ground_position.map(f32::to_bits), level as u32))
            .collect();
        if cpu.len() != n {
            return Err(format!("{} places for {n} characters", cpu.len()).into());
        }
        for (i, s) in states.iter().enumerate() {
            if s.flags & VISIBLE == 0 {
                continue;
            }
            compared += 1;
            let place = on_gpu.crowd().as_slice()[i].ground_position;
            let Some(&c) = cpu.get(&place.map(f32::to_bits)) else {
                return Err(
                    format!("frame {step}: character {i} is not in the CPU's crowd").into(),
                );
            };
            let g = s.mesh_level();
            coarse += (g > 0) as usize;
            if g != c {
                // The two place a character's sphere in f32 through different expressions:
                // a character within rounding of a boundary may land on either side.
                if g.abs_diff(c) > 1 {
                    return Err(format!(
                        "frame {step}, character {i}: level {g} on the GPU, {c} on the CPU"
                    )
                    .into());
                }
                differ += 1;
            }
        }
    }
    if differ * 100 > compared {
        return Err(format!("{differ} of {compared} levels differ").into());
    }
    if rig.mesh_chain().levels().len() > 1 && coarse == 0 {
        return Err("no character took a coarser level".into());
    }
    Ok(())
}

/// `gpu_compute` skins only the vertices of each character's level (its skin level):
/// with update-rate LOD and mesh LOD on the GPU, over a camera that starts far (coarse
/// levels) and comes closer (finer levels, where kept characters need the vertices their
/// coarser level skipped), every frame's verify (each compared character's vertices of its
/// level against the f64 oracle at the time its pose shows) passes, kept characters were
/// skinned again at a finer level, and fewer vertices were skinned than the crowd has. With
/// shadows, no character skins coarser than the level the shadow pass draws it with; a
/// character out of view skins at that level alone (the coarsest without shadows); with
/// dual quaternions (eight influences on `fox_8influences`), the same at every level.
/// With the animation on the CPU, both LODs on and the camera moving from far to near,
/// the CPU kernel skins each recomputed group only for its members' finest level (shadows
/// included; `gpu_compute` the same characters, listing no other), and every
/// frame verifies at what the passes draw: a kept group whose member comes closer is
/// skinned again before its finer level is drawn. With update-rate LOD off (`rate_lod`)
/// every group is computed every frame and the crowd is dealt by level: every group but
/// one per border between two levels holds one level, and characters did change group.
fn cpu_skinned_levels(
    rig: &Arc<PreparedRig>,
    skin: SkinVariant,
    shadows: bool,
    rate_lod: bool,
) -> Result<(), Failed> {
    cpu_skinned_levels_uploaded(rig, skin, shadows, rate_lod, UploadVariant::WriteBuffer)
}

/// [`cpu_skinned_levels`] with `upload` copying the skinned stream to the GPU: each frame
/// verifies what the GPU's buffer holds, so a part a level drew and the upload left out
/// fails it. Where the layout keeps a level's vertices together (the sorted orders), some
/// frame without shadows copies less than every vertex of its updated groups; `in_place`
/// copies them whole.
fn cpu_skinned_levels_uploaded(
    rig: &Arc<PreparedRig>,
    skin: SkinVariant,
    shadows: bool,
    rate_lod: bool,
    upload: UploadVariant,
) -> Result<(), Failed> {
    common::gpu_or_skip();
    if rig.mesh_chain().levels().len() < 2 {
        return Err(format!("{} has one mesh level: no coarse level to check", rig.name).into());
    }
    let mut scene = lod_scene_animated_on(rig, skin, rate_lod, true, AnimateDevice::Cpu)?;
    scene.settings_mut().shadows = shadows;
    scene.settings_mut().upload = upload;
    let mut copied_less = 0usize;
    scene.camera_mut().distance *= 6.0;
    let (mut fewer, mut finer_kept, mut fewer_joints) = (0usize, 0usize, 0usize);
    let mut moved = 0usize;
    let mut partial_skins = 0usize;
    let mut previous_levels: Vec<u8> = Vec::new();
    for step in 0..14 {
        if step >= 4 && step % 2 == 0 {
            scene.camera_mut().distance *= 0.6;
        }
        scene.request_verify();
        scene
            .frame(Frame::headless(1.0 / 60.0))
            .map_err(|e| e.to_string())?;
        verified(
            &mut scene,
            &format!("frame {step}: verify at the skin levels"),
        )?;
        let reading = scene.mesh_lod_reading();
        let bytes = scene.upload_bytes();
        // `in_place` copies its groups' whole spans; the others no more than every vertex.
        let whole = upload == UploadVariant::InPlace;
        if (whole && bytes.copied < bytes.every_vertex)
            || (!whole && bytes.copied > bytes.every_vertex)
        {
            return Err(format!("frame {step}: {upload:?} copied {bytes:?}").into());
        }
        copied_less += (bytes.copied < bytes.every_vertex) as usize;
        // The copies are counted: none exactly when nothing was copied, and `in_place`
        // stages one per run of groups it updated (the pieces of a run this small).
        let copies = bytes.copies.ok_or("the CPU's upload counted no copies")?;
        let runs = scene.lod_stats().runs as u64;
        if (copies == 0) != (bytes.copied == 0) || (whole && copies > runs.max(1)) {
            return Err(format!("frame {step}: {upload:?} {bytes:?}, {runs} runs").into());
        }
        // `gpu_compute` fed by the CPU skins only the characters of the groups the plan
        // computes, each at its group's level: `per_level` lists exactly those (kept ones
        // keep their vertices, and the frame verified above).
        if skin == SkinVariant::GpuCompute {
            let LevelLists { lists, .. } = scene
                .renderer()
                .read_gpu_level_lists(scene.gpu())
                .map_err(|e| e.to_string())?
                .ok_or("per_level skinned without its lists")?;
            let listed: usize = lists.iter().map(Vec::len).sum();
            let updated = scene.lod_stats().updated;
            if listed != updated {
                return Err(format!(
                    "frame {step}: the skinning pass listed {listed} characters, the plan \
                     recomputed {updated}"
                )
                .into());
            }
            partial_skins += (listed < scene.crowd().len()) as usize;
        }
        // Fewer invocations than every vertex of every character.
        let launched = match skin {
            SkinVariant::GpuCompute => reading.skin_invocations,
            _ => reading.skinned_vertices,
        };
        if launched < reading.full_vertices {
            fewer += 1;
        }
        // Every frame verifies, and the CPU posed only its groups' levels' joints.
        if reading.joints_posed > reading.full_joints {
            return Err(format!("frame {step}: more joints posed than exist: {reading:?}").into());
        }
        if reading.joints_posed < reading.full_joints {
            fewer_joints += 1;
        }
        if !rate_lod {
            moved += scene.lod_stats().moved;
            let levels = scene.mesh_levels();
            let mut distinct: Vec<u8> = levels.to_vec();
            distinct.sort_unstable();
            distinct.dedup();
            let mixed = levels
                .chunks(LANES)
                .filter(|group| group.iter().any(|&l| l != group[0]))
                .count();
            if mixed + 1 > distinct.len().max(1) {
                return Err(format!(
                    "frame {step}: {mixed} groups mix levels among {} levels {distinct:?}",
                    distinct.len()
                )
                .into());
            }
        }
        // A group computed at a coarse level and kept, whose level is finer now.
        let levels = scene.cpu_skin_levels().to_vec();
        if levels.len() == previous_levels.len() {
            finer_kept += levels
                .iter()
                .zip(&previous_levels)
                .filter(|(now, before)| now < before)
                .count();
        }
        previous_levels = levels;
    }
    if fewer == 0 {
        return Err("no frame skinned fewer vertices than every character's every one".into());
    }
    let sorted = skin.spec().order == VertexOrder::InfluenceSorted && skin.skins_on_cpu();
    // With shadows the shadows' level bounds every group's, which may keep it fine enough
    // that a level's parts lie closer than a copy's gap and join.
    if sorted && !shadows && upload != UploadVariant::InPlace && copied_less == 0 {
        return Err(format!(
            "{upload:?}: no frame copied less than its updated groups' every vertex"
        )
        .into());
    }
    // Where even the full mesh's vertices leave a joint unused, every level does.
    if fewer_joints == 0 && rig.joints_at_level(0).len() < rig.joint_count() {
        return Err("no frame posed fewer joints than every character's every one".into());
    }
    if skin == SkinVariant::GpuCompute && rate_lod && partial_skins == 0 {
        return Err("no frame's skinning pass left a kept character out".into());
    }
    if !rate_lod {
        return match moved {
            0 => Err("the levels changed and no character changed group".into()),
            _ => Ok(()),
        };
    }
    // With shadows the shadows' level bounds every group's, so the camera need not come
    // close enough for a finer one.
    if finer_kept == 0 && !shadows {
        return Err("no group's skin level became finer as the camera came closer".into());
    }
    Ok(())
}

/// With both LODs on the GPU and the four ranges taking turns in one pose slot (as a crowd
/// whose poses outgrow `GPU_POSE_SLOTS_BYTES` does): every frame verifies, its local
/// poses and model matrices compared for the watched characters the frame computed (a
/// kept one has no poses of its own in the slot), and some frame keeps characters, so
/// that comparison is tested where it matters; the due lists, which the slots do not keep,
/// are refused rather than read from another range.
fn pose_slots_over_frames(rig: &Arc<PreparedRig>, skin: SkinVariant) -> Result<(), Failed> {
    common::gpu_or_skip();
    let mut scene = lod_scene(rig, skin, true, true)?;
    scene.limit_animation_ranges(Some(RANGE), Some(1));
    let n = scene.crowd().len();
    let mut kept_frames = 0;
    for (step, &(dt, closer)) in FRAMES.iter().enumerate() {
        if closer {
            scene.camera_mut().distance *= 0.5;
        }
        verified_frame(&mut scene, step, dt)?;
        let states = scene.gpu_lod_states(n).map_err(|e| e.to_string())?;
        if states.iter().any(|s| s.flags & DUE == 0) {
            kept_frames += 1;
        }
        if scene.gpu_due_lists().is_ok() {
            return Err(format!("frame {step}: read due lists the slots do not keep").into());
        }
    }
    if kept_frames == 0 {
        return Err("no frame kept a character".into());
    }
    Ok(())
}

/// With update-rate LOD on the GPU and the hierarchy by depth level, each depth level's
/// dispatch covers only the listed (due) characters: per range and depth level its
/// arguments are the workgroups of the list's length times the level's joints, fewer
/// than every character's at some frame, and every frame verifies (a listed character
/// whose joints a level left out would show an older pose).
fn levels_over_due_lists(rig: &Arc<PreparedRig>) -> Result<(), Failed> {
    common::gpu_or_skip();
    let mut scene = lod_scene(rig, SkinVariant::GpuCompute, true, true)?;
    scene.settings_mut().gpu_hierarchy = GpuHierarchy::Levels;
    // Four ranges of characters, each with its own list and arguments.
    scene.limit_animation_ranges(Some(RANGE), None);
    let depth_levels: Vec<u32> = AnimationTables::new(rig, scene.settings().pipeline.method)
        .offsets
        .levels
        .iter()
        .map(|&(_, joints)| joints)
        .collect();
    let n = scene.crowd().len();
    let mut fewer = 0;
    for (step, &(dt, closer)) in FRAMES.iter().enumerate() {
        if closer {
            scene.camera_mut().distance *= 0.5;
        }
        verified_frame(&mut scene, step, dt)?;
        let lists = scene.gpu_due_lists().map_err(|e| e.to_string())?;
        if lists.len() != CHARACTERS.div_ceil(RANGE) {
            return Err(format!("frame {step}: {} ranges' lists", lists.len()).into());
        }
        let mut listed = 0;
        for (r, list) in lists.iter().enumerate() {
            let count = list.characters.len() as u32;
            listed += list.characters.len();
            if list.level_workgroups.len() != depth_levels.len() {
                return Err(format!(
                    "frame {step}, range {r}: {} depth levels' arguments, the rig has {}",
                    list.level_workgroups.len(),
                    depth_levels.len()
                )
                .into());
            }
            for (l, (&args, &joints)) in list.level_workgroups.iter().zip(&depth_levels).enumerate()
            {
                let (x, y) = workgroups(count * joints);
                if args != [x, y, 1] {
                    return Err(format!(
                        "frame {step}, range {r}, depth level {l}: {args:?} workgroups for \
                         {count} listed characters of {joints} joints"
                    )
                    .into());
                }
            }
        }
        if listed < n {
            fewer += 1;
        }
    }
    if fewer == 0 {
        return Err("every frame listed every character".into());
    }
    Ok(())
}

/// With both LODs on the GPU, sampling, the walk and the palettes dispatch over each mesh
/// level's list: per range, the levels' lists hold exactly the due list's characters, each
/// in the list of the level its pose is made for (read back from the LOD pass); each
/// level's sampling dispatch's arguments are the workgroups of its characters × the joints
/// it samples (its set's animated joints less the held ones), its palette dispatch's of its
/// characters × the entries of its joints, its walk's of its characters; some frame
/// launches fewer sampling invocations than the due list × every moving joint, three
/// levels or more are listed over the frames (the chain's every one where it has fewer),
/// and every frame verifies (a joint posed at rest that should have been sampled, a
/// sampled one left out, or a joint of the set the walk skips shows in the local poses or
/// the model matrices; a missing palette entry in the skin).
fn level_lists(rig: &Arc<PreparedRig>, skin: SkinVariant) -> Result<(), Failed> {
    common::gpu_or_skip();
    let mut scene = lod_scene(rig, skin, true, true)?;
    // Four ranges of characters, each with its own lists and arguments.
    scene.limit_animation_ranges(Some(RANGE), None);
    // From far, where characters take coarse levels, coming closer; a coarse threshold
    // puts characters in view at coarse levels too.
    scene.camera_mut().distance *= 4.0;
    scene.settings_mut().lod.threshold_px = 40.0;
    let tables = AnimationTables::new(rig, scene.settings().pipeline.method);
    let work = &tables.offsets.level_lists;
    let moving_joints = tables.offsets.moving_joints;
    let mut fewer = 0;
    let mut levels_seen = std::collections::BTreeSet::new();
    for (step, &(dt, closer)) in FRAMES.iter().enumerate() {
        if closer || step % 3 == 2 {
            scene.camera_mut().distance *= 0.5;
        }
        verified_frame(&mut scene, step, dt)?;
        let lists = scene.gpu_due_lists().map_err(|e| e.to_string())?;
        let Some((_, posed)) = scene.gpu_levels().map_err(|e| e.to_string())? else {
            return Err(format!("frame {step}: no levels read back").into());
        };
        for (r, list) in lists.iter().enumerate() {
            if list.by_level.len() != work.len() {
                return Err(format!(
                    "frame {step}, range {r}: {} levels' lists, the chain has {}",
                    list.by_level.len(),
                    work.len()
                )
                .into());
            }
            let mut together: Vec<u32> = list.by_level.iter().flatten().copied().collect();
            together.sort_unstable();
            if together != list.characters {
                return Err(format!(
                    "frame {step}, range {r}: the levels' lists hold {together:?}, the due \
                     list {:?}",
                    list.characters
                )
                .into());
            }
            let mut sampled = 0;
            for (l, (listed, &[_, joints, _, level_entries, _, _])) in
                list.by_level.iter().zip(work).enumerate()
            {
                if let Some(&c) = listed
                    .iter()
                    .find(|&&c| (posed[c as usize] as usize).min(work.len() - 1) != l)
                {
                    return Err(format!(
                        "frame {step}, range {r}: character {c} in level {l}'s list, its pose \
                         made for level {}",
                        posed[c as usize]
                    )
                    .into());
                }
                if !listed.is_empty() {
                    levels_seen.insert(l);
                }
                sampled += listed.len() as u32 * joints;
                for (what, args, per_character) in [
                    ("sampling", list.sample_workgroups.get(l), joints),
                    ("palette", list.palette_workgroups.get(l), level_entries),
                    ("walk", list.walk_workgroups.get(l), 1),
                ] {
                    let (x, y) = workgroups(listed.len() as u32 * per_character);
                    if args != Some(&[x, y, 1]) {
                        return Err(format!(
                            "frame {step}, range {r}, level {l}: its {what} dispatch given \
                             {args:?} workgroups for {} characters × {per_character}",
                            listed.len()
                        )
                        .into());
                    }
                }
            }
            if sampled < list.characters.len() as u32 * moving_joints {
                fewer += 1;
            }
        }
    }
    if fewer == 0 {
        return Err("no frame sampled fewer joints than its due list's every moving joint".into());
    }
    // A chain of one or two levels (a mesh too small to reduce further) lists those.
    if levels_seen.len() < work.len().min(3) {
        return Err(format!("only levels {levels_seen:?} were listed").into());
    }
    Ok(())
}

fn levels_in(rig: &PreparedRig) -> usize {
    rig.mesh_chain().levels().len()
}

/// The GPU's animation poses each level's joints for one skinning method: linear
/// blending's influence cuts pose fewer at coarse levels than dual quaternions, which keep
/// every influence. Switching the method while the GPU animates makes its tables again, so
/// every frame verifies on either side of each switch (with the cut sets' tables, a
/// dual-quaternion character at a coarse level would blend palette entries nothing wrote),
/// and some frame poses a character at a level whose two sets differ, where the rig has one.
fn method_switch(rig: &Arc<PreparedRig>) -> Result<(), Failed> {
    use skinbench::skin::level_errors::posed_joints;
    common::gpu_or_skip();
    if levels_in(rig) < 2
        || SkinVariant::GpuCompute
            .refusal(SkinMethod::DualQuat, rig)
            .is_some()
    {
        return Ok(());
    }
    let mut scene = lod_scene(rig, SkinVariant::GpuCompute, true, true)?;
    // A coarse threshold from far: characters in view at the coarsest levels.
    scene.settings_mut().lod.threshold_px = 100.0;
    scene.camera_mut().distance *= 20.0;
    let differs = |l: usize| {
        posed_joints(rig, l, SkinMethod::Linear).len()
            < posed_joints(rig, l, SkinMethod::DualQuat).len()
    };
    let mut at_differing = 0;
    let methods = [SkinMethod::Linear, SkinMethod::DualQuat];
    // Three frames each: the first after a switch poses every character anew.
    for step in 0..12 {
        let method = methods[(step / 3) % 2];
        scene.settings_mut().pipeline.method = method;
        verified_frame(&mut scene, step, 1.0 / 60.0)
            .map_err(|e| format!("{method:?}: {}", e.message().unwrap_or_default()))?;
        let Some((_, posed)) = scene.gpu_levels().map_err(|e| e.to_string())? else {
            return Err(format!("frame {step}: no levels read back").into());
        };
        at_differing += posed.iter().filter(|&&l| differs(l as usize)).count();
    }
    if at_differing == 0 && (0..levels_in(rig)).any(differs) {
        return Err("no character was posed at a level whose cut set is smaller".into());
    }
    Ok(())
}

fn skinned_levels(
    rig: &Arc<PreparedRig>,
    shadows: bool,
    method: SkinMethod,
    shader: ComputeShader,
) -> Result<(), Failed> {
    common::gpu_or_skip();
    if rig.mesh_chain().levels().len() < 2 {
        return Err(format!("{} has one mesh level: no coarse level to check", rig.name).into());
    }
    if let Some(refusal) = SkinVariant::GpuCompute.refusal(method, rig) {
        return Err(format!("gpu_compute refuses {}: {refusal}", rig.name).into());
    }
    let mut scene = lod_scene(rig, SkinVariant::GpuCompute, true, true)?;
    scene.settings_mut().shadows = shadows;
    scene.settings_mut().pipeline.method = method;
    scene.settings_mut().compute_shader = shader;
    // Coarse enough that every rig's levels that cut their influences are skinned.
    scene.settings_mut().lod.threshold_px = 8.0;
    let mut lists_compared = 0;
    scene.camera_mut().distance *= 6.0;
    let full_vertices = rig.mesh.sorted().source().len();
    let (mut reskinned, mut coarse_skins, mut skinned, mut all) = (0usize, 0usize, 0usize, 0usize);
    // Characters skinned at a level that cuts their influences: verify's oracle skins the
    // level's cut mesh there, so the shader must cut too.
    let mut cut_skins = 0usize;
    let mut unseen = 0usize;
    let mut unskinned_unseen = 0usize;
    for step in 0..14 {
        if step >= 4 && step % 2 == 0 {
            scene.camera_mut().distance *= 0.6;
        }
        scene.request_verify();
        scene
            .frame(Frame::headless(1.0 / 60.0))
            .map_err(|e| e.to_string())?;
        verified(
            &mut scene,
            &format!("frame {step}: verify at the skin levels"),
        )?;
        let states = scene
            .gpu_lod_states(scene.crowd().len())
            .map_err(|e| e.to_string())?;
        let levels = rig.mesh_chain().levels();
        // `per_level`'s lists of characters per range and level, as the CPU twin makes
        // them from the records the LOD pass wrote.
        if shader == ComputeShader::PerLevel {
            let LevelLists { layout, lists } = scene
                .renderer()
                .read_gpu_level_lists(scene.gpu())
                .map_err(|e| e.to_string())?
                .ok_or("per_level skinned without its lists")?;
            let words: Vec<u32> = states.iter().map(|s| s.record_due_word()).collect();
            let twin = bucket_characters(&layout, states.len(), Some(&words), false);
            if let Some(slot) = (0..layout.slots()).find(|&slot| lists[slot] != twin[slot]) {
                return Err(format!(
                    "frame {step}: slot {slot} (range {}, level {}) lists characters {:?} on \
                     the GPU, {:?} in the CPU twin",
                    slot / layout.levels(),
                    slot % layout.levels(),
                    lists[slot],
                    twin[slot]
                )
                .into());
            }
            lists_compared += 1;
        }
        // Out of view only the shadow pass draws a character: its skin level is the
        // shadows', whatever level it was last drawn at, or where its shadow cannot fall
        // in the view (always without shadows) it is not skinned at all (`decisions`
        // compares which with the CPU twin).
        let frame = scene.gpu_lod_inputs().ok_or("no LOD frame")?.0;
        let unseen_level = frame.skin_level_cap.min(frame.mesh_levels.max(1) - 1);
        for (c, s) in states.iter().enumerate() {
            if s.flags & VISIBLE == 0 {
                unseen += 1;
                let level = s.skin_level();
                unskinned_unseen += (level == UNSKINNED_LEVEL) as usize;
                if !(level == UNSKINNED_LEVEL || (shadows && level == unseen_level)) {
                    return Err(format!(
                        "frame {step}: character {c}, out of view, has skin level {level} \
                         (out of view it takes {unseen_level} where its shadow may show, \
                         else none)",
                    )
                    .into());
                }
                if level == UNSKINNED_LEVEL && s.skinned() {
                    return Err(format!(
                        "frame {step}: character {c} is skinned at no level (out of view, \
                         its shadow out of it)"
                    )
                    .into());
                }
            }
        }
        for (c, s) in states.iter().enumerate() {
            // Skinned again at a finer level (made due where its pose held only a coarser
            // level's joints).
            reskinned += (s.flags & RESKIN != 0) as usize;
            // Its pose holds at least the joints its skin level's vertices move with.
            let needed = s.skin_level().min(levels.len() as u32 - 1);
            if s.posed_level() > needed {
                return Err(format!(
                    "frame {step}: character {c} is skinned at level {} with a pose of \
                     level {}'s joints",
                    s.skin_level(),
                    s.posed_level()
                )
                .into());
            }
            if s.skinned() {
                coarse_skins += (s.skin_level() > 0) as usize;
                cut_skins += level_kept(rig, s.skin_level() as usize, method).is_some() as usize;
                skinned += levels[s.skin_level() as usize].vertices;
                all += full_vertices;
            }
        }
        if shadows {
            let cap = scene
                .gpu_lod_inputs()
                .ok_or("no LOD frame")?
                .0
                .skin_level_cap;
            if let Some(s) = states
                .iter()
                .find(|s| s.skin_level() > cap && s.skin_level() != UNSKINNED_LEVEL)
            {
                return Err(format!(
                    "skin level {} past the shadows' level {cap}",
                    s.skin_level()
                )
                .into());
            }
            if cap as usize >= levels.len() {
                return Err(format!("the shadows' level {cap} is past the chain").into());
            }
        }
    }
    if unseen == 0 {
        return Err("no character was out of view from the street camera".into());
    }
    if unskinned_unseen == 0 {
        return Err(format!(
            "of {unseen} characters out of view over the frames, none went unskinned"
        )
        .into());
    }
    if shader == ComputeShader::PerLevel && lists_compared == 0 {
        return Err("no frame's lists were compared".into());
    }
    if !shadows {
        if coarse_skins == 0 {
            return Err("no character was skinned at a coarser level".into());
        }
        if reskinned == 0 {
            return Err("no character was skinned again at a finer level".into());
        }
        let cutting = (1..levels_in(rig)).any(|l| level_kept(rig, l, method).is_some());
        if cutting && cut_skins == 0 {
            return Err("no character was skinned at a level that cuts influences".into());
        }
        if skinned >= all {
            return Err(
                format!("{skinned} vertices skinned of {all}: the levels saved nothing").into(),
            );
        }
    }
    Ok(())
}

/// With the animation, LOD and mesh levels on the GPU, a steady frame builds no draw list
/// (the CPU records the same commands whatever the crowd's size); a change of the crowd
/// builds them once.
fn steady_frames_build_nothing(skin: SkinVariant) -> Result<(), Failed> {
    common::gpu_or_skip();
    let rig = Arc::new(PreparedRig::reference());
    let mut scene = lod_scene(&rig, skin, true, true)?;
    let frames = |scene: &mut Scene, count: usize| -> Result<u64, Failed> {
        for _ in 0..count {
            scene
                .frame(Frame::headless(1.0 / 60.0))
                .map_err(|e| e.to_string())?;
            scene.camera_mut().orbit(0.01, 0.0);
        }
        Ok(scene.renderer().draw_list_builds())
    };
    let settled = frames(&mut scene, 3)?;
    let compared = |scene: &Scene| {
        (
            scene.renderer().placements_compared(),
            scene.animator_records_compared(),
        )
    };
    let before = compared(&scene);
    let later = frames(&mut scene, 5)?;
    if later != settled {
        return Err(format!("{} builds in 5 steady frames", later - settled).into());
    }
    if compared(&scene) != before {
        return Err(format!(
            "5 steady frames compared characters' placements or records: {before:?} -> {:?}",
            compared(&scene)
        )
        .into());
    }
    // Where the adapter reads draw counts from a buffer, each multi-draw is one command.
    let adapter_counts = scene
        .gpu()
        .device
        .features()
        .contains(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT);
    if scene.renderer().count_draws() != adapter_counts {
        return Err(format!(
            "count draws {} on an adapter that has them: {adapter_counts}",
            scene.renderer().count_draws()
        )
        .into());
    }
    let n = scene.crowd().len();
    scene.settings_mut().instances = n + 8;
    let grown = frames(&mut scene, 3)?;
    if grown == later {
        return Err("a grown crowd built no lists".into());
    }
    if compared(&scene).1 == before.1 {
        return Err("a grown crowd's records were not compared".into());
    }
    // The CPU's animation hands the levels over per character: it builds every frame.
    scene.settings_mut().animate = AnimateDevice::Cpu;
    let cpu = frames(&mut scene, 3)?;
    if frames(&mut scene, 2)? != cpu + 2 {
        return Err("with the CPU's levels the lists were not built each frame".into());
    }
    Ok(())
}

/// With geometric LOD off and the animation on the CPU, every character is drawn at full
/// detail: frames (update-rate LOD on, verify asked for) and the panel's readings ask for
/// nothing the coarse levels' measurement makes, so the crowd never waits for it. Turning
/// geometric LOD on measures them at the next frame.
fn full_detail_measures_nothing(skin: SkinVariant) -> Result<(), Failed> {
    use skinbench::skin::level_errors::measured;
    common::gpu_or_skip();
    // A rig of its own: another case's measurement would be kept with a shared one.
    let rig = Arc::new(PreparedRig::reference());
    let mut scene = lod_scene_animated_on(&rig, skin, true, false, AnimateDevice::Cpu)?;
    for step in 0..4 {
        verified_frame(&mut scene, step, 1.0 / 60.0)?;
        let _ = (
            scene.mesh_lod_reading(),
            scene.vertices_skinned(),
            scene.influences_blended(),
            scene.joints_posed(),
            scene.joints_sampled(),
            scene.skin_invocations(),
            scene.triangles_drawn(),
        );
        if measured(&rig).is_some() {
            return Err(format!("frame {step} at full detail measured the levels").into());
        }
    }
    scene.settings_mut().lod.mesh = true;
    verified_frame(&mut scene, 4, 1.0 / 60.0)?;
    if measured(&rig).is_none() {
        return Err("geometric LOD on did not measure the levels".into());
    }
    Ok(())
}

/// Pixels showing a character: the materials are coloured (their shaded sides too), the
/// ground and the sky grey (shadows off).
fn character_mask(image: &image::RgbaImage) -> Vec<bool> {
    image
        .pixels()
        .map(|p| {
            let [r, g, b, _] = p.0;
            r.max(g).max(b) - r.min(g).min(b) > 12
        })
        .collect()
}

/// Mesh LOD's picture against full detail's, same crowd, poses and camera: no character
/// pixel of one lies farther than the threshold + 1 px from a character pixel of the other
/// (their silhouettes agree to within the threshold).
/// A scene of `settings` drawing offscreen at `size`, paused: its frames show the same
/// poses, so two scenes' pictures compare what they draw, not when.
fn paused_scene(
    gpu: &GpuContext,
    rig: &Arc<PreparedRig>,
    settings: Settings,
    size: (u32, u32),
) -> Result<Scene, Failed> {
    let mut scene = common::offscreen_scene(gpu, rig, settings, size).map_err(|e| e.to_string())?;
    scene.settings_mut().paused = true;
    Ok(scene)
}

fn silhouettes(animate: AnimateDevice) -> Result<(), Failed> {
    let gpu = common::gpu_or_skip();
    let rig = Arc::new(PreparedRig::reference());
    let size = (640u32, 360u32);
    let mut masks = Vec::new();
    let mut levels = Vec::new();
    for mesh in [false, true] {
        let mut settings = common::app_settings(&rig, 400);
        settings.shadows = false;
        settings.animate = animate;
        if animate == AnimateDevice::Gpu {
            settings.pipeline.skin = SkinVariant::GpuCompute;
        }
        settings.lod = LodSettings {
            mesh,
            threshold_px: 1.0,
            ..LodSettings::default()
        };
        let mut scene = paused_scene(&gpu, &rig, settings, size)?;
        // Twice: on the GPU the levels are chosen in the first frame's LOD pass and the
        // pictures compared are of the frame after, the same poses.
        for _ in 0..2 {
            scene
                .frame(Frame::headless(0.0))
                .map_err(|e| e.to_string())?;
        }
        if scene.settings().animate != animate {
            return Err(format!("the scene left {animate:?}: {:?}", scene.notes()).into());
        }
        // Characters drawn coarser than full detail (the GPU's counts come back late: its
        // states are read instead).
        levels.push(match animate {
            _ if !mesh => 0,
            AnimateDevice::Cpu => scene.mesh_levels().iter().filter(|&&l| l > 0).count(),
            AnimateDevice::Gpu => scene
                .gpu_lod_states(scene.crowd().len())
                .map_err(|e| e.to_string())?
                .iter()
                .filter(|s| s.flags & VISIBLE != 0 && s.mesh_level() > 0)
                .count(),
        });
        let image = scene.read_image().map_err(|e| e.to_string())?;
        if let Ok(dir) = std::env::var("SILHOUETTE_DUMP") {
            let _ = image.save(format!("{dir}/{animate:?}_{mesh}.png"));
        }
        masks.push(character_mask(&image));
    }
    if levels[1] == 0 {
        return Err("no character took a coarser level".into());
    }
    let (w, h) = (size.0 as i64, size.1 as i64);
    let reach = 2i64; // the threshold, 1 px, + 1 px
    for (a, b) in [(0, 1), (1, 0)] {
        let mut far = 0;
        let mut first = None;
        for y in 0..h {
            for x in 0..w {
                if !masks[a][(y * w + x) as usize] {
                    continue;
                }
                let near = (-reach..=reach).any(|dy| {
                    (-reach..=reach).any(|dx| {
                        let (xx, yy) = (x + dx, y + dy);
                        xx >= 0 && yy >= 0 && xx < w && yy < h && masks[b][(yy * w + xx) as usize]
                    })
                });
                if !near {
                    far += 1;
                    first.get_or_insert((x, y));
                }
            }
        }
        if far > 0 {
            return Err(format!(
                "{far} character pixels of the {} picture lie over {reach} px from the other's \
                 characters (the first at {first:?})",
                if a == 1 { "mesh LOD" } else { "full-detail" }
            )
            .into());
        }
    }
    let shown: usize = masks[0].iter().filter(|&&m| m).count();
    if shown < 2000 {
        return Err(format!("only {shown} character pixels: the mask finds no crowd").into());
    }
    Ok(())
}

/// `gpu_vertex` draws a coarse level's influence cut: most characters at the coarsest
/// level (the widest threshold the flag takes; the nearest may stay finer), the street camera, shadows
/// off, drawn by `gpu_vertex` and by `gpu_compute` (which skins the cut, checked by its
/// verify) from the same poses: at most `CUT_PICTURE_PIXELS` pixels differ by more than
/// shading, where drawing the uncut surface moves many more. The copies holding the cut
/// take GPU memory while `gpu_vertex` draws and none otherwise.
fn vertex_cut_picture(animate: AnimateDevice) -> Result<(), Failed> {
    const CUT_PICTURE_PIXELS: usize = 40;
    let gpu = common::gpu_or_skip();
    let rig = Arc::new(PreparedRig::reference());
    let size = (640u32, 360u32);
    let mut images = Vec::new();
    for skin in [SkinVariant::GpuCompute, SkinVariant::GpuVertex] {
        let mut settings = common::app_settings(&rig, 13);
        settings.shadows = false;
        settings.animate = animate;
        settings.pipeline.skin = skin;
        settings.lod = LodSettings {
            enabled: false,
            mesh: true,
            threshold_px: *LodSettings::THRESHOLD_PX.end(),
            ..LodSettings::default()
        };
        let mut scene = paused_scene(&gpu, &rig, settings, size)?;
        *scene.camera_mut() = OrbitCamera::start(CameraStart::Street, crowd_extent(scene.crowd()));
        for step in 0..2 {
            verified_frame(&mut scene, step, 0.0)?;
        }
        // The nearest may stay finer; most are at the coarsest, which cuts.
        let coarsest = (levels_in(&rig) - 1) as u8;
        let at_coarsest = scene
            .mesh_levels()
            .iter()
            .filter(|&&l| l == coarsest)
            .count();
        if animate == AnimateDevice::Cpu && at_coarsest < scene.crowd().len() / 2 {
            return Err(format!(
                "few characters at level {coarsest}: {:?}",
                scene.mesh_levels()
            )
            .into());
        }
        if level_kept(&rig, coarsest as usize, SkinMethod::Linear).is_none() {
            return Err(
                format!("level {coarsest} of the built-in rig keeps every influence").into(),
            );
        }
        let image = scene.read_image().map_err(|e| e.to_string())?;
        if let Ok(dir) = std::env::var("SILHOUETTE_DUMP") {
            let _ = image.save(format!("{dir}/cut_{animate:?}_{}.png", skin.name()));
        }
        images.push(image);
        // The cut copies exist while `gpu_vertex` draws, and only then.
        let cut_bytes = scene.renderer().vertex_cut_bytes();
        if (cut_bytes > 0) != (skin == SkinVariant::GpuVertex) {
            return Err(format!("{}: the cut copies take {cut_bytes} bytes", skin.name()).into());
        }
        if skin == SkinVariant::GpuVertex {
            scene.settings_mut().pipeline.skin = SkinVariant::GpuCompute;
            verified_frame(&mut scene, 2, 0.0)?;
            let kept = scene.renderer().vertex_cut_bytes();
            if kept > 0 {
                return Err(
                    format!("gpu_compute kept gpu_vertex's cut copies: {kept} bytes").into(),
                );
            }
        }
    }
    // Pixels whose colour differs by more than the two paths' normals do (`gpu_compute`
    // packs them): where a surface covers what the other's does not.
    let differ = images[0]
        .pixels()
        .zip(images[1].pixels())
        .filter(|(a, b)| (0..3).any(|c| a.0[c].abs_diff(b.0[c]) > 48))
        .count();
    // The materials' colours against the grey ground and sky.
    let shown = images[0]
        .pixels()
        .filter(|p| {
            let [r, g, b, _] = p.0;
            r.max(g).max(b) - r.min(g).min(b) > 48
        })
        .count();
    if shown < 2000 {
        return Err(format!("only {shown} character pixels: no crowd in view").into());
    }
    if differ > CUT_PICTURE_PIXELS {
        return Err(format!(
            "gpu_vertex's picture differs from gpu_compute's in {differ} pixels ({shown} \
             show a character)"
        )
        .into());
    }
    eprintln!("vertex cut picture: {differ} pixels differ, {shown} show a character");
    Ok(())
}

fn picture(rig: &Arc<PreparedRig>, skin: SkinVariant) -> Result<(), Failed> {
    common::gpu_or_skip();
    let mut scene = lod_scene(rig, skin, true, false)?;
    if skin.refusal(SkinMethod::Linear, rig).is_some() {
        return Ok(());
    }
    // `gpu_compute` takes over from `gpu_vertex` mid-way: its output never held the
    // characters LOD skips, so the switch must compute everyone once.
    if skin == SkinVariant::GpuCompute {
        scene.settings_mut().pipeline.skin = SkinVariant::GpuVertex;
    }
    for (step, &(dt, closer)) in FRAMES.iter().enumerate() {
        if step == 3 {
            scene.settings_mut().pipeline.skin = skin;
        }
        if closer {
            scene.camera_mut().distance *= 0.5;
        }
        if step == 3 || step == FRAMES.len() - 1 {
            scene.request_verify();
        }
        scene
            .frame(Frame::headless(dt))
            .map_err(|e| e.to_string())?;
        if step == 3 {
            verified(&mut scene, "verify right after the switch")?;
        }
    }
    let verify = match scene.take_last_verify() {
        Some(Ok(d)) => d,
        Some(Err(e)) => return Err(format!("verify: {e}").into()),
        None => return Err("no verify ran".into()),
    };
    if !verify.within_tolerance() {
        return Err(format!("verify with LOD on the GPU:\n{}", verify.to_text()).into());
    }
    let error = scene.measure_lod_error(None).map_err(|e| e.to_string())?;
    if error.max_px.is_nan() || error.max_px > THRESHOLD_PX {
        return Err(format!("LOD's error {error:?} is over {THRESHOLD_PX} px").into());
    }
    let with_lod = scene.read_image().map_err(|e| e.to_string())?;
    let (shown, _) = scene
        .gpu_lod_shown()
        .map_err(|e| e.to_string())?
        .ok_or("no LOD states")?;
    let stale = shown
        .iter()
        .zip(
            scene
                .gpu_lod_inputs()
                .ok_or("no LOD frame")?
                .2
                .iter()
                .map(|r| r.time_secs + r.speed * (scene.anim_clock_secs() - r.since_secs)),
        )
        .filter(|(s, now)| s.time_secs != *now)
        .count();
    if stale == 0 {
        return Err("every character shows its current pose: nothing was skipped".into());
    }

    let mut plain = lod_scene(rig, skin, false, false)?;
    *plain.camera_mut() = *scene.camera();
    let mut crowd = InstanceStore::new();
    for instance in &shown {
        crowd.spawn(*instance);
    }
    plain.set_crowd(crowd);
    plain
        .frame(Frame::headless(0.0))
        .map_err(|e| e.to_string())?;
    let without_lod = plain.read_image().map_err(|e| e.to_string())?;
    plain.set_crowd(InstanceStore::new());
    plain
        .frame(Frame::headless(0.0))
        .map_err(|e| e.to_string())?;
    let empty = plain.read_image().map_err(|e| e.to_string())?;
    let covered = common::covered_pixels(&without_lod, &empty)?;
    common::pictures_match(&without_lod, &with_lod, covered).map_err(|e| {
        let dir = common::temp_dir(&format!("gpu_lod_{}_{}", rig.name, skin.name()));
        let _ = with_lod.save(dir.join("with_lod.png"));
        let _ = without_lod.save(dir.join("shown_times_without_lod.png"));
        Failed::from(format!(
            "{e} ({stale} stale; pictures in {})",
            dir.display()
        ))
    })
}

/// Each batch's run holds exactly its visible characters (in whatever order the GPU's
/// atomics gave), each drawn once at its level with its own base vertex and instance, and
/// the batch's count is how many.
fn check_runs(
    scene: &Scene,
    words: &[u32],
    slots: &[DrawSlot],
    states: &[CharacterLod],
    mesh: bool,
    ranges: &[(u32, u32)],
) -> Result<(), String> {
    let counts = scene
        .renderer()
        .read_run_counts(scene.gpu())
        .map_err(|e| e.to_string())?;
    let runs_at = scene.renderer().runs_at() * 5;
    for (b, range) in scene.renderer().main_batches().iter().enumerate() {
        let mut expected: Vec<(u32, [u32; 5])> = Vec::new();
        for (i, (slot, s)) in slots.iter().zip(states).enumerate() {
            if slot.count_word == NO_SLOT || s.flags & VISIBLE == 0 {
                continue;
            }
            let own = slot.count_word as usize - 1;
            if !range.contains(&(own / 5 - scene.renderer().main_args_at())) {
                continue;
            }
            let level = if mesh { s.mesh_level() as usize } else { 0 };
            let (first_index, index_count) = ranges[level];
            expected.push((
                i as u32,
                [index_count, 1, first_index, words[own + 3], words[own + 4]],
            ));
        }
        let count = counts[b] as usize;
        if count != expected.len() {
            return Err(format!(
                "batch {b}: {count} arguments appended, {} characters of it in view",
                expected.len()
            ));
        }
        let mut got: Vec<(u32, [u32; 5])> = (0..count)
            .map(|k| {
                let at = runs_at + (range.start + k) * 5;
                let arg: [u32; 5] = words[at..at + 5].try_into().unwrap();
                (arg[4], arg)
            })
            .collect();
        got.sort_unstable();
        let mut expected: Vec<(u32, [u32; 5])> =
            expected.into_iter().map(|(_, arg)| (arg[4], arg)).collect();
        expected.sort_unstable();
        if got != expected {
            return Err(format!(
                "batch {b}: the run holds {:?}, its characters in view are {:?}",
                &got[..got.len().min(4)],
                &expected[..expected.len().min(4)]
            ));
        }
    }
    Ok(())
}

/// The LOD pass writes draw arguments that counted multi-draws read unchecked: it refuses
/// a level range past the index buffers and slots that are not an argument's instance
/// count, whatever a caller puts into the frame or the slots, and culls nothing until
/// good slots are written.
fn draw_args_out_of_range_refused() -> Result<(), Failed> {
    common::gpu_or_skip();
    let rig = Arc::new(PreparedRig::reference());
    let mut scene = lod_scene(&rig, SkinVariant::GpuVertex, true, true)?;
    // Per-character slots and runs here; per-level ones in `level_slots_out_of_range_refused`.
    scene.settings_mut().draws = Draws::PerCharacter;
    scene
        .frame(Frame::headless(1.0 / 60.0))
        .map_err(|e| e.to_string())?;
    let (mut frame, _, _) = scene.gpu_lod_inputs().ok_or("no LOD frame ran")?;
    // The scene's first frame had no slots yet: this one asks to cull.
    frame.cull = 1;
    let gpu = scene.gpu();
    let target = scene.renderer().lod_draw_target();
    let (args, indices) = (target.args(), target.indices());
    if args < 2 || indices == 0 {
        return Err(format!("{args} draw arguments over {indices} indices").into());
    }
    let records = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("records"),
        size: 1 << 16,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let mut lod = GpuLod::new(&gpu.device);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let layout = *scene.output_layout();
    let mut record = |lod: &mut GpuLod, frame: LodFrame| {
        let prepared = lod.prepare(gpu, frame, &records, &target)?;
        let shape = FrameShape::new(&layout, frame.characters as usize);
        lod.record(
            &mut PassContext::new(gpu, &mut encoder, None, shape),
            &prepared,
        );
        Ok::<_, DrawArgsError>(prepared.writes_draws())
    };
    let mut cases = Vec::new();
    for (first, count) in [(indices - 1, 2), (u32::MAX, 2), (0, indices + 1)] {
        for level in [1, 7] {
            let mut bad = frame;
            bad.mesh_first_index[level / 4][level % 4] = first;
            bad.mesh_index_count[level / 4][level % 4] = count;
            // Past `mesh_levels` too: the pass clamps a level to the table.
            bad.mesh_levels = 2;
            cases.push((format!("level {level}: {first} + {count}"), bad));
        }
    }
    for (case, bad) in cases {
        match record(&mut lod, bad) {
            Err(DrawArgsError::LevelOutOfRange { .. }) => {}
            other => return Err(format!("{case} over {indices} indices: {other:?}").into()),
        }
    }
    let mut whole = frame;
    whole.set_mesh_levels(&[(0, indices)], &[0.0]);
    record(&mut lod, whole).map_err(|e| format!("the whole index buffer refused: {e}"))?;

    let (device, queue) = (&gpu.device, &gpu.queue);
    let characters = frame.characters as usize;
    let good: Vec<DrawSlot> = (0..characters)
        .map(|c| DrawSlot::count_only((c as u32 % args) * 5 + 1))
        .collect();
    for (case, slot) in [
        ("an index count", 5),
        ("a first index", 7),
        ("past the arguments", args * 5 + 1),
        ("past the words", u32::MAX - 1),
    ] {
        let mut slots = good.clone();
        slots[characters / 2] = DrawSlot::count_only(slot);
        match lod.write_slots(device, queue, &slots, &target) {
            Err(DrawArgsError::SlotOutOfRange { character, .. }) if character == characters / 2 => {
            }
            other => return Err(format!("slot {slot} ({case}): {other:?}").into()),
        }
        record(&mut lod, frame).map_err(|e| e.to_string())?;
        if lod.last_frame().is_none_or(|f| f.cull != 0) {
            return Err(format!("the pass culls after slot {slot} ({case}) was refused").into());
        }
    }
    // Runs: whole arguments, within the buffer, counted by a word of the counts.
    let (counts_at, counts) = target.count_words();
    if counts == 0 {
        return Err("the renderer's target has no count words (counted draws off?)".into());
    }
    for (case, compact_word, batch_len, run_count_word) in [
        ("not on an argument", 6, 1, counts_at),
        ("one past the arguments", (args - 1) * 5, 2, counts_at),
        ("overflowing u32", u32::MAX - 4, 2, counts_at),
        ("counted in an argument", 0, 1, counts_at - 1),
        ("counted past the counts", 0, 1, counts_at + counts),
    ] {
        let mut slots = good.clone();
        slots[characters / 2] = DrawSlot {
            compact_word,
            batch_len,
            run_count_word,
            ..good[characters / 2]
        };
        match lod.write_slots(device, queue, &slots, &target) {
            Err(DrawArgsError::RunOutOfRange { character, .. }) if character == characters / 2 => {}
            other => return Err(format!("a run {case}: {other:?}").into()),
        }
        record(&mut lod, frame).map_err(|e| e.to_string())?;
        if lod.last_frame().is_none_or(|f| f.cull != 0) {
            return Err(format!("the pass culls after a run {case} was refused").into());
        }
    }
    let mut whole_run = good.clone();
    whole_run[0] = DrawSlot {
        compact_word: 0,
        batch_len: args,
        run_count_word: counts_at + counts - 1,
        ..good[0]
    };
    lod.write_slots(device, queue, &whole_run, &target)
        .map_err(|e| format!("a run over every argument refused: {e}"))?;
    lod.write_slots(device, queue, &good, &target)
        .map_err(|e| format!("good slots refused: {e}"))?;
    record(&mut lod, frame).map_err(|e| e.to_string())?;
    if lod.last_frame().is_none_or(|f| f.cull != 1) {
        return Err("the pass does not cull with good slots".into());
    }
    Ok(())
}

/// Per-level draws: every frame whose LOD pass listed, each batch's list at each level
/// holds exactly the batch's characters in view at that level (the levels the pass
/// decided, read back), once each, as the instance count says; more than one level is
/// drawn over the frames; and the picture is the per-character draws' picture.
fn level_draws(rig: &Arc<PreparedRig>, skin: SkinVariant) -> Result<(), Failed> {
    common::gpu_or_skip();
    let mut scene = lod_scene(rig, skin, true, true)?;
    if skin.refusal(SkinMethod::Linear, rig).is_some() {
        return Ok(());
    }
    scene.settings_mut().draws = Draws::PerLevel;
    let n = scene.crowd().len();
    let levels = scene.renderer().level_ranges().len();
    let mut listed_frames = 0;
    let mut shadow_left_out = 0;
    let mut levels_drawn = std::collections::BTreeSet::new();
    // The frames of `decisions`, then three with the camera inside the crowd (characters
    // behind it, some of whose shadows cannot reach the view).
    let inside = [(1.0 / 60.0, false); 3];
    for (step, &(dt, closer)) in FRAMES.iter().chain(&inside).enumerate() {
        if closer {
            scene.camera_mut().distance *= 0.5;
        }
        if (1..=5).contains(&step) {
            scene.camera_mut().distance *= 1.6;
        }
        if step == FRAMES.len() {
            scene.camera_mut().distance *= 0.02;
        }
        // Each character's pose holds its skin level's joints (of both skin paths).
        verified_frame(&mut scene, step, dt)?;
        if !scene.renderer().draws_per_level() {
            return Err(format!("the draws are not per level: {:?}", scene.notes()).into());
        }
        if !scene.renderer().level_lists_written() {
            continue;
        }
        let lists = scene
            .renderer()
            .read_level_lists(scene.gpu())
            .map_err(|e| e.to_string())?
            .ok_or("no level lists")?;
        let states = scene.gpu_lod_states(n).map_err(|e| e.to_string())?;
        let batches = scene.renderer().level_batches();
        if lists.levels.len() != batches.len() * levels || lists.shadows.len() != batches.len() {
            return Err(format!(
                "{} level lists and {} shadow lists for {} batches of {levels} levels",
                lists.levels.len(),
                lists.shadows.len(),
                batches.len()
            )
            .into());
        }
        for (b, members) in batches.iter().enumerate() {
            // The shadow pass draws the characters that have vertices: in view, or their
            // shadow may fall in it.
            let mut got = lists.shadows[b].clone();
            got.sort_unstable();
            let expected: Vec<u32> = members
                .iter()
                .copied()
                .filter(|&c| states[c as usize].skin_level() != UNSKINNED_LEVEL)
                .collect();
            if got != expected {
                return Err(format!(
                    "frame {step}, batch {b}: the shadow list holds {} characters, {} have \
                     vertices",
                    got.len(),
                    expected.len()
                )
                .into());
            }
            shadow_left_out += members.len() - got.len();
            for level in 0..levels {
                let mut got = lists.levels[b * levels + level].clone();
                got.sort_unstable();
                let expected: Vec<u32> = members
                    .iter()
                    .copied()
                    .filter(|&c| {
                        let s = states[c as usize];
                        s.flags & VISIBLE != 0 && s.mesh_level() as usize == level
                    })
                    .collect();
                if got != expected {
                    return Err(format!(
                        "frame {step}, batch {b}, level {level}: listed {:?}, in view there \
                         {:?}",
                        &got[..got.len().min(8)],
                        &expected[..expected.len().min(8)]
                    )
                    .into());
                }
                if !got.is_empty() {
                    levels_drawn.insert(level);
                }
            }
        }
        listed_frames += 1;
    }
    if listed_frames < FRAMES.len() - 2 {
        return Err(format!(
            "the LOD pass listed in {listed_frames} of {} frames",
            FRAMES.len()
        )
        .into());
    }
    // A level past the first must be listed (where the chain has one): a list at level 0
    // alone would be the per-character picture drawn another way.
    if levels > 1 && levels_drawn.iter().all(|&l| l == 0) {
        return Err(format!("only levels {levels_drawn:?} were drawn").into());
    }
    if shadow_left_out == 0 {
        return Err("the shadow pass left no character out over the frames".into());
    }
    let records = scene.renderer().draw_records();
    if records[0] > scene.renderer().level_batches().len() * levels {
        return Err(format!("{records:?} draw records for the main pass").into());
    }
    // Still frames until every character shows the clock's pose (a kept character falls
    // due within the longest period, 8 frames), then the same frame drawn per character
    // (the same decisions), then with no one: what the characters cover.
    // Changing the draws makes a full frame, which poses every joint (a still frame keeps
    // it: nothing moved), so the first picture starts from one too.
    scene.restart_lod();
    for _ in 0..9 {
        scene
            .frame(Frame::headless(0.0))
            .map_err(|e| e.to_string())?;
    }
    let per_level = scene.read_image().map_err(|e| e.to_string())?;
    scene.settings_mut().draws = Draws::PerCharacter;
    for _ in 0..2 {
        scene
            .frame(Frame::headless(0.0))
            .map_err(|e| e.to_string())?;
    }
    if scene.renderer().draws_per_level() {
        return Err("per_character still draws per level".into());
    }
    let per_character = scene.read_image().map_err(|e| e.to_string())?;
    scene.set_crowd(InstanceStore::new());
    scene
        .frame(Frame::headless(0.0))
        .map_err(|e| e.to_string())?;
    let empty = scene.read_image().map_err(|e| e.to_string())?;
    let covered = common::covered_pixels(&per_character, &empty)?;
    common::pictures_match(&per_character, &per_level, covered).map_err(|e| {
        let dir = common::temp_dir(&format!("level_draws_{}_{}", rig.name, skin.name()));
        let _ = per_level.save(dir.join("per_level.png"));
        let _ = per_character.save(dir.join("per_character.png"));
        Failed::from(format!("{e} (pictures in {})", dir.display()))
    })
}

/// `gpu_compute` skinning into a pool of `percent` % (`--skinned-pool`), over the camera
/// path of [`level_draws`] (far, nearer, inside the crowd) with update-rate LOD on: every
/// frame verifies (each held character's vertices of the level it was skinned at against
/// the f64 oracle); the GPU's lists hold every character with vertices at its skin level,
/// kept ones too, as the CPU twin lists them; each slot's room is the twin's
/// ([`fit_slots`]), and so are the counts left out and demoted ([`pool_counts`]); each held
/// character's base vertex is a place in the room of its own level's slot or, demoted, a
/// coarser level's, each place once; one left out or without vertices has none; and the
/// per-level draws list each held character in view at the level it was skinned at (or
/// its own, where coarser), one left out nowhere. With room for everyone (100 %) no one is
/// demoted or left out and the picture is the full slots' picture; with little room some
/// are drawn coarser, some of them (with three levels or more) at a level between theirs
/// and the coarsest, and the panel's reading says how many.
fn pool(rig: &Arc<PreparedRig>, percent: u32) -> Result<(), Failed> {
    common::gpu_or_skip();
    if rig.mesh_chain().levels().len() < 2 {
        return Err(format!("{} has one mesh level: no pool of levels", rig.name).into());
    }
    let mut scene = lod_scene(rig, SkinVariant::GpuCompute, true, true)?;
    let share = PoolShare::from_percent(percent).ok_or("no such share")?;
    scene.settings_mut().draws = Draws::PerLevel;
    scene.settings_mut().compute_shader = ComputeShader::PerLevel;
    scene.settings_mut().skinned_pool = Some(PoolSize::Share(share));
    let n = scene.crowd().len();
    let sorted = rig.mesh.sorted().source().len();
    let order = LevelOrder::new(
        &rig.mesh_chain().deepest_levels_sorted(sorted),
        rig.mesh_chain().levels().len(),
    );
    let vertices = share.vertices_for(rig);
    let (mut pooled_frames, mut left_out, mut demoted, mut listed_frames) = (0, 0u64, 0u64, 0);
    // Characters demoted to a level finer than the coarsest.
    let mut between = 0u64;
    let inside = [(1.0 / 60.0, false); 3];
    for (step, &(dt, closer)) in FRAMES.iter().chain(&inside).enumerate() {
        if closer {
            scene.camera_mut().distance *= 0.5;
        }
        if (1..=5).contains(&step) {
            scene.camera_mut().distance *= 1.6;
        }
        if step == FRAMES.len() {
            scene.camera_mut().distance *= 0.02;
        }
        verified_frame(&mut scene, step, dt)?;
        let Some(pool) = scene
            .renderer()
            .read_gpu_pool(scene.gpu())
            .map_err(|e| e.to_string())?
        else {
            // The first frame binds the skinner before the draws know it.
            if step > 0 {
                return Err(format!("frame {step}: no pool: {:?}", scene.notes()).into());
            }
            continue;
        };
        pooled_frames += 1;
        let LevelLists { layout, lists } = scene
            .renderer()
            .read_gpu_level_lists(scene.gpu())
            .map_err(|e| e.to_string())?
            .ok_or("a pool without lists")?;
        let (frame, _, _) = scene.gpu_lod_inputs().ok_or("no LOD frame")?;
        let coarsest = layout.levels() - 1;
        let states = scene.gpu_lod_states(n).map_err(|e| e.to_string())?;
        let words: Vec<u32> = states.iter().map(|s| s.record_due_word()).collect();
        let twin = bucket_characters(&layout, n, Some(&words), true);
        if let Some(slot) = (0..layout.slots()).find(|&slot| lists[slot] != twin[slot]) {
            return Err(format!(
                "frame {step}: slot {slot} lists {:?} on the GPU, {:?} in the CPU twin",
                lists[slot], twin[slot]
            )
            .into());
        }
        let counts: Vec<u32> = lists.iter().map(|l| l.len() as u32).collect();
        let fits = fit_slots(&layout, n, &counts, order.counts(), Some(vertices));
        let needed = needed_units(&layout, &counts, order.counts());
        if needed != pool.needed_units {
            return Err(format!(
                "frame {step}: the GPU's need is {} units, the CPU twin's {needed}",
                pool.needed_units
            )
            .into());
        }
        if fits != pool.fits {
            return Err(format!(
                "frame {step}: rooms {:?} on the GPU, {fits:?} in the CPU twin",
                pool.fits
            )
            .into());
        }
        let (twin_left_out, twin_demoted) = pool_counts(&layout, &counts, &fits);
        if (pool.left_out, pool.demoted) != (twin_left_out, twin_demoted) {
            return Err(format!(
                "frame {step}: {} left out and {} demoted on the GPU, {twin_left_out} and \
                 {twin_demoted} in the CPU twin",
                pool.left_out, pool.demoted
            )
            .into());
        }
        // Each listed character held at its own level or a coarser one, at a place of that
        // slot's room, each place once; the counts as the totals say.
        let per_range = layout.per_range();
        let mut held_at: Vec<Option<usize>> = vec![None; n];
        let mut places: Vec<Vec<u32>> = vec![Vec::new(); layout.slots()];
        let (mut frame_left_out, mut frame_demoted) = (0u32, 0u32);
        for (slot, list) in lists.iter().enumerate() {
            let (range, level) = (slot / layout.levels(), slot % layout.levels());
            for &c in list {
                let c = range * per_range + c as usize;
                let Some(at) = pool.level_of(c) else {
                    if pool.bases[c] != NO_POOL_BASE {
                        return Err(format!(
                            "frame {step}: character {c}'s base {} is in no slot's room",
                            pool.bases[c]
                        )
                        .into());
                    }
                    frame_left_out += 1;
                    continue;
                };
                if at < level {
                    return Err(format!(
                        "frame {step}: character {c} listed at level {level} was held at \
                         the finer {at} (the coarsest is {coarsest})"
                    )
                    .into());
                }
                frame_demoted += u32::from(at != level);
                between += u64::from(at != level && at < coarsest);
                let held_slot = layout.slot(range, at);
                let n_at = order.counts()[at];
                let place = pool.bases[c] - fits[held_slot].base;
                if !place.is_multiple_of(n_at) {
                    return Err(format!(
                        "frame {step}: character {c}'s base {} is no place in slot \
                         {held_slot}'s room {:?} of {n_at} vertices a character",
                        pool.bases[c], fits[held_slot]
                    )
                    .into());
                }
                places[held_slot].push(place / n_at);
                held_at[c] = Some(at);
            }
        }
        for (slot, held) in places.iter_mut().enumerate() {
            held.sort_unstable();
            held.dedup();
            if held.len() != fits[slot].fitted as usize {
                return Err(format!(
                    "frame {step}: slot {slot} holds {} characters at distinct places, its \
                     room says {}",
                    held.len(),
                    fits[slot].fitted
                )
                .into());
            }
        }
        if let Some(c) = (0..n).find(|&c| held_at[c].is_none() && pool.bases[c] != NO_POOL_BASE) {
            return Err(format!("frame {step}: character {c}, not held, has a base").into());
        }
        if (frame_left_out, frame_demoted) != (pool.left_out, pool.demoted) {
            return Err(format!(
                "frame {step}: {frame_left_out} left out and {frame_demoted} demoted, the \
                 totals say {} and {}",
                pool.left_out, pool.demoted
            )
            .into());
        }
        left_out += u64::from(frame_left_out);
        demoted += u64::from(frame_demoted);
        // The draws: each held character in view at the level it was skinned at (or its
        // own, where that is coarser), in the shadow list where it has the shadow level's
        // vertices (a character demoted past it casts no shadow that frame).
        let shadow_cap = frame.skin_level_cap as usize;
        if scene.renderer().level_lists_written() {
            let drawn = scene
                .renderer()
                .read_level_lists(scene.gpu())
                .map_err(|e| e.to_string())?
                .ok_or("no level lists")?;
            let levels = scene.renderer().level_ranges().len();
            for (b, members) in scene.renderer().level_batches().iter().enumerate() {
                let mut shadows = drawn.shadows[b].clone();
                shadows.sort_unstable();
                let expected: Vec<u32> = members
                    .iter()
                    .copied()
                    .filter(|&c| held_at[c as usize].is_some_and(|at| at <= shadow_cap))
                    .collect();
                // Without shadows the list is empty.
                let expected = if scene.settings().shadows {
                    expected
                } else {
                    Vec::new()
                };
                if shadows != expected {
                    return Err(format!(
                        "frame {step}, batch {b}: the shadow list holds {} characters, the \
                         pool held {}",
                        shadows.len(),
                        expected.len()
                    )
                    .into());
                }
                for level in 0..levels {
                    let mut got = drawn.levels[b * levels + level].clone();
                    got.sort_unstable();
                    let expected: Vec<u32> = members
                        .iter()
                        .copied()
                        .filter(|&c| {
                            let s = states[c as usize];
                            s.flags & VISIBLE != 0
                                && held_at[c as usize]
                                    .is_some_and(|at| at.max(s.mesh_level() as usize) == level)
                        })
                        .collect();
                    if got != expected {
                        return Err(format!(
                            "frame {step}, batch {b}, level {level}: listed {:?}, held there \
                             in view {:?}",
                            &got[..got.len().min(8)],
                            &expected[..expected.len().min(8)]
                        )
                        .into());
                    }
                }
            }
            listed_frames += 1;
        }
    }
    if pooled_frames < FRAMES.len() {
        return Err(format!("{pooled_frames} frames skinned into the pool").into());
    }
    if listed_frames < FRAMES.len() - 2 {
        return Err(format!("the pool's lists were drawn in {listed_frames} frames").into());
    }
    if percent == 100 && left_out + demoted > 0 {
        return Err(
            format!("room for everyone left {left_out} out and drew {demoted} coarser").into(),
        );
    }
    if percent < 100 {
        if demoted == 0 {
            return Err(format!("{percent} % drew no one coarser ({left_out} left out)").into());
        }
        // A character without room at its level is held at the finest coarser one the
        // room allows, not always the coarsest.
        if rig.mesh_chain().levels().len() > 2 && between == 0 {
            return Err(format!(
                "{percent} % drew {demoted} coarser, every one at the coarsest level"
            )
            .into());
        }
        let reading = scene.mesh_lod_reading().pool.ok_or("no pool reading")?;
        if reading.capacity_bytes == 0 || reading.high_water_bytes > reading.capacity_bytes {
            return Err(format!("the pool's reading {reading:?}").into());
        }
        return Ok(());
    }
    // The same still frame from the pool and from full slots. Changing the setting makes
    // a full frame, which poses every joint (a still frame keeps it: nothing moved), so
    // the first picture starts from one too.
    scene.restart_lod();
    for _ in 0..9 {
        scene
            .frame(Frame::headless(0.0))
            .map_err(|e| e.to_string())?;
    }
    let pooled = scene.read_image().map_err(|e| e.to_string())?;
    scene.settings_mut().skinned_pool = None;
    for _ in 0..2 {
        scene
            .frame(Frame::headless(0.0))
            .map_err(|e| e.to_string())?;
    }
    let full = scene.read_image().map_err(|e| e.to_string())?;
    scene.set_crowd(InstanceStore::new());
    scene
        .frame(Frame::headless(0.0))
        .map_err(|e| e.to_string())?;
    let empty = scene.read_image().map_err(|e| e.to_string())?;
    let covered = common::covered_pixels(&full, &empty)?;
    common::pictures_match(&full, &pooled, covered).map_err(|e| {
        let dir = common::temp_dir(&format!("pool_{}", rig.name));
        let _ = pooled.save(dir.join("pool.png"));
        let _ = full.save(dir.join("full.png"));
        Failed::from(format!("{e} (pictures in {})", dir.display()))
    })
}

/// An `auto` pool (`--skinned-pool auto`) started at 1 % over the same camera path, then
/// inside the crowd: every frame verifies against the f64 oracle; a frame draws
/// characters coarser (or leaves them out) while the pool is small, the pool grows from
/// what the frames read back (never past the budget's cap), and the last frames hold
/// everyone at their own level.
fn pool_auto(rig: &Arc<PreparedRig>) -> Result<(), Failed> {
    common::gpu_or_skip();
    if rig.mesh_chain().levels().len() < 2 {
        return Err(format!("{} has one mesh level: no pool to grow", rig.name).into());
    }
    let mut scene = lod_scene(rig, SkinVariant::GpuCompute, true, true)?;
    scene.settings_mut().draws = Draws::PerLevel;
    scene.settings_mut().compute_shader = ComputeShader::PerLevel;
    scene.settings_mut().skinned_pool = Some(PoolSize::Auto);
    let start = PoolShare::from_percent(1).ok_or("no such share")?;
    let inside = [(1.0 / 60.0, false); 8];
    let (mut short_frames, mut last_short, mut started) = (0, u32::MAX, false);
    for (step, &(dt, closer)) in FRAMES.iter().chain(&inside).enumerate() {
        if closer {
            scene.camera_mut().distance *= 0.5;
        }
        if step == FRAMES.len() {
            scene.camera_mut().distance *= 0.02;
        }
        verified_frame(&mut scene, step, dt)?;
        if !started {
            // After the first frame made the pool: from the least share from here on.
            scene.start_pool_at(start);
            started = true;
            continue;
        }
        let Some(pool) = scene
            .renderer()
            .read_gpu_pool(scene.gpu())
            .map_err(|e| e.to_string())?
        else {
            return Err(format!("frame {step}: no pool: {:?}", scene.notes()).into());
        };
        if pool.left_out + pool.demoted > 0 {
            short_frames += 1;
        }
        last_short = pool.left_out + pool.demoted;
    }
    let reading = scene.mesh_lod_reading().pool.ok_or("no pool reading")?;
    if !reading.auto || reading.share_percent <= start.percent() {
        return Err(format!("the pool did not grow: {reading:?}").into());
    }
    if reading.share_percent > reading.cap_percent {
        return Err(format!("the pool grew past its cap: {reading:?}").into());
    }
    if short_frames == 0 {
        return Err("1 % held everyone at their level: nothing to grow for".into());
    }
    if last_short > 0 {
        return Err(format!(
            "the last frame held {last_short} characters coarser or not at all at {} % (cap \
             {} %)",
            reading.share_percent, reading.cap_percent
        )
        .into());
    }
    Ok(())
}

/// Per-level slots the LOD pass would write through are checked like the per-character
/// ones: lists past the lists' words, a batch's arguments past the arguments, more
/// characters in a batch than its lists hold, and a frame choosing among more levels than
/// the draws have are refused, and the pass then culls nothing.
fn level_slots_out_of_range_refused() -> Result<(), Failed> {
    common::gpu_or_skip();
    let rig = Arc::new(PreparedRig::reference());
    let mut scene = lod_scene(&rig, SkinVariant::GpuVertex, true, true)?;
    scene.settings_mut().draws = Draws::PerLevel;
    for _ in 0..2 {
        scene
            .frame(Frame::headless(1.0 / 60.0))
            .map_err(|e| e.to_string())?;
    }
    let (frame, _, _) = scene.gpu_lod_inputs().ok_or("no LOD frame ran")?;
    let gpu = scene.gpu();
    let (device, queue) = (&gpu.device, &gpu.queue);
    let target = scene.renderer().lod_draw_target();
    if !target.per_level() {
        return Err("the renderer's target is not per level".into());
    }
    let characters = frame.characters as usize;
    let mut good = Vec::new();
    scene.renderer().main_count_slots(characters, &mut good);
    let records = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("records"),
        size: 1 << 16,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let mut lod = GpuLod::new(device);
    let mut encoder = device.create_command_encoder(&Default::default());
    let layout = *scene.output_layout();
    let mut record = |lod: &mut GpuLod, frame: LodFrame| {
        let prepared = lod.prepare(gpu, frame, &records, &target)?;
        let shape = FrameShape::new(&layout, frame.characters as usize);
        lod.record(
            &mut PassContext::new(gpu, &mut encoder, None, shape),
            &prepared,
        );
        Ok::<_, DrawArgsError>(prepared.writes_draws())
    };
    let mut culling = frame;
    culling.cull = 1;
    lod.write_slots(device, queue, &good, &target)
        .map_err(|e| format!("the renderer's own slots refused: {e}"))?;
    record(&mut lod, culling).map_err(|e| e.to_string())?;
    if lod.last_frame().is_none_or(|f| f.cull != CULL_PER_LEVEL) {
        return Err("the pass does not list with good per-level slots".into());
    }
    let mut more_levels = culling;
    more_levels.mesh_levels = scene.renderer().level_ranges().len() as u32 + 1;
    match record(&mut lod, more_levels) {
        Err(DrawArgsError::MoreLevelsThanDraws { .. }) => {}
        other => return Err(format!("more levels than the draws have: {other:?}").into()),
    }
    let at = characters / 2;
    let args = target.args();
    let last_batch = DrawSlot {
        count_word: (args - 1) * 5 + 1,
        ..good[at]
    };
    let far_list = DrawSlot {
        compact_word: u32::MAX - 1,
        ..good[at]
    };
    let crowded: Vec<DrawSlot> = good
        .iter()
        .map(|s| DrawSlot { batch_len: 1, ..*s })
        .collect();
    for (case, slots) in [
        ("arguments past the last", {
            let mut s = good.clone();
            s[at] = last_batch;
            s
        }),
        ("lists past the words", {
            let mut s = good.clone();
            s[at] = far_list;
            s
        }),
        ("more characters than a list holds", crowded),
    ] {
        match lod.write_slots(device, queue, &slots, &target) {
            Err(DrawArgsError::LevelListOutOfRange { .. }) => {}
            other => return Err(format!("{case}: {other:?}").into()),
        }
        record(&mut lod, culling).map_err(|e| e.to_string())?;
        if lod.last_frame().is_none_or(|f| f.cull != 0) {
            return Err(format!("the pass lists after {case} was refused").into());
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    trials.push(common::trial(
        "level_slots_out_of_range_refused",
        level_slots_out_of_range_refused,
    ));
    for animate in [AnimateDevice::Cpu, AnimateDevice::Gpu] {
        trials.push(common::trial(
            format!("silhouettes/animated_on_{}", animate.name()),
            move || silhouettes(animate),
        ));
    }
    for animate in [AnimateDevice::Cpu, AnimateDevice::Gpu] {
        trials.push(common::trial(
            format!("vertex_cut_picture/animated_on_{}", animate.name()),
            move || vertex_cut_picture(animate),
        ));
    }
    for skin in [SkinVariant::GpuCompute, SkinVariant::GpuVertex] {
        trials.push(common::trial(
            format!("steady_frames_build_nothing/{}", skin.name()),
            move || steady_frames_build_nothing(skin),
        ));
    }
    trials.push(common::trial(
        "draw_args_out_of_range_refused",
        draw_args_out_of_range_refused,
    ));
    let reference = PreparedRig::reference();
    let cpu_skin = common::app_settings(&reference, CHARACTERS).pipeline.skin;
    for skin in [cpu_skin, SkinVariant::GpuCompute, SkinVariant::GpuVertex] {
        trials.push(common::trial(
            format!("full_detail_measures_nothing/{}", skin.name()),
            move || full_detail_measures_nothing(skin),
        ));
    }
    for (name, rig) in common::prepared_rigs() {
        // Cases of coarse levels are made only for rigs that have them (a rig of one
        // level is checked by the cases that do not need one).
        let levels = rig.mesh_chain().levels().len();
        let r = rig.clone();
        trials.push(common::trial(format!("decisions/{name}"), move || {
            decisions(&r, false, 0.0)
        }));
        let r = rig.clone();
        trials.push(common::trial(
            format!("decisions_mesh_lod/{name}"),
            move || decisions(&r, true, 0.0),
        ));
        if cross_fades_loops_of_different_lengths(rig) {
            let r = rig.clone();
            trials.push(common::trial(
                format!("decisions_mesh_lod_blended/{name}"),
                move || decisions(&r, true, 0.4),
            ));
            let r = rig.clone();
            trials.push(common::trial(
                format!("cpu_and_gpu_levels_blended/{name}"),
                move || cpu_and_gpu_levels(&r, 0.4),
            ));
        }
        for &shader in ComputeShader::ALL {
            if levels < 2
                || SkinVariant::GpuCompute
                    .refusal(SkinMethod::Linear, rig)
                    .is_some()
            {
                break;
            }
            let r = rig.clone();
            trials.push(common::trial(
                format!("skinned_levels/{name}/{}", shader.name()),
                move || skinned_levels(&r, false, SkinMethod::Linear, shader),
            ));
        }
        for skin in [SkinVariant::GpuCompute, SkinVariant::GpuVertex] {
            let r = rig.clone();
            trials.push(common::trial(
                format!("pose_slots_over_frames/{name}/{}", skin.name()),
                move || pose_slots_over_frames(&r, skin),
            ));
        }
        let r = rig.clone();
        trials.push(common::trial(format!("method_switch/{name}"), move || {
            method_switch(&r)
        }));
        for (case, shadows, method) in [
            ("skinned_levels_shadows", true, SkinMethod::Linear),
            ("skinned_levels_dual_quat", false, SkinMethod::DualQuat),
        ] {
            if levels < 2 || SkinVariant::GpuCompute.refusal(method, rig).is_some() {
                continue;
            }
            let r = rig.clone();
            trials.push(common::trial(format!("{case}/{name}"), move || {
                skinned_levels(&r, shadows, method, ComputeShader::PerLevel)
            }));
        }
        for skin in [
            SkinVariant::Float4,
            SkinVariant::Tuned,
            SkinVariant::Packed,
            SkinVariant::Pulled,
            SkinVariant::GpuCompute,
            SkinVariant::GpuVertex,
        ] {
            if levels < 2 || skin.refusal(SkinMethod::Linear, rig).is_some() {
                continue;
            }
            let r = rig.clone();
            trials.push(common::trial(
                format!("cpu_skinned_levels/{name}/{}", skin.name()),
                move || cpu_skinned_levels(&r, skin, false, true),
            ));
        }
        for (skin, upload) in [
            (SkinVariant::Pulled, UploadVariant::StagingBelt),
            (SkinVariant::Packed, UploadVariant::StagingBelt),
            (SkinVariant::Float4, UploadVariant::StagingBelt),
            (SkinVariant::Pulled, UploadVariant::InPlace),
        ] {
            if levels < 2 || skin.refusal(SkinMethod::Linear, rig).is_some() {
                continue;
            }
            let r = rig.clone();
            trials.push(common::trial(
                format!(
                    "cpu_skinned_levels_uploaded/{name}/{}/{}",
                    skin.name(),
                    upload.name()
                ),
                move || cpu_skinned_levels_uploaded(&r, skin, false, true, upload),
            ));
        }
        if levels > 1 {
            let r = rig.clone();
            trials.push(common::trial(
                format!("cpu_skinned_levels_shadows/{name}"),
                move || cpu_skinned_levels(&r, SkinVariant::Pulled, true, true),
            ));
        }
        for skin in [SkinVariant::Tuned, SkinVariant::Pulled] {
            if levels < 2 {
                break;
            }
            let r = rig.clone();
            trials.push(common::trial(
                format!("cpu_skinned_levels_dealt/{name}/{}", skin.name()),
                move || cpu_skinned_levels(&r, skin, false, false),
            ));
        }
        let r = rig.clone();
        trials.push(common::trial(
            format!("levels_over_due_lists/{name}"),
            move || levels_over_due_lists(&r),
        ));
        for skin in [SkinVariant::GpuCompute, SkinVariant::GpuVertex] {
            let r = rig.clone();
            trials.push(common::trial(
                format!("level_lists/{name}/{}", skin.name()),
                move || level_lists(&r, skin),
            ));
        }
        let r = rig.clone();
        trials.push(common::trial(
            format!("cpu_and_gpu_levels/{name}"),
            move || cpu_and_gpu_levels(&r, 0.0),
        ));
        for skin in [SkinVariant::GpuCompute, SkinVariant::GpuVertex] {
            let r = rig.clone();
            trials.push(common::trial(
                format!("picture/{name}/{}", skin.name()),
                move || picture(&r, skin),
            ));
            let r = rig.clone();
            trials.push(common::trial(
                format!("level_draws/{name}/{}", skin.name()),
                move || level_draws(&r, skin),
            ));
        }
        for (case, percent) in [("pool", 100), ("pool_overflow", 3)] {
            if levels < 2 {
                break;
            }
            let r = rig.clone();
            trials.push(common::trial(format!("{case}/{name}"), move || {
                pool(&r, percent)
            }));
        }
        if levels > 1 {
            let r = rig.clone();
            trials.push(common::trial(format!("pool_auto/{name}"), move || {
                pool_auto(&r)
            }));
        }
    }
    common::run_trials(&args, trials);
}
