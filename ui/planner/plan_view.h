// The Plan tab: every candidate of a training plan as time to train against cost (log axes,
// one colour per GPU, energy on hover), the Pareto front as a line, constraints and the
// training length as inputs. Clicking a point makes it the current scenario.
// The plan is computed when the tab is shown and its network, software or prices change;
// a constraint only re-selects and redraws (plan_model.h).
#pragma once

#include "planner/plan_model.h"
#include "planner/plan_points_item.h"

#include <QImage>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QBoxLayout;
class QChart;
class QChartView;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QLineSeries;
class QLogValueAxis;
class QPushButton;
class QSpinBox;
class QVBoxLayout;
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
    // What an export writes: the chart and its legend, without the inputs; and the caption
    // that says what the chart shows (training length, constraints, where prices are from).
    QWidget* exportTarget() const { return m_chart_box; }
    QString exportCaption() const;
    PlanPointsItem* points() const { return m_points; }
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
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void buildInputs();
    void buildChart();
    void layoutInputs(int columns);
    void requestIfStale();
    void onPlan(PlanDataPtr plan);
    void redraw();
    void updateSummary();
    void updateLegend();
    PlanPointsItem::Layer currentLayer() const;
    void updateCurrentMarker();
    void applyTheme();
    // The candidate under a point of the chart view's viewport, if any.
    std::optional<std::size_t> candidateUnder(const QPoint& viewport_position) const;

    PlanRunner* m_runner = nullptr;
    PlanInputs m_inputs;
    ScenarioSettings m_settings;
    PlanDataPtr m_plan;
    PlanChart m_chart;
    QString m_error;
    std::optional<std::size_t> m_hovered;
    bool m_marker_stale = false;

    QSpinBox* m_epochs = nullptr;
    QSpinBox* m_images = nullptr;
    QSpinBox* m_max_gpus = nullptr;
    QSpinBox* m_max_batch = nullptr;
    QDoubleSpinBox* m_deadline = nullptr;
    QDoubleSpinBox* m_budget = nullptr;
    QPushButton* m_prices = nullptr;
    QGridLayout* m_grid = nullptr;
    QBoxLayout* m_body = nullptr;
    QVBoxLayout* m_side = nullptr;
    QVBoxLayout* m_main = nullptr;
    QWidget* m_chart_box = nullptr;
    std::vector<std::pair<QLabel*, QWidget*>> m_input_cells;
    int m_input_columns = 0;
    QLabel* m_legend = nullptr;
    QLabel* m_summary = nullptr;

    QChart* m_qchart = nullptr;
    QChartView* m_view = nullptr;
    QLogValueAxis* m_hours = nullptr;
    QLogValueAxis* m_usd = nullptr;
    PlanPointsItem* m_points = nullptr;
    std::vector<int> m_gpu_colour;     // by GPU index: index into the palette, -1 without a price
    std::vector<QImage> m_gpu_markers; // by palette index
    QImage m_excluded_marker, m_front_marker, m_current_marker;
    QLineSeries* m_pareto = nullptr;
    QLineSeries* m_deadline_line = nullptr;
    QLineSeries* m_budget_line = nullptr;
};

} // namespace iterscope::ui
