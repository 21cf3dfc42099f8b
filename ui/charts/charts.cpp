#include "charts/charts.h"

#include "charts/chart_legend.h"
#include "charts/curve_values.h"

#include "timeline/time_window.h"
#include "widgets/format.h"

#include <QBoxLayout>
#include <QEvent>
#include <QFileInfo>
#include <QGraphicsRectItem>
#include <QHeaderView>
#include <QHelpEvent>
#include <QTableWidget>
#include <QToolButton>
#include <QToolTip>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace iterscope::ui {
namespace {
// Tableau 10: distinct on light and dark backgrounds.
const QColor kSlotColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                              QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
                              QColor(0x94, 0x67, 0xbd)};

// The current scenario's blue is too dark to see on a dark chart; a lighter one there.
QColor slotColor(std::size_t slot, bool dark) {
    if (slot == 0 && dark)
        return QColor(0x5a, 0xb0, 0xf0);
    return kSlotColors[slot];
}

// Efficiency in whole tens of percent: 0-120 in steps of 20 covers all but superlinear
// curves, which get a 1-2-5 range of their own.
void setEfficiencyRange(QValueAxis* axis, double max_percent) {
    if (max_percent <= 118) {
        if (axis->tickCount() != 7)
            axis->setTickCount(7);
        if (axis->max() != 120 || axis->min() != 0)
            axis->setRange(0, 120);
        return;
    }
    setNiceRange(axis, max_percent * 1.05);
}

// replace() relayouts the series' item even when nothing changed, as for the empty pin
// slots on every result.
void replaceIfChanged(QXYSeries* series, const QList<QPointF>& points) {
    if (series->points() != points)
        series->replace(points);
}

struct LegendEntry {
    int slot;
    QString title;
    const ScenarioLabel* label;
};

std::vector<LegendEntry> legendEntries(const ResultPtr& current, const QList<PinnedCurves>& pins) {
    std::vector<LegendEntry> entries;
    if (current)
        entries.push_back({0, ScalingChartsView::tr("Current"), &current->label});
    for (int i = 0; i < pins.size(); ++i)
        entries.push_back({i + 1, ScalingChartsView::tr("Pin %1").arg(i + 1), &pins[i].label});
    return entries;
}

LegendTexts legendTextsOf(const std::vector<LegendEntry>& entries) {
    QList<ScenarioLabel> labels;
    for (const auto& e : entries)
        labels.append(*e.label);
    return legendTexts(labels);
}
} // namespace

bool isDarkPalette(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128;
}

ScalingChartsView::ScalingChartsView(QWidget* parent)
    : QWidget(parent) {
    m_gpu = makeChart(tr("Scaling with GPU count"), tr("GPUs in total (log₂)"), true);
    m_batch = makeChart(tr("Scaling with batch per GPU"), tr("Batch per GPU (log₂)"), false);
    m_gpu_view = new QChartView(m_gpu.chart, this);
    m_batch_view = new QChartView(m_batch.chart, this);
    // The marker is no series: it follows the plot area when the chart is laid out again.
    connect(m_gpu.chart, &QChart::plotAreaChanged, this, [this] { placeMarker(m_gpu); });
    connect(m_batch.chart, &QChart::plotAreaChanged, this, [this] { placeMarker(m_batch); });
    for (auto* view : {m_gpu_view, m_batch_view}) {
        view->setRenderHint(QPainter::Antialiasing);
        // Small enough for a 1280×720 window, stacked, with a two-line banner above.
        view->setMinimumSize(260, 90);
    }
    // Hovering a point shows its values; elsewhere the tooltip says what the chart shows.
    m_gpu_view->setProperty("explanation",
                            tr("Images per second over all GPUs, and scaling efficiency "
                               "(images/s divided by GPU count × one GPU's images/s), at the "
                               "current batch per GPU"));
    m_batch_view->setProperty("explanation",
                              tr("Images per second and scaling efficiency against the batch "
                                 "per GPU, at the current GPU count"));
    m_gpu_view->viewport()->installEventFilter(this);
    m_batch_view->viewport()->installEventFilter(this);
    m_legend = new ChartLegend(this);
    m_legend->setObjectName(QStringLiteral("chartLegend"));
    auto* charts = new QBoxLayout(QBoxLayout::LeftToRight);
    charts->setObjectName(QStringLiteral("chartsLayout"));
    charts->addWidget(m_gpu_view);
    charts->addWidget(m_batch_view);
    // The plotted values on demand: hovering tells one point, a report needs them all.
    m_values_button = new QToolButton(this);
    m_values_button->setObjectName(QStringLiteral("showValues"));
    m_values_button->setText(tr("Values"));
    m_values_button->setCheckable(true);
    m_values_button->setToolTip(tr("Show the plotted values as tables under the charts"));
    connect(m_values_button, &QToolButton::toggled, this, &ScalingChartsView::setValuesShown);
    m_values = new QWidget(this);
    auto* tables = new QHBoxLayout(m_values);
    tables->setContentsMargins(0, 0, 0, 0);
    for (QTableWidget** table : {&m_gpu_values, &m_batch_values}) {
        *table = new QTableWidget(m_values);
        (*table)->verticalHeader()->hide();
        (*table)->setEditTriggers(QAbstractItemView::NoEditTriggers);
        (*table)->setMinimumHeight(80);
        tables->addWidget(*table);
    }
    m_values->setMaximumHeight(220);
    m_values->hide();
    auto* legend_row = new QHBoxLayout;
    legend_row->setContentsMargins(0, 0, 0, 0);
    legend_row->addWidget(m_legend, 1);
    legend_row->addWidget(m_values_button, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(charts, 1);
    layout->addLayout(legend_row);
    layout->addWidget(m_values);
    applyTheme();
    refresh();
}

QAbstractAxis* ScalingChartsView::Chart::throughputAxis() const {
    return throughput_log ? static_cast<QAbstractAxis*>(throughput_log)
                          : static_cast<QAbstractAxis*>(throughput);
}

ScalingChartsView::Chart ScalingChartsView::makeChart(const QString& title, const QString& x_title,
                                                      bool log_throughput) {
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
    if (log_throughput) {
        c.throughput_log = new QLogValueAxis;
        c.throughput_log->setBase(10);
        c.throughput_log->setLabelFormat(QStringLiteral("%g"));
        // 2 to 9 times each decade, so that values between the labels read too.
        c.throughput_log->setMinorTickCount(8);
        setDecadeRange(c.throughput_log, 100, 1000);
    } else {
        c.throughput = new QValueAxis;
        c.throughput->setLabelFormat(QStringLiteral("%.0f"));
    }
    c.throughputAxis()->setTitleText(tr("images/s"));
    c.efficiency = new QValueAxis;
    c.efficiency->setTitleText(tr("efficiency %"));
    c.efficiency->setLabelFormat(QStringLiteral("%.0f"));
    setEfficiencyRange(c.efficiency, 100);
    // Numbers need no truncation, and Qt's truncation, once made at a transient small
    // size (a legend growing by a pin), stayed: "..." for every efficiency label.
    for (QAbstractAxis* axis : {static_cast<QAbstractAxis*>(c.x), c.throughputAxis(),
                                static_cast<QAbstractAxis*>(c.efficiency)})
        axis->setTruncateLabels(false);
    c.chart->addAxis(c.x, Qt::AlignBottom);
    c.chart->addAxis(c.throughputAxis(), Qt::AlignLeft);
    c.chart->addAxis(c.efficiency, Qt::AlignRight);
    // Series paint in the order they were added: the error band under everything, then the
    // pins, so the current scenario (slot 0) is drawn over them.
    c.band_low = new QLineSeries(c.chart);
    c.band_high = new QLineSeries(c.chart);
    c.band = new QAreaSeries(c.band_high, c.band_low);
    c.band->setName(tr("error band"));
    c.band->setPen(Qt::NoPen);
    c.chart->addSeries(c.band);
    c.band->attachAxis(c.x);
    c.band->attachAxis(c.throughputAxis());
    for (std::size_t i = 1; i <= c.lines.size(); ++i) {
        auto& slot = c.lines[i % c.lines.size()];
        slot.throughput = new QLineSeries;
        slot.efficiency = new QLineSeries;
        for (auto* s : {slot.throughput, slot.efficiency}) {
            s->setPointsVisible(true);
            c.chart->addSeries(s);
            s->attachAxis(c.x);
        }
        slot.throughput->attachAxis(c.throughputAxis());
        slot.efficiency->attachAxis(c.efficiency);
    }
    // Not a scatter series: Qt Charts repaints a series' whole plot area when one of its
    // points moves, and the marker moves on every slider step, while on the batch chart
    // nothing else does.
    c.marker = new QGraphicsRectItem(-5.5, -5.5, 11, 11, c.chart);
    c.marker->setZValue(1000); // over every series
    c.marker->hide();
    c.overflow = new QScatterSeries;
    c.overflow->setMarkerSize(9);
    c.measured = new QScatterSeries;
    c.measured->setName(tr("measured"));
    c.measured->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
    c.measured->setMarkerSize(12);
    for (auto* s : {c.overflow, c.measured}) {
        c.chart->addSeries(s);
        s->attachAxis(c.x);
        s->attachAxis(c.throughputAxis());
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
    const bool stacked = isStacked();
    const bool restacked = stacked != (event->oldSize().width() < kStackedBelow);
    if (auto* charts = findChild<QBoxLayout*>(QStringLiteral("chartsLayout")))
        charts->setDirection(stacked ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
    const int legend_height = m_legend->sizeHint().height();
    const int chart_width = stacked ? width() : width() / 2;
    const int chart_height = (height() - legend_height) / (stacked ? 2 : 1);
    const bool was_tiny = m_tiny;
    setCompact(chart_width < 440 || chart_height < 220, chart_width < 560, chart_height < 170);
    if (m_tiny != was_tiny || (m_tiny && restacked))
        updateLegend(); // the key names the charts while their axes cannot
    QWidget::resizeEvent(event);
}

void ScalingChartsView::setCompact(bool compact, bool sparse_x, bool tiny) {
    // A small chart drops what the rest of the window already says: its title (the x axis
    // names it), long axis titles, and every other GPU-count label (powers of 4, not 2). A
    // tiny one drops the x axis' title too (the tab and the tick labels say it; Qt would
    // show "…" in its place).
    if (compact == m_compact && sparse_x == m_sparse_x && tiny == m_tiny)
        return;
    m_compact = compact;
    m_sparse_x = sparse_x;
    m_tiny = tiny;
    applyTitles();
    refreshWhenVisible(); // the throughput title depends on it
}

void ScalingChartsView::setTitlesForced(bool forced) {
    if (forced == m_titles_forced)
        return;
    m_titles_forced = forced;
    applyTitles();
    updateLegend();
}

void ScalingChartsView::applyTitles() {
    const std::pair<Chart*, bool> charts[] = {{&m_gpu, true}, {&m_batch, false}};
    const bool titled = !m_compact || m_titles_forced;
    for (auto [c, by_gpus] : charts) {
        const QString title = !titled   ? QString()
                              : by_gpus ? tr("Scaling with GPU count")
                                        : tr("Scaling with batch per GPU");
        if (c->chart->title() != title)
            c->chart->setTitle(title);
        c->x->setTitleText(by_gpus
                               ? (m_compact ? tr("GPUs") : tr("GPUs in total (log₂)"))
                               : (m_compact ? tr("batch per GPU") : tr("Batch per GPU (log₂)")));
        c->x->setTitleVisible(!m_tiny || m_titles_forced);
        c->x->setBase(m_sparse_x ? 4 : 2);
        c->efficiency->setTitleText(m_compact ? tr("eff. %") : tr("efficiency %"));
    }
}

bool ScalingChartsView::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::ToolTip)
        return QWidget::eventFilter(watched, event);
    for (auto* view : {m_gpu_view, m_batch_view}) {
        if (watched != view->viewport())
            continue;
        const QPoint pos = static_cast<QHelpEvent*>(event)->pos();
        QString tip = pointTip(view == m_gpu_view, view->mapToScene(pos));
        if (tip.isEmpty())
            tip = view->property("explanation").toString();
        QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), tip, view);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

QString ScalingChartsView::pointTip(bool by_gpus, const QPointF& scene_pos) const {
    // The point nearest the pointer, over every curve shown, within a few pixels.
    const Chart& c = by_gpus ? m_gpu : m_batch;
    const double unit = m_units[by_gpus ? 0 : 1];
    constexpr double kReachPx = 10;
    double best = kReachPx * kReachPx;
    QString tip;
    const auto consider = [&](const QString& who, const ScalingCurves& curves) {
        for (const auto& p : by_gpus ? curves.by_gpus : curves.by_batch) {
            const QPointF at_throughput =
                c.chart->mapToPosition({p.x, p.images_per_second / unit}, c.lines[0].throughput);
            const QPointF at_efficiency =
                c.chart->mapToPosition({p.x, p.efficiency * 100}, c.lines[0].efficiency);
            for (const QPointF& at : {at_throughput, at_efficiency}) {
                const QPointF d = c.chart->mapToScene(at) - scene_pos;
                const double d2 = d.x() * d.x() + d.y() * d.y();
                if (d2 >= best)
                    continue;
                best = d2;
                const QString where = by_gpus ? (p.x == 1 ? tr("1 GPU") : tr("%1 GPUs").arg(p.x))
                                              : tr("batch %1").arg(p.x);
                const QString band = formatBand(p.images_per_second, p.images_per_second_low,
                                                p.images_per_second_high);
                tip = tr("<b>%1</b>, %2:<br>%3 images/s%4<br>scaling efficiency %5%6")
                          .arg(who.toHtmlEscaped(), where, formatRate(p.images_per_second),
                               band.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(band),
                               formatPercent(p.efficiency),
                               p.fits_in_memory ? QString()
                                                : tr("<br><b>does not fit in GPU memory</b>"));
            }
        }
    };
    if (m_result)
        consider(tr("Current"), m_result->curves);
    for (qsizetype i = 0; i < m_pins.size(); ++i)
        consider(tr("Pin %1").arg(i + 1), m_pins[i].curves);
    for (const MeasuredPoint& p : measuredPoints(by_gpus)) {
        const double x = by_gpus ? p.gpus : p.batch;
        const QPointF at = c.chart->mapToScene(
            c.chart->mapToPosition({x, p.images_per_second / unit}, c.measured));
        const QPointF d = at - scene_pos;
        const double d2 = d.x() * d.x() + d.y() * d.y();
        if (d2 >= best)
            continue;
        best = d2;
        tip = tr("<b>Measured</b> (%1), %2 GPU(s), batch %3:<br>%4 images/s")
                  .arg(p.label.toHtmlEscaped())
                  .arg(p.gpus)
                  .arg(p.batch)
                  .arg(formatRate(p.images_per_second));
    }
    return tip;
}

void ScalingChartsView::setResult(ResultPtr result) {
    if (result == m_result)
        return; // the curves that came with the prediction, once more
    m_result = std::move(result);
    refreshWhenVisible();
}

bool ScalingChartsView::pinCurrent() {
    if (!m_result)
        return false;
    if (m_pins.size() >= kMaxPins)
        m_pins.removeFirst();
    m_pins.append({m_result->settings, m_result->curves, m_result->label});
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

void ScalingChartsView::setMeasurements(std::vector<ValidationRow> rows, const QString& file) {
    m_measurements = std::move(rows);
    m_measurements_file = file;
    refreshWhenVisible();
}

std::vector<MeasuredPoint> ScalingChartsView::measuredPoints(bool by_gpus) const {
    std::vector<MeasuredPoint> out;
    if (!m_result)
        return out;
    const ScenarioSettings& s = m_result->settings;
    std::vector<MeasuredPoint> all = measuredPointsFor(m_measurements, s);
    // The traced run, where it trained the scenario's network on the same GPU and precision.
    if (const auto& t = m_result->trace; t && t->trace && t->images_per_second > 0) {
        const ScenarioSettings& traced = t->trace->settings;
        if (traced.gpu == s.gpu && traced.precision == s.precision && traced.network == s.network &&
            traced.image == s.image)
            all.push_back({traced.totalGpus(), traced.batch, t->images_per_second,
                           tr("trace %1").arg(QFileInfo(t->trace->path).fileName())});
    }
    for (const MeasuredPoint& p : all)
        if (by_gpus ? p.batch == s.batch : p.gpus == s.totalGpus())
            out.push_back(p);
    return out;
}

int ScalingChartsView::measuredPointCount() const {
    return static_cast<int>(measuredPoints(true).size() + measuredPoints(false).size());
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
    updateLegend();
    updateValues();
}

void ScalingChartsView::setValuesShown(bool shown) {
    if (m_values_button->isChecked() != shown)
        m_values_button->setChecked(shown); // comes back here through toggled()
    m_values->setVisible(shown);
    updateValues();
}

bool ScalingChartsView::valuesShown() const {
    return m_values_button->isChecked();
}

void ScalingChartsView::updateValues() {
    if (!valuesShown())
        return; // a slider drag does not pay for tables nobody sees
    showCurveValues(m_gpu_values, curveValues(m_result, m_pins, true));
    showCurveValues(m_batch_values, curveValues(m_result, m_pins, false));
}

QStringList ScalingChartsView::legendLines() const {
    const auto entries = legendEntries(m_result, m_pins);
    const LegendTexts texts = legendTextsOf(entries);
    QStringList lines;
    if (!texts.shared.isEmpty())
        lines << tr("All: %1").arg(texts.shared);
    for (std::size_t i = 0; i < entries.size(); ++i)
        lines << QStringLiteral("%1: %2").arg(entries[i].title,
                                              texts.own[static_cast<qsizetype>(i)]);
    return lines;
}

void ScalingChartsView::updateLegend() {
    // What the curves share is said once, on one line (the window title and an export's
    // caption have it whole); what tells them apart is said in full for each.
    const auto entries = legendEntries(m_result, m_pins);
    const LegendTexts texts = legendTextsOf(entries);
    const bool dark = isDarkPalette(palette());
    std::vector<ChartLegend::Entry> shown;
    for (std::size_t i = 0; i < entries.size(); ++i)
        shown.push_back({slotColor(static_cast<std::size_t>(entries[i].slot), dark),
                         entries[i].title, texts.own[static_cast<qsizetype>(i)]});
    // A tiny chart shows no x axis title, and both charts' ticks run from 1 to 1024: the key
    // says which is which (a caption above each would take a third of their height), in the
    // room of the axes' sides, which its ticks show ("100k", "80%").
    QString key =
        m_tiny && !m_titles_forced
            ? (isStacked() ? tr("Upper: by GPU count · lower: by batch per GPU")
                           : tr("Left: by GPU count · right: by batch per GPU")) +
                  tr(" · solid: images/s · dashed: efficiency · shaded: 80% error band · ■ this "
                     "scenario · ★ out of memory")
            : tr("Solid: images/s (left) · dashed: efficiency (right) · shaded: 80% error "
                 "band · ■ this scenario · ★ does not fit in memory");
    if (measuredPointCount() > 0)
        key += tr(" · ▲ measured");
    m_legend->setContent(texts.shared, shown, key);
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
    QString title = unit > 1 ? (m_compact ? tr("k img/s") : tr("thousand images/s"))
                             : (m_compact ? tr("img/s") : tr("images/s"));
    if (c.throughput_log && !m_compact)
        title += tr(" (log)");
    if (c.throughputAxis()->titleText() != title)
        c.throughputAxis()->setTitleText(title);
    // A tiny chart has no height for a vertical title (Qt draws "k i…" and "eff…"): its
    // ticks carry the units instead, and the key under the charts names the two curves.
    const bool untitled = m_tiny && !m_titles_forced;
    const QString thousands = unit > 1 && untitled ? QStringLiteral("k") : QString();
    if (c.throughput_log)
        c.throughput_log->setLabelFormat(QStringLiteral("%g") + thousands);
    else
        c.throughput->setLabelFormat(QStringLiteral("%.0f") + thousands);
    c.throughputAxis()->setTitleVisible(!untitled);
    c.efficiency->setLabelFormat(untitled ? QStringLiteral("%.0f%%") : QStringLiteral("%.0f"));
    c.efficiency->setTitleVisible(!untitled);
    const bool dark = isDarkPalette(palette());
    double max_throughput = 0, max_efficiency = 0;
    double min_throughput = std::numeric_limits<double>::infinity(); // above 0, for the log axis
    const auto lowest = [&](double v) {
        if (v > 0)
            min_throughput = std::min(min_throughput, v);
    };
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
                lowest(p.images_per_second / unit);
                max_efficiency = std::max(max_efficiency, p.efficiency * 100);
            }
        }
        replaceIfChanged(s.throughput, throughput);
        replaceIfChanged(s.efficiency, efficiency);
        if (slot == 0) {
            QList<QPointF> low, high;
            if (curves)
                for (const auto& p : by_gpus ? curves->by_gpus : curves->by_batch) {
                    low.append({p.x, p.images_per_second_low / unit});
                    high.append({p.x, p.images_per_second_high / unit});
                    max_throughput = std::max(max_throughput, p.images_per_second_high / unit);
                    lowest(p.images_per_second_low / unit);
                }
            replaceIfChanged(c.band_low, low);
            replaceIfChanged(c.band_high, high);
            QColor shade = slotColor(0, dark);
            shade.setAlpha(dark ? 70 : 50);
            c.band->setBrush(shade);
            // The dark theme gives area series a light outline (a white line around the
            // band); setTheme() puts it back, so it goes here, not at creation.
            c.band->setPen(QPen(Qt::NoPen));
            c.band->setVisible(curves != nullptr);
        }
        const QColor color = slotColor(slot, dark);
        QPen solid(color, slot == 0 ? 3 : 2);
        QPen dashed(color, 1.5, Qt::DashLine);
        s.throughput->setPen(solid);
        s.throughput->setBrush(color);
        s.efficiency->setPen(dashed);
        s.efficiency->setBrush(color);
        s.throughput->setVisible(curves != nullptr);
        s.efficiency->setVisible(curves != nullptr);
    }
    QList<QPointF> overflow;
    c.marker_at.reset();
    if (m_result) {
        const auto& p = m_result->prediction;
        const double x = by_gpus ? m_result->settings.totalGpus() : m_result->settings.batch;
        c.marker_at = QPointF(x, p.images_per_second / unit);
        if (!by_gpus) {
            for (const auto& point : m_result->curves.by_batch)
                if (!point.fits_in_memory)
                    overflow.append({point.x, point.images_per_second / unit});
        }
    }
    c.marker->setBrush(dark ? slotColor(0, true) : kSlotColors[0].darker(130));
    c.marker->setPen(QPen(palette().color(QPalette::Text), 1));
    replaceIfChanged(c.overflow, overflow);
    c.overflow->setColor(QColor(0xd6, 0x27, 0x28));
    c.overflow->setMarkerShape(QScatterSeries::MarkerShapeStar);
    QList<QPointF> measured;
    for (const MeasuredPoint& p : measuredPoints(by_gpus)) {
        measured.append({by_gpus ? double(p.gpus) : double(p.batch), p.images_per_second / unit});
        max_throughput = std::max(max_throughput, p.images_per_second / unit);
        lowest(p.images_per_second / unit);
    }
    replaceIfChanged(c.measured, measured);
    // Black (white in the dark) triangles: no curve has that colour.
    c.measured->setColor(palette().color(QPalette::Text));
    c.measured->setBorderColor(palette().color(QPalette::Base));
    c.measured->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
    // Without data a round range keeps the empty axes readable while loading.
    if (c.throughput_log) {
        if (max_throughput > 0 && std::isfinite(min_throughput))
            setDecadeRange(c.throughput_log, min_throughput, max_throughput);
        else
            setDecadeRange(c.throughput_log, 100, 1000);
    } else {
        setNiceRange(c.throughput, max_throughput > 0 ? max_throughput * 1.08 : 1000);
    }
    setEfficiencyRange(c.efficiency, max_efficiency);
    m_units[by_gpus ? 0 : 1] = unit;
    placeMarker(c);
}

void ScalingChartsView::placeMarker(Chart& c) {
    if (!c.marker_at) {
        c.marker->hide();
        return;
    }
    const QPointF at = c.chart->mapToPosition(*c.marker_at, c.overflow);
    c.marker->setPos(at);
    c.marker->setVisible(c.chart->plotArea().adjusted(-1, -1, 1, 1).contains(at));
}

int setDecadeRange(QLogValueAxis* axis, double min, double max) {
    if (!(min > 0) || !std::isfinite(min))
        min = 1;
    if (!(max > min) || !std::isfinite(max))
        max = min * 10;
    int low = static_cast<int>(std::floor(std::log10(min) + 1e-9));
    int high = static_cast<int>(std::ceil(std::log10(max) - 1e-9));
    if (high <= low)
        high = low + 1;
    // Qt labels the powers of the base inside the range; an end exactly on one can round
    // out of it, and the lowest decade lost its label.
    const double lo = std::pow(10.0, low) * 0.98, hi = std::pow(10.0, high) * 1.02;
    if (axis->min() != lo || axis->max() != hi)
        axis->setRange(lo, hi);
    return high - low;
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
