// The Gantt chart of one iteration: one row per stream and lane, painted by hand (a few
// thousand bars for ResNet-152 are far too many for items). Wheel zooms around the
// cursor, drag pans, hover shows exact times, double-click or fitToView() shows it all.
#pragma once

#include "predictor.h"
#include "time_window.h"

#include <QWidget>

#include <vector>

namespace iterscope::ui {

class TimelineView : public QWidget {
    Q_OBJECT
  public:
    explicit TimelineView(QWidget* parent = nullptr);

    void setResult(ResultPtr result);
    const TimeWindow& window() const { return m_window; }
    void setWindow(const TimeWindow& window);
    double totalMs() const;
    // Index into the result's timeline under a widget position, -1 for none.
    int eventAt(const QPoint& pos) const;
    long selectedLayer() const { return m_selected_layer; }

    // Paints the timeline into any device (export uses it with PNG, SVG and PDF targets).
    void paintTimeline(QPainter& painter, const QRect& rect) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  public slots:
    void fitToView();
    void zoomIn();
    void zoomOut();
    void setSelectedLayer(long layer); // -1 clears; scrolls the layer into view

  signals:
    void layerClicked(long layer);
    void windowChanged();

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

  private:
    struct Row {
        QString label;
        int stream = 0;
        int lane = 0;
    };
    struct Geometry { // layout of one paint target
        QRect plot;   // the bars' area
        int label_width = 0;
        int axis_height = 0;
        int row_height = 0;
    };
    Geometry geometryFor(const QRect& rect) const;
    QString eventName(const TimelineEvent& e) const;
    void rebuildRows();

    ResultPtr m_result;
    std::vector<Row> m_rows;
    std::vector<int> m_event_rows; // parallel to the result's timeline
    TimeWindow m_window;
    long m_selected_layer = -1;
    int m_hover_event = -1;
    bool m_dragging = false;
    QPoint m_drag_origin;
    TimeWindow m_drag_window;
    bool m_fitted = true;             // keep fitting on new results until the user zooms
    bool m_input_is_prefetch = false; // the software overlaps the input copy
};

} // namespace iterscope::ui
