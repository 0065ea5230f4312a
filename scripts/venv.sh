#!/usr/bin/env bash
# Create (once) the Python virtual environment with the reference implementations used by the
# benchmarks and cross-checks, and print its python path. Safe to run repeatedly, and at the same
# time: tests running in parallel call it together, so the making is serialised by a lock beside the
# environment (without it, the second `python3 -m venv` fails with "File exists").
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${RANKLENS_VENV:-$here/.venv}"
req="${1:-$here/requirements-bench.txt}"
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" >&2
fi
stamp="$venv/.installed-$(sha256sum "$req" | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
    touch "$stamp"
fi
echo "$venv/bin/python"
