// What a Kineto trace measured, as the model's terms: steps (ProfilerStep#N, else the
// repeated annotation that launched the layers), and in each step the ops that ran GPU work,
// with their kind, their pass and the summed time of their kernels. The join follows the
// profiler's own links: a GPU activity's "correlation" names its launch on a CPU thread; the
// CPU ops enclosing the launch in time are the ops it ran under, the outermost op of a known
// kind names it (aten::conv2d with its bias addition and transposes), and ops whose autograd
// "Sequence number" matches link a forward op to its backward node.
#pragma once

#include "trace/kineto_trace.h"
#include "trace/op_kinds.h"

#include <cstdint>
#include <string>
#include <vector>

namespace iterscope {

// One op instance that ran GPU work in a step.
struct MeasuredOp {
    std::string name; // the op that names it ("aten::conv2d", "ConvolutionBackward0"), or the
                      // kernel's name when no op launched it
    OpKind kind = OpKind::Other;
    TracePass pass = TracePass::Forward;
    std::int64_t kernel_ns = 0; // sum of its GPU activities' durations
    int kernels = 0;
    std::int64_t launch_ns = 0; // CPU time of its first launch: the order ops ran in
    std::int64_t gpu_start_ns = 0, gpu_end_ns = 0;
    std::int64_t sequence = -1;           // autograd sequence number, -1 when not recorded
    std::vector<std::int64_t> input_dims; // its first input, when shapes were recorded
    std::string input_type;               // "float", "c10::Half", when recorded
    bool tensor_core = false;             // a kernel name says TF32 or FP16/BF16 tensor-core math
    bool tf32 = false;
};

// One GPU activity of a step, for a measured timeline.
struct MeasuredActivity {
    TraceEventKind kind = TraceEventKind::Kernel;
    std::int64_t start_ns = 0, dur_ns = 0; // start since the trace's epoch
    int stream = -1;
    int op = -1;             // index into TraceStep::ops
    std::int64_t bytes = -1; // copies and sets
};

struct TraceStep {
    std::string label;                        // "ProfilerStep#3", an annotation's name
    std::int64_t start_ns = 0, end_ns = 0;    // wall span: CPU span, extended to its GPU work
    std::vector<MeasuredOp> ops;              // in launch order
    std::vector<MeasuredActivity> activities; // in GPU start order
    std::int64_t busyNs() const;              // GPU time covered by at least one activity
    std::int64_t durationNs() const { return end_ns - start_ns; }
};

struct TraceFacts {
    bool has_device = false;
    TraceDevice device;      // of the GPU whose work is analysed
    int gpus_with_work = 0;  // devices that ran kernels; the busiest one is analysed
    int world_size = 1;      // distributedInfo, else 1
    std::string step_source; // "ProfilerStep#N", "annotation '<name>'", "whole trace"
    bool has_backward = false, has_optimizer = false, has_communication = false;
    // From record_shapes: the first convolution's (else linear layer's) input.
    std::vector<std::int64_t> first_layer_input_dims;
    std::string first_layer_input_type;
    // The largest host-to-device copy of the forward pass, in bytes, per step: the input.
    std::int64_t input_copy_bytes = 0;
    // "fp32", "tf32" or "amp" (or "bf16") from input types and kernel names, with why.
    std::string precision = "fp32";
    std::string precision_source;
    std::uint64_t activities_outside_steps = 0;
};

struct TraceAnalysis {
    std::string file;
    TraceFacts facts;
    std::vector<TraceStep> steps; // never empty
};

// Throws InputError naming the file when nothing in the trace ran on a GPU in a step.
TraceAnalysis analyzeTrace(const KinetoTrace& trace);

} // namespace iterscope
