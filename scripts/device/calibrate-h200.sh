#!/usr/bin/env bash
# Prepared for a session that is lent the H200 (issue 6); not run by the session that
# wrote it (no GPU was lent). One call, well inside a 15-minute lease:
#
#   here:    bash scripts/device/prepare-calibrator-deps.sh
#   device:  run(command="bash scripts/device/calibrate-h200.sh", carry=["build/device-deps"],
#                timeout_s=540)
#
# Builds the minimal calibrator (core/cuda/standalone: CUDA, cuBLAS, cuDNN, NCCL and the
# carried header-only nlohmann_json/CLI11; no Qt, no protobuf), then measures ResNet-50 at
# batch 64 in fp32 and amp and writes into $OUT:
#   h200-resnet50-b64.json      measurement JSON (peaks, per-layer times, all-reduce)
#   h200-calibrated.json        GPU profile (profiles/gpus schema) with measured peaks
#   pytorch-calibrated-h200.json software profile with fitted efficiencies
#   calibrate-report.txt        spec-sheet vs calibrated prediction, per layer and total
#   environment.txt, build.log, calibrate.log
# Copy them into docs/measurements/ afterwards and report the errors in docs/calibrator.md.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
start=$(date +%s)
log() { echo "[$(( $(date +%s) - start )) s] $*" | tee -a "$OUT/progress.txt"; }

# 1. Where things are. cuDNN and NCCL come from the nvidia-cudnn-cu13 / nvidia-nccl-cu13
#    wheels here: ask Python for their folders, fall back to searching site-packages.
{
    echo "== nvidia-smi"; nvidia-smi 2>&1 | head -20
    echo "== nvcc"; (command -v nvcc || ls /usr/local/cuda/bin/nvcc) 2>&1
    echo "== cmake"; cmake --version 2>&1 | head -1
    echo "== ninja"; ninja --version 2>&1
    echo "== gcc"; c++ --version 2>&1 | head -1
} > "$OUT/environment.txt" 2>&1
export PATH="/usr/local/cuda/bin:$PATH"
export ITERSCOPE_PROFILES="$root/profiles"

wheel_dir() { # $1: nvidia sub-package (cudnn, nccl), prints its folder
    python3 - "$1" <<'PY' 2>/dev/null
import importlib, sys
try:
    m = importlib.import_module("nvidia." + sys.argv[1])
    print(list(m.__path__)[0])
except Exception:
    import site, os
    for d in site.getsitepackages() + [site.getusersitepackages()]:
        p = os.path.join(d, "nvidia", sys.argv[1])
        if os.path.isdir(p):
            print(p); break
PY
}
CUDNN_ROOT=$(wheel_dir cudnn)
NCCL_ROOT=$(wheel_dir nccl)
[ -n "$CUDNN_ROOT" ] || CUDNN_ROOT=$(dirname "$(dirname "$(find / -name cudnn.h -path '*include*' 2>/dev/null | head -1)")")
[ -n "$NCCL_ROOT" ] || NCCL_ROOT=$(dirname "$(dirname "$(find / -name nccl.h -path '*include*' 2>/dev/null | head -1)")")
{
    echo "== cuDNN root: $CUDNN_ROOT"; ls "$CUDNN_ROOT/include" "$CUDNN_ROOT/lib" 2>&1 | head -40
    echo "== NCCL root: $NCCL_ROOT"; ls "$NCCL_ROOT/include" "$NCCL_ROOT/lib" 2>&1 | head -20
} >> "$OUT/environment.txt"
export LD_LIBRARY_PATH="$CUDNN_ROOT/lib:$NCCL_ROOT/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
log "cuDNN at $CUDNN_ROOT, NCCL at $NCCL_ROOT"

# 2. Build: sm_90 only, all cores.
deps="$root/build/device-deps/include"
[ -f "$deps/nlohmann/json.hpp" ] || { log "missing $deps: run prepare-calibrator-deps.sh here and carry build/device-deps"; exit 1; }
if ! cmake -S core/cuda/standalone -B build/calibrator -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DITERSCOPE_THIRDPARTY_INCLUDE="$deps" -DCUDNN_ROOT="$CUDNN_ROOT" -DNCCL_ROOT="$NCCL_ROOT" \
        -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build.log" 2>&1 ||
   ! ninja -C build/calibrator -j "$(nproc)" iterscope-calibrate >> "$OUT/build.log" 2>&1; then
    log "build failed (build.log)"; tail -30 "$OUT/build.log"; exit 1
fi
bin=build/calibrator/app/iterscope-calibrate
log "built $bin"

# 3. Measure. The timeout leaves time for the files to come back; the calibrator writes
#    its JSONs only at the end, so a quick smoke run comes first and is kept too.
timeout 60 "$bin" --quick --no-allreduce --network resnet50 --batch 64 --precision fp32 \
    --gpu h200 --out "$OUT/smoke-measurement.json" --profile-out "$OUT/smoke-profile.json" \
    > "$OUT/smoke.txt" 2>&1
log "smoke run: exit $? (smoke.txt)"
timeout 360 "$bin" --network resnet50 --batch 64 --precision fp32,amp --warmup 5 \
    --repetitions 20 --workspace-mb 1024 --gpu h200 --id h200-calibrated --software pytorch \
    --out "$OUT/h200-resnet50-b64.json" --profile-out "$OUT/h200-calibrated.json" \
    --software-out "$OUT/pytorch-calibrated-h200.json" --report-out "$OUT/calibrate-report.json" \
    > "$OUT/calibrate-report.txt" 2> "$OUT/calibrate.log"
status=$?
log "calibration: exit $status"
tail -5 "$OUT/calibrate.log"
grep -E "^(forward \+ backward|== )" "$OUT/calibrate-report.txt"
exit $status
