//! glTF 2.0 import: `.gltf` / `.glb` → [`Rig`].
//!
//! How it works: the container (GLB header and chunks, or plain JSON) is parsed here so
//! that a truncated or mislabelled file gets a precise message; the JSON is then handed to
//! the `gltf` crate for schema validation and typed access. Buffers (GLB `BIN` chunk,
//! external files, `data:` URIs) are loaded here too, and every accessor is read by our
//! own bounds-checked reader (strides, sparse substitution, normalized integers), because
//! a malformed file must produce an error naming the file, never a panic.
//!
//! Then the skeleton is rebuilt: the skin with the most joints is chosen, non-joint nodes
//! lying between two joints become joints, animated non-joint ancestors of the skeleton
//! become joints too (a joint's global transform includes every ancestor, glTF 2.0
//! §3.7.3), the remaining static ancestors of the roots are folded into
//! `model_from_root_parent`, and the joints are ordered roots first, then depth-first.
//! All triangle primitives of the meshes bound to that skin are merged; influences (both
//! glTF sets, JOINTS_0/1 and WEIGHTS_0/1) are reduced to the eight heaviest and
//! renormalized (`prepare` cuts them to what the skin kernels take). Animation channels on joints become clip
//! tracks; channels on other nodes and morph weights are counted and skipped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use glam::{Mat4, Quat, Vec2, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::animation::Property;
use gltf::mesh::{Mode, Semantic};

use super::{
    Clip, Interpolation, JointTracks, MAX_INFLUENCES, MAX_JOINTS, Mesh, NO_PARENT, Rig, Skeleton,
    Track, Transform,
};

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
    #[error("the file is empty")]
    Empty,
    #[error("not a glTF file: {0}")]
    NotGltf(String),
    #[error("not a binary glTF file: the first four bytes are {found:?}, expected \"glTF\"")]
    BadGlbMagic { found: [u8; 4] },
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
    pub chosen_skin: usize,
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

/// Reads a `.gltf` or `.glb` file.
pub fn import_path(path: &Path) -> Result<(Rig, ImportReport), ImportError> {
    let err = |kind| ImportError {
        path: path.to_path_buf(),
        kind,
    };
    let bytes = std::fs::read(path).map_err(|e| err(ImportErrorKind::Io(e)))?;
    let is_glb_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    import_bytes(&bytes, path.parent(), is_glb_name).map_err(err)
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
        input_bytes,
        report: ImportReport::default(),
    }
    .run()
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

/// Splits a file into its JSON text and optional GLB binary chunk.
fn split_container(bytes: &[u8], is_glb_name: bool) -> Result<(&[u8], Option<&[u8]>)> {
    if bytes.starts_with(b"glTF") {
        return split_glb(bytes);
    }
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    if is_glb_name && first != Some(b'{') {
        let mut found = [0u8; 4];
        for (i, b) in bytes.iter().take(4).enumerate() {
            found[i] = *b;
        }
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

fn dims_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

fn type_name(t: DataType) -> &'static str {
    match t {
        DataType::I8 => "BYTE",
        DataType::U8 => "UNSIGNED_BYTE",
        DataType::I16 => "SHORT",
        DataType::U16 => "UNSIGNED_SHORT",
        DataType::U32 => "UNSIGNED_INT",
        DataType::F32 => "FLOAT",
    }
}

fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// Reads one component as a number; `normalize` maps integers to [0,1] or [-1,1].
fn read_component(bytes: &[u8], t: DataType, normalize: bool) -> f64 {
    match t {
        DataType::I8 => {
            let v = bytes[0] as i8 as f64;
            if normalize { (v / 127.0).max(-1.0) } else { v }
        }
        DataType::U8 => {
            let v = bytes[0] as f64;
            if normalize { v / 255.0 } else { v }
        }
        DataType::I16 => {
            let v = i16::from_le_bytes([bytes[0], bytes[1]]) as f64;
            if normalize {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
        DataType::U16 => {
            let v = u16::from_le_bytes([bytes[0], bytes[1]]) as f64;
            if normalize { v / 65535.0 } else { v }
        }
        DataType::U32 => {
            let v = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f64;
            if normalize { v / u32::MAX as f64 } else { v }
        }
        DataType::F32 => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f64,
    }
}

/// The accepted shape of an accessor for one use.
struct Expect {
    dims: &'static [Dimensions],
    types: &'static [DataType],
    /// Integer types must be `normalized` (weights, quantized rotations).
    normalized_ints: bool,
    expected: &'static str,
}

const FLOAT_VEC3: Expect = Expect {
    dims: &[Dimensions::Vec3],
    types: &[DataType::F32],
    normalized_ints: false,
    expected: "VEC3 of FLOAT",
};
const UV: Expect = Expect {
    dims: &[Dimensions::Vec2],
    types: &[DataType::F32, DataType::U8, DataType::U16],
    normalized_ints: true,
    expected: "VEC2 of FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT",
};
const JOINTS: Expect = Expect {
    dims: &[Dimensions::Vec4],
    types: &[DataType::U8, DataType::U16],
    normalized_ints: false,
    expected: "VEC4 of UNSIGNED_BYTE or UNSIGNED_SHORT",
};
const WEIGHTS: Expect = Expect {
    dims: &[Dimensions::Vec4],
    types: &[DataType::F32, DataType::U8, DataType::U16],
    normalized_ints: true,
    expected: "VEC4 of FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT",
};
const INDICES: Expect = Expect {
    dims: &[Dimensions::Scalar],
    types: &[DataType::U8, DataType::U16, DataType::U32],
    normalized_ints: false,
    expected: "SCALAR of UNSIGNED_BYTE/UNSIGNED_SHORT/UNSIGNED_INT",
};
const MATRICES: Expect = Expect {
    dims: &[Dimensions::Mat4],
    types: &[DataType::F32],
    normalized_ints: false,
    expected: "MAT4 of FLOAT",
};
const TIMES: Expect = Expect {
    dims: &[Dimensions::Scalar],
    types: &[DataType::F32],
    normalized_ints: false,
    expected: "SCALAR of FLOAT",
};
const ROTATIONS: Expect = Expect {
    dims: &[Dimensions::Vec4],
    types: &[
        DataType::F32,
        DataType::I8,
        DataType::U8,
        DataType::I16,
        DataType::U16,
    ],
    normalized_ints: true,
    expected: "VEC4 of FLOAT or normalized integers",
};

struct Importer<'a> {
    document: &'a gltf::Document,
    buffers: Vec<Vec<u8>>,
    /// The file's size plus its external buffers': what bounds the data it can hold.
    input_bytes: usize,
    report: ImportReport,
}

/// One joint-to-be: a glTF node that is a skin joint or lies between two of them.
struct JointNode {
    node: usize,
    /// Nearest ancestor that is also a joint node (index into the node list).
    parent_node: Option<usize>,
}

impl<'a> Importer<'a> {
    /// Reads an accessor, checks its type and range, and returns `count * components`
    /// numbers (integers normalized when the accessor says so and `expect` allows it).
    fn read(&self, accessor: &gltf::Accessor, what: &str, expect: &Expect) -> Result<Vec<f64>> {
        let what = format!("accessor {} ({what})", accessor.index());
        let dims = accessor.dimensions();
        let t = accessor.data_type();
        let normalized = accessor.normalized();
        let int_type = t != DataType::F32;
        let type_ok = expect.dims.contains(&dims)
            && expect.types.contains(&t)
            && (!int_type || normalized == expect.normalized_ints);
        if !type_ok {
            return Err(ImportErrorKind::WrongAccessorType {
                what,
                expected: expect.expected.into(),
                found: format!(
                    "{} of {}{}",
                    dims_name(dims),
                    if normalized { "normalized " } else { "" },
                    type_name(t)
                ),
            });
        }
        let components = dims.multiplicity();
        let csize = component_size(t);
        let element_size = components * csize;
        let count = accessor.count();
        // Every size the file claims is checked against the bytes that back it before
        // anything is allocated by it (a 1 KB file must not make us allocate gigabytes).
        let out_of_range = |detail: String| ImportErrorKind::OutOfRange {
            what: what.clone(),
            detail,
        };
        let values_len = count
            .checked_mul(components)
            .ok_or_else(|| out_of_range(format!("{count} elements overflow")))?;

        let backing = if let Some(view) = accessor.view() {
            let bytes = self.view_bytes(&view, &what)?;
            let stride = view.stride().unwrap_or(element_size);
            if stride < element_size {
                return Err(out_of_range(format!(
                    "byteStride {stride} is smaller than the element size {element_size}"
                )));
            }
            let needed = match count {
                0 => Some(0),
                _ => stride
                    .checked_mul(count - 1)
                    .and_then(|n| n.checked_add(accessor.offset()))
                    .and_then(|n| n.checked_add(element_size)),
            };
            if needed.is_none_or(|needed| needed > bytes.len()) {
                return Err(out_of_range(format!(
                    "{count} elements at byteOffset {} need {} bytes, but buffer view {} has {}",
                    accessor.offset(),
                    needed.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string()),
                    view.index(),
                    bytes.len()
                )));
            }
            Some((bytes, stride))
        } else {
            // No buffer view: the elements are zeros (then sparse substitution). Nothing
            // backs them, so they may take at most as much as the file's own bytes.
            let limit = self.input_bytes.max(1 << 16);
            if values_len.saturating_mul(std::mem::size_of::<f64>()) > 8 * limit {
                return Err(out_of_range(format!(
                    "{count} elements without a buffer view would decode to {} MB, more than \
                     eight times the file's {} bytes",
                    values_len.saturating_mul(8) >> 20,
                    self.input_bytes
                )));
            }
            None
        };
        let mut values = vec![0f64; values_len];
        if let Some((bytes, stride)) = backing {
            for (i, chunk) in values.chunks_exact_mut(components).enumerate() {
                let start = accessor.offset() + i * stride;
                for (c, value) in chunk.iter_mut().enumerate() {
                    *value = read_component(&bytes[start + c * csize..], t, normalized);
                }
            }
        }

        if let Some(sparse) = accessor.sparse() {
            let sparse_count = sparse.count();
            let indices = sparse.indices();
            let index_type = match indices.index_type() {
                gltf::accessor::sparse::IndexType::U8 => DataType::U8,
                gltf::accessor::sparse::IndexType::U16 => DataType::U16,
                gltf::accessor::sparse::IndexType::U32 => DataType::U32,
            };
            let index_bytes = self.view_bytes(&indices.view(), &what)?;
            let index_size = component_size(index_type);
            let end = |offset: usize, size: usize| {
                size.checked_mul(sparse_count)
                    .and_then(|n| n.checked_add(offset))
            };
            let index_end = end(indices.offset(), index_size);
            let value_bytes = self.view_bytes(&sparse.values().view(), &what)?;
            let value_end = end(sparse.values().offset(), element_size);
            if index_end.is_none_or(|e| e > index_bytes.len())
                || value_end.is_none_or(|e| e > value_bytes.len())
            {
                return Err(ImportErrorKind::OutOfRange {
                    what,
                    detail: format!(
                        "sparse data for {sparse_count} elements runs past its buffer view"
                    ),
                });
            }
            for s in 0..sparse_count {
                let target = read_component(
                    &index_bytes[indices.offset() + s * index_size..],
                    index_type,
                    false,
                ) as usize;
                if target >= count {
                    return Err(ImportErrorKind::OutOfRange {
                        what,
                        detail: format!("sparse index {target} is beyond the {count} elements"),
                    });
                }
                let start = sparse.values().offset() + s * element_size;
                for c in 0..components {
                    values[target * components + c] =
                        read_component(&value_bytes[start + c * csize..], t, normalized);
                }
            }
        }
        Ok(values)
    }

    fn view_bytes(&self, view: &gltf::buffer::View, what: &str) -> Result<&[u8]> {
        let buffer = &self.buffers[view.buffer().index()];
        let declared = view.buffer().length();
        let end = view.offset().checked_add(view.length());
        match end {
            Some(end) if end <= declared && end <= buffer.len() => Ok(&buffer[view.offset()..end]),
            _ => Err(ImportErrorKind::OutOfRange {
                what: what.to_string(),
                detail: format!(
                    "buffer view {} spans bytes {}..{} of buffer {}, which has {declared}",
                    view.index(),
                    view.offset(),
                    view.offset().saturating_add(view.length()),
                    view.buffer().index()
                ),
            }),
        }
    }

    fn read_finite_f32(
        &self,
        accessor: &gltf::Accessor,
        what: &str,
        expect: &Expect,
    ) -> Result<Vec<f32>> {
        let values = self.read(accessor, what, expect)?;
        let mut out = Vec::with_capacity(values.len());
        for (i, v) in values.into_iter().enumerate() {
            let v = v as f32;
            if !v.is_finite() {
                return Err(ImportErrorKind::NonFinite {
                    what: format!("accessor {} ({what})", accessor.index()),
                    index: i,
                    value: v,
                });
            }
            out.push(v);
        }
        Ok(out)
    }

    fn run(mut self) -> Result<(Rig, ImportReport)> {
        let node_parents = self.node_parents()?;
        let skin = self.choose_skin()?;
        self.check_skeleton_node(&skin, &node_parents);
        let (skeleton, joint_of_node, skin_to_joint) = self.build_skeleton(&skin, &node_parents)?;
        let mesh = self.build_mesh(&skin, &skin_to_joint)?;
        let clips = self.build_clips(&joint_of_node, &skeleton)?;
        Ok((
            Rig {
                skeleton,
                mesh,
                clips,
            },
            self.report,
        ))
    }

    /// Parent of every node, rejecting shared children and cycles.
    /// glTF says a skin's `skeleton` node, where given, is the common root of its joints;
    /// the skeleton is rebuilt from the joints' own hierarchy either way, so one that is not
    /// an ancestor (or the node itself) of every joint is noted and ignored.
    fn check_skeleton_node(&mut self, skin: &gltf::Skin, node_parents: &[Option<usize>]) {
        let Some(root) = skin.skeleton() else { return };
        let root = root.index();
        // Walks up at most as many steps as there are nodes (the hierarchy has no cycles:
        // `node_parents` refused them).
        let under_root = |mut node: usize| {
            for _ in 0..=node_parents.len() {
                if node == root {
                    return true;
                }
                match node_parents[node] {
                    Some(parent) => node = parent,
                    None => return false,
                }
            }
            false
        };
        if let Some(joint) = skin.joints().map(|j| j.index()).find(|&j| !under_root(j)) {
            self.report.notes.push(format!(
                "skin {}: its skeleton node {root} is not an ancestor of joint node {joint}; \
                 ignored (the joints' own hierarchy is used)",
                skin.index()
            ));
        }
    }

    fn node_parents(&self) -> Result<Vec<Option<usize>>> {
        let node_count = self.document.nodes().len();
        let mut parents: Vec<Option<usize>> = vec![None; node_count];
        for node in self.document.nodes() {
            for child in node.children() {
                let c = child.index();
                if c == node.index() {
                    return Err(ImportErrorKind::Cycle { node: c });
                }
                if let Some(first) = parents[c] {
                    return Err(ImportErrorKind::SharedChild {
                        node: c,
                        first_parent: first,
                        second_parent: node.index(),
                    });
                }
                parents[c] = Some(node.index());
            }
        }
        // With at most one parent per node, a cycle is a walk up that never ends.
        for start in 0..node_count {
            let mut steps = 0;
            let mut n = start;
            while let Some(p) = parents[n] {
                n = p;
                steps += 1;
                if steps > node_count {
                    return Err(ImportErrorKind::Cycle { node: start });
                }
            }
        }
        Ok(parents)
    }

    fn choose_skin(&mut self) -> Result<gltf::Skin<'a>> {
        let skins: Vec<_> = self.document.skins().collect();
        self.report.skins_in_file = skins.len();
        let skinned_nodes = self
            .document
            .nodes()
            .filter(|n| n.skin().is_some() && n.mesh().is_some())
            .count();
        if skins.is_empty() || skinned_nodes == 0 {
            return Err(ImportErrorKind::NoSkinnedMesh(format!(
                "{} skins and {} nodes with both a mesh and a skin",
                skins.len(),
                skinned_nodes
            )));
        }
        // Only skins that some mesh node uses are candidates.
        let used = |s: &gltf::Skin| {
            self.document
                .nodes()
                .any(|n| n.mesh().is_some() && n.skin().map(|k| k.index()) == Some(s.index()))
        };
        let best = skins
            .iter()
            .filter(|s| used(s))
            .max_by(|a, b| {
                a.joints()
                    .count()
                    .cmp(&b.joints().count())
                    .then(b.index().cmp(&a.index()))
            })
            .cloned()
            .expect("a skinned mesh node exists");
        if skins.len() > 1 {
            self.report.notes.push(format!(
                "the file has {} skins; using skin {} ({} joints, the most) and the meshes it skins",
                skins.len(),
                best.index(),
                best.joints().count()
            ));
        }
        self.report.chosen_skin = best.index();
        Ok(best)
    }

    /// Returns the skeleton, the joint index of every node (or `None`), and the skin's
    /// joint order mapped to ours.
    fn build_skeleton(
        &mut self,
        skin: &gltf::Skin,
        node_parents: &[Option<usize>],
    ) -> Result<(Skeleton, Vec<Option<u16>>, Vec<u16>)> {
        let skin_nodes: Vec<usize> = skin.joints().map(|n| n.index()).collect();
        if skin_nodes.len() > MAX_JOINTS {
            return Err(ImportErrorKind::TooManyJoints {
                count: skin_nodes.len(),
            });
        }
        let node_count = node_parents.len();
        let mut is_member = vec![false; node_count];
        for &n in &skin_nodes {
            if is_member[n] {
                return Err(ImportErrorKind::Invalid(format!(
                    "skin {} lists node {n} twice",
                    skin.index()
                )));
            }
            is_member[n] = true;
        }
        // Ancestors of the skeleton that an animation moves become joints (no vertex is
        // bound to them): a joint's global transform includes every ancestor (glTF 2.0
        // §3.7.3), so folding them into a static root-parent transform would drop their
        // motion. The nodes between them and the skeleton follow as inserted joints below.
        let mut animated = vec![false; node_count];
        for animation in self.document.animations() {
            for channel in animation.channels() {
                if channel.target().property() != Property::MorphTargetWeights {
                    animated[channel.target().node().index()] = true;
                }
            }
        }
        let mut ancestor_roots: Vec<usize> = Vec::new();
        for &n in &skin_nodes {
            let mut cur = node_parents[n];
            while let Some(p) = cur {
                if animated[p] && !is_member[p] {
                    is_member[p] = true;
                    ancestor_roots.push(p);
                }
                cur = node_parents[p];
            }
        }
        // Non-joint nodes between a joint and its nearest joint ancestor become joints.
        let mut inserted = 0;
        for &n in &skin_nodes {
            let mut path: Vec<usize> = Vec::new();
            let mut cur = node_parents[n];
            while let Some(p) = cur {
                if is_member[p] {
                    for &between in &path {
                        if !is_member[between] {
                            is_member[between] = true;
                            inserted += 1;
                        }
                    }
                    break;
                }
                path.push(p);
                cur = node_parents[p];
            }
        }
        let member_count = is_member.iter().filter(|&&m| m).count();
        if member_count > MAX_JOINTS {
            return Err(ImportErrorKind::TooManyJoints {
                count: member_count,
            });
        }
        if !ancestor_roots.is_empty() {
            let nodes: Vec<gltf::Node> = self.document.nodes().collect();
            self.report.animated_ancestors = ancestor_roots
                .iter()
                .map(|&n| {
                    nodes[n]
                        .name()
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("node {n}"))
                })
                .collect();
            self.report.notes.push(format!(
                "{} animated non-joint ancestors of the skeleton became joints (their channels move it): {}",
                ancestor_roots.len(),
                self.report.animated_ancestors.join(", ")
            ));
        }
        self.report.inserted_joints = inserted;
        if inserted > 0 {
            self.report.notes.push(format!(
                "{inserted} non-joint nodes between joints were added to the skeleton"
            ));
        }

        let nearest_member_parent = |n: usize| {
            let mut cur = node_parents[n];
            while let Some(p) = cur {
                if is_member[p] {
                    return Some(p);
                }
                cur = node_parents[p];
            }
            None
        };
        // Roots in skin order (nodes inserted between joints are never roots; animated
        // ancestors may be), then depth-first.
        let mut members: Vec<JointNode> = Vec::with_capacity(member_count);
        let mut joint_of_node: Vec<Option<u16>> = vec![None; node_count];
        for &n in skin_nodes.iter().chain(&ancestor_roots) {
            if nearest_member_parent(n).is_none() {
                joint_of_node[n] = Some(members.len() as u16);
                members.push(JointNode {
                    node: n,
                    parent_node: None,
                });
            }
        }
        let root_count = members.len();
        let nodes: Vec<gltf::Node> = self.document.nodes().collect();
        for r in 0..root_count {
            let mut stack = vec![members[r].node];
            while let Some(n) = stack.pop() {
                // Children of member n that are members, or reach members via non-members.
                let mut found = Vec::new();
                collect_member_children(&nodes, n, &is_member, &mut found);
                for &c in found.iter().rev() {
                    stack.push(c);
                }
                if n != members[r].node {
                    joint_of_node[n] = Some(members.len() as u16);
                    members.push(JointNode {
                        node: n,
                        parent_node: nearest_member_parent(n),
                    });
                }
            }
        }
        debug_assert_eq!(members.len(), member_count);

        let mut names = Vec::with_capacity(members.len());
        let mut parents = Vec::with_capacity(members.len());
        let mut rest_pose = Vec::with_capacity(members.len());
        for m in &members {
            let node = &nodes[m.node];
            names.push(
                node.name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("joint_{}", m.node)),
            );
            parents.push(match m.parent_node {
                Some(p) => joint_of_node[p].expect("parents are members"),
                None => NO_PARENT,
            });
            rest_pose.push(self.node_transform(node)?);
        }

        let mut model_from_root_parent = Vec::with_capacity(root_count);
        for m in &members[..root_count] {
            let mut matrix = Mat4::IDENTITY;
            let mut cur = node_parents[m.node];
            while let Some(p) = cur {
                matrix = self.node_matrix(&nodes[p])? * matrix;
                cur = node_parents[p];
            }
            model_from_root_parent.push(matrix);
        }

        let skin_to_joint: Vec<u16> = skin_nodes
            .iter()
            .map(|&n| joint_of_node[n].expect("skin joints are members"))
            .collect();
        let mut joint_from_bind = vec![Mat4::IDENTITY; members.len()];
        if let Some(accessor) = skin.inverse_bind_matrices() {
            let what = format!("inverse bind matrices of skin {}", skin.index());
            let values = self.read_finite_f32(&accessor, &what, &MATRICES)?;
            if accessor.count() < skin_nodes.len() {
                return Err(ImportErrorKind::OutOfRange {
                    what,
                    detail: format!(
                        "{} matrices for {} joints",
                        accessor.count(),
                        skin_nodes.len()
                    ),
                });
            }
            for (s, &joint) in skin_to_joint.iter().enumerate() {
                let m = Mat4::from_cols_slice(&values[s * 16..s * 16 + 16]);
                // Skinning treats the palette as affine (3×4); a projective inverse bind
                // matrix would be silently wrong, so it is refused.
                let bottom = m.row(3);
                if (bottom - glam::Vec4::W).abs().max_element() > 1e-5 {
                    return Err(ImportErrorKind::Invalid(format!(
                        "{what}: matrix {s} is not affine (bottom row {:?})",
                        bottom.to_array()
                    )));
                }
                joint_from_bind[joint as usize] = m;
            }
        }
        // Inserted joints have no inverse bind matrix; no vertex refers to them.

        Ok((
            Skeleton {
                names,
                parents,
                root_count,
                model_from_root_parent,
                rest_pose,
                joint_from_bind,
            },
            joint_of_node,
            skin_to_joint,
        ))
    }

    fn node_matrix(&self, node: &gltf::Node) -> Result<Mat4> {
        let m = Mat4::from_cols_array_2d(&node.transform().matrix());
        if !m.is_finite() {
            return Err(ImportErrorKind::NonFinite {
                what: format!("transform of node {}", node.index()),
                index: 0,
                value: f32::NAN,
            });
        }
        Ok(m)
    }

    fn node_transform(&self, node: &gltf::Node) -> Result<Transform> {
        let matrix = self.node_matrix(node)?;
        let (translation, rotation, scale) = match node.transform() {
            gltf::scene::Transform::Decomposed {
                translation,
                rotation,
                scale,
            } => (
                Vec3::from(translation),
                Quat::from_array(rotation),
                Vec3::from(scale),
            ),
            gltf::scene::Transform::Matrix { .. } => {
                let (s, r, t) = matrix.to_scale_rotation_translation();
                let magnitude = matrix.abs().to_cols_array().into_iter().fold(1.0, f32::max);
                let rebuilt = Mat4::from_scale_rotation_translation(s, r, t);
                let exact = s.is_finite()
                    && r.is_finite()
                    && t.is_finite()
                    && rebuilt.abs_diff_eq(matrix, 1e-4 * magnitude);
                if !exact {
                    return Err(ImportErrorKind::Unsupported(format!(
                        "joint node {} has a matrix that is not translation * rotation * scale (shear or projection)",
                        node.index()
                    )));
                }
                (t, r, s)
            }
        };
        let rotation = if rotation.length_squared() > 0.0 {
            rotation.normalize()
        } else {
            return Err(ImportErrorKind::Invalid(format!(
                "node {} has a zero rotation quaternion",
                node.index()
            )));
        };
        Ok(Transform {
            translation,
            rotation,
            scale,
        })
    }

    fn build_mesh(&mut self, skin: &gltf::Skin, skin_to_joint: &[u16]) -> Result<Mesh> {
        let mut mesh_indices: Vec<usize> = self
            .document
            .nodes()
            .filter(|n| n.skin().map(|s| s.index()) == Some(skin.index()))
            .filter_map(|n| n.mesh().map(|m| m.index()))
            .collect();
        mesh_indices.sort_unstable();
        mesh_indices.dedup();

        let mut mesh = Mesh {
            positions: Vec::new(),
            normals: Vec::new(),
            uvs: Vec::new(),
            joints: Vec::new(),
            weights: Vec::new(),
            indices: Vec::new(),
        };
        let mut any_missing_normals = false;
        let mut any_missing_uvs = false;
        let mut normal_known = Vec::new();
        let meshes: Vec<gltf::Mesh> = self.document.meshes().collect();
        for &mi in &mesh_indices {
            for primitive in meshes[mi].primitives() {
                let pi = primitive.index();
                let mode = primitive.mode();
                if !matches!(
                    mode,
                    Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
                ) {
                    self.report.skipped_primitives += 1;
                    self.report.notes.push(format!(
                        "mesh {mi} primitive {pi}: mode {mode:?} is not triangles; skipped"
                    ));
                    continue;
                }
                let label = |attr: &str| format!("{attr} of mesh {mi} primitive {pi}");
                let position_accessor = primitive.get(&Semantic::Positions).ok_or_else(|| {
                    ImportErrorKind::Invalid(format!("mesh {mi} primitive {pi} has no POSITION"))
                })?;
                let positions =
                    self.read_finite_f32(&position_accessor, &label("POSITION"), &FLOAT_VEC3)?;
                let count = position_accessor.count();
                let base = mesh.positions.len();
                if base + count > u32::MAX as usize {
                    return Err(ImportErrorKind::Unsupported(
                        "more than 2^32 vertices".into(),
                    ));
                }
                mesh.positions
                    .extend(positions.chunks_exact(3).map(Vec3::from_slice));

                let check_count = |accessor: &gltf::Accessor, attr: &str| -> Result<()> {
                    if accessor.count() != count {
                        return Err(ImportErrorKind::OutOfRange {
                            what: format!("accessor {} ({})", accessor.index(), label(attr)),
                            detail: format!(
                                "{} elements, but POSITION has {count}",
                                accessor.count()
                            ),
                        });
                    }
                    Ok(())
                };
                if let Some(a) = primitive.get(&Semantic::Normals) {
                    check_count(&a, "NORMAL")?;
                    let normals = self.read_finite_f32(&a, &label("NORMAL"), &FLOAT_VEC3)?;
                    mesh.normals
                        .extend(normals.chunks_exact(3).map(Vec3::from_slice));
                    normal_known.extend(std::iter::repeat_n(true, count));
                } else {
                    any_missing_normals = true;
                    mesh.normals.extend(std::iter::repeat_n(Vec3::ZERO, count));
                    normal_known.extend(std::iter::repeat_n(false, count));
                }
                if let Some(a) = primitive.get(&Semantic::TexCoords(0)) {
                    check_count(&a, "TEXCOORD_0")?;
                    let uvs = self.read_finite_f32(&a, &label("TEXCOORD_0"), &UV)?;
                    mesh.uvs.extend(uvs.chunks_exact(2).map(Vec2::from_slice));
                } else {
                    any_missing_uvs = true;
                    mesh.uvs.extend(std::iter::repeat_n(Vec2::ZERO, count));
                }

                // Up to eight influences from JOINTS_0/1 and WEIGHTS_0/1.
                let mut joint_sets = Vec::new();
                let mut weight_sets = Vec::new();
                for set in 0..2u32 {
                    let joints = primitive.get(&Semantic::Joints(set));
                    let weights = primitive.get(&Semantic::Weights(set));
                    match (joints, weights) {
                        (Some(j), Some(w)) => {
                            check_count(&j, &format!("JOINTS_{set}"))?;
                            check_count(&w, &format!("WEIGHTS_{set}"))?;
                            joint_sets.push(self.read(
                                &j,
                                &label(&format!("JOINTS_{set}")),
                                &JOINTS,
                            )?);
                            weight_sets.push(self.read_finite_f32(
                                &w,
                                &label(&format!("WEIGHTS_{set}")),
                                &WEIGHTS,
                            )?);
                        }
                        (None, None) => {}
                        _ => {
                            return Err(ImportErrorKind::Invalid(format!(
                                "mesh {mi} primitive {pi} has JOINTS_{set} or WEIGHTS_{set} without the other"
                            )));
                        }
                    }
                }
                if joint_sets.is_empty() {
                    return Err(ImportErrorKind::NoSkinnedMesh(format!(
                        "mesh {mi} primitive {pi} is bound to skin {} but has no JOINTS_0/WEIGHTS_0",
                        skin.index()
                    )));
                }
                for v in 0..count {
                    let mut influences: Vec<(u16, f32)> = Vec::with_capacity(8);
                    let mut repeated = false;
                    for (joints, weights) in joint_sets.iter().zip(&weight_sets) {
                        for k in 0..4 {
                            let w = weights[v * 4 + k];
                            if w < 0.0 {
                                return Err(ImportErrorKind::Invalid(format!(
                                    "mesh {mi} primitive {pi}: vertex {v} has negative weight {w}"
                                )));
                            }
                            if w == 0.0 {
                                continue;
                            }
                            let skin_joint = joints[v * 4 + k] as u32;
                            let joint = *skin_to_joint.get(skin_joint as usize).ok_or(
                                ImportErrorKind::JointIndexOutOfRange {
                                    mesh: mi,
                                    primitive: pi,
                                    vertex: v,
                                    joint: skin_joint,
                                    joint_count: skin_to_joint.len(),
                                },
                            )?;
                            match influences.iter_mut().find(|(j, _)| *j == joint) {
                                Some((_, existing)) => {
                                    *existing += w;
                                    repeated = true;
                                }
                                None => influences.push((joint, w)),
                            }
                        }
                    }
                    self.report.repeated_joint_vertices += repeated as usize;
                    let (joints, weights) = self.reduce_influences(&mut influences);
                    mesh.joints.push(joints);
                    mesh.weights.push(weights);
                }

                let local_indices: Vec<u32> = match primitive.indices() {
                    Some(a) => self
                        .read(&a, &label("indices"), &INDICES)?
                        .into_iter()
                        .map(|i| i as u32)
                        .collect(),
                    None => (0..count as u32).collect(),
                };
                if let Some(pos) = local_indices.iter().position(|&i| i as usize >= count) {
                    return Err(ImportErrorKind::OutOfRange {
                        what: label("indices"),
                        detail: format!(
                            "index {} at position {pos} is beyond the {count} vertices",
                            local_indices[pos]
                        ),
                    });
                }
                let triangles = triangulate(&local_indices, mode);
                mesh.indices
                    .extend(triangles.into_iter().map(|i| i + base as u32));
                self.report.skinned_primitives += 1;
            }
        }
        if mesh.positions.is_empty() || mesh.indices.is_empty() {
            return Err(ImportErrorKind::NoSkinnedMesh(
                "the skinned meshes have no triangles".into(),
            ));
        }
        if any_missing_normals {
            compute_missing_normals(&mut mesh, &normal_known);
            self.report.computed_normals = true;
            self.report
                .notes
                .push("some primitives have no NORMAL; smooth normals were computed".into());
        }
        self.report.missing_uvs = any_missing_uvs;
        if any_missing_uvs {
            self.report
                .notes
                .push("some primitives have no TEXCOORD_0; their UVs are zero".into());
        }
        Ok(mesh)
    }

    /// Keeps the eight heaviest influences, sorted heaviest first, summing to 1.
    fn reduce_influences(
        &mut self,
        influences: &mut [(u16, f32)],
    ) -> ([u16; MAX_INFLUENCES], [f32; MAX_INFLUENCES]) {
        influences.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut joints = [0u16; MAX_INFLUENCES];
        let mut weights = [0f32; MAX_INFLUENCES];
        if influences.is_empty() {
            self.report.unweighted_vertices += 1;
            weights[0] = 1.0;
            return (joints, weights);
        }
        if influences.len() > MAX_INFLUENCES {
            self.report.reduced_influences += 1;
        }
        let kept = &influences[..influences.len().min(MAX_INFLUENCES)];
        let total_all: f32 = influences.iter().map(|i| i.1).sum();
        let total_kept: f32 = kept.iter().map(|i| i.1).sum();
        if influences.len() <= MAX_INFLUENCES && (total_all - 1.0).abs() > 1e-3 {
            self.report.renormalized_weights += 1;
        }
        for (k, &(j, w)) in kept.iter().enumerate() {
            joints[k] = j;
            weights[k] = w / total_kept;
        }
        (joints, weights)
    }

    fn build_clips(
        &mut self,
        joint_of_node: &[Option<u16>],
        skeleton: &Skeleton,
    ) -> Result<Vec<Clip>> {
        let joint_count = skeleton.joint_count();
        let mut clips = Vec::new();
        let mut joint_sets: Vec<Vec<u16>> = Vec::new();
        let mut all_unnamed = true;
        for animation in self.document.animations() {
            let ai = animation.index();
            all_unnamed &= animation.name().is_none_or(str::is_empty);
            let mut tracks = vec![JointTracks::default(); joint_count];
            let mut duration: f32 = 0.0;
            let mut animated = Vec::new();
            for channel in animation.channels() {
                let property = channel.target().property();
                if property == Property::MorphTargetWeights {
                    self.report.ignored_morph_channels += 1;
                    continue;
                }
                let node = channel.target().node().index();
                let Some(joint) = joint_of_node[node] else {
                    self.report.ignored_node_channels += 1;
                    continue;
                };
                let sampler = channel.sampler();
                let interpolation = match sampler.interpolation() {
                    gltf::animation::Interpolation::Step => Interpolation::Step,
                    gltf::animation::Interpolation::Linear => Interpolation::Linear,
                    gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
                };
                let what = format!("animation {ai} channel {}", channel.index());
                let times =
                    self.read_finite_f32(&sampler.input(), &format!("{what} input"), &TIMES)?;
                if times.is_empty() {
                    return Err(ImportErrorKind::Invalid(format!(
                        "{what}: the sampler has no keys"
                    )));
                }
                if let Some(k) = times.windows(2).position(|w| w[1] <= w[0]) {
                    return Err(ImportErrorKind::Invalid(format!(
                        "{what}: key times are not strictly increasing at key {} ({} then {})",
                        k + 1,
                        times[k],
                        times[k + 1]
                    )));
                }
                if times[0] < 0.0 {
                    return Err(ImportErrorKind::Invalid(format!(
                        "{what}: negative key time {}",
                        times[0]
                    )));
                }
                let per_key = if interpolation == Interpolation::CubicSpline {
                    3
                } else {
                    1
                };
                let output = sampler.output();
                if output.count() != times.len() * per_key {
                    return Err(ImportErrorKind::OutOfRange {
                        what: format!("accessor {} ({what} output)", output.index()),
                        detail: format!(
                            "{} values for {} keys of {} interpolation",
                            output.count(),
                            times.len(),
                            interpolation.name()
                        ),
                    });
                }
                duration = duration.max(*times.last().expect("non-empty"));
                let output_what = format!("{what} output");
                let slot = &mut tracks[joint as usize];
                match property {
                    Property::Translation | Property::Scale => {
                        let values = self.read_finite_f32(&output, &output_what, &FLOAT_VEC3)?;
                        let track = Track {
                            interpolation,
                            times_secs: times,
                            values: values.chunks_exact(3).map(Vec3::from_slice).collect(),
                        };
                        if property == Property::Translation {
                            slot.translation = Some(track);
                        } else {
                            slot.scale = Some(track);
                        }
                    }
                    Property::Rotation => {
                        let values = self.read_finite_f32(&output, &output_what, &ROTATIONS)?;
                        let mut rotations: Vec<Quat> =
                            values.chunks_exact(4).map(Quat::from_slice).collect();
                        for (k, q) in rotations.iter_mut().enumerate() {
                            let is_tangent = per_key == 3 && k % 3 != 1;
                            if !is_tangent {
                                if q.length_squared() < 1e-12 {
                                    return Err(ImportErrorKind::Invalid(format!(
                                        "{output_what}: rotation key {} is a zero quaternion",
                                        k / per_key
                                    )));
                                }
                                *q = q.normalize();
                            }
                        }
                        slot.rotation = Some(Track {
                            interpolation,
                            times_secs: times,
                            values: rotations,
                        });
                    }
                    Property::MorphTargetWeights => unreachable!("skipped above"),
                }
                animated.push(joint);
            }
            if animated.is_empty() {
                self.report.notes.push(format!(
                    "animation {ai} animates no joint of the skeleton; skipped"
                ));
                continue;
            }
            let name = animation
                .name()
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .unwrap_or_else(|| format!("animation_{ai}"));
            animated.sort_unstable();
            animated.dedup();
            joint_sets.push(animated);
            clips.push(Clip {
                name,
                duration_secs: duration,
                joint_tracks: tracks,
            });
        }
        // Old exporters (COLLADA2GLTF) wrote one unnamed animation per joint; together they
        // are one motion, so they are merged when they animate disjoint joints.
        if clips.len() > 1 && all_unnamed && disjoint(&joint_sets) {
            let count = clips.len();
            let mut merged = Clip {
                name: "animation".into(),
                duration_secs: 0.0,
                joint_tracks: vec![JointTracks::default(); joint_count],
            };
            for clip in clips.drain(..) {
                merged.duration_secs = merged.duration_secs.max(clip.duration_secs);
                for (target, source) in merged.joint_tracks.iter_mut().zip(clip.joint_tracks) {
                    target.translation = target.translation.take().or(source.translation);
                    target.rotation = target.rotation.take().or(source.rotation);
                    target.scale = target.scale.take().or(source.scale);
                }
            }
            clips.push(merged);
            self.report.merged_animations = count;
            self.report.notes.push(format!(
                "{count} unnamed animations on disjoint joints were merged into one clip \"animation\""
            ));
        }
        for clip in &mut clips {
            // A clip whose keys all sit at t = 0 is a pose; give it a nominal length so it loops.
            if clip.duration_secs <= 0.0 {
                clip.duration_secs = 1.0;
            }
        }
        Ok(clips)
    }
}

fn disjoint(sets: &[Vec<u16>]) -> bool {
    let mut seen = std::collections::HashSet::new();
    sets.iter().flatten().all(|j| seen.insert(*j))
}

fn collect_member_children(
    nodes: &[gltf::Node],
    n: usize,
    is_member: &[bool],
    found: &mut Vec<usize>,
) {
    for child in nodes[n].children() {
        let c = child.index();
        // A non-member child leads to no member: any node between two joints was
        // inserted as a member already.
        if is_member[c] {
            found.push(c);
        }
    }
}

fn triangulate(indices: &[u32], mode: Mode) -> Vec<u32> {
    match mode {
        Mode::TriangleStrip => {
            let mut out = Vec::with_capacity(indices.len().saturating_sub(2) * 3);
            for i in 0..indices.len().saturating_sub(2) {
                if i % 2 == 0 {
                    out.extend([indices[i], indices[i + 1], indices[i + 2]]);
                } else {
                    out.extend([indices[i + 1], indices[i], indices[i + 2]]);
                }
            }
            out
        }
        Mode::TriangleFan => {
            let mut out = Vec::with_capacity(indices.len().saturating_sub(2) * 3);
            for i in 1..indices.len().saturating_sub(1) {
                out.extend([indices[0], indices[i], indices[i + 1]]);
            }
            out
        }
        _ => indices[..indices.len() / 3 * 3].to_vec(),
    }
}

/// Area-weighted smooth normals for vertices without one. Vertices at the same position
/// share their normal, so unindexed meshes (every triangle its own vertices) come out
/// smooth rather than faceted.
pub(crate) fn compute_missing_normals(mesh: &mut Mesh, known: &[bool]) {
    let key = |p: Vec3| (p.x.to_bits(), p.y.to_bits(), p.z.to_bits());
    let mut sums: HashMap<(u32, u32, u32), Vec3> = HashMap::new();
    for tri in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| mesh.positions[i as usize]);
        let face = (b - a).cross(c - a); // length = 2 * area: area weighting for free
        for &i in tri {
            if !known[i as usize] {
                *sums
                    .entry(key(mesh.positions[i as usize]))
                    .or_insert(Vec3::ZERO) += face;
            }
        }
    }
    for (i, normal) in mesh.normals.iter_mut().enumerate() {
        if !known[i] {
            let sum = sums
                .get(&key(mesh.positions[i]))
                .copied()
                .unwrap_or(Vec3::ZERO);
            *normal = sum.try_normalize().unwrap_or(Vec3::Y);
        }
    }
}
