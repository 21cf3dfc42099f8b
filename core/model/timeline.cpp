#include "model/timeline.h"

#include <algorithm>

namespace iterscope {

std::vector<Bucket> makeBuckets(std::vector<LayerTiming>& layers,
                                const std::vector<double>& backward_end_ms, int64_t bucket_bytes,
                                int64_t gradient_element_bytes,
                                const std::vector<int64_t>& params) {
    std::vector<Bucket> buckets;
    Bucket open;
    bool has_open = false;
    for (std::size_t i = layers.size(); i-- > 0;) {
        if (params[i] <= 0)
            continue;
        const int64_t bytes = params[i] * gradient_element_bytes;
        open.bytes += bytes;
        open.ready_ms = std::max(open.ready_ms, backward_end_ms[i]);
        layers[i].gradient_bytes = bytes;
        layers[i].bucket = static_cast<int>(buckets.size());
        has_open = true;
        if (open.bytes >= bucket_bytes) {
            buckets.push_back(open);
            open = Bucket{};
            has_open = false;
        }
    }
    if (has_open)
        buckets.push_back(open);
    return buckets;
}

double scheduleExchange(std::vector<Bucket>& buckets, const ExchangeModel& model, bool overlap,
                        double backward_end_ms, double stream_free_ms) {
    double free_at = backward_end_ms;
    if (overlap && !buckets.empty())
        free_at = buckets.front().ready_ms;
    free_at = std::max(free_at, stream_free_ms);
    double end = backward_end_ms;
    for (Bucket& b : buckets) {
        const double ready = overlap ? b.ready_ms : backward_end_ms;
        b.start_ms = std::max(ready, free_at);
        b.duration_ms = exchangeMs(model, static_cast<double>(b.bytes), &b.algorithm);
        free_at = b.start_ms + b.duration_ms;
        end = std::max(end, free_at);
    }
    return end;
}

} // namespace iterscope
