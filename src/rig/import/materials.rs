//! The importer's side of [`crate::rig::materials`]: the merged primitives' materials,
//! their base colour factors and textures, the images decoded within a size bound.

use std::collections::HashMap;

use base64::Engine as _;

use super::{Importer, percent_decode};
use crate::rig::materials::{
    BaseColorImage, MAX_IMAGE_PIXELS, MAX_TOTAL_IMAGE_PIXELS, Material, Materials,
};

impl Importer<'_> {
    /// The materials of the primitives the mesh merged (in the order they first appear;
    /// glTF's default material where a primitive names none), each image decoded once.
    pub(super) fn build_materials(&mut self) -> Materials {
        let mut out = Materials::default();
        // File material (or the default) → index in `out.materials`.
        let mut index_of: HashMap<Option<usize>, u16> = HashMap::new();
        // File image → index in `out.images` (None: it could not be read).
        let mut image_of: HashMap<usize, Option<usize>> = HashMap::new();
        let runs = std::mem::take(&mut self.material_runs);
        for &(first_vertex, file_material) in &runs {
            let index = match index_of.get(&file_material) {
                Some(&index) => index,
                None => {
                    let material = self.material(file_material, &mut out, &mut image_of);
                    out.materials.push(material);
                    let index = (out.materials.len() - 1) as u16;
                    index_of.insert(file_material, index);
                    index
                }
            };
            // Consecutive primitives of one material make one run.
            if out.vertex_runs.last().is_none_or(|&(_, m)| m != index) {
                out.vertex_runs.push((first_vertex, index));
            }
        }
        out
    }

    fn material(
        &self,
        file_material: Option<usize>,
        out: &mut Materials,
        image_of: &mut HashMap<usize, Option<usize>>,
    ) -> Material {
        let Some(m) = file_material.and_then(|i| self.document.materials().nth(i)) else {
            return Material {
                name: "default".into(),
                base_color_factor: [1.0; 4],
                image: None,
                tex_coord: 0,
                from_file: false,
            };
        };
        let name = m.name().map_or_else(
            || format!("material {}", m.index().unwrap_or(0)),
            String::from,
        );
        let pbr = m.pbr_metallic_roughness();
        let factor = pbr.base_color_factor();
        let mut tex_coord = 0;
        let image = pbr.base_color_texture().and_then(|info| {
            tex_coord = info.tex_coord();
            if tex_coord != 0 {
                out.notes.push(format!(
                    "material {name:?}: its base colour texture reads TEXCOORD_{tex_coord}; \
                     skinbench reads TEXCOORD_0 for it"
                ));
            }
            let source = info.texture().source();
            let file_image = source.index();
            *image_of.entry(file_image).or_insert_with(|| {
                let image_name = source
                    .name()
                    .map_or_else(|| format!("image {file_image}"), String::from);
                let decoded: u64 = out
                    .images
                    .iter()
                    .map(|i| u64::from(i.width) * u64::from(i.height))
                    .sum();
                match self.decode_image(&source, MAX_TOTAL_IMAGE_PIXELS.saturating_sub(decoded)) {
                    Ok((width, height, rgba)) => {
                        out.images.push(BaseColorImage {
                            name: image_name,
                            width,
                            height,
                            rgba,
                        });
                        Some(out.images.len() - 1)
                    }
                    Err(why) => {
                        out.notes.push(format!(
                            "material {name:?}: {image_name} is left out ({why}); the \
                             material's base colour factor stands alone"
                        ));
                        None
                    }
                }
            })
        });
        Material {
            name,
            base_color_factor: factor,
            image,
            tex_coord,
            from_file: true,
        }
    }

    /// An image's pixels as RGBA8: its bytes (a buffer view, a `data:` URI or a file beside
    /// the glTF), its size from its header within [`MAX_IMAGE_PIXELS`] and `pixels_left`,
    /// then decoded.
    fn decode_image(
        &self,
        image: &gltf::Image,
        pixels_left: u64,
    ) -> Result<(u32, u32, Vec<u8>), String> {
        // The image's own JSON, not `Image::source`: that unwraps a missing `mimeType` (which
        // the spec requires beside a buffer view, and a file may lack) and a missing `uri`.
        let json = self
            .document
            .as_json()
            .images
            .get(image.index())
            .ok_or("it is not in the file's image list")?;
        let bytes: std::borrow::Cow<[u8]> = match (&json.buffer_view, &json.uri) {
            (Some(view), _) => {
                let view = self
                    .document
                    .views()
                    .nth(view.value())
                    .ok_or("its buffer view is not in the file")?;
                let buffer = self
                    .buffers
                    .get(view.buffer().index())
                    .ok_or("its buffer is missing")?;
                let (start, length) = (view.offset(), view.length());
                let bytes = start
                    .checked_add(length)
                    .and_then(|end| buffer.get(start..end))
                    .ok_or("its buffer view lies past its buffer")?;
                bytes.into()
            }
            (None, None) => return Err("it names neither a buffer view nor a uri".into()),
            (None, Some(uri)) => {
                if let Some(rest) = uri.strip_prefix("data:") {
                    let (_, payload) = rest
                        .split_once(";base64,")
                        .ok_or("its data URI is not base64-encoded")?;
                    base64::engine::general_purpose::STANDARD
                        .decode(payload)
                        .map_err(|e| format!("its data URI is not valid base64: {e}"))?
                        .into()
                } else if uri.contains("://") {
                    return Err(format!("{uri:?} is not a relative file path"));
                } else {
                    let base_dir = self.base_dir.ok_or_else(|| {
                        format!("{uri:?} is a file, and the rig was read from memory")
                    })?;
                    let path = base_dir.join(percent_decode(uri));
                    std::fs::read(&path)
                        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                        .into()
                }
            }
        };
        let reader = image::ImageReader::new(std::io::Cursor::new(&bytes[..]))
            .with_guessed_format()
            .map_err(|e| e.to_string())?;
        let format = reader
            .format()
            .ok_or("its bytes are neither PNG nor JPEG")?;
        let (width, height) = reader
            .into_dimensions()
            .map_err(|e| format!("its {format:?} header cannot be read: {e}"))?;
        let pixels = u64::from(width) * u64::from(height);
        if pixels > MAX_IMAGE_PIXELS {
            return Err(format!(
                "{width}×{height} pixels, more than the {MAX_IMAGE_PIXELS} skinbench reads"
            ));
        }
        if pixels > pixels_left {
            return Err(format!(
                "{width}×{height} pixels, more than the {pixels_left} left of the \
                 {MAX_TOTAL_IMAGE_PIXELS} a character's images may have together"
            ));
        }
        let decoded = image::load_from_memory_with_format(&bytes, format)
            .map_err(|e| format!("its {format:?} data is corrupt: {e}"))?;
        Ok((width, height, decoded.into_rgba8().into_raw()))
    }
}
