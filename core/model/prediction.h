// What predict() returns: everything every view shows, as plain values.
#pragma once

#include "network/network.h"

#include <cstdint>
#include <string>
#include <vector>

namespace iterscope {

enum class Bound { Compute, Memory, Overhead };
const char* boundName(Bound b); // "compute", "memory", "overhead"

struct LayerTiming {
    std::size_t layer = 0; // index into Network::layers
    double forward_ms = 0;
    double backward_ms = 0;
    Bound forward_bound = Bound::Overhead;
    Bound backward_bound = Bound::Overhead;
    int64_t gradient_bytes = 0;
    int bucket = -1; // gradient bucket this layer's gradients travel in, -1 for none
};

enum class Stream { Input, Compute, Communication, Update };
const char* streamName(Stream s); // "input", "compute", "communication", "update"

// What an event does. Its label is derived from the kind, the layer and the bucket
// (timelineEventName), not stored: a ResNet-152 iteration has a thousand events, and a
// string each would cost more than the model itself.
enum class EventKind {
    InputCopy,     // "H2D input"
    InputPipeline, // "input pipeline": GPU work of the input pipeline (decoding, augmenting)
    HostInput,     // "host decode (next batch)": the host's CPU cores preparing real images
    Forward,       // "<layer> fwd"
    Backward,      // "<layer> bwd"
    AllReduce,     // "bucket <b> all-reduce"
    CopyAllReduce, // "bucket <b> copy all-reduce"
    PushPull,      // "bucket <b> push/pull": parameter servers
    Update,        // "update"
    StragglerWait, // "wait for the slowest GPU": synchronous steps on several GPUs
    InputWait,     // "wait for input": the host's decoding is behind the GPU
    // Parallel strategies (docs/model.md "Parallel strategies").
    ParamBroadcast,   // "broadcast updated shards": ps-gpu owners send their shards back
    ServerWait,       // "wait for the parameter servers": ps-async servers are the bound
    ActivationGather, // "<layer> all-gather activations": hybrid, the node's samples
    GradientScatter,  // "<layer> reduce-scatter input gradients": hybrid, back to owners
    SliceAllReduce,   // "fc slices all-reduce": hybrid, a node's FC shards across nodes
    ReduceScatter,    // "bucket <b> reduce-scatter": ZeRO gradients to their owners
    ParamGather,      // "unit <b> all-gather parameters" (ZeRO-3), or, with no unit,
                      // "all-gather updated parameters" (ZeRO-1/2)
    StageForward,     // "micro-batch <b> fwd": a pipeline stage's layers, one micro-batch
    StageBackward,    // "micro-batch <b> bwd"
    SendActivations,  // "micro-batch <b> activations to the next stage"
    SendGradients,    // "micro-batch <b> gradients to the previous stage"
};

struct TimelineEvent {
    Stream stream = Stream::Compute;
    EventKind kind = EventKind::Forward;
    double start_ms = 0;
    double duration_ms = 0;
    long layer = -1; // layer index for compute events, -1 otherwise
    int bucket = -1; // bucket index for communication events; micro-batch for pipelines
    int lane = 0;    // sub-row when events of one stream overlap
    int group = 0;   // the GPU group that runs it: index into Prediction::groups
};

// GPUs that run the same events: all of them under data parallelism, hybrid and ZeRO
// (they are symmetric), one group per stage in a pipeline (the stage's GPU in every
// replica). GPU g belongs to group g % groups.size().
struct GpuGroup {
    std::string label; // "every GPU", "stage 2"
    int gpus = 1;      // how many GPUs run this group's events
};

struct Prediction {
    double iteration_ms = 0;
    double images_per_second = 0; // over all GPUs
    double forward_ms = 0;
    double backward_ms = 0;
    double update_ms = 0;
    double input_ms = 0;
    // Runs on real data: the time the node's CPU cores need to decode and augment one
    // minibatch per GPU, and whether that, not the GPU, sets the iteration time.
    double host_input_ms = 0;
    double input_wait_ms = 0; // how much longer the iteration is for waiting on it
    bool input_bound = false; // the wait is more than 2% of the iteration
    // Synchronous steps on several GPUs wait for the slowest: the time that costs.
    double straggler_ms = 0;
    double communication_ms = 0;         // total time of the gradient exchange
    double exposed_communication_ms = 0; // part not hidden behind backward
    std::string allreduce_algorithm;     // the one chosen ("ring", "tree", ...), "" if none
    int64_t memory_per_gpu_bytes = 0;
    int64_t weights_bytes = 0, gradients_bytes = 0, optimizer_bytes = 0;
    int64_t activations_bytes = 0, workspace_bytes = 0;
    bool fits_in_memory = true;
    int64_t max_batch_that_fits = 0;
    // Parallel strategy figures: stages and micro-batches (1 and 1 but for pipelines), the
    // idle time of the busiest stage, and the bytes one GPU sends an iteration over every
    // collective and transfer (for pipelines the stage that sends most).
    int pipeline_stages = 1;
    int micro_batches = 1;
    double pipeline_bubble_ms = 0;
    int64_t exchanged_bytes_per_gpu = 0;
    // ps-async: gradients of other workers the servers apply between a worker's read of the
    // parameters and the update with its own gradient (0 for synchronous strategies).
    double staleness = 0;
    std::vector<GpuGroup> groups; // never empty; see GpuGroup
    std::vector<LayerTiming> layers;
    std::vector<TimelineEvent> timeline;

    // The group whose events GPU `gpu` (0-based) runs.
    int groupOfGpu(int gpu) const {
        return groups.empty() || gpu < 0 ? 0 : gpu % static_cast<int>(groups.size());
    }
};

// "conv1 fwd", "bucket 3 all-reduce", "H2D input", "update". `network` is the one the
// prediction was made for (layer names come from it).
std::string timelineEventName(const TimelineEvent& event, const Network& network);

} // namespace iterscope
