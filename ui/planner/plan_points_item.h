// The Plan tab's points: one graphics item over a chart's plot area that stamps a marker
// image at every point of a few layers (log-log axes), and finds the point at a position
// (the view turns mouse moves and clicks into hovers and choices: the chart's line items
// above take the mouse events an item of its own would need).
// Qt Charts' scatter series makes a graphics item per point, which costs about 10 us a point
// to replace: too slow for the thousands a plan shows on every constraint change.
#pragma once

#include <QGraphicsObject>
#include <QImage>
#include <QList>
#include <QPointF>

#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
class QLogValueAxis;
QT_END_NAMESPACE

namespace iterscope::ui {

class PlanPointsItem : public QGraphicsObject {
    Q_OBJECT
  public:
    struct Layer {
        QImage marker;                // stamped centred on each point
        QList<QPointF> points;        // in axis units (hours, US$)
        std::vector<std::size_t> ids; // parallel to points: what a hit reports
    };

    // Lives on `chart` (as a child item, under its series' lines), with its two log axes.
    PlanPointsItem(QChart* chart, QLogValueAxis* x, QLogValueAxis* y);

    // Drawn in order: later layers over earlier ones, and hit first.
    void setLayers(std::vector<Layer> layers);
    const std::vector<Layer>& layers() const { return m_layers; }

    // Where a point in axis units is, in the chart's coordinates (and back, for hits).
    QPointF positionOf(const QPointF& value) const;
    // The topmost point within `radius` pixels of `position` (chart coordinates):
    // {layer, index in the layer}.
    std::optional<std::pair<int, int>> pointAt(const QPointF& position, double radius = 6) const;

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  private:
    QChart* m_chart = nullptr;
    QLogValueAxis* m_x = nullptr;
    QLogValueAxis* m_y = nullptr;
    std::vector<Layer> m_layers;
};

} // namespace iterscope::ui
