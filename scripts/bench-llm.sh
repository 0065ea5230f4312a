#!/usr/bin/env bash
# The embedded language model against llama.cpp, in one run on this CPU: each model (SmolLM2-135M
# and Qwen2.5-Coder-1.5B, Q4 GGUF files from the model manager) on each task (a RAG answer, a
# write-heavy draft, one listwise window of 20 SciFact passages), the same prompt text and threads
# on both sides, each side run RUNS times alternately; the best of each, and the ratios.
#   scripts/bench-llm.sh [DATASET]      (default ../shared/data/scifact; RUNS=3 by default)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dataset="${1:-$root/../shared/data/scifact}"
runs="${RUNS:-3}"
export RANKLENS_VENV="${RANKLENS_VENV_LLAMA:-$root/scripts/.venv-llama}"
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=ON}"
py="$("$root/scripts/venv.sh" "$root/scripts/requirements-llama.txt")"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/ranklens"
threads="$(nproc)"
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $threads cores (cpu family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1), model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1))"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for id in HuggingFaceTB/SmolLM2-135M-Instruct Qwen/Qwen2.5-Coder-1.5B-Instruct; do
    "$bin" models fetch --id "$id" >&2
    for task in rag draft listwise; do
        name="$(basename "$id")-$task"
        "$bin" bench-llm --task "$task" --dataset "$dataset" --generator-model "$id" --no-store \
            --prompt-out "$out/$name.txt" --format json >"$out/$name.ours.0.json"
        max="$("$py" -c 'import json,sys; print(max(1, json.load(open(sys.argv[1]))["completion_tokens"]))' "$out/$name.ours.0.json")"
        gguf="$(ls "${XDG_CACHE_HOME:-$HOME/.cache}/ranklens/models/$(echo "$id" | sed 's#/#--#')"/*.gguf | head -1)"
        for r in $(seq 1 "$runs"); do
            echo "$name: run $r of $runs…" >&2
            "$py" "$root/scripts/llama_bench.py" "$gguf" "$out/$name.txt" "$max" "$threads" >"$out/$name.ref.$r.json"
            "$bin" bench-llm --task "$task" --dataset "$dataset" --generator-model "$id" --no-store \
                --format json >"$out/$name.ours.$r.json"
        done
    done
done
"$py" - "$out" "$runs" "$cpu" <<'PY'
import json, os, sys
out, runs, cpu = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def best(name, side):
    rs = [json.load(open(os.path.join(out, f"{name}.{side}.{r}.json"))) for r in range(1, runs + 1)]
    return min(rs, key=lambda x: x["read_secs"] + x["write_secs"]), max(x["peak_rss_bytes"] for x in rs)
print(f"The embedded model (llama.cpp through llama-cpp-2, AVX2 build) against llama.cpp (llama-cpp-python, built for this CPU), best of {runs}, on {cpu}")
print(f"{'model, task':34}{'tokens':>12}{'RankLens s':>12}{'llama.cpp s':>12}{'ratio':>8}{'RankLens GB':>13}{'llama.cpp GB':>14}")
for model in ("SmolLM2-135M-Instruct", "Qwen2.5-Coder-1.5B-Instruct"):
    for task in ("rag", "draft", "listwise"):
        name = f"{model}-{task}"
        if not os.path.exists(os.path.join(out, f"{name}.ours.1.json")):
            continue
        (o, orss), (r, rrss) = best(name, "ours"), best(name, "ref")
        mine, theirs = o["read_secs"] + o["write_secs"], r["read_secs"] + r["write_secs"]
        tokens = f"{o['prompt_tokens']}+{o['completion_tokens']}"
        print(f"{name:34}{tokens:>12}{mine:>12.2f}{theirs:>12.2f}{theirs / mine:>7.2f}x{orss / 1e9:>13.2f}{rrss / 1e9:>14.2f}")
        print(f"{'':34}{'read ms/token':>12}{1000 * o['read_secs'] / max(1, o['prompt_tokens']):>12.1f}{1000 * r['read_secs'] / max(1, r['prompt_tokens']):>12.1f}")
        print(f"{'':34}{'write ms/token':>12}{1000 * o['write_secs'] / max(1, o['completion_tokens']):>12.1f}{1000 * r['write_secs'] / max(1, r['completion_tokens']):>12.1f}")
print("ratio: llama.cpp's seconds over RankLens's (above 1: RankLens is faster). Memory: peak resident, the whole process.")
PY
