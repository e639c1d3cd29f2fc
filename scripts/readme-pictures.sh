#!/usr/bin/env bash
# Makes the README's and the docs' pictures again, after a change to the panel or the
# renderer: each is a window screenshot (with its JSON sidecar) under Xvfb, written to
# bench-results/screenshots/ under the name the pages link. Needs xvfb-run (apt-get install
# xvfb xauth) and a Vulkan driver (lavapipe works); takes a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
cargo build --release
bin="${CARGO_TARGET_DIR:-target}/release/skinbench"
out=bench-results/screenshots
shot() {
    local name=$1
    shift
    xvfb-run -a -s "-screen 0 1600x900x24" "$bin" --no-vsync --window 1600x900 \
        --screenshot "$out/$name.png" "$@"
}
# README: 1,000 characters, best variants, the panel as a user first sees it.
shot readme_crowd_1000 --instances 1000 --frames 40
# docs/gpu-animation.md: the same crowd animated and skinned on the GPU.
shot gpu_animate_1000 --animate gpu --instances 1000 --frames 40
# docs/gpu-animation.md: LOD and culling on the GPU, from the street camera.
shot gpu_lod_street_1000 --animate gpu --lod on --camera street --instances 1000 --frames 40
# README and docs/characters.md: the public characters in assets/ in their own textures
# (Fox: CC0 and CC BY 4.0; CesiumMan: CC BY 4.0 with Cesium's trademark terms; their
# folders hold the licences).
shot readme_fox_300 --rig assets/Fox/Fox.glb --instances 300 --frames 40
shot materials_cesiumman_street --rig assets/CesiumMan/CesiumMan.glb --instances 30 \
    --camera street --hide-panel --frames 40
# docs/characters.md: a character split over four skins with meshes hung on its joints,
# when the file is given (three.js' RobotExpressive.glb, CC0).
if [ -n "${ROBOT_GLB:-}" ]; then
    shot character_robot --rig "$ROBOT_GLB" --instances 9 --frames 40
fi
