//! Buffers that must be split into ranges to fit the device: every pass whose per-character
//! data can outgrow one storage binding (the GPU animation's poses, `gpu_compute`'s
//! skinned output, the vertex-pulling draw paths' chunks of the skinned buffer) splits it
//! the same way, here.
//!
//! How it works: [`BindingLimits`] reads the device's storage-binding, buffer-size and
//! dispatch limits once and answers how many characters one range holds when each takes
//! so many bytes in each of its bindings (tests lower it to check the split on any
//! adapter). [`RangeBuffers`] keeps one buffer per range, each holding its share: grown
//! by a quarter when too small, remade when four times too big, dropped when no longer
//! needed, so a crowd that changes by a few characters makes no buffer. [`PaletteRanges`]
//! keeps the GPU animation's palettes so, in buffers of a power-of-two count of characters
//! that every pass's ranges divide ([`PaletteBuffers`]). [`ParamBlocks`] is the uniform
//! buffer of per-range parameters bound with a dynamic offset.

use super::shape::{PaletteBuffers, prev_power_of_two};

/// Bytes between two parameter blocks bound with a dynamic offset (the uniform offset
/// alignment every adapter accepts).
pub const PARAMS_STRIDE: u64 = 256;

/// What the device lets one range hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindingLimits {
    /// The largest storage binding that is also a whole buffer, bytes.
    binding_bytes: u64,
    max_workgroups: u32,
    /// At most this many characters per range, below what the limits allow (tests).
    range_limit: Option<usize>,
}

impl BindingLimits {
    pub fn of(device: &wgpu::Device) -> Self {
        let limits = device.limits();
        BindingLimits {
            binding_bytes: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            max_workgroups: limits.max_compute_workgroups_per_dimension,
            range_limit: None,
        }
    }

    /// At most `characters` per range (`None`: what the device allows), as a device with
    /// small binding limits would split.
    pub fn limit_to(&mut self, characters: Option<usize>) {
        self.range_limit = characters;
    }

    /// The largest storage binding that is also a whole buffer, bytes.
    pub fn binding_bytes(&self) -> u64 {
        self.binding_bytes
    }

    /// Characters one range holds when each takes `bytes_per_character[b]` bytes of
    /// binding `b` (at least one): every binding fits, and with `one_dispatch_row` the
    /// characters fit one dispatch dimension too.
    pub fn per_range(&self, bytes_per_character: &[u64], one_dispatch_row: bool) -> usize {
        self.per_range_after(bytes_per_character, &[], one_dispatch_row)
    }

    /// [`Self::per_range`] where binding `b` also holds `fixed_bytes[b]` bytes that do not
    /// grow with the characters (a header; missing entries are 0).
    pub fn per_range_after(
        &self,
        bytes_per_character: &[u64],
        fixed_bytes: &[u64],
        one_dispatch_row: bool,
    ) -> usize {
        let by_bindings = bytes_per_character
            .iter()
            .enumerate()
            .map(|(b, &bytes)| {
                let fixed = fixed_bytes.get(b).copied().unwrap_or(0);
                self.binding_bytes.saturating_sub(fixed) / bytes.max(1)
            })
            .min()
            .unwrap_or(u64::MAX);
        let by_dispatch = if one_dispatch_row {
            self.max_workgroups as usize
        } else {
            usize::MAX
        };
        (by_bindings.min(usize::MAX as u64) as usize)
            .min(by_dispatch)
            .min(self.range_limit.unwrap_or(usize::MAX))
            .max(1)
    }
}

/// Characters in range `r` of `characters` split into ranges of `per_range`.
pub fn live_in_range(characters: usize, per_range: usize, r: usize) -> usize {
    per_range.min(characters.saturating_sub(r * per_range))
}

/// One buffer per range of characters (see the module docs).
pub struct RangeBuffers {
    ranges: Vec<RangeBuffer>,
    label: &'static str,
    usage: wgpu::BufferUsages,
    /// Bytes each buffer holds after its characters' (a header that does not grow).
    tail_bytes: u64,
}

struct RangeBuffer {
    buffer: wgpu::Buffer,
    /// Characters the buffer has room for.
    capacity: usize,
}

impl RangeBuffers {
    pub fn new(label: &'static str, usage: wgpu::BufferUsages) -> Self {
        RangeBuffers {
            ranges: Vec::new(),
            label,
            usage,
            tail_bytes: 0,
        }
    }

    /// Each buffer with `bytes` more after its characters' (see
    /// [`BindingLimits::per_range_after`] for the ranges' size).
    pub fn with_tail(self, bytes: u64) -> Self {
        RangeBuffers {
            tail_bytes: bytes,
            ..self
        }
    }

    /// Makes range `r` hold its share of `characters` split into ranges of `per_range`,
    /// each character `bytes_per_character` bytes. Returns whether any buffer was made or
    /// dropped (bind groups over them must then be made again).
    pub fn fit(
        &mut self,
        device: &wgpu::Device,
        characters: usize,
        per_range: usize,
        bytes_per_character: u64,
    ) -> bool {
        let per_range = per_range.max(1);
        let count = characters.div_ceil(per_range);
        let mut changed = false;
        if self.ranges.len() > count {
            self.ranges.truncate(count);
            changed = true;
        }
        for r in 0..count {
            let live = live_in_range(characters, per_range, r);
            let fits = self.ranges.get(r).is_some_and(|range| {
                range.capacity >= live
                    && range.capacity <= live.saturating_mul(4)
                    && range.buffer.size()
                        == range.capacity as u64 * bytes_per_character + self.tail_bytes
            });
            if fits {
                continue;
            }
            let capacity = (live + live / 4).clamp(1, per_range);
            let range = RangeBuffer {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(self.label),
                    size: capacity as u64 * bytes_per_character + self.tail_bytes,
                    usage: self.usage,
                    mapped_at_creation: false,
                }),
                capacity,
            };
            changed = true;
            if r < self.ranges.len() {
                self.ranges[r] = range;
            } else {
                self.ranges.push(range);
            }
        }
        changed
    }

    /// Range `r`'s buffer.
    pub fn buffer(&self, r: usize) -> Option<&wgpu::Buffer> {
        self.ranges.get(r).map(|range| &range.buffer)
    }

    /// Characters range `r`'s buffer has room for (0 past the ranges).
    pub fn capacity(&self, r: usize) -> usize {
        self.ranges.get(r).map_or(0, |range| range.capacity)
    }

    pub fn buffers(&self) -> impl Iterator<Item = &wgpu::Buffer> + '_ {
        self.ranges.iter().map(|range| &range.buffer)
    }

    /// Bytes of GPU memory the ranges take.
    pub fn bytes(&self) -> u64 {
        self.buffers().map(wgpu::Buffer::size).sum()
    }
}

/// A crowd's palettes split into buffers of a power-of-two count of characters, as large
/// as one storage binding holds: what the GPU animation writes, so the crowd is bounded by
/// memory and not by the largest buffer.
pub struct PaletteRanges {
    ranges: RangeBuffers,
    view: Option<PaletteBuffers>,
    /// What the buffers were fitted for: characters per buffer and bytes per character.
    fitted: (usize, u64),
}

impl PaletteRanges {
    pub fn new() -> Self {
        PaletteRanges {
            ranges: RangeBuffers::new(
                "palettes, a range of characters",
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            ),
            view: None,
            fitted: (0, 0),
        }
    }

    /// Makes the buffers hold `characters` palettes of `stride` bytes, each buffer the
    /// largest power of two of them one binding within `limits` holds. Returns whether any
    /// buffer was made or dropped (bind groups over them must then be made again).
    pub fn fit(
        &mut self,
        device: &wgpu::Device,
        limits: &BindingLimits,
        characters: usize,
        stride: u64,
    ) -> bool {
        let per_buffer = prev_power_of_two(limits.per_range(&[stride], false));
        let mut changed = self.fitted != (per_buffer, stride);
        if changed {
            self.ranges = PaletteRanges::new().ranges;
            self.fitted = (per_buffer, stride);
        }
        changed |= self.ranges.fit(device, characters, per_buffer, stride);
        if changed || self.view.is_none() {
            let buffers = (0..characters.div_ceil(per_buffer))
                .filter_map(|r| Some((self.ranges.buffer(r)?.clone(), self.ranges.capacity(r))));
            self.view = Some(PaletteBuffers::split(per_buffer, buffers));
        }
        changed
    }

    /// The buffers, as the passes bind them (`None` before the first [`Self::fit`]).
    pub fn buffers(&self) -> Option<&PaletteBuffers> {
        self.view.as_ref()
    }

    /// Bytes of GPU memory the buffers take.
    pub fn bytes(&self) -> u64 {
        self.ranges.bytes()
    }
}

impl Default for PaletteRanges {
    fn default() -> Self {
        Self::new()
    }
}

/// A uniform buffer of parameter blocks, [`PARAMS_STRIDE`] apart, each bound with a
/// dynamic offset.
pub struct ParamBlocks {
    buffer: wgpu::Buffer,
    capacity: usize,
    label: &'static str,
}

impl ParamBlocks {
    pub fn new(device: &wgpu::Device, label: &'static str, blocks: usize) -> Self {
        let capacity = blocks.max(1);
        ParamBlocks {
            buffer: Self::make(device, label, capacity),
            capacity,
            label,
        }
    }

    fn make(device: &wgpu::Device, label: &'static str, blocks: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: blocks as u64 * PARAMS_STRIDE,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Makes room for `blocks` blocks; returns whether the buffer was made anew (bind
    /// groups over it must then be made again).
    pub fn reserve(&mut self, device: &wgpu::Device, blocks: usize) -> bool {
        if blocks <= self.capacity {
            return false;
        }
        self.capacity = blocks.next_power_of_two();
        self.buffer = Self::make(device, self.label, self.capacity);
        true
    }

    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Block `block`'s dynamic offset.
    pub fn offset(block: usize) -> u32 {
        (block as u64 * PARAMS_STRIDE) as u32
    }

    /// Fills `scratch` with `blocks` zeroed blocks for [`Self::put`].
    pub fn clear_scratch(scratch: &mut Vec<u8>, blocks: usize) {
        scratch.clear();
        scratch.resize(blocks * PARAMS_STRIDE as usize, 0);
    }

    /// Puts `params` at block `block` of `scratch`.
    pub fn put<T: bytemuck::Pod>(scratch: &mut [u8], block: usize, params: &T) {
        let at = block * PARAMS_STRIDE as usize;
        let bytes = bytemuck::bytes_of(params);
        scratch[at..at + bytes.len()].copy_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(binding_bytes: u64, max_workgroups: u32) -> BindingLimits {
        BindingLimits {
            binding_bytes,
            max_workgroups,
            range_limit: None,
        }
    }

    #[test]
    fn a_range_fits_every_binding_and_the_dispatch() {
        let l = limits(1000, 65_535);
        assert_eq!(l.per_range(&[100, 10], false), 10);
        assert_eq!(l.per_range(&[1], true), 1000);
        assert_eq!(limits(1 << 40, 7).per_range(&[16], true), 7);
        assert_eq!(limits(1 << 40, 7).per_range(&[16], false), 1 << 36);
    }

    #[test]
    fn a_range_holds_at_least_one_character_and_at_most_the_test_limit() {
        let mut l = limits(100, 65_535);
        assert_eq!(l.per_range(&[1000], false), 1);
        assert_eq!(l.per_range(&[0], false), 100);
        l.limit_to(Some(3));
        assert_eq!(l.per_range(&[1], false), 3);
    }

    #[test]
    fn the_last_range_holds_what_is_left() {
        assert_eq!(live_in_range(10, 4, 0), 4);
        assert_eq!(live_in_range(10, 4, 2), 2);
        assert_eq!(live_in_range(10, 4, 3), 0);
    }

    #[test]
    fn blocks_are_put_a_stride_apart() {
        let mut scratch = Vec::new();
        ParamBlocks::clear_scratch(&mut scratch, 3);
        assert_eq!(scratch.len(), 3 * PARAMS_STRIDE as usize);
        ParamBlocks::put(&mut scratch, 2, &[7u32, 9]);
        let at = 2 * PARAMS_STRIDE as usize;
        assert_eq!(&scratch[at..at + 8], bytemuck::bytes_of(&[7u32, 9]));
        assert_eq!(ParamBlocks::offset(2), 512);
    }
}
