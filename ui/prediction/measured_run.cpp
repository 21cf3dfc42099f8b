#include "prediction/measured_run.h"

#include "scenario/settings_from_choices.h"

#include "trace/kineto_trace.h"
#include "util/error.h"

#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace iterscope::ui {
namespace {

ScenarioChoices choicesFrom(const ScenarioSettings& s) {
    ScenarioChoices c;
    c.network = s.network.toStdString();
    c.gpu = s.gpu.toStdString();
    c.system = s.system.toStdString();
    c.software = s.software.toStdString();
    c.nodes = std::to_string(s.nodes);
    c.gpus_per_node = std::to_string(s.gpus_per_node);
    c.batch = std::to_string(s.batch);
    c.image = s.image;
    c.precision = s.precision.toStdString();
    c.sync = s.sync.toStdString();
    c.allreduce = s.allreduce.toStdString();
    c.overlap = s.overlap ? "on" : "off";
    c.bucket_mb = s.bucket_mb;
    c.layout = s.layout.toStdString();
    c.data = s.data.toStdString();
    c.parallel = s.parallel.toStdString();
    c.pipeline_stages = s.pipeline_stages;
    c.micro_batches = s.micro_batches;
    c.schedule = s.schedule.toStdString();
    return c;
}

// The step whose wall time is nearest the median: the one a reader compares with.
std::size_t typicalStep(const TraceComparison& c) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < c.step_ms.size(); ++i)
        if (std::abs(c.step_ms[i] - c.measured_step_ms) <
            std::abs(c.step_ms[best] - c.measured_step_ms))
            best = i;
    return best;
}

QString fileNameOf(const std::string& path) {
    return QFileInfo(QString::fromStdString(path)).fileName();
}

// Ids compare as they are; files (a network, a profile) by where they are.
bool sameChoice(const std::string& row, const QString& setting) {
    const QString r = QString::fromStdString(row);
    if (r == setting)
        return true;
    const QFileInfo a(r), b(setting);
    return a.exists() && b.exists() && a.canonicalFilePath() == b.canonicalFilePath();
}

} // namespace

TracePtr openTrace(const QString& path, const ScenarioSettings& current) {
    auto out = std::make_shared<OpenedTrace>();
    out->path = path;
    out->analysis = analyzeTrace(readKinetoTrace(path.toStdString()));
    // Everything the trace can say comes from it; the rest is the window's.
    const TraceScenario setting =
        traceScenario(out->analysis, choicesFrom(current), TraceChoiceMask{});
    out->settings = settingsFromChoices(setting.choices);
    out->gpu_name = QString::fromStdString(setting.gpu_name);
    out->batch_from = QString::fromStdString(setting.batch_source);
    // The batch the trace does not say is the window's; the summary says it was assumed.
    for (const std::string& w : setting.warnings)
        if (setting.batch_source != "assumed" || w.find("batch") == std::string::npos)
            out->notes << QString::fromStdString(w);
    return out;
}

const TraceLayerComparison* TraceOverlay::layer(std::size_t layer) const {
    if (layer >= by_layer.size() || by_layer[layer] < 0)
        return nullptr;
    return &comparison.layers[static_cast<std::size_t>(by_layer[layer])];
}

std::optional<double> TraceOverlay::measuredLayerMs(std::size_t index) const {
    const TraceLayerComparison* l = layer(index);
    if (!l || (!l->measured_forward_ms && !l->measured_backward_ms))
        return std::nullopt;
    return l->measured_forward_ms.value_or(0) + l->measured_backward_ms.value_or(0);
}

OverlayPtr compareWithTrace(const TracePtr& trace, const Scenario& scenario,
                            const ScenarioSettings& settings) {
    auto out = std::make_shared<TraceOverlay>();
    out->trace = trace;
    if (!trace)
        return out;
    try {
        out->comparison = compareTrace(trace->analysis, scenario);
    } catch (const InputError& e) {
        out->error = QString::fromUtf8(e.what());
        return out;
    }
    for (std::size_t i = 0; i < out->comparison.layers.size(); ++i) {
        const std::size_t layer = out->comparison.layers[i].layer;
        if (layer >= out->by_layer.size())
            out->by_layer.resize(layer + 1, -1);
        out->by_layer[layer] = static_cast<long>(i);
    }
    out->step = typicalStep(out->comparison);
    out->timeline = measuredTimeline(trace->analysis, out->comparison, out->step);
    // measuredTimeline() makes one event per GPU activity, in their order.
    const TraceStep& step = trace->analysis.steps[out->step];
    if (step.activities.size() == out->timeline.size())
        for (const MeasuredActivity& a : step.activities)
            out->timeline_ops.push_back(step.ops[static_cast<std::size_t>(a.op)].name);
    const ScenarioSettings& t = trace->settings;
    if (out->comparison.training && out->comparison.measured_step_ms > 0)
        out->images_per_second =
            double(t.batch) * t.totalGpus() * 1000.0 / out->comparison.measured_step_ms;
    const auto differs = [&](bool different, const QString& what) {
        if (different)
            out->differs << what;
    };
    const auto layers = static_cast<int>(out->comparison.layers.size());
    out->other_network = layers > 0 && 2 * out->comparison.layers_matched < layers;
    differs(out->other_network, QStringLiteral("network"));
    differs(t.gpu != settings.gpu, QStringLiteral("GPU"));
    differs(t.totalGpus() != settings.totalGpus(), QStringLiteral("GPU count"));
    differs(t.batch != settings.batch, QStringLiteral("batch"));
    differs(t.image != settings.image, QStringLiteral("image size"));
    differs(t.precision != settings.precision, QStringLiteral("precision"));
    return out;
}

std::vector<MeasuredPoint> measuredPointsFor(const std::vector<ValidationRow>& rows,
                                             const ScenarioSettings& settings) {
    std::vector<MeasuredPoint> out;
    for (const ValidationRow& row : rows) {
        if (row.metric != "images_per_second" || !(row.measured > 0))
            continue;
        if (!sameChoice(row.network, settings.network) || !sameChoice(row.gpu, settings.gpu) ||
            row.precision != settings.precision.toStdString())
            continue;
        if (row.image != 0 && settings.image != 0 && row.image != settings.image)
            continue;
        // A run on another system says nothing of this one's interconnect: a DGX-1's marks
        // left on a workstation's curves read as the workstation's.
        if (!row.system.empty() && !sameChoice(row.system, settings.system))
            continue;
        MeasuredPoint p;
        p.gpus = row.nodes * row.gpus_per_node;
        p.batch = static_cast<int>(std::clamp<int64_t>(row.batch_per_gpu, 1, 1 << 20));
        p.images_per_second = row.measured;
        p.label =
            QStringLiteral("%1: %2").arg(fileNameOf(row.file), QString::fromStdString(row.id));
        out.push_back(p);
    }
    return out;
}

} // namespace iterscope::ui
