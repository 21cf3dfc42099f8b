#!/usr/bin/env bash
# Run HERE (the build machine), before a device session: copies the header-only
# dependencies of the minimal calibrator build (nlohmann_json, CLI11) into
# build/device-deps/include, an ignored folder the device tool can carry:
#   run(command="bash scripts/device/calibrate-h200.sh", carry=["build/device-deps"])
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest="$root/build/device-deps/include"
rm -rf "$dest"
mkdir -p "$dest"
for dir in nlohmann CLI; do
    src=""
    for prefix in /usr/include /usr/local/include; do
        [ -d "$prefix/$dir" ] && src="$prefix/$dir" && break
    done
    [ -n "$src" ] || { echo "prepare-calibrator-deps: $dir headers not found" >&2; exit 1; }
    cp -r "$src" "$dest/"
done
du -sh "$root/build/device-deps"
