// The values the scaling charts plot, as a table a reader can copy from (issue 31: "a table
// of the plotted values under the chart on demand"): one row per GPU count or batch, the
// current scenario's images/s with its band and efficiency, then each pin's images/s.
#pragma once

#include "charts/charts.h"

#include <QStringList>

QT_BEGIN_NAMESPACE
class QTableWidget;
QT_END_NAMESPACE

namespace iterscope::ui {

struct CurveValues {
    QStringList header;
    QList<QStringList> rows;
};

// By GPU count (by_gpus) or by batch per GPU; empty without a result.
CurveValues curveValues(const ResultPtr& result, const QList<PinnedCurves>& pins, bool by_gpus);

// Fills a table widget with them, numbers right-aligned, read-only.
void showCurveValues(QTableWidget* table, const CurveValues& values);

} // namespace iterscope::ui
