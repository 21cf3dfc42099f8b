#include "timeline/timeline_view.h"

#include "widgets/format.h"

#include <QFileInfo>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QStringList>
#include <QToolTip>
#include <QVector>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cmath>

namespace iterscope::ui {
namespace {
constexpr int kMinTickSpacingPx = 90;
constexpr int kMargin = 8;
constexpr int kMaxGroupWidthPx = 150;

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(QString()); // tooltips come from event()
    setWhatsThis(tr("One training iteration on one GPU, or on one GPU of each group where "
                    "GPUs differ (pipeline stages). Wheel: zoom; drag: pan; double-click: "
                    "fit; click a bar: select its layer."));
}

QSize TimelineView::sizeHint() const {
    // Every row at its full height (geometryFor caps rows at that), axis and legend.
    const QFontMetrics fm = fontMetrics();
    // Every row at the height that shows its label, axis and legend.
    const int rows = std::max<int>(5, static_cast<int>(m_rows.rows.size()));
    return {900, 2 * (fm.height() + 10) + rows * (fm.height() + 4) + kMargin};
}

QSize TimelineView::minimumSizeHint() const {
    // Axis, five short rows and the legend: what a 1280×720 window has room for.
    return {300, 110};
}

double TimelineView::totalMs() const {
    return m_total_ms;
}

std::size_t TimelineView::eventCount() const {
    if (!m_result)
        return 0;
    const std::size_t measured = m_result->trace ? m_result->trace->timeline.size() : 0;
    return m_result->prediction.timeline.size() + measured;
}

bool TimelineView::isMeasured(std::size_t i) const {
    return m_result && i >= m_result->prediction.timeline.size();
}

const TimelineEvent& TimelineView::eventOf(std::size_t i) const {
    const auto& predicted = m_result->prediction.timeline;
    return i < predicted.size() ? predicted[i] : m_result->trace->timeline[i - predicted.size()];
}

void TimelineView::rebuildRows() {
    const bool measured = m_result && m_result->trace && !m_result->trace->timeline.empty();
    m_rows = m_result ? timelineRows(m_result->prediction, m_input_is_prefetch, measured)
                      : TimelineRows{};
    if (measured) {
        const auto& trace = *m_result->trace;
        appendMeasuredRows(
            m_rows, trace.timeline,
            {tr("Measured"), QFileInfo(trace.trace->path).fileName(),
             tr("step %1 of %2").arg(trace.step + 1).arg(trace.trace->analysis.steps.size())});
    }
    m_total_ms = 1;
    if (m_result) {
        m_total_ms = m_result->prediction.iteration_ms;
        for (std::size_t i = 0; i < eventCount(); ++i)
            m_total_ms = std::max(m_total_ms, eventOf(i).start_ms + eventOf(i).duration_ms);
        if (!(m_total_ms > 0))
            m_total_ms = 1;
    }
    rebuildText();
}

void TimelineView::rebuildText() const {
    // Row labels, group names and the legend are laid out once per result (and font), not
    // on every paint: a slider drag repaints the timeline on every step. Most are the same
    // from one result to the next, and are shaped once.
    const QFont f = font();
    m_row_text.clear();
    for (const auto& row : m_rows.rows)
        m_row_text.push_back(m_texts.get(row.label, f));
    m_group_width = 0;
    m_group_text.clear();
    for (const auto& block : m_rows.blocks) {
        std::vector<QString> lines;
        for (qsizetype i = 0; i < block.lines.size(); ++i) {
            if (i < 2)
                m_group_width = std::max(
                    m_group_width,
                    static_cast<int>(std::ceil(m_texts.get(block.lines[i], f).size().width())));
            lines.push_back(block.lines[i]);
        }
        m_group_text.push_back(std::move(lines));
    }
    if (m_rows.grouped)
        m_group_width = std::min(m_group_width, kMaxGroupWidthPx) + kMargin;
    m_legend_text.clear();
    for (int k = 0; k < kBarKinds; ++k) {
        const auto kind = static_cast<BarKind>(k);
        if (m_rows.has(kind))
            m_legend_text.push_back(
                {kind, m_texts.get(barKindLabel(kind, m_input_is_prefetch), f)});
    }
    m_text_font = f;
}

int TimelineView::groupOfRow(int row) const {
    return row >= 0 && row < static_cast<int>(m_rows.rows.size())
               ? m_rows.rows[static_cast<std::size_t>(row)].group
               : -1;
}

QStringList TimelineView::rowLabels() const {
    QStringList labels;
    for (const auto& row : m_rows.rows)
        labels << row.label;
    return labels;
}

QString TimelineView::representativeText() const {
    if (!m_result || m_result->prediction.groups.empty())
        return {};
    const auto& groups = m_result->prediction.groups;
    const int total = m_result->scenario.totalGpus();
    if (groups.size() == 1)
        return total > 1 ? tr("1 GPU of %1 shown (all alike)").arg(total) : QString();
    const int per_group = groups.front().gpus;
    return per_group > 1 ? tr("1 GPU of each group of %1 shown").arg(per_group) : QString();
}

void TimelineView::setResult(ResultPtr result) {
    m_result = std::move(result);
    m_input_is_prefetch = m_result && m_result->scenario.software.overlap_input;
    m_hover_event = -1;
    const std::size_t rows = m_rows.rows.size();
    rebuildRows();
    if (m_rows.rows.size() != rows)
        updateGeometry(); // sizeHint follows the row count
    const double width = geometryFor(rect()).plot.width();
    if (m_fitted || m_window.end_ms > totalMs())
        m_window = TimeWindow::fit(totalMs(), width);
    else
        m_window = m_window.resized(width).clampedTo(totalMs());
    update();
    emit windowChanged();
}

void TimelineView::setWindow(const TimeWindow& window) {
    m_window = window.resized(geometryFor(rect()).plot.width()).clampedTo(totalMs());
    m_fitted = false;
    update();
    emit windowChanged();
}

void TimelineView::fitToView() {
    m_window = TimeWindow::fit(totalMs(), geometryFor(rect()).plot.width());
    m_fitted = true;
    update();
    emit windowChanged();
}

void TimelineView::zoomIn() {
    setWindow(m_window.zoomedAround(m_window.width_px / 2, 2, totalMs()));
}

void TimelineView::zoomOut() {
    setWindow(m_window.zoomedAround(m_window.width_px / 2, 0.5, totalMs()));
}

void TimelineView::setSelectedLayer(long layer) {
    if (layer == m_selected_layer)
        return;
    m_selected_layer = layer;
    if (m_result && layer >= 0) {
        // Bring the layer into view without changing the zoom, unless one of its bars
        // (forward or backward) is already in view.
        const TimelineEvent* first = nullptr;
        bool visible = false;
        for (std::size_t i = 0; i < eventCount(); ++i) {
            const TimelineEvent& e = eventOf(i);
            if (e.layer != layer)
                continue;
            if (!first)
                first = &e;
            visible = visible || (e.start_ms + e.duration_ms >= m_window.start_ms &&
                                  e.start_ms <= m_window.end_ms);
        }
        if (first && !visible) {
            const double span = m_window.spanMs();
            const double start = first->start_ms + first->duration_ms / 2 - span / 2;
            m_window = TimeWindow{start, start + span, m_window.width_px}.clampedTo(totalMs());
            emit windowChanged();
        }
    }
    update();
}

TimelineView::Geometry TimelineView::geometryFor(const QRect& rect) const {
    const QFontMetrics fm = fontMetrics();
    Geometry g;
    g.group_width = m_group_width;
    g.label_width = g.group_width + fm.horizontalAdvance(tr("Communication 88")) + 2 * kMargin;
    g.axis_height = fm.height() + 10;
    const int legend_height = fm.height() + 10;
    g.plot = rect.adjusted(g.label_width, g.axis_height, -kMargin, -legend_height);
    const int rows = std::max<int>(1, static_cast<int>(m_rows.rows.size()));
    // Row blocks of many stages squeeze further than one GPU's rows: the group names stay
    // readable, and a stage's bars are still seen at three pixels.
    const int min_row = m_rows.grouped ? 3 : 6;
    g.row_height = std::clamp(g.plot.height() / rows, min_row, fm.height() + 14);
    g.plot.setHeight(std::min(g.plot.height(), g.row_height * rows));
    if (g.plot.width() < 1)
        g.plot.setWidth(1);
    return g;
}

void TimelineView::paintTimeline(QPainter& p, const QRect& rect) const {
    const QPalette& pal = palette();
    p.save();
    p.setFont(font()); // the text laid out in advance is in the widget's font
    p.setClipRect(rect);
    p.fillRect(rect, pal.color(QPalette::Base));
    p.setPen(pal.color(QPalette::Text));
    if (!m_result) {
        p.drawText(rect, Qt::AlignCenter, tr("Computing the prediction…"));
        p.restore();
        return;
    }
    const Geometry g = geometryFor(rect);
    const TimeWindow w = m_window.resized(g.plot.width());
    const QFontMetrics fm = p.fontMetrics();

    if (m_text_font != font())
        rebuildText();

    // Row bands and labels; with several groups the bands alternate by group, and each
    // group's name stands left of its rows.
    const bool grouped = m_rows.grouped;
    for (std::size_t i = 0; i < m_rows.rows.size(); ++i) {
        const QRect band(rect.left(), g.plot.top() + static_cast<int>(i) * g.row_height,
                         rect.width(), g.row_height);
        if ((grouped ? m_rows.rows[i].group : static_cast<int>(i)) % 2 == 1)
            p.fillRect(band, pal.color(QPalette::AlternateBase));
        // Labels taller than their rows would write over each other; the group names and
        // the tooltips still say what the rows are.
        if (g.row_height < fm.height() - 4)
            continue;
        p.setPen(pal.color(QPalette::Text));
        p.drawStaticText(QPoint(rect.left() + kMargin + g.group_width,
                                band.top() + (band.height() - fm.height()) / 2),
                         m_row_text[i]);
    }
    if (grouped) {
        QColor rule = pal.color(QPalette::Text);
        rule.setAlpha(90);
        for (std::size_t b = 0; b < m_rows.blocks.size(); ++b) {
            const auto& block = m_rows.blocks[b];
            const QRect box(rect.left() + kMargin, g.plot.top() + block.first_row * g.row_height,
                            g.group_width - kMargin, block.rows * g.row_height);
            p.setPen(rule);
            p.drawLine(rect.left(), box.top(), rect.right(), box.top());
            // As many lines as the block has room for, the name first.
            const auto& lines = m_group_text[b];
            const int fit = std::max(1, box.height() / fm.height());
            const int shown = std::min<int>(fit, static_cast<int>(lines.size()));
            const int top = box.top() + (box.height() - shown * fm.height()) / 2;
            p.setPen(pal.color(QPalette::Text));
            for (int l = 0; l < shown; ++l)
                p.drawStaticText(
                    QPoint(box.left(), top + l * fm.height()),
                    m_texts.get(lines[static_cast<std::size_t>(l)], font(), box.width()));
        }
    }

    // Time axis: ticks in one unit, grid lines through the rows.
    QColor grid = pal.color(QPalette::Text);
    grid.setAlpha(40);
    const double step = niceTickStep(w.msPerPixel(), kMinTickSpacingPx);
    for (double t : ticksFor(w, kMinTickSpacingPx)) {
        const int x = g.plot.left() + static_cast<int>(std::lround(w.timeToX(t)));
        p.setPen(grid);
        p.drawLine(x, g.plot.top(), x, g.plot.bottom());
        p.setPen(pal.color(QPalette::Text));
        p.drawLine(x, g.plot.top() - 4, x, g.plot.top());
        const QStaticText& label =
            m_texts.get(QString::fromStdString(tickLabel(t, step, w.end_ms)), font());
        const int tw = static_cast<int>(std::ceil(label.size().width()));
        p.drawStaticText(QPoint(std::clamp(x - tw / 2, g.plot.left() - tw / 2, rect.right() - tw),
                                rect.top() + 2),
                         label);
    }
    p.setPen(pal.color(QPalette::Text));
    p.drawLine(g.plot.left(), g.plot.top(), g.plot.right(), g.plot.top());

    // Bars. Sub-pixel events still get one pixel so nothing disappears when zoomed out.
    // Outlines are drawn in one pass per colour after the fills: switching pens per bar is
    // what a thousand bars cost.
    p.setClipRect(g.plot.adjusted(0, 0, 1, 1));
    std::array<QVector<QRect>, kBarKinds> outlines;
    QVector<std::pair<QRect, std::size_t>> labelled;
    // A layer's forward and backward bars, predicted and measured.
    QRect selected_bars[4];
    int selected_count = 0;
    QRect hovered;
    const std::size_t event_count = eventCount();
    QRect run;
    BarKind run_kind{};
    for (std::size_t i = 0; i < event_count; ++i) {
        const auto& e = eventOf(i);
        const double x0 = w.timeToX(e.start_ms);
        const double x1 = w.timeToX(e.start_ms + e.duration_ms);
        if (x1 < 0 || x0 > g.plot.width())
            continue;
        const QRect bar = barRect(g, w, i, x0, x1);
        const auto kind = barKind(e);
        // Zoomed out, hundreds of bars of a row share a few pixels: one fill for a run of
        // touching bars of one colour draws the same.
        if (run_kind == kind && bar.top() == run.top() && bar.height() == run.height() &&
            bar.left() <= run.right() + 1 && bar.right() >= run.left()) {
            run = run.united(bar);
        } else {
            if (!run.isNull())
                p.fillRect(run, barColor(run_kind));
            run = bar;
            run_kind = kind;
        }
        if (bar.width() > 3)
            outlines[static_cast<std::size_t>(kind)].append(bar.adjusted(0, 0, -1, -1));
        if (m_selected_layer >= 0 && e.layer == m_selected_layer && selected_count < 4)
            selected_bars[selected_count++] = bar;
        if (static_cast<int>(i) == m_hover_event)
            hovered = bar;
        if (bar.width() > 40 && bar.height() >= fm.height() - 2)
            labelled.append({bar, i});
    }
    if (!run.isNull())
        p.fillRect(run, barColor(run_kind));
    for (int k = 0; k < kBarKinds; ++k) {
        if (outlines[static_cast<std::size_t>(k)].isEmpty())
            continue;
        p.setPen(barColor(static_cast<BarKind>(k)).darker(140));
        p.drawRects(outlines[static_cast<std::size_t>(k)]);
    }
    p.setPen(Qt::white);
    // The widest bars are named first, and a name that would cross one already drawn (an
    // input copy under the host's decoding of the same batch) is left to the tooltip.
    std::stable_sort(labelled.begin(), labelled.end(), [](const auto& a, const auto& b) {
        return a.first.width() > b.first.width();
    });
    QVector<QRect> named;
    for (const auto& [bar, i] : labelled) {
        // Elided in the middle: the end says the layer and the pass.
        const QStaticText& name =
            m_texts.get(eventName(i), font(), bar.width() - 6, Qt::ElideMiddle);
        const QRect at(bar.left() + 3, bar.top() + (bar.height() - fm.height()) / 2,
                       static_cast<int>(std::ceil(name.size().width())), fm.height());
        if (std::any_of(named.begin(), named.end(),
                        [&at](const QRect& other) { return other.intersects(at); }))
            continue;
        named.append(at);
        p.drawStaticText(at.topLeft(), name);
    }
    // The selected layer's bars stand out by an outline in the highlight colour and a tick
    // on the axis; the rest keep their colours, so the timeline still reads.
    const QColor highlight = pal.color(QPalette::Highlight);
    for (int k = 0; k < selected_count; ++k) {
        p.setPen(QPen(highlight, 3));
        p.drawRect(selected_bars[k].adjusted(-2, -2, 1, 1));
    }
    if (!hovered.isNull()) {
        p.setPen(QPen(pal.color(QPalette::Text), 2));
        p.drawRect(hovered.adjusted(-1, -1, 0, 0));
    }
    p.setClipRect(rect);
    for (int k = 0; k < selected_count; ++k) {
        const QRect& bar = selected_bars[k];
        p.fillRect(QRect(bar.left(), g.plot.top() - 6, std::max(2, bar.width()), 5), highlight);
    }

    // Legend, so exported images explain themselves: the kinds drawn.
    int x = g.plot.left();
    const int y = g.plot.bottom() + 6;
    for (const auto& [kind, text] : m_legend_text) {
        p.fillRect(QRect(x, y + 2, fm.height() - 4, fm.height() - 4), barColor(kind));
        x += fm.height();
        p.setPen(pal.color(QPalette::Text));
        p.drawStaticText(QPoint(x, y), text);
        x += static_cast<int>(std::ceil(text.size().width())) + 2 * kMargin;
    }
    // The caption to the right of the legend, in its longest form that fits; none at all
    // rather than over the legend.
    const QString iteration = tr("iteration %1").arg(formatMs(m_result->prediction.iteration_ms));
    const QString full =
        tr("%1 · showing %2 – %3").arg(iteration, formatMs(w.start_ms), formatMs(w.end_ms));
    const int room = rect.right() - kMargin - x;
    // Which GPUs the rows stand for, where that is not every GPU one by one.
    const QString represents = representativeText();
    QStringList captions{full, iteration};
    if (!represents.isEmpty())
        captions = QStringList{represents + QStringLiteral(" · ") + full,
                               represents + QStringLiteral(" · ") + iteration, iteration};
    for (const QString& caption : captions) {
        if (fm.horizontalAdvance(caption) <= room) {
            p.drawText(QRect(x, y, room, fm.height()), Qt::AlignRight | Qt::AlignVCenter, caption);
            break;
        }
    }
    p.restore();
}

QRect TimelineView::barRect(const Geometry& g, const TimeWindow& w, std::size_t event, double x0,
                            double x1) const {
    const int row = event < m_rows.event_row.size() ? m_rows.event_row[event] : 0;
    const int lanes = row < static_cast<int>(m_rows.rows.size())
                          ? m_rows.rows[static_cast<std::size_t>(row)].lanes
                          : 1;
    const int lane = event < m_rows.event_lane.size() ? m_rows.event_lane[event] : 0;
    const int left = g.plot.left() + static_cast<int>(std::floor(std::max(x0, -2.0)));
    const int right = g.plot.left() + static_cast<int>(std::ceil(std::min(x1, w.width_px + 2.0)));
    const int inner = std::max(1, g.row_height - 4);
    const int lane_height = std::max(1, inner / std::max(1, lanes));
    return {left, g.plot.top() + row * g.row_height + 2 + lane * lane_height,
            std::max(1, right - left),
            lanes > 1 ? lane_height - (lane + 1 < lanes ? 1 : 0) : inner};
}

QString TimelineView::eventName(std::size_t i) const {
    if (!m_result)
        return {};
    const TimelineEvent& e = eventOf(i);
    if (isMeasured(i)) {
        // The op the trace ran, and the layer it was matched with where it was.
        const auto& ops = m_result->trace->timeline_ops;
        const std::size_t k = i - m_result->prediction.timeline.size();
        const QString op = k < ops.size() ? QString::fromStdString(ops[k]) : QString();
        if (e.layer < 0)
            return op;
        return tr("%1 (%2)").arg(m_result->layerName(static_cast<std::size_t>(e.layer)), op);
    }
    switch (e.kind) {
    case EventKind::Forward:
        return tr("%1 fwd").arg(m_result->layerName(static_cast<std::size_t>(e.layer)));
    case EventKind::Backward:
        return tr("%1 bwd").arg(m_result->layerName(static_cast<std::size_t>(e.layer)));
    case EventKind::InputCopy:
        if (m_input_is_prefetch)
            return tr("H2D input of the next batch (prefetch)");
        break;
    default:
        break;
    }
    return QString::fromStdString(timelineEventName(e, m_result->network->network));
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    paintTimeline(p, rect());
}

void TimelineView::resizeEvent(QResizeEvent*) {
    const double width = geometryFor(rect()).plot.width();
    m_window = m_fitted ? TimeWindow::fit(totalMs(), width) : m_window.resized(width);
}

int TimelineView::eventAt(const QPoint& pos) const {
    if (!m_result)
        return -1;
    const Geometry g = geometryFor(rect());
    if (!g.plot.contains(pos) || g.row_height <= 0)
        return -1;
    const int row = (pos.y() - g.plot.top()) / g.row_height;
    const TimeWindow w = m_window.resized(g.plot.width());
    // A pixel of slack so one-pixel bars can be hovered.
    const double t0 = w.xToTime(pos.x() - g.plot.left() - 1);
    const double t1 = w.xToTime(pos.x() - g.plot.left() + 1);
    int best = -1;
    double best_duration = 0;
    const std::size_t event_count = eventCount();
    for (std::size_t i = 0; i < event_count; ++i) {
        const auto& e = eventOf(i);
        if (i >= m_rows.event_row.size() || m_rows.event_row[i] != row)
            continue;
        // Lanes within a row (grouped communication): the one under the pointer.
        const QRect bar =
            barRect(g, w, i, w.timeToX(e.start_ms), w.timeToX(e.start_ms + e.duration_ms));
        if (pos.y() < bar.top() - 2 || pos.y() > bar.bottom() + 2)
            continue;
        if (e.start_ms <= t1 && e.start_ms + e.duration_ms >= t0 &&
            (best < 0 || e.duration_ms > best_duration)) {
            best = static_cast<int>(i);
            best_duration = e.duration_ms;
        }
    }
    return best;
}

bool TimelineView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int i = eventAt(help->pos());
        if (i < 0 || !m_result) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        const auto index = static_cast<std::size_t>(i);
        const auto& e = eventOf(index);
        const auto exact = [](double ms) { return QString::number(ms, 'f', 4) + " ms"; };
        const QString stream = isMeasured(index)
                                   ? tr("measured, %1").arg(QLatin1String(streamName(e.stream)))
                                   : QString(QLatin1String(streamName(e.stream)));
        QToolTip::showText(help->globalPos(),
                           tr("<b>%1</b><br>%2 stream<br>start %3<br>end %4<br>duration %5")
                               .arg(eventName(index).toHtmlEscaped(), stream, exact(e.start_ms),
                                    exact(e.start_ms + e.duration_ms), exact(e.duration_ms)),
                           this);
        return true;
    }
    return QWidget::event(event);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0)
        return;
    const double x = event->position().x() - geometryFor(rect()).plot.left();
    setWindow(m_window.zoomedAround(x, std::pow(1.25, steps), totalMs()));
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        m_dragging = true;
        m_drag_origin = event->position().toPoint();
        m_drag_window = m_window;
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    if (m_dragging && (event->buttons() & Qt::LeftButton)) {
        if ((pos - m_drag_origin).manhattanLength() > 2) {
            setCursor(Qt::ClosedHandCursor);
            setWindow(m_drag_window.pannedBy(pos.x() - m_drag_origin.x(), totalMs()));
        }
        return;
    }
    const int hover = eventAt(pos);
    if (hover != m_hover_event) {
        m_hover_event = hover;
        update();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !m_dragging)
        return;
    m_dragging = false;
    unsetCursor();
    const QPoint pos = event->position().toPoint();
    if ((pos - m_drag_origin).manhattanLength() <= 2 && m_result) {
        const int i = eventAt(pos);
        const long layer = i >= 0 ? eventOf(static_cast<std::size_t>(i)).layer : -1;
        // The clicked bar is in view already: select without scrolling (a click on a
        // backward bar used to jump to the same layer's forward bar).
        m_selected_layer = layer;
        update();
        emit layerClicked(layer);
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) {
    fitToView();
}

} // namespace iterscope::ui
