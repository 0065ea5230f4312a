#!/usr/bin/env bash
# Encoding speed, RankLens (candle) vs PyTorch (sentence-transformers / transformers), in one run on
# the same passages with the same model files, reported as ratios; plus the late-interaction index's
# memory.
#   scripts/bench-encode.sh [DATASET] [LIMIT]     (default ../shared/data/scifact, 1000 passages)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dataset="${1:-$root/../shared/data/scifact}"
limit="${2:-1000}"
threads="$(nproc)"
py="$(RANKLENS_VENV="$root/scripts/.venv-encode" "$root/scripts/venv.sh" "$root/scripts/requirements-encode.txt")"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/ranklens"
# Fetch (or find) the two models; their folders are then handed to both sides.
"$bin" models fetch --id sentence-transformers/all-MiniLM-L6-v2 >&2
"$bin" models fetch --id splade-tiny >&2
models="$("$bin" models list | sed -n 's/^cache: //p')"
dense="$models/sentence-transformers--all-MiniLM-L6-v2"
splade="$models/splade-tiny"
echo "RankLens (candle, $threads threads)…" >&2
ours="$("$bin" bench-encode --dataset "$dataset" --limit "$limit" --late --offline --compare bf16,int16,auto \
    --dense-model "$dense" --splade-model "$splade" --format json)"
echo "PyTorch ($threads threads)…" >&2
ref="$("$py" "$root/scripts/encode_bench.py" --dataset "$dataset" --limit "$limit" --threads "$threads" \
    --dense-model "$dense" --splade-model "$splade")"
"$py" - "$ours" "$ref" <<'PY'
import json, sys
ours, ref = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"{ours['passages']} passages of {ours['dataset']} on {ours['cpu']}, {ours['threads']} threads, batches of 32, 256 tokens")
print(f"PyTorch {ref['torch']} (f32): dense {ref['dense_passages_per_sec']:.1f} passages/s, "
      f"SPLADE {ref['splade_passages_per_sec']:.1f} passages/s")
print(f"{'RankLens':10}{'dense p/s':>11}{'ratio':>8}{'SPLADE p/s':>12}{'ratio':>8}"
      f"{'dense cos min/mean':>24}{'SPLADE cos min/mean':>24}  kernels")
for r in ours["precisions"]:
    d, s = r["dense_passages_per_sec"], r["splade_passages_per_sec"]
    print(f"{r['precision']:10}{d:>11.1f}{d / ref['dense_passages_per_sec']:>7.2f}x"
          f"{s:>12.1f}{s / ref['splade_passages_per_sec']:>7.2f}x"
          f"{r['dense_min_cosine']:>14.6f}/{r['dense_mean_cosine']:.6f}"
          f"{r['splade_min_cosine']:>14.6f}/{r['splade_mean_cosine']:.6f}  {r['kernels']}")
if ours.get("late_index_bytes"):
    mib = 1 << 20
    print(f"late-interaction index: {ours['late_tokens']} token vectors x 384 dims = "
          f"{ours['late_index_bytes'] / mib:.1f} MiB "
          f"({ours['late_index_bytes'] / ours['passages'] / 1024:.1f} KiB per passage)")
    print(f"peak resident memory: {ours['peak_rss_bytes_before_late'] / mib:.0f} MiB before building it, "
          f"{ours['peak_rss_bytes_after_late'] / mib:.0f} MiB after")
PY
