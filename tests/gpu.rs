//! Offscreen rendering on whatever adapter exists (lavapipe on machines without a GPU):
//! characters appear where they stand, and the UV pattern is on them.

mod common;

use std::sync::Arc;

use glam::Vec3;
use skinbench::crowd::{InstanceStore, PipelineConfig};
use skinbench::gpu::{GpuContext, OrbitCamera, UploadVariant};
use skinbench::prepare::PreparedRig;
use skinbench::skin::{OutputFormat, SkinVariant};
use skinbench::variant::Variant;

fn context() -> Option<GpuContext> {
    common::gpu_context()
}

const SIZE: (u32, u32) = (640, 400);

fn pixel_at(image: &image::RgbaImage, world: Vec3, camera: &OrbitCamera) -> Option<[u8; 3]> {
    let u = camera.uniform(SIZE.0 as f32 / SIZE.1 as f32, 20.0);
    let clip = u.view_proj * world.extend(1.0);
    let ndc = clip.truncate() / clip.w;
    let x = ((ndc.x * 0.5 + 0.5) * SIZE.0 as f32) as i64;
    let y = ((0.5 - ndc.y * 0.5) * SIZE.1 as f32) as i64;
    if x < 0 || y < 0 || x >= SIZE.0 as i64 || y >= SIZE.1 as i64 {
        return None;
    }
    let p = image.get_pixel(x as u32, y as u32).0;
    Some([p[0], p[1], p[2]])
}

fn differs(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter()
        .zip(&b)
        .map(|(x, y)| (*x as i32 - *y as i32).abs())
        .sum::<i32>()
        > 24
}

fn characters_render_where_they_stand_with_the_uv_pattern() {
    let Some(gpu) = context() else {
        common::cannot_run_here()
    };
    let rig = Arc::new(PreparedRig::reference());
    let mut crowd = InstanceStore::new();
    crowd.resize(9, &rig, 2.5);
    crowd.advance(0.3);
    let camera = OrbitCamera {
        target: Vec3::new(0.0, 0.9, 0.0),
        yaw: 0.0,
        pitch: 0.15,
        distance: 11.0,
    };
    // The same view with nobody in it: whatever differs from it is a character.
    let empty = common::render_picture(
        &gpu,
        rig.clone(),
        &InstanceStore::new(),
        common::Drawn {
            config: PipelineConfig::best_for(&rig, 1),
            upload: UploadVariant::WriteBuffer,
            shadows: false,
        },
        &camera,
        SIZE,
    )
    .unwrap();
    // The baseline, then every skin variant with the best of the rest: every vertex layout
    // the renderer has (interleaved, float3, float4, packed, lane blocks) is drawn.
    let mut configs = vec![PipelineConfig::baseline(1)];
    configs.extend(SkinVariant::ALL.iter().map(|&skin| PipelineConfig {
        skin,
        ..PipelineConfig::best_for(&rig, 1)
    }));
    for &upload in UploadVariant::ALL {
        let mut packed_image = None;
        for &config in &configs {
            let image = common::render_picture(
                &gpu,
                rig.clone(),
                &crowd,
                common::Drawn {
                    config,
                    upload,
                    shadows: false,
                },
                &camera,
                SIZE,
            )
            .unwrap();
            // Every packed-format variant draws the same packed vertices, fetched its own
            // way (its own slices; lane blocks at a 128-byte stride; pulled through the
            // distinct index): the same picture as the first one, up to the rounding of the
            // normal decode.
            if config.skin.output_format() == OutputFormat::Packed {
                match &packed_image {
                    None => packed_image = Some(image.clone()),
                    Some(packed) => {
                        let differing = image
                            .pixels()
                            .zip(packed.pixels())
                            .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 2))
                            .count();
                        assert!(
                            differing == 0,
                            "{} {}: {differing} pixels differ from the first packed variant",
                            upload.name(),
                            config.skin.name()
                        );
                    }
                }
            }
            let label = format!(
                "{} {} {}",
                upload.name(),
                config.hierarchy.name(),
                config.skin.name()
            );
            let at =
                |img: &image::RgbaImage, p: Vec3| pixel_at(img, p, &camera).expect("on screen");
            // Every character covers the point 1.1 m above where it stands (crouching too).
            for instance in crowd.as_slice() {
                let [x, z] = instance.ground_position;
                let body = Vec3::new(x, 1.1, z);
                assert!(
                    differs(at(&image, body), at(&empty, body)),
                    "{label}: no character at {body}"
                );
            }
            // Halfway between characters there is nothing.
            for gap in [Vec3::new(1.25, 1.1, 1.25), Vec3::new(-1.25, 0.5, -1.25)] {
                assert!(
                    !differs(at(&image, gap), at(&empty, gap)),
                    "{label}: something at {gap}"
                );
            }
            // The checker: on the centre character's torso, neighbouring pixels jump in
            // brightness where one check meets the next; shading alone is smooth.
            let u = camera.uniform(SIZE.0 as f32 / SIZE.1 as f32, 20.0);
            let clip = u.view_proj * Vec3::new(0.0, 1.15, 0.0).extend(1.0);
            let (cx, cy) = (
                ((clip.x / clip.w * 0.5 + 0.5) * SIZE.0 as f32) as i64,
                ((0.5 - clip.y / clip.w * 0.5) * SIZE.1 as f32) as i64,
            );
            let lum = |img: &image::RgbaImage, x: i64, y: i64| {
                let p = img.get_pixel(x as u32, y as u32).0;
                p[0] as f32 + p[1] as f32 + p[2] as f32
            };
            let body = |x: i64, y: i64| {
                let (a, b) = (
                    image.get_pixel(x as u32, y as u32).0,
                    empty.get_pixel(x as u32, y as u32).0,
                );
                differs([a[0], a[1], a[2]], [b[0], b[1], b[2]])
            };
            let mut edges = 0;
            for y in cy - 20..cy + 20 {
                for x in cx - 10..cx + 10 {
                    if body(x, y) && body(x + 1, y) {
                        let (a, b) = (lum(&image, x, y), lum(&image, x + 1, y));
                        if a.max(b) / a.min(b).max(1.0) > 1.25 {
                            edges += 1;
                        }
                    }
                }
            }
            // Measured: 142 with the pattern, 64 (silhouette and shading) with all-zero UVs.
            assert!(
                edges >= 100,
                "{label}: no UV checker edges on the torso ({edges})"
            );
        }
    }
}

fn the_sun_casts_the_characters_shadows_on_the_ground() {
    let Some(gpu) = context() else {
        common::cannot_run_here()
    };
    let rig = Arc::new(PreparedRig::reference());
    let mut crowd = InstanceStore::new();
    crowd.resize(1, &rig, 2.5);
    crowd.advance(0.3);
    let camera = OrbitCamera {
        target: Vec3::new(0.0, 0.5, 0.0),
        yaw: 0.3,
        pitch: 0.9,
        distance: 7.0,
    };
    let config = PipelineConfig::best_for(&rig, 1);
    let render = |crowd: &InstanceStore, shadows: bool| {
        common::render_picture(
            &gpu,
            rig.clone(),
            crowd,
            common::Drawn {
                config,
                upload: UploadVariant::WriteBuffer,
                shadows,
            },
            &camera,
            SIZE,
        )
        .unwrap()
    };
    // Nobody there: nothing casts a shadow, so the switch changes nothing.
    let empty = InstanceStore::new();
    assert_eq!(render(&empty, false), render(&empty, true));
    // One character: the sun (travelling along -0.4, -1, -0.55) puts its shadow on the
    // ground beyond it; only darker pixels, and a shadow of some size.
    let lit = render(&crowd, false);
    let shaded = render(&crowd, true);
    let sum = |p: &image::Rgba<u8>| p.0[..3].iter().map(|&c| c as i32).sum::<i32>();
    let mut darker = 0;
    for (a, b) in lit.pixels().zip(shaded.pixels()) {
        let (a, b) = (sum(a), sum(b));
        assert!(b <= a + 6, "shadows made a pixel brighter: {a} -> {b}");
        if b + 30 < a {
            darker += 1;
        }
    }
    assert!(darker > 300, "only {darker} pixels fell into shadow");
    // The shadow lies where the sun throws it: the ground point 1 m along the light's
    // ground direction from the character's feet is darker with shadows on.
    let light = Vec3::new(-0.4, -1.0, -0.55).normalize();
    let along = Vec3::new(light.x, 0.0, light.z).normalize() * 0.6;
    let ground = Vec3::new(
        crowd.as_slice()[0].ground_position[0],
        0.0,
        crowd.as_slice()[0].ground_position[1],
    ) + along;
    let (before, after) = (
        pixel_at(&lit, ground, &camera).unwrap(),
        pixel_at(&shaded, ground, &camera).unwrap(),
    );
    let total = |p: [u8; 3]| p.iter().map(|&c| c as i32).sum::<i32>();
    assert!(
        total(after) + 30 < total(before),
        "the ground beyond the character is not in shadow: {before:?} -> {after:?}"
    );
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "characters_render_where_they_stand_with_the_uv_pattern",
            characters_render_where_they_stand_with_the_uv_pattern,
        ),
        (
            "the_sun_casts_the_characters_shadows_on_the_ground",
            the_sun_casts_the_characters_shadows_on_the_ground,
        ),
    ];
    common::run_tests(tests);
}
