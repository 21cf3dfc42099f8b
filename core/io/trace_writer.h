// Chrome / Perfetto trace of one predicted iteration (STYLE.md "Chrome / Perfetto trace
// format"): one process per GPU, one thread per stream, "X" complete events in
// microseconds, "M" metadata naming and ordering the rows like Nsight Systems.
#pragma once

#include "model/prediction.h"
#include "model/scenario.h"

#include <string>

namespace iterscope {

// One process per GPU, each with the events of its group (Prediction::groups: every GPU
// alike under data parallelism, one group per stage in a pipeline). `gpus` GPUs are shown,
// GPU 0 first (0: all of them up to kTraceDefaultGpus); whatever that number, every group
// has at least one GPU in the trace, so a 1024-GPU pipeline shows each stage once.
inline constexpr int kTraceDefaultGpus = 8;
inline constexpr int kTraceMaxGpus = 64;

std::string chromeTraceJson(const Scenario& scenario, const Prediction& prediction, int gpus = 0);

// Writes the trace through a temporary file and a rename, so a failed write never leaves
// half a trace; throws InputError("<path>: <problem>") when the file cannot be written.
void writeChromeTrace(const std::string& path, const Scenario& scenario,
                      const Prediction& prediction, int gpus = 0);

} // namespace iterscope
