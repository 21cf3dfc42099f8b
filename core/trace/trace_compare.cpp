#include "trace/trace_compare.h"

#include "model/model.h"

#include <algorithm>
#include <map>
#include <set>

namespace iterscope {

namespace {

// Division, not a multiplication by 1e-6: a whole number of nanoseconds then prints as the
// milliseconds it is (1225000 ns as 1.225).
double toMs(double ns) {
    return ns / 1e6;
}

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// The ops of one step of one pass and kind, in launch order (indices into the step's ops).
std::vector<int> opsOf(const TraceStep& step, TracePass pass, OpKind kind) {
    std::vector<int> out;
    for (std::size_t i = 0; i < step.ops.size(); ++i)
        if (step.ops[i].pass == pass && step.ops[i].kind == kind)
            out.push_back(static_cast<int>(i));
    return out;
}

// GPU time of `mine` that none of `others` covers; both sorted by start.
std::int64_t exposedNs(const std::vector<std::pair<std::int64_t, std::int64_t>>& mine,
                       const std::vector<std::pair<std::int64_t, std::int64_t>>& others) {
    std::int64_t exposed = 0;
    std::size_t j = 0;
    std::int64_t covered_to = INT64_MIN;
    for (const auto& [start, end] : mine) {
        std::int64_t from = std::max(start, covered_to);
        while (from < end) {
            while (j < others.size() && others[j].second <= from)
                ++j;
            if (j == others.size() || others[j].first >= end) {
                exposed += end - from;
                break;
            }
            if (others[j].first > from)
                exposed += others[j].first - from;
            from = std::max(from, others[j].second);
        }
        covered_to = std::max(covered_to, end);
    }
    return exposed;
}

} // namespace

const char* matchKindName(MatchKind m) {
    switch (m) {
    case MatchKind::OneToOne:
        return "one-to-one";
    case MatchKind::ByKind:
        return "kind";
    case MatchKind::None:
        return "none";
    }
    return "none";
}

std::optional<double> tracePercentError(double predicted, double measured) {
    if (!(measured > 0))
        return std::nullopt;
    return (predicted - measured) / measured * 100.0;
}

Scenario kernelTimeScenario(Scenario s) {
    s.software.per_layer_overhead_us = 0;
    s.software.kernel_gap_us = 0;
    s.gpu.measured_launch_overhead_us = 0;
    return s;
}

TraceComparison compareTrace(const TraceAnalysis& trace, const Scenario& scenario) {
    TraceComparison c;
    const Network& net = scenario.network->network;
    const LayerPassTable table = layerPassTable(kernelTimeScenario(scenario));
    const Prediction full = predict(scenario, PredictDetail::Totals);
    c.steps = static_cast<int>(trace.steps.size());
    c.training = trace.facts.has_backward;
    const double steps = c.steps;
    std::vector<double> busy;
    for (const TraceStep& s : trace.steps) {
        c.step_ms.push_back(toMs(static_cast<double>(s.durationNs())));
        busy.push_back(toMs(static_cast<double>(s.busyNs())));
    }
    c.measured_step_ms = median(c.step_ms);
    c.measured_busy_ms = median(busy);
    c.predicted_step_ms = c.training ? full.iteration_ms : full.forward_ms;

    c.op_layers.resize(trace.steps.size());
    for (std::size_t s = 0; s < trace.steps.size(); ++s)
        c.op_layers[s].assign(trace.steps[s].ops.size(), -1);
    std::vector<TraceLayerComparison> layers(net.layers.size());
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        layers[i].layer = i;
        layers[i].name = net.layers[i].name;
        layers[i].kind = opKindOfLayer(net.layers[i].kind);
        layers[i].predicted_forward_ms = table.passes[i].forward.ms;
        layers[i].predicted_backward_ms = table.passes[i].backward.ms;
    }

    std::vector<TracePass> passes{TracePass::Forward};
    if (c.training)
        passes.push_back(TracePass::Backward);
    std::set<OpKind> kinds;
    for (const TraceLayerComparison& l : layers)
        if (l.kind != OpKind::Other)
            kinds.insert(l.kind);
    for (const TraceStep& s : trace.steps)
        for (const MeasuredOp& op : s.ops)
            kinds.insert(op.kind);
    // Forward ops' sequence numbers, per step: the layer each links a backward node to.
    std::vector<std::map<std::int64_t, std::size_t>> layer_of_sequence(trace.steps.size());
    for (TracePass pass : passes) {
        const bool fwd = pass == TracePass::Forward;
        for (OpKind kind : kinds) {
            std::vector<std::size_t> with_work;
            for (const TraceLayerComparison& l : layers)
                if (l.kind == kind && kind != OpKind::Other &&
                    (fwd ? l.predicted_forward_ms : l.predicted_backward_ms) > 0)
                    with_work.push_back(l.layer);
            // Which layer each op of each step stands for, when every step says the same.
            std::vector<std::vector<std::size_t>> assigned(trace.steps.size());
            bool one_to_one = !with_work.empty();
            double measured_ns = 0, op_count = 0;
            for (std::size_t s = 0; s < trace.steps.size(); ++s) {
                const std::vector<int> ops = opsOf(trace.steps[s], pass, kind);
                op_count += static_cast<double>(ops.size());
                for (int o : ops)
                    measured_ns += static_cast<double>(
                        trace.steps[s].ops[static_cast<std::size_t>(o)].kernel_ns);
                if (!one_to_one || ops.size() != with_work.size()) {
                    one_to_one = false;
                    continue;
                }
                std::vector<std::size_t>& a = assigned[s];
                if (!fwd) {
                    // Through the autograd link where every node has one, distinct.
                    std::set<std::size_t> seen;
                    for (int o : ops) {
                        const auto it = layer_of_sequence[s].find(
                            trace.steps[s].ops[static_cast<std::size_t>(o)].sequence);
                        if (it == layer_of_sequence[s].end() || layers[it->second].kind != kind ||
                            !seen.insert(it->second).second)
                            break;
                        a.push_back(it->second);
                    }
                    if (a.size() != ops.size())
                        a.assign(with_work.rbegin(), with_work.rend());
                } else {
                    a = with_work;
                }
            }
            if (one_to_one) {
                std::map<std::size_t, double> sum_ns; // per layer, over the steps
                for (std::size_t s = 0; s < trace.steps.size(); ++s) {
                    const std::vector<int> ops = opsOf(trace.steps[s], pass, kind);
                    for (std::size_t k = 0; k < ops.size(); ++k) {
                        const MeasuredOp& op = trace.steps[s].ops[static_cast<std::size_t>(ops[k])];
                        TraceLayerComparison& l = layers[assigned[s][k]];
                        sum_ns[l.layer] += static_cast<double>(op.kernel_ns);
                        (fwd ? l.forward_match : l.backward_match) = MatchKind::OneToOne;
                        l.op = op.name;
                        c.op_layers[s][static_cast<std::size_t>(ops[k])] =
                            static_cast<long>(l.layer);
                        if (fwd && op.sequence >= 0)
                            layer_of_sequence[s][op.sequence] = l.layer;
                    }
                }
                for (const auto& [i, ns] : sum_ns)
                    (fwd ? layers[i].measured_forward_ms : layers[i].measured_backward_ms) =
                        toMs(ns / steps);
            } else if (!with_work.empty() && op_count > 0) {
                for (std::size_t i : with_work)
                    (fwd ? layers[i].forward_match : layers[i].backward_match) = MatchKind::ByKind;
            }
            TraceKindComparison k;
            k.kind = kind;
            k.pass = pass;
            k.layers = static_cast<int>(with_work.size());
            k.ops = op_count / steps;
            k.measured_ms = toMs(measured_ns / steps);
            for (std::size_t i : with_work)
                k.predicted_ms +=
                    fwd ? layers[i].predicted_forward_ms : layers[i].predicted_backward_ms;
            k.match = one_to_one                           ? MatchKind::OneToOne
                      : !with_work.empty() && op_count > 0 ? MatchKind::ByKind
                                                           : MatchKind::None;
            if (k.layers > 0 || k.ops > 0)
                c.kinds.push_back(k);
        }
    }

    for (const TraceLayerComparison& l : layers) {
        const bool work = l.predicted_forward_ms > 0 || l.predicted_backward_ms > 0 ||
                          l.forward_match != MatchKind::None;
        if (!work || l.kind == OpKind::Other)
            continue;
        const bool one =
            l.forward_match == MatchKind::OneToOne || l.backward_match == MatchKind::OneToOne;
        c.layers_matched += one ? 1 : 0;
        c.layers_by_kind +=
            !one && (l.forward_match == MatchKind::ByKind || l.backward_match == MatchKind::ByKind)
                ? 1
                : 0;
        c.layers.push_back(l);
    }

    // Ops no layer stands for: kinds the network lacks, and kinds that are no layer.
    std::map<std::pair<std::string, TracePass>, TraceUnmatchedOp> unmatched;
    for (const TraceStep& s : trace.steps)
        for (const MeasuredOp& op : s.ops) {
            if (op.pass != TracePass::Forward && op.pass != TracePass::Backward)
                continue;
            bool has_layer = false;
            for (const TraceKindComparison& k : c.kinds)
                has_layer = has_layer || (k.kind == op.kind && k.pass == op.pass && k.layers > 0);
            if (has_layer)
                continue;
            TraceUnmatchedOp& u = unmatched[{op.name, op.pass}];
            u.name = op.name;
            u.kind = op.kind;
            u.pass = op.pass;
            u.count += 1 / steps;
            u.measured_ms += static_cast<double>(op.kernel_ns); // ns until the end
        }
    for (auto& [key, u] : unmatched) {
        u.measured_ms = toMs(u.measured_ms / steps);
        c.unmatched.push_back(u);
    }
    std::sort(c.unmatched.begin(), c.unmatched.end(),
              [](const TraceUnmatchedOp& a, const TraceUnmatchedOp& b) {
                  return a.measured_ms > b.measured_ms;
              });

    const std::pair<TracePass, double> predicted_pass[] = {
        {TracePass::Input, full.input_ms},
        {TracePass::Forward, full.forward_ms},
        {TracePass::Backward, full.backward_ms},
        {TracePass::Communication, full.communication_ms},
        {TracePass::Optimizer, full.update_ms}};
    for (const auto& [pass, predicted] : predicted_pass) {
        TracePassComparison p;
        p.pass = pass;
        p.predicted_ms = predicted;
        if (pass == TracePass::Communication)
            p.predicted_exposed_ms = full.exposed_communication_ms;
        bool seen = false;
        double busy_ns = 0, span_ns = 0, exposed_ns = 0;
        for (const TraceStep& s : trace.steps) {
            std::vector<std::pair<std::int64_t, std::int64_t>> mine, others;
            std::int64_t first = INT64_MAX, last = INT64_MIN, sum = 0;
            for (const MeasuredActivity& a : s.activities) {
                const bool in = s.ops[static_cast<std::size_t>(a.op)].pass == pass;
                (in ? mine : others).emplace_back(a.start_ns, a.start_ns + a.dur_ns);
                if (!in)
                    continue;
                first = std::min(first, a.start_ns);
                last = std::max(last, a.start_ns + a.dur_ns);
                sum += a.dur_ns;
            }
            if (mine.empty())
                continue;
            seen = true;
            busy_ns += static_cast<double>(sum);
            span_ns += static_cast<double>(last - first);
            if (pass == TracePass::Communication)
                exposed_ns += static_cast<double>(exposedNs(mine, others));
        }
        p.measured_busy_ms = toMs(busy_ns / steps);
        p.measured_span_ms = toMs(span_ns / steps);
        p.measured_exposed_ms = toMs(exposed_ns / steps);
        const bool expected =
            pass == TracePass::Forward || (c.training && pass != TracePass::Input);
        if (seen || (expected && predicted > 0))
            c.passes.push_back(p);
    }
    return c;
}

std::vector<TimelineEvent> measuredTimeline(const TraceAnalysis& trace,
                                            const TraceComparison& comparison, std::size_t step) {
    std::vector<TimelineEvent> events;
    if (step >= trace.steps.size())
        return events;
    const TraceStep& s = trace.steps[step];
    std::map<std::pair<Stream, int>, int> lanes; // (stream, CUDA stream) -> lane
    for (const MeasuredActivity& a : s.activities) {
        const MeasuredOp& op = s.ops[static_cast<std::size_t>(a.op)];
        TimelineEvent e;
        switch (op.pass) {
        case TracePass::Forward:
            e.stream = Stream::Compute;
            e.kind = EventKind::Forward;
            break;
        case TracePass::Backward:
            e.stream = Stream::Compute;
            e.kind = EventKind::Backward;
            break;
        case TracePass::Communication:
            e.stream = Stream::Communication;
            e.kind = EventKind::AllReduce;
            break;
        case TracePass::Optimizer:
            e.stream = Stream::Update;
            e.kind = EventKind::Update;
            break;
        case TracePass::Input:
            e.stream = Stream::Input;
            e.kind = EventKind::InputCopy;
            break;
        }
        e.start_ms = toMs(static_cast<double>(a.start_ns - s.start_ns));
        e.duration_ms = toMs(static_cast<double>(a.dur_ns));
        if (step < comparison.op_layers.size() &&
            static_cast<std::size_t>(a.op) < comparison.op_layers[step].size())
            e.layer = comparison.op_layers[step][static_cast<std::size_t>(a.op)];
        auto [it, fresh] = lanes.emplace(std::make_pair(e.stream, a.stream), 0);
        if (fresh) {
            int lane = 0;
            for (const auto& [key, l] : lanes)
                lane += key.first == e.stream && key != it->first ? 1 : 0;
            it->second = lane;
        }
        e.lane = it->second;
        events.push_back(e);
    }
    return events;
}

} // namespace iterscope
