#include "charts/layer_chart.h"

#include "charts/charts.h"
#include "layers/layer_names.h"

#include <QEvent>
#include <QResizeEvent>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QHorizontalStackedBarSeries>
#include <QtCharts/QLegend>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <numeric>

namespace iterscope::ui {

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
    // The names are elided in the middle to a budget that fits (resizeEvent); Qt's own
    // truncation cuts at the end, and after some relayouts it left "..." on every bar.
    m_layers->setTruncateLabels(false);
    m_ms = new QValueAxis;
    m_ms->setTruncateLabels(false);
    m_ms->setTitleText(tr("milliseconds"));
    chart->addAxis(m_layers, Qt::AlignLeft);
    chart->addAxis(m_ms, Qt::AlignBottom);
    m_series->attachAxis(m_layers);
    m_series->attachAxis(m_ms);
    chart->legend()->setAlignment(Qt::AlignBottom);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(260, 150);
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

void LayerChartView::resizeEvent(QResizeEvent* event) {
    QChartView::resizeEvent(event);
    // Category labels cannot elide by width, so the names get a character budget of a
    // little under a third of the chart, and the title a short form when narrow.
    const int chars =
        std::clamp(width() * 10 / (35 * std::max(1, fontMetrics().averageCharWidth())), 10, 40);
    applyTitle();
    if (chars != m_name_chars) {
        m_name_chars = chars;
        if (isVisible())
            refresh();
        else
            m_stale = true;
    }
}

void LayerChartView::setTitlesForced(bool forced) {
    m_titles_forced = forced;
    applyTitle();
}

void LayerChartView::applyTitle() {
    const QString title = width() >= 560 || m_titles_forced
                              ? tr("Most expensive layers (forward + backward per iteration)")
                              : tr("Most expensive layers");
    if (chart()->title() != title)
        chart()->setTitle(title);
}

QStringList LayerChartView::categories() const {
    return m_layers->categories();
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
    QStringList full;
    QList<qreal> forward, backward;
    double max_ms = 0;
    // Horizontal bars run bottom-up; the most expensive layer goes on top.
    for (std::size_t k = n; k-- > 0;) {
        const auto& t = layers[order[k]];
        QString name = t.layer < result->network->network.layers.size()
                           ? QString::fromStdString(result->network->network.layers[t.layer].name)
                           : result->layerName(t.layer);
        // Every bar names its module path and its op; a path of dots ("layer1.0.conv1")
        // gets its op as a last segment, as an exported path has it.
        if (const QString op = result->layerOp(t.layer);
            !op.isEmpty() && !name.endsWith(QLatin1Char('/') + op))
            name += QLatin1Char('/') + op;
        full.append(name);
        forward.append(t.forward_ms);
        backward.append(t.backward_ms);
        max_ms = std::max(max_ms, t.forward_ms + t.backward_ms);
    }
    // Category names must be unique or bars merge; they are also what a report's reader
    // tells the bars apart by.
    const QStringList names = distinctLayerLabels(full, m_name_chars);
    m_forward->remove(0, m_forward->count());
    m_backward->remove(0, m_backward->count());
    m_forward->append(forward);
    m_backward->append(backward);
    if (m_layers->categories() != names) // a slider move rarely changes which layers cost most
        m_layers->setCategories(names);
    setNiceRange(m_ms, max_ms > 0 ? max_ms * 1.05 : 1);
}

} // namespace iterscope::ui
