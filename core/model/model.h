// The iteration-time model (DESIGN.md "The model"). predict() is pure and thread-safe:
// it reads only its argument.
#pragma once

#include "model/compute_model.h"
#include "model/memory_model.h"
#include "model/prediction.h"
#include "model/scenario.h"

#include <cstdint>
#include <vector>

namespace iterscope {

// How much of a Prediction to fill. Totals leaves `layers` and `timeline` empty and fills
// everything else with the same values as Full: what sweeps and scaling curves need, at a
// fraction of the time and memory.
enum class PredictDetail { Full, Totals };

// Throws InputError for an invalid scenario (validateScenario).
Prediction predict(const Scenario& scenario, PredictDetail detail = PredictDetail::Full);

// Forward and backward kernel times of every layer on one GPU: the part of predict() that
// depends only on the network, the GPU, the software, the precision and the batch, and
// most of its cost. Sweeps and scaling curves that vary the GPU count or the exchange
// compute it once per batch and hand it to predict().
struct LayerPassTable {
    const AnalyzedNetwork* network = nullptr;
    int64_t batch = 0;
    ComputeRates rates;
    std::vector<LayerPasses> passes; // parallel to the network's layers
    // Facts of the network alone, kept here so that each prediction need not walk it again.
    NetworkMemoryFacts memory;
    double param_tensors = 0; // tensors an unfused optimizer visits
};

// Throws InputError for an invalid scenario.
LayerPassTable layerPassTable(const Scenario& scenario);

// predict() with the layer times taken from `table`. Throws InputError for an invalid
// scenario, std::invalid_argument for a table made for another network, batch, GPU,
// software or precision.
Prediction predict(const Scenario& scenario, const LayerPassTable& table,
                   PredictDetail detail = PredictDetail::Full);

// Images per second of the one GPU a scaling efficiency compares with: the faster of one
// GPU alone (nothing to exchange) and one GPU keeping the scenario's exchange where one GPU
// can (parameter servers on the host, which take the optimizer step off the GPU), at the
// scenario's batch per GPU. N GPUs of any strategy never deliver more than N times this
// (tests/core/tst_parallel_properties.cpp). `table`: layer times at the batch per GPU, if
// the caller has them. Throws InputError for an invalid scenario.
double singleGpuImagesPerSecond(const Scenario& scenario, const LayerPassTable* table = nullptr);

} // namespace iterscope
