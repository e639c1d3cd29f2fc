//! The built-in reference rig: reproducible, and with the properties assets/README.md
//! describes (96 joints, 4,800–5,200 triangles, the influence shares, three clips).

use std::collections::{HashMap, HashSet};

use glam::{Mat4, Vec3};
use skinbench::rig::generate::{CLIP_NAMES, GENERATOR, reference_rig};
use skinbench::rig::glb::write_glb;
use skinbench::rig::{NO_PARENT, Rig, import_slice};

const COMMITTED: &[u8] = include_bytes!("../assets/reference.glb");

fn committed_rig() -> Rig {
    import_slice(COMMITTED, "assets/reference.glb", None)
        .unwrap()
        .0
}

#[test]
fn committed_file_equals_a_fresh_generation() {
    let fresh = write_glb(&reference_rig(), GENERATOR);
    assert!(
        fresh == COMMITTED,
        "assets/reference.glb is stale: run `cargo run --release -- gen-rig --out assets/reference.glb`"
    );
}

#[test]
fn counts_and_influence_shares() {
    let rig = committed_rig();
    assert_eq!(rig.skeleton.joint_count(), 96);
    let tris = rig.mesh.triangle_count();
    assert!((4800..=5200).contains(&tris), "{tris} triangles");
    let hist = rig.mesh.influence_histogram();
    let v = rig.mesh.vertex_count() as f32;
    for (c, target) in [25.0, 20.0, 25.0, 30.0].iter().enumerate() {
        let share = 100.0 * hist[c] as f32 / v;
        assert!(
            (share - target).abs() <= 5.0,
            "{} influences: {share:.1} % (target {target} %)",
            c + 1
        );
    }
    let names: Vec<&str> = rig.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, CLIP_NAMES);
    assert!(
        rig.mesh
            .normals
            .iter()
            .all(|n| (n.length() - 1.0).abs() < 1e-4)
    );
    assert!(rig.mesh.uvs.iter().all(|t| t.is_finite()));
}

/// Welds vertices by position and returns the welded index of every vertex.
fn weld(rig: &Rig) -> Vec<usize> {
    let mut ids: HashMap<[u32; 3], usize> = HashMap::new();
    rig.mesh
        .positions
        .iter()
        .map(|p| {
            let n = ids.len();
            *ids.entry(p.to_array().map(f32::to_bits)).or_insert(n)
        })
        .collect()
}

#[test]
fn one_closed_continuous_surface() {
    let rig = committed_rig();
    let welded = weld(&rig);
    // Closed and consistently oriented: every directed edge once, its reverse once.
    let mut directed: HashMap<(usize, usize), usize> = HashMap::new();
    for t in rig.mesh.indices.chunks_exact(3) {
        let w = [
            welded[t[0] as usize],
            welded[t[1] as usize],
            welded[t[2] as usize],
        ];
        assert!(
            w[0] != w[1] && w[1] != w[2] && w[0] != w[2],
            "degenerate triangle {t:?}"
        );
        for k in 0..3 {
            *directed.entry((w[k], w[(k + 1) % 3])).or_default() += 1;
        }
    }
    for (&(a, b), &count) in &directed {
        assert_eq!(count, 1, "edge {a}->{b} used {count} times");
        assert_eq!(
            directed.get(&(b, a)),
            Some(&1),
            "edge {a}->{b} has no opposite: a hole"
        );
    }
    // Connected: one component over the welded vertices.
    let n = welded.iter().max().unwrap() + 1;
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        p[x] = r;
        r
    }
    for &(a, b) in directed.keys() {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        parent[ra] = rb;
    }
    let roots: HashSet<usize> = (0..n).map(|x| find(&mut parent, x)).collect();
    assert_eq!(
        roots.len(),
        1,
        "the surface has {} separate pieces",
        roots.len()
    );
    // Outward: the signed volume is positive (about a human's, 0.05..0.1 m³).
    let volume: f32 = rig
        .mesh
        .indices
        .chunks_exact(3)
        .map(|t| {
            let [a, b, c] = [0, 1, 2].map(|k| rig.mesh.positions[t[k] as usize]);
            a.dot(b.cross(c)) / 6.0
        })
        .sum();
    assert!((0.03..0.12).contains(&volume), "volume {volume} m³");
}

#[test]
fn humanoid_proportions() {
    let rig = committed_rig();
    let (min, max) = rig.mesh.bounds();
    let height = max.y - min.y;
    assert!((1.7..1.85).contains(&height), "height {height}");
    assert!(min.y.abs() < 0.02, "feet on the ground: {min}");
    let span = max.x - min.x;
    assert!((1.6..2.0).contains(&span), "T-pose arm span {span}");
    let names = &rig.skeleton.names;
    for part in [
        "head",
        "spine_01",
        "hand_l",
        "hand_r",
        "thumb_01_l",
        "pinky_03_r",
        "foot_l",
        "calf_r",
    ] {
        assert!(names.iter().any(|n| n == part), "no joint {part}");
    }
    let fingers = names
        .iter()
        .filter(|n| n.ends_with("_01_l") && !n.contains("twist"))
        .count();
    assert_eq!(fingers, 5, "five fingers on the left hand");
}

/// Model-space joint matrices at a key of a clip (straight FK over the keys).
fn pose_at_key(rig: &Rig, clip: usize, key: usize) -> Vec<Mat4> {
    let sk = &rig.skeleton;
    let mut model = vec![Mat4::IDENTITY; sk.joint_count()];
    for j in 0..sk.joint_count() {
        let mut local = sk.rest_pose[j];
        let tracks = &rig.clips[clip].joint_tracks[j];
        if let Some(t) = &tracks.translation {
            local.translation = t.values[key];
        }
        if let Some(r) = &tracks.rotation {
            local.rotation = r.values[key];
        }
        let m = local.to_mat4();
        model[j] = if sk.parents[j] == NO_PARENT {
            m
        } else {
            model[sk.parents[j] as usize] * m
        };
    }
    model
}

fn joint(rig: &Rig, name: &str) -> usize {
    rig.skeleton.names.iter().position(|n| n == name).unwrap()
}

#[test]
fn clips_loop_and_move_like_their_names() {
    let rig = committed_rig();
    for clip in &rig.clips {
        for t in clip.joint_tracks.iter().flat_map(|t| t.rotation.iter()) {
            let first = t.values[0];
            let last = *t.values.last().unwrap();
            assert!(
                first.dot(last).abs() > 0.99999,
                "{} does not loop",
                clip.name
            );
        }
    }
    let at = |clip: &str, phase: f32, name: &str| -> Vec3 {
        let c = rig.clips.iter().position(|c| c.name == clip).unwrap();
        let keys = rig.clips[c].joint_tracks[joint(&rig, "pelvis")]
            .rotation
            .as_ref()
            .unwrap()
            .values
            .len();
        let key = ((keys - 1) as f32 * phase).round() as usize;
        pose_at_key(&rig, c, key)[joint(&rig, name)]
            .w_axis
            .truncate()
    };
    // Walk and run: the feet swap places half a cycle apart; the lower foot touches down.
    for clip in ["walk", "run"] {
        let a = at(clip, 0.25, "foot_l").z - at(clip, 0.25, "foot_r").z;
        let b = at(clip, 0.75, "foot_l").z - at(clip, 0.75, "foot_r").z;
        assert!(
            a * b < 0.0 && a.abs() > 0.15 && b.abs() > 0.15,
            "{clip}: feet do not alternate ({a}, {b})"
        );
    }
    let stand = at("walk", 0.0, "pelvis").y;
    // Crouch: the pelvis goes down by a third of a metre mid-cycle, feet stay put.
    let low = at("crouch", 0.5, "pelvis").y;
    assert!(stand - low > 0.3, "crouch depth {}", stand - low);
    let foot_rest = at("crouch", 0.0, "foot_l");
    let foot_low = at("crouch", 0.5, "foot_l");
    assert!(
        (foot_rest - foot_low).length() < 0.03,
        "crouch feet slide: {foot_rest} {foot_low}"
    );
    // Run: elbows bent much more than walking; the hands come up.
    let hand_rel = |clip: &str| at(clip, 0.1, "hand_l").y - at(clip, 0.1, "upper_arm_l").y;
    assert!(
        hand_rel("run") > hand_rel("walk") + 0.1,
        "run arms not bent"
    );
}
