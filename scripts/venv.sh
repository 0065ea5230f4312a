#!/usr/bin/env bash
# Create (once) the Python virtual environment with the reference implementations used by the
# benchmarks and cross-checks, and print its python path. Safe to run repeatedly.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${RANKLENS_VENV:-$here/.venv}"
req="${1:-$here/requirements-bench.txt}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" >&2
fi
stamp="$venv/.installed-$(sha256sum "$req" | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
    touch "$stamp"
fi
echo "$venv/bin/python"
