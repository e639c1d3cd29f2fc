//! The shape every pass of a frame shares: where each character's data is in the crowd's
//! buffers ([`OutputLayout`], the one value that says so) and how many characters there
//! are. Passes take it as one value instead of the pair, so a pass cannot be handed one
//! crowd's layout with another's count.
//!
//! How the palettes are found: character `i`'s palettes are the `i`th of
//! `layout.instance_stride()` bytes, in one buffer (what the CPU uploads) or in buffers of
//! a power-of-two count of characters each (what the GPU animation writes:
//! [`super::ranges::PaletteRanges`], so a crowd's palettes are not bounded by the largest
//! buffer). [`PaletteBuffers`] says which; a pass that splits the crowd into ranges takes
//! its range size from [`PaletteBuffers::per_range`], so no range crosses from one buffer
//! into the next, and binds each range's palettes with [`PaletteBuffers::binding`].

use crate::skin::OutputLayout;

/// The crowd's layout and character count, as one frame's passes see them.
#[derive(Clone, Copy, Debug)]
pub struct FrameShape<'a> {
    pub layout: &'a OutputLayout,
    pub characters: usize,
}

impl<'a> FrameShape<'a> {
    pub fn new(layout: &'a OutputLayout, characters: usize) -> Self {
        FrameShape { layout, characters }
    }
}

/// The buffers a crowd's palettes are in (see the module docs). Compared to tell whether
/// bind groups over them are still current.
#[derive(Clone, Debug, PartialEq)]
pub struct PaletteBuffers {
    /// Each buffer with the characters it has room for (`None` for the one buffer: its
    /// size says, given the stride).
    buffers: Vec<(wgpu::Buffer, Option<usize>)>,
    /// Characters per buffer where split, a power of two; `None`: one buffer.
    per_buffer: Option<usize>,
}

impl PaletteBuffers {
    /// Every character's palettes in `buffer`.
    pub fn one(buffer: &wgpu::Buffer) -> Self {
        PaletteBuffers {
            buffers: vec![(buffer.clone(), None)],
            per_buffer: None,
        }
    }

    /// Buffer `b` holding characters `b * per_buffer ..`, room for `capacity` of them.
    /// `per_buffer` is rounded down to a power of two.
    pub(super) fn split(
        per_buffer: usize,
        buffers: impl Iterator<Item = (wgpu::Buffer, usize)>,
    ) -> Self {
        let per_buffer = prev_power_of_two(per_buffer.max(1));
        PaletteBuffers {
            buffers: buffers
                .map(|(buffer, capacity)| (buffer, Some(capacity.min(per_buffer))))
                .collect(),
            per_buffer: Some(per_buffer),
        }
    }

    /// Characters per range for a pass whose own bindings allow `own`: `own` for one
    /// buffer; split, the largest power of two at most `own` and the buffers' count, so
    /// every range lies within one buffer.
    pub fn per_range(&self, own: usize) -> usize {
        match self.per_buffer {
            None => own.max(1),
            Some(per_buffer) => prev_power_of_two(own.clamp(1, per_buffer)),
        }
    }

    /// Whether the palettes of `characters` characters, `stride` bytes each, have room.
    pub fn holds(&self, characters: usize, stride: usize) -> bool {
        characters == 0 || self.binding(characters - 1, 1, stride).is_some()
    }

    /// Characters `first .. first + count`'s palettes, `stride` bytes each, where they
    /// lie in one buffer with room for them (`None` otherwise).
    pub fn binding(
        &self,
        first: usize,
        count: usize,
        stride: usize,
    ) -> Option<wgpu::BufferBinding<'_>> {
        let (b, within) = match self.per_buffer {
            None => (0, first),
            Some(per_buffer) => (first / per_buffer, first % per_buffer),
        };
        let (buffer, capacity) = self.buffers.get(b)?;
        let end = within.checked_add(count)?;
        let room = capacity.unwrap_or(buffer.size() as usize / stride.max(1));
        if count == 0 || end > room {
            return None;
        }
        Some(wgpu::BufferBinding {
            buffer,
            offset: (within * stride) as u64,
            size: wgpu::BufferSize::new((count * stride) as u64),
        })
    }

    /// The buffers in the order of the characters they hold, each with the characters it
    /// has room for (`None`: the one buffer).
    pub fn buffers(&self) -> impl Iterator<Item = (&wgpu::Buffer, Option<usize>)> + '_ {
        self.buffers
            .iter()
            .map(|(buffer, capacity)| (buffer, *capacity))
    }

    /// Characters per buffer where split.
    pub fn per_buffer(&self) -> Option<usize> {
        self.per_buffer
    }

    /// Bytes of GPU memory the buffers take.
    pub fn bytes(&self) -> u64 {
        self.buffers.iter().map(|(buffer, _)| buffer.size()).sum()
    }

    /// The palettes of the first `characters` characters, `stride` bytes each, read back
    /// in the characters' order (blocks until the GPU is done).
    pub fn read(
        &self,
        gpu: &super::GpuContext,
        characters: usize,
        stride: usize,
    ) -> Result<Vec<u8>, super::ReadbackError> {
        let per_buffer = self.per_buffer.unwrap_or(characters.max(1));
        let mut out = Vec::with_capacity(characters * stride);
        for (b, (buffer, _)) in self.buffers.iter().enumerate() {
            let count = per_buffer.min(characters.saturating_sub(b * per_buffer));
            if count == 0 {
                break;
            }
            out.extend(super::read_buffer(gpu, buffer, (count * stride) as u64)?);
        }
        Ok(out)
    }

    /// The palettes of the characters `indices` names (each below `characters`), the `k`th
    /// at `k * stride`, read back (blocks until the GPU is done): what verify compares,
    /// without reading a large crowd's every palette.
    pub fn read_characters(
        &self,
        gpu: &super::GpuContext,
        characters: usize,
        indices: &[usize],
        stride: usize,
    ) -> Result<Vec<u8>, super::ReadbackError> {
        let per_buffer = self.per_buffer.unwrap_or(characters.max(1));
        let mut out = Vec::with_capacity(indices.len() * stride);
        for &i in indices {
            let Some((buffer, _)) = self.buffers.get(i / per_buffer) else {
                return Err(super::ReadbackError::TooLarge {
                    bytes: ((i + 1) * stride) as u64,
                    buffer: self.bytes(),
                });
            };
            let at = ((i % per_buffer) * stride) as u64;
            out.extend(super::readback::read_buffer_at(
                gpu,
                buffer,
                at,
                stride as u64,
            )?);
        }
        Ok(out)
    }
}

/// The largest power of two at most `n` (1 for 0).
pub(super) fn prev_power_of_two(n: usize) -> usize {
    if n <= 1 {
        1
    } else {
        1 << (usize::BITS - 1 - n.leading_zeros())
    }
}

/// A crowd's palettes (3×4 rows or dual quaternions) laid out in `shape`: what the GPU
/// animation writes and compute skinning and `gpu_vertex` read.
#[derive(Clone, Copy, Debug)]
pub struct PaletteBuffer<'a> {
    pub buffers: &'a PaletteBuffers,
    pub shape: FrameShape<'a>,
}

impl<'a> PaletteBuffer<'a> {
    pub fn new(buffers: &'a PaletteBuffers, shape: FrameShape<'a>) -> Self {
        PaletteBuffer { buffers, shape }
    }

    /// Whether the buffers have room for the shape's characters' palettes.
    pub fn holds_shape(&self) -> bool {
        self.buffers
            .holds(self.shape.characters, self.shape.layout.instance_stride())
    }
}

#[cfg(test)]
mod tests {
    use super::prev_power_of_two;

    #[test]
    fn powers_of_two_round_down() {
        assert_eq!(prev_power_of_two(0), 1);
        assert_eq!(prev_power_of_two(1), 1);
        assert_eq!(prev_power_of_two(7), 4);
        assert_eq!(prev_power_of_two(8), 8);
        assert_eq!(prev_power_of_two(466_033), 262_144);
    }
}
