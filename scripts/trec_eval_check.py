"""Score a TREC run with pytrec_eval (trec_eval's own C code) and print the means.

    python scripts/trec_eval_check.py QRELS_TSV_OR_TREC RUN_FILE            # mean nDCG@10
    python scripts/trec_eval_check.py QRELS RUN ndcg_cut.10 map recall.100   # JSON of those means
"""
import json
import sys

import pytrec_eval


def read_qrels(path):
    qrels = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                q, d, g = parts
            elif len(parts) == 4:
                q, _, d, g = parts
            else:
                continue
            if not g.lstrip("-").isdigit():
                continue  # header
            qrels.setdefault(q, {})[d] = int(g)
    return qrels


def read_run(path):
    run = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    return run


qrels = read_qrels(sys.argv[1])
run = read_run(sys.argv[2])
measures = sys.argv[3:] or ["ndcg_cut.10"]
per_query = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)


def mean(measure):
    # pytrec_eval names `ndcg_cut.10` `ndcg_cut_10`. trec_eval -c: every judged query counts, a
    # query missing from the run counts 0.
    key = measure.replace(".", "_")
    scores = [per_query.get(q, {}).get(key, 0.0) for q in qrels]
    return sum(scores) / len(scores)


if len(sys.argv) > 3:
    print(json.dumps({m: mean(m) for m in measures}))
else:
    print(f"{mean(measures[0]):.10f}")
