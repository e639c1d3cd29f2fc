//! The shaders: WGSL files that share code through imports, composed into naga modules.
//!
//! How it works: every shader is one `.wgsl` file under `shaders/`; what several need is a
//! module of its own (`record.wgsl`: the animation's record; `skinning.wgsl`: the linear and
//! dual-quaternion blends `gpu_compute` and `gpu_vertex` share; `dual_quat.wgsl`) that they
//! `#import`, and the constants both the CPU and the shaders use are generated from their
//! one Rust definition into a module `skinbench::constants` ([`constants_wgsl`]). Bevy's
//! composer, `naga_oil`, resolves the imports on naga's IR, which wgpu takes as it is
//! (`ShaderSource::Naga`): no text is pasted together, an error names the module and line
//! it is in, and naga parses each shared module once. (WESL, the other import syntax of
//! the ecosystem, needs a newer compiler than this project's.) `tests/contracts.rs`
//! composes every shader, validates it, and checks each struct it shares with the CPU
//! against the Rust type ([`crate::contract`]).

use std::borrow::Cow;
use std::collections::HashMap;

use naga_oil::compose::{
    ComposableModuleDescriptor, Composer, NagaModuleDescriptor, ShaderLanguage, ShaderType,
};

use super::animate::tables::{
    LEVEL_LIST_WORDS, LEVEL_PASSES, NO_TRACK, TRACK_WORDS, interpolation_code,
};
use crate::crowd::lod::formats::{
    CULL_PER_LEVEL, CULL_POOLED, DUE, FORCED, MESH_LEVEL_MASK, MESH_LEVEL_SHIFT, MotionKind,
    NO_MOTION, NO_SLOT, PERIOD_MASK, PERIOD_SHIFT, POSED_LEVEL_MASK, POSED_LEVEL_SHIFT,
    RECORD_ANIMATE, RECORD_POSED_LEVEL_SHIFT, RECORD_SKIN, RECORD_SKIN_LEVEL_SHIFT, RESKIN,
    SKIN_LEVEL_MASK, SKIN_LEVEL_SHIFT, STAT_AT_MESH_LEVEL, STAT_AT_PERIOD, STAT_COUNT, STAT_CULLED,
    STAT_FORCED, STAT_SKINNED_AT_LEVEL, STAT_UNBOUNDED, STAT_UNCHANGED, STAT_UPDATED, STATS_WORDS,
    UNBOUNDED, UNCHANGED, UNSKINNED_LEVEL, VISIBLE,
};
use crate::rig::{Interpolation, MAX_INFLUENCES, NO_PARENT};
use crate::types::{LANES, block_slot};

/// What a shader is: its file and source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaderSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// Its file under `shaders/`.
    pub file: &'static str,
    pub source: &'static str,
}

crate::declare_variants! {
    /// The shaders the renderer and the compute passes are made from.
    pub enum Shader: ShaderSpec in "shader" {
        Crowd => ShaderSpec {
            name: "crowd",
            description: "the characters (every draw path) and the ground, lit, and their shadow pass",
            file: "crowd.wgsl",
            source: include_str!("../../shaders/crowd.wgsl"),
        },
        Skin => ShaderSpec {
            name: "skin",
            description: "gpu_compute's skinning pass",
            file: "skin.wgsl",
            source: include_str!("../../shaders/skin.wgsl"),
        },
        Animate => ShaderSpec {
            name: "animate",
            description: "the animation's sampling, hierarchy and palette passes",
            file: "animate.wgsl",
            source: include_str!("../../shaders/animate.wgsl"),
        },
        Lod => ShaderSpec {
            name: "lod",
            description: "update-rate LOD and culling per character",
            file: "lod.wgsl",
            source: include_str!("../../shaders/lod.wgsl"),
        },
        Blit => ShaderSpec {
            name: "blit",
            description: "the offscreen frame onto the window's surface",
            file: "blit.wgsl",
            source: include_str!("../../shaders/blit.wgsl"),
        },
    }
}

/// The modules the shaders import, in an order in which each one's imports come first:
/// (file under `shaders/`, source).
pub const MODULES: [(&str, &str); 3] = [
    ("record.wgsl", include_str!("../../shaders/record.wgsl")),
    (
        "dual_quat.wgsl",
        include_str!("../../shaders/dual_quat.wgsl"),
    ),
    ("skinning.wgsl", include_str!("../../shaders/skinning.wgsl")),
];

/// Invocations per workgroup of every compute pass (`@workgroup_size(WORKGROUP)`).
pub const WORKGROUP: u32 = 64;

/// The most workgroups a dispatch may have in one dimension (every adapter's limit): what
/// dispatches sized on the GPU split into rows by.
pub const MAX_GROUPS: u32 = 65_535;

/// The constants the CPU and the shaders share, as the WGSL module
/// `skinbench::constants`: each written here from its Rust definition.
pub fn constants_wgsl() -> String {
    use crate::anim::sample::{SLERP_SERIES_MIN_COS, SLERP_U, SLERP_V};
    let u32s: [(&str, u32); 50] = [
        ("LANES", LANES as u32),
        ("WORKGROUP", WORKGROUP),
        ("MAX_GROUPS", MAX_GROUPS),
        ("NO_POOL_BASE", super::skin_levels::NO_POOL_BASE),
        ("POOL_NEED_UNIT", super::skin_levels::POOL_NEED_UNIT),
        ("FIT_WORDS", super::skin_levels::FIT_WORDS as u32),
        ("MAX_INFLUENCES", MAX_INFLUENCES as u32),
        ("NO_PARENT", NO_PARENT as u32),
        ("NO_TRACK", NO_TRACK),
        ("TRACK_WORDS", TRACK_WORDS),
        ("LEVEL_LIST_WORDS", LEVEL_LIST_WORDS as u32),
        ("LEVEL_PASSES", LEVEL_PASSES),
        ("STEP", interpolation_code(Interpolation::Step)),
        ("LINEAR", interpolation_code(Interpolation::Linear)),
        (
            "CUBICSPLINE",
            interpolation_code(Interpolation::CubicSpline),
        ),
        ("VISIBLE", VISIBLE),
        ("DUE", DUE),
        ("FORCED", FORCED),
        ("UNBOUNDED", UNBOUNDED),
        ("UNCHANGED", UNCHANGED),
        ("PERIOD_SHIFT", PERIOD_SHIFT),
        ("PERIOD_MASK", PERIOD_MASK),
        ("MESH_LEVEL_SHIFT", MESH_LEVEL_SHIFT),
        ("MESH_LEVEL_MASK", MESH_LEVEL_MASK),
        ("STAT_AT_MESH_LEVEL", STAT_AT_MESH_LEVEL),
        ("RESKIN", RESKIN),
        ("SKIN_LEVEL_SHIFT", SKIN_LEVEL_SHIFT),
        ("SKIN_LEVEL_MASK", SKIN_LEVEL_MASK),
        ("RECORD_ANIMATE", RECORD_ANIMATE),
        ("RECORD_SKIN", RECORD_SKIN),
        ("RECORD_SKIN_LEVEL_SHIFT", RECORD_SKIN_LEVEL_SHIFT),
        ("STAT_SKINNED_AT_LEVEL", STAT_SKINNED_AT_LEVEL),
        ("NO_MOTION", NO_MOTION),
        ("NO_SLOT", NO_SLOT),
        ("CULL_PER_LEVEL", CULL_PER_LEVEL),
        ("CULL_POOLED", CULL_POOLED),
        ("UNSKINNED_LEVEL", UNSKINNED_LEVEL),
        ("POSED_LEVEL_SHIFT", POSED_LEVEL_SHIFT),
        ("POSED_LEVEL_MASK", POSED_LEVEL_MASK),
        ("RECORD_POSED_LEVEL_SHIFT", RECORD_POSED_LEVEL_SHIFT),
        ("MOTION_STILL", MotionKind::Still as u32),
        ("MOTION_UNBOUNDED", MotionKind::Unbounded as u32),
        ("MOTION_REACH", MotionKind::Reach as u32),
        ("STAT_AT_PERIOD", STAT_AT_PERIOD),
        ("STAT_CULLED", STAT_CULLED),
        ("STAT_UPDATED", STAT_UPDATED),
        ("STAT_FORCED", STAT_FORCED),
        ("STAT_UNBOUNDED", STAT_UNBOUNDED),
        ("STAT_UNCHANGED", STAT_UNCHANGED),
        ("STAT_COUNT", STAT_COUNT),
    ];
    let mut out = String::from(
        "// Generated by gpu::shaders::constants_wgsl from the Rust definitions.\n\
         #define_import_path skinbench::constants\n\n",
    );
    for (name, value) in u32s {
        out += &format!("const {name}: u32 = {value}u;\n");
    }
    out += &format!("const STATS_WORDS: u32 = {STATS_WORDS}u;\n");
    out += &format!(
        "const MESH_HYSTERESIS: f32 = {:?};\n",
        crate::crowd::lod::MESH_HYSTERESIS
    );
    let slots: Vec<String> = (0..LANES).map(|k| format!("{}u", block_slot(k))).collect();
    out += &format!(
        "// Lane k of a group's block is at slot BLOCK_SLOT[k] (`types::block_slot`).\n\
         const BLOCK_SLOT = array<u32, {LANES}>({});\n",
        slots.join(", ")
    );
    // `{:?}` writes an f32 with the digits that read back as the same value.
    let floats = |values: &[f32]| -> String {
        values
            .iter()
            .map(|v| format!("{v:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out += &format!(
        "// Eberly's slerp series (`anim::sample`): its coefficients and where it holds.\n\
         const SLERP_U = array<f32, 8>({});\n\
         const SLERP_V = array<f32, 8>({});\n\
         const SLERP_SERIES_MIN_COS: f32 = {:?};\n",
        floats(&SLERP_U),
        floats(&SLERP_V),
        SLERP_SERIES_MIN_COS
    );
    out
}

/// Why a shader did not compose (a programming error: the shaders are built in, and the
/// tests compose every one).
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ShaderError {
    pub file: String,
    pub message: String,
}

/// A composer holding the constants and every shared module.
fn composer() -> Result<Composer, ShaderError> {
    let mut composer = Composer::default();
    let constants = constants_wgsl();
    let modules = std::iter::once(("constants (generated)", constants.as_str())).chain(MODULES);
    for (file, source) in modules {
        let added = composer.add_composable_module(ComposableModuleDescriptor {
            source,
            file_path: file,
            language: ShaderLanguage::Wgsl,
            ..Default::default()
        });
        if let Err(e) = added {
            return Err(ShaderError {
                file: file.to_string(),
                message: e.emit_to_string(&composer),
            });
        }
    }
    Ok(composer)
}

/// `shader` with its imports resolved, as naga's module.
pub fn compose(shader: Shader) -> Result<naga::Module, ShaderError> {
    let mut composer = composer()?;
    let spec = shader.spec();
    let made = composer.make_naga_module(NagaModuleDescriptor {
        source: spec.source,
        file_path: spec.file,
        shader_type: ShaderType::Wgsl,
        shader_defs: HashMap::new(),
        additional_imports: &[],
    });
    made.map_err(|e| ShaderError {
        file: spec.file.to_string(),
        message: e.emit_to_string(&composer),
    })
}

/// `shader` as a module on `device`.
pub fn create(device: &wgpu::Device, shader: Shader) -> wgpu::ShaderModule {
    let module = match compose(shader) {
        Ok(module) => module,
        // The shaders are part of the binary and tests/contracts.rs composes each one.
        Err(e) => panic!("{e}"),
    };
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(shader.spec().file),
        source: wgpu::ShaderSource::Naga(Cow::Owned(module)),
    })
}
