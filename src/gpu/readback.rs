//! Reading GPU results back: a buffer's bytes (verify, the compute pass's output), a
//! texture's pixels (screenshots, picture tests), and writing those as PNG.
//!
//! How it works: the data is copied into a `MAP_READ` buffer by a command buffer of its
//! own, the device is polled until that copy is done, and the mapping is read. Each of
//! these blocks until the GPU has finished everything submitted before.

use crate::gpu::GpuContext;
use std::path::{Path, PathBuf};

/// Why a read-back failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadbackError {
    #[error("cannot read {bytes} bytes back from a buffer of {buffer}")]
    TooLarge { bytes: u64, buffer: u64 },
    #[error("cannot read back from byte {offset}: copies start at multiples of 4")]
    Misaligned { offset: u64 },
    #[error("waiting for the GPU: {0}")]
    Poll(#[from] wgpu::PollError),
    #[error("mapping the read-back buffer: {0}")]
    Map(#[from] wgpu::BufferAsyncError),
    #[error("the read-back's mapping callback never ran")]
    NoCallback,
    #[error("the read-back image has the wrong size")]
    ImageSize,
    #[error("cannot create {}: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Png {
        path: PathBuf,
        #[source]
        source: image::ImageError,
    },
}

/// Reads the first `bytes` of a buffer (made with `COPY_SRC`) back to the CPU.
pub fn read_buffer(
    gpu: &GpuContext,
    buffer: &wgpu::Buffer,
    bytes: u64,
) -> Result<Vec<u8>, ReadbackError> {
    read_buffer_at(gpu, buffer, 0, bytes)
}

/// As [`read_buffer`], `bytes` bytes from byte `offset` (a multiple of 4).
pub fn read_buffer_at(
    gpu: &GpuContext,
    buffer: &wgpu::Buffer,
    offset: u64,
    bytes: u64,
) -> Result<Vec<u8>, ReadbackError> {
    let (device, queue) = (&gpu.device, &gpu.queue);
    let size = bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
    if !offset.is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT) {
        return Err(ReadbackError::Misaligned { offset });
    }
    if offset + size > buffer.size() {
        return Err(ReadbackError::TooLarge {
            bytes,
            buffer: buffer.size(),
        });
    }
    if size == 0 {
        return Ok(Vec::new());
    }
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("buffer readback"),
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, offset, &readback, 0, size);
    queue.submit([encoder.finish()]);
    let data = map_for_reading(device, &readback)?;
    let out = data[..bytes as usize].to_vec();
    drop(data);
    readback.unmap();
    Ok(out)
}

/// Maps a `MAP_READ` buffer whose copy was submitted, waiting for the GPU.
pub fn map_for_reading(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
) -> Result<wgpu::BufferView, ReadbackError> {
    let (sender, receiver) = std::sync::mpsc::channel();
    buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        let _ = sender.send(r);
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    receiver.recv().map_err(|_| ReadbackError::NoCallback)??;
    buffer
        .slice(..)
        .get_mapped_range()
        .map_err(|_| ReadbackError::NoCallback)
}

/// Reads a texture back as RGBA8 (BGRA formats are swizzled).
pub fn read_texture(
    gpu: &GpuContext,
    texture: &wgpu::Texture,
) -> Result<image::RgbaImage, ReadbackError> {
    let (device, queue) = (&gpu.device, &gpu.queue);
    let (width, height) = (texture.width(), texture.height());
    let bgra = matches!(
        texture.format(),
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    );
    let row = (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: (row * height) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(height),
            },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    let data = map_for_reading(device, &buffer)?;
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height as usize {
        let line = &data[y * row as usize..y * row as usize + width as usize * 4];
        if bgra {
            for px in line.chunks_exact(4) {
                pixels.extend_from_slice(&[px[2], px[1], px[0], 255]);
            }
        } else {
            for px in line.chunks_exact(4) {
                pixels.extend_from_slice(&[px[0], px[1], px[2], 255]);
            }
        }
    }
    drop(data);
    buffer.unmap();
    image::RgbaImage::from_raw(width, height, pixels).ok_or(ReadbackError::ImageSize)
}

/// Writes an image as PNG, creating the folder.
pub fn save_png(image: &image::RgbaImage, path: &Path) -> Result<(), ReadbackError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| ReadbackError::CreateDir {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    image
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(|source| ReadbackError::Png {
            path: path.to_path_buf(),
            source,
        })
}

/// Words a pass copies into a small buffer each frame and the CPU maps without waiting
/// (the LOD pass's counts, the skinned pool's totals): a copy is recorded only while no
/// earlier one is still mapping, and [`Self::after_submit`] hands back the words of the
/// latest copy that came back, a frame or two late.
pub struct LateWords {
    staging: wgpu::Buffer,
    copied: bool,
    pending: Option<std::sync::mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>>,
}

impl LateWords {
    /// Room for `bytes` (a multiple of 4).
    pub fn new(device: &wgpu::Device, label: &str, bytes: u64) -> Self {
        LateWords {
            staging: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            }),
            copied: false,
            pending: None,
        }
    }

    /// Copies the buffer's size of `source` from byte `at`, unless an earlier copy is
    /// still mapping; returns whether it copied.
    pub fn copy(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        source: &wgpu::Buffer,
        at: u64,
    ) -> bool {
        if self.pending.is_none() {
            encoder.copy_buffer_to_buffer(source, at, &self.staging, 0, self.staging.size());
            self.copied = true;
        }
        self.copied
    }

    /// After the frame was submitted: asks for its copy, and returns the words of an
    /// earlier one that came back (never waits for the GPU).
    pub fn after_submit(&mut self, device: &wgpu::Device) -> Option<Vec<u32>> {
        use std::sync::mpsc;
        if std::mem::take(&mut self.copied) {
            let (sender, receiver) = mpsc::channel();
            self.staging
                .slice(..)
                .map_async(wgpu::MapMode::Read, move |r| {
                    let _ = sender.send(r);
                });
            self.pending = Some(receiver);
        }
        let _ = device.poll(wgpu::PollType::Poll);
        let receiver = self.pending.as_ref()?;
        match receiver.try_recv() {
            Ok(Ok(())) => {
                let words = self
                    .staging
                    .slice(..)
                    .get_mapped_range()
                    .ok()
                    .map(|view| bytemuck::pod_collect_to_vec(&view));
                self.staging.unmap();
                self.pending = None;
                words
            }
            Ok(Err(_)) | Err(mpsc::TryRecvError::Disconnected) => {
                self.pending = None;
                None
            }
            Err(mpsc::TryRecvError::Empty) => None,
        }
    }
}
