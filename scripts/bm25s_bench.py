"""Index a BEIR corpus with bm25s and time it, single-threaded, the way RankLens's `bench` does.

Prints one JSON line: index_secs (best of --repeat builds), qps_top10, qps_top1000 (retrieval
only, queries pre-tokenised, best of --query-repeat passes: a pass over SciFact's 300 queries takes
a few milliseconds, so a few passes leave the ratio to chance) and nDCG@10 of the top-1000 run, for both of bm25s's backends.
"""
import argparse
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import bm25s  # noqa: E402
import numpy as np  # noqa: E402
import Stemmer  # noqa: E402


def load(dataset):
    ids, texts = [], []
    with open(os.path.join(dataset, "corpus.jsonl"), encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            ids.append(d["_id"])
            texts.append((d.get("title", "") + " " + d["text"]).strip())
    judged = {}
    with open(os.path.join(dataset, "qrels", "test.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            q, d, s = line.split("\t")
            judged.setdefault(q, {})[d] = int(s)
    queries = []
    with open(os.path.join(dataset, "queries.jsonl"), encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            if q["_id"] in judged:
                queries.append((q["_id"], q["text"]))
    return ids, texts, queries, judged


def ndcg10(ranked, rels):
    dcg = sum(rels.get(d, 0) / np.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted((g for g in rels.values() if g > 0), reverse=True)[:10]
    idcg = sum(g / np.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--k1", type=float, default=1.2)
    ap.add_argument("--b", type=float, default=0.75)
    ap.add_argument("--method", default="lucene")
    ap.add_argument("--repeat", type=int, default=3, help="index builds; the best is reported")
    ap.add_argument("--query-repeat", type=int, default=20, help="passes over the queries; the best is reported")
    a = ap.parse_args()
    ids, texts, queries, judged = load(a.dataset)
    stemmer = Stemmer.Stemmer("english")
    out = {"documents": len(ids), "queries": len(queries), "method": a.method, "k1": a.k1, "b": a.b}
    index_secs = float("inf")
    for _ in range(a.repeat):
        t = time.perf_counter()
        tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
        retriever = bm25s.BM25(k1=a.k1, b=a.b, method=a.method)
        retriever.index(tokens, show_progress=False)
        index_secs = min(index_secs, time.perf_counter() - t)
    out["index_secs"] = index_secs
    q_tokens = bm25s.tokenize([q for _, q in queries], stopwords="en", stemmer=stemmer, show_progress=False)
    for backend in ["numpy", "numba"]:
        try:
            r = bm25s.BM25(k1=a.k1, b=a.b, method=a.method, backend=backend)
            r.index(tokens, show_progress=False)
            r.retrieve(q_tokens, k=10, show_progress=False, n_threads=1)  # warm-up (numba compiles here)
        except Exception as e:  # a missing numba is reported, not fatal
            out[f"{backend}_error"] = str(e)
            continue
        for k in (10, 1000):
            best = 0.0
            for _ in range(a.query_repeat):
                t = time.perf_counter()
                docs, _ = r.retrieve(q_tokens, k=min(k, len(ids)), show_progress=False, n_threads=1)
                best = max(best, len(queries) / (time.perf_counter() - t))
            out[f"{backend}_qps_top{k}"] = best
            if k == 1000:
                out[f"{backend}_ndcg10"] = float(
                    np.mean([ndcg10([ids[j] for j in docs[i]], judged[qid]) for i, (qid, _) in enumerate(queries)])
                )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
