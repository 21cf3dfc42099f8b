#!/usr/bin/env bash
# Installs what is missing, builds the release preset and launches the GUI on its default
# scenario (ResNet-50 on a DGX-1 with V100s). Extra arguments go to the program.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
if [[ -x build/release/app/iterscope ]]; then
    exec build/release/app/iterscope "$@"
else
    exec build/release/app/iterscope-cli layers resnet50 "$@"
fi
