#include "timeline_view.h"

#include "format.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QStringList>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace iterscope::ui {
namespace {
constexpr int kMinTickSpacingPx = 90;
constexpr int kMargin = 8;

// Row order top to bottom follows an iteration: input, forward, backward, exchange, update.
int rowKind(const TimelineEvent& e) {
    switch (e.stream) {
    case Stream::Input:
        return 0;
    case Stream::Compute:
        if (e.kind == EventKind::StragglerWait || e.kind == EventKind::InputWait ||
            e.kind == EventKind::ServerWait)
            return 4; // idle time that ends the step, drawn beside the update
        return e.kind == EventKind::Backward || e.kind == EventKind::StageBackward ? 2 : 1;
    case Stream::Communication:
        return 3;
    case Stream::Update:
        return 4;
    }
    return 1;
}

// Mid-lightness hues stay readable on light and dark palettes alike.
QColor kindColor(int kind) {
    switch (kind) {
    case 0:
        return QColor(0x26, 0xa6, 0x9a); // input copy
    case 1:
        return QColor(0x4c, 0x8b, 0xf5); // forward
    case 2:
        return QColor(0xf0, 0x8c, 0x2e); // backward
    case 3:
        return QColor(0xd9, 0x53, 0x4f); // communication
    default:
        return QColor(0x9c, 0x6a, 0xde); // update
    }
}

// The row an event goes to: with several groups, forward and backward share one compute
// row, so a pipeline stage's bubble is a gap in it rather than in two half-empty rows.
int rowSlot(const TimelineEvent& e, bool grouped) {
    const int kind = rowKind(e);
    return grouped && kind == 2 ? 1 : kind;
}

constexpr int kMaxGroupWidthPx = 150;

QString kindLabel(int kind, bool input_is_prefetch, bool grouped = false) {
    if (grouped && kind == 1)
        return TimelineView::tr("Compute");
    switch (kind) {
    case 0:
        // Overlapped, the copy under this iteration's forward pass brings the next batch.
        return input_is_prefetch ? TimelineView::tr("Input prefetch")
                                 : TimelineView::tr("Input copy");
    case 1:
        return TimelineView::tr("Forward");
    case 2:
        return TimelineView::tr("Backward");
    case 3:
        return TimelineView::tr("Communication");
    default:
        return TimelineView::tr("Update");
    }
}

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
    const int rows = std::max<int>(5, static_cast<int>(m_rows.size()));
    return {900, 2 * (fm.height() + 10) + rows * (fm.height() + 14) + kMargin};
}

QSize TimelineView::minimumSizeHint() const {
    // Axis, five short rows and the legend: what a 1280×720 window has room for.
    return {300, 110};
}

double TimelineView::totalMs() const {
    if (!m_result)
        return 1;
    double total = m_result->prediction.iteration_ms;
    for (const auto& e : m_result->prediction.timeline)
        total = std::max(total, e.start_ms + e.duration_ms);
    return total > 0 ? total : 1;
}

void TimelineView::rebuildRows() {
    m_rows.clear();
    m_groups.clear();
    m_event_rows.clear();
    m_group_width = 0;
    if (!m_result)
        return;
    const auto& prediction = m_result->prediction;
    const int groups = std::max<int>(1, static_cast<int>(prediction.groups.size()));
    const bool grouped = groups > 1;
    const auto groupOf = [groups](const TimelineEvent& e) {
        return std::clamp(e.group, 0, groups - 1);
    };
    using Key = std::tuple<int, int, int>; // (group, kind, lane) -> row
    std::map<Key, int> index;
    for (const auto& e : prediction.timeline)
        index.emplace(Key{groupOf(e), rowSlot(e, grouped), std::max(0, e.lane)}, 0);
    int row = 0;
    for (auto& [key, value] : index) {
        const auto [group, kind, lane] = key;
        value = row++;
        QString label = kindLabel(kind, m_input_is_prefetch, grouped);
        if (lane > 0)
            label += QStringLiteral(" %1").arg(lane + 1);
        m_rows.push_back({label, kind, lane, group});
    }
    for (const auto& e : prediction.timeline)
        m_event_rows.push_back(index[Key{groupOf(e), rowSlot(e, grouped), std::max(0, e.lane)}]);

    // One block per group that has rows. "stage 1 (conv1 to res3d)" reads as its name, its
    // GPU count, then its layers, as far as the block's height allows.
    const QFontMetrics fm = fontMetrics();
    for (int g = 0; g < groups; ++g) {
        Group block;
        block.first_row = -1;
        for (std::size_t r = 0; r < m_rows.size(); ++r)
            if (m_rows[r].group == g) {
                if (block.first_row < 0)
                    block.first_row = static_cast<int>(r);
                ++block.rows;
            }
        if (block.rows == 0)
            continue;
        if (grouped) {
            const auto& info = prediction.groups[static_cast<std::size_t>(g)];
            const QString label = QString::fromStdString(info.label);
            const qsizetype paren = label.indexOf(QStringLiteral(" ("));
            block.lines << (paren > 0 ? label.left(paren) : label);
            if (info.gpus > 1)
                block.lines << tr("%1 GPUs").arg(info.gpus);
            if (paren > 0)
                block.lines << label.mid(paren + 1);
            for (int i = 0; i < std::min<int>(2, static_cast<int>(block.lines.size())); ++i)
                m_group_width = std::max(m_group_width, fm.horizontalAdvance(block.lines[i]));
        }
        m_groups.push_back(block);
    }
    if (grouped)
        m_group_width = std::min(m_group_width, kMaxGroupWidthPx) + kMargin;
}

int TimelineView::groupOfRow(int row) const {
    return row >= 0 && row < static_cast<int>(m_rows.size())
               ? m_rows[static_cast<std::size_t>(row)].group
               : -1;
}

QStringList TimelineView::rowLabels() const {
    QStringList labels;
    for (const auto& row : m_rows)
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
    const std::size_t rows = m_rows.size();
    rebuildRows();
    if (m_rows.size() != rows)
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
        for (const auto& e : m_result->prediction.timeline) {
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
    const int rows = std::max<int>(1, static_cast<int>(m_rows.size()));
    // Row blocks of many stages squeeze further than one GPU's rows: the group names stay
    // readable, and a stage's bars are still seen at three pixels.
    const int min_row = m_groups.size() > 1 ? 3 : 6;
    g.row_height = std::clamp(g.plot.height() / rows, min_row, fm.height() + 14);
    g.plot.setHeight(std::min(g.plot.height(), g.row_height * rows));
    if (g.plot.width() < 1)
        g.plot.setWidth(1);
    return g;
}

void TimelineView::paintTimeline(QPainter& p, const QRect& rect) const {
    const QPalette& pal = palette();
    p.save();
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

    // Row bands and labels; with several groups the bands alternate by group, and each
    // group's name stands left of its rows.
    const bool grouped = m_groups.size() > 1;
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const QRect band(rect.left(), g.plot.top() + static_cast<int>(i) * g.row_height,
                         rect.width(), g.row_height);
        if ((grouped ? m_rows[i].group : static_cast<int>(i)) % 2 == 1)
            p.fillRect(band, pal.color(QPalette::AlternateBase));
        // Labels taller than their rows would write over each other; the group names and
        // the tooltips still say what the rows are.
        if (g.row_height < fm.height() - 4)
            continue;
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(rect.left() + kMargin + g.group_width, band.top(),
                         g.label_width - g.group_width - 2 * kMargin, band.height()),
                   Qt::AlignVCenter | Qt::AlignLeft, m_rows[i].label);
    }
    if (grouped) {
        QColor rule = pal.color(QPalette::Text);
        rule.setAlpha(90);
        for (const Group& group : m_groups) {
            const QRect block(rect.left() + kMargin, g.plot.top() + group.first_row * g.row_height,
                              g.group_width - kMargin, group.rows * g.row_height);
            p.setPen(rule);
            p.drawLine(rect.left(), block.top(), rect.right(), block.top());
            // As many lines as the block has room for, the name first.
            const int fit = std::max(1, block.height() / fm.height());
            const int shown = std::min<int>(fit, static_cast<int>(group.lines.size()));
            const int top = block.top() + (block.height() - shown * fm.height()) / 2;
            p.setPen(pal.color(QPalette::Text));
            for (int l = 0; l < shown; ++l)
                p.drawText(QRect(block.left(), top + l * fm.height(), block.width(), fm.height()),
                           Qt::AlignVCenter | Qt::AlignLeft,
                           fm.elidedText(group.lines[l], Qt::ElideRight, block.width()));
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
        const QString label = QString::fromStdString(tickLabel(t, step, w.end_ms));
        const int tw = fm.horizontalAdvance(label);
        p.drawText(QPoint(std::clamp(x - tw / 2, g.plot.left() - tw / 2, rect.right() - tw),
                          rect.top() + fm.ascent() + 2),
                   label);
    }
    p.setPen(pal.color(QPalette::Text));
    p.drawLine(g.plot.left(), g.plot.top(), g.plot.right(), g.plot.top());

    // Bars. Sub-pixel events still get one pixel so nothing disappears when zoomed out.
    p.setClipRect(g.plot.adjusted(0, 0, 1, 1));
    const auto& events = m_result->prediction.timeline;
    const QColor highlight = pal.color(QPalette::Highlight);
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        const double x0 = w.timeToX(e.start_ms);
        const double x1 = w.timeToX(e.start_ms + e.duration_ms);
        if (x1 < 0 || x0 > g.plot.width())
            continue;
        const int row = i < m_event_rows.size() ? m_event_rows[i] : 0;
        const int left = g.plot.left() + static_cast<int>(std::floor(std::max(x0, -2.0)));
        const int right =
            g.plot.left() + static_cast<int>(std::ceil(std::min(x1, g.plot.width() + 2.0)));
        const QRect bar(left, g.plot.top() + row * g.row_height + 2, std::max(1, right - left),
                        g.row_height - 4);
        const bool selected = m_selected_layer >= 0 && e.layer == m_selected_layer;
        QColor fill = kindColor(rowKind(e));
        if (m_selected_layer >= 0 && !selected)
            fill.setAlpha(110);
        p.fillRect(bar, fill);
        if (bar.width() > 3) {
            p.setPen(fill.darker(140));
            p.drawRect(bar.adjusted(0, 0, -1, -1));
        }
        if (selected || static_cast<int>(i) == m_hover_event) {
            p.setPen(QPen(selected ? highlight : pal.color(QPalette::Text), 2));
            p.drawRect(bar.adjusted(-1, -1, 0, 0));
        }
        if (bar.width() > 40 && g.row_height >= fm.height()) {
            p.setPen(Qt::white);
            // Elided in the middle: the end says the layer and the pass.
            p.drawText(bar.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(eventName(e), Qt::ElideMiddle, bar.width() - 6));
        }
    }
    p.setClipRect(rect);

    // Legend, so exported images explain themselves.
    int x = g.plot.left();
    const int y = g.plot.bottom() + 6;
    for (int kind = 0; kind < 5; ++kind) {
        const QString label = kindLabel(kind, m_input_is_prefetch);
        p.fillRect(QRect(x, y + 2, fm.height() - 4, fm.height() - 4), kindColor(kind));
        x += fm.height();
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QPoint(x, y + fm.ascent()), label);
        x += fm.horizontalAdvance(label) + 2 * kMargin;
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

QString TimelineView::eventName(const TimelineEvent& e) const {
    if (!m_result)
        return {};
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
    const auto& events = m_result->prediction.timeline;
    int best = -1;
    double best_duration = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        if (i >= m_event_rows.size() || m_event_rows[i] != row)
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
        const auto& e = m_result->prediction.timeline[static_cast<std::size_t>(i)];
        const auto exact = [](double ms) { return QString::number(ms, 'f', 4) + " ms"; };
        QToolTip::showText(help->globalPos(),
                           tr("<b>%1</b><br>%2 stream<br>start %3<br>end %4<br>duration %5")
                               .arg(eventName(e).toHtmlEscaped(),
                                    QLatin1String(streamName(e.stream)), exact(e.start_ms),
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
        const long layer =
            i >= 0 ? m_result->prediction.timeline[static_cast<std::size_t>(i)].layer : -1;
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
