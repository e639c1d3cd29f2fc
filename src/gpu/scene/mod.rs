//! The scene: everything a frame computes and draws, without a window. The window, the
//! panel tests, `--verify`, screenshots, the `gpu` and `crowd` bench workloads and the soak
//! all drive this one type (the wgpu examples' framework is the model: one `render` for
//! the window, the tests and the benches).
//!
//! How it works: a [`Scene`] owns, by lifetime, the device with its offscreen targets and
//! pass timers; what draws (the crowd renderer, the upload variant's state); what the user
//! asks for (the settings, the only way in, the camera, pending requests); and what the
//! frames advance, a `Simulation` (the instances and their clips, the clocks, the CPU
//! pipeline, update-rate LOD, the GPU animation's state). No field is public: callers
//! change settings and read readings.
//! [`Scene::frame`] is the one way to run a frame, in one order: apply changed settings
//! and advance the clocks; plan LOD, run the CPU pipeline into the upload (or prepare the
//! GPU's animation); record the pass list's compute passes (the GPU animation's,
//! `gpu_compute`'s skinning), then, after the caller's panel, its draw passes (shadow and
//! crowd) into the offscreen targets ([`frame_passes`]); submit, ending the frame's timing and pushing it into the
//! history; then carry out what was asked for: verify reads back the skinned buffer the
//! frame just drew and decodes it through the output layout, a screenshot reads back the
//! offscreen frame with a sidecar of the panel's readings. A caller adds its own part
//! through [`FrameExtras`] at three points (the window: its panel before the draws, the
//! panel and the copy to the surface after them, the panel's actions after the submit);
//! [`Frame::headless`] adds nothing.

mod animate;
mod capture;
mod clips;
mod error;
mod frame;
pub mod frame_passes;
mod load;
mod lod;
pub mod readings;
pub mod refusals;
pub mod settings;

pub use error::SceneError;
pub use frame::{BeforeDraws, Frame, FrameDuration, FrameExtras, FrameReport};
pub use load::{
    LoadProgress, LoadStatus, LoadStep, load_scene, measure_level_errors, reads_level_errors,
};

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use glam::Vec2;

pub use readings::{LodReading, MeshLodReading, PanelReadings, ReadingInputs};
pub use refusals::SkinRigRefusals;
pub use settings::Settings;

use refusals::refusals_of;

use super::FrameShape;
use super::animate::GpuAnimator;
use super::animate::lod::GpuLod;
use super::pass::{FrameConditions, PassKind, check_order};
use super::readback::{read_buffer, read_texture, save_png};
use super::timers::GpuTimers;
use super::upload::CpuWork;
use super::{
    CameraStart, CrowdRenderer, FrameTargets, GpuContext, OrbitCamera, Uploader, crowd_extent,
};
use crate::anim::hierarchy::HierarchyVariant;
use crate::crowd::budget::{self, Budget, Footprint};
use crate::crowd::lod::per_character::MotionSet;
use crate::crowd::lod::{Lod, LodView, MeasuredError, PlanInput, choose_mesh_level, measure_error};
use crate::crowd::mix::{ClipChoice, ClipMix, ClipSurvey};
use crate::crowd::trace::{Trace, Track};
use crate::crowd::verify::{FrameDeviation, verify_stages_at_levels};
use crate::crowd::{
    AnimateDevice, InstanceStore, Pipeline, PipelineConfig, Stage, StageTimings, TimingHistory,
};
use crate::machine::{Machine, timestamp};
use crate::prepare::PreparedRig;
use crate::skin::pool::PoolSize;
use crate::skin::{SkinMethod, SkinVariant};
use crate::variant::Variant;
use frame_passes::PreparedFrame;

/// Upper bound of the instance slider with the animation on the CPU (its declaration's).
pub const MAX_INSTANCES: usize = AnimateDevice::Cpu.spec().max_instances;
/// Frames between a configuration shrinking and the freed memory going back to the system:
/// buffers the GPU still reads are released only once its frames are done.
const TRIM_DELAY_FRAMES: u8 = 2;
/// Frames submitted and not finished by the GPU that a new frame may start beside: the
/// next waits for the oldest. Without a bound a CPU faster than its GPU (a software
/// renderer beside a busy core) queues frames without end, and each holds its staging
/// memory and its per-frame objects until the GPU reaches it.
pub const MAX_FRAMES_IN_FLIGHT: usize = 2;
/// Instances verify compares with the reference (spread over the crowd).
pub const VERIFY_INSTANCES: usize = 16;
/// Seconds between two measurements of LOD's screen-space error.
pub const LOD_MEASURE_EVERY_SECS: f32 = 1.0;
/// Stale characters the app's error measurement compares at most (the bench: all).
pub const LOD_MEASURE_LIMIT: usize = 1_000;

/// What the user asked for, and what the last request gave.
#[derive(Default)]
struct Requests {
    verify: bool,
    screenshot: bool,
    last_verify: Option<Result<FrameDeviation, String>>,
    last_screenshot: Option<Result<String, String>>,
    /// What opening the timeline profiler gave (the window's; shown in the panel).
    last_profiler: Option<Result<String, String>>,
}

pub struct Scene {
    // The device and what lives as long as it: the offscreen targets, the pass timers.
    gpu: GpuContext,
    targets: FrameTargets,
    /// Timestamp queries around the GPU passes.
    timers: GpuTimers,
    machine: Machine,
    /// The timeline every measurement also goes to, when one is kept ([`Self::set_trace`]).
    trace: Option<Arc<Trace>>,
    /// Wait for each frame's GPU times (the bench) instead of taking the latest back.
    wait_for_gpu_times: bool,
    /// The frames submitted that the GPU may not have finished, oldest first (at most
    /// [`MAX_FRAMES_IN_FLIGHT`]).
    in_flight: std::collections::VecDeque<wgpu::SubmissionIndex>,
    // What draws: made anew for another rig, changed between frames only by the settings.
    renderer: CrowdRenderer,
    uploader: Uploader,
    // What the user asks for: the settings (the one way in), the view, pending requests.
    settings: Settings,
    camera: OrbitCamera,
    requests: Requests,
    /// Where F12 and the screenshot button save (`bench-results/screenshots` by default).
    screenshot_dir: PathBuf,
    // Memory: what the running configuration holds, and a refused change's reason.
    /// Why the last change of configuration or instance count was refused for memory,
    /// shown until a change is accepted.
    budget_refusal: Option<String>,
    /// The footprint of the configuration running now, bytes.
    footprint_bytes: u64,
    /// Set when the configuration shrank to under half its footprint (or the rig
    /// changed): this many frames later, when the GPU has let go of the old buffers, the
    /// freed memory goes back to the system.
    trim_after_frames: Option<u8>,
    // What the panel, the bench and the sidecars read, renewed by the frames.
    history: TimingHistory,
    /// Messages for the panel, renewed every frame.
    notes: Vec<String>,
    /// What the last panel drawn showed: a screenshot's sidecar writes exactly this.
    shown: Option<PanelReadings>,
    /// The hierarchy variants that refuse this rig, and why (the rig never changes).
    refusals: Vec<(HierarchyVariant, String)>,
    /// The skin variants this adapter cannot run, and why.
    skin_refusals: Vec<(SkinVariant, String)>,
    /// What cannot skin this rig (with the adapter's refusals), for the panel's skin and
    /// method boxes: decided when the rig changes, not every frame.
    rig_skin_refusals: SkinRigRefusals,
    /// The last measurement of LOD's screen-space error (once a second while LOD is on).
    lod_error: Option<Result<MeasuredError, String>>,
    /// The CPU pipeline the error measurement skins with, and what it was made for.
    lod_aside: Option<(Pipeline, PipelineConfig)>,
    lod_measured_at: Option<Instant>,
    /// How often, in seconds, the end of [`Self::frame`] measures LOD's error while LOD is on
    /// (`None`: never; the crowd bench measures it itself over every character).
    lod_measure_every_secs: Option<f32>,
    /// The size of the image the crowd was last drawn into, pixels.
    viewport_px: Vec2,
    /// What the frames advance: the characters, their clips and clocks, the CPU pipeline,
    /// the LOD plans and the GPU animation's state.
    sim: Simulation,
}

/// What the frames advance, as opposed to what draws them (the renderer, the device) and
/// what the panel reads: the crowd and its clips, the clocks, the CPU pipeline, the LOD
/// plans and the GPU animation's state. A rig switch makes most of it anew.
struct Simulation {
    pipeline: Pipeline,
    crowd: InstanceStore,
    /// Every clip of the rig, surveyed at load: which move, where their poses reach.
    clip_survey: ClipSurvey,
    /// The clips the crowd is dealt and its spacing, as the settings' choice resolved.
    clip_mix: ClipMix,
    /// The choice `clip_mix` was resolved from.
    clip_mix_for: ClipChoice,
    /// Clip-seconds this frame advances an instance of speed 1.
    frame_clip_secs: f32,
    /// The animation clock: clip-seconds a character of speed 1 has advanced since the
    /// scene started. With the animation on the GPU the crowd's times stay as they were
    /// written and each record's time follows from its reading of this clock.
    anim_clock_secs: f32,
    /// Where the last frame was animated (a switch hands the crowd's times over).
    animated_on: AnimateDevice,
    /// The animation's compute passes, made the first time the GPU animates (and again
    /// for another rig).
    animator: Option<GpuAnimator>,
    /// Update-rate LOD: which groups each frame computes, what each shown pose is.
    lod: Lod,
    /// What the GPU's vertices were computed for (a change recomputes every group).
    lod_key: Option<(PipelineConfig, usize, usize)>,
    /// Update-rate LOD and culling on the GPU (`--animate gpu --lod on`): its pass, the
    /// motions it bounds with, and where each character's draw count is.
    gpu_lod: Option<GpuLod>,
    /// What the GPU's LOD last decided for: another skin variant or method, or another
    /// count, has none of the skipped characters' vertices (a full frame computes all).
    gpu_lod_key: Option<(PipelineConfig, usize)>,
    lod_motions: MotionSet,
    lod_slots: Vec<crate::crowd::lod::formats::DrawSlot>,
    /// `gpu_compute` fed by the CPU's animation with geometric LOD: each character's skin
    /// level for the skinning pass, in the LOD pass's record format.
    cpu_skin_marks: lod::CpuSkinMarks,
}

impl Scene {
    /// A scene rendering into `size` pixels of `format`.
    pub fn new(
        gpu: GpuContext,
        rig: Arc<PreparedRig>,
        settings: Settings,
        format: wgpu::TextureFormat,
        size: (u32, u32),
    ) -> Result<Self, SceneError> {
        let skin_refusals = crate::gpu::skin::skin_refusals(&gpu);
        if let Some((skin, reason)) = skin_refusals
            .iter()
            .find(|(s, _)| *s == settings.pipeline.skin)
        {
            return Err(SceneError::SkinOnAdapter {
                skin: skin.name(),
                adapter: gpu.summary.name.clone(),
                reason: reason.clone(),
            });
        }
        let mut renderer = CrowdRenderer::new(&gpu.device, &rig, format);
        renderer.set_compute_shader(settings.compute_shader);
        renderer.set_draws(settings.draws);
        renderer.set_shadows(settings.shadows);
        renderer.set_indirect_draws(settings.indirect_draws);
        renderer.set_base_colors(settings.base_colors);
        // What the GPU draws otherwise than the file has it (downscaled images), for the
        // panel's notes.
        let material_notes = renderer.material_notes().to_vec();
        // Nothing that grows with the crowd is allocated before the budget says it fits
        // (the device's largest buffer included).
        let animate = match settings.animate.refusal(settings.pipeline.skin) {
            Some(_) => AnimateDevice::Cpu,
            None => settings.animate,
        };
        let budget = Budget::this_machine(Some(renderer.max_skinned_bytes()));
        budget::check_on(
            animate,
            &rig,
            &settings.pipeline,
            settings.instances,
            settings.pool().map(PoolSize::least),
            &budget,
        )?;
        renderer.set_skinned_pool(settings.pool_plan(&rig, settings.instances, &budget));
        let targets = FrameTargets::new(&gpu.device, format, size.0, size.1);
        let mut pipeline = Pipeline::new(rig.clone(), settings.pipeline)?;
        pipeline.set_simd_level(Some(settings.simd_level))?;
        let clip_survey = ClipSurvey::measure(&rig);
        let clip_mix = ClipMix::choose(&settings.clips, &rig, &clip_survey)?;
        let clip_mix_for = settings.clips.clone();
        let mut crowd = InstanceStore::new();
        clip_mix.deal(&mut crowd, settings.instances, &rig);
        let camera = OrbitCamera::framing_rect(crowd.ground_half_extents());
        let uploader = Uploader::new(&gpu.device);
        let timers = GpuTimers::new(&gpu, gpu.adapter.get_info().backend)?;
        let mut scene = Scene {
            refusals: refusals_of(&rig),
            rig_skin_refusals: SkinRigRefusals::of(&rig, &skin_refusals),
            skin_refusals,
            gpu,
            renderer,
            targets,
            uploader,
            settings,
            camera,
            // The frames that make a configuration's staging (one set per frame the GPU may
            // have in flight, and the one being written) are its setup frames.
            history: TimingHistory::new(600, MAX_FRAMES_IN_FLIGHT + 1),
            machine: Machine::detect(),
            requests: Requests::default(),
            screenshot_dir: PathBuf::from("bench-results/screenshots"),
            notes: material_notes,
            budget_refusal: None,
            footprint_bytes: 0,
            trim_after_frames: None,
            lod_error: None,
            lod_aside: None,
            lod_measured_at: None,
            viewport_px: Vec2::new(size.0 as f32, size.1 as f32),
            shown: None,
            timers,
            wait_for_gpu_times: false,
            in_flight: std::collections::VecDeque::new(),
            lod_measure_every_secs: Some(LOD_MEASURE_EVERY_SECS),
            trace: None,

            sim: Simulation {
                pipeline,
                crowd,
                lod: Lod::new(),
                lod_key: None,
                frame_clip_secs: 0.0,
                animator: None,
                anim_clock_secs: 0.0,
                gpu_lod: None,
                lod_motions: MotionSet::new(),
                lod_slots: Vec::new(),
                cpu_skin_marks: lod::CpuSkinMarks::default(),
                gpu_lod_key: None,
                animated_on: AnimateDevice::Cpu,
                clip_survey,
                clip_mix,
                clip_mix_for,
            },
        };
        scene.apply_animate_setting();
        scene.footprint_bytes = scene.footprint().total();
        Ok(scene)
    }

    /// Whether the settings now read the rig's level errors and they are not measured
    /// yet: the next frame would measure them, seconds on a large rig. The app measures
    /// them on a thread of its own first ([`measure_level_errors`]), showing the progress.
    pub fn level_errors_pending(&self) -> bool {
        reads_level_errors(&self.settings)
            && crate::skin::level_errors::measured(self.sim.pipeline.rig()).is_none()
    }

    pub fn rig(&self) -> &Arc<PreparedRig> {
        self.sim.pipeline.rig()
    }

    /// What the user asked for. Settings are the way in: changes take effect when the
    /// next frame applies them (reverted, with a note, when refused).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The settings to change; see [`Self::settings`].
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    /// The device, queue and adapter the scene draws with (a window configures its
    /// surface on them).
    pub fn gpu(&self) -> &GpuContext {
        &self.gpu
    }

    /// The offscreen images the crowd is drawn into (a window copies the colour image to
    /// its surface).
    pub fn targets(&self) -> &FrameTargets {
        &self.targets
    }

    pub fn camera(&self) -> &OrbitCamera {
        &self.camera
    }

    /// The camera, for a window's drag and wheel or a test's framing: the next frame
    /// draws and plans LOD from where it is.
    pub fn camera_mut(&mut self) -> &mut OrbitCamera {
        &mut self.camera
    }

    /// The characters as the last frame left them.
    pub fn crowd(&self) -> &InstanceStore {
        &self.sim.crowd
    }

    /// Puts every character at `time_secs` into its clip (`--time`).
    pub fn set_all_times(&mut self, time_secs: f32) {
        self.sim.crowd.set_all_times(time_secs);
    }

    /// The configuration running now: the settings' once a frame has applied them, or
    /// the last one accepted.
    pub fn running_config(&self) -> &PipelineConfig {
        self.sim.pipeline.config()
    }

    /// The SIMD level the CPU's lane kernels run at now.
    pub fn simd_level(&self) -> crate::simd::SimdLevel {
        self.sim.pipeline.simd_level()
    }

    /// Messages for the panel from the last frame (refusals, fallbacks, what LOD did).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Why the last change of configuration or instance count was refused for memory,
    /// until a change is accepted.
    pub fn budget_refusal(&self) -> Option<&str> {
        self.budget_refusal.as_deref()
    }

    /// Takes the memory refusal, counted once by whoever reads it (the soak).
    pub fn take_budget_refusal(&mut self) -> Option<String> {
        self.budget_refusal.take()
    }

    /// The hierarchy variants that refuse this rig, and why.
    pub fn hierarchy_refusals(&self) -> &[(HierarchyVariant, String)] {
        &self.refusals
    }

    /// The skin variants this adapter cannot run, and why.
    pub fn skin_refusals(&self) -> &[(SkinVariant, String)] {
        &self.skin_refusals
    }

    /// What cannot skin this rig, for the panel's skin and method boxes.
    pub fn rig_skin_refusals(&self) -> &SkinRigRefusals {
        &self.rig_skin_refusals
    }

    /// The timings of the frames kept (the panel's table and plot).
    pub fn history(&self) -> &TimingHistory {
        &self.history
    }

    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// What the last panel drawn showed (a screenshot's sidecar writes exactly this).
    pub fn shown(&self) -> Option<&PanelReadings> {
        self.shown.as_ref()
    }

    /// Nothing was shown this frame (the panel is hidden): a screenshot's sidecar claims
    /// nothing.
    pub fn forget_shown(&mut self) {
        self.shown = None;
    }

    /// Whether the adapter draws indirectly with a first instance (the indirect-draws
    /// setting needs it).
    pub fn indirect_supported(&self) -> bool {
        self.renderer.indirect_supported()
    }

    /// Whether the rig's file gives materials of its own (the file-colours setting needs
    /// them).
    pub fn has_materials(&self) -> bool {
        self.renderer.has_materials()
    }

    /// Draw commands the last frame recorded: main pass, shadow pass (0 with shadows off).
    pub fn draw_commands(&self) -> [usize; 2] {
        let [main, shadow] = self.renderer.draw_commands();
        [main, if self.settings.shadows { shadow } else { 0 }]
    }

    /// Model → world of a character standing at the origin.
    pub fn world_from_model(&self) -> glam::Mat4 {
        self.renderer.world_from_model()
    }

    /// The renderer as the last frame left it, read-only: the tests' CPU twins compare its
    /// draw lists and placements with their own. Changes go through the settings; the
    /// app and the bench read the readings above instead.
    pub fn renderer(&self) -> &CrowdRenderer {
        &self.renderer
    }

    /// Per character, the mesh level the last CPU plan drew it with.
    pub fn mesh_levels(&self) -> &[u8] {
        self.sim.lod.mesh_levels()
    }

    /// Per group of eight, the mesh level the CPU skinned its vertices for (the last CPU
    /// plan's: [`Lod::skin_levels`]).
    pub fn cpu_skin_levels(&self) -> &[u8] {
        self.sim.lod.skin_levels()
    }

    /// Restarts the pool at `share` (at most its cap), as an `auto` pool of a crowd too
    /// large to start with room for everyone would: lets the tests watch it grow on any
    /// machine. Nothing without a pool.
    pub fn start_pool_at(&mut self, share: crate::skin::pool::PoolShare) {
        if let Some(plan) = self.renderer.skinned_pool() {
            self.renderer
                .set_skinned_pool(Some(plan.starting_at(share)));
        }
    }

    /// Starts update-rate LOD afresh: the next frame computes every character, as the
    /// first one does (a bench block measures from there).
    pub fn restart_lod(&mut self) {
        self.sim.lod.invalidate();
        if let Some(gpu_lod) = &mut self.sim.gpu_lod {
            gpu_lod.invalidate();
        }
    }

    /// What the upload variant fell back to, if it could not run as asked.
    pub fn upload_note(&self) -> Option<&str> {
        self.uploader.note()
    }

    /// Makes the staging upload behave as if the driver handed it misaligned memory, so
    /// its fallback can be tested on any machine.
    #[doc(hidden)]
    pub fn simulate_misaligned_staging(&mut self, misaligned: bool) {
        self.uploader.simulate_misaligned_staging(misaligned);
    }

    /// Waits for each frame's GPU times (the bench) instead of taking the latest back.
    pub fn set_wait_for_gpu_times(&mut self, wait: bool) {
        self.wait_for_gpu_times = wait;
    }

    /// How often the end of a frame measures LOD's screen-space error while LOD is on
    /// (`None`: never; the crowd bench measures over every character itself).
    pub fn set_lod_measure_every_secs(&mut self, every_secs: Option<f32>) {
        self.lod_measure_every_secs = every_secs;
    }

    /// The last measurement of LOD's screen-space error (once a second while LOD is on).
    pub fn lod_error(&self) -> Option<&Result<MeasuredError, String>> {
        self.lod_error.as_ref()
    }

    /// Where F12 and the screenshot button save (`bench-results/screenshots` by default).
    pub fn set_screenshot_dir(&mut self, dir: PathBuf) {
        self.screenshot_dir = dir;
    }

    /// What the last verify gave, until taken.
    pub fn last_verify(&self) -> Option<&Result<FrameDeviation, String>> {
        self.requests.last_verify.as_ref()
    }

    /// Takes what the last verify gave (a test or the soak judges each once).
    pub fn take_last_verify(&mut self) -> Option<Result<FrameDeviation, String>> {
        self.requests.last_verify.take()
    }

    /// Keeps a verify's result for the panel (`--verify` runs its own).
    pub fn set_last_verify(&mut self, result: Result<FrameDeviation, String>) {
        self.requests.last_verify = Some(result);
    }

    /// Where the last screenshot went, or why it failed.
    pub fn last_screenshot(&self) -> Option<&Result<String, String>> {
        self.requests.last_screenshot.as_ref()
    }

    /// Keeps a screenshot's outcome for the panel (`--screenshot` saves its own).
    pub fn set_last_screenshot(&mut self, result: Result<String, String>) {
        self.requests.last_screenshot = Some(result);
    }

    /// What opening the timeline profiler gave (the window's; shown in the panel).
    pub fn last_profiler(&self) -> Option<&Result<String, String>> {
        self.requests.last_profiler.as_ref()
    }

    pub fn set_last_profiler(&mut self, result: Result<String, String>) {
        self.requests.last_profiler = Some(result);
    }

    /// The overview of the whole crowd, framed in the viewport last drawn (the window left
    /// of the panel).
    pub fn reset_camera(&mut self) {
        self.camera = OrbitCamera::framing_rect_in(
            self.sim.crowd.ground_half_extents(),
            self.viewport_px.x / self.viewport_px.y,
        );
    }

    /// Keeps every stage of every group, the LOD plan, the upload, the encoding and the GPU
    /// passes also as spans of `trace` (`None` stops): see [`crate::crowd::trace`].
    pub fn set_trace(&mut self, trace: Option<Arc<Trace>>) {
        self.sim.pipeline.set_trace(trace.clone());
        self.uploader.set_trace(trace.clone());
        self.trace = trace;
    }

    /// Keeps a span of the calling thread on the timeline, if one is kept.
    fn trace_main(&self, name: &'static str, start: Instant) {
        if let Some(trace) = &self.trace {
            trace.record(Track::Thread(0), name, start, start.elapsed());
        }
    }

    /// Puts the camera where `start` names over the crowd as it stands.
    pub fn set_camera(&mut self, start: CameraStart) {
        self.camera = match start {
            CameraStart::Overview => {
                OrbitCamera::framing_rect(self.sim.crowd.ground_half_extents())
            }
            CameraStart::Street => OrbitCamera::street_rect(self.sim.crowd.ground_half_extents()),
        };
    }

    /// What LOD projects with: the camera's view over the last viewport drawn.
    pub fn lod_view(&self) -> LodView {
        self.camera
            .lod_view(self.viewport_px, crowd_extent(&self.sim.crowd) + 12.0)
    }

    /// Waits until the GPU has finished everything submitted.
    pub fn wait_idle(&self) -> Result<(), SceneError> {
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| SceneError::Poll(e.to_string()))
    }

    /// Records the crowd's draws (`indirect` or one command per run of visible groups)
    /// into an encoder that is finished and dropped, never submitted: the CPU cost of
    /// encoding, in µs, the number of draw commands recorded, and whether they were
    /// indirect (not where the adapter has no indirect draws). The renderer goes back to
    /// the settings' way of drawing afterwards.
    pub fn encode_draws_unsubmitted(&mut self, indirect: bool) -> (f64, usize, bool) {
        let start = Instant::now();
        self.renderer.set_indirect_draws(indirect);
        let drawn_indirect = self.renderer.indirect_draws();
        self.prepare_draws(None);
        let mut encoder = self.encoder();
        let prepared = PreparedFrame::cpu(self.frame_conditions());
        if let Err(e) = self.record_passes(&mut encoder, PassKind::Draw, &prepared, None, false) {
            self.notes.push(format!("the draws were not encoded: {e}"));
        }
        drop(encoder.finish());
        let us = start.elapsed().as_secs_f64() * 1e6;
        let commands = self.renderer.draw_commands().iter().sum();
        self.renderer
            .set_indirect_draws(self.settings.indirect_draws);
        (us, commands, drawn_indirect)
    }

    /// Where each character's vertices are in the skinned output the last frame wrote.
    pub fn output_layout(&self) -> &crate::skin::OutputLayout {
        self.sim.pipeline.output_layout()
    }

    pub fn resize(&mut self, width: u32, height: u32) {
        let format = self.targets.color.format();
        self.targets = FrameTargets::new(&self.gpu.device, format, width, height);
    }

    /// Brings the pipeline and crowd in line with the settings. A refused configuration
    /// is reverted and the reason noted; so is one that would not fit in memory (checked
    /// before anything is allocated, see [`crate::crowd::budget`]).
    pub fn apply_settings(&mut self) {
        self.apply_animate_setting();
        let running_before = (*self.sim.pipeline.config(), self.sim.crowd.len());
        let wanted = self.settings.pipeline;
        let wanted_instances = self.settings.instances.min(self.instance_cap());
        let running_pool = self.renderer.skinned_pool().map(|p| p.size());
        let wanted_pool = self.settings.pool();
        let mut plan = self.renderer.skinned_pool();
        if wanted != *self.sim.pipeline.config()
            || wanted_instances != self.sim.crowd.len()
            || wanted_pool != running_pool
        {
            let rig = self.sim.pipeline.rig().clone();
            let budget = self.budget_replacing();
            let checked = budget::check_on(
                self.settings.animate,
                &rig,
                &wanted,
                wanted_instances,
                wanted_pool.map(PoolSize::least),
                &budget,
            );
            match checked {
                Ok(_) => {
                    self.budget_refusal = None;
                    plan = self.settings.pool_plan(&rig, wanted_instances, &budget);
                }
                Err(e) => {
                    self.budget_refusal = Some(e.to_string());
                    self.settings.pipeline = *self.sim.pipeline.config();
                    self.settings.instances = self.sim.crowd.len();
                    // What ended or shrank the pool the crowd needs goes back too.
                    match running_pool {
                        Some(pool) => self.settings.keep_pool(pool),
                        None => self.settings.skinned_pool = None,
                    }
                }
            }
        }
        if plan != self.renderer.skinned_pool() {
            self.renderer.set_skinned_pool(plan);
            self.history.clear();
            self.requests.last_verify = None;
            // Full slots hold nothing of a kept character's from the pool: a full frame.
            self.invalidate_gpu_lod();
        }
        if let Some(refusal) = &self.budget_refusal {
            self.notes.push(refusal.clone());
        }
        if let Some((skin, reason)) = self
            .skin_refusals
            .iter()
            .find(|(s, _)| *s == self.settings.pipeline.skin)
        {
            self.notes.push(format!(
                "{} cannot run on this adapter: {reason}",
                skin.name()
            ));
            self.settings.pipeline = *self.sim.pipeline.config();
        }
        if self.settings.shadows != self.renderer.shadows() {
            self.renderer.set_shadows(self.settings.shadows);
            self.history.clear();
            self.invalidate_gpu_lod();
        }
        if self.settings.base_colors != self.renderer.base_colors() {
            self.renderer.set_base_colors(self.settings.base_colors);
            self.history.clear();
        }
        if self.settings.indirect_draws != self.renderer.indirect_draws() {
            self.renderer
                .set_indirect_draws(self.settings.indirect_draws);
            // Without the adapter's support the setting cannot take: keep it truthful.
            self.settings.indirect_draws = self.renderer.indirect_draws();
            self.history.clear();
            self.invalidate_gpu_lod();
        }
        if self.settings.draws != self.renderer.draws() {
            self.renderer.set_draws(self.settings.draws);
            self.history.clear();
            self.invalidate_gpu_lod();
        }
        if self.settings.compute_shader != self.renderer.compute_shader() {
            self.renderer
                .set_compute_shader(self.settings.compute_shader);
            self.history.clear();
            self.requests.last_verify = None;
        }
        let wanted = self.settings.pipeline;
        if wanted != *self.sim.pipeline.config() {
            if let Err(e) = self.sim.pipeline.set_config(wanted) {
                self.notes.push(e.to_string());
                self.settings.pipeline = *self.sim.pipeline.config();
            }
            self.history.clear();
            self.requests.last_verify = None;
        }
        if self.settings.simd_level != self.sim.pipeline.simd_level() {
            match self
                .sim
                .pipeline
                .set_simd_level(Some(self.settings.simd_level))
            {
                Ok(()) => {
                    self.history.clear();
                    self.requests.last_verify = None;
                }
                Err(e) => {
                    self.notes.push(e.to_string());
                    self.settings.simd_level = self.sim.pipeline.simd_level();
                }
            }
        }
        // No characters is allowed (a picture of the empty ground); the panel and the
        // command line ask for at least one.
        let max = self.max_instances();
        self.settings.instances = self.settings.instances.min(max);
        if self.settings.instances != self.sim.crowd.len() {
            self.sim.clip_mix.deal(
                &mut self.sim.crowd,
                self.settings.instances,
                self.sim.pipeline.rig(),
            );
            self.history.clear();
        }
        if self.settings.clips != self.sim.clip_mix_for {
            self.apply_clips();
        }
        if (*self.sim.pipeline.config(), self.sim.crowd.len()) != running_before {
            let footprint = self.footprint().total();
            if footprint.saturating_mul(2) < self.footprint_bytes {
                self.trim_after_frames = Some(TRIM_DELAY_FRAMES);
            }
            self.footprint_bytes = footprint;
        }
    }

    /// The memory a replacement of the running configuration may use: what the system has
    /// available plus what the running one holds (freed when it is replaced).
    fn budget_replacing(&self) -> Budget {
        let mut budget = Budget::this_machine(Some(self.renderer.max_skinned_bytes()));
        budget.memory_bytes = budget.memory_bytes.saturating_add(self.footprint().total());
        budget
    }

    /// What the current rig, configuration and crowd hold (the budget's figure).
    fn footprint(&self) -> Footprint {
        Footprint::on(
            self.sim.animated_on,
            self.rig(),
            self.sim.pipeline.config(),
            self.sim.crowd.len(),
            // What the pool held at its start (it may have grown since): what a
            // replacement surely frees.
            self.renderer.skinned_pool().map(|p| p.start()),
        )
    }

    /// The most characters the slider and the command line may ask for where the
    /// animation runs now.
    pub fn instance_cap(&self) -> usize {
        self.settings.animate.spec().max_instances
    }

    /// Switches to another rig: its own renderer (unskinned stream, index buffer), pipeline
    /// and crowd, with the same settings where the new rig accepts them (a hierarchy variant
    /// it refuses becomes the best one that accepts it, as does a skin variant that takes
    /// fewer influences than the rig has, and a skinning method it refuses becomes linear
    /// blending, each with a note). A rig whose crowd would not fit in memory is refused
    /// with the reason, and the scene keeps the rig it had.
    pub fn set_rig(&mut self, rig: Arc<PreparedRig>) -> Result<(), SceneError> {
        let mut config = self.settings.pipeline;
        if config.hierarchy.refusal(&rig).is_some() {
            config.hierarchy =
                crate::crowd::PipelineConfig::best_for(&rig, config.threads).hierarchy;
        }
        let most = rig.max_influences;
        if most > config.skin.spec().max_influences {
            let best = crate::crowd::PipelineConfig::best_for(&rig, config.threads).skin;
            self.notes.push(format!(
                "{} takes {} influences a vertex and {} has {most}; {} instead",
                config.skin.name(),
                config.skin.spec().max_influences,
                rig.name,
                best.name()
            ));
            config.skin = best;
        }
        if let Some(reason) = config.method.rig_refusal(&rig) {
            self.notes.push(format!(
                "{} cannot skin {}: {reason}; linear blending instead",
                config.method.name(),
                rig.name
            ));
            config.method = SkinMethod::Linear;
        }
        let instances = self.settings.instances.clamp(1, self.instance_cap());
        let budget = self.budget_replacing();
        budget::check_on(
            self.sim.animated_on,
            &rig,
            &config,
            instances,
            self.settings.pool().map(PoolSize::least),
            &budget,
        )?;
        let plan = self.settings.pool_plan(&rig, instances, &budget);
        let mut pipeline = Pipeline::new(rig.clone(), config)?;
        pipeline.set_simd_level(Some(self.settings.simd_level))?;
        // The pipelines do not depend on the rig: the new renderer draws with the same.
        let pipelines = self.renderer.pipelines().clone();
        self.renderer = CrowdRenderer::with_pipelines(&self.gpu.device, &rig, pipelines);
        self.renderer
            .set_compute_shader(self.settings.compute_shader);
        self.renderer.set_skinned_pool(plan);
        self.renderer.set_draws(self.settings.draws);
        self.renderer.set_shadows(self.settings.shadows);
        self.renderer
            .set_indirect_draws(self.settings.indirect_draws);
        self.renderer.set_base_colors(self.settings.base_colors);
        self.notes
            .extend(self.renderer.material_notes().iter().cloned());
        self.sim.pipeline = pipeline;
        self.sim.pipeline.set_trace(self.trace.clone());
        self.survey_clips(&rig)?;
        self.sim.crowd = InstanceStore::new();
        self.sim.clip_mix.deal(&mut self.sim.crowd, instances, &rig);
        self.sim.lod.reset();
        self.lod_aside = None;
        self.sim.animator = None;
        self.sim.gpu_lod = None;
        self.sim.lod_motions = MotionSet::new();
        self.refusals = refusals_of(&rig);
        self.rig_skin_refusals = SkinRigRefusals::of(&rig, &self.skin_refusals);
        self.settings.pipeline = config;
        self.settings.instances = instances;
        self.budget_refusal = None;
        self.requests.last_verify = None;
        self.history.clear();
        self.reset_camera();
        self.footprint_bytes = self.footprint().total();
        self.trim_after_frames = Some(TRIM_DELAY_FRAMES);
        Ok(())
    }

    /// The most instances the slider and the command line may ask for: where the CPU
    /// uploads the crowd, as many as one GPU buffer holds the skinned vertices (or
    /// palettes) of; animated on the GPU, the cap alone (its palettes are split per range,
    /// and the budget bounds the crowd by memory).
    pub fn max_instances(&self) -> usize {
        let animate = self.settings.animate;
        match animate {
            AnimateDevice::Gpu if animate.refusal(self.settings.pipeline.skin).is_none() => {
                return self.instance_cap().max(1);
            }
            AnimateDevice::Gpu | AnimateDevice::Cpu => {}
        }
        let layout = self.sim.pipeline.output_layout();
        let max_bytes = self.renderer.max_skinned_bytes();
        let mut n = self
            .instance_cap()
            .min((max_bytes / layout.instance_stride().max(1) as u64) as usize)
            .max(1);
        // Lane blocks round up to whole groups.
        while n > 1 && layout.bytes(n) as u64 > max_bytes {
            n -= 1;
        }
        n
    }

    /// Starts a frame `dt_secs` after the previous one: settings, then the clocks.
    fn begin_frame(&mut self, dt_secs: f32) {
        self.notes.clear();
        self.apply_settings();
        self.sim.frame_clip_secs = if self.settings.paused {
            0.0
        } else {
            dt_secs.min(0.1) * self.settings.speed
        };
        match self.sim.animated_on {
            AnimateDevice::Cpu => {
                if self.sim.frame_clip_secs != 0.0 {
                    self.sim.crowd.advance(self.sim.frame_clip_secs);
                }
            }
            // Nothing per character: the records' times follow from the clock.
            AnimateDevice::Gpu => self.sim.anim_clock_secs += self.sim.frame_clip_secs,
        }
    }

    /// Bytes the last frame copied to the GPU: with the animation on the CPU, of the groups
    /// it updated (every group without LOD), the parts their levels wrote
    /// ([`Uploader::copied`]).
    pub fn uploaded_bytes(&self) -> u64 {
        if self.sim.animated_on == AnimateDevice::Gpu {
            return self.sim.animator.as_ref().map_or(0, |a| a.written_bytes())
                + self.sim.gpu_lod.as_ref().map_or(0, |l| l.written_bytes());
        }
        self.uploader.copied().copied
    }

    /// What the last frame's upload copied, and what copying every vertex of the groups it
    /// updated would take (the same with the animation on the GPU, which uploads no
    /// vertices).
    pub fn upload_bytes(&self) -> crate::gpu::upload::UploadBytes {
        match self.sim.animated_on {
            AnimateDevice::Cpu => self.uploader.copied(),
            AnimateDevice::Gpu => {
                let written = self.uploaded_bytes();
                crate::gpu::upload::UploadBytes {
                    copied: written,
                    every_vertex: written,
                    copies: None,
                }
            }
        }
    }

    /// Plans LOD, runs the CPU pipeline and gets the skinned stream into the GPU buffer
    /// with the chosen upload variant (copies recorded into `encoder`); or, with the
    /// animation on the GPU, writes what its passes read and prepares them.
    fn upload(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(StageTimings, PreparedFrame), SceneError> {
        if self.sim.animated_on == AnimateDevice::Gpu {
            self.sim.cpu_skin_marks.off();
            return self.prepare_gpu_animation();
        }
        let lod_plan_us = {
            profiling::scope!("lod plan");
            let start = Instant::now();
            self.plan_lod();
            self.trace_main("lod plan", start);
            start.elapsed().as_secs_f64() * 1e6
        };
        profiling::scope!("cpu stages and upload");
        let work = CpuWork {
            pipeline: &mut self.sim.pipeline,
            instances: self.sim.crowd.as_slice(),
            runs: self.sim.lod.runs(),
            skin_levels: self.sim.lod.skin_levels(),
        };
        let timings = self.uploader.upload(
            self.settings.upload,
            &self.gpu,
            encoder,
            &mut self.renderer,
            work,
        );
        let mut timings = timings?;
        timings.lod_plan_us = lod_plan_us;
        self.write_cpu_skin_marks();
        if let Some(note) = self.uploader.note() {
            self.notes.push(note.to_string());
        }
        Ok((timings, PreparedFrame::cpu(self.frame_conditions())))
    }

    /// The next frame of the GPU's LOD pass is a full one: after a change that rebuilds
    /// the draws, whose first frame draws every character at full detail, every joint
    /// must be posed.
    fn invalidate_gpu_lod(&mut self) {
        if let Some(gpu_lod) = &mut self.sim.gpu_lod {
            gpu_lod.invalidate();
        }
    }

    /// The camera and instances for this frame, and the draw lists (the crowd pass's
    /// visible characters, the shadow pass's all): what recording the passes needs.
    pub fn prepare_draws(&mut self, viewport: Option<[f32; 4]>) {
        let (width, height) = viewport.map_or(
            (self.targets.width as f32, self.targets.height as f32),
            |v| (v[2], v[3]),
        );
        self.viewport_px = Vec2::new(width, height);
        let aspect = width / height.max(1.0);
        let extent = crowd_extent(&self.sim.crowd);
        let camera = self.camera.uniform(aspect, extent + 12.0);
        let level_colors = self.level_colors();
        self.renderer
            .update(&self.gpu, &camera, &self.sim.crowd, level_colors.as_deref());
        self.renderer.follow_vertex_cuts(
            &self.gpu.device,
            self.sim.pipeline.rig(),
            self.sim.pipeline.output_layout(),
        );
        let rebuilt = self.renderer.prepare_draws(
            &self.gpu,
            FrameShape::new(self.sim.pipeline.output_layout(), self.sim.crowd.len()),
            (self.settings.lod.enabled && self.sim.animated_on == AnimateDevice::Cpu)
                .then(|| self.sim.lod.visible()),
            (self.settings.lod.mesh && self.sim.animated_on == AnimateDevice::Cpu)
                .then(|| self.sim.lod.mesh_levels()),
            self.shadow_mesh_level(extent + 12.0),
        );
        if let Some(gpu_lod) = &mut self.sim.gpu_lod {
            // The slots follow the lists: in a steady frame neither changes.
            if rebuilt || !gpu_lod.has_slots_for(self.sim.crowd.len()) {
                self.renderer
                    .main_count_slots(self.sim.crowd.len(), &mut self.sim.lod_slots);
                let target = self.renderer.lod_draw_target();
                if let Err(e) = gpu_lod.write_slots(
                    &self.gpu.device,
                    &self.gpu.queue,
                    &self.sim.lod_slots,
                    &target,
                ) {
                    // Never for the renderer's own slots; culling stays off rather than
                    // writing a draw argument it does not own.
                    self.notes
                        .push(format!("LOD on the GPU culls nothing this frame: {e}"));
                }
            }
        }
    }

    /// Submits the frame: `encoded.before` (command buffers the caller made, such as
    /// egui's), then its encoder with the timers resolved. `timings` (what
    /// [`Self::upload`] returned) get the encoding time since `encoded.start`, the frame's
    /// duration and the times of the GPU passes `conditions` ran, and go into the
    /// history, which they return.
    fn submit(
        &mut self,
        encoded: Encoded,
        conditions: FrameConditions,
        mut timings: StageTimings,
        frame_us: f64,
        frame_duration: FrameDuration,
    ) -> StageTimings {
        let Encoded {
            mut encoder,
            before,
            start: encode_start,
        } = encoded;
        profiling::scope!("encode and submit");
        self.timers.resolve(&mut encoder);
        let submitting = Instant::now();
        let index = self
            .gpu
            .queue
            .submit(before.into_iter().chain([encoder.finish()]));
        self.in_flight.push_back(index);
        let submitted = Instant::now();
        timings.stage_us[Stage::Render.index()] = (submitted - encode_start).as_secs_f64() * 1e6;
        self.trace_main("encode and submit", encode_start);
        self.end_pass_timers();
        if self.wait_for_gpu_times {
            timings.gpu_frame_us = Some(submitting.elapsed().as_secs_f64() * 1e6);
        }
        if let Some(trace) = &self.trace {
            trace.record_gpu_passes(submitted, self.timers.last_passes());
        }
        timings.gpu_us = self.pass_times(conditions);
        match frame_duration {
            FrameDuration::Given => timings.frame_us = frame_us,
            // Known when the next frame begins (`Scene::frame`).
            FrameDuration::SincePrevious => timings.frame_pending = true,
        }
        self.history.push(timings);
        timings
    }

    /// Waits until fewer than [`MAX_FRAMES_IN_FLIGHT`] frames are unfinished on the GPU.
    fn wait_for_frames_in_flight(&mut self) {
        while self.in_flight.len() >= MAX_FRAMES_IN_FLIGHT {
            let oldest = self.in_flight.pop_front().expect("a frame in flight");
            let _ = self.gpu.device.poll(wgpu::PollType::Wait {
                submission_index: Some(oldest),
                timeout: None,
            });
        }
    }

    /// Frames submitted that the GPU may not have finished (at most
    /// [`MAX_FRAMES_IN_FLIGHT`] once the next frame starts).
    pub fn frames_in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Bytes of staging memory the upload holds now (the `staging_belt` upload's chunks).
    pub fn staging_held_bytes(&self) -> u64 {
        self.uploader.staging_held_bytes()
    }

    /// A new command encoder for a frame.
    fn encoder(&self) -> wgpu::CommandEncoder {
        self.gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            })
    }

    /// Asks for a verify of the next frame submitted (carried out at the end of [`Self::frame`]).
    pub fn request_verify(&mut self) {
        self.requests.verify = true;
    }

    /// Asks for a screenshot of the next frame submitted, into `screenshot_dir`.
    pub fn request_screenshot(&mut self) {
        self.requests.screenshot = true;
    }

    /// After the frame's command buffers were submitted: recycles upload memory and
    /// carries out the pending verify and screenshot (into `screenshot_dir`; the window's
    /// present mode, where there is one, goes into the sidecar).
    fn finish_frame(&mut self, present_mode: Option<&str>) {
        self.uploader.after_submit();
        self.renderer
            .after_submit(&self.gpu.device, self.sim.crowd.len());
        if let Some(gpu_lod) = &mut self.sim.gpu_lod {
            gpu_lod.after_submit(&self.gpu.device);
        }
        self.trim_after_frames = match self.trim_after_frames {
            Some(0) => {
                budget::return_freed_memory();
                None
            }
            Some(n) => Some(n - 1),
            None => None,
        };
        if std::mem::take(&mut self.requests.verify) {
            self.requests.last_verify = Some(self.verify().map_err(|e| e.to_string()));
        }
        let measure_every = self
            .lod_measure_every_secs
            .filter(|_| self.settings.lod.enabled);
        if let Some(every_secs) = measure_every {
            if self
                .lod_measured_at
                .is_none_or(|t| t.elapsed().as_secs_f32() >= every_secs)
            {
                self.lod_error = Some(
                    self.measure_lod_error(Some(LOD_MEASURE_LIMIT))
                        .map_err(|e| e.to_string()),
                );
                self.lod_measured_at = Some(Instant::now());
            }
        } else {
            self.lod_error = None;
            self.lod_measured_at = None;
        }
        if std::mem::take(&mut self.requests.screenshot) {
            let path = self.screenshot_dir.join(format!(
                "{}_{}_{}_{}.png",
                timestamp(),
                self.settings.pipeline.hierarchy.name(),
                self.settings.pipeline.skin.name(),
                self.sim.crowd.len()
            ));
            let result = self
                .save_screenshot(&path, present_mode)
                .map(|p| p.display().to_string())
                .map_err(|e| e.to_string());
            match &result {
                Ok(p) => eprintln!("screenshot saved: {p}"),
                Err(e) => eprintln!("error: screenshot failed: {e}"),
            }
            self.requests.last_screenshot = Some(result);
        }
    }

    /// One whole frame, in the one order every caller gets (the wgpu examples' `render`):
    /// settings and clocks, the CPU pipeline and the uploads (or the GPU's animation), the
    /// caller's extras before the draws (the window's panel), the shadow and crowd passes
    /// into the offscreen targets (unless `frame.draws` is off), the caller's extras after
    /// them (the panel over the crowd, the copy to the surface), the submission with its
    /// timings into the history, the caller's after-submit step (the panel's actions),
    /// then the requests (verify, screenshot, LOD's error measurement). The frame lasts
    /// `frame.dt_secs` (its clips advance by that, at most 0.1 s times the speed, and the
    /// history records it as its duration). Returns what the frame did ([`FrameReport`]).
    pub fn frame(&mut self, mut frame: Frame<'_>) -> Result<FrameReport, SceneError> {
        if frame.duration == FrameDuration::SincePrevious {
            // The time since the previous frame began is that frame's duration: its
            // readings are complete from now on (the panel below shows them).
            self.history.complete_latest(frame.dt_secs as f64 * 1e6);
        }
        self.wait_for_frames_in_flight();
        self.begin_frame(frame.dt_secs);
        let mut encoder = self.encoder();
        let (timings, prepared) = self.upload(&mut encoder)?;
        let mut recorded =
            self.record_passes(&mut encoder, PassKind::Compute, &prepared, None, true)?;
        let encode_start = Instant::now();
        let extras = match frame.extras.as_deref_mut() {
            Some(extras) => extras.before_draws(self, &mut encoder),
            None => BeforeDraws::default(),
        };
        if frame.draws {
            profiling::scope!("encode");
            self.prepare_draws(extras.viewport);
            recorded.extend(self.record_passes(
                &mut encoder,
                PassKind::Draw,
                &prepared,
                extras.viewport,
                true,
            )?);
        }
        // Cheap (a few passes, a few resources each), so every frame holds its passes to
        // their declarations, not only the tests'. A crowd of no one is left out: its
        // animation records no pass (there is no range to pose) and no pass reads a
        // character's data.
        if !self.sim.crowd.is_empty() {
            check_order(&recorded, prepared.conditions()).map_err(SceneError::PassOrder)?;
        }
        if let Some(e) = frame.extras.as_deref_mut() {
            e.after_draws(self, &mut encoder);
        }
        let encoded = Encoded {
            encoder,
            before: extras.command_buffers,
            start: encode_start,
        };
        let timings = self.submit(
            encoded,
            prepared.conditions(),
            timings,
            frame.dt_secs as f64 * 1e6,
            frame.duration,
        );
        if let Some(e) = frame.extras.as_deref_mut() {
            e.after_submit(self);
        }
        self.finish_frame(frame.present_mode);
        let errors = self.gpu.take_errors();
        if !errors.is_empty() {
            return Err(SceneError::Validation(errors));
        }
        Ok(FrameReport {
            timings,
            uploaded_bytes: self.uploaded_bytes(),
            triangles_drawn: self.triangles_drawn(),
            vertices_skinned: self.vertices_skinned(),
            skin_invocations: self.skin_invocations(),
            notes: self.notes.clone(),
        })
    }
}

/// A frame's recorded commands, ready to submit: its encoder, the command buffers the
/// caller made to go before it (egui's), and when its encoding began.
struct Encoded {
    encoder: wgpu::CommandEncoder,
    before: Vec<wgpu::CommandBuffer>,
    start: Instant,
}
