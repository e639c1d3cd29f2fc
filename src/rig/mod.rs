//! The rig: skeleton, skinned mesh and animation clips, as imported from glTF.
//!
//! How it works: [`import`] reads a glTF 2.0 file into a [`Rig`]. The rig is a plain,
//! validated description of the asset (joint order rebuilt parents-first, at most four
//! influences per vertex, finite numbers everywhere); it knows nothing about the runtime
//! layouts, which `prepare` derives from it. [`generate`] builds the project's own
//! reference rig and [`glb`] writes a rig back out as a binary glTF file.

pub mod generate;
pub mod glb;
pub mod import;
pub mod materials;
pub mod scale;

use glam::{DMat4, DVec3, Mat4, Quat, Vec2, Vec3};

pub use import::{ImportError, ImportReport, import_path, import_slice};

/// Parent index of a root joint.
pub const NO_PARENT: u16 = u16::MAX;

/// Joint indices are `u16` with [`NO_PARENT`] reserved, so a skeleton holds at most this many.
pub const MAX_JOINTS: usize = u16::MAX as usize;

/// A local transform: translation, rotation and (possibly non-uniform) scale, applied as
/// `T * R * S` like a glTF node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Transform {
    pub const IDENTITY: Transform = Transform {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// The joint hierarchy. Joints are ordered so that every parent comes before its
/// children: all roots first, then each root's subtree depth-first. That order lets every
/// hierarchy pass be one forward loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    /// Joint names (glTF node names, or `joint_<node index>` when unnamed).
    pub names: Vec<String>,
    /// `parents[i] < i`, or [`NO_PARENT`] for the first `root_count` joints.
    pub parents: Vec<u16>,
    /// Number of root joints; joints `0..root_count` are exactly the roots.
    pub root_count: usize,
    /// The transform of every root's non-joint ancestors (the glTF scene nodes above the
    /// skeleton), folded in once so that the pose is in the mesh's model space.
    /// Length `root_count`. May carry shear (non-uniform scale under rotation).
    pub model_from_root_parent: Vec<Mat4>,
    /// The rest (node) transform of each joint, used where a clip has no channel.
    pub rest_pose: Vec<Transform>,
    /// The joint each skinning-palette entry follows (see [`Skeleton::palette_len`]).
    pub palette_joints: Vec<u16>,
    /// Each palette entry's inverse bind matrix: bind-pose model space to joint space.
    pub joint_from_bind: Vec<Mat4>,
}

impl Skeleton {
    pub fn joint_count(&self) -> usize {
        self.parents.len()
    }

    /// Number of joints on the longest root-to-leaf path (a lone root has depth 1).
    pub fn max_depth(&self) -> usize {
        let mut depth = vec![0usize; self.joint_count()];
        let mut max = 0;
        for i in 0..self.joint_count() {
            let p = self.parents[i];
            depth[i] = if p == NO_PARENT {
                1
            } else {
                depth[p as usize] + 1
            };
            max = max.max(depth[i]);
        }
        max
    }

    /// Entries of the skinning palette: entry `e` is
    /// `model_from_joint[palette_joints[e]] * joint_from_bind[e]`, and a vertex's joint
    /// indices name entries. The first [`Skeleton::joint_count`] entries are the joints
    /// themselves, in order (`palette_joints[j] == j`), each with the inverse bind matrix
    /// of the first skin that lists it (identity for a joint no skin lists); after them
    /// come the further distinct (joint, inverse bind) pairs: a joint that two skins bind
    /// differently, or a mesh hung on a skin joint (identity). Identical pairs are one
    /// entry, so many skins over one skeleton cost one palette.
    pub fn palette_len(&self) -> usize {
        self.palette_joints.len()
    }

    /// A palette of one entry per joint, the `i`-th with `joint_from_bind[i]`.
    pub fn palette_per_joint(joint_count: usize) -> Vec<u16> {
        (0..joint_count as u16).collect()
    }

    /// Children count per joint (handy for "has children" checks).
    pub fn child_counts(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.joint_count()];
        for &p in &self.parents {
            if p != NO_PARENT {
                counts[p as usize] += 1;
            }
        }
        counts
    }
}

/// Influences a vertex may keep: glTF's two sets (JOINTS_0/WEIGHTS_0, JOINTS_1/WEIGHTS_1).
pub const MAX_INFLUENCES: usize = 8;

/// The skinned mesh, all primitives merged, in the file's vertex order.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    /// Up to eight joints per vertex, heaviest first; unused slots hold joint 0 with weight 0.
    pub joints: Vec<[u16; MAX_INFLUENCES]>,
    /// Weights matching `joints`, summing to 1, sorted descending, zeros last.
    pub weights: Vec<[f32; MAX_INFLUENCES]>,
    /// Triangle list.
    pub indices: Vec<u32>,
}

impl Mesh {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Number of non-zero weights of a vertex (1..=8).
    pub fn influence_count(&self, vertex: usize) -> usize {
        self.weights[vertex]
            .iter()
            .filter(|&&w| w > 0.0)
            .count()
            .max(1)
    }

    /// Vertices with 1, 2, … 8 influences.
    pub fn influence_histogram(&self) -> [usize; MAX_INFLUENCES] {
        let mut histogram = [0usize; MAX_INFLUENCES];
        for v in 0..self.vertex_count() {
            histogram[self.influence_count(v) - 1] += 1;
        }
        histogram
    }

    /// The largest number of influences any vertex has.
    pub fn max_influences(&self) -> usize {
        (0..self.vertex_count())
            .map(|v| self.influence_count(v))
            .max()
            .unwrap_or(1)
    }

    /// The same mesh with each vertex cut to its `max` heaviest influences (1..=8),
    /// renormalised to sum to 1; the number of vertices that lost any.
    pub fn reduced_to(&self, max: usize) -> (Mesh, usize) {
        let max = max.clamp(1, MAX_INFLUENCES);
        let mut reduced = self.clone();
        let mut cut = 0;
        for (joints, weights) in reduced.joints.iter_mut().zip(&mut reduced.weights) {
            if weights[max..].iter().all(|&w| w == 0.0) {
                continue;
            }
            cut += 1;
            let kept: f32 = weights[..max].iter().sum();
            for k in 0..MAX_INFLUENCES {
                if k < max {
                    weights[k] /= kept;
                } else {
                    weights[k] = 0.0;
                    joints[k] = 0;
                }
            }
        }
        (reduced, cut)
    }

    /// Axis-aligned bounds of the bind-pose positions.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let mut min = Vec3::splat(f32::INFINITY);
        let mut max = Vec3::splat(f32::NEG_INFINITY);
        for p in &self.positions {
            min = min.min(*p);
            max = max.max(*p);
        }
        if self.positions.is_empty() {
            (Vec3::ZERO, Vec3::ZERO)
        } else {
            (min, max)
        }
    }
}

/// How a track interpolates between its keys (glTF sampler interpolation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Interpolation {
    Step,
    Linear,
    CubicSpline,
}

impl Interpolation {
    pub fn name(self) -> &'static str {
        match self {
            Interpolation::Step => "STEP",
            Interpolation::Linear => "LINEAR",
            Interpolation::CubicSpline => "CUBICSPLINE",
        }
    }
}

/// One animated property of one joint. For `CubicSpline`, `values` holds three entries per
/// key (in-tangent, value, out-tangent) as glTF stores them; otherwise one per key.
#[derive(Clone, Debug, PartialEq)]
pub struct Track<T> {
    pub interpolation: Interpolation,
    /// Strictly increasing key times in seconds.
    pub times_secs: Vec<f32>,
    pub values: Vec<T>,
}

impl<T> Track<T> {
    pub fn key_count(&self) -> usize {
        self.times_secs.len()
    }
}

/// The channels of one joint in one clip; `None` means the joint keeps its rest value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointTracks {
    pub translation: Option<Track<Vec3>>,
    pub rotation: Option<Track<Quat>>,
    pub scale: Option<Track<Vec3>>,
}

/// An animation clip: per-joint tracks, looping over `0..duration_secs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    pub name: String,
    pub duration_secs: f32,
    /// One entry per skeleton joint.
    pub joint_tracks: Vec<JointTracks>,
}

impl Clip {
    /// Number of animated (joint, property) channels.
    pub fn channel_count(&self) -> usize {
        self.joint_tracks
            .iter()
            .map(|t| {
                t.translation.is_some() as usize
                    + t.rotation.is_some() as usize
                    + t.scale.is_some() as usize
            })
            .sum()
    }

    /// The interpolation modes used by this clip, sorted and deduplicated.
    pub fn interpolations(&self) -> Vec<Interpolation> {
        let mut modes: Vec<Interpolation> = self
            .joint_tracks
            .iter()
            .flat_map(|t| {
                [
                    t.translation.as_ref().map(|t| t.interpolation),
                    t.rotation.as_ref().map(|t| t.interpolation),
                    t.scale.as_ref().map(|t| t.interpolation),
                ]
            })
            .flatten()
            .collect();
        modes.sort();
        modes.dedup();
        modes
    }
}

/// A complete animated character.
#[derive(Clone, Debug, PartialEq)]
pub struct Rig {
    pub skeleton: Skeleton,
    pub mesh: Mesh,
    pub clips: Vec<Clip>,
    /// The file's base colours (none for a rig built in code).
    pub materials: materials::Materials,
}

/// Why a rig built by hand is not one the rest of the program can run: the first broken
/// promise of [`Skeleton`] or [`Clip`] found (the importer keeps every one of them; the
/// mesh's are checked where it is prepared).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RigError {
    #[error("the skeleton has {0} joints; at most {MAX_JOINTS} are allowed")]
    TooManyJoints(usize),
    #[error("{what} holds {given} entries; the skeleton needs {needed}")]
    Length {
        what: &'static str,
        given: usize,
        needed: usize,
    },
    #[error(
        "joint {joint}'s parent is {parent}: joints 0..{roots} must be the roots and every \
         other joint's parent must come before it"
    )]
    Parent {
        joint: usize,
        parent: u16,
        roots: usize,
    },
    #[error(
        "palette entry {entry} follows joint {joint}: the palette starts with one entry per \
         joint in order, and every entry names one of the {joints} joints"
    )]
    Palette {
        entry: usize,
        joint: u16,
        joints: usize,
    },
    #[error("clip {clip}, joint {joint}: {what}")]
    Track {
        clip: usize,
        joint: usize,
        what: String,
    },
}

impl Skeleton {
    /// Checks the promises this type's fields document (see [`RigError`]).
    pub fn check(&self) -> Result<(), RigError> {
        let joints = self.joint_count();
        if joints > MAX_JOINTS {
            return Err(RigError::TooManyJoints(joints));
        }
        let length = |what, given, needed| {
            if given == needed {
                Ok(())
            } else {
                Err(RigError::Length {
                    what,
                    given,
                    needed,
                })
            }
        };
        length("names", self.names.len(), joints)?;
        length("rest_pose", self.rest_pose.len(), joints)?;
        length(
            "model_from_root_parent",
            self.model_from_root_parent.len(),
            self.root_count.min(joints),
        )?;
        length(
            "joint_from_bind",
            self.joint_from_bind.len(),
            self.palette_joints.len(),
        )?;
        for (joint, &parent) in self.parents.iter().enumerate() {
            let root = joint < self.root_count;
            if root != (parent == NO_PARENT) || (!root && parent as usize >= joint) {
                return Err(RigError::Parent {
                    joint,
                    parent,
                    roots: self.root_count,
                });
            }
        }
        if self.root_count > joints {
            return Err(RigError::Length {
                what: "root_count",
                given: self.root_count,
                needed: joints,
            });
        }
        for (entry, &joint) in self.palette_joints.iter().enumerate() {
            let in_order = entry >= joints || joint as usize == entry;
            if !in_order || joint as usize >= joints {
                return Err(RigError::Palette {
                    entry,
                    joint,
                    joints,
                });
            }
        }
        if self.palette_joints.len() < joints {
            return Err(RigError::Length {
                what: "palette_joints",
                given: self.palette_joints.len(),
                needed: joints,
            });
        }
        Ok(())
    }
}

impl<T> Track<T> {
    /// Why the track breaks its promises (keys, strictly increasing finite times, values
    /// per key), or `None`.
    fn fault(&self) -> Option<String> {
        let keys = self.key_count();
        let per_key = if self.interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        if keys == 0 {
            Some("a track has no keys".into())
        } else if self.values.len() != keys * per_key {
            Some(format!(
                "{} values for {keys} keys of {} interpolation",
                self.values.len(),
                self.interpolation.name()
            ))
        } else if !self.times_secs.iter().all(|t| t.is_finite() && *t >= 0.0)
            || self.times_secs.windows(2).any(|w| w[1] <= w[0])
        {
            Some("key times are not finite, non-negative and strictly increasing".into())
        } else {
            None
        }
    }
}

impl Rig {
    /// Checks the skeleton's and the clips' promises: what the preparation step relies on
    /// before it derives the runtime layouts (the mesh is checked there).
    pub fn check(&self) -> Result<(), RigError> {
        self.skeleton.check()?;
        let joints = self.skeleton.joint_count();
        for (c, clip) in self.clips.iter().enumerate() {
            if clip.joint_tracks.len() != joints {
                return Err(RigError::Length {
                    what: "a clip's joint_tracks",
                    given: clip.joint_tracks.len(),
                    needed: joints,
                });
            }
            if !(clip.duration_secs.is_finite() && clip.duration_secs >= 0.0) {
                return Err(RigError::Track {
                    clip: c,
                    joint: 0,
                    what: format!("duration {} s", clip.duration_secs),
                });
            }
            for (joint, t) in clip.joint_tracks.iter().enumerate() {
                let fault = t
                    .translation
                    .as_ref()
                    .and_then(Track::fault)
                    .or_else(|| t.rotation.as_ref().and_then(Track::fault))
                    .or_else(|| t.scale.as_ref().and_then(Track::fault));
                if let Some(what) = fault {
                    return Err(RigError::Track {
                        clip: c,
                        joint,
                        what,
                    });
                }
            }
        }
        Ok(())
    }

    /// The character's size in model space, the space every skinning path writes: the
    /// diagonal of the box around its rest pose skinned (linear blend, f64; the vertices its
    /// triangles use). Every "of the rig size" figure and tolerance divides by it, so they do not move with a file's
    /// export units: a mesh in centimetres under an armature scaled by 0.01 is as large
    /// here as the same character exported in metres. The bind mesh's own box is in the
    /// file's units and says nothing about that (Mixamo's 264 for a 1.8 m character).
    /// Where the rest pose folds the mesh to a point (every joint scaled to nothing), the
    /// bind mesh's diagonal stands in, and a mesh of one point is
    /// [`f32::MIN_POSITIVE`] large.
    pub fn model_size(&self) -> f32 {
        let skeleton = &self.skeleton;
        let mut model_from_joint: Vec<DMat4> = Vec::with_capacity(skeleton.joint_count());
        for (j, (&parent, rest)) in skeleton.parents.iter().zip(&skeleton.rest_pose).enumerate() {
            let local = DMat4::from_scale_rotation_translation(
                rest.scale.as_dvec3(),
                rest.rotation.as_dquat(),
                rest.translation.as_dvec3(),
            );
            let parent_matrix = match parent {
                NO_PARENT => skeleton
                    .model_from_root_parent
                    .get(j)
                    .map_or(DMat4::IDENTITY, Mat4::as_dmat4),
                p => model_from_joint[usize::from(p)],
            };
            model_from_joint.push(parent_matrix * local);
        }
        let palette: Vec<DMat4> = skeleton
            .palette_joints
            .iter()
            .zip(&skeleton.joint_from_bind)
            .map(|(&joint, b)| {
                model_from_joint
                    .get(usize::from(joint))
                    .map_or(DMat4::IDENTITY, |m| *m * b.as_dmat4())
            })
            .collect();
        let mut min = DVec3::INFINITY;
        let mut max = DVec3::NEG_INFINITY;
        let mesh = &self.mesh;
        // What is drawn: the vertices a triangle uses (all of them for a mesh without
        // triangles), not those a file carries unused.
        let mut drawn = vec![mesh.indices.is_empty(); mesh.vertex_count()];
        for &v in &mesh.indices {
            if let Some(d) = drawn.get_mut(v as usize) {
                *d = true;
            }
        }
        for (((p, joints), weights), _) in mesh
            .positions
            .iter()
            .zip(&mesh.joints)
            .zip(&mesh.weights)
            .zip(&drawn)
            .filter(|(_, drawn)| **drawn)
        {
            let bind = p.as_dvec3();
            let mut skinned = DVec3::ZERO;
            for (&e, &w) in joints.iter().zip(weights) {
                if w != 0.0
                    && let Some(m) = palette.get(usize::from(e))
                {
                    skinned += f64::from(w) * m.transform_point3(bind);
                }
            }
            min = min.min(skinned);
            max = max.max(skinned);
        }
        let skinned = (max - min).length();
        if skinned.is_finite() && skinned as f32 > 0.0 {
            return skinned as f32;
        }
        let (min, max) = self.mesh.bounds();
        (max - min).length().max(f32::MIN_POSITIVE)
    }
}

/// The facts `skinbench inspect` prints about a rig.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RigSummary {
    pub joints: usize,
    pub max_depth: usize,
    /// Entries of the skinning palette: one per distinct (joint, inverse bind matrix).
    pub palette_entries: usize,
    pub vertices: usize,
    pub triangles: usize,
    /// Vertices with 1, 2, … 8 influences, as imported (before `prepare` cuts them to
    /// the kernels' four).
    pub influences: [usize; MAX_INFLUENCES],
    pub reduced_influences: usize,
    pub renormalized_weights: usize,
    pub bounds_min: [f32; 3],
    pub bounds_max: [f32; 3],
    /// [`Rig::model_size`].
    pub model_size: f32,
    pub clips: Vec<ClipSummary>,
    /// Joints whose rest or animated scale is non-uniform: their normals need each joint's
    /// normal matrix, not the position matrix.
    pub nonuniform_scale_joints: Vec<String>,
    /// The file's materials: base colour factor, texture, vertices covered.
    pub materials: Vec<materials::MaterialSummary>,
    pub report: ImportReport,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClipSummary {
    pub name: String,
    pub duration_secs: f32,
    pub channels: usize,
    pub interpolations: Vec<Interpolation>,
}

impl RigSummary {
    pub fn new(rig: &Rig, report: &ImportReport) -> Self {
        let (min, max) = rig.mesh.bounds();
        RigSummary {
            joints: rig.skeleton.joint_count(),
            max_depth: rig.skeleton.max_depth(),
            palette_entries: rig.skeleton.palette_len(),
            vertices: rig.mesh.vertex_count(),
            triangles: rig.mesh.triangle_count(),
            influences: rig.mesh.influence_histogram(),
            reduced_influences: report.reduced_influences,
            renormalized_weights: report.renormalized_weights,
            bounds_min: min.to_array(),
            bounds_max: max.to_array(),
            model_size: rig.model_size(),
            clips: rig
                .clips
                .iter()
                .map(|c| ClipSummary {
                    name: c.name.clone(),
                    duration_secs: c.duration_secs,
                    channels: c.channel_count(),
                    interpolations: c.interpolations(),
                })
                .collect(),
            nonuniform_scale_joints: nonuniform_scale_joints(rig),
            materials: rig.materials.summaries(rig.mesh.vertex_count()),
            report: report.clone(),
        }
    }

    /// The whole character in one line, as the panel shows it: joints, the skins and
    /// attached meshes it gathers (where there is more than one skin or any attached
    /// mesh), vertices and triangles.
    pub fn character_line(&self) -> String {
        let skins = self.report.skins.iter().filter(|s| s.merged).count();
        let attached = self.report.attached_meshes.len();
        let parts = match (skins, attached) {
            (0 | 1, 0) => String::new(),
            (s, 0) => format!("{s} skins, "),
            (s, a) => format!(
                "{s} skin{}, {a} attached mesh{}, ",
                if s == 1 { "" } else { "s" },
                if a == 1 { "" } else { "es" }
            ),
        };
        format!(
            "{} joints, {parts}{} vertices, {} triangles",
            self.joints, self.vertices, self.triangles
        )
    }

    /// Human-readable multi-line summary.
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let percent = |n: usize| 100.0 * n as f64 / self.vertices.max(1) as f64;
        let _ = writeln!(
            s,
            "joints:        {} (max depth {})",
            self.joints, self.max_depth
        );
        let _ = writeln!(
            s,
            "palette:       {} entries (for {} joint and inverse bind pairs the skins and attached meshes bind)",
            self.palette_entries, self.report.skin_bindings
        );
        let _ = writeln!(s, "vertices:      {}", self.vertices);
        let _ = writeln!(s, "triangles:     {}", self.triangles);
        let _ = writeln!(
            s,
            "bounds:        [{:.3}, {:.3}, {:.3}] .. [{:.3}, {:.3}, {:.3}] (the bind mesh, the file's units)",
            self.bounds_min[0],
            self.bounds_min[1],
            self.bounds_min[2],
            self.bounds_max[0],
            self.bounds_max[1],
            self.bounds_max[2]
        );
        let _ = writeln!(
            s,
            "size:          {:.4} model units (the rest pose skinned, its box's diagonal: every \
             \"of the rig size\" figure and tolerance is relative to it)",
            self.model_size
        );
        let _ = writeln!(
            s,
            "influences:    1: {} ({:.1} %)  2: {} ({:.1} %)  3: {} ({:.1} %)  4: {} ({:.1} %)",
            self.influences[0],
            percent(self.influences[0]),
            self.influences[1],
            percent(self.influences[1]),
            self.influences[2],
            percent(self.influences[2]),
            self.influences[3],
            percent(self.influences[3])
        );
        if self.influences[4..].iter().any(|&n| n > 0) {
            let _ = writeln!(
                s,
                "               5: {} ({:.1} %)  6: {} ({:.1} %)  7: {} ({:.1} %)  8: {} ({:.1} %)",
                self.influences[4],
                percent(self.influences[4]),
                self.influences[5],
                percent(self.influences[5]),
                self.influences[6],
                percent(self.influences[6]),
                self.influences[7],
                percent(self.influences[7])
            );
        }
        let _ = writeln!(
            s,
            "reduced from more than 8 influences: {}",
            self.reduced_influences
        );
        let _ = writeln!(
            s,
            "renormalized weights:                {}",
            self.renormalized_weights
        );
        let _ = writeln!(
            s,
            "unweighted (bound to the first root): {}",
            self.report.unweighted_vertices
        );
        let _ = writeln!(
            s,
            "a joint listed twice (weights added): {}",
            self.report.repeated_joint_vertices
        );
        let _ = writeln!(s, "clips:         {}", self.clips.len());
        for c in &self.clips {
            let modes: Vec<&str> = c.interpolations.iter().map(|m| m.name()).collect();
            let _ = writeln!(
                s,
                "  {:<24} {:>7.3} s  {:>4} channels  {}",
                c.name,
                c.duration_secs,
                c.channels,
                modes.join(", ")
            );
        }
        match self.nonuniform_scale_joints.len() {
            0 => {
                let _ = writeln!(s, "non-uniform scale:   none");
            }
            n => {
                let shown: Vec<&str> = self
                    .nonuniform_scale_joints
                    .iter()
                    .take(5)
                    .map(String::as_str)
                    .collect();
                let _ = writeln!(
                    s,
                    "non-uniform scale:   {n} joints ({}{}); their normals need the joints' normal \
                     matrices",
                    shown.join(", "),
                    if n > shown.len() { ", ..." } else { "" }
                );
            }
        }
        let _ = writeln!(s, "materials:     {}", self.materials.len());
        for m in &self.materials {
            let [r, g, b, a] = m.base_color_factor;
            let texture = match &m.texture {
                Some((name, width, height)) => format!("texture {name} ({width}×{height})"),
                None => "no texture".to_string(),
            };
            let _ = writeln!(
                s,
                "  {:<24} {:>7} vertices  base colour ({r:.3}, {g:.3}, {b:.3}, {a:.3}), {texture}",
                m.name, m.vertices
            );
        }
        if !self.report.animated_ancestors.is_empty() {
            let _ = writeln!(
                s,
                "animated ancestors:  {} (became joints)",
                self.report.animated_ancestors.join(", ")
            );
        }
        let _ = writeln!(
            s,
            "ignored channels:    {} on nodes that are neither joints nor ancestors of the skeleton, \
             {} morph-target weights",
            self.report.ignored_node_channels, self.report.ignored_morph_channels
        );
        let merged = self.report.skins.iter().filter(|k| k.merged).count();
        for k in &self.report.skins {
            let nodes: Vec<String> = k.mesh_nodes.iter().map(|n| n.to_string()).collect();
            let status = match (&k.left_out, merged) {
                (Some(why), _) => format!("left out: {why}"),
                (None, 1) => "the character's skin".to_string(),
                (None, _) => format!("merged (one of {merged})"),
            };
            let _ = writeln!(
                s,
                "skin {:<4}       {:>5} joints {:>7} vertices (mesh nodes {})  {status}",
                k.skin,
                k.joints,
                k.vertices,
                nodes.join(", ")
            );
        }
        for m in &self.report.attached_meshes {
            let _ = writeln!(
                s,
                "attached mesh:  node {} {:?}, {} vertices, rigid on joint {}",
                m.node, m.name, m.vertices, m.joint
            );
        }
        for m in &self.report.left_out_meshes {
            let _ = writeln!(
                s,
                "left-out mesh:  node {} {:?}, {} vertices: {}",
                m.node, m.name, m.vertices, m.reason
            );
        }
        for note in &self.report.notes {
            let _ = writeln!(s, "note: {note}");
        }
        s
    }
}

/// Names of the joints whose rest scale or any scale key is non-uniform beyond float
/// noise ([`scale::ScaleNoise::nonuniform_joints`]).
fn nonuniform_scale_joints(rig: &Rig) -> Vec<String> {
    scale::ScaleNoise::of(&rig.skeleton, &rig.clips)
        .nonuniform_joints(&rig.skeleton)
        .into_iter()
        .map(|j| rig.skeleton.names[j].clone())
        .collect()
}

impl From<&Transform> for crate::types::Qvs {
    fn from(t: &Transform) -> Self {
        crate::types::Qvs {
            rotation: t.rotation,
            translation: t.translation.into(),
            scale: t.scale.into(),
        }
    }
}
