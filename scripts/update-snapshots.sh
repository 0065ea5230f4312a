#!/usr/bin/env bash
# Redraw the GUI's PNG snapshots (and their numbers' text) on purpose, after a change to a view:
# look at every changed PNG before committing it. The test command refuses UPDATE_SNAPSHOTS.
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATE_SNAPSHOTS=1 cargo test --test gui "$@" || true
git status --short tests/snapshots
