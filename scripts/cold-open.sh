#!/usr/bin/env bash
# SciFact opened cold in the app: the release binary in a real window under Xvfb, with the models
# in their cache but a new, empty workspace (no index, no encodings stored), ranking its default
# question until every column a user waits for (BM25, SPLADE, dense, late interaction) shows a
# ranking. Prints the app's own event log (RANKLENS_LOG) and the seconds to each column.
#   scripts/cold-open.sh [CORPUS] [TIMEOUT_SECS]     (default ../shared/data/scifact, 1800)
# The log's `stage` lines time every stage of every job; the summary gives each column's first
# provisional answer (over BM25's top 200 while its encoding runs) and its full ranking.
# Needs Debian's xvfb and xdotool.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${1:-$root/../shared/data/scifact}"
timeout="${2:-1800}"
bin="$root/target/release/ranklens"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
"$bin" models fetch --id sentence-transformers/all-MiniLM-L6-v2 >&2
"$bin" models fetch --id splade-tiny >&2
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores" >&2
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
shot="${SHOT:-}"   # SHOT=FILE.png: a screenshot of the window once a column is provisional
until [ -n "$(ready)" ]; do
    if [ -n "$shot" ] && grep -q "=provisional" "$log" 2>/dev/null; then
        sleep 2
        import -window root "$shot" && echo "screenshot of a provisional column: $shot" >&2
        shot=""
    fi
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
first, provisional, asked = {}, {}, None
stages = []
for line in open(sys.argv[1]):
    secs, _, rest = line.rstrip("\n").partition(" ")
    if rest.startswith("ranked:"):
        asked = float(secs) if asked is None else asked
        for col in rest[len("ranked:"):].split(" "):
            name, _, state = col.strip().rpartition("=")
            if state == "ranked":
                first.setdefault(name.replace("_", " "), float(secs))
            elif state == "provisional":
                provisional.setdefault(name.replace("_", " "), float(secs))
    elif rest.startswith("stage "):
        stages.append((float(secs), rest[len("stage "):]))
# Per-stage timings: how long each job stayed in each stage (until its next stage or the end).
print("stages (seconds from the start, seconds in the stage):")
for i, (secs, what) in enumerate(stages):
    job = what.partition(": ")[0]
    nxt = next((s for s, w in stages[i + 1:] if w.partition(": ")[0] == job), None)
    took = "" if nxt is None else f"{nxt - secs:7.1f}"
    print(f"  {secs:7.1f} {took:>7} {what}")
for name in ("BM25", "SPLADE", "Dense", "Late"):
    for k, v in first.items():
        if k.startswith(name):
            print(f"{k:18} ready after {v:7.1f} s ({v / 60:.1f} min)")
    for k, v in provisional.items():
        if k.startswith(name) and asked is not None:
            print(f"{k:18} provisional after {v:7.1f} s ({v - asked:.1f} s after the question was first answered)")
PY
# What `--precision auto` chose for each model on this CPU (timed the first time it loaded).
"$bin" models list | sed -n '/^precision:/,/^role/p' | grep -v '^role'
