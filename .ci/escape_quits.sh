#!/usr/bin/env bash
# Run under Xvfb: the app started without --frames must close on Escape and exit 0.
set -euo pipefail
bin="$1"
"$bin" --instances 10 --no-vsync &
pid=$!
for _ in $(seq 1 60); do
    window=$(xdotool search --name "skinbench" 2>/dev/null | head -1 || true)
    [ -n "$window" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then
        status=0
        wait "$pid" || status=$?
        echo "escape_quits: the app exited (status $status) before its window opened" >&2
        exit 1
    fi
    sleep 1
done
if [ -z "${window:-}" ]; then
    kill "$pid" 2>/dev/null || true
    echo "escape_quits: the window never opened" >&2
    exit 1
fi
sleep 2
xdotool windowfocus --sync "$window" key Escape
for _ in $(seq 1 30); do
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"
        echo "escape_quits: Escape closed the window"
        exit 0
    fi
    sleep 1
done
kill "$pid" 2>/dev/null || true
echo "escape_quits: the window was still open 30 s after Escape" >&2
exit 1
