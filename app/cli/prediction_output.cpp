#include "cli/prediction_output.h"

#include "cli/table.h"
#include "model/breakdown.h"
#include "validation/error_band.h"
#include "validation/prediction_warnings.h"

#include <cmath>

namespace iterscope::cli {

namespace {
constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
}

nlohmann::ordered_json scenarioJson(const Scenario& s) {
    return {{"network", s.network ? s.network->network.name : std::string()},
            {"gpu", s.gpu.id},
            {"system", s.system.id},
            {"software", s.software.id},
            {"nodes", s.nodes},
            {"gpus_per_node", s.gpus_per_node},
            {"batch_per_gpu", s.batch_per_gpu},
            {"precision", precisionName(s.precision)},
            {"sync", syncStrategyName(s.sync)},
            {"allreduce", allreduceAlgorithmName(s.allreduce)},
            {"overlap", s.overlap},
            {"bucket_mb", s.bucket_mb},
            {"layout", s.nhwc() ? "nhwc" : "nchw"},
            {"data", s.realData() ? "real" : "synthetic"},
            {"augmentation", augmentationName(s.augmentationInEffect())},
            {"parallel", parallelStrategyName(s.parallel)},
            {"pipeline_stages", s.stages()},
            {"micro_batches", s.microBatches()},
            {"schedule", pipelineScheduleName(s.schedule)}};
}

nlohmann::ordered_json summaryJson(const Prediction& p) {
    return {{"iteration_ms", p.iteration_ms},
            {"images_per_second", p.images_per_second},
            {"forward_ms", p.forward_ms},
            {"backward_ms", p.backward_ms},
            {"update_ms", p.update_ms},
            {"input_ms", p.input_ms},
            {"communication_ms", p.communication_ms},
            {"exposed_communication_ms", p.exposed_communication_ms},
            {"host_input_ms", p.host_input_ms},
            {"input_wait_ms", p.input_wait_ms},
            {"input_bound", p.input_bound},
            {"straggler_ms", p.straggler_ms},
            {"allreduce_algorithm", p.allreduce_algorithm},
            {"memory_per_gpu_bytes", p.memory_per_gpu_bytes},
            {"weights_bytes", p.weights_bytes},
            {"gradients_bytes", p.gradients_bytes},
            {"optimizer_bytes", p.optimizer_bytes},
            {"activations_bytes", p.activations_bytes},
            {"workspace_bytes", p.workspace_bytes},
            {"fits_in_memory", p.fits_in_memory},
            {"max_batch_that_fits", p.max_batch_that_fits},
            {"pipeline_stages", p.pipeline_stages},
            {"micro_batches", p.micro_batches},
            {"pipeline_bubble_ms", p.pipeline_bubble_ms},
            {"exchanged_bytes_per_gpu", p.exchanged_bytes_per_gpu},
            {"straggler_ms", p.straggler_ms},
            {"staleness", p.staleness}};
}

void addErrorBand(nlohmann::ordered_json& out, const Scenario& s, const Prediction& p) {
    const ErrorBand band = errorBandFor(shippedErrorBands(), s);
    // The band bounds the true throughput; the iteration time is its inverse.
    out["iteration_ms_low"] = p.iteration_ms / band.high;
    out["iteration_ms_high"] = p.iteration_ms / band.low;
    out["images_per_second_low"] = p.images_per_second * band.low;
    out["images_per_second_high"] = p.images_per_second * band.high;
    out["error_band"] = {{"coverage", shippedErrorBands().coverage},
                         {"rows", band.rows},
                         {"basis", band.basis},
                         {"extrapolated", band.extrapolated}};
}

std::vector<std::string> predictionWarnings(const Scenario& s, const Prediction& p) {
    std::vector<std::string> out;
    for (const ScenarioWarning& w : iterscope::predictionWarnings(s, p))
        out.push_back(w.text);
    return out;
}

nlohmann::ordered_json breakdownJson(const IterationBreakdown& breakdown) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const BreakdownPart& part : breakdownParts(breakdown))
        out[part.key] = part.ms;
    return out;
}

nlohmann::ordered_json predictionJson(const Scenario& s, const Prediction& p,
                                      const std::vector<std::string>& warnings) {
    nlohmann::ordered_json out = summaryJson(p);
    const IterationBreakdown breakdown = iterationBreakdown(p);
    out["breakdown"] = breakdownJson(breakdown);
    // Which GPU group's timeline the breakdown follows (gpu_groups[]): a pipeline's stages
    // differ, and the iteration waits for the one whose work ends last.
    out["breakdown_group"] = breakdown.group;
    addErrorBand(out, s, p);
    out["warnings"] = warnings;
    out["parallel"] = parallelStrategyName(s.parallel);
    auto groups = nlohmann::ordered_json::array();
    for (const GpuGroup& g : p.groups)
        groups.push_back({{"label", g.label}, {"gpus", g.gpus}});
    out["gpu_groups"] = std::move(groups);
    out["scenario"] = scenarioJson(s);
    auto layers = nlohmann::ordered_json::array();
    for (const LayerTiming& l : p.layers) {
        const Layer& layer = s.network->network.layers[l.layer];
        layers.push_back({{"index", l.layer},
                          {"name", layer.name},
                          {"type", layerKindName(layer.kind)},
                          {"forward_ms", l.forward_ms},
                          {"backward_ms", l.backward_ms},
                          {"forward_bound", boundName(l.forward_bound)},
                          {"backward_bound", boundName(l.backward_bound)},
                          {"gradient_bytes", l.gradient_bytes},
                          {"bucket", l.bucket}});
    }
    out["layers"] = std::move(layers);
    auto timeline = nlohmann::ordered_json::array();
    for (const TimelineEvent& e : p.timeline)
        timeline.push_back({{"stream", streamName(e.stream)},
                            {"name", timelineEventName(e, s.network->network)},
                            {"start_ms", e.start_ms},
                            {"duration_ms", e.duration_ms},
                            {"layer", e.layer},
                            {"bucket", e.bucket},
                            {"lane", e.lane},
                            {"group", e.group}});
    out["timeline"] = std::move(timeline);
    return out;
}

std::string summaryTable(const Scenario& s, const Prediction& p) {
    TextTable t;
    t.addColumn("", TextTable::Align::Left);
    t.addColumn("value", TextTable::Align::Right);
    t.addColumn("unit", TextTable::Align::Left);
    // The parts the GUI's summary shows, so that both add up to the iteration alike; the
    // prediction's own forward, backward and bubble are a pipeline's busiest stage and a
    // formula, which do not (docs/cli.md).
    for (const BreakdownPart& part : breakdownParts(iterationBreakdown(p))) {
        const std::string key = part.key;
        const bool always = key == "forward_ms" || key == "backward_ms" || key == "update_ms" ||
                            (key == "exposed_communication_ms" && p.communication_ms > 0);
        if (!always && part.ms <= 0)
            continue;
        std::string label = part.label;
        if (key == "idle_ms" && (p.pipeline_stages > 1 || p.micro_batches > 1))
            label = "pipeline bubble (" + std::to_string(p.pipeline_stages) + " stages, " +
                    std::to_string(p.micro_batches) + " micro-batches)";
        t.addRow({label, fixed(part.ms, 2), "ms"});
    }
    t.addRule();
    // The band as it is, below and above: it is rarely symmetric (-8% / +4%).
    const ErrorBand band = errorBandFor(shippedErrorBands(), s);
    // Symmetric in log space, so the same in percent for the time and the throughput.
    const std::string pm = band.rows > 0 ? " -" + fixed(band.belowPercent(), 0) + "%/+" +
                                               fixed(band.abovePercent(), 0) + "%"
                                         : std::string();
    t.addRow({"iteration", fixed(p.iteration_ms, 2), "ms" + pm});
    t.addRow({"throughput", fixed(p.images_per_second, 1), "images/s" + pm});
    t.addRule();
    // Not parts of the iteration: what the parts above hide or stand for.
    const std::size_t parts_end = t.rowCount();
    if (p.communication_ms > 0) {
        std::string comm = "communication, hidden or not";
        if (!p.allreduce_algorithm.empty())
            comm += " (" + p.allreduce_algorithm + ")";
        t.addRow({comm, fixed(p.communication_ms, 2), "ms"});
    }
    if (p.host_input_ms > 0)
        t.addRow({std::string("host decode of a batch") + (p.input_bound ? " (binds)" : ""),
                  fixed(p.host_input_ms, 2), "ms"});
    if (p.exchanged_bytes_per_gpu > 0)
        t.addRow({"sent per GPU",
                  fixed(static_cast<double>(p.exchanged_bytes_per_gpu) / (1024.0 * 1024.0), 1),
                  "MiB"});
    if (p.staleness > 0)
        t.addRow({"staleness", fixed(p.staleness, 0), "gradients"});
    if (t.rowCount() > parts_end)
        t.addRule();
    t.addRow({"memory per GPU",
              fixed(static_cast<double>(p.memory_per_gpu_bytes) / kBytesPerGib, 2),
              std::string("GiB") + (p.fits_in_memory ? "" : " (does not fit)")});
    t.addRow({"largest batch that fits", std::to_string(p.max_batch_that_fits), "per GPU"});
    std::string head = s.network->network.name + " on " + std::to_string(s.totalGpus()) + " x " +
                       s.gpu.id + " (" + s.system.id + ", " + std::to_string(s.nodes) +
                       " node(s)), batch " + std::to_string(s.batch_per_gpu) + " per GPU, " +
                       precisionName(s.precision) + ", " + s.software.id + ", " +
                       syncStrategyName(s.sync) +
                       (s.parallel == ParallelStrategy::Data
                            ? std::string()
                            : std::string(", ") + parallelStrategyName(s.parallel)) +
                       "\n\n";
    return head + t.render();
}

std::string layerTable(const Scenario& s, const Prediction& p) {
    TextTable t;
    t.addColumn("layer", TextTable::Align::Left);
    t.addColumn("type", TextTable::Align::Left);
    t.addColumn("fwd ms", TextTable::Align::Right);
    t.addColumn("bound", TextTable::Align::Left);
    t.addColumn("bwd ms", TextTable::Align::Right);
    t.addColumn("bound", TextTable::Align::Left);
    for (const LayerTiming& l : p.layers) {
        if (l.forward_ms <= 0 && l.backward_ms <= 0)
            continue;
        const Layer& layer = s.network->network.layers[l.layer];
        t.addRow({layer.name, layerKindName(layer.kind), fixed(l.forward_ms, 3),
                  boundName(l.forward_bound), fixed(l.backward_ms, 3),
                  boundName(l.backward_bound)});
    }
    t.addRule();
    t.addRow({"total", "", fixed(p.forward_ms, 3), "", fixed(p.backward_ms, 3), ""});
    return t.render();
}

} // namespace iterscope::cli
