#!/usr/bin/env bash
# Mutation testing with cargo-mutants (not in CI: every mutant is a rebuild and a test run). Two
# passes over the same mutants, each building in this tree (--in-place: run it on a clone you are
# not editing), with the `mutants` profile (RankLens at opt-level 0, so a mutant rebuilds in about
# 7 s; its dependencies optimised as in dev):
#   1. the library's unit tests only (about 10 s a mutant on 2 cores, most mutants die here),
#      split over MUTANTS_JOBS copies of the tree (default 2) that run at once: each copy gets
#      this tree's sources and a copy of its built dependencies (cp -a keeps their timestamps,
#      so nothing is rebuilt), and runs one slice of the mutants (--shard k/N);
#   2. the survivors again, sliced the same way, against the integration tests that exercise the
#      files mutated (`tests_of` below: for the scoring files the hand-worked and Anserini
#      BM25 figures, run files against pytrec_eval, SciFact rankings bit for bit, engine
#      explanations, readers; for the lessons and the grader the lessons' and assignments' tests;
#      for the language-model tasks the loopback-server tests).
#   RANKLENS_DATA=../shared/data scripts/mutants.sh [FILE…]   (default: the six scoring files)
# MUTANTS_UNIT_FILTER="a:: b::": pass 1 runs only the unit tests whose names contain one of these
# (the mutated modules' own: a second or two a mutant instead of the whole library's ~13 s), and
# pass 2 then runs the library's unit tests too, so a survivor still meets every test there is.
# MUTANTS_PASS2_PROFILE=mutants-opt: pass 2 builds with that profile (RankLens at opt-level 1)
# instead of `mutants`: for int16.rs, whose `models_real` tests run past pass 2's timeout unoptimised.
# MUTANTS_CAUGHT=FILE: names (as `cargo mutants --list` prints them) of mutants an earlier pass 1
# caught at the same code; pass 1 does not run them again (docs/mutants.md says when that holds).
# Writes mutants.out.unit/K/mutants.out/ (pass 1, slice K; its log mutants.out.unit/K.log) and
# mutants.out/K/mutants.out/ (pass 2), and prints the share caught after each pass.
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
# Unit tests that exercise none of the files this script mutates and take seconds each (HNSW
# recall, the Boolean clause tree over generated corpora, the token index, vectors files, GGUF
# vocabularies, the graph, the bf16 kernel): skipped in pass 1 (pass 2 runs no unit test). Pass 2
# skips four integration tests that draw, recompute or print assignments for minutes
# at opt-level 0 and grade nothing (a mutant only they could catch is reported missed).
slow_units=(hnsw the_clause_tree index::tokens:: external::vectors:: gguf structured::graph:: models::precision::)
skip=()
for t in "${slow_units[@]}"; do
    skip+=(--cargo-test-arg=--skip "--cargo-test-arg=$t")
done
unit_filter=()
for t in ${MUTANTS_UNIT_FILTER:-}; do
    unit_filter+=("--cargo-test-arg=$t")
done
slow_draws=(no_draw_breaks_the_rules_that_make_a_question_worth_asking
    every_dense_variant_of_a_class_recomputed_gives_the_key
    every_assignment_handout_prints_within_two_pages_per_four_questions
    every_handout_prints_every_question_and_table_row_within_the_page)
pass2_filter="not test(/^($(IFS='|'; echo "${slow_draws[*]}"))\$/)"
# With MUTANTS_UNIT_FILTER pass 2 runs the library's unit tests, less the slow ones pass 1 skips.
[ -z "${MUTANTS_UNIT_FILTER:-}" ] || pass2_filter+=" and not test(/$(IFS="|"; echo "${slow_units[*]}")/)"
jobs=${MUTANTS_JOBS:-2}
case "$jobs" in ''|*[!0-9]*|0) echo "MUTANTS_JOBS must be a whole number ≥ 1, not '$jobs'" >&2; exit 64;; esac
rm -rf mutants.out mutants.out.old mutants.out.unit
mkdir -p mutants.out.unit mutants.out
# tests_of FILE: the integration test targets that exercise FILE (pass 2 runs them with the unit
# tests). A file this table does not know stops the script before anything is built.
tests_of() {
    case "$1" in
        src/topk.rs | src/index/impacts.rs) echo bm25_references scifact_bm25 engines ;;
        src/formula.rs) echo bm25_references lucene_reference scifact_bm25 engines ;;
        src/eval/metrics.rs | src/eval/runfile.rs) echo runs readers ;;
        src/external/lucene.rs) echo lucene_reference engines ;;
        src/lessons/* | src/classroom/*) echo lessons assignments ;;
        # The embedded model's own suites (SmolLM2 and Qwen in the process), not only the servers.
        src/generate/llama.rs) echo generator qwen llm_kept ;;
        src/generate/store.rs) echo llm_kept llm_server llm_methods ;;
        src/generate/shape.rs) echo generator qwen llm_methods llm_server ;;
        src/generate/*) echo llm_server llm_methods agent_tools ;;
        src/eval/validity.rs) echo judge_validity llm_methods ;;
        src/compare/fixes.rs) echo why_not ;;
        src/datasets.rs) echo collections readers ;;
        src/retrieve/listwise.rs) echo llm_methods llm_kept ;;
        src/retrieve/agent/*) echo agent_tools ;;
        src/graphrag/*) echo llm_server llm_kept agent_tools ;;
        src/eval/agreement.rs) echo llm_methods lucene_reference ;;
        src/models/int16.rs) echo models_real ;;
        *) return 1 ;;
    esac
}
declare -A wanted=()
for f in "${files[@]}"; do
    [ -f "$f" ] || { echo "$f: no such file" >&2; exit 64; }
    t=$(tests_of "$f") || { echo "$f: scripts/mutants.sh does not know its integration tests (tests_of)" >&2; exit 64; }
    for x in $t; do wanted[$x]=1; done
done
# Not --lib: pass 2 only sees mutants that every unit test pass 1 ran has already let through.
pass2_targets=(--no-default-features)
[ ${#unit_filter[@]} -eq 0 ] || pass2_targets+=(--lib)
for x in $(printf '%s\n' "${!wanted[@]}" | sort); do pass2_targets+=(--test "$x"); done
pass2_args=()
for x in "${pass2_targets[@]}"; do pass2_args+=("--cargo-arg=$x"); done
caught_before=${MUTANTS_CAUGHT:-}
if [ -n "$caught_before" ] && [ ! -f "$caught_before" ]; then
    echo "MUTANTS_CAUGHT=$caught_before: no such file" >&2
    exit 64
fi
# Build the dependencies of both passes once, here, before the tree is copied.
cargo test --profile mutants --no-default-features --lib --no-run
pass2_profile=${MUTANTS_PASS2_PROFILE:-mutants}
case "$pass2_profile" in mutants | mutants-opt) ;; *) echo "MUTANTS_PASS2_PROFILE must be mutants or mutants-opt, not '$pass2_profile'" >&2; exit 64;; esac
cargo test --profile "$pass2_profile" "${pass2_targets[@]}" --no-run
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
# Every copy is made before any slice starts: slice 0 mutates this tree in place.
for ((k = 1; k < jobs; k++)); do
    mkdir -p "$copies/$k/target"
    tar -cf - --exclude=./.git --exclude=./target --exclude='./mutants.out*' . | tar -xf - -C "$copies/$k"
    cp -a "$target/mutants" "$copies/$k/target/"
    [ "$pass2_profile" = mutants ] || cp -a "$target/$pass2_profile" "$copies/$k/target/"
done
# run_slices OUT CARGO-MUTANTS-ARGS…: slice k of the mutants in tree k, written to OUT/k/mutants.out.
run_slices() {
    local out=$1 k dir slice_target shard pids=() status
    shift
    for ((k = 0; k < jobs; k++)); do
        dir=$root slice_target=$target shard=()
        [ "$k" -eq 0 ] || dir=$copies/$k slice_target=$copies/$k/target
        [ "$jobs" -eq 1 ] || shard=(--shard "$k/$jobs")
        (cd "$dir" && CARGO_TARGET_DIR="$slice_target" cargo mutants "$@" "${shard[@]}" \
            --output "$root/$out/$k" >"$root/$out/$k.log" 2>&1) &
        pids+=($!)
    done
    for k in "${!pids[@]}"; do
        status=0
        wait "${pids[$k]}" || status=$?
        # cargo-mutants exits 2 when a mutant was missed, 3 on a timeout (the figures say how
        # many); anything else (1 when interrupted, 4 when the baseline failed) stops the run.
        case "$status" in
            0 | 2 | 3) ;;
            *) echo "slice $k failed (exit $status): see $out/$k.log" >&2; exit "$status" ;;
        esac
    done
}
# figures LABEL OUT…: the share caught over the passes written to each OUT (a later pass's word on
# every mutant it retested; a timeout counts as caught), and the mutants missed.
figures() {
    python3 - "$@" <<'PY'
import glob, json, sys
label, outs = sys.argv[1], sys.argv[2:]
final = {}
for out in outs:
    for path in sorted(glob.glob(f"{out}/*/mutants.out/outcomes.json")):
        for x in json.load(open(path))["outcomes"]:
            if isinstance(x["scenario"], dict):
                final[x["scenario"]["Mutant"]["name"]] = x["summary"]
counts = {}
for s in final.values():
    counts[s] = counts.get(s, 0) + 1
caught, missed, timeout = counts.get("CaughtMutant", 0), counts.get("MissedMutant", 0), counts.get("Timeout", 0)
viable = caught + missed + timeout
print(f"{label}: {viable} viable mutants ({counts.get('Unviable', 0)} unviable): {caught} caught, {timeout} timed out, {missed} missed"
      + (f": {100 * (caught + timeout) / viable:.1f} % caught" if viable else ""))
for name, s in sorted(final.items()):
    if s == "MissedMutant":
        print("  missed:", name)
sys.stdout.flush()
PY
}
# Mutants an earlier pass 1 caught at the same code are marked caught for every slice (--iterate).
iterate=()
if [ -n "$caught_before" ]; then
    iterate=(--iterate)
    for ((k = 0; k < jobs; k++)); do
        mkdir -p "mutants.out.unit/$k/mutants.out"
        cp "$caught_before" "mutants.out.unit/$k/mutants.out/previously_caught.txt"
    done
fi
run_slices mutants.out.unit --no-config --in-place --no-shuffle "${iterate[@]}" --profile mutants --timeout 120 \
    --build-timeout 900 --test-tool cargo --cargo-arg=--no-default-features --cargo-arg=--lib \
    --cargo-test-arg=-- "${unit_filter[@]}" "${skip[@]}" "${args[@]}"
figures "after pass 1 (pass 2 can only catch more)" mutants.out.unit
# Pass 2 (nextest, the unit tests and `tests_of` the files) retests only what pass 1 did not catch: every slice
# reads the caught, unviable and timed-out mutants of pass 1 from its previously_caught.txt (a
# mutant that timed out loops forever; it would wait out pass 2's longer timeout again) and takes
# its slice of the rest.
for ((k = 0; k < jobs; k++)); do
    mkdir -p "mutants.out/$k/mutants.out"
    cat ${caught_before:+"$caught_before"} mutants.out.unit/*/mutants.out/{caught,unviable,timeout}.txt 2>/dev/null \
        >"mutants.out/$k/mutants.out/previously_caught.txt" || true
done
run_slices mutants.out --no-config --in-place --no-shuffle --iterate --profile "$pass2_profile" --test-tool nextest \
    "${pass2_args[@]}" --cargo-test-arg=-E "--cargo-test-arg=$pass2_filter" --timeout 600 --build-timeout 900 \
    "${args[@]}"
figures "both passes" mutants.out.unit mutants.out
