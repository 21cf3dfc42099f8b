// The Plan tab: every candidate of a training plan as time to train against cost (log axes,
// one colour per GPU, energy on hover), the Pareto front as a line, constraints and the
// training length as inputs. Clicking a point makes it the current scenario.
// The plan is computed when the tab is shown and its network, software or prices change;
// a constraint only re-selects and redraws (plan_model.h).
#pragma once

#include "plan_model.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QLineSeries;
class QLogValueAxis;
class QPushButton;
class QScatterSeries;
class QSpinBox;
QT_END_NAMESPACE

namespace iterscope::ui {

class PlanView : public QWidget {
    Q_OBJECT
  public:
    // Keeps its own cache of networks and profiles: a plan may still be computing when the
    // window's predictor goes.
    explicit PlanView(QWidget* parent = nullptr);
    ~PlanView() override;

    // The main window's current scenario: its network, software and image decide the plan;
    // its point is marked on the chart.
    void setScenario(const ScenarioSettings& settings);
    // A prices file replacing the shipped prices (empty: the shipped ones).
    void setPricesFile(const QString& path);
    // Computes now if the plan is stale, even when hidden (exports, tests).
    void ensurePlan();
    // Shows a plan computed elsewhere (computePlan(inputs(), ...): headless exports).
    void setPlan(PlanDataPtr plan) { onPlan(std::move(plan)); }
    const PlanInputs& inputs() const { return m_inputs; }
    bool isBusy() const { return m_runner->isBusy(); }

    PlanChoices choices() const;
    void setChoices(const PlanChoices& choices);

    const PlanDataPtr& plan() const { return m_plan; }
    const PlanChart& chartData() const { return m_chart; }
    QChartView* chartView() const { return m_view; }
    QLabel* summary() const { return m_summary; }
    // The scenario a candidate stands for (what a click on it chooses).
    ScenarioSettings scenarioForCandidate(std::size_t candidate) const;

  signals:
    void scenarioChosen(const iterscope::ui::ScenarioSettings& settings);
    // Emitted once the chart shows a new plan or new constraints.
    void redrawn();

  protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    void buildInputs();
    void buildChart();
    void layoutInputs(int columns);
    void requestIfStale();
    void onPlan(PlanDataPtr plan);
    void redraw();
    void updateSummary();
    void updateLegend();
    void applyTheme();
    std::optional<std::size_t> candidateAt(int series, const QPointF& point) const;
    void onHovered(int series, const QPointF& point, bool state);
    void onClicked(int series, const QPointF& point);

    PlanRunner* m_runner = nullptr;
    PlanInputs m_inputs;
    ScenarioSettings m_settings;
    PlanDataPtr m_plan;
    PlanChart m_chart;
    QString m_error;

    QSpinBox* m_epochs = nullptr;
    QSpinBox* m_images = nullptr;
    QSpinBox* m_max_gpus = nullptr;
    QSpinBox* m_max_batch = nullptr;
    QDoubleSpinBox* m_deadline = nullptr;
    QDoubleSpinBox* m_budget = nullptr;
    QPushButton* m_prices = nullptr;
    QGridLayout* m_grid = nullptr;
    std::vector<std::pair<QLabel*, QWidget*>> m_input_cells;
    int m_input_columns = 0;
    QLabel* m_legend = nullptr;
    QLabel* m_summary = nullptr;

    QChart* m_qchart = nullptr;
    QChartView* m_view = nullptr;
    QLogValueAxis* m_hours = nullptr;
    QLogValueAxis* m_usd = nullptr;
    std::vector<QScatterSeries*> m_gpu_series; // one per GPU of the plan, by GPU index
    std::vector<int> m_chart_series_of;        // m_gpu_series index -> m_chart.by_gpu index
    QScatterSeries* m_excluded = nullptr;
    QLineSeries* m_pareto = nullptr;
    QScatterSeries* m_pareto_points = nullptr;
    QScatterSeries* m_current = nullptr;
    QLineSeries* m_deadline_line = nullptr;
    QLineSeries* m_budget_line = nullptr;
};

} // namespace iterscope::ui
