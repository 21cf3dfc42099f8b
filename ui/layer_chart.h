// The most expensive layers as horizontal bars, forward and backward stacked, named by their
// display names elided to what the chart's width allows.
#pragma once

#include "predictor.h"

#include <QtCharts/QChartView>

QT_BEGIN_NAMESPACE
class QBarCategoryAxis;
class QBarSet;
class QHorizontalStackedBarSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace iterscope::ui {

class LayerChartView : public QChartView {
    Q_OBJECT
  public:
    static constexpr int kLayers = 15;
    explicit LayerChartView(QWidget* parent = nullptr);
    // Refreshes now if visible, else when next shown (as ScalingChartsView does).
    void setResult(ResultPtr result);
    QStringList categories() const;

  protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    void refresh();

    ResultPtr m_result;
    bool m_stale = false;
    int m_name_chars = 32; // layer labels longer than this elide in the middle
    QHorizontalStackedBarSeries* m_series = nullptr;
    QBarSet* m_forward = nullptr;
    QBarSet* m_backward = nullptr;
    QBarCategoryAxis* m_layers = nullptr;
    QValueAxis* m_ms = nullptr;
};

} // namespace iterscope::ui
