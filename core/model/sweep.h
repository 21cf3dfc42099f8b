// Many predictions over a grid of nodes x GPUs per node x batch per GPU (DESIGN.md: "A sweep
// is many predict() calls over one axis or a grid").
#pragma once

#include "model/model.h"

#include <cstdint>
#include <vector>

namespace iterscope {

struct SweepAxes {
    std::vector<int> nodes;         // empty: the base scenario's value
    std::vector<int> gpus_per_node; // empty: the base scenario's value
    std::vector<int64_t> batch;     // empty: the base scenario's value
};

struct SweepPoint {
    int nodes = 1;
    int gpus_per_node = 1;
    int64_t batch_per_gpu = 1;
    Prediction prediction;
};

// Grid points in row-major order (nodes outermost, batch innermost). Throws InputError for
// the first invalid point, and for grids of more than kMaxSweepPoints points. Each point's
// prediction has the given detail: the totals only by default, since a grid of full
// predictions of a large network holds a thousand timeline events a point.
inline constexpr std::size_t kMaxSweepPoints = 1u << 20;
std::vector<SweepPoint> sweep(const Scenario& base, const SweepAxes& axes,
                              PredictDetail detail = PredictDetail::Totals);

} // namespace iterscope
