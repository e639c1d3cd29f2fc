//! How far each rule for skinning normals is from the normals of the deformed surface
//! (`skinbench inspect` prints it).
//!
//! How it works: the rig is posed by the f64 oracles at times spread over each clip. At
//! every vertex the surface normal is recomputed from the triangles around it (the sum
//! of their cross products, so larger triangles weigh more; UV-seam copies welded by
//! position), once on the bind-pose mesh and once on the skinned one. Each rule then maps
//! the bind-pose surface normal by its blend of the vertex's matrices, and the angle to
//! the deformed surface normal is its error:
//!
//! - the position rule blends the joint matrices themselves (what skinning did before
//!   normal matrices, and still does for rigs where that gives the same directions);
//! - the normal-matrix rule blends each joint's normal matrix
//!   ([`crate::skin::reference::normal_matrix`]).
//!
//! Where every corner of every triangle around a vertex is bound to the same one joint,
//! the skinned surface there is that joint's affine map of the bind surface, whose
//! normals follow the normal matrix exactly: those "rigid" vertices show what a rule gets
//! wrong on its own. Elsewhere blending makes every rule an approximation; those vertices
//! are reported apart.

use std::collections::HashMap;

use glam::{DMat3, DMat4, DVec3};

use crate::anim::hierarchy::reference;
use crate::anim::sample::sample_clip;
use crate::prepare::PreparedRig;
use crate::rig::Mesh;
use crate::skin::SkinMethod;
use crate::skin::layout::NormalEncoding;
use crate::skin::reference::{normal_matrix, skin};
use crate::types::{pack_normal, pack_scaled_normal, unpack_normal};

/// Poses per clip the angles are taken over.
pub const POSES_PER_CLIP: usize = 8;

/// One rule's angles to the deformed surface normals, degrees.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct RuleAngles {
    pub median_deg: f64,
    pub max_deg: f64,
}

impl RuleAngles {
    fn of(mut angles: Vec<f64>) -> Self {
        if angles.is_empty() {
            return RuleAngles::default();
        }
        angles.sort_by(f64::total_cmp);
        RuleAngles {
            median_deg: angles[angles.len() / 2],
            max_deg: angles[angles.len() - 1],
        }
    }
}

/// Both rules on one class of vertices.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ClassAngles {
    /// Distinct (welded) vertices in the class.
    pub vertices: usize,
    pub position_rule: RuleAngles,
    pub normal_matrix_rule: RuleAngles,
}

/// The angles of both rules over every clip's poses.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct NormalAngles {
    /// Vertices whose surrounding triangles are all bound to one joint (exact there).
    pub rigid: ClassAngles,
    /// Every other vertex (blended: both rules approximate).
    pub blended: ClassAngles,
    /// Poses measured (every clip at [`POSES_PER_CLIP`] times, or the rest pose).
    pub poses: usize,
    /// What packing costs the skinned normals' directions, where the packed kernels pack
    /// them at a fixed scale ([`NormalEncoding::Scaled`]).
    pub packed: Option<PackedAngles>,
}

/// The largest angle between a skinned normal (linear blend of the palette matrices, in
/// f64) and its packed unorm10 bits unpacked, over every vertex and pose.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct PackedAngles {
    /// Packed at the fixed scale, as the lane kernels do.
    pub scaled_max_deg: f64,
    /// Normalised first (the encoding the kernels had before, and use with own normal
    /// matrices).
    pub normalised_max_deg: f64,
    /// The shortest skinned normal as a share of the bound (where it keeps the fewest
    /// bits of its direction).
    pub shortest_share: f64,
}

/// A mesh's vertices welded by bind position (UV-seam copies are one surface point).
pub struct Welded {
    /// The welded vertex of each mesh vertex.
    pub index: Vec<usize>,
    /// The first mesh vertex of each welded vertex.
    pub representative: Vec<usize>,
    /// Whether every corner of every triangle around the welded vertex has one
    /// influence, all the same joint (there the skinned surface is that joint's affine map).
    pub rigid: Vec<bool>,
}

impl Welded {
    pub fn new(mesh: &Mesh) -> Self {
        let mut first_at: HashMap<[u32; 3], usize> = HashMap::new();
        let mut index = Vec::with_capacity(mesh.vertex_count());
        let mut representative = Vec::new();
        for (v, p) in mesh.positions.iter().enumerate() {
            let next = representative.len();
            let w = *first_at
                .entry(p.to_array().map(f32::to_bits))
                .or_insert(next);
            if w == next {
                representative.push(v);
            }
            index.push(w);
        }
        let single = |v: usize| (mesh.weights[v][0] == 1.0).then_some(mesh.joints[v][0]);
        // Per welded vertex: not yet seen, one joint for every triangle so far, or mixed.
        let mut joint: Vec<Option<Option<u16>>> = vec![None; representative.len()];
        for t in mesh.indices.chunks_exact(3) {
            let corners = [t[0], t[1], t[2]].map(|i| i as usize);
            let triangle =
                single(corners[0]).filter(|&j| corners.iter().all(|&c| single(c) == Some(j)));
            for c in corners {
                let seen = &mut joint[index[c]];
                *seen = match *seen {
                    None => Some(triangle),
                    Some(previous) if previous == triangle => Some(triangle),
                    Some(_) => Some(None),
                };
            }
        }
        Welded {
            index,
            representative,
            rigid: joint.iter().map(|j| matches!(j, Some(Some(_)))).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.representative.len()
    }

    pub fn is_empty(&self) -> bool {
        self.representative.is_empty()
    }

    /// The surface normal at each welded vertex: the sum of the cross products of the
    /// triangles around it (zero where they cancel or there are none).
    pub fn surface_normals(&self, positions: &[DVec3], indices: &[u32]) -> Vec<DVec3> {
        let mut normals = vec![DVec3::ZERO; self.len()];
        for t in indices.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
            let face = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
            for v in [a, b, c] {
                normals[self.index[v]] += face;
            }
        }
        normals
    }
}

/// The angle between two directions, degrees.
pub fn angle_deg(a: DVec3, b: DVec3) -> f64 {
    let (a, b) = (a.normalize(), b.normalize());
    // atan2 of the cross and dot products stays accurate near 0° and 180°.
    a.cross(b).length().atan2(a.dot(b)).to_degrees()
}

/// Measures both rules on `rig` over [`POSES_PER_CLIP`] times of every clip.
pub fn measure(rig: &PreparedRig) -> NormalAngles {
    let mesh = &rig.source_mesh;
    let welded = Welded::new(mesh);
    let bind_positions: Vec<DVec3> = mesh.positions.iter().map(|p| p.as_dvec3()).collect();
    let bind_normals = welded.surface_normals(&bind_positions, &mesh.indices);

    let mut times: Vec<(Option<usize>, f32)> = Vec::new();
    for (c, clip) in rig.clips.iter().enumerate() {
        for i in 0..POSES_PER_CLIP {
            times.push((
                Some(c),
                clip.duration_secs * (i as f32 + 0.5) / POSES_PER_CLIP as f32,
            ));
        }
    }
    if times.is_empty() {
        times.push((None, 0.0));
    }
    let mut angles: [[Vec<f64>; 2]; 2] = Default::default();
    let scaled_bound = match NormalEncoding::packed(rig, SkinMethod::Linear) {
        NormalEncoding::Scaled { bound, .. } => Some(bound.get()),
        NormalEncoding::Normalised | NormalEncoding::Floats => None,
    };
    let mut packed = scaled_bound.map(|_| PackedAngles {
        shortest_share: f64::INFINITY,
        ..PackedAngles::default()
    });
    for &(clip, time_secs) in &times {
        let mut locals = rig.rest_pose.clone();
        if let Some(c) = clip {
            sample_clip(&rig.clips[c], &rig.rest_pose, time_secs, &mut locals);
        }
        let model = reference::model_from_joint(&rig.skeleton, &locals);
        let palette: Vec<DMat4> = reference::palette(&rig.skeleton, &model);
        let normal_matrices: Vec<DMat3> = palette.iter().map(normal_matrix).collect();
        let (positions, _) = skin(mesh, &palette);
        if let (Some(bound), Some(packed)) = (scaled_bound, packed.as_mut()) {
            for v in 0..mesh.vertex_count() {
                let mut n = DVec3::ZERO;
                for k in 0..crate::rig::MAX_INFLUENCES {
                    let (j, weight) = (mesh.joints[v][k] as usize, mesh.weights[v][k] as f64);
                    n += palette[j].transform_vector3(mesh.normals[v].as_dvec3()) * weight;
                }
                if n.length() == 0.0 {
                    continue;
                }
                let scaled = unpack_normal(pack_scaled_normal(n.as_vec3(), 511.0 / bound));
                let normalised = unpack_normal(pack_normal(n.as_vec3()));
                packed.scaled_max_deg = packed.scaled_max_deg.max(angle_deg(scaled.as_dvec3(), n));
                packed.normalised_max_deg = packed
                    .normalised_max_deg
                    .max(angle_deg(normalised.as_dvec3(), n));
                packed.shortest_share = packed.shortest_share.min(n.length() / bound as f64);
            }
        }
        let skinned_normals = welded.surface_normals(&positions, &mesh.indices);
        for (w, &v) in welded.representative.iter().enumerate() {
            let (bind, skinned) = (bind_normals[w], skinned_normals[w]);
            if bind.length() == 0.0 || skinned.length() == 0.0 {
                continue;
            }
            let mut by_position = DVec3::ZERO;
            let mut by_normal_matrix = DVec3::ZERO;
            for k in 0..4 {
                let (j, weight) = (mesh.joints[v][k] as usize, mesh.weights[v][k] as f64);
                by_position += palette[j].transform_vector3(bind) * weight;
                by_normal_matrix += normal_matrices[j] * bind * weight;
            }
            let class = if welded.rigid[w] { 0 } else { 1 };
            angles[class][0].push(angle_deg(by_position, skinned));
            angles[class][1].push(angle_deg(by_normal_matrix, skinned));
        }
    }
    let count = |rigid: bool| welded.rigid.iter().filter(|&&r| r == rigid).count();
    let [
        [rigid_position, rigid_normal],
        [blended_position, blended_normal],
    ] = angles;
    NormalAngles {
        rigid: ClassAngles {
            vertices: count(true),
            position_rule: RuleAngles::of(rigid_position),
            normal_matrix_rule: RuleAngles::of(rigid_normal),
        },
        blended: ClassAngles {
            vertices: count(false),
            position_rule: RuleAngles::of(blended_position),
            normal_matrix_rule: RuleAngles::of(blended_normal),
        },
        poses: times.len(),
        packed,
    }
}

impl NormalAngles {
    /// Lines for `inspect`, after the rig's summary.
    pub fn to_text(&self, rig: &PreparedRig) -> String {
        let rule = |r: &RuleAngles| format!("median {:.2}°, max {:.2}°", r.median_deg, r.max_deg);
        let class = |name: &str, c: &ClassAngles| {
            format!(
                "  {name:<8} {:>6} vertices   position matrices: {}   normal matrices: {}\n",
                c.vertices,
                rule(&c.position_rule),
                rule(&c.normal_matrix_rule)
            )
        };
        let decision = match &rig.normal_matrix_reason {
            Some(reason) => format!("normal matrices, because {reason}"),
            None => "the position matrices (every joint skins as a rotation times one common \
                     scale, so they give the normal matrices' directions)"
                .to_string(),
        };
        let packed = match &self.packed {
            Some(p) => format!(
                "packed normals (streamed, pulled, …): at a fixed scale, not normalised: max \
                 {:.3}° off the skinned normal (normalised first: max {:.3}°); the shortest \
                 skinned normal is {:.2} of the bound\n",
                p.scaled_max_deg, p.normalised_max_deg, p.shortest_share
            ),
            None => "packed normals (streamed, pulled, …): normalised, then packed (normal \
                     matrices give normals of any length)\n"
                .to_string(),
        };
        format!(
            "normals:       skinned by {decision}\n\
             normal angles to the skinned surface ({} poses; rigid: every triangle around the \
             vertex bound to one joint):\n{}{}  \
             (rigid vertices show a rule's own error: 0° is exact. Blended ones show what linear \
             blending does to any rule: the median is typical; the max is the worst vertex at \
             the worst pose, where the surface folds — an armpit, a knee bent far — and its \
             triangles' normal turns over while the blended normal follows only partway. A \
             large max there is the skin's fold, not a broken rule; compare rules by the median.)\n\
             {packed}",
            self.poses,
            class("rigid", &self.rigid),
            class("blended", &self.blended)
        )
    }
}
