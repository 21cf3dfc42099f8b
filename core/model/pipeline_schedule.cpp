#include "model/pipeline_schedule.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace iterscope {

namespace {

// How many groups a greedy left-to-right cut makes when no group may exceed `limit`.
int groupsNeeded(const std::vector<double>& ms, double limit) {
    int groups = 1;
    double sum = 0;
    for (const double v : ms) {
        if (sum + v > limit && sum > 0) {
            ++groups;
            sum = 0;
        }
        sum += v;
    }
    return groups;
}

struct Step {
    bool backward = false;
    int micro = 0;
};

std::vector<Step> stageOrder(int stage, int stages, int micro, PipelineSchedule schedule) {
    std::vector<Step> order;
    order.reserve(static_cast<std::size_t>(2 * micro));
    if (schedule == PipelineSchedule::GPipe) {
        for (int m = 0; m < micro; ++m)
            order.push_back({false, m});
        for (int m = micro; m-- > 0;)
            order.push_back({true, m});
        return order;
    }
    const int warmup = std::min(stages - stage - 1, micro);
    for (int m = 0; m < warmup; ++m)
        order.push_back({false, m});
    for (int i = 0; i < micro - warmup; ++i) {
        order.push_back({false, warmup + i});
        order.push_back({true, i});
    }
    for (int m = micro - warmup; m < micro; ++m)
        order.push_back({true, m});
    return order;
}

} // namespace

std::vector<std::size_t> balanceStages(const std::vector<double>& layer_ms, int stages) {
    const std::size_t n = layer_ms.size();
    if (stages < 1 || static_cast<std::size_t>(stages) > n)
        throw std::invalid_argument("balanceStages: stages must be in 1..layers");
    // The smallest largest-stage time: binary search between the largest layer and the
    // whole, a greedy cut deciding feasibility.
    double lo = *std::max_element(layer_ms.begin(), layer_ms.end());
    double hi = std::accumulate(layer_ms.begin(), layer_ms.end(), 0.0);
    for (int i = 0; i < 100 && hi - lo > 1e-12 * std::max(hi, 1e-300); ++i) {
        const double mid = (lo + hi) / 2;
        if (groupsNeeded(layer_ms, mid) <= stages)
            hi = mid;
        else
            lo = mid;
    }
    std::vector<std::size_t> first{0};
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (sum + layer_ms[i] > hi && sum > 0) {
            first.push_back(i);
            sum = 0;
        }
        sum += layer_ms[i];
    }
    // Fewer groups than stages: split the groups with the most layers; a split never makes
    // a group longer.
    while (static_cast<int>(first.size()) < stages) {
        std::size_t widest = 0, widest_size = 0;
        for (std::size_t g = 0; g < first.size(); ++g) {
            const std::size_t end = g + 1 < first.size() ? first[g + 1] : n;
            if (end - first[g] > widest_size) {
                widest_size = end - first[g];
                widest = g;
            }
        }
        first.insert(first.begin() + static_cast<std::ptrdiff_t>(widest) + 1,
                     first[widest] + widest_size / 2);
    }
    return first;
}

PipelineRun runPipeline(const std::vector<StageCost>& stages, int micro_batches,
                        PipelineSchedule schedule) {
    const int p = static_cast<int>(stages.size());
    const int m = std::max(micro_batches, 1);
    PipelineRun run;
    if (p == 0)
        return run;
    constexpr double kUnknown = -1;
    const auto cells = static_cast<std::size_t>(p) * static_cast<std::size_t>(m);
    const auto at = [m](int s, int mb) {
        return static_cast<std::size_t>(s) * static_cast<std::size_t>(m) +
               static_cast<std::size_t>(mb);
    };
    std::vector<double> activations_in(cells, kUnknown), gradients_in(cells, kUnknown);
    std::vector<double> forward_end(cells, kUnknown);
    std::vector<double> stage_free(static_cast<std::size_t>(p), 0.0);
    std::vector<double> act_link_free(static_cast<std::size_t>(p), 0.0);
    std::vector<double> grad_link_free(static_cast<std::size_t>(p), 0.0);
    std::vector<std::vector<Step>> orders;
    for (int s = 0; s < p; ++s)
        orders.push_back(stageOrder(s, p, m, schedule));
    std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
    run.stage_end_ms.assign(static_cast<std::size_t>(p), 0.0);
    run.ops.reserve(4 * cells);

    bool progress = true;
    std::size_t done = 0;
    while (progress) {
        progress = false;
        for (int s = 0; s < p; ++s) {
            const auto su = static_cast<std::size_t>(s);
            const StageCost& c = stages[su];
            while (next[su] < orders[su].size()) {
                const Step step = orders[su][next[su]];
                double ready = 0;
                if (!step.backward)
                    ready = s == 0 ? 0.0 : activations_in[at(s, step.micro)];
                else
                    ready = s == p - 1 ? forward_end[at(s, step.micro)]
                                       : gradients_in[at(s, step.micro)];
                if (ready == kUnknown)
                    break;
                const double start = std::max(stage_free[su], ready);
                const double duration = step.backward ? c.backward_ms : c.forward_ms;
                const double end = start + duration;
                stage_free[su] = end;
                run.ops.push_back(
                    {step.backward ? PipelineOp::Kind::Backward : PipelineOp::Kind::Forward, s,
                     step.micro, start, duration});
                if (!step.backward) {
                    forward_end[at(s, step.micro)] = end;
                    if (s + 1 < p) {
                        const double send = std::max(end, act_link_free[su]);
                        act_link_free[su] = send + c.send_activations_ms;
                        activations_in[at(s + 1, step.micro)] = act_link_free[su];
                        if (c.send_activations_ms > 0)
                            run.ops.push_back({PipelineOp::Kind::SendActivations, s, step.micro,
                                               send, c.send_activations_ms});
                    }
                } else {
                    run.stage_end_ms[su] = end;
                    if (s > 0) {
                        const double send = std::max(end, grad_link_free[su]);
                        grad_link_free[su] = send + c.send_gradients_ms;
                        gradients_in[at(s - 1, step.micro)] = grad_link_free[su];
                        if (c.send_gradients_ms > 0)
                            run.ops.push_back({PipelineOp::Kind::SendGradients, s, step.micro, send,
                                               c.send_gradients_ms});
                    }
                }
                ++next[su];
                ++done;
                progress = true;
            }
        }
    }
    if (done != 2 * cells)
        throw std::logic_error("runPipeline: the schedule deadlocked");

    run.stage_busy_ms.resize(static_cast<std::size_t>(p));
    run.peak_in_flight.resize(static_cast<std::size_t>(p));
    for (int s = 0; s < p; ++s) {
        const auto su = static_cast<std::size_t>(s);
        run.stage_busy_ms[su] = m * (stages[su].forward_ms + stages[su].backward_ms);
        int in_flight = 0, peak = 0;
        for (const Step& step : orders[su]) {
            in_flight += step.backward ? -1 : 1;
            peak = std::max(peak, in_flight);
        }
        run.peak_in_flight[su] = peak;
        run.makespan_ms = std::max(run.makespan_ms, run.stage_end_ms[su]);
        if (run.stage_busy_ms[su] > run.stage_busy_ms[static_cast<std::size_t>(run.busiest_stage)])
            run.busiest_stage = s;
    }
    run.bubble_ms = std::max(
        0.0, run.makespan_ms - run.stage_busy_ms[static_cast<std::size_t>(run.busiest_stage)]);
    return run;
}

} // namespace iterscope
