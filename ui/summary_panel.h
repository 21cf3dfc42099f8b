// The answer at a glance: iteration time, throughput, scaling efficiency, exposed
// communication and memory per GPU. Shows what the result says; derives nothing.
#pragma once

#include "predictor.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QGridLayout;
class QLabel;
QT_END_NAMESPACE

namespace iterscope::ui {

class SummaryPanel : public QWidget {
    Q_OBJECT
  public:
    explicit SummaryPanel(QWidget* parent = nullptr);

    void setResult(ResultPtr result);
    void setError(const QString& error);
    void setBusy(bool busy);
    // The value text of a figure by key ("iteration", "throughput", "efficiency",
    // "exposed", "memory", "fits", "max_batch"), for tests and the screenshot check.
    QString figure(const QString& key) const;

  signals:
    void updated();

  private:
    QLabel* addFigure(const QString& key, const QString& title, const QString& tip);

    QLabel* m_state = nullptr;
    QLabel* m_error = nullptr;
    QGridLayout* m_grid = nullptr;
    int m_rows = 0;
};

} // namespace iterscope::ui
