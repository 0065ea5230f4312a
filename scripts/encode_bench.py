"""Encoding speed of the same two models in PyTorch, the reference for `ranklens bench-encode`.

all-MiniLM-L6-v2 through sentence-transformers (mean pooling, L2 normalisation, 256 tokens) and the
SPLADE model through transformers (log(1 + ReLU(MLM logits)) max-pooled over tokens, 256 tokens), on
the first N passages of a BEIR corpus, each passage "title\\ntext" as RankLens encodes it, in batches
of 32, on as many threads as RankLens uses. Prints one JSON object.

    python scripts/encode_bench.py --dataset DIR --dense-model DIR --splade-model DIR [--limit N] [--threads T]
"""
import argparse
import json
import os
import time


def passages(dataset, limit):
    out = []
    with open(os.path.join(dataset, "corpus.jsonl"), encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            title, text = d.get("title", "") or "", d.get("text", "") or ""
            if not title.strip():
                out.append(text)
            elif not text.strip():
                out.append(title)
            else:
                out.append(f"{title}\n{text}")
            if limit and len(out) >= limit:
                break
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--dense-model", required=True)
    ap.add_argument("--splade-model", required=True)
    ap.add_argument("--limit", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--batch", type=int, default=32)
    args = ap.parse_args()

    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    torch.set_num_threads(args.threads)
    texts = passages(args.dataset, args.limit)

    word = models.Transformer(args.dense_model, max_seq_length=256)
    pool = models.Pooling(word.get_word_embedding_dimension(), pooling_mode="mean")
    dense = SentenceTransformer(modules=[word, pool, models.Normalize()], device="cpu")
    dense.encode(texts[:8], batch_size=args.batch)  # warm-up
    t = time.perf_counter()
    vectors = dense.encode(texts, batch_size=args.batch, convert_to_numpy=True)
    dense_secs = time.perf_counter() - t
    assert vectors.shape[0] == len(texts)

    tok = AutoTokenizer.from_pretrained(args.splade_model)
    mlm = AutoModelForMaskedLM.from_pretrained(args.splade_model).eval()

    def splade(batch):
        enc = tok(batch, padding=True, truncation=True, max_length=256, return_tensors="pt")
        logits = mlm(**enc).logits
        w = torch.log1p(torch.relu(logits)) * enc["attention_mask"].unsqueeze(-1)
        return w.max(dim=1).values

    with torch.inference_mode():
        splade(texts[:8])  # warm-up
        t = time.perf_counter()
        nonzero = 0
        for i in range(0, len(texts), args.batch):
            nonzero += int((splade(texts[i : i + args.batch]) > 0).sum())
        splade_secs = time.perf_counter() - t

    print(
        json.dumps(
            {
                "passages": len(texts),
                "threads": args.threads,
                "torch": torch.__version__,
                "dense_secs": dense_secs,
                "dense_passages_per_sec": len(texts) / dense_secs,
                "splade_secs": splade_secs,
                "splade_passages_per_sec": len(texts) / splade_secs,
                "splade_mean_terms": nonzero / len(texts),
            }
        )
    )


if __name__ == "__main__":
    main()
