//! A level's error between the measured poses: the distance between the full and the
//! level's surfaces bounded at every 1/[`TRACK_HZ`] s of every clip, not only at the few
//! poses the measurement takes (a long dance clip measured at 14 poses exceeded its stated
//! error by 11 % at a time between two of them).
//!
//! How it works: at each measured pose every point the distance is taken over (each full
//! vertex, and each level triangle's corners, centroid and edge midpoints) is paired with
//! its nearest point on the other surface, kept as a triangle and barycentric weights. At
//! a time between poses, skinning moves both surfaces, and each pair's partner moves with
//! its triangle: the distance from a point to its partner then is at least its distance to
//! the other surface, so the largest over the pairs bounds the surfaces' distance there,
//! at the cost of skinning the vertices and no nearest-point search (at most
//! [`TRACK_WORK`] vertices skinned in all: a very large character or very long clips are
//! tracked at a lower rate). Only the points whose bound passes both the largest distance
//! the measured poses found and the largest found so far at that time are measured
//! against the other surface itself (a partner does not slide along the surface as the
//! pose changes, so the bound overstates where the surfaces shear past each other), with
//! the tree made at the measured pose refitted to the time's surface; a point measured
//! takes its nearest point as its new partner. Every time of every clip on a
//! 1/[`TRACK_HZ`] s grid (at least [`TRACK_PER_STEP`] between two measured poses) belongs
//! to its nearest measured pose, and each pose's times are walked outward from it in two
//! sweeps, so each time's partners come from a time 1/[`TRACK_HZ`] s nearer
//! the pose and few points need measuring. The levels are posed as a character
//! drawn at them is: their held joints at rest and their influences cut.
//!
//! Most pairs need no skinning to be bounded: where a point and its partner's corners are
//! all skinned by one list of influences (the same palette entries and weights, none of
//! them under a joint the level holds), the same affine map moves all of them, so the
//! pair's distance at any time is that map's linear part applied to their distance
//! vector at bind, at most `Σ |wᵢ| ‖Lᵢ‖` times its length (each palette entry's largest
//! stretch, bounded at each time by its 3×3 part: `stretch_bound`). A pair whose bound
//! stays within `settled` is passed over; on a character whose parts each follow one joint
//! (BrainStem) that is most of them.

use glam::DVec3;

use super::joint_merges::{level_vertices, local_poses_at, skinned_mesh};
use super::mesh_lod::{Search, TriangleTree, closest_on_triangle, triangle_points};
use crate::anim::hierarchy::reference::{LocalF64, model_from_joint_f64, palette};
use crate::prepare::PreparedRig;
use crate::prepare::parallel;

/// The rate the bound is taken at between the measured poses, per second of clip.
pub const TRACK_HZ: f32 = 30.0;
/// The fewest tracked times between two measured poses.
pub const TRACK_PER_STEP: usize = 4;
/// Vertices skinned over all tracked times, at most: a character with hours of clips or
/// hundreds of thousands of vertices is tracked at a lower rate than [`TRACK_HZ`] (never
/// fewer than [`TRACK_PER_STEP`] times a step), so its load stays seconds long and a file
/// that names a clip of a million seconds allocates nothing for it.
pub const TRACK_WORK: f64 = 40e6;

/// A point paired with its nearest point on the other surface: that point's triangle
/// (three vertices of the mesh) and its weights.
#[derive(Clone, Copy)]
struct Partner {
    corners: [u32; 3],
    weights: [f64; 3],
}

impl Partner {
    fn at(&self, positions: &[DVec3]) -> DVec3 {
        self.corners
            .iter()
            .zip(self.weights)
            .map(|(&v, w)| positions[v as usize] * w)
            .sum()
    }
}

/// A pair's rigid part ([`Rigid`]): the influence list its point and its partner's
/// corners share ([`NO_GROUP`] where they do not) and the length of their difference at
/// bind.
#[derive(Clone, Copy)]
struct RigidPair {
    group: u32,
    bind_distance: f64,
}

/// Whether pairs that share one influence list are bounded by their stretch (what a load
/// does) or measured like every other pair (what a test compares it with).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RigidPairs {
    Bounded,
    Measured,
}

/// No shared influence list: the pair is measured.
const NO_GROUP: u32 = u32::MAX;

/// What the rigid pairs are bounded with: the bind positions, each vertex's influence
/// list as a group index (the full mesh's, and the level's as it is posed), and per group
/// its palette entries and weights.
struct Rigid<'a> {
    bind: &'a [DVec3],
    full_group: &'a [u32],
    level_group: &'a [u32],
}

impl Rigid<'_> {
    /// The pair of `point`, at bind `point_bind`, whose influences are group `point_group`,
    /// with `partner` on the surface whose vertex groups are `partner_groups`.
    fn pair(
        &self,
        (point_bind, point_group): (DVec3, u32),
        partner: &Partner,
        partner_groups: &[u32],
    ) -> RigidPair {
        let shared = point_group != NO_GROUP
            && partner
                .corners
                .iter()
                .all(|&c| partner_groups[c as usize] == point_group);
        if !shared {
            return RigidPair {
                group: NO_GROUP,
                bind_distance: 0.0,
            };
        }
        RigidPair {
            group: point_group,
            bind_distance: point_bind.distance(partner.at(self.bind)),
        }
    }

    /// A full vertex's pair with its partner on the level.
    fn full_pair(&self, v: u32, partner: &Partner) -> RigidPair {
        let v = v as usize;
        self.pair(
            (self.bind[v], self.full_group[v]),
            partner,
            self.level_group,
        )
    }

    /// The pairs of level triangle `t`'s seven points with their partners on the full
    /// surface.
    fn level_pairs(&self, t: &[u32], partners: &[Partner; 7]) -> [RigidPair; 7] {
        let group = self.level_group[t[0] as usize];
        let group = if t.iter().all(|&v| self.level_group[v as usize] == group) {
            group
        } else {
            NO_GROUP
        };
        let points = triangle_points([0, 1, 2].map(|k| self.bind[t[k] as usize]));
        std::array::from_fn(|k| self.pair((points[k], group), &partners[k], self.full_group))
    }
}

/// Per level triangle, the group its seven pairs share ([`NO_GROUP`] where they do not)
/// and their longest bind distance: a triangle whose bound is settled is passed over
/// whole.
fn triangle_rigid(pairs: &[RigidPair; 7]) -> RigidPair {
    let group = pairs[0].group;
    if pairs.iter().all(|p| p.group == group) {
        RigidPair {
            group,
            bind_distance: pairs.iter().map(|p| p.bind_distance).fold(0.0, f64::max),
        }
    } else {
        RigidPair {
            group: NO_GROUP,
            bind_distance: 0.0,
        }
    }
}

/// An upper bound on how far the linear part of `m` stretches any vector: the square
/// root of `LᵀL`'s largest absolute row sum (a norm induced by the max norm, which bounds
/// the largest eigenvalue); exact for a rotation times a uniform scale.
pub(crate) fn stretch_bound(m: &glam::DMat4) -> f64 {
    let l = glam::DMat3::from_mat4(*m);
    let g = l.transpose() * l;
    let row = |r: usize| g.row(r).abs().element_sum();
    row(0).max(row(1)).max(row(2)).sqrt()
}

/// The barycentric weights of `q`, a point of triangle `abc`; for a degenerate triangle,
/// the corner nearest `q` alone (a partner farther than the nearest point keeps the bound
/// an upper bound).
fn barycentric(q: DVec3, [a, b, c]: [DVec3; 3]) -> [f64; 3] {
    let (v0, v1, v2) = (b - a, c - a, q - a);
    let (d00, d01, d11) = (v0.dot(v0), v0.dot(v1), v1.dot(v1));
    let (d20, d21) = (v2.dot(v0), v2.dot(v1));
    let denom = d00 * d11 - d01 * d01;
    if denom.abs() <= f64::EPSILON * d00.max(d11).powi(2) || !denom.is_finite() {
        let nearest = [a, b, c]
            .iter()
            .enumerate()
            .min_by(|x, y| x.1.distance(q).total_cmp(&y.1.distance(q)))
            .map_or(0, |(k, _)| k);
        let mut w = [0.0; 3];
        w[nearest] = 1.0;
        return w;
    }
    let v = (d11 * d20 - d01 * d21) / denom;
    let w = (d00 * d21 - d01 * d20) / denom;
    [1.0 - v - w, v, w]
}

/// The partner of `p` on the triangles `indices` over `positions`, found with `tree`, and
/// `p`'s distance to that surface.
fn partner(
    p: DVec3,
    positions: &[DVec3],
    indices: &[u32],
    tree: &TriangleTree,
    search: &mut Search,
) -> (f64, Partner) {
    let (distance, t) = tree.nearest(p, search);
    let t = t as usize;
    let corners = [indices[3 * t], indices[3 * t + 1], indices[3 * t + 2]];
    let abc = corners.map(|v| positions[v as usize]);
    let q = closest_on_triangle(p, abc[0], abc[1], abc[2]);
    (
        distance,
        Partner {
            corners,
            weights: barycentric(q, abc),
        },
    )
}

/// One level's pairs at one measured pose: each full vertex's partner on the level's
/// surface, and each level triangle's seven points' partners on the full surface.
#[derive(Clone)]
struct Pairs {
    full_vertices: Vec<(u32, Partner)>,
    level_points: Vec<[Partner; 7]>,
    full_rigid: Vec<RigidPair>,
    level_rigid: Vec<[RigidPair; 7]>,
    triangle_rigid: Vec<RigidPair>,
    /// The level's tree made at the measured pose, refitted at each tracked time that
    /// needs one (a new tree a time cost most of the measurement).
    level_tree: TriangleTree,
}

/// The full surface's tree made at a measured pose, refitted at most once a tracked time
/// (every level's search shares it).
#[derive(Clone)]
struct FullTree {
    tree: TriangleTree,
    fitted: bool,
}

impl FullTree {
    /// The tree fitted to `positions`, the time's full mesh.
    fn at(&mut self, positions: &[DVec3], indices: &[u32]) -> &TriangleTree {
        if !self.fitted {
            self.tree.refit(positions, indices);
            self.fitted = true;
        }
        &self.tree
    }
}

impl Pairs {
    /// The pairs at a pose where the full mesh's vertices are at `full` and the level's
    /// (held and cut) at `level_positions`.
    fn new(
        (full, full_indices, full_tree): (&[DVec3], &[u32], &TriangleTree),
        level_positions: &[DVec3],
        level: &[u32],
        rigid: &Rigid<'_>,
    ) -> Self {
        let level_tree = TriangleTree::new(level_positions, level);
        let mut search = Search::default();
        let mut used = vec![false; full.len()];
        for &v in full_indices {
            used[v as usize] = true;
        }
        let full_vertices: Vec<(u32, Partner)> = (0..full.len() as u32)
            .filter(|&v| used[v as usize])
            .map(|v| {
                let p = full[v as usize];
                (
                    v,
                    partner(p, level_positions, level, &level_tree, &mut search).1,
                )
            })
            .collect();
        let level_points: Vec<[Partner; 7]> = level
            .chunks_exact(3)
            .map(|t| {
                let points = triangle_points([0, 1, 2].map(|k| level_positions[t[k] as usize]));
                points.map(|p| partner(p, full, full_indices, full_tree, &mut search).1)
            })
            .collect();
        let full_rigid = full_vertices
            .iter()
            .map(|(v, partner)| rigid.full_pair(*v, partner))
            .collect();
        let level_rigid: Vec<[RigidPair; 7]> = level
            .chunks_exact(3)
            .zip(&level_points)
            .map(|(t, partners)| rigid.level_pairs(t, partners))
            .collect();
        let triangle_rigid = level_rigid.iter().map(triangle_rigid).collect();
        Pairs {
            full_vertices,
            level_points,
            full_rigid,
            level_rigid,
            triangle_rigid,
            level_tree,
        }
    }

    /// The distance between the surfaces with the full mesh's vertices at `full` and the
    /// level's at `level_positions`, as far as it passes `settled`: each point's distance
    /// to its partner bounds its distance to the other surface; a point whose bound is
    /// above `settled` is measured against that surface itself (a partner that does not
    /// slide along the surface as the pose changes overstates). A rigid pair whose bound
    /// (`group_stretch[group]` times its bind distance) is within `settled` is passed over.
    /// Returns at least the surfaces' distance where it is above `settled`, at most
    /// `settled` otherwise.
    fn distance(
        &mut self,
        (full, full_indices, full_tree): (&[DVec3], &[u32], &mut FullTree),
        (level_positions, level): (&[DVec3], &[u32]),
        (rigid, group_stretch): (&Rigid<'_>, &[f64]),
        settled: f64,
    ) -> f64 {
        let passed = |r: &RigidPair| {
            r.group != NO_GROUP && group_stretch[r.group as usize] * r.bind_distance <= settled
        };
        let mut worst = 0.0f64;
        let mut unsettled_full: Vec<(f64, DVec3, usize)> = Vec::new();
        for (i, ((v, partner), r)) in self.full_vertices.iter().zip(&self.full_rigid).enumerate() {
            if passed(r) {
                continue;
            }
            let p = full[*v as usize];
            let bound = p.distance(partner.at(level_positions));
            if bound <= settled {
                worst = worst.max(bound);
            } else {
                unsettled_full.push((bound, p, i));
            }
        }
        let mut unsettled_level: Vec<(f64, DVec3, usize)> = Vec::new();
        for (i, (t, partners)) in level.chunks_exact(3).zip(&self.level_points).enumerate() {
            if passed(&self.triangle_rigid[i]) {
                continue;
            }
            let rigid_pairs = &self.level_rigid[i];
            let points = triangle_points([0, 1, 2].map(|k| level_positions[t[k] as usize]));
            for (k, (p, partner)) in points.iter().zip(partners).enumerate() {
                if passed(&rigid_pairs[k]) {
                    continue;
                }
                let bound = p.distance(partner.at(full));
                if bound <= settled {
                    worst = worst.max(bound);
                } else {
                    unsettled_level.push((bound, *p, i * 7 + k));
                }
            }
        }
        // Only a distance above both `settled` and the largest found so far changes the
        // answer: the points in order of their bounds, largest first, none once the
        // bounds themselves fall below that floor. A point measured takes its nearest
        // point now as its partner, which keeps it settled at the next times (they are
        // 1/30 s apart), where its old partner had drifted.
        let mut search = Search::default();
        let floor = |worst: f64| worst.max(settled);
        if !unsettled_full.is_empty() {
            self.level_tree.refit(level_positions, level);
            unsettled_full.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
            for (bound, p, i) in unsettled_full {
                if bound <= floor(worst) {
                    break;
                }
                let (d, partner) =
                    partner(p, level_positions, level, &self.level_tree, &mut search);
                worst = worst.max(d);
                self.full_vertices[i].1 = partner;
                self.full_rigid[i] = rigid.full_pair(self.full_vertices[i].0, &partner);
            }
        }
        if !unsettled_level.is_empty() {
            let tree = full_tree.at(full, full_indices);
            let mut changed_triangles = Vec::new();
            unsettled_level.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
            for (bound, p, i) in unsettled_level {
                if bound <= floor(worst) {
                    break;
                }
                let (d, partner) = partner(p, full, full_indices, tree, &mut search);
                worst = worst.max(d);
                let (t, k) = (i / 7, i % 7);
                self.level_points[t][k] = partner;
                changed_triangles.push(t);
            }
            for t in changed_triangles {
                let corners = &level[3 * t..3 * t + 3];
                self.level_rigid[t] = rigid.level_pairs(corners, &self.level_points[t]);
                self.triangle_rigid[t] = triangle_rigid(&self.level_rigid[t]);
            }
        }
        worst
    }
}

/// Every vertex's influence list as a group index: the full mesh's, and each level's as it
/// is posed (a vertex under a joint the level holds has [`NO_GROUP`]: its map differs from
/// the full mesh's); per group its palette entries and absolute weights.
struct InfluenceGroups {
    bind: Vec<DVec3>,
    lists: Vec<Vec<(u16, f64)>>,
    full: Vec<u32>,
    levels: Vec<Option<Vec<u32>>>,
}

impl InfluenceGroups {
    fn new(rig: &PreparedRig, posing: &[Option<LevelPosing<'_>>], vertices: &[Vec<u32>]) -> Self {
        let mut index: std::collections::HashMap<Vec<(u16, u32)>, u32> = Default::default();
        let mut lists = Vec::new();
        let mut group_of = |mesh: &crate::rig::Mesh, v: usize| -> u32 {
            let key: Vec<(u16, u32)> = mesh.joints[v]
                .iter()
                .zip(&mesh.weights[v])
                .filter(|(_, w)| **w != 0.0)
                .map(|(&j, w)| (j, w.to_bits()))
                .collect();
            *index.entry(key).or_insert_with_key(|key| {
                lists.push(
                    key.iter()
                        .map(|&(j, w)| (j, f64::from(f32::from_bits(w)).abs()))
                        .collect(),
                );
                (lists.len() - 1) as u32
            })
        };
        let mesh = &rig.source_mesh;
        let full: Vec<u32> = (0..mesh.vertex_count())
            .map(|v| group_of(mesh, v))
            .collect();
        let skeleton = &rig.skeleton;
        let levels = posing
            .iter()
            .zip(vertices)
            .map(|(posing, vertices)| {
                let posing = posing.as_ref()?;
                // A palette entry moves as in the full mesh unless its joint or an
                // ancestor is held (parents come before their children).
                let mut under_held = vec![false; skeleton.joint_count()];
                for (j, &parent) in skeleton.parents.iter().enumerate() {
                    under_held[j] = posing.held.get(j).copied().unwrap_or(false)
                        || (parent != crate::rig::NO_PARENT && under_held[parent as usize]);
                }
                let entry_held: Vec<bool> = skeleton
                    .palette_joints
                    .iter()
                    .map(|&j| under_held[j as usize])
                    .collect();
                let mut groups = full.clone();
                for &v in vertices {
                    let v = v as usize;
                    let m = &posing.mesh;
                    let held = m.joints[v]
                        .iter()
                        .zip(&m.weights[v])
                        .any(|(&j, &w)| w != 0.0 && entry_held[j as usize]);
                    groups[v] = if held { NO_GROUP } else { group_of(m, v) };
                }
                Some(groups)
            })
            .collect();
        InfluenceGroups {
            bind: mesh.positions.iter().map(|p| p.as_dvec3()).collect(),
            lists,
            full,
            levels,
        }
    }

    /// Level `l`'s rigid pairs' data; `None` for the full mesh.
    fn rigid(&self, l: usize) -> Option<Rigid<'_>> {
        Some(Rigid {
            bind: &self.bind,
            full_group: &self.full,
            level_group: self.levels.get(l)?.as_ref()?,
        })
    }

    /// Per group, at most how far its map stretches a vector at the pose `locals` (the
    /// full mesh's posing: a group is shared only where the level's matches it).
    fn stretch(&self, rig: &PreparedRig, locals: &[LocalF64]) -> Vec<f64> {
        let model = model_from_joint_f64(&rig.skeleton, locals);
        let per_entry: Vec<f64> = palette(&rig.skeleton, &model)
            .iter()
            .map(stretch_bound)
            .collect();
        self.lists
            .iter()
            .map(|list| list.iter().map(|&(e, w)| w * per_entry[e as usize]).sum())
            .collect()
    }
}

/// How each level is posed: its joints held at rest (marks per joint) and the mesh its
/// vertices are skinned with (its influences cut).
pub struct LevelPosing<'a> {
    pub held: Vec<bool>,
    pub mesh: std::borrow::Cow<'a, crate::rig::Mesh>,
}

/// The times tracked between the measured poses `samples` per clip apart: each clip's
/// grid of 1/[`TRACK_HZ`] s (at least [`TRACK_PER_STEP`] a step), each with the measured
/// pose nearest it (clips in order, each clip's `samples` poses in order).
fn tracked_times(rig: &PreparedRig, samples: usize) -> Vec<(usize, f32, usize)> {
    // The rate that keeps the work within TRACK_WORK for this mesh and these clips.
    let seconds: f64 = rig
        .clips
        .iter()
        .map(|c| f64::from(c.duration_secs).max(0.0))
        .sum();
    let vertices = rig.drawn_vertices().len().max(1) as f64;
    let rate = f64::from(TRACK_HZ).min(TRACK_WORK / vertices / seconds.max(1e-9));
    let mut out = Vec::new();
    for (c, clip) in rig.clips.iter().enumerate() {
        let by_rate = (f64::from(clip.duration_secs).max(0.0) * rate)
            .ceil()
            .min(1e7) as usize;
        let count = by_rate.max(samples * TRACK_PER_STEP).max(1);
        for i in 0..count {
            let t = clip.duration_secs * i as f32 / count as f32;
            let step = if clip.duration_secs > 0.0 {
                (t / clip.duration_secs * samples as f32).round() as usize % samples.max(1)
            } else {
                0
            };
            out.push((c, t, c * samples + step));
        }
    }
    out
}

/// Every vertex at one pose: the full mesh's, and per level its own (`None` for the full
/// mesh).
type Posed = (Vec<DVec3>, Vec<Option<Vec<DVec3>>>);

/// Skins the full mesh and each level as it is posed, through the oracle.
struct LevelSkinner<'r, 'p> {
    rig: &'r PreparedRig,
    posing: &'p [Option<LevelPosing<'p>>],
    /// Per level, its drawn vertices.
    vertices: Vec<Vec<u32>>,
    rest: Vec<LocalF64>,
    no_held: Vec<bool>,
}

impl<'r, 'p> LevelSkinner<'r, 'p> {
    fn new(rig: &'r PreparedRig, posing: &'p [Option<LevelPosing<'p>>]) -> Self {
        LevelSkinner {
            rig,
            posing,
            vertices: (0..posing.len()).map(|l| level_vertices(rig, l)).collect(),
            rest: rig.rest_pose.iter().map(LocalF64::from).collect(),
            no_held: vec![false; rig.joint_count()],
        }
    }

    /// Every vertex at the pose `locals`: the full mesh's, and each level's with its
    /// posing (the others where the level has none of its own).
    fn positions_at(&self, locals: &[LocalF64]) -> Posed {
        let rig = self.rig;
        let drawn = rig.drawn_vertices();
        let mut full = vec![DVec3::ZERO; rig.source_mesh.vertex_count()];
        let skinned = skinned_mesh(
            rig,
            &rig.source_mesh,
            locals,
            &self.no_held,
            &self.rest,
            drawn,
        );
        for (&v, p) in drawn.iter().zip(skinned) {
            full[v as usize] = p;
        }
        let per_level = self
            .posing
            .iter()
            .zip(&self.vertices)
            .map(|(p, vertices)| {
                p.as_ref().map(|p| {
                    let mut moved = full.clone();
                    let skinned = skinned_mesh(rig, &p.mesh, locals, &p.held, &self.rest, vertices);
                    for (&v, m) in vertices.iter().zip(skinned) {
                        moved[v as usize] = m;
                    }
                    moved
                })
            })
            .collect();
        (full, per_level)
    }
}

/// Whether the rigid pairs' bound holds on `rig` posed as `posing`: the pairs made at the
/// first measured pose of `samples` per clip, each rigid one's distance at `times` (clip,
/// seconds) against its bound. Returns the rigid pairs checked and the most any distance
/// passes its bound, as a share of the rig's size (rounding: about 1e-15 where it holds).
pub fn rigid_bound_check(
    rig: &PreparedRig,
    samples: usize,
    posing: &[Option<LevelPosing<'_>>],
    times: &[(usize, f32)],
) -> (usize, f64) {
    let levels = posing.len();
    if rig.clips.is_empty() || levels < 2 || samples == 0 {
        return (0, 0.0);
    }
    let chain = rig.mesh_chain();
    let full_indices = chain.level_indices(0);
    let skinner = LevelSkinner::new(rig, posing);
    let groups = InfluenceGroups::new(rig, posing, &skinner.vertices);
    let first = crate::skin::volume::grid_times(rig, samples, 0.0);
    let locals = &local_poses_at(rig, &first[..1])[0];
    let (full, per_level) = skinner.positions_at(locals);
    let tree = TriangleTree::new(&full, full_indices);
    let pairs: Vec<Option<Pairs>> = (0..levels)
        .map(|l| {
            Some(Pairs::new(
                (&full, full_indices, &tree),
                per_level[l].as_ref()?,
                chain.level_indices(l),
                &groups.rigid(l)?,
            ))
        })
        .collect();
    let size = f64::from(rig.model_size.max(f32::MIN_POSITIVE));
    let (mut checked, mut worst) = (0usize, 0.0f64);
    let mut check = |actual: f64, bound: f64| {
        checked += 1;
        worst = worst.max((actual - bound) / size);
    };
    for locals in local_poses_at(rig, times) {
        let (full, per_level) = skinner.positions_at(&locals);
        let stretch = groups.stretch(rig, &locals);
        for (l, pairs) in pairs.iter().enumerate() {
            let (Some(pairs), Some(level_positions)) = (pairs, &per_level[l]) else {
                continue;
            };
            for ((v, partner), r) in pairs.full_vertices.iter().zip(&pairs.full_rigid) {
                if r.group != NO_GROUP {
                    let actual = full[*v as usize].distance(partner.at(level_positions));
                    let b = stretch[r.group as usize] * r.bind_distance;
                    check(actual, b);
                }
            }
            let level = chain.level_indices(l);
            for ((t, partners), rigid) in level
                .chunks_exact(3)
                .zip(&pairs.level_points)
                .zip(&pairs.level_rigid)
            {
                let points = triangle_points([0, 1, 2].map(|k| level_positions[t[k] as usize]));
                for ((p, partner), r) in points.iter().zip(partners).zip(rigid) {
                    if r.group != NO_GROUP {
                        let (a, b) = (
                            p.distance(partner.at(&full)),
                            stretch[r.group as usize] * r.bind_distance,
                        );
                        check(a, b);
                    }
                }
            }
        }
    }
    (checked, worst)
}

/// Per level, the largest distance between the full surface and the level's over the
/// tracked times (see the module docs), where it passes `settled[level]` (at most that
/// elsewhere: points whose partners keep them within it are not measured); `samples` the
/// poses per clip the measurement took, `posing[level]` how a character drawn at it is
/// posed (`None` for the full mesh: 0); `rigid_pairs`: whether pairs sharing one influence
/// list are bounded without skinning (see the module docs).
pub fn tracked_distances(
    rig: &PreparedRig,
    samples: usize,
    posing: &[Option<LevelPosing<'_>>],
    settled: &[f64],
    rigid_pairs: RigidPairs,
) -> Vec<f64> {
    let levels = posing.len();
    if rig.clips.is_empty() || levels < 2 || samples == 0 {
        return vec![0.0; levels];
    }
    let chain = rig.mesh_chain();
    let full_indices = chain.level_indices(0);
    let measured_times = crate::skin::volume::grid_times(rig, samples, 0.0);
    let tracked = tracked_times(rig, samples);
    let skinner = LevelSkinner::new(rig, posing);
    let mut groups = InfluenceGroups::new(rig, posing, &skinner.vertices);
    if rigid_pairs == RigidPairs::Measured {
        // Every pair its own group: none is bounded.
        groups.full.fill(NO_GROUP);
        for level in groups.levels.iter_mut().flatten() {
            level.fill(NO_GROUP);
        }
    }
    let positions_at = |locals: &[LocalF64]| skinner.positions_at(locals);
    // Each measured pose's surfaces, a pose a task; then its pairs, a level of a pose a
    // task (three poses of one long clip as three tasks left one of two cores idle for a
    // third of the time).
    let surfaces: Vec<(Posed, TriangleTree)> = parallel::map(measured_times.len(), |pose| {
        let locals = &local_poses_at(rig, &measured_times[pose..pose + 1])[0];
        let posed = positions_at(locals);
        let tree = TriangleTree::new(&posed.0, full_indices);
        (posed, tree)
    });
    let mut pairs_made = parallel::map(measured_times.len() * levels, |task| {
        let (pose, l) = (task / levels, task % levels);
        let ((full, per_level), tree) = &surfaces[pose];
        Some(Pairs::new(
            (full, full_indices, tree),
            per_level[l].as_ref()?,
            chain.level_indices(l),
            &groups.rigid(l)?,
        ))
    })
    .into_iter();
    let at_poses: Vec<(Vec<Option<Pairs>>, FullTree)> = surfaces
        .into_iter()
        .map(|(_, tree)| {
            let pairs = pairs_made.by_ref().take(levels).collect();
            let full_tree = FullTree { tree, fitted: true };
            (pairs, full_tree)
        })
        .collect();
    // Then each pose's tracked times in two sweeps outward from it, later times first,
    // then earlier ones (a clip loops: the end of a clip is before its start), so that
    // each time's partners come from a time 1/30 s nearer the pose. Every sweep is a
    // task of its own: a long clip measured at three poses still keeps two cores busy.
    let per_pose: Vec<Vec<f64>> = parallel::map(2 * measured_times.len(), |sweep| {
        let (pose, later) = (sweep / 2, sweep % 2 == 0);
        let (clip, pose_secs) = measured_times[pose];
        let duration = rig.clips[clip].duration_secs;
        let offset = |t: f32| {
            let o = t - pose_secs;
            if o > duration / 2.0 {
                o - duration
            } else if o < -duration / 2.0 {
                o + duration
            } else {
                o
            }
        };
        let mut mine: Vec<(f32, (usize, f32))> = tracked
            .iter()
            .filter(|&&(_, _, nearest)| nearest == pose)
            .map(|&(c, t, _)| (offset(t), (c, t)))
            .filter(|(o, _)| (*o >= 0.0) == later)
            .collect();
        mine.sort_unstable_by(|a, b| a.0.abs().total_cmp(&b.0.abs()));
        let times: Vec<(usize, f32)> = mine.into_iter().map(|(_, t)| t).collect();
        let (pairs, full_tree) = &at_poses[pose];
        let (mut pairs, mut full_tree) = (pairs.clone(), full_tree.clone());
        let mut worst = vec![0.0f64; levels];
        for locals in local_poses_at(rig, &times) {
            let (full, per_level) = positions_at(&locals);
            let stretch = groups.stretch(rig, &locals);
            full_tree.fitted = false;
            for (l, (pairs, moved)) in pairs.iter_mut().zip(&per_level).enumerate() {
                if let (Some(pairs), Some(moved), Some(rigid)) = (pairs, moved, groups.rigid(l)) {
                    let d = pairs.distance(
                        (&full, full_indices, &mut full_tree),
                        (moved, chain.level_indices(l)),
                        (&rigid, &stretch),
                        settled.get(l).copied().unwrap_or(0.0),
                    );
                    worst[l] = worst[l].max(d);
                }
            }
        }
        worst
    });
    (0..levels)
        .map(|l| per_pose.iter().map(|w| w[l]).fold(0.0f64, f64::max))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::stretch_bound;
    use glam::{DMat4, DQuat, DVec3};

    /// The stretch bound holds for any matrix (sheared, scaled unevenly, mirrored) and is
    /// exact for a rotation times a uniform scale.
    #[test]
    fn the_stretch_bound_holds_and_is_exact_for_similarities() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for _ in 0..500 {
            let m = DMat4::from_cols_array(&std::array::from_fn(|_| next() * 3.0));
            let bound = stretch_bound(&m);
            for _ in 0..20 {
                let v = DVec3::new(next(), next(), next());
                let stretched = m.transform_vector3(v).length();
                assert!(stretched <= bound * v.length() * (1.0 + 1e-12), "{m} {v}");
            }
            let rotation = DQuat::from_axis_angle(
                DVec3::new(next(), next(), next() + 2.0).normalize(),
                next() * 3.0,
            );
            let scale = next().abs() * 4.0 + 0.01;
            let similar = DMat4::from_scale_rotation_translation(
                DVec3::splat(scale),
                rotation,
                DVec3::new(next(), next(), next()),
            );
            assert!((stretch_bound(&similar) - scale).abs() <= 1e-12 * scale);
        }
    }
}
