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
ours="$("$bin" bench-encode --dataset "$dataset" --limit "$limit" --late --offline \
    --dense-model "$dense" --splade-model "$splade" --format json)"
echo "PyTorch ($threads threads)…" >&2
ref="$("$py" "$root/scripts/encode_bench.py" --dataset "$dataset" --limit "$limit" --threads "$threads" \
    --dense-model "$dense" --splade-model "$splade")"
"$py" - "$ours" "$ref" <<'PY'
import json, sys
ours, ref = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"{ours['passages']} passages of {ours['dataset']}, {ours['threads']} threads, batches of 32, 256 tokens")
print(f"{'passages/s':34}{'RankLens':>10}{'PyTorch ' + ref['torch']:>20}{'ratio':>8}")
for key, name in (("dense", "all-MiniLM-L6-v2 (dense)"), ("splade", "splade-tiny (SPLADE)")):
    a, b = ours[f"{key}_passages_per_sec"], ref[f"{key}_passages_per_sec"]
    print(f"{name:34}{a:>10.1f}{b:>20.1f}{a / b:>7.2f}x")
if ours.get("late_index_bytes"):
    mib = 1 << 20
    print(f"late-interaction index: {ours['late_tokens']} token vectors x 384 dims (f16) = "
          f"{ours['late_index_bytes'] / mib:.1f} MiB "
          f"({ours['late_index_bytes'] / ours['passages'] / 1024:.1f} KiB per passage)")
    print(f"peak resident memory: {ours['peak_rss_bytes_before_late'] / mib:.0f} MiB before building it, "
          f"{ours['peak_rss_bytes_after_late'] / mib:.0f} MiB after")
PY
