// The scenario a calibrator's per-layer timings are compared with and fitted to.
#pragma once

#include "hardware/hardware.h"
#include "model/scenario.h"

#include <cstdint>
#include <memory>

namespace iterscope {

// A one-GPU scenario without gradient exchange and without the framework's per-layer
// host cost: what the calibrator's isolated kernels measure.
Scenario kernelScenario(std::shared_ptr<const AnalyzedNetwork> network, const GpuProfile& gpu,
                        const SoftwareProfile& software, int64_t batch, Precision precision);

} // namespace iterscope
