//! Staging memory for the `staging_belt` upload: mapped buffers the workers skin into,
//! copied to the skinned buffer by the GPU, then mapped again and reused.
//!
//! How it works: a request names a bucket (a power of two of bytes) and gets a mapped
//! chunk of exactly that size: a free one of that size if there is one, else a new one.
//! [`StagingChunks::finish`] unmaps the frame's chunks before the submit;
//! [`StagingChunks::recall`] asks for each to be mapped again once the GPU has copied from
//! it, and the mapping's callback hands it back. [`StagingChunks::end_frame`] then drops
//! every free chunk that no frame asked for in the last [`IDLE_FRAMES`] frames.
//!
//! What it holds is therefore bounded by what the recent frames needed, never by the
//! largest frame ever drawn: a chunk of another size is never taken for a request (wgpu's
//! `StagingBelt` takes the first free chunk that is large enough, so one 256 MiB chunk
//! left from a crowd of 10,000 serves, and keeps alive, every later frame of 100), and a
//! size no frame asks for any more is gone [`IDLE_FRAMES`] frames later (the belt kept its
//! chunks until it was made anew). With the scene's bound on frames in flight, a steady
//! configuration holds one set of chunks per frame the GPU has not finished, plus one.

use std::sync::mpsc;

/// Frames a free chunk may go unasked-for before it is dropped. More than the frames a
/// chunk can spend in flight ([`crate::gpu::scene`]'s bound of two, and the frame that
/// recalls it), so that a steady configuration never drops and remakes its own chunks
/// (a new chunk is zeroed by wgpu: 60–140 ms a frame at 10,000 characters).
pub const IDLE_FRAMES: u64 = 4;

/// One mapped-for-writing buffer and the frame that last asked for it.
struct Chunk {
    buffer: wgpu::Buffer,
    last_used: u64,
}

/// The staging chunks of the `staging_belt` upload (see the module's docs).
pub struct StagingChunks {
    device: wgpu::Device,
    /// Mapped and asked for by no one now.
    free: Vec<Chunk>,
    /// Handed out this frame, mapped until [`Self::finish`].
    writing: Vec<Chunk>,
    /// Unmapped and submitted: to be mapped again by [`Self::recall`].
    closed: Vec<Chunk>,
    /// Chunks whose mapping was asked for and not yet received back, and their bytes.
    in_flight: (usize, u64),
    /// Chunks whose mapping came back, and whether it succeeded.
    returned: mpsc::Receiver<(Chunk, bool)>,
    send_back: mpsc::Sender<(Chunk, bool)>,
    /// Frames ended so far (the chunks' clock).
    frame: u64,
}

impl StagingChunks {
    pub fn new(device: &wgpu::Device) -> Self {
        let (send_back, returned) = mpsc::channel();
        StagingChunks {
            device: device.clone(),
            free: Vec::new(),
            writing: Vec::new(),
            closed: Vec::new(),
            in_flight: (0, 0),
            returned,
            send_back,
            frame: 0,
        }
    }

    /// A mapped chunk of exactly `bytes` (a multiple of 4), whole, for this frame: one
    /// left free of that size, or a new one. The returned handle is the chunk's; it stays
    /// mapped until [`Self::finish`].
    pub fn take(&mut self, bytes: wgpu::BufferSize) -> wgpu::Buffer {
        self.receive();
        let chunk = match self
            .free
            .iter()
            .position(|chunk| chunk.buffer.size() == bytes.get())
        {
            Some(index) => self.free.swap_remove(index),
            None => Chunk {
                buffer: self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("staging chunk"),
                    size: bytes.get(),
                    usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: true,
                }),
                last_used: self.frame,
            },
        };
        let buffer = chunk.buffer.clone();
        self.writing.push(Chunk {
            last_used: self.frame,
            ..chunk
        });
        buffer
    }

    /// Unmaps the chunks handed out this frame: call once they are written and the copies
    /// from them recorded, before the submit.
    pub fn finish(&mut self) {
        for chunk in self.writing.drain(..) {
            chunk.buffer.unmap();
            self.closed.push(chunk);
        }
    }

    /// After the submit: asks for the closed chunks to be mapped again (they come back
    /// once the GPU has copied from them, as the device is polled).
    pub fn recall(&mut self) {
        self.receive();
        for chunk in self.closed.drain(..) {
            self.in_flight.0 += 1;
            self.in_flight.1 += chunk.buffer.size();
            let send_back = self.send_back.clone();
            let buffer = chunk.buffer.clone();
            buffer.map_async(wgpu::MapMode::Write, .., move |result| {
                let _ = send_back.send((chunk, result.is_ok()));
            });
        }
    }

    /// Ends a frame: drops the free chunks no frame asked for in the last [`IDLE_FRAMES`].
    pub fn end_frame(&mut self) {
        self.receive();
        let frame = self.frame;
        self.free
            .retain(|chunk| frame.saturating_sub(chunk.last_used) < IDLE_FRAMES);
        self.frame += 1;
    }

    /// Drops every free chunk now (the upload switched to another variant).
    pub fn release_free(&mut self) {
        self.receive();
        self.free.clear();
    }

    /// Bytes of staging memory held now: free, handed out, closed and in flight.
    pub fn held_bytes(&self) -> u64 {
        let sum = |chunks: &[Chunk]| chunks.iter().map(|c| c.buffer.size()).sum::<u64>();
        sum(&self.free) + sum(&self.writing) + sum(&self.closed) + self.in_flight.1
    }

    /// Chunks held now (free, handed out, closed and in flight).
    pub fn chunk_count(&self) -> usize {
        self.free.len() + self.writing.len() + self.closed.len() + self.in_flight.0
    }

    /// Moves the chunks mapped again since the last look onto the free list.
    fn receive(&mut self) {
        while let Ok((chunk, mapped)) = self.returned.try_recv() {
            self.in_flight.0 -= 1;
            self.in_flight.1 -= chunk.buffer.size();
            // A chunk that could not be mapped again (a lost device) is dropped.
            if mapped {
                self.free.push(chunk);
            }
        }
    }
}
