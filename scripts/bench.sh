#!/usr/bin/env bash
# BM25 speed, RankLens vs bm25s, in one run on the same collection, reported as ratios.
#   scripts/bench.sh [DATASET]      (default ../shared/data/scifact)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dataset="${1:-$root/../shared/data/scifact}"
py="$("$root/scripts/venv.sh")"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
# Every figure is this CPU's: name it beside them.
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores"
echo "bm25s (Python, single thread)…" >&2
# Both sides take the best of 20 passes over the queries (one pass over SciFact's 300 takes a few
# milliseconds: with a handful of passes the ratio moved by ±20 % from run to run).
ref="$(OMP_NUM_THREADS=1 "$py" "$root/scripts/bm25s_bench.py" --dataset "$dataset" --k1 1.2 --b 0.75 --query-repeat 20)"
echo "RankLens (single thread)…" >&2
ours="$("$root/target/release/ranklens" bench --dataset "$dataset" --variant lucene --k1 1.2 --b 0.75 --query-repeat 20 --format json)"
"$py" - "$ref" "$ours" "$cpu" <<'PY'
import json, sys
ref, ours, cpu = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
print(f"BM25 lucene k1=1.2 b=0.75, {ours['documents']} documents, {ours['queries']} queries, 1 thread, on {cpu}")
print(f"{'':28}{'RankLens':>12}{'bm25s':>12}{'ratio':>10}")
print(f"{'index build (s)':28}{ours['index_secs']:>12.3f}{ref['index_secs']:>12.3f}{ref['index_secs']/ours['index_secs']:>9.1f}x faster")
for backend in ("numpy", "numba"):
    for k in (10, 1000):
        key = f"{backend}_qps_top{k}"
        if key in ref:
            mine = ours[f"qps_top{k}"]
            print(f"{'queries/s top-'+str(k)+' vs '+backend:28}{mine:>12.1f}{ref[key]:>12.1f}{mine/ref[key]:>10.2f}x")
print(f"{'RankLens top-10 with analysis':28}{ours['qps_top10_with_analysis']:>12.1f}"
      "   (the question's text analysed in the timing; bm25s's queries are pre-tokenised, as ours above)")
for backend in ("numpy", "numba"):
    if f"{backend}_ndcg10" in ref:
        print(f"bm25s {backend} nDCG@10 (Snowball stemmer, its own stop words): {ref[backend + '_ndcg10']:.4f}")
PY
