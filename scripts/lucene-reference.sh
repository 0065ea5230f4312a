#!/usr/bin/env bash
# Records real Lucene output as test fixtures (run once by a maintainer; the tests read the
# committed files and need no Java):
#   tests/fixtures/lucene/<collection>-bm25-flat.run.gz  Anserini's BM25 run (k1 0.9, b 0.4, 100 hits)
#   tests/fixtures/lucene/<collection>-queries.tokens    the default English analyzer's terms of every query
#   tests/fixtures/lucene/analyzer-cases.tokens          the same for tricky strings (scripts/lucene/cases.tsv)
#   tests/fixtures/engines/recorded/*.json                Elasticsearch 8 and Solr 9 responses with explain,
#                                                         from IndexSearcher.explain over the bundled sample
#                                                         (scripts/lucene/RecordResponses.java says how)
# for SciFact (title and text in one field, as Anserini's BEIR flat index), Cranfield and
# Vaswani (text alone). Anserini 1.7.1 (Lucene 9.9.1) comes as a fat jar inside pyserini's
# source package on PyPI; it needs Java 21 or later.
#   scripts/lucene-reference.sh [DATA_DIR (default ../shared/data)]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="$(cd "${1:-$root/../shared/data}" && pwd)"
work="${RANKLENS_LUCENE_WORK:-$root/target/lucene-reference}"
out="$root/tests/fixtures/lucene"
mkdir -p "$work" "$out"

jar_sha=183bf5b53c82441b249d475f66f73aaa3e7dedd8892dece747e3680a1fda34f3
jar="$work/anserini-1.7.1-fatjar.jar"
if ! echo "$jar_sha  $jar" | sha256sum -c --quiet >/dev/null 2>&1; then
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
        pyserini==1.6.0 -d "$work" >&2
    tar xzf "$work/pyserini-1.6.0.tar.gz" -C "$work" pyserini-1.6.0/pyserini/resources/jars/anserini-1.7.1-fatjar.jar
    mv "$work/pyserini-1.6.0/pyserini/resources/jars/anserini-1.7.1-fatjar.jar" "$jar"
    echo "$jar_sha  $jar" | sha256sum -c --quiet
fi

java=""
for candidate in "${JAVA:-}" /usr/lib/jvm/temurin-25-jdk-amd64/bin/java "$(command -v java || true)"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    major=$("$candidate" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')
    if [ "${major%%.*}" -ge 21 ] 2>/dev/null; then java="$candidate"; break; fi
done
[ -n "$java" ] || { echo "Anserini 1.7.1 needs Java 21 or later (set JAVA=/path/to/java)" >&2; exit 2; }
javac="$(dirname "$java")/javac"
"$javac" -d "$work/classes" -cp "$jar" "$root/scripts/lucene/DumpTokens.java" "$root/scripts/lucene/RecordResponses.java"
tokens() { "$java" -cp "$jar:$work/classes" DumpTokens; }

python3 - "$data" "$work" <<'PY'
import json, sys, os
data, work = sys.argv[1], sys.argv[2]
for name, with_title in [("scifact", True), ("cranfield", False), ("vaswani", False)]:
    src = os.path.join(data, name)
    os.makedirs(os.path.join(work, name, "corpus"), exist_ok=True)
    with open(os.path.join(src, "corpus.jsonl"), encoding="utf-8") as f, \
         open(os.path.join(work, name, "corpus", "corpus.jsonl"), "w", encoding="utf-8") as o:
        for line in f:
            d = json.loads(line)
            o.write(json.dumps({"_id": d["_id"], "title": d.get("title", "") if with_title else "",
                                "text": d.get("text", "")}) + "\n")
    judged = set()
    with open(os.path.join(src, "qrels", "test.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            judged.add(line.split("\t")[0])
    with open(os.path.join(src, "queries.jsonl"), encoding="utf-8") as f, \
         open(os.path.join(work, name, "topics.tsv"), "w", encoding="utf-8") as o:
        for line in f:
            q = json.loads(line)
            if q["_id"] in judged:
                text = " ".join(q["text"].split())
                o.write(f'{q["_id"]}\t{text}\n')
PY

for name in scifact cranfield vaswani; do
    dir="$work/$name"
    if [ ! -f "$dir/index/segments_1" ] && ! ls "$dir/index"/segments_* >/dev/null 2>&1; then
        rm -rf "$dir/index"
        "$java" -cp "$jar" io.anserini.index.IndexCollection -collection BeirFlatCollection \
            -input "$dir/corpus" -index "$dir/index" -generator DefaultLuceneDocumentGenerator \
            -threads 1 -storePositions -storeDocvectors -storeRaw >"$dir/index.log" 2>&1
    fi
    "$java" -cp "$jar" io.anserini.search.SearchCollection -index "$dir/index" \
        -topics "$dir/topics.tsv" -topicReader TsvString -output "$dir/run.txt" \
        -bm25 -bm25.k1 0.9 -bm25.b 0.4 -removeQuery -hits 100 >"$dir/search.log" 2>&1
    gzip -9n <"$dir/run.txt" >"$out/$name-bm25-flat.run.gz"
    tokens <"$dir/topics.tsv" >"$out/$name-queries.tokens"
    echo "$name: $(wc -l <"$dir/run.txt") run lines, $(wc -l <"$dir/topics.tsv") questions" >&2
done
tokens <"$root/scripts/lucene/cases.tsv" >"$out/analyzer-cases.tokens"
"$java" -cp "$jar:$work/classes" RecordResponses "$root/sample-corpus/acme-sync/corpus.jsonl" \
    "$root/tests/fixtures/engines/recorded"
