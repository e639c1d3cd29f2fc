//! The windowed app: winit event loop, one frame per redraw.
//!
//! How it works: the app is four parts. `WindowSurface` owns the window, its swapchain
//! and the blit; `EguiLayer` turns window events into egui input and paints the panel;
//! the [`Scene`] (shared with the headless panel tests) runs the pipeline, the upload and
//! the crowd pass and carries out the panel's requests; `PointerInput` turns drags and
//! wheel steps into camera moves. Each frame: the scene starts the frame and uploads, the
//! panel is built from the timings of previous frames, the crowd is drawn into the
//! offscreen frame (with GPU timestamps when the adapter has them), the panel on top, the
//! blit to the swapchain; after submission the scene verifies or saves what was asked.
//! Timings go into the shared [`TimingHistory`](crate::crowd::TimingHistory): upload and
//! render are measured with the same `Instant` clock as the CPU stages.

use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::dpi::PhysicalPosition;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::WindowId;

use super::loading::{Loading, LoadingOutcome, Measuring};
use super::soak::Soak;
pub use super::window::{AppError, AppOptions};
use super::window::{EguiLayer, WindowSurface, choose_present_mode, display_reason};
use crate::gpu::scene::{BeforeDraws, Frame, FrameExtras, Scene};
use crate::prepare::PreparedRig;

pub use crate::gpu::scene::MAX_INSTANCES;

/// Runs the app until the window closes (or `frames` are done).
pub fn run(rig: Arc<PreparedRig>, options: AppOptions) -> Result<(), AppError> {
    let event_loop = EventLoop::new().map_err(|e| AppError::NoDisplay(display_reason(&e)))?;
    let mut app = App {
        rig,
        options,
        loading: None,
        running: None,
        error: None,
    };
    event_loop.run_app(&mut app).map_err(AppError::EventLoop)?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

struct App {
    rig: Arc<PreparedRig>,
    options: AppOptions,
    /// The window while the scene is made (a progress line), then ...
    loading: Option<Loading>,
    /// ... the window and its scene.
    running: Option<Running>,
    error: Option<AppError>,
}

/// Mouse state for orbiting the camera.
#[derive(Default)]
struct PointerInput {
    dragging: bool,
    cursor: Option<PhysicalPosition<f64>>,
}

struct Running {
    surface: WindowSurface,
    egui: EguiLayer,
    scene: Scene,
    pointer: PointerInput,
    last_frame: Instant,
    frames_done: u64,
    soak: Option<Soak>,
    /// The level errors a setting now reads, measured on a thread while the window shows
    /// the progress (`None`: not measuring).
    measuring: Option<Measuring>,
    /// Where level measurements are kept between runs (`None`: `--no-cache`).
    level_cache: Option<crate::prepare::cache::MeasureCache>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() || self.loading.is_some() {
            return;
        }
        match Loading::start(event_loop, self.rig.clone(), &self.options) {
            Ok(loading) => {
                loading.surface.window.request_redraw();
                self.loading = Some(loading);
            }
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if let Some(loading) = self.loading.as_mut() {
            match loading.window_event(event) {
                LoadingOutcome::Waiting => {}
                LoadingOutcome::Quit => event_loop.exit(),
                LoadingOutcome::Loaded(scene) => {
                    let loading = self.loading.take().expect("loading");
                    match Running::new(loading, *scene, &self.options) {
                        Ok(running) => {
                            running.surface.window.request_redraw();
                            self.running = Some(running);
                        }
                        Err(e) => {
                            self.error = Some(e);
                            event_loop.exit();
                        }
                    }
                }
                LoadingOutcome::Failed(e) => {
                    self.error = Some(e);
                    event_loop.exit();
                }
            }
            return;
        }
        let Some(running) = self.running.as_mut() else {
            return;
        };
        let response = running
            .egui
            .state
            .on_window_event(&running.surface.window, &event);
        let over_egui = running.egui.ctx.is_pointer_over_egui();
        let scene = &mut running.scene;
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => running.resize(size.width, size.height),
            WindowEvent::ScaleFactorChanged { .. } => {
                let size = running.surface.window.inner_size();
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
                running.pointer.dragging =
                    state == ElementState::Pressed && !response.consumed && !over_egui;
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let (true, Some(last)) = (running.pointer.dragging, running.pointer.cursor) {
                    scene
                        .camera_mut()
                        .orbit((position.x - last.x) as f32, (position.y - last.y) as f32);
                }
                running.pointer.cursor = Some(position);
            }
            WindowEvent::MouseWheel { delta, .. } if !over_egui => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                scene.camera_mut().zoom(steps);
            }
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed
                    && !running.egui.ctx.egui_wants_keyboard_input() =>
            {
                match event.logical_key {
                    Key::Named(NamedKey::Escape) => event_loop.exit(),
                    Key::Named(NamedKey::F12) => scene.request_screenshot(),
                    Key::Named(NamedKey::Space) => {
                        scene.settings_mut().paused = !scene.settings().paused
                    }
                    Key::Character(ref c) if c.eq_ignore_ascii_case("r") => scene.reset_camera(),
                    Key::Character(ref c) if c.eq_ignore_ascii_case("h") => {
                        scene.settings_mut().show_panel = !scene.settings().show_panel
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if let Some(running) = &self.running {
            // While measuring, a few paints a second, as while loading.
            match &running.measuring {
                Some(measuring) if Instant::now() < measuring.next_paint() => {
                    event_loop.set_control_flow(ControlFlow::WaitUntil(measuring.next_paint()));
                }
                Some(_) | None => {
                    event_loop.set_control_flow(ControlFlow::Wait);
                    running.surface.window.request_redraw();
                }
            }
        }
        // A few paints a second: the loading thread needs the cores (a software renderer
        // paints on them too).
        if let Some(loading) = &self.loading {
            let next = loading.next_paint();
            if Instant::now() >= next {
                loading.surface.window.request_redraw();
            } else {
                event_loop.set_control_flow(ControlFlow::WaitUntil(next));
            }
        }
    }
}

enum FrameOutcome {
    Continue,
    Done,
}

impl Running {
    /// The window the scene was loaded in, now drawing it.
    fn new(loading: Loading, mut scene: Scene, options: &AppOptions) -> Result<Self, AppError> {
        let (mut surface, egui) = loading.into_window();
        if let Some(time_secs) = options.clip_time_secs {
            scene.set_all_times(time_secs);
        }
        scene.set_camera(options.camera);
        // The window may have been resized while the scene loaded.
        let size = surface.window.inner_size();
        let configured = (surface.config.width, surface.config.height);
        if size.width > 0 && size.height > 0 && (size.width, size.height) != configured {
            surface.config.width = size.width;
            surface.config.height = size.height;
            surface.reconfigure(&scene.gpu().device);
            scene.resize(size.width, size.height);
        }
        surface.bind_source(&scene.gpu().device, &scene.targets().color_view);
        let soak = options.soak.clone().map(|plan| Soak::start(plan, &scene));
        if options.profiler {
            let status = super::profiler::start();
            match &status {
                Ok(s) => eprintln!("{s}"),
                Err(e) => eprintln!("error: --profiler: {e}"),
            }
            scene.set_last_profiler(status.map_err(|e| e.to_string()));
        }
        Ok(Running {
            surface,
            egui,
            scene,
            pointer: PointerInput::default(),
            last_frame: Instant::now(),
            frames_done: 0,
            soak,
            measuring: None,
            level_cache: options.level_cache.clone(),
        })
    }

    fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return; // minimized: keep the old configuration, skip frames until restored
        }
        self.surface.config.width = width;
        self.surface.config.height = height;
        self.surface.reconfigure(&self.scene.gpu().device);
        self.scene.resize(width, height);
        self.surface
            .bind_source(&self.scene.gpu().device, &self.scene.targets().color_view);
    }

    /// The present mode follows the vsync setting.
    fn apply_present_mode(&mut self) {
        let mode = choose_present_mode(self.scene.settings().vsync, &self.surface.present_modes);
        if mode != self.surface.config.present_mode {
            self.surface.config.present_mode = mode;
            self.surface.reconfigure(&self.scene.gpu().device);
        }
    }

    fn frame(&mut self, options: &AppOptions) -> Result<FrameOutcome, AppError> {
        let size = self.surface.window.inner_size();
        if size.width == 0 || size.height == 0 {
            return Ok(FrameOutcome::Continue);
        }
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame);
        self.last_frame = now;
        // While the level errors are measured no frame runs: the soak's changes wait too.
        if let (Some(soak), None) = (&mut self.soak, &self.measuring) {
            let rig_before = Arc::as_ptr(self.scene.rig());
            soak.before_frame(&mut self.scene);
            if Arc::as_ptr(self.scene.rig()) != rig_before {
                self.surface
                    .window
                    .set_title(&format!("skinbench — {}", self.scene.rig().name));
            }
        }
        self.apply_present_mode();
        if self.measure_first()? {
            return Ok(FrameOutcome::Continue);
        }

        let surface_texture = match self.surface.surface.get_current_texture() {
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
        let surface_view = surface_texture.texture.create_view(&Default::default());
        let present_mode = self.surface.present_mode_name();
        let mut window = WindowFrame {
            egui: &mut self.egui,
            surface: &self.surface,
            surface_view: &surface_view,
            present_mode: &present_mode,
            actions: Vec::new(),
            paint: None,
        };
        self.scene.frame(Frame {
            dt_secs: dt.as_secs_f32(),
            duration: crate::gpu::scene::FrameDuration::SincePrevious,
            draws: true,
            present_mode: Some(&present_mode),
            extras: Some(&mut window),
        })?;
        if let Some(paint) = window.paint.take() {
            for id in &paint.textures_delta.free {
                self.egui.renderer.free_texture(id);
            }
        }
        self.frames_done += 1;
        let last_frame = options.frames.is_some_and(|n| self.frames_done >= n);
        if last_frame {
            self.last_frame_checks(options, &present_mode)?;
        }
        self.surface.window.pre_present_notify();
        self.scene.gpu().queue.present(surface_texture);
        profiling::finish_frame!();
        if let Some(soak) = &mut self.soak {
            soak.after_frame(&mut self.scene);
            if soak.is_done() {
                eprint!("{}", soak.report.to_text());
                return match soak.report.failure() {
                    Some(failure) => Err(AppError::Soak(failure.to_string())),
                    None => Ok(FrameOutcome::Done),
                };
            }
        }
        Ok(if last_frame {
            FrameOutcome::Done
        } else {
            FrameOutcome::Continue
        })
    }

    /// Whether the frame waits for the level errors a setting now reads: measured on a
    /// thread while the window paints the progress, so the window never freezes for them.
    /// Each paint counts as a frame's time (`last_frame`), so the animation does not jump
    /// by the time spent measuring.
    fn measure_first(&mut self) -> Result<bool, AppError> {
        if self.measuring.is_none() && self.scene.level_errors_pending() {
            self.measuring = Some(Measuring::start(
                self.scene.rig().clone(),
                self.level_cache.clone(),
            )?);
        }
        let Some(measuring) = &mut self.measuring else {
            return Ok(false);
        };
        if measuring.finished() {
            self.measuring = None;
            return Ok(false);
        }
        let gpu = self.scene.gpu();
        measuring.paint(&mut self.surface, &mut self.egui, (&gpu.device, &gpu.queue));
        Ok(true)
    }

    /// `--verify` and `--screenshot` after the last of `--frames`.
    fn last_frame_checks(
        &mut self,
        options: &AppOptions,
        present_mode: &str,
    ) -> Result<(), AppError> {
        // The screenshot is taken whatever verify found (its sidecar says what that was).
        let verdict = if options.verify {
            match self.scene.verify() {
                Ok(d) => {
                    eprint!("verify of the last frame:\n{}", d.to_text());
                    let within = d.within_tolerance();
                    self.scene.set_last_verify(Ok(d));
                    if within {
                        Ok(())
                    } else {
                        Err(AppError::BeyondTolerance)
                    }
                }
                Err(e) => {
                    self.scene.set_last_verify(Err(e.to_string()));
                    Err(AppError::Verify(e))
                }
            }
        } else {
            Ok(())
        };
        if let Some(path) = &options.screenshot {
            let saved = self
                .scene
                .save_screenshot(path, Some(present_mode))
                .map_err(AppError::Screenshot)?;
            eprintln!("screenshot saved: {}", saved.display());
            self.scene
                .set_last_screenshot(Ok(saved.display().to_string()));
        }
        verdict
    }
}

/// The window's part of a frame: the panel, built before the crowd is drawn (from the
/// timings of earlier frames) and painted over it, then the offscreen frame copied to the
/// surface; the panel's actions are carried out once the frame is submitted.
struct WindowFrame<'a> {
    egui: &'a mut EguiLayer,
    surface: &'a WindowSurface,
    surface_view: &'a wgpu::TextureView,
    present_mode: &'a str,
    actions: Vec<super::UiAction>,
    paint: Option<PanelPaint>,
}

/// The panel's shapes, tessellated, and the textures it changed.
struct PanelPaint {
    jobs: Vec<egui::ClippedPrimitive>,
    screen: egui_wgpu::ScreenDescriptor,
    textures_delta: egui::TexturesDelta,
}

impl FrameExtras for WindowFrame<'_> {
    fn before_draws(
        &mut self,
        scene: &mut Scene,
        encoder: &mut wgpu::CommandEncoder,
    ) -> BeforeDraws {
        let raw_input = self.egui.state.take_egui_input(&self.surface.window);
        let show_panel = scene.settings().show_panel;
        if !show_panel {
            // Nothing drawn, nothing for a screenshot's sidecar to claim was shown.
            scene.forget_shown();
        }
        let mut panel_left: Option<f32> = None;
        let mut actions = Vec::new();
        let full_output = self.egui.ctx.run_ui(raw_input, |ui| {
            if show_panel {
                let (asked, left) = super::side_panel_ui(ui, scene, self.present_mode);
                actions = asked;
                panel_left = Some(left);
            }
        });
        self.actions = actions;
        self.egui
            .state
            .handle_platform_output(&self.surface.window, full_output.platform_output);
        let pixels_per_point = full_output.pixels_per_point;
        let jobs = self
            .egui
            .ctx
            .tessellate(full_output.shapes, pixels_per_point);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.surface.config.width, self.surface.config.height],
            pixels_per_point,
        };
        let (device, queue) = (&scene.gpu().device, &scene.gpu().queue);
        for (id, deltas) in &full_output.textures_delta.set {
            for delta in deltas {
                self.egui.renderer.update_texture(device, queue, *id, delta);
            }
        }
        let command_buffers = self
            .egui
            .renderer
            .update_buffers(device, queue, encoder, &jobs, &screen);
        // The crowd, left of the panel.
        let full_width = self.surface.config.width as f32;
        let view_width = panel_left.map_or(full_width, |x| {
            (x * pixels_per_point).clamp(1.0, full_width)
        });
        self.paint = Some(PanelPaint {
            jobs,
            screen,
            textures_delta: full_output.textures_delta,
        });
        BeforeDraws {
            viewport: Some([0.0, 0.0, view_width, self.surface.config.height as f32]),
            command_buffers,
        }
    }

    fn after_draws(&mut self, scene: &Scene, encoder: &mut wgpu::CommandEncoder) {
        if let Some(paint) = &self.paint {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &scene.targets().color_view,
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
            self.egui
                .renderer
                .render(&mut pass, &paint.jobs, &paint.screen);
        }
        self.surface.blit_into(encoder, self.surface_view);
    }

    fn after_submit(&mut self, scene: &mut Scene) {
        super::apply_actions(scene, &self.actions);
    }
}
