#include "charts/curve_values.h"

#include "widgets/format.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLocale>
#include <QTableWidget>

namespace iterscope::ui {
namespace {
QString tr(const char* text) {
    return QCoreApplication::translate("CurveValues", text);
}
} // namespace

CurveValues curveValues(const ResultPtr& result, const QList<PinnedCurves>& pins, bool by_gpus) {
    CurveValues v;
    if (!result)
        return v;
    v.header = {by_gpus ? tr("GPUs") : tr("Batch per GPU"), tr("Current images/s"), tr("80 % band"),
                tr("Efficiency")};
    for (qsizetype i = 0; i < pins.size(); ++i)
        v.header << tr("Pin %1 images/s").arg(i + 1);
    const auto& points = by_gpus ? result->curves.by_gpus : result->curves.by_batch;
    for (std::size_t k = 0; k < points.size(); ++k) {
        const CurvePoint& p = points[k];
        QStringList row{QLocale().toString(p.x, 'f', 0),
                        formatRate(p.images_per_second) +
                            (p.fits_in_memory ? QString() : tr(" (does not fit)")),
                        p.images_per_second_low < p.images_per_second_high
                            ? QStringLiteral("%1 – %2").arg(formatRate(p.images_per_second_low),
                                                            formatRate(p.images_per_second_high))
                            : QStringLiteral("–"),
                        formatPercent(p.efficiency)};
        for (const PinnedCurves& pin : pins) {
            const auto& theirs = by_gpus ? pin.curves.by_gpus : pin.curves.by_batch;
            // Pins share the axis' points (1, 2, 4, ...): the same x, else none.
            QString cell = QStringLiteral("–");
            for (const CurvePoint& q : theirs)
                if (q.x == p.x)
                    cell = formatRate(q.images_per_second);
            row << cell;
        }
        v.rows.append(row);
    }
    return v;
}

void showCurveValues(QTableWidget* table, const CurveValues& values) {
    table->setColumnCount(static_cast<int>(values.header.size()));
    table->setRowCount(static_cast<int>(values.rows.size()));
    table->setHorizontalHeaderLabels(values.header);
    for (int r = 0; r < values.rows.size(); ++r)
        for (int c = 0; c < values.header.size(); ++c) {
            auto* item = new QTableWidgetItem(values.rows[r].value(c));
            item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table->setItem(r, c, item);
        }
    table->resizeColumnsToContents();
}

} // namespace iterscope::ui
