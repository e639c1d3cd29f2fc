//! The file's materials as the importer reads them: base colour factors and textures
//! (PNG and JPEG), the vertices each covers, and every way an image can be bad (not an
//! image, corrupt, too large, a missing file) ending in a note while the character loads.

mod common;

use serde_json::json;
use skinbench::rig::Rig;
use skinbench::rig::import::{ImportReport, import_path};
use skinbench::rig::materials::MAX_IMAGE_PIXELS;

fn fox() -> Option<common::GlbEdit> {
    Some(common::GlbEdit::open(
        &common::rigs_dir()?.join("Fox/Fox.glb"),
    ))
}

fn load(edit: &common::GlbEdit, name: &str) -> (Rig, ImportReport) {
    let dir = common::temp_dir("materials");
    let path = edit.write(&dir, name);
    import_path(&path).unwrap_or_else(|e| panic!("{name} did not load: {e}"))
}

/// The byte range of the Fox's image in its BIN chunk.
fn image_bytes(edit: &common::GlbEdit) -> std::ops::Range<usize> {
    let view = edit.doc["images"][0]["bufferView"].as_u64().unwrap() as usize;
    let view = &edit.doc["bufferViews"][view];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    start..start + view["byteLength"].as_u64().unwrap() as usize
}

fn fox_png_texture_covers_every_vertex() {
    let Some(edit) = fox() else {
        common::cannot_run_here()
    };
    let (rig, _) = load(&edit, "Fox.glb");
    let m = &rig.materials;
    assert_eq!(m.materials.len(), 1, "{:?}", m.materials);
    assert_eq!(m.materials[0].name, "fox_material");
    assert_eq!(m.materials[0].base_color_factor, [1.0; 4]);
    let image = &m.images[m.materials[0].image.expect("a texture")];
    assert!(image.width >= 64 && image.height >= 64, "{image:?}");
    assert_eq!(image.rgba.len(), (image.width * image.height * 4) as usize);
    // Not a blank image: the Fox is orange and white.
    let distinct: std::collections::HashSet<&[u8]> = image.rgba.chunks_exact(4).collect();
    assert!(distinct.len() > 16, "{} colours", distinct.len());
    let per_vertex = m.per_vertex(rig.mesh.vertex_count()).unwrap();
    assert!(per_vertex.iter().all(|&v| v == 0));
    assert!(m.notes.is_empty(), "{:?}", m.notes);
}

fn cesium_man_jpeg_texture() {
    let Some(dir) = common::rigs_dir() else {
        common::cannot_run_here()
    };
    let (rig, _) = import_path(&dir.join("CesiumMan/CesiumMan.glb")).unwrap();
    let m = &rig.materials;
    let image = &m.images[m.materials[0].image.expect("a texture")];
    assert!(image.width >= 64, "{image:?}");
    assert!(m.notes.is_empty(), "{:?}", m.notes);
}

fn built_in_rigs_have_no_materials() {
    let rig = skinbench::rig::generate::reference_rig();
    assert!(rig.materials.materials.is_empty());
    assert_eq!(rig.materials.per_vertex(rig.mesh.vertex_count()), None);
}

/// Two materials over the Fox's one primitive split in two: each covers its own vertices,
/// the second with its factor and no texture.
fn two_materials_cover_their_own_vertices() {
    let Some(mut edit) = fox() else {
        common::cannot_run_here()
    };
    let primitive = edit.doc["meshes"][0]["primitives"][0].clone();
    let mut second = primitive.clone();
    second["material"] = json!(1);
    edit.doc["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .push(second);
    edit.doc["materials"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "name": "plain", "pbrMetallicRoughness": { "baseColorFactor": [0.25, 0.5, 0.75, 1.0] } }));
    let (rig, _) = load(&edit, "Fox_two_materials.glb");
    let m = &rig.materials;
    assert_eq!(m.materials.len(), 2);
    assert_eq!(m.materials[1].base_color_factor, [0.25, 0.5, 0.75, 1.0]);
    assert_eq!(m.materials[1].image, None);
    let n = rig.mesh.vertex_count();
    let per_vertex = m.per_vertex(n).unwrap();
    assert_eq!(per_vertex[..n / 2], vec![0u16; n / 2][..]);
    assert_eq!(per_vertex[n / 2..], vec![1u16; n - n / 2][..]);
}

fn assert_left_out(rig: &Rig, report: &ImportReport, why: &str) {
    let m = &rig.materials;
    assert_eq!(m.materials[0].image, None, "{:?}", m.images);
    assert!(m.notes.iter().any(|n| n.contains(why)), "{:?}", m.notes);
    // The note reaches the import report (inspect and the panel print those).
    assert!(
        report.notes.iter().any(|n| n.contains(why)),
        "{:?}",
        report.notes
    );
    assert!(rig.mesh.vertex_count() > 0);
}

fn bytes_that_are_no_image_leave_the_texture_out() {
    let Some(mut edit) = fox() else {
        common::cannot_run_here()
    };
    let range = image_bytes(&edit);
    edit.bin[range].fill(0x5a);
    let (rig, report) = load(&edit, "Fox_no_image.glb");
    assert_left_out(&rig, &report, "neither PNG nor JPEG");
}

fn corrupt_png_data_leaves_the_texture_out() {
    let Some(mut edit) = fox() else {
        common::cannot_run_here()
    };
    let range = image_bytes(&edit);
    // The signature and header stay; the compressed data after them is garbage.
    let start = range.start + 64;
    edit.bin[start..range.end].fill(0x5a);
    let (rig, report) = load(&edit, "Fox_corrupt_png.glb");
    assert_left_out(&rig, &report, "corrupt");
}

/// crc32 as PNG chunks use it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn an_image_past_the_pixel_bound_is_refused_by_its_header() {
    let Some(mut edit) = fox() else {
        common::cannot_run_here()
    };
    let range = image_bytes(&edit);
    // A well-formed PNG header claiming 65536 × 65536 pixels (the data after it is never read).
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend_from_slice(&65536u32.to_be_bytes());
    ihdr.extend_from_slice(&65536u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend_from_slice(&13u32.to_be_bytes());
    png.extend_from_slice(&ihdr);
    png.extend_from_slice(&crc32(&ihdr).to_be_bytes());
    edit.bin[range.start..range.start + png.len()].copy_from_slice(&png);
    const { assert!(65536u64 * 65536 > MAX_IMAGE_PIXELS) };
    let (rig, report) = load(&edit, "Fox_huge_png.glb");
    assert_left_out(&rig, &report, "65536×65536 pixels");
}

/// The Fox as a .gltf with its image in a file beside it: read from there, and a note
/// (not a failure) once the file is gone.
fn an_external_image_is_read_and_a_missing_one_noted() {
    let Some(mut edit) = fox() else {
        common::cannot_run_here()
    };
    let dir = common::temp_dir("materials-external");
    let range = image_bytes(&edit);
    std::fs::write(dir.join("fox texture.png"), &edit.bin[range]).unwrap();
    std::fs::write(dir.join("fox.bin"), &edit.bin).unwrap();
    edit.doc["images"][0] = json!({ "uri": "fox%20texture.png", "name": "skin" });
    edit.doc["buffers"][0]["uri"] = json!("fox.bin");
    let path = dir.join("fox.gltf");
    std::fs::write(&path, serde_json::to_vec(&edit.doc).unwrap()).unwrap();
    let (rig, _) = import_path(&path).unwrap();
    let image = &rig.materials.images[rig.materials.materials[0].image.expect("a texture")];
    assert_eq!(image.name, "skin");
    std::fs::remove_file(dir.join("fox texture.png")).unwrap();
    let (rig, report) = import_path(&path).unwrap();
    assert_left_out(&rig, &report, "fox texture.png");
}

/// Many materials each with its own large image: the image past the character's total is
/// left out with a note, the others read (4096² is a sixteenth of the total).
fn images_past_the_total_are_left_out() {
    let Some(mut edit) = fox() else {
        common::cannot_run_here()
    };
    // One 4096 × 4096 PNG (mostly one colour, so small), made once.
    let big = image::RgbaImage::from_pixel(4096, 4096, image::Rgba([200, 120, 40, 255]));
    let mut png = Vec::new();
    big.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let offset = edit.bin.len();
    edit.bin.extend_from_slice(&png);
    while !edit.bin.len().is_multiple_of(4) {
        edit.bin.push(0);
    }
    let views = edit.doc["bufferViews"].as_array_mut().unwrap();
    views.push(json!({ "buffer": 0, "byteOffset": offset, "byteLength": png.len() }));
    let big_view = views.len() - 1;
    edit.doc["buffers"][0]["byteLength"] = json!(edit.bin.len());
    // Seventeen materials over as many copies of the primitive, each with its own image.
    let primitive = edit.doc["meshes"][0]["primitives"][0].clone();
    let mut primitives = Vec::new();
    for k in 0..17 {
        edit.doc["images"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "bufferView": big_view, "mimeType": "image/png" }));
        edit.doc["textures"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "source": k + 1 }));
        edit.doc["materials"].as_array_mut().unwrap().push(json!({
            "name": format!("big {k}"),
            "pbrMetallicRoughness": { "baseColorTexture": { "index": k + 1 } }
        }));
        let mut p = primitive.clone();
        p["material"] = json!(k + 1);
        primitives.push(p);
    }
    edit.doc["meshes"][0]["primitives"] = json!(primitives);
    let (rig, report) = load(&edit, "Fox_many_images.glb");
    let m = &rig.materials;
    assert_eq!(m.materials.len(), 17);
    let read = m.materials.iter().filter(|m| m.image.is_some()).count();
    assert_eq!(read, 16, "{:?}", m.notes);
    assert_eq!(m.materials[16].image, None);
    let total: u64 = m
        .images
        .iter()
        .map(|i| u64::from(i.width) * u64::from(i.height))
        .sum();
    assert!(total <= skinbench::rig::materials::MAX_TOTAL_IMAGE_PIXELS);
    assert_left_out_note(&report, "a character's images may have together");
}

fn assert_left_out_note(report: &ImportReport, why: &str) {
    assert!(
        report.notes.iter().any(|n| n.contains(why)),
        "{:?}",
        report.notes
    );
}

fn main() {
    let tests: Vec<(&'static str, fn())> = vec![
        (
            "fox_png_texture_covers_every_vertex",
            fox_png_texture_covers_every_vertex,
        ),
        ("cesium_man_jpeg_texture", cesium_man_jpeg_texture),
        (
            "built_in_rigs_have_no_materials",
            built_in_rigs_have_no_materials,
        ),
        (
            "two_materials_cover_their_own_vertices",
            two_materials_cover_their_own_vertices,
        ),
        (
            "bytes_that_are_no_image_leave_the_texture_out",
            bytes_that_are_no_image_leave_the_texture_out,
        ),
        (
            "corrupt_png_data_leaves_the_texture_out",
            corrupt_png_data_leaves_the_texture_out,
        ),
        (
            "an_image_past_the_pixel_bound_is_refused_by_its_header",
            an_image_past_the_pixel_bound_is_refused_by_its_header,
        ),
        (
            "an_external_image_is_read_and_a_missing_one_noted",
            an_external_image_is_read_and_a_missing_one_noted,
        ),
        (
            "images_past_the_total_are_left_out",
            images_past_the_total_are_left_out,
        ),
    ];
    common::run_tests(tests);
}
