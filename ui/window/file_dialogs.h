// Save dialogs that always give a file its type. A name typed without a suffix ("compare")
// used to be written as is, and then neither opened nor showed in the Open dialog.
#pragma once

#include <QString>
#include <QStringList>

QT_BEGIN_NAMESPACE
class QWidget;
QT_END_NAMESPACE

namespace iterscope::ui {

// "PNG image (*.png)" -> {"png"}; "Networks (*.onnx *.json)" -> {"onnx", "json"}.
QStringList filterSuffixes(const QString& filter);

// The path as the user meant it: kept when its suffix is one that some offered filter
// stands for (a typed "chart.svg" with the PNG filter chosen is an SVG); otherwise the
// chosen filter's first suffix is added ("compare" -> "compare.iterscope",
// "run.v2" -> "run.v2.iterscope").
QString withFilterSuffix(const QString& path, const QStringList& filters,
                         const QString& selected_filter);

// A modal save dialog over `filters`, starting at `suggested` (a file name, or a path),
// whose answer goes through withFilterSuffix; asks before overwriting a file that only the
// added suffix names. Empty when cancelled.
QString askSaveFileName(QWidget* parent, const QString& title, const QString& suggested,
                        const QStringList& filters);

} // namespace iterscope::ui
