//! The windowed app: winit event loop, one frame per redraw.
//!
//! How it works: each frame advances the instances' clocks, applies any settings the user
//! changed, runs the CPU pipeline and the chosen upload variant (through the same
//! [`Pipeline`] the bench uses), then records three passes into one encoder: the crowd
//! into the offscreen frame (with GPU timestamps when the adapter has them), the egui
//! panel on top, and the blit to the swapchain. A requested screenshot reads the offscreen
//! frame back after submission and writes a PNG with a JSON sidecar of everything shown.
//! Timings go into the shared [`TimingHistory`]: upload and render are measured with the
//! same `Instant` clock as the CPU stages.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use winit::application::ApplicationHandler;
use winit::dpi::{LogicalSize, PhysicalPosition};
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use super::{PanelInfo, Settings, UiAction, panel_ui};
use crate::bench::machine::{Machine, timestamp};
use crate::crowd::verify::{Deviation, verify_frame};
use crate::crowd::{InstanceStore, Pipeline, PipelineConfig, Stage, StageTimings, TimingHistory};
use crate::gpu::renderer::{CameraUniform, read_texture};
use crate::gpu::{
    Blit, CrowdRenderer, FrameTargets, GpuContext, OrbitCamera, Uploader, crowd_extent, crowd_pass,
    save_png,
};
use crate::prepare::PreparedRig;
use crate::variant::Variant;

/// Metres between neighbouring characters.
pub const SPACING: f32 = 1.6;
/// Upper bound of the instance slider.
pub const MAX_INSTANCES: usize = 10_000;

/// How the app was started.
#[derive(Clone, Debug)]
pub struct AppOptions {
    pub settings: Settings,
    /// Run this many frames, then exit (after the screenshot, if any).
    pub frames: Option<u64>,
    /// Save the last frame here (with `frames`), or F12 screenshots go to bench-results.
    pub screenshot: Option<PathBuf>,
    pub window_size: (u32, u32),
}

/// Runs the app until the window closes (or `frames` are done).
pub fn run(rig: Arc<PreparedRig>, options: AppOptions) -> anyhow::Result<()> {
    let event_loop = EventLoop::new().context(
        "cannot open a window (no display?). On a machine without one, run under Xvfb: \
         xvfb-run -a -s \"-screen 0 1600x900x24\" skinbench",
    )?;
    let mut app = App {
        rig,
        options,
        running: None,
        error: None,
    };
    event_loop.run_app(&mut app).context("event loop failed")?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

struct App {
    rig: Arc<PreparedRig>,
    options: AppOptions,
    running: Option<Running>,
    error: Option<anyhow::Error>,
}

struct Running {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    surface_config: wgpu::SurfaceConfiguration,
    present_modes: Vec<wgpu::PresentMode>,
    gpu: GpuContext,
    renderer: CrowdRenderer,
    targets: FrameTargets,
    blit: Blit,
    blit_source: wgpu::BindGroup,
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    profiler: wgpu_profiler::GpuProfiler,
    pipeline: Pipeline,
    crowd: InstanceStore,
    uploader: Uploader,
    settings: Settings,
    camera: OrbitCamera,
    history: TimingHistory,
    machine: Machine,
    last_frame: Instant,
    frames_done: u64,
    dragging: bool,
    cursor: Option<PhysicalPosition<f64>>,
    screenshot_requested: bool,
    last_screenshot: Option<Result<String, String>>,
    last_verify: Option<Result<Deviation, String>>,
    verify_requested: bool,
    notes: Vec<String>,
    last_gpu_render_us: Option<f64>,
    /// The hierarchy variants that refuse this rig, and why (the rig never changes).
    refusals: Vec<(crate::anim::hierarchy::HierarchyVariant, String)>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        match Running::new(event_loop, self.rig.clone(), &self.options) {
            Ok(running) => {
                running.window.request_redraw();
                self.running = Some(running);
            }
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(running) = self.running.as_mut() else {
            return;
        };
        let response = running.egui_state.on_window_event(&running.window, &event);
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => running.resize(size.width, size.height),
            WindowEvent::ScaleFactorChanged { .. } => {
                let size = running.window.inner_size();
                running.resize(size.width, size.height);
            }
            WindowEvent::RedrawRequested => match running.frame(&self.options) {
                Ok(FrameOutcome::Continue) => {}
                Ok(FrameOutcome::Done) => event_loop.exit(),
                Err(e) => {
                    self.error = Some(e);
                    event_loop.exit();
                }
            },
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => {
                running.dragging = state == ElementState::Pressed
                    && !response.consumed
                    && !running.egui_ctx.is_pointer_over_egui();
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let (true, Some(last)) = (running.dragging, running.cursor) {
                    running
                        .camera
                        .orbit((position.x - last.x) as f32, (position.y - last.y) as f32);
                }
                running.cursor = Some(position);
            }
            WindowEvent::MouseWheel { delta, .. } if !running.egui_ctx.is_pointer_over_egui() => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                running.camera.zoom(steps);
            }
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed
                    && !running.egui_ctx.egui_wants_keyboard_input() =>
            {
                match event.logical_key {
                    Key::Named(NamedKey::F12) => running.screenshot_requested = true,
                    Key::Named(NamedKey::Space) => {
                        running.settings.paused = !running.settings.paused
                    }
                    Key::Character(ref c) if c.eq_ignore_ascii_case("r") => running.reset_camera(),
                    Key::Character(ref c) if c.eq_ignore_ascii_case("h") => {
                        running.settings.show_panel = !running.settings.show_panel
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(running) = &self.running {
            running.window.request_redraw();
        }
    }
}

enum FrameOutcome {
    Continue,
    Done,
}

fn choose_present_mode(vsync: bool, available: &[wgpu::PresentMode]) -> wgpu::PresentMode {
    if vsync {
        return wgpu::PresentMode::Fifo;
    }
    [wgpu::PresentMode::Immediate, wgpu::PresentMode::Mailbox]
        .into_iter()
        .find(|m| available.contains(m))
        .unwrap_or(wgpu::PresentMode::Fifo)
}

impl Running {
    fn new(
        event_loop: &ActiveEventLoop,
        rig: Arc<PreparedRig>,
        options: &AppOptions,
    ) -> anyhow::Result<Self> {
        let (width, height) = options.window_size;
        let window = Arc::new(
            event_loop
                .create_window(
                    Window::default_attributes()
                        .with_title(format!("skinbench — {}", rig.name))
                        .with_inner_size(LogicalSize::new(width, height)),
                )
                .context("cannot create the window")?,
        );
        let display = Box::new(event_loop.owned_display_handle());
        let (gpu, surface) = GpuContext::new(Some(display), Some(window.clone()))?;
        let surface = surface.expect("a surface was requested");
        let size = window.inner_size();
        let capabilities = surface.get_capabilities(&gpu.adapter);
        // A UNORM swapchain: the crowd shader and egui both write gamma-encoded colour.
        let format = capabilities
            .formats
            .iter()
            .copied()
            .find(|f| {
                matches!(
                    f,
                    wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Rgba8Unorm
                )
            })
            .or_else(|| capabilities.formats.first().copied())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "the surface supports no texture format on {}",
                    gpu.summary.name
                )
            })?;
        let present_modes = capabilities.present_modes.clone();
        let surface_config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            color_space: Default::default(),
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: choose_present_mode(options.settings.vsync, &present_modes),
            desired_maximum_frame_latency: 2,
            alpha_mode: capabilities
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
        };
        surface.configure(&gpu.device, &surface_config);

        let renderer = CrowdRenderer::new(&gpu.device, &rig, format);
        let targets = FrameTargets::new(
            &gpu.device,
            format,
            surface_config.width,
            surface_config.height,
        );
        let blit = Blit::new(&gpu.device, format);
        let blit_source = blit.bind(&gpu.device, &targets.color_view);
        let egui_ctx = egui::Context::default();
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(gpu.device.limits().max_texture_dimension_2d as usize),
        );
        let egui_renderer =
            egui_wgpu::Renderer::new(&gpu.device, format, egui_wgpu::RendererOptions::default());
        let profiler = wgpu_profiler::GpuProfiler::new(
            &gpu.device,
            wgpu_profiler::GpuProfilerSettings::default(),
        )
        .map_err(|e| anyhow::anyhow!("GPU profiler: {e:?}"))?;

        let settings = options.settings.clone();
        let config = PipelineConfig {
            hierarchy: settings.hierarchy,
            skin: settings.skin,
            schedule: settings.schedule,
            threads: settings.threads,
            blend_weight: settings.blend_weight,
        };
        let pipeline = Pipeline::new(rig.clone(), config)?;
        let mut crowd = InstanceStore::new();
        crowd.resize(settings.instances, &rig, SPACING);
        let camera = OrbitCamera::framing(crowd_extent(&crowd));
        let uploader = Uploader::new(&gpu.device);
        Ok(Running {
            window,
            surface,
            surface_config,
            present_modes,
            renderer,
            targets,
            blit,
            blit_source,
            egui_ctx,
            egui_state,
            egui_renderer,
            profiler,
            pipeline,
            crowd,
            uploader,
            settings,
            camera,
            history: TimingHistory::new(600),
            machine: Machine::detect(),
            last_frame: Instant::now(),
            frames_done: 0,
            dragging: false,
            cursor: None,
            screenshot_requested: false,
            last_screenshot: None,
            last_verify: None,
            verify_requested: false,
            notes: Vec::new(),
            last_gpu_render_us: None,
            refusals: crate::anim::hierarchy::HierarchyVariant::ALL
                .iter()
                .filter_map(|&v| v.refusal(&rig).map(|r| (v, r)))
                .collect(),
            gpu,
        })
    }

    fn reset_camera(&mut self) {
        self.camera = OrbitCamera::framing(crowd_extent(&self.crowd));
    }

    fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return; // minimized: keep the old configuration, skip frames until restored
        }
        self.surface_config.width = width;
        self.surface_config.height = height;
        self.surface
            .configure(&self.gpu.device, &self.surface_config);
        self.targets =
            FrameTargets::new(&self.gpu.device, self.surface_config.format, width, height);
    }

    /// Brings the pipeline, crowd and surface in line with the settings.
    fn apply_settings(&mut self) {
        let wanted = PipelineConfig {
            hierarchy: self.settings.hierarchy,
            skin: self.settings.skin,
            schedule: self.settings.schedule,
            threads: self.settings.threads,
            blend_weight: self.settings.blend_weight,
        };
        if wanted != *self.pipeline.config() {
            let previous = *self.pipeline.config();
            if let Err(e) = self.pipeline.set_config(wanted) {
                self.notes.push(e.to_string());
                self.settings.hierarchy = previous.hierarchy;
                self.settings.skin = previous.skin;
                self.settings.schedule = previous.schedule;
                self.settings.threads = previous.threads;
                self.settings.blend_weight = previous.blend_weight;
            }
            self.history.clear();
            self.last_verify = None;
        }
        let max = self.max_instances();
        self.settings.instances = self.settings.instances.clamp(1, max);
        if self.settings.instances != self.crowd.len() {
            self.crowd
                .resize(self.settings.instances, self.pipeline.rig(), SPACING);
            self.history.clear();
        }
        let mode = choose_present_mode(self.settings.vsync, &self.present_modes);
        if mode != self.surface_config.present_mode {
            self.surface_config.present_mode = mode;
            self.surface
                .configure(&self.gpu.device, &self.surface_config);
        }
    }

    /// The most instances whose skinned vertices fit one GPU buffer.
    fn max_instances(&self) -> usize {
        let stride = self.pipeline.instance_stride().max(1) as u64;
        let max_bytes = self.renderer.max_skinned_bytes();
        let mut n = MAX_INSTANCES.min((max_bytes / stride) as usize).max(1);
        // Lane blocks round up to whole groups.
        while n > 1 && self.pipeline.output_bytes(n) as u64 > max_bytes {
            n -= 1;
        }
        n
    }

    fn frame(&mut self, options: &AppOptions) -> anyhow::Result<FrameOutcome> {
        let size = self.window.inner_size();
        if size.width == 0 || size.height == 0 {
            return Ok(FrameOutcome::Continue);
        }
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame);
        self.last_frame = now;
        self.notes.clear();
        self.apply_settings();
        if !self.settings.paused {
            self.crowd
                .advance(dt.as_secs_f32().min(0.1) * self.settings.speed);
        }

        let surface_texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.resize(size.width, size.height);
                return Ok(FrameOutcome::Continue);
            }
            other => {
                log::warn!("skipping a frame: surface returned {other:?}");
                return Ok(FrameOutcome::Continue);
            }
        };

        // Cheap handle clones, so `self` stays free for the mutable calls below.
        let (device, queue) = (&self.gpu.device.clone(), &self.gpu.queue.clone());
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("frame"),
        });
        let mut timings = self.uploader.frame(
            self.settings.upload,
            device,
            queue,
            &mut encoder,
            &mut self.renderer,
            &mut self.pipeline,
            self.crowd.as_slice(),
        )?;
        if let Some(note) = &self.uploader.note {
            self.notes.push(note.clone());
        }
        if self.verify_requested {
            self.verify_requested = false;
            self.last_verify = Some(self.verify());
        }

        // The panel (built from the timings of previous frames).
        let encode_start = Instant::now();
        let raw_input = self.egui_state.take_egui_input(&self.window);
        let mut actions = Vec::new();
        let rig = self.pipeline.rig().clone();
        let info = PanelInfo {
            adapter: &self.gpu.summary,
            cpu: &self.machine.cpu,
            cores: self.machine.cores,
            simd: &self.machine.simd,
            rig_name: &rig.name,
            rig_line: format!(
                "{} joints, {} vertices, {} triangles",
                rig.joint_count(),
                rig.vertex_count(),
                rig.summary.triangles
            ),
            max_instances: self.max_instances(),
            refusals: &self.refusals,
            memory: self.pipeline.memory_report(),
            verify: self.last_verify.as_ref(),
            screenshot: self.last_screenshot.as_ref(),
            notes: &self.notes,
            present_mode: format!("{:?}", self.surface_config.present_mode),
        };
        let show_panel = self.settings.show_panel;
        let settings = &mut self.settings;
        let history = &mut self.history;
        let mut panel_left: Option<f32> = None;
        let full_output = self.egui_ctx.run_ui(raw_input, |ui| {
            if show_panel {
                let panel = egui::Panel::right("panel")
                    .resizable(true)
                    .default_size(440.0)
                    .show(ui, |ui| actions = panel_ui(ui, settings, &info, history));
                panel_left = Some(panel.response.rect.left());
            }
        });
        self.egui_state
            .handle_platform_output(&self.window, full_output.platform_output);
        let pixels_per_point = full_output.pixels_per_point;
        let paint_jobs = self
            .egui_ctx
            .tessellate(full_output.shapes, pixels_per_point);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.surface_config.width, self.surface_config.height],
            pixels_per_point,
        };
        for (id, deltas) in &full_output.textures_delta.set {
            for delta in deltas {
                self.egui_renderer.update_texture(device, queue, *id, delta);
            }
        }
        let egui_commands =
            self.egui_renderer
                .update_buffers(device, queue, &mut encoder, &paint_jobs, &screen);

        // The crowd, left of the panel, with GPU timestamps around its pass.
        let full_width = self.surface_config.width as f32;
        let view_width = panel_left.map_or(full_width, |x| {
            (x * pixels_per_point).clamp(1.0, full_width)
        });
        let viewport = [0.0, 0.0, view_width, self.surface_config.height as f32];
        let aspect = view_width / self.surface_config.height.max(1) as f32;
        let extent = crowd_extent(&self.crowd);
        let camera: CameraUniform = self.camera.uniform(aspect, extent + 12.0);
        self.renderer
            .update(device, queue, &camera, self.crowd.as_slice());
        let query = self.profiler.begin_pass_query("render", &mut encoder);
        crowd_pass(
            &mut encoder,
            &self.targets,
            &self.renderer,
            self.pipeline.config(),
            self.crowd.len(),
            Some(viewport),
            query.render_pass_timestamp_writes(),
        );
        self.profiler.end_query(&mut encoder, query);
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &self.targets.color_view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Load,
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    ..Default::default()
                })
                .forget_lifetime();
            self.egui_renderer.render(&mut pass, &paint_jobs, &screen);
        }
        let surface_view = surface_texture.texture.create_view(&Default::default());
        self.blit
            .draw(&mut encoder, &self.blit_source, &surface_view);
        self.profiler.resolve_queries(&mut encoder);
        queue.submit(egui_commands.into_iter().chain([encoder.finish()]));
        self.uploader.after_submit();
        timings.stage_us[Stage::Render.index()] = encode_start.elapsed().as_secs_f64() * 1e6;
        for id in &full_output.textures_delta.free {
            self.egui_renderer.free_texture(id);
        }

        // Screenshot of the frame just rendered (panel included).
        self.frames_done += 1;
        let last_frame = options.frames.is_some_and(|n| self.frames_done >= n);
        for action in actions {
            match action {
                UiAction::Screenshot => self.screenshot_requested = true,
                UiAction::Verify => self.verify_requested = true,
                UiAction::ResetCamera => self.reset_camera(),
            }
        }
        if self.screenshot_requested || (last_frame && options.screenshot.is_some()) {
            self.screenshot_requested = false;
            let path = match (&options.screenshot, last_frame) {
                (Some(path), true) => path.clone(),
                _ => PathBuf::from("bench-results/screenshots").join(format!(
                    "{}_{}_{}_{}.png",
                    timestamp(),
                    self.settings.hierarchy.name(),
                    self.settings.skin.name(),
                    self.crowd.len()
                )),
            };
            let result = self.save_screenshot(&path);
            match &result {
                Ok(p) => eprintln!("screenshot saved: {p}"),
                Err(e) => eprintln!("error: screenshot failed: {e}"),
            }
            if last_frame && let Err(e) = &result {
                anyhow::bail!("{e}");
            }
            self.last_screenshot = Some(result);
        }

        self.window.pre_present_notify();
        queue.present(surface_texture);
        if let Err(e) = self.profiler.end_frame() {
            log::warn!("GPU profiler: {e:?}");
        }
        if let Some(results) = self
            .profiler
            .process_finished_frame(queue.get_timestamp_period())
        {
            self.last_gpu_render_us = results
                .iter()
                .find(|r| r.label == "render")
                .and_then(|r| r.time.as_ref())
                .map(|t| (t.end - t.start) * 1e6);
        }
        timings.gpu_render_us = self.last_gpu_render_us;
        timings.frame_us = dt.as_secs_f64() * 1e6;
        self.history.push(timings);
        Ok(if last_frame {
            FrameOutcome::Done
        } else {
            FrameOutcome::Continue
        })
    }

    fn verify(&mut self) -> Result<Deviation, String> {
        // A fresh frame of the current configuration into CPU memory (the GPU copy is
        // write-only), compared with the f64 reference.
        let bytes = self.pipeline.output_bytes(self.crowd.len());
        let mut out = vec![glam::Vec4::ZERO; bytes.div_ceil(16)];
        self.pipeline
            .run_frame(self.crowd.as_slice(), bytemuck::cast_slice_mut(&mut out))
            .map_err(|e| e.to_string())?;
        Ok(verify_frame(
            &self.pipeline,
            self.crowd.as_slice(),
            bytemuck::cast_slice(&out),
            16,
        ))
    }

    fn save_screenshot(&self, path: &std::path::Path) -> Result<String, String> {
        let image = read_texture(&self.gpu.device, &self.gpu.queue, &self.targets.color)?;
        save_png(&image, path)?;
        let sidecar = path.with_extension("json");
        let json = serde_json::to_string_pretty(&self.sidecar(image.width(), image.height()))
            .map_err(|e| e.to_string())?;
        std::fs::write(&sidecar, json)
            .map_err(|e| format!("cannot write {}: {e}", sidecar.display()))?;
        Ok(path.display().to_string())
    }

    fn sidecar(&self, width: u32, height: u32) -> serde_json::Value {
        let mut history = self.history.clone();
        // The panel's window (last second) and, for slow frames, every frame but the first
        // three (warm-up).
        let summarize = |history: &mut TimingHistory, window: Option<Duration>, skip: usize| {
            let mut h = TimingHistory::new(history.len().max(1));
            for t in history.iter().skip(skip) {
                h.push(*t);
            }
            let mut stages = serde_json::Map::new();
            for stage in Stage::ALL {
                let s = h.stats(window, |t: &StageTimings| t.get(stage));
                stages.insert(
                    stage.name().into(),
                    serde_json::json!({ "mean_us": s.mean, "p95_us": s.p95, "median_us": s.median }),
                );
            }
            let gpu = h.stats(window, |t| t.gpu_render_us.unwrap_or(0.0));
            let frame = h.stats(window, |t| t.frame_us);
            serde_json::json!({
                "frames": frame.count,
                "frame_mean_us": frame.mean,
                "fps": if frame.mean > 0.0 { 1e6 / frame.mean } else { 0.0 },
                "stages": stages,
                "gpu_render_mean_us": if self.gpu.summary.timestamps { Some(gpu.mean) } else { None },
            })
        };
        let last_second = summarize(&mut history, Some(Duration::from_secs(1)), 0);
        let all_frames = summarize(&mut history, None, 3);
        let rig = self.pipeline.rig();
        serde_json::json!({
            "timestamp": timestamp(),
            "settings": self.settings,
            "config": self.pipeline.config(),
            "instances": self.crowd.len(),
            "window": { "width": width, "height": height },
            "present_mode": format!("{:?}", self.surface_config.present_mode),
            "adapter": self.gpu.summary,
            "machine": self.machine,
            "rig": { "name": rig.name, "joints": rig.joint_count(), "vertices": rig.vertex_count(), "triangles": rig.summary.triangles },
            "timings_last_second": last_second,
            "timings_after_warmup": all_frames,
            "memory_per_instance": self.pipeline.memory_report(),
            "verify": self.last_verify.as_ref().map(|v| v.as_ref().map_err(|e| e.clone()).ok()),
        })
    }
}
