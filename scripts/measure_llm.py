"""The language-model methods measured with one model, through RankLens's own commands: what
docs/measured.md reports for each generator.

    python3 scripts/measure_llm.py MODEL_ID [--questions 50] [--dataset ../shared/data/scifact]
                                  [--only NAMES] [--set NAME=QUESTIONS ...]

Every reply is kept in one workspace (scripts/.measure-workspace, its reply store keyed by model,
prompt and decoding), so a stopped run resumes where it stopped, a second run reads the replies
already written, and SciFact is encoded once for every model. `--set listwise=10` measures that
one on fewer questions (the larger model reads a listwise window for about 40 s on two cores).
Prints one JSON object per measurement as it finishes, then a summary; writes them all to
scripts/.measure-workspace/results-<model>.json.

Measurements (SciFact's first N judged test questions unless said):
  listwise   nDCG@10 of BM25's top 20 reordered, held to a permutation and free, against BM25, with
             the paired test; the windows' replies: whole permutations, mended, kept
  pointwise  the model as a judge of BM25's top 10: Cohen's kappa against the people's grades
  reason     reasoning + BM25 and + dense against BM25 and dense
  rag        closed book against RAG over BM25's top 3: the share of sentences a passage backs
  agent      the sample's 14 questions: answers that cite a passage the people judged relevant
  graphrag   the sample's 27 passages: replies read, entities and links shared with the hand-built graph
  sql        text to SQL on tests/fixtures/text-to-sql (220 rows, 34 questions): execution accuracy
  validity   the model as a judge of the pooled top 5 of BM25, TF-IDF, dense, SPLADE, late
             interaction and fusion, then `eval --judge-qrels`: can it order those six methods as
             the people's judgements do (Kendall tau, its interval, the flipped pairs, kappa)
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.path.join(ROOT, "target", "release", "ranklens")


def ranklens(args, workspace, model):
    started = time.time()
    env = dict(os.environ, RANKLENS_WORKSPACE=workspace)
    out = subprocess.run([BIN, *args, "--generator-model", model, "--format", "json"], env=env,
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit(f"ranklens {' '.join(args)} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout), time.time() - started


def questions(dataset, n):
    judged = set()
    with open(os.path.join(dataset, "qrels", "test.tsv")) as f:
        for line in f:
            parts = line.split("\t")
            if len(parts) >= 3 and parts[0] != "query-id":
                judged.add(parts[0])
    out = []
    with open(os.path.join(dataset, "queries.jsonl")) as f:
        for line in f:
            q = json.loads(line)
            if q["_id"] in judged:
                out.append((q["_id"], q["text"]))
    return out[:n]


def n_for(a, name):
    return a.per.get(name, a.questions)


def listwise(a, ws):
    res = {}
    for label, extra in (("held", []), ("free", ["--free"])):
        v, secs = ranklens(["eval", "--dataset", a.dataset, "--method", "bm25,listwise", "--model-depth", "20",
                            "--questions", str(n_for(a, "listwise")), "--baseline", "bm25", *extra], ws, a.model)
        rows = {m["kind"]: m for m in v["methods"]}
        lw = rows["listwise"]
        res[label] = {
            "bm25_ndcg10": rows["bm25"]["summary"]["mean"]["nDCG@10"],
            "listwise_ndcg10": lw["summary"]["mean"]["nDCG@10"],
            "versus_bm25": lw["versus_baseline"],
            "windows": lw.get("note"),
            "questions": n_for(a, "listwise"),
            "seconds": secs,
        }
    return res


def pointwise(a, ws):
    n = n_for(a, "pointwise")
    v, secs = ranklens(["judge", "--dataset", a.dataset, "--method", "bm25", "-k", "10", "--questions",
                        str(n), "--probabilities"], ws, a.model)
    return {"agreement": v["agreement"], "unreadable": v.get("unreadable"), "sweep": v.get("sweep"), "questions": n,
            "seconds": secs}


SIX = "bm25,tfidf,dense,splade,late,fusion"


def validity(a, ws):
    n = n_for(a, "validity")
    out = os.path.join(ws, f"judged-{a.model.replace('/', '--')}-{n}.qrels")
    pool = [x for m in SIX.split(",") for x in ("--method", m)]
    v, secs = ranklens(["judge", "--dataset", a.dataset, *pool, "-k", "5", "--questions", str(n), "--out", out],
                       ws, a.model)
    e, esecs = ranklens(["eval", "--dataset", a.dataset, "--method", SIX, "--questions", str(n), "--judge-qrels",
                         out], ws, a.model)
    val = e["validity"]
    return {"questions": n, "judged": v["judged"], "unreadable": v["unreadable"], "agreement": v["agreement"],
            "tau": val["tau"], "interval": val["interval"], "flips": [f["text"] for f in val["flips"]],
            "kappa": val["kappa"], "verdict": val["verdict"],
            "orders": {s["label"]: [s["people"], s["judge"]] for s in val["systems"]},
            "qrels": out, "seconds": secs + esecs}


def reason(a, ws):
    v, secs = ranklens(["eval", "--dataset", a.dataset, "--method", "bm25,dense,reason-bm25,reason-dense",
                        "--questions", str(n_for(a, "reason")), "--baseline", "bm25"], ws, a.model)
    return {"methods": {m["kind"]: {"ndcg10": m["summary"]["mean"]["nDCG@10"], "versus_bm25": m["versus_baseline"]}
                        for m in v["methods"]}, "seconds": secs}


def share_backed(grounding):
    if not grounding:
        return 0, 0
    return sum(1 for g in grounding if g.get("supported")), len(grounding)


def rag(a, ws):
    totals = {"rag": [0, 0], "closed": [0, 0]}
    secs_all = 0.0
    for qid, text in questions(a.dataset, n_for(a, "rag")):
        v, secs = ranklens(["rag", "--corpus", a.dataset, "-k", "3", "--closed-book", text], ws, a.model)
        secs_all += secs
        for key, g in (("rag", v.get("grounding")), ("closed", (v.get("closed_book") or {}).get("grounding"))):
            b, n = share_backed(g or [])
            totals[key][0] += b
            totals[key][1] += n
    return {k: {"backed": b, "sentences": n, "share": b / n if n else None} for k, (b, n) in totals.items()} | {
        "seconds": secs_all}


def agent(a, ws):
    sample = os.path.join(ROOT, "sample-corpus", "acme-sync")
    right, n, secs_all, calls = 0, 0, 0.0, 0
    with open(os.path.join(sample, "questions.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    for row in rows:
        qid, question, judgements = row[0], row[1], row[2]
        relevant = {p.rsplit(":", 1)[0] for p in judgements.split() if int(p.rsplit(":", 1)[1]) > 0}
        v, secs = ranklens(["agent", "--corpus", sample, question], ws, a.model)
        secs_all += secs
        n += 1
        cited = [c.get("id") for c in v.get("citations", []) if c.get("id")]
        calls += sum(1 for s in v.get("trace", []) if s.get("tool"))
        right += any(c in relevant for c in cited)
    return {"questions": n, "cite_a_relevant_passage": right, "tool_calls": calls, "seconds": secs_all}


def graphrag(a, ws):
    sample = os.path.join(ROOT, "sample-corpus", "acme-sync")
    v, secs = ranklens(["graphrag", "build", "--corpus", sample], ws, a.model)
    o = v.get("overlap") or {}
    return {"passages": v["passages"], "skipped": v["skipped"], "entities": v["entities"],
            "relations": v["relations"], "communities": v["communities"], "summaries": v["summaries"],
            "entities_shared": len(o.get("entities_both", [])), "hand_entities":
                len(o.get("entities_both", [])) + len(o.get("entities_hand_only", [])),
            "links_shared": len(o.get("edges_both", [])), "hand_links":
                len(o.get("edges_both", [])) + len(o.get("edges_hand_only", [])), "seconds": secs}


def sql(a, ws):
    fixture = os.path.join(ROOT, "tests", "fixtures", "text-to-sql")
    v, secs = ranklens(["sql", "--corpus", fixture, "--gold", os.path.join(fixture, "gold.tsv")], ws, a.model)
    return {"right": v["right"], "questions": v["questions"], "accuracy": v["accuracy"],
            "seconds_per_question": v["seconds_per_question"], "seconds": secs}


MEASURES = {"sql": sql, "graphrag": graphrag, "agent": agent, "listwise": listwise, "pointwise": pointwise,
            "validity": validity, "reason": reason, "rag": rag}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--questions", type=int, default=50)
    p.add_argument("--dataset", default=os.path.join(ROOT, "..", "shared", "data", "scifact"))
    p.add_argument("--only", default=",".join(MEASURES))
    p.add_argument("--set", action="append", default=[], help="NAME=QUESTIONS for one measurement")
    a = p.parse_args()
    a.per = {k: int(v) for k, v in (x.split("=", 1) for x in a.set)}
    ws = os.path.join(HERE, ".measure-workspace")
    os.makedirs(ws, exist_ok=True)
    path = os.path.join(ws, f"results-{a.model.replace('/', '--')}.json")
    results = json.load(open(path)) if os.path.exists(path) else {}
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    results["cpu"] = f"{cpu}, {os.cpu_count()} cores"
    for name in a.only.split(","):
        print(f"{a.model}: {name}…", file=sys.stderr)
        results[name] = MEASURES[name](a, ws)
        results[name]["date"] = time.strftime("%Y-%m-%d")
        print(json.dumps({name: results[name]}), flush=True)
        json.dump(results, open(path, "w"), indent=1)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
