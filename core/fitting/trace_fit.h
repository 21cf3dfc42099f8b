// fit --trace: a training trace's measured kernel times as the measurements a software
// profile is fitted to (measurement_fit.h). Each layer matched one to one gives
// an item per pass, each kind compared only as a whole gives one; the error is time-weighted
// (sum |predicted - measured| / sum measured), so that a ReLU of 15 us weighs as little as it
// costs.
#pragma once

#include "fitting/measurement_fit.h"
#include "trace/trace_compare.h"

#include <string>
#include <vector>

namespace iterscope {

struct TraceFitItem {
    std::string label; // "features.0 forward", "batchnorm backward (by kind)"
    TracePass pass = TracePass::Forward;
    std::vector<std::size_t> layers; // network layers whose kernel times it sums
    double measured_ms = 0;
};

std::vector<TraceFitItem> traceFitItems(const TraceComparison& comparison);

// Throws InputError naming the trace for a trace without a backward pass (an inference
// trace says nothing of training), or without any matched layer.
SoftwareFitReport fitToTrace(const TraceAnalysis& trace, const TraceComparison& comparison,
                             const Scenario& scenario, const SoftwareFitOptions& options);

} // namespace iterscope
