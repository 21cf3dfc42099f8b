// The Plan tab's data: PlanRunner computes a plan (core plan(), every shipped GPU and
// system) off the GUI thread, latest request wins; planChart() turns a plan and the
// constraints into what the chart draws, without predicting anything, so a constraint
// change only re-selects and redraws.
#pragma once

#include "planner/plan_choices.h"
#include "prediction/predictor.h"

#include "plan/plan.h"

#include <QList>
#include <QObject>
#include <QPointF>
#include <QSize>
#include <QString>
#include <QThreadPool>

#include <memory>
#include <optional>
#include <vector>

namespace iterscope::ui {

// What a plan depends on besides the hardware: it is recomputed when one of these changes.
struct PlanInputs {
    QString network = QStringLiteral("resnet50");
    int image = 0;
    QString software = QStringLiteral("pytorch");
    QString prices_file; // empty: the shipped prices
    bool operator==(const PlanInputs&) const = default;
};

// A computed plan, immutable once made; shared between the worker and the view.
struct PlanData {
    PlanInputs inputs;
    PlanRequest request; // gpus and systems with the prices and power used
    std::vector<PlanPoint> candidates;
    double compute_ms = 0;
};
using PlanDataPtr = std::shared_ptr<const PlanData>;

// Computes synchronously (the worker's job, the chart renderer, tests). Throws InputError.
PlanDataPtr computePlan(const PlanInputs& inputs, ComputeCache& cache);

class PlanRunner : public QObject {
    Q_OBJECT
  public:
    explicit PlanRunner(std::shared_ptr<ComputeCache> cache, QObject* parent = nullptr);
    ~PlanRunner() override;

    void request(const PlanInputs& inputs);
    bool isBusy() const { return m_running || m_pending.has_value(); }

  signals:
    void finished(iterscope::ui::PlanDataPtr plan);
    void failed(const QString& error);
    void busyChanged(bool busy);

  private:
    void startPending();

    std::shared_ptr<ComputeCache> m_cache;
    QThreadPool m_pool;
    bool m_running = false;
    std::optional<PlanInputs> m_pending;
};

// Everything the chart draws, in hours and US dollars of the chosen training length.
struct PlanChart {
    struct Series {
        int gpu = 0; // index into the plan's request.gpus
        QList<QPointF> points;
        std::vector<std::size_t> candidates; // parallel to points
    };
    std::vector<Series> by_gpu; // priced candidates meeting the constraints, one per GPU
    QList<QPointF> excluded;    // priced candidates that do not meet them
    std::vector<std::size_t> excluded_candidates; // parallel to excluded
    QList<QPointF> pareto;                        // the front, by hours
    PlanSelection selection;                      // indices into the plan's candidates
    double scale = 1;                             // chosen training length over the plan's
    double min_hours = 1, max_hours = 10, min_usd = 1, max_usd = 10; // every priced candidate
    std::size_t unpriced_candidates = 0;
    std::vector<int> unpriced_gpus;
};

// Thins each series to one point per `cell` pixels of a plot `plot` pixels large (log axes),
// so that a plan of a hundred thousand candidates draws as fast as what the eye can tell
// apart; every candidate stays selectable through the point standing for its cell.
PlanChart planChart(const PlanData& plan, const PlanChoices& choices, QSize plot, int cell = 2);

// The candidate as hours, cost and energy of the chosen training length.
PlanPoint retimed(const PlanPoint& point, double scale);

// The scenario a candidate stands for, keeping the rest of `current` (allreduce, overlap, ...).
ScenarioSettings scenarioFor(const PlanData& plan, const PlanPoint& point,
                             const ScenarioSettings& current);
// The candidate `settings` describe, if the plan has it.
std::optional<std::size_t> candidateFor(const PlanData& plan, const ScenarioSettings& settings);

// The GPU as the legend and the one-line answers name it: its profile's name without a
// long aside in parentheses ("NVIDIA GB200"), else its id.
QString planProfileName(const GpuProfile& gpu);
// "NVIDIA H100 SXM5 80GB on NVIDIA DGX H100 · 4 × 8 GPUs · batch 256 (global 8,192) · amp ·
// allreduce-nccl", with time, cost and energy on a second line; rich text for tooltips.
QString describeCandidate(const PlanData& plan, const PlanPoint& point);
// One line, names shortened as planProfileName's: "H200 SXM 141GB on NVIDIA DGX H100, 16 × 8 GPUs,
// batch 64, amp: 0.0162 h, $66.29, 20 kWh".
QString shortCandidate(const PlanData& plan, const PlanPoint& point);

} // namespace iterscope::ui
