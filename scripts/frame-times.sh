#!/usr/bin/env bash
# Frame times of the release binary in a real window under Xvfb: open a corpus, let it rank the
# default question, then ask another with the keyboard and summarise the frames drawn in the
# seconds after (the first frames after asking are where a ranking lands and is drawn).
#   scripts/frame-times.sh [CORPUS] [QUESTION] [BINARY]
# Defaults: ../shared/data/scifact, a SciFact claim, target/release/ranklens. Models already in
# the cache are used (set RANKLENS_OFFLINE_MODELS=1 for the lexical methods only).
# Needs Debian's xvfb and xdotool.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${1:-$root/../shared/data/scifact}"
question="${2:-Macrophages are involved in tissue repair.}"
bin="${3:-$root/target/release/ranklens}"
[ -x "$bin" ] || cargo build --release --quiet --manifest-path "$root/Cargo.toml"
source "$root/scripts/window.sh"
scratch="$(mktemp -d)"
if [ "${RANKLENS_OFFLINE_MODELS:-0}" = 1 ]; then
    export XDG_CACHE_HOME="$scratch/cache" HF_HOME="$scratch/hf"
fi
log="$scratch/frames.log"
RANKLENS_FRAME_LOG="$log" start_window :96 --open "$corpus" --question "Why does my phone say my login is stale?"
sleep 25
xdotool windowfocus --sync "$win"
xdotool mousemove 660 40 click 1
sleep 1
xdotool key ctrl+a type --delay 10 "$question"
asked="$(date +%s%3N)"
xdotool key Return
sleep 15
cp "$log" "${FRAME_LOG_COPY:-/dev/null}" 2>/dev/null || true
python3 - "$log" "$asked" "$root/scripts" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
from frame_summary import rows, summary
frames = rows(sys.argv[1], 4)
asked = int(sys.argv[2])
after = [float(r[2]) for r in frames if 0 <= int(r[1]) - asked <= 3000]
print("first 3 s after asking:", summary(after))
print("whole session:         ", summary([float(r[2]) for r in frames]))
PY
