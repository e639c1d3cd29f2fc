//! Without `WGPU_BACKEND`, a context tries the native backends first and OpenGL only where
//! none has an adapter. (Its own test binary: it hides the Vulkan drivers for the whole
//! process.)

use skinbench::gpu::{GpuContext, GpuError};

#[test]
fn without_a_vulkan_driver_the_context_falls_back_to_opengl() {
    // SAFETY: this test binary runs only this test, on one thread, before any wgpu call.
    unsafe {
        std::env::remove_var("WGPU_BACKEND");
        // The Vulkan loader reads its drivers from here (both names: old and new loaders).
        std::env::set_var("VK_ICD_FILENAMES", "/nonexistent/skinbench_icd.json");
        std::env::set_var("VK_DRIVER_FILES", "/nonexistent/skinbench_icd.json");
    }
    match GpuContext::offscreen() {
        // Mesa's EGL gives llvmpipe where it is installed.
        Ok(context) => assert_eq!(context.summary.backend, "Gl", "{:?}", context.summary),
        // Without it, the error says OpenGL was tried after Vulkan.
        Err(e @ GpuError::NoAdapter { .. }) => {
            let message = e.to_string();
            assert!(message.contains("Vulkan"), "{message}");
            assert!(message.contains("OpenGL/GLES"), "{message}");
        }
        Err(other) => panic!("expected an OpenGL context or NoAdapter, got {other}"),
    }
}
