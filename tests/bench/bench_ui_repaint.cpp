// Control change -> every view repainted, ResNet-152 (issue 5: "within one frame").
// Moves the batch back and forth and times, per change: the off-thread prediction until
// the summary, table, timeline and layer chart show it; the scaling curves (computed after
// it); and a synchronous repaint of the whole window. Prints medians and 95th percentiles.
#include "main_window.h"
#include "scenario_panel.h"

#include "predictor.h"
#include <QApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    iterscope::ui::MainWindow window(false);
    window.resize(1600, 1000);
    window.show();
    iterscope::ui::ScenarioSettings settings;
    settings.network = QStringLiteral("resnet152");
    window.setScenario(settings);
    if (!window.waitForResult() || !window.currentResult()) {
        std::fprintf(stderr, "bench_ui_repaint: %s\n", qPrintable(window.lastError()));
        return 1;
    }
    // Connected after the window's own slot, so this runs once the views have taken the
    // result: the time from arrival to here is the views' update.
    QElapsedTimer arrival;
    double views_ms = 0;
    QObject::connect(window.predictor(), &iterscope::ui::Predictor::finished, &window,
                     [&] { views_ms = double(arrival.nsecsElapsed()) / 1e6; });
    double curves_ms = 0;
    QObject::connect(window.predictor(), &iterscope::ui::Predictor::curvesReady, &window,
                     [&] { curves_ms = double(arrival.nsecsElapsed()) / 1e6; });
    std::vector<double> total_ms, paint_ms, worker_ms, update_ms, chart_ms;
    const int rounds = 40;
    for (int i = 0; i < rounds; ++i) {
        QElapsedTimer timer;
        timer.start();
        // The first spin box is the layout's nodes; drive the batch through settings
        // instead, exactly as the panel does on a slider move.
        settings.batch = i % 2 ? 64 : 48;
        arrival.start();
        window.setScenario(settings);
        window.waitForResult();
        worker_ms.push_back(window.currentResult()->compute_ms);
        update_ms.push_back(views_ms);
        chart_ms.push_back(curves_ms);
        QElapsedTimer paint;
        paint.start();
        window.repaint(); // synchronous: table, timeline, both charts, summary
        paint_ms.push_back(double(paint.nsecsElapsed()) / 1e6);
        total_ms.push_back(double(timer.nsecsElapsed()) / 1e6);
    }
    const auto stat = [](std::vector<double> v, double q) {
        std::sort(v.begin(), v.end());
        return v[std::min(v.size() - 1, std::size_t(q * double(v.size())))];
    };
    std::printf("control change -> all views repainted, resnet152, %d rounds, %zu layers\n", rounds,
                window.currentResult()->prediction.layers.size());
    std::printf("  total   median %.2f ms  p95 %.2f ms\n", stat(total_ms, 0.5),
                stat(total_ms, 0.95));
    std::printf("  repaint median %.2f ms  p95 %.2f ms\n", stat(paint_ms, 0.5),
                stat(paint_ms, 0.95));
    std::printf("  worker: prediction and single-GPU comparison, median %.2f ms\n",
                stat(worker_ms, 0.5));
    std::printf("  request -> summary, table, timeline, layer chart updated: median %.2f ms "
                "p95 %.2f ms\n",
                stat(update_ms, 0.5), stat(update_ms, 0.95));
    std::printf("  request -> scaling curves updated: median %.2f ms p95 %.2f ms\n",
                stat(chart_ms, 0.5), stat(chart_ms, 0.95));
    return 0;
}
