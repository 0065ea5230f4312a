"""Token ids of llama.cpp's own tokenizer for a GGUF model: the fixture that tests/generator.rs
compares RankLens's GGUF tokenizer with (an independent implementation of the same vocabulary).

    scripts/llama_tokens.py MODEL.gguf > tests/fixtures/generator/smollm2-tokens.json
"""
import json
import sys

from llama_cpp import Llama

TEXTS = [
    "Hello world 2024",
    "What is E140?",
    "Why does sync stop when the laptop sleeps?",
    "0-dimensional biomaterials show inductive properties.",
    "It's 3.14159, isn't it? They'll've done   it\t\ttwice\n\nthen  stopped.",
    "naïve café — Zürich, 東京, emoji 🙂 and a tab\there",
    "<|im_start|>user\nWhat is BM25?<|im_end|>\n<|im_start|>assistant\n",
    "   leading spaces and trailing   ",
    "URLs like https://example.org/a?b=1&c=2 and e-mail a.b@c.de",
    "CamelCaseWords, snake_case_words and ALLCAPS 12345678901",
]

llm = Llama(model_path=sys.argv[1], vocab_only=True, verbose=False)
out = []
for t in TEXTS:
    ids = llm.tokenize(t.encode("utf-8"), add_bos=False, special=True)
    out.append({"text": t, "ids": ids})
json.dump({"model": sys.argv[1].rsplit("/", 1)[-1], "tokenizer": "llama.cpp (llama-cpp-python "
           + __import__("llama_cpp").__version__ + ")", "cases": out}, sys.stdout, ensure_ascii=False, indent=1)
print()
