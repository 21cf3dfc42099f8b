// MainWindow's files: networks and sessions opened by dialog, drag and drop or Open
// Recent; sessions saved; views, the layer table and the trace exported. Every save
// dialog gives the file the chosen type's suffix, and open tells a session by its content.
#include "main_window.h"

#include "plan_view.h"

#include "charts.h"
#include "exporters.h"
#include "file_dialogs.h"
#include "layer_chart.h"
#include "layer_table_model.h"
#include "plan_view.h"
#include "recent_files.h"
#include "scenario_panel.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QScopeGuard>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include <memory>

namespace iterscope::ui {
namespace {
const auto kSessionKey = QStringLiteral("lastSession");
const auto kSessionSuffix = QStringLiteral("iterscope");

QStringList sessionFilters() {
    return {MainWindow::tr("Iterscope sessions (*.iterscope)")};
}

QStringList imageFilters() {
    return {MainWindow::tr("PNG image (*.png)"), MainWindow::tr("SVG drawing (*.svg)"),
            MainWindow::tr("PDF document (*.pdf)")};
}

// A session by its suffix, or by its first bytes whatever its name: sessions saved
// without a suffix (before save dialogs added it) still open.
bool isSessionFile(const QString& path) {
    const QFileInfo info(path);
    if (info.suffix().compare(kSessionSuffix, Qt::CaseInsensitive) == 0)
        return true;
    const QString suffix = info.suffix().toLower();
    if (suffix == QLatin1String("onnx") || suffix == QLatin1String("prototxt"))
        return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    // Sessions are written with "format" as their first key.
    return file.read(256).contains("\"iterscope-session\"");
}
} // namespace

void MainWindow::askOpenFile() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open network or session"), m_last_dir,
        tr("Networks and sessions (*.onnx *.prototxt *.json *.iterscope);;ONNX models "
           "(*.onnx);;Caffe definitions (*.prototxt);;Iterscope networks (*.json);;"
           "Iterscope sessions (*.iterscope);;All files (*)"));
    if (!path.isEmpty()) {
        rememberDirectory(path);
        openFile(path);
    }
}

void MainWindow::rememberDirectory(const QString& path) {
    m_last_dir = QFileInfo(path).absolutePath();
    if (m_persistent)
        QSettings().setValue(QStringLiteral("lastDirectory"), m_last_dir);
}

QString MainWindow::inLastDirectory(const QString& name) const {
    // A suggestion that is a path already (the session's own file) stays where it is.
    if (m_last_dir.isEmpty() || QFileInfo(name).isAbsolute())
        return name;
    return QDir(m_last_dir).filePath(name);
}

void MainWindow::openNetwork(const QString& id_or_path) {
    m_banner->hide();
    m_last_error.clear();
    ScenarioSettings s = m_panel->settings();
    s.network = id_or_path;
    // A file goes on the recent list once it has opened (onFinished), not before.
    m_opening = QFileInfo(id_or_path).isFile() ? id_or_path : QString();
    setScenario(s);
}

void MainWindow::openFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (isSessionFile(absolute)) {
        QString error;
        if (!openSession(absolute, &error)) {
            m_recent->remove(absolute);
            showBanner(error, absolute);
        }
        return;
    }
    const QString suffix = QFileInfo(absolute).suffix().toLower();
    if (!networkFileSuffixes().contains(suffix)) {
        m_recent->remove(absolute);
        showBanner(tr("Could not open %1: not a network (.onnx, .prototxt, .json) or a "
                      "session (.iterscope)")
                       .arg(QFileInfo(absolute).fileName()),
                   absolute);
        return;
    }
    openNetwork(absolute);
}

Session MainWindow::session() const {
    Session s;
    s.current = m_panel->settings();
    for (const auto& pin : m_charts->pins())
        s.pinned.append(pin.settings);
    s.layer_filter = m_filter->text();
    return s;
}

void MainWindow::applySession(const Session& session) {
    // Pinned curves are recomputed: a session stores choices, never results.
    QList<PinnedCurves> pins;
    for (const auto& pin : session.pinned) {
        try {
            pins.append({pin, computeResult(pin, m_predictor->cache())->curves});
        } catch (const std::exception& e) {
            showBanner(tr("Pinned scenario %1 left out: %2")
                           .arg(pin.label(), QString::fromStdString(e.what())));
        }
    }
    m_charts->setPins(pins);
    m_filter->setText(session.layer_filter);
    setScenario(session.current);
}

bool MainWindow::openSession(const QString& path, QString* error) {
    auto session = loadSession(path, error);
    if (!session)
        return false;
    m_banner->hide();
    applySession(*session);
    m_session_path = path;
    m_recent->add(path);
    updateTitle();
    return true;
}

bool MainWindow::saveSessionTo(const QString& path, QString* error) {
    if (!iterscope::ui::saveSession(path, session(), error))
        return false;
    m_session_path = path;
    m_recent->add(path);
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

void MainWindow::saveSession(bool ask) {
    QString path = m_session_path;
    if (ask || path.isEmpty()) {
        const QString suggested =
            path.isEmpty() ? QStringLiteral("scenario.%1").arg(kSessionSuffix) : path;
        path =
            askSaveFileName(this, tr("Save session"), inLastDirectory(suggested), sessionFilters());
        if (path.isEmpty())
            return;
        rememberDirectory(path);
    }
    QString error;
    if (!saveSessionTo(path, &error))
        QMessageBox::warning(this, tr("Save session"), error);
}

bool MainWindow::restoreLastSession() {
    if (!m_persistent)
        return false;
    const auto json = QJsonDocument::fromJson(QSettings().value(kSessionKey).toByteArray());
    if (!json.isObject())
        return false;
    auto session = Session::fromJson(json.object(), nullptr);
    if (!session)
        return false;
    applySession(*session);
    return true;
}

void MainWindow::storeLastSession() const {
    QSettings().setValue(kSessionKey,
                         QJsonDocument(session().toJson()).toJson(QJsonDocument::Compact));
}

void MainWindow::exportView(QWidget* view, const QString& what) {
    QString suggested = what;
    suggested.replace(QLatin1Char(' '), QLatin1Char('-'));
    const QString path =
        askSaveFileName(this, tr("Export %1").arg(what),
                        inLastDirectory(suggested + QStringLiteral(".png")), imageFilters());
    if (path.isEmpty())
        return;
    rememberDirectory(path);
    QString error;
    if (!exportViewTo(view, path, &error))
        QMessageBox::warning(this, tr("Export"), error);
    else
        statusBar()->showMessage(tr("Exported %1").arg(path), 4000);
}

bool MainWindow::exportViewTo(QWidget* view, const QString& path, QString* error) {
    // A chart on the hidden tab is exported as it would show, at the visible tab's size,
    // without switching to it: a stand-in of it is laid out off screen and exported
    // instead (a hidden page of a tab widget is neither sized nor laid out).
    std::unique_ptr<QWidget> stand_in;
    if (m_view_tabs->indexOf(view) >= 0 && view != m_view_tabs->currentWidget()) {
        if (qobject_cast<LayerChartView*>(view)) {
            auto chart = std::make_unique<LayerChartView>();
            chart->setResult(m_result);
            stand_in = std::move(chart);
        } else if (qobject_cast<ScalingChartsView*>(view)) {
            auto charts = std::make_unique<ScalingChartsView>();
            charts->setResult(m_result);
            charts->setPins(m_charts->pins());
            stand_in = std::move(charts);
        }
        if (stand_in) {
            stand_in->setAttribute(Qt::WA_DontShowOnScreen);
            stand_in->resize(m_view_tabs->currentWidget()->size());
            stand_in->show();
            QCoreApplication::processEvents(); // lay the charts out
            view = stand_in.get();
        }
    }
    // The plan's scatter is laid out only while its tab shows: bring it forward for the
    // export and put the user's tab back after.
    QWidget* shown = m_view_tabs->currentWidget();
    QWidget* plan_page = m_view_tabs->findChild<QWidget*>(QStringLiteral("planPage"));
    const bool swap = view == m_plan && plan_page && shown != plan_page;
    if (swap) {
        m_view_tabs->setCurrentWidget(plan_page);
        QCoreApplication::processEvents();
    }
    const auto restore = qScopeGuard([&] {
        if (swap)
            m_view_tabs->setCurrentWidget(shown);
    });
    ExportOptions options;
    options.title = m_result ? m_result->settings.label() : QString();
    // A chart in a report names its scenario; the window has it in its title already.
    // The window is a picture even in SVG and PDF (ExportOptions::vector says why).
    if (view != this)
        options.caption = options.title;
    options.vector = view != this;
    return exportWidget(view, path, error, options);
}

void MainWindow::exportCsvFile() {
    const QString path =
        askSaveFileName(this, tr("Export layer table"),
                        inLastDirectory(QStringLiteral("layers.csv")), {tr("CSV (*.csv)")});
    if (path.isEmpty())
        return;
    rememberDirectory(path);
    QString error;
    if (!path.isEmpty() && !exportCsv(*m_proxy, path, &error))
        QMessageBox::warning(this, tr("Export"), error);
}

void MainWindow::exportTraceFile() {
    if (!m_result)
        return;
    const QString path = askSaveFileName(this, tr("Export trace"),
                                         inLastDirectory(QStringLiteral("iteration.trace.json")),
                                         {tr("Chrome/Perfetto trace (*.json)")});
    if (path.isEmpty())
        return;
    rememberDirectory(path);
    QString error;
    if (!path.isEmpty() && !exportTrace(*m_result, path, &error))
        QMessageBox::warning(this, tr("Export"), error);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile()) {
        const QString path = urls.first().toLocalFile();
        const QString suffix = QFileInfo(path).suffix().toLower();
        if (networkFileSuffixes().contains(suffix) || isSessionFile(path))
            event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        openFile(urls.first().toLocalFile());
        event->acceptProposedAction();
    }
}

} // namespace iterscope::ui
