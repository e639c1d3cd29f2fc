// A character's 32-byte record (`crowd::animate::Record`), imported by animate.wgsl and
// lod.wgsl: its clip time at clock reading `since_secs`, its speed, place and material.
#define_import_path skinbench::record

struct Character {
    time_secs: f32,
    speed: f32,
    ground: vec2<f32>,
    // The clip in the low 16 bits, the cross-fade's clip in the high 16.
    clips: u32,
    material: u32,
    since_secs: f32,
    // Written by the LOD pass (lod.wgsl, `CharacterLod::record_due_word`): RECORD_ANIMATE
    // when this frame recomputes the character, RECORD_SKIN when `gpu_compute` skins it,
    // and from RECORD_SKIN_LEVEL_SHIFT the level of the mesh's chain it skins.
    due: u32,
};
