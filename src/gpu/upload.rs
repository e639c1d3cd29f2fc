//! upload: the skinned stream → the GPU vertex buffer, three ways.
//!
//! How it works:
//! - `write_buffer`: the workers skin into a CPU buffer, then `queue.write_buffer` copies
//!   it into wgpu's staging memory (one extra pass over every byte).
//! - `in_place`: `queue.write_buffer_with` hands out the staging memory first and the
//!   workers skin straight into it: no CPU-side copy at all. The mapping is write-only
//!   (possibly uninitialized, write-combined), which is why the pipeline writes through a
//!   [`Dest`] and never reads it.
//! - `staging_belt`: like `in_place`, but into staging chunks that are recalled and reused
//!   frame after frame instead of a fresh staging buffer each time ([`StagingChunks`]:
//!   what they hold follows the recent frames' needs, never the largest frame's).
//!
//! No staging request passes the device's largest buffer: a frame's runs of groups are cut
//! into pieces of whole groups of at most 256 MiB (or that buffer, where it is smaller), and
//! each piece is staged on its own ([`split_runs`]).
//!
//! A group skinned for a coarse level of the mesh's chain writes only that level's places
//! in its block, so `write_buffer` and `staging_belt` copy only those parts
//! (`level_copies`, from the layout's [`OutputLayout::level_group_bytes`], each level's
//! parts worked out once per layout and kept); the rest of the GPU's block keeps what it
//! held, and no pass draws it. `in_place`'s mapping is copied whole by wgpu.
//! [`Uploader::copied`] says what the latest frame copied.
//!
//! The upload stage's time is what each variant spends outside the skinning kernels:
//! working out the pieces and their copies, then the copy for `write_buffer`, acquiring
//! and releasing the mapping for the other two.

use std::num::NonZeroU64;
use std::ops::Range;
use std::time::Instant;

use super::skin::GpuSkinError;
use super::staging::StagingChunks;
use crate::crowd::{FrameError, Instance, Pipeline, Stage, StageTimings};
use crate::skin::{BufferError, Dest, OutputBuffer, OutputLayout};
use crate::types::LANES;
use crate::variant::PlainSpec;

use super::renderer::CrowdRenderer;
use crate::gpu::GpuContext;

crate::declare_variants! {
    /// How the skinned stream reaches the GPU buffer.
    pub enum UploadVariant: PlainSpec in "upload" {
        WriteBuffer => PlainSpec {
            name: "write_buffer",
            description: "skin into a CPU buffer, then queue.write_buffer copies it",
        },
        InPlace => PlainSpec {
            name: "in_place",
            description: "skin straight into queue.write_buffer_with staging memory (no extra copy)",
        },
        StagingBelt => PlainSpec {
            name: "staging_belt",
            description: "skin straight into reused StagingBelt chunks",
        },
    }
}

impl UploadVariant {
    /// The app's default: no CPU-side copy, and staging memory reused from frame to frame.
    /// `in_place` is as fast with a small crowd, but wgpu gives `write_buffer_with` fresh
    /// staging memory every call, and at 10,000 characters its page faults cost more than
    /// the skinning (skin stage 71 ms a frame against the belt's 24 ms with LOD on, on a
    /// 2-core Xeon under lavapipe; `bench-results/2026-11-24_upload_default.md`).
    pub const DEFAULT: Self = Self::StagingBelt;
}

/// Why a frame's upload failed.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    #[error(transparent)]
    Frame(#[from] FrameError),
    #[error("GPU skinning: {0}")]
    GpuSkin(#[from] GpuSkinError),
    #[error("the staging belt's memory: {0}")]
    StagingMap(#[from] wgpu::MapRangeError),
    #[error(
        "a group of {} characters skins into {group_bytes} bytes, more than the largest \
         staging buffer this device allows ({cap} bytes)",
        LANES
    )]
    GroupTooLarge { group_bytes: u64, cap: u64 },
}

/// The smallest staging chunk, bytes.
const BELT_MIN_CHUNK: u64 = 1 << 20;
/// The largest staging request, bytes: a frame past it is staged in several pieces, each
/// a whole number of groups. A device's largest buffer lowers it further (2 GiB − 1 on
/// many), and a belt of fixed-size chunks wastes less than one rounded up to a power of
/// two past a gigabyte.
const MAX_STAGING_PIECE: u64 = 256 << 20;

/// The largest piece `device` may be asked to stage, bytes (a multiple of 256, the belt's
/// alignment).
pub fn staging_piece_bytes(device: &wgpu::Device) -> u64 {
    (device.limits().max_buffer_size.min(MAX_STAGING_PIECE) / 256 * 256).max(256)
}

/// `runs` (ranges of groups) cut at group boundaries so that no piece of the skinned
/// stream is over `cap` bytes; the pieces keep the runs' order.
pub fn split_runs(
    layout: &OutputLayout,
    instances: usize,
    runs: &[Range<usize>],
    cap: u64,
) -> Result<Vec<Range<usize>>, UploadError> {
    let bytes = |groups: Range<usize>| layout.groups_span(instances, &groups).1 as u64;
    let mut pieces = Vec::with_capacity(runs.len());
    for run in runs {
        let mut start = run.start;
        while start < run.end {
            if bytes(start..run.end) <= cap {
                pieces.push(start..run.end);
                break;
            }
            // The bytes grow with the groups: the longest piece that fits, by bisection.
            let (mut fits, mut over) = (start, run.end);
            while over - fits > 1 {
                let mid = fits + (over - fits) / 2;
                if bytes(start..mid) <= cap {
                    fits = mid;
                } else {
                    over = mid;
                }
            }
            if fits == start {
                return Err(UploadError::GroupTooLarge {
                    group_bytes: bytes(start..start + 1),
                    cap,
                });
            }
            pieces.push(start..fits);
            start = fits;
        }
    }
    Ok(pieces)
}
/// Consecutive pieces staged together, at most the cap's bytes.
struct StagingChunk {
    /// Indices into the frame's pieces.
    pieces: Range<usize>,
    bytes: u64,
}

/// Packs the pieces' spans, in order, into as few chunks of at most `cap` bytes as that
/// order allows (every span is at most `cap`, [`split_runs`] made them so).
fn pack_pieces(spans: &[(u64, u64)], cap: u64) -> Vec<StagingChunk> {
    let mut chunks: Vec<StagingChunk> = Vec::new();
    for (i, &(_, len)) in spans.iter().enumerate() {
        match chunks.last_mut() {
            Some(chunk) if chunk.bytes + len <= cap => {
                chunk.pieces.end = i + 1;
                chunk.bytes += len;
            }
            _ => chunks.push(StagingChunk {
                pieces: i..i + 1,
                bytes: len,
            }),
        }
    }
    chunks
}

/// Bytes between two parts a group's level wrote that are copied along with them rather
/// than starting a copy of their own. Recording a copy command took wgpu about 130 ns of
/// CPU here (5,000 a frame: about 0.65 ms more upload stage on a 2-core Xeon), what a bus
/// of 10–30 GB/s takes to move one to four KiB; the gaps worth a copy of their own are a
/// level's skipped vertices (kilobytes and more), not the padding between the palettes'
/// slices (under 256 bytes) or the file order's few vertices apart.
const COPY_GAP_BYTES: u64 = 4096;

/// Per level of a mesh's chain, the parts of a group's block a group skinned for it
/// writes, those less than [`COPY_GAP_BYTES`] apart already joined: made once per layout
/// and rig, not per frame, since a file-order level's places are thousands of stretches
/// (joining them for every group of a 10,000-character crowd took milliseconds a frame).
struct LevelParts {
    /// What the parts were made for; `Weak` so that no other rig can take the address it
    /// was compared by while the parts are kept.
    made_for: Option<(OutputLayout, std::sync::Weak<crate::prepare::PreparedRig>)>,
    by_level: Vec<Option<Vec<Range<u64>>>>,
}

impl LevelParts {
    fn new() -> Self {
        LevelParts {
            made_for: None,
            by_level: Vec::new(),
        }
    }

    /// Forgets the parts unless they were made for `layout` of `rig`.
    fn keep_for(
        &mut self,
        layout: &OutputLayout,
        rig: &std::sync::Arc<crate::prepare::PreparedRig>,
    ) {
        let same = self.made_for.as_ref().is_some_and(|(made, weak)| {
            made == layout && std::ptr::eq(weak.as_ptr(), std::sync::Arc::as_ptr(rig))
        });
        if !same {
            self.made_for = Some((*layout, std::sync::Arc::downgrade(rig)));
            self.by_level = vec![None; rig.mesh.level_count().max(1)];
        }
    }

    /// The joined parts of `level` (a level past the chain: its coarsest).
    fn at(
        &mut self,
        layout: &OutputLayout,
        mesh: &crate::prepare::PreparedMesh,
        level: usize,
    ) -> &[Range<u64>] {
        let level = level.min(self.by_level.len() - 1);
        self.by_level[level].get_or_insert_with(|| {
            let mut joined: Vec<Range<u64>> = Vec::new();
            for part in layout.level_group_bytes(mesh, level) {
                let part = part.start as u64..part.end as u64;
                match joined.last_mut() {
                    Some(last) if last.end + COPY_GAP_BYTES >= part.start => last.end = part.end,
                    _ => joined.push(part),
                }
            }
            joined
        })
    }
}

/// Per piece of the frame (`runs[i]`, written at `spans[i]`), the parts its groups' levels
/// wrote, as (bytes from the span's start, bytes): what the upload copies. A group is
/// skinned for `skin_levels[g]` (empty: the full mesh), and writes only that level's
/// places ([`OutputLayout::level_group_bytes`]); the rest of its block holds whatever the
/// staging memory held, never drawn. Parts less than [`COPY_GAP_BYTES`] apart are joined.
/// `parts` keeps each level's parts of `layout` for `rig` between frames.
fn level_copies(
    parts: &mut LevelParts,
    made_for: (&OutputLayout, &std::sync::Arc<crate::prepare::PreparedRig>),
    runs: &[Range<usize>],
    spans: &[(u64, u64)],
    skin_levels: &[u8],
) -> Vec<Vec<(u64, u64)>> {
    let mut copies = vec![Vec::new(); runs.len()];
    for_each_level_copy(parts, made_for, runs, spans, skin_levels, |piece, copy| {
        copies[piece].push(copy);
    });
    copies
}

/// Hands each copy [`level_copies`] describes to `copy(piece, (from, bytes))`, the pieces'
/// in order, keeping none: what needs only their sum (the comparison with every vertex)
/// takes them this way.
fn for_each_level_copy(
    parts: &mut LevelParts,
    (layout, rig): (&OutputLayout, &std::sync::Arc<crate::prepare::PreparedRig>),
    runs: &[Range<usize>],
    spans: &[(u64, u64)],
    skin_levels: &[u8],
    mut copy: impl FnMut(usize, (u64, u64)),
) {
    parts.keep_for(layout, rig);
    let mesh = &rig.mesh;
    let group_bytes = layout.group_bytes() as u64;
    for (piece, (run, &(_, span_bytes))) in runs.iter().zip(spans).enumerate() {
        // The copy being grown: a part less than the gap after it joins it.
        let mut open: Option<(u64, u64)> = None;
        for g in run.clone() {
            let level = skin_levels.get(g).map_or(0, |&l| l as usize);
            let group_start = (g - run.start) as u64 * group_bytes;
            for part in parts.at(layout, mesh, level) {
                let start = group_start + part.start;
                let end = (group_start + part.end).min(span_bytes);
                if start >= end {
                    continue;
                }
                match &mut open {
                    Some((at, len)) if *at + *len + COPY_GAP_BYTES >= start => {
                        *len = end - *at;
                    }
                    _ => {
                        if let Some(done) = open.replace((start, end - start)) {
                            copy(piece, done);
                        }
                    }
                }
            }
        }
        if let Some(done) = open {
            copy(piece, done);
        }
    }
}

/// The CPU's part of an upload: the pipeline that computes, the characters, and the runs
/// of groups it computes this frame (the others keep what the GPU holds).
pub struct CpuWork<'a> {
    pub pipeline: &'a mut Pipeline,
    pub instances: &'a [Instance],
    pub runs: &'a [Range<usize>],
    /// Per group of the crowd, the level of the mesh's chain it is skinned for (empty:
    /// the full mesh; see [`Pipeline::run_groups_at_levels_into`]).
    pub skin_levels: &'a [u8],
}

/// Owns what the upload variants keep between frames.
pub struct Uploader {
    cpu: OutputBuffer,
    belt: StagingChunks,
    /// Set when a variant had to fall back this frame (shown in the panel).
    note: Option<String>,
    /// Treats `in_place`'s and the staging belt's memory as misaligned (lavapipe's never
    /// is; the tests exercise the fallbacks with it).
    simulate_misaligned_staging: bool,
    /// Where the upload's own spans go too, when a timeline is being kept.
    trace: Option<std::sync::Arc<crate::crowd::trace::Trace>>,
    /// The latest frame's bytes copied to the GPU, and what copying every vertex would take.
    copied: UploadBytes,
    /// Each level's parts of a group's block, kept while the layout and rig stay.
    level_parts: LevelParts,
}

/// What a frame's upload copied to the GPU ([`Uploader::copied`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UploadBytes {
    /// Bytes copied to the GPU's buffer: the parts the groups' levels wrote
    /// (`staging_belt`, `write_buffer`), or the groups' whole spans (`in_place`, whose
    /// staging memory wgpu copies whole).
    pub copied: u64,
    /// What copying every vertex of the same groups would take, bytes (the copies of the
    /// groups at full detail).
    pub every_vertex: u64,
    /// Copies recorded: copy commands (`staging_belt`), `queue.write_buffer` calls
    /// (`write_buffer`), or staged pieces (`in_place`). Each costs the CPU a fixed time
    /// whatever its bytes, which is what the upload stage pays for copying only a level's
    /// parts. `None` where the frame's upload is not this one's (the GPU's animation writes
    /// its own records).
    pub copies: Option<u64>,
}

impl Uploader {
    pub fn new(device: &wgpu::Device) -> Self {
        Uploader {
            cpu: OutputBuffer::default(),
            belt: StagingChunks::new(device),
            note: None,
            simulate_misaligned_staging: false,
            trace: None,
            copied: UploadBytes::default(),
            level_parts: LevelParts::new(),
        }
    }

    /// What a variant fell back to this frame, if it had to (shown in the panel).
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Treats `in_place`'s and the staging belt's memory as misaligned (lavapipe's never
    /// is; the tests exercise the fallbacks with it).
    pub fn simulate_misaligned_staging(&mut self, misaligned: bool) {
        self.simulate_misaligned_staging = misaligned;
    }

    /// Keeps the upload's own spans on `trace` too (`None` stops).
    pub fn set_trace(&mut self, trace: Option<std::sync::Arc<crate::crowd::trace::Trace>>) {
        self.trace = trace;
    }

    /// Keeps an upload span on the calling thread's track of the timeline, if one is kept.
    fn trace_upload(&self, start: Instant, duration: std::time::Duration) {
        if let Some(trace) = &self.trace {
            trace.record(
                crate::crowd::trace::Track::Thread(0),
                "upload",
                start,
                duration,
            );
        }
    }

    /// Runs the CPU pipeline for `instances` and gets the skinned stream (for a variant
    /// that skins on the GPU: the palettes) into the renderer's buffers with `variant`.
    /// Copies recorded into `encoder` (staging belt) must be submitted before
    /// [`Self::after_submit`]. A GPU-skinning variant's compute pass is the caller's to
    /// record next ([`CrowdRenderer::record_gpu_skinning`]), before every draw pass.
    pub fn frame(
        &mut self,
        variant: UploadVariant,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &mut CrowdRenderer,
        pipeline: &mut Pipeline,
        instances: &[Instance],
    ) -> Result<StageTimings, UploadError> {
        let all = 0..instances.len().div_ceil(LANES);
        let work = CpuWork {
            pipeline,
            instances,
            runs: std::slice::from_ref(&all),
            skin_levels: &[],
        };
        self.upload(variant, gpu, encoder, renderer, work)
    }

    /// Where each run's bytes go in the skinned buffer: (offset, bytes).
    fn run_spans<'r>(
        pipeline: &'r Pipeline,
        instances: usize,
        runs: &'r [Range<usize>],
    ) -> impl Iterator<Item = (u64, u64)> + 'r {
        let layout = pipeline.output_layout();
        runs.iter().map(move |run| {
            let (offset, bytes) = layout.groups_span(instances, run);
            (offset as u64, bytes as u64)
        })
    }

    /// As [`Self::frame`], computing and uploading only the groups in `work.runs` (ranges
    /// of group indices, see [`crate::crowd::lod`]): the other groups keep the vertices (or
    /// palettes) already in the GPU buffer.
    pub fn upload(
        &mut self,
        variant: UploadVariant,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &mut CrowdRenderer,
        work: CpuWork<'_>,
    ) -> Result<StageTimings, UploadError> {
        let CpuWork {
            pipeline,
            instances,
            runs,
            skin_levels,
        } = work;
        let (device, queue) = (&gpu.device, &gpu.queue);
        // Last frame's note says whether a fallback still needs the CPU buffer.
        self.release_unused(variant);
        self.note = None;
        self.copied = UploadBytes {
            copies: Some(0),
            ..UploadBytes::default()
        };
        let n = instances.len();
        let bytes = pipeline.output_bytes(n) as u64;
        renderer.ensure_skinned_capacity(device, pipeline.output_layout(), n);
        if bytes == 0 || runs.is_empty() {
            return Ok(pipeline.run_groups_at_levels_into(
                instances,
                &[],
                skin_levels,
                &mut [],
                Stage::Skin,
            )?);
        }
        // Working out the pieces and their copies is the upload's time too.
        let planning = Instant::now();
        // No staging request may pass the device's largest buffer: the runs are cut into
        // pieces that each fit one.
        let cap = staging_piece_bytes(device);
        let pieces = split_runs(pipeline.output_layout(), n, runs, cap)?;
        let runs = pieces.as_slice();
        let spans: Vec<(u64, u64)> = Self::run_spans(pipeline, n, runs).collect();
        let made_for = (pipeline.output_layout(), pipeline.rig());
        let copies = level_copies(&mut self.level_parts, made_for, runs, &spans, skin_levels);
        // At full detail a group's parts are a stretch or two, so this is cheap; only their
        // sum is wanted, so none is kept.
        let mut every_vertex = 0;
        for_each_level_copy(
            &mut self.level_parts,
            made_for,
            runs,
            &spans,
            &[],
            |_, copy| {
                every_vertex += copy.1;
            },
        );
        self.copied = UploadBytes {
            copied: copies.iter().flatten().map(|&(_, len)| len).sum(),
            every_vertex,
            copies: Some(copies.iter().map(|parts| parts.len() as u64).sum()),
        };
        let planning = (planning, planning.elapsed());
        let upload = Stage::Upload.index();
        let timings = match variant {
            UploadVariant::WriteBuffer => {
                let mut timings = Self::skin_into_cpu(
                    &mut self.cpu,
                    pipeline,
                    (instances, skin_levels),
                    runs,
                    &spans,
                    bytes,
                )?;
                let start = Instant::now();
                let cpu = self.cpu.as_bytes();
                for (&(offset, _), parts) in spans.iter().zip(&copies) {
                    for &(from, len) in parts {
                        let range = (offset + from) as usize..(offset + from + len) as usize;
                        queue.write_buffer(renderer.skinned(), offset + from, &cpu[range]);
                    }
                }
                self.trace_upload(start, start.elapsed());
                timings.stage_us[upload] = start.elapsed().as_secs_f64() * 1e6;
                Ok(timings)
            }
            UploadVariant::InPlace => {
                let start = Instant::now();
                let mut views = Vec::with_capacity(spans.len());
                for &(offset, len) in &spans {
                    let Some(view) = NonZeroU64::new(len)
                        .and_then(|size| queue.write_buffer_with(renderer.skinned(), offset, size))
                    else {
                        self.note =
                            Some("write_buffer_with refused the write; used write_buffer".into());
                        drop(views);
                        return self.upload(
                            UploadVariant::WriteBuffer,
                            gpu,
                            encoder,
                            renderer,
                            CpuWork {
                                pipeline,
                                instances,
                                runs,
                                skin_levels,
                            },
                        );
                    };
                    views.push(view);
                }
                // wgpu promises staging memory 4-byte aligned; the skin variants' stores want
                // up to 64 (on an H100, NVIDIA's driver's was not 32-byte aligned): then the
                // frame is skinned into the CPU buffer and copied (`write_buffer`).
                let align = pipeline.output_layout().align();
                let misaligned = self.simulate_misaligned_staging
                    || views.iter_mut().any(|view| {
                        let address = view.slice(..).as_raw_element_ptr().as_ptr() as usize;
                        !address.is_multiple_of(align)
                    });
                if misaligned {
                    drop(views);
                    let result = self.upload(
                        UploadVariant::WriteBuffer,
                        gpu,
                        encoder,
                        renderer,
                        CpuWork {
                            pipeline,
                            instances,
                            runs,
                            skin_levels,
                        },
                    );
                    self.note = Some(format!(
                        "write_buffer_with's staging memory is not {align}-byte aligned on this \
                         adapter; used write_buffer"
                    ));
                    return result;
                }
                // wgpu copies each mapping whole.
                self.copied.copied = spans.iter().map(|&(_, len)| len).sum();
                self.copied.copies = Some(spans.len() as u64);
                let acquire = start.elapsed();
                let mut outs: Vec<Dest<'_, u8>> = views
                    .iter_mut()
                    .map(|view| {
                        let mut mapping = view.slice(..);
                        let len = mapping.len();
                        let ptr = mapping.as_raw_element_ptr();
                        // SAFETY: `mapping` views `len` mapped bytes of `view`, which stays
                        // alive, exclusively borrowed by this iteration, until after the
                        // frame below; nothing else touches it while the `Dest` exists, and
                        // the pipeline only writes through it, never reads, as mapped
                        // (possibly uninitialized, write-combined) memory requires.
                        unsafe { Dest::from_raw(ptr, len) }
                    })
                    .collect();
                let mut timings = Self::skin_into_mapping(
                    pipeline,
                    (instances, skin_levels),
                    runs,
                    &mut outs,
                    &mut self.note,
                )?;
                let release = Instant::now();
                drop(outs);
                drop(views);
                self.trace_upload(start, acquire);
                self.trace_upload(release, release.elapsed());
                timings.stage_us[upload] = (acquire + release.elapsed()).as_secs_f64() * 1e6;
                Ok(timings)
            }
            UploadVariant::StagingBelt => {
                let start = Instant::now();
                // The pieces lie back to back in belt chunks of at most `cap` bytes.
                let chunks = pack_pieces(&spans, cap);
                // Each chunk is sized in powers of two: with update-rate LOD the bytes
                // change every frame, and a chunk of the same bucket recalled from an
                // earlier frame serves a later one. A fresh chunk costs: wgpu zeroes it
                // (60–140 ms a frame at 10,000 characters when every frame took one).
                // Chunks come back from their mapping callbacks, which run when the device
                // is polled; polling does not wait.
                let _ = device.poll(wgpu::PollType::Poll);
                let mut buffers = Vec::with_capacity(chunks.len());
                for chunk in &chunks {
                    let bucket = chunk.bytes.next_power_of_two().clamp(BELT_MIN_CHUNK, cap);
                    let size = NonZeroU64::new(bucket).expect("a bucket holds bytes");
                    let buffer = self.belt.take(size);
                    // One copy per part of each piece its levels wrote, to its place in the
                    // skinned buffer.
                    let mut from = 0;
                    for (&(offset, len), parts) in spans[chunk.pieces.clone()]
                        .iter()
                        .zip(&copies[chunk.pieces.clone()])
                    {
                        for &(at, part) in parts {
                            encoder.copy_buffer_to_buffer(
                                &buffer,
                                from + at,
                                renderer.skinned(),
                                offset + at,
                                part,
                            );
                        }
                        from += len;
                    }
                    buffers.push(buffer);
                }
                let mut views = Vec::with_capacity(buffers.len());
                for buffer in &buffers {
                    views.push(buffer.slice(..).get_mapped_range_mut()?);
                }
                let acquire = start.elapsed();
                let align = pipeline.output_layout().align();
                let misaligned = self.simulate_misaligned_staging
                    || views.iter_mut().any(|view| {
                        let address = view.slice(..).as_raw_element_ptr().as_ptr() as usize;
                        !address.is_multiple_of(align)
                    });
                if misaligned {
                    // Each chunk is a buffer of its own, but a driver may map a buffer at
                    // a lesser alignment than the layout's (an H100's did for small
                    // chunks): skin into the CPU buffer and copy each piece.
                    let mut timings = Self::skin_into_cpu(
                        &mut self.cpu,
                        pipeline,
                        (instances, skin_levels),
                        runs,
                        &spans,
                        bytes,
                    )?;
                    let copy = Instant::now();
                    let cpu = self.cpu.as_bytes();
                    for (chunk, view) in chunks.iter().zip(views.iter_mut()) {
                        let mut mapping = view.slice(..);
                        let mut from = 0usize;
                        for (&(offset, len), parts) in spans[chunk.pieces.clone()]
                            .iter()
                            .zip(&copies[chunk.pieces.clone()])
                        {
                            for &(at, part) in parts {
                                let (offset, at, part) =
                                    (offset as usize, at as usize, part as usize);
                                mapping
                                    .slice(from + at..from + at + part)
                                    .copy_from_slice(&cpu[offset + at..offset + at + part]);
                            }
                            from += len as usize;
                        }
                    }
                    drop(views);
                    self.belt.finish();
                    self.note = Some(format!(
                        "the staging belt's memory is not {align}-byte aligned on this adapter; \
                         skinned into a CPU buffer and copied"
                    ));
                    self.trace_upload(start, acquire);
                    self.trace_upload(copy, copy.elapsed());
                    timings.stage_us[upload] = (acquire + copy.elapsed()).as_secs_f64() * 1e6;
                    Ok(timings)
                } else {
                    let mut outs = Vec::with_capacity(spans.len());
                    for (chunk, view) in chunks.iter().zip(views.iter_mut()) {
                        let mut mapping = view.slice(..);
                        let ptr = mapping.as_raw_element_ptr();
                        // SAFETY: as in `in_place`: `view` stays mapped and exclusively ours
                        // until `views` is dropped below, after the frame, and is only written.
                        let mut rest = unsafe { Dest::from_raw(ptr, mapping.len()) };
                        for &(_, len) in &spans[chunk.pieces.clone()] {
                            let (out, tail) = rest.split_at(len as usize);
                            outs.push(out);
                            rest = tail;
                        }
                    }
                    let mut timings = Self::skin_into_mapping(
                        pipeline,
                        (instances, skin_levels),
                        runs,
                        &mut outs,
                        &mut self.note,
                    )?;
                    let release = Instant::now();
                    drop(outs);
                    drop(views);
                    self.belt.finish();
                    self.trace_upload(start, acquire);
                    self.trace_upload(release, release.elapsed());
                    timings.stage_us[upload] = (acquire + release.elapsed()).as_secs_f64() * 1e6;
                    Ok(timings)
                }
            }
        };
        timings.map(|mut timings| {
            self.trace_upload(planning.0, planning.1);
            timings.stage_us[upload] += planning.1.as_secs_f64() * 1e6;
            timings
        })
    }

    /// Frees the memory of the variants not in use: the CPU copy of `write_buffer` and the
    /// staging belt's chunks each hold a whole frame's skinned stream (a gigabyte for
    /// 10,000 large characters), which would otherwise stay after switching away.
    fn release_unused(&mut self, variant: UploadVariant) {
        match variant {
            UploadVariant::WriteBuffer => {}
            // Kept while the mapping's alignment sends every frame through it.
            UploadVariant::InPlace | UploadVariant::StagingBelt if self.note.is_some() => {}
            UploadVariant::InPlace | UploadVariant::StagingBelt => {
                if !self.cpu.is_empty() {
                    self.cpu = OutputBuffer::default();
                }
            }
        }
        match variant {
            UploadVariant::StagingBelt => {}
            UploadVariant::WriteBuffer | UploadVariant::InPlace => self.belt.release_free(),
        }
    }

    /// Skins the runs into the CPU buffer (which holds every instance; a run writes only
    /// its own part).
    fn skin_into_cpu(
        cpu: &mut OutputBuffer,
        pipeline: &mut Pipeline,
        (instances, skin_levels): (&[Instance], &[u8]),
        runs: &[Range<usize>],
        spans: &[(u64, u64)],
        bytes: u64,
    ) -> Result<StageTimings, FrameError> {
        cpu.resize(bytes as usize);
        let mut outs = Vec::with_capacity(spans.len());
        let mut rest = Dest::from_mut(cpu.as_bytes_mut());
        let mut at = 0;
        for &(offset, len) in spans {
            let (_, tail) = rest.split_at((offset - at) as usize);
            let (out, tail) = tail.split_at(len as usize);
            outs.push(out);
            rest = tail;
            at = offset + len;
        }
        pipeline.run_groups_at_levels_into(instances, runs, skin_levels, &mut outs, Stage::Skin)
    }

    /// Skins straight into mapped staging memory, one destination per run.
    fn skin_into_mapping(
        pipeline: &mut Pipeline,
        (instances, skin_levels): (&[Instance], &[u8]),
        runs: &[Range<usize>],
        outs: &mut [Dest<'_, u8>],
        note: &mut Option<String>,
    ) -> Result<StageTimings, FrameError> {
        let result =
            pipeline.run_groups_at_levels_into(instances, runs, skin_levels, outs, Stage::Skin);
        if let Err(FrameError::Output(BufferError::Misaligned { align })) = result {
            *note = Some(format!(
                "the mapped staging memory is not {align}-byte aligned"
            ));
        }
        result
    }

    /// What the latest frame's upload copied to the GPU.
    pub fn copied(&self) -> UploadBytes {
        self.copied
    }

    /// Call after the frame's command buffers were submitted: the staging chunks go back
    /// to be mapped again, and those no recent frame asked for are dropped.
    pub fn after_submit(&mut self) {
        self.belt.recall();
        self.belt.end_frame();
    }

    /// Bytes of staging memory the `staging_belt` upload holds now.
    pub fn staging_held_bytes(&self) -> u64 {
        self.belt.held_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prepare::PreparedRig;
    use crate::skin::{SkinMethod, SkinVariant};
    use crate::variant::Variant;

    fn one_run(groups: Range<usize>) -> Vec<Range<usize>> {
        std::iter::once(groups).collect()
    }

    /// The copies of a run of groups cover every part each group's level wrote, stay in
    /// the run's span, ascend with at least [`COPY_GAP_BYTES`] between them, and copy less
    /// than half the span where every group of a sorted layout is coarse; the parts kept
    /// between frames follow the layout, and their sum alone is what they add up to.
    #[test]
    fn level_copies_cover_what_each_group_wrote_and_no_more_than_its_span() {
        let rig = std::sync::Arc::new(PreparedRig::reference());
        let instances = 21; // three groups, the last of five
        // One cache for every case: each layout must get its own parts, not the last one's.
        let mut parts = LevelParts::new();
        for name in ["pulled", "packed", "naive"] {
            let variant = SkinVariant::from_name(name).expect("a declared variant");
            let layout = OutputLayout::new(variant, &rig, SkinMethod::Linear);
            for (levels, runs) in [
                (vec![0u8, 2, 1], one_run(0..3)),
                (vec![3, 1, 9], one_run(1..3)),
                (vec![2, 2, 2], vec![0..1, 2..3]),
                (vec![], one_run(0..3)),
            ] {
                let spans: Vec<(u64, u64)> = runs
                    .iter()
                    .map(|run| {
                        let (offset, bytes) = layout.groups_span(instances, run);
                        (offset as u64, bytes as u64)
                    })
                    .collect();
                let copies = level_copies(&mut parts, (&layout, &rig), &runs, &spans, &levels);
                // The sum alone, as the comparison with every vertex takes it.
                let mut summed = 0;
                for_each_level_copy(
                    &mut parts,
                    (&layout, &rig),
                    &runs,
                    &spans,
                    &levels,
                    |_, c| {
                        summed += c.1;
                    },
                );
                let listed: u64 = copies.iter().flatten().map(|&(_, len)| len).sum();
                assert_eq!(summed, listed, "{name}, levels {levels:?}, runs {runs:?}");
                for ((run, &(_, span)), copies) in runs.iter().zip(&spans).zip(&copies) {
                    let what = format!("{name}, levels {levels:?}, run {run:?}");
                    for pair in copies.windows(2) {
                        let ((a, a_len), (b, _)) = (pair[0], pair[1]);
                        assert!(a + a_len + COPY_GAP_BYTES < b, "{what}: {copies:?}");
                    }
                    assert!(
                        copies.iter().all(|&(at, len)| len > 0 && at + len <= span),
                        "{what}: {copies:?} past {span}"
                    );
                    let copied = |byte: u64| {
                        copies
                            .iter()
                            .any(|&(at, len)| (at..at + len).contains(&byte))
                    };
                    for g in run.clone() {
                        let level = levels.get(g).map_or(0, |&l| l as usize);
                        let first = (g - run.start) * layout.group_bytes();
                        for part in layout.level_group_bytes(&rig.mesh, level) {
                            let end = (first + part.end).min(span as usize);
                            for byte in first + part.start..end {
                                assert!(copied(byte as u64), "{what}: group {g} byte {byte}");
                            }
                        }
                    }
                    let total: u64 = copies.iter().map(|&(_, len)| len).sum();
                    if levels.is_empty() {
                        // One copy: every group whole but for the last one's padding.
                        assert!(
                            copies.len() == 1 && copies[0].0 == 0,
                            "{what}: {copies:?} of {span} bytes"
                        );
                    } else if levels.iter().all(|&l| l >= 2) && name != "naive" {
                        // The sorted orders keep a level's vertices together; the file
                        // order's lie a few vertices apart, joined into nearly every byte.
                        assert!(total < span / 2, "{what}: {total} of {span} bytes copied");
                    }
                }
            }
        }
    }
}
