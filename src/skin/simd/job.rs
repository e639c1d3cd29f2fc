//! A lane kernel's job: one group's input, palettes and output, checked together once.
//!
//! How it works: the lane kernels load palette matrices without a bounds check and store
//! through raw pointers into each instance's slice. What makes that sound is a set of
//! relations between the mesh, the palettes, the output and the layout; [`LaneJob::new`]
//! checks all of them (ozz's `Validate()`), and a `LaneJob` can be made no other way (its
//! fields are private to this module), so a kernel that holds one may rely on them
//! whoever called it. The kernels' inner functions are `unsafe fn`s whose contracts are
//! exactly these relations, met by the job they were handed.

use super::super::layout::{NormalEncoding, OutputLayout, Stores};
use super::super::output::{NormalCode, Outputs, Writer};
use super::super::{Dest, SkinMethod, Skins};
use crate::prepare::{InfluenceCut, PreparedRig, Run};
use crate::rig::MAX_INFLUENCES;
use crate::types::{LANES, Lanes3x4, VertexF4};

/// A kernel's input: runs of vertices with their skin input, `runs[i].len` vertices each,
/// of which those whose `deepest_level` reaches `level` are skinned (the others keep what
/// they held: the character's level does not draw them). A plain view: what it promises
/// comes from the [`LaneJob`] it was taken from.
#[derive(Clone, Copy)]
pub(super) struct Input<'a> {
    pub runs: &'a [Run],
    pub level: usize,
    pub source: &'a [VertexF4],
    pub joints: &'a [u16],
    pub weights: &'a [f32],
}

/// A group's lane palettes: joint `j`'s position matrices at `j`, its normal matrices at
/// `normals + j` (the same entries where the rig needs no own ones).
#[derive(Clone, Copy)]
pub(super) struct LanePalettes<'a> {
    matrices: &'a [Lanes3x4],
    normals: usize,
}

impl<'a> LanePalettes<'a> {
    /// Joint `j`'s position matrices.
    ///
    /// # Safety
    /// `j` must be one of the joint indices of the [`LaneJob`] these palettes came from
    /// (then `normals + j < matrices.len()`, checked by [`LaneJob::new`]).
    #[inline(always)]
    pub unsafe fn position(self, j: u16) -> &'a Lanes3x4 {
        // SAFETY: j < joint_bound <= matrices.len() - normals (the caller's promise).
        unsafe { self.matrices.get_unchecked(j as usize) }
    }

    /// Joint `j`'s normal matrices.
    ///
    /// # Safety
    /// As for [`LanePalettes::position`].
    #[inline(always)]
    pub unsafe fn normal(self, j: u16) -> &'a Lanes3x4 {
        // SAFETY: normals + j < normals + joint_bound <= matrices.len() (the caller's
        // promise).
        unsafe { self.matrices.get_unchecked(self.normals + j as usize) }
    }
}

/// How a group's results are stored: the writer, whether each distinct vertex's copies
/// are stored too, and how its normals are packed.
#[derive(Clone, Copy)]
pub(super) struct Storing {
    pub writer: Writer,
    pub copies: bool,
    pub normal: NormalCode,
}

/// Which loops a job runs (each a separately compiled entry point).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Loops {
    Linear,
    /// Linear, blending the rig's own normal matrices for the normal.
    OwnNormals,
    DualQuat,
}

/// One group's skinning, checked (see the module docs). Holding one means:
/// - every joint index of [`LaneJob::input`] is below the rig's joint bound, and the
///   palettes hold `normals + joint_bound` entries, so [`LanePalettes::position`] and
///   [`LanePalettes::normal`] may be called with any of them;
/// - the input's runs describe their arrays exactly (lengths, 1..=8 influences);
/// - `outs[k]` for `k < active` (or `outs[0]` for lane blocks, 32-byte aligned) is valid
///   for writing every output vertex the runs cover (with their copies where
///   `storing.copies`) in the writer's format, for as long as the job lives.
pub(super) struct LaneJob<'a> {
    runs: &'a [Run],
    level: usize,
    source: &'a [VertexF4],
    joints: &'a [u16],
    weights: &'a [f32],
    palettes: LanePalettes<'a>,
    outs: Outputs,
    active: usize,
    storing: Storing,
    loops: Loops,
    /// The output the pointers in `outs` point into, borrowed for the job's life.
    _out: Dest<'a, u8>,
}

impl<'a> LaneJob<'a> {
    /// Checks everything the loops rely on, once: the layout against the variant's and
    /// the rig's, the palettes' length against the joints, the output's size and
    /// alignment, the runs against their arrays and the output. Panics on a broken
    /// relation (`skin::run_group` refuses each with its typed error first). The group's
    /// characters are drawn at `level` of the mesh's chain or finer: the runs no such
    /// level draws are skipped (which only writes less).
    pub fn new(
        rig: &'a PreparedRig,
        palettes: &'a [Lanes3x4],
        mut out: Dest<'a, u8>,
        layout: &OutputLayout,
        active: usize,
        method: SkinMethod,
        level: usize,
    ) -> Self {
        // With dual quaternions, the bind pose times the rig's common skinning scale (the
        // same mesh where that is 1).
        let mesh = match method {
            SkinMethod::DualQuat => crate::skin::method::dual_quat_mesh(rig),
            SkinMethod::Linear => rig.mesh.sorted(),
        };
        // A level that cuts its vertices' influences reads the cut's runs and arrays: the
        // same vertices in the same places, fewer influences each.
        let cut = crate::skin::level_cut(rig, level, method);
        let (runs, source, joints, weights) = match (layout.variant().spec().skins, cut) {
            (Skins::DistinctOnce, None) => {
                let d = mesh.distinct();
                (d.runs(), d.source(), d.joints(), d.weights())
            }
            (Skins::DistinctOnce, Some(c)) => (
                c.distinct_runs(),
                mesh.distinct().source(),
                c.distinct_joints(),
                c.distinct_weights(),
            ),
            (Skins::EveryVertex, None) => (
                mesh.class_runs(),
                mesh.source(),
                mesh.joints(),
                mesh.weights(),
            ),
            (Skins::EveryVertex, Some(c)) => {
                (c.class_runs(), mesh.source(), c.joints(), c.weights())
            }
        };
        let copies = match layout.stores() {
            Stores::EveryVertex => true,
            Stores::DistinctOnly => false,
        };
        let Some(writer) = Writer::for_layout(layout) else {
            panic!("{:?} is not a lane kernel's layout", layout.variant());
        };
        assert!((1..=LANES).contains(&active), "{active} live lanes");
        let normals = rig.normal_palette_offset();
        let joint_bound = cut
            .map_or(0, InfluenceCut::joint_bound)
            .max(mesh.joint_bound());
        assert!(
            palettes.len() >= normals + joint_bound,
            "palette shorter than the mesh's joints"
        );
        // The input's joints are the sorted mesh's or its distinct vertices', all below
        // `joint_bound` (a `SortedMesh` computes its bound over both when it is made), or
        // a cut's, some of its mesh's, below the bound it carries (`InfluenceCut` is made
        // only by `SortedMesh::cut`).
        let run_list = runs;
        assert!(
            run_list
                .iter()
                .all(|r| (1..=MAX_INFLUENCES).contains(&r.influences))
        );
        assert_eq!(run_list.iter().map(|r| r.len).sum::<usize>(), source.len());
        assert_eq!(
            run_list.iter().map(|r| r.len * r.influences).sum::<usize>(),
            joints.len()
        );
        assert_eq!(
            run_list
                .iter()
                .filter(|r| r.influences > 1)
                .map(|r| r.len * r.influences)
                .sum::<usize>(),
            weights.len()
        );
        let covered = if copies {
            run_list
                .iter()
                .map(|r| r.len * (1 + r.copies))
                .sum::<usize>()
        } else {
            source.len()
        };
        assert_eq!(covered, layout.stored_vertices(), "layout of another mesh");
        assert!(
            out.len() >= layout.group_bytes_needed(active),
            "output too small"
        );
        let base = out.as_mut_ptr();
        assert!(
            (base as usize).is_multiple_of(layout.align())
                && layout.instance_stride().is_multiple_of(layout.align()),
            "output not aligned for the layout"
        );
        // Lanes past `active` (a partial last group) keep lane 0's pointer, so every
        // pointer is valid, but the stores skip them. Lane blocks use `outs[0]` only.
        let mut outs: Outputs = [base; LANES];
        if writer != Writer::Blocks {
            for (k, o) in outs.iter_mut().enumerate().take(active) {
                // SAFETY: k * stride <= (active - 1) * stride < group_bytes_needed(active)
                // <= out.len() (asserted above), so the pointer stays inside `out`.
                *o = unsafe { base.add(k * layout.instance_stride()) };
            }
        }
        // Own normal matrices give normals of any length, which are normalised before they
        // are packed; every other rig's normals are packed at the layout's fixed scale
        // (`NormalEncoding`), which the entry points are compiled for.
        let fixed_scale = match layout.normal_encoding() {
            NormalEncoding::Scaled { bound, .. } => Some(511.0 / bound.get()),
            NormalEncoding::Normalised => None,
            NormalEncoding::Floats => Some(0.0),
        };
        let own_normals = method == SkinMethod::Linear && rig.own_normal_matrices();
        assert!(
            layout.normal_encoding() == NormalEncoding::Floats
                || fixed_scale.is_some() != own_normals,
            "{:?} for a rig {} own normal matrices",
            layout.normal_encoding(),
            if own_normals { "with" } else { "without" }
        );
        LaneJob {
            runs,
            level,
            source,
            joints,
            weights,
            palettes: LanePalettes {
                matrices: palettes,
                normals,
            },
            outs,
            active,
            storing: Storing {
                writer,
                copies,
                normal: NormalCode {
                    scale: fixed_scale.unwrap_or(0.0),
                },
            },
            // Dual quaternions are rigid: the rotation is the normal's transform, so they
            // never read normal matrices.
            loops: match method {
                SkinMethod::DualQuat => Loops::DualQuat,
                SkinMethod::Linear if rig.own_normal_matrices() => Loops::OwnNormals,
                SkinMethod::Linear => Loops::Linear,
            },
            _out: out,
        }
    }

    pub fn input(&self) -> Input<'_> {
        Input {
            runs: self.runs,
            level: self.level,
            source: self.source,
            joints: self.joints,
            weights: self.weights,
        }
    }

    pub fn palettes(&self) -> LanePalettes<'a> {
        self.palettes
    }

    pub fn outs(&self) -> &Outputs {
        &self.outs
    }

    pub fn active(&self) -> usize {
        self.active
    }

    pub fn storing(&self) -> Storing {
        self.storing
    }

    pub fn loops(&self) -> Loops {
        self.loops
    }
}
