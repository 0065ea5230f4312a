#!/usr/bin/env bash
# Every language-model figure of docs/measured.md in one run on this CPU: the runtime against
# llama.cpp (scripts/bench-llm.sh), then the methods with each model (scripts/measure_llm.py;
# the larger model on fewer questions where a question costs it minutes), then why-not over
# SciFact. Logs and results under scripts/.measure-workspace/.
#   scripts/measure-all.sh
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/scripts/.measure-workspace"
mkdir -p "$out"
cd "$root"
cargo build --release --quiet
RUNS="${RUNS:-3}" scripts/bench-llm.sh >"$out/bench-llm.txt" 2>"$out/bench-llm.log"
python3 scripts/measure_llm.py HuggingFaceTB/SmolLM2-135M-Instruct --questions 20 --set reason=30 \
    --only sql,graphrag,agent,validity,pointwise,reason,rag,listwise >"$out/smollm2.jsonl" 2>"$out/smollm2.log"
python3 scripts/measure_llm.py Qwen/Qwen2.5-Coder-1.5B-Instruct --questions 5 --set listwise=3 \
    --only sql,graphrag,agent,validity,listwise,rag,reason >"$out/qwen.jsonl" 2>"$out/qwen.log"
for m in bm25 dense; do
    RANKLENS_WORKSPACE="$out" target/release/ranklens why-not --corpus ../shared/data/scifact --method "$m" \
        --missed --questions 50 >"$out/why-not-$m.txt" 2>"$out/why-not-$m.log"
done
echo done >"$out/finished"
