// MainWindow's menus and shortcuts. Every shortcut the user guide lists is bound
// explicitly where a standard key may be empty (QKeySequence::SaveAs has no binding under
// a plain X11 window manager), and shown in its menu.
#include "window/main_window.h"

#include "charts/charts.h"
#include "charts/layer_chart.h"
#include "planner/plan_view.h"
#include "scenario/scenario_history.h"
#include "timeline/timeline_view.h"
#include "window/help_viewer.h"
#include "window/recent_files.h"

#include "network/zoo.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

#ifndef ITERSCOPE_VERSION
#define ITERSCOPE_VERSION "0"
#endif

namespace iterscope::ui {
namespace {
// The platform's keys for a standard action, and `fallback` when it has none or lacks it.
QList<QKeySequence> keysFor(QKeySequence::StandardKey standard, const QKeySequence& fallback) {
    QList<QKeySequence> keys = QKeySequence::keyBindings(standard);
    if (!keys.contains(fallback))
        keys.prepend(fallback);
    return keys;
}

QAction* named(QAction* action, const char* name) {
    action->setObjectName(QLatin1String(name));
    return action;
}
} // namespace

QAction* MainWindow::action(const QString& name) const {
    return findChild<QAction*>(name);
}

void MainWindow::createActions() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = named(file->addAction(tr("&Open Network or Session…")), "actionOpen");
    open->setShortcuts(keysFor(QKeySequence::Open, QKeySequence(tr("Ctrl+O"))));
    connect(open, &QAction::triggered, this, &MainWindow::askOpenFile);
    auto* recent = file->addMenu(tr("Open &Recent"));
    m_recent->attachMenu(recent);
    auto* zoo = file->addMenu(tr("&Built-in Networks"));
    // One submenu per family (ResNet, EfficientNet, Vision Transformer, ...); zooIds() keeps
    // a family's ids together.
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
    // What the user measured, compared with the model (main_window_measured.cpp).
    named(file->addAction(tr("Open &Trace…"), QKeySequence(tr("Ctrl+T")), this,
                          &MainWindow::askOpenTrace),
          "actionOpenTrace")
        ->setToolTip(tr("A PyTorch profiler trace of training or inference steps: compared "
                        "with every prediction, layer by layer"));
    auto* close_trace = named(file->addAction(tr("Close Trace"), this, &MainWindow::closeTrace),
                              "actionCloseTrace");
    close_trace->setEnabled(false);
    named(file->addAction(tr("Open &Measurements…"), this, &MainWindow::askOpenMeasurements),
          "actionOpenMeasurements")
        ->setToolTip(tr("A CSV of measured runs (the validation format), drawn on the "
                        "scaling charts"));
    named(file->addAction(tr("Open Software &Profile…"), this, &MainWindow::askOpenSoftwareProfile),
          "actionOpenSoftwareProfile")
        ->setToolTip(tr("A software profile, such as one `iterscope-cli fit` wrote from "
                        "your measurements"));
    file->addSeparator();
    auto* save = named(file->addAction(tr("&Save Session")), "actionSaveSession");
    save->setShortcuts(keysFor(QKeySequence::Save, QKeySequence(tr("Ctrl+S"))));
    connect(save, &QAction::triggered, this, [this] { saveSession(false); });
    auto* save_as = named(file->addAction(tr("Save Session &As…")), "actionSaveSessionAs");
    save_as->setShortcuts(keysFor(QKeySequence::SaveAs, QKeySequence(tr("Ctrl+Shift+S"))));
    connect(save_as, &QAction::triggered, this, [this] { saveSession(true); });
    file->addSeparator();
    named(file->addAction(tr("Export &Report (PDF, HTML)…"), QKeySequence(tr("Ctrl+Shift+E")), this,
                          &MainWindow::exportReport),
          "actionExportReport")
        ->setToolTip(tr("The scenario, its summary and band, every chart, the layers, the "
                        "pins, the plan and the assumptions, in one file"));
    auto* exports = file->addMenu(tr("&Export"));
    named(exports->addAction(tr("&Timeline (PNG, SVG, PDF)…"), QKeySequence(tr("Ctrl+E")), this,
                             [this] { exportView(m_timeline, tr("timeline")); }),
          "actionExportTimeline");
    named(exports->addAction(tr("&Scaling Curves (PNG, SVG, PDF)…"), this,
                             [this] { exportView(m_charts, tr("scaling curves")); }),
          "actionExportScaling");
    named(exports->addAction(tr("&Costliest Layers Chart (PNG, SVG, PDF)…"), this,
                             [this] { exportView(m_layer_chart, tr("layer chart")); }),
          "actionExportLayers");
    named(exports->addAction(tr("&Plan (PNG, SVG, PDF)…"), this,
                             [this] { exportView(m_plan, tr("plan")); }),
          "actionExportPlan");
    named(exports->addAction(tr("&Window (PNG, SVG, PDF)…"), this,
                             [this] { exportView(this, tr("window")); }),
          "actionExportWindow");
    exports->addSeparator();
    named(exports->addAction(tr("Layer Table as &CSV…"), this, &MainWindow::exportCsvFile),
          "actionExportCsv");
    named(exports->addAction(tr("Chrome/Perfetto T&race…"), this, &MainWindow::exportTraceFile),
          "actionExportTrace");
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcuts(keysFor(QKeySequence::Quit, QKeySequence(tr("Ctrl+Q"))));

    auto* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(named(m_history->undoAction(), "actionUndo"));
    edit->addAction(named(m_history->redoAction(), "actionRedo"));

    createHardwareMenu(); // main_window_hardware.cpp

    auto* view = menuBar()->addMenu(tr("&View"));
    QAction* dock = m_dock->toggleViewAction();
    dock->setText(tr("&Scenario Panel"));
    dock->setShortcut(QKeySequence(tr("F9")));
    view->addAction(named(dock, "actionScenarioPanel"));
    view->addSeparator();
    view->addAction(tr("&Fit Timeline"), QKeySequence(tr("Ctrl+0")), m_timeline,
                    &TimelineView::fitToView);
    auto* zoom_in = view->addAction(tr("Zoom &In"), m_timeline, &TimelineView::zoomIn);
    zoom_in->setShortcuts(keysFor(QKeySequence::ZoomIn, QKeySequence(tr("Ctrl++"))));
    auto* zoom_out = view->addAction(tr("Zoom &Out"), m_timeline, &TimelineView::zoomOut);
    zoom_out->setShortcuts(keysFor(QKeySequence::ZoomOut, QKeySequence(tr("Ctrl+-"))));
    view->addSeparator();
    view->addAction(tr("&Pin Scenario"), QKeySequence(tr("Ctrl+P")), this, [this] {
        if (m_charts->pinCurrent())
            statusBar()->showMessage(tr("Pinned: %1").arg(labelText(m_result->label)), 4000);
    });
    view->addAction(tr("&Clear Pins"), QKeySequence(tr("Ctrl+Shift+P")), m_charts,
                    &ScalingChartsView::clearPins);
    auto* find = view->addAction(tr("Filter &Layers"), this, [this] {
        m_filter->setFocus();
        m_filter->selectAll();
    });
    find->setShortcuts(keysFor(QKeySequence::Find, QKeySequence(tr("Ctrl+F"))));
    view->addSeparator();
    m_dark_action = view->addAction(tr("&Dark Theme"), this, [this](bool on) { setDarkTheme(on); });
    m_dark_action->setCheckable(true);

    auto* help = menuBar()->addMenu(tr("&Help"));
    named(help->addAction(tr("&User Guide"), QKeySequence(tr("F1")), this,
                          [this] { showHelp(QStringLiteral("user-guide.md")); }),
          "actionUserGuide");
    named(
        help->addAction(tr("&Glossary"), this, [this] { showHelp(QStringLiteral("glossary.md")); }),
        "actionGlossary");
    help->addSeparator();
    help->addAction(tr("&About Iterscope"), this, &MainWindow::about);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::showHelp(const QString& page) {
    // One viewer, reused; the guide and the glossary are compiled in, so help works offline.
    auto* viewer = findChild<HelpViewer*>();
    if (!viewer)
        viewer = new HelpViewer(this);
    viewer->showPage(page);
    viewer->show();
    viewer->raise();
    viewer->activateWindow();
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

} // namespace iterscope::ui
