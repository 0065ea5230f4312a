#!/usr/bin/env bash
# Mutation testing of the scoring code with cargo-mutants (not in CI: every mutant is a rebuild
# and a test run). Two passes over the same mutants, each building in this tree (--in-place: run
# it on a clone you are not editing), with the `mutants` profile (RankLens at opt-level 0, so a
# mutant rebuilds in about 7 s; its dependencies optimised as in dev):
#   1. the library's unit tests only (about 10 s a mutant on 2 cores, most mutants die here),
#      split over MUTANTS_JOBS copies of the tree (default 2) that run at once: each copy gets
#      this tree's sources and a copy of its built dependencies (cp -a keeps their timestamps,
#      so nothing is rebuilt), and runs one slice of the mutants (--shard k/N);
#   2. the survivors again, with the integration tests that exercise these files as well
#      (.cargo/mutants.toml: the hand-worked and Anserini BM25 figures, run files against
#      pytrec_eval, SciFact rankings bit for bit, engine explanations, readers).
#   RANKLENS_DATA=../shared/data scripts/mutants.sh [FILE…]   (default: the six files below)
# Writes mutants.out.unit/K/mutants.out/ (pass 1, shard K) and mutants.out/ (pass 2) and prints
# the share caught.
set -euo pipefail
cd "$(dirname "$0")/.."
version=27.1.0
if ! cargo mutants --version 2>/dev/null | grep -q "$version"; then
    cargo install cargo-mutants --locked --version "$version"
fi
command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(src/formula.rs src/topk.rs src/eval/metrics.rs src/eval/runfile.rs
    src/external/lucene.rs src/index/impacts.rs)
args=()
for f in "${files[@]}"; do args+=(--file "$f"); done
# Unit tests that exercise none of the six files and take seconds each (HNSW recall, the Boolean
# clause tree over generated corpora, the token index, vectors files, GGUF vocabularies, the
# graph, the bf16 kernel): skipped in pass 1 only.
skip=()
for t in hnsw the_clause_tree index::tokens:: external::vectors:: gguf structured::graph:: models::precision::; do
    skip+=(--cargo-test-arg=--skip "--cargo-test-arg=$t")
done
jobs=${MUTANTS_JOBS:-2}
case "$jobs" in ''|*[!0-9]*|0) echo "MUTANTS_JOBS must be a whole number ≥ 1, not '$jobs'" >&2; exit 64;; esac
rm -rf mutants.out mutants.out.old mutants.out.unit
mkdir -p mutants.out.unit
unit_args=(--no-config --in-place --no-shuffle --profile mutants --timeout 120 --build-timeout 900
    --test-tool cargo --cargo-arg=--no-default-features --cargo-arg=--lib --cargo-test-arg=-- "${skip[@]}"
    "${args[@]}")
# Build the dependencies once, here, before the tree is copied.
cargo test --profile mutants --no-default-features --lib --no-run
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
root=$PWD
copies=$(mktemp -d "${TMPDIR:-/tmp}/ranklens-mutants.XXXXXX")
# A mutant that fails a property test leaves its failing case in proptest-regressions/ (proptest
# keeps every failure): those are the mutants', not the program's, so they are put back.
cleanup() {
    rm -rf "$copies"
    git -C "$root" checkout -q -- proptest-regressions 2>/dev/null || true
    git -C "$root" clean -fdq -- proptest-regressions 2>/dev/null || true
}
trap cleanup EXIT
# Every copy is made before any shard starts: shard 0 mutates this tree in place.
for ((k = 1; k < jobs; k++)); do
    mkdir -p "$copies/$k/target"
    tar -cf - --exclude=./.git --exclude=./target --exclude='./mutants.out*' . | tar -xf - -C "$copies/$k"
    cp -a "$target/mutants" "$copies/$k/target/"
done
pids=()
for ((k = 0; k < jobs; k++)); do
    dir=$root shard_target=$target shard=()
    [ "$k" -eq 0 ] || dir=$copies/$k shard_target=$copies/$k/target
    [ "$jobs" -eq 1 ] || shard=(--shard "$k/$jobs")
    (cd "$dir" && CARGO_TARGET_DIR="$shard_target" cargo mutants "${unit_args[@]}" "${shard[@]}" \
        --output "$root/mutants.out.unit/$k" >"$root/mutants.out.unit/$k.log" 2>&1) &
    pids+=($!)
done
for pid in "${pids[@]}"; do
    status=0
    wait "$pid" || status=$?
    [ "$status" -le 3 ] || { echo "a pass-1 shard failed (exit $status): see mutants.out.unit/*.log" >&2; exit "$status"; }
done
# Pass 2 (settings in .cargo/mutants.toml) retests only what pass 1 did not catch: it reads the
# caught, unviable and timed-out mutants of every shard from mutants.out/previously_caught.txt (a
# mutant that timed out loops forever; it would wait out pass 2's longer timeout again).
mkdir -p mutants.out
cat mutants.out.unit/*/mutants.out/{caught,unviable,timeout}.txt 2>/dev/null >mutants.out/previously_caught.txt || true
status=0
cargo mutants --in-place --no-shuffle --iterate --timeout 600 --build-timeout 900 "${args[@]}" || status=$?
python3 - <<'PY'
import glob, json
def outcomes(path):
    o = json.load(open(path))
    return {x["scenario"]["Mutant"]["name"] if isinstance(x["scenario"], dict) else "": x["summary"]
            for x in o["outcomes"] if x["scenario"] != "Baseline"}
first = {}
for path in sorted(glob.glob("mutants.out.unit/*/mutants.out/outcomes.json")):
    first.update(outcomes(path))
second = outcomes("mutants.out/outcomes.json")
final = {**first, **second}  # pass 2's word on every mutant it retested
counts = {}
for s in final.values():
    counts[s] = counts.get(s, 0) + 1
caught, missed, timeout = counts.get("CaughtMutant", 0), counts.get("MissedMutant", 0), counts.get("Timeout", 0)
viable = caught + missed + timeout
print(f"{viable} viable mutants ({counts.get('Unviable', 0)} unviable): {caught} caught, {timeout} timed out, {missed} missed"
      + (f": {100 * (caught + timeout) / viable:.1f} % caught" if viable else ""))
for name, s in sorted(final.items()):
    if s == "MissedMutant":
        print("  missed:", name)
PY
# cargo-mutants exits 2 when a mutant was missed, 3 on a timeout: the figure above says how many.
[ "$status" -le 3 ] || exit "$status"
