//! Safe calls never reach undefined behaviour: every public input a kernel trusts is either
//! held by its type (a rig, a mesh or a layout that breaks a promise cannot be made) or
//! checked once per call, and a corrupted one is refused with its typed error, never a
//! panic, never a read or write out of bounds (run these under AddressSanitizer to see the
//! second; see docs/verify.md).
//!
//! Named cases first (one trial each, named `<entry point>/<what is corrupted>`), then
//! property tests over random corruptions of valid rigs and calls.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use glam::Mat4;
use libtest_mimic::{Arguments, Failed, Trial};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use skinbench::anim::Mat3x4;
use skinbench::anim::hierarchy::{
    self, HierarchyVariant, JointTree, ModelLayout, ModelPoses, ModelPosesMut,
};
use skinbench::anim::palette::{self, PaletteLayout, Palettes, PalettesMut};
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig, Stage};
use skinbench::prepare::{MeshError, PrepareError, PreparedRig, SortedMesh};
use skinbench::rig::generate::BuiltInRig;
use skinbench::rig::{ImportReport, NO_PARENT, Rig, RigError};
use skinbench::skin::{
    self, BufferError, Dest, OutputBuffer, OutputLayout, SkinError, SkinGroup, SkinMethod,
    SkinVariant,
};
use skinbench::types::{F32x8, LANES, Lanes3x4, Qvs};
use skinbench::variant::Variant;

/// Runs `f`, turning a panic into a failure that names `what`.
fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        let message = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("{what} panicked instead of refusing: {message}")
    })
}

fn check(ok: bool, message: impl FnOnce() -> String) -> Result<(), Failed> {
    if ok { Ok(()) } else { Err(message().into()) }
}

fn twist() -> Rig {
    BuiltInRig::Twist.generate()
}

fn prepare(rig: Rig) -> Result<PreparedRig, PrepareError> {
    PreparedRig::new(rig, &ImportReport::default(), "corrupted")
}

/// The reference rig with its root stretched (1, 2, 1): the same mesh, but a rig whose
/// palettes carry normal matrices, so its packed and GPU layouts differ from the plain one.
fn reference_stretched() -> PreparedRig {
    let mut rig = BuiltInRig::Reference.generate();
    rig.skeleton.rest_pose[0].scale = glam::Vec3::new(1.0, 2.0, 1.0);
    let rig = prepare(rig).unwrap();
    assert!(rig.own_normal_matrices());
    rig
}

/// Palettes for one group of `rig` with `variant`, `shorten` entries short.
struct PaletteStore {
    mat4: Vec<Mat4>,
    mat3x4: Vec<Mat3x4>,
    lanes: Vec<Lanes3x4>,
}

impl PaletteStore {
    fn needed(rig: &PreparedRig, layout: PaletteLayout) -> usize {
        match layout {
            PaletteLayout::Mat4 | PaletteLayout::Mat3x4 => LANES * rig.palette_stride(),
            PaletteLayout::Lanes => rig.normal_palette_offset() + rig.mesh.sorted().joint_bound(),
        }
    }

    fn new(len: usize) -> Self {
        PaletteStore {
            mat4: vec![Mat4::IDENTITY; len],
            mat3x4: vec![Mat3x4::from_mat4(&Mat4::IDENTITY); len],
            lanes: vec![[F32x8::ZERO; 12]; len],
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

/// The sizes a skin call is handed, possibly wrong: palettes, output bytes (starting
/// `out_offset` bytes into a buffer) and live lanes.
#[derive(Clone, Copy, Debug)]
struct GroupSizes {
    palette_len: usize,
    out_len: usize,
    out_offset: usize,
    active: usize,
    /// The level of the mesh's chain the group is drawn at (any value is safe).
    level: usize,
}

/// One group of `variant` on `rig` with the given (possibly corrupted) inputs; a panic is
/// an error naming the call.
fn skin_group(
    variant: SkinVariant,
    rig: &PreparedRig,
    layout: &OutputLayout,
    sizes: GroupSizes,
    method: SkinMethod,
) -> Result<Result<(), SkinError>, String> {
    let GroupSizes {
        palette_len,
        out_len,
        out_offset,
        active,
        level,
    } = sizes;
    let palettes = PaletteStore::new(palette_len);
    let mut out = OutputBuffer::zeroed(out_len + out_offset);
    let bytes = &mut out.as_bytes_mut()[out_offset..out_offset + out_len];
    no_panic(&format!("skin::run_group({})", variant.name()), || {
        skin::run_group(
            variant,
            rig,
            layout,
            palettes.get(variant.palette_layout()),
            Dest::from_mut(bytes),
            SkinGroup { active, level },
            method,
        )
    })
}

/// The named corruptions of one skin call, each refused with its error.
fn skin_cases(trials: &mut Vec<Trial>) {
    let reference = Arc::new(PreparedRig::reference());
    let stretched = Arc::new(reference_stretched());
    let tiny = Arc::new(
        PreparedRig::new(
            skinbench::rig::import_slice(&common::TinyGltf::new().glb_bytes(), "tiny.glb", None)
                .unwrap()
                .0,
            &ImportReport::default(),
            "tiny.glb",
        )
        .unwrap(),
    );
    for &variant in SkinVariant::ALL {
        let name = variant.name();
        let layout = variant.layout(&reference, SkinMethod::Linear);
        let palettes = PaletteStore::needed(&reference, variant.palette_layout());
        let out = layout.group_bytes_needed(LANES);
        let rig = reference.clone();
        let call = move |palettes: usize, out_len: usize, offset: usize, layout: &OutputLayout| {
            let sizes = GroupSizes {
                palette_len: palettes,
                out_len,
                out_offset: offset,
                active: LANES,
                level: 0,
            };
            skin_group(variant, &rig, layout, sizes, SkinMethod::Linear)
        };
        let c = call.clone();
        trials.push(common::trial(
            format!("skin/{name}/accepts_the_valid_call"),
            move || {
                let r = c(palettes, out, 0, &layout)?;
                check(r.is_ok(), || format!("refused: {r:?}"))
            },
        ));
        let c = call.clone();
        trials.push(common::trial(
            format!("skin/{name}/short_palette"),
            move || {
                let r = c(palettes - 1, out, 0, &layout)?;
                check(matches!(r, Err(SkinError::PaletteTooShort { .. })), || {
                    format!("{r:?}")
                })
            },
        ));
        let c = call.clone();
        trials.push(common::trial(
            format!("skin/{name}/short_destination"),
            move || {
                let r = c(palettes, out - 1, 0, &layout)?;
                check(
                    matches!(r, Err(SkinError::Buffer(BufferError::TooSmall { .. }))),
                    || format!("{r:?}"),
                )
            },
        ));
        let c = call.clone();
        trials.push(common::trial(
            format!("skin/{name}/misaligned_destination"),
            move || {
                let r = c(palettes, out, 1, &layout)?;
                check(
                    matches!(r, Err(SkinError::Buffer(BufferError::Misaligned { .. }))),
                    || format!("{r:?}"),
                )
            },
        ));
        let c = call.clone();
        let tiny_layout = variant.layout(&tiny, SkinMethod::Linear);
        trials.push(common::trial(
            format!("skin/{name}/layout_from_another_rig"),
            move || {
                let r = c(palettes, out, 0, &tiny_layout)?;
                check(
                    matches!(r, Err(SkinError::Buffer(BufferError::OtherMesh { .. }))),
                    || format!("{r:?}"),
                )
            },
        ));
        // The same mesh, but a rig with its own normal matrices: where that changes the
        // layout (packed normals, GPU palettes), the other rig's layout is refused; where
        // it does not, the two layouts are the same value and the call is right to run.
        let c = call.clone();
        let stretched_layout = variant.layout(&stretched, SkinMethod::Linear);
        let same = stretched_layout == layout;
        trials.push(common::trial(
            format!("skin/{name}/layout_from_a_rig_of_the_same_mesh"),
            move || {
                let r = c(palettes, out, 0, &stretched_layout)?;
                if same {
                    check(r.is_ok(), || format!("the same layout refused: {r:?}"))
                } else {
                    check(
                        matches!(r, Err(SkinError::LayoutOfAnotherRig { .. })),
                        || format!("{r:?}"),
                    )
                }
            },
        ));
        let rig = reference.clone();
        trials.push(common::trial(format!("skin/{name}/any_level"), move || {
            // Every level, and levels past the chain's coarsest, skin without a panic
            // (a level only decides which vertices are written).
            for level in [0, 1, 2, 3, 4, 5, 6, 255, usize::MAX] {
                let sizes = GroupSizes {
                    palette_len: palettes,
                    out_len: out,
                    out_offset: 0,
                    active: LANES,
                    level,
                };
                let r = skin_group(variant, &rig, &layout, sizes, SkinMethod::Linear)?;
                check(r.is_ok(), || format!("level {level}: {r:?}"))?;
            }
            Ok(())
        }));
        let rig = reference.clone();
        trials.push(common::trial(
            format!("skin/{name}/lanes_out_of_range"),
            move || {
                for active in [0, LANES + 1, usize::MAX] {
                    let sizes = GroupSizes {
                        palette_len: palettes,
                        out_len: out,
                        out_offset: 0,
                        active,
                        level: 0,
                    };
                    let r = skin_group(variant, &rig, &layout, sizes, SkinMethod::Linear)?;
                    check(r == Err(SkinError::Active { active }), || {
                        format!("{active}: {r:?}")
                    })?;
                }
                Ok(())
            },
        ));
    }
}

/// A rig or mesh that breaks a promise cannot be prepared: each named corruption of a
/// valid rig is refused with its typed error (where the unchecked kernels would have read
/// past a palette, a vertex array or a skeleton).
fn prepare_cases(trials: &mut Vec<Trial>) {
    type Corrupt = fn(&mut Rig);
    type Expected = fn(&PrepareError) -> bool;
    let cases: [(&str, Corrupt, Expected); 9] = [
        (
            "joint_past_the_palette",
            |r| {
                let last = r.mesh.joints.len() - 1;
                r.mesh.joints[last][0] = 60_000;
            },
            |e| matches!(e, PrepareError::Mesh(MeshError::JointPastPalette { .. })),
        ),
        (
            "index_past_the_vertices",
            |r| {
                let last = r.mesh.indices.len() - 1;
                r.mesh.indices[last] = u32::MAX;
            },
            |e| matches!(e, PrepareError::Mesh(MeshError::IndexPast { .. })),
        ),
        (
            "a_partial_triangle",
            |r| {
                r.mesh.indices.pop();
            },
            |e| matches!(e, PrepareError::Mesh(MeshError::PartialTriangle(_))),
        ),
        (
            "normals_short",
            |r| {
                r.mesh.normals.pop();
            },
            |e| matches!(e, PrepareError::Mesh(MeshError::Length { .. })),
        ),
        (
            "parent_after_its_child",
            |r| {
                let last = r.skeleton.parents.len() - 1;
                r.skeleton.parents[1] = last as u16;
            },
            |e| matches!(e, PrepareError::Rig(RigError::Parent { .. })),
        ),
        (
            "a_root_past_the_roots",
            |r| {
                let last = r.skeleton.parents.len() - 1;
                r.skeleton.parents[last] = NO_PARENT;
            },
            |e| matches!(e, PrepareError::Rig(RigError::Parent { .. })),
        ),
        (
            "palette_entry_of_no_joint",
            |r| {
                r.skeleton.palette_joints.push(60_000);
                r.skeleton.joint_from_bind.push(Mat4::IDENTITY);
            },
            |e| matches!(e, PrepareError::Rig(RigError::Palette { .. })),
        ),
        (
            "inverse_binds_short",
            |r| {
                r.skeleton.joint_from_bind.pop();
            },
            |e| matches!(e, PrepareError::Rig(RigError::Length { .. })),
        ),
        (
            "a_track_without_keys",
            |r| {
                let track = r.clips[0]
                    .joint_tracks
                    .iter_mut()
                    .find_map(|t| t.rotation.as_mut())
                    .unwrap();
                track.times_secs.clear();
                track.values.clear();
            },
            |e| matches!(e, PrepareError::Rig(RigError::Track { .. })),
        ),
    ];
    for (name, corrupt, expected) in cases {
        for built_in in BuiltInRig::ALL {
            trials.push(common::trial(
                format!("prepare/{}/{name}", built_in.name()),
                move || {
                    let mut rig = built_in.generate();
                    prepare(rig.clone()).map_err(|e| format!("the valid rig: {e}"))?;
                    corrupt(&mut rig);
                    let r = no_panic("PreparedRig::new", || prepare(rig))?;
                    match r {
                        Err(e) if expected(&e) => Ok(()),
                        Err(e) => Err(format!("refused with another error: {e}").into()),
                        Ok(_) => Err("prepared".into()),
                    }
                },
            ));
        }
    }
}

/// A sorted mesh that breaks a promise cannot be made from its parts.
fn sorted_cases(trials: &mut Vec<Trial>) {
    type Corrupt = fn(&mut skinbench::prepare::SortedParts);
    let cases: [(&str, Corrupt); 10] = [
        ("joint_past_the_palette", |p| {
            *p.joints.last_mut().unwrap() = 60_000
        }),
        ("distinct_joint_past_the_palette", |p| {
            *p.distinct.joints.last_mut().unwrap() = 60_000
        }),
        ("class_counts_past_the_vertices", |p| p.class_counts[0] += 1),
        ("weights_short", |p| {
            p.weights.pop();
        }),
        ("distinct_of_sorted_past_the_distinct_vertices", |p| {
            *p.distinct.distinct_of_sorted.last_mut().unwrap() = u32::MAX
        }),
        ("original_of_sorted_not_a_permutation", |p| {
            p.original_of_sorted[1] = p.original_of_sorted[0]
        }),
        ("runs_cover_more_than_the_mesh", |p| {
            p.distinct.runs[0].copies += 1
        }),
        ("a_run_of_nine_influences", |p| {
            p.distinct.runs[0].influences = 9
        }),
        ("levels_not_a_prefix_of_a_class", |p| {
            // A class of two or more whose second vertex reaches deeper than its first.
            let c = p.class_counts.iter().position(|&n| n >= 2).unwrap();
            let start: usize = p.class_counts[..c].iter().sum();
            p.deepest_levels[start] = 0;
            p.deepest_levels[start + 1] = 5;
        }),
        ("a_run_skipping_vertices_it_draws", |p| {
            p.deepest_levels.fill(7)
        }),
    ];
    for (name, corrupt) in cases {
        trials.push(common::trial(format!("sorted_mesh/{name}"), move || {
            let rig = PreparedRig::reference();
            let palette_len = rig.palette_len();
            let mut parts = rig.mesh.sorted().clone().into_parts();
            SortedMesh::from_parts(parts.clone(), palette_len)
                .map_err(|e| format!("the valid parts: {e}"))?;
            corrupt(&mut parts);
            match no_panic("SortedMesh::from_parts", || {
                SortedMesh::from_parts(parts, palette_len)
            })? {
                Err(_) => Ok(()),
                Ok(_) => Err("made".into()),
            }
        }));
    }
}

/// Whether `mesh` keeps every promise the kernels rely on (checked from outside).
fn keeps_its_promises(mesh: &SortedMesh, palette_len: usize) -> Result<(), String> {
    let n = mesh.len();
    let counts = mesh.class_counts();
    let classes: usize = counts.iter().sum();
    let per_class = |skip: usize| (skip..8).map(|c| counts[c] * (c + 1)).sum::<usize>();
    let d = mesh.distinct();
    let facts = [
        (classes == n, "class counts"),
        (mesh.uvs().len() == n, "uvs"),
        (mesh.joints().len() == per_class(0), "joints"),
        (mesh.weights().len() == per_class(1), "weights"),
        (mesh.joint_bound() <= palette_len, "joint bound"),
        (
            mesh.joints()
                .iter()
                .chain(d.joints())
                .all(|&j| (j as usize) < mesh.joint_bound()),
            "joints below the bound",
        ),
        (mesh.indices().iter().all(|&i| (i as usize) < n), "indices"),
        (d.output_len() == n, "distinct runs cover the mesh"),
        (
            d.distinct_of_sorted()
                .iter()
                .all(|&i| (i as usize) < d.source().len()),
            "distinct indices",
        ),
    ];
    if let Some((_, what)) = facts.iter().find(|(ok, _)| !ok) {
        return Err(format!("a mesh was made that breaks its {what}"));
    }
    // Each influence cut the mesh makes keeps the same promises for its own arrays.
    for kept in 1..=skinbench::prepare::MAX_CUT {
        let cut = mesh.cut(kept);
        let joints = |runs: &[skinbench::prepare::Run]| -> usize {
            runs.iter().map(|r| r.len * r.influences).sum()
        };
        let weights = |runs: &[skinbench::prepare::Run]| -> usize {
            runs.iter()
                .filter(|r| r.influences > 1)
                .map(|r| r.len * r.influences)
                .sum()
        };
        let facts = [
            (cut.joint_bound() == mesh.joint_bound(), "joint bound"),
            (
                cut.joints()
                    .iter()
                    .chain(cut.distinct_joints())
                    .all(|&j| (j as usize) < cut.joint_bound()),
                "joints below the bound",
            ),
            (
                cut.class_runs().iter().map(|r| r.len).sum::<usize>() == n,
                "runs cover the mesh",
            ),
            (cut.joints().len() == joints(cut.class_runs()), "joints"),
            (cut.weights().len() == weights(cut.class_runs()), "weights"),
            (
                cut.distinct_joints().len() == joints(cut.distinct_runs()),
                "distinct joints",
            ),
            (
                cut.distinct_weights().len() == weights(cut.distinct_runs()),
                "distinct weights",
            ),
            (
                cut.class_runs()
                    .iter()
                    .chain(cut.distinct_runs())
                    .all(|r| (1..=kept).contains(&r.influences)),
                "influences",
            ),
        ];
        if let Some((_, what)) = facts.iter().find(|(ok, _)| !ok) {
            return Err(format!("a cut to {kept} breaks its {what}"));
        }
    }
    Ok(())
}

/// A kernel given one mesh with another mesh's influence cut, whose joints reach past the
/// palette it was given, refuses (panics) before reading a matrix.
fn a_cut_of_another_mesh_is_refused() -> Result<(), Failed> {
    let small =
        PreparedRig::new(twist(), &ImportReport::default(), "twist").map_err(|e| e.to_string())?;
    let large = PreparedRig::reference();
    let cut = large.mesh.sorted().cut(2);
    if cut.joint_bound() <= small.palette_len() {
        return Err("the reference rig's joints fit the twist rig's palette".into());
    }
    let palette = vec![Mat3x4::from_mat4(&Mat4::IDENTITY); small.palette_len()];
    let mut out = vec![skinbench::prepare::VertexF4::default(); small.mesh.sorted().len()];
    let refused = no_panic("tuned::run", || {
        skinbench::skin::tuned::run::<false>(
            small.mesh.sorted(),
            Some(cut),
            &palette,
            &palette,
            &mut skinbench::skin::Dest::from_mut(&mut out),
            0,
        )
    });
    // Refused by the check of the palette against the joints, before any loop runs.
    match refused {
        Ok(()) => Err("tuned ran with another mesh's cut".into()),
        Err(message) if message.contains("palette shorter") => Ok(()),
        Err(message) => Err(format!("refused by something else: {message}").into()),
    }
}

/// One random corruption of a mesh's parts: which array, where, and what it becomes.
#[derive(Clone, Debug)]
enum PartCorruption {
    Joint(usize, u16),
    DistinctJoint(usize, u16),
    ClassCount(usize, usize),
    DropWeight,
    DistinctOfSorted(usize, u32),
    OriginalOfSorted(usize, u32),
    Index(usize, u32),
    RunCopies(usize, usize),
    RunInfluences(usize, usize),
    DropSource,
    Level(usize, u8),
    RunLevel(usize, usize),
    DropLevel,
}

fn part_corruption() -> impl Strategy<Value = PartCorruption> {
    prop_oneof![
        (any::<usize>(), any::<u16>()).prop_map(|(i, j)| PartCorruption::Joint(i, j)),
        (any::<usize>(), any::<u16>()).prop_map(|(i, j)| PartCorruption::DistinctJoint(i, j)),
        (0usize..8, 0usize..40).prop_map(|(c, n)| PartCorruption::ClassCount(c, n)),
        Just(PartCorruption::DropWeight),
        (any::<usize>(), any::<u32>()).prop_map(|(i, j)| PartCorruption::DistinctOfSorted(i, j)),
        (any::<usize>(), any::<u32>()).prop_map(|(i, j)| PartCorruption::OriginalOfSorted(i, j)),
        (any::<usize>(), any::<u32>()).prop_map(|(i, j)| PartCorruption::Index(i, j)),
        (any::<usize>(), 0usize..4).prop_map(|(i, c)| PartCorruption::RunCopies(i, c)),
        (any::<usize>(), 0usize..12).prop_map(|(i, k)| PartCorruption::RunInfluences(i, k)),
        Just(PartCorruption::DropSource),
        (any::<usize>(), any::<u8>()).prop_map(|(i, l)| PartCorruption::Level(i, l)),
        (any::<usize>(), 0usize..8).prop_map(|(i, l)| PartCorruption::RunLevel(i, l)),
        Just(PartCorruption::DropLevel),
    ]
}

fn corrupt_parts(p: &mut skinbench::prepare::SortedParts, c: &PartCorruption) {
    fn at<T>(v: &mut [T], i: usize) -> Option<&mut T> {
        let len = v.len();
        (len > 0).then(|| &mut v[i % len])
    }
    match *c {
        PartCorruption::Joint(i, j) => at(&mut p.joints, i).into_iter().for_each(|x| *x = j),
        PartCorruption::DistinctJoint(i, j) => at(&mut p.distinct.joints, i)
            .into_iter()
            .for_each(|x| *x = j),
        PartCorruption::ClassCount(c, n) => p.class_counts[c] = n,
        PartCorruption::DropWeight => {
            p.weights.pop();
        }
        PartCorruption::DistinctOfSorted(i, j) => at(&mut p.distinct.distinct_of_sorted, i)
            .into_iter()
            .for_each(|x| *x = j),
        PartCorruption::OriginalOfSorted(i, j) => at(&mut p.original_of_sorted, i)
            .into_iter()
            .for_each(|x| *x = j),
        PartCorruption::Index(i, j) => at(&mut p.indices, i).into_iter().for_each(|x| *x = j),
        PartCorruption::RunCopies(i, c) => at(&mut p.distinct.runs, i)
            .into_iter()
            .for_each(|r| r.copies = c),
        PartCorruption::RunInfluences(i, k) => at(&mut p.distinct.runs, i)
            .into_iter()
            .for_each(|r| r.influences = k),
        PartCorruption::DropSource => {
            p.source.pop();
        }
        PartCorruption::Level(i, l) => at(&mut p.deepest_levels, i)
            .into_iter()
            .for_each(|x| *x = l),
        PartCorruption::RunLevel(i, l) => at(&mut p.distinct.runs, i)
            .into_iter()
            .for_each(|r| r.deepest_level = l),
        PartCorruption::DropLevel => {
            p.deepest_levels.pop();
        }
    }
}

/// Random corruptions of the twist rig's sorted mesh: every one is refused, or makes a
/// mesh that keeps every promise (a corruption that happens to describe a valid mesh).
fn property_sorted_mesh() -> Result<(), Failed> {
    let rig = prepare(twist()).unwrap();
    let palette_len = rig.palette_len();
    let parts = rig.mesh.sorted().clone().into_parts();
    let mut runner = TestRunner::new(Config {
        cases: 512,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &proptest::collection::vec(part_corruption(), 1..4),
            |corruptions| {
                let mut p = parts.clone();
                for c in &corruptions {
                    corrupt_parts(&mut p, c);
                }
                let made = no_panic("SortedMesh::from_parts", || {
                    SortedMesh::from_parts(p, palette_len)
                })
                .map_err(TestCaseError::fail)?;
                if let Ok(mesh) = made {
                    keeps_its_promises(&mesh, palette_len).map_err(TestCaseError::fail)?;
                }
                Ok(())
            },
        )
        .map_err(|e| e.to_string().into())
}

/// One random corruption of a rig's public fields.
#[derive(Clone, Debug)]
enum RigCorruption {
    Joint(usize, usize, u16),
    Weight(usize, usize, f32),
    Index(usize, u32),
    Parent(usize, u16),
    PaletteJoint(usize, u16),
    DropNormal,
    DropInverseBind,
    Position(usize, f32),
    KeyTime(usize, f32),
}

fn rig_corruption() -> impl Strategy<Value = RigCorruption> {
    let weight = prop_oneof![-2.0f32..2.0, Just(f32::NAN), Just(f32::INFINITY), Just(0.0),];
    prop_oneof![
        (any::<usize>(), 0usize..8, any::<u16>())
            .prop_map(|(v, k, j)| RigCorruption::Joint(v, k, j)),
        (any::<usize>(), 0usize..8, 0u16..4).prop_map(|(v, k, j)| RigCorruption::Joint(v, k, j)),
        (any::<usize>(), 0usize..8, weight).prop_map(|(v, k, w)| RigCorruption::Weight(v, k, w)),
        (any::<usize>(), any::<u32>()).prop_map(|(i, v)| RigCorruption::Index(i, v)),
        (any::<usize>(), 0u32..8).prop_map(|(i, v)| RigCorruption::Index(i, v)),
        (any::<usize>(), any::<u16>()).prop_map(|(j, p)| RigCorruption::Parent(j, p)),
        (any::<usize>(), 0u16..4).prop_map(|(j, p)| RigCorruption::Parent(j, p)),
        (any::<usize>(), any::<u16>()).prop_map(|(e, j)| RigCorruption::PaletteJoint(e, j)),
        Just(RigCorruption::DropNormal),
        Just(RigCorruption::DropInverseBind),
        (any::<usize>(), prop_oneof![-1e30f32..1e30, Just(f32::NAN)])
            .prop_map(|(v, x)| RigCorruption::Position(v, x)),
        (any::<usize>(), prop_oneof![-1.0f32..10.0, Just(f32::NAN)])
            .prop_map(|(k, t)| RigCorruption::KeyTime(k, t)),
    ]
}

fn corrupt_rig(r: &mut Rig, c: &RigCorruption) {
    let vertices = r.mesh.positions.len();
    match *c {
        RigCorruption::Joint(v, k, j) => r.mesh.joints[v % vertices][k] = j,
        RigCorruption::Weight(v, k, w) => r.mesh.weights[v % vertices][k] = w,
        RigCorruption::Index(i, v) => {
            let len = r.mesh.indices.len();
            r.mesh.indices[i % len] = v;
        }
        RigCorruption::Parent(j, p) => {
            let len = r.skeleton.parents.len();
            r.skeleton.parents[j % len] = p;
        }
        RigCorruption::PaletteJoint(e, j) => {
            let len = r.skeleton.palette_joints.len();
            r.skeleton.palette_joints[e % len] = j;
        }
        RigCorruption::DropNormal => {
            r.mesh.normals.pop();
        }
        RigCorruption::DropInverseBind => {
            r.skeleton.joint_from_bind.pop();
        }
        RigCorruption::Position(v, x) => r.mesh.positions[v % vertices].x = x,
        RigCorruption::KeyTime(k, t) => {
            if let Some(track) = r
                .clips
                .iter_mut()
                .flat_map(|c| c.joint_tracks.iter_mut())
                .find_map(|t| t.rotation.as_mut())
            {
                let len = track.times_secs.len();
                track.times_secs[k % len] = t;
            }
        }
    }
}

/// Random corruptions of the twist rig's public fields: every one is refused with a typed
/// error, or the rig it leaves is one every variant's whole frame runs on (or refuses with
/// its typed error), never a panic, never out of bounds.
fn property_rig() -> Result<(), Failed> {
    let valid = twist();
    let mut runner = TestRunner::new(Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &proptest::collection::vec(rig_corruption(), 1..4),
            |corruptions| {
                let mut rig = valid.clone();
                for c in &corruptions {
                    corrupt_rig(&mut rig, c);
                }
                let Ok(prepared) =
                    no_panic("PreparedRig::new", || prepare(rig)).map_err(TestCaseError::fail)?
                else {
                    return Ok(());
                };
                let rig = Arc::new(prepared);
                let mut crowd = InstanceStore::new();
                crowd.resize(11, &rig, 2.0);
                for &skin in SkinVariant::ALL {
                    for &hierarchy in HierarchyVariant::ALL {
                        let config = PipelineConfig {
                            skin,
                            hierarchy,
                            ..PipelineConfig::best_for(&rig, 1)
                        };
                        let what = format!("{} + {}", hierarchy.name(), skin.name());
                        no_panic(&what, || -> Result<(), String> {
                            let Ok(mut pipeline) = Pipeline::new(rig.clone(), config) else {
                                return Ok(());
                            };
                            let layout = *pipeline.output_layout();
                            let mut out = OutputBuffer::zeroed(layout.bytes(crowd.len()));
                            pipeline
                                .run_frame_until(crowd.as_slice(), out.as_bytes_mut(), Stage::Skin)
                                .map(|_| ())
                                .map_err(|e| e.to_string())
                        })
                        .map_err(TestCaseError::fail)?
                        .map_err(|e| TestCaseError::fail(format!("{what}: a frame failed: {e}")))?;
                    }
                }
                Ok(())
            },
        )
        .map_err(|e| e.to_string().into())
}

/// One skin call's inputs, each possibly off: the palette's length, the destination's
/// length and offset, the live lanes, the method, and whose layout it is.
#[derive(Clone, Debug)]
struct CallCorruption {
    variant: usize,
    method: usize,
    layout_from: usize,
    palette_delta: i64,
    out_delta: i64,
    out_offset: usize,
    active: usize,
    level: usize,
}

fn call_corruption() -> impl Strategy<Value = CallCorruption> {
    (
        0..SkinVariant::ALL.len(),
        0..SkinMethod::ALL.len(),
        0usize..4,
        prop_oneof![Just(0i64), -200i64..200],
        prop_oneof![Just(0i64), -5000i64..5000],
        prop_oneof![Just(0usize), 0usize..64],
        prop_oneof![1usize..=LANES, 0usize..12],
        prop_oneof![0usize..8, any::<usize>()],
    )
        .prop_map(
            |(
                variant,
                method,
                layout_from,
                palette_delta,
                out_delta,
                out_offset,
                active,
                level,
            )| {
                CallCorruption {
                    level,
                    variant,
                    method,
                    layout_from,
                    palette_delta,
                    out_delta,
                    out_offset,
                    active,
                }
            },
        )
}

/// Random corruptions of one skin call on the reference rig: the call succeeds exactly
/// when every input is what the rig, variant and method need, and otherwise returns an
/// error; it never panics (and under AddressSanitizer never touches memory past its
/// inputs).
fn property_skin_call() -> Result<(), Failed> {
    let rigs = [
        Arc::new(PreparedRig::reference()),
        Arc::new(reference_stretched()),
        Arc::new(prepare(twist()).unwrap()),
    ];
    let mut runner = TestRunner::new(Config {
        cases: 1024,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&call_corruption(), |c| {
            let rig = &rigs[0];
            let variant = SkinVariant::ALL[c.variant];
            let method = SkinMethod::ALL[c.method];
            let right = OutputLayout::try_new(variant, rig, method).unwrap();
            let layout = match c.layout_from {
                0 | 1 => right,
                2 => SkinVariant::ALL[(c.variant + 1) % SkinVariant::ALL.len()].layout(rig, method),
                _ => variant.layout(&rigs[1 + c.variant % 2], method),
            };
            let palettes = PaletteStore::needed(rig, variant.palette_layout());
            let palette_len = (palettes as i64 + c.palette_delta).max(0) as usize;
            let out = right.group_bytes_needed(c.active.clamp(1, LANES));
            let out_len = (out as i64 + c.out_delta).max(0) as usize;
            let sizes = GroupSizes {
                palette_len,
                out_len,
                out_offset: c.out_offset,
                active: c.active,
                level: c.level,
            };
            let r =
                skin_group(variant, rig, &layout, sizes, method).map_err(TestCaseError::fail)?;
            let palette_needed = match variant.palette_layout() {
                PaletteLayout::Mat4 | PaletteLayout::Mat3x4 => c.active * rig.palette_stride(),
                PaletteLayout::Lanes => palettes,
            };
            let valid = variant.spec().methods.contains(&method)
                && layout == right
                && (1..=LANES).contains(&c.active)
                && palette_len >= palette_needed
                && out_len >= right.group_bytes_needed(c.active)
                && c.out_offset.is_multiple_of(right.align());
            prop_assert_eq!(r.is_ok(), valid, "{:?}: {:?}", c, r);
            Ok(())
        })
        .map_err(|e| e.to_string().into())
}

/// Random lengths of the hierarchy's and the palette stage's inputs and outputs, and any
/// joint set (every joint, any level's, a level past the chain, another rig's): refused
/// or run, never a panic (tests/validation.rs reaches each refusal by name).
fn property_hierarchy_and_palette_calls() -> Result<(), Failed> {
    let rig = Arc::new(PreparedRig::reference());
    let other = PreparedRig::built_in(skinbench::rig::generate::BuiltInRig::Twist);
    let levels = rig.level_joint_sets().len();
    let s = rig.joint_stride;
    let ps = rig.palette_stride();
    let mut runner = TestRunner::new(Config {
        cases: 512,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        0..HierarchyVariant::ALL.len(),
        prop_oneof![1usize..=LANES, 0usize..12],
        prop_oneof![Just(0usize), 0usize..200],
        prop_oneof![Just(0usize), 0usize..200],
        0usize..3,
        prop_oneof![Just(0usize), 0usize..400],
        0usize..levels + 3,
    );
    runner
        .run(
            &strategy,
            |(h, active, locals_short, model_short, layout, palette_short, set)| {
                let variant = HierarchyVariant::ALL[h];
                let set = match set.checked_sub(2) {
                    None if set == 0 => rig.all_joints(),
                    None => other.all_joints(),
                    Some(level) => rig.joints_at_level(level),
                };
                let locals = vec![Qvs::IDENTITY; (LANES * s).saturating_sub(locals_short)];
                let mut trees: Vec<JointTree> =
                    (0..LANES).map(|_| JointTree::new(&rig.skeleton)).collect();
                let mut mat4 = vec![Mat4::IDENTITY; LANES * s];
                let mut qvs = vec![Qvs::IDENTITY; LANES * s];
                let mut lanes = vec![[F32x8::ZERO; 12]; s];
                let short = |len: usize| len - model_short.min(len);
                let model = match variant.layout() {
                    ModelLayout::Tree => {
                        let len = short(trees.len());
                        ModelPosesMut::Tree(&mut trees[..len])
                    }
                    ModelLayout::Mat4 => {
                        let len = short(mat4.len());
                        ModelPosesMut::Mat4(&mut mat4[..len])
                    }
                    ModelLayout::Qvs => {
                        let len = short(qvs.len());
                        ModelPosesMut::Qvs(&mut qvs[..len])
                    }
                    ModelLayout::Lanes => {
                        let len = short(lanes.len());
                        ModelPosesMut::Lanes(&mut lanes[..len])
                    }
                };
                let r = no_panic("hierarchy::run_group", || {
                    hierarchy::run_group(variant, &rig, &locals, model, active, set)
                })
                .map_err(TestCaseError::fail)?;
                if r.is_err() {
                    return Ok(());
                }
                let model = match variant.layout() {
                    ModelLayout::Tree => ModelPoses::Tree(&trees[..short(trees.len())]),
                    ModelLayout::Mat4 => ModelPoses::Mat4(&mat4[..short(mat4.len())]),
                    ModelLayout::Qvs => ModelPoses::Qvs(&qvs[..short(qvs.len())]),
                    ModelLayout::Lanes => ModelPoses::Lanes(&lanes[..short(lanes.len())]),
                };
                let mut out_mat4 = vec![Mat4::IDENTITY; (LANES * ps).saturating_sub(palette_short)];
                let mut out_mat3x4 = vec![
                    Mat3x4::from_mat4(&Mat4::IDENTITY);
                    (LANES * ps).saturating_sub(palette_short)
                ];
                let mut out_lanes = vec![[F32x8::ZERO; 12]; ps.saturating_sub(palette_short)];
                let out = match layout {
                    0 => PalettesMut::Mat4(&mut out_mat4),
                    1 => PalettesMut::Mat3x4(&mut out_mat3x4),
                    _ => PalettesMut::Lanes(&mut out_lanes),
                };
                no_panic("palette::run_group", || {
                    palette::run_group(&rig, model, out, active, set)
                })
                .map_err(TestCaseError::fail)?
                .ok();
                Ok(())
            },
        )
        .map_err(|e| e.to_string().into())
}

/// Random runs and destinations handed to the pipeline: refused or run, never a panic.
fn property_pipeline_runs() -> Result<(), Failed> {
    let rig = Arc::new(PreparedRig::reference());
    let mut crowd = InstanceStore::new();
    crowd.resize(37, &rig, 2.0);
    let groups = crowd.len().div_ceil(LANES);
    let mut runner = TestRunner::new(Config {
        cases: 128,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        0..SkinVariant::ALL.len(),
        proptest::collection::vec((0usize..7, 0usize..7, -3000i64..3000, 0usize..64), 0..4),
    );
    runner
        .run(&strategy, |(v, runs)| {
            let skin = SkinVariant::ALL[v];
            let config = PipelineConfig {
                skin,
                ..PipelineConfig::best_for(
                    &rig,
                    2.min(skinbench::crowd::pipeline::available_threads()),
                )
            };
            let mut pipeline = Pipeline::new(rig.clone(), config).unwrap();
            let layout = *pipeline.output_layout();
            let ranges: Vec<std::ops::Range<usize>> = runs
                .iter()
                .map(|&(a, b, _, _)| a.min(groups)..b.min(groups + 1))
                .collect();
            let mut buffers: Vec<OutputBuffer> = runs
                .iter()
                .zip(&ranges)
                .map(|(&(_, _, delta, offset), range)| {
                    let (_, needed) = layout.groups_span(crowd.len(), range);
                    OutputBuffer::zeroed((needed as i64 + delta).max(0) as usize + offset)
                })
                .collect();
            let mut outs: Vec<Dest<u8>> = buffers
                .iter_mut()
                .zip(&runs)
                .map(|(b, &(_, _, _, offset))| Dest::from_mut(&mut b.as_bytes_mut()[offset..]))
                .collect();
            no_panic("Pipeline::run_groups_into", || {
                pipeline.run_groups_into(crowd.as_slice(), &ranges, &mut outs, Stage::Skin)
            })
            .map_err(TestCaseError::fail)?
            .ok();
            Ok(())
        })
        .map_err(|e| e.to_string().into())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    skin_cases(&mut trials);
    prepare_cases(&mut trials);
    sorted_cases(&mut trials);
    trials.push(common::trial(
        "sorted_mesh/a_cut_of_another_mesh_is_refused",
        a_cut_of_another_mesh_is_refused,
    ));
    trials.push(common::trial(
        "property/sorted_mesh_corruptions",
        property_sorted_mesh,
    ));
    trials.push(common::trial("property/rig_corruptions", property_rig));
    trials.push(common::trial(
        "property/skin_call_corruptions",
        property_skin_call,
    ));
    trials.push(common::trial(
        "property/hierarchy_and_palette_call_lengths",
        property_hierarchy_and_palette_calls,
    ));
    trials.push(common::trial(
        "property/pipeline_runs_and_destinations",
        property_pipeline_runs,
    ));
    libtest_mimic::run(&args, trials).exit();
}
