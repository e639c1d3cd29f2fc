//! palette: `model_from_joint * joint_from_bind` per palette entry, in the layout the
//! skinning variant reads.
//!
//! How it works: the hierarchy's representation (tree, 4×4 array, QVS, or lanes) is read
//! as a matrix per (instance, joint), multiplied by each palette entry's inverse bind
//! matrix and written as a 4×4 (`naive` … `sorted`), a 3×4 (`tuned`) or into lane layout
//! (`simd`). The first `joint_count` entries are the joints in order; the entries after
//! them (a joint that several skins bind differently, a mesh hung on a skin joint) name
//! their joint (`Skeleton::palette_joints`). From lanes to lanes the product is done eight
//! instances at a time. Every combination is its own monomorphized loop, so no
//! per-element dispatch remains. The loops run over a list of entries: every entry, or the
//! ones a mesh level's vertices read ([`JointSet::entries`]); the others are left as they
//! were.
//!
//! Where the rig needs them ([`PreparedData::normal_matrix_reason`](crate::prepare::PreparedData::normal_matrix_reason), decided at load), each
//! product's normal matrix follows the position matrices, `palette_entry_stride` entries later
//! ([`PreparedRig::normal_palette_offset`]): the 3×3's cofactor matrix, signed and scaled
//! as the skinning oracle defines it, translation zero. Other rigs
//! get the loops without it.
//!
//! Dual-quaternion skinning reads the same lane palettes converted in place
//! ([`to_dual_quat`]): each joint's first eight lane vectors become its unit dual
//! quaternion (rotation x, y, z, w, then the dual part), the other four are left as they
//! were and never read. Converting after the product keeps one product loop for every
//! hierarchy layout; the pass reads and writes the group's palette while it is in L1.

use glam::Mat4;

use super::hierarchy::ModelPoses;
use crate::prepare::PreparedRig;
use crate::prepare::joint_sets::JointSet;
use crate::rig::Skeleton;
use crate::simd::{
    Simd, dual_quat_from_3x4, load_3x4, mul_3x4_right_scalar, normal_3x4, store_3x4,
};
use crate::types::{LANE_SLOT, LANES, Lanes3x4, Mat3x4};

/// The palette layout a skinning variant reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaletteLayout {
    Mat4,
    Mat3x4,
    Lanes,
}

/// One group's palettes (instance `k` at `k * palette_stride()`; lanes: one entry per
/// joint), normal matrices after the position ones where the rig needs them.
pub enum PalettesMut<'a> {
    Mat4(&'a mut [Mat4]),
    Mat3x4(&'a mut [Mat3x4]),
    Lanes(&'a mut [Lanes3x4]),
}

impl PalettesMut<'_> {
    pub fn layout(&self) -> PaletteLayout {
        match self {
            PalettesMut::Mat4(_) => PaletteLayout::Mat4,
            PalettesMut::Mat3x4(_) => PaletteLayout::Mat3x4,
            PalettesMut::Lanes(_) => PaletteLayout::Lanes,
        }
    }
}

#[derive(Clone, Copy)]
pub enum Palettes<'a> {
    Mat4(&'a [Mat4]),
    Mat3x4(&'a [Mat3x4]),
    Lanes(&'a [Lanes3x4]),
}

impl Palettes<'_> {
    pub fn layout(&self) -> PaletteLayout {
        match self {
            Palettes::Mat4(_) => PaletteLayout::Mat4,
            Palettes::Mat3x4(_) => PaletteLayout::Mat3x4,
            Palettes::Lanes(_) => PaletteLayout::Lanes,
        }
    }

    /// Matrices held (per instance and joint, or per joint for lanes).
    pub fn len(&self) -> usize {
        match self {
            Palettes::Mat4(p) => p.len(),
            Palettes::Mat3x4(p) => p.len(),
            Palettes::Lanes(p) => p.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Lane `k` of a joint's lane matrices as a 4×4 matrix.
pub fn lane_matrix(m: &Lanes3x4, k: usize) -> Mat4 {
    let e = |r: usize, c: usize| m[LANE_SLOT[r * 4 + c]].0[k];
    Mat4::from_cols_array_2d(&[
        [e(0, 0), e(1, 0), e(2, 0), 0.0],
        [e(0, 1), e(1, 1), e(2, 1), 0.0],
        [e(0, 2), e(1, 2), e(2, 2), 0.0],
        [e(0, 3), e(1, 3), e(2, 3), 1.0],
    ])
}

/// Writes `p` as lane `k` of a joint's lane matrices.
fn set_lane(m: &mut Lanes3x4, k: usize, p: &Mat4) {
    for r in 0..3 {
        let row = p.row(r).to_array();
        for (c, x) in row.into_iter().enumerate() {
            m[LANE_SLOT[r * 4 + c]].0[k] = x;
        }
    }
}

/// The normal matrix of an affine matrix: [`normal_3x4`] for one matrix (the cofactor of
/// the 3×3, signed by its determinant and scaled to norm √3), translation zero.
pub fn normal_matrix(m: &Mat4) -> Mat4 {
    let (a, b, c) = (
        m.x_axis.truncate(),
        m.y_axis.truncate(),
        m.z_axis.truncate(),
    );
    let columns = [b.cross(c), c.cross(a), a.cross(b)];
    let det = a.dot(columns[0]);
    let norm2 = columns.iter().map(|x| x.length_squared()).sum::<f32>() + f32::MIN_POSITIVE;
    let scale = (3f32.sqrt() / norm2.sqrt()).copysign(det);
    Mat4::from_cols(
        (columns[0] * scale).extend(0.0),
        (columns[1] * scale).extend(0.0),
        (columns[2] * scale).extend(0.0),
        glam::Vec4::W,
    )
}

/// Every (instance, listed palette entry) product, put at slot `entry`; with `NORMALS`, its
/// normal matrix at slot `normal_offset + entry` too.
#[inline(always)]
fn each<const NORMALS: bool>(
    active: usize,
    get: impl Fn(usize, usize) -> Mat4,
    mut put: impl FnMut(usize, usize, Mat4),
    skeleton: &Skeleton,
    normal_offset: usize,
    entries: Option<&[u16]>,
) {
    match entries {
        // Every entry: the zipped loop, whose order the compiler knows.
        None => {
            let every = skeleton
                .palette_joints
                .iter()
                .zip(&skeleton.joint_from_bind);
            for k in 0..active {
                for (e, (&joint, bind)) in every.clone().enumerate() {
                    let m = get(k, joint as usize) * *bind;
                    put(k, e, m);
                    if NORMALS {
                        put(k, normal_offset + e, normal_matrix(&m));
                    }
                }
            }
        }
        Some(list) => {
            for k in 0..active {
                for &e in list {
                    let e = e as usize;
                    let m =
                        get(k, skeleton.palette_joints[e] as usize) * skeleton.joint_from_bind[e];
                    put(k, e, m);
                    if NORMALS {
                        put(k, normal_offset + e, normal_matrix(&m));
                    }
                }
            }
        }
    }
}

/// Why a palette call was refused (checked once, before any matrix is written).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PaletteError {
    #[error("{active} live instances in a group; 1..={LANES} are allowed")]
    Active { active: usize },
    #[error("model poses hold {given} entries; {needed} are needed")]
    ModelTooShort { given: usize, needed: usize },
    #[error("palettes hold {given} entries; {needed} are needed")]
    OutputTooShort { given: usize, needed: usize },
    #[error("dual quaternions are built from lane palettes only, given {0:?}")]
    DualQuatLayout(PaletteLayout),
    #[error(
        "the joint set was made for {given_joints} joints and {given_entries} palette entries; the rig has {joints} and {entries}"
    )]
    JointSet {
        given_joints: usize,
        given_entries: usize,
        joints: usize,
        entries: usize,
    },
}

/// Refuses a set made for another skeleton or palette (its lists could name joints or
/// entries past this rig's).
fn check_set(rig: &PreparedRig, set: &JointSet) -> Result<(), PaletteError> {
    if set.joint_count() != rig.joint_count() || set.palette_len() != rig.palette_len() {
        return Err(PaletteError::JointSet {
            given_joints: set.joint_count(),
            given_entries: set.palette_len(),
            joints: rig.joint_count(),
            entries: rig.palette_len(),
        });
    }
    Ok(())
}

/// Checks that `model` holds `active` instances of `rig`'s joints and `out` as many
/// palettes.
fn validate(
    rig: &PreparedRig,
    model: &ModelPoses,
    out: &PalettesMut,
    active: usize,
) -> Result<(), PaletteError> {
    if !(1..=LANES).contains(&active) {
        return Err(PaletteError::Active { active });
    }
    let n = rig.joint_count();
    let entries = rig.palette_len();
    // Per-instance arrays are `joint_stride` apart; lane arrays hold one entry per joint.
    let per_instance = (active - 1) * rig.joint_stride + n;
    // Palettes are `palette_stride` apart, the normal matrices after the position ones.
    let per_palette = (active - 1) * rig.palette_stride() + rig.normal_palette_offset() + entries;
    let per_group = rig.normal_palette_offset() + entries;
    let (given, needed) = match model {
        // Every live instance's tree must hold every joint.
        ModelPoses::Tree(trees) => (
            trees
                .iter()
                .take(active)
                .map(|t| t.joints.len())
                .min()
                .filter(|_| trees.len() >= active)
                .unwrap_or(0),
            n,
        ),
        ModelPoses::Mat4(m) => (m.len(), per_instance),
        ModelPoses::Qvs(q) => (q.len(), per_instance),
        ModelPoses::Lanes(l) => (l.len(), n),
    };
    if given < needed {
        return Err(PaletteError::ModelTooShort { given, needed });
    }
    let (given, needed) = match out {
        PalettesMut::Mat4(p) => (p.len(), per_palette),
        PalettesMut::Mat3x4(p) => (p.len(), per_palette),
        PalettesMut::Lanes(p) => (p.len(), per_group),
    };
    if given < needed {
        return Err(PaletteError::OutputTooShort { given, needed });
    }
    Ok(())
}

/// Runs the palette stage for one group of `active` (≤ LANES) instances, validated first.
/// Only the entries of `set` are written ([`JointSet::all`]: every one); the model poses
/// must hold their joints.
pub fn run_group(
    rig: &PreparedRig,
    model: ModelPoses,
    out: PalettesMut,
    active: usize,
    set: &JointSet,
) -> Result<(), PaletteError> {
    validate(rig, &model, &out, active)?;
    check_set(rig, set)?;
    // Every entry: the plain loops, whose order the compiler knows; a level's: its list.
    let entries = (!set.has_every_entry()).then(|| set.entries());
    if rig.own_normal_matrices() {
        fill::<true>(rig, model, out, active, entries);
    } else {
        fill::<false>(rig, model, out, active, entries);
    }
    Ok(())
}

/// The palette stage's loops, with or without normal matrices.
fn fill<const NORMALS: bool>(
    rig: &PreparedRig,
    model: ModelPoses,
    out: PalettesMut,
    active: usize,
    entries: Option<&[u16]>,
) {
    let s = rig.joint_stride;
    let ps = rig.palette_stride();
    let no = rig.normal_palette_offset();
    let sk = &rig.skeleton;
    macro_rules! from {
        ($get:expr) => {
            match out {
                PalettesMut::Mat4(p) => {
                    each::<NORMALS>(active, $get, |k, e, m| p[k * ps + e] = m, sk, no, entries)
                }
                PalettesMut::Mat3x4(p) => each::<NORMALS>(
                    active,
                    $get,
                    |k, e, m| p[k * ps + e] = Mat3x4::from_mat4(&m),
                    sk,
                    no,
                    entries,
                ),
                PalettesMut::Lanes(p) => each::<NORMALS>(
                    active,
                    $get,
                    |k, e, m| set_lane(&mut p[e], k, &m),
                    sk,
                    no,
                    entries,
                ),
            }
        };
    }
    match model {
        ModelPoses::Tree(trees) => from!(|k: usize, i: usize| trees[k].joints[i].global),
        ModelPoses::Mat4(m) => from!(|k: usize, i: usize| m[k * s + i]),
        ModelPoses::Qvs(q) => from!(|k: usize, i: usize| q[k * s + i].to_mat4()),
        ModelPoses::Lanes(m) => match out {
            PalettesMut::Lanes(p) => lanes_to_lanes::<NORMALS>(rig, m, p, entries),
            out => {
                let get = |k: usize, i: usize| lane_matrix(&m[i], k);
                match out {
                    PalettesMut::Mat4(p) => {
                        each::<NORMALS>(active, get, |k, e, m| p[k * ps + e] = m, sk, no, entries)
                    }
                    PalettesMut::Mat3x4(p) => each::<NORMALS>(
                        active,
                        get,
                        |k, e, m| p[k * ps + e] = Mat3x4::from_mat4(&m),
                        sk,
                        no,
                        entries,
                    ),
                    PalettesMut::Lanes(_) => unreachable!("handled above"),
                }
            }
        },
    }
}

/// Lanes to lanes: each listed entry reads its joint's model matrices.
fn lanes_to_lanes<const NORMALS: bool>(
    rig: &PreparedRig,
    model: &[Lanes3x4],
    out: &mut [Lanes3x4],
    entries: Option<&[u16]>,
) {
    let n = rig.joint_count();
    let len = rig.palette_len();
    let jfb = &rig.joint_from_bind_rows[..len];
    let joints = &rig.skeleton.palette_joints[..len];
    if NORMALS {
        let (positions, normals) = out.split_at_mut(rig.normal_palette_offset());
        lanes_with_normals(
            &model[..n],
            &mut positions[..len],
            &mut normals[..len],
            jfb,
            joints,
            entries,
        );
    } else {
        lanes_dispatch(&model[..n], &mut out[..len], jfb, joints, entries);
    }
}

crate::dispatch_simd!(
    fn lanes_dispatch(
        model: &[Lanes3x4],
        out: &mut [Lanes3x4],
        joint_from_bind: &[Mat3x4],
        palette_joints: &[u16],
        entries: Option<&[u16]>,
    ) -> () {
        lanes_kernel
    }
);

crate::dispatch_simd!(
    fn lanes_with_normals(
        model: &[Lanes3x4],
        out: &mut [Lanes3x4],
        normals: &mut [Lanes3x4],
        joint_from_bind: &[Mat3x4],
        palette_joints: &[u16],
        entries: Option<&[u16]>,
    ) -> () {
        lanes_normals_kernel
    }
);

/// `out`, `joint_from_bind` and `palette_joints` hold every entry, `model` every joint;
/// `entries` lists the entries to write (`None`: every one, in one zipped loop).
#[inline(always)]
fn lanes_kernel<S: Simd>(
    s: S,
    model: &[Lanes3x4],
    out: &mut [Lanes3x4],
    joint_from_bind: &[Mat3x4],
    palette_joints: &[u16],
    entries: Option<&[u16]>,
) {
    match entries {
        None => {
            for ((p, bind), &joint) in out.iter_mut().zip(joint_from_bind).zip(palette_joints) {
                times_bind(s, &model[joint as usize], bind_rows(bind), p);
            }
        }
        Some(entries) => {
            for &e in entries {
                let e = e as usize;
                let m = &model[palette_joints[e] as usize];
                times_bind(s, m, bind_rows(&joint_from_bind[e]), &mut out[e]);
            }
        }
    }
}

/// An inverse bind matrix's rows as the lane kernels take them.
#[inline(always)]
fn bind_rows(bind: &Mat3x4) -> &[[f32; 4]; 3] {
    bytemuck::cast_ref(bind)
}

/// `out = model * bind` (`bind` the same in every lane). Where a pair of lane vectors is
/// one register ([`Simd::WIDE`]), rows 0 and 1 go two slots at a time: slot pair `c` is
/// column `c` of both rows ([`crate::types::LANE_SLOT`]), so each column of the product
/// is three multiply-type operations on pairs of the model's columns, and row 2's four
/// are done one vector at a time: 24 operations where one vector at a time takes 36.
#[inline(always)]
fn times_bind<S: Simd>(s: S, model: &Lanes3x4, bind: &[[f32; 4]; 3], out: &mut Lanes3x4) {
    if !S::WIDE {
        store_3x4(s, out, mul_3x4_right_scalar(s, &load_3x4(s, model), bind));
        return;
    }
    let (model_pairs, _) = model.as_chunks::<2>();
    let (out_pairs, _) = out.as_chunks_mut::<2>();
    let a = [
        s.load_pair(&model_pairs[0]),
        s.load_pair(&model_pairs[1]),
        s.load_pair(&model_pairs[2]),
        s.load_pair(&model_pairs[3]),
    ];
    for (c, pair) in out_pairs[..4].iter_mut().enumerate() {
        // Column `c` of rows 0 and 1; the translation column starts from the model's.
        let mut acc = if c == 3 {
            s.pair_mul_add(a[0], s.splat_pair(bind[0][c]), a[3])
        } else {
            s.pair_mul(a[0], s.splat_pair(bind[0][c]))
        };
        acc = s.pair_mul_add(a[1], s.splat_pair(bind[1][c]), acc);
        acc = s.pair_mul_add(a[2], s.splat_pair(bind[2][c]), acc);
        s.store_pair(pair, acc);
    }
    let row: [S::V; 4] = [
        s.load(&model[LANE_SLOT[8]]),
        s.load(&model[LANE_SLOT[9]]),
        s.load(&model[LANE_SLOT[10]]),
        s.load(&model[LANE_SLOT[11]]),
    ];
    for c in 0..4 {
        let mut acc = if c == 3 {
            s.mul_add(row[0], s.splat(bind[0][c]), row[3])
        } else {
            s.mul(row[0], s.splat(bind[0][c]))
        };
        acc = s.mul_add(row[1], s.splat(bind[1][c]), acc);
        acc = s.mul_add(row[2], s.splat(bind[2][c]), acc);
        s.store(&mut out[LANE_SLOT[8 + c]], acc);
    }
}

#[inline(always)]
fn lanes_normals_kernel<S: Simd>(
    s: S,
    model: &[Lanes3x4],
    out: &mut [Lanes3x4],
    normals: &mut [Lanes3x4],
    joint_from_bind: &[Mat3x4],
    palette_joints: &[u16],
    entries: Option<&[u16]>,
) {
    match entries {
        None => {
            for e in 0..palette_joints.len() {
                with_normal(s, model, out, normals, joint_from_bind, palette_joints, e);
            }
        }
        Some(entries) => {
            for &e in entries {
                with_normal(
                    s,
                    model,
                    out,
                    normals,
                    joint_from_bind,
                    palette_joints,
                    e as usize,
                );
            }
        }
    }
}

/// Entry `e`'s product and its normal matrix (a function, not a closure: a closure would
/// not inherit the kernel's target features).
#[inline(always)]
fn with_normal<S: Simd>(
    s: S,
    model: &[Lanes3x4],
    out: &mut [Lanes3x4],
    normals: &mut [Lanes3x4],
    joint_from_bind: &[Mat3x4],
    palette_joints: &[u16],
    e: usize,
) {
    let m = &model[palette_joints[e] as usize];
    let product = mul_3x4_right_scalar(s, &load_3x4(s, m), bind_rows(&joint_from_bind[e]));
    store_3x4(s, &mut normals[e], normal_3x4(s, &product));
    store_3x4(s, &mut out[e], product);
}

/// Converts a group's lane palettes (the position matrices of every joint, as
/// [`run_group`] left them) into unit dual quaternions in place: entry `e`'s lane vectors
/// 0–7 become its rotation quaternion and dual part for each lane. Each matrix's 3×3 is
/// first divided by `scale`, the uniform scale common to every skinning matrix, which the
/// skin kernels apply to the bind position instead (`skin::method::dual_quat_scale`); what
/// remains must be rigid (`skin::SkinMethod::DualQuat` refuses rigs whose is not). Only
/// the entries of `set` are converted: the ones [`run_group`] wrote with the same set (an
/// entry converted twice would no longer be a matrix).
pub fn to_dual_quat(
    rig: &PreparedRig,
    out: PalettesMut,
    scale: f32,
    set: &JointSet,
) -> Result<(), PaletteError> {
    let layout = out.layout();
    let PalettesMut::Lanes(p) = out else {
        return Err(PaletteError::DualQuatLayout(layout));
    };
    check_set(rig, set)?;
    let n = rig.palette_len();
    if p.len() < n {
        return Err(PaletteError::OutputTooShort {
            given: p.len(),
            needed: n,
        });
    }
    dual_quat_dispatch(&mut p[..n], 1.0 / scale, set.entries());
    Ok(())
}

crate::dispatch_simd!(
    fn dual_quat_dispatch(palettes: &mut [Lanes3x4], unscale: f32, entries: &[u16]) -> () {
        dual_quat_kernel
    }
);

#[inline(always)]
fn dual_quat_kernel<S: Simd>(s: S, palettes: &mut [Lanes3x4], unscale: f32, entries: &[u16]) {
    let unscale = s.splat(unscale);
    for &e in entries {
        let p = &mut palettes[e as usize];
        let mut rigid = load_3x4(s, p);
        for row in rigid.chunks_exact_mut(4) {
            for e in &mut row[..3] {
                *e = s.mul(*e, unscale);
            }
        }
        let dq = dual_quat_from_3x4(s, &rigid);
        for (dst, v) in p.iter_mut().zip(dq) {
            s.store(dst, v);
        }
    }
}
