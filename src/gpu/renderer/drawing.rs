//! Recording the crowd: the draw lists each frame makes ([`CrowdRenderer::prepare_draws`])
//! and the passes' draw commands, as one indirect multi-draw per binding where the adapter
//! can, or the same arguments drawn one by one.

use super::*;
use crate::crowd::lod::formats::DrawSlot;

impl CrowdRenderer {
    /// Records the ground and the characters [`Self::prepare_draws`] listed for the main
    /// pass (the visible ones), each reading its vertices where `layout` says.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, layout: &OutputLayout, instances: usize) {
        pass.set_bind_group(0, self.bind_group(layout), &[]);
        pass.set_bind_group(2, &self.shadow_bind_group, &[]);
        pass.set_pipeline(&self.pipelines.ground_pipeline);
        pass.draw(0..6, 0..1);
        let [main, shadow] = &self.frame.draws;
        // The main pass's arguments follow the shadow pass's in the indirect buffer.
        let arg_bytes = std::mem::size_of::<DrawIndexedIndirectArgs>() as u64;
        let mut offset = shadow.args.len() as u64 * arg_bytes;
        let mut list = main;
        if self.frame.per_level && !self.frame.draw_runs {
            // The LOD pass did not list this frame: every character at full detail (its
            // arguments follow the main pass's and the listed shadow pass's).
            list = &self.frame.level.fallback;
            offset +=
                (main.args.len() + self.frame.level.shadow_listed.args.len()) as u64 * arg_bytes;
        }
        self.draw_characters(pass, layout, instances, list, offset, false);
    }

    /// Records the characters into the sun's depth map: the same vertices (or, for
    /// `gpu_vertex`, the same skinning again) through the shadow pipelines.
    pub fn draw_shadow(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        layout: &OutputLayout,
        instances: usize,
    ) {
        pass.set_bind_group(0, self.bind_group(layout), &[]);
        let (list, offset) = if self.frame.per_level {
            self.level_shadow_list()
        } else {
            (&self.frame.draws[1], 0)
        };
        self.draw_characters(pass, layout, instances, list, offset, true);
    }

    fn draw_characters(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        layout: &OutputLayout,
        instances: usize,
        list: &DrawList,
        indirect_offset: u64,
        shadow: bool,
    ) {
        let wanted = DrawsFor {
            draw_path: layout.draw_path(),
            order: layout.order(),
            instances,
        };
        if instances == 0 || self.frame.draws_for != Some(wanted) {
            return;
        }
        if self.frame.per_level {
            self.draw_per_level(pass, layout, list, indirect_offset, shadow);
            return;
        }
        let pipelines = if shadow {
            &self.pipelines.shadow_pipelines
        } else {
            &self.pipelines.pipelines
        };
        pass.set_pipeline(&pipelines[layout.draw_path().index()]);
        let (indices, uvs) = match layout.order() {
            VertexOrder::InfluenceSorted => (&self.index_sorted, &self.uv_sorted),
            VertexOrder::File => (&self.index_file, &self.uv_file),
        };
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        // Drawn with base vertex 0, these two read the uv stream from slot 1; the others
        // from storage (`vertex_base`).
        match layout.draw_path() {
            DrawPath::Pulled => {
                pass.set_vertex_buffer(0, self.distinct_index.slice(..));
                pass.set_vertex_buffer(1, uvs.slice(..));
            }
            DrawPath::GpuVertex => {
                let [indices, mesh, uvs] = self.gpu_vertex_buffers(layout, indices, uvs);
                pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.set_vertex_buffer(0, mesh.slice(..));
                pass.set_vertex_buffer(1, uvs.slice(..));
            }
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks
            | DrawPath::GpuCompute => {}
        }
        let indirect = self.indirect_draws();
        let arg_bytes = std::mem::size_of::<DrawIndexedIndirectArgs>() as u64;
        // The main pass reads the runs of visible characters the LOD pass appended.
        let runs = self.draws_runs() && std::ptr::eq(list, &self.frame.draws[0]);
        let runs_offset = self.runs_at() as u64 * arg_bytes;
        let counts_offset = 4 * u64::from(self.run_counts_word());
        for (k, (binding, range)) in list.batches.iter().enumerate() {
            match *binding {
                DrawBinding::Vertices { buffer, offset } => {
                    let source = match layout.draw_path() {
                        DrawPath::GpuCompute => self
                            .gpu_skinner
                            .as_ref()
                            .and_then(|skinner| skinner.range_output(buffer)),
                        DrawPath::Interleaved
                        | DrawPath::Float3
                        | DrawPath::Float4
                        | DrawPath::Packed
                        | DrawPath::PackedBlocks
                        | DrawPath::Pulled
                        | DrawPath::GpuVertex => Some(&self.skinned),
                    };
                    let Some(source) = source else {
                        continue;
                    };
                    pass.set_vertex_buffer(0, source.slice(offset..));
                }
                DrawBinding::Chunk(chunk) => {
                    let Some(group) = self
                        .chunks
                        .as_ref()
                        .and_then(|chunks| chunks.bind_groups.get(chunk))
                    else {
                        continue;
                    };
                    pass.set_bind_group(1, group, &[]);
                }
            }
            if runs {
                pass.multi_draw_indexed_indirect_count(
                    &self.indirect_args,
                    runs_offset + range.start as u64 * arg_bytes,
                    &self.indirect_args,
                    counts_offset + 4 * k as u64,
                    range.len() as u32,
                );
            } else if indirect && self.count_draws {
                pass.multi_draw_indexed_indirect_count(
                    &self.indirect_args,
                    indirect_offset + range.start as u64 * arg_bytes,
                    &self.draw_counts,
                    4 * range.len() as u64,
                    range.len() as u32,
                );
            } else if indirect {
                pass.multi_draw_indexed_indirect(
                    &self.indirect_args,
                    indirect_offset + range.start as u64 * arg_bytes,
                    range.len() as u32,
                );
            } else {
                for a in &list.args[range.clone()] {
                    pass.draw_indexed(
                        a.first_index..a.first_index + a.index_count,
                        a.base_vertex,
                        a.first_instance..a.first_instance + a.instance_count,
                    );
                }
            }
        }
    }

    /// The main pass draws one argument per character, whose instance count the GPU's LOD
    /// pass sets (1 in view, 0 culled); off: runs of characters, culled on the CPU.
    pub fn set_per_character_draws(&mut self, on: bool) {
        if self.per_character_draws != on {
            self.per_character_draws = on;
            // The GPU may have zeroed counts the CPU's copy does not know of.
            self.frame.indirect_written.clear();
        }
    }

    /// Whether the LOD pass appends the visible characters to runs that the main pass
    /// draws with counts the GPU wrote: counted draws, one argument per character.
    pub fn compacts(&self) -> bool {
        self.count_draws() && self.per_character_draws && !self.frame.per_level
    }

    /// Whether this frame's main pass draws the runs (the LOD pass wrote them: see
    /// [`Self::set_draw_runs`]).
    pub fn draws_runs(&self) -> bool {
        self.frame.draw_runs && self.compacts()
    }

    /// The LOD pass wrote (or did not write) this frame's runs.
    pub fn set_draw_runs(&mut self, wrote: bool) {
        self.frame.draw_runs = wrote;
    }

    /// Where the runs start in the draw arguments' buffer, in arguments: after the
    /// shadow's and the main pass's own.
    pub fn runs_at(&self) -> usize {
        self.frame.draws[1].args.len() + self.frame.draws[0].args.len()
    }

    /// The word counting the first batch's run: after the runs.
    fn run_counts_word(&self) -> u32 {
        let words = (std::mem::size_of::<DrawIndexedIndirectArgs>() / 4) as u32;
        (self.runs_at() + self.frame.draws[0].args.len()) as u32 * words
    }

    /// Per batch of the main pass, how many arguments the LOD pass appended to its run
    /// (blocks until the GPU is done; for tests).
    pub fn read_run_counts(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<Vec<u32>, crate::gpu::readback::ReadbackError> {
        self.read_indirect_words(
            gpu,
            u64::from(self.run_counts_word()),
            self.frame.draws[0].batches.len() as u64,
        )
    }

    /// The main pass's batches, each a range of its arguments; a batch's run starts at
    /// the same place after both lists' arguments.
    pub fn main_batches(&self) -> Vec<std::ops::Range<usize>> {
        self.frame.draws[0]
            .batches
            .iter()
            .map(|(_, r)| r.clone())
            .collect()
    }

    /// Where the main pass's own arguments start in the draw arguments' buffer, in
    /// arguments (after the shadow pass's).
    pub fn main_args_at(&self) -> usize {
        self.frame.draws[1].args.len()
    }

    /// Per level of the mesh's LOD chain: its first index and index count.
    pub fn level_ranges(&self) -> &[(u32, u32)] {
        &self.level_ranges
    }

    /// The draw arguments as the GPU's LOD pass may write them: this buffer, the arguments
    /// written to it and the index buffers they are drawn from.
    pub fn lod_draw_target(&self) -> DrawArgsTarget<'_> {
        if self.frame.per_level {
            return self.level_draw_target();
        }
        let (runs, counts) = if self.compacts() {
            (
                self.frame.draws[0].args.len(),
                self.frame.draws[0].batches.len(),
            )
        } else {
            (0, 0)
        };
        DrawArgsTarget::new(
            &self.indirect_args,
            self.frame.indirect_written.len() + runs,
            &[&self.index_file, &self.index_sorted],
            counts,
        )
    }

    /// The draw arguments' words as the GPU holds them (blocks until the GPU is done).
    pub fn read_indirect_args(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<Vec<u32>, crate::gpu::readback::ReadbackError> {
        self.read_indirect_words(gpu, 0, self.indirect_args.size() / 4)
    }

    /// `words` words of the draw arguments' buffer from word `first` (blocks until the
    /// GPU is done).
    fn read_indirect_words(
        &self,
        gpu: &crate::gpu::GpuContext,
        first: u64,
        words: u64,
    ) -> Result<Vec<u32>, crate::gpu::readback::ReadbackError> {
        let bytes =
            crate::gpu::readback::read_buffer_at(gpu, &self.indirect_args, 4 * first, 4 * words)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    /// Per character of `instances`, where the LOD pass writes its main-pass draw: the
    /// word of its argument's instance count ([`DrawSlot::NONE`] where it has none of its
    /// own: drawn directly, or not one argument per character) and, where the renderer
    /// [`Self::compacts`], its batch's run.
    pub fn main_count_slots(&self, instances: usize, slots: &mut Vec<DrawSlot>) {
        slots.clear();
        slots.resize(instances, DrawSlot::NONE);
        if !(self.indirect_draws() && self.per_character_draws) {
            return;
        }
        if self.frame.per_level {
            self.level_slots(slots);
            return;
        }
        let [main, shadow] = &self.frame.draws;
        let words = (std::mem::size_of::<DrawIndexedIndirectArgs>() / 4) as u32;
        let runs_at = self.runs_at() as u32 * words;
        let counts_at = self.run_counts_word();
        let compacts = self.compacts();
        for (batch, (_, range)) in main.batches.iter().enumerate() {
            for k in range.clone() {
                let Some(a) = main.args.get(k) else {
                    continue;
                };
                if a.instance_count != 1 {
                    continue;
                }
                if let Some(slot) = slots.get_mut(a.first_instance as usize) {
                    // The instance count is the argument's second word.
                    *slot = DrawSlot::count_only((shadow.args.len() + k) as u32 * words + 1);
                    if compacts {
                        slot.compact_word = runs_at + range.start as u32 * words;
                        slot.run_count_word = counts_at + batch as u32;
                        slot.batch_len = range.len() as u32;
                    }
                }
            }
        }
    }

    /// Whether the passes draw indirectly: one `multi_draw_indexed_indirect` per binding.
    pub fn indirect_draws(&self) -> bool {
        self.indirect_supported && self.indirect_wanted
    }

    /// Whether the indirect multi-draws read their counts from a buffer (the device has
    /// `MULTI_DRAW_INDIRECT_COUNT`): one command each, whatever the crowd's size.
    pub fn count_draws(&self) -> bool {
        self.indirect_draws() && self.count_draws
    }

    /// Whether the device can draw indirectly with a first instance (wgpu's
    /// `INDIRECT_FIRST_INSTANCE`).
    pub fn indirect_supported(&self) -> bool {
        self.indirect_supported
    }

    /// Draw indirectly where the device can (on by default), or issue the same draws
    /// one by one.
    pub fn set_indirect_draws(&mut self, on: bool) {
        self.indirect_wanted = on;
    }

    /// Draw commands the last prepared passes record (main, shadow): the encoding's
    /// size.
    pub fn draw_commands(&self) -> [usize; 2] {
        self.frame.draws.each_ref().map(|list| {
            if self.indirect_draws() {
                list.batches.len()
            } else {
                list.args.len()
            }
        })
    }

    /// Makes the draw lists of the next passes: the characters `visible` marks (all
    /// without it) for the main pass, all of them for the shadow pass, each instance read
    /// where `shape`'s layout says, drawn with its level of `mesh_levels` (the mesh's LOD chain;
    /// the full mesh without) and in the shadow pass at `shadow_level`; with indirect draws, writes their arguments for the GPU
    /// (only when they changed). Returns whether it built the lists: with no `visible` and
    /// no `mesh_levels` (the GPU decides both), only when the crowd, the layout, the
    /// buffers or a setting changed. Call after the frame's upload (which places
    /// `gpu_compute`'s output) and before recording the passes.
    pub fn prepare_draws(
        &mut self,
        gpu: &GpuContext,
        shape: FrameShape<'_>,
        visible: Option<&[bool]>,
        mesh_levels: Option<&[u8]>,
        shadow_level: u8,
    ) -> bool {
        let (queue, device) = (&gpu.queue, &gpu.device);
        let FrameShape {
            layout,
            characters: instances,
        } = shape;
        let key = SteadyDraws {
            draws_for: DrawsFor {
                draw_path: layout.draw_path(),
                order: layout.order(),
                instances,
            },
            per_character: self.per_character_draws,
            per_level: self.per_level_wanted(layout),
            // This frame's skinning was recorded before its draws are prepared.
            pool: layout.draw_path() == DrawPath::GpuCompute && self.skins_into_pool(),
            indirect: self.indirect_draws(),
            shadow_level,
            skinned_capacity: self.skinned_capacity,
            chunks: self
                .chunks
                .as_ref()
                .map(|c| (c.chunk_instances, c.held_instances, c.bind_groups.len())),
        };
        let per_character_input = visible.is_some() || mesh_levels.is_some();
        let sizes = || self.gpu_skinner.iter().flat_map(|s| s.range_sizes());
        let same_ranges = self.frame.steady_ranges.iter().copied().eq(sizes());
        if !per_character_input && same_ranges && self.frame.steady_key.as_ref() == Some(&key) {
            if self.frame.per_level {
                // The LOD pass counts this frame's instances from zero.
                self.reset_level_counts(queue);
            }
            return false;
        }
        let (per_level, pool) = (key.per_level, key.pool);
        if !same_ranges {
            let ranges: Vec<u64> = sizes().collect();
            self.frame.steady_ranges = ranges;
        }
        self.frame.steady_key = (!per_character_input).then_some(key);
        self.frame.list_builds += 1;
        // The LOD pass recorded this frame wrote runs for the lists being replaced.
        self.frame.draw_runs = false;
        // Where the GPU's LOD pass writes into the arguments, this frame's pass was
        // recorded with the slots of the lists being replaced: new lists go into a new
        // buffer (the pass writes into the old one), never under its stale writes.
        let gpu_writes = self.frame.per_level || self.per_character_draws;
        self.frame.per_level = per_level;
        self.frame.pool = pool;
        if per_level {
            self.prepare_level_draws(gpu, shape, shadow_level);
            return true;
        }
        let [main, shadow] = &mut self.frame.draws;
        let per_character = self.per_character_draws;
        // With GPU culling the LOD pass writes each character's level into these
        // arguments from the next frame on; this frame draws them at the fallback level.
        let main_levels = MeshLevels {
            ranges: &self.level_ranges,
            per_instance: mesh_levels,
            uniform: if per_character {
                self.fallback_level
            } else {
                0
            },
        };
        let shadow_levels = MeshLevels {
            ranges: &self.level_ranges,
            per_instance: None,
            uniform: shadow_level,
        };
        for (list, visible, per_character, levels) in [
            (&mut *main, visible, per_character, main_levels),
            (&mut *shadow, None, false, shadow_levels),
        ] {
            let sources = VertexSources {
                skinned_capacity: self.skinned_capacity,
                gpu_skinner: self.gpu_skinner.as_ref(),
                chunks: self.chunks.as_ref(),
            };
            Self::build_draws(list, shape, visible, per_character, levels, sources);
        }
        self.frame.draws_for = Some(DrawsFor {
            draw_path: layout.draw_path(),
            order: layout.order(),
            instances,
        });
        // Each instance's base vertex, from the shadow list (which has every instance);
        // it changes with the layout and the crowd, not with what is visible.
        self.frame.vertex_base_scratch.clear();
        self.frame
            .vertex_base_scratch
            .resize(instances.min(self.instance_capacity), 0);
        for a in &self.frame.draws[1].args {
            if let Some(base) = self
                .frame
                .vertex_base_scratch
                .get_mut(a.first_instance as usize)
            {
                *base = a.base_vertex as u32;
            }
        }
        self.write_vertex_base(queue);
        if !self.indirect_draws() {
            return true;
        }
        let [main, shadow] = &self.frame.draws;
        let same = self.frame.indirect_written.len() == shadow.args.len() + main.args.len()
            && bytemuck::cast_slice::<_, u8>(&self.frame.indirect_written[..shadow.args.len()])
                == bytemuck::cast_slice::<_, u8>(&shadow.args)
            && bytemuck::cast_slice::<_, u8>(&self.frame.indirect_written[shadow.args.len()..])
                == bytemuck::cast_slice::<_, u8>(&main.args);
        if same {
            return true;
        }
        self.frame.indirect_written.clear();
        self.frame.indirect_written.extend_from_slice(&shadow.args);
        self.frame.indirect_written.extend_from_slice(&main.args);
        let bytes: &[u8] = bytemuck::cast_slice(&self.frame.indirect_written);
        // Room for the runs after both lists (as many as the main pass's arguments) and
        // a count word per batch (an argument holds five).
        let with_runs = self.frame.indirect_written.len() + main.args.len() + main.batches.len();
        let arg_bytes = std::mem::size_of::<DrawIndexedIndirectArgs>() as u64;
        if gpu_writes || with_runs as u64 * arg_bytes > self.indirect_args.size() {
            self.indirect_args = Self::indirect_buffer(device, with_runs.next_power_of_two());
        }
        // A batch is at most every argument: its count is a word of this buffer.
        if self.count_draws
            && self.draw_counts.size() <= 4 * self.frame.indirect_written.len() as u64
        {
            self.draw_counts = Self::draw_counts_buffer(
                device,
                (self.frame.indirect_written.len() + 1).next_power_of_two(),
            );
        }
        if !bytes.is_empty() {
            queue.write_buffer(&self.indirect_args, 0, bytes);
        }
        true
    }

    /// The level a frame draws every character at where the GPU's LOD pass chooses the
    /// levels but has not written this frame's draws (the first after they were rebuilt):
    /// the coarsest, whose vertices and joints every character's pose holds, where it
    /// chooses mesh levels; full detail where it does not.
    pub fn set_fallback_level(&mut self, level: u8) {
        self.fallback_level = level;
    }

    /// How many times the draw lists were built: a steady frame (nothing per character
    /// from the CPU, nothing else changed) builds none and records the same commands.
    pub fn draw_list_builds(&self) -> u64 {
        self.frame.list_builds
    }

    /// One pass's draw list: `visible` characters (all without it) of `shape`, each at its
    /// level of `levels`, read from where `sources` keeps its vertices.
    fn build_draws(
        list: &mut DrawList,
        shape: FrameShape<'_>,
        visible: Option<&[bool]>,
        per_character: bool,
        levels: MeshLevels<'_>,
        sources: VertexSources<'_>,
    ) {
        let FrameShape {
            layout,
            characters: instances,
        } = shape;
        let VertexSources {
            skinned_capacity,
            gpu_skinner,
            chunks,
        } = sources;
        match layout.draw_path() {
            DrawPath::Pulled | DrawPath::GpuVertex => {
                let Some(chunks) = chunks else {
                    list.clear();
                    return;
                };
                list.build_chunks(
                    levels,
                    instances.min(chunks.held_instances),
                    visible,
                    chunks.chunk_instances,
                    chunks.bind_groups.len(),
                    per_character,
                );
            }
            DrawPath::GpuCompute => {
                let (Some(skinner), Some(skinned)) = (gpu_skinner, layout.skinned_on_gpu()) else {
                    list.clear();
                    return;
                };
                list.build_vertices(
                    levels,
                    instances,
                    visible,
                    skinned.vertex_stride() as u64,
                    |i| skinner.locate(i),
                );
            }
            DrawPath::Interleaved
            | DrawPath::Float3
            | DrawPath::Float4
            | DrawPath::Packed
            | DrawPath::PackedBlocks => {
                let span = layout.instance_span() as u64;
                list.build_vertices(
                    levels,
                    instances,
                    visible,
                    layout.vertex_stride() as u64,
                    |i| {
                        let start = layout.instance_offset(i) as u64;
                        (start + span <= skinned_capacity).then_some((0, start))
                    },
                );
            }
        }
    }
}

/// Where the renderer keeps the skinned vertices a draw list reads: the CPU's skinned
/// buffer (its capacity), `gpu_compute`'s ranges, or the pulled paths' chunks.
#[derive(Clone, Copy)]
struct VertexSources<'a> {
    skinned_capacity: u64,
    gpu_skinner: Option<&'a GpuSkinner>,
    chunks: Option<&'a Chunks>,
}
