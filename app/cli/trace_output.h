// How compare-trace shows a measured step against the model: JSON with the fields DESIGN.md
// fixes (gpu, steps, measured_step_ms, predicted_step_ms, layers_matched, layers[],
// unmatched_ops[]) and more, and tables for people.
#pragma once

#include "cli/trace_setup.h"
#include "trace/trace_compare.h"

#include <nlohmann/json.hpp>

#include <string>

namespace iterscope::cli {

nlohmann::ordered_json traceComparisonJson(const TraceRun& run, const TraceComparison& c);
std::string traceComparisonTable(const TraceRun& run, const TraceComparison& c);

} // namespace iterscope::cli
