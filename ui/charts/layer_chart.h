// The most expensive layers as horizontal bars, forward and backward stacked, named by their
// display names elided to what the chart's width allows.
#pragma once

#include "prediction/predictor.h"

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
    // The full title whatever the width, for an export; false: as the width allows.
    void setTitlesForced(bool forced);

  protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    void refresh();
    void applyTitle();

    ResultPtr m_result;
    bool m_stale = false;
    int m_name_chars = 32; // layer labels longer than this are shortened
    bool m_titles_forced = false;
    QHorizontalStackedBarSeries* m_series = nullptr;
    QBarSet* m_forward = nullptr;
    QBarSet* m_backward = nullptr;
    QBarCategoryAxis* m_layers = nullptr;
    QValueAxis* m_ms = nullptr;
};

} // namespace iterscope::ui
