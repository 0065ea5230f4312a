#!/usr/bin/env bash
# What each reader costs, per passage and per question at k = 5, on the sample's questions with
# answers (BM25's or the dense model's top 5), and the trained reader beside transformers reading
# the very same pairs with the same weights, in the same run:
#
#   scripts/bench-read.sh [GENERATOR_MODEL_ID ...]   (SmolLM2-135M-Instruct is always read)
#   BENCH_QUESTIONS=N: the language models read N questions (default 10)
#
# The trained reader's weights are seeded random weights of deepset/minilm-uncased-squad2's
# shapes (12 layers, 384 hidden; written by qa_reference.py): its weights are not reachable here,
# and a forward pass costs the same whatever the weights hold. The language model reads with its
# replies asked afresh (--no-store). Prints one line per reader and the ratio.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# BENCH_PROFILE=dev measures the test build instead (RankLens's own code at opt-level 1, its
# dependencies — candle, llama.cpp — optimised as in release); the line printed says which.
profile="${BENCH_PROFILE:-release}"
case "$profile" in
    release) cargo build --release --quiet; bin="$root/target/release/ranklens" ;;
    dev) cargo build --quiet --all-targets; bin="$root/target/debug/ranklens" ;;
    *) echo "BENCH_PROFILE is release or dev, not '$profile'" >&2; exit 64 ;;
esac
py="$(RANKLENS_VENV="$root/scripts/.venv-encode" scripts/venv.sh scripts/requirements-encode.txt)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export RANKLENS_WORKSPACE="$work/ws"
threads="${RAYON_NUM_THREADS:-$(nproc)}"
# The uncased vocabulary's tokenizer (all-MiniLM-L6-v2's, fetched by the model manager).
"$bin" models fetch --id sentence-transformers/all-MiniLM-L6-v2 >/dev/null
tokenizer="$(ls "${RANKLENS_MODELS:-$HOME/.cache/ranklens/models}"/sentence-transformers--all-MiniLM-L6-v2/tokenizer.json)"
echo '[{"question": "q", "context": "c"}]' > "$work/cases.json"
mkdir -p "$work/reader"
"$py" scripts/qa_reference.py bert 1234 "$tokenizer" "$work/reader" "$work/cases.json" 384 128 30 >/dev/null
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) · $threads threads · $(date -u +%F) · $profile build"
RANKLENS_READER_MODEL="$work/reader" "$bin" bench-read --reader span --method dense -k 5 --precision f32 \
    --pairs-out "$work/pairs.json" | tee "$work/span.txt"
ours="$(grep -o '[0-9.]* s a passage' "$work/span.txt" | cut -d' ' -f1)"
theirs="$("$py" scripts/qa_bench.py "$work/reader" "$work/pairs.json" 384 128 "$threads" | "$py" -c 'import json,sys; print(json.load(sys.stdin)["per_pair"])')"
"$py" -c "o,t=$ours,$theirs; print(f'transformers (torch {__import__(\"torch\").__version__}): {t:.4f} s a passage; RankLens {o:.4f} s: {t/o:.2f}x transformers\' speed')"
for model in "$@" HuggingFaceTB/SmolLM2-135M-Instruct; do
    "$bin" bench-read --reader generator --method dense -k 5 --no-store --generator-model "$model" --questions "${BENCH_QUESTIONS:-10}"
done
