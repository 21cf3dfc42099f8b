#include "exporters.h"

#include "layer_table_model.h"

#include <QAbstractItemModel>
#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

#include <cmath>
#include <map>

namespace iterscope::ui {
namespace {
QString fail(QString* error, const QString& path, const QString& what) {
    if (error)
        *error = QStringLiteral("%1: %2").arg(path, what);
    return {};
}

QString csvField(QString text) {
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
        text.contains(QLatin1Char('\n'))) {
        text.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}

QString csvValue(const QVariant& v) {
    if (v.typeId() == QMetaType::Double)
        return QString::number(v.toDouble(), 'g', 10);
    return csvField(v.toString());
}
} // namespace

QString imageFormatFor(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png") || suffix == QLatin1String("svg") ||
        suffix == QLatin1String("pdf"))
        return suffix;
    return {};
}

bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        fail(error, path, file.errorString());
        return false;
    }
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        fail(error, path, file.errorString());
        return false;
    }
    return true;
}

bool exportWidget(QWidget* widget, const QString& path, QString* error, double scale,
                  const QString& title) {
    const QString format = imageFormatFor(path);
    if (format.isEmpty()) {
        fail(error, path, QStringLiteral("unknown image type (use .png, .svg or .pdf)"));
        return false;
    }
    const QSize size = widget->size().expandedTo(QSize(1, 1));
    QByteArray bytes;
    if (format == QLatin1String("png")) {
        const double s = std::clamp(scale, 0.25, 8.0);
        QImage image(QSize(int(std::lround(size.width() * s)), int(std::lround(size.height() * s))),
                     QImage::Format_ARGB32_Premultiplied);
        if (image.isNull()) {
            fail(error, path, QStringLiteral("image too large"));
            return false;
        }
        image.setDevicePixelRatio(s);
        image.fill(widget->palette().color(QPalette::Window));
        {
            QPainter painter(&image);
            widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
        }
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!image.save(&buffer, "PNG")) {
            fail(error, path, QStringLiteral("PNG encoding failed"));
            return false;
        }
    } else if (format == QLatin1String("svg")) {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(), size));
        svg.setTitle(title.isEmpty() ? QStringLiteral("Iterscope") : title);
        svg.setDescription(QStringLiteral("Exported by Iterscope"));
        QPainter painter;
        if (!painter.begin(&svg)) {
            fail(error, path, QStringLiteral("cannot start the SVG generator"));
            return false;
        }
        painter.fillRect(QRect(QPoint(), size), widget->palette().color(QPalette::Window));
        widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
        painter.end();
    } else {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter pdf(&buffer);
        pdf.setTitle(title.isEmpty() ? QStringLiteral("Iterscope") : title);
        pdf.setCreator(QStringLiteral("Iterscope"));
        pdf.setResolution(96);
        // One page the shape of the widget, in points (1/72 in) at 96 pixels per inch.
        pdf.setPageSize(QPageSize(QSizeF(size.width() * 72.0 / 96, size.height() * 72.0 / 96),
                                  QPageSize::Point, QString(), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter painter;
        if (!painter.begin(&pdf)) {
            fail(error, path, QStringLiteral("cannot start the PDF writer"));
            return false;
        }
        widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
        painter.end();
    }
    if (bytes.isEmpty()) {
        fail(error, path, QStringLiteral("nothing was rendered"));
        return false;
    }
    return writeFileAtomically(path, bytes, error);
}

bool exportCsv(const QAbstractItemModel& model, const QString& path, QString* error) {
    QByteArray out;
    const int columns = model.columnCount();
    QStringList fields;
    for (int c = 0; c < columns; ++c)
        fields << csvField(
            model.headerData(c, Qt::Horizontal, LayerTableModel::ExportRole).toString());
    out += fields.join(QLatin1Char(',')).toUtf8() + '\n';
    for (int r = 0; r < model.rowCount(); ++r) {
        fields.clear();
        for (int c = 0; c < columns; ++c)
            fields << csvValue(model.index(r, c).data(LayerTableModel::ExportRole));
        out += fields.join(QLatin1Char(',')).toUtf8() + '\n';
    }
    return writeFileAtomically(path, out, error);
}

namespace trace_keys {
// Chrome trace event format (catapult's "Trace Event Format" document).
constexpr auto kEvents = "traceEvents";
constexpr auto kPhase = "ph";
constexpr auto kTimestampUs = "ts";
constexpr auto kDurationUs = "dur";
constexpr auto kPid = "pid";
constexpr auto kTid = "tid";
constexpr auto kName = "name";
constexpr auto kCategory = "cat";
constexpr auto kArgs = "args";
} // namespace trace_keys

bool exportTrace(const Prediction& prediction, const QString& label, const QString& path,
                 QString* error) {
    using namespace trace_keys;
    QJsonArray events;
    const auto meta = [&](const char* name, int tid, const QJsonObject& args) {
        events.append(
            QJsonObject{{kPhase, "M"}, {kName, name}, {kPid, 0}, {kTid, tid}, {kArgs, args}});
    };
    meta("process_name", 0, {{"name", QStringLiteral("GPU 0 · %1").arg(label)}});
    // One thread per stream and lane, as Nsight Systems shows streams; overlapping
    // buckets sit on separate lanes so events on one thread nest.
    std::map<std::pair<int, int>, int> tids;
    for (const auto& e : prediction.timeline)
        tids.emplace(std::pair{static_cast<int>(e.stream), std::max(0, e.lane)}, 0);
    int next = 1;
    for (auto& [key, tid] : tids) {
        tid = next++;
        QString name = QString::fromLatin1(streamName(static_cast<Stream>(key.first)));
        if (key.second > 0)
            name += QStringLiteral(" %1").arg(key.second + 1);
        meta("thread_name", tid, {{"name", name}});
        meta("thread_sort_index", tid, {{"sort_index", tid}});
    }
    for (const auto& e : prediction.timeline) {
        QJsonObject args{{"stream", streamName(e.stream)}};
        if (e.layer >= 0)
            args.insert(QStringLiteral("layer"), static_cast<qint64>(e.layer));
        if (e.bucket >= 0)
            args.insert(QStringLiteral("bucket"), e.bucket);
        events.append(
            QJsonObject{{kPhase, "X"},
                        {kName, QString::fromStdString(e.name)},
                        {kCategory, streamName(e.stream)},
                        {kPid, 0},
                        {kTid, tids[std::pair{static_cast<int>(e.stream), std::max(0, e.lane)}]},
                        {kTimestampUs, e.start_ms * 1000},
                        {kDurationUs, e.duration_ms * 1000},
                        {kArgs, args}});
    }
    const QJsonObject root{{kEvents, events}, {"displayTimeUnit", "ms"}};
    return writeFileAtomically(path, QJsonDocument(root).toJson(QJsonDocument::Compact), error);
}

} // namespace iterscope::ui
