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
display=:97
Xvfb "$display" -screen 0 1360x860x24 >/dev/null 2>&1 &
xvfb=$!
state="$(mktemp -d)"
trap 'kill "$app" "$xvfb" 2>/dev/null || true; rm -rf "$state"' EXIT
sleep 1
export DISPLAY="$display" XDG_RUNTIME_DIR="$state" XDG_DATA_HOME="$state/data" XDG_CONFIG_HOME="$state/config"
RANKLENS_WORKSPACE="$state/ws" "$root/target/release/ranklens" &
app=$!
sleep 8
win="$(xdotool search --sync --name RankLens | head -1)"
xdotool windowmove "$win" 0 0 windowsize "$win" 1360 860
sleep 2
shot() { sleep "${2:-2}"; import -window root "$out/$1.png"; echo "$out/$1.png"; }
click() { xdotool mousemove "$1" "$2" click 1; sleep 0.5; }
# The question bar, then every method runs (the models are encoded on first use).
click 400 60
xdotool key ctrl+a type --delay 20 "Why does my phone say my login is stale?"
xdotool key Return
sleep 25
shot compare
# Pick the first BM25 hit, then the explain view.
click "${BM25_HIT_X:-520}" "${BM25_HIT_Y:-200}"
click 40 150
shot explain-bm25
click 40 177; shot map 4
click 40 204; shot structured
click 40 231; shot evaluate
click 40 312; shot lessons-tfidf
