// The Gantt chart of one iteration: one row per stream and lane, painted by hand (a few
// thousand bars for ResNet-152 are far too many for items). Wheel zooms around the
// cursor, drag pans, hover shows exact times, double-click or fitToView() shows it all.
//
// Where GPUs differ (a pipeline's stages; Prediction::groups) each GPU group gets its own
// block of rows, one representative GPU per group, so bubbles and stage-to-stage transfers
// are seen (timeline_rows.h says which event goes to which row).
#pragma once

#include "prediction/predictor.h"
#include "timeline/time_window.h"
#include "timeline/timeline_rows.h"
#include "widgets/static_text_cache.h"

#include <QFont>
#include <QStaticText>
#include <QWidget>

#include <utility>
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
    // Row blocks drawn, one per GPU group of the result (1 where every GPU runs alike).
    int groupCount() const { return static_cast<int>(m_rows.blocks.size()); }
    // The group a row belongs to, and the rows' labels top to bottom, for tests.
    int groupOfRow(int row) const;
    QStringList rowLabels() const;
    // What the caption says the rows stand for: "1 GPU of 1024 shown (all alike)".
    QString representativeText() const;

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
    struct Geometry { // layout of one paint target
        QRect plot;   // the bars' area
        int label_width = 0;
        int axis_height = 0;
        int row_height = 0;
        int group_width = 0; // the group names' column, left of the row labels
    };
    Geometry geometryFor(const QRect& rect) const;
    // Where event `event` is drawn, its time span being x0 to x1 in the plot.
    QRect barRect(const Geometry& g, const TimeWindow& w, std::size_t event, double x0,
                  double x1) const;
    QString eventName(std::size_t event) const;
    void rebuildRows();
    void rebuildText() const;

    // The events drawn: the prediction's timeline, then the opened trace's measured step
    // (its own block of rows); indices into this are what eventAt() returns.
    const TimelineEvent& eventOf(std::size_t i) const;
    std::size_t eventCount() const;
    // Whether event i is measured (the trace's), not predicted.
    bool isMeasured(std::size_t i) const;

    ResultPtr m_result;
    TimelineRows m_rows;
    double m_total_ms = 1;
    // Text laid out once per result and font (rebuildText), and the group names' width.
    mutable int m_group_width = 0;
    mutable QFont m_text_font;
    mutable std::vector<QStaticText> m_row_text;            // parallel to m_rows.rows
    mutable std::vector<std::vector<QString>> m_group_text; // parallel to m_rows.blocks
    mutable std::vector<std::pair<BarKind, QStaticText>> m_legend_text;
    mutable StaticTextCache m_texts; // tick labels, block names, bar labels
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
