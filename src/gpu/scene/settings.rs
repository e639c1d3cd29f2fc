//! The scene's settings: everything a user can change from the panel and the command line.

use crate::crowd::budget::{self, Budget};
use crate::crowd::lod::LodSettings;
use crate::crowd::mix::ClipChoice;
use crate::crowd::{AnimateDevice, PipelineConfig};
use crate::gpu::animate::GpuHierarchy;
use crate::gpu::draws::Draws;
use crate::gpu::renderer::BaseColors;
use crate::gpu::skin::ComputeShader;
use crate::gpu::upload::UploadVariant;
use crate::prepare::PreparedRig;
use crate::simd::SimdLevel;
use crate::skin::SkinVariant;
use crate::skin::pool::{PoolPlan, PoolSize};

/// Everything the user can change from the panel (and the command line).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Settings {
    /// Variants, schedule, threads and blend: what the frame pipeline runs.
    pub pipeline: PipelineConfig,
    /// Where sampling, the blend, the hierarchy and the palettes run (`gpu`: with a GPU
    /// skin variant only).
    pub animate: AnimateDevice,
    /// How the GPU walks the hierarchy when it animates.
    pub gpu_hierarchy: GpuHierarchy,
    /// The SIMD level the pipeline's lane kernels run at (one the CPU has).
    pub simd_level: SimdLevel,
    /// The compute shader `gpu_compute` skins with.
    pub compute_shader: ComputeShader,
    /// How the crowd pass draws where the GPU's LOD pass decides: per character or per
    /// batch and mesh level.
    pub draws: Draws,
    /// `gpu_compute`'s output as a pool, `auto` or a share of full detail, given out each
    /// frame by level (`None`: a full-detail slot per character); see [`Self::pool`].
    pub skinned_pool: Option<PoolSize>,
    /// The sun casts shadows (a shadow pass before the main pass).
    pub shadows: bool,
    /// Draw the crowd with one indirect multi-draw per binding (where the adapter can),
    /// or the same draws one by one.
    pub indirect_draws: bool,
    pub upload: UploadVariant,
    /// Update-rate LOD: on/off, the pixel threshold, the period cap.
    pub lod: LodSettings,
    /// Draw each character in the colour of its mesh level instead of its material.
    pub color_by_level: bool,
    /// The file's base colours or the tints (`--material`).
    pub base_colors: BaseColors,
    /// Which clips the crowd plays (`--clips`): by default those that move.
    pub clips: ClipChoice,
    pub instances: usize,
    pub speed: f32,
    pub paused: bool,
    pub vsync: bool,
    pub show_panel: bool,
}

impl Settings {
    /// The skinned pool, where it applies: asked for, `gpu_compute` with the `per_level`
    /// shader, the animation and its LOD pass on the GPU (which says who has vertices at
    /// which level) and per-level draws through indirect draws (which read each
    /// character's place in the pool).
    pub fn pool(&self) -> Option<PoolSize> {
        self.skinned_pool.filter(|_| {
            self.pipeline.skin == SkinVariant::GpuCompute
                && self.compute_shader == ComputeShader::PerLevel
                && self.animate == AnimateDevice::Gpu
                && (self.lod.enabled || self.lod.mesh)
                && self.draws == Draws::PerLevel
                && self.indirect_draws
        })
    }

    /// Sets every condition [`Self::pool`] needs back on, with `pool`: what a change that
    /// would end a pool the crowd needs is reverted to.
    pub fn keep_pool(&mut self, pool: PoolSize) {
        self.skinned_pool = Some(pool);
        self.pipeline.skin = SkinVariant::GpuCompute;
        self.compute_shader = ComputeShader::PerLevel;
        self.animate = AnimateDevice::Gpu;
        if !(self.lod.enabled || self.lod.mesh) {
            self.lod.mesh = true;
        }
        self.draws = Draws::PerLevel;
        self.indirect_draws = true;
    }

    /// The pool [`Self::pool`] asks for, resolved for `instances` characters of `rig`
    /// within `budget`: an `auto` pool may grow to the largest share the budget holds
    /// ([`budget::pool_cap`]). The one place a pool's size is worked out.
    pub fn pool_plan(
        &self,
        rig: &PreparedRig,
        instances: usize,
        budget: &Budget,
    ) -> Option<PoolPlan> {
        let size = self.pool()?;
        let layout = self.pipeline.skin.layout(rig, self.pipeline.method);
        let vertex_bytes = layout.skinned_on_gpu().map_or(16, |l| l.vertex_stride()) as u64;
        let cap = budget::pool_cap(rig, &self.pipeline, instances, budget)
            .unwrap_or_else(|| size.least());
        Some(PoolPlan::resolve(
            size,
            cap,
            instances,
            rig.mesh.sorted().source().len() as u32,
            vertex_bytes,
            PoolPlan::START_BYTES,
        ))
    }

    /// `instances` characters running `pipeline` with every other setting at its default
    /// (the CLI's defaults, no vsync, no panel; but mesh LOD and the skinned pool off, so
    /// that what a bench row or a test draws is full detail in full slots unless it asks):
    /// the benches' and the tests' starting point.
    pub fn headless(pipeline: PipelineConfig, instances: usize) -> Settings {
        Settings {
            pipeline,
            animate: AnimateDevice::DEFAULT,
            gpu_hierarchy: GpuHierarchy::DEFAULT,
            simd_level: SimdLevel::native(),
            compute_shader: ComputeShader::DEFAULT,
            draws: Draws::DEFAULT,
            skinned_pool: None,
            shadows: true,
            indirect_draws: true,
            upload: UploadVariant::DEFAULT,
            lod: LodSettings::default(),
            color_by_level: false,
            base_colors: BaseColors::DEFAULT,
            clips: ClipChoice::Moving,
            instances,
            speed: 1.0,
            paused: false,
            vsync: false,
            show_panel: false,
        }
    }
}
