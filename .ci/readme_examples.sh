#!/usr/bin/env bash
# README's example commands, run as a new user runs them: in a fresh clone of this
# repository with nothing beside it (no ../shared), with the binary CI built (so nothing is
# compiled again). Run under Xvfb. Every `cargo run --release …` line of README's examples
# runs: the app for a few frames, the bench quick into a temporary folder, other
# subcommands as written. Exits 1 at the first command that fails, naming it.
set -euo pipefail
bin=$(realpath "$1")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
git clone -q "$repo" "$work/skinbench"
cd "$work/skinbench"
if [ -e ../shared ]; then
    echo "readme_examples: ../shared exists beside the clone" >&2
    exit 1
fi
out=$(mktemp -d)
ran=0
skipped=0
while IFS= read -r line; do
    # The command's arguments after `--`, without a trailing comment.
    args=${line#*cargo run --release}
    args=${args%%#*}
    args=${args# -- }
    read -r -a words <<<"$args"
    case "${words[0]:-}" in
    bench)
        # A quick run of the same workload, written out of the clone; the gpu workload
        # with 300 characters (its default crowds take a quarter of an hour on a software
        # renderer).
        [[ " ${words[*]} " == *" --quick "* ]] || words+=(--quick)
        if [[ " ${words[*]} " == *" --workload gpu "* && " ${words[*]} " != *" --instances "* ]]; then
            words+=(--instances 300)
        fi
        words+=(--out "$out")
        ;;
    inspect | pose | gen-rig | adapter | summarize) ;;
    *)
        # The app: a few frames. A crowd of 100,000 or 1,000,000 on a software renderer
        # takes seconds to minutes a frame (a million also 7.4 GB); it is run with 2,000.
        for i in "${!words[@]}"; do
            if [ "${words[$i]}" = 100000 ] || [ "${words[$i]}" = 1000000 ]; then
                [ "${words[$((i - 1))]}" = --instances ] && words[$i]=2000
            fi
        done
        [[ " ${words[*]} " == *" --frames "* ]] || words+=(--frames 3)
        words+=(--no-vsync)
        ;;
    esac
    echo "readme_examples: skinbench ${words[*]}"
    if ! "$bin" "${words[@]}" >"$out/stdout" 2>"$out/stderr"; then
        echo "readme_examples: FAILED: $line" >&2
        tail -20 "$out/stderr" >&2
        exit 1
    fi
    ran=$((ran + 1))
done < <(grep -E '^    (xvfb-run .* )?cargo run --release' README.md | grep -v '^    xvfb-run' || true)
# The xvfb line is the plain app under another display: run above as `cargo run --release`.
skipped=$(grep -cE '^    xvfb-run .*cargo run --release' README.md || true)
if [ "$ran" -lt 5 ]; then
    echo "readme_examples: only $ran commands found in README.md" >&2
    exit 1
fi
echo "readme_examples: $ran commands ran in a fresh clone without ../shared ($skipped xvfb line covered by the plain app)"
