#!/usr/bin/env bash
# Frame times of the Map view at 100,000 passages: the release binary in a real window under Xvfb
# opens the corpus `ranklens bench-scale --write-corpus` wrote, in the workspace that benchmark
# encoded it in (so the dense vectors come from the encoding cache), waits for the map, shows the
# Map view and moves the pointer over the plot (each frame then finds the passage under it), and
# summarises the frames drawn meanwhile. Needs Debian's xvfb, xdotool and imagemagick.
#   scripts/map-frames.sh CORPUS.jsonl WORKSPACE [SECONDS_TO_WAIT_FOR_THE_MAP]
# e.g. after: ranklens bench-scale --workspace /tmp/b100k/ws --write-corpus /tmp/b100k/corpus.jsonl
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$1"
WORKSPACE="$2"
wait_secs="${3:-240}"
bin="$root/target/release/ranklens"
[ -x "$bin" ] || cargo build --release --quiet --manifest-path "$root/Cargo.toml"
source "$root/scripts/window.sh"
scratch="$(mktemp -d)"
log="$scratch/frames.log"
events="$scratch/events.log"
RANKLENS_LOG="$events" RANKLENS_FRAME_LOG="$log" start_window :94 --open "$corpus" --question "tomato garden harvest"
start="$(date +%s)"
until grep -q "encodings dense done" "$events" 2>/dev/null; do
    if [ $(($(date +%s) - start)) -gt "$wait_secs" ]; then
        echo "the dense vectors were not ready after $wait_secs s" >&2
        cat "$events" >&2
        exit 1
    fi
    sleep 3
done
sleep 5
xdotool windowfocus --sync "$win"
xdotool mousemove 40 "${MAP_Y:-169}" click 1
sleep 3
import -window root "${SHOT:-$scratch/map.png}"
shown="$(date +%s%3N)"
for i in $(seq 0 80); do
    xdotool mousemove $((120 + (i * 7) % 500)) $((200 + (i * 13) % 420))
    sleep 0.1
done
done_at="$(date +%s%3N)"
python3 - "$log" "$shown" "$done_at" "$root/scripts" <<'PY'
import sys
sys.path.insert(0, sys.argv[4])
from frame_summary import rows, summary
shown, done = int(sys.argv[2]), int(sys.argv[3])
inside = [r for r in rows(sys.argv[1], 5) if shown <= int(r[1]) <= done]
if not inside:
    sys.exit("no frames")
print("map view, pointer moving, the app's own drawing:", summary([float(r[2]) for r in inside]))
print("map view, pointer moving, whole frames (eframe: tessellation and painting too):",
      summary([float(r[4]) for r in inside if r[4] != "-"]))
PY
grep -E "corpus|encodings|ranked" "$events" | head -8
