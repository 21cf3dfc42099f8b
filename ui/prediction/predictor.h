// Runs the model off the GUI thread. Each request gets an id; while one computation runs,
// newer requests replace the waiting one, and a result is delivered only when it answers
// the newest request ("latest request wins"), so dragging a slider never queues work and
// never shows a stale answer.
#pragma once

#include "prediction/measured_run.h"
#include "scenario/scenario_label.h"
#include "scenario/scenario_settings.h"

#include "hardware/hardware.h"
#include "model/breakdown.h"
#include "model/model.h"
#include "model/prediction.h"
#include "model/scenario.h"
#include "model/scenario_warnings.h"
#include "validation/error_band.h"

#include <QObject>
#include <QStringList>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace iterscope::ui {

struct CurvePoint {
    double x = 0; // GPU count or batch per GPU
    double images_per_second = 0;
    double efficiency = 0; // images/s against x times one GPU's (GPU curve) or the point's own
    bool fits_in_memory = true;
    // The error band's throughput bounds (core/validation/error_band.h); equal to
    // images_per_second where no band is known.
    double images_per_second_low = 0, images_per_second_high = 0;
};

// Throughput and scaling efficiency over GPU count (1, 2, 4, ... 1024, at the scenario's
// batch) and over batch per GPU (1, 2, ... 1024, at the scenario's GPU count).
struct ScalingCurves {
    std::vector<CurvePoint> by_gpus;
    std::vector<CurvePoint> by_batch;
};

struct PredictionResult {
    quint64 id = 0;
    ScenarioSettings settings;
    Scenario scenario; // what was predicted, profiles and network included
    std::shared_ptr<const AnalyzedNetwork> network;
    GpuProfile gpu;
    SystemProfile system;
    Prediction prediction;
    // The layer times behind `prediction`, shared by every comparison at the same batch.
    std::shared_ptr<const LayerPassTable> passes;
    double single_gpu_images_per_second = 0; // same batch, one GPU
    double scaling_efficiency = 1;           // images/s over GPUs × single GPU's
    // How far to trust `prediction`: the cross-validated errors of comparable measurements,
    // and the bounds it puts on the iteration time and the throughput (equal to the
    // figures where no band is known).
    ErrorBand band;
    double iteration_ms_low = 0, iteration_ms_high = 0;
    double images_per_second_low = 0, images_per_second_high = 0;
    // Where the iteration's time goes, in parts that add up to it (core/model/breakdown.h).
    IterationBreakdown breakdown;
    // The scenario in words, for titles, legends and captions (scenario_label.h).
    ScenarioLabel label;
    ScalingCurves curves;
    // Layer names as the views show them (layer_names.h), parallel to network->network.layers;
    // computed once per network. May be null (results made by hand in tests).
    std::shared_ptr<const QStringList> layer_names;
    // Choices worth a second look, for the summary (core/model/scenario_warnings.h).
    std::vector<ScenarioWarning> warnings;
    // What predict warns of on the command line (core/validation/prediction_warnings.h):
    // unknown ops, a batch that does not fit, hardware checks, an extrapolated band.
    std::vector<ScenarioWarning> caveats;
    // The opened profiler trace against this prediction (measured_run.h); null when none.
    OverlayPtr trace;
    double compute_ms = 0; // wall time of this computation, for the status bar

    // The name the views show for a layer: its display name, else its full name.
    QString layerName(std::size_t layer) const;
    // The op a layer runs, as its file named it ("Conv", "InnerProduct"), else its kind
    // ("Convolution"); empty without a network.
    QString layerOp(std::size_t layer) const;
    // Its module path and op, as the costliest layers and the report name a layer:
    // "layer1.0.conv1 (Convolution)", or the name alone where it ends in its op already
    // ("features.2.0/block.0.0/Conv").
    QString layerNameWithOp(std::size_t layer) const;
};
using ResultPtr = std::shared_ptr<const PredictionResult>;

// Profiles and analyzed networks by id, so a slider move only predicts. Thread-safe.
class ComputeCache {
  public:
    std::shared_ptr<const AnalyzedNetwork> network(const QString& id_or_path, int image);
    bool hasNetwork(const QString& id_or_path, int image) const;
    // Display names of a network this cache loaded (layer_names.h), made once.
    std::shared_ptr<const QStringList>
    layerNames(const std::shared_ptr<const AnalyzedNetwork>& net);
    GpuProfile gpu(const QString& id);
    SystemProfile system(const QString& id);
    SoftwareProfile software(const QString& id);
    // Loads a software profile file afresh next time (it was written again, by a refit).
    void forgetSoftware(const QString& id);
    // Loads GPU and system profiles afresh next time (the user saved or deleted one).
    void forgetHardware();
    // The layer pass table of `scenario` (core/model/model.h), made once per network, kernel
    // batch and compute rates (GPU, software, precision, layout) and kept for the last few
    // dozen: a slider step's scaling curves ask for the same ones again, and they are most
    // of a curve's cost. Throws InputError for an invalid scenario.
    std::shared_ptr<const LayerPassTable> passTable(const Scenario& scenario);

  private:
    mutable std::mutex m_mutex;
    std::map<std::pair<std::string, int>, std::shared_ptr<const AnalyzedNetwork>> m_networks;
    std::map<const AnalyzedNetwork*, std::shared_ptr<const QStringList>> m_layer_names;
    std::map<std::string, GpuProfile> m_gpus;
    std::map<std::string, SystemProfile> m_systems;
    std::map<std::string, SoftwareProfile> m_software;
    std::vector<std::shared_ptr<const LayerPassTable>> m_tables; // newest last
};

// The core Scenario for a set of choices. Throws InputError naming the bad choice.
Scenario buildScenario(const ScenarioSettings& settings, ComputeCache& cache);
// The settings' choices beside the hardware and network (GPU counts, batch, precision, the
// exchange, layout, data, parallel strategy) put into `s`, whose software must already be
// the settings' (its default exchange stands for an empty one). Throws InputError for a
// choice that is no such thing.
void applySettingsChoices(Scenario& s, const ScenarioSettings& settings);

// The prediction and the single-GPU comparison, without scaling curves. Throws InputError.
// With a trace, the result compares it with the prediction (PredictionResult::trace).
std::shared_ptr<PredictionResult> computePrediction(const ScenarioSettings& settings,
                                                    ComputeCache& cache, quint64 id = 0,
                                                    const TracePtr& trace = nullptr);
// Fills result.curves; stops early and returns false once cancelled() says so. Layer pass
// tables come from `cache` when given.
bool addScalingCurves(PredictionResult& result, const std::function<bool()>& cancelled,
                      ComputeCache* cache = nullptr);

// Everything the views show for one set of choices, computed synchronously (the CLI's
// export-chart uses this directly). Throws InputError.
ResultPtr computeResult(const ScenarioSettings& settings, ComputeCache& cache, quint64 id = 0);

class Predictor : public QObject {
    Q_OBJECT
  public:
    explicit Predictor(QObject* parent = nullptr);
    ~Predictor() override;

    // Returns the request's id; the newest id is the only one answered.
    quint64 request(const ScenarioSettings& settings);
    quint64 latestId() const { return m_latest; }
    bool isBusy() const { return m_running || m_pending.has_value(); }
    // Whether the request would have to load a network first (slow for big files).
    bool needsLoad(const ScenarioSettings& settings) const;
    ComputeCache& cache() { return *m_cache; }
    // The trace every later request is compared with; null: none.
    void setTrace(TracePtr trace) { m_trace = std::move(trace); }
    const TracePtr& trace() const { return m_trace; }

  signals:
    void busyChanged(bool busy);
    // The newest request's prediction, then its curves (the same result again when they
    // came in time to go with the prediction, else the prediction without curves first).
    void finished(iterscope::ui::ResultPtr result);
    void curvesReady(iterscope::ui::ResultPtr result);
    void failed(quint64 id, const iterscope::ui::ScenarioSettings& settings, const QString& error);

  private:
    struct Job {
        quint64 id = 0;
        ScenarioSettings settings;
        TracePtr trace;
    };
    void startPending();
    void onPrediction(const ResultPtr& result);
    void onCurves(const ResultPtr& result);
    void onJobDone(quint64 id, const ScenarioSettings& settings, bool ok, const QString& error);

    std::shared_ptr<ComputeCache> m_cache = std::make_shared<ComputeCache>();
    QThreadPool m_pool;
    quint64 m_next = 0;
    quint64 m_latest = 0;
    std::atomic<quint64> m_latest_shared{0}; // m_latest, for the worker's cancellation check
    bool m_running = false;
    std::optional<Job> m_pending;
    TracePtr m_trace;
};

} // namespace iterscope::ui
