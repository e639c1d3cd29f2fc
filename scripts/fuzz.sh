#!/usr/bin/env bash
# Runs the fuzz targets in fuzz/ for a set time each and prints what they did, or measures
# how much of the importer their corpora reach.
#
#   scripts/fuzz.sh [--minutes N] [--jobs J] [TARGET...]   run each target N minutes (30),
#                                                           J at a time (2)
#   scripts/fuzz.sh --coverage [TARGET...]                 line coverage of src/rig/import
#                                                           by the targets' corpora
#
# The fast targets (import_bytes, import_json) run the importer alone, whose own code is
# safe Rust (no `unsafe` under src/rig), so they are built without AddressSanitizer: there
# it would watch only the `unsafe` inside the parsers and image decoders it calls, and it
# runs the targets at a third of their speed. The deep targets reach meshoptimizer's C++
# and the SIMD kernels' `unsafe` blocks, so they keep it. An unbounded
# allocation still shows as an out-of-memory finding through -rss_limit_mb.
#
# Each target's corpus is fuzz/corpus/TARGET, started from fuzz/seeds/TARGET (and, for
# import_bytes, the public rigs and assets/); what a run finds lands in
# fuzz/artifacts/TARGET/ and its log in fuzz/logs/TARGET.log. Needs cargo-fuzz (fuzz/README.md).
set -euo pipefail
script=$(realpath "$0")
cd "$(dirname "$0")/../fuzz"
export RUSTC_BOOTSTRAP="${RUSTC_BOOTSTRAP:-1}"

minutes=30
jobs=2
coverage=false
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) minutes="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --coverage) coverage=true; shift ;;
        -h|--help) sed -n '2,18p' "$script" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
all=(import_bytes import_json prepare_json import_images lod_chain)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
    [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: no target $t (targets: ${all[*]})" >&2; exit 2; }
done
[[ "$minutes" =~ ^[0-9]+$ && "$minutes" -gt 0 ]] || { echo "fuzz.sh: --minutes takes a whole number above 0, not $minutes" >&2; exit 2; }
[[ "$jobs" =~ ^[0-9]+$ && "$jobs" -gt 0 ]] || { echo "fuzz.sh: --jobs takes a whole number above 0, not $jobs" >&2; exit 2; }

fast() { [ "$1" = import_bytes ] || [ "$1" = import_json ]; }

# Flags each target runs with: input size, the dictionary, a memory limit.
flags() {
    case "$1" in
        import_bytes) echo "-dict=gltf.dict -rss_limit_mb=4096" ;;
        import_json | prepare_json) echo "-max_len=4096 -rss_limit_mb=4096" ;;
        *) echo "-rss_limit_mb=4096" ;;
    esac
}

seed_corpus() {
    local f
    mkdir -p "corpus/$1"
    for f in "seeds/$1"/* ../../shared/rigs/*/*.gl* ../assets/*.glb ../assets/*/*.glb; do
        case "$f" in seeds/*) ;; *) [ "$1" = import_bytes ] || continue ;; esac
        [ -f "$f" ] && [ ! -e "corpus/$1/${f##*/}" ] && cp "$f" "corpus/$1/"
    done
    return 0
}

if $coverage; then
    sysroot=$(rustc --print sysroot)
    llvm_bin=$(dirname "$(find "$sysroot" -name llvm-cov -type f | head -n 1)")
    [ -x "$llvm_bin/llvm-cov" ] || { echo "fuzz.sh: llvm-cov missing: rustup component add llvm-tools-preview" >&2; exit 1; }
    objects=()
    profiles=()
    for t in "${targets[@]}"; do
        seed_corpus "$t"
        # shellcheck disable=SC2046
        cargo fuzz coverage "$t" "corpus/$t" -- $(flags "$t") >"coverage-$t.log" 2>&1 \
            || { echo "fuzz.sh: coverage of $t failed, see fuzz/coverage-$t.log" >&2; exit 1; }
        objects+=(-object "target/x86_64-unknown-linux-gnu/coverage/x86_64-unknown-linux-gnu/release/$t")
        profiles+=("coverage/$t/coverage.profdata")
    done
    "$llvm_bin/llvm-profdata" merge -sparse "${profiles[@]}" -o coverage/merged.profdata
    # llvm-cov wants one -object before the rest; the first target's binary takes that place.
    "$llvm_bin/llvm-cov" report "${objects[@]:1}" -instr-profile=coverage/merged.profdata \
        --ignore-filename-regex='/(\.cargo|rustc|library)/' "$(realpath ../src/rig/import)" \
        | sed "s|$(realpath ..)/||"
    exit 0
fi

mkdir -p logs
built_fast=false
built_deep=false
for t in "${targets[@]}"; do
    if fast "$t" && ! $built_fast; then
        cargo fuzz build -O -s none --target-dir target/no-sanitizer
        built_fast=true
    elif ! fast "$t" && ! $built_deep; then
        cargo fuzz build -O
        built_deep=true
    fi
    seed_corpus "$t"
    mkdir -p "artifacts/$t"
done

run() {
    local t="$1" binary
    if fast "$t"; then
        binary=target/no-sanitizer/x86_64-unknown-linux-gnu/release/$t
    else
        binary=target/x86_64-unknown-linux-gnu/release/$t
    fi
    # shellcheck disable=SC2046
    "$binary" "corpus/$t" $(flags "$t") -max_total_time=$((minutes * 60)) -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" >"logs/$t.log" 2>&1 || true
}

echo "fuzz.sh: ${targets[*]}, $minutes min each, $jobs at a time, on $(nproc) cores" >&2
running=0
for t in "${targets[@]}"; do
    run "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

printf '| target | sanitizer | executions | a second | corpus | coverage (edges) | findings |\n'
printf '|---|---|---:|---:|---:|---:|---|\n'
for t in "${targets[@]}"; do
    log="logs/$t.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
    corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
    cov=$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' <<<"$last")
    found=$(find "artifacts/$t" -type f | wc -l)
    if fast "$t"; then san=none; else san=address; fi
    printf '| `%s` | %s | %s | %s | %s | %s | %s |\n' "$t" "$san" "${execs:-?}" "${secs:-?}" \
        "${corp:-?}" "${cov:-?}" "$([ "$found" -eq 0 ] && echo nothing || echo "$found in fuzz/artifacts/$t")"
done
