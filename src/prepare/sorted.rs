//! The influence-sorted mesh: what the sorted and lane skin kernels read, with the promises
//! they read it by held in the type.
//!
//! How it works: a [`SortedMesh`] can only be made by [`SortedMesh::from_parts`], which
//! checks every relation the kernels index by (class counts against the arrays, each
//! vertex's joints against the palette, the distinct runs against their arrays and the
//! mesh, every index against what it indexes) and computes [`SortedMesh::joint_bound`]
//! itself. Its fields are private and read through accessors, so no value a caller can
//! build or change breaks those relations: a kernel that skips a bounds check relies on
//! this type, not on whoever made its input. [`SortedMesh::into_parts`] gives the arrays
//! back, to change and check again. It also checks that each level of the mesh's LOD chain
//! has its vertices first in every class, so a kernel can skin a level as a prefix (a
//! correctness promise, not a memory one: a level only decides which places are written).
//! [`SortedMesh::class_runs`] cuts the classes where that level changes.

use super::MAX_CUT;
use crate::rig::MAX_INFLUENCES;
use crate::types::VertexF4;

/// Influence-sorted streams: class c (c + 1 influences) occupies vertices
/// `class_start(c)..class_start(c) + class_counts()[c]`. Its arrays are read, never
/// written, from outside:
///
/// ```compile_fail
/// let rig = skinbench::prepare::PreparedRig::reference();
/// let mut sorted = rig.mesh.sorted().clone();
/// sorted.joints[0] = 60_000; // no: the fields are private; see `into_parts`
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SortedMesh {
    class_counts: [usize; MAX_INFLUENCES],
    source: Vec<VertexF4>,
    uvs: Vec<[f32; 2]>,
    joints: Vec<u16>,
    weights: Vec<f32>,
    indices: Vec<u32>,
    original_of_sorted: Vec<u32>,
    deepest_levels: Vec<u8>,
    /// Runs of consecutive vertices of one class and one deepest level, no copies: what
    /// the kernels that skin every vertex walk.
    class_runs: Vec<Run>,
    joint_bound: usize,
    distinct: DistinctVertices,
    /// Per cut to 1..=[`MAX_CUT`] influences, the cut arrays, made on first ask.
    cuts: [std::sync::OnceLock<InfluenceCut>; MAX_CUT],
}

/// A [`SortedMesh`]'s influences with each vertex cut to its first `kept` (the heaviest:
/// a [`crate::rig::Mesh`] orders them so), renormalised exactly as
/// [`crate::rig::Mesh::reduced_to`] does, so the oracle's cut mesh holds the same weights
/// bit for bit. The vertices keep their sorted order, their runs and their output places:
/// only each run's influence count and the arrays it reads change, so a kernel skins a
/// level with its cut by reading these instead of the mesh's. Made only by
/// [`SortedMesh::cut`]: every joint index is one of the mesh's, below its
/// [`SortedMesh::joint_bound`].
#[derive(Clone, Debug, PartialEq)]
pub struct InfluenceCut {
    kept: usize,
    joint_bound: usize,
    class_runs: Vec<Run>,
    joints: Vec<u16>,
    weights: Vec<f32>,
    distinct_runs: Vec<Run>,
    distinct_joints: Vec<u16>,
    distinct_weights: Vec<f32>,
}

impl InfluenceCut {
    /// Influences a vertex keeps, at most.
    pub fn kept(&self) -> usize {
        self.kept
    }

    /// The mesh's [`SortedMesh::joint_bound`]: every joint index here is below it.
    pub fn joint_bound(&self) -> usize {
        self.joint_bound
    }

    /// How many influences a vertex of `influences` keeps.
    pub fn keeps(&self, influences: usize) -> usize {
        influences.min(self.kept)
    }

    /// [`SortedMesh::class_runs`] with each run's influences cut.
    pub fn class_runs(&self) -> &[Run] {
        &self.class_runs
    }

    /// [`SortedMesh::joints`], `keeps(c + 1)` per vertex of class `c`.
    pub fn joints(&self) -> &[u16] {
        &self.joints
    }

    /// [`SortedMesh::weights`], `keeps(c + 1)` per vertex of class `c` where that is more
    /// than one.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// [`DistinctVertices::runs`] with each run's influences cut.
    pub fn distinct_runs(&self) -> &[Run] {
        &self.distinct_runs
    }

    pub fn distinct_joints(&self) -> &[u16] {
        &self.distinct_joints
    }

    pub fn distinct_weights(&self) -> &[f32] {
        &self.distinct_weights
    }
}

/// `runs` over `joints` and `weights` with each vertex cut to its first `kept` influences,
/// renormalised as [`crate::rig::Mesh::reduced_to`] does.
fn cut_runs(
    runs: &[Run],
    joints: &[u16],
    weights: &[f32],
    kept: usize,
) -> (Vec<Run>, Vec<u16>, Vec<f32>) {
    let (mut cut_runs, mut cut_joints, mut cut_weights) = (Vec::new(), Vec::new(), Vec::new());
    let (mut j, mut w) = (0, 0);
    for run in runs {
        let k = run.influences;
        let m = k.min(kept);
        cut_runs.push(Run {
            influences: m,
            ..*run
        });
        for _ in 0..run.len {
            cut_joints.extend_from_slice(&joints[j..j + m]);
            j += k;
            if k > 1 {
                let given = &weights[w..w + k];
                w += k;
                if m == k {
                    cut_weights.extend_from_slice(given);
                } else if m > 1 {
                    let sum: f32 = given[..m].iter().sum();
                    cut_weights.extend(given[..m].iter().map(|x| x / sum));
                }
            }
        }
    }
    (cut_runs, cut_joints, cut_weights)
}

/// A stretch of consecutive vertices of one influence class that all have the same number
/// of copies and are drawn down to the same level of the mesh's chain: each of its `len`
/// vertices occupies `1 + copies` consecutive output slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// 1..=8.
    pub influences: usize,
    pub copies: usize,
    pub len: usize,
    /// The coarsest level of the mesh's chain whose triangles use one of its vertices (or
    /// copies): a character drawn at a coarser level skips the run.
    pub deepest_level: usize,
}

/// Skin input with copies folded. A mesh repeats a vertex wherever its UVs are split
/// (seams, unwrapped islands): same position, normal, joints and weights, so the same
/// skinned result. In sorted order every such vertex is followed directly by its copies;
/// these arrays hold only the first of each, in runs of equal copy count so a kernel can
/// store the result `1 + copies` times with a loop the branch predictor always gets right.
#[derive(Clone, Debug, PartialEq)]
pub struct DistinctVertices {
    runs: Vec<Run>,
    source: Vec<VertexF4>,
    joints: Vec<u16>,
    weights: Vec<f32>,
    distinct_of_sorted: Vec<u32>,
}

/// The arrays of a [`SortedMesh`], unchecked: what [`SortedMesh::from_parts`] checks.
#[derive(Clone, Debug, PartialEq)]
pub struct SortedParts {
    /// Vertices with 1, 2, … 8 influences.
    pub class_counts: [usize; MAX_INFLUENCES],
    pub source: Vec<VertexF4>,
    pub uvs: Vec<[f32; 2]>,
    /// Joint indices, `c + 1` per vertex of class `c`, classes in order.
    pub joints: Vec<u16>,
    /// Weights, `c + 1` per vertex of class `c` for c ≥ 1; none for 1-influence vertices.
    pub weights: Vec<f32>,
    /// Triangle list over the sorted vertices.
    pub indices: Vec<u32>,
    /// `original_of_sorted[i]` is the file-order index of sorted vertex `i`.
    pub original_of_sorted: Vec<u32>,
    /// Per sorted vertex, the coarsest level of the mesh's chain it is skinned for (the
    /// deepest any of its copies is drawn at); within a class never increasing, so each
    /// level's vertices are a prefix of every class.
    pub deepest_levels: Vec<u8>,
    pub distinct: DistinctParts,
}

/// The arrays of [`DistinctVertices`], unchecked.
#[derive(Clone, Debug, PartialEq)]
pub struct DistinctParts {
    pub runs: Vec<Run>,
    pub source: Vec<VertexF4>,
    pub joints: Vec<u16>,
    /// As in [`SortedParts::weights`]: none for one-influence vertices.
    pub weights: Vec<f32>,
    /// For each sorted vertex, the index of its distinct vertex (itself or the vertex it
    /// copies) in these arrays.
    pub distinct_of_sorted: Vec<u32>,
}

/// Why arrays do not make a sorted mesh: the first relation found broken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MeshError {
    #[error("{what} holds {given} entries; the mesh's counts need {needed}")]
    Length {
        what: &'static str,
        given: usize,
        needed: usize,
    },
    #[error("{what} entry {at} names joint {joint}; the palette has {palette_len} entries")]
    JointPastPalette {
        what: &'static str,
        at: usize,
        joint: u16,
        palette_len: usize,
    },
    #[error("{what} entry {at} is {index}, past the {count} it indexes")]
    IndexPast {
        what: &'static str,
        at: usize,
        index: u32,
        count: usize,
    },
    #[error("the triangle list holds {0} indices, not a multiple of 3")]
    PartialTriangle(usize),
    #[error("original_of_sorted names file vertex {0} twice")]
    NotPermutation(u32),
    #[error("distinct run {run} has {influences} influences; 1..={MAX_INFLUENCES} are allowed")]
    RunInfluences { run: usize, influences: usize },
    #[error("the distinct runs cover {covered} output vertices; the mesh has {vertices}")]
    RunsCover { covered: usize, vertices: usize },
    #[error("a count overflows: {0}")]
    Overflow(&'static str),
    #[error(
        "sorted vertex {at} is skinned down to level {level}, past the vertex before it in its \
         influence class: a level's vertices would not be a prefix of the class"
    )]
    LevelOrder { at: usize, level: u8 },
    #[error(
        "distinct run {run} skips levels past {run_level}, but it covers sorted vertex {at}, \
         drawn at level {level}"
    )]
    RunLevel {
        run: usize,
        run_level: usize,
        at: usize,
        level: u8,
    },
}

/// `Σ counts[c] * (c + 1)` over the classes in `classes`, checked.
fn per_class(counts: &[usize; MAX_INFLUENCES], skip_first: bool) -> Option<usize> {
    let first = usize::from(skip_first);
    (first..MAX_INFLUENCES).try_fold(0usize, |sum, c| {
        sum.checked_add(counts[c].checked_mul(c + 1)?)
    })
}

pub(crate) fn length(what: &'static str, given: usize, needed: usize) -> Result<(), MeshError> {
    if given == needed {
        Ok(())
    } else {
        Err(MeshError::Length {
            what,
            given,
            needed,
        })
    }
}

fn joints_below(what: &'static str, joints: &[u16], palette_len: usize) -> Result<(), MeshError> {
    match joints.iter().position(|&j| j as usize >= palette_len) {
        None => Ok(()),
        Some(at) => Err(MeshError::JointPastPalette {
            what,
            at,
            joint: joints[at],
            palette_len,
        }),
    }
}

/// Every entry of `indices` is below `count`.
pub(crate) fn indices_below(
    what: &'static str,
    indices: &[u32],
    count: usize,
) -> Result<(), MeshError> {
    match indices.iter().position(|&i| i as usize >= count) {
        None => Ok(()),
        Some(at) => Err(MeshError::IndexPast {
            what,
            at,
            index: indices[at],
            count,
        }),
    }
}

impl SortedMesh {
    /// Checks `parts` against each other and against a palette of `palette_len` entries,
    /// and makes the mesh. Every relation a kernel indexes by is checked here, once.
    pub fn from_parts(parts: SortedParts, palette_len: usize) -> Result<Self, MeshError> {
        let SortedParts {
            class_counts,
            source,
            uvs,
            joints,
            weights,
            indices,
            original_of_sorted,
            deepest_levels,
            distinct,
        } = parts;
        let n = source.len();
        let counted = class_counts
            .iter()
            .try_fold(0usize, |sum, &c| sum.checked_add(c))
            .ok_or(MeshError::Overflow("class counts"))?;
        length("source", n, counted)?;
        length("uvs", uvs.len(), n)?;
        length(
            "joints",
            joints.len(),
            per_class(&class_counts, false).ok_or(MeshError::Overflow("joints"))?,
        )?;
        length(
            "weights",
            weights.len(),
            per_class(&class_counts, true).ok_or(MeshError::Overflow("weights"))?,
        )?;
        joints_below("joints", &joints, palette_len)?;
        if !indices.len().is_multiple_of(3) {
            return Err(MeshError::PartialTriangle(indices.len()));
        }
        indices_below("indices", &indices, n)?;
        length("original_of_sorted", original_of_sorted.len(), n)?;
        indices_below("original_of_sorted", &original_of_sorted, n)?;
        let mut seen = vec![false; n];
        for &o in &original_of_sorted {
            if std::mem::replace(&mut seen[o as usize], true) {
                return Err(MeshError::NotPermutation(o));
            }
        }
        length("deepest_levels", deepest_levels.len(), n)?;
        let mut class_runs: Vec<Run> = Vec::new();
        let mut first = 0;
        for (c, &count) in class_counts.iter().enumerate() {
            for at in first..first + count {
                let level = deepest_levels[at];
                if at > first && level > deepest_levels[at - 1] {
                    return Err(MeshError::LevelOrder { at, level });
                }
                match class_runs.last_mut() {
                    Some(run) if at > first && run.deepest_level == level as usize => run.len += 1,
                    _ => class_runs.push(Run {
                        influences: c + 1,
                        copies: 0,
                        len: 1,
                        deepest_level: level as usize,
                    }),
                }
            }
            first += count;
        }
        let distinct = DistinctVertices::from_parts(distinct, n, palette_len)?;
        let mut at = 0;
        for (run, r) in distinct.runs.iter().enumerate() {
            let covers = r.len * (1 + r.copies);
            if let Some(k) =
                (at..at + covers).find(|&s| deepest_levels[s] as usize > r.deepest_level)
            {
                return Err(MeshError::RunLevel {
                    run,
                    run_level: r.deepest_level,
                    at: k,
                    level: deepest_levels[k],
                });
            }
            at += covers;
        }
        // One more than the largest joint either array names: a palette this long is read
        // by every kernel without a check per influence.
        let joint_bound = joints
            .iter()
            .chain(&distinct.joints)
            .map(|&j| j as usize + 1)
            .max()
            .unwrap_or(0);
        Ok(SortedMesh {
            class_counts,
            source,
            uvs,
            joints,
            weights,
            indices,
            original_of_sorted,
            deepest_levels,
            class_runs,
            joint_bound,
            distinct,
            cuts: Default::default(),
        })
    }

    /// The influences cut to `kept` (1..=[`MAX_CUT`]; clamped), made on first ask.
    pub fn cut(&self, kept: usize) -> &InfluenceCut {
        let kept = kept.clamp(1, MAX_CUT);
        self.cuts[kept - 1].get_or_init(|| {
            let (class_runs, joints, weights) =
                cut_runs(&self.class_runs, &self.joints, &self.weights, kept);
            let d = &self.distinct;
            let (distinct_runs, distinct_joints, distinct_weights) =
                cut_runs(&d.runs, &d.joints, &d.weights, kept);
            InfluenceCut {
                kept,
                joint_bound: self.joint_bound,
                class_runs,
                joints,
                weights,
                distinct_runs,
                distinct_joints,
                distinct_weights,
            }
        })
    }

    /// The same mesh with every source position (the sorted and the distinct vertices')
    /// multiplied by `scale`: dual-quaternion skinning's input where the rig's skinning
    /// matrices share a scale (`skin::method`). Joints, weights and runs are unchanged, so
    /// what the type guarantees holds as it did.
    pub fn with_positions_scaled(&self, scale: f32) -> SortedMesh {
        let mut scaled = self.clone();
        for v in scaled.source.iter_mut().chain(&mut scaled.distinct.source) {
            for c in &mut v.position[..3] {
                *c *= scale;
            }
        }
        scaled
    }

    /// The arrays, to change and check again with [`SortedMesh::from_parts`].
    pub fn into_parts(self) -> SortedParts {
        let d = self.distinct;
        SortedParts {
            class_counts: self.class_counts,
            source: self.source,
            uvs: self.uvs,
            joints: self.joints,
            weights: self.weights,
            indices: self.indices,
            original_of_sorted: self.original_of_sorted,
            deepest_levels: self.deepest_levels,
            distinct: DistinctParts {
                runs: d.runs,
                source: d.source,
                joints: d.joints,
                weights: d.weights,
                distinct_of_sorted: d.distinct_of_sorted,
            },
        }
    }

    /// Vertices with 1, 2, … 8 influences.
    pub fn class_counts(&self) -> &[usize; MAX_INFLUENCES] {
        &self.class_counts
    }

    /// The vertices in sorted order: their sum of `class_counts`.
    pub fn source(&self) -> &[VertexF4] {
        &self.source
    }

    pub fn uvs(&self) -> &[[f32; 2]] {
        &self.uvs
    }

    /// Joint indices, `c + 1` per vertex of class `c`, classes in order; each below
    /// [`SortedMesh::joint_bound`].
    pub fn joints(&self) -> &[u16] {
        &self.joints
    }

    /// Weights, `c + 1` per vertex of class `c` for c ≥ 1; none for 1-influence vertices.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Triangle list over the sorted vertices.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// `original_of_sorted()[i]` is the file-order index of sorted vertex `i` (a
    /// permutation).
    pub fn original_of_sorted(&self) -> &[u32] {
        &self.original_of_sorted
    }

    /// Per sorted vertex, the coarsest level of the mesh's chain it is skinned for.
    pub fn deepest_levels(&self) -> &[u8] {
        &self.deepest_levels
    }

    /// The vertices as runs of one class and one deepest level (no copies), classes in
    /// order, each class's coarsest run first.
    pub fn class_runs(&self) -> &[Run] {
        &self.class_runs
    }

    /// Per class, how many of its first vertices a character drawn at level `level`
    /// needs skinned (every class's vertices at level 0).
    pub fn class_prefix(&self, level: usize) -> [usize; MAX_INFLUENCES] {
        let mut prefix = [0; MAX_INFLUENCES];
        for run in &self.class_runs {
            if run.deepest_level >= level {
                prefix[run.influences - 1] += run.len;
            }
        }
        prefix
    }

    /// One more than the largest joint index in `joints` or in the distinct vertices'
    /// joints: a palette of at least this many matrices is read without per-influence
    /// bounds checks.
    pub fn joint_bound(&self) -> usize {
        self.joint_bound
    }

    /// The same vertices with copies folded: what the `distinct` variant skins.
    pub fn distinct(&self) -> &DistinctVertices {
        &self.distinct
    }

    /// Vertex count.
    pub fn len(&self) -> usize {
        self.source.len()
    }

    pub fn is_empty(&self) -> bool {
        self.source.is_empty()
    }

    /// First sorted vertex of influence class `c` (0-based: c = influences - 1).
    pub fn class_start(&self, c: usize) -> usize {
        self.class_counts[..c].iter().sum()
    }

    /// Offset of class `c`'s first joint index in `joints`.
    pub fn joint_offset(&self, c: usize) -> usize {
        (0..c).map(|k| self.class_counts[k] * (k + 1)).sum()
    }

    /// Offset of class `c`'s first weight in `weights` (class 0 stores none).
    pub fn weight_offset(&self, c: usize) -> usize {
        (1..c.max(1)).map(|k| self.class_counts[k] * (k + 1)).sum()
    }
}

impl DistinctVertices {
    /// Checks the runs against their arrays, the sorted mesh's `vertices` output vertices
    /// and a palette of `palette_len` entries.
    fn from_parts(
        parts: DistinctParts,
        vertices: usize,
        palette_len: usize,
    ) -> Result<Self, MeshError> {
        let DistinctParts {
            runs,
            source,
            joints,
            weights,
            distinct_of_sorted,
        } = parts;
        let overflow = || MeshError::Overflow("distinct runs");
        let (mut len, mut joint_count, mut weight_count, mut covered) =
            (0usize, 0usize, 0usize, 0usize);
        for (i, r) in runs.iter().enumerate() {
            if !(1..=MAX_INFLUENCES).contains(&r.influences) {
                return Err(MeshError::RunInfluences {
                    run: i,
                    influences: r.influences,
                });
            }
            len = len.checked_add(r.len).ok_or_else(overflow)?;
            let influences = r.len.checked_mul(r.influences).ok_or_else(overflow)?;
            joint_count = joint_count.checked_add(influences).ok_or_else(overflow)?;
            if r.influences > 1 {
                weight_count = weight_count.checked_add(influences).ok_or_else(overflow)?;
            }
            let slots = r
                .copies
                .checked_add(1)
                .and_then(|c| c.checked_mul(r.len))
                .ok_or_else(overflow)?;
            covered = covered.checked_add(slots).ok_or_else(overflow)?;
        }
        length("distinct source", source.len(), len)?;
        length("distinct joints", joints.len(), joint_count)?;
        length("distinct weights", weights.len(), weight_count)?;
        if covered != vertices {
            return Err(MeshError::RunsCover { covered, vertices });
        }
        joints_below("distinct joints", &joints, palette_len)?;
        length("distinct_of_sorted", distinct_of_sorted.len(), vertices)?;
        indices_below("distinct_of_sorted", &distinct_of_sorted, source.len())?;
        Ok(DistinctVertices {
            runs,
            source,
            joints,
            weights,
            distinct_of_sorted,
        })
    }

    /// Runs of equal influence and copy count, covering the sorted mesh's vertices.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The distinct vertices, `Σ runs.len` of them.
    pub fn source(&self) -> &[VertexF4] {
        &self.source
    }

    pub fn joints(&self) -> &[u16] {
        &self.joints
    }

    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// For each sorted vertex, the index of its distinct vertex (itself or the vertex it
    /// copies) in these arrays: how the GPU finds a copy's result when only distinct
    /// vertices are stored (`pulled`).
    pub fn distinct_of_sorted(&self) -> &[u32] {
        &self.distinct_of_sorted
    }

    /// Output vertices the runs cover (the sorted mesh's vertex count).
    pub fn output_len(&self) -> usize {
        self.runs.iter().map(|r| r.len * (1 + r.copies)).sum()
    }
}
