#include "planner/plan_model.h"

#include "plan/plan_inputs.h"
#include "util/error.h"

#include <QElapsedTimer>
#include <QLocale>
#include <QMetaObject>

#include <algorithm>
#include <cmath>
#include <exception>
#include <unordered_set>

namespace iterscope::ui {

PlanDataPtr computePlan(const PlanInputs& inputs, ComputeCache& cache) {
    QElapsedTimer clock;
    clock.start();
    auto data = std::make_shared<PlanData>();
    data->inputs = inputs;
    PlanRequest& r = data->request;
    r.network = cache.network(inputs.network, inputs.image);
    r.software = cache.software(inputs.software);
    PlanHardwareChoice choice;
    choice.prices_file = inputs.prices_file.toStdString();
    loadPlanHardware(choice, r);
    PlanResult result = plan(r);
    data->candidates = std::move(result.candidates);
    data->compute_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    return data;
}

PlanRunner::PlanRunner(std::shared_ptr<ComputeCache> cache, QObject* parent)
    : QObject(parent)
    , m_cache(std::move(cache)) {
    // One plan at a time: plan() itself uses every core.
    m_pool.setMaxThreadCount(1);
}

PlanRunner::~PlanRunner() {
    m_pool.waitForDone();
}

void PlanRunner::request(const PlanInputs& inputs) {
    const bool was_busy = isBusy();
    m_pending = inputs;
    if (!m_running)
        startPending();
    if (!was_busy)
        emit busyChanged(true);
}

void PlanRunner::startPending() {
    if (!m_pending)
        return;
    const PlanInputs inputs = *m_pending;
    m_pending.reset();
    m_running = true;
    auto cache = m_cache;
    m_pool.start([this, inputs, cache] {
        PlanDataPtr data;
        QString error;
        try {
            data = computePlan(inputs, *cache);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(this, [this, data, error] {
            m_running = false;
            // A newer request replaces this answer: only the latest is shown.
            if (!m_pending) {
                if (data)
                    emit finished(data);
                else
                    emit failed(error);
            }
            if (m_pending)
                startPending();
            else
                emit busyChanged(false);
        });
    });
}

PlanPoint retimed(const PlanPoint& point, double scale) {
    PlanPoint p = point;
    p.hours *= scale;
    if (p.cost_usd)
        *p.cost_usd *= scale;
    p.energy_kwh *= scale;
    return p;
}

PlanChart planChart(const PlanData& plan, const PlanChoices& choices, QSize plot, int cell) {
    PlanChart chart;
    const PlanRequest& r = plan.request;
    // Time, cost and energy are proportional to the training length, and so are the
    // deadline and the budget they are held to: selecting with the constraints scaled back
    // to the plan's length needs no new prediction.
    chart.scale =
        (static_cast<double>(choices.epochs) * static_cast<double>(choices.dataset_images)) /
        (static_cast<double>(r.epochs) * static_cast<double>(r.dataset_images));
    PlanConstraints c = choices.constraints;
    if (c.deadline_hours)
        *c.deadline_hours /= chart.scale;
    if (c.budget_usd)
        *c.budget_usd /= chart.scale;
    chart.selection = selectPlan(plan.candidates, c);

    // Axes span every priced candidate, so that they stay put while constraints change.
    double h0 = INFINITY, h1 = 0, u0 = INFINITY, u1 = 0;
    std::vector<bool> unpriced_gpu(r.gpus.size(), false);
    for (const PlanPoint& p : plan.candidates) {
        if (!p.cost_usd) {
            ++chart.unpriced_candidates;
            unpriced_gpu[static_cast<std::size_t>(p.gpu)] = true;
            continue;
        }
        h0 = std::min(h0, p.hours);
        h1 = std::max(h1, p.hours);
        u0 = std::min(u0, *p.cost_usd);
        u1 = std::max(u1, *p.cost_usd);
    }
    for (std::size_t g = 0; g < unpriced_gpu.size(); ++g)
        if (unpriced_gpu[g])
            chart.unpriced_gpus.push_back(static_cast<int>(g));
    if (!(h1 > 0))
        return chart;
    chart.min_hours = h0 * chart.scale;
    chart.max_hours = h1 * chart.scale;
    chart.min_usd = u0 * chart.scale;
    chart.max_usd = u1 * chart.scale;

    // Cells in log space: one point per cell and series is all the eye can tell apart.
    const double lh0 = std::log10(h0), lu0 = std::log10(u0);
    const double cells_x = std::max(1.0, plot.width() / double(std::max(cell, 1)));
    const double cells_y = std::max(1.0, plot.height() / double(std::max(cell, 1)));
    const double sx = cells_x / std::max(1e-9, std::log10(h1) - lh0);
    const double sy = cells_y / std::max(1e-9, std::log10(u1) - lu0);
    const auto cellOf = [&](int series, const PlanPoint& p) {
        const auto x = static_cast<int64_t>((std::log10(p.hours) - lh0) * sx);
        const auto y = static_cast<int64_t>((std::log10(*p.cost_usd) - lu0) * sy);
        return (static_cast<int64_t>(series) << 40) ^ (x << 20) ^ y;
    };

    std::vector<int> series_of_gpu(r.gpus.size(), -1);
    std::unordered_set<int64_t> taken;
    for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
        const PlanPoint& p = plan.candidates[i];
        if (!p.cost_usd)
            continue;
        const QPointF at(p.hours * chart.scale, *p.cost_usd * chart.scale);
        if (!meetsConstraints(p, c)) {
            if (taken.insert(cellOf(-1, p)).second) {
                chart.excluded.append(at);
                chart.excluded_candidates.push_back(i);
            }
            continue;
        }
        int& s = series_of_gpu[static_cast<std::size_t>(p.gpu)];
        if (s < 0) {
            s = static_cast<int>(chart.by_gpu.size());
            chart.by_gpu.push_back({p.gpu, {}, {}});
        }
        if (!taken.insert(cellOf(s, p)).second)
            continue;
        chart.by_gpu[static_cast<std::size_t>(s)].points.append(at);
        chart.by_gpu[static_cast<std::size_t>(s)].candidates.push_back(i);
    }
    std::sort(chart.by_gpu.begin(), chart.by_gpu.end(),
              [](const PlanChart::Series& a, const PlanChart::Series& b) { return a.gpu < b.gpu; });
    for (const std::size_t i : chart.selection.pareto) {
        const PlanPoint& p = plan.candidates[i];
        chart.pareto.append(QPointF(p.hours * chart.scale, *p.cost_usd * chart.scale));
    }
    return chart;
}

ScenarioSettings scenarioFor(const PlanData& plan, const PlanPoint& point,
                             const ScenarioSettings& current) {
    ScenarioSettings s = current;
    s.network = plan.inputs.network;
    s.image = plan.inputs.image;
    s.software = plan.inputs.software;
    s.gpu = QString::fromStdString(plan.request.gpus[static_cast<std::size_t>(point.gpu)].id);
    s.system =
        QString::fromStdString(plan.request.systems[static_cast<std::size_t>(point.system)].id);
    s.nodes = point.nodes;
    s.gpus_per_node = point.gpus_per_node;
    s.batch = static_cast<int>(point.batch_per_gpu);
    s.precision = QString::fromLatin1(precisionName(point.precision));
    s.sync = point.sync == SyncStrategy::None ? QString()
                                              : QString::fromLatin1(syncStrategyName(point.sync));
    s.parallel = QString::fromLatin1(parallelStrategyName(point.parallel));
    if (point.parallel == ParallelStrategy::Pipeline)
        s.pipeline_stages = point.pipeline_stages;
    return s;
}

std::optional<std::size_t> candidateFor(const PlanData& plan, const ScenarioSettings& settings) {
    const std::string gpu = settings.gpu.toStdString();
    const std::string system = settings.system.toStdString();
    const auto precision = parsePrecision(settings.precision.toStdString());
    std::optional<SyncStrategy> sync = parseSyncStrategy(
        (settings.sync.isEmpty() ? QString::fromStdString(plan.request.software.default_sync)
                                 : settings.sync)
            .toStdString());
    if (settings.totalGpus() == 1)
        sync = SyncStrategy::None;
    const std::optional<ParallelStrategy> parallel =
        parseParallelStrategy(settings.parallel.toStdString());
    for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
        const PlanPoint& p = plan.candidates[i];
        if (!parallel || p.parallel != *parallel ||
            (p.parallel == ParallelStrategy::Pipeline &&
             p.pipeline_stages != settings.pipeline_stages))
            continue;
        if (p.nodes == settings.nodes && p.gpus_per_node == settings.gpus_per_node &&
            p.batch_per_gpu == settings.batch && precision && p.precision == *precision && sync &&
            p.sync == *sync && plan.request.gpus[static_cast<std::size_t>(p.gpu)].id == gpu &&
            plan.request.systems[static_cast<std::size_t>(p.system)].id == system)
            return i;
    }
    return std::nullopt;
}

namespace {
QLocale numbers() {
    return QLocale(QLocale::English, QLocale::UnitedStates);
}
// Three significant digits below 100 h (0.0172, 1.54, 13.8), whole hours above.
QString hoursText(double hours) {
    return hours < 100 ? QString::number(hours, 'g', 3) : numbers().toString(hours, 'f', 0);
}
QString costText(const std::optional<double>& usd) {
    if (!usd)
        return QObject::tr("no price");
    return QStringLiteral("$%1").arg(numbers().toString(*usd, 'f', *usd < 100 ? 2 : 0));
}
// A profile by the name the scenario panel shows ("Tesla V100 SXM2 16GB"), its id only
// where it has none: ids are the CLI's and the session file's words, not a reader's.
template <typename Profile> QString profileName(const Profile& profile) {
    return QString::fromStdString(profile.name.empty() ? profile.id : profile.name);
}
// The same without a long aside in parentheses ("NVIDIA GB200 (Blackwell GPU of a GB200
// superchip, 186GB)" -> "NVIDIA GB200"), for the legend and the one-line answers, which a
// dozen GPUs share with the chart; a short one tells two parts apart ("Titan X (Pascal)")
// and stays. The tooltip has the whole name.
constexpr qsizetype kShortAside = 12;
template <typename Profile> QString shortProfileName(const Profile& profile) {
    QString name = profileName(profile);
    const qsizetype open = name.indexOf(QLatin1String(" ("));
    if (open > 0 && name.endsWith(QLatin1Char(')')) && name.size() - open - 3 > kShortAside)
        name.truncate(open);
    return name;
}
QString layoutText(const PlanPoint& p) {
    return QObject::tr("%1 × %2").arg(
        p.nodes == 1 ? QObject::tr("1 node") : QObject::tr("%1 nodes").arg(p.nodes),
        p.gpus_per_node == 1 ? QObject::tr("1 GPU") : QObject::tr("%1 GPUs").arg(p.gpus_per_node));
}
} // namespace

QString planProfileName(const GpuProfile& gpu) {
    return shortProfileName(gpu);
}

QString describeCandidate(const PlanData& plan, const PlanPoint& p) {
    const QLocale locale = numbers();
    const auto& gpu = plan.request.gpus[static_cast<std::size_t>(p.gpu)];
    const auto& system = plan.request.systems[static_cast<std::size_t>(p.system)];
    return QObject::tr("<b>%1</b> on <b>%2</b><br>%3 · batch %4 per GPU (global %5) · %6 · "
                       "%7<br>%8 h · %9 · %10 kWh · %11 images/s")
        .arg(profileName(gpu).toHtmlEscaped(), profileName(system).toHtmlEscaped(), layoutText(p))
        .arg(p.batch_per_gpu)
        .arg(locale.toString(static_cast<qlonglong>(p.globalBatch())))
        .arg(QString::fromLatin1(precisionName(p.precision)),
             QString::fromLatin1(syncStrategyName(p.sync)), hoursText(p.hours),
             costText(p.cost_usd), locale.toString(p.energy_kwh, 'f', p.energy_kwh < 10 ? 1 : 0),
             locale.toString(p.images_per_second, 'f', 0));
}

QString shortCandidate(const PlanData& plan, const PlanPoint& p) {
    const auto& gpu = plan.request.gpus[static_cast<std::size_t>(p.gpu)];
    const auto& system = plan.request.systems[static_cast<std::size_t>(p.system)];
    return QObject::tr("%1 on %2, %3, batch %4, %5: %6 h, %7, %8 kWh")
        .arg(shortProfileName(gpu), shortProfileName(system), layoutText(p))
        .arg(p.batch_per_gpu)
        .arg(QString::fromLatin1(precisionName(p.precision)), hoursText(p.hours),
             costText(p.cost_usd), numbers().toString(p.energy_kwh, 'f', p.energy_kwh < 10 ? 1 : 0))
        .toHtmlEscaped();
}

} // namespace iterscope::ui
