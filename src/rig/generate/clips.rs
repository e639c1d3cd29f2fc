//! The clips: joint angles over a gait phase, the pelvis height solved from the legs,
//! sampled at 30 keys per second.

use super::*;

/// Thigh and calf lengths (hip → knee → ankle), for the pelvis-height solve.
pub(super) const THIGH_LENGTH: f32 = 0.42;
pub(super) const CALF_LENGTH: f32 = 0.415;

/// Joint rotations of one pose, in degrees about named axes, plus the pelvis offset.
pub(super) struct Pose {
    pub(super) rotations: HashMap<usize, Quat>,
    pub(super) pelvis_offset: Vec3,
}

pub(super) fn rx(deg: f32) -> Quat {
    Quat::from_rotation_x(deg.to_radians())
}
pub(super) fn ry(deg: f32) -> Quat {
    Quat::from_rotation_y(deg.to_radians())
}
pub(super) fn rz(deg: f32) -> Quat {
    Quat::from_rotation_z(deg.to_radians())
}

/// Leg angles in degrees: hip flexion (thigh forward), knee flexion, ankle (toes down).
#[derive(Clone, Copy)]
pub(super) struct LegAngles {
    pub(super) hip: f32,
    pub(super) knee: f32,
    pub(super) ankle: f32,
}

/// Height of the ankle below the hip for given leg angles (sagittal plane).
pub(super) fn leg_drop(l: LegAngles) -> f32 {
    let h = l.hip.to_radians();
    let k = l.knee.to_radians();
    THIGH_LENGTH * h.cos() + CALF_LENGTH * (h - k).cos()
}

/// Forward offset of the ankle from the hip.
pub(super) fn leg_reach(l: LegAngles) -> f32 {
    let h = l.hip.to_radians();
    let k = l.knee.to_radians();
    THIGH_LENGTH * h.sin() + CALF_LENGTH * (h - k).sin()
}

pub(super) struct BodyParams {
    pub(super) legs: [LegAngles; 2],
    /// Extra forward lean of each spine joint, degrees.
    pub(super) spine_lean: f32,
    /// Counter-rotation of the upper body about the vertical axis, degrees.
    pub(super) spine_twist: f32,
    pub(super) pelvis_yaw: f32,
    pub(super) pelvis_roll: f32,
    pub(super) head_pitch: f32,
    /// Arm lowered from the T-pose, degrees (both arms).
    pub(super) arm_lower: f32,
    /// Shoulder flexion per arm (forward positive), degrees.
    pub(super) arm_swing: [f32; 2],
    pub(super) elbow: [f32; 2],
    pub(super) finger_curl: f32,
    pub(super) jaw_open: f32,
    /// Keep the feet planted by moving the pelvis back (crouch) instead of sliding.
    pub(super) plant_feet: bool,
    pub(super) bounce: f32,
}

pub(super) fn body_pose(j: &JointTable, p: &BodyParams) -> Pose {
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

pub(super) fn smooth_pulse(x: f32) -> f32 {
    // 0 at x = 0 and 1, 1 at x = 0.5, flat ends: a looping "down and back up".
    0.5 - 0.5 * (TAU * x).cos()
}

pub(super) fn clip_pose(name: &str, phase: f32, j: &JointTable) -> Pose {
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

pub(super) fn clip_duration(name: &str) -> f32 {
    match name {
        "walk" => 1.1,
        "run" => 0.7,
        "crouch" => 2.5,
        other => panic!("unknown clip {other}"),
    }
}

pub(super) fn build_clip(name: &str, joints: &JointTable) -> Clip {
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
