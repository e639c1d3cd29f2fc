//! The window while a character loads: a progress line in the window and on the terminal.
//!
//! How it works: the window, its GPU context and egui are made at once, so something is on
//! screen within a moment; the scene is then made on a thread of its own
//! ([`crate::gpu::scene::load_scene`]: the mesh's LOD levels and their errors, the GPU
//! buffers, the clips' motions), writing each step into a shared progress. Each redraw the
//! window paints that progress with egui straight onto the swapchain; the terminal shows it
//! as an indicatif bar (where stderr is a terminal) and, once loaded, one line of what each
//! step took. When the thread is done, the window and the scene go on together as the app.
//! The running app does the same for the level errors a setting asks for later
//! ([`Measuring`]): geometric LOD ticked, or the animation moved to the GPU.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use egui::RichText;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::ActiveEventLoop;
use winit::keyboard::{Key, NamedKey};

use super::window::{AppError, AppOptions, EguiLayer, WindowSurface};
use crate::gpu::scene::{
    LoadProgress, LoadStatus, Scene, SceneError, load_scene, measure_level_errors,
};
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

/// The time between two paints of the progress: a software renderer paints the window on
/// the cores the measurement needs (on 2 cores, 10 paints a second of a 1600×900 window
/// took most of one core from a load).
const PAINT_EVERY: Duration = Duration::from_millis(400);

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
        // A bar redraws one line, and only on a terminal: a redirected run gets a line
        // per step instead, so its log says what a long load is doing.
        let lines = !std::io::IsTerminal::is_terminal(&std::io::stderr());
        let last_step = std::sync::Mutex::new(None);
        let name = rig.name.clone();
        progress.observe(move |status: &LoadStatus| {
            bar.set_position((status.fraction() * BAR_STEPS as f32) as u64);
            bar.set_message(status.line());
            if lines && status.step.is_some() {
                let mut last = last_step.lock().unwrap_or_else(|e| e.into_inner());
                if *last != status.step {
                    *last = status.step;
                    eprintln!("loading {name}: {}", status.line());
                }
            }
        });
        let rig_name = rig.name.clone();
        let (format, size) = (
            surface.config.format,
            (surface.config.width, surface.config.height),
        );
        let settings = options.settings.clone();
        let shared = progress.clone();
        let cache = options.level_cache.clone();
        let worker = std::thread::Builder::new()
            .name("skinbench load".into())
            .spawn(move || load_scene(gpu, rig, settings, format, size, &shared, cache.as_ref()))
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
        let heading = format!("loading {}", self.rig_name);
        paint_progress(
            &mut self.surface,
            &mut self.egui,
            (&self.device, &self.queue),
            &heading,
            &self.progress.status(),
            Progress::Fraction,
        );
    }
}

/// The running app measuring the level errors a setting now reads (geometric LOD turned
/// on, or the animation moved to the GPU), on a thread of its own: the window shows the
/// progress, as while loading, instead of freezing for the seconds it takes.
pub(super) struct Measuring {
    progress: LoadProgress,
    worker: Option<JoinHandle<()>>,
    heading: String,
    last_paint: Option<Instant>,
}

impl Measuring {
    pub(super) fn start(
        rig: Arc<PreparedRig>,
        cache: Option<crate::prepare::cache::MeasureCache>,
    ) -> Result<Self, AppError> {
        let progress = LoadProgress::new();
        let shared = progress.clone();
        let heading = format!("measuring the mesh levels of {}", rig.name);
        let worker = std::thread::Builder::new()
            .name("skinbench level errors".into())
            .spawn(move || {
                measure_level_errors(&rig, &shared, cache.as_ref());
                shared.finish();
            })
            .map_err(|e| AppError::Load(format!("cannot start the measuring thread: {e}")))?;
        Ok(Measuring {
            progress,
            worker: Some(worker),
            heading,
            last_paint: None,
        })
    }

    /// When the progress is to be painted next.
    pub(super) fn next_paint(&self) -> Instant {
        self.last_paint
            .map_or_else(Instant::now, |last| last + PAINT_EVERY)
    }

    /// Whether the measurement is done (then the scene's next frame finds it made); a
    /// panic on the thread goes on here.
    pub(super) fn finished(&mut self) -> bool {
        match self.worker.take_if(|w| w.is_finished()) {
            Some(worker) => {
                if let Err(panic) = worker.join() {
                    std::panic::resume_unwind(panic);
                }
                eprintln!("{}: {}", self.heading, self.progress.status().summary());
                true
            }
            None => self.worker.is_none(),
        }
    }

    pub(super) fn paint(
        &mut self,
        surface: &mut WindowSurface,
        egui: &mut EguiLayer,
        gpu: (&wgpu::Device, &wgpu::Queue),
    ) {
        self.last_paint = Some(Instant::now());
        paint_progress(
            surface,
            egui,
            gpu,
            &self.heading,
            &self.progress.status(),
            Progress::Spinner(
                "geometric LOD and the GPU's animation read each level's error, measured once \
                 per rig; the crowd goes on when it is done",
            ),
        );
    }
}

/// How the progress is shown.
#[derive(Clone, Copy)]
pub(super) enum Progress {
    /// A bar of the load's steps.
    Fraction,
    /// A spinner, where no count is known, and a line saying why the wait.
    Spinner(&'static str),
}

/// `status` under `heading`, painted by egui onto `surface`'s swapchain: the window while
/// a scene loads, or while the running app measures what a setting asks for.
pub(super) fn paint_progress(
    surface: &mut WindowSurface,
    egui: &mut EguiLayer,
    (device, queue): (&wgpu::Device, &wgpu::Queue),
    heading: &str,
    status: &LoadStatus,
    progress: Progress,
) {
    let surface_texture = match surface.surface.get_current_texture() {
        wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
        wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
            surface.reconfigure(device);
            return;
        }
        other => {
            log::warn!("skipping a loading frame: surface returned {other:?}");
            return;
        }
    };
    let view = surface_texture.texture.create_view(&Default::default());
    let raw_input = egui.state.take_egui_input(&surface.window);
    let full_output = egui.ctx.run_ui(raw_input, |ui| {
        egui::CentralPanel::default().show(ui, |ui| {
            ui.vertical_centered(|ui| {
                ui.add_space(ui.available_height() * 0.4);
                ui.heading(heading);
                ui.label(status.line());
                match progress {
                    Progress::Fraction => {
                        ui.add(
                            egui::ProgressBar::new(status.fraction())
                                .desired_width(360.0)
                                .show_percentage(),
                        );
                    }
                    Progress::Spinner(why) => {
                        ui.add(egui::Spinner::new());
                        ui.label(RichText::new(why).small().weak());
                    }
                }
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
    egui.state
        .handle_platform_output(&surface.window, full_output.platform_output);
    let pixels_per_point = full_output.pixels_per_point;
    let jobs = egui.ctx.tessellate(full_output.shapes, pixels_per_point);
    let screen = egui_wgpu::ScreenDescriptor {
        size_in_pixels: [surface.config.width, surface.config.height],
        pixels_per_point,
    };
    for (id, deltas) in &full_output.textures_delta.set {
        for delta in deltas {
            egui.renderer.update_texture(device, queue, *id, delta);
        }
    }
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("progress"),
    });
    let mut command_buffers =
        egui.renderer
            .update_buffers(device, queue, &mut encoder, &jobs, &screen);
    {
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("progress egui"),
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
        egui.renderer.render(&mut pass, &jobs, &screen);
    }
    command_buffers.push(encoder.finish());
    queue.submit(command_buffers);
    surface.window.pre_present_notify();
    queue.present(surface_texture);
    for id in &full_output.textures_delta.free {
        egui.renderer.free_texture(id);
    }
}
