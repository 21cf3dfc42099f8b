#include "planner/plan_view.h"

#include "charts/charts.h"
#include "planner/plan_points_item.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QImage>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>

#include <cmath>

namespace iterscope::ui {

namespace {

// Tableau 20 without its greys: distinct hues, readable on light and dark backgrounds.
const QColor kGpuColors[] = {
    QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
    QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
    QColor(0xe3, 0x77, 0xc2), QColor(0xbc, 0xbd, 0x22), QColor(0x17, 0xbe, 0xcf),
    QColor(0xae, 0xc7, 0xe8), QColor(0xff, 0xbb, 0x78), QColor(0x98, 0xdf, 0x8a),
    QColor(0xff, 0x98, 0x96), QColor(0xc5, 0xb0, 0xd5), QColor(0xc4, 0x9c, 0x94),
    QColor(0xf7, 0xb6, 0xd2), QColor(0xdb, 0xdb, 0x8d), QColor(0x9e, 0xda, 0xe5)};
constexpr int kGpuColorCount = sizeof kGpuColors / sizeof kGpuColors[0];
constexpr double kAxisMargin = 1.5; // room around the extreme points, as a factor on log axes
constexpr int kWideInputs = 640;    // pixels from which the inputs go beside the chart
constexpr qreal kPointSize = 7;     // a candidate's marker, pixels
constexpr qreal kFrontSize = 9;     // a point of the Pareto front
constexpr qreal kExcludedSize = 5;  // a candidate outside the constraints
constexpr qreal kCurrentSize = 17;  // the ring around the current scenario

// A marker drawn once at twice its size, stamped on every point (PlanPointsItem).
QImage markerImage(const QColor& fill, const QColor& border, qreal size, qreal pen = 1) {
    constexpr qreal kOversample = 2;
    const int side = static_cast<int>(std::ceil(size * kOversample));
    QImage image(side, side, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(kOversample);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(border.isValid() ? QPen(border, pen) : QPen(Qt::NoPen));
    painter.setBrush(fill.isValid() ? QBrush(fill) : QBrush(Qt::NoBrush));
    const qreal inset = border.isValid() ? pen / 2 : 0;
    painter.drawEllipse(QRectF(0, 0, size, size).adjusted(inset, inset, -inset, -inset));
    return image;
}

QLocale numbers() {
    return QLocale(QLocale::English, QLocale::UnitedStates);
}

// A network by the name a person knows: a file's name, not its path.
QString networkName(const QString& id_or_path) {
    return id_or_path.contains(QLatin1Char('/')) ? QFileInfo(id_or_path).fileName() : id_or_path;
}

} // namespace

PlanView::PlanView(QWidget* parent)
    : QWidget(parent) {
    m_runner = new PlanRunner(std::make_shared<ComputeCache>(), this);
    buildInputs();
    buildChart();
    connect(m_runner, &PlanRunner::finished, this, &PlanView::onPlan);
    connect(m_runner, &PlanRunner::failed, this, [this](const QString& error) {
        m_error = error;
        updateSummary();
    });
    connect(m_runner, &PlanRunner::busyChanged, this, [this] { updateSummary(); });
    applyTheme();
    updateSummary();
}

PlanView::~PlanView() = default;

void PlanView::buildInputs() {
    auto* grid = new QGridLayout;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(6);
    grid->setVerticalSpacing(4);
    const QLocale locale = numbers();
    auto spin = [&](int min, int max, int value, const QString& none, const QString& tip) {
        auto* s = new QSpinBox(this);
        s->setLocale(locale);
        s->setRange(min, max);
        s->setValue(value);
        s->setGroupSeparatorShown(true);
        if (!none.isEmpty())
            s->setSpecialValueText(none);
        s->setToolTip(tip);
        s->setKeyboardTracking(false);
        connect(s, &QSpinBox::valueChanged, this, [this] { redraw(); });
        return s;
    };
    auto real = [&](double max, int decimals, const QString& tip) {
        auto* s = new QDoubleSpinBox(this);
        s->setLocale(locale);
        s->setRange(0, max);
        s->setDecimals(decimals);
        s->setSpecialValueText(tr("none"));
        s->setGroupSeparatorShown(true);
        s->setToolTip(tip);
        s->setKeyboardTracking(false);
        connect(s, &QDoubleSpinBox::valueChanged, this, [this] { redraw(); });
        return s;
    };
    m_epochs = spin(1, 100000, kDefaultEpochs, {}, tr("Passes over the dataset"));
    m_images = spin(1, 1000000000, static_cast<int>(kImageNetTrainImages), {},
                    tr("Training images per epoch (ImageNet-1k: 1,281,167)"));
    m_max_gpus =
        spin(1, kDefaultPlanMaxGpus, kDefaultPlanMaxGpus, {}, tr("At most this many GPUs in all"));
    m_max_batch = spin(0, 1 << 24, static_cast<int>(kDefaultMaxGlobalBatch), tr("none"),
                       tr("At most this many images per iteration over all GPUs (8,192 unless "
                          "you change it; none lifts the bound): large global batches change "
                          "convergence (beyond about 8,192 for ResNet-50 on ImageNet, Goyal et "
                          "al. 2017)"));
    m_max_batch->setSingleStep(256);
    m_deadline = real(1e6, 2, tr("Train within this many hours"));
    m_budget = real(1e8, 0, tr("Spend at most this many US dollars (GPUs with a price only)"));
    m_budget->setPrefix(QStringLiteral("$"));
    m_budget->setSingleStep(100);
    m_prices = new QPushButton(tr("Prices file…"), this);
    m_prices->setToolTip(tr("A prices file of your own replaces the shipped prices and power "
                            "(docs/planning.md); cancel the dialog to go back to the shipped "
                            "prices"));
    connect(m_prices, &QPushButton::clicked, this, [this] {
        setPricesFile(QFileDialog::getOpenFileName(this, tr("Prices file"), QString(),
                                                   tr("Prices (*.json);;All files (*)")));
    });

    const std::pair<QString, QWidget*> fields[] = {
        {tr("Epochs"), m_epochs},       {tr("Images"), m_images},
        {tr("Max GPUs"), m_max_gpus},   {tr("Max global batch"), m_max_batch},
        {tr("Deadline h"), m_deadline}, {tr("Budget"), m_budget},
    };
    for (const auto& [text, field] : fields) {
        auto* label = new QLabel(text, this);
        label->setBuddy(field);
        m_input_cells.push_back({label, field});
    }
    m_grid = grid;
    layoutInputs(2);

    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("planLegend"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("planSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Wide (the tab has the window's width when it shows, main_window_layout.cpp): the
    // inputs in a column beside the chart. Narrow: above it. The chart and its legend are
    // one box, which is what an export writes.
    m_body = new QBoxLayout(QBoxLayout::TopToBottom, this);
    m_body->setContentsMargins(4, 4, 4, 4);
    m_side = new QVBoxLayout;
    m_side->addLayout(grid);
    m_side->addStretch();
    m_main = new QVBoxLayout;
    m_body->addLayout(m_side);
    m_body->addLayout(m_main, 1);
    // The summary goes into m_main (buildChart), then the chart box.
}

void PlanView::layoutInputs(int columns) {
    if (columns == m_input_columns)
        return;
    m_input_columns = columns;
    for (const auto& [label, field] : m_input_cells) {
        m_grid->removeWidget(label);
        m_grid->removeWidget(field);
    }
    m_grid->removeWidget(m_prices);
    for (int c = 0; c < 8; ++c)
        m_grid->setColumnStretch(c, 0);
    const int rows = (static_cast<int>(m_input_cells.size()) + columns - 1) / columns;
    for (std::size_t i = 0; i < m_input_cells.size(); ++i) {
        const int row = static_cast<int>(i) / columns;
        const int column = static_cast<int>(i) % columns * 2;
        m_grid->addWidget(m_input_cells[i].first, row, column);
        m_grid->addWidget(m_input_cells[i].second, row, column + 1);
        m_grid->setColumnStretch(column + 1, 1);
    }
    // Under the inputs, right-aligned.
    m_grid->addWidget(m_prices, rows, 0, 1, columns * 2, Qt::AlignRight);
}

void PlanView::buildChart() {
    m_qchart = new QChart;
    m_qchart->setTitle(tr("Time to train against cost"));
    m_qchart->setMargins(QMargins(4, 4, 4, 4));
    // A label below names the GPUs instead: Qt's legend elides names in the narrow tab.
    m_qchart->legend()->hide();
    m_hours = new QLogValueAxis;
    m_hours->setBase(10);
    m_hours->setLabelFormat(QStringLiteral("%g"));
    m_hours->setMinorTickCount(8);
    m_hours->setTitleText(tr("time to train, hours (log)"));
    m_usd = new QLogValueAxis;
    m_usd->setBase(10);
    m_usd->setLabelFormat(QStringLiteral("%g"));
    m_usd->setMinorTickCount(8);
    m_usd->setTitleText(tr("cost, US$ (log)"));
    m_qchart->addAxis(m_hours, Qt::AlignBottom);
    m_qchart->addAxis(m_usd, Qt::AlignLeft);

    auto attach = [this](QXYSeries* s) {
        m_qchart->addSeries(s);
        s->attachAxis(m_hours);
        s->attachAxis(m_usd);
    };
    m_pareto = new QLineSeries;
    m_pareto->setName(tr("Pareto front"));
    attach(m_pareto);
    m_deadline_line = new QLineSeries;
    m_budget_line = new QLineSeries;
    for (QLineSeries* line : {m_deadline_line, m_budget_line}) {
        QPen pen(QColor(0xd6, 0x27, 0x28));
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.5);
        line->setPen(pen);
        attach(line);
    }
    // Every candidate's point, thousands of them, in one item (plan_points_item.h).
    m_points = new PlanPointsItem(m_qchart, m_hours, m_usd);

    m_chart_box = new QWidget(this);
    m_chart_box->setObjectName(QStringLiteral("planChartBox"));
    m_view = new QChartView(m_qchart, m_chart_box);
    m_view->setRenderHint(QPainter::Antialiasing);
    // Small enough for the tab at 1280×720, with the inputs beside it.
    m_view->setMinimumSize(300, 200);
    m_view->viewport()->setMouseTracking(true); // hovers without a button pressed
    m_view->viewport()->installEventFilter(this);
    m_view->setToolTip(tr("Every configuration that fits in memory: time to train against cost. "
                          "Hover over a point for its energy; click it to make it the scenario."));
    auto* box = new QVBoxLayout(m_chart_box);
    box->setContentsMargins(0, 0, 0, 0);
    box->addWidget(m_view, 1);
    m_legend->setParent(m_chart_box);
    m_legend->setContentsMargins(6, 0, 6, 0); // the first marker is not cut at the box's edge
    box->addWidget(m_legend);
    // The answer (fastest, cheapest) above the chart: the chart shrinks to what is left, and
    // at 1280×720 the answer is never below the fold of the tab.
    m_main->addWidget(m_summary);
    m_main->addWidget(m_chart_box, 1);
}

void PlanView::applyTheme() {
    const bool dark = isDarkPalette(palette());
    m_qchart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    // setTheme() resets series pens; these carry meaning.
    QPen front(dark ? QColor(0xf0, 0xf0, 0xf0) : QColor(0x20, 0x20, 0x20));
    front.setWidthF(2);
    m_pareto->setPen(front);
    for (QLineSeries* line : {m_deadline_line, m_budget_line}) {
        QPen pen(QColor(0xd6, 0x27, 0x28));
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.5);
        line->setPen(pen);
    }
    m_excluded_marker = markerImage(dark ? QColor(0x55, 0x55, 0x5a) : QColor(0xcf, 0xcf, 0xd4),
                                    QColor(), kExcludedSize);
    m_front_marker = markerImage(front.color(), dark ? Qt::black : Qt::white, kFrontSize);
    m_current_marker = markerImage(QColor(), dark ? Qt::white : Qt::black, kCurrentSize, 2.5);
    m_gpu_markers.clear();
    for (int c = 0; c < kGpuColorCount; ++c)
        m_gpu_markers.push_back(markerImage(kGpuColors[c], kGpuColors[c].darker(130), kPointSize));
    if (m_plan)
        redraw();
}

void PlanView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange)
        applyTheme();
    QWidget::changeEvent(event);
}

void PlanView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // The inputs in a column beside the chart when there is room, two pairs a row above it
    // in the narrow chart tab.
    const bool wide = width() >= kWideInputs;
    m_body->setDirection(wide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
    layoutInputs(wide ? 1 : 2);
    // The points are thinned to the plot's pixels: a new size, a new thinning.
    if (m_plan)
        redraw();
}

void PlanView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_marker_stale)
        updateCurrentMarker();
    requestIfStale();
}

void PlanView::setScenario(const ScenarioSettings& settings) {
    m_settings = settings;
    PlanInputs inputs = m_inputs;
    inputs.network = settings.network;
    inputs.image = settings.image;
    inputs.software = settings.software;
    if (!(inputs == m_inputs)) {
        m_inputs = inputs;
        if (isVisible())
            requestIfStale();
    }
    // Every result of a slider drag lands here: only the current scenario's ring moves, and
    // a hidden tab moves it when shown.
    if (isVisible())
        updateCurrentMarker();
    else
        m_marker_stale = true;
}

PlanPointsItem::Layer PlanView::currentLayer() const {
    PlanPointsItem::Layer current{m_current_marker, {}, {}};
    if (!m_plan)
        return current;
    if (const auto i = candidateFor(*m_plan, m_settings)) {
        const PlanPoint p = retimed(m_plan->candidates[*i], m_chart.scale);
        if (p.cost_usd) {
            current.points.append(QPointF(p.hours, *p.cost_usd));
            current.ids.push_back(*i);
        }
    }
    return current;
}

void PlanView::updateCurrentMarker() {
    m_marker_stale = false;
    std::vector<PlanPointsItem::Layer> layers = m_points->layers();
    if (!m_plan || layers.empty())
        return;
    layers.back() = currentLayer(); // the ring is the top layer
    m_points->setLayers(std::move(layers));
}

void PlanView::setPricesFile(const QString& path) {
    m_inputs.prices_file = path;
    m_error.clear();
    m_prices->setText(path.isEmpty() ? tr("Prices file…")
                                     : tr("Prices: %1").arg(QFileInfo(path).fileName()));
    requestIfStale();
}

void PlanView::ensurePlan() {
    if (!m_plan || !(m_plan->inputs == m_inputs))
        m_runner->request(m_inputs);
}

void PlanView::requestIfStale() {
    if (isVisible())
        ensurePlan();
}

void PlanView::onPlan(PlanDataPtr plan) {
    m_error.clear();
    m_plan = std::move(plan);
    // Colours go to the GPUs with a price in their order, so no two on the chart share one
    // and each keeps its colour while constraints change.
    m_gpu_colour.assign(m_plan->request.gpus.size(), -1);
    int colour = 0;
    for (std::size_t g = 0; g < m_plan->request.gpus.size(); ++g)
        if (m_plan->request.gpus[g].usd_per_gpu_hour)
            m_gpu_colour[g] = colour++ % kGpuColorCount;
    redraw();
}

PlanChoices PlanView::choices() const {
    PlanChoices c;
    c.epochs = m_epochs->value();
    c.dataset_images = m_images->value();
    c.constraints.max_gpus = m_max_gpus->value();
    c.constraints.max_global_batch =
        m_max_batch->value() > 0 ? std::optional<int64_t>(m_max_batch->value()) : std::nullopt;
    if (m_deadline->value() > 0)
        c.constraints.deadline_hours = m_deadline->value();
    if (m_budget->value() > 0)
        c.constraints.budget_usd = m_budget->value();
    return c;
}

void PlanView::setChoices(const PlanChoices& c) {
    const QSignalBlocker b1(m_epochs), b2(m_images), b3(m_max_gpus), b4(m_max_batch),
        b5(m_deadline), b6(m_budget);
    m_epochs->setValue(c.epochs);
    m_images->setValue(static_cast<int>(std::min<int64_t>(c.dataset_images, 1000000000)));
    m_max_gpus->setValue(c.constraints.max_gpus);
    m_max_batch->setValue(static_cast<int>(c.constraints.max_global_batch.value_or(0)));
    m_deadline->setValue(c.constraints.deadline_hours.value_or(0));
    m_budget->setValue(c.constraints.budget_usd.value_or(0));
    redraw();
}

void PlanView::redraw() {
    if (!m_plan) {
        updateSummary();
        return;
    }
    QSize plot = m_qchart->plotArea().size().toSize();
    if (plot.width() < 50 || plot.height() < 50)
        plot = QSize(600, 400);
    const PlanChoices c = choices();
    m_chart = planChart(*m_plan, c, plot);

    m_pareto->replace(m_chart.pareto);
    const double x0 = m_chart.min_hours / kAxisMargin, x1 = m_chart.max_hours * kAxisMargin;
    const double y0 = m_chart.min_usd / kAxisMargin, y1 = m_chart.max_usd * kAxisMargin;
    if (m_hours->min() != x0 || m_hours->max() != x1)
        m_hours->setRange(x0, x1);
    if (m_usd->min() != y0 || m_usd->max() != y1)
        m_usd->setRange(y0, y1);
    QList<QPointF> deadline, budget;
    if (c.constraints.deadline_hours)
        deadline = {{*c.constraints.deadline_hours, y0}, {*c.constraints.deadline_hours, y1}};
    if (c.constraints.budget_usd)
        budget = {{x0, *c.constraints.budget_usd}, {x1, *c.constraints.budget_usd}};
    m_deadline_line->replace(deadline);
    m_budget_line->replace(budget);

    // The layers, bottom to top: outside the constraints, each GPU, the front, the current
    // scenario. A hit reports the candidate's index.
    std::vector<PlanPointsItem::Layer> layers;
    layers.push_back({m_excluded_marker, m_chart.excluded, m_chart.excluded_candidates});
    for (const PlanChart::Series& series : m_chart.by_gpu) {
        const int colour = m_gpu_colour[static_cast<std::size_t>(series.gpu)];
        layers.push_back({m_gpu_markers[static_cast<std::size_t>(std::max(colour, 0))],
                          series.points, series.candidates});
    }
    layers.push_back({m_front_marker, m_chart.pareto, m_chart.selection.pareto});
    layers.push_back(currentLayer());
    m_points->setLayers(std::move(layers));
    m_marker_stale = false;
    updateLegend();
    updateSummary();
    emit redrawn();
}

void PlanView::updateLegend() {
    // A plan over every shipped GPU has some thirty series: named all, the legend took six
    // lines at 1280×720 and lay over the chart. Named are the GPUs a decision turns on (on
    // the Pareto front, the fastest, the cheapest); the rest are counted, and a point's
    // tooltip names its GPU.
    std::vector<bool> named(m_plan->request.gpus.size(), false);
    const PlanSelection& s = m_chart.selection;
    std::vector<std::size_t> deciding = s.pareto;
    for (const auto& i : {s.fastest, s.cheapest})
        if (i)
            deciding.push_back(*i);
    for (const std::size_t i : deciding)
        if (i < m_plan->candidates.size())
            named[static_cast<std::size_t>(m_plan->candidates[i].gpu)] = true;
    QString html;
    int others = 0;
    for (const PlanChart::Series& series : m_chart.by_gpu) {
        const auto gpu = static_cast<std::size_t>(series.gpu);
        if (!named[gpu]) {
            ++others;
            continue;
        }
        html += QStringLiteral("<span style='color:%1'>&#9679;</span>&nbsp;%2 &nbsp; ")
                    .arg(kGpuColors[std::max(m_gpu_colour[gpu], 0)].name(),
                         planProfileName(m_plan->request.gpus[gpu]).toHtmlEscaped());
    }
    if (others > 0)
        html +=
            (others == 1
                 ? tr("<i>1 other GPU (hover a point for its name)</i> &nbsp; ")
                 : tr("<i>%1 other GPUs (hover a point for their names)</i> &nbsp; ").arg(others));
    html += tr("<i>&#9679;&#8212;&#9679; Pareto front · &#9711; current scenario · grey: outside "
               "the constraints · dashed: deadline, budget</i>");
    m_legend->setText(html);
}

void PlanView::updateSummary() {
    const QLocale locale = numbers();
    // Short lines under the chart (the tab is narrow); the long explanations in the tooltip.
    QString text, details;
    if (m_runner->isBusy())
        text += tr("<i>Planning %1 over every GPU and system…</i><br>")
                    .arg(networkName(m_inputs.network).toHtmlEscaped());
    if (!m_error.isEmpty())
        text += QStringLiteral("<span style='color:#c0392b'>%1</span><br>")
                    .arg(m_error.toHtmlEscaped());
    if (m_plan) {
        const PlanSelection& s = m_chart.selection;
        const PlanChoices c = choices();
        m_qchart->setTitle(tr("%1, %2 epochs of %3 images: time to train against cost")
                               .arg(networkName(m_plan->inputs.network), locale.toString(c.epochs),
                                    locale.toString(static_cast<qlonglong>(c.dataset_images))));
        text += tr("<b>%1</b> configurations fit in memory, <b>%2</b> meet the constraints.")
                    .arg(locale.toString(static_cast<qlonglong>(m_plan->candidates.size())),
                         locale.toString(static_cast<qlonglong>(s.meeting_constraints)));
        const auto line = [&](const QString& label, const std::optional<std::size_t>& i) {
            if (i)
                text += QStringLiteral("<br><b>%1</b> %2")
                            .arg(label, shortCandidate(*m_plan, retimed(m_plan->candidates[*i],
                                                                        m_chart.scale)));
        };
        line(tr("Fastest:"), s.fastest);
        line(tr("Cheapest:"), s.cheapest);
        QStringList notes;
        if (s.meeting_constraints == 0) {
            PlanConstraints scaled = c.constraints;
            if (scaled.deadline_hours)
                *scaled.deadline_hours /= m_chart.scale;
            if (scaled.budget_usd)
                *scaled.budget_usd /= m_chart.scale;
            QString advice = QString::fromStdString(relaxAdvice(m_plan->candidates, scaled));
            // The advice names the CLI's flags; here they are the inputs above the chart.
            advice.replace(QStringLiteral("--deadline-hours"), tr("the deadline"))
                .replace(QStringLiteral("--budget-usd"), tr("the budget"))
                .replace(QStringLiteral("--max-global-batch"), tr("the max global batch"))
                .replace(QStringLiteral("--max-gpus"), tr("max GPUs"));
            text += QStringLiteral("<br><b>%1</b>").arg(advice.toHtmlEscaped());
        }
        if (c.constraints.max_global_batch == kDefaultMaxGlobalBatch)
            notes << tr("global batch at most %1 by default (set Max global batch to none to "
                        "lift it)")
                         .arg(locale.toString(static_cast<qlonglong>(kDefaultMaxGlobalBatch)));
        if (!c.constraints.max_global_batch && s.fastest &&
            m_plan->candidates[*s.fastest].globalBatch() > kLargeGlobalBatch) {
            notes << tr("the fastest point's global batch is over %1: set a max global batch")
                         .arg(locale.toString(static_cast<qlonglong>(kLargeGlobalBatch)));
            details += tr("<p>Large global batches change convergence: ResNet-50 on ImageNet "
                          "kept its accuracy up to a global batch of %1 with linear learning-rate "
                          "scaling and warm-up (Goyal et al. 2017), and lost it beyond. Time to "
                          "train assumes the same number of epochs at any batch.</p>")
                           .arg(locale.toString(static_cast<qlonglong>(kLargeGlobalBatch)));
        }
        if (!m_chart.unpriced_gpus.empty()) {
            QStringList ids;
            for (const int g : m_chart.unpriced_gpus)
                ids << planProfileName(m_plan->request.gpus[static_cast<std::size_t>(g)]);
            notes << (ids.size() == 1
                          ? tr("1 GPU without a price is not shown")
                          : tr("%1 GPUs without a price are not shown").arg(ids.size()));
            details += tr("<p>No public on-demand price is shipped for %1, so they cannot be "
                          "placed on the cost axis: a prices file can give them one "
                          "(docs/planning.md).</p>")
                           .arg(ids.join(QStringLiteral(", ")).toHtmlEscaped());
        }
        if (!notes.isEmpty())
            text += QStringLiteral("<br><i>%1.</i>").arg(notes.join(QStringLiteral("; ")));
        details += tr("<p>Computed in %1 ms. Hover over a point for its energy; click it to make "
                      "it the scenario.</p>")
                       .arg(m_plan->compute_ms, 0, 'f', 0);
    } else if (!m_runner->isBusy() && m_error.isEmpty()) {
        text += tr("The plan is computed when this tab is shown.");
    }
    m_summary->setText(text);
    m_summary->setToolTip(details);
}

QString PlanView::exportCaption() const {
    const QLocale locale = numbers();
    const PlanChoices c = choices();
    QStringList parts;
    parts << tr("%1 on %2 software").arg(networkName(m_inputs.network), m_inputs.software);
    parts << tr("%1 epochs of %2 images")
                 .arg(locale.toString(c.epochs),
                      locale.toString(static_cast<qlonglong>(c.dataset_images)));
    parts << tr("at most %1 GPUs").arg(locale.toString(c.constraints.max_gpus));
    parts << (c.constraints.max_global_batch ? tr("global batch at most %1")
                                                   .arg(locale.toString(static_cast<qlonglong>(
                                                       *c.constraints.max_global_batch)))
                                             : tr("any global batch"));
    if (c.constraints.deadline_hours)
        parts << tr("deadline %1 h").arg(locale.toString(*c.constraints.deadline_hours, 'g', 4));
    if (c.constraints.budget_usd)
        parts << tr("budget $%1").arg(locale.toString(*c.constraints.budget_usd, 'f', 0));
    parts << (m_inputs.prices_file.isEmpty()
                  ? tr("shipped on-demand prices, each with its date (docs/planning.md)")
                  : tr("prices from %1").arg(QFileInfo(m_inputs.prices_file).fileName()));
    return parts.join(QStringLiteral(" · "));
}

std::optional<std::size_t> PlanView::candidateUnder(const QPoint& viewport_position) const {
    if (!m_plan)
        return std::nullopt;
    const QPointF at = m_points->mapFromScene(m_view->mapToScene(viewport_position));
    const auto hit = m_points->pointAt(at);
    if (!hit)
        return std::nullopt;
    const auto& ids = m_points->layers()[static_cast<std::size_t>(hit->first)].ids;
    return ids[static_cast<std::size_t>(hit->second)];
}

bool PlanView::eventFilter(QObject* watched, QEvent* event) {
    if (watched != m_view->viewport())
        return QWidget::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::MouseMove: {
        const auto* mouse = static_cast<QMouseEvent*>(event);
        const auto i = candidateUnder(mouse->position().toPoint());
        if (i == m_hovered)
            break;
        m_hovered = i;
        if (i)
            QToolTip::showText(
                mouse->globalPosition().toPoint(),
                describeCandidate(*m_plan, retimed(m_plan->candidates[*i], m_chart.scale)) +
                    tr("<br><i>Click to make it the scenario.</i>"),
                m_view);
        else
            QToolTip::hideText();
        break;
    }
    case QEvent::Leave:
        m_hovered.reset();
        QToolTip::hideText();
        break;
    case QEvent::ToolTip:
        // The view's own tooltip would replace a point's.
        if (m_hovered)
            return true;
        break;
    case QEvent::MouseButtonPress: {
        const auto* mouse = static_cast<QMouseEvent*>(event);
        if (mouse->button() != Qt::LeftButton)
            break;
        if (const auto i = candidateUnder(mouse->position().toPoint())) {
            emit scenarioChosen(scenarioForCandidate(*i));
            return true;
        }
        break;
    }
    default:
        break;
    }
    return QWidget::eventFilter(watched, event);
}

ScenarioSettings PlanView::scenarioForCandidate(std::size_t candidate) const {
    return scenarioFor(*m_plan, m_plan->candidates[candidate], m_settings);
}

} // namespace iterscope::ui
