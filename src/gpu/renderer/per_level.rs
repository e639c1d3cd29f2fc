//! Per-level draws (`--draws per_level`): where the GPU's LOD pass decides who is drawn
//! and at which level, the crowd pass draws per batch and level one instanced draw.
//!
//! How it works: a batch is what one binding serves (`gpu_vertex`: a chunk of palettes;
//! `gpu_compute`: one output range, read as storage). [`LevelDraws`] lays out each
//! batch's arguments, one per level with instance count 0, and its lists, one per level
//! with room for every character of the batch, after an identity list of the whole crowd.
//! Each frame the CPU writes the level arguments again (their counts back to 0: a few
//! hundred bytes), and the LOD pass appends every character in view to its batch's list
//! at its level with one atomic on that level's instance count (`shaders/lod.wgsl`), so
//! the draw's instance `k` reads its character from the list's word `k`. The shadow pass
//! draws every character at its level through the identity list, a draw per batch; a
//! frame whose LOD pass did not list (the first after the lists were rebuilt) draws every
//! character at full detail the same way.

use super::*;
use crate::crowd::lod::formats::DrawSlot;
use crate::gpu::readback::ReadbackError;
use pipelines::draws_per_level;

/// The per-level draws' lists read back ([`CrowdRenderer::read_level_lists`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelLists {
    /// Per batch and level (batch-major), the characters drawn there.
    pub levels: Vec<Vec<u32>>,
    /// Per batch, the characters the shadow pass draws.
    pub shadows: Vec<Vec<u32>>,
}

impl CrowdRenderer {
    /// How the GPU's LOD pass's draws are issued.
    pub fn set_draws(&mut self, draws: Draws) {
        self.draws = draws;
    }

    pub fn draws(&self) -> Draws {
        self.draws
    }

    /// Whether the lists of the last prepared frame are per level.
    pub fn draws_per_level(&self) -> bool {
        self.frame.per_level
    }

    /// Whether the per-level draws read the skinned pool: their lists are written after
    /// the skinning pass, at the levels it held each character at (the pool lists pass).
    /// Whether `gpu_compute` skins level by level on `gpu`: `per_level` asked for and the
    /// adapter dispatching indirectly (without, it skins with `all_classes`).
    pub fn skins_per_level(&self, gpu: &crate::gpu::GpuContext) -> bool {
        self.compute_shader == crate::gpu::skin::ComputeShader::PerLevel
            && gpu
                .adapter
                .get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION)
    }

    pub fn lists_pooled(&self) -> bool {
        self.frame.per_level && self.frame.pool
    }

    /// Whether this frame's LOD pass lists the characters of the per-level draws (not in
    /// the frame that rebuilt the lists: it draws everyone at full detail).
    pub fn level_lists_written(&self) -> bool {
        self.frame.per_level && self.frame.draw_runs
    }

    /// Whether frames drawn in `layout` take per-level draws: asked for, the GPU's LOD
    /// pass culling through indirect draws, and a draw path that has listed pipelines
    /// (for `gpu_compute`, with its output placed).
    pub(super) fn per_level_wanted(&self, layout: &OutputLayout) -> bool {
        let path = layout.draw_path();
        let placed = match path {
            DrawPath::GpuCompute => self.gpu_skinner.is_some() && layout.skinned_on_gpu().is_some(),
            DrawPath::GpuVertex => self.chunks.is_some(),
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks
            | DrawPath::Pulled => false,
        };
        self.draws == Draws::PerLevel
            && self.per_character_draws
            && self.indirect_draws()
            && draws_per_level(path)
            && placed
    }

    /// Builds the per-level lists of `shape` (see the module docs), each character's base
    /// vertex, and writes what changed.
    pub(super) fn prepare_level_draws(
        &mut self,
        gpu: &GpuContext,
        shape: FrameShape<'_>,
        shadow_level: u8,
    ) {
        let (device, queue) = (&gpu.device, &gpu.queue);
        let FrameShape {
            layout,
            characters: instances,
        } = shape;
        let instances = instances.min(self.instance_capacity);
        let batches = &mut self.frame.level_batches;
        batches.clear();
        self.frame.vertex_base_scratch.clear();
        self.frame.vertex_base_scratch.resize(instances, 0);
        match layout.draw_path() {
            DrawPath::GpuCompute => {
                if let (Some(skinner), Some(skinned)) = (&self.gpu_skinner, layout.skinned_on_gpu())
                {
                    let stride = skinned.vertex_stride().max(1) as u64;
                    for i in 0..instances {
                        let Some((range, offset)) = skinner.locate(i) else {
                            continue;
                        };
                        // The shader reads whole vertices from the range's start.
                        let Ok(base) = u32::try_from(offset / stride) else {
                            continue;
                        };
                        if !offset.is_multiple_of(stride) {
                            continue;
                        }
                        self.frame.vertex_base_scratch[i] = base;
                        let binding = DrawBinding::Vertices {
                            buffer: range,
                            offset: 0,
                        };
                        match batches.iter_mut().find(|(b, _)| *b == binding) {
                            Some((_, members)) => members.push(i as u32),
                            None => batches.push((binding, vec![i as u32])),
                        }
                    }
                }
            }
            DrawPath::GpuVertex => {
                if let Some(chunks) = &self.chunks {
                    let per = chunks.chunk_instances.max(1);
                    let held = instances.min(chunks.held_instances);
                    for chunk in 0..chunks.bind_groups.len() {
                        let members = chunk * per..held.min((chunk + 1) * per);
                        if members.is_empty() {
                            break;
                        }
                        batches.push((
                            DrawBinding::Chunk(chunk),
                            members.map(|c| c as u32).collect(),
                        ));
                    }
                }
            }
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks
            | DrawPath::Pulled => {}
        }
        if layout.draw_path() == DrawPath::GpuCompute {
            self.ensure_pool_groups(device);
        }
        let batches = &self.frame.level_batches;
        // A pool holds a character's skin level only, at most the coarsest: a frame
        // drawn before the LOD pass lists draws everyone there.
        let fallback = if self.frame.pool {
            self.level_ranges.len().saturating_sub(1) as u8
        } else {
            self.fallback_level
        };
        self.frame.level.build(
            &self.level_ranges,
            [shadow_level, fallback],
            instances,
            batches,
        );
        self.frame.draws_for = Some(DrawsFor {
            draw_path: layout.draw_path(),
            order: layout.order(),
            instances: shape.characters,
        });
        if self.frame.pool {
            // The skinning pass writes them each frame; what is written here is unknown
            // from now on, so leaving the pool writes them all again.
            self.frame.vertex_base_written.clear();
        } else {
            self.write_vertex_base(queue);
        }
        // The buffer: the arguments (shadow, main per batch and level, the shadow per
        // batch over its list, full detail), then the lists (the identity list of every
        // character, then each batch's).
        let level = &mut self.frame.level;
        let args = level.shadow.args.len()
            + level.main.args.len()
            + level.shadow_listed.args.len()
            + level.fallback.args.len();
        let arg_words = std::mem::size_of::<DrawIndexedIndirectArgs>() / 4;
        let lists_at = args * arg_words;
        if !u32::try_from(lists_at).is_ok_and(|at| level.place_lists(at)) {
            // Past what a draw's first instance can name: nothing is drawn per level.
            level.main.clear();
            level.shadow.clear();
            level.shadow_listed.clear();
            level.fallback.clear();
        }
        self.frame.draws = [level.main.clone(), level.shadow.clone()];
        self.frame.indirect_written.clear();
        for list in [
            &level.shadow,
            &level.main,
            &level.shadow_listed,
            &level.fallback,
        ] {
            self.frame.indirect_written.extend_from_slice(&list.args);
        }
        let words = lists_at + level.list_words;
        let arg_bytes = (arg_words * 4) as u64;
        // A new buffer each time the lists are rebuilt: this frame's LOD pass was recorded
        // with the slots of the lists being replaced, and writes into the old one.
        self.indirect_args =
            Self::indirect_buffer(device, words.div_ceil(arg_words).next_power_of_two());
        self.remake_listed_bind_group(device);
        if args > 0 {
            queue.write_buffer(
                &self.indirect_args,
                0,
                bytemuck::cast_slice(&self.frame.indirect_written),
            );
            let identity: Vec<u32> = (0..instances as u32).collect();
            queue.write_buffer(
                &self.indirect_args,
                args as u64 * arg_bytes,
                bytemuck::cast_slice(&identity),
            );
        }
    }

    /// Writes the main pass's level arguments again, their instance counts 0: the LOD
    /// pass counts each frame's from there.
    pub(super) fn reset_level_counts(&self, queue: &wgpu::Queue) {
        let level = &self.frame.level;
        let start = level.shadow.args.len();
        let end = start + level.main.args.len() + level.shadow_listed.args.len();
        let Some(counted) = self.frame.indirect_written.get(start..end) else {
            return;
        };
        if counted.is_empty() {
            return;
        }
        let arg_bytes = std::mem::size_of::<DrawIndexedIndirectArgs>() as u64;
        queue.write_buffer(
            &self.indirect_args,
            start as u64 * arg_bytes,
            bytemuck::cast_slice(counted),
        );
    }

    /// The shadow pass's list and where its arguments start in the indirect buffer: per
    /// batch over the characters whose shadow may fall in the view where the LOD pass
    /// listed them this frame, else every character.
    pub(super) fn level_shadow_list(&self) -> (&DrawList, u64) {
        let level = &self.frame.level;
        if self.frame.draw_runs {
            let arg_bytes = std::mem::size_of::<DrawIndexedIndirectArgs>() as u64;
            let at = (level.shadow.args.len() + level.main.args.len()) as u64 * arg_bytes;
            (&level.shadow_listed, at)
        } else {
            (&self.frame.draws[1], 0)
        }
    }

    /// `gpu_compute`'s output ranges as storage bindings, one per range (made again when
    /// the ranges change).
    fn ensure_pool_groups(&mut self, device: &wgpu::Device) {
        let Some(skinner) = &self.gpu_skinner else {
            self.pool_groups.clear();
            return;
        };
        let buffers: Vec<wgpu::Buffer> = (0..)
            .map_while(|r| skinner.range_output(r).cloned())
            .collect();
        if self.pool_groups.len() == buffers.len()
            && self
                .pool_groups
                .iter()
                .zip(&buffers)
                .all(|((b, _), o)| b == o)
        {
            return;
        }
        self.pool_groups = buffers
            .into_iter()
            .map(|buffer| {
                let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("gpu_compute's output, a range"),
                    layout: &self.pipelines.pool_layout,
                    entries: &[wgpu::BindGroupEntry {
                        binding: 0,
                        resource: buffer.as_entire_binding(),
                    }],
                });
                (buffer, group)
            })
            .collect();
    }

    /// Per character, where the LOD pass lists it ([`DrawSlot::listed`]): its batch's
    /// level-0 argument and lists.
    pub(super) fn level_slots(&self, slots: &mut [DrawSlot]) {
        let level = &self.frame.level;
        let words = (std::mem::size_of::<DrawIndexedIndirectArgs>() / 4) as u32;
        let main_at = level.shadow.args.len() as u32;
        let shadow_at = main_at + level.main.args.len() as u32;
        for (slot, &batch) in slots.iter_mut().zip(&level.batch_of) {
            let (Some((_, args)), Some((_, shadow)), Some(&(list_word, len))) = (
                level.main.batches.get(batch as usize),
                level.shadow_listed.batches.get(batch as usize),
                level.lists.get(batch as usize),
            ) else {
                continue;
            };
            *slot = DrawSlot::listed(
                (main_at + args.start as u32) * words + 1,
                list_word,
                len,
                (shadow_at + shadow.start as u32) * words + 1,
            );
        }
    }

    /// The arguments and lists the LOD pass may write with per-level draws.
    pub(super) fn level_draw_target(&self) -> DrawArgsTarget<'_> {
        DrawArgsTarget::new(
            &self.indirect_args,
            self.frame.indirect_written.len(),
            &[&self.index_file, &self.index_sorted],
            0,
        )
        .with_level_lists(self.level_ranges.len().max(1), self.frame.pool)
    }

    /// Records `list` (per batch, arguments at `indirect_offset` of the indirect buffer)
    /// with the listed pipelines.
    pub(super) fn draw_per_level(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        layout: &OutputLayout,
        list: &DrawList,
        indirect_offset: u64,
        shadow: bool,
    ) {
        let path = layout.draw_path();
        let pool = path == DrawPath::GpuCompute && self.frame.pool;
        let pipelines = match self.pipelines.listed_pipelines.get(path.index()) {
            _ if pool => &self.pipelines.pool_slot_pipelines,
            Some(Some(pipelines)) => pipelines,
            _ => return,
        };
        pass.set_pipeline(&pipelines[shadow as usize]);
        pass.set_bind_group(0, &self.listed_bind_group, &[]);
        let (indices, uvs) = match layout.order() {
            VertexOrder::InfluenceSorted => (&self.index_sorted, &self.uv_sorted),
            VertexOrder::File => (&self.index_file, &self.uv_file),
        };
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        match path {
            DrawPath::GpuVertex => {
                let [indices, mesh, uvs] = self.gpu_vertex_buffers(layout, indices, uvs);
                pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.set_vertex_buffer(0, mesh.slice(..));
                pass.set_vertex_buffer(1, uvs.slice(..));
            }
            DrawPath::GpuCompute => {
                pass.set_vertex_buffer(0, uvs.slice(..));
                if pool && let Some(skinner) = &self.gpu_skinner {
                    pass.set_vertex_buffer(1, skinner.ranks().slice(..));
                }
            }
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks
            | DrawPath::Pulled => return,
        }
        let arg_bytes = std::mem::size_of::<DrawIndexedIndirectArgs>() as u64;
        for (binding, range) in &list.batches {
            let group = match *binding {
                DrawBinding::Vertices { buffer, .. } => self.pool_groups.get(buffer).map(|g| &g.1),
                DrawBinding::Chunk(chunk) => self
                    .chunks
                    .as_ref()
                    .and_then(|chunks| chunks.bind_groups.get(chunk)),
            };
            let Some(group) = group else {
                continue;
            };
            pass.set_bind_group(1, group, &[]);
            pass.multi_draw_indexed_indirect(
                &self.indirect_args,
                indirect_offset + range.start as u64 * arg_bytes,
                range.len() as u32,
            );
        }
    }

    /// Per-level draws' lists as the GPU holds them, each the characters the LOD pass
    /// listed in the order it listed them: per batch and level (the order of
    /// `LevelDraws::main`'s arguments), and per batch its shadow list. `None` where the
    /// lists are not per level. Blocks until the GPU is done.
    pub fn read_level_lists(&self, gpu: &GpuContext) -> Result<Option<LevelLists>, ReadbackError> {
        if !self.frame.per_level {
            return Ok(None);
        }
        let level = &self.frame.level;
        let args = self.read_indirect_args(gpu)?;
        let words = self.level_list_words(gpu)?;
        let arg_words = std::mem::size_of::<DrawIndexedIndirectArgs>() / 4;
        let read = |list: &DrawList, at: usize| -> Vec<Vec<u32>> {
            list.args
                .iter()
                .enumerate()
                .map(|(k, a)| {
                    let count = args.get((at + k) * arg_words + 1).copied().unwrap_or(0);
                    let first = a.first_instance as usize;
                    let end = (first + count as usize).min(words.len());
                    words.get(first..end).unwrap_or_default().to_vec()
                })
                .collect()
        };
        let main_at = level.shadow.args.len();
        Ok(Some(LevelLists {
            levels: read(&level.main, main_at),
            shadows: read(&level.shadow_listed, main_at + level.main.args.len()),
        }))
    }

    fn level_list_words(&self, gpu: &GpuContext) -> Result<Vec<u32>, ReadbackError> {
        let bytes = crate::gpu::readback::read_buffer_at(
            gpu,
            &self.indirect_args,
            0,
            4 * (self.frame.indirect_written.len() * 5 + self.frame.level.list_words) as u64,
        )?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    /// Per batch of the per-level draws, its characters (ascending) and its lists'
    /// length: what the LOD pass's lists are compared with.
    pub fn level_batches(&self) -> Vec<Vec<u32>> {
        self.frame
            .level_batches
            .iter()
            .map(|(_, members)| members.clone())
            .collect()
    }

    /// Draw arguments the last prepared passes hold (main, shadow): what the GPU reads,
    /// per character or per batch and level.
    pub fn draw_records(&self) -> [usize; 2] {
        self.frame.draws.each_ref().map(|list| list.args.len())
    }
}
