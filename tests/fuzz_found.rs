//! Every input with which the fuzz targets (`fuzz/`, see its README) once crashed the
//! program, as a test on stable. The findings are edits of public rigs, so each is rebuilt
//! here from `../shared/rigs` by the edit the fuzzer made (the rigs are not copied into
//! the project); each test names the target that found it.

mod common;

use serde_json::Value;
use skinbench::rig::import_slice;

/// A public rig's JSON and binary chunk; where the rigs are absent the running test stops
/// as *ignored*, with the reason (under `CI=true` it fails).
fn public_glb(relative: &str) -> (Value, Vec<u8>) {
    let bytes = std::fs::read(common::rigs_or_skip().join(relative)).unwrap();
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin = bytes[bin_at + 8..bin_at + 8 + u32_at(bin_at)].to_vec();
    (json, bin)
}

/// Fox with one edit to its JSON must be refused with a message containing `expected`.
fn fox_edited_is_refused(name: &str, edit: impl FnOnce(&mut Value), expected: &str) {
    let (mut json, bin) = public_glb("Fox/Fox.glb");
    edit(&mut json);
    let bytes = common::glb(&serde_json::to_vec(&json).unwrap(), &bin);
    let message = import_slice(&bytes, name, None).unwrap_err().to_string();
    assert!(
        message.contains(name) && message.contains(expected),
        "{message}"
    );
}

/// `import_json`, first minutes: a channel's path replaced by another glTF enum string.
/// The gltf crate's validation does not look at channel targets, and its accessor
/// panicked ("attempted to unwrap an invalid item").
fn a_channel_path_that_names_no_property_is_refused() {
    fox_edited_is_refused(
        "scalar-path.glb",
        |json| json["animations"][0]["channels"][19]["target"]["path"] = "SCALAR".into(),
        "animations[0].channels[19].target.path: not one of translation",
    );
}

/// `import_bytes`, first minutes: one byte of a path changed in the GLB's JSON
/// (`"rotatio|"`), the same panic by the other road.
fn a_misspelt_channel_path_is_refused() {
    fox_edited_is_refused(
        "misspelt-path.glb",
        |json| json["animations"][0]["channels"][1]["target"]["path"] = "rotatio|".into(),
        "animations[0].channels[1].target.path",
    );
}

/// Found reading the gltf crate after the two above: channel target nodes are not checked
/// either, and a node past the list panicked the same way.
fn a_channel_on_a_node_that_does_not_exist_is_refused() {
    fox_edited_is_refused(
        "missing-node.glb",
        |json| json["animations"][1]["channels"][0]["target"]["node"] = 4000.into(),
        "animations[1].channels[0].target.node: node 4000 does not exist (the file has 26)",
    );
}

/// `import_json`, 7 of its findings in the first 25 minutes: an edit that empties or
/// shortens the accessor list. The gltf crate's own validation indexed the POSITION
/// accessor without a bounds check and panicked inside `Document::from_json`.
fn a_position_accessor_past_the_list_is_refused() {
    fox_edited_is_refused(
        "no-accessors.glb",
        |json| json["accessors"] = serde_json::json!([]),
        "meshes[0].primitives[0].attributes.POSITION: accessor 0 does not exist (the file has 0)",
    );
}

/// `import_images`, first seconds: an image in a buffer view without the `mimeType` the
/// spec requires beside one (the gltf crate's `Image::source` unwrapped it and panicked),
/// and one that names neither a buffer view nor a uri (the same function unwrapped the
/// uri). The first loads with its image (its bytes say PNG), the second with the image left
/// out and a note, the material keeping its factor; the Fox's image is in a buffer view.
fn an_image_without_its_mime_type_or_its_data_loads() {
    for (edit, decoded) in [("mimeType", true), ("bufferView", false)] {
        let (mut json, bin) = public_glb("Fox/Fox.glb");
        let image = json["images"][0].as_object_mut().unwrap();
        assert!(image.remove(edit).is_some(), "the Fox's image has a {edit}");
        let bytes = common::glb(&serde_json::to_vec(&json).unwrap(), &bin);
        let (rig, _) =
            import_slice(&bytes, "fox.glb", None).unwrap_or_else(|e| panic!("without {edit}: {e}"));
        assert_eq!(
            rig.materials.images.len(),
            usize::from(decoded),
            "without {edit}: {:?}",
            rig.materials.notes
        );
        assert_eq!(rig.materials.notes.is_empty(), decoded, "without {edit}");
    }
}

/// `import_json`, in its second minute: CesiumMan with its first joint (node 2, the
/// skeleton's animated root) replaced by the scene's root node 0. Node 2 then became a
/// joint as an animated ancestor, but node 21, between it and node 0, was not inserted, so
/// node 2's subtree hung under a joint by no chain of joints and building the skeleton
/// panicked ("skin joints are members"). It loads, node 21 and node 2 joining the
/// skeleton under node 0 in that order, and prepares.
fn a_scene_root_among_the_joints_above_an_animated_one_loads() {
    let (mut json, bin) = public_glb("CesiumMan/CesiumMan.glb");
    assert_eq!(json["skins"][0]["joints"][0], 2, "CesiumMan's first joint");
    json["skins"][0]["joints"][0] = 0.into();
    let bytes = common::glb(&serde_json::to_vec(&json).unwrap(), &bin);
    let (rig, report) =
        import_slice(&bytes, "cesium_man.glb", None).unwrap_or_else(|e| panic!("{e}"));
    let skeleton = &rig.skeleton;
    // The 19 named joints (node 0 in node 2's place) and the two that joined.
    assert_eq!(skeleton.joint_count(), 21, "{:?}", skeleton.names);
    assert_eq!(skeleton.root_count, 1);
    assert_eq!(report.inserted_joints, 1);
    assert_eq!(report.animated_ancestors.len(), 1);
    let joint = |node: &str| skeleton.names.iter().position(|n| n == node).unwrap();
    assert_eq!(skeleton.parents[joint("joint_21")], joint("joint_0") as u16);
    assert_eq!(skeleton.parents[joint("joint_2")], joint("joint_21") as u16);
    skinbench::prepare::PreparedRig::new(rig, &report, "cesium_man.glb")
        .unwrap_or_else(|e| panic!("prepare: {e}"));
}

fn main() {
    common::run_tests(vec![
        (
            "a_channel_path_that_names_no_property_is_refused",
            a_channel_path_that_names_no_property_is_refused,
        ),
        (
            "a_misspelt_channel_path_is_refused",
            a_misspelt_channel_path_is_refused,
        ),
        (
            "a_channel_on_a_node_that_does_not_exist_is_refused",
            a_channel_on_a_node_that_does_not_exist_is_refused,
        ),
        (
            "a_position_accessor_past_the_list_is_refused",
            a_position_accessor_past_the_list_is_refused,
        ),
        (
            "an_image_without_its_mime_type_or_its_data_loads",
            an_image_without_its_mime_type_or_its_data_loads,
        ),
        (
            "a_scene_root_among_the_joints_above_an_animated_one_loads",
            a_scene_root_among_the_joints_above_an_animated_one_loads,
        ),
    ]);
}
