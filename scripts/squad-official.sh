#!/usr/bin/env bash
# SQuAD's official evaluation scripts, v1.1 and v2.0, as the PyPI source distribution of
# `datasets` 1.18.4 carries them (metrics/squad/evaluate.py and metrics/squad_v2/evaluate.py; the
# scripts' own site is not reachable everywhere RankLens is built). The archive is pinned by its
# sha256; the two files are unpacked once into scripts/.squad-official/{v1.1,v2.0}/evaluate.py.
# Prints the folder. The v2.0 copy reads answers in the `datasets` form ({"text": [...]}), the
# v1.1 copy in SQuAD's own ([{"text": ...}]); their scoring is the official code, line for line.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/.squad-official"
sha="8f28a7afc2f894c68cb017335a32812f443fe41bc59c089cbd15d7412d3f7f96"
if [ -f "$out/v1.1/evaluate.py" ] && [ -f "$out/v2.0/evaluate.py" ]; then
    echo "$out"
    exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: -d "$tmp" datasets==1.18.4 >&2
archive="$tmp/datasets-1.18.4.tar.gz"
echo "$sha  $archive" | sha256sum --check --quiet >&2
tar -xzf "$archive" -C "$tmp" datasets-1.18.4/metrics/squad/evaluate.py datasets-1.18.4/metrics/squad_v2/evaluate.py
mkdir -p "$out/v1.1" "$out/v2.0"
cp "$tmp/datasets-1.18.4/metrics/squad/evaluate.py" "$out/v1.1/evaluate.py"
cp "$tmp/datasets-1.18.4/metrics/squad_v2/evaluate.py" "$out/v2.0/evaluate.py"
echo "$out"
