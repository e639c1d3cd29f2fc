//! palette: `model_from_joint * joint_from_bind` per joint, in the layout the skinning
//! variant reads.
//!
//! How it works: the hierarchy's representation (tree, 4×4 array, QVS, or lanes) is read
//! as a matrix per (instance, joint), multiplied by the joint's inverse bind matrix and
//! written as a 4×4 (`naive` … `sorted`), a 3×4 (`tuned`) or into lane layout (`simd`).
//! From lanes to lanes the product is done eight instances at a time. Every combination is
//! its own monomorphized loop, so no per-element dispatch remains.

use glam::Mat4;

use super::hierarchy::ModelPoses;
use crate::prepare::PreparedRig;
use crate::simd::{Simd, load_3x4, mul_3x4_right_scalar, rows_3x4, store_3x4};
use crate::types::{LANES, Lanes3x4, Mat3x4};

/// The palette layout a skinning variant reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaletteLayout {
    Mat4,
    Mat3x4,
    Lanes,
}

/// One group's palettes (instance `k` at `k * joint_stride`; lanes: one entry per joint).
pub enum PalettesMut<'a> {
    Mat4(&'a mut [Mat4]),
    Mat3x4(&'a mut [Mat3x4]),
    Lanes(&'a mut [Lanes3x4]),
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
    let e = |r: usize, c: usize| m[r * 4 + c].0[k];
    Mat4::from_cols_array_2d(&[
        [e(0, 0), e(1, 0), e(2, 0), 0.0],
        [e(0, 1), e(1, 1), e(2, 1), 0.0],
        [e(0, 2), e(1, 2), e(2, 2), 0.0],
        [e(0, 3), e(1, 3), e(2, 3), 1.0],
    ])
}

fn set_lane(m: &mut Lanes3x4, k: usize, p: &Mat4) {
    for r in 0..3 {
        let row = p.row(r);
        m[r * 4].0[k] = row.x;
        m[r * 4 + 1].0[k] = row.y;
        m[r * 4 + 2].0[k] = row.z;
        m[r * 4 + 3].0[k] = row.w;
    }
}

#[inline(always)]
fn each(
    active: usize,
    joints: usize,
    get: impl Fn(usize, usize) -> Mat4,
    mut put: impl FnMut(usize, usize, Mat4),
    joint_from_bind: &[Mat4],
) {
    for k in 0..active {
        for (i, bind) in joint_from_bind.iter().enumerate().take(joints) {
            put(k, i, get(k, i) * *bind);
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
}

/// Checks that `model` and `out` hold `active` instances of `rig`'s joints.
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
    // Per-instance arrays are `joint_stride` apart; lane arrays hold one entry per joint.
    let per_instance = (active - 1) * rig.joint_stride + n;
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
        PalettesMut::Mat4(p) => (p.len(), per_instance),
        PalettesMut::Mat3x4(p) => (p.len(), per_instance),
        PalettesMut::Lanes(p) => (p.len(), n),
    };
    if given < needed {
        return Err(PaletteError::OutputTooShort { given, needed });
    }
    Ok(())
}

/// Runs the palette stage for one group of `active` (≤ LANES) instances, validated first.
pub fn run_group(
    rig: &PreparedRig,
    model: ModelPoses,
    out: PalettesMut,
    active: usize,
) -> Result<(), PaletteError> {
    validate(rig, &model, &out, active)?;
    let n = rig.joint_count();
    let s = rig.joint_stride;
    let jfb = &rig.skeleton.joint_from_bind;
    macro_rules! from {
        ($get:expr) => {
            match out {
                PalettesMut::Mat4(p) => each(active, n, $get, |k, i, m| p[k * s + i] = m, jfb),
                PalettesMut::Mat3x4(p) => each(
                    active,
                    n,
                    $get,
                    |k, i, m| p[k * s + i] = Mat3x4::from_mat4(&m),
                    jfb,
                ),
                PalettesMut::Lanes(p) => {
                    each(active, n, $get, |k, i, m| set_lane(&mut p[i], k, &m), jfb)
                }
            }
        };
    }
    match model {
        ModelPoses::Tree(trees) => from!(|k: usize, i: usize| trees[k].joints[i].global),
        ModelPoses::Mat4(m) => from!(|k: usize, i: usize| m[k * s + i]),
        ModelPoses::Qvs(q) => from!(|k: usize, i: usize| q[k * s + i].to_mat4()),
        ModelPoses::Lanes(m) => match out {
            PalettesMut::Lanes(p) => lanes_to_lanes(rig, m, p),
            out => {
                let get = |k: usize, i: usize| lane_matrix(&m[i], k);
                match out {
                    PalettesMut::Mat4(p) => each(active, n, get, |k, i, m| p[k * s + i] = m, jfb),
                    PalettesMut::Mat3x4(p) => each(
                        active,
                        n,
                        get,
                        |k, i, m| p[k * s + i] = Mat3x4::from_mat4(&m),
                        jfb,
                    ),
                    PalettesMut::Lanes(_) => unreachable!("handled above"),
                }
            }
        },
    }
    Ok(())
}

fn lanes_to_lanes(rig: &PreparedRig, model: &[Lanes3x4], out: &mut [Lanes3x4]) {
    let n = rig.joint_count();
    lanes_dispatch(
        &model[..n],
        &mut out[..n],
        &rig.skeleton.joint_from_bind[..n],
    );
}

crate::dispatch_simd!(
    fn lanes_dispatch(model: &[Lanes3x4], out: &mut [Lanes3x4], joint_from_bind: &[Mat4]) -> () {
        lanes_kernel
    }
);

#[inline(always)]
fn lanes_kernel<S: Simd>(s: S, model: &[Lanes3x4], out: &mut [Lanes3x4], joint_from_bind: &[Mat4]) {
    for ((m, p), bind) in model.iter().zip(out.iter_mut()).zip(joint_from_bind) {
        let product = mul_3x4_right_scalar(s, &load_3x4(s, m), &rows_3x4(bind));
        store_3x4(s, p, product);
    }
}
