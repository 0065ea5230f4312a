"""The extractive reader's reference: `transformers`' own `BertForQuestionAnswering` and
`DistilBertForQuestionAnswering` on seeded random weights of the real models' shapes, the windows
`transformers` cuts a long passage into, their start and end logits, and the best span.

No SQuAD-trained reader is reachable from the machines RankLens is built on, so the reader's
plumbing (loading, windows, the head, the span search) is checked against this on random weights
(tests/reader.rs). Usage:

    python qa_reference.py ARCH SEED TOKENIZER_JSON OUT_DIR CASES_JSON MAX_LENGTH STRIDE MAX_ANSWER

ARCH is `bert` (deepset/minilm-uncased-squad2's shapes: 12 layers, 384 hidden, 12 heads) or
`distilbert` (distilbert-base-cased-distilled-squad's: 6 layers, 768 hidden, 12 heads); the
vocabulary is the tokenizer's. The weights are written to OUT_DIR (config.json,
model.safetensors, tokenizer.json); the result, one object per case, to stdout as JSON.
"""

import json
import shutil
import sys

import numpy as np
import torch
from transformers import (
    BertConfig,
    BertForQuestionAnswering,
    DistilBertConfig,
    DistilBertForQuestionAnswering,
    PreTrainedTokenizerFast,
    pipeline,
)


def model_of(arch, vocab, seed):
    torch.manual_seed(seed)
    if arch == "bert":
        config = BertConfig(
            vocab_size=vocab,
            hidden_size=384,
            num_hidden_layers=12,
            num_attention_heads=12,
            intermediate_size=1536,
            max_position_embeddings=512,
            type_vocab_size=2,
            hidden_act="gelu",
        )
        model = BertForQuestionAnswering(config)
    else:
        config = DistilBertConfig(vocab_size=vocab, dim=768, n_layers=6, n_heads=12, hidden_dim=3072)
        model = DistilBertForQuestionAnswering(config)
    # A trained head's logits spread over several units; the default initialisation's (std 0.02)
    # would leave the spans' scores a few hundredths apart. Spread them, so the best span is
    # clearly best.
    with torch.no_grad():
        model.qa_outputs.weight.normal_(0.0, 0.5)
        model.qa_outputs.bias.normal_(0.0, 0.5)
    model.eval()
    return model


def best_span(windows, max_answer):
    """Exhaustive: every span of passage tokens i <= j, at most max_answer long, in every window;
    the largest start[i] + end[j], as character offsets; and the lowest [CLS] score."""
    best = None
    second = None
    for w in windows:
        passage = [i for i, s in enumerate(w["sequence_ids"]) if s == 1 and w["offsets"][i][1] > w["offsets"][i][0]]
        for a, i in enumerate(passage):
            for j in passage[a:]:
                if j - i + 1 > max_answer:
                    break
                score = w["start"][i] + w["end"][j]
                span = (w["offsets"][i][0], w["offsets"][j][1])
                if best is None or score > best[0]:
                    if best is not None and best[1] != span:
                        second = best
                    best = (score, span)
                elif best[1] != span and (second is None or score > second[0]):
                    second = (score, span)
    null = min(w["start"][0] + w["end"][0] for w in windows)
    gap = best[0] - second[0] if second is not None else None
    return {"start": best[1][0], "end": best[1][1], "score": best[0], "gap": gap, "no_answer": null}


def main():
    arch, seed, tokenizer_json, out_dir, cases_json, max_length, stride, max_answer = sys.argv[1:9]
    seed, max_length, stride, max_answer = int(seed), int(max_length), int(stride), int(max_answer)
    # DistilBERT takes no token types: the tokenizer is told so, as its own tokenizer_config says.
    inputs = ["input_ids", "token_type_ids", "attention_mask"] if arch == "bert" else ["input_ids", "attention_mask"]
    tok = PreTrainedTokenizerFast(
        tokenizer_file=tokenizer_json,
        cls_token="[CLS]",
        sep_token="[SEP]",
        pad_token="[PAD]",
        unk_token="[UNK]",
        model_input_names=inputs,
    )
    model = model_of(arch, tok.backend_tokenizer.get_vocab_size(), seed)
    model.save_pretrained(out_dir, safe_serialization=True)
    shutil.copy(tokenizer_json, f"{out_dir}/tokenizer.json")
    qa = pipeline("question-answering", model=model, tokenizer=tok, device=-1)
    out = []
    for case in json.load(open(cases_json)):
        enc = tok(
            case["question"],
            case["context"],
            truncation="only_second",
            max_length=max_length,
            stride=stride,
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
        )
        windows = []
        for n in range(len(enc["input_ids"])):
            ids = torch.tensor([enc["input_ids"][n]])
            args = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
            if arch == "bert":
                args["token_type_ids"] = torch.tensor([enc["token_type_ids"][n]])
            with torch.no_grad():
                logits = model(**args)
            windows.append(
                {
                    "tokens": tok.convert_ids_to_tokens(enc["input_ids"][n]),
                    "sequence_ids": [s if s is not None else -1 for s in enc.sequence_ids(n)],
                    "offsets": [list(o) for o in enc["offset_mapping"][n]],
                    "start": logits.start_logits[0].tolist(),
                    "end": logits.end_logits[0].tolist(),
                }
            )
        result = {"windows": windows, "best": best_span(windows, max_answer)}
        if len(windows) == 1:
            # transformers' own pipeline, on a passage it reads in one window (across windows it
            # compares probabilities normalised per window, not logits).
            p = qa(
                question=case["question"],
                context=case["context"],
                max_answer_len=max_answer,
                max_seq_len=max_length,
                doc_stride=stride,
                align_to_words=False,
                handle_impossible_answer=False,
            )
            result["pipeline"] = {"start": p["start"], "end": p["end"], "answer": p["answer"]}
        out.append(result)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
