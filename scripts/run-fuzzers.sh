#!/usr/bin/env bash
# Runs every fuzz_* target in a build dir for a bounded time from its seed corpus
# (tests/fuzz/corpus/<name>/). A crash fails the run and leaves the input in build/fuzz/crashes.
set -euo pipefail
build=${1:?build dir}
seconds=${2:-60}
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$build/crashes"
shopt -s nullglob
found=0
for target in "$build"/tests/fuzz/fuzz_*; do
    [[ -x "$target" && -f "$target" ]] || continue
    found=1
    name=$(basename "$target"); name=${name#fuzz_}
    seeds="$root/tests/fuzz/corpus/$name"
    work="$build/corpus/$name"
    mkdir -p "$work"
    echo "fuzz_$name: ${seconds}s"
    ASAN_OPTIONS=detect_leaks=0 "$target" -max_total_time="$seconds" -max_len=65536 \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=0 \
        -artifact_prefix="$build/crashes/${name}-" "$work" $([[ -d "$seeds" ]] && echo "$seeds") \
        >"$build/fuzz_$name.log" 2>&1 || { tail -40 "$build/fuzz_$name.log"; exit 1; }
done
((found)) || echo "no fuzz targets built"
