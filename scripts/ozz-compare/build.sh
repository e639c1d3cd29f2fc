#!/usr/bin/env bash
# Builds ozz_frame (ozz-animation's frame on a skinbench rig) from ozz_frame.cc and the
# part of ozz-animation 0.16.0 in third_party/ozz-animation, with the same optimisation a
# release build of skinbench gets (-O3, this CPU's instruction set): about ten seconds on
# two cores.
#
#     bash scripts/ozz-compare/build.sh [OUT_DIR]     # default: target/ozz-compare
#
# Prints the binary's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
ozz="$repo/third_party/ozz-animation"
out=$(realpath -m "${1:-$repo/target/ozz-compare}")
mkdir -p "$out/obj"
flags=(-O3 -march=native -DNDEBUG -std=c++17 -I "$ozz/include" -I "$ozz/src")
sources=(
    src/base/encode/group_varint.cc
    src/base/log.cc
    src/base/maths/soa_math_archive.cc
    src/base/memory/allocator.cc
    src/animation/runtime/animation.cc
    src/animation/runtime/local_to_model_job.cc
    src/animation/runtime/sampling_job.cc
    src/animation/runtime/skeleton.cc
    src/animation/offline/animation_builder.cc
    src/animation/offline/raw_animation.cc
    src/animation/offline/raw_animation_utils.cc
    src/animation/offline/raw_skeleton.cc
    src/animation/offline/skeleton_builder.cc
    src/geometry/runtime/skinning_job.cc
)
objects=()
pids=()
for s in "${sources[@]}"; do
    o="$out/obj/$(echo "$s" | tr / _).o"
    objects+=("$o")
    g++ "${flags[@]}" -c "$ozz/$s" -o "$o" &
    pids+=($!)
done
# Each compile's own status: a plain `wait` would report success whatever failed.
for pid in "${pids[@]}"; do
    wait "$pid" || { echo "build.sh: compiling ozz-animation failed (above)" >&2; exit 1; }
done
g++ "${flags[@]}" -Wall -Wextra -Werror "$here/ozz_frame.cc" "${objects[@]}" -lpthread \
    -o "$out/ozz_frame"
echo "$out/ozz_frame"
