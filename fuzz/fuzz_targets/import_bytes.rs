//! Raw bytes into the importer and nothing after it: containers, JSON syntax and binary
//! chunks as libFuzzer mutates them, with no prepare or pose after it. Seeded with the public
//! rigs and the malformed files the tests build.
#![no_main]

#[path = "exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let name = if data.starts_with(b"glTF") {
        "fuzz.glb"
    } else {
        "fuzz.gltf"
    };
    exercise::import_only(data, name, None);
});
