//! The unsafe code's paths on a rig small enough for Miri to interpret: every CPU skin
//! variant (the lane kernels at the portable SIMD level, their write-only destinations, the
//! GPU variants' palette rows), every hierarchy, on two threads (the crew, the chunks and
//! their claims), against the f64 oracles.
//!
//! Natively these are a few quick conformance cases. Under Miri, which checks every memory
//! access and every borrow against Rust's rules:
//!
//!     MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-num-cpus=2" \
//!         cargo +nightly miri test --test miri
//!
//! (isolation off: the rig is read from `../shared/rigs`; two CPUs, so that the pipeline
//! accepts its two threads). docs/verify.md says what Miri
//! cannot run (the AVX2 and AVX-512 levels' intrinsics, the GPU, the C of meshoptimizer).

mod common;

use std::sync::Arc;

use skinbench::anim::hierarchy::HierarchyVariant;
use skinbench::crowd::{PipelineConfig, Schedule};
use skinbench::prepare::PreparedRig;
use skinbench::simd::SimdLevel;
use skinbench::skin::{SkinDevice, SkinMethod, SkinVariant};
use skinbench::variant::Variant;

/// SimpleSkin: 2 joints, 10 vertices, 8 triangles.
fn simple_skin() -> Option<Arc<PreparedRig>> {
    let dir = common::rigs_dir()?;
    let path = dir.join("SimpleSkin/SimpleSkin.gltf");
    Some(Arc::new(
        PreparedRig::load(&path).unwrap_or_else(|e| panic!("{e}")),
    ))
}

/// Two frames of nine characters (a full lane group and one more) on two threads at the
/// portable SIMD level, each checked against the oracles.
fn check(rig: &Arc<PreparedRig>, config: PipelineConfig) {
    let what = format!(
        "{} / {} / {}",
        config.hierarchy.name(),
        config.skin.name(),
        config.method.name()
    );
    if let Err(e) = common::frames_match_the_oracles(rig, config, Some(SimdLevel::Portable), 9, 2) {
        panic!("{what}: {e}");
    }
}

fn config(hierarchy: HierarchyVariant, skin: SkinVariant, method: SkinMethod) -> PipelineConfig {
    PipelineConfig {
        hierarchy,
        skin,
        schedule: Schedule::Fused,
        threads: 2,
        blend_weight: 0.0,
        method,
    }
}

/// Every skin variant whose CPU part writes through unsafe code, with each method it
/// implements, after the lane hierarchy.
fn every_cpu_skin_variant_and_method() {
    let Some(rig) = simple_skin() else {
        common::cannot_run_here()
    };
    for &skin in SkinVariant::ALL
        .iter()
        .filter(|s| s.spec().runs_on != SkinDevice::GpuCompute)
    {
        for &method in skin.spec().methods {
            check(&rig, config(HierarchyVariant::Simd, skin, method));
        }
    }
}

/// Every hierarchy variant, with the lane skin kernel the best frame uses.
fn every_hierarchy_variant() {
    let Some(rig) = simple_skin() else {
        common::cannot_run_here()
    };
    for &hierarchy in HierarchyVariant::ALL {
        check(
            &rig,
            config(hierarchy, SkinVariant::Pulled, SkinMethod::Linear),
        );
    }
}

/// The staged schedule (a pass per stage, the arena handed out in chunks).
fn the_staged_schedule() {
    let Some(rig) = simple_skin() else {
        common::cannot_run_here()
    };
    let mut c = config(
        HierarchyVariant::Simd,
        SkinVariant::Streamed,
        SkinMethod::Linear,
    );
    c.schedule = Schedule::Staged;
    check(&rig, c);
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "every_cpu_skin_variant_and_method",
            every_cpu_skin_variant_and_method,
        ),
        ("every_hierarchy_variant", every_hierarchy_variant),
        ("the_staged_schedule", the_staged_schedule),
    ];
    common::run_tests(tests);
}
