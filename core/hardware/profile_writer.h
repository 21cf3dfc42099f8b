// GPU and system profiles as the JSON the loader reads (docs/profiles.md): the GPU editor
// saves through these, and a profile written here loads back equal to what was written
// (tests/core/tst_user_profiles.cpp checks every shipped profile).
#pragma once

#include "hardware/hardware.h"

#include <nlohmann/json.hpp>

#include <string>

namespace iterscope {

// Every field the loader reads, in the shipped files' order. Optional fields whose value
// means "absent" (no price, no calibration, no like) are left out, so the loader's defaults
// apply as they would to the file the profile came from.
nlohmann::ordered_json gpuProfileJson(const GpuProfile& gpu);
nlohmann::ordered_json systemProfileJson(const SystemProfile& system);

// Two-space indented, with a final newline, as the shipped files are written.
std::string profileText(const nlohmann::ordered_json& profile);

} // namespace iterscope
