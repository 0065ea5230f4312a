#!/usr/bin/env bash
# Mutation testing of the scoring code with cargo-mutants (not in CI: every mutant is a rebuild
# and a test run, about 40 s each on 2 cores; the six files make about 860 mutants).
#   scripts/mutants.sh [FILE…]     (default: the six files below; settings in .cargo/mutants.toml)
# Writes mutants.out/ (outcomes.json, caught.txt, missed.txt, …) and prints the share caught.
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
# --in-place: build in this tree's target directory (a copy would build every dependency again).
status=0
cargo mutants --in-place --no-shuffle --timeout 300 "${args[@]}" || status=$?
python3 - <<'PY'
import json
o = json.load(open("mutants.out/outcomes.json"))
counts = {}
for x in o["outcomes"]:
    if x["scenario"] == "Baseline":
        continue
    s = x["summary"]
    counts[s] = counts.get(s, 0) + 1
caught, missed, timeout = counts.get("CaughtMutant", 0), counts.get("MissedMutant", 0), counts.get("Timeout", 0)
viable = caught + missed + timeout
print(f"{viable} viable mutants ({counts.get('Unviable', 0)} unviable): {caught} caught, {timeout} timed out, {missed} missed"
      + (f": {100 * (caught + timeout) / viable:.1f} % caught" if viable else ""))
PY
# cargo-mutants exits 2 when a mutant was missed, 3 on a timeout: the figure above says how many.
[ "$status" -le 3 ] || exit "$status"
