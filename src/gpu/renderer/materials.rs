//! The character's base colours on the GPU: its images as one texture array, its
//! materials as a table, and which colours the crowd is drawn in.
//!
//! How it works: every image the materials use becomes one layer of a `texture_2d_array`
//! (sRGB, so sampling returns linear colour), all layers resized to one size within the
//! device's limits and a memory budget, with their mip chains made here on the CPU.
//! Each material is a factor and a layer (`-1`: the factor alone). The fragment shader
//! every draw path ends in takes the material from the vertex's uv
//! ([`crate::prepare::MaterialUv`]), so the picture is the same on every path. The texels
//! are written on the first frame (a renderer is made without a queue) and the CPU copy is
//! dropped then.

use bytemuck::{Pod, Zeroable};

use crate::prepare::MaterialUv;
use crate::rig::materials::{BaseColorImage, Materials};
use crate::variant::PlainSpec;

crate::declare_variants! {
    /// What colours the crowd is drawn in (`--material`).
    pub enum BaseColors: PlainSpec in "material" {
        File => PlainSpec {
            name: "file",
            description: "each character's own base colours: the file's textures and factors",
        },
        Tint => PlainSpec {
            name: "tint",
            description: "three tints with an 8 x 8 checker over each uv unit: the crowd's structure and uv layout",
        },
    }
}

impl BaseColors {
    /// The file's own colours: what a user who brings a character expects to see.
    pub const DEFAULT: Self = Self::File;
}

/// The largest side of a layer: the file's images are drawn at most this sharp.
pub const MAX_LAYER_SIDE: u32 = 2048;
/// The most bytes the texture array's top level may take (its mips add a third).
pub const MAX_TEXTURE_BYTES: u64 = 128 << 20;

crate::gpu_struct! {
    /// How the uvs carry materials, and which colours to draw (`MaterialParams` in
    /// crowd.wgsl).
    #[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
    pub(crate) struct MaterialParamsGpu in "MaterialParams" {
        origin_u: f32,
        stride_u: f32,
        /// Materials the uv slots hold (the table has at least as many).
        materials: u32,
        /// 1: the file's base colours; 0: the tints.
        file_colors: u32,
    }
}

crate::gpu_struct! {
    /// One material's base colour (`Material` in crowd.wgsl).
    #[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
    pub(crate) struct MaterialGpu in "Material" {
        /// Linear RGBA.
        base_color_factor: [f32; 4],
        /// The texture array's layer, or -1 for the factor alone.
        layer: i32,
        _pad0: u32,
        _pad1: u32,
        _pad2: u32,
    }
}

impl MaterialGpu {
    fn new(base_color_factor: [f32; 4], layer: i32) -> Self {
        MaterialGpu {
            base_color_factor,
            layer,
            _pad0: 0,
            _pad1: 0,
            _pad2: 0,
        }
    }
}

/// The GPU side of a character's materials.
pub(super) struct MaterialTextures {
    params: wgpu::Buffer,
    table: wgpu::Buffer,
    view: wgpu::TextureView,
    sampler: wgpu::Sampler,
    texture: wgpu::Texture,
    /// Per mip level, every layer's texels, until the first frame writes them.
    pending: Option<Vec<Vec<u8>>>,
    /// What the params buffer holds.
    written: MaterialParamsGpu,
    /// The file gives materials of its own (a file that names none, like the built-in
    /// rigs, is drawn in the tints).
    has_materials: bool,
    notes: Vec<String>,
}

/// The crowd's colours, as the renderer offers them.
impl super::CrowdRenderer {
    /// What colours the crowd is drawn in (from the next [`Self::update`]).
    pub fn set_base_colors(&mut self, colors: BaseColors) {
        self.base_colors = colors;
    }

    pub fn base_colors(&self) -> BaseColors {
        self.base_colors
    }

    /// Whether the rig's file gives materials of its own to draw (one that names none,
    /// like the built-in rigs', is drawn in the tints whatever [`Self::base_colors`]
    /// says).
    pub fn has_materials(&self) -> bool {
        self.materials.has_materials()
    }

    /// The base colour texture array's layer width, height and layer count.
    pub fn material_layers(&self) -> (u32, u32, u32) {
        self.materials.layers()
    }

    /// What the GPU draws otherwise than the file has it (downscaled or left-out images).
    pub fn material_notes(&self) -> &[String] {
        self.materials.notes()
    }
}

/// The layer size for `images`: the largest width and height among them, within the
/// device's side, [`MAX_LAYER_SIDE`] and, all layers together, [`MAX_TEXTURE_BYTES`].
fn layer_size(images: &[&BaseColorImage], max_side: u32) -> (u32, u32) {
    let side = max_side.clamp(1, MAX_LAYER_SIDE);
    let largest = |of: fn(&BaseColorImage) -> u32| {
        images
            .iter()
            .map(|&i| of(i))
            .max()
            .unwrap_or(1)
            .clamp(1, side)
    };
    let (mut width, mut height) = (largest(|i| i.width), largest(|i| i.height));
    let layers = images.len().max(1) as u64;
    while layers * width as u64 * height as u64 * 4 > MAX_TEXTURE_BYTES && (width, height) != (1, 1)
    {
        width = (width / 2).max(1);
        height = (height / 2).max(1);
    }
    (width, height)
}

/// An image's texels as a `width` × `height` layer, or `None` if its texels do not match
/// its size (a [`Materials`] built by hand).
fn layer_texels(image: &BaseColorImage, width: u32, height: u32) -> Option<image::RgbaImage> {
    let source = image::RgbaImage::from_raw(image.width, image.height, image.rgba.clone())?;
    if (image.width, image.height) == (width, height) {
        return Some(source);
    }
    // Filtered in the sRGB encoding the file stores: a little darker at colour edges than
    // filtering linear light, and what most engines' importers do.
    Some(image::imageops::resize(
        &source,
        width,
        height,
        image::imageops::FilterType::Triangle,
    ))
}

impl MaterialTextures {
    pub(super) fn new(device: &wgpu::Device, materials: &Materials, slots: MaterialUv) -> Self {
        let limits = device.limits();
        let mut notes = Vec::new();
        let max_layers = limits.max_texture_array_layers.max(1) as usize;
        // Layers in the order the materials first use their images.
        let mut layer_of_image: Vec<Option<usize>> = vec![None; materials.images.len()];
        let mut layered: Vec<&BaseColorImage> = Vec::new();
        for material in &materials.materials {
            let Some(i) = material.image else { continue };
            let Some(image) = materials.images.get(i) else {
                continue;
            };
            if layer_of_image[i].is_some() {
                continue;
            }
            if layered.len() == max_layers {
                notes.push(format!(
                    "image {} of material {:?} left out: the device holds {max_layers} texture layers",
                    image.name, material.name
                ));
                continue;
            }
            layer_of_image[i] = Some(layered.len());
            layered.push(image);
        }
        let (width, height) = layer_size(&layered, limits.max_texture_dimension_2d);
        let mut mips: Vec<Vec<u8>> = Vec::new();
        let mip_count = 32 - width.max(height).leading_zeros();
        let mut layers: Vec<image::RgbaImage> = Vec::with_capacity(layered.len().max(1));
        for (k, image) in layered.iter().enumerate() {
            if (image.width, image.height) != (width, height) {
                notes.push(format!(
                    "image {} drawn at {width}×{height} (the file's is {}×{})",
                    image.name, image.width, image.height
                ));
            }
            match layer_texels(image, width, height) {
                Some(texels) => layers.push(texels),
                None => {
                    notes.push(format!(
                        "image {} left out: its texels do not match its size",
                        image.name
                    ));
                    layers.push(image::RgbaImage::from_pixel(
                        width,
                        height,
                        image::Rgba([255; 4]),
                    ));
                    if let Some(slot) = layer_of_image.iter_mut().find(|l| **l == Some(k)) {
                        *slot = None;
                    }
                }
            }
        }
        if layers.is_empty() {
            layers.push(image::RgbaImage::from_pixel(1, 1, image::Rgba([255; 4])));
        }
        for level in 0..mip_count {
            if level > 0 {
                let (w, h) = ((width >> level).max(1), (height >> level).max(1));
                for layer in &mut layers {
                    *layer =
                        image::imageops::resize(layer, w, h, image::imageops::FilterType::Triangle);
                }
            }
            mips.push(layers.iter().flat_map(|l| l.as_raw()).copied().collect());
        }
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("base colour images"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: layers.len() as u32,
            },
            mip_level_count: mip_count,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        // glTF's default sampler repeats, and most files use it.
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("base colour"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        let mut table: Vec<MaterialGpu> = materials
            .materials
            .iter()
            .map(|m| {
                let layer = m
                    .image
                    .and_then(|i| layer_of_image.get(i).copied().flatten());
                MaterialGpu::new(m.base_color_factor, layer.map_or(-1, |l| l as i32))
            })
            .collect();
        // The table holds every slot the uvs can name, and a storage binding is never
        // empty.
        while table.len() < (slots.materials() as usize).max(1) {
            table.push(MaterialGpu::new([1.0; 4], -1));
        }
        use wgpu::util::DeviceExt;
        let table = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("materials"),
            contents: bytemuck::cast_slice(&table),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let has_materials = materials.from_file();
        let written = MaterialParamsGpu {
            origin_u: slots.origin_u(),
            stride_u: slots.stride_u(),
            materials: slots.materials(),
            file_colors: has_materials as u32,
        };
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("material parameters"),
            contents: bytemuck::bytes_of(&written),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        if materials.materials.len() > 1 && !slots.marks_materials() {
            notes.push(format!(
                "the uvs spread too far to carry {} materials: every vertex drawn with the first",
                materials.materials.len()
            ));
        }
        MaterialTextures {
            params,
            table,
            view,
            sampler,
            texture,
            pending: Some(mips),
            written,
            has_materials,
            notes,
        }
    }

    /// Bindings 2 to 5 of the main passes' group 2 (`material_params`, `materials`,
    /// `base_color_images`, `base_color_sampler` in crowd.wgsl).
    pub(super) fn entries(&self) -> [wgpu::BindGroupEntry<'_>; 4] {
        let entry = |binding, resource| wgpu::BindGroupEntry { binding, resource };
        [
            entry(2, self.params.as_entire_binding()),
            entry(3, self.table.as_entire_binding()),
            entry(4, wgpu::BindingResource::TextureView(&self.view)),
            entry(5, wgpu::BindingResource::Sampler(&self.sampler)),
        ]
    }

    /// Writes the texels (on the first call) and which colours to draw: the file's where
    /// `colors` says so and the rig has materials, else the tints.
    pub(super) fn update(&mut self, queue: &wgpu::Queue, colors: BaseColors) {
        if let Some(mips) = self.pending.take() {
            let size = self.texture.size();
            for (level, texels) in mips.iter().enumerate() {
                let (w, h) = ((size.width >> level).max(1), (size.height >> level).max(1));
                queue.write_texture(
                    wgpu::TexelCopyTextureInfo {
                        texture: &self.texture,
                        mip_level: level as u32,
                        origin: wgpu::Origin3d::ZERO,
                        aspect: wgpu::TextureAspect::All,
                    },
                    texels,
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(4 * w),
                        rows_per_image: Some(h),
                    },
                    wgpu::Extent3d {
                        width: w,
                        height: h,
                        depth_or_array_layers: size.depth_or_array_layers,
                    },
                );
            }
        }
        let file_colors = match colors {
            BaseColors::File => self.has_materials,
            BaseColors::Tint => false,
        };
        let params = MaterialParamsGpu {
            file_colors: file_colors as u32,
            ..self.written
        };
        if params != self.written {
            queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
            self.written = params;
        }
    }

    /// Whether the file gave materials to draw.
    pub(super) fn has_materials(&self) -> bool {
        self.has_materials
    }

    /// The texture array's layer size and count.
    pub(super) fn layers(&self) -> (u32, u32, u32) {
        let size = self.texture.size();
        (size.width, size.height, size.depth_or_array_layers)
    }

    /// What the GPU could not draw as the file has it (downscaled or left-out images).
    pub(super) fn notes(&self) -> &[String] {
        &self.notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(width: u32, height: u32) -> BaseColorImage {
        BaseColorImage {
            name: format!("{width}x{height}"),
            width,
            height,
            rgba: vec![0; (width * height * 4) as usize],
        }
    }

    #[test]
    fn layers_take_the_largest_image_within_the_limits() {
        let (a, b) = (image(512, 256), image(128, 1024));
        assert_eq!(layer_size(&[&a, &b], 8192), (512, 1024));
        assert_eq!(layer_size(&[&a, &b], 300), (300, 300));
        assert_eq!(layer_size(&[], 8192), (1, 1));
        let big = image(8192, 8192);
        assert_eq!(layer_size(&[&big], 16384), (2048, 2048));
        // 40 layers of 2048² would be 640 MiB: halved until the top level is in budget.
        let many: Vec<&BaseColorImage> = (0..40).map(|_| &big).collect();
        let (w, h) = layer_size(&many, 16384);
        assert!(40 * w as u64 * h as u64 * 4 <= MAX_TEXTURE_BYTES, "{w}x{h}");
        assert_eq!((w, h), (512, 512));
    }

    #[test]
    fn texels_that_do_not_match_the_size_are_refused() {
        let mut bad = image(4, 4);
        bad.rgba.pop();
        assert!(layer_texels(&bad, 4, 4).is_none());
        let good = image(4, 2);
        assert_eq!(layer_texels(&good, 2, 2).unwrap().dimensions(), (2, 2));
    }
}
