// MainWindow and what the user measured: a PyTorch profiler trace compared with every
// prediction (the summary's Measured line, the layer table's Measured column, the
// timeline's Measured rows), measurement rows drawn on the scaling charts, and software
// profiles fitted to the user's runs (`iterscope-cli fit`; docs/calibrating.md).
#include "window/main_window.h"

#include "charts/charts.h"
#include "scenario/scenario_panel.h"

#include "hardware/profile_loader.h"
#include "util/error.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

namespace iterscope::ui {
namespace {
struct TraceRead {
    TracePtr trace;
    QString error;
};
} // namespace

void MainWindow::askOpenTrace() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open profiler trace"), m_last_dir,
        tr("PyTorch profiler traces (*.json *.json.gz *.gz);;All files (*)"));
    if (!path.isEmpty()) {
        rememberDirectory(path);
        openTrace(path);
    }
}

void MainWindow::openTrace(const QString& path) {
    if (!m_reading_trace.isEmpty()) {
        statusBar()->showMessage(tr("Still reading %1").arg(QFileInfo(m_reading_trace).fileName()),
                                 4000);
        return;
    }
    m_banner->hide();
    m_reading_trace = path;
    statusBar()->showMessage(tr("Reading trace %1…").arg(QFileInfo(path).fileName()));
    // A trace of many steps is tens of megabytes: read off the GUI thread, so the window
    // stays live while it is.
    auto* watcher = new QFutureWatcher<TraceRead>(this);
    connect(watcher, &QFutureWatcher<TraceRead>::finished, this, [this, watcher, path] {
        const TraceRead read = watcher->result();
        watcher->deleteLater();
        onTraceRead(path, read.trace, read.error);
    });
    watcher->setFuture(QtConcurrent::run([path, current = m_panel->settings()] {
        TraceRead read;
        try {
            read.trace = ui::openTrace(path, current);
        } catch (const std::bad_alloc&) {
            read.error = QStringLiteral("%1: out of memory reading the trace").arg(path);
        } catch (const std::exception& e) {
            read.error = QString::fromUtf8(e.what());
        }
        return read;
    }));
}

void MainWindow::onTraceRead(const QString& path, TracePtr trace, const QString& error) {
    m_reading_trace.clear();
    if (!trace) {
        showBanner(error.isEmpty() ? tr("%1: could not be read").arg(path) : error);
        return;
    }
    m_predictor->setTrace(trace);
    action(QStringLiteral("actionCloseTrace"))->setEnabled(true);
    const auto& a = trace->analysis;
    statusBar()->showMessage(tr("Trace %1: %2, %3 step(s), batch %4 (%5)")
                                 .arg(QFileInfo(path).fileName(), trace->gpu_name)
                                 .arg(a.steps.size())
                                 .arg(trace->settings.batch)
                                 .arg(trace->batch_from),
                             10000);
    if (!trace->notes.isEmpty())
        m_banner->showMessage(trace->notes.join(QLatin1Char(' ')));
    // The traced scenario is one undo step; the comparison follows every later change.
    if (trace->settings == m_panel->settings())
        requestCurrent();
    else
        setScenario(trace->settings);
}

void MainWindow::closeTrace() {
    if (!m_predictor->trace())
        return;
    m_predictor->setTrace(nullptr);
    action(QStringLiteral("actionCloseTrace"))->setEnabled(false);
    requestCurrent();
}

void MainWindow::askOpenMeasurements() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open measurements"), m_last_dir, tr("Measurement tables (*.csv);;All files (*)"));
    if (path.isEmpty())
        return;
    rememberDirectory(path);
    QString error;
    if (!openMeasurements(path, &error))
        showBanner(error);
}

bool MainWindow::openMeasurements(const QString& path, QString* error) {
    std::vector<ValidationRow> rows;
    try {
        rows = readValidationCsv(path.toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    m_charts->setMeasurements(std::move(rows), QFileInfo(path).fileName());
    statusBar()->showMessage(
        tr("%1: %2 measurement(s); %3 of this scenario's network, GPU and precision")
            .arg(QFileInfo(path).fileName())
            .arg(m_charts->measurementCount())
            .arg(m_charts->measuredPointCount()),
        10000);
    return true;
}

void MainWindow::askOpenSoftwareProfile() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open software profile"), m_last_dir,
                                     tr("Software profiles (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    rememberDirectory(path);
    QString error;
    if (!openSoftwareProfile(path, &error))
        showBanner(error);
}

bool MainWindow::openSoftwareProfile(const QString& path, QString* error) {
    try {
        loadSoftwareProfile(path.toStdString()); // refused here, not on the next prediction
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    ScenarioSettings s = m_panel->settings();
    s.software = QFileInfo(path).absoluteFilePath();
    m_predictor->cache().forgetSoftware(s.software);
    setScenario(s);
    return true;
}

bool MainWindow::compareWithBaseSoftware(const QString& base) {
    if (!m_result || base.isEmpty())
        return false;
    // The same scenario on the profile the fit started from, pinned beside the fitted one.
    ScenarioSettings shipped = m_result->settings;
    shipped.software = base;
    try {
        const ResultPtr result = computeResult(shipped, m_predictor->cache());
        QList<PinnedCurves> pins = m_charts->pins();
        pins.append({shipped, result->curves, result->label});
        m_charts->setPins(pins);
    } catch (const std::exception& e) {
        showBanner(tr("The profile %1 was fitted from could not be compared: %2")
                       .arg(base, QString::fromStdString(e.what())));
        return false;
    }
    statusBar()->showMessage(tr("Pinned for comparison: the shipped %1 profile").arg(base), 4000);
    return true;
}

} // namespace iterscope::ui
