//! Raw bytes into the importer: containers, JSON syntax and binary chunks as libFuzzer
//! mutates them. Seeded with the public rigs and the malformed files the tests build.
#![no_main]

#[path = "exercise.rs"]
mod exercise;

use exercise::{Choice, exercise};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The variants come from the input's length, so the bytes themselves stay the file.
    let n = data.len();
    let choice = Choice {
        hierarchy: n as u8,
        skin: (n >> 3) as u8,
        method: (n >> 5) as u8,
        fused: n.is_multiple_of(2),
        blend_eighths: (n >> 1) as u8,
        time_centisecs: (n as u16).wrapping_mul(37),
    };
    let name = if data.starts_with(b"glTF") {
        "fuzz.glb"
    } else {
        "fuzz.gltf"
    };
    exercise(data, name, choice);
});
