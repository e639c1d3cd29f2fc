//! `skinbench pose`: one instance's skinned mesh at one time, as a file any viewer opens.
//!
//! How it works: one instance is put on the chosen clip and time and run through the same
//! [`Pipeline`] as the app, into an [`OutputBuffer`]; its vertices are decoded through
//! the variant's [`OutputLayout`](crate::skin::OutputLayout), the same read-back verify
//! uses, so they come out in the rig file's own vertex order (the order `inspect` counts)
//! whatever order and layout the variant stores. The mesh (positions, unit normals, the
//! rig's UVs and index buffer) is written as glTF binary or Wavefront OBJ, whole or not at
//! all: the bytes go to a temporary file in the same folder, renamed over the target at
//! the end.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::Vec3;

use crate::crowd::instances::Instance;
use crate::crowd::pipeline::{FrameError, Pipeline, PipelineConfig};
use crate::crowd::timing::Stage;
use crate::crowd::verify::{FrameDeviation, verify_stages_at_levels};
use crate::prepare::PreparedRig;
use crate::rig::glb::write_mesh_glb;
use crate::skin::{BufferError, Dest, OutputBuffer};

/// Why `pose` could not write its file.
#[derive(Debug, thiserror::Error)]
pub enum PoseError {
    #[error("rig {rig} has no clip named {given:?}; its clips: {valid}")]
    UnknownClip {
        rig: String,
        given: String,
        valid: String,
    },
    #[error("--time {0} is not a finite number of seconds ≥ 0")]
    Time(f32),
    #[error(
        "--skin {0} skins on the GPU, and pose runs the CPU pipeline alone: pose with a CPU \
         variant, or check {0} in the app (--skin {0} --frames N --verify)"
    )]
    SkinsOnGpu(&'static str),
    #[error("{}: the output must end in .glb or .obj", .0.display())]
    Extension(PathBuf),
    #[error("cannot write {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "--mesh-lod {given}: {rig}'s mesh LOD chain has {} (0 to {}; `skinbench inspect` \
         lists them)",
        if *levels == 1 { "1 level".to_string() } else { format!("{levels} levels") },
        levels - 1
    )]
    MeshLevel {
        rig: String,
        given: usize,
        levels: usize,
    },
    #[error(transparent)]
    Frame(#[from] FrameError),
    #[error(transparent)]
    Budget(#[from] crate::crowd::budget::BudgetError),
    #[error(transparent)]
    Buffer(#[from] BufferError),
}

/// The file formats `pose` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshFormat {
    Glb,
    Obj,
}

impl MeshFormat {
    /// The format a path's extension names.
    pub fn of(path: &Path) -> Result<Self, PoseError> {
        match path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .as_deref()
        {
            Some("glb") => Ok(MeshFormat::Glb),
            Some("obj") => Ok(MeshFormat::Obj),
            _ => Err(PoseError::Extension(path.to_path_buf())),
        }
    }
}

/// One instance's skinned mesh in the rig file's vertex order.
pub struct PosedMesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    /// How far this frame is from the f64 oracles.
    pub deviation: FrameDeviation,
    pub clip: Option<String>,
    pub time_secs: f32,
    /// The level of the mesh's LOD chain whose triangles the file gets (0: the full mesh).
    pub mesh_level: usize,
}

/// Poses `rig` with `config`'s variants: `clip` by name (default: the first clip, or the
/// rest pose for a rig without clips) at `time_secs` (looping over the clip).
pub fn pose(
    rig: Arc<PreparedRig>,
    clip: Option<&str>,
    time_secs: f32,
    config: PipelineConfig,
) -> Result<PosedMesh, PoseError> {
    pose_at_level(rig, clip, time_secs, config, 0)
}

/// [`pose`] as a character drawn at level `mesh_level` of the mesh's LOD chain: posed for
/// that level (its joints, the ones it holds at rest held: `skin::joint_merges`), the
/// level's vertices skinned and verified against the oracle posed the same way. The
/// vertices the level's triangles do not use are skinned where the variant's layout
/// skins them with the level's (a class's prefix), and left at the origin elsewhere.
pub fn pose_at_level(
    rig: Arc<PreparedRig>,
    clip: Option<&str>,
    time_secs: f32,
    config: PipelineConfig,
    mesh_level: usize,
) -> Result<PosedMesh, PoseError> {
    if !(time_secs.is_finite() && time_secs >= 0.0) {
        return Err(PoseError::Time(time_secs));
    }
    if !config.skin.skins_on_cpu() {
        return Err(PoseError::SkinsOnGpu(config.skin.spec().name));
    }
    let clip_index = match clip {
        None => 0,
        Some(name) => match crate::prepare::clip::find_clip(&rig.clips, name) {
            Some(i) => i,
            None => {
                return Err(PoseError::UnknownClip {
                    rig: rig.name.clone(),
                    given: name.to_string(),
                    valid: if rig.clips.is_empty() {
                        "none".to_string()
                    } else {
                        crate::prepare::clip::short_names(rig.clips.iter().map(|c| c.name.as_str()))
                            .iter()
                            .map(|n| format!("{n:?}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                });
            }
        },
    };
    let instance = Instance {
        time_secs,
        speed: 1.0,
        ground_position: [0.0, 0.0],
        // A clip index past the list samples the rest pose (a rig without clips).
        clip: clip_index.min(u16::MAX as usize) as u16,
        blend_clip: clip_index.min(u16::MAX as usize) as u16,
        material: 0,
    };
    let instances = [instance];
    crate::crowd::budget::check(
        &rig,
        &config,
        1,
        0,
        &crate::crowd::budget::Budget::this_machine(None),
    )?;
    let mut pipeline = Pipeline::new(rig.clone(), config)?;
    let mut out = OutputBuffer::for_instances(pipeline.output_layout(), 1);
    let levels = rig.mesh_chain().levels().len();
    if mesh_level >= levels {
        return Err(PoseError::MeshLevel {
            rig: rig.name.clone(),
            given: mesh_level,
            levels,
        });
    }
    // One group, posed and skinned for the level (level 0: the plain frame).
    let skin_levels = [mesh_level as u8];
    let skin_levels: &[u8] = if mesh_level == 0 { &[] } else { &skin_levels };
    {
        let all = 0..1;
        let mut outs = [Dest::from_mut(out.as_bytes_mut())];
        pipeline.run_groups_at_levels_into(
            &instances,
            std::slice::from_ref(&all),
            skin_levels,
            &mut outs,
            Stage::Skin,
        )?;
    }
    let (positions, normals) =
        pipeline
            .output_layout()
            .read_instance(&rig.mesh, out.as_bytes(), 0)?;
    let deviation = verify_stages_at_levels(
        &mut pipeline,
        &instances,
        out.as_bytes(),
        1,
        skin_levels,
        &[],
    )?;
    Ok(PosedMesh {
        positions,
        normals: normals.iter().map(|n| n.normalize_or_zero()).collect(),
        deviation,
        clip: rig.clips.get(clip_index).map(|c| c.name.clone()),
        time_secs,
        mesh_level,
    })
}

impl PosedMesh {
    /// The file's bytes in `format`, with `rig`'s UVs and the triangles of level
    /// `mesh_level` of its mesh's LOD chain.
    pub fn encode(&self, rig: &PreparedRig, format: MeshFormat) -> Vec<u8> {
        let mesh = &rig.source_mesh;
        let indices = rig.mesh_chain().level_indices(self.mesh_level);
        match format {
            MeshFormat::Glb => write_mesh_glb(
                &rig.name,
                &self.positions,
                &self.normals,
                &mesh.uvs,
                indices,
                concat!("skinbench pose ", env!("CARGO_PKG_VERSION")),
            ),
            MeshFormat::Obj => {
                use std::fmt::Write as _;
                let mut s = String::new();
                let _ = writeln!(
                    s,
                    "# skinbench pose: {} clip {} at {} s, vertices in the rig file's order",
                    rig.name,
                    self.clip.as_deref().unwrap_or("(rest pose)"),
                    self.time_secs
                );
                for p in &self.positions {
                    let _ = writeln!(s, "v {} {} {}", p.x, p.y, p.z);
                }
                for n in &self.normals {
                    let _ = writeln!(s, "vn {} {} {}", n.x, n.y, n.z);
                }
                // OBJ's v runs up the image; glTF's down.
                for t in &mesh.uvs {
                    let _ = writeln!(s, "vt {} {}", t.x, 1.0 - t.y);
                }
                for tri in indices.chunks_exact(3) {
                    let [a, b, c] = [tri[0] + 1, tri[1] + 1, tri[2] + 1];
                    let _ = writeln!(s, "f {a}/{a}/{a} {b}/{b}/{b} {c}/{c}/{c}");
                }
                s.into_bytes()
            }
        }
    }

    /// Writes the file whole or not at all (a temporary file renamed over `path`).
    pub fn write(&self, rig: &PreparedRig, path: &Path) -> Result<(), PoseError> {
        let format = MeshFormat::of(path)?;
        let bytes = self.encode(rig, format);
        let write_err = |source| PoseError::Write {
            path: path.to_path_buf(),
            source,
        };
        let name = path
            .file_name()
            .ok_or_else(|| write_err(std::io::ErrorKind::InvalidInput.into()))?;
        let temp = path.with_file_name(format!(".{}.partial", name.to_string_lossy()));
        std::fs::write(&temp, &bytes).map_err(write_err)?;
        std::fs::rename(&temp, path).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            write_err(e)
        })
    }
}
