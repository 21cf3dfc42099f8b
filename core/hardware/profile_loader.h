// Loads and validates the JSON profiles in profiles/{gpus,systems,software}/
// (docs/profiles.md is the schema). A bad field is an InputError naming file and field.
#pragma once

#include "hardware/hardware.h"

#include <string>
#include <vector>

namespace iterscope {

// Where profiles/ is: $ITERSCOPE_PROFILES if set, else the source tree's when run from a
// build tree, else <prefix>/share/iterscope/profiles when installed.
std::string profilesDir();

// Each takes an id ("v100-sxm2-16gb") or a path to a JSON file.
GpuProfile loadGpuProfile(const std::string& id_or_path);
SystemProfile loadSystemProfile(const std::string& id_or_path);
SoftwareProfile loadSoftwareProfile(const std::string& id_or_path);

// The same from text in memory; `file` names it in errors (fuzzing, profiles the
// calibrator is about to write).
GpuProfile parseGpuProfile(const std::string& text, const std::string& file);
SystemProfile parseSystemProfile(const std::string& text, const std::string& file);
SoftwareProfile parseSoftwareProfile(const std::string& text, const std::string& file);

// Ids found in profilesDir(), sorted.
std::vector<std::string> gpuIds();
std::vector<std::string> systemIds();
std::vector<std::string> softwareIds();

// One-line summary for combo boxes: "80 SMs, 15.7 TFLOP/s FP32, 125 FP16 tensor, 16 GB @ 900 GB/s".
std::string gpuSummary(const GpuProfile& gpu);
std::string systemSummary(const SystemProfile& system);

} // namespace iterscope
