// The charts as a file or a report shows them: a fresh view of the same kind, filled with
// what the window's view shows, laid out off screen at a fixed size and in the light
// theme. An export made in a small or dark window used to be drawn at the window's size
// and colours: titles cut to "k i…", a white legend on a dark page.
#pragma once

#include "charts/charts.h"
#include "prediction/predictor.h"
#include "timeline/time_window.h"

#include "validation/validation.h"

#include <QList>
#include <QPalette>
#include <QSize>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QWidget;
QT_END_NAMESPACE

namespace iterscope::ui {

// What File › Export and export-chart draw a chart at, in widget pixels, whatever the
// window (a timeline: this wide, as tall as its rows).
inline constexpr QSize kChartExportSize{1600, 1000};

enum class ExportChart { Scaling, Layers, Timeline };

struct ExportChartContent {
    ResultPtr result;
    QList<PinnedCurves> pins;                // scaling only
    std::vector<ValidationRow> measurements; // scaling only
    QString measurements_file;
    std::optional<TimeWindow> window; // timeline only: the part shown; none: all of it
};

// The chart laid out at `size` (a timeline: size.width() wide, as tall as it needs), titles
// whole, light, not shown on screen.
std::unique_ptr<QWidget> chartForExport(ExportChart kind, const ExportChartContent& content,
                                        QSize size = kChartExportSize);

// The light palette exports and reports draw in, whatever the desktop's.
QPalette exportPalette();

// A title for the top of an exported chart that has none of its own (the timeline).
QString exportHeading(ExportChart kind);

} // namespace iterscope::ui
