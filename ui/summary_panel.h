// The answer at a glance: iteration time, throughput, scaling efficiency, exposed
// communication and memory per GPU, and the choices worth a second look. Shows what the
// result says; derives nothing.
//
// Each figure is one line of fixed height, so nothing below moves while a slider is
// dragged. The figures are one table in summary_panel.cpp (kFigures): adding a line is
// adding an entry there.
#pragma once

#include "predictor.h"

#include <QWidget>

#include <vector>

QT_BEGIN_NAMESPACE
class QGridLayout;
class QLabel;
QT_END_NAMESPACE

namespace iterscope::ui {

class ElidedLabel;
class MemoryBar;

class SummaryPanel : public QWidget {
    Q_OBJECT
  public:
    explicit SummaryPanel(QWidget* parent = nullptr);

    void setResult(ResultPtr result);
    void setError(const QString& error);
    void setBusy(bool busy);
    // The value text of a figure by key ("iteration", "throughput", "efficiency", "passes",
    // "exposed", "memory", "fits", "max_batch"), for tests and the screenshot check.
    QString figure(const QString& key) const;
    // The caveats shown under the figures (core/model/scenario_warnings.h), in order.
    QStringList warnings() const { return m_warning_texts; }
    // Memory per GPU by part, under the "memory" figure.
    MemoryBar* memoryBar() const { return m_memory_bar; }

  signals:
    void updated();

  private:
    struct Row {
        QString key;
        ElidedLabel* value = nullptr;
    };
    void showWarnings(const std::vector<ScenarioWarning>& warnings);

    std::vector<Row> m_rows;
    QGridLayout* m_grid = nullptr;
    ElidedLabel* m_status = nullptr; // "Computing…" or the model's refusal
    QLabel* m_warnings = nullptr;
    MemoryBar* m_memory_bar = nullptr;
    QStringList m_warning_texts;
    bool m_has_error = false;
    bool m_busy = false;
};

} // namespace iterscope::ui
