//! Structure-aware fuzzing of the importer alone: the input is a list of edits to the JSON
//! of a valid rig (`json_edits.rs`), and the edited file goes through import and nothing
//! after it, so the time goes to the importer's checks. `prepare_json`
//! takes the same edits on through prepare, the LOD chain and a pose.
#![no_main]

#[path = "exercise.rs"]
mod exercise;
#[path = "json_edits.rs"]
mod json_edits;

libfuzzer_sys::fuzz_target!(|input: json_edits::Input| {
    let (bytes, name) = json_edits::edited(&input, false);
    exercise::import_only(&bytes, name, None);
});
