#include "planner/plan_points_item.h"

#include <QPainter>
#include <QtCharts/QChart>
#include <QtCharts/QLogValueAxis>

#include <cmath>

namespace iterscope::ui {

namespace {
// Above the grid and the axes, under the series' lines (Qt Charts' z order: plot area 0,
// shades 1, grid 2, axes 3, series 4 and up).
constexpr qreal kZValue = 3.5;

double logFraction(double v, double lo, double hi) {
    return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
}
} // namespace

PlanPointsItem::PlanPointsItem(QChart* chart, QLogValueAxis* x, QLogValueAxis* y)
    : QGraphicsObject(chart)
    , m_chart(chart)
    , m_x(x)
    , m_y(y) {
    setZValue(kZValue);
    setAcceptedMouseButtons(Qt::NoButton);
    // The plot area moves with the window and the axes' labels: so do the points.
    connect(chart, &QChart::plotAreaChanged, this, [this] {
        prepareGeometryChange();
        update();
    });
    for (QLogValueAxis* axis : {x, y})
        connect(axis, &QLogValueAxis::rangeChanged, this, [this] { update(); });
}

void PlanPointsItem::setLayers(std::vector<Layer> layers) {
    m_layers = std::move(layers);
    update();
}

QPointF PlanPointsItem::positionOf(const QPointF& v) const {
    const QRectF plot = m_chart->plotArea();
    return {plot.left() + logFraction(v.x(), m_x->min(), m_x->max()) * plot.width(),
            plot.bottom() - logFraction(v.y(), m_y->min(), m_y->max()) * plot.height()};
}

std::optional<std::pair<int, int>> PlanPointsItem::pointAt(const QPointF& position,
                                                           double radius) const {
    std::optional<std::pair<int, int>> best;
    double best_distance = radius * radius;
    for (int l = static_cast<int>(m_layers.size()) - 1; l >= 0; --l) {
        const QList<QPointF>& points = m_layers[static_cast<std::size_t>(l)].points;
        for (qsizetype i = 0; i < points.size(); ++i) {
            const QPointF d = positionOf(points[i]) - position;
            const double distance = d.x() * d.x() + d.y() * d.y();
            if (distance <= best_distance) {
                best_distance = distance;
                best = std::pair{l, static_cast<int>(i)};
            }
        }
        if (best)
            return best; // a higher layer hides the ones below it
    }
    return best;
}

QRectF PlanPointsItem::boundingRect() const {
    return m_chart->plotArea();
}

void PlanPointsItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    if (!(m_x->max() > m_x->min()) || !(m_y->max() > m_y->min()))
        return;
    const QRectF plot = m_chart->plotArea();
    painter->save();
    painter->setClipRect(plot);
    for (const Layer& layer : m_layers) {
        if (layer.marker.isNull())
            continue;
        // The marker image is drawn at half its pixels: sharp on high-DPI screens and in
        // PNG exports at twice the size.
        const QSizeF size = QSizeF(layer.marker.size()) / layer.marker.devicePixelRatio();
        for (const QPointF& v : layer.points) {
            const QPointF at = positionOf(v);
            painter->drawImage(QRectF(at - QPointF(size.width() / 2, size.height() / 2), size),
                               layer.marker);
        }
    }
    painter->restore();
}

} // namespace iterscope::ui
