//! The structure-aware edits of `import_json` on the small rigs, taken on past import:
//! prepare, the mesh's LOD chain and each level's error, the clip survey, one clip's motion
//! and a pose with the variants the input picks (`exercise.rs`).
#![no_main]

#[path = "exercise.rs"]
mod exercise;
#[path = "json_edits.rs"]
mod json_edits;

libfuzzer_sys::fuzz_target!(|input: json_edits::Input| {
    let (bytes, name) = json_edits::edited(&input, true);
    exercise::exercise(&bytes, name, input.choice);
});
