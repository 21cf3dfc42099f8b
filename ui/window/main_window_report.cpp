// File › Export Report: the window's session as one PDF or HTML report, drawn by ui/report/
// as `iterscope-cli report` draws it.
#include "window/main_window.h"

#include "charts/charts.h"
#include "planner/plan_view.h"
#include "report/report_data.h"
#include "report/report_writer.h"
#include "scenario/scenario_panel.h"
#include "window/file_dialogs.h"

#include <QApplication>
#include <QGuiApplication>
#include <QMessageBox>
#include <QStatusBar>

#include <exception>

namespace iterscope::ui {

bool MainWindow::exportReportTo(const QString& path, QString* error) {
    ReportRequest request;
    const Session s = session();
    request.current = s.current;
    request.pins = s.pinned;
    request.plan = s.plan;
    request.prices_file = m_plan->inputs().prices_file;
    request.measurements = m_charts->measurements();
    request.measurements_file = m_charts->measurementsFile();
    request.trace = m_predictor->trace();
    // Computed here, on the GUI thread: a report of a few pins takes well under a second
    // (bench_report), and a report of a half-edited scenario must not be written.
    QGuiApplication::setOverrideCursor(Qt::WaitCursor);
    bool ok = false;
    try {
        const ReportData report = gatherReport(request, m_predictor->cache());
        ok = writeReport(report, path, ReportPage::A4, error);
    } catch (const std::exception& e) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, QString::fromUtf8(e.what()));
    }
    QGuiApplication::restoreOverrideCursor();
    return ok;
}

void MainWindow::exportReport() {
    const QStringList filters{tr("PDF report (*.pdf)"), tr("HTML report, one page (*.html)")};
    const QString path = askSaveFileName(this, tr("Export report"),
                                         inLastDirectory(QStringLiteral("report.pdf")), filters);
    if (path.isEmpty())
        return;
    rememberDirectory(path);
    QString error;
    if (!exportReportTo(path, &error))
        QMessageBox::warning(this, tr("Export Report"), error);
    else
        statusBar()->showMessage(tr("Wrote the report %1").arg(path), 4000);
}

} // namespace iterscope::ui
