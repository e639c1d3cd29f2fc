//! The surface: tubes lofted from elliptic rings, branches joined by cutting windows into
//! their parent tube, one UV chart per tube.

use super::*;

/// One ring of a tube: centre and elliptic radii along the tube's frame axes.
#[derive(Clone, Copy)]
pub(super) struct RingSpec {
    pub(super) center: Vec3,
    pub(super) a: f32,
    pub(super) b: f32,
}

/// Where a fresh tube runs: along `axis` (its frame turned by `up_hint`) through the rings
/// of `specs`, its texture's v scaled by `v_scale`, its vertices weighted by
/// `weight_group`.
#[derive(Clone, Copy)]
pub(super) struct TubePath<'a> {
    pub(super) axis: Vec3,
    pub(super) up_hint: Vec3,
    pub(super) specs: &'a [RingSpec],
    pub(super) v_scale: f32,
    pub(super) weight_group: usize,
}

pub(super) struct Tube {
    pub(super) chart: u16,
    /// Which joints may influence this tube's vertices.
    pub(super) weight_group: usize,
    pub(super) n1: Vec3,
    pub(super) n2: Vec3,
    pub(super) axis: Vec3,
    /// Angle of each ring vertex in the (n1, n2) frame, strictly increasing over < 2π.
    pub(super) angles: Vec<f32>,
    pub(super) rings: Vec<Vec<u32>>,
    /// v coordinate of each ring.
    pub(super) ring_v: Vec<f32>,
    /// Cells (ring interval, column) cut out for a branch.
    pub(super) removed: Vec<(usize, usize)>,
}

impl Tube {
    pub(super) fn columns(&self) -> usize {
        self.angles.len()
    }

    pub(super) fn u(&self, k: usize) -> f32 {
        if k == self.columns() {
            1.0
        } else {
            (self.angles[k] - self.angles[0]) / TAU
        }
    }

    /// The `w` adjacent columns whose middle directions face `dir` best.
    pub(super) fn columns_facing(&self, dir: Vec3, w: usize) -> usize {
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
pub(super) struct Corner {
    pub(super) vertex: u32,
    pub(super) uv: Vec2,
    pub(super) chart: u16,
}

pub(super) struct MeshBuilder {
    pub(super) positions: Vec<Vec3>,
    /// Weight group of the tube that created each vertex.
    pub(super) vertex_group: Vec<usize>,
    pub(super) faces: Vec<Vec<Corner>>,
    pub(super) next_chart: u16,
}

impl MeshBuilder {
    pub(super) fn vertex(&mut self, p: Vec3, group: usize) -> u32 {
        self.positions.push(p);
        self.vertex_group.push(group);
        (self.positions.len() - 1) as u32
    }

    pub(super) fn new_chart(&mut self) -> u16 {
        self.next_chart += 1;
        self.next_chart
    }

    /// Frame with `n1` as close to `up_hint` as possible and `n1 × n2 = axis`.
    pub(super) fn frame(axis: Vec3, up_hint: Vec3) -> (Vec3, Vec3) {
        let n1 = (up_hint - axis * axis.dot(up_hint)).normalize();
        (n1, axis.cross(n1))
    }

    pub(super) fn ring_points(
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

    /// A tube along `path` starting with a fresh ring at the given angles, each ring's
    /// radius pushed out by `bump(centre, angle)`.
    pub(super) fn fresh_tube(
        &mut self,
        path: TubePath<'_>,
        angles: Vec<f32>,
        bump: &dyn Fn(Vec3, f32) -> f32,
    ) -> Tube {
        let TubePath {
            axis,
            up_hint,
            specs,
            v_scale,
            weight_group,
        } = path;
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
    pub(super) fn branch_tube(
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
    pub(super) fn cut_window(
        tube: &mut Tube,
        r0: usize,
        h: usize,
        k0: usize,
        w: usize,
    ) -> Vec<u32> {
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

    pub(super) fn emit_tube(&mut self, tube: &Tube) {
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
    pub(super) fn cap_end(&mut self, tube: &Tube, pole: Vec3) {
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
pub(super) fn profile(points: &[(f32, [f32; 3])], t: f32) -> [f32; 3] {
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
pub(super) struct WeightGroups {
    pub(super) groups: Vec<Vec<usize>>,
}

impl WeightGroups {
    pub(super) fn add(&mut self, joints: Vec<usize>) -> usize {
        self.groups.push(joints);
        self.groups.len() - 1
    }
}

pub(super) fn names(list: &[&str], s: &str) -> Vec<String> {
    list.iter().map(|n| n.replace("{s}", s)).collect()
}

pub(super) fn build_mesh(joints: &JointTable) -> Mesh {
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
    let torso_path = TubePath {
        axis: Vec3::Y,
        up_hint: Vec3::X,
        specs: &torso_specs,
        v_scale: 1.0 / 0.8,
        weight_group: torso_group,
    };
    let mut torso = b.fresh_tube(torso_path, torso_angles, &nose);

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

pub(super) fn build_arm(
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
pub(super) fn wrap_pi(a: f32) -> f32 {
    let w = a.rem_euclid(TAU);
    if w > PI { w - TAU } else { w }
}

pub(super) fn angular_distance(a: f32, b: f32) -> f32 {
    let d = (a - b).rem_euclid(TAU);
    d.min(TAU - d)
}

pub(super) fn build_leg(
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
