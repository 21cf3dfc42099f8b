// Writing views to files for reports. Every path reports failure with a message naming
// the file; files are written through QSaveFile so a failed export leaves nothing half-done.
#pragma once

#include "predictor.h"

#include <QString>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QWidget;
QT_END_NAMESPACE

namespace iterscope::ui {

// "png", "svg" or "pdf" from the file's suffix; empty for anything else.
QString imageFormatFor(const QString& path);

// Renders a widget (chart view, timeline, the whole window) to PNG (at scale × its size in
// pixels), SVG or PDF (vector) by the suffix of path.
bool exportWidget(QWidget* widget, const QString& path, QString* error, double scale = 2.0,
                  const QString& title = {});

// Every row of the model (as sorted and filtered) with LayerTableModel::ExportRole values.
bool exportCsv(const QAbstractItemModel& model, const QString& path, QString* error);

// Chrome/Perfetto trace of the result's timeline (core/io/trace_writer.h).
bool exportTrace(const PredictionResult& result, const QString& path, QString* error);

// Writes bytes atomically.
bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error);

} // namespace iterscope::ui
