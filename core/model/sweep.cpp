#include "model/sweep.h"

#include "util/error.h"

#include <string>

namespace iterscope {

std::vector<SweepPoint> sweep(const Scenario& base, const SweepAxes& axes) {
    const std::vector<int> nodes = axes.nodes.empty() ? std::vector<int>{base.nodes} : axes.nodes;
    const std::vector<int> gpus =
        axes.gpus_per_node.empty() ? std::vector<int>{base.gpus_per_node} : axes.gpus_per_node;
    const std::vector<int64_t> batches =
        axes.batch.empty() ? std::vector<int64_t>{base.batch_per_gpu} : axes.batch;
    const double points = static_cast<double>(nodes.size()) * static_cast<double>(gpus.size()) *
                          static_cast<double>(batches.size());
    if (points > static_cast<double>(kMaxSweepPoints))
        throw InputError("sweep: " + std::to_string(static_cast<long long>(points)) +
                         " points, more than " + std::to_string(kMaxSweepPoints));
    std::vector<SweepPoint> out;
    out.reserve(static_cast<std::size_t>(points));
    Scenario s = base;
    for (int n : nodes)
        for (int g : gpus)
            for (int64_t b : batches) {
                s.nodes = n;
                s.gpus_per_node = g;
                s.batch_per_gpu = b;
                SweepPoint p;
                p.nodes = n;
                p.gpus_per_node = g;
                p.batch_per_gpu = b;
                p.prediction = predict(s);
                out.push_back(std::move(p));
            }
    return out;
}

} // namespace iterscope
