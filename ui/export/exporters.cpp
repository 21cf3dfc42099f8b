#include "export/exporters.h"

#include "layers/layer_table_model.h"

#include "io/trace_writer.h"

#include <QAbstractItemModel>
#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

#include <cmath>
#include <exception>
#include <functional>

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

QFont headingFont(const QWidget* widget) {
    QFont f = widget->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.3);
    return f;
}

int headingHeight(const QWidget* widget, const QString& heading) {
    if (heading.isEmpty())
        return 0;
    return QFontMetrics(headingFont(widget)).height() + 16;
}

// The heading band, the widget under it, then the caption band, at the painter's origin.
void renderWithCaption(QPainter& painter, QWidget* widget, const QString& caption,
                       const QString& heading = {}) {
    const int top = headingHeight(widget, heading);
    if (top > 0) {
        painter.save();
        painter.fillRect(QRect(0, 0, widget->width(), top),
                         widget->palette().color(QPalette::Window));
        painter.setFont(headingFont(widget));
        painter.setPen(widget->palette().color(QPalette::WindowText));
        painter.drawText(QRect(0, 0, widget->width(), top), Qt::AlignCenter, heading);
        painter.restore();
    }
    widget->render(&painter, QPoint(0, top), QRegion(), QWidget::DrawChildren);
    if (caption.isEmpty())
        return;
    const int band = captionHeight(widget, caption);
    const QRect rect(0, top + widget->height(), widget->width(), band);
    painter.save();
    painter.fillRect(rect, widget->palette().color(QPalette::Window));
    painter.setFont(widget->font());
    painter.setPen(widget->palette().color(QPalette::WindowText));
    painter.drawText(rect.adjusted(8, 0, -8, 0),
                     Qt::AlignVCenter | Qt::AlignLeft | Qt::TextWordWrap, caption);
    painter.restore();
}

QString csvValue(const QVariant& v) {
    if (v.typeId() == QMetaType::Double)
        return QString::number(v.toDouble(), 'g', 10);
    return csvField(v.toString());
}
} // namespace

int captionHeight(const QWidget* widget, const QString& caption) {
    if (caption.isEmpty())
        return 0;
    // Wrapped, not elided: a narrow chart keeps its whole scenario.
    const QRect text = widget->fontMetrics().boundingRect(
        QRect(0, 0, std::max(40, widget->width() - 16), 10000), Qt::TextWordWrap, caption);
    return text.height() + 12;
}

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
                  const QString& title, const QString& caption) {
    ExportOptions options;
    options.scale = scale;
    options.title = title;
    options.caption = caption;
    return exportWidget(widget, path, error, options);
}

bool exportWidget(QWidget* widget, const QString& path, QString* error,
                  const ExportOptions& options) {
    const QString format = imageFormatFor(path);
    if (format.isEmpty()) {
        fail(error, path, QStringLiteral("unknown image type (use .png, .svg or .pdf)"));
        return false;
    }
    const QString& title = options.title;
    const QString& caption = options.caption;
    QSize size = widget->size().expandedTo(QSize(1, 1));
    size.rheight() += captionHeight(widget, caption) + headingHeight(widget, options.heading);
    // Raster first: the PNG itself, or the picture a vector file holds in picture mode.
    QImage image;
    if (format == QLatin1String("png") || !options.vector) {
        const double s = std::clamp(options.scale, 0.25, 8.0);
        image =
            QImage(QSize(int(std::lround(size.width() * s)), int(std::lround(size.height() * s))),
                   QImage::Format_ARGB32_Premultiplied);
        if (image.isNull()) {
            fail(error, path, QStringLiteral("image too large"));
            return false;
        }
        // Above 1 the pixel ratio draws text and lines at the finer resolution; below 1 it
        // only cut the picture to its top-left part, so the painter scales instead.
        image.setDevicePixelRatio(std::max(1.0, s));
        image.fill(widget->palette().color(QPalette::Window));
        QPainter painter(&image);
        if (s < 1)
            painter.scale(s, s);
        renderWithCaption(painter, widget, caption, options.heading);
    }
    // What goes on an SVG or PDF page, in widget pixels.
    const auto paintPage = [&](QPainter& painter) {
        if (image.isNull())
            renderWithCaption(painter, widget, caption, options.heading);
        else
            painter.drawImage(QRectF(QPointF(), QSizeF(size)), image);
    };
    QByteArray bytes;
    if (format == QLatin1String("png")) {
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
        paintPage(painter);
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
        paintPage(painter);
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
    // Layers and the totals, as sorted and filtered; a module's rows are its layers'.
    const std::function<void(const QModelIndex&)> rows = [&](const QModelIndex& parent) {
        for (int r = 0; r < model.rowCount(parent); ++r) {
            const QModelIndex first = model.index(r, 0, parent);
            if (model.rowCount(first) > 0 || first.data(LayerTableModel::IsModuleRole).toBool()) {
                rows(first);
                continue;
            }
            fields.clear();
            for (int c = 0; c < columns; ++c)
                fields << csvValue(model.index(r, c, parent).data(LayerTableModel::ExportRole));
            out += fields.join(QLatin1Char(',')).toUtf8() + '\n';
        }
    };
    rows({});
    return writeFileAtomically(path, out, error);
}

bool exportTrace(const PredictionResult& result, const QString& path, QString* error) {
    try {
        const std::string json = chromeTraceJson(result.scenario, result.prediction);
        return writeFileAtomically(path, QByteArray::fromStdString(json), error);
    } catch (const std::exception& e) {
        fail(error, path, QString::fromStdString(e.what()));
        return false;
    }
}

} // namespace iterscope::ui
