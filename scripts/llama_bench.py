"""llama.cpp's side of scripts/bench-llm.sh: the same prompt text, the same GGUF file and the same
threads as `ranklens bench-llm`, through llama-cpp-python (built from its sdist for this CPU).
Greedy, with llama.cpp's repeat penalty of 1.1 over the last 64 tokens (RankLens's for free
text). Prints one JSON object: tokens read and written, seconds reading and writing (llama.cpp's
own counters), seconds in all, seconds loading, peak resident memory, and the text.

    python scripts/llama_bench.py MODEL.gguf PROMPT.txt MAX_TOKENS THREADS
"""
import json
import resource
import sys
import time

import llama_cpp
from llama_cpp import Llama

path, prompt_file, max_tokens, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
started = time.time()
# Read into memory, as RankLens does (a mapped file's pages would count as memory besides).
llm = Llama(model_path=path, n_ctx=8192, n_threads=threads, n_threads_batch=threads, n_batch=512,
            use_mmap=False, verbose=False)
load = time.time() - started
text = open(prompt_file, encoding="utf-8").read()
started = time.time()
out = llm.create_completion(prompt=text, max_tokens=max_tokens, temperature=0.0, top_k=1,
                            repeat_penalty=1.1)
total = time.time() - started
perf = llama_cpp.llama_perf_context(llm._ctx.ctx)
print(json.dumps({
    "prompt_tokens": perf.n_p_eval,
    "completion_tokens": out["usage"]["completion_tokens"],
    "read_secs": perf.t_p_eval_ms / 1000,
    "write_secs": perf.t_eval_ms / 1000,
    "total_secs": total,
    "load_secs": load,
    "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    "llama_cpp_python": llama_cpp.__version__,
    "text": out["choices"][0]["text"],
}))
