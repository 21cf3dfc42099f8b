#include "main_window.h"

#include "charts.h"
#include "exporters.h"
#include "layer_table_model.h"
#include "plain_text_delegate.h"
#include "scenario_panel.h"
#include "summary_panel.h"
#include "timeline_view.h"

#include "network/zoo.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include <cstdio>

#ifndef ITERSCOPE_VERSION
#define ITERSCOPE_VERSION "0"
#endif

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
constexpr int kMaxRecent = 8;
constexpr int kDefaultBusyDelayMs = 500; // progress appears only for loads users notice
const auto kRecentKey = QStringLiteral("recentFiles");
const auto kSessionKey = QStringLiteral("lastSession");

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
    // Qt's default placeholder is the light theme's grey, nearly invisible on this base.
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0xa0));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x90, 0x90, 0x96));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x90, 0x90, 0x96));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x90, 0x90, 0x96));
    return p;
}

bool isSessionFile(const QString& path) {
    return QFileInfo(path).suffix().compare(QLatin1String("iterscope"), Qt::CaseInsensitive) == 0;
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
    connect(m_panel, &ScenarioPanel::settingsChanged, this, [this] { requestCurrent(); });

    resize(1600, 1000);
    if (m_persistent) {
        QSettings settings;
        restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
        restoreState(settings.value(QStringLiteral("windowState")).toByteArray());
        m_vertical->restoreState(settings.value(QStringLiteral("verticalSplitter")).toByteArray());
        m_horizontal->restoreState(
            settings.value(QStringLiteral("horizontalSplitter")).toByteArray());
        if (settings.value(QStringLiteral("darkTheme"), false).toBool())
            setDarkTheme(true);
    }
    rebuildRecentMenu();
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::createViews() {
    // Left: the answer on top, the questions below it.
    auto* side = new QWidget;
    auto* side_layout = new QVBoxLayout(side);
    auto* summary_box = new QGroupBox(tr("Prediction"), side);
    m_summary = new SummaryPanel(summary_box);
    (new QVBoxLayout(summary_box))->addWidget(m_summary);
    auto* scenario_box = new QGroupBox(tr("Scenario"), side);
    m_panel = new ScenarioPanel(m_predictor->cache(), scenario_box);
    (new QVBoxLayout(scenario_box))->addWidget(m_panel);
    side_layout->addWidget(summary_box);
    side_layout->addWidget(scenario_box);
    side_layout->addStretch();
    auto* scroll = new QScrollArea;
    scroll->setWidget(side);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(side->minimumSizeHint().width() +
                            scroll->verticalScrollBar()->sizeHint().width() + 4);
    auto* dock = new QDockWidget(tr("Scenario and prediction"), this);
    dock->setObjectName(QStringLiteral("scenarioDock"));
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    dock->setWidget(scroll);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    // Enough for the controls; the rest goes to the table, charts and timeline.
    resizeDocks({dock}, {420}, Qt::Horizontal);

    // Layer table with its filter.
    m_model = new LayerTableModel(this);
    m_proxy = new LayerFilterModel(this);
    m_proxy->setSourceModel(m_model);
    auto* table_box = new QWidget;
    auto* table_layout = new QVBoxLayout(table_box);
    table_layout->setContentsMargins(0, 0, 0, 0);
    m_filter = new QLineEdit(table_box);
    m_filter->setPlaceholderText(tr("Filter layers by name, type or bound (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setToolTip(tr("Shows the layers whose name, type or bound contains this text"));
    m_table = new QTreeView(table_box);
    m_table->setRootIsDecorated(false);
    m_table->setUniformRowHeights(true);
    m_table->setAlternatingRowColors(true);
    m_table->setSortingEnabled(true);
    m_table->setModel(m_proxy);
    m_table->setItemDelegate(new PlainTextDelegate(m_table));
    m_table->sortByColumn(-1, Qt::AscendingOrder); // network order until the user sorts
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->header()->setStretchLastSection(false);
    m_table->header()->setSectionResizeMode(QHeaderView::Interactive);
    // Always show the scroll bar, otherwise the columns jump when filtering.
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    table_layout->addWidget(m_filter);
    table_layout->addWidget(m_table);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);

    m_timeline = new TimelineView;
    m_charts = new ScalingChartsView;
    m_layer_chart = new LayerChartView;
    m_chart_tabs = new QTabWidget;
    m_chart_tabs->addTab(m_charts, tr("Scaling curves"));
    m_chart_tabs->addTab(m_layer_chart, tr("Costliest layers"));

    m_horizontal = new QSplitter(Qt::Horizontal);
    m_horizontal->setObjectName(QStringLiteral("horizontalSplitter"));
    m_horizontal->addWidget(table_box);
    m_horizontal->addWidget(m_chart_tabs);
    m_horizontal->setStretchFactor(0, 3);
    m_horizontal->setStretchFactor(1, 2);
    m_horizontal->setSizes({690, 460});
    m_vertical = new QSplitter(Qt::Vertical);
    m_vertical->setObjectName(QStringLiteral("verticalSplitter"));
    m_vertical->addWidget(m_horizontal);
    auto* timeline_box =
        new QGroupBox(tr("Timeline of one iteration (one GPU; wheel zooms, drag pans, "
                         "double-click fits)"));
    (new QVBoxLayout(timeline_box))->addWidget(m_timeline);
    m_vertical->addWidget(timeline_box);
    m_vertical->setStretchFactor(0, 3);
    m_vertical->setStretchFactor(1, 2);

    auto* central = new QWidget;
    auto* central_layout = new QVBoxLayout(central);
    central_layout->setContentsMargins(4, 4, 4, 4);
    m_banner = new QLabel(central);
    m_banner->setObjectName(QStringLiteral("errorBanner"));
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral("QLabel { background: #f8d7da; color: #58151c; "
                                           "padding: 6px; border-radius: 3px; }"));
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->hide();
    central_layout->addWidget(m_banner);
    central_layout->addWidget(m_vertical, 1);
    setCentralWidget(central);

    // Selection goes both ways between the table and the timeline.
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const long layer =
                    current.isValid() ? static_cast<long>(current.siblingAtColumn(0)
                                                              .data(LayerTableModel::LayerIndexRole)
                                                              .toLongLong())
                                      : -1;
                m_timeline->setSelectedLayer(layer);
            });
    connect(m_timeline, &TimelineView::layerClicked, this, &MainWindow::syncTableSelection);

    m_progress = new QProgressBar;
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    m_status = new QLabel;
    statusBar()->addPermanentWidget(m_status);
    statusBar()->addPermanentWidget(m_progress);
}

void MainWindow::createActions() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(QIcon::fromTheme(QStringLiteral("document-open")),
                                 tr("&Open Network or Session…"), this, [this] {
                                     const QString path = QFileDialog::getOpenFileName(
                                         this, tr("Open network or session"), QString(),
                                         tr("Networks and sessions (*.onnx *.prototxt *.json "
                                            "*.iterscope);;ONNX (*.onnx);;Caffe (*.prototxt);;"
                                            "Iterscope JSON (*.json);;Sessions (*.iterscope);;"
                                            "All files (*)"));
                                     if (!path.isEmpty())
                                         openFile(path);
                                 });
    open->setShortcut(QKeySequence::Open);
    m_recent_menu = file->addMenu(tr("Open &Recent"));
    // One submenu per family (ResNet, EfficientNet, Vision Transformer, ...); zooIds() keeps
    // a family's ids together.
    auto* zoo = file->addMenu(tr("&Built-in Networks"));
    QMenu* family_menu = nullptr;
    std::string_view family;
    for (const auto& id : zooIds()) {
        if (!family_menu || zooFamily(id) != family) {
            family = zooFamily(id);
            family_menu = zoo->addMenu(
                QString::fromUtf8(family.data(), static_cast<qsizetype>(family.size())));
        }
        const QString qid = QString::fromStdString(id);
        family_menu->addAction(qid, this, [this, qid] { openNetwork(qid); });
    }
    file->addSeparator();
    file->addAction(tr("&Save Session"), QKeySequence::Save, this, [this] {
        QString error;
        if (m_session_path.isEmpty()) {
            const QString path = QFileDialog::getSaveFileName(this, tr("Save session"),
                                                              QStringLiteral("scenario.iterscope"),
                                                              tr("Sessions (*.iterscope)"));
            if (path.isEmpty())
                return;
            m_session_path = path;
        }
        if (!saveSessionTo(m_session_path, &error))
            QMessageBox::warning(this, tr("Save session"), error);
    });
    file->addAction(tr("Save Session &As…"), QKeySequence::SaveAs, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save session"),
                                                          QStringLiteral("scenario.iterscope"),
                                                          tr("Sessions (*.iterscope)"));
        QString error;
        if (!path.isEmpty() && !saveSessionTo(path, &error))
            QMessageBox::warning(this, tr("Save session"), error);
    });
    file->addSeparator();
    auto* exports = file->addMenu(tr("&Export"));
    exports->addAction(tr("&Timeline (PNG, SVG, PDF)…"), QKeySequence(tr("Ctrl+E")), this,
                       [this] { exportView(m_timeline, tr("timeline")); });
    exports->addAction(tr("&Scaling Curves (PNG, SVG, PDF)…"), this,
                       [this] { exportView(m_charts, tr("scaling curves")); });
    exports->addAction(tr("&Costliest Layers Chart (PNG, SVG, PDF)…"), this,
                       [this] { exportView(m_layer_chart, tr("layer chart")); });
    exports->addAction(tr("&Window (PNG, SVG, PDF)…"), this,
                       [this] { exportView(this, tr("window")); });
    exports->addSeparator();
    exports->addAction(tr("Layer Table as &CSV…"), this, &MainWindow::exportCsvFile);
    exports->addAction(tr("Chrome/Perfetto T&race…"), this, &MainWindow::exportTraceFile);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    auto* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Fit Timeline"), QKeySequence(tr("Ctrl+0")), m_timeline,
                    &TimelineView::fitToView);
    view->addAction(tr("Zoom &In"), QKeySequence::ZoomIn, m_timeline, &TimelineView::zoomIn);
    view->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, m_timeline, &TimelineView::zoomOut);
    view->addSeparator();
    view->addAction(tr("&Pin Scenario"), QKeySequence(tr("Ctrl+P")), this, [this] {
        if (m_charts->pinCurrent())
            statusBar()->showMessage(tr("Pinned: %1").arg(m_result->settings.label()), 4000);
    });
    view->addAction(tr("&Clear Pins"), QKeySequence(tr("Ctrl+Shift+P")), m_charts,
                    &ScalingChartsView::clearPins);
    view->addAction(tr("Filter &Layers"), QKeySequence::Find, this, [this] {
        m_filter->setFocus();
        m_filter->selectAll();
    });
    view->addSeparator();
    m_dark_action = view->addAction(tr("&Dark Theme"), this, [this](bool on) { setDarkTheme(on); });
    m_dark_action->setCheckable(true);

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Iterscope"), this, &MainWindow::about);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::setDarkTheme(bool dark) {
    // Fusion follows the palette faithfully on every platform.
    if (dark)
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(dark ? darkPalette() : m_default_palette);
    if (m_dark_action && m_dark_action->isChecked() != dark)
        m_dark_action->setChecked(dark);
}

void MainWindow::setScenario(const ScenarioSettings& settings) {
    m_panel->setSettings(settings);
    requestCurrent();
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

void MainWindow::requestCurrent() {
    m_predictor->request(m_panel->settings());
}

void MainWindow::onFinished(ResultPtr result) {
    m_result = result;
    m_last_good = result->settings;
    m_has_good = true;
    m_model->setResult(result);
    if (!m_columns_sized) {
        // Once: sizing to contents on every result would scan hundreds of rows per drag.
        for (int c = 0; c < LayerTableModel::ColumnCount; ++c)
            m_table->resizeColumnToContents(c);
        m_columns_sized = true;
    }
    m_timeline->setResult(result);
    m_layer_chart->setResult(result);
    m_summary->setResult(result);
    m_status->setText(tr("%1 layers · computed in %2 ms")
                          .arg(result->prediction.layers.size())
                          .arg(result->compute_ms, 0, 'f', 1));
    updateTitle();
    emit resultShown();
}

void MainWindow::onFailed(const ScenarioSettings& settings, const QString& error) {
    m_last_error = error;
    if (m_has_good && settings.network != m_last_good.network) {
        // A network that does not open leaves the last good one in place.
        showBanner(tr("Could not open %1: %2").arg(settings.network, error));
        ScenarioSettings back = settings;
        back.network = m_last_good.network;
        setScenario(back);
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

void MainWindow::openNetwork(const QString& id_or_path) {
    m_banner->hide();
    m_last_error.clear();
    ScenarioSettings s = m_panel->settings();
    s.network = id_or_path;
    setScenario(s);
    if (QFileInfo(id_or_path).isFile())
        addRecentFile(QFileInfo(id_or_path).absoluteFilePath());
}

void MainWindow::openFile(const QString& path) {
    if (isSessionFile(path)) {
        QString error;
        if (!openSession(path, &error))
            showBanner(error);
        return;
    }
    openNetwork(QFileInfo(path).absoluteFilePath());
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
    addRecentFile(QFileInfo(path).absoluteFilePath());
    updateTitle();
    return true;
}

bool MainWindow::saveSessionTo(const QString& path, QString* error) {
    if (!saveSession(path, session(), error))
        return false;
    m_session_path = path;
    addRecentFile(QFileInfo(path).absoluteFilePath());
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

void MainWindow::addRecentFile(const QString& path) {
    if (!m_persistent)
        return;
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recent_menu->clear();
    const QStringList recent =
        m_persistent ? QSettings().value(kRecentKey).toStringList() : QStringList();
    for (int i = 0; i < recent.size(); ++i) {
        const QString path = recent[i];
        auto* action = m_recent_menu->addAction(
            QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()), this,
            [this, path] { openFile(path); });
        action->setToolTip(path);
    }
    m_recent_menu->setEnabled(!recent.isEmpty());
}

void MainWindow::exportView(QWidget* view, const QString& what) {
    // What is exported is what one sees: a chart on the other tab comes to the front (and,
    // refreshed only when visible, up to date).
    if (m_chart_tabs->indexOf(view) >= 0)
        m_chart_tabs->setCurrentWidget(view);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export %1").arg(what), QStringLiteral("%1.png").arg(what).replace(' ', '-'),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportWidget(view, path, &error, 2.0, m_result ? m_result->settings.label() : QString()))
        QMessageBox::warning(this, tr("Export"), error);
    else
        statusBar()->showMessage(tr("Exported %1").arg(path), 4000);
}

void MainWindow::exportCsvFile() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export layer table"), QStringLiteral("layers.csv"), tr("CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportCsv(*m_proxy, path, &error))
        QMessageBox::warning(this, tr("Export"), error);
}

void MainWindow::exportTraceFile() {
    if (!m_result)
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export trace"),
                                                      QStringLiteral("iteration.trace.json"),
                                                      tr("Chrome/Perfetto trace (*.json)"));
    QString error;
    if (!path.isEmpty() && !exportTrace(*m_result, path, &error))
        QMessageBox::warning(this, tr("Export"), error);
}

void MainWindow::showBanner(const QString& text) {
    m_last_error = text;
    m_banner->setText(text);
    m_banner->show();
    statusBar()->showMessage(text, 8000);
}

void MainWindow::syncTableSelection(long layer) {
    const int row = m_model->rowForLayer(layer);
    if (row < 0) {
        m_table->selectionModel()->clearSelection();
        return;
    }
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    if (!index.isValid())
        return; // filtered out
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
    m_table->scrollTo(index);
}

void MainWindow::updateTitle() {
    QString title = QStringLiteral("Iterscope");
    if (m_result)
        title = QStringLiteral("%1 — %2").arg(m_result->settings.label(), title);
    if (!m_session_path.isEmpty())
        title = QStringLiteral("%1 [%2]").arg(title, QFileInfo(m_session_path).fileName());
    setWindowTitle(title);
}

void MainWindow::about() {
    QMessageBox::about(
        this, tr("About Iterscope"),
        tr("<h3>Iterscope %1</h3><p>Predicts the training iteration time of a convolutional "
           "network on multi-GPU platforms, after Pei, Li, Qin, Chen and Wei, <i>Iteration Time "
           "Prediction for CNN in Multi-GPU Platform: Modeling and Analysis</i>, IEEE Access 7 "
           "(2019).</p><p>Built with Qt %2.</p>")
            .arg(QCoreApplication::applicationVersion().isEmpty()
                     ? QStringLiteral(ITERSCOPE_VERSION)
                     : QCoreApplication::applicationVersion(),
                 QLatin1String(qVersion())));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_persistent) {
        QSettings settings;
        settings.setValue(QStringLiteral("geometry"), saveGeometry());
        settings.setValue(QStringLiteral("windowState"), saveState());
        settings.setValue(QStringLiteral("verticalSplitter"), m_vertical->saveState());
        settings.setValue(QStringLiteral("horizontalSplitter"), m_horizontal->saveState());
        settings.setValue(QStringLiteral("darkTheme"), m_dark_action->isChecked());
        settings.setValue(kSessionKey,
                          QJsonDocument(session().toJson()).toJson(QJsonDocument::Compact));
    }
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile()) {
        const QString suffix = QFileInfo(urls.first().toLocalFile()).suffix().toLower();
        if (networkFileSuffixes().contains(suffix) || suffix == QLatin1String("iterscope"))
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
