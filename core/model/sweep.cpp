#include "model/sweep.h"

#include "util/error.h"

#include <string>

namespace iterscope {

std::vector<SweepPoint> sweep(const Scenario& base, const SweepAxes& axes, PredictDetail detail) {
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

    // Every point is checked in row-major order first, so an error names the first bad one
    // whatever order the predictions run in.
    Scenario s = base;
    std::vector<SweepPoint> out(static_cast<std::size_t>(points));
    std::size_t index = 0;
    for (int n : nodes)
        for (int g : gpus)
            for (int64_t b : batches) {
                s.nodes = n;
                s.gpus_per_node = g;
                s.batch_per_gpu = b;
                validateScenario(s);
                SweepPoint& p = out[index++];
                p.nodes = n;
                p.gpus_per_node = g;
                p.batch_per_gpu = b;
            }

    // Batch outermost: the layer times depend on the batch, not on the GPU count, so each
    // batch's are computed once for all its points.
    const std::size_t per_layout = batches.size();
    for (std::size_t bi = 0; bi < batches.size(); ++bi) {
        s.nodes = nodes.front();
        s.gpus_per_node = gpus.front();
        s.batch_per_gpu = batches[bi];
        const LayerPassTable table = layerPassTable(s);
        for (std::size_t layout = 0; layout < out.size() / per_layout; ++layout) {
            SweepPoint& p = out[layout * per_layout + bi];
            s.nodes = p.nodes;
            s.gpus_per_node = p.gpus_per_node;
            p.prediction = predict(s, table, detail);
        }
    }
    return out;
}

} // namespace iterscope
