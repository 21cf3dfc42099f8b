// Pipeline parallelism's two building blocks, pure and small enough to check by hand
// (docs/model.md "Parallel strategies"): cutting a chain of layers into stages of equal
// time, and running micro-batches through the stages under GPipe or 1F1B.
#pragma once

#include "model/scenario.h"

#include <cstddef>
#include <vector>

namespace iterscope {

// Cuts layers 0..n-1 (in order) into `stages` contiguous, non-empty groups whose largest
// sum of `layer_ms` is as small as it can be. Returns the first layer of each stage.
// Expects 1 <= stages <= layer_ms.size().
std::vector<std::size_t> balanceStages(const std::vector<double>& layer_ms, int stages);

// One stage's costs for one micro-batch: its forward and backward, and the copies of its
// output activations to the next stage and of its input gradients to the previous one.
struct StageCost {
    double forward_ms = 0;
    double backward_ms = 0;
    double send_activations_ms = 0; // 0 for the last stage
    double send_gradients_ms = 0;   // 0 for the first stage
};

struct PipelineOp {
    enum class Kind { Forward, Backward, SendActivations, SendGradients };
    Kind kind = Kind::Forward;
    int stage = 0; // the stage that runs it (the sender, for copies)
    int micro = 0;
    double start_ms = 0;
    double duration_ms = 0;
};

struct PipelineRun {
    std::vector<PipelineOp> ops;       // every forward, backward and copy, as scheduled
    std::vector<double> stage_end_ms;  // when each stage's last backward ends
    std::vector<double> stage_busy_ms; // forward and backward time of each stage
    std::vector<int> peak_in_flight;   // micro-batches whose activations a stage holds at once
    double makespan_ms = 0;            // from the first forward to the last backward
    int busiest_stage = 0;             // the stage with the most forward and backward time
    double bubble_ms = 0;              // makespan less the busiest stage's busy time
};

// Runs `micro_batches` micro-batches through the stages from time 0. Each stage does its
// operations in the schedule's order, each as soon as its input is there: a forward needs
// the previous stage's activations, a backward the next stage's gradients (the last stage,
// its own forward). Copies run on a link of their own per direction, in order. GPipe: every
// forward, then every backward (in reverse micro-batch order); 1F1B (PipeDream-Flush):
// stage s runs P-s-1 forwards, then alternates one forward and one backward, then the
// remaining backwards. With equal stages and free copies the bubble is (P-1)/(M+P-1) of
// the makespan under both.
PipelineRun runPipeline(const std::vector<StageCost>& stages, int micro_batches,
                        PipelineSchedule schedule);

} // namespace iterscope
