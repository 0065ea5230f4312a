"""Score a TREC run with pytrec_eval (trec_eval's own C code) and print the mean nDCG@10.

    python scripts/trec_eval_check.py QRELS_TSV_OR_TREC RUN_FILE
"""
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
per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
# trec_eval -c: every judged query counts, a query missing from the run counts 0.
scores = [per_query.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels]
print(f"{sum(scores) / len(scores):.10f}")
