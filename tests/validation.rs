//! Every refusal of every kernel and pipeline entry point, reached (ozz's JobValidity
//! tests): a call with one thing wrong returns that error and writes nothing; the same call
//! with nothing wrong succeeds. Variants are taken from their declarations.

mod common;

use std::sync::Arc;

use glam::Mat4;
use skinbench::anim::Mat3x4;
use skinbench::anim::hierarchy::{
    self, HierarchyError, HierarchyVariant, JointTree, ModelLayout, ModelPosesMut,
};
use skinbench::anim::palette::{PaletteLayout, Palettes};
use skinbench::crowd::pipeline::available_threads;
use skinbench::crowd::{FrameError, InstanceStore, Pipeline, PipelineConfig, Stage};
use skinbench::prepare::PreparedRig;
use skinbench::skin::{
    self, BufferError, Dest, DrawPath, OutputBuffer, OutputLayout, SkinDevice, SkinError,
    SkinGroup, SkinMethod, SkinVariant,
};
use skinbench::types::{F32x8, LANES, Lanes3x4, Qvs};
use skinbench::variant::Variant;

/// A one-triangle rig: a mesh of another size.
fn tiny() -> PreparedRig {
    let bytes = common::TinyGltf::new().glb_bytes();
    let (rig, report) = skinbench::rig::import_slice(&bytes, "tiny.glb", None).unwrap();
    PreparedRig::new(rig, &report, "tiny.glb").unwrap()
}

/// The one-triangle rig with its root stretched (scale 1, 2, 1): a rig whose palettes carry
/// normal matrices.
fn tiny_stretched() -> Arc<PreparedRig> {
    let mut gltf = common::TinyGltf::new();
    gltf.json["nodes"][0]["scale"] = serde_json::json!([1.0, 2.0, 1.0]);
    let (rig, report) =
        skinbench::rig::import_slice(&gltf.glb_bytes(), "stretched.glb", None).unwrap();
    let rig = PreparedRig::new(rig, &report, "stretched.glb").unwrap();
    assert!(rig.own_normal_matrices());
    Arc::new(rig)
}

fn reference() -> Arc<PreparedRig> {
    Arc::new(PreparedRig::reference())
}

/// Palettes of `layout` for one group (`instances` instances, or all lanes).
struct PaletteStore {
    mat4: Vec<Mat4>,
    mat3x4: Vec<Mat3x4>,
    lanes: Vec<Lanes3x4>,
}

impl PaletteStore {
    fn new(rig: &PreparedRig, shorten: usize) -> Self {
        let n = LANES * rig.palette_stride() - shorten;
        PaletteStore {
            mat4: vec![Mat4::IDENTITY; n],
            mat3x4: vec![Mat3x4::from_mat4(&Mat4::IDENTITY); n],
            // Lane palettes must reach the largest joint a vertex uses (of the normal
            // matrices, where the rig has them).
            lanes: vec![
                [F32x8::ZERO; 12];
                rig.normal_palette_offset() + rig.mesh.sorted().joint_bound() - shorten
            ],
        }
    }

    fn get(&self, layout: PaletteLayout) -> Palettes<'_> {
        match layout {
            PaletteLayout::Mat4 => Palettes::Mat4(&self.mat4),
            PaletteLayout::Mat3x4 => Palettes::Mat3x4(&self.mat3x4),
            PaletteLayout::Lanes => Palettes::Lanes(&self.lanes),
        }
    }
}

#[test]
fn every_declared_skin_variant_has_a_layout_and_a_draw_path() {
    let rig = reference();
    let mut paths = Vec::new();
    for &skin in SkinVariant::ALL {
        let layout = OutputLayout::try_new(skin, &rig, SkinMethod::Linear).unwrap();
        assert_eq!(layout.variant(), skin);
        assert!(
            layout
                .instance_stride()
                .is_multiple_of(skin::INSTANCE_ALIGN)
        );
        assert!(layout.bytes(1) >= layout.instance_span());
        // Lane blocks take whole groups.
        assert_eq!(
            layout.bytes(3) == layout.bytes(8),
            skin.spec().arrangement == skin::Arrangement::LaneBlocks
        );
        paths.push(layout.draw_path());
    }
    // Every draw path the renderer has is used by some variant.
    for &path in DrawPath::ALL {
        assert!(paths.contains(&path), "{path:?} is drawn by no variant");
    }
}

#[test]
fn output_buffers_are_aligned_for_every_layout() {
    let rig = reference();
    for &skin in SkinVariant::ALL {
        let layout = skin.layout(&rig, SkinMethod::Linear);
        for n in [1, 7, 13] {
            let buffer = OutputBuffer::for_instances(&layout, n);
            assert_eq!(buffer.len(), layout.bytes(n));
            assert!((buffer.as_bytes().as_ptr() as usize).is_multiple_of(layout.align()));
            assert!(
                layout
                    .check_buffer(buffer.as_bytes().as_ptr() as usize, buffer.len(), n)
                    .is_ok()
            );
        }
    }
}

#[test]
fn skin_refuses_every_wrong_input() {
    skin_refuses_every_wrong_input_on(reference(), Arc::new(tiny()));
}

#[test]
fn skin_with_normal_matrices_refuses_every_wrong_input() {
    skin_refuses_every_wrong_input_on(tiny_stretched(), reference());
}

/// `other` is a rig with another mesh.
fn skin_refuses_every_wrong_input_on(rig: Arc<PreparedRig>, other: Arc<PreparedRig>) {
    for &skin in SkinVariant::ALL {
        let name = skin.name();
        let layout = skin.layout(&rig, SkinMethod::Linear);
        let palettes = PaletteStore::new(&rig, 0);
        let good = palettes.get(skin.palette_layout());
        let mut out = OutputBuffer::zeroed(layout.group_bytes() + 64);
        let run_with =
            |method, layout: &OutputLayout, palettes: Palettes, out: &mut [u8], active| {
                skin::run_group(
                    skin,
                    &rig,
                    layout,
                    palettes,
                    Dest::from_mut(out),
                    SkinGroup::full(active),
                    method,
                )
            };
        let run = |layout: &OutputLayout, palettes: Palettes, out: &mut [u8], active| {
            run_with(SkinMethod::Linear, layout, palettes, out, active)
        };
        // The good call works, with every method the variant implements (its layout for
        // that method: a GPU variant's palettes hold 3×4 rows or dual quaternions).
        for &method in skin.spec().methods {
            let layout = skin.layout(&rig, method);
            run_with(method, &layout, good, out.as_bytes_mut(), LANES)
                .unwrap_or_else(|e| panic!("{name} {}: {e}", method.name()));
            // The other method's palettes are refused.
            for &other in SkinMethod::ALL {
                let other_layout = skin.layout(&rig, other);
                if skin.spec().runs_on != SkinDevice::Cpu && other != method {
                    assert!(
                        matches!(
                            run_with(method, &other_layout, good, out.as_bytes_mut(), LANES),
                            Err(SkinError::MethodLayout { .. })
                        ),
                        "{name}: {} skinning accepted {} palettes",
                        method.name(),
                        other.name()
                    );
                }
            }
        }
        // A method it does not implement.
        for &method in SkinMethod::ALL {
            if !skin.spec().methods.contains(&method) {
                assert!(
                    matches!(
                        run_with(method, &layout, good, out.as_bytes_mut(), LANES),
                        Err(SkinError::Method { .. })
                    ),
                    "{name} {}",
                    method.name()
                );
            }
        }
        // Another variant's layout.
        let other_variant = SkinVariant::ALL
            .iter()
            .copied()
            .find(|&v| v != skin)
            .unwrap();
        assert!(
            matches!(
                run(
                    &other_variant.layout(&rig, SkinMethod::Linear),
                    good,
                    out.as_bytes_mut(),
                    1
                ),
                Err(SkinError::OtherVariant { .. })
            ),
            "{name}"
        );
        // A layout made for another mesh.
        assert!(
            matches!(
                run(
                    &skin.layout(&other, SkinMethod::Linear),
                    good,
                    out.as_bytes_mut(),
                    1
                ),
                Err(SkinError::Buffer(BufferError::OtherMesh { .. }))
            ),
            "{name}"
        );
        // No live instance, or more than a group.
        for active in [0, LANES + 1] {
            assert_eq!(
                run(&layout, good, out.as_bytes_mut(), active),
                Err(SkinError::Active { active }),
                "{name}"
            );
        }
        // The wrong palette layout.
        for wrong in [
            PaletteLayout::Mat4,
            PaletteLayout::Mat3x4,
            PaletteLayout::Lanes,
        ] {
            if wrong == skin.palette_layout() {
                continue;
            }
            assert!(
                matches!(
                    run(&layout, palettes.get(wrong), out.as_bytes_mut(), 1),
                    Err(SkinError::WrongPalette { .. })
                ),
                "{name} given {wrong:?}"
            );
        }
        // Palettes one matrix short of what the mesh reads.
        let short = PaletteStore::new(&rig, 1);
        assert!(
            matches!(
                run(
                    &layout,
                    short.get(skin.palette_layout()),
                    out.as_bytes_mut(),
                    LANES
                ),
                Err(SkinError::PaletteTooShort { .. })
            ),
            "{name}"
        );
        // Output one byte short.
        let needed = layout.group_bytes_needed(LANES);
        assert!(
            matches!(
                run(&layout, good, &mut out.as_bytes_mut()[..needed - 1], LANES),
                Err(SkinError::Buffer(BufferError::TooSmall { .. }))
            ),
            "{name}"
        );
        // Output off its alignment.
        assert_eq!(
            run(&layout, good, &mut out.as_bytes_mut()[1..], 1),
            Err(SkinError::Buffer(BufferError::Misaligned {
                align: layout.align()
            })),
            "{name}"
        );
    }
}

#[test]
fn hierarchy_refuses_every_wrong_input() {
    let rig = reference();
    let s = rig.joint_stride;
    let locals = vec![Qvs::IDENTITY; LANES * s];
    for &variant in HierarchyVariant::ALL {
        let name = variant.name();
        let mut trees: Vec<JointTree> = (0..LANES).map(|_| JointTree::new(&rig.skeleton)).collect();
        let mut mat4 = vec![Mat4::IDENTITY; LANES * s];
        let mut qvs = vec![Qvs::IDENTITY; LANES * s];
        let mut lanes = vec![[F32x8::ZERO; 12]; s];
        macro_rules! out {
            ($layout:expr, $short:expr) => {
                match $layout {
                    ModelLayout::Tree => ModelPosesMut::Tree(&mut trees[$short..]),
                    ModelLayout::Mat4 => ModelPosesMut::Mat4(&mut mat4[$short..]),
                    ModelLayout::Qvs => ModelPosesMut::Qvs(&mut qvs[$short..]),
                    ModelLayout::Lanes => ModelPosesMut::Lanes(&mut lanes[$short..]),
                }
            };
        }
        let layout = variant.layout();
        hierarchy::run_group(
            variant,
            &rig,
            &locals,
            out!(layout, 0),
            LANES,
            rig.all_joints(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        for active in [0, LANES + 1] {
            assert_eq!(
                hierarchy::run_group(
                    variant,
                    &rig,
                    &locals,
                    out!(layout, 0),
                    active,
                    rig.all_joints()
                ),
                Err(HierarchyError::Active { active }),
                "{name}"
            );
        }
        assert!(
            matches!(
                hierarchy::run_group(
                    variant,
                    &rig,
                    &locals[1..],
                    out!(layout, 0),
                    LANES,
                    rig.all_joints()
                ),
                Err(HierarchyError::LocalsTooShort { .. })
            ),
            "{name}"
        );
        for wrong in [
            ModelLayout::Tree,
            ModelLayout::Mat4,
            ModelLayout::Qvs,
            ModelLayout::Lanes,
        ] {
            if wrong != layout {
                assert!(
                    matches!(
                        hierarchy::run_group(
                            variant,
                            &rig,
                            &locals,
                            out!(wrong, 0),
                            1,
                            rig.all_joints()
                        ),
                        Err(HierarchyError::WrongLayout { .. })
                    ),
                    "{name} given {wrong:?}"
                );
            }
        }
        // One entry short: a tree short for a full group, arrays one joint short.
        let short = match layout {
            ModelLayout::Tree => 1,
            ModelLayout::Mat4 | ModelLayout::Qvs => 1,
            ModelLayout::Lanes => s - rig.joint_count() + 1,
        };
        assert!(
            matches!(
                hierarchy::run_group(
                    variant,
                    &rig,
                    &locals,
                    out!(layout, short),
                    LANES,
                    rig.all_joints()
                ),
                Err(HierarchyError::OutputTooShort { .. })
            ),
            "{name}"
        );
        // A joint set made for another skeleton could list joints past this one's.
        let other = PreparedRig::built_in(skinbench::rig::generate::BuiltInRig::Twist);
        assert_ne!(other.joint_count(), rig.joint_count());
        assert!(
            matches!(
                hierarchy::run_group(
                    variant,
                    &rig,
                    &locals,
                    out!(layout, 0),
                    LANES,
                    other.all_joints()
                ),
                Err(HierarchyError::JointSet { .. })
            ),
            "{name}"
        );
    }
}

#[test]
fn the_pipeline_refuses_bad_configurations_and_buffers() {
    let rig = reference();
    let good = PipelineConfig::best_for(&rig, 1);
    for threads in [0, available_threads() + 1] {
        assert!(matches!(
            Pipeline::new(rig.clone(), PipelineConfig { threads, ..good }),
            Err(FrameError::Threads { .. })
        ));
    }
    for blend_weight in [-0.1, 1.5, f32::NAN] {
        assert!(matches!(
            Pipeline::new(
                rig.clone(),
                PipelineConfig {
                    blend_weight,
                    ..good
                }
            ),
            Err(FrameError::BlendWeight(_))
        ));
    }
    let mut crowd = InstanceStore::new();
    crowd.resize(13, &rig, 2.0);
    for &skin in SkinVariant::ALL {
        let mut pipeline = Pipeline::new(rig.clone(), PipelineConfig { skin, ..good }).unwrap();
        let layout = *pipeline.output_layout();
        let mut out = OutputBuffer::zeroed(layout.bytes(13) + 64);
        let bytes = out.as_bytes_mut();
        assert!(
            matches!(
                pipeline.run_frame_until(
                    crowd.as_slice(),
                    &mut bytes[..layout.bytes(13) - 1],
                    Stage::Skin
                ),
                Err(FrameError::Output(BufferError::TooSmall { .. }))
            ),
            "{}",
            skin.name()
        );
        assert_eq!(
            pipeline
                .run_frame_until(crowd.as_slice(), &mut bytes[1..], Stage::Skin)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            Err(BufferError::Misaligned {
                align: layout.align()
            }
            .to_string()),
            "{}",
            skin.name()
        );
        pipeline
            .run_frame_until(
                crowd.as_slice(),
                &mut bytes[..layout.bytes(13)],
                Stage::Skin,
            )
            .unwrap();
        // Read-back refuses what the layout does not describe: palettes are not vertices.
        if !skin.skins_on_cpu() {
            assert!(matches!(
                layout.read_instance(&rig.mesh, out.as_bytes(), 0),
                Err(BufferError::NotVertices { .. })
            ));
            continue;
        }
        assert!(matches!(
            layout.read_instance(&rig.mesh, &out.as_bytes()[..layout.instance_offset(12)], 12),
            Err(BufferError::TooSmall { .. })
        ));
        let other = tiny();
        assert!(matches!(
            layout.read_instance(&other.mesh, out.as_bytes(), 0),
            Err(BufferError::OtherMesh { .. })
        ));
    }
}

#[test]
fn palette_refuses_every_wrong_input() {
    palette_refuses_every_wrong_input_on(reference());
}

#[test]
fn palette_with_normal_matrices_refuses_every_wrong_input() {
    palette_refuses_every_wrong_input_on(tiny_stretched());
}

fn palette_refuses_every_wrong_input_on(rig: Arc<PreparedRig>) {
    use skinbench::anim::hierarchy::ModelPoses;
    use skinbench::anim::palette::{self, PaletteError, PalettesMut};
    let s = rig.joint_stride;
    // Palettes: position matrices, then normal matrices where the rig has them.
    let ps = rig.palette_stride();
    let normals = rig.normal_palette_offset();
    // A joint set made for another skeleton could list entries past this one's palette.
    let other = PreparedRig::built_in(skinbench::rig::generate::BuiltInRig::Twist);
    assert_ne!(other.joint_count(), rig.joint_count());
    let trees: Vec<JointTree> = (0..LANES).map(|_| JointTree::new(&rig.skeleton)).collect();
    let unbuilt: Vec<JointTree> = (0..LANES).map(|_| JointTree::default()).collect();
    let mat4 = vec![Mat4::IDENTITY; LANES * s];
    let qvs = vec![Qvs::IDENTITY; LANES * s];
    let lanes = vec![[F32x8::ZERO; 12]; s];
    let models = [
        ModelPoses::Tree(&trees),
        ModelPoses::Mat4(&mat4),
        ModelPoses::Qvs(&qvs),
        ModelPoses::Lanes(&lanes),
    ];
    let mut out_mat4 = vec![Mat4::IDENTITY; LANES * ps];
    let mut out_mat3x4 = vec![Mat3x4::from_mat4(&Mat4::IDENTITY); LANES * ps];
    let mut out_lanes = vec![[F32x8::ZERO; 12]; ps];
    for model in models {
        for layout in [
            PaletteLayout::Mat4,
            PaletteLayout::Mat3x4,
            PaletteLayout::Lanes,
        ] {
            let label = format!("{:?} -> {layout:?}", std::mem::discriminant(&model));
            macro_rules! out {
                ($short:expr) => {
                    match layout {
                        PaletteLayout::Mat4 => PalettesMut::Mat4(&mut out_mat4[$short..]),
                        PaletteLayout::Mat3x4 => PalettesMut::Mat3x4(&mut out_mat3x4[$short..]),
                        PaletteLayout::Lanes => PalettesMut::Lanes(&mut out_lanes[$short..]),
                    }
                };
            }
            palette::run_group(&rig, model, out!(0), LANES, rig.all_joints())
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            for active in [0, LANES + 1] {
                assert_eq!(
                    palette::run_group(&rig, model, out!(0), active, rig.all_joints()),
                    Err(PaletteError::Active { active }),
                    "{label}"
                );
            }
            // The output one entry short of the last joint of the last instance.
            let short = match layout {
                PaletteLayout::Mat4 | PaletteLayout::Mat3x4 => {
                    LANES * ps - ((LANES - 1) * ps + normals + rig.joint_count()) + 1
                }
                PaletteLayout::Lanes => ps - (normals + rig.joint_count()) + 1,
            };
            assert!(
                matches!(
                    palette::run_group(&rig, model, out!(short), LANES, rig.all_joints()),
                    Err(PaletteError::OutputTooShort { .. })
                ),
                "{label}"
            );
            assert!(
                matches!(
                    palette::run_group(&rig, model, out!(0), LANES, other.all_joints()),
                    Err(PaletteError::JointSet { .. })
                ),
                "{label}"
            );
        }
    }
    // Model poses one entry short, and trees that were never built.
    let mut out = vec![Mat4::IDENTITY; LANES * s];
    for short_model in [
        ModelPoses::Tree(&unbuilt),
        ModelPoses::Tree(&trees[1..]),
        ModelPoses::Mat4(&mat4[..(LANES - 1) * s + rig.joint_count() - 1]),
        ModelPoses::Qvs(&qvs[..(LANES - 1) * s + rig.joint_count() - 1]),
        ModelPoses::Lanes(&lanes[..rig.joint_count() - 1]),
    ] {
        assert!(matches!(
            palette::run_group(
                &rig,
                short_model,
                PalettesMut::Mat4(&mut out),
                LANES,
                rig.all_joints()
            ),
            Err(PaletteError::ModelTooShort { .. })
        ));
    }
}

/// Tables kept per variant (the renderer's pipelines per draw path) are indexed by
/// `index()`: it must be the variant's place in `ALL`, and `COUNT` its length.
#[test]
fn declared_indices_are_places_in_all() {
    fn check<V: Variant>(index: impl Fn(V) -> usize, count: usize) {
        assert_eq!(V::ALL.len(), count, "{}", V::STAGE);
        for (place, &v) in V::ALL.iter().enumerate() {
            assert_eq!(index(v), place, "{} {}", V::STAGE, v.name());
        }
    }
    check(DrawPath::index, DrawPath::COUNT);
    check(SkinDevice::index, SkinDevice::COUNT);
    check(SkinVariant::index, SkinVariant::COUNT);
    check(
        skinbench::anim::hierarchy::HierarchyVariant::index,
        skinbench::anim::hierarchy::HierarchyVariant::COUNT,
    );
    check(
        skinbench::bench::Workload::index,
        skinbench::bench::Workload::COUNT,
    );
}
