"""Write a TREC run of bm25s (its default BM25, English stemming and stop words) over a BEIR
dataset's judged queries, so a run made by another tool can be put beside RankLens's methods:

    python scripts/bm25s_run.py ../shared/data/scifact bm25s.trec [--k 1000]

Run it with the benchmark environment: `$(scripts/venv.sh) scripts/bm25s_run.py ...`.
"""
import argparse
import json
import os

import bm25s
import Stemmer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("out")
    ap.add_argument("--k", type=int, default=1000)
    a = ap.parse_args()
    ids, texts = [], []
    with open(os.path.join(a.dataset, "corpus.jsonl"), encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            ids.append(d["_id"])
            texts.append((d.get("title", "") + " " + d["text"]).strip())
    judged = set()
    with open(os.path.join(a.dataset, "qrels", "test.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            judged.add(line.split("\t")[0])
    queries = []
    with open(os.path.join(a.dataset, "queries.jsonl"), encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            if q["_id"] in judged:
                queries.append((q["_id"], q["text"]))
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    k = min(a.k, len(ids))
    tokens = bm25s.tokenize([t for _, t in queries], stopwords="en", stemmer=stemmer, show_progress=False)
    docs, scores = retriever.retrieve(tokens, k=k, show_progress=False)
    with open(a.out, "w", encoding="utf-8") as out:
        for (qid, _), row, srow in zip(queries, docs, scores):
            for rank, (d, s) in enumerate(zip(row, srow), start=1):
                out.write(f"{qid} Q0 {ids[d]} {rank} {float(s)!r} bm25s\n")


if __name__ == "__main__":
    main()
