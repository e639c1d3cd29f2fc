//! The window while a character loads: a progress line in the window and on the terminal.
//!
//! How it works: the window, its GPU context and egui are made at once, so something is on
//! screen within a moment; the scene is then made on a thread of its own
//! ([`crate::gpu::scene::load_scene`]: the mesh's LOD levels and their errors, the GPU
//! buffers, the clips' motions), writing each step into a shared progress. Each redraw the
//! window paints that progress with egui straight onto the swapchain; the terminal shows it
//! as an indicatif bar (where stderr is a terminal) and, once loaded, one line of what each
//! step took. When the thread is done, the window and the scene go on together as the app.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use egui::RichText;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::ActiveEventLoop;
use winit::keyboard::{Key, NamedKey};

use super::window::{AppError, AppOptions, EguiLayer, WindowSurface};
use crate::gpu::scene::{LoadProgress, LoadStatus, Scene, SceneError, load_scene};
use crate::prepare::PreparedRig;

/// The window while its scene is made.
pub(super) struct Loading {
    pub(super) surface: WindowSurface,
    egui: EguiLayer,
    device: wgpu::Device,
    queue: wgpu::Queue,
    progress: LoadProgress,
    worker: Option<JoinHandle<Result<Scene, SceneError>>>,
    rig_name: String,
    terminal: indicatif::ProgressBar,
    last_paint: Option<Instant>,
}

/// The time between two paints of the progress.
const PAINT_EVERY: Duration = Duration::from_millis(100);

/// What a window event did to a load.
pub(super) enum LoadingOutcome {
    Waiting,
    /// The window was closed (or Escape pressed) before the scene was ready.
    Quit,
    Loaded(Box<Scene>),
    Failed(AppError),
}

/// Steps of the terminal's bar: a load is shown in thousandths.
const BAR_STEPS: u64 = 1000;

impl Loading {
    /// Opens the window and starts making `rig`'s scene.
    pub(super) fn start(
        event_loop: &ActiveEventLoop,
        rig: Arc<PreparedRig>,
        options: &AppOptions,
    ) -> Result<Self, AppError> {
        let (surface, gpu) = WindowSurface::new(event_loop, &rig.name, options)?;
        let egui = EguiLayer::new(&surface.window, &gpu, surface.config.format);
        let (device, queue) = (gpu.device.clone(), gpu.queue.clone());
        let progress = LoadProgress::new();
        let terminal = indicatif::ProgressBar::new(BAR_STEPS).with_style(
            indicatif::ProgressStyle::with_template("{prefix} [{bar:30}] {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        terminal.set_prefix(format!("loading {}", rig.name));
        let bar = terminal.clone();
        progress.observe(move |status: &LoadStatus| {
            bar.set_position((status.fraction() * BAR_STEPS as f32) as u64);
            bar.set_message(status.line());
        });
        let rig_name = rig.name.clone();
        let (format, size) = (
            surface.config.format,
            (surface.config.width, surface.config.height),
        );
        let settings = options.settings.clone();
        let shared = progress.clone();
        let worker = std::thread::Builder::new()
            .name("skinbench load".into())
            .spawn(move || load_scene(gpu, rig, settings, format, size, &shared))
            .map_err(|e| AppError::Load(format!("cannot start the loading thread: {e}")))?;
        Ok(Loading {
            surface,
            egui,
            device,
            queue,
            progress,
            worker: Some(worker),
            rig_name,
            terminal,
            last_paint: None,
        })
    }

    /// When the progress is to be painted next.
    pub(super) fn next_paint(&self) -> Instant {
        self.last_paint
            .map_or_else(Instant::now, |last| last + PAINT_EVERY)
    }

    /// The window and egui, for the app that goes on with them.
    pub(super) fn into_window(self) -> (WindowSurface, EguiLayer) {
        (self.surface, self.egui)
    }

    pub(super) fn window_event(&mut self, event: WindowEvent) -> LoadingOutcome {
        let _ = self
            .egui
            .state
            .on_window_event(&self.surface.window, &event);
        match event {
            WindowEvent::CloseRequested => LoadingOutcome::Quit,
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed
                    && event.logical_key == Key::Named(NamedKey::Escape) =>
            {
                LoadingOutcome::Quit
            }
            WindowEvent::Resized(size) if size.width > 0 && size.height > 0 => {
                self.surface.config.width = size.width;
                self.surface.config.height = size.height;
                self.surface.reconfigure(&self.device);
                LoadingOutcome::Waiting
            }
            WindowEvent::RedrawRequested => {
                if self.worker.as_ref().is_some_and(JoinHandle::is_finished) {
                    return self.finish();
                }
                self.paint();
                LoadingOutcome::Waiting
            }
            _ => LoadingOutcome::Waiting,
        }
    }

    /// The scene the thread made, or why it could not; the terminal's bar gives way to a
    /// line of what each step took.
    fn finish(&mut self) -> LoadingOutcome {
        self.terminal.finish_and_clear();
        let Some(worker) = self.worker.take() else {
            return LoadingOutcome::Waiting;
        };
        match worker.join() {
            Ok(Ok(scene)) => {
                eprintln!(
                    "loaded {} in {}",
                    self.rig_name,
                    self.progress.status().summary()
                );
                LoadingOutcome::Loaded(Box::new(scene))
            }
            Ok(Err(e)) => LoadingOutcome::Failed(AppError::Scene(e)),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }

    /// The progress, painted by egui onto the swapchain.
    fn paint(&mut self) {
        self.last_paint = Some(Instant::now());
        let surface_texture = match self.surface.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.reconfigure(&self.device);
                return;
            }
            other => {
                log::warn!("skipping a loading frame: surface returned {other:?}");
                return;
            }
        };
        let view = surface_texture.texture.create_view(&Default::default());
        let status = self.progress.status();
        let raw_input = self.egui.state.take_egui_input(&self.surface.window);
        let name = &self.rig_name;
        let full_output = self.egui.ctx.run_ui(raw_input, |ui| {
            egui::CentralPanel::default().show(ui, |ui| {
                ui.vertical_centered(|ui| {
                    ui.add_space(ui.available_height() * 0.4);
                    ui.heading(format!("loading {name}"));
                    ui.label(status.line());
                    ui.add(
                        egui::ProgressBar::new(status.fraction())
                            .desired_width(360.0)
                            .show_percentage(),
                    );
                    for (step, took) in &status.finished {
                        ui.label(
                            RichText::new(format!("{}: {:.2} s", step.name(), took.as_secs_f64()))
                                .small()
                                .weak(),
                        );
                    }
                });
            });
        });
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
        for (id, deltas) in &full_output.textures_delta.set {
            for delta in deltas {
                self.egui
                    .renderer
                    .update_texture(&self.device, &self.queue, *id, delta);
            }
        }
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("loading"),
            });
        let mut command_buffers = self.egui.renderer.update_buffers(
            &self.device,
            &self.queue,
            &mut encoder,
            &jobs,
            &screen,
        );
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("loading egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    ..Default::default()
                })
                .forget_lifetime();
            self.egui.renderer.render(&mut pass, &jobs, &screen);
        }
        command_buffers.push(encoder.finish());
        self.queue.submit(command_buffers);
        self.surface.window.pre_present_notify();
        self.queue.present(surface_texture);
        for id in &full_output.textures_delta.free {
            self.egui.renderer.free_texture(id);
        }
    }
}
