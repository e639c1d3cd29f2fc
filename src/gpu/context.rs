//! The wgpu context: instance, adapter, device and queue, with or without a window.
//!
//! How it works: every native backend is tried (Vulkan, Metal, DX12, GL); the first
//! adapter that can present to the window (or any adapter when offscreen) is used, with
//! the timestamp-query features requested where it has them, so GPU render time can be
//! measured. When no adapter exists the error names the backends tried and what to
//! install (on Linux without a GPU: Mesa's software Vulkan driver, lavapipe).

use std::sync::Arc;

use thiserror::Error;

/// The largest block of device memory wgpu's allocator suballocates buffers from (the
/// first is 4 MiB, each later one twice the last); a buffer larger
/// than this gets memory of its own, freed with it. The allocator keeps a block while any
/// buffer lives in it, and keeps its last empty block, so a small buffer that outlives a
/// large frame holds the whole block it was placed in. wgpu's default blocks (128 to 256
/// MiB) let one such buffer, made the first time a path ran beside a crowd of thousands,
/// raise the memory held for good by a block; this bounds what any such buffer can hold
/// to one block of at most 16 MiB (host-visible blocks are half as large).
pub const MAX_MEMORY_BLOCK_BYTES: u64 = 16 << 20;
/// The first block of device memory (see [`MAX_MEMORY_BLOCK_BYTES`]).
const MIN_MEMORY_BLOCK_BYTES: u64 = 4 << 20;

/// The device memory wgpu's allocator holds, bytes ([`GpuContext::allocator_memory`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct GpuMemory {
    /// In the blocks it holds, used or not.
    pub reserved_bytes: u64,
    /// In live allocations.
    pub allocated_bytes: u64,
    /// Blocks held.
    pub blocks: u64,
}

#[derive(Debug, Error)]
pub enum GpuError {
    #[error(
        "no GPU adapter found (backends tried: {backends}). Install a Vulkan driver; on Linux \
         without a GPU, Mesa's software driver works: `apt-get install mesa-vulkan-drivers`. \
         ({detail})"
    )]
    NoAdapter { backends: String, detail: String },
    #[error("cannot create the window surface: {0}")]
    Surface(String),
    #[error("the adapter {adapter} refused to create a device: {detail}")]
    Device { adapter: String, detail: String },
    #[error("the surface cannot be used with adapter {0}")]
    SurfaceUnsupported(String),
    #[error(
        "WGPU_BACKEND={given:?}: {unknown:?} is not a backend; valid names (comma-separated): \
         vulkan (or vk), metal (mtl), dx12 (d3d12), gl (opengl, gles)"
    )]
    UnknownBackend { given: String, unknown: String },
}

/// The backends `WGPU_BACKEND` names, or `None` where it is not set. wgpu's own parser
/// skips a name it does not know (with a log line), so a misspelt one would leave no
/// backend and end in a confusing surface error; here it is refused, naming the valid ones.
fn backends_from_env() -> Result<Option<wgpu::Backends>, GpuError> {
    let Ok(given) = std::env::var("WGPU_BACKEND") else {
        return Ok(None);
    };
    let mut backends = wgpu::Backends::empty();
    for name in given.split(',') {
        backends |= match name.trim().to_lowercase().as_str() {
            "vulkan" | "vk" => wgpu::Backends::VULKAN,
            "dx12" | "d3d12" => wgpu::Backends::DX12,
            "metal" | "mtl" => wgpu::Backends::METAL,
            "opengl" | "gles" | "gl" => wgpu::Backends::GL,
            _ => {
                return Err(GpuError::UnknownBackend {
                    unknown: name.trim().to_string(),
                    given,
                });
            }
        };
    }
    Ok(Some(backends))
}

/// Facts about the adapter, for the panel and the screenshot sidecar.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub timestamps: bool,
}

/// Cloning shares the same device (wgpu's handles are reference-counted).
#[derive(Clone)]
pub struct GpuContext {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub summary: AdapterSummary,
    /// The device's validation errors since they were last taken: wgpu's default handler
    /// panics, which would show a user a stack trace instead of an error.
    errors: Arc<std::sync::Mutex<Vec<String>>>,
}

/// What the device is asked for beyond the defaults (tests lower the limits to reach
/// them with small crowds).
#[derive(Clone, Copy, Debug, Default)]
pub struct DeviceRequest {
    /// The largest buffer, bytes (default: what the adapter allows).
    pub max_buffer_size: Option<u64>,
}

fn backends_tried(backends: wgpu::Backends) -> String {
    let mut names = Vec::new();
    for (flag, name) in [
        (wgpu::Backends::VULKAN, "Vulkan"),
        (wgpu::Backends::METAL, "Metal"),
        (wgpu::Backends::DX12, "DX12"),
        (wgpu::Backends::GL, "OpenGL/GLES"),
    ] {
        if backends.contains(flag) {
            names.push(name);
        }
    }
    names.join(", ")
}

impl GpuContext {
    /// A context for `surface_target` (a window, on `display`), or an offscreen one when
    /// `None`.
    ///
    /// Without `WGPU_BACKEND`, the native backends (Vulkan, Metal, DX12) are tried first and
    /// OpenGL only where none of them has an adapter. Asking for all of them at once loads
    /// EGL and libglvnd next to Vulkan even when Vulkan is used, and their per-thread state
    /// outlives the context: a test binary whose threads each made a context then aborted
    /// at exit ("double free or corruption", libGLdispatch's destructors in `_dl_fini`
    /// against a finished thread's cleanup) in 3 of 30 runs on lavapipe, and in none of 40
    /// with Vulkan alone.
    pub fn new(
        display: Option<winit::event_loop::OwnedDisplayHandle>,
        surface_target: Option<Arc<winit::window::Window>>,
    ) -> Result<(Self, Option<wgpu::Surface<'static>>), GpuError> {
        Self::with_request(display, surface_target, DeviceRequest::default())
    }

    fn with_request(
        display: Option<winit::event_loop::OwnedDisplayHandle>,
        surface_target: Option<Arc<winit::window::Window>>,
        request: DeviceRequest,
    ) -> Result<(Self, Option<wgpu::Surface<'static>>), GpuError> {
        let attempts = match backends_from_env()? {
            Some(backends) => vec![backends],
            None => vec![wgpu::Backends::PRIMARY, wgpu::Backends::SECONDARY],
        };
        let mut tried = wgpu::Backends::empty();
        let mut details = Vec::new();
        let mut surface_error = None;
        for backends in attempts {
            tried |= backends;
            // A backend set that cannot reach the window (no Vulkan driver: no surface) or
            // has no adapter leaves the next set to try.
            match Self::with_backends(backends, display.clone(), surface_target.clone(), request) {
                Err(GpuError::NoAdapter { detail, .. }) => details.push(detail),
                Err(e @ GpuError::Surface(_)) => surface_error = Some(e),
                result => return result,
            }
        }
        Err(surface_error.unwrap_or(GpuError::NoAdapter {
            backends: backends_tried(tried),
            detail: details.join("; "),
        }))
    }

    fn with_backends(
        backends: wgpu::Backends,
        display: Option<winit::event_loop::OwnedDisplayHandle>,
        surface_target: Option<Arc<winit::window::Window>>,
        request: DeviceRequest,
    ) -> Result<(Self, Option<wgpu::Surface<'static>>), GpuError> {
        let mut descriptor = match display {
            Some(display) => {
                wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(display))
            }
            None => wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
        };
        descriptor.backends = backends;
        let instance = wgpu::Instance::new(descriptor);
        let surface = match surface_target {
            Some(window) => Some(
                instance
                    .create_surface(window)
                    .map_err(|e| GpuError::Surface(e.to_string()))?,
            ),
            None => None,
        };
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: surface.as_ref(),
            ..Default::default()
        }))
        .map_err(|e| GpuError::NoAdapter {
            backends: backends_tried(backends),
            detail: e.to_string(),
        })?;
        let info = adapter.get_info();
        let timer_features =
            wgpu_profiler::GpuProfiler::ALL_WGPU_TIMER_FEATURES & adapter.features();
        // Indirect draws whose arguments name their first instance: the renderer's whole
        // crowd in a few commands (without it, it draws the same list one by one).
        let indirect_features = if adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION)
        {
            // With counts read from a buffer, a multi-draw is one command for wgpu to
            // record whatever its count (see `CrowdRenderer::count_draws`).
            (wgpu::Features::INDIRECT_FIRST_INSTANCE | wgpu::Features::MULTI_DRAW_INDIRECT_COUNT)
                & adapter.features()
        } else {
            wgpu::Features::empty()
        };
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(
            adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("skinbench device"),
                required_features: timer_features | indirect_features,
                // The crowd's skinned vertices go into one buffer: take what the adapter allows.
                required_limits: wgpu::Limits {
                    max_buffer_size: request
                        .max_buffer_size
                        .map_or(limits.max_buffer_size, |m| m.min(limits.max_buffer_size)),
                    max_storage_buffer_binding_size: limits.max_storage_buffer_binding_size,
                    // The skinned pool's level dispatch binds five (where the adapter has
                    // them; with four it is refused, the rest binds at most four).
                    max_storage_buffers_per_shader_stage: limits
                        .max_storage_buffers_per_shader_stage
                        .max(
                            wgpu::Limits::downlevel_defaults().max_storage_buffers_per_shader_stage,
                        ),
                    ..wgpu::Limits::downlevel_defaults().using_resolution(limits.clone())
                },
                memory_hints: wgpu::MemoryHints::Manual {
                    suballocated_device_memory_block_size: MIN_MEMORY_BLOCK_BYTES
                        ..MAX_MEMORY_BLOCK_BYTES,
                },
                ..Default::default()
            }),
        )
        .map_err(|e| GpuError::Device {
            adapter: info.name.clone(),
            detail: e.to_string(),
        })?;
        let summary = AdapterSummary {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: format!("{} {}", info.driver, info.driver_info)
                .trim()
                .to_string(),
            timestamps: timer_features.contains(wgpu::Features::TIMESTAMP_QUERY),
        };
        let errors = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e| {
            sink.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(e.to_string());
        }));
        Ok((
            GpuContext {
                instance,
                adapter,
                device,
                queue,
                summary,
                errors,
            },
            surface,
        ))
    }

    /// The device memory wgpu's allocator holds now; `None` where the backend gives no
    /// report. It suballocates buffers from blocks it keeps, so this tells the blocks held
    /// from what lives in them.
    pub fn allocator_memory(&self) -> Option<GpuMemory> {
        self.device.generate_allocator_report().map(|r| GpuMemory {
            reserved_bytes: r.total_reserved_bytes,
            allocated_bytes: r.total_allocated_bytes,
            blocks: r.blocks.len() as u64,
        })
    }

    /// An offscreen context (tests, headless rendering).
    pub fn offscreen() -> Result<Self, GpuError> {
        Self::offscreen_with(DeviceRequest::default())
    }

    /// An offscreen context whose device is asked for `request`.
    pub fn offscreen_with(request: DeviceRequest) -> Result<Self, GpuError> {
        Self::with_request(None, None, request).map(|(context, _)| context)
    }

    /// The device's validation errors since the last call (a handler installed elsewhere
    /// with `on_uncaptured_error`, such as the soak's, takes them instead).
    pub fn take_errors(&self) -> Vec<String> {
        std::mem::take(&mut *self.errors.lock().unwrap_or_else(|p| p.into_inner()))
    }
}
