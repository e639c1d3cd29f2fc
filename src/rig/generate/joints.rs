//! The joint table: 96 named joints, their bind positions and parents (torso, head, arms
//! with five-fingered hands, legs with feet).

use super::*;

pub(super) struct JointDef {
    pub(super) name: String,
    pub(super) parent: Option<usize>,
    /// Bind-pose position in model space (all bind rotations are identity: a T-pose).
    pub(super) position: Vec3,
    /// End of the bone segment used for skin weights; `None` = influences no vertex.
    pub(super) segment_end: Option<Vec3>,
}

pub(super) struct JointTable {
    pub(super) defs: Vec<JointDef>,
    pub(super) by_name: HashMap<String, usize>,
}

/// Finger lengths relative to the middle finger, index to pinky.
pub(super) const FINGER_SCALE: [f32; 4] = [0.92, 1.0, 0.95, 0.78];
pub(super) const FINGER_NAMES: [&str; 4] = ["index", "middle", "ring", "pinky"];
/// Finger edges across the knuckles, index side positive (metres), and the knuckle line.
pub(super) const FINGER_EDGES: [f32; 5] = [0.042, 0.021, 0.0, -0.021, -0.042];
pub(super) const HAND_Z: f32 = -0.01;
pub(super) const ARM_Y: f32 = 1.43;
pub(super) const KNUCKLE_X: f32 = 0.80;
pub(super) const MIDDLE_FINGER_LENGTH: f32 = 0.095;
pub(super) const LEG_X: f32 = 0.095;

pub(super) fn side_suffix(side: f32) -> &'static str {
    if side > 0.0 { "l" } else { "r" }
}

pub(super) fn finger_center(i: usize) -> f32 {
    (FINGER_EDGES[i] + FINGER_EDGES[i + 1]) * 0.5
}

/// Unit direction of the thumb (left hand; mirror x for the right).
pub(super) fn thumb_axis(side: f32) -> Vec3 {
    Vec3::new(0.55 * side, -0.2, 0.8).normalize()
}

pub(super) fn thumb_base(side: f32) -> Vec3 {
    Vec3::new(0.725 * side, ARM_Y - 0.008, HAND_Z + 0.042)
}

impl JointTable {
    pub(super) fn new() -> Self {
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

    pub(super) fn add(
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

    pub(super) fn get(&self, name: &str) -> usize {
        *self
            .by_name
            .get(name)
            .unwrap_or_else(|| panic!("reference rig has no joint {name}"))
    }

    /// Joint indices for names, skipping `{s}` expansion: names must be complete.
    pub(super) fn list(&self, names: &[String]) -> Vec<usize> {
        names.iter().map(|n| self.get(n)).collect()
    }
}

/// A point on finger `i`'s axis, `along` metres from its knuckle.
pub(super) fn finger_point(side: f32, i: usize, along: f32) -> Vec3 {
    let zz = finger_center(i);
    // Fingers fan out slightly.
    let splay = zz * 0.35 * (along / MIDDLE_FINGER_LENGTH);
    Vec3::new(
        side * (KNUCKLE_X + along),
        ARM_Y - 0.002,
        HAND_Z + (zz + splay),
    )
}
