// MainWindow's files: networks and sessions opened by dialog, drag and drop or Open
// Recent; sessions saved; views, the layer table and the trace exported. Every save
// dialog gives the file the chosen type's suffix, and open tells a session by its content.
#include "window/main_window.h"

#include "charts/charts.h"
#include "charts/layer_chart.h"
#include "export/chart_exports.h"
#include "export/exporters.h"
#include "layers/layer_table_model.h"
#include "planner/plan_view.h"
#include "scenario/scenario_history.h"
#include "scenario/scenario_panel.h"
#include "session/session_profiles.h"
#include "timeline/timeline_view.h"
#include "window/file_dialogs.h"
#include "window/recent_files.h"

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

#include <algorithm>
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

// Where a dialog that looks for a moved file starts: the folder it was in, or the nearest
// folder above it that is still there (a moved file's neighbours are more often near
// where it was than near the session).
QString nearestExistingFolder(const QString& file) {
    QDir dir = QFileInfo(file).absoluteDir();
    while (!dir.exists() && !dir.isRoot())
        dir.setPath(QFileInfo(dir.absolutePath()).absolutePath());
    return dir.absolutePath();
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
    if (!QFileInfo::exists(absolute)) {
        // Open Recent keeps only files that open: one deleted or moved since goes.
        m_recent->remove(absolute);
        showBanner(tr("Could not open %1: it is no longer in %2")
                       .arg(QFileInfo(absolute).fileName(), QFileInfo(absolute).absolutePath()),
                   absolute);
        return;
    }
    if (isSessionFile(absolute)) {
        QString error;
        if (!openSession(absolute, &error)) {
            m_recent->remove(absolute);
            showBanner(error, absolute);
        }
        return;
    }
    m_pending.reset();
    m_waiting.reset();
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
    s.plan = m_plan->choices();
    return s;
}

bool MainWindow::applyPins(const QList<ScenarioSettings>& pinned) {
    // Pinned curves are recomputed: a session stores choices, never results.
    QList<PinnedCurves> pins;
    bool all = true;
    for (const auto& pin : pinned) {
        try {
            const ResultPtr result = computeResult(pin, m_predictor->cache());
            pins.append({pin, result->curves, result->label});
        } catch (const std::exception& e) {
            all = false;
            showBanner(tr("Pinned scenario %1 left out: %2")
                           .arg(pin.label(), QString::fromStdString(e.what())));
        }
    }
    m_charts->setPins(pins);
    return all;
}

void MainWindow::applySession(const Session& session) {
    applyPins(session.pinned);
    m_keep_filter = true; // the session's filter is for its network
    m_filter->setText(session.layer_filter);
    m_plan->setChoices(session.plan);
    setScenario(session.current);
}

bool MainWindow::openSession(const QString& path, QString* error) {
    auto session = loadSession(path, error);
    if (!session)
        return false;
    m_waiting.reset();
    const QStringList missing = session->missingNetworkFiles();
    if (!missing.isEmpty()) {
        m_waiting = SessionFile{path, *session};
        askAboutNetwork(missing.first(),
                        tr("it is no longer in %1").arg(QFileInfo(missing.first()).absolutePath()));
        return true;
    }
    if (const auto profile = missingProfile(*session)) {
        m_waiting = SessionFile{path, *session};
        askAboutProfile(*profile);
        return true;
    }
    startSession(path, *session);
    return true;
}

void MainWindow::startSession(const QString& path, const Session& session, bool altered) {
    m_banner->hide();
    m_last_error.clear();
    m_pending = SessionFile{path, session, altered};
    // Nothing changes on screen until the scenario is computed (finishSession), so a
    // session that does not open leaves the window as it was.
    m_predictor->request(session.current);
}

void MainWindow::finishSession() {
    const SessionFile file = std::move(*m_pending);
    m_pending.reset();
    const Session& s = file.session;
    if (m_has_current)
        m_history->record(m_current, s.current);
    m_current = s.current;
    m_has_current = true;
    m_panel->setSettings(s.current);
    m_keep_filter = true; // the session's filter is for its network
    m_filter->setText(s.layer_filter);
    m_plan->setChoices(s.plan);
    const bool whole = applyPins(s.pinned);
    if (!file.path.isEmpty())
        m_recent->add(file.path);
    // Only a session shown whole and as written is the window's file: Save must never write
    // back one that lost a pin or had its GPU replaced.
    const bool as_written = whole && !file.altered;
    m_session_path = as_written ? file.path : QString();
    m_session_origin = as_written ? QString() : file.path;
    markSessionClean();
    updateTitle();
}

void MainWindow::askAboutNetwork(const QString& network, const QString& why) {
    const bool last = m_waiting->path.isEmpty();
    const QString session = last ? tr("The last session") : QFileInfo(m_waiting->path).fileName();
    const QString name = QFileInfo(network).fileName();
    m_last_error = tr("%1 needs %2, which does not open: %3").arg(session, name, why);
    // The last session has no file to keep: the window shows the default network meanwhile
    // rather than an empty window that waits for a prediction that never comes.
    const QString meanwhile =
        last ? tr("Until you choose, the window shows %1.")
                   .arg(QFileInfo(m_has_good ? m_last_good.network : ScenarioSettings{}.network)
                            .fileName())
             : tr("The window and the session file stay as they are until you choose.");
    m_banner->showMessage(
        tr("<b>%1</b> needs <b>%2</b>, which does not open: %3. %4")
            .arg(session.toHtmlEscaped(), name.toHtmlEscaped(), why.toHtmlEscaped(),
                 meanwhile.toHtmlEscaped()),
        network,
        {{tr("&Locate %1…").arg(name),
          [this, network, name] {
              const QString start = QDir(nearestExistingFolder(network)).filePath(name);
              const QString file = QFileDialog::getOpenFileName(
                  this, tr("Locate %1").arg(name), start,
                  tr("Networks (*.onnx *.prototxt *.json);;All files (*)"));
              if (!m_waiting)
                  return;
              if (file.isEmpty())
                  askAboutNetwork(network, tr("not located"));
              else
                  locateWaitingNetwork(file);
          }},
         {last ? tr("&Choose Another Network…") : tr("Open &without it"), [this, last] {
              if (!last) {
                  openWaitingWithoutNetwork();
                  return;
              }
              const QString file = QFileDialog::getOpenFileName(
                  this, tr("Open network"), m_last_dir,
                  tr("Networks (*.onnx *.prototxt *.json);;All files (*)"));
              if (!file.isEmpty() && m_waiting) {
                  m_waiting.reset();
                  m_banner->hide();
                  openNetwork(file);
              }
          }}});
    statusBar()->showMessage(m_last_error, 8000);
    if (!m_has_current)
        setScenario(ScenarioSettings{});
}

void MainWindow::locateWaitingNetwork(const QString& file) {
    if (!m_waiting)
        return;
    SessionFile waiting = std::move(*m_waiting);
    m_waiting.reset();
    const QStringList missing = waiting.session.missingNetworkFiles();
    const QString broken = missing.isEmpty() ? waiting.session.current.network : missing.first();
    waiting.session.replaceNetwork(broken, QFileInfo(file).absoluteFilePath());
    m_waiting = std::move(waiting);
    resumeWaitingSession(m_waiting->altered);
}

void MainWindow::openWaitingWithoutNetwork() {
    if (!m_waiting)
        return;
    SessionFile waiting = std::move(*m_waiting);
    m_waiting.reset();
    Session& s = waiting.session;
    QStringList unusable = s.missingNetworkFiles();
    if (unusable.isEmpty())
        unusable.append(s.current.network); // present, but does not open
    const QString instead = m_has_good ? m_last_good.network : ScenarioSettings{}.network;
    if (unusable.contains(s.current.network))
        s.current.network = instead;
    s.pinned.erase(
        std::remove_if(s.pinned.begin(), s.pinned.end(),
                       [&](const ScenarioSettings& p) { return unusable.contains(p.network); }),
        s.pinned.end());
    m_banner->hide();
    applySession(s);
    // Not the file's contents any more: Save asks for a name rather than overwrite it.
    m_session_path.clear();
    m_session_origin = waiting.path;
    if (!waiting.path.isEmpty())
        m_recent->add(waiting.path);
    updateTitle();
    statusBar()->showMessage(
        tr("Opened %1 without %2; Save asks for a new name, so the file "
           "stays as it was")
            .arg(QFileInfo(waiting.path).fileName(), QFileInfo(unusable.first()).fileName()),
        8000);
}

bool MainWindow::saveSessionTo(const QString& path, QString* error) {
    if (!iterscope::ui::saveSession(path, session(), error))
        return false;
    m_session_path = path;
    m_session_origin.clear();
    m_recent->add(path);
    markSessionClean();
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

bool MainWindow::saveSession(bool ask) {
    QString path = m_session_path;
    if (ask || path.isEmpty()) {
        QString suggested = path;
        if (suggested.isEmpty() && !m_session_origin.isEmpty()) {
            // Beside the session it came from, never over it.
            const QFileInfo origin(m_session_origin);
            suggested = origin.dir().filePath(
                QStringLiteral("%1-2.%2").arg(origin.completeBaseName(), kSessionSuffix));
        }
        if (suggested.isEmpty())
            suggested = QStringLiteral("scenario.%1").arg(kSessionSuffix);
        path =
            askSaveFileName(this, tr("Save session"), inLastDirectory(suggested), sessionFilters());
        if (path.isEmpty())
            return false;
        rememberDirectory(path);
    }
    QString error;
    if (saveSessionTo(path, &error))
        return true;
    QMessageBox::warning(this, tr("Save session"), error);
    return false;
}

bool MainWindow::isSessionModified() const {
    // A window that is no file's has nothing to lose: its state is the last session, kept
    // in the settings for the next start. One that came from a file and cannot be written
    // back (opened without its network) is unsaved until it is saved under a name.
    if (!m_session_origin.isEmpty())
        return true;
    return !m_session_path.isEmpty() && m_clean_session && session() != *m_clean_session;
}

void MainWindow::markSessionClean() {
    m_clean_session = session();
    updateModified();
}

void MainWindow::updateModified() {
    setWindowModified(isSessionModified());
}

bool MainWindow::askToSaveBeforeClosing() {
    if (!isSessionModified())
        return true;
    const QString name =
        QFileInfo(m_session_path.isEmpty() ? m_session_origin : m_session_path).fileName();
    QMessageBox box(QMessageBox::Warning, tr("Iterscope"),
                    tr("Save the changes to %1 before closing?").arg(name),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("unsavedQuestion"));
    box.setInformativeText(m_session_path.isEmpty()
                               ? tr("It was opened without a part of it; Save asks for a new "
                                    "name, so the file stays as it was.")
                               : tr("Your changes are lost if you don't save them."));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        return saveSession(false);
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
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
    // Like a session file: a network file that moved, or a profile that went, asks (with
    // the default scenario on screen meanwhile); a network that is there but does not open
    // asks once the predictor has said so.
    m_waiting.reset();
    if (const QStringList missing = session->missingNetworkFiles(); !missing.isEmpty()) {
        m_waiting = SessionFile{QString(), *session};
        askAboutNetwork(missing.first(),
                        tr("it is no longer in %1").arg(QFileInfo(missing.first()).absolutePath()));
        return true;
    }
    if (const auto profile = missingProfile(*session)) {
        m_waiting = SessionFile{QString(), *session};
        askAboutProfile(*profile);
        if (!m_has_current)
            setScenario(ScenarioSettings{});
        return true;
    }
    startSession(QString(), *session);
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
    // A chart is exported as a stand-in drawn at a fixed size in the light theme, whatever
    // the window's size, theme or tab (chart_exports.h): at 1280×720 the window's own
    // chart cut its axis titles, and a dark window gave a report a white-on-white legend.
    std::unique_ptr<QWidget> stand_in;
    QString heading;
    std::optional<ExportChart> chart;
    if (qobject_cast<ScalingChartsView*>(view))
        chart = ExportChart::Scaling;
    else if (qobject_cast<LayerChartView*>(view))
        chart = ExportChart::Layers;
    else if (qobject_cast<TimelineView*>(view))
        chart = ExportChart::Timeline;
    if (chart) {
        ExportChartContent content;
        content.result = m_result;
        content.pins = m_charts->pins();
        content.measurements = m_charts->measurements();
        content.measurements_file = m_charts->measurementsFile();
        content.window = m_timeline->window();
        stand_in = chartForExport(*chart, content);
        heading = exportHeading(*chart);
        view = stand_in.get();
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
    options.title = m_result ? labelText(m_result->label) : QString();
    options.heading = heading;
    // A chart in a report names its scenario; the window has it in its title already.
    // The window is a picture even in SVG and PDF (ExportOptions::vector says why).
    if (view != this)
        options.caption = options.title;
    options.vector = view != this;
    QWidget* target = view;
    if (view == m_plan) {
        // The chart alone: a report has no use for the tab's spin boxes.
        target = m_plan->exportTarget();
        options.caption = m_plan->exportCaption();
    }
    return exportWidget(target, path, error, options);
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
