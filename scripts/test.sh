#!/usr/bin/env bash
# Installs what is missing, builds and runs every test: the dev preset, the same suite under
# address + undefined-behaviour sanitizers, then each libFuzzer target for a bounded time.
# ITERSCOPE_FUZZ_SECONDS (default 60) sets the time per fuzz target; 0 skips fuzzing.
set -euo pipefail
set -o pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
jobs=$(nproc)

step() { printf '\n== %s ==\n' "$*"; }

step "dev build and tests"
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$jobs"
ctest --preset dev -j "$jobs" | tee build/dev/ctest.log

step "sanitizer build and tests (address + undefined)"
cmake --preset dev-asan >/dev/null
cmake --build --preset dev-asan -j "$jobs"
ctest --preset dev-asan -j "$jobs" | tee build/dev-asan/ctest.log

seconds=${ITERSCOPE_FUZZ_SECONDS:-60}
if ((seconds > 0)); then
    step "fuzzing, ${seconds}s per target"
    cmake --preset fuzz >/dev/null
    cmake --build --preset fuzz -j "$jobs" --target fuzzers
    scripts/run-fuzzers.sh build/fuzz "$seconds"
fi
count() { grep -oE 'tests failed out of [0-9]+' "$1" | grep -oE '[0-9]+$' || echo 0; }
total=$(($(count build/dev/ctest.log) + $(count build/dev-asan/ctest.log)))
echo "tests: $total passed, 0 failed"
