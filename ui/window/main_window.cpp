// MainWindow: construction, scenario changes with their undo history, results and theme.
// Layout, menus and files live in main_window_layout.cpp, main_window_actions.cpp and
// main_window_files.cpp.
#include "window/main_window.h"

#include "what_helps/advisor_view.h"

#include "charts/charts.h"
#include "charts/layer_chart.h"
#include "layers/layer_table_model.h"
#include "planner/plan_view.h"
#include "scenario/scenario_history.h"
#include "scenario/scenario_panel.h"
#include "summary/summary_panel.h"
#include "timeline/timeline_view.h"
#include "widgets/elided_label.h"
#include "window/recent_files.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QEventLoop>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QSlider>
#include <QSplitter>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTreeView>

#include <algorithm>
#include <cstdio>

// Resources of a static library are registered by hand, outside any namespace.
static void initIterscopeResources() {
#ifdef ITERSCOPE_HAS_RESOURCES
    Q_INIT_RESOURCE(iterscope);
#endif
}

namespace iterscope::ui {

void quietQtMessages() {
    // Headless runs promise one line on stderr for an error; Qt's platform chatter
    // ("XDG_RUNTIME_DIR not set", ...) would break that. Critical messages still pass.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& msg) {
        if (type == QtCriticalMsg || type == QtFatalMsg)
            std::fprintf(stderr, "%s\n", qPrintable(msg));
    });
}

namespace {
constexpr int kDefaultBusyDelayMs = 500; // progress appears only for loads users notice

QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b, 0x2b, 0x2e), base(0x1e, 0x1e, 0x20), text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x27, 0x27, 0x2a));
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xe6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Mid, QColor(0x55, 0x55, 0x5a));
    // Links in the summary's notes: Qt's default blue all but vanishes on this window.
    p.setColor(QPalette::Link, QColor(0x7c, 0xb7, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb9, 0x9c, 0xff));
    // Qt's default placeholder is the light theme's grey, nearly invisible on this base.
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0xa0));
    // Disabled text is dimmed well below the enabled text (0xe6) so that a greyed menu item
    // reads as greyed; Fusion draws a disabled menu item's text with the Disabled group's
    // Text/WindowText and its etched shadow with Light, which would otherwise stay the
    // light theme's white and make the item look enabled.
    const QColor disabled(0x6e, 0x6e, 0x74);
    for (const auto role : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText,
                            QPalette::HighlightedText, QPalette::PlaceholderText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Light, window);
    return p;
}

// "x.onnx: node 'a': bad" for path ".../x.onnx" -> "node 'a': bad": the banner names the
// file once.
QString withoutPath(const QString& error, const QString& path) {
    for (const QString& prefix : {path, QFileInfo(path).fileName()}) {
        const QString lead = prefix + QStringLiteral(": ");
        if (!prefix.isEmpty() && error.startsWith(lead))
            return error.mid(lead.size());
    }
    return error;
}
} // namespace

MainWindow::MainWindow(bool persistent, QWidget* parent)
    : QMainWindow(parent)
    , m_persistent(persistent) {
    initIterscopeResources();
    setObjectName(QStringLiteral("IterscopeMainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/iterscope.svg")));
    setAcceptDrops(true);
    m_default_palette = QApplication::palette();
    m_predictor = new Predictor(this);
    m_history = new ScenarioHistory(this);
    m_recent = new RecentFiles(persistent, this);
    createViews();
    createActions();

    m_busy_timer.setSingleShot(true);
    m_busy_timer.setInterval(kDefaultBusyDelayMs);
    connect(&m_busy_timer, &QTimer::timeout, this, &MainWindow::showBusyIndicator);
    connect(m_predictor, &Predictor::finished, this, &MainWindow::onFinished);
    connect(m_predictor, &Predictor::curvesReady, this, [this](ResultPtr full) {
        if (m_result && full->id == m_result->id)
            m_result = full; // the same prediction, now with its curves
        m_charts->setResult(std::move(full));
    });
    connect(m_predictor, &Predictor::failed, this,
            [this](quint64, const ScenarioSettings& s, const QString& e) { onFailed(s, e); });
    connect(m_predictor, &Predictor::busyChanged, this, &MainWindow::onBusyChanged);
    connect(m_panel, &ScenarioPanel::settingsChanged, this, &MainWindow::onPanelChanged);
    // showCaveats() holds the banner still while a slider is dragged; the drag's last result
    // gets it on release (the panel, connected first, has ended the drag by then).
    for (QSlider* slider : {m_panel->gpuCountSlider(), m_panel->batchSlider()})
        connect(slider, &QSlider::sliderReleased, this, [this] {
            if (m_result)
                showCaveats(*m_result);
        });
    connect(m_panel, &ScenarioPanel::refused, this,
            [this](const QString& message) { statusBar()->showMessage(message, 6000); });
    connect(m_history, &ScenarioHistory::apply, this, &MainWindow::showSettings);
    connect(m_recent, &RecentFiles::openRequested, this, &MainWindow::openFile);
    // What a session keeps besides the scenario (whose results update the title) marks the
    // window modified as soon as it changes.
    connect(m_charts, &ScalingChartsView::pinsChanged, this, &MainWindow::updateModified);
    connect(m_filter, &QLineEdit::textChanged, this, &MainWindow::updateModified);
    connect(m_plan, &PlanView::redrawn, this, &MainWindow::updateModified);

    resize(1600, 1000);
    if (m_persistent)
        restoreWindowState();
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::setDarkTheme(bool dark) {
    // Fusion follows the palette faithfully on every platform.
    if (dark)
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(dark ? darkPalette() : m_default_palette);
    if (m_dark_action && m_dark_action->isChecked() != dark)
        m_dark_action->setChecked(dark);
}

void MainWindow::setScenario(const ScenarioSettings& settings) {
    if (m_has_current)
        m_history->record(m_current, settings);
    showSettings(settings);
}

void MainWindow::onPanelChanged(const ScenarioSettings& settings) {
    m_pending.reset(); // a session being opened gives way to what the user does now
    m_history->record(m_current, settings, m_panel->activeDrag());
    m_current = settings;
    requestCurrent();
}

void MainWindow::showSettings(const ScenarioSettings& settings) {
    m_pending.reset(); // a session being opened gives way to what is asked now
    m_current = settings;
    m_has_current = true;
    m_panel->setSettings(settings);
    requestCurrent();
}

void MainWindow::requestCurrent() {
    m_predictor->request(m_panel->settings());
}

void MainWindow::onFinished(ResultPtr result) {
    if (m_pending && result->settings == m_pending->session.current)
        finishSession(); // shows the session's choices, which this result answers
    const bool new_network = !m_result || m_result->network != result->network;
    m_result = result;
    // The charts first when the curves came with the prediction: their scene's repaint is
    // queued, and queued before the other views' it joins their paint instead of making
    // another.
    if (!result->curves.by_gpus.empty() || !result->curves.by_batch.empty())
        m_charts->setResult(result);
    m_last_good = result->settings;
    m_has_good = true;
    if (!m_opening.isEmpty() && result->settings.network == m_opening) {
        m_recent->add(m_opening); // only files that opened go on the list
        m_opening.clear();
    }
    if (new_network && !m_keep_filter && !m_filter->text().isEmpty()) {
        // A filter typed for the last network's names rarely means anything in this one.
        statusBar()->showMessage(
            tr("Layer filter \"%1\" cleared for the new network").arg(m_filter->text()), 6000);
        m_filter->clear();
    }
    m_keep_filter = false;
    if (new_network)
        m_timeline->setSelectedLayer(-1); // an index into the last network's layers
    m_model->setResult(result);
    // The Measured column is there while a trace is open.
    const bool measured = result->trace != nullptr;
    if (m_table->isColumnHidden(LayerTableModel::Measured) == measured) {
        m_table->setColumnHidden(LayerTableModel::Measured, !measured);
        if (measured)
            m_table->resizeColumnToContents(LayerTableModel::Measured);
    }
    if (new_network && !m_filter->text().isEmpty())
        m_table->expandAll(); // what a kept filter matches may sit deep in a module
    // Once, and for each new network (its names need another width); never per slider
    // step, which would scan every row of the table.
    if (!m_columns_sized || new_network) {
        sizeLayerColumns(!m_columns_sized);
        m_columns_sized = true;
        // Whether hybrid applies depends on the network's layers, known once it loaded.
        m_panel->updateAvailability();
    }
    const qsizetype rows = m_timeline->rowLabels().size();
    m_timeline->setResult(result);
    if (m_timeline->rowLabels().size() != rows)
        fitTimelineHeight();
    m_layer_chart->setResult(result);
    m_advisor->setResult(result);
    m_summary->setResult(result);
    showCaveats(*result);
    m_plan->setScenario(result->settings);
    m_status->setText(tr("%1 layers · computed in %2 ms")
                          .arg(result->prediction.layers.size())
                          .arg(result->compute_ms, 0, 'f', 1));
    updateTitle();
    emit resultShown();
}

void MainWindow::onFailed(const ScenarioSettings& settings, const QString& error) {
    m_last_error = error;
    if (m_pending && settings == m_pending->session.current) {
        if (m_predictor->cache().hasNetwork(settings.network, settings.image)) {
            // The network opened and the model refuses the scenario: the session is shown
            // as it is, and the summary says why nothing is computed.
            finishSession();
        } else {
            // Its network did not open: nothing of the session was shown, and the window
            // keeps what it had until the user says what to do.
            m_waiting = std::move(m_pending);
            m_pending.reset();
            askAboutNetwork(m_waiting->session.current.network,
                            withoutPath(error, settings.network));
            return;
        }
    }
    if (!m_opening.isEmpty() && settings.network == m_opening) {
        m_recent->remove(m_opening);
        m_opening.clear();
    }
    if (m_has_good && settings.network != m_last_good.network) {
        // A network that does not open leaves the last good one in place, and leaves no
        // step in the undo history.
        const QString name = QFileInfo(settings.network).fileName();
        showBanner(tr("Could not open %1: %2").arg(name, withoutPath(error, settings.network)),
                   settings.network);
        m_last_error = tr("Could not open %1: %2").arg(settings.network, error);
        const ScenarioSettings* latest = m_history->latestAfter();
        if (latest && *latest == settings) {
            m_history->dropLatest(); // shows and computes the settings from before it
            return;
        }
        ScenarioSettings back = settings;
        back.network = m_last_good.network;
        showSettings(back);
        return;
    }
    m_summary->setError(error);
    emit resultShown();
}

void MainWindow::onBusyChanged(bool busy) {
    if (busy) {
        if (!m_busy_timer.isActive())
            m_busy_timer.start();
        return;
    }
    m_busy_timer.stop();
    m_progress->hide();
    m_summary->setBusy(false);
}

void MainWindow::showBusyIndicator() {
    if (!m_predictor->isBusy())
        return;
    m_progress->show();
    m_summary->setBusy(true);
    const auto settings = m_panel->settings();
    statusBar()->showMessage(m_predictor->needsLoad(settings)
                                 ? tr("Loading %1…").arg(QFileInfo(settings.network).fileName())
                                 : tr("Computing…"),
                             2000);
}

bool MainWindow::waitForResult(int timeout_ms) {
    if (m_predictor->isBusy()) {
        QEventLoop loop;
        connect(m_predictor, &Predictor::busyChanged, &loop, [&loop](bool busy) {
            if (!busy)
                loop.quit();
        });
        QTimer::singleShot(timeout_ms, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return !m_predictor->isBusy();
}

void MainWindow::showBanner(const QString& text, const QString& details) {
    m_last_error = text;
    m_banner->showMessage(text, details);
    statusBar()->showMessage(text, 8000);
}

void MainWindow::showCaveats(const PredictionResult& result) {
    QStringList lines;
    for (const ScenarioWarning& w : result.caveats)
        if (w.id == "unknown-ops" || w.id == "does-not-fit")
            lines << QString::fromStdString(w.text);
    const QString text = lines.join(QLatin1Char('\n'));
    // A banner that comes and goes while a slider is dragged (past the batch that fits and
    // back) would move every view under the pointer; the red figures say it meanwhile.
    if (m_panel->activeDrag() != 0)
        return;
    const bool ours = !m_banner->isHidden() && m_banner->text() == m_caveat_banner;
    if (!m_banner->isHidden() && !ours)
        return; // an error stands until the user acts on it
    if (text.isEmpty()) {
        if (ours)
            m_banner->hide();
        m_caveat_banner.clear();
        return;
    }
    // The same text again on every slider step would relayout the window for nothing.
    if (ours && text == m_caveat_banner)
        return;
    m_caveat_banner = text;
    m_banner->showMessage(text);
}

void MainWindow::updateTitle() {
    QString title = QStringLiteral("Iterscope");
    if (m_result)
        title = QStringLiteral("%1 — %2").arg(labelText(m_result->label), title);
    // Qt's [*] shows as "*" while the window is modified (setWindowModified), after the
    // session's name where a reader looks for it.
    if (!m_session_path.isEmpty())
        title = QStringLiteral("%1 [%2[*]]").arg(title, QFileInfo(m_session_path).fileName());
    else if (!m_session_origin.isEmpty())
        title = tr("%1 [from %2, not saved[*]]").arg(title, QFileInfo(m_session_origin).fileName());
    setWindowTitle(title);
    updateModified();
}

void MainWindow::fitTimelineHeight() {
    // Until the user drags the splitter, the timeline gets the height its rows read at (a
    // four-stage pipeline's twelve rows, say), up to half of the views', so a pipeline
    // needs no dragging to be read at 1280×720.
    if (m_timeline_sized_by_user || !m_vertical->isVisible())
        return;
    const QList<int> sizes = m_vertical->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    QWidget* box = m_vertical->widget(1);
    const int chrome = box->sizeHint().height() - m_timeline->sizeHint().height();
    const int wanted = std::clamp(m_timeline->sizeHint().height() + chrome,
                                  box->minimumSizeHint().height(), total / 2);
    m_vertical->setSizes({total - wanted, wanted});
}

void MainWindow::showForScreen() {
    const QScreen* where = screen();
    const bool small = where && (where->availableSize().width() < width() ||
                                 where->availableSize().height() < height());
    if (small && !m_geometry_restored) {
        // A laptop: all of the screen, nothing off its edges. Maximising is a request to the
        // window manager; without one (a bare X server, a kiosk) the size is what holds.
        resize(size().boundedTo(where->availableSize()));
        showMaximized();
    } else
        show();
}

void MainWindow::restoreWindowState() {
    QSettings settings;
    // Qt moves and shrinks a restored geometry onto the screen it finds now.
    m_geometry_restored = restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
    m_last_dir = settings.value(QStringLiteral("lastDirectory")).toString();
    restoreState(settings.value(QStringLiteral("windowState")).toByteArray());
    m_timeline_sized_by_user =
        m_vertical->restoreState(settings.value(QStringLiteral("verticalSplitter")).toByteArray());
    m_horizontal->restoreState(settings.value(QStringLiteral("horizontalSplitter")).toByteArray());
    const QByteArray columns = settings.value(QStringLiteral("layerColumns")).toByteArray();
    if (!columns.isEmpty() && m_table->header()->restoreState(columns))
        m_columns_sized = true;
    if (settings.value(QStringLiteral("darkTheme"), false).toBool())
        setDarkTheme(true);
}

void MainWindow::saveWindowState() const {
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("windowState"), saveState());
    settings.setValue(QStringLiteral("verticalSplitter"), m_vertical->saveState());
    settings.setValue(QStringLiteral("horizontalSplitter"), m_horizontal->saveState());
    settings.setValue(QStringLiteral("layerColumns"), m_table->header()->saveState());
    settings.setValue(QStringLiteral("darkTheme"), m_dark_action->isChecked());
    storeLastSession();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!askToSaveBeforeClosing()) {
        event->ignore();
        return;
    }
    if (m_persistent)
        saveWindowState();
    event->accept();
}

} // namespace iterscope::ui
