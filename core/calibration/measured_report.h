// The whole of `iterscope-cli predict --measured FILE` below the command line: pick the
// measured run that matches a scenario, predict the same kernels, compare per layer.
#pragma once

#include "calibration/compare.h"
#include "calibration/measurement.h"
#include "model/scenario.h"

#include <string>

namespace iterscope {

// The scenario's network, GPU, software, batch per GPU and precision, as kernels only
// (kernelScenario: one GPU, no exchange, no per-layer host cost), against the run of the
// measurement with that batch and precision. `file` names the measurement in errors.
MeasurementComparison compareScenarioWithMeasurement(const Scenario& scenario,
                                                     const Measurement& measurement,
                                                     const std::string& file);

// The same, reading the measurement from `path` first.
MeasurementComparison compareScenarioWithMeasurementFile(const Scenario& scenario,
                                                         const std::string& path);

} // namespace iterscope
