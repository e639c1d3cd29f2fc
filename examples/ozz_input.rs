//! Writes a rig in the plain binary form `scripts/ozz-compare/ozz_frame.cc` reads, so that
//! ozz-animation animates and skins the same skeleton, clips and mesh skinbench does.
//!
//!     cargo run --release --example ozz_input -- reference /tmp/reference.skoz
//!     cargo run --release --example ozz_input -- assets/Fox/Fox.glb /tmp/fox.skoz
//!
//! How it works: the rig is imported as the app imports it (a built-in name or a glTF path),
//! and written field by field, little-endian, in the order the reader's `Load` expects
//! (version 1):
//!
//! - `SKOZ`, version `u32`, the rig size `f32` (the skinned rest pose's extent);
//! - joints: count, then per joint its parent (`i32`, -1 for a root) and rest transform
//!   (translation 3, rotation xyzw 4, scale 3 `f32`); the root count, then each root's
//!   parent transform (16 `f32`, column-major: the scene nodes above the skeleton);
//! - clips: count, then per clip its duration and per joint three tracks (translation,
//!   rotation, scale): key count (0: the rest value), then time and value per key.
//!   ozz-animation interpolates keys linearly: a cubic spline's keys are written as their
//!   values and a step track's as they are, so such clips cost the same but move a little
//!   differently from skinbench's;
//! - the palette: count, then per entry its joint (`u32`) and `joint_from_bind` (16 `f32`,
//!   column-major);
//! - vertices: count, then per vertex position 3, normal 3, influence count (`u32`), 8
//!   palette indices (`u16`) and 8 weights (`f32`);
//! - a check: the clip, the time and the f64 oracle's skinned positions of every vertex
//!   at that time (`f64` each), which the reader compares its own instance 0 with.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use skinbench::prepare::PreparedRig;
use skinbench::rig::generate::BuiltInRig;
use skinbench::rig::{NO_PARENT, Rig, Track};

/// The clip and time the check poses the rig at: mid-clip, between keys.
const CHECK_CLIP: usize = 0;
const CHECK_TIME_SECS: f32 = 0.37;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rig_arg, out_path] = args.as_slice() else {
        bail!("usage: ozz_input <reference | twist | path to a .gltf/.glb> <output file>");
    };
    let (rig, prepared) = match BuiltInRig::from_name(rig_arg) {
        Some(built_in) => {
            let (rig, _) =
                skinbench::rig::import_slice(built_in.glb(), built_in.asset_path(), None)
                    .with_context(|| format!("importing the built-in rig {rig_arg}"))?;
            (rig, PreparedRig::built_in(built_in))
        }
        None => {
            let path = Path::new(rig_arg);
            let (rig, _) = skinbench::rig::import_path(path)?;
            (rig, PreparedRig::load(path)?)
        }
    };
    if rig.clips.is_empty() {
        bail!("{rig_arg}: the rig has no clip to animate");
    }
    let mut out = Vec::new();
    write_rig(&mut out, &rig, &prepared);
    std::fs::File::create(out_path)
        .and_then(|mut f| f.write_all(&out))
        .with_context(|| format!("writing {out_path}"))?;
    println!(
        "{out_path}: {} joints, {} clips, {} palette entries, {} vertices",
        rig.skeleton.joint_count(),
        rig.clips.len(),
        rig.skeleton.palette_len(),
        rig.mesh.vertex_count()
    );
    Ok(())
}

fn write_rig(out: &mut Vec<u8>, rig: &Rig, prepared: &PreparedRig) {
    let f32s = |out: &mut Vec<u8>, values: &[f32]| {
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    let u32_ = |out: &mut Vec<u8>, v: usize| out.extend_from_slice(&(v as u32).to_le_bytes());
    out.extend_from_slice(b"SKOZ");
    u32_(out, 1);
    f32s(out, &[prepared.model_size]);

    let skeleton = &rig.skeleton;
    u32_(out, skeleton.joint_count());
    for (parent, rest) in skeleton.parents.iter().zip(&skeleton.rest_pose) {
        let parent = if *parent == NO_PARENT {
            -1
        } else {
            i32::from(*parent)
        };
        out.extend_from_slice(&parent.to_le_bytes());
        f32s(out, &rest.translation.to_array());
        f32s(out, &rest.rotation.to_array());
        f32s(out, &rest.scale.to_array());
    }
    u32_(out, skeleton.root_count);
    for m in &skeleton.model_from_root_parent {
        f32s(out, &m.to_cols_array());
    }

    u32_(out, rig.clips.len());
    for clip in &rig.clips {
        f32s(out, &[clip.duration_secs]);
        for tracks in &clip.joint_tracks {
            write_track(out, tracks.translation.as_ref(), |v| v.to_array().to_vec());
            write_track(out, tracks.rotation.as_ref(), |q| q.to_array().to_vec());
            write_track(out, tracks.scale.as_ref(), |v| v.to_array().to_vec());
        }
    }

    u32_(out, skeleton.palette_len());
    for (joint, bind) in skeleton
        .palette_joints
        .iter()
        .zip(&skeleton.joint_from_bind)
    {
        u32_(out, usize::from(*joint));
        f32s(out, &bind.to_cols_array());
    }

    let mesh = &rig.mesh;
    u32_(out, mesh.vertex_count());
    for v in 0..mesh.vertex_count() {
        f32s(out, &mesh.positions[v].to_array());
        f32s(out, &mesh.normals[v].to_array());
        u32_(out, mesh.influence_count(v));
        for j in mesh.joints[v] {
            out.extend_from_slice(&j.to_le_bytes());
        }
        f32s(out, &mesh.weights[v]);
    }

    // The check: the f64 oracle's positions at one clip and time, from the clip as the app
    // samples it.
    let mut locals = prepared.rest_pose.clone();
    skinbench::anim::sample::sample_clip(
        &prepared.clips[CHECK_CLIP],
        &prepared.rest_pose,
        CHECK_TIME_SECS,
        &mut locals,
    );
    let models = skinbench::anim::hierarchy::reference::model_from_joint(skeleton, &locals);
    let palette = skinbench::anim::hierarchy::reference::palette(skeleton, &models);
    let (positions, _) = skinbench::skin::reference::skin(mesh, &palette);
    u32_(out, CHECK_CLIP);
    f32s(out, &[CHECK_TIME_SECS]);
    for p in positions {
        for c in p.to_array() {
            out.extend_from_slice(&c.to_le_bytes());
        }
    }
}

/// One track: its key count, then time and value per key; a cubic spline's keys as their
/// values (glTF stores in-tangent, value, out-tangent per key).
fn write_track<T: Copy>(
    out: &mut Vec<u8>,
    track: Option<&Track<T>>,
    values: impl Fn(T) -> Vec<f32>,
) {
    let Some(track) = track else {
        out.extend_from_slice(&0u32.to_le_bytes());
        return;
    };
    let per_key = track.values.len() / track.times_secs.len().max(1);
    let middle = per_key / 2;
    out.extend_from_slice(&(track.times_secs.len() as u32).to_le_bytes());
    for (k, time) in track.times_secs.iter().enumerate() {
        out.extend_from_slice(&time.to_le_bytes());
        for v in values(track.values[k * per_key + middle]) {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}
