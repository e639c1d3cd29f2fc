//! glTF 2.0 import: `.gltf` / `.glb` → [`Rig`].
//!
//! How it works: the container (GLB header and chunks, or plain JSON) is parsed here so
//! that a truncated or mislabelled file gets a precise message; the JSON is then handed to
//! the `gltf` crate for schema validation and typed access. Buffers (GLB `BIN` chunk,
//! external files, `data:` URIs) are loaded here too, and every accessor is read by our
//! own bounds-checked reader (`accessor`), because a malformed file must produce an
//! error naming the file, never a panic.
//!
//! Then the character is gathered (`character`): everything the default scene draws
//! that a joint moves. Every skin a mesh node of the scene uses joins it when its joints
//! share a hierarchy with the others (a file may split one character over many skins);
//! a mesh node without a skin that hangs under a joint joins it as a rigid part. The
//! skeleton is rebuilt from the union of the skins' joints (`skeleton`): non-joint
//! nodes lying between two joints become joints, animated non-joint ancestors of the
//! skeleton become joints too (a joint's global transform includes every ancestor, glTF
//! 2.0 §3.7.3), the remaining static ancestors of the roots are folded into
//! `model_from_root_parent`, and the joints are ordered roots first, then depth-first. The
//! palette holds one entry per distinct (joint, inverse bind matrix) pair, so skins that
//! agree share it. The mesh (`mesh`) is every part's triangle primitives in node order;
//! a skinned vertex's joints are remapped to palette entries, a rigid part's vertices get
//! one influence on the entry that carries its node's global transform. Influences (both
//! glTF sets, JOINTS_0/1 and WEIGHTS_0/1) are reduced to the eight heaviest and
//! renormalized (`prepare` cuts them to what the skin kernels take). Animation channels on
//! joints become clip tracks (`clips`); channels on other nodes and morph weights are
//! counted and skipped.

mod accessor;
mod character;
mod clips;
mod materials;
mod mesh;
mod skeleton;

use std::path::{Path, PathBuf};

use base64::Engine as _;

use super::{MAX_JOINTS, Rig};

/// An import failure: the file and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", path.display())]
pub struct ImportError {
    pub path: PathBuf,
    pub kind: ImportErrorKind,
}

/// What is wrong with a file. Messages name the glTF object (accessor, mesh, node, ...)
/// so the problem can be found in the file.
#[derive(Debug, thiserror::Error)]
pub enum ImportErrorKind {
    #[error("cannot read the file: {0}")]
    Io(#[source] std::io::Error),
    #[error("this is a folder, not a .gltf or .glb file; {0}")]
    Folder(String),
    #[error("the file is empty")]
    Empty,
    #[error("not a glTF file: {0}")]
    NotGltf(String),
    #[error(
        "not a binary glTF file: it starts {}, where a .glb starts \"glTF\"{}",
        shown_bytes(found),
        what_it_is(found)
    )]
    BadGlbMagic { found: Vec<u8> },
    #[error("unsupported binary glTF version {0} (expected 2)")]
    UnsupportedGlbVersion(u32),
    #[error("truncated binary glTF: {0}")]
    TruncatedGlb(String),
    #[error("JSON syntax error at line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("invalid glTF: {0}")]
    Invalid(String),
    #[error("buffer {buffer}: cannot read external file {uri:?}: {source}")]
    MissingBuffer {
        buffer: usize,
        uri: String,
        #[source]
        source: std::io::Error,
    },
    #[error("buffer {buffer}: {detail}")]
    BadBuffer { buffer: usize, detail: String },
    #[error("{what}: out of range: {detail}")]
    OutOfRange { what: String, detail: String },
    #[error("{what}: wrong accessor type: expected {expected}, found {found}")]
    WrongAccessorType {
        what: String,
        expected: String,
        found: String,
    },
    #[error("no skinned mesh: {0}")]
    NoSkinnedMesh(String),
    #[error(
        "mesh {mesh} primitive {primitive}: vertex {vertex} uses joint {joint}, but the skin has only {joint_count} joints"
    )]
    JointIndexOutOfRange {
        mesh: usize,
        primitive: usize,
        vertex: usize,
        joint: u32,
        joint_count: usize,
    },
    #[error("the skeleton has {count} joints; at most {MAX_JOINTS} are supported (u16 indices)")]
    TooManyJoints { count: usize },
    #[error(
        "the skins bind {count} distinct (joint, inverse bind matrix) pairs; at most {MAX_JOINTS} \
         palette entries are supported (u16 indices)"
    )]
    TooManyPaletteEntries { count: usize },
    #[error(
        "the file requires the extension {0}, which skinbench does not decode (write the file \
         without it, e.g. `gltf-transform copy` or `gltfpack -noq` for compressed meshes)"
    )]
    RequiredExtension(String),
    #[error("{what}: value {index} is not finite ({value})")]
    NonFinite {
        what: String,
        index: usize,
        value: f32,
    },
    #[error("the node hierarchy has a cycle through node {node}")]
    Cycle { node: usize },
    #[error("node {node} is a child of both node {first_parent} and node {second_parent}")]
    SharedChild {
        node: usize,
        first_parent: usize,
        second_parent: usize,
    },
    #[error("{0}")]
    Unsupported(String),
}

/// What the importer did to the data on the way in, for `inspect` and the UI.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ImportReport {
    pub skins_in_file: usize,
    /// Every skin a mesh node of the default scene uses, in file order: what it holds and
    /// whether it became part of the character.
    pub skins: Vec<SkinPart>,
    /// Mesh nodes without a skin that hang under a joint: rigid parts of the character.
    pub attached_meshes: Vec<AttachedMesh>,
    /// Mesh nodes that are not part of the character, and why.
    pub left_out_meshes: Vec<LeftOutMesh>,
    /// Entries of the skinning palette: one per distinct (joint, inverse bind matrix).
    pub palette_entries: usize,
    /// (joint, inverse bind) pairs the skins list, before identical ones were shared.
    pub skin_bindings: usize,
    pub skinned_primitives: usize,
    pub skipped_primitives: usize,
    pub computed_normals: bool,
    pub missing_uvs: bool,
    /// Vertices that had more than eight non-zero influences and were cut to eight (the
    /// reduction to four for the skin kernels happens in `prepare`).
    pub reduced_influences: usize,
    /// Vertices whose weights did not sum to 1 (±1e-3) and were rescaled.
    pub renormalized_weights: usize,
    /// Vertices with no weight at all (every weight zero), bound rigidly to the first root
    /// joint: glTF requires weights that sum to 1, so there is no right answer to keep.
    pub unweighted_vertices: usize,
    /// Vertices that list the same joint more than once; its weights were added up (the
    /// skinning sum is the same either way).
    pub repeated_joint_vertices: usize,
    /// Non-joint nodes lying between two joints, added to the skeleton.
    pub inserted_joints: usize,
    /// Animated non-joint ancestors of the skeleton (and the nodes between them and it),
    /// added to the skeleton so their channels move it, as glTF's global transforms say.
    pub animated_ancestors: Vec<String>,
    pub ignored_node_channels: usize,
    pub ignored_morph_channels: usize,
    /// Unnamed single-part animations merged into one clip (0 when none were merged).
    pub merged_animations: usize,
    pub notes: Vec<String>,
}

/// One skin of the file that a mesh node of the default scene uses.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SkinPart {
    pub skin: usize,
    pub joints: usize,
    /// The mesh nodes it skins.
    pub mesh_nodes: Vec<usize>,
    /// Vertices of those nodes' triangle primitives.
    pub vertices: usize,
    /// Part of the character (merged with the other skins into one skeleton).
    pub merged: bool,
    /// Why it is not, where it is not.
    pub left_out: Option<String>,
}

/// A mesh node without a skin below a joint: it moves rigidly with its node.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct AttachedMesh {
    pub node: usize,
    pub name: String,
    /// The joint it hangs under (its own node where that is a joint).
    pub joint: String,
    pub vertices: usize,
}

/// A mesh node that is not part of the character.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LeftOutMesh {
    pub node: usize,
    pub name: String,
    pub vertices: usize,
    pub reason: String,
}

/// Reads a `.gltf` or `.glb` file.
pub fn import_path(path: &Path) -> Result<(Rig, ImportReport), ImportError> {
    let err = |kind| ImportError {
        path: path.to_path_buf(),
        kind,
    };
    if path.is_dir() {
        return Err(err(ImportErrorKind::Folder(rig_files_in(path))));
    }
    let bytes = std::fs::read(path).map_err(|e| err(ImportErrorKind::Io(e)))?;
    let is_glb_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    import_bytes(&bytes, path.parent(), is_glb_name).map_err(err)
}

/// What a folder given as a rig holds: its .gltf and .glb files (a few named), or that it
/// has none.
fn rig_files_in(folder: &Path) -> String {
    let mut files: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.extension().is_some_and(|x| {
                        x.eq_ignore_ascii_case("gltf") || x.eq_ignore_ascii_case("glb")
                    })
                })
                .map(|p| p.display().to_string())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    match files.len() {
        0 => "it holds no .gltf or .glb file".to_string(),
        n => {
            let shown = files.iter().take(6).cloned().collect::<Vec<_>>().join(", ");
            let more = if n > 6 {
                format!(" and {} more", n - 6)
            } else {
                String::new()
            };
            format!("it holds {shown}{more}")
        }
    }
}

/// Reads glTF from memory. `name` is used in error messages; external buffers are looked
/// up relative to `base_dir` (none: external buffers are an error).
pub fn import_slice(
    bytes: &[u8],
    name: &str,
    base_dir: Option<&Path>,
) -> Result<(Rig, ImportReport), ImportError> {
    let is_glb_name = name.to_ascii_lowercase().ends_with(".glb");
    import_bytes(bytes, base_dir, is_glb_name).map_err(|kind| ImportError {
        path: PathBuf::from(name),
        kind,
    })
}

type Result<T, E = ImportErrorKind> = std::result::Result<T, E>;

fn import_bytes(
    bytes: &[u8],
    base_dir: Option<&Path>,
    is_glb_name: bool,
) -> Result<(Rig, ImportReport)> {
    if bytes.is_empty() {
        return Err(ImportErrorKind::Empty);
    }
    let (json_bytes, bin) = split_container(bytes, is_glb_name)?;
    let root = gltf::json::Root::from_slice(json_bytes).map_err(|e| ImportErrorKind::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    check_required_extensions(&root)?;
    check_position_accessors(&root)?;
    let document = gltf::Document::from_json(root).map_err(|e| match e {
        gltf::Error::Validation(errors) => ImportErrorKind::Invalid(
            errors
                .iter()
                .take(8)
                .map(|(path, error)| format!("{path}: {error}"))
                .collect::<Vec<_>>()
                .join("; "),
        ),
        other => ImportErrorKind::Invalid(other.to_string()),
    })?;
    check_channel_targets(&document)?;
    let buffers = load_buffers(&document, bin, base_dir)?;
    let input_bytes = bytes.len() + buffers.iter().map(Vec::len).sum::<usize>();
    Importer {
        document: &document,
        buffers,
        base_dir,
        material_runs: Vec::new(),
        input_bytes,
        report: ImportReport::default(),
    }
    .run()
}

/// An extension the file requires changes what its data means (Draco or meshopt
/// compression leaves accessors without buffer views), so the file is refused with the
/// extension's name instead of a confusing complaint about the data.
fn check_required_extensions(root: &gltf::json::Root) -> Result<()> {
    match root.extensions_required.first() {
        Some(name) => Err(ImportErrorKind::RequiredExtension(name.clone())),
        None => Ok(()),
    }
}

/// The gltf crate's own validation indexes a primitive's POSITION accessor without a bounds
/// check (to look at its `min` and `max`), so a file whose POSITION names an accessor past
/// the list panicked inside `Document::from_json`. Checked here first. (Found by the
/// `import_json` fuzz target.)
fn check_position_accessors(root: &gltf::json::Root) -> Result<()> {
    let accessor_count = root.accessors.len();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let position = gltf::json::validation::Checked::Valid(gltf::Semantic::Positions);
            if let Some(index) = primitive.attributes.get(&position)
                && index.value() >= accessor_count
            {
                return Err(ImportErrorKind::Invalid(format!(
                    "meshes[{m}].primitives[{p}].attributes.POSITION: accessor {} does not exist (the file has {accessor_count})",
                    index.value()
                )));
            }
        }
    }
    Ok(())
}

/// The gltf crate's validation skips animation channel targets (its `Animation` checks
/// only sampler indices), and its accessors then panic on a node index past the list or a
/// path it could not parse, so they are checked here, as the validator would report them.
/// (Found by the `import_json` fuzz target.)
fn check_channel_targets(document: &gltf::Document) -> Result<()> {
    let node_count = document.as_json().nodes.len();
    for (a, animation) in document.as_json().animations.iter().enumerate() {
        for (c, channel) in animation.channels.iter().enumerate() {
            let at = format!("animations[{a}].channels[{c}].target");
            let node = channel.target.node.value();
            if node >= node_count {
                return Err(ImportErrorKind::Invalid(format!(
                    "{at}.node: node {node} does not exist (the file has {node_count})"
                )));
            }
            if let gltf::json::validation::Checked::Invalid = channel.target.path {
                return Err(ImportErrorKind::Invalid(format!(
                    "{at}.path: not one of translation, rotation, scale, weights"
                )));
            }
        }
    }
    Ok(())
}

/// How many of a file's first bytes a refusal shows.
const MAGIC_SHOWN: usize = 16;

/// A file's first bytes as a refusal shows them: as quoted text where they are printable
/// (an HTML page, a Git LFS pointer), else as hex.
fn shown_bytes(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "empty (0 bytes)".into();
    }
    if bytes.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("{:?}", String::from_utf8_lossy(bytes))
    } else {
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("with the bytes {}", hex.join(" "))
    }
}

/// What a file that is not a .glb probably is, where its first bytes say.
fn what_it_is(bytes: &[u8]) -> &'static str {
    let lower = String::from_utf8_lossy(bytes).to_ascii_lowercase();
    if lower.starts_with("version https://git-lfs") || lower.starts_with("version http") {
        " (a Git LFS pointer, not the file: `git lfs pull` fetches it)"
    } else if lower.starts_with("<!doctype") || lower.starts_with("<html") || lower.starts_with('<')
    {
        " (an HTML or XML page: a download that saved a web page instead of the file?)"
    } else {
        ""
    }
}

/// Splits a file into its JSON text and optional GLB binary chunk.
fn split_container(bytes: &[u8], is_glb_name: bool) -> Result<(&[u8], Option<&[u8]>)> {
    if bytes.starts_with(b"glTF") {
        return split_glb(bytes);
    }
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    if is_glb_name && first != Some(b'{') {
        let found = bytes.iter().take(MAGIC_SHOWN).copied().collect();
        return Err(ImportErrorKind::BadGlbMagic { found });
    }
    // A UTF-8 byte order mark is not allowed by the spec, but harmless to skip.
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match first {
        Some(b'{') | Some(0xEF) => Ok((text, None)),
        _ => Err(ImportErrorKind::NotGltf(
            "neither a JSON object nor a binary glTF (\"glTF\" magic)".into(),
        )),
    }
}

fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    let u32_at = |offset: usize| -> Option<u32> {
        bytes
            .get(offset..offset + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let truncated = |detail: String| ImportErrorKind::TruncatedGlb(detail);
    let (Some(version), Some(total)) = (u32_at(4), u32_at(8)) else {
        return Err(truncated(format!(
            "the 12-byte header is cut off ({} bytes in the file)",
            bytes.len()
        )));
    };
    if version != 2 {
        return Err(ImportErrorKind::UnsupportedGlbVersion(version));
    }
    let total = total as usize;
    if total > bytes.len() {
        return Err(truncated(format!(
            "the header declares {total} bytes but the file has {}",
            bytes.len()
        )));
    }
    let bytes = &bytes[..total];
    let mut offset = 12;
    let mut json = None;
    let mut bin = None;
    while offset < total {
        let (Some(length), Some(kind)) = (u32_at(offset), u32_at(offset + 4)) else {
            return Err(truncated(format!(
                "chunk header at byte {offset} is cut off"
            )));
        };
        let start = offset + 8;
        let end = start
            .checked_add(length as usize)
            .filter(|&end| end <= total)
            .ok_or_else(|| {
                truncated(format!(
                    "chunk at byte {offset} declares {length} bytes but only {} remain",
                    total.saturating_sub(start)
                ))
            })?;
        match &kind.to_le_bytes() {
            b"JSON" if json.is_none() && offset == 12 => json = Some(&bytes[start..end]),
            b"BIN\0" if bin.is_none() && json.is_some() => bin = Some(&bytes[start..end]),
            _ if json.is_none() => {
                return Err(ImportErrorKind::NotGltf(
                    "the first GLB chunk is not a JSON chunk".into(),
                ));
            }
            _ => {} // unknown chunks are skipped, as the spec asks
        }
        // Chunks are 4-byte aligned; a writer that forgot the padding is tolerated.
        offset = end.next_multiple_of(4).max(end);
    }
    let json = json.ok_or_else(|| truncated("no JSON chunk".into()))?;
    Ok((json, bin))
}

fn load_buffers(
    document: &gltf::Document,
    bin: Option<&[u8]>,
    base_dir: Option<&Path>,
) -> Result<Vec<Vec<u8>>> {
    let mut buffers = Vec::new();
    for buffer in document.buffers() {
        let index = buffer.index();
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => bin
                .ok_or_else(|| ImportErrorKind::BadBuffer {
                    buffer: index,
                    detail: "refers to the GLB binary chunk, but the file has none".into(),
                })?
                .to_vec(),
            gltf::buffer::Source::Uri(uri) => {
                if let Some(rest) = uri.strip_prefix("data:") {
                    let (_, payload) =
                        rest.split_once(";base64,")
                            .ok_or_else(|| ImportErrorKind::BadBuffer {
                                buffer: index,
                                detail: "data URI is not base64-encoded".into(),
                            })?;
                    base64::engine::general_purpose::STANDARD
                        .decode(payload)
                        .map_err(|e| ImportErrorKind::BadBuffer {
                            buffer: index,
                            detail: format!("data URI is not valid base64: {e}"),
                        })?
                } else if uri.contains("://") {
                    return Err(ImportErrorKind::BadBuffer {
                        buffer: index,
                        detail: format!("URI {uri:?} is not a relative file path"),
                    });
                } else {
                    let relative = percent_decode(uri);
                    let Some(base_dir) = base_dir else {
                        return Err(ImportErrorKind::MissingBuffer {
                            buffer: index,
                            uri: uri.to_string(),
                            source: std::io::Error::new(
                                std::io::ErrorKind::NotFound,
                                "no directory to resolve it in",
                            ),
                        });
                    };
                    std::fs::read(base_dir.join(&relative)).map_err(|source| {
                        ImportErrorKind::MissingBuffer {
                            buffer: index,
                            uri: uri.to_string(),
                            source,
                        }
                    })?
                }
            }
        };
        if data.len() < buffer.length() {
            return Err(ImportErrorKind::BadBuffer {
                buffer: index,
                detail: format!(
                    "declares byteLength {} but holds only {} bytes",
                    buffer.length(),
                    data.len()
                ),
            });
        }
        buffers.push(data);
    }
    Ok(buffers)
}

fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(v) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

struct Importer<'a> {
    document: &'a gltf::Document,
    buffers: Vec<Vec<u8>>,
    /// Where external images are looked up (none: from memory, external images missing).
    base_dir: Option<&'a Path>,
    /// Each merged primitive's first vertex and material (glTF's default: `None`).
    material_runs: Vec<(u32, Option<usize>)>,
    /// The file's size plus its external buffers': what bounds the data it can hold.
    input_bytes: usize,
    report: ImportReport,
}

impl Importer<'_> {
    fn run(mut self) -> Result<(Rig, ImportReport)> {
        let node_parents = self.node_parents()?;
        let character = self.gather_character(&node_parents)?;
        let built = self.build_skeleton(&character, &node_parents)?;
        let mesh = self.build_mesh(&character, &built)?;
        let clips = self.build_clips(&built.joint_of_node, &built.skeleton)?;
        let materials = self.build_materials();
        self.report.notes.extend(materials.notes.iter().cloned());
        Ok((
            Rig {
                skeleton: built.skeleton,
                mesh,
                clips,
                materials,
            },
            self.report,
        ))
    }
}
