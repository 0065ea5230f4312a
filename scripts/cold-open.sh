#!/usr/bin/env bash
# SciFact opened cold in the app: the release binary in a real window under Xvfb, with the models
# in their cache but a new, empty workspace (no index, no encodings stored), ranking its default
# question until every column a user waits for (BM25, SPLADE, dense, late interaction) shows a
# ranking. Prints the app's own event log (RANKLENS_LOG) and the seconds to each column.
#   scripts/cold-open.sh [CORPUS] [TIMEOUT_SECS]     (default ../shared/data/scifact, 1800)
# Needs Debian's xvfb and xdotool.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${1:-$root/../shared/data/scifact}"
timeout="${2:-1800}"
bin="$root/target/release/ranklens"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
"$bin" models fetch --id sentence-transformers/all-MiniLM-L6-v2 >&2
"$bin" models fetch --id splade-tiny >&2
source "$root/scripts/window.sh"
scratch="$(mktemp -d)"
log="$scratch/events.log"
export RANKLENS_LOG="$log"
WORKSPACE="$scratch/ws" start_window :95 --open "$corpus" --question "Why does my phone say my login is stale?"
ready() {
    grep "^[0-9.]* ranked:" "$log" 2>/dev/null | while read -r secs _ columns; do
        case " $columns " in
        *" BM25=waiting"* | *" SPLADE=waiting"* | *" Dense=waiting"* | *" Late_interaction=waiting"*) ;;
        *"Late_interaction=ranked"*) echo "$secs"; break ;;
        esac
    done | head -1
}
start="$(date +%s)"
until [ -n "$(ready)" ]; do
    if [ $(($(date +%s) - start)) -gt "$timeout" ]; then
        echo "not every column ready after $timeout s" >&2
        cat "$log" >&2
        exit 1
    fi
    sleep 5
done
cat "$log"
python3 - "$log" <<'PY'
import sys
first = {}
for line in open(sys.argv[1]):
    secs, _, rest = line.partition(" ")
    if rest.startswith("ranked:"):
        for col in rest[len("ranked:"):].split(" "):
            name, _, state = col.strip().rpartition("=")
            if state == "ranked":
                first.setdefault(name.replace("_", " "), float(secs))
for name in ("BM25", "SPLADE", "Dense", "Late"):
    for k, v in first.items():
        if k.startswith(name):
            print(f"{k:18} ready after {v:7.1f} s ({v / 60:.1f} min)")
PY
