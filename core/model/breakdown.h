// Where one iteration's time goes, as parts that add up to the iteration time: the summary
// shows them line by line (issue 20, item 5). The prediction's own totals do not add up by
// themselves: forward and backward are compute times, the exposed communication is what
// backward does not hide, a pipeline's figures come from its busiest stage, and waits for
// the input or the parameter servers have no field of their own.
//
// The parts follow one GPU group (Prediction::groups), the one whose work ends last, along
// its timeline: every instant of [0, iteration_ms] goes to the first of forward, backward,
// update, input, exposed communication and the waits that is busy then; an instant with
// nothing busy is idle (a pipeline's bubble). So the parts sum to the iteration time
// exactly, whatever the strategy.
#pragma once

#include "model/prediction.h"

#include <string>
#include <vector>

namespace iterscope {

struct IterationBreakdown {
    double forward_ms = 0;
    double backward_ms = 0;
    double update_ms = 0;
    // The input copy and the GPU's input pipeline where no compute hides them.
    double input_ms = 0;
    // The gradient exchange (and a strategy's other transfers) where no compute hides it.
    double exposed_communication_ms = 0;
    double idle_ms = 0;        // nothing busy: a pipeline's bubble
    double straggler_ms = 0;   // waiting for the slowest GPU
    double input_wait_ms = 0;  // waiting for the host's decoding
    double server_wait_ms = 0; // ps-async: waiting for the parameter servers
    int group = 0;             // the GPU group followed

    double totalMs() const {
        return forward_ms + backward_ms + update_ms + input_ms + exposed_communication_ms +
               idle_ms + straggler_ms + input_wait_ms + server_wait_ms;
    }
};

// From the prediction's timeline (PredictDetail::Full); without one, from its totals, with
// whatever they leave unexplained counted as idle.
IterationBreakdown iterationBreakdown(const Prediction& prediction);

// One part by name, for the front ends that list them: predict's JSON (`breakdown`), its
// table, and the GUI's summary all read the same parts, so none can add up differently.
struct BreakdownPart {
    const char* key;   // "forward_ms", ... as in predict's JSON
    const char* label; // "forward", ... as in predict's table
    double ms = 0;
};

// Every part, in IterationBreakdown's order, zero ones included; they sum to totalMs().
std::vector<BreakdownPart> breakdownParts(const IterationBreakdown& breakdown);

} // namespace iterscope
