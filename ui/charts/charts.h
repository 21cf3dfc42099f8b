// Qt Charts views: throughput and scaling efficiency against GPU count (log2) and batch,
// with up to four pinned scenarios overlaid (the costliest layers: layer_chart.h).
// Series are created once and refilled with replace(), which keeps a slider drag cheap.
#pragma once

#include "prediction/predictor.h"

#include <QList>
#include <QWidget>
#include <QtCharts/QChartView>

#include <array>
#include <optional>

QT_BEGIN_NAMESPACE
class QAreaSeries;
class QGraphicsRectItem;
class QLineSeries;
class QScatterSeries;
class QTableWidget;
class QToolButton;
class QAbstractAxis;
class QValueAxis;
class QLogValueAxis;
QT_END_NAMESPACE

namespace iterscope::ui {

class ChartLegend;

struct PinnedCurves {
    ScenarioSettings settings;
    ScalingCurves curves;
    ScenarioLabel label; // the scenario in words, for the legend
};

class ScalingChartsView : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kMaxPins = 4;

    explicit ScalingChartsView(QWidget* parent = nullptr);

    void setResult(ResultPtr result);
    // Pins the current scenario; the oldest pin goes when there are already four.
    bool pinCurrent();
    void setPins(const QList<PinnedCurves>& pins);
    const QList<PinnedCurves>& pins() const { return m_pins; }
    void clearPins();
    // Measured runs (File › Open measurements) drawn as points where they measured the
    // current scenario's network, GPU and precision: at its batch on the GPU chart, at its
    // GPU count on the batch chart. The opened trace's run joins them.
    void setMeasurements(std::vector<ValidationRow> rows, const QString& file);
    int measurementCount() const { return static_cast<int>(m_measurements.size()); }
    const std::vector<ValidationRow>& measurements() const { return m_measurements; }
    const QString& measurementsFile() const { return m_measurements_file; }
    // The measured points drawn now on either chart, the trace's included.
    int measuredPointCount() const;
    // The points drawn on one chart, (x, images/s), for tests.
    std::vector<MeasuredPoint> measuredPoints(bool by_gpus) const;

    QChartView* gpuChart() const { return m_gpu_view; }
    QChartView* batchChart() const { return m_batch_view; }
    // Small charts drop their titles and shorten axis titles (resizeEvent decides).
    bool isCompact() const { return m_compact; }
    // The values of the curve point nearest scene_pos (within a few pixels), as the
    // tooltip shows them; empty when none is near.
    QString pointTip(bool by_gpus, const QPointF& scene_pos) const;
    // The legend as plain text: what every curve shares ("All: ..."), then one line per
    // curve with what it has of its own ("Current: ...", "Pin 1: ...").
    QStringList legendLines() const;
    ChartLegend* legend() const { return m_legend; }
    // The plotted values as tables under the charts, shown on demand (the "Values" button
    // beside the legend); refreshed with the curves only while shown.
    void setValuesShown(bool shown);
    bool valuesShown() const;
    QTableWidget* valuesTable(bool by_gpus) const {
        return by_gpus ? m_gpu_values : m_batch_values;
    }
    // Full titles whatever the size, for an export (a report needs them); false: as the
    // size allows.
    void setTitlesForced(bool forced);

  signals:
    void pinsChanged();

  protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    struct Slot {
        QLineSeries* throughput = nullptr;
        QLineSeries* efficiency = nullptr;
    };
    struct Chart {
        QChart* chart = nullptr;
        QLogValueAxis* x = nullptr;
        // Throughput: log10 on the GPU chart, where 1 and 1,024 GPUs differ a thousandfold
        // and a linear axis put every count up to 64 on zero; linear on the batch chart.
        QValueAxis* throughput = nullptr;
        QLogValueAxis* throughput_log = nullptr;
        QAbstractAxis* throughputAxis() const;
        QValueAxis* efficiency = nullptr;
        std::array<Slot, kMaxPins + 1> lines;
        // The current scenario's error band: throughput between its low and high bounds.
        QAreaSeries* band = nullptr;
        QLineSeries* band_low = nullptr;
        QLineSeries* band_high = nullptr;
        QGraphicsRectItem* marker = nullptr; // where the current scenario sits
        std::optional<QPointF> marker_at;    // in the axes' values
        QScatterSeries* overflow = nullptr;  // batches that do not fit in memory
        QScatterSeries* measured = nullptr;  // the user's measured runs
    };
    Chart makeChart(const QString& title, const QString& x_title, bool log_throughput);
    // Qt Charts lays out every axis label again on each change, so a hidden view (the
    // other tab) only notes that it is stale and refreshes when shown.
    void refreshWhenVisible();
    void refresh();
    void fill(Chart& chart, bool by_gpus);
    // Where the marker goes in the chart as it is laid out now.
    void placeMarker(Chart& chart);
    void applyTheme();
    void setCompact(bool compact, bool sparse_x, bool tiny);
    // Side by side when wide, stacked when narrow: a chart under ~450 px elides its labels.
    static constexpr int kStackedBelow = 900;
    bool isStacked() const { return width() < kStackedBelow; }
    void applyTitles();
    void updateLegend();
    void updateValues();

    ResultPtr m_result;
    bool m_compact = false;
    bool m_titles_forced = false;
    ChartLegend* m_legend = nullptr;
    bool m_sparse_x = false;
    bool m_tiny = false;
    std::array<double, 2> m_units{1, 1}; // throughput axis unit (1 or 1000), GPU and batch chart
    bool m_stale = false;
    QList<PinnedCurves> m_pins;
    std::vector<ValidationRow> m_measurements;
    QString m_measurements_file;
    Chart m_gpu;
    Chart m_batch;
    QChartView* m_gpu_view = nullptr;
    QChartView* m_batch_view = nullptr;
    QToolButton* m_values_button = nullptr;
    QWidget* m_values = nullptr; // the two tables, side by side
    QTableWidget* m_gpu_values = nullptr;
    QTableWidget* m_batch_values = nullptr;
};

// Dark chart theme under a dark palette, light otherwise.
bool isDarkPalette(const QPalette& palette);

// Sets [0, max] rounded up to a 1-2-5 step with at most five intervals, in one call: every
// range change relayouts all of the axis' labels, and setRange() followed by
// applyNiceNumbers() changed it twice per result. Returns the step.
double setNiceRange(QValueAxis* axis, double max);

// Sets a log10 axis to whole decades around [min, max] (both > 0), a hair beyond them so
// that the lowest and the highest decade keep their labels. Returns the decades shown.
int setDecadeRange(QLogValueAxis* axis, double min, double max);

} // namespace iterscope::ui
