#!/usr/bin/env bash
# Screenshots of the release binary in a real window under Xvfb, for the README.
#   scripts/screenshots.sh [OUT_DIR]        (default docs/screenshots)
# Needs Debian's xvfb, xdotool and imagemagick. The window is driven with clicks at fixed
# coordinates of the default layout (1360×860 window, fresh settings).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/docs/screenshots}"
mkdir -p "$out"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/ranklens"
source "$root/scripts/window.sh"
start_window :97
sleep 10
shot() { sleep "${2:-2}"; import -window root "$out/$1.png"; echo "$out/$1.png"; }
click() { xdotool mousemove "$1" "$2" click 1; sleep "${3:-1}"; }
# The question bar; every method runs (the sample corpus is encoded on first use).
click 660 40
xdotool key ctrl+a type --delay 20 "Why does my phone say my login is stale?"
xdotool key Return
sleep 15
shot compare
click 680 215                  # the first BM25 hit
click 40 146; shot explain-bm25 3
click 40 192; shot map 3
click 40 238 2                 # Evaluate: this question, then the question set
click 615 446 8; shot evaluate
click 40 215 2                 # Structured: run the SQL statement and the graph pattern
click 210 281 2; click 811 238 2; shot structured
click 40 307 3; shot lesson-tfidf   # Lessons (the question bar hides: tabs on top)
click 377 43 2; shot lesson-bm25
click 495 66 2; shot lesson-chunking
