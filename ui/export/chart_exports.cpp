#include "export/chart_exports.h"

#include "charts/layer_chart.h"
#include "timeline/time_window.h"
#include "timeline/timeline_view.h"

#include <QApplication>
#include <QCoreApplication>
#include <QStyle>
#include <QStyleFactory>
#include <QToolButton>

namespace iterscope::ui {

QPalette exportPalette() {
    // Fusion's standard palette is light whatever the desktop's: files are read on paper
    // and in other people's documents.
    static const QPalette palette = [] {
        std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
        return fusion ? fusion->standardPalette() : QApplication::style()->standardPalette();
    }();
    return palette;
}

QString exportHeading(ExportChart kind) {
    return kind == ExportChart::Timeline
               ? QCoreApplication::translate("ChartExports", "Timeline of one iteration")
               : QString();
}

std::unique_ptr<QWidget> chartForExport(ExportChart kind, const ExportChartContent& content,
                                        QSize size) {
    std::unique_ptr<QWidget> widget;
    switch (kind) {
    case ExportChart::Scaling: {
        auto charts = std::make_unique<ScalingChartsView>();
        charts->setResult(content.result);
        charts->setPins(content.pins);
        if (!content.measurements.empty())
            charts->setMeasurements(content.measurements, content.measurements_file);
        charts->setTitlesForced(true);
        // A button has no place on paper; the report prints the values as a table.
        if (auto* values = charts->findChild<QToolButton*>(QStringLiteral("showValues")))
            values->hide();
        widget = std::move(charts);
        break;
    }
    case ExportChart::Layers: {
        auto layers = std::make_unique<LayerChartView>();
        layers->setResult(content.result);
        layers->setTitlesForced(true);
        widget = std::move(layers);
        break;
    }
    case ExportChart::Timeline: {
        auto timeline = std::make_unique<TimelineView>();
        timeline->setResult(content.result);
        size.setHeight(timeline->sizeHint().height()); // no empty band below the rows
        widget = std::move(timeline);
        break;
    }
    }
    widget->setPalette(exportPalette());
    widget->setAttribute(Qt::WA_DontShowOnScreen);
    widget->resize(size);
    widget->show();
    QCoreApplication::processEvents(); // lay the charts out at their size
    if (auto* timeline = qobject_cast<TimelineView*>(widget.get())) {
        timeline->resize(size.width(), timeline->sizeHint().height());
        if (content.window)
            timeline->setWindow(*content.window);
        QCoreApplication::processEvents();
    }
    return widget;
}

} // namespace iterscope::ui
