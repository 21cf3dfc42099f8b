#include "plan_view.h"

#include "charts.h"

#include <QCursor>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>

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
constexpr int kWideInputs = 760;
// Point sets other than a GPU's series, for candidateAt().
constexpr int kExcludedSet = -1;
constexpr int kParetoSet = -2; // pixels from which the inputs go three pairs a row

QLocale numbers() {
    return QLocale(QLocale::English, QLocale::UnitedStates);
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
    m_images = spin(1, 2000000000, static_cast<int>(kImageNetTrainImages), {},
                    tr("Training images per epoch (ImageNet-1k: 1,281,167)"));
    m_max_gpus =
        spin(1, kDefaultPlanMaxGpus, kDefaultPlanMaxGpus, {}, tr("At most this many GPUs in all"));
    m_max_batch = spin(0, 1 << 24, 0, tr("none"),
                       tr("At most this many images per iteration over all GPUs: large global "
                          "batches change convergence (beyond about 8,192 for ResNet-50 on "
                          "ImageNet, Goyal et al. 2017)"));
    m_max_batch->setSingleStep(256);
    m_deadline = real(1e6, 2, tr("Train within this many hours"));
    m_budget = real(1e9, 0, tr("Spend at most this many US dollars (GPUs with a price only)"));
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
    layoutInputs(3);

    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("planLegend"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("planSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(grid);
    // The chart view goes here (buildChart), then the summary.
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
    m_grid->addWidget(m_prices, 0, columns * 2, rows, 1);
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
    m_excluded = new QScatterSeries;
    m_excluded->setName(tr("outside the constraints"));
    m_excluded->setMarkerSize(5);
    m_excluded->setPen(Qt::NoPen);
    attach(m_excluded);
    m_pareto = new QLineSeries;
    m_pareto->setName(tr("Pareto front"));
    attach(m_pareto);
    m_pareto_points = new QScatterSeries;
    m_pareto_points->setMarkerSize(9);
    attach(m_pareto_points);
    // Every point on the chart stands for a candidate: hover and click work on all of them.
    for (const auto& [series, set] :
         {std::pair{m_excluded, kExcludedSet}, std::pair{m_pareto_points, kParetoSet}}) {
        const int which = set;
        connect(series, &QScatterSeries::hovered, this,
                [this, which](const QPointF& p, bool state) { onHovered(which, p, state); });
        connect(series, &QScatterSeries::clicked, this,
                [this, which](const QPointF& p) { onClicked(which, p); });
    }
    m_deadline_line = new QLineSeries;
    m_budget_line = new QLineSeries;
    for (QLineSeries* line : {m_deadline_line, m_budget_line}) {
        QPen pen(QColor(0xd6, 0x27, 0x28));
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.5);
        line->setPen(pen);
        attach(line);
    }
    m_current = new QScatterSeries;
    m_current->setName(tr("current scenario"));
    m_current->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_current->setMarkerSize(16);
    m_current->setBrush(Qt::NoBrush);
    attach(m_current);

    m_view = new QChartView(m_qchart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(360, 260);
    m_view->setToolTip(tr("Every configuration that fits in memory: time to train against cost. "
                          "Hover over a point for its energy; click it to make it the scenario."));
    auto* layout = static_cast<QVBoxLayout*>(this->layout());
    layout->addWidget(m_view, 1);
    layout->addWidget(m_legend);
    layout->addWidget(m_summary);
}

void PlanView::applyTheme() {
    const bool dark = isDarkPalette(palette());
    m_qchart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    // setTheme() resets series colours; these carry meaning.
    const QColor grey = dark ? QColor(0x55, 0x55, 0x5a) : QColor(0xcf, 0xcf, 0xd4);
    m_excluded->setColor(grey);
    m_excluded->setBorderColor(grey);
    QPen front(dark ? QColor(0xf0, 0xf0, 0xf0) : QColor(0x20, 0x20, 0x20));
    front.setWidthF(2);
    m_pareto->setPen(front);
    m_pareto_points->setColor(front.color());
    m_pareto_points->setBorderColor(dark ? Qt::black : Qt::white);
    QPen ring(dark ? Qt::white : Qt::black);
    ring.setWidthF(2.5);
    m_current->setPen(ring);
    m_current->setBrush(Qt::NoBrush);
    for (QLineSeries* line : {m_deadline_line, m_budget_line}) {
        QPen pen(QColor(0xd6, 0x27, 0x28));
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.5);
        line->setPen(pen);
    }
    // Colours go to the GPUs on the chart in order, so no two of them share one.
    int colour = 0;
    for (QScatterSeries* series : m_gpu_series) {
        if (!series)
            continue;
        const QColor c = kGpuColors[colour++ % kGpuColorCount];
        series->setColor(c);
        series->setBorderColor(c.darker(130));
    }
}

void PlanView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange)
        applyTheme();
    QWidget::changeEvent(event);
}

void PlanView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Three pairs of inputs a row when there is room, two in the narrow chart tab.
    layoutInputs(width() >= kWideInputs ? 3 : 2);
    // The points are thinned to the plot's pixels: a new size, a new thinning.
    if (m_plan)
        redraw();
}

void PlanView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
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
    redraw(); // the current scenario's marker moves
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
    const bool same_gpus = m_plan && m_plan->request.gpus.size() == plan->request.gpus.size();
    m_plan = std::move(plan);
    if (!same_gpus) {
        for (QScatterSeries* s : m_gpu_series)
            if (s) {
                m_qchart->removeSeries(s);
                delete s;
            }
        m_gpu_series.assign(m_plan->request.gpus.size(), nullptr);
    }
    // One series per GPU with a price, in the GPUs' order so colours stay put.
    for (std::size_t g = 0; g < m_plan->request.gpus.size(); ++g) {
        const GpuProfile& gpu = m_plan->request.gpus[g];
        if (!gpu.usd_per_gpu_hour || m_gpu_series[g])
            continue;
        auto* s = new QScatterSeries;
        s->setName(QString::fromStdString(gpu.id));
        s->setMarkerSize(7);
        m_qchart->addSeries(s);
        s->attachAxis(m_hours);
        s->attachAxis(m_usd);
        const int index = static_cast<int>(g);
        connect(s, &QScatterSeries::hovered, this,
                [this, index](const QPointF& p, bool state) { onHovered(index, p, state); });
        connect(s, &QScatterSeries::clicked, this,
                [this, index](const QPointF& p) { onClicked(index, p); });
        m_gpu_series[g] = s;
    }
    // The front and the current scenario stay on top of the points.
    for (QAbstractSeries* top :
         std::initializer_list<QAbstractSeries*>{m_pareto, m_pareto_points, m_current}) {
        m_qchart->removeSeries(top);
        m_qchart->addSeries(top);
        top->attachAxis(m_hours);
        top->attachAxis(m_usd);
    }
    applyTheme();
    redraw();
}

PlanChoices PlanView::choices() const {
    PlanChoices c;
    c.epochs = m_epochs->value();
    c.dataset_images = m_images->value();
    c.constraints.max_gpus = m_max_gpus->value();
    if (m_max_batch->value() > 0)
        c.constraints.max_global_batch = m_max_batch->value();
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
    m_images->setValue(static_cast<int>(std::min<int64_t>(c.dataset_images, 2000000000)));
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

    m_chart_series_of.assign(m_gpu_series.size(), -1);
    for (std::size_t k = 0; k < m_chart.by_gpu.size(); ++k)
        m_chart_series_of[static_cast<std::size_t>(m_chart.by_gpu[k].gpu)] = static_cast<int>(k);
    for (std::size_t g = 0; g < m_gpu_series.size(); ++g) {
        if (!m_gpu_series[g])
            continue;
        const int k = m_chart_series_of[g];
        m_gpu_series[g]->replace(k >= 0 ? m_chart.by_gpu[static_cast<std::size_t>(k)].points
                                        : QList<QPointF>{});
    }
    updateLegend();
    m_excluded->replace(m_chart.excluded);
    m_pareto->replace(m_chart.pareto);
    m_pareto_points->replace(m_chart.pareto);

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

    QList<QPointF> current;
    if (const auto i = candidateFor(*m_plan, m_settings)) {
        const PlanPoint p = retimed(m_plan->candidates[*i], m_chart.scale);
        if (p.cost_usd)
            current.append(QPointF(p.hours, *p.cost_usd));
    }
    m_current->replace(current);
    updateSummary();
    emit redrawn();
}

void PlanView::updateLegend() {
    QString html;
    for (std::size_t g = 0; g < m_gpu_series.size(); ++g)
        if (m_gpu_series[g] && m_chart_series_of[g] >= 0)
            html +=
                QStringLiteral("<span style='color:%1'>&#9679;</span>&nbsp;%2 &nbsp; ")
                    .arg(m_gpu_series[g]->color().name(), m_gpu_series[g]->name().toHtmlEscaped());
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
                    .arg(m_inputs.network.toHtmlEscaped());
    if (!m_error.isEmpty())
        text += QStringLiteral("<span style='color:#c0392b'>%1</span><br>")
                    .arg(m_error.toHtmlEscaped());
    if (m_plan) {
        const PlanSelection& s = m_chart.selection;
        const PlanChoices c = choices();
        m_qchart->setTitle(tr("%1, %2 epochs of %3 images: time to train against cost")
                               .arg(m_plan->inputs.network, locale.toString(c.epochs),
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
                ids << QString::fromStdString(m_plan->request.gpus[static_cast<std::size_t>(g)].id);
            notes << tr("%n GPU(s) without a price not shown", nullptr,
                        static_cast<int>(ids.size()));
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

std::optional<std::size_t> PlanView::candidateAt(int set, const QPointF& point) const {
    // Which points the series holds: a GPU's, the excluded ones or the front's.
    const QList<QPointF>* points = nullptr;
    const std::vector<std::size_t>* candidates = nullptr;
    if (set == kExcludedSet) {
        points = &m_chart.excluded;
        candidates = &m_chart.excluded_candidates;
    } else if (set == kParetoSet) {
        points = &m_chart.pareto;
        candidates = &m_chart.selection.pareto;
    } else if (set >= 0 && static_cast<std::size_t>(set) < m_chart_series_of.size()) {
        const int k = m_chart_series_of[static_cast<std::size_t>(set)];
        if (k < 0)
            return std::nullopt;
        points = &m_chart.by_gpu[static_cast<std::size_t>(k)].points;
        candidates = &m_chart.by_gpu[static_cast<std::size_t>(k)].candidates;
    } else {
        return std::nullopt;
    }
    // The signal hands back the point's own coordinates; the nearest in log space is it.
    std::optional<std::size_t> best;
    double best_distance = INFINITY;
    for (qsizetype i = 0; i < points->size(); ++i) {
        const QPointF& q = (*points)[i];
        const double dx = std::log10(q.x() / point.x());
        const double dy = std::log10(q.y() / point.y());
        const double d = dx * dx + dy * dy;
        if (d < best_distance) {
            best_distance = d;
            best = (*candidates)[static_cast<std::size_t>(i)];
        }
    }
    return best;
}

void PlanView::onHovered(int gpu, const QPointF& point, bool state) {
    if (!state || !m_plan) {
        QToolTip::hideText();
        return;
    }
    if (const auto i = candidateAt(gpu, point))
        QToolTip::showText(
            QCursor::pos(),
            describeCandidate(*m_plan, retimed(m_plan->candidates[*i], m_chart.scale)) +
                tr("<br><i>Click to make it the scenario.</i>"),
            m_view);
}

void PlanView::onClicked(int gpu, const QPointF& point) {
    if (const auto i = candidateAt(gpu, point))
        emit scenarioChosen(scenarioForCandidate(*i));
}

ScenarioSettings PlanView::scenarioForCandidate(std::size_t candidate) const {
    return scenarioFor(*m_plan, m_plan->candidates[candidate], m_settings);
}

} // namespace iterscope::ui
