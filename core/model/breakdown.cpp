#include "model/breakdown.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>
#include <vector>

namespace iterscope {
namespace {

// In the order they win an instant: work on the GPU first, then transfers, then waits.
enum Part {
    kForward,
    kBackward,
    kUpdate,
    kInput,
    kCommunication,
    kStraggler,
    kInputWait,
    kServerWait,
    kParts,
    kNone = kParts,
};

Part partOf(EventKind kind) {
    switch (kind) {
    case EventKind::Forward:
    case EventKind::StageForward:
        return kForward;
    case EventKind::Backward:
    case EventKind::StageBackward:
        return kBackward;
    case EventKind::Update:
        return kUpdate;
    case EventKind::InputCopy:
    case EventKind::InputPipeline:
        return kInput;
    case EventKind::HostInput: // the host's CPU cores: what it costs the GPU is the input wait
        return kNone;
    case EventKind::StragglerWait:
        return kStraggler;
    case EventKind::InputWait:
        return kInputWait;
    case EventKind::ServerWait:
        return kServerWait;
    case EventKind::AllReduce:
    case EventKind::CopyAllReduce:
    case EventKind::PushPull:
    case EventKind::ParamBroadcast:
    case EventKind::ActivationGather:
    case EventKind::GradientScatter:
    case EventKind::SliceAllReduce:
    case EventKind::ReduceScatter:
    case EventKind::ParamGather:
    case EventKind::SendActivations:
    case EventKind::SendGradients:
        return kCommunication;
    }
    return kNone;
}

bool isWait(Part part) {
    return part == kStraggler || part == kInputWait || part == kServerWait;
}

using Intervals = std::vector<std::pair<double, double>>;

// Sorted, disjoint.
void merge(Intervals& spans) {
    std::sort(spans.begin(), spans.end());
    Intervals out;
    for (const auto& span : spans) {
        if (!out.empty() && span.first <= out.back().second)
            out.back().second = std::max(out.back().second, span.second);
        else
            out.push_back(span);
    }
    spans = std::move(out);
}

// The group whose own work (waits aside) ends last: the one the iteration waits for.
int criticalGroup(const Prediction& p) {
    int best = 0;
    double best_end = -1;
    for (const TimelineEvent& e : p.timeline) {
        const Part part = partOf(e.kind);
        if (part == kNone || isWait(part))
            continue;
        const double end = e.start_ms + e.duration_ms;
        if (end > best_end || (end == best_end && e.group < best)) {
            best_end = end;
            best = e.group;
        }
    }
    return best;
}

IterationBreakdown fromTotals(const Prediction& p) {
    IterationBreakdown b;
    b.forward_ms = p.forward_ms;
    b.backward_ms = p.backward_ms;
    b.update_ms = p.update_ms;
    b.exposed_communication_ms = p.exposed_communication_ms;
    b.straggler_ms = p.straggler_ms;
    b.input_wait_ms = p.input_wait_ms;
    b.idle_ms = std::max(0.0, p.iteration_ms - b.totalMs());
    return b;
}

} // namespace

IterationBreakdown iterationBreakdown(const Prediction& p) {
    if (p.timeline.empty())
        return fromTotals(p);
    const double end = p.iteration_ms;
    IterationBreakdown b;
    b.group = criticalGroup(p);
    std::array<Intervals, kParts> busy;
    for (const TimelineEvent& e : p.timeline) {
        const Part part = partOf(e.kind);
        if (part == kNone || e.group != b.group || e.duration_ms <= 0)
            continue;
        const double from = std::clamp(e.start_ms, 0.0, end);
        const double to = std::clamp(e.start_ms + e.duration_ms, 0.0, end);
        if (to > from)
            busy[part].push_back({from, to});
    }
    std::vector<double> cuts{0.0, end};
    for (Intervals& spans : busy) {
        merge(spans);
        for (const auto& [from, to] : spans) {
            cuts.push_back(from);
            cuts.push_back(to);
        }
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

    std::array<double, kParts + 1> ms{};
    std::array<std::size_t, kParts> next{}; // per part, the first span that may still cover
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
        const double from = cuts[c], to = cuts[c + 1];
        const double mid = (from + to) / 2;
        int owner = kNone;
        for (int part = 0; part < kParts && owner == kNone; ++part) {
            const Intervals& spans = busy[static_cast<std::size_t>(part)];
            std::size_t& i = next[static_cast<std::size_t>(part)];
            while (i < spans.size() && spans[i].second <= mid)
                ++i;
            if (i < spans.size() && spans[i].first <= mid)
                owner = part;
        }
        ms[static_cast<std::size_t>(owner)] += to - from;
    }
    b.forward_ms = ms[kForward];
    b.backward_ms = ms[kBackward];
    b.update_ms = ms[kUpdate];
    b.input_ms = ms[kInput];
    b.exposed_communication_ms = ms[kCommunication];
    b.straggler_ms = ms[kStraggler];
    b.input_wait_ms = ms[kInputWait];
    b.server_wait_ms = ms[kServerWait];
    b.idle_ms = ms[kNone];
    return b;
}

std::vector<BreakdownPart> breakdownParts(const IterationBreakdown& b) {
    return {{"forward_ms", "forward", b.forward_ms},
            {"backward_ms", "backward", b.backward_ms},
            {"update_ms", "update", b.update_ms},
            {"input_ms", "input copy (not hidden)", b.input_ms},
            {"exposed_communication_ms", "exposed communication", b.exposed_communication_ms},
            {"idle_ms", "idle (pipeline bubble)", b.idle_ms},
            {"straggler_ms", "wait for the slowest GPU", b.straggler_ms},
            {"input_wait_ms", "wait for the host's decoding", b.input_wait_ms},
            {"server_wait_ms", "wait for the parameter servers", b.server_wait_ms}};
}

} // namespace iterscope
