// A measured step against the model: the trace's ops matched to the network's layers, per
// layer, per kind of layer, per pass and per iteration (what `iterscope-cli compare-trace`
// prints and what a GUI shows beside the predicted timeline).
//
// Matching is by kind and order, never by name: for each kind (conv, linear, batch norm,
// ...) and pass, when every step ran as many ops of that kind as the network has layers
// with work of that kind, the i-th op is the i-th layer (one to one); otherwise the kind is
// compared as a whole (by kind). Backward nodes follow their forward op through the
// autograd sequence number where the trace has it, else the reverse layer order.
#pragma once

#include "model/prediction.h"
#include "model/scenario.h"
#include "trace/trace_steps.h"

#include <optional>
#include <string>
#include <vector>

namespace iterscope {

enum class MatchKind { OneToOne, ByKind, None };
const char* matchKindName(MatchKind m); // "one-to-one", "kind", "none"

// One network layer with predicted or measured work. Times are per step (the mean over
// steps) and kernel time only: a layer's measured time is the sum of its ops' GPU activity
// durations, its predicted time the model's with no host dispatch and no launch gaps.
struct TraceLayerComparison {
    std::size_t layer = 0; // index into Network::layers
    std::string name;
    OpKind kind = OpKind::Other;
    MatchKind forward_match = MatchKind::None, backward_match = MatchKind::None;
    std::optional<double> measured_forward_ms, measured_backward_ms; // one to one only
    double predicted_forward_ms = 0, predicted_backward_ms = 0;
    std::string op; // the op it was matched with ("aten::conv2d"), one to one only
};

struct TraceKindComparison {
    OpKind kind = OpKind::Other;
    TracePass pass = TracePass::Forward;
    MatchKind match = MatchKind::None; // None: ops without layers, or layers without ops
    int layers = 0;
    double ops = 0; // per step
    double measured_ms = 0, predicted_ms = 0;
};

struct TracePassComparison {
    TracePass pass = TracePass::Forward;
    double measured_busy_ms = 0;    // sum of the pass's GPU activity durations, per step
    double measured_span_ms = 0;    // its first activity's start to its last one's end
    double measured_exposed_ms = 0; // communication: the part no other GPU work overlaps
    double predicted_ms = 0;        // the model's pass time (host dispatch and gaps included)
    double predicted_exposed_ms = 0;
};

// Ops the trace ran that no layer stands for (the loss, copies, ops of a kind the network
// lacks), per (name, pass), per step.
struct TraceUnmatchedOp {
    std::string name;
    OpKind kind = OpKind::Other;
    TracePass pass = TracePass::Forward;
    double count = 0;
    double measured_ms = 0;
};

struct TraceComparison {
    int steps = 0;
    bool training = false;                    // the trace has a backward pass
    std::vector<double> step_ms;              // each step's wall time
    double measured_step_ms = 0;              // their median
    double measured_busy_ms = 0;              // GPU busy time of a step, median
    double predicted_step_ms = 0;             // iteration (training) or forward pass (inference)
    std::vector<TraceLayerComparison> layers; // in network order
    int layers_matched = 0;                   // layers with a pass matched one to one
    int layers_by_kind = 0;                   // layers compared only within their kind
    std::vector<TraceKindComparison> kinds;
    std::vector<TracePassComparison> passes;
    std::vector<TraceUnmatchedOp> unmatched;
    // Per step, per op: the layer it was matched with one to one, -1 for none.
    std::vector<std::vector<long>> op_layers;
};

// The scenario's per-layer kernel time: no host dispatch, no gap between kernels, which a
// sum of measured kernel durations does not see either.
Scenario kernelTimeScenario(Scenario s);

TraceComparison compareTrace(const TraceAnalysis& trace, const Scenario& scenario);

// Signed error in percent, (predicted - measured) / measured; nullopt when measured is 0.
std::optional<double> tracePercentError(double predicted, double measured);

// One step as the model's timeline events (start since the step's start), for a GUI to draw
// under the predicted timeline: forward and backward kernels on the compute stream with the
// layer they were matched with, collectives on the communication stream, the optimizer on
// the update stream, input copies on the input stream; kernels of several CUDA streams of a
// pass take separate lanes.
std::vector<TimelineEvent> measuredTimeline(const TraceAnalysis& trace,
                                            const TraceComparison& comparison, std::size_t step);

} // namespace iterscope
