// Chrome / Perfetto trace of one predicted iteration (STYLE.md "Chrome / Perfetto trace
// format"): one process per GPU, one thread per stream, "X" complete events in
// microseconds, "M" metadata naming and ordering the rows like Nsight Systems.
#pragma once

#include "model/prediction.h"
#include "model/scenario.h"

#include <string>

namespace iterscope {

// GPUs are symmetric in the model; the trace shows this many of them (at most the
// scenario's GPU count), each with the same events.
inline constexpr int kTraceMaxGpus = 8;

std::string chromeTraceJson(const Scenario& scenario, const Prediction& prediction, int gpus = 1);

// Writes the trace; throws InputError("<path>: <problem>") when the file cannot be written.
void writeChromeTrace(const std::string& path, const Scenario& scenario,
                      const Prediction& prediction, int gpus = 1);

} // namespace iterscope
