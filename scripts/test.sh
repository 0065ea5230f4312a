#!/usr/bin/env bash
# The test command: installs what the tests need that cargo cannot (Debian packages for the
# software renderer used by GUI snapshots, and Chromium for report rendering), then runs every
# test. Model weights are fetched by the tests themselves through the model manager.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
dpkg -s mesa-vulkan-drivers >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
dpkg -s libvulkan1 >/dev/null 2>&1 || need+=(libvulkan1)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
source scripts/debian.sh
install_debian_packages "${need[@]}"

cargo test --all-targets "$@"
