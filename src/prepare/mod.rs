//! prepare: the asset-pipeline step of Stefan Reinalter's "Adventures in data-oriented design – Part 4: Skinning it to 11",
//! done once at load time.
//!
//! How it works: from the imported [`Mesh`] it derives every vertex layout the skinning
//! variants read, so that no variant pays for a conversion at run time:
//!
//! - the article's first version: one interleaved stream (position, normal, uv as float3,
//!   float3, float2) that is skinned *and* copied every frame;
//! - split streams: the skinned stream (position, normal) apart from the unskinned one
//!   (uv), which is uploaded to the GPU once;
//! - the float4 layout: position and normal padded to four floats, 16-byte aligned, so a
//!   vertex is loaded and stored as whole SIMD registers;
//! - influence-sorted: vertices reordered so all 1-influence vertices come first, then 2,
//!   3, … up to 8, with the index buffer remapped and the eight class counts kept. Joint indices
//!   and weights are packed per class (k per vertex), and 1-influence vertices store no
//!   weight at all since it is always 1. Within a class, vertices are ordered by their
//!   joints (consecutive vertices reuse the same palette matrices, which stay in L1), and
//!   every copy of a vertex (same position, normal, joints and weights: a UV seam) comes
//!   right after it;
//! - distinct: the same order with the copies folded into runs of equal copy count, for the
//!   `distinct` variant, which skins each distinct vertex once, and each sorted vertex's
//!   distinct index, for `pulled`, which stores only those.
//!
//! Nothing here is per frame; the kernels in `skin` only read these arrays.

pub mod cache;
pub mod clip;
pub mod content;
pub mod joint_sets;
pub mod material_uv;
pub mod mesh_lod;
pub mod parallel;
pub mod scale;
mod sorted;

pub use sorted::{
    DistinctParts, DistinctVertices, InfluenceCut, MeshError, Run, SortedMesh, SortedParts,
};

use crate::rig::materials::Materials;
use crate::rig::{MAX_INFLUENCES, Mesh};
pub use material_uv::MaterialUv;

pub use crate::types::{
    PACKED_NORMAL_TOLERANCE, VertexF3, VertexF4, VertexInterleaved, VertexPacked, pack_normal,
    unpack_normal,
};

/// Every vertex layout of one mesh. Made only by [`PreparedMesh::new`], which checks the
/// mesh once; its fields are private, so the file-order arrays always have
/// `vertex_count` entries, every joint index names a palette entry and every triangle
/// index a vertex, whoever holds the value.
#[derive(Clone, Debug, PartialEq)]
pub struct PreparedMesh {
    vertex_count: usize,
    palette_len: usize,
    interleaved: Vec<VertexInterleaved>,
    source_f3: Vec<VertexF3>,
    source_f4: Vec<VertexF4>,
    uvs: Vec<[f32; 2]>,
    material_uv: MaterialUv,
    joints4: Vec<[u16; 4]>,
    weights4: Vec<[f32; 4]>,
    indices: Vec<u32>,
    sorted: SortedMesh,
    /// The simplifier's chain over the file order ([`mesh_lod::MeshChain::simplify`]).
    simplified: mesh_lod::MeshChain,
    /// Per level of that chain past the full mesh, the vertices its triangles use (file
    /// order, ascending).
    level_vertices: Vec<Vec<u32>>,
    /// Per level of the chain (the full mesh first), its vertices with 1, 2, … 8
    /// influences: what a count of the influences its vertices blend reads.
    level_classes: Vec<[usize; MAX_INFLUENCES]>,
    /// Per cut to 1..=[`MAX_CUT`] influences, `weights4` cut, made on first ask.
    weights4_cuts: [std::sync::OnceLock<Vec<[f32; 4]>>; MAX_CUT],
}

impl PreparedMesh {
    /// Derives all layouts. `palette_len` is the skeleton's palette's: every joint index of
    /// the mesh must name an entry below it, every triangle index a vertex, and every
    /// per-vertex array hold one entry a vertex (the importer makes meshes so; a mesh built
    /// by hand is checked here, once, so the kernels need not check per vertex).
    pub fn new(mesh: &Mesh, palette_len: usize) -> Result<Self, MeshError> {
        PreparedMesh::with_materials(mesh, palette_len, &Materials::default())
    }

    /// [`PreparedMesh::new`], each vertex's uv carrying the material `materials` draws it
    /// with ([`MaterialUv`]): the uv stream is what the fragment shader reads.
    pub fn with_materials(
        mesh: &Mesh,
        palette_len: usize,
        materials: &Materials,
    ) -> Result<Self, MeshError> {
        let vertex_count = mesh.vertex_count();
        sorted::length("normals", mesh.normals.len(), vertex_count)?;
        sorted::length("uvs", mesh.uvs.len(), vertex_count)?;
        sorted::length("joints", mesh.joints.len(), vertex_count)?;
        sorted::length("weights", mesh.weights.len(), vertex_count)?;
        if let Some(at) = mesh
            .joints
            .iter()
            .flatten()
            .position(|&j| j as usize >= palette_len)
        {
            return Err(MeshError::JointPastPalette {
                what: "the mesh's joints",
                at: at / MAX_INFLUENCES,
                joint: mesh.joints[at / MAX_INFLUENCES][at % MAX_INFLUENCES],
                palette_len,
            });
        }
        if !mesh.indices.len().is_multiple_of(3) {
            return Err(MeshError::PartialTriangle(mesh.indices.len()));
        }
        sorted::indices_below("the mesh's indices", &mesh.indices, vertex_count)?;
        let material_uv =
            MaterialUv::for_mesh(mesh.uvs.iter().map(|t| t.x), materials.materials.len());
        let material_of = materials.per_vertex(vertex_count);
        let uvs: Vec<[f32; 2]> = (0..vertex_count)
            .map(|v| {
                let material = material_of.as_ref().map_or(0, |m| m[v]);
                material_uv.encode(mesh.uvs[v].to_array(), material)
            })
            .collect();
        let interleaved = (0..vertex_count)
            .map(|v| VertexInterleaved {
                position: mesh.positions[v].to_array(),
                normal: mesh.normals[v].to_array(),
                uv: uvs[v],
            })
            .collect();
        let source_f3: Vec<VertexF3> = (0..vertex_count)
            .map(|v| VertexF3 {
                position: mesh.positions[v].to_array(),
                normal: mesh.normals[v].to_array(),
            })
            .collect();
        let f4 = |v: usize| VertexF4 {
            position: mesh.positions[v].extend(1.0).to_array(),
            normal: mesh.normals[v].extend(0.0).to_array(),
        };
        let source_f4: Vec<VertexF4> = (0..vertex_count).map(f4).collect();

        let classes: Vec<usize> = (0..vertex_count)
            .map(|v| mesh.influence_count(v) - 1)
            .collect();
        // The geometric LOD chain first: its levels order the sorted vertices (below).
        let simplified = mesh_lod::MeshChain::simplify(&source_f3, &mesh.indices);
        let deepest = simplified.deepest_levels_file(vertex_count);
        let level_vertices: Vec<Vec<u32>> = (1..simplified.levels().len() as u32)
            .map(|l| {
                (0..vertex_count as u32)
                    .filter(|&v| deepest[v as usize] >= l)
                    .collect()
            })
            .collect();
        let mut level_classes = vec![[0usize; MAX_INFLUENCES]; simplified.levels().len().max(1)];
        for (v, &class) in classes.iter().enumerate() {
            let deepest = (deepest[v] as usize).min(level_classes.len() - 1);
            for classes_at in &mut level_classes[..=deepest] {
                classes_at[class] += 1;
            }
        }
        // Copies: vertices whose skin input (position, normal, joints, weights: bit for
        // bit) equals an earlier vertex's. `first_of[v]` is the earliest such vertex.
        let skin_key = |v: usize| {
            let n = classes[v] + 1;
            let mut key: Vec<u32> = Vec::with_capacity(6 + 2 * n);
            key.extend(mesh.positions[v].to_array().map(f32::to_bits));
            key.extend(mesh.normals[v].to_array().map(f32::to_bits));
            key.extend(mesh.joints[v][..n].iter().map(|&j| j as u32));
            key.extend(mesh.weights[v][..n].iter().map(|w| w.to_bits()));
            key
        };
        let mut first_with_key = std::collections::HashMap::new();
        let first_of: Vec<usize> = (0..vertex_count)
            .map(|v| *first_with_key.entry(skin_key(v)).or_insert(v))
            .collect();
        let mut copies = vec![0usize; vertex_count];
        for (v, &first) in first_of.iter().enumerate() {
            if first != v {
                copies[first] += 1;
            }
        }
        // A vertex and its copies are skinned together, down to the deepest level any of
        // them is drawn at.
        let mut group_deepest = vec![0u8; vertex_count];
        for (v, &first) in first_of.iter().enumerate() {
            group_deepest[first] = group_deepest[first].max(deepest[v] as u8);
        }
        // Sorted by influence count, then deepest level (coarsest first), then copy count,
        // then joints, then each distinct vertex followed by its copies. Coarsest first
        // makes a level's vertices a prefix of each class, so a character drawn at a
        // coarse level skins only that prefix. Ordering by joints keeps consecutive
        // vertices on the same few palette matrices: a group's lane palette (384 bytes a
        // joint, 37 KB for the reference rig) does not fit L1, the few in use at a time do.
        let joints_of = |v: usize| {
            let mut j = [0u16; MAX_INFLUENCES];
            j[..classes[v] + 1].copy_from_slice(&mesh.joints[v][..classes[v] + 1]);
            j
        };
        let mut original_of_sorted: Vec<u32> = (0..vertex_count as u32).collect();
        original_of_sorted.sort_by_key(|&v| {
            let first = first_of[v as usize];
            (
                classes[first],
                std::cmp::Reverse(group_deepest[first]),
                copies[first],
                joints_of(first),
                first,
                v,
            )
        });
        let mut sorted_of_original = vec![0u32; vertex_count];
        for (s, &o) in original_of_sorted.iter().enumerate() {
            sorted_of_original[o as usize] = s as u32;
        }
        let mut class_counts = [0usize; MAX_INFLUENCES];
        for &c in &classes {
            class_counts[c] += 1;
        }
        let mut joints = Vec::new();
        let mut weights = Vec::new();
        for &o in &original_of_sorted {
            let o = o as usize;
            let n = classes[o] + 1;
            joints.extend_from_slice(&mesh.joints[o][..n]);
            if n > 1 {
                weights.extend_from_slice(&mesh.weights[o][..n]);
            }
        }
        let mut distinct = DistinctParts {
            runs: Vec::new(),
            source: Vec::new(),
            joints: Vec::new(),
            weights: Vec::new(),
            distinct_of_sorted: Vec::with_capacity(vertex_count),
        };
        for &o in &original_of_sorted {
            let o = o as usize;
            // A copy comes right after its vertex (and that vertex's other copies), so
            // its distinct index is the last one pushed.
            if first_of[o] != o {
                distinct
                    .distinct_of_sorted
                    .push(distinct.source.len() as u32 - 1);
                continue;
            }
            distinct
                .distinct_of_sorted
                .push(distinct.source.len() as u32);
            let run = Run {
                influences: classes[o] + 1,
                copies: copies[o],
                len: 1,
                deepest_level: group_deepest[o] as usize,
            };
            match distinct.runs.last_mut() {
                Some(last)
                    if (last.influences, last.copies, last.deepest_level)
                        == (run.influences, run.copies, run.deepest_level) =>
                {
                    last.len += 1
                }
                _ => distinct.runs.push(run),
            }
            distinct.source.push(f4(o));
            distinct
                .joints
                .extend_from_slice(&mesh.joints[o][..run.influences]);
            if run.influences > 1 {
                distinct
                    .weights
                    .extend_from_slice(&mesh.weights[o][..run.influences]);
            }
        }
        let sorted = SortedMesh::from_parts(
            SortedParts {
                class_counts,
                source: original_of_sorted.iter().map(|&o| f4(o as usize)).collect(),
                uvs: original_of_sorted
                    .iter()
                    .map(|&o| uvs[o as usize])
                    .collect(),
                joints,
                weights,
                indices: mesh
                    .indices
                    .iter()
                    .map(|&i| sorted_of_original[i as usize])
                    .collect(),
                deepest_levels: original_of_sorted
                    .iter()
                    .map(|&o| group_deepest[first_of[o as usize]])
                    .collect(),
                original_of_sorted,
                distinct,
            },
            palette_len,
        )?;
        Ok(PreparedMesh {
            vertex_count,
            palette_len,
            interleaved,
            source_f3,
            source_f4,
            uvs,
            material_uv,
            joints4: mesh
                .joints
                .iter()
                .map(|j| [j[0], j[1], j[2], j[3]])
                .collect(),
            weights4: mesh
                .weights
                .iter()
                .map(|w| [w[0], w[1], w[2], w[3]])
                .collect(),
            indices: mesh.indices.clone(),
            sorted,
            simplified,
            level_vertices,
            level_classes,
            weights4_cuts: Default::default(),
        })
    }

    /// The simplifier's chain over the file order, bind-mesh units (the rig states it in
    /// model units: [`PreparedData::mesh_chain`]).
    pub(crate) fn simplified(&self) -> &mesh_lod::MeshChain {
        &self.simplified
    }

    /// The vertices level `level` of the mesh's chain draws (a level past the coarsest:
    /// the coarsest's), file order, ascending; `None` for the full mesh (every vertex).
    pub fn level_vertices(&self, level: usize) -> Option<&[u32]> {
        let coarser = level.checked_sub(1)?;
        self.level_vertices
            .get(coarser.min(self.level_vertices.len().checked_sub(1)?))
            .map(Vec::as_slice)
    }

    /// Levels of the mesh's chain, the full mesh included (1 where it has no chain).
    pub fn level_count(&self) -> usize {
        self.level_classes.len()
    }

    /// Per influence count (class), how many of the vertices level `level` draws have it
    /// (a level past the coarsest: the coarsest's; the full mesh: every vertex), file
    /// order's own vertices, copies included.
    pub fn level_classes(&self, level: usize) -> [usize; MAX_INFLUENCES] {
        self.level_classes[level.min(self.level_classes.len() - 1)]
    }

    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Entries of the skinning palette the joint indices name (`Skeleton::palette_len`).
    pub fn palette_len(&self) -> usize {
        self.palette_len
    }

    /// File order, the interleaved vertex of the first version (position, normal, uv).
    pub fn interleaved(&self) -> &[VertexInterleaved] {
        &self.interleaved
    }

    /// File order, split float3 skinned stream.
    pub fn source_f3(&self) -> &[VertexF3] {
        &self.source_f3
    }

    /// File order, float4 skinned stream.
    pub fn source_f4(&self) -> &[VertexF4] {
        &self.source_f4
    }

    /// File order, the unskinned stream: each vertex's uv, moved along u by its
    /// material's slot ([`PreparedMesh::material_uv`]; a single material moves nothing).
    pub fn uvs(&self) -> &[[f32; 2]] {
        &self.uvs
    }

    /// How the uv stream carries each vertex's material.
    pub fn material_uv(&self) -> MaterialUv {
        self.material_uv
    }

    /// File order, always four influences (unused ones weigh 0).
    pub fn joints4(&self) -> &[[u16; 4]] {
        &self.joints4
    }

    pub fn weights4(&self) -> &[[f32; 4]] {
        &self.weights4
    }

    /// [`PreparedMesh::weights4`] with each vertex cut to its first `kept` influences
    /// (the heaviest), renormalised as [`Mesh::reduced_to`] does and the others weighing
    /// 0: what the four-influence kernels blend at a level that cuts (`kept` clamped to
    /// 1..=4; four cuts nothing). Made on first ask.
    pub fn weights4_cut(&self, kept: usize) -> &[[f32; 4]] {
        let kept = kept.clamp(1, MAX_CUT);
        if kept >= 4 {
            return &self.weights4;
        }
        self.weights4_cuts[kept - 1].get_or_init(|| {
            self.weights4
                .iter()
                .map(|w| {
                    if w[kept..].iter().all(|&x| x == 0.0) {
                        return *w;
                    }
                    let sum: f32 = w[..kept].iter().sum();
                    std::array::from_fn(|i| if i < kept { w[i] / sum } else { 0.0 })
                })
                .collect()
        })
    }

    /// File order triangle list.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// The influence-sorted layouts.
    pub fn sorted(&self) -> &SortedMesh {
        &self.sorted
    }
}

/// Everything the per-frame pipeline reads about one rig, shared by all instances
/// (behind an `Arc`; never copied per instance). Made only by [`PreparedRig::new`] (or the
/// constructors built on it), which checks the rig first; it derefs to its
/// [`PreparedData`] for reading and never for writing, so what was checked stays true and
/// the kernels may rely on it:
///
/// ```compile_fail
/// let rig = skinbench::prepare::PreparedRig::reference();
/// let other = skinbench::prepare::PreparedRig::built_in(skinbench::rig::generate::BuiltInRig::Twist);
/// rig.mesh = other.mesh.clone(); // no: a prepared rig is read-only
/// ```
#[derive(Debug)]
pub struct PreparedRig {
    data: PreparedData,
}

impl std::ops::Deref for PreparedRig {
    type Target = PreparedData;

    fn deref(&self) -> &PreparedData {
        &self.data
    }
}

/// Why a rig cannot be prepared: a promise of the rig's types that a rig built by hand
/// broke (an imported rig keeps them all).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrepareError {
    #[error(transparent)]
    Rig(#[from] crate::rig::RigError),
    #[error("the mesh: {0}")]
    Mesh(#[from] MeshError),
}

/// What a [`PreparedRig`] holds, read through it.
#[derive(Debug)]
pub struct PreparedData {
    /// File name or "reference", for messages and reports.
    pub name: String,
    /// What the measurements of the rig depend on, hashed ([`content::ContentHash`]): the
    /// key of the measurements kept on disk.
    pub content_hash: content::ContentHash,
    pub skeleton: crate::rig::Skeleton,
    pub clips: Vec<clip::ClipRt>,
    pub mesh: PreparedMesh,
    /// The imported mesh, file order (cut to `--max-influences` where given): the input of
    /// the reference skinning (what every kernel skins).
    pub source_mesh: Mesh,
    /// The file's base colours and which vertices each covers (none for a rig made in
    /// code); the uv stream carries each vertex's ([`PreparedMesh::material_uv`]).
    pub materials: Materials,
    /// The imported mesh as the file has it (up to eight influences), where a cut changed
    /// any vertex.
    pub uncut_mesh: Option<Mesh>,
    /// The most influences any vertex of `source_mesh` has (what a skin variant's
    /// `max_influences` is checked against, also by the panel every frame).
    pub max_influences: usize,
    /// Rest pose as the runtime transform type.
    pub rest_pose: Vec<crate::types::Qvs>,
    /// Joint count rounded up to a multiple of 4, so every per-instance array of 48- or
    /// 64-byte elements is a whole number of cache lines.
    pub joint_stride: usize,
    /// Palette entries ([`crate::rig::Skeleton::palette_len`]) rounded up the same way:
    /// the distance between the position matrices of two instances' palettes.
    pub palette_entry_stride: usize,
    /// Each palette entry's inverse bind matrix (`Skeleton::joint_from_bind`) as three
    /// rows: what the lane palette kernels multiply by. A `Mat4` is stored by columns, and
    /// taking its rows apart per entry and frame cost the kernel a dozen shuffles and a
    /// trip through the stack.
    pub joint_from_bind_rows: Vec<crate::types::Mat3x4>,
    /// The character's size in model space ([`crate::rig::Rig::model_size`]): what every
    /// "of the rig size" figure and every tolerance is relative to.
    pub model_size: f32,
    /// Why `flat_qvs` cannot pose this rig exactly, if it cannot.
    pub shear_reason: Option<String>,
    /// Each root's folded ancestor transform as QVS (used by `flat_qvs`).
    pub root_parent_qvs: Vec<crate::types::Qvs>,
    /// Why normals need each joint's own normal matrix, if they do (decided once, here):
    /// then the palette stage writes a normal matrix after each instance's position
    /// matrices and every skin variant blends those for the normal.
    pub normal_matrix_reason: Option<String>,
    /// Every local scale a frame can hold is exactly 1: the rest pose's are and no clip
    /// animates scale (the blend's lerp of 1 and 1 stays exactly 1 for weights in 0..=1:
    /// `1 - w` rounds by less than half a step below 1, and ties round to 1). The `simd`
    /// hierarchy then neither loads nor multiplies the scales, which changes no bit.
    pub unit_scale: bool,
    /// Where the rig needs no own normal matrices: an upper bound on how much a palette
    /// matrix lengthens a vector ([`scale::palette_stretch_bound`]), so on how long a
    /// normal blended from them can be (times [`PreparedData::longest_normal`]).
    pub palette_stretch: Option<f32>,
    /// The longest normal of the mesh (files should store unit normals; not all do).
    pub longest_normal: f32,
    pub summary: crate::rig::RigSummary,
    /// The one uniform scale dual-quaternion skinning factors out of every skinning
    /// matrix (1 where they are rigid), or why it cannot skin this rig: filled by
    /// `skin::method` on first ask, since finding out samples every clip through the
    /// hierarchy (a layer above this one).
    /// Crate-private: a fit set from outside could name a mesh of another rig.
    pub(crate) dual_quat_fit: std::sync::OnceLock<Result<DualQuatFit, NotRigid>>,
    /// The mesh's geometric LOD chain, made on first ask ([`PreparedData::mesh_chain`]).
    mesh_chain: std::sync::OnceLock<mesh_lod::MeshChain>,
    /// The vertices the mesh's triangles use ([`PreparedRig::drawn_vertices`]).
    drawn_vertices: std::sync::OnceLock<Vec<u32>>,
    /// Each mesh level's joints ([`PreparedData::level_joint_sets`]).
    level_joint_sets: std::sync::OnceLock<Vec<joint_sets::JointSet>>,
    /// Every joint and entry ([`PreparedData::all_joints`]).
    all_joints: std::sync::OnceLock<joint_sets::JointSet>,
    /// Per joint, whether a clip animates it ([`PreparedRig::animated_joints`]).
    animated_joints: std::sync::OnceLock<Vec<bool>>,
    /// The full mesh's merges: none ([`PreparedRig::full_mesh_merges`]).
    full_mesh_merges: std::sync::OnceLock<LevelMerges>,
    /// Each level's error measured over the clips' poses, model units: filled by
    /// `skin::mesh_lod` on first ask (it skins through the hierarchy, a layer above).
    pub(crate) mesh_level_errors: std::sync::OnceLock<MeshLevelErrors>,
}

/// What measuring a chain's levels over the clips found.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MeshLevelErrors {
    /// Per level, the bound a switch to it is allowed to cost, model units (0 for the full
    /// mesh; never smaller than a finer level's): its surface's distance from the full
    /// mesh's, its held joints at rest and its influences cut.
    pub errors: Vec<f32>,
    /// Per level, how many influences its vertices keep and what that moves.
    pub influences: Vec<LevelInfluences>,
    /// Per level, the joints a character posed for it holds at their rest pose.
    pub merges: Vec<LevelMerges>,
    /// Per level, the joints a character posed for it with linear blending needs: its
    /// vertices' influences cut to the level's `fits` ([`joint_sets::cut_joint_sets`]), so
    /// the joints only a cut influence named are neither sampled, walked nor written.
    /// `None` where nothing is cut: the level's whole set
    /// ([`PreparedRig::level_joint_sets`]), not kept twice.
    #[serde(skip)]
    pub cut_sets: Vec<Option<joint_sets::JointSet>>,
    /// Per level, [`Self::merges`] for [`Self::cut_sets`]: the held joints of the cut set,
    /// and the lane tracks of its joints not held (`None` where nothing is cut: the
    /// level's own merges, whose lane tracks are not copied).
    #[serde(skip)]
    pub cut_merges: Vec<Option<LevelMerges>>,
    /// Per level, the largest distance between the surfaces found between the measured
    /// poses (`skin::tracked_bound`) where it passed what the poses found (0 elsewhere):
    /// its `1 + POSE_MARGIN` times is part of the level's error.
    pub between_poses: Vec<f64>,
    /// Poses measured.
    pub poses: usize,
    pub measure_secs: f64,
}

/// Influence cuts measured: to 1 to this many influences (engines' usual vertex formats
/// hold four).
pub const MAX_CUT: usize = 4;

/// What cutting one level's influences does (`skin::influence_cuts`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LevelInfluences {
    /// Per cut to 1..=[`MAX_CUT`] influences, the largest movement of the level's vertices,
    /// model units, margin included (0 where no vertex has more influences than the cut).
    pub moved: [f64; MAX_CUT],
    /// The fewest influences whose cut leaves the level's error as it was, and every
    /// coarser level's (`skin::influence_cuts`); `None`: every influence. With linear
    /// blending the CPU's kernels and `gpu_compute` skin the level's vertices with this many.
    pub fits: Option<usize>,
}

/// The joints one level of the mesh's chain holds at their rest pose: their tracks are
/// not sampled, so what they carry follows their parent rigidly (`skin::joint_merges`
/// measures which).
#[derive(Clone, Debug, serde::Serialize)]
pub struct LevelMerges {
    /// Joints of the level's set a clip animates.
    pub animated: usize,
    /// The joints held at their rest pose, ascending.
    pub held: Vec<usize>,
    /// The largest movement of the level's vertices with them held, model units, margin
    /// included (0 where none is held).
    pub moved: f64,
    /// Per joint of the skeleton, whether it is held: the samplers' O(1) check.
    #[serde(skip)]
    is_held: Vec<bool>,
    /// Per clip, the rotation lane tracks a character posed for the level samples (its
    /// set's joints less the held ones), in blocks of their own ([`Self::with_lanes`];
    /// empty: not made, the clip's own lanes by level blocks).
    #[serde(skip)]
    lanes: Vec<Option<clip::LaneRotations>>,
}

/// Two levels' merges are the same when they hold the same joints: the lane tracks are
/// made from those and the rig's clips.
impl PartialEq for LevelMerges {
    fn eq(&self, other: &Self) -> bool {
        self.animated == other.animated && self.held == other.held && self.moved == other.moved
    }
}

impl LevelMerges {
    /// `held` (joints of a skeleton of `joints` joints; any past it is left out) out of
    /// `animated`, moving the level's vertices at most `moved`.
    pub fn new(animated: usize, held: Vec<usize>, moved: f64, joints: usize) -> Self {
        let mut is_held = vec![false; joints];
        let held: Vec<usize> = held.into_iter().filter(|&j| j < joints).collect();
        for &j in &held {
            is_held[j] = true;
        }
        LevelMerges {
            animated,
            held,
            moved,
            is_held,
            lanes: Vec::new(),
        }
    }

    /// With, per clip of `clips`, the rotation lane tracks of the joints of `set` this
    /// level does not hold, so sampling for the level evaluates no block of another
    /// joint's.
    pub fn with_lanes(mut self, clips: &[clip::ClipRt], set: &joint_sets::JointSet) -> Self {
        self.lanes = clips
            .iter()
            .map(|clip| {
                let lanes = clip.lane_rotations.as_ref()?;
                Some(lanes.select(|j| set.contains(j) && !self.holds(j)))
            })
            .collect();
        self
    }

    /// Clip `clip`'s rotation lane tracks this level samples (`None`: not made, or the
    /// clip has none).
    pub fn lanes(&self, clip: usize) -> Option<&clip::LaneRotations> {
        self.lanes.get(clip)?.as_ref()
    }

    /// Nothing held (the full mesh, or no clip).
    pub fn none(animated: usize, joints: usize) -> Self {
        LevelMerges::new(animated, Vec::new(), 0.0, joints)
    }

    /// Animated joints of the level's set a character posed for it samples: those not held.
    pub fn sampled(&self) -> usize {
        self.animated.saturating_sub(self.held.len())
    }

    /// Whether joint `joint` is held at rest (false past the skeleton).
    pub fn holds(&self, joint: usize) -> bool {
        self.is_held.get(joint).copied().unwrap_or(false)
    }
}

/// How dual-quaternion skinning takes a rig whose skinning matrices all carry one uniform
/// scale: the scale, and (where it is not 1) the sorted mesh with its bind positions
/// multiplied by it, the lane kernels' input.
#[derive(Clone, Debug)]
pub struct DualQuatFit {
    pub scale: f32,
    pub scaled_mesh: Option<SortedMesh>,
}

/// Why dual quaternions cannot skin a rig: one joint's skinning matrix is not the rig's
/// common scale times a rotation, at one moment of the rest pose or a clip.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "joint {joint}'s skinning matrix {what} {when}; dual quaternions blend rotations and \
     translations with one scale common to every joint. To skin this rig with them, take \
     the scale out of the file (in Blender: Apply Scale to the armature, then export) or use \
     --method linear"
)]
pub struct NotRigid {
    /// The joint's name.
    pub joint: String,
    /// What its matrix does besides rotating by the common scale, in words.
    pub what: String,
    /// When: in the rest pose, or a clip and a time.
    pub when: String,
}

impl PreparedRig {
    /// Checks `rig` ([`crate::rig::Rig::check`] and [`PreparedMesh::new`]) and derives
    /// everything the frame reads.
    pub fn new(
        rig: crate::rig::Rig,
        report: &crate::rig::ImportReport,
        name: &str,
    ) -> Result<Self, PrepareError> {
        PreparedRig::with_max_influences(rig, report, name, MAX_INFLUENCES)
    }

    /// As [`PreparedRig::new`], each vertex cut to its `max_influences` heaviest
    /// influences (renormalised): what the skin variants with fewer classes need, and
    /// what `--max-influences` asks for.
    pub fn with_max_influences(
        mut rig: crate::rig::Rig,
        report: &crate::rig::ImportReport,
        name: &str,
        max_influences: usize,
    ) -> Result<Self, PrepareError> {
        rig.check()?;
        let summary = crate::rig::RigSummary::new(&rig, report);
        let (cut, cut_vertices) = rig.mesh.reduced_to(max_influences);
        let uncut_mesh = (cut_vertices > 0).then(|| std::mem::replace(&mut rig.mesh, cut));
        let joint_count = rig.skeleton.joint_count();
        let palette_len = rig.skeleton.palette_len();
        let mesh = PreparedMesh::with_materials(&rig.mesh, palette_len, &rig.materials)?;
        let shear_reason = scale::shear_reason(&rig.skeleton, &rig.clips);
        let clips: Vec<clip::ClipRt> = rig.clips.iter().map(clip::ClipRt::new).collect();
        let root_parent_qvs = scale::root_parents(&rig.skeleton);
        let normal_matrix_reason = scale::normal_matrix_reason(&rig.skeleton, &rig.clips);
        let rest_pose: Vec<crate::types::Qvs> = rig
            .skeleton
            .rest_pose
            .iter()
            .map(crate::types::Qvs::from)
            .collect();
        let unit_scale = rest_pose.iter().all(|q| q.scale == glam::Vec3A::ONE)
            && clips
                .iter()
                .all(|c| c.animated.iter().all(|a| a.scale.is_none()));
        let palette_stretch = normal_matrix_reason
            .is_none()
            .then(|| scale::palette_stretch_bound(&rig.skeleton, &rig.clips));
        let longest_normal = rig
            .mesh
            .normals
            .iter()
            .map(|n| n.length())
            .fold(0.0, f32::max);
        let joint_from_bind_rows = rig
            .skeleton
            .joint_from_bind
            .iter()
            .map(crate::types::Mat3x4::from_mat4)
            .collect();
        let content_hash = content::ContentHash::of(&rig.skeleton, &rig.mesh, &rig.clips);
        let mut prepared = PreparedRig {
            data: PreparedData {
                name: name.to_string(),
                content_hash,
                joint_from_bind_rows,
                joint_stride: joint_count.next_multiple_of(4),
                palette_entry_stride: palette_len.next_multiple_of(4),
                model_size: rig.model_size(),
                skeleton: rig.skeleton,
                clips,
                mesh,
                max_influences: rig.mesh.max_influences(),
                source_mesh: rig.mesh,
                materials: rig.materials,
                uncut_mesh,
                rest_pose,
                shear_reason,
                root_parent_qvs,
                normal_matrix_reason,
                unit_scale,
                palette_stretch,
                longest_normal,
                summary,
                dual_quat_fit: std::sync::OnceLock::new(),
                mesh_chain: std::sync::OnceLock::new(),
                drawn_vertices: std::sync::OnceLock::new(),
                level_joint_sets: std::sync::OnceLock::new(),
                all_joints: std::sync::OnceLock::new(),
                animated_joints: std::sync::OnceLock::new(),
                full_mesh_merges: std::sync::OnceLock::new(),
                mesh_level_errors: std::sync::OnceLock::new(),
            },
        };
        // The lane tracks coarsest level first, so a character sampled for a level
        // evaluates only the first blocks.
        let sets = prepared.level_joint_sets().to_vec();
        for clip in &mut prepared.data.clips {
            clip.order_by_level(&sets);
        }
        Ok(prepared)
    }

    /// The mesh's geometric LOD chain (made on first ask: meshoptimizer, milliseconds).
    pub fn mesh_chain(&self) -> &mesh_lod::MeshChain {
        self.mesh_chain.get_or_init(|| {
            let (min, max) = self.source_mesh.bounds();
            let bind_size = (max - min).length();
            let model_per_bind = if bind_size > 0.0 {
                self.model_size / bind_size
            } else {
                1.0
            };
            mesh_lod::MeshChain::new(&self.mesh, model_per_bind)
        })
    }

    /// Every joint and palette entry: what a character posed without a level of the chain
    /// needs.
    pub fn all_joints(&self) -> &joint_sets::JointSet {
        self.all_joints
            .get_or_init(|| joint_sets::JointSet::all(&self.skeleton))
    }

    /// What a character posed for the full mesh (level 0) holds at rest: nothing, its set's
    /// lane tracks in blocks of their own. Made on first ask without measuring anything, so
    /// a crowd drawn at full detail never waits for the coarse levels' measurement.
    pub fn full_mesh_merges(&self) -> &LevelMerges {
        self.full_mesh_merges.get_or_init(|| {
            let set = self.joints_at_level(0);
            let animated = self.animated_joints();
            let candidates = set.joints().filter(|&j| animated[j]).count();
            LevelMerges::none(candidates, self.joint_count()).with_lanes(&self.clips, set)
        })
    }

    /// Per joint, whether a track of some clip animates it (made on first ask).
    pub fn animated_joints(&self) -> &[bool] {
        self.animated_joints
            .get_or_init(|| self.find_animated_joints())
    }

    fn find_animated_joints(&self) -> Vec<bool> {
        let mut animated = vec![false; self.joint_count()];
        let mut mark = |joint: usize| {
            if let Some(a) = animated.get_mut(joint) {
                *a = true;
            }
        };
        for clip in &self.clips {
            for a in &clip.animated {
                mark(a.joint as usize);
            }
            if let Some(lanes) = &clip.lane_rotations {
                for &joint in &lanes.joints {
                    mark(joint as usize);
                }
            }
        }
        animated
    }

    /// The joints a character skinned for `level` of the chain needs (a level past the
    /// chain is its coarsest, as the skin kernels take it).
    pub fn joints_at_level(&self, level: usize) -> &joint_sets::JointSet {
        let sets = self.level_joint_sets();
        &sets[level.min(sets.len() - 1)]
    }

    /// Per level of the mesh LOD chain, the joints that move its vertices
    /// ([`joint_sets::level_joint_sets`]; made on first ask, at least one level).
    pub fn level_joint_sets(&self) -> &[joint_sets::JointSet] {
        self.level_joint_sets.get_or_init(|| {
            let chain = self.mesh_chain();
            let deepest = chain.deepest_levels_file(self.source_mesh.vertex_count());
            joint_sets::level_joint_sets(
                &self.skeleton,
                &self.source_mesh,
                &deepest,
                chain.levels().len(),
            )
        })
    }

    /// The vertices some triangle uses, ascending (file order): what is drawn, so what the
    /// load-time measurements over many poses skin. A file may carry many vertices no
    /// triangle uses (Quaternius's Knight: 2,868 of 209,364); they are skinned and
    /// written like every other, but measuring them would be time spent on nothing seen.
    pub fn drawn_vertices(&self) -> &[u32] {
        self.drawn_vertices.get_or_init(|| {
            let mut used = vec![false; self.source_mesh.vertex_count()];
            for &v in &self.source_mesh.indices {
                if let Some(u) = used.get_mut(v as usize) {
                    *u = true;
                }
            }
            (0..used.len() as u32)
                .filter(|&v| used[v as usize])
                .collect()
        })
    }

    /// The built-in reference rig, from the copy embedded in the binary.
    pub fn reference() -> Self {
        PreparedRig::built_in(crate::rig::generate::BuiltInRig::Reference)
    }

    /// A built-in rig, from the copy embedded in the binary.
    pub fn built_in(rig: crate::rig::generate::BuiltInRig) -> Self {
        PreparedRig::built_in_cut(rig, MAX_INFLUENCES)
    }

    /// [`PreparedRig::built_in`] with at most `max_influences` a vertex.
    pub fn built_in_cut(rig: crate::rig::generate::BuiltInRig, max_influences: usize) -> Self {
        let (loaded, report) = crate::rig::import_slice(rig.glb(), rig.asset_path(), None)
            .expect("the embedded rigs import (checked by tests)");
        PreparedRig::with_max_influences(loaded, &report, rig.name(), max_influences)
            .expect("the embedded rigs prepare (checked by tests)")
    }

    /// Imports and prepares a glTF file.
    pub fn load(path: &std::path::Path) -> Result<Self, crate::rig::ImportError> {
        PreparedRig::load_cut(path, MAX_INFLUENCES)
    }

    /// [`PreparedRig::load`] with at most `max_influences` a vertex.
    pub fn load_cut(
        path: &std::path::Path,
        max_influences: usize,
    ) -> Result<Self, crate::rig::ImportError> {
        let (rig, report) = crate::rig::import_path(path)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        // An imported rig keeps every promise `prepare` checks; should one not, the file
        // is named with what is wrong.
        PreparedRig::with_max_influences(rig, &report, &name, max_influences).map_err(|e| {
            crate::rig::ImportError {
                path: path.to_path_buf(),
                kind: crate::rig::import::ImportErrorKind::Invalid(e.to_string()),
            }
        })
    }

    pub fn joint_count(&self) -> usize {
        self.skeleton.joint_count()
    }

    /// Whether the palette carries a normal matrix per joint (see `normal_matrix_reason`).
    pub fn own_normal_matrices(&self) -> bool {
        self.normal_matrix_reason.is_some()
    }

    /// Entries of the skinning palette (one per distinct joint and inverse bind matrix).
    pub fn palette_len(&self) -> usize {
        self.skeleton.palette_len()
    }

    /// Palette matrices per instance (per group for lane palettes): the position
    /// matrices, `palette_entry_stride` of them, then as many normal matrices where the
    /// rig needs them.
    pub fn palette_stride(&self) -> usize {
        self.palette_entry_stride * (1 + self.own_normal_matrices() as usize)
    }

    /// Where an instance's normal matrices start in its palette: after the position
    /// matrices, or at 0 (the position matrices serve) where the rig needs none.
    pub fn normal_palette_offset(&self) -> usize {
        if self.own_normal_matrices() {
            self.palette_entry_stride
        } else {
            0
        }
    }

    pub fn vertex_count(&self) -> usize {
        self.mesh.vertex_count
    }
}
