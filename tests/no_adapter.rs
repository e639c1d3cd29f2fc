//! Without a usable adapter the error names the backends tried and what to install.
//! (Its own test binary: it sets WGPU_BACKEND for the whole process.)

use skinbench::gpu::{GpuContext, GpuError};

#[test]
fn missing_adapter_names_backends_and_the_fix() {
    // A backend this build cannot use on Linux: no adapter can be found.
    // SAFETY: this test binary runs only this test, on one thread, before any wgpu call.
    unsafe {
        std::env::set_var(
            "WGPU_BACKEND",
            if cfg!(target_os = "linux") {
                "metal"
            } else {
                "gl"
            },
        )
    };
    match GpuContext::offscreen() {
        Err(e @ GpuError::NoAdapter { .. }) => {
            let message = e.to_string();
            assert!(message.contains("backends tried"), "{message}");
            assert!(message.contains("mesa-vulkan-drivers"), "{message}");
        }
        Err(other) => panic!("expected NoAdapter, got {other}"),
        Ok(_) if !cfg!(target_os = "linux") => {}
        Ok(c) => panic!(
            "an adapter was found with WGPU_BACKEND=metal: {}",
            c.summary.name
        ),
    }
}
