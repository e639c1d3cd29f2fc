//! The file's materials: a small skinned, textured character whose base colour image is
//! the input's bytes, stored where a file may keep it (in the GLB's binary chunk, in a
//! `data:` URI, or in a file beside a `.gltf`) under the MIME type the input picks. The
//! importer decodes it (PNG, JPEG) or leaves it out with a note; either way the character
//! goes on through prepare, its LOD chain and a pose.
#![no_main]

#[path = "exercise.rs"]
mod exercise;

use arbitrary::Arbitrary;
use base64::Engine as _;
use exercise::{Choice, exercise, exercise_in};
use serde_json::{Value, json};

#[derive(Debug, Arbitrary)]
struct Input {
    place: Place,
    mime: u8,
    /// A texture coordinate set other than 0 (which the importer leaves out with a note).
    other_set: bool,
    factor: [u8; 4],
    choice: Choice,
    image: Vec<u8>,
}

#[derive(Debug, Arbitrary)]
enum Place {
    Chunk,
    DataUri,
    Beside,
}

const MIMES: [Option<&str>; 4] = [
    Some("image/png"),
    Some("image/jpeg"),
    None,
    Some("image/webp"),
];

/// A quad of two triangles on two joints, uvs over the texture, one clip turning the
/// second joint: the vertex data in one buffer, the accessors over it.
fn character(input: &Input) -> (Value, Vec<u8>) {
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut push = |bytes: &[u8], bin: &mut Vec<u8>| {
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        views.push(json!({ "buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len() }));
        bin.extend_from_slice(bytes);
        views.len() - 1
    };
    let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    let positions = floats(&[0., 0., 0., 1., 0., 0., 1., 1., 0., 0., 1., 0.]);
    let uvs = floats(&[0., 1., 1., 1., 1., 0., 0., 0.]);
    let joints: Vec<u8> = vec![0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
    let weights = floats(&[
        1., 0., 0., 0., 0.5, 0.5, 0., 0., 1., 0., 0., 0., 1., 0., 0., 0.,
    ]);
    let indices: Vec<u8> = [0u16, 1, 2, 0, 2, 3]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let binds = floats(
        &[
            glam::Mat4::IDENTITY,
            glam::Mat4::from_translation(glam::Vec3::new(-1.0, 0.0, 0.0)),
        ]
        .iter()
        .flat_map(|m| m.to_cols_array())
        .collect::<Vec<f32>>(),
    );
    let times = floats(&[0.0, 1.0]);
    let rotations = floats(&[0., 0., 0., 1., 0., 0., 0.3826834, 0.9238795]);
    let p = push(&positions, &mut bin);
    let t = push(&uvs, &mut bin);
    let j = push(&joints, &mut bin);
    let w = push(&weights, &mut bin);
    let i = push(&indices, &mut bin);
    let b = push(&binds, &mut bin);
    let k = push(&times, &mut bin);
    let r = push(&rotations, &mut bin);
    let mut image = json!({});
    if let Some(mime) = MIMES[usize::from(input.mime) % MIMES.len()] {
        image["mimeType"] = json!(mime);
    }
    match input.place {
        Place::Chunk => image["bufferView"] = json!(push(&input.image, &mut bin)),
        Place::DataUri => {
            let mime = MIMES[usize::from(input.mime) % MIMES.len()].unwrap_or("image/png");
            let encoded = base64::engine::general_purpose::STANDARD.encode(&input.image);
            image["uri"] = json!(format!("data:{mime};base64,{encoded}"));
        }
        Place::Beside => image["uri"] = json!("base_colour.png"),
    }
    let factor: Vec<f32> = input.factor.iter().map(|&c| f32::from(c) / 255.0).collect();
    let doc = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0, 2] }],
        "nodes": [
            { "name": "root", "children": [1] },
            { "name": "tip", "translation": [1.0, 0.0, 0.0] },
            { "name": "quad", "mesh": 0, "skin": 0 },
        ],
        "skins": [{ "joints": [0, 1], "inverseBindMatrices": 6 }],
        "meshes": [{ "primitives": [{
            "attributes": { "POSITION": 0, "TEXCOORD_0": 1, "JOINTS_0": 2, "WEIGHTS_0": 3 },
            "indices": 4,
            "material": 0,
        }] }],
        "materials": [{ "pbrMetallicRoughness": {
            "baseColorFactor": factor,
            "baseColorTexture": { "index": 0, "texCoord": if input.other_set { 1 } else { 0 } },
        } }],
        "textures": [{ "source": 0, "sampler": 0 }],
        "samplers": [{}],
        "images": [image],
        "animations": [{
            "name": "wave",
            "channels": [{ "sampler": 0, "target": { "node": 1, "path": "rotation" } }],
            "samplers": [{ "input": 7, "output": 8 }],
        }],
        "accessors": [
            { "bufferView": p, "componentType": 5126, "count": 4, "type": "VEC3",
              "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0] },
            { "bufferView": t, "componentType": 5126, "count": 4, "type": "VEC2" },
            { "bufferView": j, "componentType": 5121, "count": 4, "type": "VEC4" },
            { "bufferView": w, "componentType": 5126, "count": 4, "type": "VEC4" },
            { "bufferView": i, "componentType": 5123, "count": 6, "type": "SCALAR" },
            { "bufferView": p, "componentType": 5126, "count": 0, "type": "VEC3" },
            { "bufferView": b, "componentType": 5126, "count": 2, "type": "MAT4" },
            { "bufferView": k, "componentType": 5126, "count": 2, "type": "SCALAR",
              "min": [0.0], "max": [1.0] },
            { "bufferView": r, "componentType": 5126, "count": 2, "type": "VEC4" },
        ],
        "bufferViews": views,
    });
    (doc, bin)
}

/// A GLB container of `json` and `bin`.
fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |len: usize| (4 - len % 4) % 4;
    let (json_len, bin_len) = (json.len() + pad(json.len()), bin.len() + pad(bin.len()));
    let total = 12 + 8 + json_len + 8 + bin_len;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(out.len() + pad(json.len()), b' ');
    out.extend_from_slice(&(bin_len as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out.resize(out.len() + pad(bin.len()), 0);
    out
}

/// A folder of this process's own for the files beside a `.gltf`.
fn beside_dir() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir =
            std::env::temp_dir().join(format!("skinbench-fuzz-images-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        dir
    })
}

libfuzzer_sys::fuzz_target!(|input: Input| {
    let (mut doc, bin) = character(&input);
    match input.place {
        Place::Chunk | Place::DataUri => {
            doc["buffers"] = json!([{ "byteLength": bin.len() }]);
            let json = serde_json::to_vec(&doc).expect("plain JSON");
            exercise(&glb(&json, &bin), "fuzz.glb", input.choice);
        }
        Place::Beside => {
            let dir = beside_dir();
            std::fs::write(dir.join("base_colour.png"), &input.image).expect("written");
            std::fs::write(dir.join("quad.bin"), &bin).expect("written");
            doc["buffers"] = json!([{ "byteLength": bin.len(), "uri": "quad.bin" }]);
            let json = serde_json::to_vec(&doc).expect("plain JSON");
            exercise_in(&json, "fuzz.gltf", Some(dir), input.choice);
        }
    }
});
