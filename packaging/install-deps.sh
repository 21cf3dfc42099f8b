#!/usr/bin/env bash
# Installs the Debian 12 packages Iterscope needs to build, test and run — only those missing.
# Idempotent and quiet when everything is present. Uses sudo when not run as root.
set -euo pipefail

packages=(
    cmake ninja-build g++ pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libgl-dev
    libqt6opengl6-dev          # Qt6Charts needs Qt6OpenGL, which qt6-charts-dev does not pull in
    nlohmann-json3-dev libcli11-dev
    zlib1g-dev                 # gzip-compressed profiler traces (core/trace)
    libonnx-dev libprotobuf-dev protobuf-compiler
    fonts-dejavu-core          # offscreen rendering needs a font for labels
    clang libclang-rt-14-dev   # libFuzzer targets
    appstream dpkg-dev file    # metainfo validation and .deb packaging checks
    poppler-utils              # tests read reports back (pdftotext) and render them (pdftoppm)
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]} == 0)); then
    exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
