// Gradient buckets and their overlap with backward (DESIGN.md "The model" 6, wait-free
// backpropagation): layers hand their gradients to buckets in backward order; a bucket is
// exchanged once backward has produced all of it and the previous bucket is done.
#pragma once

#include "model/communication_model.h"
#include "model/prediction.h"

#include <cstdint>
#include <vector>

namespace iterscope {

struct Bucket {
    int64_t bytes = 0;
    double ready_ms = 0; // when backward has produced its last gradient
    double start_ms = 0;
    double duration_ms = 0;
    AllreduceAlgorithm algorithm = AllreduceAlgorithm::Ring;
};

// Fills `layers[i].bucket` for layers with gradients and returns the buckets in launch
// order. `layers` are in forward order; `backward_end_ms[i]` is when layer i's backward
// pass ends. A bucket closes once it holds at least `bucket_bytes`.
std::vector<Bucket> makeBuckets(std::vector<LayerTiming>& layers,
                                const std::vector<double>& backward_end_ms, int64_t bucket_bytes,
                                int64_t gradient_element_bytes, const std::vector<int64_t>& params);

// Schedules the buckets on the communication stream. With overlap off every bucket waits
// for the end of backward. `stream_free_ms`: the stream is busy until then with other
// exchanges. Returns when the last exchange ends (backward_end_ms if none).
double scheduleExchange(std::vector<Bucket>& buckets, const ExchangeModel& model, bool overlap,
                        double backward_end_ms, double stream_free_ms = 0);

} // namespace iterscope
