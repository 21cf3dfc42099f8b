// The pieces every parallel strategy's iteration is made of (model.cpp): the input of a
// minibatch, the optimizer step, the end of a step (waiting for the slowest GPU and for the
// host's decoding), and a sink for timeline events. Internal to core/model: the strategies
// (parallel_*.cpp) build their iterations from these, so that input, update and straggler
// physics are the same whatever the strategy.
#pragma once

#include "model/compute_model.h"
#include "model/memory_model.h"
#include "model/model.h"
#include "model/prediction.h"
#include "model/scenario.h"

#include <cstdint>
#include <vector>

namespace iterscope::detail {

// Appends timeline events unless the caller asked for the totals only.
struct TimelineSink {
    std::vector<TimelineEvent>* events = nullptr; // null: totals only
    int group = 0;

    void add(Stream stream, EventKind kind, double start, double duration, long layer = -1,
             int bucket = -1, int lane = 0) const {
        if (!events)
            return;
        TimelineEvent& e = events->emplace_back();
        e.stream = stream;
        e.kind = kind;
        e.start_ms = start;
        e.duration_ms = duration;
        e.layer = layer;
        e.bucket = bucket;
        e.lane = lane;
        e.group = group;
    }
    TimelineSink forGroup(int g) const { return {events, g}; }
    bool enabled() const { return events != nullptr; }
};

// The input of one iteration on a GPU that loads `batch` samples: the H2D copy, an on-GPU
// input pipeline, and the host's decoding of the node's images. Fills p.input_ms and
// p.host_input_ms; returns when the compute stream may start.
double beginIteration(const Scenario& s, const ComputeRates& rates, int64_t batch, Prediction& p,
                      const TimelineSink& timeline);

// A layer's row of the breakdown from its kernel times; a pipeline stage runs `times`
// micro-batches through it.
inline void setPassTimes(LayerTiming& lt, std::size_t layer, const LayerPasses& passes,
                         double times = 1) {
    lt.layer = layer;
    lt.forward_ms = passes.forward.ms * times;
    lt.backward_ms = passes.backward.ms * times;
    lt.forward_bound = passes.forward.bound;
    lt.backward_bound = passes.backward.bound;
}

// Parameter tensors an unfused optimizer visits, over the network or for one layer.
double paramTensors(const Network& net, const NetworkAnalysis& analysis);
double layerParamTensors(const Layer& layer, const LayerCost& cost);

// The optimizer step of one GPU over `params` parameters of `tensors` tensors in
// `trainable_layers` layers (docs/model.md section 6).
double optimizerStepMs(const Scenario& s, const ComputeRates& rates, double params, double tensors,
                       int trainable_layers);

// distributed-replicated: each GPU writes the parameters its host updated into its own
// copy, one assignment per tensor.
double replicaRefreshMs(const ComputeRates& rates, double params, double tensors);

// Ends the iteration whose GPU work ends at `gpu_end_ms`: a synchronous step on several
// GPUs waits for the slowest, then the host's decoding may hold it longer. Sets
// iteration_ms, images_per_second, straggler_ms, input_wait_ms, input_bound.
void endIteration(const Scenario& s, Prediction& p, double gpu_end_ms, bool synchronous,
                  const TimelineSink& timeline);

// Copies the memory estimate into the prediction.
void setMemory(Prediction& p, const MemoryEstimate& m);

// Gradient bytes of one element under the scenario's precision.
int64_t gradientElementBytes(const Scenario& s);

} // namespace iterscope::detail

namespace iterscope {
// Memory of the strategies that shard or split (estimateMemory calls these).
MemoryInputs hybridMemoryInputs(const Scenario& s, const NetworkMemoryFacts& facts);
MemoryInputs zeroMemoryInputs(const Scenario& s, const NetworkMemoryFacts& facts);
MemoryEstimate pipelineMemory(const Scenario& s);

// The strategies (data parallelism in model.cpp, the others in parallel_*.cpp), called by
// predict() with a valid scenario and its own layer pass table.
Prediction predictData(const Scenario& s, const LayerPassTable& table, PredictDetail detail);
Prediction predictHybrid(const Scenario& s, const LayerPassTable& table, PredictDetail detail);
Prediction predictPipeline(const Scenario& s, const LayerPassTable& table, PredictDetail detail);
Prediction predictZero(const Scenario& s, const LayerPassTable& table, PredictDetail detail);
} // namespace iterscope
