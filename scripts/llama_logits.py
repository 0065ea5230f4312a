"""The first answer token's log-probabilities from llama.cpp for three ChatML prompts: the fixture
tests/generator.rs compares the embedded model's first-token scores with (an independent
implementation running the same GGUF weights with its own kernels).

    scripts/.venv-llama/bin/python scripts/llama_logits.py MODEL.gguf > tests/fixtures/generator/smollm2-first-token.json

Each case keeps the prompt as ChatML text (the test checks RankLens writes the same text), and
the 20 likeliest first tokens with their log-probabilities (log-softmax over the whole vocabulary,
in float64).
"""
import json
import math
import sys

from llama_cpp import Llama

SYSTEM = "You judge whether a passage answers a question. Answer yes or no."
PROMPTS = [
    [("system", SYSTEM), ("user", "Question: What is E140?\nPassage: E140 appears when a file is bigger than the upload limit.\nDoes the passage answer the question?")],
    [("system", SYSTEM), ("user", "Question: Why does sync stop?\nPassage: The cafe opens at nine.\nDoes the passage answer the question?")],
    [("user", "Write one sentence about search engines.")],
]


def chatml(turns):
    return "".join(f"<|im_start|>{r}\n{c.strip()}<|im_end|>\n" for r, c in turns) + "<|im_start|>assistant\n"


llm = Llama(model_path=sys.argv[1], n_ctx=1024, n_threads=2, logits_all=True, verbose=False)
cases = []
for turns in PROMPTS:
    text = chatml(turns)
    ids = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
    llm.reset()
    llm.eval(ids)
    logits = [float(x) for x in llm.scores[llm.n_tokens - 1]]
    top = max(logits)
    log_sum = math.log(sum(math.exp(x - top) for x in logits)) + top
    order = sorted(range(len(logits)), key=lambda i: (-logits[i], i))[:20]
    cases.append({
        "turns": [{"role": r, "content": c} for r, c in turns],
        "chatml": text,
        "prompt_tokens": len(ids),
        "top": [{"id": i, "token": llm.detokenize([i]).decode("utf-8", "replace"), "logprob": logits[i] - log_sum} for i in order],
    })
json.dump({"model": sys.argv[1].rsplit("/", 1)[-1], "runtime": "llama.cpp (llama-cpp-python "
           + __import__("llama_cpp").__version__ + ")", "cases": cases}, sys.stdout, ensure_ascii=False, indent=1)
print()
