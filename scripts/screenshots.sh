#!/usr/bin/env bash
# Re-renders every screenshot in docs/screenshots/ with `iterscope --screenshot`, from a
# release build (scripts/run.sh makes one). Run it after any change to what the GUI draws.
set -euo pipefail
cd "$(dirname "$0")/.."
gui=${ITERSCOPE_GUI:-build/release/app/iterscope}
cli=${ITERSCOPE_CLI:-build/release/app/iterscope-cli}
out=docs/screenshots
shot() { local file=$1; shift; QT_QPA_PLATFORM=offscreen "$gui" "$@" --screenshot "$out/$file"; }

shot main-window.png
shot loading.png --screenshot-state loading
shot does-not-fit.png --network resnet152 --batch 128
shot one-gpu.png --gpus-per-node 1
shot 1024-gpus.png --system cluster-hdr-ib --nodes 128 --gpus-per-node 8
shot compare.png --load-session "$out/compare.iterscope"
shot dark.png --dark
# The Plan tab on its own (it shares the narrow chart tab in the window).
QT_QPA_PLATFORM=offscreen "$cli" export-chart --kind plan --network resnet50 --scale 1 \
    --max-global-batch 8192 --deadline-hours 2 --budget-usd 400 --out "$out/plan.png"
echo "wrote $(ls "$out"/*.png | wc -l) screenshots to $out"
