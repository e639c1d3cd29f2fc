//! The CPU and the shaders agree on every format they share: each shader composes (its
//! imports resolved) and validates, each struct it shares with the CPU has the Rust type's
//! members at the same offsets with the same sizes (reflected from the shader with naga),
//! and every struct a shader binds as a buffer is one of those. No GPU is needed.

use naga::proc::Layouter;
use naga::{Module, TypeInner};
use skinbench::contract::StructLayout;
use skinbench::gpu::shaders::{self, Shader};
use skinbench::variant::Variant;

/// A struct's name as written in its file (naga_oil decorates the names of items it
/// imported from another module).
fn written_name(name: &str) -> &str {
    name.split("X_naga_oil_mod_X").next().unwrap_or(name)
}

fn composed(shader: Shader) -> Module {
    let module = shaders::compose(shader).unwrap_or_else(|e| panic!("{e}"));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{}: {e:?}", shader.spec().file));
    module
}

/// The struct `layout.wgsl` in `module`, compared with the Rust type member by member.
fn compare(module: &Module, layout: &StructLayout) -> Result<(), String> {
    let mut layouter = Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| format!("layout: {e:?}"))?;
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, t)| {
            t.name.as_deref().map(written_name) == Some(layout.wgsl)
                && matches!(t.inner, TypeInner::Struct { .. })
        })
        .ok_or_else(|| format!("no struct {} in the shader", layout.wgsl))?;
    let TypeInner::Struct { members, span } = &ty.inner else {
        unreachable!("found a struct")
    };
    let wgsl: Vec<(String, usize, usize)> = members
        .iter()
        .map(|m| {
            (
                m.name.clone().unwrap_or_default(),
                m.offset as usize,
                layouter[m.ty].size as usize,
            )
        })
        .collect();
    let rust: Vec<(String, usize, usize)> = layout
        .members
        .iter()
        .map(|m| (m.name.to_string(), m.offset, m.size))
        .collect();
    if wgsl != rust {
        return Err(format!(
            "{}: members differ\n  WGSL (name, offset, size): {wgsl:?}\n  Rust: {rust:?}",
            layout.wgsl
        ));
    }
    if *span as usize != layout.size {
        return Err(format!(
            "{}: {} bytes in WGSL (an array's stride), {} in Rust",
            layout.wgsl, span, layout.size
        ));
    }
    let _ = handle;
    Ok(())
}

#[test]
fn every_shader_composes_and_validates() {
    for &shader in Shader::ALL {
        composed(shader);
    }
}

#[test]
fn every_shared_struct_matches_its_rust_type() {
    let mut failures = Vec::new();
    for (shader, layout) in skinbench::gpu::shared_structs() {
        if let Err(e) = compare(&composed(shader), &layout) {
            failures.push(format!("{}: {e}", shader.spec().file));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The struct types a buffer binding of `module` holds (the binding's type, or the
/// elements and members it is made of).
fn bound_structs(module: &Module) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<naga::Handle<naga::Type>> = module
        .global_variables
        .iter()
        .filter(|(_, g)| {
            matches!(
                g.space,
                naga::AddressSpace::Uniform | naga::AddressSpace::Storage { .. }
            )
        })
        .map(|(_, g)| g.ty)
        .collect();
    while let Some(ty) = stack.pop() {
        let t = &module.types[ty];
        match &t.inner {
            TypeInner::Struct { members, .. } => {
                out.push(written_name(t.name.as_deref().unwrap_or("")).to_string());
                stack.extend(members.iter().map(|m| m.ty));
            }
            TypeInner::Array { base, .. } | TypeInner::BindingArray { base, .. } => {
                stack.push(*base)
            }
            _ => {}
        }
    }
    out
}

/// Buffers that hold no struct of their own: the animation's tables and the LOD state are
/// words (their structs are read from words by name, and listed as shared), the palettes
/// and vertices are vec4 arrays.
const WORD_BUFFERS: [&str; 1] = ["LodState"];

#[test]
fn every_bound_struct_is_a_shared_one() {
    let shared = skinbench::gpu::shared_structs();
    for &shader in Shader::ALL {
        let module = composed(shader);
        for name in bound_structs(&module) {
            let known = shared
                .iter()
                .any(|(s, layout)| *s == shader && layout.wgsl == name);
            assert!(
                known || WORD_BUFFERS.contains(&name.as_str()),
                "{}: the shader binds struct {name}, which no Rust type shares (declare it with \
                 gpu_struct! and list it in its pass's declaration, GpuPassSpec::shares)",
                shader.spec().file
            );
        }
    }
}

#[test]
fn the_generated_constants_are_the_rust_ones() {
    let module = naga::front::wgsl::parse_str(
        &shaders::constants_wgsl().replace("#define_import_path skinbench::constants", ""),
    )
    .unwrap();
    let value = |name: &str| -> u32 {
        let (_, c) = module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no constant {name}"));
        match module.global_expressions[c.init] {
            naga::Expression::Literal(naga::Literal::U32(v)) => v,
            ref e => panic!("{name}: {e:?}"),
        }
    };
    assert_eq!(value("LANES"), skinbench::types::LANES as u32);
    assert_eq!(value("VISIBLE"), skinbench::crowd::lod::formats::VISIBLE);
    assert_eq!(
        value("PERIOD_MASK"),
        skinbench::crowd::lod::formats::PERIOD_MASK
    );
    assert_eq!(value("NO_PARENT"), skinbench::rig::NO_PARENT as u32);
    assert_eq!(value("WORKGROUP"), shaders::WORKGROUP);
}
