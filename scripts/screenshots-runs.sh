#!/usr/bin/env bash
# Screenshots of runs from other systems beside RankLens's methods on SciFact (release binary, a
# real window under Xvfb), for the README:
#   scripts/screenshots-runs.sh [OUT_DIR] [WORKSPACE]
# It writes RankLens's BM25 and dense runs with `ranklens eval --runs` and a bm25s run with
# scripts/bm25s_run.py (its environment is made by scripts/venv.sh), then opens the app on SciFact
# with the three runs. WORKSPACE keeps the encodings between runs of the script: the first time,
# encoding SciFact for the dense run takes about 15 minutes on 2 cores.
# Needs Debian's xvfb, xdotool and imagemagick.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/docs/screenshots}"
ws="${2:-$root/scripts/.screenshots-workspace}"
data="$root/../shared/data/scifact"
runs="$ws/runs"
mkdir -p "$out" "$runs"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/ranklens"
if [ ! -f "$runs/Dense_all_MiniLM_L6_v2.trec" ]; then
    RANKLENS_WORKSPACE="$ws" "$bin" eval --dataset "$data" --method bm25,dense --variant lucene --k1 0.9 --b 0.4 \
        --runs "$runs" >/dev/null
fi
[ -f "$runs/bm25s.trec" ] || "$("$root/scripts/venv.sh")" "$root/scripts/bm25s_run.py" "$data" "$runs/bm25s.trec"
source "$root/scripts/window.sh"
WORKSPACE="$ws" start_window :93 --open "$data" --run "bm25 run=$runs/BM25_lucene_k1_0.9_b_0.4.trec" \
    --run "dense run=$runs/Dense_all_MiniLM_L6_v2.trec" --run "bm25s=$runs/bm25s.trec"
sleep 20
shot() { sleep "${2:-2}"; import -window root "$out/$1.png"; echo "$out/$1.png"; }
click() { xdotool mousemove "$1" "$2" click 1; sleep "${3:-1}"; }
xdotool windowfocus --sync "$win"
# Show BM25, dense and fusion beside the three runs: untick Boolean, TF-IDF, SPLADE, late
# interaction, rerank, SQL and graph in the Methods row.
for x in 77 152 274 409 590 655 705; do click "$x" 87 0.3; done
click 660 40
xdotool key ctrl+a type --delay 10 "0-dimensional biomaterials show inductive properties."
xdotool key Return
sleep 10
shot runs-compare
click 40 238 2                 # Evaluate: the question set, then the triage
click 615 "${EVALUATE_Y:-418}" 150
shot runs-triage
