#include "prediction/predictor.h"

#include "layers/layer_names.h"

#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/model.h"
#include "util/error.h"
#include "validation/prediction_warnings.h"

#include <QElapsedTimer>
#include <QMetaObject>

#include <algorithm>
#include <exception>
#include <functional>

namespace iterscope::ui {
namespace {
// How long the scaling curves may take for the prediction to wait for them: a share of a
// 120 Hz frame, so a slider step is one paint and a big network's table still comes at once.
constexpr qint64 kCurvesWithPredictionMs = 3;

std::string toStd(const QString& s) {
    return s.toStdString();
}

template <typename Map, typename Load>
auto cached(std::mutex& mutex, Map& map, const QString& id, Load load) {
    const std::string key = toStd(id);
    {
        std::lock_guard lock(mutex);
        if (auto it = map.find(key); it != map.end())
            return it->second;
    }
    // Loading happens outside the lock; two threads loading the same file is harmless.
    auto value = load(key);
    std::lock_guard lock(mutex);
    return map.emplace(key, std::move(value)).first->second;
}

// Power-of-two GPU counts filled node by node, as one would buy them.
std::optional<std::pair<int, int>> layoutFor(int gpus, const SystemProfile& system) {
    int per_node = 1;
    while (per_node * 2 <= std::max(1, system.gpus_per_node) && per_node * 2 <= gpus)
        per_node *= 2;
    const int nodes = gpus / per_node;
    if (nodes > std::max(1, system.max_nodes))
        return std::nullopt;
    return std::pair{nodes, per_node};
}

// The totals of a comparison point (single GPU, a curve's point): no timeline needed.
std::optional<Prediction> tryPredict(const Scenario& s, const LayerPassTable& passes) {
    try {
        return predict(s, passes, PredictDetail::Totals);
    } catch (const InputError&) {
        return std::nullopt; // a point the model rejects is left out of the curve
    }
}

void fixSyncForCount(Scenario& s, const ScenarioSettings& settings) {
    if (s.totalGpus() == 1) {
        s.sync = SyncStrategy::None;
        s.parallel = ParallelStrategy::Data;
    } else if (s.sync == SyncStrategy::None) {
        const auto fallback = parseSyncStrategy(
            settings.sync.isEmpty() ? s.software.default_sync : settings.sync.toStdString());
        s.sync =
            fallback && *fallback != SyncStrategy::None ? *fallback : SyncStrategy::AllreduceNccl;
    }
}

constexpr std::size_t kCachedTables = 48; // a batch curve's eleven, for a few scenarios

// The one GPU a scaling efficiency compares with (model.h), 0 when the model refuses it.
// Its layer times are at the batch per GPU, which a pipeline's micro-batch table is not.
double singleGpuRate(const Scenario& s, const LayerPassTable& passes, ComputeCache* cache) {
    try {
        std::shared_ptr<const LayerPassTable> own;
        if (cache && passes.batch != s.batch_per_gpu) {
            Scenario one = s;
            one.nodes = 1;
            one.gpus_per_node = 1;
            one.parallel = ParallelStrategy::Data;
            one.sync = SyncStrategy::None;
            own = cache->passTable(one);
        }
        return singleGpuImagesPerSecond(s, own ? own.get() : &passes);
    } catch (const InputError&) {
        return 0;
    }
}
} // namespace

std::shared_ptr<const AnalyzedNetwork> ComputeCache::network(const QString& id_or_path, int image) {
    const auto key = std::pair{toStd(id_or_path), image};
    {
        std::lock_guard lock(m_mutex);
        if (auto it = m_networks.find(key); it != m_networks.end())
            return it->second;
    }
    LoadOptions options;
    options.image = image;
    auto loaded = loadNetwork(key.first, options);
    std::lock_guard lock(m_mutex);
    return m_networks.emplace(key, std::move(loaded)).first->second;
}

bool ComputeCache::hasNetwork(const QString& id_or_path, int image) const {
    std::lock_guard lock(m_mutex);
    return m_networks.count(std::pair{toStd(id_or_path), image}) != 0;
}

std::shared_ptr<const QStringList>
ComputeCache::layerNames(const std::shared_ptr<const AnalyzedNetwork>& net) {
    if (!net)
        return nullptr;
    {
        std::lock_guard lock(m_mutex);
        if (auto it = m_layer_names.find(net.get()); it != m_layer_names.end())
            return it->second;
    }
    std::vector<std::string> names;
    names.reserve(net->network.layers.size());
    for (const auto& layer : net->network.layers)
        names.push_back(layer.name);
    auto made = std::make_shared<const QStringList>(displayLayerNames(names));
    // Cached networks live as long as the cache, so their addresses are stable keys.
    std::lock_guard lock(m_mutex);
    return m_layer_names.emplace(net.get(), std::move(made)).first->second;
}

QString PredictionResult::layerOp(std::size_t layer) const {
    if (!network || layer >= network->network.layers.size())
        return {};
    const Layer& l = network->network.layers[layer];
    return l.source_op.empty() ? QString::fromLatin1(layerKindName(l.kind))
                               : QString::fromStdString(l.source_op);
}

QString PredictionResult::layerNameWithOp(std::size_t layer) const {
    const QString name = layerName(layer);
    const QString op = layerOp(layer);
    if (op.isEmpty() || name.endsWith(QLatin1Char('/') + op) || name == op)
        return name;
    return QStringLiteral("%1 (%2)").arg(name, op);
}

QString PredictionResult::layerName(std::size_t layer) const {
    if (layer_names && layer < static_cast<std::size_t>(layer_names->size()))
        return layer_names->at(static_cast<qsizetype>(layer));
    if (network && layer < network->network.layers.size())
        return QString::fromStdString(network->network.layers[layer].name);
    return QString::number(layer);
}

GpuProfile ComputeCache::gpu(const QString& id) {
    return cached(m_mutex, m_gpus, id, [](const std::string& k) { return loadGpuProfile(k); });
}

SystemProfile ComputeCache::system(const QString& id) {
    return cached(m_mutex, m_systems, id,
                  [](const std::string& k) { return loadSystemProfile(k); });
}

std::shared_ptr<const LayerPassTable> ComputeCache::passTable(const Scenario& s) {
    const int64_t batch = s.kernelBatch();
    const ComputeRates rates = computeRates(s.gpu, s.software, s.precision, s.nhwc());
    const auto same = [&](const std::shared_ptr<const LayerPassTable>& t) {
        return t->network == s.network.get() && t->batch == batch && t->rates == rates;
    };
    {
        std::lock_guard lock(m_mutex);
        if (auto it = std::find_if(m_tables.begin(), m_tables.end(), same); it != m_tables.end()) {
            auto found = *it;
            m_tables.erase(it); // the newest goes last; the oldest is dropped first
            m_tables.push_back(found);
            return found;
        }
    }
    auto made = std::make_shared<const LayerPassTable>(layerPassTable(s));
    std::lock_guard lock(m_mutex);
    m_tables.push_back(made);
    if (m_tables.size() > kCachedTables)
        m_tables.erase(m_tables.begin());
    return made;
}

SoftwareProfile ComputeCache::software(const QString& id) {
    return cached(m_mutex, m_software, id,
                  [](const std::string& k) { return loadSoftwareProfile(k); });
}

void ComputeCache::forgetSoftware(const QString& id) {
    std::lock_guard lock(m_mutex);
    m_software.erase(toStd(id));
}

void ComputeCache::forgetHardware() {
    std::lock_guard lock(m_mutex);
    m_gpus.clear();
    m_systems.clear();
}

void applySettingsChoices(Scenario& s, const ScenarioSettings& settings) {
    s.batch_per_gpu = settings.batch;
    s.nodes = settings.nodes;
    s.gpus_per_node = settings.gpus_per_node;
    s.precision = requirePrecision(settings.precision.toStdString(), "precision");
    s.sync = requireSyncStrategy(
        settings.sync.isEmpty() ? s.software.default_sync : settings.sync.toStdString(), "sync");
    s.allreduce = requireAllreduceAlgorithm(settings.allreduce.toStdString(), "allreduce");
    s.overlap = settings.overlap;
    s.bucket_mb = settings.bucket_mb;
    s.layout = requireLayout(settings.layout.toStdString(), "layout");
    s.data = requireDataSource(settings.data.toStdString(), "data");
    s.parallel = requireParallelStrategy(settings.parallel.toStdString(), "parallel");
    s.pipeline_stages = settings.pipeline_stages;
    s.micro_batches = settings.micro_batches;
    s.schedule = requirePipelineSchedule(settings.schedule.toStdString(), "schedule");
}

Scenario buildScenario(const ScenarioSettings& settings, ComputeCache& cache) {
    Scenario s;
    s.network = cache.network(settings.network, settings.image);
    s.gpu = cache.gpu(settings.gpu);
    s.system = cache.system(settings.system);
    s.software = cache.software(settings.software);
    applySettingsChoices(s, settings);
    // One GPU exchanges nothing and has nothing to split or shard, whatever the platform
    // prefers and the strategy says.
    if (s.totalGpus() == 1) {
        s.sync = SyncStrategy::None;
        s.parallel = ParallelStrategy::Data;
    }
    return s;
}

std::shared_ptr<PredictionResult> computePrediction(const ScenarioSettings& settings,
                                                    ComputeCache& cache, quint64 id,
                                                    const TracePtr& trace) {
    QElapsedTimer timer;
    timer.start();
    auto result = std::make_shared<PredictionResult>();
    result->id = id;
    result->settings = settings;
    result->scenario = buildScenario(settings, cache);
    const Scenario& scenario = result->scenario;
    result->network = scenario.network;
    result->layer_names = cache.layerNames(scenario.network);
    result->warnings = scenarioWarnings(scenario);
    result->gpu = scenario.gpu;
    result->system = scenario.system;
    result->passes = cache.passTable(scenario);
    result->prediction = predict(scenario, *result->passes);
    result->band = errorBandFor(shippedErrorBands(), scenario);
    // The band is on throughput; the iteration time's bounds are its reciprocals.
    const Prediction& p = result->prediction;
    result->iteration_ms_low = p.iteration_ms / result->band.high;
    result->iteration_ms_high = p.iteration_ms / result->band.low;
    result->images_per_second_low = p.images_per_second * result->band.low;
    result->images_per_second_high = p.images_per_second * result->band.high;
    result->breakdown = iterationBreakdown(p);
    result->caveats = predictionWarnings(scenario, p);
    result->label = describeScenario(scenario, settings, &p);

    result->single_gpu_images_per_second = singleGpuRate(scenario, *result->passes, &cache);
    if (result->single_gpu_images_per_second > 0)
        result->scaling_efficiency = result->prediction.images_per_second /
                                     (scenario.totalGpus() * result->single_gpu_images_per_second);
    if (trace)
        result->trace = compareWithTrace(trace, scenario, settings);
    result->compute_ms = double(timer.nsecsElapsed()) / 1e6;
    return result;
}

namespace {
CurvePoint curvePoint(const Scenario& s, const Prediction& p, double x, double efficiency) {
    const ErrorBand band = errorBandFor(shippedErrorBands(), s);
    return {x,
            p.images_per_second,
            efficiency,
            p.fits_in_memory,
            p.images_per_second * band.low,
            p.images_per_second * band.high};
}
} // namespace

bool addScalingCurves(PredictionResult& result, const std::function<bool()>& cancelled,
                      ComputeCache* cache) {
    const Scenario& scenario = result.scenario;
    const ScenarioSettings& settings = result.settings;
    const auto tableOf = [cache](const Scenario& s) {
        return cache ? cache->passTable(s)
                     : std::make_shared<const LayerPassTable>(layerPassTable(s));
    };
    if (!result.passes)
        result.passes = tableOf(scenario);
    for (int gpus = 1; gpus <= ScenarioSettings::kMaxGpus; gpus *= 2) {
        const auto layout = layoutFor(gpus, scenario.system);
        if (!layout)
            break;
        if (cancelled())
            return false;
        Scenario s = scenario;
        s.nodes = layout->first;
        s.gpus_per_node = layout->second;
        fixSyncForCount(s, settings);
        const double base = result.single_gpu_images_per_second;
        if (gpus == 1) {
            // The point every efficiency is measured against; memory as one GPU alone has it.
            std::shared_ptr<const LayerPassTable> passes = result.passes;
            if (passes->batch != s.kernelBatch())
                passes = tableOf(s);
            const auto p = tryPredict(s, *passes);
            if (p && base > 0 && p->images_per_second > 0) {
                // The reference rate may come from another strategy's one-GPU run: the
                // band keeps its relative width around it.
                CurvePoint point = curvePoint(s, *p, 1.0, 1.0);
                const double scale = base / p->images_per_second;
                point.images_per_second = base;
                point.images_per_second_low *= scale;
                point.images_per_second_high *= scale;
                result.curves.by_gpus.push_back(point);
            }
            continue;
        }
        if (const auto p = tryPredict(s, *result.passes)) {
            result.curves.by_gpus.push_back(curvePoint(
                s, *p, double(gpus), base > 0 ? p->images_per_second / (gpus * base) : 0));
        }
    }
    for (int batch = 1; batch <= ScenarioSettings::kMaxBatch; batch *= 2) {
        if (cancelled())
            return false;
        Scenario s = scenario;
        s.batch_per_gpu = batch;
        std::shared_ptr<const LayerPassTable> passes;
        try {
            passes = tableOf(s);
        } catch (const InputError&) {
            continue; // a batch the model rejects is left out of the curve
        }
        const auto p = tryPredict(s, *passes);
        if (p) {
            // On one GPU the single-GPU point is the point itself.
            const double base =
                scenario.totalGpus() == 1 ? p->images_per_second : singleGpuRate(s, *passes, cache);
            result.curves.by_batch.push_back(
                curvePoint(s, *p, double(batch),
                           base > 0 ? p->images_per_second / (scenario.totalGpus() * base) : 0));
        }
    }
    return true;
}

ResultPtr computeResult(const ScenarioSettings& settings, ComputeCache& cache, quint64 id) {
    auto result = computePrediction(settings, cache, id);
    addScalingCurves(
        *result, [] { return false; }, &cache);
    return result;
}

Predictor::Predictor(QObject* parent)
    : QObject(parent) {
    // One worker: requests are coalesced, never run side by side.
    m_pool.setMaxThreadCount(1);
}

Predictor::~Predictor() {
    m_pending.reset();
    m_pool.waitForDone();
}

bool Predictor::needsLoad(const ScenarioSettings& settings) const {
    return !m_cache->hasNetwork(settings.network, settings.image);
}

quint64 Predictor::request(const ScenarioSettings& settings) {
    const bool was_busy = isBusy();
    m_latest = ++m_next;
    m_latest_shared.store(m_latest);
    m_pending = Job{m_latest, settings, m_trace};
    if (!m_running)
        startPending();
    if (!was_busy)
        emit busyChanged(true);
    return m_latest;
}

void Predictor::startPending() {
    if (!m_pending)
        return;
    Job job = std::move(*m_pending);
    m_pending.reset();
    m_running = true;
    auto cache = m_cache;
    m_pool.start([this, job = std::move(job), cache] {
        const auto stale = [this, id = job.id] { return m_latest_shared.load() != id; };
        ResultPtr result;
        QString error;
        try {
            QElapsedTimer since;
            since.start();
            auto prediction = computePrediction(job.settings, *cache, job.id, job.trace);
            result = prediction;
            // The prediction goes first (table, timeline and summary follow at once) if the
            // scaling curves, some twenty more predictions, take longer than a frame's part;
            // else both go together, and the window paints everything once instead of twice.
            bool sent = false;
            const auto send = [&] {
                if (sent)
                    return;
                sent = true;
                QMetaObject::invokeMethod(
                    this, [this, prediction] { onPrediction(prediction); }, Qt::QueuedConnection);
            };
            auto full = std::make_shared<PredictionResult>(*prediction);
            const auto stop = [&] {
                if (since.elapsed() >= kCurvesWithPredictionMs)
                    send();
                return stale();
            };
            if (!stale() && addScalingCurves(*full, stop, cache.get())) {
                result = full;
                if (!sent) {
                    sent = true;
                    QMetaObject::invokeMethod(
                        this, [this, full] { onPrediction(full); }, Qt::QueuedConnection);
                }
                QMetaObject::invokeMethod(
                    this, [this, full] { onCurves(full); }, Qt::QueuedConnection);
            } else {
                send();
            }
        } catch (const std::bad_alloc&) {
            error = QStringLiteral("out of memory");
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        // Results cross back as queued calls carrying immutable values.
        QMetaObject::invokeMethod(
            this,
            [this, id = job.id, settings = job.settings, ok = error.isEmpty(), error] {
                onJobDone(id, settings, ok, error);
            },
            Qt::QueuedConnection);
    });
}

void Predictor::onPrediction(const ResultPtr& result) {
    if (result->id == m_latest)
        emit finished(result);
}

void Predictor::onCurves(const ResultPtr& result) {
    if (result->id == m_latest)
        emit curvesReady(result);
}

void Predictor::onJobDone(quint64 id, const ScenarioSettings& settings, bool ok,
                          const QString& error) {
    // Still running while listeners hear of the failure: a request they make in answer
    // (the window falls back to the last good network) waits as pending, and busy stays
    // true until that one is done too.
    if (id == m_latest && !ok)
        emit failed(id, settings, error);
    m_running = false;
    if (m_pending)
        startPending();
    else
        emit busyChanged(false);
}

} // namespace iterscope::ui
