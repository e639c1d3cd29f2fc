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
shot_at() {
    local size=$1 name=$2
    shift 2
    xvfb-run -a -s "-screen 0 ${size}x24" "$bin" --no-vsync --window "$size" \
        --screenshot "$out/$name.png" "$@"
}
shot() {
    shot_at 1600x900 "$@"
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
# README and docs/mesh-lod.md: a million Foxes animated, culled, given levels and skinned
# into a pool of a tenth of full detail on the GPU, at 1920×1080, from the street and from
# above (lavapipe: about 20 s a frame and 7.5 GB of memory, a minute each).
for camera in street overview; do
    shot_at 1920x1080 "million_fox_$camera" --rig assets/Fox/Fox.glb --instances 1000000 \
        --animate gpu --lod on --mesh-lod on --skinned-pool 10 --camera "$camera" --frames 3
done
