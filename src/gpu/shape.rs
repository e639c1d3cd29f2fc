//! The shape every pass of a frame shares: where each character's data is in the crowd's
//! buffers ([`OutputLayout`], the one value that says so) and how many characters there
//! are. Passes take it as one value instead of the pair, so a pass cannot be handed one
//! crowd's layout with another's count.

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

/// A buffer of palettes (3×4 rows or dual quaternions) laid out in `shape`: what the GPU
/// animation writes and compute skinning reads.
#[derive(Clone, Copy, Debug)]
pub struct PaletteBuffer<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub shape: FrameShape<'a>,
}
