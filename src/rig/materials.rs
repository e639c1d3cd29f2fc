//! The character's base colours as its file gives them: per glTF material its
//! `baseColorFactor` and `baseColorTexture` (the image decoded to RGBA8, which glTF
//! defines as sRGB-encoded), and which of the mesh's vertices each material covers.
//!
//! How it works: the importer records, for every primitive it merges into the mesh, the
//! run of vertices it added and the primitive's material (glTF's default material where it
//! names none: white, no texture). The images those materials use are decoded once, each
//! only after its header says its size is within [`MAX_IMAGE_PIXELS`] and what the images
//! before it left of [`MAX_TOTAL_IMAGE_PIXELS`]; an image that is
//! missing, corrupt, of a type skinbench does not read (PNG and JPEG it does) or too large
//! is left out with a note, and its material keeps its factor, so a bad image never stops a
//! character from loading. Rigs built in code have no materials.

use serde::Serialize;

/// The most pixels an image may have to be decoded (8192 × 8192).
pub const MAX_IMAGE_PIXELS: u64 = 8192 * 8192;
/// The most pixels a character's images may have together (four such images): however
/// many materials a file has, the importer allocates at most this many RGBA8 pixels.
pub const MAX_TOTAL_IMAGE_PIXELS: u64 = 4 * MAX_IMAGE_PIXELS;

/// One material's base colour.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Material {
    /// The file's name for it, or `material N` (`default` for glTF's default material).
    pub name: String,
    /// Linear RGBA, multiplied with the texture where there is one.
    pub base_color_factor: [f32; 4],
    /// Which of [`Materials::images`] is its base colour texture (none: the factor alone).
    pub image: Option<usize>,
    /// The texture coordinate set the texture reads (skinbench reads set 0; another set
    /// is noted and read as set 0).
    pub tex_coord: u32,
    /// The file defines it (false: glTF's default material, for primitives that name
    /// none).
    pub from_file: bool,
}

/// A decoded base colour image.
#[derive(Clone, PartialEq)]
pub struct BaseColorImage {
    /// The file's name for it, or its index.
    pub name: String,
    pub width: u32,
    pub height: u32,
    /// sRGB-encoded RGBA8, row by row from the top.
    pub rgba: Vec<u8>,
}

impl std::fmt::Debug for BaseColorImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "BaseColorImage({} {}x{})",
            self.name, self.width, self.height
        )
    }
}

/// The materials of a character, and which vertices each covers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Materials {
    pub materials: Vec<Material>,
    pub images: Vec<BaseColorImage>,
    /// Runs of the mesh's vertices in file order: (first vertex, material); a run lasts to
    /// the next run's first vertex. Empty: no materials (a rig built in code).
    pub vertex_runs: Vec<(u32, u16)>,
    /// What was left out and why (missing, corrupt or oversized images, other texture
    /// coordinate sets).
    pub notes: Vec<String>,
}

impl Materials {
    /// Whether the file gives any material of its own (a file that names none, like a
    /// rig made in code, has no colours of its own to draw).
    pub fn from_file(&self) -> bool {
        self.materials.iter().any(|m| m.from_file)
    }

    /// The material of each of `vertices` vertices (file order); `None` without materials.
    pub fn per_vertex(&self, vertices: usize) -> Option<Vec<u16>> {
        if self.vertex_runs.is_empty() {
            return None;
        }
        let mut out = vec![0u16; vertices];
        for (k, &(first, material)) in self.vertex_runs.iter().enumerate() {
            let end = self
                .vertex_runs
                .get(k + 1)
                .map_or(vertices, |&(next, _)| next as usize)
                .min(vertices);
            let start = (first as usize).min(end);
            out[start..end].fill(material);
        }
        Some(out)
    }
}

/// What `skinbench inspect` reports of a material.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaterialSummary {
    pub name: String,
    pub base_color_factor: [f32; 4],
    /// The texture's name and size, where it has one that was read.
    pub texture: Option<(String, u32, u32)>,
    /// Vertices it covers.
    pub vertices: usize,
}

impl Materials {
    /// Each material with what it covers, for `inspect`.
    pub fn summaries(&self, vertices: usize) -> Vec<MaterialSummary> {
        let per_vertex = self.per_vertex(vertices).unwrap_or_default();
        self.materials
            .iter()
            .enumerate()
            .map(|(k, m)| MaterialSummary {
                name: m.name.clone(),
                base_color_factor: m.base_color_factor,
                texture: m
                    .image
                    .and_then(|i| self.images.get(i))
                    .map(|image| (image.name.clone(), image.width, image.height)),
                vertices: per_vertex.iter().filter(|&&v| v as usize == k).count(),
            })
            .collect()
    }
}
