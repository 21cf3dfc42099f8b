#include "charts.h"

#include "format.h"
#include "time_window.h"

#include <QBoxLayout>
#include <QEvent>
#include <QLabel>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QHorizontalStackedBarSeries>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace iterscope::ui {
namespace {
// Tableau 10: distinct on light and dark backgrounds.
const QColor kSlotColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                              QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
                              QColor(0x94, 0x67, 0xbd)};

// replace() relayouts the series' item even when nothing changed, as for the empty pin
// slots on every result.
void replaceIfChanged(QXYSeries* series, const QList<QPointF>& points) {
    if (series->points() != points)
        series->replace(points);
}

QString legendHtml(const ResultPtr& current, const QList<PinnedCurves>& pins) {
    QString html;
    const auto entry = [&](int slot, const QString& title, const ScenarioSettings& s) {
        html +=
            QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;<b>%2</b> %3<br>")
                .arg(kSlotColors[slot].name(), title.toHtmlEscaped(), s.label().toHtmlEscaped());
    };
    if (current)
        entry(0, ScalingChartsView::tr("Current:"), current->settings);
    for (int i = 0; i < pins.size(); ++i)
        entry(i + 1, ScalingChartsView::tr("Pin %1:").arg(i + 1), pins[i].settings);
    html += ScalingChartsView::tr("<i>Solid: images/s (left axis) · dashed: scaling efficiency "
                                  "(right axis) · ■ current scenario · ★ batch does not fit in "
                                  "GPU memory</i>");
    return html;
}
} // namespace

bool isDarkPalette(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128;
}

ScalingChartsView::ScalingChartsView(QWidget* parent)
    : QWidget(parent) {
    m_gpu = makeChart(tr("Scaling with GPU count"), tr("GPUs in total (log₂)"));
    m_batch = makeChart(tr("Scaling with batch per GPU"), tr("Batch per GPU (log₂)"));
    m_gpu_view = new QChartView(m_gpu.chart, this);
    m_batch_view = new QChartView(m_batch.chart, this);
    for (auto* view : {m_gpu_view, m_batch_view}) {
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumSize(320, 220);
    }
    m_gpu_view->setToolTip(tr("Images per second over all GPUs, and scaling efficiency "
                              "(images/s divided by GPU count × one GPU's images/s), at the "
                              "current batch per GPU"));
    m_batch_view->setToolTip(tr("Images per second and scaling efficiency against the batch "
                                "per GPU, at the current GPU count"));
    auto* legend = new QLabel(this);
    legend->setObjectName(QStringLiteral("chartLegend"));
    legend->setWordWrap(true);
    legend->setTextFormat(Qt::RichText);
    auto* charts = new QBoxLayout(QBoxLayout::LeftToRight);
    charts->setObjectName(QStringLiteral("chartsLayout"));
    charts->addWidget(m_gpu_view);
    charts->addWidget(m_batch_view);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(charts, 1);
    layout->addWidget(legend);
    applyTheme();
    refresh();
}

ScalingChartsView::Chart ScalingChartsView::makeChart(const QString& title,
                                                      const QString& x_title) {
    Chart c;
    c.chart = new QChart;
    c.chart->setTitle(title);
    c.chart->legend()->hide(); // one shared legend below both charts names the scenarios
    c.chart->setMargins(QMargins(4, 4, 4, 4));
    c.x = new QLogValueAxis;
    c.x->setBase(2);
    c.x->setLabelFormat(QStringLiteral("%g"));
    c.x->setRange(0.75, 1400);
    c.x->setMinorTickCount(0);
    c.x->setTitleText(x_title);
    c.throughput = new QValueAxis;
    c.throughput->setTitleText(tr("images/s"));
    c.throughput->setLabelFormat(QStringLiteral("%.0f"));
    c.efficiency = new QValueAxis;
    c.efficiency->setTitleText(tr("efficiency %"));
    c.efficiency->setRange(0, 110);
    c.efficiency->setLabelFormat(QStringLiteral("%.0f"));
    c.efficiency->setTickCount(6);
    c.chart->addAxis(c.x, Qt::AlignBottom);
    c.chart->addAxis(c.throughput, Qt::AlignLeft);
    c.chart->addAxis(c.efficiency, Qt::AlignRight);
    for (auto& slot : c.lines) {
        slot.throughput = new QLineSeries;
        slot.efficiency = new QLineSeries;
        for (auto* s : {slot.throughput, slot.efficiency}) {
            s->setPointsVisible(true);
            c.chart->addSeries(s);
            s->attachAxis(c.x);
        }
        slot.throughput->attachAxis(c.throughput);
        slot.efficiency->attachAxis(c.efficiency);
    }
    c.marker = new QScatterSeries;
    c.marker->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    c.marker->setMarkerSize(11);
    c.overflow = new QScatterSeries;
    c.overflow->setMarkerSize(9);
    for (auto* s : {c.marker, c.overflow}) {
        c.chart->addSeries(s);
        s->attachAxis(c.x);
        s->attachAxis(c.throughput);
    }
    return c;
}

void ScalingChartsView::applyTheme() {
    const bool dark = isDarkPalette(palette());
    for (auto* c : {m_gpu.chart, m_batch.chart}) {
        c->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
        c->setBackgroundBrush(palette().color(QPalette::Base));
        c->setTitleBrush(palette().color(QPalette::Text));
        for (auto* axis : c->axes()) {
            axis->setLabelsBrush(palette().color(QPalette::Text));
            axis->setTitleBrush(palette().color(QPalette::Text));
        }
    }
}

void ScalingChartsView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        applyTheme();
        refreshWhenVisible();
    }
    QWidget::changeEvent(event);
}

void ScalingChartsView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void ScalingChartsView::resizeEvent(QResizeEvent* event) {
    // Side by side when wide, stacked when narrow: a chart under ~450 px elides its labels.
    if (auto* charts = findChild<QBoxLayout*>(QStringLiteral("chartsLayout")))
        charts->setDirection(width() < 900 ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
    QWidget::resizeEvent(event);
}

void ScalingChartsView::setResult(ResultPtr result) {
    m_result = std::move(result);
    refreshWhenVisible();
}

bool ScalingChartsView::pinCurrent() {
    if (!m_result)
        return false;
    if (m_pins.size() >= kMaxPins)
        m_pins.removeFirst();
    m_pins.append({m_result->settings, m_result->curves});
    refreshWhenVisible();
    emit pinsChanged();
    return true;
}

void ScalingChartsView::setPins(const QList<PinnedCurves>& pins) {
    m_pins = pins.mid(std::max<qsizetype>(0, pins.size() - kMaxPins));
    refreshWhenVisible();
    emit pinsChanged();
}

void ScalingChartsView::clearPins() {
    m_pins.clear();
    refreshWhenVisible();
    emit pinsChanged();
}

void ScalingChartsView::refreshWhenVisible() {
    if (isVisible())
        refresh();
    else
        m_stale = true;
}

void ScalingChartsView::refresh() {
    m_stale = false;
    fill(m_gpu, true);
    fill(m_batch, false);
    if (auto* legend = findChild<QLabel*>(QStringLiteral("chartLegend")))
        legend->setText(legendHtml(m_result, m_pins));
}

void ScalingChartsView::fill(Chart& c, bool by_gpus) {
    // Large clusters reach hundreds of thousands of images/s; thousands keep labels short.
    double max_all = m_result ? m_result->prediction.images_per_second : 0;
    const auto scan = [&](const ScalingCurves& curves) {
        for (const auto& p : by_gpus ? curves.by_gpus : curves.by_batch)
            max_all = std::max(max_all, p.images_per_second);
    };
    if (m_result)
        scan(m_result->curves);
    for (const auto& pin : m_pins)
        scan(pin.curves);
    const double unit = max_all >= 20000 ? 1000 : 1;
    c.throughput->setTitleText(unit > 1 ? tr("thousand images/s") : tr("images/s"));
    double max_throughput = 0;
    for (std::size_t slot = 0; slot < c.lines.size(); ++slot) {
        const ScalingCurves* curves = nullptr;
        if (slot == 0 && m_result)
            curves = &m_result->curves;
        else if (slot > 0 && static_cast<qsizetype>(slot) <= m_pins.size())
            curves = &m_pins[static_cast<qsizetype>(slot) - 1].curves;
        auto& s = c.lines[slot];
        QList<QPointF> throughput, efficiency;
        if (curves) {
            for (const auto& p : by_gpus ? curves->by_gpus : curves->by_batch) {
                throughput.append({p.x, p.images_per_second / unit});
                efficiency.append({p.x, p.efficiency * 100});
                max_throughput = std::max(max_throughput, p.images_per_second / unit);
            }
        }
        replaceIfChanged(s.throughput, throughput);
        replaceIfChanged(s.efficiency, efficiency);
        const QColor color = kSlotColors[slot];
        QPen solid(color, slot == 0 ? 3 : 2);
        QPen dashed(color, 1.5, Qt::DashLine);
        s.throughput->setPen(solid);
        s.throughput->setBrush(color);
        s.efficiency->setPen(dashed);
        s.efficiency->setBrush(color);
        s.throughput->setVisible(curves != nullptr);
        s.efficiency->setVisible(curves != nullptr);
    }
    QList<QPointF> marker, overflow;
    if (m_result) {
        const auto& p = m_result->prediction;
        const double x = by_gpus ? m_result->settings.totalGpus() : m_result->settings.batch;
        marker.append({x, p.images_per_second / unit});
        if (!by_gpus) {
            for (const auto& point : m_result->curves.by_batch)
                if (!point.fits_in_memory)
                    overflow.append({point.x, point.images_per_second / unit});
        }
    }
    replaceIfChanged(c.marker, marker);
    c.marker->setColor(kSlotColors[0].darker(130));
    c.marker->setBorderColor(palette().color(QPalette::Text));
    replaceIfChanged(c.overflow, overflow);
    c.overflow->setColor(QColor(0xd6, 0x27, 0x28));
    c.overflow->setMarkerShape(QScatterSeries::MarkerShapeStar);
    // Without data a round range keeps the empty axes readable while loading.
    setNiceRange(c.throughput, max_throughput > 0 ? max_throughput * 1.08 : 1000);
}

LayerChartView::LayerChartView(QWidget* parent)
    : QChartView(parent) {
    auto* chart = new QChart;
    chart->setTitle(tr("Most expensive layers (forward + backward per iteration)"));
    m_forward = new QBarSet(tr("Forward"));
    m_backward = new QBarSet(tr("Backward"));
    m_forward->setColor(QColor(0x4c, 0x8b, 0xf5));
    m_backward->setColor(QColor(0xf0, 0x8c, 0x2e));
    m_series = new QHorizontalStackedBarSeries;
    m_series->append(m_forward);
    m_series->append(m_backward);
    chart->addSeries(m_series);
    m_layers = new QBarCategoryAxis;
    m_ms = new QValueAxis;
    m_ms->setTitleText(tr("milliseconds"));
    chart->addAxis(m_layers, Qt::AlignLeft);
    chart->addAxis(m_ms, Qt::AlignBottom);
    m_series->attachAxis(m_layers);
    m_series->attachAxis(m_ms);
    chart->legend()->setAlignment(Qt::AlignBottom);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 240);
    changeEvent(nullptr);
}

void LayerChartView::changeEvent(QEvent* event) {
    if (!event || event->type() == QEvent::PaletteChange) {
        chart()->setTheme(isDarkPalette(palette()) ? QChart::ChartThemeDark
                                                   : QChart::ChartThemeLight);
        chart()->setBackgroundBrush(palette().color(QPalette::Base));
        m_forward->setColor(QColor(0x4c, 0x8b, 0xf5));
        m_backward->setColor(QColor(0xf0, 0x8c, 0x2e));
    }
    if (event)
        QChartView::changeEvent(event);
}

void LayerChartView::setResult(ResultPtr result) {
    m_result = std::move(result);
    if (isVisible())
        refresh();
    else
        m_stale = true;
}

void LayerChartView::showEvent(QShowEvent* event) {
    QChartView::showEvent(event);
    if (m_stale)
        refresh();
}

void LayerChartView::refresh() {
    m_stale = false;
    const ResultPtr& result = m_result;
    std::vector<std::size_t> order;
    const auto& layers = result ? result->prediction.layers : std::vector<LayerTiming>{};
    order.resize(layers.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto cost = [&](std::size_t i) { return layers[i].forward_ms + layers[i].backward_ms; };
    const std::size_t n = std::min<std::size_t>(kLayers, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });
    QStringList names;
    QList<qreal> forward, backward;
    double max_ms = 0;
    // Horizontal bars run bottom-up; the most expensive layer goes on top.
    for (std::size_t k = n; k-- > 0;) {
        const auto& t = layers[order[k]];
        const auto& net = result->network->network;
        QString name = t.layer < net.layers.size()
                           ? QString::fromStdString(net.layers[t.layer].name)
                           : QString::number(t.layer);
        // Category names must be unique or bars merge.
        while (names.contains(name))
            name += QLatin1Char(' ');
        names.append(name);
        forward.append(t.forward_ms);
        backward.append(t.backward_ms);
        max_ms = std::max(max_ms, t.forward_ms + t.backward_ms);
    }
    m_forward->remove(0, m_forward->count());
    m_backward->remove(0, m_backward->count());
    m_forward->append(forward);
    m_backward->append(backward);
    if (m_layers->categories() != names) // a slider move rarely changes which layers cost most
        m_layers->setCategories(names);
    setNiceRange(m_ms, max_ms > 0 ? max_ms * 1.05 : 1);
}

double setNiceRange(QValueAxis* axis, double max) {
    constexpr double kIntervals = 5;
    if (!(max > 0) || !std::isfinite(max))
        max = 1;
    // The timeline's 1-2-5 rule: the smallest such step of at least max / kIntervals.
    const double step = niceTickStep(max / kIntervals, 1);
    const int intervals = std::max(1, static_cast<int>(std::ceil(max / step - 1e-9)));
    if (axis->tickCount() != intervals + 1)
        axis->setTickCount(intervals + 1);
    axis->setRange(0, intervals * step);
    return step;
}

} // namespace iterscope::ui
