#!/usr/bin/env bash
# Opt-in: a real llama.cpp server (llama-cpp-python, built from its sdist with cmake — about four
# minutes the first time) serving the embedded generator's own GGUF on loopback, and the chat-server
# tests run against it (tests/llm_server.rs with RANKLENS_LLM_SERVER set). Then one RAG answer on
# the sample corpus through the server and through the embedded model, timed side by side.
#
#   scripts/llama-server.sh            # build (once), serve, test, compare, stop
#   PORT=8093 scripts/llama-server.sh
#
# It also records llama.cpp's token ids and first-token log-probabilities as the fixtures of
# tests/generator.rs (git diff shows whether a new llama.cpp reads the file differently).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
port="${PORT:-8093}"
export RANKLENS_VENV="${RANKLENS_VENV_LLAMA:-$here/.venv-llama}"
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=ON}"
python="$("$here/venv.sh" "$here/requirements-llama.txt")"
cd "$root"
cargo build --release --quiet
bin="$root/target/release/ranklens"
"$bin" models fetch --role generator >&2
gguf="$(ls "${XDG_CACHE_HOME:-$HOME/.cache}"/ranklens/models/HuggingFaceTB--SmolLM2-135M-Instruct/*.gguf | head -1)"
# llama.cpp's own readings of the same file, recorded as the fixtures tests/generator.rs compares
# the embedded model with: its token ids, and the first answer token's log-probabilities.
"$python" "$here/llama_tokens.py" "$gguf" >"$root/tests/fixtures/generator/smollm2-tokens.json"
"$python" "$here/llama_logits.py" "$gguf" 2>/dev/null >"$root/tests/fixtures/generator/smollm2-first-token.json"
log="$(mktemp)"
"$python" -m llama_cpp.server --model "$gguf" --model_alias smollm2 --host 127.0.0.1 --port "$port" \
    --n_ctx 8192 --n_threads "$(nproc)" >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1; then break; fi
    if ! kill -0 $server 2>/dev/null; then cat "$log" >&2; echo "the server stopped" >&2; exit 1; fi
    sleep 0.5
done
echo "llama.cpp server (llama-cpp-python $("$python" -c 'import llama_cpp; print(llama_cpp.__version__)')) on port $port serving $(basename "$gguf")"
RANKLENS_LLM_SERVER="http://127.0.0.1:$port/v1" RANKLENS_LLM_SERVER_MODEL=smollm2 \
    cargo test --release --quiet --test llm_server -- --nocapture --test-threads 1 2>&1 | grep -v '^$'
question="What does error E140 mean?"
for side in server embedded; do
    if [ "$side" = server ]; then flags=(--llm "http://127.0.0.1:$port/v1" --llm-model smollm2); else flags=(); fi
    start=$(date +%s.%N)
    out="$("$bin" rag "$question" --corpus sample-corpus/acme-sync -k 3 --format json "${flags[@]}" 2>/dev/null)"
    end=$(date +%s.%N)
    echo "$out" | "$python" -c '
import json, sys
v = json.load(sys.stdin)
side, wall = sys.argv[1], float(sys.argv[2])
print("%8s: %.2f s wall, %.2f s answering: %d prompt + %d written tokens, %.1f written tokens/s, %s" % (side, wall,
      v["seconds"], v["prompt_tokens"], v["completion_tokens"], v["completion_tokens"] / v["seconds"], v["model"]))
print("          " + v["answer"][:300].replace(chr(10), " "))
cites = ", ".join("[%d] %s" % (c["n"], c["id"]) for c in v["citations"])
print("          citations: " + (cites or "none"))
' "$side" "$(echo "$end - $start" | bc)"
done
# The listwise column through the server and through the embedded model, at temperature 0, over
# the first LISTWISE_QUESTIONS judged SciFact questions (BM25's top 20, one window each): the
# number of questions whose orders are the same, and the nDCG@10 of each (0 skips this).
questions="${LISTWISE_QUESTIONS:-10}"
scifact="$root/../shared/data/scifact"
if [ "$questions" -gt 0 ] && [ -d "$scifact" ]; then
    runs="$(mktemp -d)"
    for side in server embedded; do
        if [ "$side" = server ]; then flags=(--llm "http://127.0.0.1:$port/v1" --llm-model smollm2); else flags=(); fi
        start=$(date +%s.%N)
        "$bin" eval --dataset "$scifact" --method listwise --model-depth 20 --questions "$questions" \
            --depth 20 --runs "$runs/$side" --format json "${flags[@]}" >"$runs/$side.json" 2>/dev/null
        echo "listwise, $side: $(echo "$(date +%s.%N) - $start" | bc) s for $questions questions"
    done
    "$python" - "$runs" <<'PY'
import json, os, sys
runs = sys.argv[1]
def read(side):
    folder = os.path.join(runs, side)
    path = os.path.join(folder, os.listdir(folder)[0])
    by_q = {}
    for line in open(path):
        q, _, d, rank, score, _ = line.split()
        by_q.setdefault(q, []).append((int(rank), d))
    return {q: [d for _, d in sorted(v)] for q, v in by_q.items()}
a, b = read("server"), read("embedded")
same = sum(1 for q in a if a[q] == b.get(q))
top = sum(1 for q in a if a[q][:1] == b.get(q, [])[:1])
print("listwise orders: %d of %d questions the same through the server and embedded; the same first passage in %d" % (same, len(a), top))
for side in ("server", "embedded"):
    v = json.load(open(os.path.join(runs, side + ".json")))
    m = [x for x in v["methods"] if x["kind"] == "listwise"][0]
    print("  %s nDCG@10 %.4f" % (side, m["summary"]["mean"]["nDCG@10"]))
PY
    rm -rf "$runs"
fi
