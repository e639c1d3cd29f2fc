//! The built-in reference rig: a 96-joint humanoid with a ~5,000-triangle skinned surface
//! and three looping clips (`crouch`, `walk`, `run`), generated deterministically.
//!
//! How it works: the body is lofted from elliptic rings along straight "tubes" (torso and
//! head, arms with palms, fingers, thumbs, legs, feet). Branches are joined the way a
//! modeller extrudes: a window of quads is cut out of the parent tube and its boundary
//! loop becomes the first ring of the child; the crotch and the knuckles split one ring
//! into several loops with small "bridge" vertices. The result is one closed, connected
//! surface. Each tube is its own UV chart (u around, v along), so vertices on chart
//! borders are duplicated with different UVs; normals are computed on the welded surface
//! so the duplicates shade identically.
//!
//! Skin weights come from inverse distance to the bone segments of the tube's joints,
//! cut to the four heaviest. Which vertices keep 1, 2, 3 or 4 influences is decided by
//! ranking vertices by how mixed their weights are and cutting that ranking at the
//! influence shares of seed 004's character (25 / 20 / 25 / 30 %): the least mixed
//! quarter keeps one bone, the most mixed 30 % keep four. The clips are authored as
//! joint angles over a gait phase, with the pelvis height solved from leg geometry so the
//! supporting foot stays on the ground, and sampled at 30 keys per second.

use std::collections::HashMap;
use std::f32::consts::{PI, TAU};

use glam::{Mat4, Quat, Vec2, Vec3};

use super::{Clip, Interpolation, JointTracks, Mesh, NO_PARENT, Rig, Skeleton, Track, Transform};

/// Names of the clips, in file order.
pub const CLIP_NAMES: [&str; 3] = ["crouch", "walk", "run"];
/// Key rate of the generated clips.
pub const KEYS_PER_SEC: f32 = 30.0;
/// Influence-count shares of seed 004's test character, for 1, 2, 3 and 4 influences.
pub const INFLUENCE_SHARES: [f32; 4] = [0.25, 0.20, 0.25, 0.30];

/// Builds the reference rig. Pure and deterministic: same output on every run.
pub fn reference_rig() -> Rig {
    let joints = JointTable::new();
    let mesh = build_mesh(&joints);
    let clips = CLIP_NAMES
        .iter()
        .map(|name| build_clip(name, &joints))
        .collect();
    let skeleton = Skeleton {
        names: joints.defs.iter().map(|d| d.name.clone()).collect(),
        parents: joints
            .defs
            .iter()
            .map(|d| d.parent.map_or(NO_PARENT, |p| p as u16))
            .collect(),
        root_count: 1,
        model_from_root_parent: vec![Mat4::IDENTITY],
        rest_pose: joints
            .defs
            .iter()
            .map(|d| Transform {
                translation: d.position - d.parent.map_or(Vec3::ZERO, |p| joints.defs[p].position),
                rotation: Quat::IDENTITY,
                scale: Vec3::ONE,
            })
            .collect(),
        joint_from_bind: joints
            .defs
            .iter()
            .map(|d| Mat4::from_translation(-d.position))
            .collect(),
    };
    Rig {
        skeleton,
        mesh,
        clips,
    }
}

// ---------------------------------------------------------------------------------------
// Skeleton
// ---------------------------------------------------------------------------------------

struct JointDef {
    name: String,
    parent: Option<usize>,
    /// Bind-pose position in model space (all bind rotations are identity: a T-pose).
    position: Vec3,
    /// End of the bone segment used for skin weights; `None` = influences no vertex.
    segment_end: Option<Vec3>,
}

struct JointTable {
    defs: Vec<JointDef>,
    by_name: HashMap<String, usize>,
}

/// Finger lengths relative to the middle finger, index to pinky.
const FINGER_SCALE: [f32; 4] = [0.92, 1.0, 0.95, 0.78];
const FINGER_NAMES: [&str; 4] = ["index", "middle", "ring", "pinky"];
/// Finger edges across the knuckles, index side positive (metres), and the knuckle line.
const FINGER_EDGES: [f32; 5] = [0.042, 0.021, 0.0, -0.021, -0.042];
const HAND_Z: f32 = -0.01;
const ARM_Y: f32 = 1.43;
const KNUCKLE_X: f32 = 0.80;
const MIDDLE_FINGER_LENGTH: f32 = 0.095;
const LEG_X: f32 = 0.095;

fn side_suffix(side: f32) -> &'static str {
    if side > 0.0 { "l" } else { "r" }
}

fn finger_center(i: usize) -> f32 {
    (FINGER_EDGES[i] + FINGER_EDGES[i + 1]) * 0.5
}

/// Unit direction of the thumb (left hand; mirror x for the right).
fn thumb_axis(side: f32) -> Vec3 {
    Vec3::new(0.55 * side, -0.2, 0.8).normalize()
}

fn thumb_base(side: f32) -> Vec3 {
    Vec3::new(0.725 * side, ARM_Y - 0.008, HAND_Z + 0.042)
}

impl JointTable {
    fn new() -> Self {
        let mut t = JointTable {
            defs: Vec::new(),
            by_name: HashMap::new(),
        };
        let root = t.add("root", None, Vec3::ZERO, None);
        let pelvis = t.add(
            "pelvis",
            Some(root),
            Vec3::new(0.0, 0.95, 0.0),
            Some(Vec3::new(0.0, 1.03, -0.01)),
        );
        let spine_heights = [1.03, 1.13, 1.24, 1.35];
        let mut parent = pelvis;
        for (i, &y) in spine_heights.iter().enumerate() {
            let end = if i + 1 < spine_heights.len() {
                spine_heights[i + 1]
            } else {
                1.47
            };
            parent = t.add(
                &format!("spine_{:02}", i + 1),
                Some(parent),
                Vec3::new(0.0, y, -0.01),
                Some(Vec3::new(0.0, end, -0.01)),
            );
        }
        let spine_04 = parent;
        // Head and face first (depth-first order: each subtree is contiguous).
        let neck_01 = t.add(
            "neck_01",
            Some(spine_04),
            Vec3::new(0.0, 1.47, 0.0),
            Some(Vec3::new(0.0, 1.53, 0.01)),
        );
        let neck_02 = t.add(
            "neck_02",
            Some(neck_01),
            Vec3::new(0.0, 1.53, 0.01),
            Some(Vec3::new(0.0, 1.59, 0.02)),
        );
        let head = t.add(
            "head",
            Some(neck_02),
            Vec3::new(0.0, 1.59, 0.02),
            Some(Vec3::new(0.0, 1.76, 0.02)),
        );
        let jaw = t.add(
            "jaw",
            Some(head),
            Vec3::new(0.0, 1.60, 0.03),
            Some(Vec3::new(0.0, 1.575, 0.10)),
        );
        t.add("tongue", Some(jaw), Vec3::new(0.0, 1.595, 0.07), None);
        t.add("lip_lower", Some(jaw), Vec3::new(0.0, 1.60, 0.105), None);
        for (name, pos) in [
            ("lip_upper", Vec3::new(0.0, 1.615, 0.105)),
            ("nose", Vec3::new(0.0, 1.645, 0.115)),
            ("eye_l", Vec3::new(0.032, 1.665, 0.085)),
            ("eye_r", Vec3::new(-0.032, 1.665, 0.085)),
            ("lid_upper_l", Vec3::new(0.032, 1.675, 0.092)),
            ("lid_upper_r", Vec3::new(-0.032, 1.675, 0.092)),
            ("lid_lower_l", Vec3::new(0.032, 1.655, 0.092)),
            ("lid_lower_r", Vec3::new(-0.032, 1.655, 0.092)),
            ("brow_l", Vec3::new(0.035, 1.70, 0.098)),
            ("brow_r", Vec3::new(-0.035, 1.70, 0.098)),
            ("cheek_l", Vec3::new(0.05, 1.63, 0.085)),
            ("cheek_r", Vec3::new(-0.05, 1.63, 0.085)),
            ("ear_l", Vec3::new(0.085, 1.66, 0.0)),
            ("ear_r", Vec3::new(-0.085, 1.66, 0.0)),
        ] {
            t.add(name, Some(head), pos, None);
        }
        for side in [1.0f32, -1.0] {
            let s = side_suffix(side);
            let x = |v: f32| v * side;
            let clavicle = t.add(
                &format!("clavicle_{s}"),
                Some(spine_04),
                Vec3::new(x(0.03), 1.42, 0.02),
                Some(Vec3::new(x(0.18), ARM_Y, -0.01)),
            );
            let at = |px: f32| Vec3::new(x(px), ARM_Y, HAND_Z);
            let upper = t.add(
                &format!("upper_arm_{s}"),
                Some(clavicle),
                at(0.18),
                Some(at(0.27)),
            );
            t.add(
                &format!("upper_arm_twist_01_{s}"),
                Some(upper),
                at(0.27),
                Some(at(0.36)),
            );
            t.add(
                &format!("upper_arm_twist_02_{s}"),
                Some(upper),
                at(0.36),
                Some(at(0.45)),
            );
            let forearm = t.add(
                &format!("forearm_{s}"),
                Some(upper),
                at(0.45),
                Some(at(0.58)),
            );
            t.add(
                &format!("forearm_twist_{s}"),
                Some(forearm),
                at(0.58),
                Some(at(0.71)),
            );
            let hand = t.add(
                &format!("hand_{s}"),
                Some(forearm),
                at(0.71),
                Some(at(0.745)),
            );
            // Thumb.
            let axis = thumb_axis(side);
            let base = thumb_base(side);
            let mut p = t.add(
                &format!("thumb_01_{s}"),
                Some(hand),
                base,
                Some(base + axis * 0.04),
            );
            let mut along = 0.04;
            for (k, len) in [(2, 0.032f32), (3, 0.028)] {
                let pos = base + axis * along;
                p = t.add(
                    &format!("thumb_{k:02}_{s}"),
                    Some(p),
                    pos,
                    Some(pos + axis * len),
                );
                along += len;
            }
            t.add(
                &format!("thumb_tip_{s}"),
                Some(p),
                base + axis * along,
                None,
            );
            // Fingers: metacarpal in the palm, then three phalanges.
            for (i, name) in FINGER_NAMES.iter().enumerate() {
                let zz = finger_center(i);
                let len = MIDDLE_FINGER_LENGTH * FINGER_SCALE[i];
                let meta = Vec3::new(x(0.72), ARM_Y, HAND_Z + zz * 0.8);
                let knuckle = finger_point(side, i, 0.0);
                let mut p = t.add(
                    &format!("{name}_metacarpal_{s}"),
                    Some(hand),
                    meta,
                    Some(knuckle),
                );
                let stops = [0.0, 0.45 * len, 0.75 * len, len];
                for k in 0..3 {
                    p = t.add(
                        &format!("{name}_{:02}_{s}", k + 1),
                        Some(p),
                        finger_point(side, i, stops[k]),
                        Some(finger_point(side, i, stops[k + 1])),
                    );
                }
            }
        }
        for side in [1.0f32, -1.0] {
            let s = side_suffix(side);
            let at = |y: f32, z: f32| Vec3::new(LEG_X * side, y, z);
            let thigh = t.add(
                &format!("thigh_{s}"),
                Some(pelvis),
                at(0.92, 0.0),
                Some(at(0.78, 0.0)),
            );
            t.add(
                &format!("thigh_twist_01_{s}"),
                Some(thigh),
                at(0.78, 0.0),
                Some(at(0.64, 0.0)),
            );
            t.add(
                &format!("thigh_twist_02_{s}"),
                Some(thigh),
                at(0.64, 0.0),
                Some(at(0.50, 0.005)),
            );
            let calf = t.add(
                &format!("calf_{s}"),
                Some(thigh),
                at(0.50, 0.005),
                Some(at(0.30, 0.0)),
            );
            t.add(
                &format!("calf_twist_{s}"),
                Some(calf),
                at(0.30, 0.0),
                Some(at(0.085, -0.01)),
            );
            let foot = t.add(
                &format!("foot_{s}"),
                Some(calf),
                at(0.085, -0.01),
                Some(at(0.03, 0.12)),
            );
            let ball = t.add(
                &format!("ball_{s}"),
                Some(foot),
                at(0.03, 0.12),
                Some(at(0.02, 0.2)),
            );
            t.add(&format!("toe_tip_{s}"), Some(ball), at(0.02, 0.2), None);
        }
        t
    }

    fn add(
        &mut self,
        name: &str,
        parent: Option<usize>,
        position: Vec3,
        segment_end: Option<Vec3>,
    ) -> usize {
        let index = self.defs.len();
        self.defs.push(JointDef {
            name: name.to_string(),
            parent,
            position,
            segment_end,
        });
        self.by_name.insert(name.to_string(), index);
        index
    }

    fn get(&self, name: &str) -> usize {
        *self
            .by_name
            .get(name)
            .unwrap_or_else(|| panic!("reference rig has no joint {name}"))
    }

    /// Joint indices for names, skipping `{s}` expansion: names must be complete.
    fn list(&self, names: &[String]) -> Vec<usize> {
        names.iter().map(|n| self.get(n)).collect()
    }
}

/// A point on finger `i`'s axis, `along` metres from its knuckle.
fn finger_point(side: f32, i: usize, along: f32) -> Vec3 {
    let zz = finger_center(i);
    // Fingers fan out slightly.
    let splay = zz * 0.35 * (along / MIDDLE_FINGER_LENGTH);
    Vec3::new(
        side * (KNUCKLE_X + along),
        ARM_Y - 0.002,
        HAND_Z + (zz + splay),
    )
}

// ---------------------------------------------------------------------------------------
// Mesh
// ---------------------------------------------------------------------------------------

/// One ring of a tube: centre and elliptic radii along the tube's frame axes.
#[derive(Clone, Copy)]
struct RingSpec {
    center: Vec3,
    a: f32,
    b: f32,
}

struct Tube {
    chart: u16,
    /// Which joints may influence this tube's vertices.
    weight_group: usize,
    n1: Vec3,
    n2: Vec3,
    axis: Vec3,
    /// Angle of each ring vertex in the (n1, n2) frame, strictly increasing over < 2π.
    angles: Vec<f32>,
    rings: Vec<Vec<u32>>,
    /// v coordinate of each ring.
    ring_v: Vec<f32>,
    /// Cells (ring interval, column) cut out for a branch.
    removed: Vec<(usize, usize)>,
}

impl Tube {
    fn columns(&self) -> usize {
        self.angles.len()
    }

    fn u(&self, k: usize) -> f32 {
        if k == self.columns() {
            1.0
        } else {
            (self.angles[k] - self.angles[0]) / TAU
        }
    }

    /// The `w` adjacent columns whose middle directions face `dir` best.
    fn columns_facing(&self, dir: Vec3, w: usize) -> usize {
        let k_count = self.columns();
        let score = |k0: usize| -> f32 {
            (0..w)
                .map(|j| {
                    let k = (k0 + j) % k_count;
                    let a0 = self.angles[k];
                    let a1 = if k + 1 == k_count {
                        self.angles[0] + TAU
                    } else {
                        self.angles[k + 1]
                    };
                    let mid = 0.5 * (a0 + a1);
                    (self.n1 * mid.cos() + self.n2 * mid.sin()).dot(dir)
                })
                .sum()
        };
        let mut best = 0;
        let mut best_score = f32::NEG_INFINITY;
        for k0 in 0..k_count {
            let s = score(k0);
            if s > best_score + 1e-6 {
                best = k0;
                best_score = s;
            }
        }
        best
    }
}

#[derive(Clone, Copy)]
struct Corner {
    vertex: u32,
    uv: Vec2,
    chart: u16,
}

struct MeshBuilder {
    positions: Vec<Vec3>,
    /// Weight group of the tube that created each vertex.
    vertex_group: Vec<usize>,
    faces: Vec<Vec<Corner>>,
    next_chart: u16,
}

impl MeshBuilder {
    fn vertex(&mut self, p: Vec3, group: usize) -> u32 {
        self.positions.push(p);
        self.vertex_group.push(group);
        (self.positions.len() - 1) as u32
    }

    fn new_chart(&mut self) -> u16 {
        self.next_chart += 1;
        self.next_chart
    }

    /// Frame with `n1` as close to `up_hint` as possible and `n1 × n2 = axis`.
    fn frame(axis: Vec3, up_hint: Vec3) -> (Vec3, Vec3) {
        let n1 = (up_hint - axis * axis.dot(up_hint)).normalize();
        (n1, axis.cross(n1))
    }

    fn ring_points(
        &mut self,
        tube: &Tube,
        spec: RingSpec,
        bump: &dyn Fn(Vec3, f32) -> f32,
    ) -> Vec<u32> {
        tube.angles
            .iter()
            .map(|&theta| {
                let dir = tube.n1 * theta.cos() + tube.n2 * theta.sin();
                let radial = tube.n1 * (spec.a * theta.cos()) + tube.n2 * (spec.b * theta.sin());
                let p = spec.center + radial + dir * bump(spec.center, theta);
                self.vertex(p, tube.weight_group)
            })
            .collect()
    }

    /// A tube starting with a fresh ring at the given angles.
    #[allow(clippy::too_many_arguments)]
    fn fresh_tube(
        &mut self,
        axis: Vec3,
        up_hint: Vec3,
        angles: Vec<f32>,
        specs: &[RingSpec],
        v_scale: f32,
        weight_group: usize,
        bump: &dyn Fn(Vec3, f32) -> f32,
    ) -> Tube {
        let (n1, n2) = Self::frame(axis, up_hint);
        let mut tube = Tube {
            chart: self.new_chart(),
            weight_group,
            n1,
            n2,
            axis,
            angles,
            rings: Vec::new(),
            ring_v: Vec::new(),
            removed: Vec::new(),
        };
        let origin = specs[0].center;
        for spec in specs {
            let ring = self.ring_points(&tube, *spec, bump);
            tube.rings.push(ring);
            tube.ring_v.push((spec.center - origin).dot(axis) * v_scale);
        }
        tube
    }

    /// A tube whose first ring is an existing loop of vertices (a cut window or split).
    /// The loop is re-oriented counter-clockwise about `axis`, and the ring angles are the
    /// loop vertices' angles around the first spec's centre, so quads line up.
    fn branch_tube(
        &mut self,
        mut boundary: Vec<u32>,
        axis: Vec3,
        up_hint: Vec3,
        specs: &[RingSpec],
        v_scale: f32,
        weight_group: usize,
    ) -> Tube {
        let (n1, n2) = Self::frame(axis, up_hint);
        // Angles are taken around the loop's centroid, so the ring vertices spread all
        // the way round even when the loop sits off the first ring's axis.
        let centroid = boundary
            .iter()
            .map(|&v| self.positions[v as usize])
            .sum::<Vec3>()
            / boundary.len() as f32;
        let center = centroid - axis * (centroid - specs[0].center).dot(axis);
        let angle_of = |p: Vec3| {
            let d = p - center;
            d.dot(n2).atan2(d.dot(n1))
        };
        // Orientation from the signed area of the projected loop.
        let area: f32 = (0..boundary.len())
            .map(|i| {
                let a = self.positions[boundary[i] as usize] - center;
                let b = self.positions[boundary[(i + 1) % boundary.len()] as usize] - center;
                a.dot(n1) * b.dot(n2) - a.dot(n2) * b.dot(n1)
            })
            .sum();
        if area < 0.0 {
            boundary.reverse();
        }
        let mut angles: Vec<f32> = boundary
            .iter()
            .map(|&v| angle_of(self.positions[v as usize]))
            .collect();
        for i in 1..angles.len() {
            while angles[i] <= angles[i - 1] {
                angles[i] += TAU;
            }
        }
        let mut tube = Tube {
            chart: self.new_chart(),
            weight_group,
            n1,
            n2,
            axis,
            angles,
            rings: vec![boundary],
            ring_v: vec![0.0],
            removed: Vec::new(),
        };
        let first_center = specs[0].center;
        // The loop sits behind the first spec ring; v starts at zero there.
        let loop_offset = specs[0].a.min(specs[0].b) * 0.5;
        for spec in &specs[1..] {
            let ring = self.ring_points(&tube, *spec, &|_, _| 0.0);
            tube.rings.push(ring);
            tube.ring_v
                .push(((spec.center - first_center).dot(axis) + loop_offset) * v_scale);
        }
        tube
    }

    /// Cuts `w` columns × `h` ring intervals out of a tube and returns the window's
    /// boundary, counter-clockwise seen from outside.
    fn cut_window(tube: &mut Tube, r0: usize, h: usize, k0: usize, w: usize) -> Vec<u32> {
        let k_count = tube.columns();
        for r in r0..r0 + h {
            for j in 0..w {
                tube.removed.push((r, (k0 + j) % k_count));
            }
        }
        let col = |j: usize| (k0 + j) % k_count;
        let mut boundary = Vec::with_capacity(2 * (w + h));
        for j in 0..w {
            boundary.push(tube.rings[r0][col(j)]);
        }
        for r in r0..r0 + h {
            boundary.push(tube.rings[r][col(w)]);
        }
        for j in (1..=w).rev() {
            boundary.push(tube.rings[r0 + h][col(j)]);
        }
        for r in (r0 + 1..=r0 + h).rev() {
            boundary.push(tube.rings[r][col(0)]);
        }
        boundary
    }

    fn emit_tube(&mut self, tube: &Tube) {
        let k_count = tube.columns();
        for r in 0..tube.rings.len() - 1 {
            for k in 0..k_count {
                if tube.removed.contains(&(r, k)) {
                    continue;
                }
                let k1 = (k + 1) % k_count;
                let (u0, u1) = (tube.u(k), tube.u(k + 1));
                let (v0, v1) = (tube.ring_v[r], tube.ring_v[r + 1]);
                let c = |vertex: u32, u: f32, v: f32| Corner {
                    vertex,
                    uv: Vec2::new(u, v),
                    chart: tube.chart,
                };
                self.faces.push(vec![
                    c(tube.rings[r][k], u0, v0),
                    c(tube.rings[r][k1], u1, v0),
                    c(tube.rings[r + 1][k1], u1, v1),
                    c(tube.rings[r + 1][k], u0, v1),
                ]);
            }
        }
    }

    /// Closes the last ring with a fan around a pole vertex.
    fn cap_end(&mut self, tube: &Tube, pole: Vec3) {
        let pole_index = self.vertex(pole, tube.weight_group);
        let ring = tube.rings.last().expect("tube has rings");
        let v_ring = *tube.ring_v.last().expect("tube has rings");
        let v_pole = v_ring
            + (pole - self.positions[ring[0] as usize])
                .dot(tube.axis)
                .abs()
                * 0.5;
        let k_count = tube.columns();
        for k in 0..k_count {
            let k1 = (k + 1) % k_count;
            let (u0, u1) = (tube.u(k), tube.u(k + 1));
            self.faces.push(vec![
                Corner {
                    vertex: ring[k],
                    uv: Vec2::new(u0, v_ring),
                    chart: tube.chart,
                },
                Corner {
                    vertex: ring[k1],
                    uv: Vec2::new(u1, v_ring),
                    chart: tube.chart,
                },
                Corner {
                    vertex: pole_index,
                    uv: Vec2::new(0.5 * (u0 + u1), v_pole),
                    chart: tube.chart,
                },
            ]);
        }
    }
}

/// Piecewise-linear interpolation of `(t, value)` control points, smoothed with a cosine
/// ease inside each span so the silhouette has no creases at control points.
fn profile(points: &[(f32, [f32; 3])], t: f32) -> [f32; 3] {
    // Control points may be listed in either direction (legs go down).
    let mut points = points.to_vec();
    if points[0].0 > points[points.len() - 1].0 {
        points.reverse();
    }
    if t <= points[0].0 {
        return points[0].1;
    }
    for w in points.windows(2) {
        let (t0, a) = w[0];
        let (t1, b) = w[1];
        if t <= t1 {
            let s = (t - t0) / (t1 - t0);
            let s = 0.5 - 0.5 * (s * PI).cos();
            return [0, 1, 2].map(|i| a[i] + (b[i] - a[i]) * s);
        }
    }
    points[points.len() - 1].1
}

/// Weight groups: the joints allowed to influence each tube's vertices.
struct WeightGroups {
    groups: Vec<Vec<usize>>,
}

impl WeightGroups {
    fn add(&mut self, joints: Vec<usize>) -> usize {
        self.groups.push(joints);
        self.groups.len() - 1
    }
}

fn names(list: &[&str], s: &str) -> Vec<String> {
    list.iter().map(|n| n.replace("{s}", s)).collect()
}

fn build_mesh(joints: &JointTable) -> Mesh {
    let mut b = MeshBuilder {
        positions: Vec::new(),
        vertex_group: Vec::new(),
        faces: Vec::new(),
        next_chart: 0,
    };
    let mut groups = WeightGroups { groups: Vec::new() };

    // Torso, neck and head: one vertical tube, 24 columns, column 0 facing +x.
    let torso_group = groups.add(joints.list(&names(
        &[
            "pelvis",
            "spine_01",
            "spine_02",
            "spine_03",
            "spine_04",
            "neck_01",
            "neck_02",
            "head",
            "jaw",
            "clavicle_l",
            "clavicle_r",
            "thigh_l",
            "thigh_r",
            "upper_arm_l",
            "upper_arm_r",
        ],
        "",
    )));
    let torso_heights: [f32; 30] = [
        0.86, 0.90, 0.94, 0.98, 1.02, 1.08, 1.14, 1.18, 1.22, 1.26, 1.30, 1.33, 1.35, 1.37, 1.39,
        1.41, 1.43, 1.45, 1.475, 1.50, 1.53, 1.56, 1.59, 1.62, 1.65, 1.68, 1.71, 1.74, 1.765, 1.78,
    ];
    // (height, [half width, half depth, centre z])
    let torso_profile: [(f32, [f32; 3]); 20] = [
        (0.86, [0.150, 0.100, 0.0]),
        (0.92, [0.170, 0.110, -0.005]),
        (1.00, [0.165, 0.105, -0.005]),
        (1.08, [0.145, 0.095, 0.0]),
        (1.16, [0.150, 0.100, 0.005]),
        (1.25, [0.165, 0.115, 0.01]),
        (1.33, [0.172, 0.112, 0.005]),
        (1.40, [0.175, 0.100, -0.005]),
        (1.45, [0.150, 0.085, -0.005]),
        (1.475, [0.095, 0.070, 0.0]),
        (1.50, [0.058, 0.058, 0.005]),
        (1.56, [0.055, 0.056, 0.01]),
        (1.59, [0.062, 0.075, 0.025]),
        (1.62, [0.076, 0.092, 0.025]),
        (1.66, [0.083, 0.100, 0.02]),
        (1.70, [0.085, 0.100, 0.015]),
        (1.73, [0.080, 0.094, 0.012]),
        (1.755, [0.066, 0.078, 0.01]),
        (1.775, [0.042, 0.050, 0.01]),
        (1.79, [0.0, 0.0, 0.01]),
    ];
    let torso_specs: Vec<RingSpec> = torso_heights
        .iter()
        .map(|&y| {
            let [a, bb, z] = profile(&torso_profile, y);
            RingSpec {
                center: Vec3::new(0.0, y, z),
                a,
                b: bb,
            }
        })
        .collect();
    let torso_angles: Vec<f32> = (0..24).map(|k| k as f32 * TAU / 24.0).collect();
    // A nose: a bump on the front of the face.
    let nose = |center: Vec3, theta: f32| -> f32 {
        let front = 1.5 * PI; // n2 = -z, so +z is at 270 degrees
        let dy = (center.y - 1.64) / 0.025;
        let along = (-dy * dy).exp();
        // Explicit products, not powi: powi may round differently in debug and release
        // builds, and the committed file must be reproducible in both.
        let c = (theta - front).cos().max(0.0);
        let c4 = (c * c) * (c * c);
        let around = (c4 * c4) * (c4 * c4);
        0.022 * along * around
    };
    let mut torso = b.fresh_tube(
        Vec3::Y,
        Vec3::X,
        torso_angles,
        &torso_specs,
        1.0 / 0.8,
        torso_group,
        &nose,
    );

    // Shoulder windows: 4 columns × 6 rings (1.33..1.45) facing ±x → arm loops of 20.
    let window_ring = torso_heights
        .iter()
        .position(|&y| y == 1.33)
        .expect("ring at 1.33");
    let mut shoulder_loops = Vec::new();
    for side in [1.0f32, -1.0] {
        let k0 = torso.columns_facing(Vec3::X * side, 4);
        shoulder_loops.push(MeshBuilder::cut_window(&mut torso, window_ring, 6, k0, 4));
    }

    // Crotch: ring 0 splits into two leg loops joined by a bridge under the crotch.
    let front_k = 18; // +z
    let back_k = 6; // -z
    let bridge: Vec<u32> = [-0.05f32, 0.0, 0.05]
        .iter()
        .map(|&z| b.vertex(Vec3::new(0.0, 0.835, z), torso_group))
        .collect();
    let ring0 = torso.rings[0].clone();
    let left_loop: Vec<u32> = (0..=12)
        .map(|i| ring0[(front_k + i) % 24]) // front → left side → back
        .chain(bridge.iter().copied()) // back → front along the bridge
        .collect();
    let right_loop: Vec<u32> = (0..=12)
        .map(|i| ring0[(back_k + i) % 24]) // back → right side → front
        .chain(bridge.iter().rev().copied())
        .collect();
    b.emit_tube(&torso);
    b.cap_end(&torso, Vec3::new(0.0, 1.79, 0.01));

    for (si, side) in [1.0f32, -1.0].into_iter().enumerate() {
        let s = side_suffix(side);
        build_arm(
            &mut b,
            &mut groups,
            joints,
            side,
            s,
            shoulder_loops[si].clone(),
        );
        let leg_loop = if side > 0.0 {
            left_loop.clone()
        } else {
            right_loop.clone()
        };
        build_leg(&mut b, &mut groups, joints, side, s, leg_loop);
    }

    finish_mesh(b, &groups, joints)
}

fn build_arm(
    b: &mut MeshBuilder,
    groups: &mut WeightGroups,
    joints: &JointTable,
    side: f32,
    s: &str,
    shoulder: Vec<u32>,
) {
    let arm_group = groups.add(joints.list(&names(
        &[
            "spine_04",
            "clavicle_{s}",
            "upper_arm_{s}",
            "upper_arm_twist_01_{s}",
            "upper_arm_twist_02_{s}",
            "forearm_{s}",
            "forearm_twist_{s}",
            "hand_{s}",
            "index_metacarpal_{s}",
            "middle_metacarpal_{s}",
            "ring_metacarpal_{s}",
            "pinky_metacarpal_{s}",
            "thumb_01_{s}",
        ],
        s,
    )));
    let axis = Vec3::X * side;
    // (x, [radius along y, radius along z, centre z offset])
    let arm_profile: [(f32, [f32; 3]); 10] = [
        (0.20, [0.062, 0.060, 0.0]),
        (0.28, [0.052, 0.050, 0.0]),
        (0.40, [0.044, 0.045, 0.0]),
        (0.45, [0.040, 0.042, 0.0]),
        (0.52, [0.043, 0.045, 0.0]),
        (0.63, [0.034, 0.037, 0.0]),
        (0.70, [0.024, 0.032, 0.0]),
        (0.725, [0.020, 0.040, 0.002]),
        (0.75, [0.018, 0.046, 0.0]),
        (0.80, [0.016, 0.046, 0.0]),
    ];
    let xs: [f32; 17] = [
        0.20, 0.24, 0.29, 0.35, 0.40, 0.44, 0.47, 0.51, 0.55, 0.59, 0.63, 0.67, 0.70, 0.725, 0.75,
        0.775, 0.80,
    ];
    let specs: Vec<RingSpec> = std::iter::once(RingSpec {
        center: Vec3::new(0.17 * side, ARM_Y, HAND_Z),
        a: 0.06,
        b: 0.06,
    })
    .chain(xs.iter().map(|&x| {
        let [a, bb, dz] = profile(&arm_profile, x);
        RingSpec {
            center: Vec3::new(x * side, ARM_Y, HAND_Z + dz),
            a,
            b: bb,
        }
    }))
    .collect();
    let mut arm = b.branch_tube(shoulder, axis, Vec3::Y, &specs, 1.0 / 0.3, arm_group);
    // The knuckle ring: top and bottom vertices sit exactly on the finger edges and
    // centres, so the end can split into four 8-vertex finger loops.
    let knuckle_ring = arm.rings.len() - 1;
    let ellipse_b = 0.046;
    let mut targets: Vec<(f32, &str, usize)> = Vec::new(); // (angle, kind, index)
    for (j, &e) in FINGER_EDGES.iter().enumerate() {
        let t = (e / ellipse_b).asin();
        targets.push((t, "top_edge", j));
        targets.push((PI - t, "bottom_edge", j));
    }
    for i in 0..4 {
        let t = (finger_center(i) / ellipse_b).asin();
        targets.push((t, "top_center", i));
        targets.push((PI - t, "bottom_center", i));
    }
    targets.push((0.5 * PI, "side", 0));
    targets.push((1.5 * PI, "side", 4));
    // Angles in this tube's frame: n2 points to +z on the left arm and -z on the right, so
    // the index side (+z) is at +90° on the left and -90° on the right.
    let mut knuckle_angles: Vec<(f32, &str, usize)> = targets
        .iter()
        .map(|&(t, kind, i)| {
            let world_t = if side > 0.0 { t } else { -t };
            (world_t.rem_euclid(TAU), kind, i)
        })
        .collect();
    knuckle_angles.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Align the knuckle angles with the shoulder loop (same start, both increasing), then
    // let every ring blend from the shoulder's angles to the knuckles' along the arm.
    let shoulder_angles = arm.angles.clone();
    let first = shoulder_angles[0];
    let start = knuckle_angles
        .iter()
        .enumerate()
        .min_by(|x, y| angular_distance(x.1.0, first).total_cmp(&angular_distance(y.1.0, first)))
        .map(|(i, _)| i)
        .unwrap_or(0);
    knuckle_angles.rotate_left(start);
    let mut knuckle: Vec<f32> = knuckle_angles.iter().map(|t| t.0).collect();
    knuckle[0] = first + wrap_pi(knuckle[0] - first);
    for i in 1..knuckle.len() {
        while knuckle[i] <= knuckle[i - 1] {
            knuckle[i] += TAU;
        }
    }
    debug_assert_eq!(knuckle.len(), shoulder_angles.len());
    for (r, spec) in specs.iter().enumerate().skip(1) {
        let t = ((spec.center.x.abs() - 0.20) / (0.70 - 0.20)).clamp(0.0, 1.0);
        let t = t * t * (3.0 - 2.0 * t);
        for k in 0..knuckle.len() {
            let theta = shoulder_angles[k] + (knuckle[k] - shoulder_angles[k]) * t;
            let radial = arm.n1 * (spec.a * theta.cos()) + arm.n2 * (spec.b * theta.sin());
            b.positions[arm.rings[r][k] as usize] = spec.center + radial;
        }
    }
    arm.angles = knuckle;
    let position_of = |kind: &str, i: usize| -> usize {
        knuckle_angles
            .iter()
            .position(|t| t.1 == kind && t.2 == i)
            .expect("knuckle target exists")
    };

    // Thumb window: 2 columns around the index-side vertex, rings 0.70 → 0.75.
    let r_wrist = 1 + xs.iter().position(|&x| x == 0.70).expect("wrist ring");
    let side_k = position_of("side", 0);
    let k_count = arm.columns();
    let thumb_loop =
        MeshBuilder::cut_window(&mut arm, r_wrist, 2, (side_k + k_count - 1) % k_count, 2);
    b.emit_tube(&arm);

    // Fingers from the knuckle ring.
    let ring = arm.rings[knuckle_ring].clone();
    let mut mids: Vec<u32> = Vec::new();
    for (j, &e) in FINGER_EDGES.iter().enumerate() {
        mids.push(match j {
            0 => ring[position_of("side", 0)],
            4 => ring[position_of("side", 4)],
            _ => b.vertex(
                Vec3::new(side * (KNUCKLE_X + 0.004), ARM_Y, HAND_Z + e),
                arm.weight_group,
            ),
        });
    }
    for (i, name) in FINGER_NAMES.iter().enumerate() {
        let group = groups.add(joints.list(&names(
            &[
                "hand_{s}",
                &format!("{name}_metacarpal_{{s}}"),
                &format!("{name}_01_{{s}}"),
                &format!("{name}_02_{{s}}"),
                &format!("{name}_03_{{s}}"),
            ],
            s,
        )));
        let boundary = vec![
            ring[position_of("top_edge", i + 1)],
            ring[position_of("top_center", i)],
            ring[position_of("top_edge", i)],
            mids[i],
            ring[position_of("bottom_edge", i)],
            ring[position_of("bottom_center", i)],
            ring[position_of("bottom_edge", i + 1)],
            mids[i + 1],
        ];
        let len = MIDDLE_FINGER_LENGTH * FINGER_SCALE[i];
        let stops = [
            0.006,
            0.02,
            0.035,
            0.45 * len,
            0.75 * len,
            0.88 * len,
            len - 0.004,
        ];
        let specs: Vec<RingSpec> = stops
            .iter()
            .map(|&t| {
                let taper = 1.0 - 0.25 * (t / len);
                let knuckle = if (t - 0.45 * len).abs() < 1e-4 || (t - 0.75 * len).abs() < 1e-4 {
                    1.06
                } else {
                    1.0
                };
                RingSpec {
                    center: finger_point(side, i, t),
                    a: 0.0085 * taper * knuckle * (FINGER_SCALE[i] * 0.3 + 0.7),
                    b: 0.0092 * taper * knuckle * (FINGER_SCALE[i] * 0.3 + 0.7),
                }
            })
            .collect();
        let tube = b.branch_tube(boundary, axis, Vec3::Y, &specs, 1.0 / 0.06, group);
        b.emit_tube(&tube);
        b.cap_end(&tube, finger_point(side, i, len + 0.004));
    }

    // Thumb.
    let thumb_group = groups.add(joints.list(&names(
        &["hand_{s}", "thumb_01_{s}", "thumb_02_{s}", "thumb_03_{s}"],
        s,
    )));
    let taxis = thumb_axis(side);
    let base = thumb_base(side);
    let thumb_len = 0.1;
    let stops = [0.012, 0.03, 0.045, 0.06, 0.072, 0.084, 0.094];
    let specs: Vec<RingSpec> = stops
        .iter()
        .map(|&t| RingSpec {
            center: base + taxis * t,
            a: 0.0115 * (1.0 - 0.3 * t / thumb_len),
            b: 0.0125 * (1.0 - 0.3 * t / thumb_len),
        })
        .collect();
    let tube = b.branch_tube(thumb_loop, taxis, Vec3::Y, &specs, 1.0 / 0.07, thumb_group);
    b.emit_tube(&tube);
    b.cap_end(&tube, base + taxis * (thumb_len + 0.002));
}

/// `a` wrapped into (-π, π].
fn wrap_pi(a: f32) -> f32 {
    let w = a.rem_euclid(TAU);
    if w > PI { w - TAU } else { w }
}

fn angular_distance(a: f32, b: f32) -> f32 {
    let d = (a - b).rem_euclid(TAU);
    d.min(TAU - d)
}

fn build_leg(
    b: &mut MeshBuilder,
    groups: &mut WeightGroups,
    joints: &JointTable,
    side: f32,
    s: &str,
    crotch: Vec<u32>,
) {
    let leg_group = groups.add(joints.list(&names(
        &[
            "pelvis",
            "thigh_{s}",
            "thigh_twist_01_{s}",
            "thigh_twist_02_{s}",
            "calf_{s}",
            "calf_twist_{s}",
            "foot_{s}",
        ],
        s,
    )));
    // (y, [radius along x, radius along z, centre z])
    let leg_profile: [(f32, [f32; 3]); 11] = [
        (0.80, [0.085, 0.088, 0.0]),
        (0.62, [0.070, 0.072, 0.0]),
        (0.52, [0.055, 0.057, 0.008]),
        (0.44, [0.055, 0.060, -0.012]),
        (0.32, [0.047, 0.050, -0.008]),
        (0.20, [0.038, 0.040, -0.004]),
        (0.11, [0.034, 0.036, -0.006]),
        (0.08, [0.034, 0.040, -0.008]),
        (0.05, [0.040, 0.050, -0.012]),
        (0.025, [0.038, 0.048, -0.014]),
        (0.0, [0.030, 0.040, -0.014]),
    ];
    let ys: [f32; 17] = [
        0.80, 0.70, 0.62, 0.57, 0.53, 0.49, 0.45, 0.40, 0.34, 0.28, 0.22, 0.16, 0.115, 0.08, 0.05,
        0.025, 0.01,
    ];
    let specs: Vec<RingSpec> = ys
        .iter()
        .map(|&y| {
            let [a, bb, z] = profile(&leg_profile, y);
            RingSpec {
                center: Vec3::new(LEG_X * side, y, z),
                a,
                b: bb,
            }
        })
        .collect();
    let mut leg = b.branch_tube(
        crotch,
        -Vec3::Y,
        Vec3::X * side,
        &specs,
        1.0 / 0.5,
        leg_group,
    );
    // Foot window: 3 columns facing forward, rings 0.08 → 0.025.
    let r_ankle = ys.iter().position(|&y| y == 0.08).expect("ankle ring");
    let k0 = leg.columns_facing(Vec3::Z, 3);
    let foot_loop = MeshBuilder::cut_window(&mut leg, r_ankle, 2, k0, 3);
    b.emit_tube(&leg);
    b.cap_end(&leg, Vec3::new(LEG_X * side, 0.0, -0.014));

    let foot_group = groups.add(joints.list(&names(
        &["calf_{s}", "calf_twist_{s}", "foot_{s}", "ball_{s}"],
        s,
    )));
    // (z, [half height (y), half width (x), centre y])
    let foot_profile: [(f32, [f32; 3]); 6] = [
        (0.06, [0.036, 0.046, 0.040]),
        (0.10, [0.032, 0.049, 0.035]),
        (0.13, [0.028, 0.051, 0.030]),
        (0.16, [0.023, 0.049, 0.025]),
        (0.185, [0.019, 0.042, 0.021]),
        (0.205, [0.015, 0.032, 0.018]),
    ];
    let zs = [0.06, 0.085, 0.11, 0.135, 0.16, 0.185, 0.205];
    let specs: Vec<RingSpec> = zs
        .iter()
        .map(|&z| {
            let [a, bb, y] = profile(&foot_profile, z);
            RingSpec {
                center: Vec3::new(side * (LEG_X + 0.008 * z / 0.2), y, z),
                a,
                b: bb,
            }
        })
        .collect();
    let foot = b.branch_tube(foot_loop, Vec3::Z, Vec3::Y, &specs, 1.0 / 0.3, foot_group);
    b.emit_tube(&foot);
    b.cap_end(&foot, Vec3::new(side * (LEG_X + 0.008), 0.02, 0.22));
}

/// Distance from `p` to the segment `a..b`.
fn segment_distance(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
    (a + ab * t - p).length()
}

fn finish_mesh(b: MeshBuilder, groups: &WeightGroups, joints: &JointTable) -> Mesh {
    let geo_count = b.positions.len();

    // Smooth normals on the welded surface, area-weighted.
    let mut normal_sums = vec![Vec3::ZERO; geo_count];
    let triangles: Vec<[Corner; 3]> = b
        .faces
        .iter()
        .flat_map(|f| {
            if f.len() == 4 {
                vec![[f[0], f[1], f[2]], [f[0], f[2], f[3]]]
            } else {
                vec![[f[0], f[1], f[2]]]
            }
        })
        .collect();
    for t in &triangles {
        let [a, bb, c] = t.map(|c| b.positions[c.vertex as usize]);
        let n = (bb - a).cross(c - a);
        for corner in t {
            normal_sums[corner.vertex as usize] += n;
        }
    }

    // Raw weights: inverse distance (power 6) to the bone segments of the group's joints.
    let mut geo_influences: Vec<Vec<(u16, f32)>> = Vec::with_capacity(geo_count);
    for (v, &p) in b.positions.iter().enumerate() {
        let mut list: Vec<(u16, f32)> = groups.groups[b.vertex_group[v]]
            .iter()
            .filter_map(|&j| {
                let def = &joints.defs[j];
                def.segment_end.map(|end| {
                    let d = segment_distance(p, def.position, end) + 0.004;
                    {
                        let d2 = d * d;
                        (j as u16, 1.0 / (d2 * d2 * d2))
                    }
                })
            })
            .collect();
        list.sort_by(|a, bb| bb.1.total_cmp(&a.1).then(a.0.cmp(&bb.0)));
        list.truncate(4);
        let total: f32 = list.iter().map(|x| x.1).sum();
        for x in &mut list {
            x.1 /= total;
        }
        geo_influences.push(list);
    }

    // Final vertices: one per (welded vertex, chart, uv).
    let mut final_of: HashMap<(u32, u16, u32, u32), u32> = HashMap::new();
    let mut final_geo: Vec<u32> = Vec::new();
    let mut final_uv: Vec<Vec2> = Vec::new();
    let mut indices: Vec<u32> = Vec::with_capacity(triangles.len() * 3);
    for t in &triangles {
        for c in t {
            let key = (c.vertex, c.chart, c.uv.x.to_bits(), c.uv.y.to_bits());
            let index = *final_of.entry(key).or_insert_with(|| {
                final_geo.push(c.vertex);
                final_uv.push(c.uv);
                (final_geo.len() - 1) as u32
            });
            indices.push(index);
        }
    }
    let mut copies = vec![0usize; geo_count];
    for &g in &final_geo {
        copies[g as usize] += 1;
    }

    // Influence classes by weighted quantiles of "mixedness" (1 - heaviest weight).
    let mut order: Vec<usize> = (0..geo_count).filter(|&g| copies[g] > 0).collect();
    order.sort_by(|&x, &y| {
        let mx = 1.0 - geo_influences[x][0].1;
        let my = 1.0 - geo_influences[y][0].1;
        mx.total_cmp(&my).then(x.cmp(&y))
    });
    let total_final = final_geo.len() as f32;
    let mut class_of = vec![1usize; geo_count];
    let class_edges: Vec<f32> = INFLUENCE_SHARES
        .iter()
        .scan(0.0, |sum, share| {
            *sum += share;
            Some(*sum)
        })
        .collect();
    let mut cumulative = 0usize;
    for &g in &order {
        let fraction = (cumulative as f32 + 0.5 * copies[g] as f32) / total_final;
        let class = 1 + class_edges.iter().position(|&e| fraction < e).unwrap_or(3);
        class_of[g] = class.min(geo_influences[g].len());
        cumulative += copies[g];
    }

    let mut mesh = Mesh {
        positions: Vec::with_capacity(final_geo.len()),
        normals: Vec::with_capacity(final_geo.len()),
        uvs: final_uv,
        joints: Vec::with_capacity(final_geo.len()),
        weights: Vec::with_capacity(final_geo.len()),
        indices,
    };
    for &g in &final_geo {
        let g = g as usize;
        mesh.positions.push(b.positions[g]);
        mesh.normals
            .push(normal_sums[g].try_normalize().unwrap_or(Vec3::Y));
        let kept = &geo_influences[g][..class_of[g]];
        let total: f32 = kept.iter().map(|x| x.1).sum();
        let mut j = [0u16; 4];
        let mut w = [0f32; 4];
        for (k, &(joint, weight)) in kept.iter().enumerate() {
            j[k] = joint;
            w[k] = weight / total;
        }
        mesh.joints.push(j);
        mesh.weights.push(w);
    }
    mesh
}

// ---------------------------------------------------------------------------------------
// Clips
// ---------------------------------------------------------------------------------------

/// Thigh and calf lengths (hip → knee → ankle), for the pelvis-height solve.
const THIGH_LENGTH: f32 = 0.42;
const CALF_LENGTH: f32 = 0.415;

/// Joint rotations of one pose, in degrees about named axes, plus the pelvis offset.
struct Pose {
    rotations: HashMap<usize, Quat>,
    pelvis_offset: Vec3,
}

fn rx(deg: f32) -> Quat {
    Quat::from_rotation_x(deg.to_radians())
}
fn ry(deg: f32) -> Quat {
    Quat::from_rotation_y(deg.to_radians())
}
fn rz(deg: f32) -> Quat {
    Quat::from_rotation_z(deg.to_radians())
}

/// Leg angles in degrees: hip flexion (thigh forward), knee flexion, ankle (toes down).
#[derive(Clone, Copy)]
struct LegAngles {
    hip: f32,
    knee: f32,
    ankle: f32,
}

/// Height of the ankle below the hip for given leg angles (sagittal plane).
fn leg_drop(l: LegAngles) -> f32 {
    let h = l.hip.to_radians();
    let k = l.knee.to_radians();
    THIGH_LENGTH * h.cos() + CALF_LENGTH * (h - k).cos()
}

/// Forward offset of the ankle from the hip.
fn leg_reach(l: LegAngles) -> f32 {
    let h = l.hip.to_radians();
    let k = l.knee.to_radians();
    THIGH_LENGTH * h.sin() + CALF_LENGTH * (h - k).sin()
}

struct BodyParams {
    legs: [LegAngles; 2],
    /// Extra forward lean of each spine joint, degrees.
    spine_lean: f32,
    /// Counter-rotation of the upper body about the vertical axis, degrees.
    spine_twist: f32,
    pelvis_yaw: f32,
    pelvis_roll: f32,
    head_pitch: f32,
    /// Arm lowered from the T-pose, degrees (both arms).
    arm_lower: f32,
    /// Shoulder flexion per arm (forward positive), degrees.
    arm_swing: [f32; 2],
    elbow: [f32; 2],
    finger_curl: f32,
    jaw_open: f32,
    /// Keep the feet planted by moving the pelvis back (crouch) instead of sliding.
    plant_feet: bool,
    bounce: f32,
}

fn body_pose(j: &JointTable, p: &BodyParams) -> Pose {
    let mut rotations = HashMap::new();
    let mut set = |name: &str, q: Quat| {
        rotations.insert(j.get(name), q);
    };
    set("pelvis", ry(p.pelvis_yaw) * rz(p.pelvis_roll));
    let lean = p.spine_lean;
    set("spine_01", rx(lean * 0.4) * ry(p.spine_twist * 0.3));
    set("spine_02", rx(lean * 0.3) * ry(p.spine_twist * 0.3));
    set("spine_03", rx(lean * 0.2) * ry(p.spine_twist * 0.2));
    set("spine_04", rx(lean * 0.1) * ry(p.spine_twist * 0.2));
    set("neck_01", rx(p.head_pitch * 0.4) * ry(-p.pelvis_yaw * 0.5));
    set("head", rx(p.head_pitch * 0.6));
    set("jaw", rx(p.jaw_open));
    for (si, side) in [1.0f32, -1.0].into_iter().enumerate() {
        let s = side_suffix(side);
        let leg = p.legs[si];
        set(&format!("thigh_{s}"), rx(-leg.hip) * rz(side * 2.0));
        set(&format!("calf_{s}"), rx(leg.knee));
        set(&format!("foot_{s}"), rx(leg.ankle));
        set(&format!("ball_{s}"), rx(-(leg.ankle * 0.3).min(0.0)));
        set(&format!("clavicle_{s}"), rz(-side * p.arm_lower * 0.08));
        set(
            &format!("upper_arm_{s}"),
            rx(-p.arm_swing[si]) * rz(-side * p.arm_lower * 0.92),
        );
        set(&format!("forearm_{s}"), ry(-side * p.elbow[si]));
        set(&format!("hand_{s}"), rz(-side * 8.0));
        for name in FINGER_NAMES {
            for k in 1..=3 {
                let curl = p.finger_curl * [0.8, 1.0, 0.9][k - 1];
                set(&format!("{name}_{k:02}_{s}"), rz(-side * curl));
            }
        }
        set(&format!("thumb_02_{s}"), ry(-side * p.finger_curl * 0.4));
        set(&format!("thumb_03_{s}"), ry(-side * p.finger_curl * 0.5));
    }
    // The supporting (longer) leg reaches the ground.
    let hip_to_ankle_rest = THIGH_LENGTH + CALF_LENGTH;
    let support = leg_drop(p.legs[0]).max(leg_drop(p.legs[1]));
    let mut pelvis_offset = Vec3::new(0.0, support - hip_to_ankle_rest + p.bounce, 0.0);
    if p.plant_feet {
        pelvis_offset.z = -0.5 * (leg_reach(p.legs[0]) + leg_reach(p.legs[1]));
    }
    Pose {
        rotations,
        pelvis_offset,
    }
}

fn smooth_pulse(x: f32) -> f32 {
    // 0 at x = 0 and 1, 1 at x = 0.5, flat ends: a looping "down and back up".
    0.5 - 0.5 * (TAU * x).cos()
}

fn clip_pose(name: &str, phase: f32, j: &JointTable) -> Pose {
    let phi = TAU * phase;
    match name {
        "walk" => {
            let leg = |offset: f32| {
                let a = phi + offset;
                let hip = 22.0 * a.sin() + 2.0;
                let knee = 6.0
                    + 50.0 * (a + 0.5).cos().max(0.0).powf(1.6)
                    + 8.0 * (-a.cos()).max(0.0) * (-a.sin()).max(0.0);
                LegAngles {
                    hip,
                    knee,
                    ankle: (hip - knee) * 0.75 - 4.0 * a.cos().max(0.0),
                }
            };
            body_pose(
                j,
                &BodyParams {
                    legs: [leg(0.0), leg(PI)],
                    spine_lean: 4.0,
                    spine_twist: -8.0 * phi.sin(),
                    pelvis_yaw: 5.0 * phi.sin(),
                    pelvis_roll: 2.5 * (2.0 * phi).sin(),
                    head_pitch: -2.0,
                    arm_lower: 76.0,
                    arm_swing: [-16.0 * phi.sin() + 2.0, 16.0 * phi.sin() + 2.0],
                    elbow: [14.0 - 8.0 * phi.sin(), 14.0 + 8.0 * phi.sin()],
                    finger_curl: 14.0,
                    jaw_open: 0.0,
                    plant_feet: false,
                    bounce: 0.0,
                },
            )
        }
        "run" => {
            let leg = |offset: f32| {
                let a = phi + offset;
                let hip = 38.0 * a.sin() + 12.0;
                let knee = 22.0 + 95.0 * a.cos().max(0.0).powf(1.3);
                LegAngles {
                    hip,
                    knee,
                    ankle: (hip - knee) * 0.6 + 10.0,
                }
            };
            body_pose(
                j,
                &BodyParams {
                    legs: [leg(0.0), leg(PI)],
                    spine_lean: 14.0,
                    spine_twist: -14.0 * phi.sin(),
                    pelvis_yaw: 7.0 * phi.sin(),
                    pelvis_roll: 3.0 * (2.0 * phi).sin(),
                    head_pitch: -10.0,
                    arm_lower: 72.0,
                    arm_swing: [-38.0 * phi.sin() + 10.0, 38.0 * phi.sin() + 10.0],
                    elbow: [88.0 - 12.0 * phi.sin(), 88.0 + 12.0 * phi.sin()],
                    finger_curl: 70.0,
                    jaw_open: 6.0 + 3.0 * (2.0 * phi).sin(),
                    plant_feet: false,
                    // Both feet leave the ground twice per stride.
                    bounce: 0.035 * (2.0 * phi - 0.6).sin().max(0.0),
                },
            )
        }
        "crouch" => {
            // Down, hold, back up, with a look around at the bottom.
            let depth = smooth_pulse(phase).powf(0.7);
            let leg = LegAngles {
                hip: 88.0 * depth,
                knee: 118.0 * depth,
                ankle: -30.0 * depth,
            };
            let look = (2.0 * phi).sin() * depth;
            let mut pose = body_pose(
                j,
                &BodyParams {
                    legs: [leg, leg],
                    spine_lean: 70.0 * depth,
                    spine_twist: 10.0 * look,
                    pelvis_yaw: 0.0,
                    pelvis_roll: 0.0,
                    head_pitch: -40.0 * depth,
                    arm_lower: 74.0,
                    arm_swing: [55.0 * depth, 55.0 * depth],
                    elbow: [10.0 + 30.0 * depth, 10.0 + 30.0 * depth],
                    finger_curl: 20.0,
                    jaw_open: 0.0,
                    plant_feet: true,
                    bounce: 0.0,
                },
            );
            pose.rotations.insert(j.get("neck_02"), ry(25.0 * look));
            pose
        }
        other => panic!("unknown clip {other}"),
    }
}

fn clip_duration(name: &str) -> f32 {
    match name {
        "walk" => 1.1,
        "run" => 0.7,
        "crouch" => 2.5,
        other => panic!("unknown clip {other}"),
    }
}

fn build_clip(name: &str, joints: &JointTable) -> Clip {
    let duration_secs = clip_duration(name);
    let intervals = (duration_secs * KEYS_PER_SEC).round() as usize;
    let times_secs: Vec<f32> = (0..=intervals).map(|k| k as f32 / KEYS_PER_SEC).collect();
    let poses: Vec<Pose> = (0..=intervals)
        .map(|k| clip_pose(name, (k % intervals) as f32 / intervals as f32, joints))
        .collect();
    let mut joint_tracks = vec![JointTracks::default(); joints.defs.len()];
    let mut animated: Vec<usize> = poses[0].rotations.keys().copied().collect();
    animated.sort_unstable();
    for j in animated {
        let mut values: Vec<Quat> = poses.iter().map(|p| p.rotations[&j].normalize()).collect();
        // Keep consecutive keys in the same hemisphere so interpolation takes the short way.
        for k in 1..values.len() {
            if values[k].dot(values[k - 1]) < 0.0 {
                values[k] = -values[k];
            }
        }
        joint_tracks[j].rotation = Some(Track {
            interpolation: Interpolation::Linear,
            times_secs: times_secs.clone(),
            values,
        });
    }
    let pelvis = joints.get("pelvis");
    let rest = joints.defs[pelvis].position
        - joints.defs[joints.defs[pelvis].parent.expect("pelvis has a parent")].position;
    joint_tracks[pelvis].translation = Some(Track {
        interpolation: Interpolation::Linear,
        times_secs,
        values: poses.iter().map(|p| rest + p.pelvis_offset).collect(),
    });
    Clip {
        name: name.to_string(),
        duration_secs,
        joint_tracks,
    }
}

/// The `asset.generator` string written into the reference rig.
pub const GENERATOR: &str = "skinbench gen-rig";
