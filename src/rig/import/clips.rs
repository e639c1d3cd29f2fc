//! Animation clips: the channels that move the character's joints.
//!
//! How it works: each glTF animation becomes a clip with one set of tracks per joint;
//! channels on nodes that are not joints and morph-target weights are counted and
//! skipped. Key times must increase strictly; rotations are normalized (CUBICSPLINE
//! tangents are kept as they are). Old exporters wrote one unnamed animation per joint:
//! those are merged into one clip where they animate disjoint joints.

use glam::{Quat, Vec3};
use gltf::animation::Property;

use super::accessor::{FLOAT_VEC3, ROTATIONS, TIMES};
use super::{ImportErrorKind, Importer, Result};
use crate::rig::{Clip, Interpolation, JointTracks, Skeleton, Track};

impl Importer<'_> {
    pub(super) fn build_clips(
        &mut self,
        joint_of_node: &[Option<u16>],
        skeleton: &Skeleton,
    ) -> Result<Vec<Clip>> {
        let joint_count = skeleton.joint_count();
        let mut clips = Vec::new();
        let mut joint_sets: Vec<Vec<u16>> = Vec::new();
        let mut all_unnamed = true;
        for animation in self.document.animations() {
            let ai = animation.index();
            all_unnamed &= animation.name().is_none_or(str::is_empty);
            let mut tracks = vec![JointTracks::default(); joint_count];
            let mut duration: f32 = 0.0;
            let mut animated = Vec::new();
            for channel in animation.channels() {
                let property = channel.target().property();
                if property == Property::MorphTargetWeights {
                    self.report.ignored_morph_channels += 1;
                    continue;
                }
                let node = channel.target().node().index();
                let Some(joint) = joint_of_node[node] else {
                    self.report.ignored_node_channels += 1;
                    continue;
                };
                let sampler = channel.sampler();
                let interpolation = match sampler.interpolation() {
                    gltf::animation::Interpolation::Step => Interpolation::Step,
                    gltf::animation::Interpolation::Linear => Interpolation::Linear,
                    gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
                };
                let what = format!("animation {ai} channel {}", channel.index());
                let times =
                    self.read_finite_f32(&sampler.input(), &format!("{what} input"), &TIMES)?;
                if times.is_empty() {
                    return Err(ImportErrorKind::Invalid(format!(
                        "{what}: the sampler has no keys"
                    )));
                }
                if let Some(k) = times.windows(2).position(|w| w[1] <= w[0]) {
                    return Err(ImportErrorKind::Invalid(format!(
                        "{what}: key times are not strictly increasing at key {} ({} then {})",
                        k + 1,
                        times[k],
                        times[k + 1]
                    )));
                }
                if times[0] < 0.0 {
                    return Err(ImportErrorKind::Invalid(format!(
                        "{what}: negative key time {}",
                        times[0]
                    )));
                }
                let per_key = if interpolation == Interpolation::CubicSpline {
                    3
                } else {
                    1
                };
                let output = sampler.output();
                if output.count() != times.len() * per_key {
                    return Err(ImportErrorKind::OutOfRange {
                        what: format!("accessor {} ({what} output)", output.index()),
                        detail: format!(
                            "{} values for {} keys of {} interpolation",
                            output.count(),
                            times.len(),
                            interpolation.name()
                        ),
                    });
                }
                duration = duration.max(*times.last().expect("non-empty"));
                let output_what = format!("{what} output");
                let slot = &mut tracks[joint as usize];
                match property {
                    Property::Translation | Property::Scale => {
                        let values = self.read_finite_f32(&output, &output_what, &FLOAT_VEC3)?;
                        let track = Track {
                            interpolation,
                            times_secs: times,
                            values: values.chunks_exact(3).map(Vec3::from_slice).collect(),
                        };
                        if property == Property::Translation {
                            slot.translation = Some(track);
                        } else {
                            slot.scale = Some(track);
                        }
                    }
                    Property::Rotation => {
                        let values = self.read_finite_f32(&output, &output_what, &ROTATIONS)?;
                        let mut rotations: Vec<Quat> =
                            values.chunks_exact(4).map(Quat::from_slice).collect();
                        for (k, q) in rotations.iter_mut().enumerate() {
                            let is_tangent = per_key == 3 && k % 3 != 1;
                            if !is_tangent {
                                if q.length_squared() < 1e-12 {
                                    return Err(ImportErrorKind::Invalid(format!(
                                        "{output_what}: rotation key {} is a zero quaternion",
                                        k / per_key
                                    )));
                                }
                                *q = q.normalize();
                            }
                        }
                        slot.rotation = Some(Track {
                            interpolation,
                            times_secs: times,
                            values: rotations,
                        });
                    }
                    Property::MorphTargetWeights => unreachable!("skipped above"),
                }
                animated.push(joint);
            }
            if animated.is_empty() {
                self.report.notes.push(format!(
                    "animation {ai} animates no joint of the skeleton; skipped"
                ));
                continue;
            }
            let name = animation
                .name()
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .unwrap_or_else(|| format!("animation_{ai}"));
            animated.sort_unstable();
            animated.dedup();
            joint_sets.push(animated);
            clips.push(Clip {
                name,
                duration_secs: duration,
                joint_tracks: tracks,
            });
        }
        // Old exporters (COLLADA2GLTF) wrote one unnamed animation per joint; together they
        // are one motion, so they are merged when they animate disjoint joints.
        if clips.len() > 1 && all_unnamed && disjoint(&joint_sets) {
            let count = clips.len();
            let mut merged = Clip {
                name: "animation".into(),
                duration_secs: 0.0,
                joint_tracks: vec![JointTracks::default(); joint_count],
            };
            for clip in clips.drain(..) {
                merged.duration_secs = merged.duration_secs.max(clip.duration_secs);
                for (target, source) in merged.joint_tracks.iter_mut().zip(clip.joint_tracks) {
                    target.translation = target.translation.take().or(source.translation);
                    target.rotation = target.rotation.take().or(source.rotation);
                    target.scale = target.scale.take().or(source.scale);
                }
            }
            clips.push(merged);
            self.report.merged_animations = count;
            self.report.notes.push(format!(
                "{count} unnamed animations on disjoint joints were merged into one clip \"animation\""
            ));
        }
        for clip in &mut clips {
            // A clip whose keys all sit at t = 0 is a pose; give it a nominal length so it loops.
            if clip.duration_secs <= 0.0 {
                clip.duration_secs = 1.0;
            }
        }
        Ok(clips)
    }
}

fn disjoint(sets: &[Vec<u16>]) -> bool {
    let mut seen = std::collections::HashSet::new();
    sets.iter().flatten().all(|j| seen.insert(*j))
}
