// Control change -> every view updated and painted, ResNet-152 (issue 5: "within one
// frame"). Moves the batch back and forth through the scenario panel, as a slider drag
// does, and times per change:
//   - shown: the request until the summary, table, timeline and layer chart hold the new
//     prediction (the worker's prediction included);
//   - curves: until the scaling curves hold it too (they are computed after it);
//   - painted: until the window has painted all of that (the paint events the change
//     queued, processed as the event loop would);
// and, apart, the worker's own time and what a forced repaint of the whole window costs.
// Prints medians and 95th percentiles.
#include "prediction/predictor.h"
#include "window/main_window.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

using iterscope::ui::Predictor;

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
    QApplication::processEvents();

    // Connected after the window's own slots, so these run once the views have taken the
    // result.
    QElapsedTimer clock;
    double shown_ms = 0, curves_ms = 0;
    QEventLoop loop;
    QObject::connect(window.predictor(), &Predictor::finished, &window,
                     [&] { shown_ms = double(clock.nsecsElapsed()) / 1e6; });
    QObject::connect(window.predictor(), &Predictor::curvesReady, &window, [&] {
        curves_ms = double(clock.nsecsElapsed()) / 1e6;
        loop.quit();
    });
    std::vector<double> shown, curves, painted, worker, repaint;
    const int rounds = 60;
    const auto run = [&] {
        for (int i = 0; i < rounds; ++i) {
            settings.batch = i % 2 ? 64 : 48;
            clock.start();
            window.setScenario(settings);
            QTimer::singleShot(10000, &loop, &QEventLoop::quit);
            loop.exec();
            // Paint what the change made dirty, as the event loop would: posted events in
            // their order, the low-priority update requests after the rest (sending the
            // update requests first, as this did, painted a chart whose scene had queued
            // its own update in a second pass no real event loop makes).
            QApplication::processEvents();
            painted.push_back(double(clock.nsecsElapsed()) / 1e6);
            shown.push_back(shown_ms);
            curves.push_back(curves_ms);
            worker.push_back(window.currentResult()->compute_ms);
            QElapsedTimer full;
            full.start();
            window.repaint();
            repaint.push_back(double(full.nsecsElapsed()) / 1e6);
        }
    };
    run();
    const auto stat = [](std::vector<double> v, double q) {
        std::sort(v.begin(), v.end());
        return v[std::min(v.size() - 1, std::size_t(q * double(v.size())))];
    };
    const auto line = [&](const char* what, const std::vector<double>& v) {
        std::printf("  %-62s median %6.2f ms  p95 %6.2f ms\n", what, stat(v, 0.5), stat(v, 0.95));
    };
    std::printf("control change -> views, resnet152 (%zu layers), %d changes\n",
                window.currentResult()->prediction.layers.size(), rounds);
    line("change -> summary, table, timeline, layer chart updated", shown);
    line("change -> scaling curves updated", curves);
    line("change -> all of it painted", painted);
    line("worker: prediction and single-GPU comparison", worker);
    line("a forced repaint of the whole window (for comparison)", repaint);

    // The per-GPU Gantt at its busiest: eight pipeline stages, each its own block of rows.
    settings.gpus_per_node = 8;
    settings.parallel = QStringLiteral("pipeline");
    settings.pipeline_stages = 8;
    for (auto* v : {&shown, &curves, &painted, &worker, &repaint})
        v->clear();
    run();
    std::printf("control change -> views, resnet152, 8 GPUs as an 8-stage pipeline, %d changes\n",
                rounds);
    line("change -> summary, table, timeline, layer chart updated", shown);
    line("change -> scaling curves updated", curves);
    line("change -> all of it painted", painted);
    line("worker: prediction and single-GPU comparison", worker);
    line("a forced repaint of the whole window (for comparison)", repaint);
    return 0;
}
