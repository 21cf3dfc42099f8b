// MainWindow's layout: the scenario dock on the left, the layer table and the view tabs in
// the middle, the timeline below. Sized to work down to a 1280×720 screen: the dock
// scrolls and can be closed, the charts shed secondary labels when small, and the table
// shows Layer, Forward, Backward and % first.
#include "window/main_window.h"

#include "what_helps/advisor_view.h"

#include "charts/charts.h"
#include "charts/layer_chart.h"
#include "layers/layer_table_model.h"
#include "layers/layer_tree_view.h"
#include "planner/plan_view.h"
#include "scenario/scenario_panel.h"
#include "summary/summary_panel.h"
#include "timeline/timeline_view.h"
#include "widgets/elided_label.h"
#include "widgets/plain_text_delegate.h"

#include <QAction>
#include <QDockWidget>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace iterscope::ui {
namespace {
// The columns as the table shows them, left to right: what a narrow window must keep in
// view first. The model (and the CSV) keeps its own order.
constexpr LayerTableModel::Column kVisualOrder[] = {
    LayerTableModel::Name,     LayerTableModel::Forward,  LayerTableModel::Backward,
    LayerTableModel::Measured, LayerTableModel::Share,    LayerTableModel::BoundBy,
    LayerTableModel::Type,     LayerTableModel::Output,   LayerTableModel::Params,
    LayerTableModel::Macs,     LayerTableModel::Gradient, LayerTableModel::Bucket};
static_assert(std::size(kVisualOrder) == LayerTableModel::ColumnCount);

// The Layer column takes what the times and the share leave of a narrow table, but no
// less than this; longer names elide in the middle (and show whole in the tooltip).
constexpr int kMinNameWidth = 150; // "Total (516 layers)" in bold
} // namespace

void MainWindow::createViews() {
    m_dock = new QDockWidget(tr("Scenario"), this);
    m_dock->setObjectName(QStringLiteral("scenarioDock"));
    // Closable: on a small screen the table and charts can have the whole width
    // (View › Scenario Panel, F9, brings it back).
    m_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                        QDockWidget::DockWidgetClosable);
    m_dock->setWidget(createSidePanel());
    addDockWidget(Qt::LeftDockWidgetArea, m_dock);
    // Enough for the controls; the rest goes to the table, charts and timeline.
    resizeDocks({m_dock}, {400}, Qt::Horizontal);

    m_timeline = new TimelineView;
    m_charts = new ScalingChartsView;
    m_layer_chart = new LayerChartView;
    m_view_tabs = new QTabWidget;
    m_view_tabs->setObjectName(QStringLiteral("viewTabs"));
    m_view_tabs->setDocumentMode(true);
    addViewTab(m_charts, tr("Scaling curves"),
               tr("Throughput and scaling efficiency against GPU count and batch per GPU"));
    m_advisor = new AdvisorView;
    addViewTab(m_advisor, tr("What helps"),
               tr("Every single change in reach, ranked by speed-up, with its band and why"));
    connect(m_advisor, &AdvisorView::applyRequested, this, &MainWindow::setScenario);
    connect(m_charts, &ScalingChartsView::pinsChanged, m_advisor,
            [this] { m_advisor->setPins(m_charts->pins()); });
    addViewTab(m_layer_chart, tr("Costliest layers"),
               tr("The layers with the most forward + backward time"));
    m_plan = new PlanView;
    // The plan's inputs are wider than a laptop leaves for the chart tabs: it scrolls
    // sideways there rather than taking width from the layer table.
    auto* plan_page = new QScrollArea;
    plan_page->setObjectName(QStringLiteral("planPage"));
    plan_page->setWidget(m_plan);
    plan_page->setWidgetResizable(true);
    plan_page->setFrameShape(QFrame::NoFrame);
    plan_page->setMinimumWidth(0);
    addViewTab(plan_page, tr("Plan"),
               tr("Time to train, cost and energy of every configuration, with the Pareto front"));
    connect(m_plan, &PlanView::scenarioChosen, this, &MainWindow::setScenario);

    m_horizontal = new QSplitter(Qt::Horizontal);
    m_horizontal->setObjectName(QStringLiteral("horizontalSplitter"));
    QWidget* table = createLayerTable();
    m_horizontal->addWidget(table);
    // The plan is about the run, not about layers: while its tab shows it takes the table's
    // width too, so that at 1280×720 its inputs sit beside the chart and nothing scrolls.
    connect(m_view_tabs, &QTabWidget::currentChanged, this, [this, table, plan_page] {
        table->setVisible(m_view_tabs->currentWidget() != plan_page);
    });
    m_horizontal->addWidget(m_view_tabs);
    m_horizontal->setStretchFactor(0, 3);
    m_horizontal->setStretchFactor(1, 2);
    m_horizontal->setSizes({690, 460});
    m_vertical = new QSplitter(Qt::Vertical);
    m_vertical->setObjectName(QStringLiteral("verticalSplitter"));
    m_vertical->addWidget(m_horizontal);
    auto* timeline_box = new QGroupBox(
        tr("Timeline of one iteration (one GPU, or one per stage; wheel zooms, drag pans, "
           "double-click fits)"));
    auto* timeline_layout = new QVBoxLayout(timeline_box);
    timeline_layout->setContentsMargins(4, 4, 4, 4);
    timeline_layout->addWidget(m_timeline);
    m_vertical->addWidget(timeline_box);
    // A taller window gives most of its extra height to the table and charts: the
    // timeline is sized to its rows (MainWindow::fitTimelineHeight).
    m_vertical->setStretchFactor(0, 3);
    m_vertical->setStretchFactor(1, 1);
    connect(m_vertical, &QSplitter::splitterMoved, this,
            [this] { m_timeline_sized_by_user = true; });

    auto* central = new QWidget;
    auto* central_layout = new QVBoxLayout(central);
    central_layout->setContentsMargins(4, 4, 4, 4);
    m_banner = new Banner(central);
    central_layout->addWidget(m_banner);
    // The answer above the views, beside the questions rather than under them: at 1280×720
    // the scenario column holds every control in view, and the figures stay in sight of
    // the control that changes them.
    auto* summary_box = new QGroupBox(tr("Prediction"), central);
    summary_box->setObjectName(QStringLiteral("summaryBox"));
    m_summary = new SummaryPanel(summary_box);
    connect(m_summary, &SummaryPanel::compareWithBaseRequested, this,
            [this](const QString& base) { compareWithBaseSoftware(base); });
    auto* summary_layout = new QVBoxLayout(summary_box);
    summary_layout->setContentsMargins(6, 2, 6, 4);
    summary_layout->addWidget(m_summary);
    central_layout->addWidget(summary_box);
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
    // Of a fixed width: a label that is resized relays the whole window out, and this one
    // changes on every slider step.
    m_status = new ElidedLabel;
    m_status->setObjectName(QStringLiteral("computeState"));
    m_status->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_status->setFixedWidth(
        m_status->fontMetrics().horizontalAdvance(
            tr("%1 layers · computed in %2 ms").arg(99999).arg(999.9, 0, 'f', 1)) +
        8);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_status);
}

int MainWindow::addViewTab(QWidget* view, const QString& title, const QString& tooltip) {
    const int index = m_view_tabs->addTab(view, title);
    if (!tooltip.isEmpty())
        m_view_tabs->setTabToolTip(index, tooltip);
    return index;
}

QWidget* MainWindow::createSidePanel() {
    // The questions; the column scrolls when the screen is shorter still.
    auto* side = new QWidget;
    auto* side_layout = new QVBoxLayout(side);
    side_layout->setContentsMargins(6, 2, 4, 4);
    m_panel = new ScenarioPanel(m_predictor->cache(), side);
    side_layout->addWidget(m_panel);
    side_layout->addStretch();
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("scenarioScroll"));
    scroll->setWidget(side);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Always there, so the column does not change width (and move every control) when a
    // caveat makes it just taller than the screen.
    scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    scroll->setMinimumWidth(side->minimumSizeHint().width() +
                            scroll->verticalScrollBar()->sizeHint().width() + 4);
    return scroll;
}

QWidget* MainWindow::createLayerTable() {
    m_model = new LayerTableModel(this);
    m_proxy = new LayerFilterModel(this);
    m_proxy->setSourceModel(m_model);
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* filter_row = new QHBoxLayout;
    m_filter = new QLineEdit(box);
    m_filter->setPlaceholderText(tr("Filter layers by name, type or bound (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setToolTip(tr("Shows the layers whose name, type or bound contains this text"));
    m_layer_count = new QLabel(box);
    m_layer_count->setObjectName(QStringLiteral("layerCount"));
    // Sorting by a column is a click on its header; this is the way back.
    m_network_order = new QToolButton(box);
    m_network_order->setObjectName(QStringLiteral("networkOrder"));
    m_network_order->setText(tr("Network order"));
    m_network_order->setToolTip(tr("Show the layers in the order the network runs them again, "
                                   "not sorted by a column"));
    m_network_order->setEnabled(false);
    filter_row->addWidget(m_filter, 1);
    filter_row->addWidget(m_layer_count);
    filter_row->addWidget(m_network_order);
    m_table = new LayerTreeView(box);
    m_table->setObjectName(QStringLiteral("layerTable"));
    m_table->setRootIsDecorated(false); // until a network with modules comes
    m_table->setUniformRowHeights(true);
    m_table->setAlternatingRowColors(true);
    m_table->setSortingEnabled(true);
    m_table->setModel(m_proxy);
    m_table->setItemDelegate(new PlainTextDelegate(m_table));
    // Long ONNX names keep their start and their end (the layer itself).
    m_table->setTextElideMode(Qt::ElideMiddle);
    // Each level opened indents its names further: the name column widens to them (up to
    // what leaves the times and share in view), so four levels down an ONNX name does not
    // read "fe…nv". It never narrows here: a width the user chose stays.
    connect(m_table, &QTreeView::expanded, this, [this] {
        const int was = m_table->columnWidth(LayerTableModel::Name);
        sizeLayerColumns(false);
        if (m_table->columnWidth(LayerTableModel::Name) < was)
            m_table->setColumnWidth(LayerTableModel::Name, was);
    });
    m_table->sortByColumn(-1, Qt::AscendingOrder); // network order until the user sorts
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    QHeaderView* header = m_table->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionsMovable(true);
    header->setFirstSectionMovable(false);
    for (int visual = 0; visual < LayerTableModel::ColumnCount; ++visual)
        header->moveSection(header->visualIndex(kVisualOrder[visual]), visual);
    header->setSectionHidden(LayerTableModel::Measured, true); // until a trace is open
    // Right-click on the header shows or hides columns.
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QHeaderView::customContextMenuRequested, this, [this, header](QPoint pos) {
        QMenu menu;
        for (const auto column : kVisualOrder) {
            if (column == LayerTableModel::Name)
                continue;
            auto* toggle = menu.addAction(
                m_model->headerData(column, Qt::Horizontal).toString(), this,
                [header, column](bool on) { header->setSectionHidden(column, !on); });
            toggle->setCheckable(true);
            toggle->setChecked(!header->isSectionHidden(column));
        }
        menu.addSeparator();
        menu.addAction(tr("Network order"), this, &MainWindow::showNetworkOrder)
            ->setEnabled(header->sortIndicatorSection() >= 0);
        menu.exec(header->mapToGlobal(pos));
    });
    connect(header, &QHeaderView::sortIndicatorChanged, this,
            [this](int section) { m_network_order->setEnabled(section >= 0); });
    connect(m_network_order, &QToolButton::clicked, this, &MainWindow::showNetworkOrder);
    // Always show the scroll bar, otherwise the columns jump when filtering.
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    layout->addLayout(filter_row);
    layout->addWidget(m_table);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setFilterText(text);
        // What matches may sit deep in a module: the filter opens them all.
        if (!text.isEmpty())
            m_table->expandAll();
        updateLayerCount();
    });
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &MainWindow::updateLayerCount);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &MainWindow::updateLayerCount);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &MainWindow::updateLayerCount);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &MainWindow::updateLayerCount);
    updateLayerCount();
    return box;
}

void MainWindow::sizeLayerColumns(bool all) {
    if (all) {
        for (int c = 0; c < LayerTableModel::ColumnCount; ++c)
            m_table->resizeColumnToContents(c);
    } else {
        m_table->resizeColumnToContents(LayerTableModel::Name); // keeps widths set by hand
    }
    // Numbers get their header's or their content's width, the name what is left beside
    // Forward, Backward and Share, so a narrow table still shows those four; Bound by may
    // scroll out of view rather than cut a name to "fe…nv", which says nothing.
    int numbers = 0;
    for (int c : {LayerTableModel::Forward, LayerTableModel::Backward, LayerTableModel::Share})
        numbers += m_table->columnWidth(c);
    const int cap = std::max(kMinNameWidth, m_table->viewport()->width() - numbers);
    if (m_table->columnWidth(LayerTableModel::Name) > cap)
        m_table->setColumnWidth(LayerTableModel::Name, cap);
}

void MainWindow::updateLayerCount() {
    const int total = m_model->layerCount();
    const QString layers = total == 1 ? tr("1 layer") : tr("%1 layers").arg(total);
    m_layer_count->setText(m_filter->text().isEmpty()
                               ? layers
                               : tr("%1 of %2").arg(m_proxy->shownLayers()).arg(layers));
    m_table->setRootIsDecorated(m_model->hasModules());
}

void MainWindow::showNetworkOrder() {
    m_table->sortByColumn(-1, Qt::AscendingOrder);
    m_table->header()->setSortIndicator(-1, Qt::AscendingOrder);
}

void MainWindow::syncTableSelection(long layer) {
    const QModelIndex source = m_model->indexForLayer(layer);
    if (!source.isValid()) {
        m_table->selectionModel()->clearSelection();
        return;
    }
    const QModelIndex index = m_proxy->mapFromSource(source);
    if (!index.isValid())
        return; // filtered out
    for (QModelIndex up = index.parent(); up.isValid(); up = up.parent())
        m_table->expand(up);
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
    m_table->scrollTo(index);
}

} // namespace iterscope::ui
