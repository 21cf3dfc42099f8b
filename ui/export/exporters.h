// Writing views to files for reports. Every path reports failure with a message naming
// the file; files are written through QSaveFile so a failed export leaves nothing half-done.
#pragma once

#include "prediction/predictor.h"

#include <QString>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QWidget;
QT_END_NAMESPACE

namespace iterscope::ui {

// "png", "svg" or "pdf" from the file's suffix; empty for anything else.
QString imageFormatFor(const QString& path);

// Renders a widget (chart view, timeline, the whole window) to PNG (at scale × its size in
// pixels), SVG or PDF (vector) by the suffix of path. `title` goes into the file's metadata;
// a non-empty `caption` (the scenario, for a chart in a report) is drawn in a band below the
// widget, so the picture says what it shows wherever it ends up.
bool exportWidget(QWidget* widget, const QString& path, QString* error, double scale = 2.0,
                  const QString& title = {}, const QString& caption = {});

struct ExportOptions {
    double scale = 2.0; // PNG pixels per widget pixel
    QString title;      // the file's metadata
    QString caption;    // drawn in a band below the widget when not empty
    QString heading;    // drawn in bold in a band above the widget when not empty
    // SVG and PDF as vector drawings. False: they hold a picture at `scale` instead. For
    // whole windows: Qt's vector engines do not keep a widget's painting inside it (a
    // table's cells spilled over the charts beside it), a picture always looks as shown.
    bool vector = true;
};
bool exportWidget(QWidget* widget, const QString& path, QString* error,
                  const ExportOptions& options);

// The height of the caption band exportWidget adds under `widget` (0 for no caption), in
// widget pixels: the caption wraps to the widget's width.
int captionHeight(const QWidget* widget, const QString& caption);

// Every row of the model (as sorted and filtered) with LayerTableModel::ExportRole values.
bool exportCsv(const QAbstractItemModel& model, const QString& path, QString* error);

// Chrome/Perfetto trace of the result's timeline (core/io/trace_writer.h).
bool exportTrace(const PredictionResult& result, const QString& path, QString* error);

// Writes bytes atomically.
bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error);

} // namespace iterscope::ui
