// Writes a report: a PDF paged for print with vector figures (QPdfWriter), or one HTML page
// with the figures as inline SVG (QSvgGenerator), both from one ReportDocument. Figures are
// the GUI's own views drawn at a fixed size in the light theme, whatever the window and its
// theme, so a report made at 1280×720 in the dark reads like one made at 1920×1080.
#pragma once

#include "report/report_document.h"

#include <QString>

#include <memory>

QT_BEGIN_NAMESPACE
class QWidget;
QT_END_NAMESPACE

namespace iterscope::ui {

enum class ReportPage { A4, Letter };

// "pdf" or "html" by the file's suffix (.pdf, .html, .htm); empty for anything else.
QString reportFormatFor(const QString& path);

// Writes through QSaveFile: a failed report leaves nothing half-written. On failure returns
// false with a one-line message naming the file. Needs a QApplication (the figures are
// widgets).
bool writeReport(const ReportData& data, const QString& path, ReportPage page, QString* error);

// A figure's view, filled, laid out and themed light at the report's drawing size; not
// shown on screen.
std::unique_ptr<QWidget> reportFigure(ReportFigure figure, const ReportData& data);

} // namespace iterscope::ui
