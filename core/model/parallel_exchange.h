// What the parallel strategies move between GPUs, as plain formulas (docs/model.md
// "Parallel strategies"); predict() uses the same functions, and the formula tests check
// them against hand-computed values.
#pragma once

#include "model/scenario.h"

#include <cstdint>

namespace iterscope {

// Hybrid (Krizhevsky 2014): a fully connected layer split over a node's G GPUs by output
// features needs, on every GPU, the input activations of all G x B samples of the node.
// Forward, each GPU gathers the G-1 other GPUs' shares; backward, it reduce-scatters the
// input gradients of the same size back to their owners.
bool splitInHybrid(const Layer& layer);
struct HybridExchange {
    int64_t gathered_bytes = 0; // activations one GPU receives in forward, all split layers
    int64_t sent_bytes = 0;     // what it sends for them (the same, in a ring all-gather)
};
HybridExchange hybridForwardExchange(const Scenario& s);

// ZeRO, bytes one GPU sends an iteration: stages 1 and 2 reduce-scatter the gradients and
// all-gather the updated parameters, (N-1)/N of each; stage 3 (FSDP) gathers the
// parameters twice (before forward and again before backward) and reduce-scatters the
// gradients: with parameters and gradients of one size, 1.5 times an all-reduce's
// 2(N-1)/N.
double zeroSentBytes(ParallelStrategy zero, double gradient_bytes, double parameter_bytes,
                     int gpus);

} // namespace iterscope
