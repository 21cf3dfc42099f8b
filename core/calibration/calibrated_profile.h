// Turning measured peaks into a GPU profile (profiles/gpus schema, docs/profiles.md) that
// loadGpuProfile() reads back: the spec-sheet figures of a base profile, or ones derived
// from the device facts when there is none, plus a "measured" block.
#pragma once

#include "calibration/measurement.h"
#include "hardware/hardware.h"

#include <string>

namespace iterscope {

// FP32 lanes per SM by compute capability (CUDA C Programming Guide, "Arithmetic
// Instructions"); 64 for unknown future parts rather than a guess upwards.
int fp32LanesPerSm(int compute_major, int compute_minor);

// A spec-like profile from what the runtime reports: SMs, clock, memory size, bus width
// and clock (bandwidth = 2 x memory clock x bus bytes, DDR). Tensor rates unknown (0)
// until measured. The id is made from the device name ("NVIDIA H200" -> "nvidia-h200").
GpuProfile gpuProfileFromDevice(const DeviceFacts& device);

// "NVIDIA H200" -> "nvidia-h200": lower case, runs of other characters become one '-'.
std::string profileIdFromName(const std::string& name);

// The base profile with the measured peaks set and calibrated = true. Peaks that were not
// measured (0) stay 0, so the model falls back to the spec figure for them.
GpuProfile withMeasuredPeaks(GpuProfile base, const MeasuredPeaks& peaks);

// The profile as profiles/gpus JSON. `measurement` supplies the "measured" block's
// device, date and tool; pass nullptr for an uncalibrated profile.
std::string gpuProfileToJson(const GpuProfile& gpu, const Measurement* measurement);

// A software profile as profiles/software JSON (loadSoftwareProfile reads it back).
// `fit_notes` goes into the free-text "parameters" object as "calibration".
std::string softwareProfileToJson(const SoftwareProfile& software, const std::string& fit_notes);

} // namespace iterscope
