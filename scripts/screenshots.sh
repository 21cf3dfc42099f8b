#!/usr/bin/env bash
# Re-renders every screenshot in docs/screenshots/ with `iterscope --screenshot`, from a
# release build (scripts/run.sh makes one; ITERSCOPE_GUI=build/dev/app/iterscope uses the
# dev build). Run it after any change to what the GUI draws, and look at every picture.
set -euo pipefail
cd "$(dirname "$0")/.."
gui=${ITERSCOPE_GUI:-build/release/app/iterscope}
cli=${ITERSCOPE_CLI:-build/release/app/iterscope-cli}
out=docs/screenshots
onnx=tests/data/onnx/mobilenet_v2.structure.onnx # PyTorch export: long module-path names
shot() { local file=$1; shift; QT_QPA_PLATFORM=offscreen QT_FONT_DPI=96 "$gui" "$@" --screenshot "$out/$file"; }

shot main-window.png
shot loading.png --screenshot-state loading
shot does-not-fit.png --network resnet152 --batch 128
shot one-gpu.png --gpus-per-node 1
shot 1024-gpus.png --system cluster-hdr-ib --gpu a100-pcie --nodes 128 --gpus-per-node 8
shot compare.png --load-session "$out/compare.iterscope"
# The window at laptop and desktop sizes (issue 14): 1280×720 with an ONNX file's names,
# 1920×1080, and the dark theme with pinned scenarios at 1366×768.
shot laptop-1280x720.png --window-size 1280x720 --network "$onnx"
shot desktop-1920x1080.png --window-size 1920x1080 --network resnet152
shot dark.png --dark --window-size 1366x768 --load-session "$out/compare.iterscope"
# A doubtful choice said beside the answer: TF32 on a V100, which has no TF32 cores.
shot caveat.png --window-size 1280x720 --precision tf32
# What predict warns of, in the banner: ops the ONNX reader did not know (issue 31).
shot unknown-ops.png --window-size 1280x720 --network tests/data/onnx/unknown-op.onnx
# The costliest layers of an ONNX file, each bar named apart, and the Plan tab beside the
# scenario, at 1280×720 (issue 20).
shot layers-1280x720.png --window-size 1280x720 --network "$onnx" --tab layers
shot plan-tab-1280x720.png --window-size 1280x720 --tab plan
# A 4-stage GPipe pipeline on a DGX-1: one timeline row group per stage, its bubbles seen,
# at 1280×720 without dragging the splitter, and at 1920×1080.
shot pipeline-1280x720.png --window-size 1280x720 --network resnet152 --parallel pipeline \
    --pipeline-stages 4 --micro-batches 16 --schedule gpipe
shot pipeline.png --window-size 1920x1080 --network resnet152 --parallel pipeline \
    --pipeline-stages 4 --micro-batches 16 --schedule gpipe
# A real profiler trace (the shipped fixture: AlexNet forward passes on an A100) opened
# beside its prediction: the summary's measured line, the layer table's Measured column,
# the measured block under the timeline (issue 19).
shot trace-1280x720.png --window-size 1280x720 --network alexnet --system dgx-a100 \
    --gpu a100-sxm4-40gb --gpus-per-node 1 --batch 128 \
    --trace tests/data/traces/a100-alexnet-forward.pt.trace.json.gz
# The GPU and system editors (issue 30), started from a workstation's RTX 4090, as a user
# whose home is /home/you sees them (the intro names the folder they save into).
editor() {
    env -u XDG_DATA_HOME -u ITERSCOPE_USER_PROFILES HOME=/home/you QT_QPA_PLATFORM=offscreen \
        QT_FONT_DPI=96 "$gui" --window-size 1280x720 --gpu rtx4090 --system workstation-pcie4 \
        --gpus-per-node 4 --screenshot-dialog "$1" --screenshot "$out/$2"
}
editor new-gpu gpu-editor-1280x720.png
editor new-system system-editor-1280x720.png
# The Plan tab on its own (it shares the narrow chart tab in the window).
# Its export: the chart and legend alone, with a caption (the global batch is at most 8,192
# by default).
QT_QPA_PLATFORM=offscreen "$cli" export-chart --kind plan --network resnet50 --scale 1 \
    --deadline-hours 2 --budget-usd 400 --out "$out/plan.png"
echo "wrote $(ls "$out"/*.png | wc -l) screenshots to $out"
