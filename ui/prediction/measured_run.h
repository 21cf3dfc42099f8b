// What the user measured, as the views draw it beside the prediction: a PyTorch profiler
// trace (File › Open trace; core/trace/) and rows of their own measurements (File › Open
// measurements; the validation CSV format). The trace is read and analysed once; every
// scenario the window predicts is then compared with it, so a change of GPU or batch
// shows how far the measured step is from the new prediction.
#pragma once

#include "scenario/scenario_settings.h"

#include "model/prediction.h"
#include "model/scenario.h"
#include "trace/trace_compare.h"
#include "trace/trace_scenario.h"
#include "trace/trace_steps.h"
#include "validation/validation.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace iterscope::ui {

struct OpenedTrace {
    QString path;
    TraceAnalysis analysis;
    // The scenario the trace was recorded in: the window's choices, with the GPU, GPU
    // count, batch, image size and precision the trace says (traceScenario()).
    ScenarioSettings settings;
    QString gpu_name;   // what the runtime called the device
    QStringList notes;  // what had to be assumed, but for the batch (batch_from says that)
    QString batch_from; // "op shapes", "input copy", "assumed"
};
using TracePtr = std::shared_ptr<const OpenedTrace>;

// Reads and analyses the trace; its scenario starts from `current` (the network and the
// software are the window's: a trace names neither). Throws InputError naming the file.
TracePtr openTrace(const QString& path, const ScenarioSettings& current);

// The trace against one prediction.
struct TraceOverlay {
    TracePtr trace;
    TraceComparison comparison;
    std::vector<TimelineEvent> timeline;   // the step nearest the median, as timeline events
    std::vector<std::string> timeline_ops; // parallel to timeline: the op that ran each
    std::size_t step = 0;                  // which step that is
    // The traced run's throughput: batch × GPUs over the measured step (training only).
    double images_per_second = 0;
    // Choices where the predicted scenario is not the traced one ("GPU", "batch"): the
    // comparison is then of two different runs, and the summary says so.
    QStringList differs;
    // Fewer than half the network's layers matched the trace's ops one to one: most likely
    // a trace of another network, whose step says nothing of this one's prediction.
    bool other_network = false;
    QString error; // the comparison failed (the scenario refused): why; the rest is empty

    // A layer's entry in comparison.layers, by its index into Network::layers; null where
    // it has none.
    const TraceLayerComparison* layer(std::size_t layer) const;
    // Its measured kernel time, forward plus backward, where matched one to one.
    std::optional<double> measuredLayerMs(std::size_t layer) const;
    std::vector<long> by_layer; // Network::layers index -> comparison.layers index, or -1
};
using OverlayPtr = std::shared_ptr<const TraceOverlay>;

OverlayPtr compareWithTrace(const TracePtr& trace, const Scenario& scenario,
                            const ScenarioSettings& settings);

// A measured throughput as a scaling chart draws it.
struct MeasuredPoint {
    int gpus = 1;
    int batch = 1;
    double images_per_second = 0;
    QString label; // "trace a100.json", "runs.csv: row r3"
};

// The rows of a measurements CSV (readValidationCsv) that measured the scenario's network,
// GPU and precision in images/s, as points; rows of other scenarios are left out.
std::vector<MeasuredPoint> measuredPointsFor(const std::vector<ValidationRow>& rows,
                                             const ScenarioSettings& settings);

} // namespace iterscope::ui
