//! The file's base colours as drawn: every draw path shows the same picture of every rig
//! in its own colours (the float paths compared with `float3`'s, the packed and GPU ones
//! with `packed`'s, as tests/gpu_conformance.rs compares `gpu_vertex`), and the colours are the materials' own: a Fox split into two
//! materials, green from a yellow texture times a cyan factor and a pure red factor, draws every pixel of the
//! characters in one of the two, on every path, in the places each material covers. One
//! case each (`cargo test --test materials_drawn -- fox/pulled`).

mod common;

use std::sync::Arc;

use libtest_mimic::{Arguments, Failed};
use serde_json::json;
use skinbench::crowd::{InstanceStore, Pipeline, PipelineConfig};
use skinbench::gpu::{BaseColors, OrbitCamera, UploadVariant, crowd_extent};
use skinbench::prepare::PreparedRig;
use skinbench::skin::{DrawPath, SkinMethod, SkinVariant};
use skinbench::variant::Variant;

/// Large enough that the few edge pixels whose coverage flips with the last bit of a
/// position stay under `pictures_match`'s one per thousand drawn.
const SIZE: (u32, u32) = (640, 400);

/// One skin variant per draw path that `rig` takes (the first in declaration order).
fn variant_per_path(rig: &Arc<PreparedRig>) -> Vec<(DrawPath, SkinVariant)> {
    let mut out: Vec<(DrawPath, SkinVariant)> = Vec::new();
    for &skin in SkinVariant::ALL {
        if skin.refusal(SkinMethod::Linear, rig).is_some() {
            continue;
        }
        let config = PipelineConfig {
            skin,
            ..PipelineConfig::best_for(rig, 1)
        };
        let Ok(pipeline) = Pipeline::new(rig.clone(), config) else {
            continue;
        };
        let path = pipeline.output_layout().draw_path();
        if !out.iter().any(|(p, _)| *p == path) {
            out.push((path, skin));
        }
    }
    out
}

fn crowd(rig: &PreparedRig) -> InstanceStore {
    let mut crowd = InstanceStore::new();
    crowd.resize(6, rig, 2.5);
    crowd.advance(0.37);
    crowd
}

fn camera(crowd: &InstanceStore) -> OrbitCamera {
    let mut camera = OrbitCamera::framing(crowd_extent(crowd));
    camera.distance *= 0.6;
    camera
}

/// `crowd` seen from `camera`, drawn with `skin` in `colors`, shadows off (the ground then shows only where
/// no character is).
fn picture(
    gpu: &skinbench::gpu::GpuContext,
    rig: &Arc<PreparedRig>,
    crowd: &InstanceStore,
    camera: &OrbitCamera,
    skin: SkinVariant,
    colors: BaseColors,
) -> Result<image::RgbaImage, Failed> {
    let mut settings = common::app_settings(rig, crowd.len());
    settings.pipeline = PipelineConfig {
        skin,
        ..PipelineConfig::best_for(rig, 1)
    };
    settings.upload = UploadVariant::WriteBuffer;
    settings.shadows = false;
    settings.base_colors = colors;
    let mut scene = common::offscreen_scene(gpu, rig, settings, SIZE).map_err(|e| e.to_string())?;
    scene.set_crowd(crowd.clone());
    *scene.camera_mut() = *camera;
    scene
        .frame(skinbench::gpu::scene::Frame::headless(0.0))
        .map_err(|e| e.to_string())?;
    Ok(scene.read_image().map_err(|e| e.to_string())?)
}

fn save_on_failure(name: &str, pictures: &[(&str, &image::RgbaImage)]) -> String {
    let dir = common::temp_dir(&format!("materials_drawn_{}", name.replace('/', "_")));
    for (file, picture) in pictures {
        let _ = picture.save(dir.join(file));
    }
    dir.display().to_string()
}

/// The path whose picture `path`'s is compared with: the paths that draw the CPU's float
/// vertices with `float3`, those that draw packed or GPU-skinned vertices with `packed`.
/// (Across the two the shading differs where a rig's normals are not unit length: the
/// float paths interpolate them as stored, the packed ones as directions.)
fn reference_path(path: DrawPath) -> DrawPath {
    match path {
        DrawPath::Interleaved | DrawPath::Float3 | DrawPath::Float4 => DrawPath::Float3,
        DrawPath::Packed
        | DrawPath::PackedBlocks
        | DrawPath::Pulled
        | DrawPath::GpuCompute
        | DrawPath::GpuVertex => DrawPath::Packed,
    }
}

/// `skin`'s picture of `rig` in the file's colours is `reference`'s, and differs from its
/// picture in the tints wherever the file gives a texture.
fn same_on_every_path(
    rig: &Arc<PreparedRig>,
    name: &str,
    reference: SkinVariant,
    skin: SkinVariant,
) -> Result<(), Failed> {
    let gpu = common::gpu_or_skip();
    let crowd = crowd(rig);
    let view = camera(&crowd);
    let expected = picture(&gpu, rig, &crowd, &view, reference, BaseColors::File)?;
    let got = picture(&gpu, rig, &crowd, &view, skin, BaseColors::File)?;
    let nobody = InstanceStore::new();
    let empty = picture(&gpu, rig, &nobody, &view, reference, BaseColors::File)?;
    let covered = common::covered_pixels(&expected, &empty)?;
    common::pictures_match(&expected, &got, covered).map_err(|e| {
        let dir = save_on_failure(name, &[("expected.png", &expected), ("got.png", &got)]);
        Failed::from(format!(
            "{e}, against {} (pictures in {dir})",
            reference.name()
        ))
    })?;
    // The file's colours are drawn, not the tints: a textured character looks otherwise.
    // (The ground is the same in both, so every pixel that differs is a character's.)
    if rig.materials.materials.iter().any(|m| m.image.is_some()) {
        let tint = picture(&gpu, rig, &crowd, &view, skin, BaseColors::Tint)?;
        let differ = got
            .pixels()
            .zip(tint.pixels())
            .filter(|(a, b)| a.0[..3] != b.0[..3])
            .count();
        if differ < 2000 {
            let dir = save_on_failure(name, &[("file.png", &got), ("tint.png", &tint)]);
            return Err(format!(
                "the file's colours changed only {differ} pixels (pictures in {dir})"
            )
            .into());
        }
    }
    Ok(())
}

/// The Fox's triangles split into two primitives: the first half green, a solid yellow
/// texture times a cyan factor (either alone has another colour), the second a pure red
/// factor and no texture.
/// With `uvs` false the primitives have no TEXCOORD_0: every uv is (0, 0), so every u sits
/// on a whole unit, where a slot's rounding would show first.
fn fox_green_and_red(uvs: bool) -> Option<Arc<PreparedRig>> {
    let source = common::rigs_dir()?.join("Fox/Fox.glb");
    let mut edit = common::GlbEdit::open(&source);
    let dir = common::temp_dir(&format!("materials_drawn_fox_green_and_red_{uvs}"));
    let yellow = image::RgbaImage::from_pixel(16, 16, image::Rgba([255, 255, 0, 255]));
    yellow.save(dir.join("yellow.png")).unwrap();
    edit.doc["images"] = json!([{ "uri": "yellow.png" }]);
    let mut primitive = edit.doc["meshes"][0]["primitives"][0].clone();
    if !uvs {
        primitive["attributes"]
            .as_object_mut()?
            .remove("TEXCOORD_0");
    }
    let vertices =
        edit.doc["accessors"][primitive["attributes"]["POSITION"].as_u64()? as usize]["count"]
            .as_u64()? as u32;
    let half = vertices / 6 * 3;
    let first: Vec<u32> = (0..half).collect();
    let second: Vec<u32> = (half..vertices).collect();
    let mut a = primitive.clone();
    a["indices"] = json!(edit.add_indices(&first));
    let mut b = primitive;
    b["indices"] = json!(edit.add_indices(&second));
    b["material"] = json!(1);
    edit.doc["meshes"][0]["primitives"] = json!([a, b]);
    edit.doc["materials"] = json!([
        { "name": "green", "pbrMetallicRoughness": {
            "baseColorTexture": { "index": 0 },
            "baseColorFactor": [0.0, 1.0, 1.0, 1.0],
        } },
        { "name": "red", "pbrMetallicRoughness": { "baseColorFactor": [1.0, 0.0, 0.0, 1.0] } },
    ]);
    let path = edit.write(&dir, &format!("Fox_green_and_red_{uvs}.glb"));
    Some(Arc::new(
        PreparedRig::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    ))
}

/// Every pixel a character covers is pure green (texture times factor) or pure red,
/// each a good part of the picture; in the tints, none is. (Shadows are off: no pixel is
/// a mix of a character's colour and the ground's.)
fn two_materials(rig: &Arc<PreparedRig>, skin: SkinVariant, name: &str) -> Result<(), Failed> {
    let gpu = common::gpu_or_skip();
    if rig.materials.materials.len() != 2 || rig.materials.images.len() != 1 {
        return Err(format!("the test rig has {:?}", rig.materials).into());
    }
    let crowd = crowd(rig);
    let view = camera(&crowd);
    for colors in [BaseColors::File, BaseColors::Tint] {
        let got = picture(&gpu, rig, &crowd, &view, skin, colors)?;
        // The ground and the sky have some blue; the two materials have none.
        let (mut green, mut red, mut mixed) = (0usize, 0usize, None);
        for (x, y, p) in got.enumerate_pixels() {
            match p.0 {
                [0, 1..=255, 0, _] => green += 1,
                [1..=255, 0, 0, _] => red += 1,
                [1..=255, 1..=255, 0, _] => mixed = mixed.or(Some((x, y, p.0))),
                _ => {}
            }
        }
        let fail = |what: String| {
            let dir = save_on_failure(name, &[("got.png", &got)]);
            Failed::from(format!("{}: {what} (picture in {dir})", colors.name()))
        };
        if let Some((x, y, rgba)) = mixed {
            return Err(fail(format!(
                "pixel ({x}, {y}) is {rgba:?}, neither material's colour"
            )));
        }
        let drawn = green + red;
        // A pixel of one material whose eight neighbours all show the other: a vertex's
        // material read back wrong inside a triangle, not an edge between the two.
        let class = |x: u32, y: u32| match got.get_pixel(x, y).0 {
            [0, 1..=255, 0, _] => 1u8,
            [1..=255, 0, 0, _] => 2,
            _ => 0,
        };
        let (width, height) = got.dimensions();
        let mut isolated = 0usize;
        for y in 1..height - 1 {
            for x in 1..width - 1 {
                let c = class(x, y);
                if c != 0
                    && (0..9)
                        .filter(|k| *k != 4)
                        .all(|k| class(x + k % 3 - 1, y + k / 3 - 1) == 3 - c)
                {
                    isolated += 1;
                }
            }
        }
        if isolated * 1000 > drawn.max(1) {
            return Err(fail(format!(
                "{isolated} pixels of one material inside the other's, of {drawn} drawn"
            )));
        }
        match colors {
            BaseColors::File => {
                if drawn < 1000 || green * 10 < drawn || red * 10 < drawn {
                    return Err(fail(format!(
                        "{green} green and {red} red pixels: a material barely drawn"
                    )));
                }
            }
            BaseColors::Tint => {
                if drawn > 0 {
                    return Err(fail(format!(
                        "{green} green and {red} red pixels in the tints"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// An image wider than a layer may be is drawn downscaled, and the scene's notes (the
/// panel's) say so.
fn a_wide_image_is_drawn_smaller_with_a_note() -> Result<(), Failed> {
    let dir = common::rigs_or_skip();
    let gpu = common::gpu_or_skip();
    let mut edit = common::GlbEdit::open(&dir.join("Fox/Fox.glb"));
    let out = common::temp_dir("materials_drawn_wide");
    let wide = image::RgbaImage::from_pixel(4096, 8, image::Rgba([200, 120, 40, 255]));
    wide.save(out.join("wide.png")).unwrap();
    edit.doc["images"] = json!([{ "uri": "wide.png", "name": "wide" }]);
    let path = edit.write(&out, "Fox_wide.glb");
    let rig = Arc::new(PreparedRig::load(&path).map_err(|e| e.to_string())?);
    let crowd = crowd(&rig);
    let settings = common::app_settings(&rig, crowd.len());
    let scene = common::offscreen_scene(&gpu, &rig, settings, SIZE).map_err(|e| e.to_string())?;
    let side = skinbench::gpu::renderer::MAX_LAYER_SIDE;
    let (width, height, layers) = scene.renderer().material_layers();
    if (width, height, layers) != (side, 8, 1) {
        return Err(format!("layers {width}×{height}×{layers}").into());
    }
    let wanted = format!("image wide drawn at {side}×8 (the file's is 4096×8)");
    if !scene.notes().iter().any(|n| n == &wanted) {
        return Err(format!("no note {wanted:?} in {:?}", scene.notes()).into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for (name, rig) in common::prepared_rigs() {
        let paths = variant_per_path(rig);
        for &(path, skin) in &paths {
            let reference = reference_path(path);
            let Some(&(_, reference_skin)) = paths.iter().find(|(p, _)| *p == reference) else {
                continue;
            };
            if path == reference {
                continue;
            }
            let (rig, case) = (rig.clone(), format!("{name}/{}", path.name()));
            let label = case.clone();
            trials.push(common::trial(case, move || {
                same_on_every_path(&rig, &label, reference_skin, skin)
            }));
        }
    }
    for (uvs, prefix) in [
        (true, "green_and_red"),
        (false, "green_and_red_without_uvs"),
    ] {
        if let Some(rig) = fox_green_and_red(uvs) {
            for (path, skin) in variant_per_path(&rig) {
                let (rig, case) = (rig.clone(), format!("{prefix}/{}", path.name()));
                let label = case.clone();
                trials.push(common::trial(case, move || {
                    two_materials(&rig, skin, &label)
                }));
            }
        }
    }
    trials.push(common::trial(
        "a_wide_image_is_drawn_smaller_with_a_note",
        a_wide_image_is_drawn_smaller_with_a_note,
    ));
    common::run_trials(&args, trials);
}
