#include "calibration/compare.h"

#include "util/error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <map>

namespace iterscope {
namespace {

std::string pct(const std::optional<double>& v) {
    if (!v)
        return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%+.1f%%", *v);
    return buffer;
}

std::string ms(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3f", v);
    return buffer;
}

nlohmann::json optionalJson(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

} // namespace

std::optional<double> errorPct(double predicted, double measured) {
    if (!(measured > 0) || !std::isfinite(predicted))
        return std::nullopt;
    return (predicted - measured) / measured * 100.0;
}

const NetworkRun& selectRun(const Measurement& m, const std::string& file,
                            const std::string& network, int64_t batch, Precision precision) {
    const std::string wanted = precisionName(precision);
    const NetworkRun* fallback = nullptr;
    for (const NetworkRun& run : m.runs) {
        if (run.batch != batch || run.precision != wanted)
            continue;
        if (run.network == network)
            return run;
        if (!fallback)
            fallback = &run;
    }
    if (fallback)
        return *fallback;
    std::string held;
    for (const NetworkRun& run : m.runs)
        held += (held.empty() ? "" : ", ") + run.network + " batch " + std::to_string(run.batch) +
                " " + run.precision;
    throw InputError(file + ": no measured run at batch " + std::to_string(batch) + " " + wanted +
                     " (the file holds " + (held.empty() ? std::string("none") : held) + ")");
}

MeasurementComparison compareWithMeasurement(const Network& net, const Prediction& prediction,
                                             const NetworkRun& run) {
    MeasurementComparison c;
    c.network = run.network;
    c.batch = run.batch;
    c.precision = run.precision;

    std::map<std::string, const LayerMeasurement*> by_name;
    for (const LayerMeasurement& l : run.layers)
        by_name.emplace(l.name, &l);
    // Index matching (for a file whose importer named layers differently) only when the
    // run plainly measured this very layer list: same length, same kind at every index.
    bool by_index = run.layers.size() == net.layers.size();
    for (std::size_t i = 0; by_index && i < run.layers.size(); ++i)
        by_index =
            run.layers[i].index == i &&
            (run.layers[i].kind.empty() || run.layers[i].kind == layerKindName(net.layers[i].kind));

    std::vector<const LayerTiming*> timing(net.layers.size(), nullptr);
    for (const LayerTiming& t : prediction.layers)
        if (t.layer < timing.size())
            timing[t.layer] = &t;

    double abs_sum = 0;
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        LayerComparison row;
        row.layer = i;
        row.name = net.layers[i].name;
        row.kind = layerKindName(net.layers[i].kind);
        if (timing[i]) {
            row.predicted_forward_ms = timing[i]->forward_ms;
            row.predicted_backward_ms = timing[i]->backward_ms;
        }
        const LayerMeasurement* measured = nullptr;
        if (auto it = by_name.find(row.name); it != by_name.end())
            measured = it->second;
        else if (by_index)
            measured = &run.layers[i];
        if (measured && measured->measured) {
            row.matched = true;
            row.measured_forward_ms = measured->forward_ms;
            row.measured_backward_ms = measured->backward_ms;
            row.forward_error_pct = errorPct(row.predicted_forward_ms, row.measured_forward_ms);
            row.backward_error_pct = errorPct(row.predicted_backward_ms, row.measured_backward_ms);
            const double measured_total = row.measured_forward_ms + row.measured_backward_ms;
            row.total_error_pct =
                errorPct(row.predicted_forward_ms + row.predicted_backward_ms, measured_total);
            c.predicted_forward_ms += row.predicted_forward_ms;
            c.predicted_backward_ms += row.predicted_backward_ms;
            c.measured_forward_ms += row.measured_forward_ms;
            c.measured_backward_ms += row.measured_backward_ms;
            if (row.total_error_pct && measured_total >= c.significant_ms) {
                abs_sum += std::abs(*row.total_error_pct);
                ++c.layers_in_mape;
            }
        } else if (row.predicted_forward_ms + row.predicted_backward_ms > 0 &&
                   !(measured && !measured->measured && measured->note.empty())) {
            // Predicted to run kernels, but the file has no timing (skipped or absent).
            ++c.unmatched_layers;
        }
        c.layers.push_back(std::move(row));
    }
    c.forward_error_pct = errorPct(c.predicted_forward_ms, c.measured_forward_ms);
    c.backward_error_pct = errorPct(c.predicted_backward_ms, c.measured_backward_ms);
    c.total_error_pct = errorPct(c.predicted_forward_ms + c.predicted_backward_ms,
                                 c.measured_forward_ms + c.measured_backward_ms);
    c.layer_mape_pct = c.layers_in_mape > 0 ? abs_sum / c.layers_in_mape : 0;
    return c;
}

std::string formatComparisonTable(const MeasurementComparison& c) {
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%-28s %-14s %10s %10s %8s %10s %10s %8s\n", "layer", "kind",
                  "pred fwd", "meas fwd", "err", "pred bwd", "meas bwd", "err");
    out += line;
    for (const LayerComparison& r : c.layers) {
        if (!r.matched)
            continue;
        std::snprintf(line, sizeof line, "%-28.28s %-14.14s %10s %10s %8s %10s %10s %8s\n",
                      r.name.c_str(), r.kind.c_str(), ms(r.predicted_forward_ms).c_str(),
                      ms(r.measured_forward_ms).c_str(), pct(r.forward_error_pct).c_str(),
                      ms(r.predicted_backward_ms).c_str(), ms(r.measured_backward_ms).c_str(),
                      pct(r.backward_error_pct).c_str());
        out += line;
    }
    std::snprintf(line, sizeof line, "%-43s %10s %10s %8s %10s %10s %8s\n", "total (ms)",
                  ms(c.predicted_forward_ms).c_str(), ms(c.measured_forward_ms).c_str(),
                  pct(c.forward_error_pct).c_str(), ms(c.predicted_backward_ms).c_str(),
                  ms(c.measured_backward_ms).c_str(), pct(c.backward_error_pct).c_str());
    out += line;
    std::snprintf(line, sizeof line,
                  "forward + backward: predicted %s ms, measured %s ms, error %s; per-layer mean "
                  "|error| %.1f%% over %d layers >= %.2f ms",
                  ms(c.predicted_forward_ms + c.predicted_backward_ms).c_str(),
                  ms(c.measured_forward_ms + c.measured_backward_ms).c_str(),
                  pct(c.total_error_pct).c_str(), c.layer_mape_pct, c.layers_in_mape,
                  c.significant_ms);
    out += line;
    if (c.unmatched_layers > 0)
        out += "; " + std::to_string(c.unmatched_layers) + " layers not measured";
    out += "\n";
    return out;
}

std::string comparisonToJson(const MeasurementComparison& c) {
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const LayerComparison& r : c.layers) {
        if (!r.matched)
            continue;
        layers.push_back({{"index", r.layer},
                          {"name", r.name},
                          {"kind", r.kind},
                          {"predicted_forward_ms", r.predicted_forward_ms},
                          {"measured_forward_ms", r.measured_forward_ms},
                          {"forward_error_pct", optionalJson(r.forward_error_pct)},
                          {"predicted_backward_ms", r.predicted_backward_ms},
                          {"measured_backward_ms", r.measured_backward_ms},
                          {"backward_error_pct", optionalJson(r.backward_error_pct)},
                          {"total_error_pct", optionalJson(r.total_error_pct)}});
    }
    nlohmann::ordered_json j{{"network", c.network},
                             {"batch", c.batch},
                             {"precision", c.precision},
                             {"predicted_forward_ms", c.predicted_forward_ms},
                             {"measured_forward_ms", c.measured_forward_ms},
                             {"forward_error_pct", optionalJson(c.forward_error_pct)},
                             {"predicted_backward_ms", c.predicted_backward_ms},
                             {"measured_backward_ms", c.measured_backward_ms},
                             {"backward_error_pct", optionalJson(c.backward_error_pct)},
                             {"total_error_pct", optionalJson(c.total_error_pct)},
                             {"layer_mape_pct", c.layer_mape_pct},
                             {"layers_in_mape", c.layers_in_mape},
                             {"unmatched_layers", c.unmatched_layers},
                             {"layers", layers}};
    return j.dump(2) + "\n";
}

std::vector<TimelineEvent> measuredTimeline(const NetworkRun& run) {
    std::vector<TimelineEvent> events;
    double t = 0;
    auto add = [&](const LayerMeasurement& l, double duration, EventKind kind) {
        if (!l.measured || !(duration > 0))
            return;
        TimelineEvent e;
        e.stream = Stream::Compute;
        e.kind = kind;
        e.start_ms = t;
        e.duration_ms = duration;
        e.layer = static_cast<long>(l.index);
        events.push_back(std::move(e));
        t += duration;
    };
    for (const LayerMeasurement& l : run.layers)
        add(l, l.forward_ms, EventKind::Forward);
    for (auto it = run.layers.rbegin(); it != run.layers.rend(); ++it)
        add(*it, it->backward_ms, EventKind::Backward);
    return events;
}

} // namespace iterscope
