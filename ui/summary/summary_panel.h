// The answer at a glance: iteration time and throughput with their error band, scaling
// efficiency, where the iteration's time goes (lines that add up to it), memory per GPU,
// and the choices worth a second look. Shows what the result says; derives nothing.
//
// A strip above the views, in columns by width. Each figure is one line of fixed height,
// so nothing moves while a slider is dragged. The figures are one table in
// summary_panel.cpp (kFigures): adding a line is adding an entry there.
#pragma once

#include "prediction/predictor.h"

#include <QWidget>

#include <utility>
#include <vector>

QT_BEGIN_NAMESPACE
class QBoxLayout;
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
    // The model refused the newest choices: says why, and dims the figures, which are the
    // last result's and no longer the scenario's.
    void setError(const QString& error);
    void setBusy(bool busy);
    // The value text of a figure by key ("iteration", "throughput", "efficiency",
    // "measured" (while a trace is open), "passes", "exposed", "bubble", "straggler",
    // "input", "memory", "fits"), for tests and the
    // screenshot check.
    QString figure(const QString& key) const;
    // The lines that make up the iteration time, with the milliseconds each stands for;
    // they add up to the iteration time.
    std::vector<std::pair<QString, double>> breakdownLines() const;
    // Whether the figures shown belong to an older scenario than the one asked for.
    bool isStale() const { return m_stale; }
    // The label of the caveats, for tests (its links).
    QLabel* messagesLabel() const { return m_messages; }
    // The caveats shown under the figures (core/model/scenario_warnings.h), in order.
    QStringList warnings() const { return m_warning_texts; }
    // Memory per GPU by part, under the "memory" figure.
    MemoryBar* memoryBar() const { return m_memory_bar; }
    int columns() const { return m_columns; }

  signals:
    void updated();
    // The note of a profile fitted to the user's runs offers the profile it started from
    // as a comparison curve: its link was clicked.
    void compareWithBaseRequested(const QString& base_software);

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    struct Row {
        QString key;
        QLabel* name = nullptr;
        ElidedLabel* value = nullptr;
    };
    void arrange(int columns);
    void showMessages();
    void setStale(bool stale);

    std::vector<Row> m_rows;
    QBoxLayout* m_columns_layout = nullptr;
    std::vector<QGridLayout*> m_column_grids;
    int m_columns = 0;
    ElidedLabel* m_status = nullptr; // "Computing…"
    QLabel* m_messages = nullptr;    // the model's refusal, then the caveats
    MemoryBar* m_memory_bar = nullptr;
    ResultPtr m_result;
    QStringList m_warning_texts;
    QString m_error;
    QString m_shown_messages;
    bool m_stale = false;
    bool m_busy = false;
};

} // namespace iterscope::ui
