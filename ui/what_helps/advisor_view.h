// "What helps" (issue 32 item 2): the advisor's diagnosis of the current scenario and its
// suggestions as bars of speed-up with their band, the reason beside each; one click
// applies a suggestion (the window records it as one undo step). Beside it, the current
// scenario against each pin as a ratio of throughputs with its band (issue 31 item 3).
// The advice is computed off the GUI thread; the newest scenario's wins.
#pragma once

#include "advisor/advisor.h"
#include "advisor/comparison.h"
#include "charts/charts.h"
#include "prediction/predictor.h"

#include <QFutureWatcher>
#include <QWidget>

#include <memory>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QLabel;
class QPushButton;
class QTreeWidget;
QT_END_NAMESPACE

namespace iterscope::ui {

class AdvisorView : public QWidget {
    Q_OBJECT
  public:
    explicit AdvisorView(QWidget* parent = nullptr);
    ~AdvisorView() override;

    void setResult(ResultPtr result);
    void setPins(const QList<PinnedCurves>& pins);

    // For tests: the advice shown (null before the first), waiting for the newest.
    const Advice* advice() const { return m_advice.get(); }
    bool waitForAdvice(int timeout_ms);
    // Applies the suggestion in `row` of the list; false when it has no GUI control.
    bool applySuggestion(int row);
    // One line per pin: "1.13x the images/s of Pin 1 (band ...)".
    QStringList comparisonLines() const { return m_comparison_lines; }
    QTreeWidget* list() const { return m_list; }

  signals:
    // The scenario with a suggestion applied.
    void applyRequested(const iterscope::ui::ScenarioSettings& settings);
    void adviceShown();

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    void request();
    void show(quint64 id, std::shared_ptr<const Advice> advice);
    void updateComparisons();
    void updateApplyButton();

    ResultPtr m_result;
    QList<PinnedCurves> m_pins;
    quint64 m_latest = 0;
    quint64 m_shown = 0;
    std::shared_ptr<const Advice> m_advice;
    QStringList m_comparison_lines;
    QLabel* m_diagnosis = nullptr;
    QLabel* m_comparisons = nullptr;
    QTreeWidget* m_list = nullptr;
    QPushButton* m_apply = nullptr;
    QCheckBox* m_hardware = nullptr;
    QFutureWatcher<std::shared_ptr<const Advice>>* m_watcher = nullptr;
    bool m_running = false;
};

} // namespace iterscope::ui
