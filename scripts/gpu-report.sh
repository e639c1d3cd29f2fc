#!/usr/bin/env bash
# One command that measures a machine with a GPU: the gpu workload at 1,000, 10,000 and
# 100,000 characters (CPU animation with the best CPU skinning, gpu_compute, gpu_vertex;
# the animation on the GPU with walk and levels; update-rate LOD and mesh LOD off and on;
# shadows off and on; 10,000 and 100,000 also from the street camera), 1,000,000 animated
# on the GPU (the configurations its memory holds: the skinned pool's row and gpu_vertex's;
# the report lists the rest with the budget's reason), the frame workload at 1,000
# characters on 1, 2, 4, 8 and all cores, the crowd workload at 10,000, and last 100,000
# from the street camera again at 3840x2160, then `skinbench summarize` over the reports.
# The drawing workloads draw 1920x1080 images (the bench's default `--size`).
#
#   scripts/gpu-report.sh [--quick] [--allow-cpu-adapter] [--budget SECS] OUT_DIR
#
# --quick               a tiny configuration of every part (100 characters, the fewest
#                       frames, 640x360 images): for CI and for trying the script out
# --allow-cpu-adapter   run on a CPU adapter (lavapipe, llvmpipe) too; the reports' titles
#                       then say that their GPU figures are not GPU speed
# --budget SECS         wall time for the measuring parts (default 480); a part that would
#                       pass it is stopped and marked so in the summary, and the parts
#                       after it are skipped
#
# SKINBENCH=path/to/skinbench uses that binary instead of building one.
# Writes OUT_DIR/*.md and *.json (one report per part), OUT_DIR/parts.tsv (each part's
# wall time), OUT_DIR/run.log, and OUT_DIR/summary.md and summary.json.
set -euo pipefail

usage() {
    sed -n '12,23p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

quick=0
allow_cpu=0
budget=480
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --allow-cpu-adapter) allow_cpu=1 ;;
        --budget)
            shift
            [ $# -gt 0 ] || usage
            case "$1" in
                '' | *[!0-9]*) echo "gpu-report: --budget $1 is not a whole number of seconds" >&2; exit 2 ;;
            esac
            budget="$1"
            ;;
        -h | --help) usage ;;
        -*) echo "gpu-report: unknown option $1" >&2; usage ;;
        *)
            [ -z "$out" ] || { echo "gpu-report: one OUT_DIR only (given $out and $1)" >&2; exit 2; }
            out="$1"
            ;;
    esac
    shift
done
[ -n "$out" ] || usage

root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
log="$out/run.log"
: > "$log"
say() { echo "$*" | tee -a "$log" >&2; }

# The binary: the given one, or a release build (a no-op when it is up to date).
if [ -n "${SKINBENCH:-}" ]; then
    bin="$SKINBENCH"
    [ -x "$bin" ] || { echo "gpu-report: SKINBENCH=$bin is not an executable" >&2; exit 2; }
    say "binary: $bin (given)"
else
    start=$(date +%s)
    (cd "$root" && cargo build --release --bin skinbench) 2>&1 | tail -n 3 | tee -a "$log" >&2
    say "build: $(( $(date +%s) - start )) s (cargo build --release)"
    # Where cargo put it: CARGO_TARGET_DIR, a .cargo/config's build.target-dir, or ./target.
    target_dir="$(cd "$root" && cargo metadata --format-version 1 --no-deps 2>/dev/null \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' \
        2>/dev/null || true)"
    bin="${target_dir:-${CARGO_TARGET_DIR:-$root/target}}/release/skinbench"
    [ -x "$bin" ] || { say "gpu-report: the build left no binary at $bin"; exit 2; }
fi

cpu="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)"
say "CPU: ${cpu:-unknown}, $(nproc) cores"
if ! adapter_json="$("$bin" adapter --json 2>>"$log")"; then
    say "gpu-report: no GPU adapter (see $log)"
    exit 1
fi
"$bin" adapter 2>>"$log" | tee -a "$log" >&2
case "$adapter_json" in
    *'"cpu_adapter":true'*)
        if [ "$allow_cpu" -ne 1 ]; then
            say "gpu-report: the adapter is a CPU emulation of a GPU; its timings are not GPU speed. Run this on a machine with a GPU, or pass --allow-cpu-adapter to test the script (the reports then say so in their titles)."
            exit 3
        fi
        say "a CPU adapter, allowed (--allow-cpu-adapter): the figures test the report, they are not GPU speed"
        ;;
esac

if [ "$quick" -eq 1 ]; then
    big=100
    huge=0
    frame_n=100
    crowd_n=100
    threads="1,all"
    # The smallest image a LOD threshold still means something in: the tiny parts only
    # try the script out.
    q=(--quick --size 640x360)
    q_big=(--quick --size 640x360)
else
    big=1000
    huge=100000
    million=1000000
    frame_n=1000
    crowd_n=10000
    threads="1,2,4,8,all"
    q=()
    # The largest counts keep every configuration with the fewest frames.
    q_big=(--quick)
fi

printf '' > "$out/parts.tsv"
began=$(date +%s)
stopped=""
# part NAME -- ARGS...: one bench run with the time left, recorded in parts.tsv.
part() {
    local name="$1"
    shift 2
    if [ -n "$stopped" ]; then
        printf '%s\t0\tskipped (the budget ran out at %s)\n' "$name" "$stopped" >> "$out/parts.tsv"
        say "skipped: $name"
        return
    fi
    local left=$(( budget - ($(date +%s) - began) ))
    if [ "$left" -le 5 ]; then
        stopped="$name"
        printf '%s\t0\tskipped (the budget ran out)\n' "$name" >> "$out/parts.tsv"
        say "skipped: $name (the budget of $budget s ran out)"
        return
    fi
    say "part: $name ($left s left of $budget)"
    local start status
    start=$(date +%s)
    if timeout "$left" "$bin" bench --out "$out" "$@" >> "$log" 2>&1; then
        status="ok"
    else
        local rc=$?
        if [ "$rc" -eq 124 ]; then
            status="stopped at the budget"
            stopped="$name"
        else
            status="failed (exit $rc, see run.log)"
        fi
    fi
    local took=$(( $(date +%s) - start ))
    printf '%s\t%s\t%s\n' "$name" "$took" "$status" >> "$out/parts.tsv"
    say "  $status in $took s"
}

part "gpu, $big characters" -- --workload gpu --instances "$big" "${q[@]}"
if [ "$quick" -eq 0 ]; then
    part "gpu, 10000 characters" -- --workload gpu --instances 10000 "${q_big[@]}"
    part "gpu, $huge characters (GPU animation)" -- --workload gpu --instances "$huge" "${q_big[@]}"
    part "gpu, 10000 characters, street camera" -- --workload gpu --instances 10000 --camera street "${q_big[@]}"
    part "gpu, $huge characters, street camera (GPU animation)" -- --workload gpu --instances "$huge" --camera street "${q_big[@]}"
    part "gpu, $million characters (GPU animation)" -- --workload gpu --instances "$million" "${q_big[@]}"
fi
part "frame, $frame_n characters, threads $threads" -- --workload frame --instances "$frame_n" --threads "$threads" "${q[@]}"
part "crowd, $crowd_n characters" -- --workload crowd --instances "$crowd_n" "${q_big[@]}"
if [ "$quick" -eq 0 ]; then
    part "gpu, $huge characters, street camera, 3840x2160 (GPU animation)" -- --workload gpu --instances "$huge" --camera street --size 3840x2160 "${q_big[@]}"
fi

say "measured in $(( $(date +%s) - began )) s"
if ! "$bin" summarize "$out" > /dev/null 2>>"$log"; then
    say "gpu-report: no summary: no part left a report ($(tail -n 1 "$log")); each part's end is in $out/parts.tsv"
    exit 1
fi
say "wrote $out/summary.md and $out/summary.json"
