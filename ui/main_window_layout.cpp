// MainWindow's layout: the scenario dock on the left, the layer table and the view tabs in
// the middle, the timeline below. Sized to work down to a 1280×720 screen: the dock
// scrolls and can be closed, the charts shed secondary labels when small, and the table
// shows Layer, Forward, Backward and % first.
#include "main_window.h"

#include "charts.h"
#include "layer_chart.h"
#include "layer_table_model.h"
#include "plain_text_delegate.h"
#include "plan_view.h"
#include "scenario_panel.h"
#include "summary_panel.h"
#include "timeline_view.h"

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
#include <QTreeView>
#include <QVBoxLayout>

namespace iterscope::ui {
namespace {
// The columns as the table shows them, left to right: what a narrow window must keep in
// view first. The model (and the CSV) keeps its own order.
constexpr LayerTableModel::Column kVisualOrder[] = {
    LayerTableModel::Name,     LayerTableModel::Forward, LayerTableModel::Backward,
    LayerTableModel::Share,    LayerTableModel::BoundBy, LayerTableModel::Type,
    LayerTableModel::Output,   LayerTableModel::Params,  LayerTableModel::Macs,
    LayerTableModel::Gradient, LayerTableModel::Bucket};
static_assert(std::size(kVisualOrder) == LayerTableModel::ColumnCount);

// The Layer column takes what the times and the share leave of a narrow table, but no
// less than this; longer names elide in the middle (and show whole in the tooltip).
constexpr int kMinNameWidth = 120;
} // namespace

void MainWindow::createViews() {
    m_dock = new QDockWidget(tr("Scenario and prediction"), this);
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
    m_horizontal->addWidget(createLayerTable());
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
    // The answer on top, the questions below it; the whole column scrolls when the screen
    // is short.
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
    filter_row->addWidget(m_filter, 1);
    filter_row->addWidget(m_layer_count);
    m_table = new QTreeView(box);
    m_table->setObjectName(QStringLiteral("layerTable"));
    m_table->setRootIsDecorated(false);
    m_table->setUniformRowHeights(true);
    m_table->setAlternatingRowColors(true);
    m_table->setSortingEnabled(true);
    m_table->setModel(m_proxy);
    m_table->setItemDelegate(new PlainTextDelegate(m_table));
    // Long ONNX names keep their start and their end (the layer itself).
    m_table->setTextElideMode(Qt::ElideMiddle);
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
        menu.exec(header->mapToGlobal(pos));
    });
    // Always show the scroll bar, otherwise the columns jump when filtering.
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    layout->addLayout(filter_row);
    layout->addWidget(m_table);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
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
    // Forward, Backward and Share, so a narrow table still shows those four.
    int numbers = 0;
    for (int c : {LayerTableModel::Forward, LayerTableModel::Backward, LayerTableModel::Share})
        numbers += m_table->columnWidth(c);
    const int cap = std::max(kMinNameWidth, m_table->viewport()->width() - numbers);
    if (m_table->columnWidth(LayerTableModel::Name) > cap)
        m_table->setColumnWidth(LayerTableModel::Name, cap);
}

void MainWindow::updateLayerCount() {
    // The proxy keeps the totals row whatever the filter.
    const int total = std::max(0, m_model->rowCount() - 1);
    const int shown = std::max(0, m_proxy->rowCount() - 1);
    const QString layers = total == 1 ? tr("1 layer") : tr("%1 layers").arg(total);
    m_layer_count->setText(m_filter->text().isEmpty() ? layers
                                                      : tr("%1 of %2").arg(shown).arg(layers));
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

} // namespace iterscope::ui
