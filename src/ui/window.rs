//! The window both screens draw into: the loading screen while the character is made, then
//! the running app.
//!
//! How it works: [`WindowSurface`] opens the window, makes the GPU context for it and
//! owns its swapchain and the blit of the scene's offscreen frame onto it; [`EguiLayer`]
//! turns the window's events into egui input and paints egui's output. Both are made once
//! and handed from the loading screen to the running app; [`AppOptions`] and [`AppError`]
//! are what both read and report.

use std::path::PathBuf;
use std::sync::Arc;

use winit::dpi::LogicalSize;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use super::soak::SoakPlan;
use crate::gpu::scene::Settings;
use crate::gpu::{Blit, GpuContext};

/// How the app was started.
#[derive(Clone, Debug)]
pub struct AppOptions {
    pub settings: Settings,
    /// Run this many frames, then exit (after the screenshot, if any).
    pub frames: Option<u64>,
    /// Save the last frame here (with `frames`), or F12 screenshots go to bench-results.
    pub screenshot: Option<PathBuf>,
    /// With `frames`: verify the last frame, print the deviation per stage, record it in
    /// the screenshot sidecar, and fail beyond tolerance.
    pub verify: bool,
    pub window_size: (u32, u32),
    /// Run a soak test instead of a fixed number of frames (`--soak`).
    pub soak: Option<SoakPlan>,
    /// Start every character at this clip time (`--clip-time`).
    pub clip_time_secs: Option<f32>,
    /// Where the camera starts (`--camera`).
    pub camera: crate::gpu::CameraStart,
    /// Open the timeline profiler at start (`--profiler`).
    pub profiler: bool,
    /// Where the level measurements are kept between runs (`None`: `--no-cache`).
    pub level_cache: Option<crate::prepare::cache::MeasureCache>,
}

/// What winit says is missing, without the source file and line it prefixes an OS error
/// with (`os error at …/platform_impl/linux/mod.rs:765: neither WAYLAND_DISPLAY nor …`).
pub(super) fn display_reason(e: &winit::error::EventLoopError) -> String {
    let text = e.to_string();
    let reason = match text.strip_prefix("os error at ") {
        // After the location's `file:line: `.
        Some(rest) => rest
            .split_once(": ")
            .map_or(rest, |(_, reason)| reason)
            .to_string(),
        None => text.clone(),
    };
    reason.trim_end_matches('.').to_string()
}

/// Why the window could not run, or what its last frame found wrong.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(
        "cannot open a window: {0}. On a machine without a display, run under Xvfb: \
         xvfb-run -a -s \"-screen 0 1600x900x24\" skinbench"
    )]
    NoDisplay(String),
    #[error("the window's event loop failed: {0}")]
    EventLoop(#[source] winit::error::EventLoopError),
    #[error("cannot create the window: {0}")]
    Window(#[source] winit::error::OsError),
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error("the GPU context made no surface for the window")]
    NoSurface,
    #[error("the surface supports no texture format on {0}")]
    NoSurfaceFormat(String),
    #[error(transparent)]
    Scene(#[from] crate::gpu::scene::SceneError),
    #[error("loading the character: {0}")]
    Load(String),
    #[error("soak failed: {0}")]
    Soak(String),
    #[error("verify: the last frame is beyond tolerance")]
    BeyondTolerance,
    #[error("verify failed: {0}")]
    Verify(#[source] crate::gpu::scene::SceneError),
    #[error("screenshot failed: {0}")]
    Screenshot(#[source] crate::gpu::scene::SceneError),
}

/// The window, its swapchain and the blit of the offscreen frame onto it.
pub(super) struct WindowSurface {
    pub(super) window: Arc<Window>,
    pub(super) surface: wgpu::Surface<'static>,
    pub(super) config: wgpu::SurfaceConfiguration,
    pub(super) present_modes: Vec<wgpu::PresentMode>,
    blit: Blit,
    /// The scene's offscreen frame, bound for the blit (made once per frame texture).
    blit_source: Option<wgpu::BindGroup>,
}

/// egui's context, its winit input state and its wgpu painter.
pub(super) struct EguiLayer {
    pub(super) ctx: egui::Context,
    pub(super) state: egui_winit::State,
    pub(super) renderer: egui_wgpu::Renderer,
}

pub(super) fn choose_present_mode(
    vsync: bool,
    available: &[wgpu::PresentMode],
) -> wgpu::PresentMode {
    if vsync {
        return wgpu::PresentMode::Fifo;
    }
    [wgpu::PresentMode::Immediate, wgpu::PresentMode::Mailbox]
        .into_iter()
        .find(|m| available.contains(m))
        .unwrap_or(wgpu::PresentMode::Fifo)
}

impl WindowSurface {
    pub(super) fn new(
        event_loop: &ActiveEventLoop,
        rig_name: &str,
        options: &AppOptions,
    ) -> Result<(Self, GpuContext), AppError> {
        let (width, height) = options.window_size;
        let window = Arc::new(
            event_loop
                .create_window(
                    Window::default_attributes()
                        .with_title(format!("skinbench — {rig_name}"))
                        .with_inner_size(LogicalSize::new(width, height)),
                )
                .map_err(AppError::Window)?,
        );
        let display = event_loop.owned_display_handle();
        let (gpu, surface) = GpuContext::new(Some(display), Some(window.clone()))?;
        let surface = surface.ok_or(AppError::NoSurface)?;
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
            .ok_or_else(|| AppError::NoSurfaceFormat(gpu.summary.name.clone()))?;
        let present_modes = capabilities.present_modes.clone();
        let config = wgpu::SurfaceConfiguration {
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
        surface.configure(&gpu.device, &config);
        let blit = Blit::new(&gpu.device, format);
        Ok((
            WindowSurface {
                window,
                surface,
                config,
                present_modes,
                blit,
                blit_source: None,
            },
            gpu,
        ))
    }

    pub(super) fn bind_source(&mut self, device: &wgpu::Device, view: &wgpu::TextureView) {
        self.blit_source = Some(self.blit.bind(device, view));
    }

    /// Records the blit of the bound offscreen frame onto `target` (the swapchain's view).
    pub(super) fn blit_into(&self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
        if let Some(source) = &self.blit_source {
            self.blit.draw(encoder, source, target);
        }
    }

    pub(super) fn reconfigure(&mut self, device: &wgpu::Device) {
        self.surface.configure(device, &self.config);
    }

    pub(super) fn present_mode_name(&self) -> String {
        format!("{:?}", self.config.present_mode)
    }
}

impl EguiLayer {
    pub(super) fn new(window: &Window, gpu: &GpuContext, format: wgpu::TextureFormat) -> Self {
        let ctx = egui::Context::default();
        let state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            None,
            Some(gpu.device.limits().max_texture_dimension_2d as usize),
        );
        let renderer =
            egui_wgpu::Renderer::new(&gpu.device, format, egui_wgpu::RendererOptions::default());
        EguiLayer {
            ctx,
            state,
            renderer,
        }
    }
}
