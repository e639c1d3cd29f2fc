//! Update-rate LOD in the scene: each frame's plan of which groups are computed, and the
//! measurement of its screen-space error against a full-rate frame skinned aside.

use super::*;
use crate::crowd::lod::formats::{RECORD_SKIN, RECORD_SKIN_LEVEL_SHIFT};
use crate::prepare::mesh_lod::MAX_MESH_LEVELS;
use crate::skin::{SkinDevice, VertexOrder, influence_cuts};
use crate::types::LANES;

/// `gpu_compute` fed by the CPU's animation with either LOD: the skinning pass reads
/// each character's skin level from a word of the GPU animation's 32-byte records (the
/// last), which the CPU writes here every frame: the characters of the groups the CPU's
/// plan computes this frame marked, at the level their group is skinned for
/// ([`Lod::skin_levels`], never coarser than what a pass draws of it), the others not.
/// A character the plan keeps has the palettes it had when its vertices were skinned, so
/// the pass leaves its vertices as they are, as the CPU's kernels do; with update-rate LOD
/// off every group is computed and every character marked.
#[derive(Default)]
pub(super) struct CpuSkinMarks {
    buffer: Option<wgpu::Buffer>,
    words: Vec<[u32; 8]>,
    live: bool,
    /// Characters marked at each level this frame.
    at_level: [usize; MAX_MESH_LEVELS],
}

impl CpuSkinMarks {
    /// The marks, where this frame's skinning pass reads them.
    pub(super) fn live(&self) -> Option<&wgpu::Buffer> {
        self.buffer.as_ref().filter(|_| self.live)
    }

    /// This frame's skinning reads no marks (the animation is on the GPU).
    pub(super) fn off(&mut self) {
        self.live = false;
    }

    /// Characters marked at each level, where the marks are read this frame.
    fn at_level(&self) -> Option<&[usize]> {
        self.live.then_some(&self.at_level[..])
    }
}

impl Scene {
    /// Writes the CPU's skin marks for this frame's `gpu_compute` pass where they apply
    /// (see [`CpuSkinMarks`]).
    pub(super) fn write_cpu_skin_marks(&mut self) {
        let n = self.sim.crowd.len();
        let levels = self.sim.lod.skin_levels();
        let marks = &mut self.sim.cpu_skin_marks;
        marks.live = self.sim.pipeline.config().skin == SkinVariant::GpuCompute
            && (self.settings.lod.mesh || self.settings.lod.enabled)
            && n > 0
            && levels.len() == n.div_ceil(LANES);
        if !marks.live {
            return;
        }
        marks.words.clear();
        marks.words.resize(n, [0u32; 8]);
        marks.at_level = [0; MAX_MESH_LEVELS];
        for groups in self.sim.lod.runs() {
            for g in groups.clone() {
                let level = levels[g];
                let members = (g * LANES).min(n)..((g + 1) * LANES).min(n);
                marks.at_level[(level as usize).min(MAX_MESH_LEVELS - 1)] += members.len();
                for record in &mut marks.words[members] {
                    record[7] = RECORD_SKIN | (u32::from(level) << RECORD_SKIN_LEVEL_SHIFT);
                }
            }
        }
        let bytes: &[u8] = bytemuck::cast_slice(&marks.words);
        if marks
            .buffer
            .as_ref()
            .is_none_or(|b| b.size() < bytes.len() as u64)
        {
            marks.buffer = Some(self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("cpu skin marks"),
                size: bytes.len() as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(buffer) = &marks.buffer {
            self.gpu.queue.write_buffer(buffer, 0, bytes);
        }
    }

    /// Decides which groups of eight characters this frame computes (all, with LOD off):
    /// the GPU buffer keeps the others' vertices from their last update.
    pub(super) fn plan_lod(&mut self) {
        let n = self.sim.crowd.len();
        let layout = *self.sim.pipeline.output_layout();
        if self
            .renderer
            .ensure_skinned_capacity(&self.gpu.device, &layout, n)
        {
            self.sim.lod.invalidate();
        }
        let key = (
            *self.sim.pipeline.config(),
            n,
            Arc::as_ptr(self.sim.pipeline.rig()) as usize,
        );
        if self.sim.lod_key != Some(key) {
            self.sim.lod.invalidate();
            self.sim.lod_key = Some(key);
        }
        let view = self.lod_view();
        let config = *self.sim.pipeline.config();
        let rig = self.sim.pipeline.rig();
        let mesh_errors: &[f32] = if self.settings.lod.mesh {
            &crate::skin::level_errors::level_errors(rig).errors
        } else {
            &[]
        };
        let shadow_level = self
            .settings
            .shadows
            .then(|| self.shadow_mesh_level(crowd_extent(&self.sim.crowd) + 12.0));
        let input = PlanInput {
            mesh_errors,
            shadow_level,
            rig,
            settings: self.settings.lod,
            view: &view,
            world_from_model: self.renderer.world_from_model(),
            frame_clip_secs: self.sim.frame_clip_secs,
            blend_weight: config.blend_weight,
            method: config.method,
        };
        self.sim.lod.plan(&input, &mut self.sim.crowd);
    }

    /// Measures the motions of the clips the crowd plays that LOD will bound with (the CPU
    /// plan's or the GPU pass's, whichever animates), calling `measured(done, of)` after
    /// each: what the first frame would otherwise measure (see `load_scene`).
    pub fn measure_motions(
        &mut self,
        cache: Option<&crate::prepare::cache::MeasureCache>,
        measured: &mut dyn FnMut(usize, usize),
    ) {
        let lod = self.settings.lod;
        let rig = self.sim.pipeline.rig().clone();
        let config = *self.sim.pipeline.config();
        let mesh_on = lod.mesh && rig.mesh_chain().levels().len() > 1;
        match self.sim.animated_on {
            AnimateDevice::Cpu if lod.enabled || mesh_on => self.sim.lod.measure_motions(
                &rig,
                config.blend_weight,
                config.method,
                self.sim.crowd.as_slice(),
                cache,
                measured,
            ),
            AnimateDevice::Gpu if lod.enabled || lod.mesh => {
                self.sim.lod_motions.update_with(
                    &rig,
                    self.sim.crowd.as_slice(),
                    config.blend_weight,
                    config.method,
                    cache,
                    measured,
                );
            }
            AnimateDevice::Cpu | AnimateDevice::Gpu => {}
        }
    }

    /// The level of the mesh's chain the shadow pass draws every character with: the
    /// coarsest whose error stays under the threshold at the shadow map's texel size (the
    /// sun's orthographic view over `ground_extent`, as `camera::light_view_proj` makes
    /// it); the full mesh with geometric LOD off, or before the level errors are measured:
    /// every LOD choice reads them, so no character is coarser before then. (Geometric LOD
    /// turned on in the panel draws this frame's characters as they were planned; the
    /// next frame measures, or the app first, on a thread.)
    pub fn shadow_mesh_level(&self, ground_extent: f32) -> u8 {
        let measured = crate::skin::level_errors::measured(self.sim.pipeline.rig());
        let Some(measured) = measured.filter(|_| self.settings.lod.mesh) else {
            return 0;
        };
        let errors = &measured.errors;
        let radius = ground_extent.max(1.0) * std::f32::consts::SQRT_2;
        let texels_per_metre = crate::gpu::renderer::SHADOW_MAP_SIZE as f32 / (2.0 * radius);
        let m = self.renderer.world_from_model();
        let scale = m
            .x_axis
            .length()
            .max(m.y_axis.length())
            .max(m.z_axis.length());
        choose_mesh_level(
            errors,
            texels_per_metre * scale,
            self.settings.lod.threshold_px,
            0,
        ) as u8
    }

    /// What geometric LOD drew in the latest frame (from the LOD counts: the CPU plan's, or
    /// the GPU pass's).
    pub fn mesh_lod_reading(&self) -> MeshLodReading {
        let chain = self.sim.pipeline.rig().mesh_chain();
        let stats = self.lod_stats();
        let level_triangles: Vec<usize> = chain.levels().iter().map(|l| l.triangles()).collect();
        let at_level: Vec<usize> = stats.at_mesh_level[..level_triangles.len()].to_vec();
        let triangles = self.triangles_at_levels();
        let drawn: usize = at_level.iter().sum();
        let (skinned_vertices, full_vertices) = self.vertices_skinned();
        MeshLodReading {
            full_triangles: (drawn * level_triangles[0]) as u64,
            at_level,
            level_triangles,
            triangles,
            shadow_level: self.shadow_mesh_level(crowd_extent(&self.sim.crowd) + 12.0),
            skinned_vertices,
            full_vertices,
            influences_blended: self.influences_blended(),
            joints_posed: self.joints_posed(),
            joints_sampled: self.joints_sampled(),
            full_joints: self.sim.crowd.len() as u64 * self.sim.pipeline.rig().joint_count() as u64,
            skin_invocations: self.skin_invocations(),
            draw_records: self.draw_records(),
            per_level_draws: self.renderer.draws_per_level(),
            pool: self.renderer.pool_reading(),
        }
    }

    /// Vertices skinned in the latest frame, and every character's every vertex. The CPU
    /// variants skin each recomputed group's vertices of its members' finest level (the
    /// plan's counts); `gpu_compute` each recomputed character's every vertex (with the
    /// LOD pass on the GPU only its skin level's: the pass's counts); `gpu_vertex` skins every vertex each pass draws (the main pass at each
    /// drawn character's level, the shadow pass at the shadows' level).
    pub fn vertices_skinned(&self) -> (u64, u64) {
        let chain = self.sim.pipeline.rig().mesh_chain();
        let vertices = |l: usize| chain.levels()[l.min(chain.levels().len() - 1)].vertices as u64;
        let full = self.sim.crowd.len() as u64 * vertices(0);
        // A pool skins every character with vertices that it holds: what it held.
        if let Some(pool) = self.renderer.pool_reading() {
            return (pool.vertices_in_use, full);
        }
        let rig = self.sim.pipeline.rig();
        let skin = self.settings.pipeline.skin;
        let skinned = self.skinned_per_level(|l, on_cpu| {
            if on_cpu {
                skin.vertices_skinned_at(rig, l) as u64
            } else {
                vertices(l)
            }
        });
        (skinned, full)
    }

    /// Influences blended in the latest frame, counted as [`Self::vertices_skinned`]
    /// counts vertices: each skinned vertex's, or where a path that cuts them (the CPU's
    /// kernels, the compute pass) skins a level that cuts them with linear blending, as
    /// many as it keeps ([`crate::skin::influence_cuts`]).
    /// `None` where a pool skins (it holds no per-level counts).
    pub fn influences_blended(&self) -> Option<u64> {
        if self.renderer.pool_reading().is_some() {
            return None;
        }
        let rig = self.sim.pipeline.rig();
        let method = self.settings.pipeline.method;
        let skin = self.settings.pipeline.skin;
        Some(self.skinned_per_level(|l, on_cpu| {
            let kept = crate::skin::level_kept(rig, l, method);
            // The vertices counted are the ones `vertices_skinned` counts.
            let counted = match (on_cpu, skin.spec().order) {
                (true, VertexOrder::InfluenceSorted) => influence_cuts::blended_influences,
                (true, VertexOrder::File) | (false, _) => influence_cuts::level_own_influences,
            };
            counted(rig, l, kept) as u64
        }))
    }

    /// The sum over what the latest frame skinned of `per_character(level, on_cpu)`: one
    /// character skinned for `level`, by the CPU's kernels or not (see
    /// [`Self::vertices_skinned`]).
    fn skinned_per_level(&self, per_character: impl Fn(usize, bool) -> u64) -> u64 {
        let n = self.sim.crowd.len() as u64;
        let stats = self.lod_stats();
        let on_gpu_lod = self.skinned_by_gpu_lod();
        let updated = if self.settings.lod.enabled {
            stats.updated as u64
        } else {
            n
        };
        let per_level = |counts: &[usize], on_cpu: bool| -> u64 {
            // A level no character is at asks nothing (its cut would be measured).
            counts
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c > 0)
                .map(|(l, &c)| c as u64 * per_character(l, on_cpu))
                .sum()
        };
        match self.settings.pipeline.skin.spec().runs_on {
            // Each recomputed group for its members' finest level (the CPU plan's counts).
            SkinDevice::Cpu => per_level(&stats.skinned_at_level, true),
            SkinDevice::GpuCompute if on_gpu_lod => per_level(&stats.skinned_at_level, false),
            SkinDevice::GpuCompute if self.sim.cpu_skin_marks.at_level().is_some() => {
                per_level(self.sim.cpu_skin_marks.at_level().unwrap_or(&[]), false)
            }
            SkinDevice::GpuCompute => updated * per_character(0, false),
            SkinDevice::GpuVertex => {
                let main: u64 = if self.settings.lod.mesh {
                    per_level(&stats.at_mesh_level, false)
                } else {
                    n * per_character(0, false)
                };
                let shadow = if self.settings.shadows {
                    n * per_character(
                        self.shadow_mesh_level(crowd_extent(&self.sim.crowd) + 12.0) as usize,
                        false,
                    )
                } else {
                    0
                };
                main + shadow
            }
        }
    }

    /// Joints posed (walked and written to a palette, sampled where a clip animates them)
    /// in the latest frame. Each character animated for a mesh level poses only that
    /// level's joints: on the CPU each recomputed group at its skin level (the plan's
    /// counts) with geometric LOD on, every joint without; on the GPU each character its
    /// skin level's (the LOD pass's counts), or without a LOD pass every joint that moves
    /// a vertex.
    pub fn joints_posed(&self) -> u64 {
        let rig = self.sim.pipeline.rig();
        let method = self.sim.pipeline.config().method;
        self.joints_per_frame(
            |l| crate::skin::level_errors::posed_joints(rig, l, method).len() as u64,
            rig.joint_count() as u64,
            rig.joints_at_level(0).len() as u64,
        )
    }

    /// Joints sampled (a clip's tracks evaluated) in the latest frame, counted as
    /// [`Self::joints_posed`] counts: of the joints posed, those a clip animates and the
    /// character's level does not hold at rest ([`crate::skin::joint_merges`]).
    pub fn joints_sampled(&self) -> u64 {
        let rig = self.sim.pipeline.rig();
        let animated = rig.animated_joints();
        let every = animated.iter().filter(|&&a| a).count() as u64;
        let moving = rig.full_mesh_merges().sampled() as u64;
        let method = self.sim.pipeline.config().method;
        self.joints_per_frame(
            |l| crate::skin::level_errors::level_merges(rig, l, method).sampled() as u64,
            every,
            moving,
        )
    }

    /// A per-character joint count summed over the latest frame's characters, the way
    /// each path poses them: `at_level(l)` for a character posed for mesh level `l`,
    /// `every` for one the CPU poses whole, `moving` for one the GPU poses without a LOD
    /// pass (every joint that moves a vertex).
    fn joints_per_frame(&self, at_level: impl Fn(usize) -> u64, every: u64, moving: u64) -> u64 {
        let stats = self.lod_stats();
        let at_levels = || -> u64 {
            stats
                .skinned_at_level
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c > 0)
                .map(|(l, &c)| c as u64 * at_level(l))
                .sum()
        };
        let n = self.sim.crowd.len() as u64;
        match self.sim.animated_on {
            AnimateDevice::Cpu if self.settings.lod.mesh => at_levels(),
            AnimateDevice::Cpu => {
                let updated = if self.settings.lod.enabled {
                    stats.updated as u64
                } else {
                    n
                };
                updated * every
            }
            AnimateDevice::Gpu if self.skinned_by_gpu_lod() => at_levels(),
            AnimateDevice::Gpu => n * moving,
        }
    }

    /// Whether the GPU's LOD pass marks who is skinned at which level (the animation on
    /// the GPU with either LOD on).
    fn skinned_by_gpu_lod(&self) -> bool {
        self.sim.animated_on == AnimateDevice::Gpu
            && (self.settings.lod.enabled || self.settings.lod.mesh)
    }

    /// Invocations `gpu_compute`'s skinning pass launched in the latest frame (0 on the
    /// other paths): with the `per_level` shader about the vertices skinned, with the
    /// class shaders every vertex of every character ([`crate::gpu::skin::GpuSkinner::invocations`]).
    pub fn skin_invocations(&self) -> u64 {
        if self.settings.pipeline.skin.spec().runs_on != SkinDevice::GpuCompute {
            return 0;
        }
        let stats = self.lod_stats();
        let counts = self
            .skinned_by_gpu_lod()
            .then_some(&stats.skinned_at_level[..])
            .or(self.sim.cpu_skin_marks.at_level());
        self.renderer
            .gpu_skin_invocations(self.sim.crowd.len(), counts)
    }

    /// Bytes of GPU memory `gpu_compute` skins into: a full-detail slot per character, or
    /// the skinned pool (0 on the other paths).
    pub fn skinned_output_bytes(&self) -> u64 {
        self.renderer.gpu_skinned_bytes()
    }

    /// Draw arguments the latest frame's passes read (main, shadow): one per visible
    /// character, or with per-level draws one per batch and level.
    pub fn draw_records(&self) -> [usize; 2] {
        self.renderer.draw_records()
    }

    /// Each character's mesh level, for the "colour by level" view (where it is on, with
    /// geometric LOD): the CPU plan's, or read back from the GPU's LOD pass (the frame
    /// before's; a wait for the GPU each frame, which a view for looking may take).
    pub(super) fn level_colors(&self) -> Option<Vec<u8>> {
        if !(self.settings.color_by_level && self.settings.lod.mesh) {
            return None;
        }
        let n = self.sim.crowd.len();
        match self.sim.animated_on {
            AnimateDevice::Cpu => Some(self.sim.lod.mesh_levels().to_vec()),
            AnimateDevice::Gpu => self
                .gpu_lod_states(n)
                .ok()
                .map(|states| states.iter().map(|s| s.mesh_level() as u8).collect()),
        }
    }

    /// Triangles of the drawn characters at their mesh levels (the LOD counts), without
    /// the reading's lists: every frame's report counts them.
    fn triangles_at_levels(&self) -> u64 {
        let stats = self.lod_stats();
        self.sim
            .pipeline
            .rig()
            .mesh_chain()
            .levels()
            .iter()
            .zip(&stats.at_mesh_level)
            .map(|(level, &n)| (n * level.triangles()) as u64)
            .sum()
    }

    /// Triangles the crowd pass drew in the latest frame: each drawn character at its level
    /// (from the LOD counts; on the GPU those of a recent frame), or at full detail.
    pub fn triangles_drawn(&self) -> u64 {
        if self.settings.lod.mesh {
            return self.triangles_at_levels();
        }
        let full = self.sim.pipeline.rig().mesh_chain().levels()[0].triangles() as u64;
        let culled = if self.settings.lod.enabled {
            self.lod_stats().culled
        } else {
            0
        };
        self.sim.crowd.len().saturating_sub(culled) as u64 * full
    }

    /// LOD's screen-space error now: what is shown against a full-rate frame, both skinned
    /// aside on the CPU (at most `limit` stale characters compared).
    pub fn measure_lod_error(&mut self, limit: Option<usize>) -> Result<MeasuredError, SceneError> {
        let rig = self.sim.pipeline.rig().clone();
        let main = *self.sim.pipeline.config();
        let config = PipelineConfig {
            method: main.method,
            blend_weight: main.blend_weight,
            ..PipelineConfig::best_for(&rig, main.threads)
        };
        let stale =
            !matches!(&self.lod_aside, Some((p, c)) if *c == config && Arc::ptr_eq(p.rig(), &rig));
        if stale {
            let pipeline = Pipeline::new(rig, config)?;
            self.lod_aside = Some((pipeline, config));
        }
        let view = self.lod_view();
        // With LOD on the GPU, what it shows comes back from it.
        let on_gpu = self.gpu_lod_shown()?;
        let now_on_gpu = on_gpu.as_ref().and_then(|_| {
            self.sim
                .animator
                .as_ref()
                .map(|a| a.crowd_at(self.sim.anim_clock_secs))
        });
        let (shown, current, visible) = match (&on_gpu, &now_on_gpu) {
            (Some((shown, visible)), Some(now)) => (&shown[..], &now[..], &visible[..]),
            _ => (
                self.sim.lod.shown(),
                self.sim.crowd.as_slice(),
                self.sim.lod.visible(),
            ),
        };
        let Some((aside, _)) = &mut self.lod_aside else {
            return Err(SceneError::NoMeasurementPipeline);
        };
        measure_error(
            aside,
            shown,
            current,
            visible,
            self.renderer.world_from_model(),
            &view,
            limit,
        )
        .map_err(SceneError::from)
    }
}
