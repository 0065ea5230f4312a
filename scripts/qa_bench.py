"""transformers reading the same (question, passage) pairs as `ranklens bench-read`, with the same
weights: each pair tokenised as the reader's windows (only_second truncation, the same length and
stride), the model run on them one pair at a time, as the reader reads. Prints seconds a pair.

    python qa_bench.py MODEL_DIR PAIRS_JSON MAX_LENGTH STRIDE THREADS
"""

import json
import sys
import time

import torch
from transformers import AutoModelForQuestionAnswering, PreTrainedTokenizerFast


def main():
    model_dir, pairs_json, max_length, stride, threads = sys.argv[1:6]
    torch.set_num_threads(int(threads))
    tok = PreTrainedTokenizerFast(
        tokenizer_file=f"{model_dir}/tokenizer.json", cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", unk_token="[UNK]"
    )
    model = AutoModelForQuestionAnswering.from_pretrained(model_dir).eval()
    pairs = json.load(open(pairs_json))
    with torch.inference_mode():
        start = time.perf_counter()
        for p in pairs:
            enc = tok(
                p["question"],
                p["passage"],
                truncation="only_second",
                max_length=int(max_length),
                stride=int(stride),
                return_overflowing_tokens=True,
                padding=True,
                return_tensors="pt",
            )
            model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], token_type_ids=enc["token_type_ids"])
        seconds = time.perf_counter() - start
    print(json.dumps({"pairs": len(pairs), "seconds": seconds, "per_pair": seconds / max(len(pairs), 1)}))


if __name__ == "__main__":
    main()
