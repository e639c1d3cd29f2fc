//! What a rig's measurements depend on, as one hash: the key under which they are kept on
//! disk (`cache`).
//!
//! How it works: the skeleton (parents, folded root transforms, rest pose, palette joints,
//! inverse binds), the mesh as it is skinned (after any `--max-influences` cut: positions,
//! normals, joints, weights, triangles) and every clip (duration, and each track's
//! interpolation, key times and values) are fed, bit for bit, into two hashers started
//! apart: 128 bits, so that two rigs sharing a key is not a case to think about. Names and
//! materials change no measurement and are left out; the code that measures is keyed
//! separately (the build's source hash).

use std::hash::{Hash, Hasher};

use crate::rig::{Clip, Mesh, Skeleton, Track};

/// The 128-bit content hash of a rig ([`ContentHash::of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ContentHash(pub [u64; 2]);

impl ContentHash {
    /// The hash of what `skeleton`, `mesh` and `clips` hold (see the module docs).
    pub fn of(skeleton: &Skeleton, mesh: &Mesh, clips: &[Clip]) -> Self {
        let mut hashers = [
            std::collections::hash_map::DefaultHasher::new(),
            std::collections::hash_map::DefaultHasher::new(),
        ];
        // Two hashers started from different states: two independent 64-bit halves.
        0xa5a5_u16.hash(&mut hashers[1]);
        for h in &mut hashers {
            feed(h, skeleton, mesh, clips);
        }
        ContentHash(hashers.map(|h| h.finish()))
    }

    /// The hash as 32 hex digits (a file name).
    pub fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.0[0], self.0[1])
    }
}

fn bytes<T: bytemuck::Pod>(h: &mut impl Hasher, values: &[T]) {
    values.len().hash(h);
    h.write(bytemuck::cast_slice(values));
}

fn feed(h: &mut impl Hasher, skeleton: &Skeleton, mesh: &Mesh, clips: &[Clip]) {
    bytes(h, &skeleton.parents);
    skeleton.root_count.hash(h);
    bytes(h, &skeleton.model_from_root_parent);
    for t in &skeleton.rest_pose {
        bytes(h, &[t.translation, t.scale]);
        bytes(h, &[t.rotation]);
    }
    bytes(h, &skeleton.palette_joints);
    bytes(h, &skeleton.joint_from_bind);
    bytes(h, &mesh.positions);
    bytes(h, &mesh.normals);
    bytes(h, &mesh.joints);
    bytes(h, &mesh.weights);
    bytes(h, &mesh.indices);
    clips.len().hash(h);
    for clip in clips {
        clip.duration_secs.to_bits().hash(h);
        clip.joint_tracks.len().hash(h);
        for tracks in &clip.joint_tracks {
            track(h, tracks.translation.as_ref());
            track(h, tracks.rotation.as_ref());
            track(h, tracks.scale.as_ref());
        }
    }
}

fn track<T: bytemuck::Pod>(h: &mut impl Hasher, track: Option<&Track<T>>) {
    match track {
        None => 0u8.hash(h),
        Some(t) => {
            1u8.hash(h);
            t.interpolation.hash(h);
            bytes(h, &t.times_secs);
            bytes(h, &t.values);
        }
    }
}
