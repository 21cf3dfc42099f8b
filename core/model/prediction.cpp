#include "model/prediction.h"

#include <string>

namespace iterscope {

const char* boundName(Bound b) {
    switch (b) {
    case Bound::Compute:
        return "compute";
    case Bound::Memory:
        return "memory";
    case Bound::Overhead:
        return "overhead";
    }
    return "overhead";
}

const char* streamName(Stream s) {
    switch (s) {
    case Stream::Input:
        return "input";
    case Stream::Compute:
        return "compute";
    case Stream::Communication:
        return "communication";
    case Stream::Update:
        return "update";
    }
    return "compute";
}

std::string timelineEventName(const TimelineEvent& e, const Network& network) {
    const auto layerName = [&]() -> std::string {
        if (e.layer >= 0 && static_cast<std::size_t>(e.layer) < network.layers.size())
            return network.layers[static_cast<std::size_t>(e.layer)].name;
        return "layer " + std::to_string(e.layer);
    };
    const auto bucketName = [&](const char* verb) {
        return "bucket " + std::to_string(e.bucket) + " " + verb;
    };
    switch (e.kind) {
    case EventKind::InputCopy:
        return "H2D input";
    case EventKind::InputPipeline:
        return "input pipeline";
    case EventKind::HostInput:
        return "host decode (next batch)";
    case EventKind::Forward:
        return layerName() + " fwd";
    case EventKind::Backward:
        return layerName() + " bwd";
    case EventKind::AllReduce:
        return bucketName("all-reduce");
    case EventKind::CopyAllReduce:
        return bucketName("copy all-reduce");
    case EventKind::PushPull:
        return bucketName("push/pull");
    case EventKind::Update:
        return "update";
    case EventKind::StragglerWait:
        return "wait for the slowest GPU";
    case EventKind::InputWait:
        return "wait for input";
    case EventKind::ParamBroadcast:
        return "broadcast updated shards";
    case EventKind::ServerWait:
        return "wait for the parameter servers";
    case EventKind::ActivationGather:
        return layerName() + " all-gather activations";
    case EventKind::GradientScatter:
        return layerName() + " reduce-scatter input gradients";
    case EventKind::SliceAllReduce:
        return "fc slices all-reduce";
    case EventKind::ReduceScatter:
        return bucketName("reduce-scatter");
    case EventKind::ParamGather:
        return e.bucket >= 0 ? "unit " + std::to_string(e.bucket) + " all-gather parameters"
                             : std::string("all-gather updated parameters");
    case EventKind::StageForward:
        return "micro-batch " + std::to_string(e.bucket) + " fwd";
    case EventKind::StageBackward:
        return "micro-batch " + std::to_string(e.bucket) + " bwd";
    case EventKind::SendActivations:
        return "micro-batch " + std::to_string(e.bucket) + " activations to the next stage";
    case EventKind::SendGradients:
        return "micro-batch " + std::to_string(e.bucket) + " gradients to the previous stage";
    }
    return "event";
}

} // namespace iterscope
